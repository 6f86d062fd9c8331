"""Mixins shared across namespaces: the common shapes of ops, as in ND4J."""

from dsl import *
from dsl.compute import fn

with Mixin("transform") as transform:
    x = Input(NUMERIC, "x", description="Input tensor")
    Output(NUMERIC, "output", description="Result, with the shape and type of x")

with Mixin("float_transform") as float_transform:
    x = Input(FLOATING_POINT, "x", description="Input tensor")
    Output(FLOATING_POINT, "output", description="Result, with the shape and type of x")

with Mixin("pairwise") as pairwise:
    x = Input(NUMERIC, "x", description="First operand")
    y = Input(NUMERIC, "y", description="Second operand")
    Output(NUMERIC, "output", description="Result, with the broadcast shape of x and y")
    Constraint("x and y must have the same type", same_type(x, y))
    Constraint("x and y must have broadcastable shapes", broadcastable_shapes(x, y))

with Mixin("compare") as compare:
    x = Input(NUMERIC, "x", description="First operand")
    y = Input(NUMERIC, "y", description="Second operand")
    Output(BOOLEAN, "output", description="True where the comparison holds")
    Constraint("x and y must have the same type", same_type(x, y))
    Constraint(
        "x and y must have the same shape, or one of them must be a scalar",
        same_shape(x, y) | x.is_scalar() | y.is_scalar(),
    )

with Mixin("numpy_compare") as numpy_compare:
    x = Input(NUMERIC, "x", description="First operand")
    y = Input(NUMERIC, "y", description="Second operand")
    Output(
        BOOLEAN,
        "output",
        description="True where the comparison holds, with the broadcast shape of x and y",
    )
    Constraint("x and y must have the same type", same_type(x, y))
    Constraint("x and y must have broadcastable shapes", broadcastable_shapes(x, y))

with Mixin("logic_pair") as logic_pair:
    x = Input(BOOLEAN, "x", description="First operand")
    y = Input(BOOLEAN, "y", description="Second operand")
    Output(
        BOOLEAN,
        "output",
        description="The truth of each pair, with the broadcast shape of x and y",
    )
    Constraint("x and y must have broadcastable shapes", broadcastable_shapes(x, y))

with Mixin("reduce") as reduce:
    x = Input(NUMERIC, "x", description="Input tensor")
    Arg(
        INT,
        "axes",
        count=AtLeast(0),
        default=[],
        description="Axes to reduce; negative axes count from the last one; empty reduces all axes",
    )
    Arg(
        BOOLEAN,
        "keep_dims",
        default=False,
        description="Keep each reduced axis with size 1",
    )
    Output(NUMERIC, "output", description="The reduced tensor")

with Mixin("pair_reduce") as pair_reduce:
    x = Input(NUMERIC, "x", description="First input tensor")
    y = Input(
        NUMERIC, "y", description="Second input tensor, with the shape and type of x"
    )
    Arg(
        INT,
        "axes",
        count=AtLeast(0),
        default=[],
        description="Axes to reduce; negative axes count from the last one; empty reduces all axes",
    )
    Arg(
        BOOLEAN,
        "keep_dims",
        default=False,
        description="Keep each reduced axis with size 1",
    )
    Output(NUMERIC, "output", description="The reduced tensor")
    Constraint("x and y must have the same type", same_type(x, y))
    Constraint("x and y must have the same shape", same_shape(x, y))

with Mixin("arg_search") as arg_search:
    Input(NUMERIC, "x", description="Input tensor")
    Arg(
        INT,
        "axis",
        default=-1,
        description="Axis to search; negative counts from the last one",
    )
    Arg(
        BOOLEAN,
        "keep_dims",
        default=False,
        description="Keep the searched axis with size 1",
    )
    Output(LONG, "output", description="Index along the axis")

#: The conditions of match_condition and replace_where, each a test of x against a value.
CONDITIONS = {
    "eq": lambda x, v: x == v,
    "neq": lambda x, v: x != v,
    "lt": lambda x, v: x < v,
    "lte": lambda x, v: x <= v,
    "gt": lambda x, v: x > v,
    "gte": lambda x, v: x >= v,
    "abs_lt": lambda x, v: abs(x) < v,
    "abs_gt": lambda x, v: abs(x) > v,
    "is_nan": lambda x, v: fn.isnan(x),
    "is_infinite": lambda x, v: fn.isinf(x),
    "is_finite": lambda x, v: fn.isfinite(x),
}


def condition_holds(x, condition, value):
    """Where the ENUM arg ``condition`` holds for x (compared with value)."""
    names = list(CONDITIONS)
    result = CONDITIONS[names[-1]](x, value)
    for name in reversed(names[:-1]):
        result = fn.where(condition == name, CONDITIONS[name](x, value), result)
    return result


with Mixin("condition") as condition_test:
    Arg(
        ENUM,
        "condition",
        possible_values=list(CONDITIONS),
        description="The test: x compared with value (eq, neq, lt, lte, gt, gte, |x| < value, |x| > value) or x's class",
    )
    Arg(
        FLOATING_POINT,
        "value",
        default=0.0,
        description="What x is compared with (unused by is_nan, is_infinite, is_finite)",
    )

with Mixin("scan") as scan:
    x = Input(NUMERIC, "x", description="Input tensor")
    axis = Arg(
        INT,
        "axis",
        default=0,
        description="Axis to accumulate along; negative counts from the last one",
    )
    Arg(
        BOOLEAN,
        "exclusive",
        default=False,
        description="Leave each element out of its own running result",
    )
    Arg(
        BOOLEAN,
        "reverse",
        default=False,
        description="Accumulate from the end of the axis",
    )
    Output(NUMERIC, "output", description="Running results, with the shape of x")
    Constraint("axis must be an axis of x", (axis >= -x.rank()) & (axis < x.rank()))

with Mixin("along_axis") as along_axis:
    x = Input(FLOATING_POINT, "x", description="Input tensor")
    axis = Arg(
        INT,
        "axis",
        default=-1,
        description="The axis the op works along; negative counts from the last one",
    )
    Output(FLOATING_POINT, "output", description="Result, with the shape of x")
    Constraint("axis must be an axis of x", (axis >= -x.rank()) & (axis < x.rank()))

#: The suffix of each dtype's C fragment (``cumsum_i8``, ``softmax_f32``).
FRAGMENT_SUFFIX = {
    "int8": "i8",
    "int16": "i16",
    "int32": "i32",
    "int64": "i64",
    "uint8": "u8",
    "uint16": "u16",
    "uint32": "u32",
    "uint64": "u64",
    "float32": "f32",
    "float64": "f64",
    "float16": "f16",
}
FLOAT_DTYPES = ("float32", "float64")
INT_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
#: The float dtypes of a fragment written for halves too (read as floats, ADR 0076).
HALF_FLOAT_DTYPES = ("float16", *FLOAT_DTYPES)


def fragment_names(name, dtypes=tuple(d for d in FRAGMENT_SUFFIX if d != "float16")):
    """The C fragment of each dtype: ``{"float32": "<name>_f32", ...}``; float16 only where asked
    (a fragment written for halves)."""
    return {dtype: f"{name}_{FRAGMENT_SUFFIX[dtype]}" for dtype in dtypes}


def scatter_params(kind=NUMERIC):
    """Inside an Op: the tensors of a scatter (``ref``, ``indices``, ``updates``)."""
    ref = Input(kind, "ref", description="The tensor to update, in rows along axis 0")
    Input(
        LONG,
        "indices",
        description="The row of ref each update goes to; negative counts from the end",
    )
    updates = Input(
        kind,
        "updates",
        description="The update rows: shape indices.shape + ref.shape[1:]",
    )
    Output(
        kind, "output", description="ref with the updates folded in, with ref's shape"
    )
    Constraint("ref and updates must have the same type", same_type(ref, updates))


def segment_params(kind=NUMERIC):
    """Inside an Op: the tensors and the segment count of a segment reduction."""
    data = Input(kind, "data", description="The rows to reduce, along axis 0")
    ids = Input(
        LONG,
        "segment_ids",
        description="The segment of each row of data, in 0..num_segments-1",
    )
    Arg(
        LONG,
        "num_segments",
        description="How many segments: the rows of the result (no memory is allocated at run time)",
    )
    Output(
        kind,
        "output",
        description="One row per segment: shape [num_segments] + data.shape[1:]",
    )
    Constraint("segment_ids must be a vector", ids.rank() == 1)
    Constraint("data must have rank 1 or more", data.rank() >= 1)
    Constraint(
        "segment_ids must hold one id per row of data",
        ids.size_at(0) == data.size_at(0),
    )
