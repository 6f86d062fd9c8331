"""Elementwise: a scalar function of inputs and scalar args, element by element."""

from __future__ import annotations

from typing import Any

import attrs

from dsl.scalar import SExpr

@attrs.frozen
class Elementwise:
    """``output = f(inputs..., scalar args...)`` elementwise.

    ``broadcast`` is "numpy" (arithmetic) or "strict" (equal shapes or one
    scalar operand: TML's rule for logical, relational and bitwise ops).
    ``optional`` names the function's parameters that default to None (an
    optional arg); ``cases`` holds one expression per subset of them that is
    given, all given first.
    """

    params: tuple[str, ...]
    optional: tuple[str, ...]
    cases: tuple[tuple[tuple[str, ...], SExpr], ...]
    broadcast: str

    kind = "elementwise"

    @property
    def expr(self) -> SExpr:
        return self.cases[0][1]

    def case(self, given: tuple[str, ...]) -> SExpr:
        """The expression when exactly the optional args ``given`` are set."""
        return next(e for g, e in self.cases if set(g) == set(given))
