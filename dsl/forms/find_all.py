"""FindAll: the flat indices where a predicate holds, in a capacity of every element, and their count."""

from __future__ import annotations

from typing import Any

import attrs

from dsl.scalar import SExpr

@attrs.frozen
class FindAll:
    """The flat (row-major) indices of the elements of ``input`` where the
    predicate ``map`` holds, in order (numpy.flatnonzero), into the first
    output, as long as ``input`` (its capacity; zeros after the found ones),
    and how many there are into the second, a scalar: the capacity-and-count
    pattern of ops whose result size depends on the data. ``args`` are the
    scalar args the predicate reads."""

    input: str
    map: SExpr
    args: tuple[str, ...] = ()

    kind = "find_all"
