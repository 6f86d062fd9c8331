"""ShapeOf: a fact of a tensor's shape as a LONG tensor."""

from __future__ import annotations

from typing import Any

import attrs

from dsl import shapes as Sh

from dsl.forms.checks import Check
from dsl.types import DataType

@attrs.frozen
class ShapeQuery:
    """Facts of ``input``'s shape as a LONG tensor: its ``shape`` (a vector),
    ``size`` (element count), ``rank``, or ``size_at`` the axis arg ``axis``."""

    query: str
    input: str
    axis: str | None = None

    kind = "shape_query"
    #: No element is read: a float16 tensor's shape is any other's (ADR 0076).
    takes_half = True

    def problems(self, op: Any, check: Check) -> None:
        check.need_input(self.input)
        if self.query not in SHAPE_QUERIES:
            check.add(f"unknown shape query {self.query!r} (known: {', '.join(SHAPE_QUERIES)})")
        if (self.query == "size_at") != (self.axis is not None):
            check.add("only size_at takes an axis")
        if self.axis is not None:
            check.need_arg(self.axis, (DataType.INT, DataType.LONG), False, "the axis whose size to give")
        if op.outputs and op.outputs[0].type is not DataType.LONG:
            check.add("a shape query's output is LONG")

    def output_shapes(self, op: Any) -> tuple[Any, ...]:
        return (Sh.Dims((Sh.rank(self.input),)) if self.query == "shape" else Sh.Dims(()),)

    def refusals(self, op: Any) -> tuple[Sh.Refusal, ...]:
        if self.axis is None:
            return ()
        return (Sh.Refusal(f"{self.axis}: out of range for the rank of {self.input}",
                           Sh.in_range(Sh.arg(self.axis), Sh.rank(self.input))),)

    def value_refusals(self, op: Any) -> tuple[str, ...]:
        return ()

    def values(self) -> Any:
        """What the output holds, as a shape expression: the input's shape (a vector), or one
        size (its element count, its rank, the size of the axis)."""
        x = Sh.tensor(self.input)
        if self.query == "shape":
            return x
        if self.query == "size":
            return Sh.Numel(x)
        if self.query == "rank":
            return Sh.rank(self.input)
        return Sh.Item(x, Sh.normalized(Sh.arg(self.axis), Sh.rank(self.input)))

#: What a shape query can ask.
SHAPE_QUERIES = ("shape", "size", "rank", "size_at")
