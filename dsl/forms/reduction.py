"""Reduce: combine the (mapped) elements over axes, then finalize."""

from __future__ import annotations

from typing import Any

import attrs

from dsl import shapes as Sh

from dsl import scalar as S
from dsl.forms.checks import Check
from dsl.types import DataType

from dsl.dtypes import HALF, category
from dsl.scalar import SExpr

@attrs.frozen
class Reduction:
    """Combine the (mapped) elements over axes; ``finalize`` sees ``acc``, ``n``
    (elements reduced) and ``m`` (the ``pre`` reduction, if any).

    ``other`` names a second input of the same shape that ``map`` reads as
    ``y`` (dot products, distances): the map then sees the pair ``(x, y)``.
    ``extra_maps`` are further maps combined alongside into ``acc1``,
    ``acc2``, ... for ``finalize`` (cosine similarity needs three sums).

    ``combine`` is add, mul, max or min (max/min propagate NaN, as NumPy).
    ``empty`` says what reducing no elements gives: the combine's identity,
    NaN, or an error (max/min: NumPy raises).
    """

    input: str
    axes: str
    keep_dims: str
    combine: str
    map: SExpr | None
    finalize: SExpr | None
    pre: str | None
    empty: str
    other: str | None = None
    extra_maps: tuple[SExpr, ...] = ()
    #: Scalar args the maps read (``lambda x, condition, value: ...``).
    args: tuple[str, ...] = ()
    #: Finalizers of the outputs after the first (moments: the mean, then the
    #: variance), each seeing what ``finalize`` sees.
    finalize_more: tuple[SExpr, ...] = ()

    kind = "reduction"
    #: A float16 variant where the op takes float32: its elements are read as floats and each
    #: result rounds to the nearest half once (ADR 0075, 0076).
    takes_half = True

    @property
    def finalizers(self) -> tuple[SExpr | None, ...]:
        """One per output, in order (None: the combined value itself)."""
        return (self.finalize, *self.finalize_more)

    def problems(self, op: Any, check: Check) -> None:
        check.need_input(self.input)
        check.need_arg(self.axes, (DataType.INT, DataType.LONG), True, "axes to reduce")
        check.need_arg(self.keep_dims, (DataType.BOOLEAN,), False, "keep reduced axes")
        if self.combine not in REDUCE_COMBINES:
            check.add(f"combine must be one of {', '.join(REDUCE_COMBINES)}, got {self.combine!r}")
        if self.pre not in (None, "max", "mean"):
            check.add(f"pre must be None, 'max' or 'mean', got {self.pre!r}")
        if self.empty not in ("identity", "nan", "error"):
            check.add(f"empty must be 'identity', 'nan' or 'error', got {self.empty!r}")
        if self.other is not None:
            check.need_input(self.other)
            if self.map is None:
                check.add(f"a reduction over {self.input} and {self.other} needs a map(x, y) combining them")
        for node in (self.map, *self.finalizers, *self.extra_maps):
            check.out.extend(S.integer_misuse(node) if node is not None else [])
        for name in self.args:
            if check.scalar_arg(name) is None or check.args[name].default is None:
                check.add(f"map parameter '{name}' must be x, y, m or a single-valued arg that is not optional")
        map_symbols = {"x", *self.args} | ({"m"} if self.pre else set()) | ({"y"} if self.other else set())
        for extra in self.extra_maps:
            check.functions_known(extra, map_symbols, "map")
        if self.map is not None:
            check.functions_known(self.map, map_symbols, "map")
        for node in (self.map, *self.extra_maps):
            if node is not None:
                check.enums_resolve(node)
        for final in self.finalizers:
            if final is None:
                continue
            sums = {"acc", *(f"acc{k}" for k in range(1, len(self.extra_maps) + 1))}
            check.functions_known(final, sums | {"n"} | ({"m"} if self.pre else set()), "finalize")

    def output_shapes(self, op: Any) -> tuple[Any, ...]:
        x, rank = Sh.tensor(self.input), Sh.rank(self.input)
        reduced = Sh.Names(Sh.arg(self.axes), Sh.Axis(), rank, all_when_empty=True)
        keep = Sh.any_of(Sh.arg(self.keep_dims), Sh.not_(reduced))
        shape = Sh.PerAxis(rank, Sh.Where(reduced, Sh.size(1), Sh.Item(x, Sh.Axis())), keep)
        return (shape,) * len(op.outputs)

    def refusals(self, op: Any) -> tuple[Sh.Refusal, ...]:
        x, rank, axes = Sh.tensor(self.input), Sh.rank(self.input), Sh.arg(self.axes)
        out = [Sh.Refusal(f"{self.axes}: an axis is out of range for the rank of {self.input}",
                          Sh.AllValues(axes, Sh.in_range(Sh.Value(), rank))),
               Sh.Refusal(f"{self.axes}: an axis is listed twice", Sh.Distinct(axes, rank))]
        if self.other is not None:
            out.append(Sh.Refusal(f"{self.other} must have the shape of {self.input}",
                                  Sh.ShapesEqual(Sh.tensor(self.other), x)))
        if self.empty == "error":  # nothing to reduce, where a result is wanted
            reduced = Sh.Names(axes, Sh.Axis(), rank, all_when_empty=True)
            over = Sh.Numel(Sh.PerAxis(rank, Sh.Item(x, Sh.Axis()), reduced))
            kept = Sh.Numel(Sh.PerAxis(rank, Sh.Item(x, Sh.Axis()), Sh.not_(reduced)))
            out.append(Sh.Refusal("cannot reduce no elements",
                                  Sh.not_(Sh.all_of(Sh.compare(over, "==", 0), Sh.compare(kept, ">", 0))), "empty"))
        return tuple(out)

    def value_refusals(self, op: Any) -> tuple[str, ...]:
        return ()

REDUCE_COMBINES = ("add", "mul", "max", "min")


def accumulator_dtype(c: Reduction, input_dtype: str, output_dtype: str) -> str:
    """The dtype a reduction combines in: the input's, except that counting
    (an add into an integer output of another dtype) counts in the output's,
    and adding booleans counts in int64."""
    if c.combine == "add" and output_dtype != input_dtype and category(output_dtype) in ("signed", "unsigned"):
        return output_dtype
    if c.combine == "add" and category(input_dtype) == "bool":
        return "int64"  # counting truths
    return input_dtype


@attrs.frozen
class ReductionDtypes:
    """The dtypes a reduction's variant computes in, for every target."""

    elements: str  # the elements' and the maps' (and ``m``'s)
    accumulator: str  # what ``combine`` folds into (``acc``)
    finalize: str  # what the finalizers compute in
    converts: bool  # each result converts to its output's dtype by cast's rule


def reduction_dtypes(c: Reduction, input_dtype: str, output_dtype: str, compute: str) -> ReductionDtypes:
    """The dtypes of the variant ``input_dtype`` of a reduction that computes in ``compute``
    (``dsl.dtypes.computes_in``). An integer through floats (ADR 0058) reduces its elements as
    float64, but a plain sum of them in int64, exactly (an integer kernel, and the same float64 sum
    wherever that one is exact). A half (ADR 0076) reduces its elements as float32, as NumPy's
    float16 sums do, and each result rounds to the nearest half once."""
    if compute == input_dtype:
        return ReductionDtypes(input_dtype, accumulator_dtype(c, input_dtype, output_dtype), input_dtype, False)
    if input_dtype == HALF:
        return ReductionDtypes(compute, compute, compute, True)
    plain_sum = c.combine == "add" and c.map is None and not c.extra_maps
    acc = "int64" if plain_sum else compute
    return ReductionDtypes(input_dtype if plain_sum else compute, acc, compute, True)
