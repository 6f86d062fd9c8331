"""Generate: a tensor made from args (fill, range, eye, ...) or placed by an input's values."""

from __future__ import annotations

from typing import Any

import attrs

from dsl import expr as E
from dsl import shapes as Sh

from dsl import defaults
from dsl.forms.checks import Check
from dsl.types import DataType

@attrs.frozen
class Generation:
    """A tensor made from args alone (fill, range, linspace, eye), or from the
    values of an input (one_hot, sequence_mask, cast), in the dtype the op's
    ``dtype`` arg names. ``params`` maps each role of the kind
    (:data:`GENERATE_ROLES`) to the op's arg that gives it."""

    generator: str
    params: tuple[tuple[str, str], ...]

    kind = "generation"

    #: cast converts from and to float16 (ADR 0075); the other generators make halves from their
    #: values in double, rounded once (ADR 0076).
    takes_half = True

    def arg(self, role: str) -> str:
        return dict(self.params)[role]

    def problems(self, op: Any, check: Check) -> None:
        check.roles("generator", self.generator, GENERATE_ROLES, self.params)
        check.need_arg("dtype", (DataType.DATA_TYPE,), False, "the output's dtype")
        check.plain_dtype("dtype")
        tensor_roles = {name for role, name in self.params
                        if dict(GENERATE_ROLES.get(self.generator, ())).get(role) in ("tensor", "any")}
        # An input may also be what an arg's default reads (full_like: the shape and dtype of x).
        read = {defaults.source(a.default).name for a in op.args if defaults.is_computed(a)}  # type: ignore[arg-type]
        for i in op.inputs:
            if i.name not in tensor_roles | read:
                check.add("a generated tensor is made from args and its generator's tensor roles: "
                          f"input '{i.name}' is neither, nor read by an arg's default")

    def output_shapes(self, op: Any) -> tuple[Any, ...]:
        role = lambda name: Sh.arg(self.arg(name))  # noqa: E731
        kind = self.generator
        if kind == "fill":
            return (Sh.ArgShape(role("shape")),)
        if kind == "range":
            return (Sh.Dims((self._count(),)),)
        if kind == "linspace":
            return (Sh.Dims((role("num"),)),)
        if kind in ("eye", "tri"):
            return (Sh.Dims((role("rows"), role("cols"))),)
        if kind == "one_hot":
            indices = Sh.tensor(self.arg("indices"))
            at = Sh.normalized(role("axis"), Sh.add(Sh.Length(indices), 1))
            return (Sh.insert(indices, at, role("depth")),)
        if kind == "sequence_mask":
            return (Sh.Concat((Sh.tensor(self.arg("lengths")), Sh.Dims((role("maxlen"),)))),)
        return (Sh.tensor(self.arg("input")),)  # cast

    def refusals(self, op: Any) -> tuple[Sh.Refusal, ...]:
        role = lambda name: Sh.arg(self.arg(name))  # noqa: E731
        kind = self.generator
        if kind == "fill":
            shape = role("shape")
            return (Sh.Refusal(f"{self.arg('shape')}: at most {Sh.MAX_RANK} non-negative sizes", Sh.all_of(
                Sh.compare(Sh.Length(shape), "<=", Sh.MAX_RANK), Sh.AllValues(shape, Sh.compare(Sh.Value(), ">=", 0)),
                Sh.compare(Sh.Numel(shape), "<=", Sh.MAX_ELEMENTS))),)
        if kind == "range":
            start, limit, delta = role("start"), role("limit"), role("delta")
            length = Sh.Ceil(E.Arith("/", Sh.sub(limit, start), delta))
            return (Sh.Refusal("start, limit, delta: must be finite, with delta not 0", Sh.all_of(
                        Sh.Finite(start), Sh.Finite(limit), Sh.Finite(delta), Sh.compare(delta, "!=", 0))),
                    Sh.Refusal(f"start, limit, delta: more than {GENERATE_LIMIT} elements",
                               Sh.compare(length, "<=", GENERATE_LIMIT)))
        if kind == "linspace":
            num = role("num")
            return (Sh.Refusal(f"start, stop, num: finite ends and 0 <= num <= {GENERATE_LIMIT}", Sh.all_of(
                Sh.Finite(role("start")), Sh.Finite(role("stop")), Sh.compare(num, ">=", 0),
                Sh.compare(num, "<=", GENERATE_LIMIT))),)
        if kind in ("eye", "tri"):
            rows, cols = role("rows"), role("cols")
            return (Sh.Refusal("rows, cols: must be non-negative", Sh.all_of(
                Sh.compare(rows, ">=", 0), Sh.compare(cols, ">=", 0),
                Sh.compare(Sh.mul(rows, cols), "<=", Sh.MAX_ELEMENTS))),)
        if kind == "one_hot":
            indices = Sh.tensor(self.arg("indices"))
            rank = Sh.add(Sh.Length(indices), 1)
            return (Sh.Refusal(f"{self.arg('depth')}: must be 0 or more", Sh.compare(role("depth"), ">=", 0)),
                    Sh.Refusal(f"{self.arg('indices')}: the result's rank is above {Sh.MAX_RANK}",
                               Sh.compare(rank, "<=", Sh.MAX_RANK)),
                    Sh.Refusal(f"{self.arg('axis')}: out of range for the result's rank", Sh.in_range(role("axis"), rank)))
        if kind == "sequence_mask":
            lengths = Sh.tensor(self.arg("lengths"))
            return (Sh.Refusal(f"{self.arg('maxlen')}: must be 0 or more", Sh.compare(role("maxlen"), ">=", 0)),
                    Sh.Refusal(f"{self.arg('lengths')}: the result's rank is above {Sh.MAX_RANK}",
                               Sh.compare(Sh.Length(lengths), "<", Sh.MAX_RANK)))
        return ()

    def _count(self) -> Any:
        """How many values a range or linspace gives."""
        role = lambda name: Sh.arg(self.arg(name))  # noqa: E731
        if self.generator == "linspace":
            return role("num")
        length = Sh.Ceil(E.Arith("/", Sh.sub(role("limit"), role("start")), role("delta")))
        return Sh.Max((Sh.size(0), length))

    def ends(self) -> tuple[Any, Any, Any] | None:
        """range and linspace: (how many values, the start, the end: range's last value,
        linspace's stop, even where num is 1), from the args. Where there are values, each end,
        truncated toward zero, must lie within an integer dtype's range (the values between them
        lie between them); None for the other generators."""
        role = lambda name: Sh.arg(self.arg(name))  # noqa: E731
        if self.generator == "linspace":
            return self._count(), role("start"), role("stop")
        if self.generator == "range":
            count = self._count()
            return count, role("start"), Sh.add(role("start"), Sh.mul(Sh.sub(count, 1), role("delta")))
        return None

    def value_refusals(self, op: Any) -> tuple[str, ...]:
        """What the targets check on values at run time (no shape says it)."""
        if self.generator in ("fill", "one_hot"):
            return ("the values must convert exactly to the dtype",)
        if self.generator in ("range", "linspace"):
            return ("the values must fit an integer dtype",)
        return ()

#: Generation kinds -> their roles: (role, "list" | "int" | "float" | "tensor" | "any").
#: A "tensor" role names a LONG input whose values place the generated ones (one_hot's indices);
#: an "any" role an input of any dtype whose values are converted (cast).
GENERATE_ROLES: dict[str, tuple[tuple[str, str], ...]] = {
    "fill": (("shape", "list"), ("value", "float")),
    "range": (("start", "float"), ("limit", "float"), ("delta", "float")),
    "linspace": (("start", "float"), ("stop", "float"), ("num", "int")),
    "eye": (("rows", "int"), ("cols", "int")),
    "tri": (("rows", "int"), ("cols", "int"), ("diag", "int")),
    "one_hot": (("indices", "tensor"), ("depth", "int"), ("axis", "int"), ("on", "float"), ("off", "float")),
    "sequence_mask": (("lengths", "tensor"), ("maxlen", "int")),
    "cast": (("input", "any"),),
}


#: The most elements a range or linspace may have (every target's limit).
GENERATE_LIMIT = 2**40
