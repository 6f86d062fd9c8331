"""Bitwise operations on integer tensors."""

from dsl import *
from dsl.compute import fn

with Namespace("bitwise"):
    with Mixin("bitwise_pair") as bitwise_pair:
        x = Input(INT, "x", description="First input array")
        y = Input(INT, "y", description="Second input array")
        Output(INT, "output", description="Result, with the broadcast shape of x and y")
        Constraint("Must be same types", same_type(x, y))
        Constraint("Must have broadcastable shapes", broadcastable_shapes(x, y))

    with Op("and", bitwise_pair) as op:
        op.display_path = "/Bitwise"
        op.onnx = "BitwiseAnd"
        op.numpy = "bitwise_and"
        Elementwise(lambda x, y: x & y, broadcast="numpy")
        Doc(Language.ANY, DocScope.ALL, "Bitwise AND operation. Supports broadcasting.")

    with Op("or", bitwise_pair) as op:
        op.display_path = "/Bitwise"
        op.onnx = "BitwiseOr"
        op.numpy = "bitwise_or"
        Elementwise(lambda x, y: x | y, broadcast="numpy")
        Doc(Language.ANY, DocScope.ALL, "Bitwise OR operation. Supports broadcasting.")

    with Op("xor", bitwise_pair) as op:
        op.display_path = "/Bitwise"
        op.onnx = "BitwiseXor"
        op.numpy = "bitwise_xor"
        Elementwise(lambda x, y: x ^ y, broadcast="numpy")
        Doc(Language.ANY, DocScope.ALL, "Bitwise XOR operation. Supports broadcasting.")

    with Op("left_shift", bitwise_pair) as op:
        op.display_path = "/Bitwise"
        op.onnx = "BitShift"
        op.numpy = "left_shift"
        Elementwise(lambda x, y: x << y, broadcast="numpy")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Bitwise left shift: output = x << y, elementwise. Supports broadcasting.

            Bits shifted out are lost, as in NumPy; shift amounts below 0 or at
            least the bit width of the type give 0.
            """,
        )

    with Op("right_shift", bitwise_pair) as op:
        op.display_path = "/Bitwise"
        op.onnx = "BitShift"
        op.numpy = "right_shift"
        Elementwise(lambda x, y: x >> y, broadcast="numpy")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Bitwise right shift: output = x >> y, elementwise. Supports broadcasting.

            Signed integers shift arithmetically (the sign bit fills in, as in
            NumPy); shift amounts below 0 or at least the bit width of the type
            give 0, or -1 for a negative x.
            """,
        )

    with Op("left_shift_cyclic", bitwise_pair) as op:
        op.display_path = "/Bitwise"
        Elementwise(lambda x, y: fn.rotl(x, y), broadcast="numpy")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Bitwise left rotation: the bits of x move y places to the left and
            those shifted out come back on the right. Supports broadcasting.

            The amount is taken modulo the bit width of the type (so a negative
            y rotates right); signed integers rotate their two's complement bits.
            """,
        )

    with Op("right_shift_cyclic", bitwise_pair) as op:
        op.display_path = "/Bitwise"
        Elementwise(lambda x, y: fn.rotr(x, y), broadcast="numpy")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Bitwise right rotation: the bits of x move y places to the right and
            those shifted out come back on the left. Supports broadcasting.

            The amount is taken modulo the bit width of the type (so a negative
            y rotates left); signed integers rotate their two's complement bits.
            """,
        )

    with Op("bits_hamming_distance") as op:
        op.display_path = "/Bitwise"
        x = Input(INT, "x", description="First input array")
        y = Input(
            INT, "y", description="Second input array, with the shape and type of x"
        )
        Arg(
            INT,
            "axes",
            count=AtLeast(0),
            default=[],
            description="Axes to count over; negative axes count from the last one; empty counts over all axes",
        )
        Arg(
            BOOLEAN,
            "keep_dims",
            default=False,
            description="Keep each reduced axis with size 1",
        )
        Output(LONG, "output", description="The number of differing bits")
        Constraint("Must be same types", same_type(x, y))
        Constraint("Must have the same shape", same_shape(x, y))
        Reduce("add", map=lambda x, y: fn.popcount(x ^ y))
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Bitwise Hamming distance: the number of bit positions in which x and
            y differ, counted over the given axes (all axes by default).
            Negative integers count their two's complement bits.
            """,
        )

    Alias("bitwise", "left_shift", name="bit_shift")
    Alias("bitwise", "right_shift", name="bit_shift_right")
    Alias("bitwise", "left_shift_cyclic", name="bit_rotl")
    Alias("bitwise", "right_shift_cyclic", name="bit_rotr")
