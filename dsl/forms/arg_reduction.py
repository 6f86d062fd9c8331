"""ArgReduce: the index of an extreme, or of the first or last element a predicate holds for."""

from __future__ import annotations

from typing import Any

import attrs

from dsl import shapes as Sh

from dsl.forms.checks import Check
from dsl.types import DataType

from dsl.scalar import SExpr

@attrs.frozen
class ArgReduction:
    """Index of the first maximum (or minimum) along one axis; NaN counts as the extreme.

    ``which`` is ``"max"``, ``"min"``, or ``"first"``/``"last"``: the index of the
    first (last) element where the predicate ``map`` holds, -1 where none does
    (an empty axis included). Where ``last_index`` names a bool arg, an extreme's
    search gives the last of tied extremes (the last NaN) when it is true (ONNX's
    select_last_index)."""

    input: str
    axis: str
    keep_dims: str
    which: str
    #: Compare f(x) instead of x (``abs`` for iamax); for first/last, the predicate.
    map: SExpr | None = None
    #: Scalar args the map reads (``lambda x, condition, value: ...``).
    args: tuple[str, ...] = ()
    last_index: str | None = None

    @property
    def searches(self) -> bool:
        """first/last: a search for a predicate, defined (-1) on an empty axis."""
        return self.which in ("first", "last")

    kind = "argreduction"
    #: A float16 variant where the op takes float32: it compares the halves as floats (ADR 0076).
    takes_half = True

    def problems(self, op: Any, check: Check) -> None:
        check.need_input(self.input)
        check.need_arg(self.axis, (DataType.INT, DataType.LONG), False, "axis to search")
        check.need_arg(self.keep_dims, (DataType.BOOLEAN,), False, "keep the searched axis")
        if self.which not in ("max", "min", "first", "last"):
            check.add(f"ArgReduce takes 'max', 'min', 'first' or 'last', got {self.which!r}")
        if op.outputs and op.outputs[0].type is not DataType.LONG:
            check.add("ArgReduce's output must be LONG")
        if self.searches and self.map is None:
            check.add(f"ArgReduce({self.which!r}) needs a predicate: map=lambda x, ...: <a condition>")
        if self.args and not self.searches:
            check.add("only a first/last search reads args in its map")
        check.map_ok(self.map, self.args)
        if self.last_index is not None:
            check.need_arg(self.last_index, (DataType.BOOLEAN,), False, "pick the last of tied extremes")
            if self.searches:
                check.add(f"a {self.which} search takes no last_index (it says which match it gives)")

    def output_shapes(self, op: Any) -> tuple[Any, ...]:
        x, rank = Sh.tensor(self.input), Sh.rank(self.input)
        axis = Sh.normalized(Sh.arg(self.axis), rank)
        return (Sh.Where(Sh.arg(self.keep_dims), Sh.replace(x, axis, 1), Sh.remove(x, axis)),)

    def refusals(self, op: Any) -> tuple[Sh.Refusal, ...]:
        x, rank = Sh.tensor(self.input), Sh.rank(self.input)
        out = [Sh.Refusal(f"{self.input} must have rank 1 or more", Sh.compare(rank, ">=", 1)),
               Sh.Refusal(f"{self.axis} is out of range for the rank of {self.input}",
                          Sh.in_range(Sh.arg(self.axis), rank))]
        if not self.searches:  # an extreme of no elements, where a result is wanted
            axis = Sh.normalized(Sh.arg(self.axis), rank)
            out.append(Sh.Refusal("cannot search an empty axis", Sh.not_(Sh.all_of(
                Sh.compare(Sh.Item(x, axis), "==", 0), Sh.compare(Sh.Numel(Sh.remove(x, axis)), ">", 0))), "empty"))
        return tuple(out)

    def value_refusals(self, op: Any) -> tuple[str, ...]:
        return ()
