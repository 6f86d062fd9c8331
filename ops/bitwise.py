"""Bitwise operations on integer tensors."""

from dsl import *

SHIFT_SEMANTICS = """
Shift amounts below 0 or at least the bit width give 0 for a left shift.
"""

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
        Elementwise(lambda x, y: x & y, broadcast="numpy")
        Doc(Language.ANY, DocScope.ALL, "Bitwise AND operation. Supports broadcasting.")

    with Op("or", bitwise_pair) as op:
        op.display_path = "/Bitwise"
        op.onnx = "BitwiseOr"
        Elementwise(lambda x, y: x | y, broadcast="numpy")
        Doc(Language.ANY, DocScope.ALL, "Bitwise OR operation. Supports broadcasting.")

    with Op("xor", bitwise_pair) as op:
        op.display_path = "/Bitwise"
        op.onnx = "BitwiseXor"
        Elementwise(lambda x, y: x ^ y, broadcast="numpy")
        Doc(Language.ANY, DocScope.ALL, "Bitwise XOR operation. Supports broadcasting.")

    with Op("left_shift", bitwise_pair) as op:
        op.display_path = "/Bitwise"
        op.onnx = "BitShift"
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
