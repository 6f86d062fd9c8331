"""Bitwise operations on integer tensors."""

from dsl import *

with Namespace("bitwise"):
    with Mixin("bitwise_pair") as bitwise_pair:
        x = Input(INT, "x", description="First input array")
        y = Input(INT, "y", description="Second input array")
        Output(INT, "output", description="Result, with the broadcast shape of x and y")
        Constraint("Must be same types", same_type(x, y))
        Constraint("Must have broadcastable shapes", broadcastable_shapes(x, y))

    with Op("and", bitwise_pair) as op:
        op.display_path = "/Bitwise"
        Doc(Language.ANY, DocScope.ALL, "Bitwise AND operation. Supports broadcasting.")

    with Op("or", bitwise_pair) as op:
        op.display_path = "/Bitwise"
        Doc(Language.ANY, DocScope.ALL, "Bitwise OR operation. Supports broadcasting.")

    with Op("xor", bitwise_pair) as op:
        op.display_path = "/Bitwise"
        Doc(Language.ANY, DocScope.ALL, "Bitwise XOR operation. Supports broadcasting.")

    with Op("left_shift", bitwise_pair) as op:
        op.display_path = "/Bitwise"
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Bitwise left shift: output = x << y, elementwise. Supports broadcasting.

            Shift amounts outside [0, bit width) are handled as documented by each target.
            """,
        )
