"""Elementwise: a scalar function of inputs and scalar args, element by element."""

from __future__ import annotations

from typing import Any

import attrs

from dsl import shapes as Sh

from dsl import scalar as S
from dsl.dtypes import CONCRETE
from dsl.forms.checks import Check
from dsl.types import DataType

from dsl.scalar import SExpr

#: How an elementwise op's operands may differ in shape (see :class:`Elementwise`).
BROADCASTS = ("numpy", "strict", "equal")


@attrs.frozen
class Elementwise:
    """``output = f(inputs..., scalar args...)`` elementwise.

    ``broadcast`` is "numpy" (arithmetic), "strict" (equal shapes or one
    scalar operand: TML's rule for logical, relational and bitwise ops) or
    "equal" (equal shapes, the first operand's: a backward op's gradient and input).
    ``optional`` names the function's parameters that default to None (an
    optional arg); ``cases`` holds one expression per subset of them that is
    given, all given first.
    """

    params: tuple[str, ...]
    optional: tuple[str, ...]
    cases: tuple[tuple[tuple[str, ...], SExpr], ...]
    broadcast: str

    kind = "elementwise"
    #: A float16 variant where the op takes float32: it computes in float32 (ADR 0075).
    takes_half = True
    #: An output larger than the result is accepted if the result broadcasts into it (and is
    #: then written there by broadcasting), as NumPy's ufuncs treat their ``out``.
    broadcasts_into_output = True

    @property
    def expr(self) -> SExpr:
        return self.cases[0][1]

    def case(self, given: tuple[str, ...]) -> SExpr:
        """The expression when exactly the optional args ``given`` are set."""
        return next(e for g, e in self.cases if set(g) == set(given))

    def presence(self, given: tuple[str, ...]) -> tuple[tuple[str, bool], ...]:
        """When the case of ``given`` applies, the rule every target renders as it tests an arg's
        presence: each optional arg and whether it is set (those ``given``, first) or not."""
        return (*((p, True) for p in given), *((p, False) for p in self.optional if p not in given))

    def problems(self, op: Any, check: Check) -> None:
        inputs = check.inputs
        for p in self.params:
            if p in inputs:
                check.need_input(p)
            elif check.scalar_arg(p) is None:
                check.add(f"elementwise function parameter '{p}' is neither an input nor a single-valued arg")
        if self.broadcast not in BROADCASTS:
            check.add(f"broadcast must be one of {', '.join(map(repr, BROADCASTS))}, got {self.broadcast!r}")
        for name in self.optional:
            arg = check.args.get(name)
            if arg is None or arg.default is not None:
                check.add(f"elementwise parameter '{name}' defaults to None, so it must be an arg with default None")
        float_only = {f for _, e in self.cases for f in S.functions(e) if S.FUNCTIONS[f][1] == "float"}
        for p in self.params:
            if p in inputs and float_only and inputs[p].type not in (DataType.FLOATING_POINT,):
                check.add(f"input '{p}' must be FLOATING_POINT for {', '.join(sorted(float_only))}")
        if not any(p in inputs for p in self.params):
            check.add("an elementwise op needs at least one input")
        first = next((inputs[p] for p in self.params if p in inputs), None)
        if first is not None and "bool" in CONCRETE.get(first.type, ()):  # the function may compute in bool
            bad = dict.fromkeys(f for _, e in self.cases for f in sorted(S.functions(e))
                                if S.FUNCTIONS[f][1] in ("num", "float", "int") and f not in S.BOOL_RESULT)
            if bad:
                check.add(f"input '{first.name}' may be bool ({first.type.value}), and the function computes in "
                          f"its dtype, where {', '.join(bad)} is not defined: compare, use logical functions, or "
                          "declare it NUMERIC")
        for _, e in self.cases:
            check.out.extend(dict.fromkeys(S.integer_misuse(e)))
        for _, e in self.cases:
            check.enums_resolve(e)

    def tensors(self, op: Any) -> list[str]:
        """The inputs the function reads (its other parameters are args)."""
        names = {i.name for i in op.inputs}
        return [p for p in self.params if p in names]

    def output_shapes(self, op: Any) -> tuple[Any, ...]:
        shapes = tuple(Sh.tensor(n) for n in self.tensors(op))
        if len(shapes) == 1 or self.broadcast == "equal":  # (one operand, or all of the first's shape)
            return shapes[:1]
        return (Sh.Broadcast(shapes, self.broadcast == "strict"),)

    def refusals(self, op: Any) -> tuple[Sh.Refusal, ...]:
        names = self.tensors(op)
        if len(names) < 2:
            return ()
        shapes = tuple(Sh.tensor(n) for n in names)
        if self.broadcast == "equal":
            return tuple(Sh.Refusal(f"{names[0]}, {n}: shapes must be equal", Sh.ShapesEqual(shapes[0], s))
                         for n, s in zip(names[1:], shapes[1:]))
        if self.broadcast == "strict":  # TML: logical, relational and bitwise ops
            return (Sh.Refusal(f"{', '.join(names)}: shapes must be equal, or one operand a scalar",
                               Sh.Fits(shapes, True)),)
        return (Sh.Refusal(f"{', '.join(names)}: shapes do not broadcast", Sh.Fits(shapes, False)),)

    def value_refusals(self, op: Any) -> tuple[str, ...]:
        return ()
