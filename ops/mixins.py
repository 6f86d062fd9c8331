"""Mixins shared across namespaces: the common shapes of ops, as in ND4J."""

from dsl import *

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
