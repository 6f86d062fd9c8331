"""Scatter and Segment: rows folded into the rows an index tensor picks."""

from __future__ import annotations

from typing import Any

import attrs

from dsl.scalar import SExpr

@attrs.frozen
class ScatterRows:
    """Rows of ``updates`` folded, in order, into the rows of the result that
    ``indices`` pick: ``row = combine(row, update)`` (``combine`` over ``acc``, ``u``).

    The first ``indices.rank`` axes of ``updates`` follow ``indices``; the rest
    are a row of the result. A scatter (``ref`` set) starts from a copy of ``ref``
    and takes negative indices from the end. A segment reduction (``rows`` set:
    the arg giving the number of rows) starts every row at ``init`` (the fold's
    identity: :data:`SEGMENT_INITS`), takes indices in 0..rows-1, divides each
    row by the number n of updates it got (``scale="mean"``) or by sqrt(n)
    (``scale="sqrt_n"``), and requires
    non-decreasing indices when ``sorted``.
    """

    combine: SExpr
    indices: str
    updates: str
    ref: str | None = None
    rows: str | None = None
    init: str = "zero"
    scale: str | None = None
    sorted: bool = False

    kind = "scatter"


#: What a segment reduction's rows start at (and what an empty segment gives).
SEGMENT_INITS = ("zero", "one", "lowest", "highest")
#: What a segment reduction may divide each row by: its count, or the count's square root.
SEGMENT_SCALES = ("mean", "sqrt_n")
