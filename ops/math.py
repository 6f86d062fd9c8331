"""Elementwise arithmetic and functions, reductions and matrix products."""

from dsl import *
from ops.mixins import pairwise, reduce, transform

with Namespace("math"):
    with Op("add", pairwise) as op:
        op.display_path = "/Math/Arithmetic"
        Doc(Language.ANY, DocScope.ALL, "Elementwise addition: output = x + y, with NumPy broadcasting.")

    with Op("sub", pairwise) as op:
        op.display_path = "/Math/Arithmetic"
        Doc(Language.ANY, DocScope.ALL, "Elementwise subtraction: output = x - y, with NumPy broadcasting.")

    with Op("mul", pairwise) as op:
        op.display_path = "/Math/Arithmetic"
        Doc(Language.ANY, DocScope.ALL, "Elementwise multiplication: output = x * y, with NumPy broadcasting.")

    with Op("div", pairwise) as op:
        op.display_path = "/Math/Arithmetic"
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Elementwise division: output = x / y, with NumPy broadcasting.

            Floating-point division follows IEEE 754 (x / 0 is an infinity or NaN).
            """,
        )

    with Op("pow", pairwise) as op:
        op.display_path = "/Math/Arithmetic"
        Doc(Language.ANY, DocScope.ALL, "Elementwise power: output = x raised to the power y, with NumPy broadcasting.")

    with Op("abs", transform) as op:
        op.display_path = "/Math/Elementwise"
        Doc(Language.ANY, DocScope.ALL, "Elementwise absolute value: output = |x|.")

    with Op("neg", transform) as op:
        op.display_path = "/Math/Elementwise"
        Doc(Language.ANY, DocScope.ALL, "Elementwise negation: output = -x.")

    with Op("exp", transform) as op:
        op.display_path = "/Math/Elementwise"
        Doc(Language.ANY, DocScope.ALL, "Elementwise exponential: output = e^x.")

    with Op("sqrt", transform) as op:
        op.display_path = "/Math/Elementwise"
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise square root; negative inputs give NaN for floating-point types.",
        )

    with Op("log", transform) as op:
        op.display_path = "/Math/Elementwise"
        x = transform.input("x")
        base = Arg(
            FLOATING_POINT,
            "base",
            default=None,
            description="Logarithm base; None means the natural logarithm",
        )
        Constraint("base must be positive and not 1", some(base == None, (base > 0) & (base != 1)))
        Signature(x, doc="Natural logarithm")
        Signature(x, base, doc="Logarithm to the given base")
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise logarithm: output = ln(x), or ln(x) / ln(base) when a base is given.",
        )

    with Op("round", transform) as op:
        op.display_path = "/Math/Elementwise"
        Arg(
            ENUM,
            "mode",
            possible_values=["half_to_even", "half_away_from_zero"],
            default="half_to_even",
            description="How halfway cases round: to the even neighbour (IEEE 754, NumPy) or away from zero (C round())",
        )
        Doc(Language.ANY, DocScope.ALL, "Elementwise rounding to the nearest integer value.")

    with Op("sum", reduce) as op:
        op.display_path = "/Math/Reduction"
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Sum of the elements over the given axes.

            The sum over no elements is 0.
            """,
        )

    with Op("matmul") as op:
        op.display_path = "/Math/Linear algebra"
        a = Input(NUMERIC, "a", description="Left matrix, or a batch of them (rank >= 2)")
        b = Input(NUMERIC, "b", description="Right matrix, or a batch of them (rank >= 2)")
        transpose_a = Arg(BOOLEAN, "transpose_a", default=False, description="Use the transpose of each matrix of a")
        transpose_b = Arg(BOOLEAN, "transpose_b", default=False, description="Use the transpose of each matrix of b")
        Output(NUMERIC, "output", description="The matrix product, with the broadcast batch axes")
        Constraint("a and b must have the same type", same_type(a, b))
        Constraint("a and b must have rank 2 or more", (a.rank() >= 2) & (b.rank() >= 2))
        Constraint(
            "the inner dimensions of a and b must agree",
            some(
                ~transpose_a & ~transpose_b & (a.size_at(-1) == b.size_at(-2)),
                transpose_a & ~transpose_b & (a.size_at(-2) == b.size_at(-2)),
                ~transpose_a & transpose_b & (a.size_at(-1) == b.size_at(-1)),
                transpose_a & transpose_b & (a.size_at(-2) == b.size_at(-1)),
            ),
        )
        Signature(a, b, doc="Plain matrix product")
        AllParamSignature(with_output=False)
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Matrix product of the last two axes of a and b; leading (batch) axes
            broadcast as in NumPy's matmul.
            """,
        )

    Alias("bitwise", "left_shift", name="bit_shift")
