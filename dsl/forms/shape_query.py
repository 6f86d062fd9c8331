"""ShapeOf: a fact of a tensor's shape as a LONG tensor."""

from __future__ import annotations

from typing import Any

import attrs

@attrs.frozen
class ShapeQuery:
    """Facts of ``input``'s shape as a LONG tensor: its ``shape`` (a vector),
    ``size`` (element count), ``rank``, or ``size_at`` the axis arg ``axis``."""

    query: str
    input: str
    axis: str | None = None

    kind = "shape_query"


#: What a shape query can ask.
SHAPE_QUERIES = ("shape", "size", "rank", "size_at")
