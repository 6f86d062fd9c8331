"""FindAll: the flat indices where a predicate holds, in a capacity of every element, and their count."""

from __future__ import annotations

from typing import Any

import attrs

from dsl import shapes as Sh

from dsl.forms.checks import Check
from dsl.types import DataType

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
    #: A float16 variant where the op takes float32: the predicate reads each half as its float
    #: (ADR 0076).
    takes_half = True

    def problems(self, op: Any, check: Check) -> None:
        check.need_input(self.input)
        if len(op.inputs) != 1:
            check.add("FindAll searches its one input")
        if len(op.outputs) != 2 or any(o.type is not DataType.LONG for o in op.outputs):
            check.add("FindAll gives two LONG outputs: the indices (as many as the input's elements) and their count")
        check.map_ok(self.map, self.args)

    def output_shapes(self, op: Any) -> tuple[Any, ...]:
        return (Sh.Dims((Sh.Numel(Sh.tensor(self.input)),)), Sh.Dims(()))

    def refusals(self, op: Any) -> tuple[Sh.Refusal, ...]:
        return ()

    def value_refusals(self, op: Any) -> tuple[str, ...]:
        return ()
