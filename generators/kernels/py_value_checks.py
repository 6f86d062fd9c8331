"""The checks a Python binding makes on values (``value_refusals``): what no shape says.

One method per form that has such checks, named after the form as the C emitter's
are (ADR 0029); a form without one checks nothing on values. The lines run after the
output shapes (``_shape``, ``_shape1``, ..., or ``_shapes``) are known, and raise
ValueError with the runtime's words, prefixed with the op's name. The generation-time
evaluator (``evaluate.run``) runs the same lines.
"""

from __future__ import annotations

from dsl import compute as C
from dsl.model import Op
from dsl.types import DataType
from generators.kernels.messages import scatter_messages
from generators.kernels.py_names import py_name


def _guarded(*call: str) -> list[str]:
    """``call``, its ValueError naming the op."""
    return ["try:", *(f"    {line}" for line in call),
            "except ValueError as exc:", "    raise ValueError(f\"{_op}: {exc}\") from None"]


class PyValueChecks:
    """Value checks of a binding, by form."""

    def lines(self, op: Op) -> list[str]:
        if not op.compute.value_refusals(op):  # the form says what it refuses on values
            return []
        name = next(n for n in C.form_class_names(op.compute) if hasattr(self, n))
        return getattr(self, name)(op, op.compute)

    def fragmentkernel(self, op: Op, c: C.FragmentKernel) -> list[str]:
        return []  # the kernel finds it, in either backend (see the call)

    @staticmethod
    def _params(op: Op, params: tuple[tuple[str, str], ...]) -> str:
        """The form's roles bound to the binding's values (an ENUM arg as its index)."""
        enums = {a.name for a in op.args if a.type is DataType.ENUM}
        return ", ".join(f"{role!r}: {py_name(name)}" + ("_index" if name in enums else "") for role, name in params)

    def generation(self, op: Op, c: C.Generation) -> list[str]:
        return _guarded(f"_k.generate_check({c.generator!r}, {{{self._params(op, c.params)}}}, dtype, _shape)")

    def layoutmove(self, op: Op, c: C.LayoutMove) -> list[str]:
        lines = [] if c.layout == "pad" else _guarded(
            f"_k.layout_check({c.layout!r}, {py_name(c.input)}.shape, {{{self._params(op, c.params)}}})")
        if c.layout == "pad":  # a constant pad writes the value: it must convert exactly
            value, x = py_name(c.arg("value")), py_name(c.input)
            lines += [f"if {py_name(c.arg('mode'))}_index == 0:",
                      *(f"    {line}" for line in _guarded(f"_k.fill_value({value}, {x}.dtype)"))]
        return lines

    def scatterrows(self, op: Op, c: C.ScatterRows) -> list[str]:
        return [f"_messages = {scatter_messages(c)!r}",
                *_guarded(f"_k.scatter_at({py_name(c.indices)}, _shape[0], {c.ref is not None}, {c.sorted}, "
                          "_messages)")]
