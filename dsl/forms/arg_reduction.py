"""ArgReduce: the index of an extreme, or of the first or last element a predicate holds for."""

from __future__ import annotations

from typing import Any

import attrs

from dsl.scalar import SExpr

@attrs.frozen
class ArgReduction:
    """Index of the first maximum (or minimum) along one axis; NaN counts as the extreme.

    ``which`` is ``"max"``, ``"min"``, or ``"first"``/``"last"``: the index of the
    first (last) element where the predicate ``map`` holds, -1 where none does
    (an empty axis included)."""

    input: str
    axis: str
    keep_dims: str
    which: str
    #: Compare f(x) instead of x (``abs`` for iamax); for first/last, the predicate.
    map: SExpr | None = None
    #: Scalar args the map reads (``lambda x, condition, value: ...``).
    args: tuple[str, ...] = ()

    @property
    def searches(self) -> bool:
        """first/last: a search for a predicate, defined (-1) on an empty axis."""
        return self.which in ("first", "last")

    kind = "argreduction"
