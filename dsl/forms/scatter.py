"""Scatter and Segment: rows folded into the rows an index tensor picks."""

from __future__ import annotations

from typing import Any

import attrs

from dsl import shapes as Sh

from dsl import scalar as S
from dsl.forms.checks import Check
from dsl.types import DataType

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
    #: A float16 variant where the op takes float32: each fold computes in float32 and rounds into
    #: the output's half (the output holds the running result: no scratch; ADR 0076).
    takes_half = True

    def problems(self, op: Any, check: Check) -> None:
        inputs = check.inputs
        check.need_input(self.indices)
        check.need_input(self.updates)
        if self.indices in inputs and inputs[self.indices].type is not DataType.LONG:
            check.add(f"input '{self.indices}' must be LONG (the rows to fold into)")
        if (self.ref is None) == (self.rows is None):
            check.add("a scatter starts from a ref input, a segment reduction from a number of rows: exactly one")
        if self.ref is not None:
            check.need_input(self.ref)
        if self.rows is not None:
            check.need_arg(self.rows, (DataType.INT, DataType.LONG), False, "rows of the result")
        if self.init not in SEGMENT_INITS:
            check.add(f"init must be one of {', '.join(SEGMENT_INITS)}, got {self.init!r}")
        if self.updates in inputs and op.outputs and op.outputs[0].type is not inputs[self.updates].type:
            check.add(f"the output has the type of {self.updates} ({inputs[self.updates].type.value})")
        if self.scale is not None and self.scale not in SEGMENT_SCALES:
            check.add(f"scale must be None or one of {', '.join(SEGMENT_SCALES)}, got {self.scale!r}")
        if self.scale is not None and self.rows is None:
            check.add("only a segment reduction scales its rows")
        if self.scale and self.updates in inputs and inputs[self.updates].type is not DataType.FLOATING_POINT:
            check.add(f"scaling divides: input '{self.updates}' must be FLOATING_POINT")
        check.functions_known(self.combine, {"acc", "u"}, "combine")
        check.out.extend(S.integer_misuse(self.combine))
        if len(op.outputs) != 1:
            check.add("a scatter has exactly one output")

    def output_shapes(self, op: Any) -> tuple[Any, ...]:
        if self.ref is not None:
            return (Sh.tensor(self.ref),)
        row = Sh.Slice(Sh.tensor(self.updates), Sh.rank(self.indices), None)
        return (Sh.Concat((Sh.Dims((Sh.arg(self.rows),)), row)),)

    def refusals(self, op: Any) -> tuple[Sh.Refusal, ...]:
        k = Sh.rank(self.indices)
        updates = Sh.tensor(self.updates)
        row = Sh.Slice(updates, k, None)
        out = [Sh.Refusal(f"{self.updates}: its first axes must be the shape of {self.indices}",
                          Sh.ShapesEqual(Sh.Slice(updates, None, k), Sh.tensor(self.indices)))]
        if self.ref is not None:
            ref = Sh.tensor(self.ref)
            out += [Sh.Refusal(f"{self.ref}: must have rank 1 or more", Sh.compare(Sh.rank(self.ref), ">=", 1)),
                    Sh.Refusal(f"{self.updates}: its rows must have the shape of the rows of {self.ref}",
                               Sh.ShapesEqual(Sh.Slice(ref, 1, None), row))]
        else:
            out += [Sh.Refusal(f"{self.rows}: must be 0 or more", Sh.compare(Sh.arg(self.rows), ">=", 0)),
                    Sh.Refusal(f"{self.updates}: the result's rank is above {Sh.MAX_RANK}",
                               Sh.compare(Sh.add(Sh.Length(row), 1), "<=", Sh.MAX_RANK))]
        return tuple(out)

    def value_refusals(self, op: Any) -> tuple[str, ...]:
        """What the targets check on values at run time (no shape says it)."""
        return (f"{self.indices}: values must pick existing rows" + (", in order" if self.sorted else ""),)

#: What a segment reduction's rows start at (and what an empty segment gives).
SEGMENT_INITS = ("zero", "one", "lowest", "highest")
#: What a segment reduction may divide each row by: its count, or the count's square root.
SEGMENT_SCALES = ("mean", "sqrt_n")
