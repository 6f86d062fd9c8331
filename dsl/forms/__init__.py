"""The compute forms: what an op computes, one module per form (ADR 0029).

Each form is a frozen class with exactly its own fields, and it alone knows its
meaning: its validation, its outputs' shapes (``dsl/shapes.py``) and the inputs
it refuses. Targets render what a form says; none re-derives it.
"""

from __future__ import annotations

from typing import Any, Union

from dsl.forms.arg_reduction import ArgReduction
from dsl.forms.composition import Composition, Step, TensorSym, step, trace_composition
from dsl.forms.contraction import Contraction
from dsl.forms.conversion import CONVERSIONS, FixedPointConversion
from dsl.forms.elementwise import Elementwise
from dsl.forms.find_all import FindAll
from dsl.forms.fragment import (AxisFragment, ChannelsFragment, DenseFragment, FlatFragment, FragmentKernel,
                                RowsFragment, SelectFragment, ShapedFragment)
from dsl.forms.fragment_layouts import FRAGMENT_LAYOUTS, fragment_kernel
from dsl.forms.matrix_fragment import MATRIX_LAYOUTS, MatrixFragment
from dsl.forms.generation import GENERATE_ROLES, Generation
from dsl.forms.layout import DATA_LAYOUTS, LAYOUT_ROLES, PAD_MODES, LayoutMove
from dsl.forms.reduction import REDUCE_COMBINES, Reduction, ReductionDtypes, accumulator_dtype, reduction_dtypes
from dsl.forms.sampling import RANDOM_DISTRIBUTIONS, RandomSample
from dsl.forms.scatter import SEGMENT_INITS, SEGMENT_SCALES, ScatterRows
from dsl.forms.shape_query import SHAPE_QUERIES, ShapeQuery
from dsl.forms.stream import CAPACITY_WINDOWS, SlidingWindow
from dsl.forms.tensor_lists import MERGE_COMBINES, PARTS_ROLES, Join, Merge, Parts
from dsl.forms.tensordot import TensorDot

Compute = Union[Elementwise, Reduction, ArgReduction, Contraction, RandomSample, FragmentKernel, Composition,
                SlidingWindow, LayoutMove, Generation, ScatterRows, ShapeQuery, Join, Merge, Parts, TensorDot, FindAll,
                FixedPointConversion]

__all__ = [
    "ArgReduction", "AxisFragment", "CAPACITY_WINDOWS", "CONVERSIONS", "ChannelsFragment", "Composition", "Compute",
    "Contraction", "DATA_LAYOUTS", "DenseFragment", "Elementwise", "FRAGMENT_LAYOUTS", "FindAll",
    "FixedPointConversion", "FlatFragment", "FragmentKernel", "GENERATE_ROLES", "Generation", "Join",
    "LAYOUT_ROLES", "LayoutMove", "MATRIX_LAYOUTS", "MERGE_COMBINES", "MatrixFragment", "Merge", "PAD_MODES",
    "PARTS_ROLES", "Parts", "RANDOM_DISTRIBUTIONS", "REDUCE_COMBINES", "RandomSample", "Reduction", "ReductionDtypes",
    "RowsFragment", "SEGMENT_INITS", "SEGMENT_SCALES", "SHAPE_QUERIES", "ScatterRows", "SelectFragment", "ShapeQuery",
    "ShapedFragment", "SlidingWindow", "Step", "TensorDot", "TensorSym", "accumulator_dtype", "dtype_from_arg",
    "form_class_names", "fragment_kernel", "in_place_inputs", "list_input", "list_output", "own_dtype_inputs",
    "reduction_dtypes", "step", "trace_composition",
]


def form_class_names(c: object) -> list[str]:
    """The names of the form's class and its bases, lowercased, nearest first: what a
    renderer's per-form methods are named after (a fragment layout's class falls back
    to ``fragmentkernel``)."""
    return [t.__name__.lower() for t in type(c).__mro__ if t is not object]


def list_input(c: object) -> str | None:
    """The list input (a tensor list: an Input with a count) a form takes, if any."""
    if isinstance(c, Parts):
        return c.source if c.part == "meshgrid" else None
    return c.inputs if isinstance(c, (Join, Merge)) else None


def list_output(c: object) -> str | None:
    """The list output (an Output with a count: as many tensors as the inputs say) a form gives, if any."""
    return c.outputs if isinstance(c, Parts) else None


def dtype_from_arg(c: object) -> bool:
    """Ops without inputs whose output dtype is the value of their ``dtype`` arg."""
    return isinstance(c, (RandomSample, Generation))


def in_place_inputs(op: Any) -> tuple[str, ...]:
    """The inputs the op's output may be, exactly (same memory, dtype and shape): an op that
    computes element i of its result from element i of each input alone (elementwise, a
    composition of elementwise ops) reads each element before it writes it (ADR 0006)."""
    c = op.compute
    if isinstance(c, Elementwise):
        names = {i.name for i in op.inputs}
        return tuple(p for p in c.params if p in names)
    return ()


def own_dtype_inputs(op: Any) -> tuple[str, ...]:
    """Inputs whose dtype is their own, not the variant's: cast's input, and an input of a
    generated tensor that only an arg's default reads (full_like's x): any dtype."""
    c = op.compute
    if isinstance(c, Generation):
        roles = dict(GENERATE_ROLES.get(c.generator, ()))
        bound = {name for _, name in c.params}
        return tuple(i.name for i in op.inputs
                     if i.name not in bound or any(roles.get(r) == "any" for r, n in c.params if n == i.name))
    return ()
