"""Reduce: combine the (mapped) elements over axes, then finalize."""

from __future__ import annotations

from typing import Any

import attrs

from dsl.dtypes import category
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

    @property
    def finalizers(self) -> tuple[SExpr | None, ...]:
        """One per output, in order (None: the combined value itself)."""
        return (self.finalize, *self.finalize_more)


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
