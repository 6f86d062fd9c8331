"""Elementwise arithmetic and functions, reductions and matrix products."""

from dsl import *
from dsl.compute import fn
from ops.mixins import (
    FLOAT_DTYPES,
    INT_DTYPES,
    along_axis,
    arg_search,
    compare,
    condition_holds,
    condition_test,
    float_transform,
    fragment_names,
    logic_pair,
    numpy_compare,
    pair_reduce,
    pairwise,
    reduce,
    scan,
    transform,
)

INTEGER_ARITHMETIC = """
Integer results wrap around (two's complement), as in NumPy.
"""

#: The integers DEEPCRAFT's trigonometric units take: the float result truncated back (ADR 0058).
EIGHT_BIT = ("int8", "uint8")


def rational_y(x):
    """y = 2x/3, the argument of ND4J's rational tanh approximation."""
    return 2.0 / 3.0 * x


def rational_denominator(x):
    """D = 1 + |y| + y^2 + 1.41645 * y^4 of the rational tanh approximation."""
    y = rational_y(x)
    return 1.0 + abs(y) + y * y + 1.41645 * (y * y) * (y * y)


#: How argmax and argmin differ from ONNX's ArgMax and ArgMin (besides the kept axis, which
#: their form says).
UNLIKE_ARG_SEARCH = (
    "ONNX's axis defaults to 0; this op's defaults to the last (the Python function's to "
    "None, the flattened array, as NumPy's)"
)

with Namespace("math"):
    with Op("add", pairwise) as op:
        op.display_path = "/Math/Arithmetic"
        op.onnx = "Add"
        op.numpy = "add"
        op.nnef = "add"
        Elementwise(lambda x, y: x + y)
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise addition: output = x + y, with NumPy broadcasting.",
        )
        Doc(Language.ANY, DocScope.ALL, INTEGER_ARITHMETIC)

    with Op("sub", pairwise) as op:
        op.display_path = "/Math/Arithmetic"
        op.onnx = "Sub"
        op.numpy = "subtract"
        op.nnef = "sub"
        Elementwise(lambda x, y: x - y)
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise subtraction: output = x - y, with NumPy broadcasting.",
        )
        Doc(Language.ANY, DocScope.ALL, INTEGER_ARITHMETIC)

    with Op("mul", pairwise) as op:
        op.display_path = "/Math/Arithmetic"
        op.onnx = "Mul"
        op.numpy = "multiply"
        op.nnef = "mul"
        Elementwise(lambda x, y: x * y)
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise multiplication: output = x * y, with NumPy broadcasting.",
        )
        Doc(Language.ANY, DocScope.ALL, INTEGER_ARITHMETIC)

    with Op("div", pairwise) as op:
        op.display_path = "/Math/Arithmetic"
        op.onnx = "Div"
        op.nnef = "div"
        Elementwise(lambda x, y: x / y)
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Elementwise division: output = x / y, with NumPy broadcasting.

            Floating-point division follows IEEE 754 (x / 0 is an infinity or NaN).
            Integer division truncates toward zero (as in C and ONNX), x / 0 is 0,
            and the most negative value divided by -1 wraps around to itself.
            """,
        )

    with Op("pow", pairwise) as op:
        op.nnef = "pow"
        op.unlike_numpy = (
            "an integer to a negative integer power is 0 (1 or -1 for bases 1 and "
            "-1); NumPy's power raises"
        )
        op.display_path = "/Math/Arithmetic"
        op.onnx = "Pow"
        Elementwise(lambda x, y: x**y)
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Elementwise power: output = x raised to the power y, with NumPy broadcasting.

            For integers the result wraps around; a negative exponent gives 0,
            except for bases 1 and -1 (1 and -1 or 1).
            """,
        )

    with Op("maximum", pairwise) as op:
        op.display_path = "/Math/Arithmetic"
        op.onnx = "Max"
        op.numpy = "maximum"
        op.nnef = "max"
        op.unlike_onnx = (
            "ONNX's Max takes any number of inputs (as math.merge_max does); this op "
            "takes two"
        )
        Elementwise(lambda x, y: fn.maximum(x, y))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise maximum of x and y; NaN wins, as in NumPy's maximum.",
        )

    with Op("squared_difference", pairwise) as op:
        op.display_path = "/Math/Arithmetic"
        op.formula = (
            r"\mathrm{output} = \left(x - y\right) \cdot \left(x - y\right)",
        )
        Compose(lambda x, y: step("math.mul", d := step("math.sub", x, y), d))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise squared difference: output = (x - y) * (x - y), with NumPy broadcasting.",
        )

    with Op("rsub", pairwise) as op:
        op.display_path = "/Math/Arithmetic"
        Elementwise(lambda x, y: y - x)
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Reverse subtraction: output = y - x, with NumPy broadcasting. Integers wrap around.",
        )

    with Op("rdiv", pairwise) as op:
        op.display_path = "/Math/Arithmetic"
        Elementwise(lambda x, y: y / x)
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Reverse division: output = y / x, with NumPy broadcasting; integers as in div (truncating, y / 0 is 0).",
        )

    with Op("atan2") as op:
        op.display_path = "/Math/Elementwise"
        op.numpy = "arctan2"
        y = Input(FLOATING_POINT, "y", description="Ordinate")
        x = Input(FLOATING_POINT, "x", description="Abscissa")
        Output(FLOATING_POINT, "output", description="The angle, in (-pi, pi]")
        Constraint("y and x must have the same type", same_type(y, x))
        Constraint("y and x must have broadcastable shapes", broadcastable_shapes(y, x))
        Elementwise(lambda y, x: fn.atan2(y, x))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise angle of the point (x, y): atan2(y, x), with NumPy broadcasting.",
        )

    with Op("is_nan", float_transform) as op:
        op.display_path = "/Math/Comparison"
        op.onnx = "IsNaN"
        op.numpy = "isnan"
        Output(BOOLEAN, "output", description="True where x is NaN")
        Elementwise(lambda x: fn.isnan(x))
        Doc(Language.ANY, DocScope.ALL, "Elementwise test for NaN.")

    with Op("is_infinite", float_transform) as op:
        op.display_path = "/Math/Comparison"
        op.onnx = "IsInf"
        op.numpy = "isinf"
        op.unlike_onnx = (
            "ONNX can detect one sign only (detect_negative, detect_positive); this op "
            "detects both (math.isposinf and math.isneginf detect one)"
        )
        Output(BOOLEAN, "output", description="True where x is an infinity")
        Elementwise(lambda x: fn.isinf(x))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise test for positive or negative infinity.",
        )

    # NumPy's one-signed tests (ONNX's IsInf with detect_negative or detect_positive off).
    for name, what, signed in (
        ("isposinf", "positive", lambda x: fn.logical_and(fn.isinf(x), x > 0.0)),
        ("isneginf", "negative", lambda x: fn.logical_and(fn.isinf(x), x < 0.0)),
    ):
        with Op(name, float_transform) as op:
            op.display_path = "/Math/Comparison"
            op.numpy = name
            Output(BOOLEAN, "output", description=f"True where x is {what} infinity")
            Elementwise(signed)
            Doc(
                Language.ANY,
                DocScope.ALL,
                f"Elementwise test for {what} infinity (NumPy's {name}); NaN is not one.",
            )

    with Op("is_finite", float_transform) as op:
        op.display_path = "/Math/Comparison"
        op.numpy = "isfinite"
        Output(
            BOOLEAN, "output", description="True where x is neither NaN nor an infinity"
        )
        Elementwise(lambda x: fn.isfinite(x))
        Doc(Language.ANY, DocScope.ALL, "Elementwise test for finite values.")

    with Op("step", transform) as op:
        op.display_path = "/Math/Elementwise"
        Elementwise(lambda x: fn.where(x > 0, 1, 0))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise Heaviside step: 1 where x > 0, else 0 (also for NaN).",
        )

    with Op("abs", transform) as op:
        op.display_path = "/Math/Elementwise"
        op.onnx = "Abs"
        op.numpy = "absolute"
        op.nnef = "abs"
        Elementwise(lambda x: abs(x))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise absolute value: output = |x|. The most negative integer stays itself (wraps).",
        )

    with Op("neg", transform) as op:
        op.display_path = "/Math/Elementwise"
        op.onnx = "Neg"
        op.numpy = "negative"
        op.nnef = "neg"
        Elementwise(lambda x: -x)
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise negation: output = -x. Integers wrap around.",
        )

    with Op("exp", float_transform) as op:
        op.display_path = "/Math/Elementwise"
        op.onnx = "Exp"
        op.numpy = "exp"
        op.nnef = "exp"
        Elementwise(lambda x: fn.exp(x))
        Doc(Language.ANY, DocScope.ALL, "Elementwise exponential: output = e^x.")

    with Op("sqrt", float_transform) as op:
        op.display_path = "/Math/Elementwise"
        op.onnx = "Sqrt"
        op.numpy = "sqrt"
        op.nnef = "sqrt"
        Elementwise(lambda x: fn.sqrt(x))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise square root; negative inputs give NaN.",
        )

    with Op("tanh", float_transform) as op:
        op.nnef = "tanh"
        op.integers_through_float = EIGHT_BIT
        op.display_path = "/Math/Elementwise"
        op.onnx = "Tanh"
        op.numpy = "tanh"
        Elementwise(lambda x: fn.tanh(x))
        Doc(Language.ANY, DocScope.ALL, "Elementwise hyperbolic tangent.")

    with Op("sigmoid", float_transform) as op:
        op.display_path = "/Math/Elementwise"
        op.onnx = "Sigmoid"
        op.nnef = "sigmoid"
        Elementwise(lambda x: fn.sigmoid(x))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise logistic sigmoid: output = 1 / (1 + e^-x).",
        )

    with Op("sin", float_transform) as op:
        op.nnef = "sin"
        op.integers_through_float = EIGHT_BIT
        op.display_path = "/Math/Elementwise"
        op.onnx = "Sin"
        op.numpy = "sin"
        Elementwise(lambda x: fn.sin(x))
        Doc(Language.ANY, DocScope.ALL, "Elementwise sine of x (radians).")

    with Op("cos", float_transform) as op:
        op.nnef = "cos"
        op.integers_through_float = EIGHT_BIT
        op.display_path = "/Math/Elementwise"
        op.onnx = "Cos"
        op.numpy = "cos"
        Elementwise(lambda x: fn.cos(x))
        Doc(Language.ANY, DocScope.ALL, "Elementwise cosine of x (radians).")

    with Op("tan", float_transform) as op:
        op.nnef = "tan"
        op.integers_through_float = EIGHT_BIT
        op.display_path = "/Math/Elementwise"
        op.onnx = "Tan"
        op.numpy = "tan"
        Elementwise(lambda x: fn.tan(x))
        Doc(Language.ANY, DocScope.ALL, "Elementwise tangent of x (radians).")

    with Op("asin", float_transform) as op:
        op.nnef = "asin"
        op.integers_through_float = EIGHT_BIT
        op.display_path = "/Math/Elementwise"
        op.onnx = "Asin"
        op.numpy = "arcsin"
        Elementwise(lambda x: fn.asin(x))
        Doc(Language.ANY, DocScope.ALL, "Elementwise arcsine; NaN outside [-1, 1].")

    with Op("acos", float_transform) as op:
        op.nnef = "acos"
        op.integers_through_float = EIGHT_BIT
        op.display_path = "/Math/Elementwise"
        op.onnx = "Acos"
        op.numpy = "arccos"
        Elementwise(lambda x: fn.acos(x))
        Doc(Language.ANY, DocScope.ALL, "Elementwise arccosine; NaN outside [-1, 1].")

    with Op("atan", float_transform) as op:
        op.nnef = "atan"
        op.integers_through_float = EIGHT_BIT
        op.display_path = "/Math/Elementwise"
        op.onnx = "Atan"
        op.numpy = "arctan"
        Elementwise(lambda x: fn.atan(x))
        Doc(Language.ANY, DocScope.ALL, "Elementwise arctangent, in (-pi/2, pi/2).")

    with Op("sinh", float_transform) as op:
        op.nnef = "sinh"
        op.integers_through_float = EIGHT_BIT
        op.display_path = "/Math/Elementwise"
        op.onnx = "Sinh"
        op.numpy = "sinh"
        Elementwise(lambda x: fn.sinh(x))
        Doc(Language.ANY, DocScope.ALL, "Elementwise hyperbolic sine.")

    with Op("cosh", float_transform) as op:
        op.nnef = "cosh"
        op.integers_through_float = EIGHT_BIT
        op.display_path = "/Math/Elementwise"
        op.onnx = "Cosh"
        op.numpy = "cosh"
        Elementwise(lambda x: fn.cosh(x))
        Doc(Language.ANY, DocScope.ALL, "Elementwise hyperbolic cosine.")

    with Op("erf", float_transform) as op:
        op.display_path = "/Math/Elementwise"
        op.onnx = "Erf"
        Elementwise(lambda x: fn.erf(x))
        Doc(Language.ANY, DocScope.ALL, "Elementwise error function.")

    with Op("expm1", float_transform) as op:
        op.display_path = "/Math/Elementwise"
        op.numpy = "expm1"
        Elementwise(lambda x: fn.expm1(x))
        Doc(Language.ANY, DocScope.ALL, "Elementwise e^x - 1, accurate near 0.")

    with Op("log1p", float_transform) as op:
        op.display_path = "/Math/Elementwise"
        op.numpy = "log1p"
        Elementwise(lambda x: fn.log1p(x))
        Doc(Language.ANY, DocScope.ALL, "Elementwise ln(1 + x), accurate near 0.")

    with Op("reciprocal", float_transform) as op:
        op.display_path = "/Math/Elementwise"
        op.onnx = "Reciprocal"
        op.numpy = "reciprocal"
        op.nnef = "rcp"
        Elementwise(lambda x: 1 / x)
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise reciprocal 1 / x (an infinity at 0).",
        )

    with Op("rsqrt", float_transform) as op:
        op.display_path = "/Math/Elementwise"
        op.nnef = "rsqrt"
        Elementwise(lambda x: 1 / fn.sqrt(x))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise reciprocal square root 1 / sqrt(x); NaN for negative x.",
        )

    with Op("floor", transform) as op:
        op.display_path = "/Math/Elementwise"
        op.onnx = "Floor"
        op.numpy = "floor"
        op.nnef = "floor"
        Elementwise(lambda x: fn.floor(x))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise floor: the largest integer value not above x; integers are unchanged.",
        )

    with Op("ceil", transform) as op:
        op.display_path = "/Math/Elementwise"
        op.onnx = "Ceil"
        op.numpy = "ceil"
        op.nnef = "ceil"
        Elementwise(lambda x: fn.ceil(x))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise ceiling: the smallest integer value not below x; integers are unchanged.",
        )

    with Op("sign", transform) as op:
        op.display_path = "/Math/Elementwise"
        op.onnx = "Sign"
        op.numpy = "sign"
        op.nnef = "sign"
        Elementwise(lambda x: fn.sign(x))
        Doc(Language.ANY, DocScope.ALL, "Elementwise sign: -1, 0 or 1 (NaN stays NaN).")

    with Op("square", transform) as op:
        op.display_path = "/Math/Elementwise"
        op.numpy = "square"
        op.nnef = "sqr"
        Elementwise(lambda x: x * x)
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise square x * x. Integers wrap around.",
        )

    with Op("cube", transform) as op:
        op.display_path = "/Math/Elementwise"
        Elementwise(lambda x: x * x * x)
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise cube x * x * x. Integers wrap around.",
        )

    with Op("log", float_transform) as op:
        op.display_path = "/Math/Elementwise"
        op.onnx = "Log"
        op.numpy = "log"
        op.nnef = "log"
        op.unlike_nnef = (
            "NNEF's log is the natural logarithm; this op takes another base when base is"
            " given"
        )
        x = float_transform.input("x")
        base = Arg(
            FLOATING_POINT,
            "base",
            default=None,
            description="Logarithm base; None means the natural logarithm",
        )
        Constraint(
            "base must be positive and not 1",
            some(base == None, (base > 0) & (base != 1)),
        )
        Signature(x, doc="Natural logarithm")
        Signature(x, base, doc="Logarithm to the given base")
        Elementwise(
            lambda x, base=None: fn.log(x) if base is None else fn.log(x) / fn.log(base)
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise logarithm: output = ln(x), or ln(x) / ln(base) when a base is given.",
        )

    with Op("round", transform) as op:
        op.display_path = "/Math/Elementwise"
        op.onnx = "Round"
        op.numpy = "round"
        Arg(
            ENUM,
            "mode",
            possible_values=["half_to_even", "half_away_from_zero"],
            default="half_to_even",
            description="How halfway cases round: to the even neighbour (IEEE 754, NumPy) or away from zero (C round())",
        )
        Elementwise(
            lambda x, mode: fn.where(
                mode == "half_to_even", fn.round_half_even(x), fn.round_half_away(x)
            )
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise rounding to the nearest integer value; integers are unchanged.",
        )

    # NumPy's comparisons (and ONNX's): both operands broadcast, where base's ND4J comparisons
    # take one shape or a scalar operand.
    for name, onnx, nnef, symbol, compared, nd4j, nan in (
        ("equal", "Equal", "eq", "==", lambda x, y: x == y, "eq", "NaN compares unequal to everything."),
        ("not_equal", None, "ne", "!=", lambda x, y: x != y, "neq",
         "NaN is unequal to everything, itself included."),
        ("greater", "Greater", "gt", ">", lambda x, y: x > y, "gt", "NaN compares false."),
        ("greater_equal", "GreaterOrEqual", "ge", ">=", lambda x, y: x >= y, "gte", "NaN compares false."),
        ("less", "Less", "lt", "<", lambda x, y: x < y, "lt", "NaN compares false."),
        ("less_equal", "LessOrEqual", "le", "<=", lambda x, y: x <= y, "lte", "NaN compares false."),
    ):
        with Op(name, numpy_compare) as op:
            op.display_path = "/Math/Comparison"
            op.onnx = onnx
            op.numpy = name
            op.nnef = nnef
            Elementwise(compared, broadcast="numpy")
            Doc(
                Language.ANY,
                DocScope.ALL,
                f"Elementwise x {symbol} y, with NumPy broadcasting (NumPy's {name}; base.{nd4j} "
                f"takes one shape or a scalar operand). {nan}",
            )

    for name, onnx, nnef, word, combined in (
        ("logical_and", "And", "and", "AND", lambda x, y: fn.logical_and(x, y)),
        ("logical_or", "Or", "or", "OR", lambda x, y: fn.logical_or(x, y)),
        ("logical_xor", "Xor", None, "XOR", lambda x, y: fn.logical_xor(x, y)),
    ):
        with Op(name, logic_pair) as op:
            op.display_path = "/Math/Logic"
            op.onnx = onnx
            op.numpy = name
            op.nnef = nnef
            Elementwise(combined, broadcast="numpy")
            Doc(
                Language.ANY,
                DocScope.ALL,
                f"Elementwise logical {word} of two boolean tensors, with NumPy broadcasting.",
            )

    with Op("sum", reduce) as op:
        op.nnef = "sum_reduce"
        op.unlike_numpy = (
            "integer sums keep (and wrap in) the input's type; NumPy's sum of a "
            "smaller integer type is int64 (uint64: no type of opforge's yet), of "
            "bools a count"
        )
        op.display_path = "/Math/Reduction"
        op.onnx = "ReduceSum"
        Reduce("add")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Sum of the elements over the given axes.

            The sum over no elements is 0. Integer sums wrap around in the input's type.
            """,
        )

    with Op("mean", reduce) as op:
        op.integers_through_float = ("int8", "int16", "int32")
        op.display_path = "/Math/Reduction"
        op.onnx = "ReduceMean"
        op.numpy = "mean"
        op.nnef = "mean_reduce"
        Input(FLOATING_POINT, "x", description="Input tensor")
        Output(FLOATING_POINT, "output", description="The reduced tensor")
        Reduce("add", finalize=lambda acc, n: acc / n)
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Arithmetic mean over the given axes; the mean of no elements is NaN.",
        )

    with Op("max", reduce) as op:
        op.display_path = "/Math/Reduction"
        op.onnx = "ReduceMax"
        op.numpy = "max"
        op.nnef = "max_reduce"
        Input(NDARRAY, "x", description="Input tensor; booleans too, as NumPy's max takes them")
        Output(NDARRAY, "output", description="The reduced tensor")
        Reduce("max", empty="error")
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Largest element over the given axes; NaN wins. Reducing no elements is an error.",
        )

    with Op("norm2", reduce) as op:
        op.display_path = "/Math/Reduction"
        op.onnx = "ReduceL2"
        Input(FLOATING_POINT, "x", description="Input tensor")
        Output(FLOATING_POINT, "output", description="The reduced tensor")
        Reduce("add", map=lambda x: x * x, finalize=lambda acc, n: fn.sqrt(acc))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Euclidean (L2) norm over the given axes: sqrt(sum(x^2)).",
        )

    with Op("log_sum_exp", reduce) as op:
        op.display_path = "/Math/Reduction"
        op.onnx = "ReduceLogSumExp"
        Input(FLOATING_POINT, "x", description="Input tensor")
        Output(FLOATING_POINT, "output", description="The reduced tensor")
        Reduce(
            "add",
            pre="max",
            map=lambda x, m: fn.exp(x - m),
            finalize=lambda acc, n, m: fn.log(acc) + m,
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            log(sum(exp(x))) over the given axes, computed stably by shifting with the largest
            finite element (or 0 when there is none).
            """,
        )

    with Op("normalize_moments") as op:
        op.display_path = "/Math/Statistics"
        op.formula = (
            r"\mathrm{mean} = \frac{\mathrm{means}}{\mathrm{counts}} + \mathrm{shift}",
            r"\mathrm{variance} = \frac{\mathrm{variances}}{\mathrm{counts}} - "
            r"\left(\frac{\mathrm{means}}{\mathrm{counts}}\right)^{2}",
        )
        means = Input(
            FLOATING_POINT, "means", description="Sums of the (shifted) values"
        )
        variances = Input(
            FLOATING_POINT,
            "variances",
            description="Sums of the squared (shifted) values, with the shape of means",
        )
        counts = Arg(
            FLOATING_POINT, "counts", description="How many values each sum holds"
        )
        Arg(
            FLOATING_POINT,
            "shift",
            default=0.0,
            description="The shift subtracted from the values before summing",
        )
        Output(FLOATING_POINT, "mean", description="The means, with the shape of means")
        Output(
            FLOATING_POINT,
            "variance",
            description="The biased variances, with the shape of means",
        )
        Constraint(
            "means and variances must have the same type", same_type(means, variances)
        )
        Constraint(
            "means and variances must have the same shape", same_shape(means, variances)
        )
        Constraint("counts must be positive", counts > 0)
        Fragment(
            c="fragments/moments.h",
            python="fragments/moments.py",
            c_fragments=fragment_names("normalize_moments", FLOAT_DTYPES),
            python_fragment="normalize_moments",
            layout="shaped",
            args=("counts", "shift"),
            shapes=(means, means),
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            The mean and the variance from sufficient statistics (ND4J and
            TensorFlow normalize_moments): mean = means / counts + shift and
            variance = variances / counts - (means / counts)^2, in double
            precision. ND4J takes counts as a scalar tensor; here it is an arg.
            """,
        )

    with Op("confusion_matrix") as op:
        op.display_path = "/Math/Statistics"
        op.formula = (
            r"\mathrm{output}_{i j} = \left|\left\{ k : \mathrm{labels}_{k} = i \wedge "
            r"\mathrm{predictions}_{k} = j \right\}\right|",
        )
        labels = Input(LONG, "labels", description="True classes, a vector")
        predictions = Input(
            LONG, "predictions", description="Predicted classes, as many as labels"
        )
        classes = Arg(INT, "num_classes", description="The number of classes")
        Output(
            LONG,
            "output",
            description="num_classes x num_classes counts: the label's row, the prediction's column",
        )
        Constraint(
            "labels and predictions must be vectors of one length",
            (labels.rank() == 1)
            & (predictions.rank() == 1)
            & (labels.size_at(0) == predictions.size_at(0)),
        )
        Constraint("num_classes must not be negative", classes >= 0)
        Fragment(
            c="fragments/confusion.h",
            python="fragments/confusion.py",
            c_fragments=fragment_names("confusion_matrix", ("int64",)),
            python_fragment="confusion_matrix",
            layout="shaped",
            args=("num_classes",),
            shapes=((classes, classes),),
            failure="a label or prediction lies outside 0..num_classes-1",
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            The confusion matrix: output[i][j] counts the positions where the label
            is i and the prediction is j (ND4J confusionMatrix with numClasses,
            TensorFlow's confusion_matrix without weights). A class outside
            0..num_classes-1 is an error.
            """,
        )

    with Op("list_diff") as op:
        op.display_path = "/Math/Sets"
        op.formula = (
            r"\mathrm{values}_{m} = x_{i_{m}}, \quad \mathrm{indices}_{m} = i_{m}",
            r"\text{$i_{0} < i_{1} < \ldots$: the indices of the count elements of $x$ equal to no"
            r" element of $y$}",
        )
        x = Input(NUMERIC, "x", description="The values to keep or drop, a vector")
        y = Input(NUMERIC, "y", description="The values to drop, a vector")
        Output(
            NUMERIC,
            "values",
            description="The kept values of x in order, then zeros: as long as x",
        )
        Output(
            LONG,
            "indices",
            description="Where each kept value is in x, then zeros: as long as x",
        )
        Output(LONG, "count", description="How many values were kept, a scalar")
        Constraint("x and y must have the same type", same_type(x, y))
        Constraint("x and y must be vectors", (x.rank() == 1) & (y.rank() == 1))
        Fragment(
            c="fragments/sets.h",
            python="fragments/sets.py",
            c_fragments=fragment_names("list_diff"),
            python_fragment="list_diff",
            layout="shaped",
            shapes=((x.size_at(0),), (x.size_at(0),), ()),
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            The values of x that equal no value of y, in their order and with their
            repeats, and their indices in x (ND4J listDiff, TensorFlow setdiff1d;
            x[~numpy.isin(x, y)], where numpy.setdiff1d would also sort and drop
            repeats). No memory is allocated at run time, so values and
            indices have the length of x: the first count entries hold the result,
            the rest are zeros. NaN equals nothing, so it is always kept.
            """,
        )

    with Op("moments", reduce, keep_outputs=False) as op:
        op.display_path = "/Math/Reduction"
        op.nnef = "moments"
        Input(FLOATING_POINT, "x", description="Input tensor")
        Output(FLOATING_POINT, "mean", description="The mean over the axes")
        Output(
            FLOATING_POINT,
            "variance",
            description="The population variance over the axes",
        )
        Reduce(
            "add",
            pre="mean",
            map=lambda x, m: (x - m) * (x - m),
            finalize=(lambda acc, n, m: m, lambda acc, n, m: acc / n),
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            The mean and the population variance (divided by n) over the given axes,
            as mean and variance compute them: the mean summed in double precision in
            a first pass; NaN for no elements.
            """,
        )

    with Op("variance", reduce) as op:
        op.display_path = "/Math/Reduction"
        Input(FLOATING_POINT, "x", description="Input tensor")
        Output(FLOATING_POINT, "output", description="The reduced tensor")
        Reduce(
            "add",
            pre="mean",
            map=lambda x, m: (x - m) * (x - m),
            finalize=lambda acc, n, m: acc / n,
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Population variance (divided by n) over the given axes, from the mean in a first pass; NaN for no elements.",
        )

    with Op("prod", reduce) as op:
        op.unlike_numpy = (
            "integer products keep (and wrap in) the input's type; NumPy's promote as"
            " its sum does"
        )
        op.display_path = "/Math/Reduction"
        op.onnx = "ReduceProd"
        Reduce("mul")
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Product of the elements over the given axes; the product of no elements is 1. Integers wrap around.",
        )

    with Op("min", reduce) as op:
        op.display_path = "/Math/Reduction"
        op.onnx = "ReduceMin"
        op.numpy = "min"
        op.nnef = "min_reduce"
        Input(NDARRAY, "x", description="Input tensor; booleans too, as NumPy's min takes them")
        Output(NDARRAY, "output", description="The reduced tensor")
        Reduce("min", empty="error")
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Smallest element over the given axes; NaN wins. Reducing no elements is an error.",
        )

    with Op("max_abs", reduce) as op:
        op.display_path = "/Math/Reduction"
        Reduce("max", map=lambda x: abs(x), empty="error")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Largest absolute value over the given axes; NaN wins. Reducing no elements is an error.
            ND4J's amax; NumPy's amax (this namespace's amax) is the largest value, max.
            """,
        )

    with Op("min_abs", reduce) as op:
        op.display_path = "/Math/Reduction"
        Reduce("min", map=lambda x: abs(x), empty="error")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Smallest absolute value over the given axes; NaN wins. Reducing no elements is an error.
            ND4J's amin; NumPy's amin (this namespace's amin) is the smallest value, min.
            """,
        )

    with Op("asum", reduce) as op:
        op.display_path = "/Math/Reduction"
        op.onnx = "ReduceL1"
        Reduce("add", map=lambda x: abs(x))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Sum of absolute values over the given axes (0 for no elements). Integers wrap around.",
        )

    with Op("amean", reduce) as op:
        op.display_path = "/Math/Reduction"
        Input(FLOATING_POINT, "x", description="Input tensor")
        Output(FLOATING_POINT, "output", description="The reduced tensor")
        Reduce("add", map=lambda x: abs(x), finalize=lambda acc, n: acc / n)
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Mean of absolute values over the given axes; NaN for no elements.",
        )

    with Op("norm1", reduce) as op:
        op.display_path = "/Math/Reduction"
        op.onnx = "ReduceL1"
        Input(FLOATING_POINT, "x", description="Input tensor")
        Output(FLOATING_POINT, "output", description="The reduced tensor")
        Reduce("add", map=lambda x: abs(x))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "L1 norm over the given axes: the sum of absolute values.",
        )

    with Op("norm_max", reduce) as op:
        op.display_path = "/Math/Reduction"
        Input(FLOATING_POINT, "x", description="Input tensor")
        Output(FLOATING_POINT, "output", description="The reduced tensor")
        Reduce("max", map=lambda x: abs(x), empty="error")
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Max norm over the given axes: the largest absolute value. Reducing no elements is an error.",
        )

    with Op("squared_norm", reduce) as op:
        op.display_path = "/Math/Reduction"
        op.onnx = "ReduceSumSquare"
        Input(FLOATING_POINT, "x", description="Input tensor")
        Output(FLOATING_POINT, "output", description="The reduced tensor")
        Reduce("add", map=lambda x: x * x)
        Doc(
            Language.ANY, DocScope.ALL, "Squared L2 norm over the given axes: sum(x^2)."
        )

    with Op("entropy", reduce) as op:
        op.display_path = "/Math/Reduction"
        Input(FLOATING_POINT, "x", description="Input tensor")
        Output(FLOATING_POINT, "output", description="The reduced tensor")
        Reduce("add", map=lambda x: x * fn.log(x), finalize=lambda acc, n: -acc)
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Entropy over the given axes: -sum(x * ln(x)) (NaN where x is 0 or negative).",
        )

    with Op("shannon_entropy", reduce) as op:
        op.display_path = "/Math/Reduction"
        Input(FLOATING_POINT, "x", description="Input tensor")
        Output(FLOATING_POINT, "output", description="The reduced tensor")
        Reduce(
            "add",
            map=lambda x: x * (fn.log(x) / fn.log(2.0)),
            finalize=lambda acc, n: -acc,
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Shannon entropy over the given axes: -sum(x * log2(x)).",
        )

    with Op("argmax", arg_search) as op:
        op.display_path = "/Math/Reduction"
        op.onnx = "ArgMax"
        op.numpy = "argmax"
        op.nnef = "argmax_reduce"
        op.unlike_onnx = UNLIKE_ARG_SEARCH
        Output(
            LONG,
            "output",
            description="Index of the first (or last) largest element along the axis",
        )
        Arg(
            BOOLEAN,
            "select_last_index",
            default=False,
            description="Give the last of tied largest elements (the last NaN) instead of the first (ONNX's)",
        )
        ArgReduce("max", last_index="select_last_index")
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Index of the first largest element along an axis, or of the last with select_last_index; "
            "a NaN counts as largest.",
        )

    with Op("argmin", arg_search) as op:
        op.display_path = "/Math/Reduction"
        op.onnx = "ArgMin"
        op.numpy = "argmin"
        op.nnef = "argmin_reduce"
        op.unlike_onnx = UNLIKE_ARG_SEARCH
        Output(
            LONG,
            "output",
            description="Index of the first (or last) smallest element along the axis",
        )
        Arg(
            BOOLEAN,
            "select_last_index",
            default=False,
            description="Give the last of tied smallest elements (the last NaN) instead of the first (ONNX's)",
        )
        ArgReduce("min", last_index="select_last_index")
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Index of the first smallest element along an axis, or of the last with select_last_index; "
            "a NaN counts as smallest.",
        )

    for combine, kind, out_type, what in (
        (
            "add",
            NUMERIC,
            NUMERIC,
            "The element-wise sum of the tensors, added in list order; integers wrap around.",
        ),
        (
            "avg",
            FLOATING_POINT,
            FLOATING_POINT,
            "The element-wise mean of the tensors, summed in double precision in list order.",
        ),
        (
            "max",
            NUMERIC,
            NUMERIC,
            "The element-wise maximum of the tensors; NaN wins (propagates).",
        ),
        (
            "min",
            NUMERIC,
            NUMERIC,
            "The element-wise minimum of the tensors; NaN wins (propagates).",
        ),
        (
            "max_index",
            NUMERIC,
            LONG,
            """
            The position in the list of the tensor holding the largest value, element
            by element: the first of equals, and the first NaN counts as largest (as
            argmax over the stacked tensors).
            """,
        ),
    ):
        with Op(f"merge_{combine}") as op:
            op.display_path = "/Math/Merge"
            op.onnx = {"add": "Sum", "avg": "Mean", "max": "Max", "min": "Min"}.get(combine)
            Input(
                kind,
                "inputs",
                count=AtLeast(1),
                description="Tensors of one shape and dtype",
            )
            Output(
                out_type,
                "output",
                description="The merged tensor, with the shape of the inputs",
            )
            Merge(combine)
            Doc(Language.ANY, DocScope.ALL, what)
            Doc(
                Language.ANY,
                DocScope.ALL,
                "The tensors must all have one shape: unlike ONNX Sum, Mean, Max and Min, a merge does not broadcast.",
            )

    with Op("meshgrid") as op:
        op.unlike_numpy = (
            "returns ND4J's pair of grids; NumPy's takes any number of vectors and "
            "indexing="
        )
        op.display_path = "/Math/Creation"
        Input(
            NDARRAY,
            "inputs",
            count=AtLeast(1),
            description="The coordinate tensors (their elements in row-major order), all of one dtype",
        )
        Arg(
            BOOLEAN,
            "cartesian",
            default=True,
            description='Swap the first two grid axes (numpy.meshgrid indexing "xy"); false: matrix indexing "ij"',
        )
        Output(
            NDARRAY,
            "outputs",
            count=AtLeast(0),
            description="One grid per input, with the type of the inputs",
        )
        Parts("meshgrid", source="inputs")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Coordinate grids (numpy.meshgrid): for N tensors of n1, ..., nN elements, N grids
            of shape (n1, ..., nN), the k-th holding the elements of the k-th tensor along
            axis k. With cartesian (the default, numpy's "xy" indexing) the first two axes
            are swapped: the shape is (n2, n1, n3, ..., nN). At most 8 tensors, the largest
            rank.
            """,
        )

    for which in ("first", "last"):
        with Op(f"{which}_index", condition_test) as op:
            op.display_path = "/Math/Reduction"
            use_mixin(arg_search)
            Input(
                FLOATING_POINT, "x", description="Input tensor"
            )  # conditions test NaN
            Output(
                LONG,
                "output",
                description=f"Index of the {which} element along the axis where the condition holds, or -1",
            )
            ArgReduce(
                which,
                map=lambda x, condition, value: condition_holds(x, condition, value),
            )
            Doc(
                Language.ANY,
                DocScope.ALL,
                f"""
                Index of the {which} element along an axis for which the condition holds
                (as match_condition tests it: NaN fails every comparison), or -1 where
                no element does, an empty axis included.
                """,
            )

    with Op("matmul") as op:
        op.display_path = "/Math/Linear algebra"
        op.onnx = "MatMul"
        op.numpy = "matmul"
        op.nnef = "matmul"
        a = Input(
            NUMERIC,
            "a",
            description="Left matrix, or a batch of them (rank >= 2; in Python also a vector, as numpy.matmul's)",
        )
        b = Input(
            NUMERIC,
            "b",
            description="Right matrix, or a batch of them (rank >= 2; in Python also a vector, as numpy.matmul's)",
        )
        Output(
            NUMERIC,
            "output",
            description="The matrix product, with the broadcast batch axes",
        )
        Constraint("a and b must have the same type", same_type(a, b))
        Constraint(
            "a and b must have rank 2 or more", (a.rank() >= 2) & (b.rank() >= 2)
        )
        Constraint(
            "the inner dimensions of a and b must agree", a.size_at(-1) == b.size_at(-2)
        )
        Einsum("...|ik;...|kj=>...|ij")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Matrix product of the last two axes of a and b; leading (batch) axes
            broadcast as in NumPy's matmul.
            """,
        )

    with Op("correlate") as op:
        op.display_path = "/Math/Linear algebra"
        op.unlike_numpy = (
            "takes stacks of signals (leading axes broadcast, as matmul's batch axes) and refuses a "
            "v longer than a, where NumPy swaps the two and reverses the result"
        )
        a = Input(NUMERIC, "a", description="The signal, or a stack of them along the last axis")
        v = Input(NUMERIC, "v", description="The kernel, or a stack of them along the last axis")
        Output(
            NUMERIC,
            "output",
            description="One sum of products per position where v fits in a, with the broadcast leading axes",
        )
        Constraint("a and v must have the same type", same_type(a, v))
        Einsum("o+k;k=>o")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Cross-correlation over the last axis, as NumPy's correlate in its default
            'valid' mode: output[o] is the sum over k of a[o + k] * v[k], one value for
            each position where all of v fits in a. Integers wrap.
            """,
        )

    with Op("matrix_transpose") as op:
        op.display_path = "/Math/Linear algebra"
        op.numpy = "matrix_transpose"
        x = Input(NUMERIC, "x", description="A matrix, or a batch of them (rank >= 2)")
        Output(NUMERIC, "output", description="x with its last two axes swapped")
        Constraint("x must have rank 2 or more", x.rank() >= 2)
        Einsum("...|ij=>...|ji")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Swap the last two axes (the matrix transpose of every batch entry), as NumPy's and the
            Array API's matrix_transpose. This namespace's transpose, as NumPy's, reverses every axis.
            """,
        )

    with Op("trace") as op:
        op.unlike_numpy = (
            "traces the last two axes of a batch; NumPy's trace takes the first two "
            "(offset=, axis1=, axis2=)"
        )
        op.display_path = "/Math/Linear algebra"
        x = Input(NUMERIC, "x", description="A square matrix, or a batch of them")
        Output(NUMERIC, "output", description="The sum of each matrix's diagonal")
        Constraint("x must have rank 2 or more", x.rank() >= 2)
        Constraint("the matrices must be square", x.size_at(-1) == x.size_at(-2))
        Einsum("...|ii=>...|")
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Sum of the main diagonal of the last two axes. Integers wrap.",
        )

    with Op("cumsum", scan) as op:
        op.formula = (
            r"\mathrm{output}_{i} = \sum_{j \leq i} x_{j}",
            r"\text{$i$ and $j$ run along the axis; $j < i$ if exclusive, $j \geq i$ if reverse, $j > i$ if both}",
        )
        op.unlike_numpy = (
            "takes exclusive and reverse args and defaults to axis 0; NumPy's "
            "flattens by default"
        )
        op.display_path = "/Math/Reduction"
        op.onnx = "CumSum"
        Output(NUMERIC, "output", description="Running sums, with the shape of x")
        Fragment(
            c="fragments/cumulative.h",
            python="fragments/cumulative.py",
            c_fragments=fragment_names("cumsum"),
            python_fragment="cumsum",
            args=("exclusive", "reverse"),
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Cumulative sum along an axis (inclusive unless exclusive; from the end if reverse). Integers wrap.",
        )

    with Op("minimum", pairwise) as op:
        op.display_path = "/Math/Arithmetic"
        op.onnx = "Min"
        op.numpy = "minimum"
        op.nnef = "min"
        op.unlike_onnx = (
            "ONNX's Min takes any number of inputs (as math.merge_min does); this op "
            "takes two"
        )
        Elementwise(lambda x, y: fn.minimum(x, y))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise minimum of x and y; NaN wins, as in NumPy's minimum.",
        )

    with Op("fmod", pairwise) as op:
        op.display_path = "/Math/Arithmetic"
        op.onnx = "Mod"
        op.numpy = "fmod"
        Elementwise(lambda x, y: fn.mod(x, y))
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Elementwise remainder of truncated division, with the sign of x (C's
            fmod and %, NumPy's fmod, ONNX Mod with fmod=1), with NumPy broadcasting.
            ND4J's mod; NumPy's mod (this namespace's mod) floors instead.

            Floating point: x mod 0 is NaN. Integers: x mod 0 is 0 and the most
            negative value mod -1 is 0.
            """,
        )

    with Op("mod", pairwise) as op:
        op.display_path = "/Math/Arithmetic"
        op.onnx = "Mod"
        op.numpy = "mod"
        Elementwise(lambda x, y: fn.floor_mod(x, y))
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Elementwise remainder of floored division, with the sign of y (Python's
            %, NumPy's mod and remainder, ONNX Mod with fmod=0), with NumPy broadcasting.
            Also named floor_mod (ND4J) and remainder; fmod truncates instead.

            Floating point: x mod 0 is NaN and a zero result takes the sign of y.
            Integers: x mod 0 is 0.
            """,
        )

    with Op("floor_div", pairwise) as op:
        op.display_path = "/Math/Arithmetic"
        op.numpy = "floor_divide"
        Elementwise(lambda x, y: fn.floor_div(x, y))
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Elementwise division rounded toward minus infinity, with NumPy broadcasting.

            Floating point: as NumPy's floor_divide and Python's //, x less its floored
            remainder, over y, snapped to a whole number (so -0.5 // inf is -1); x // 0 is x / 0.
            Integers: x // 0 is 0 and the most negative value // -1 wraps to itself.
            """,
        )

    with Op("erfc", float_transform) as op:
        op.display_path = "/Math/Elementwise"
        Elementwise(lambda x: fn.erfc(x))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise complementary error function: output = 1 - erf(x), computed without cancellation for large x.",
        )

    with Op("asinh", float_transform) as op:
        op.display_path = "/Math/Elementwise"
        op.onnx = "Asinh"
        op.numpy = "arcsinh"
        op.nnef = "asinh"
        Elementwise(lambda x: fn.asinh(x))
        Doc(Language.ANY, DocScope.ALL, "Elementwise inverse hyperbolic sine.")

    with Op("acosh", float_transform) as op:
        op.display_path = "/Math/Elementwise"
        op.onnx = "Acosh"
        op.numpy = "arccosh"
        op.nnef = "acosh"
        Elementwise(lambda x: fn.acosh(x))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise inverse hyperbolic cosine; NaN below 1.",
        )

    with Op("atanh", float_transform) as op:
        op.display_path = "/Math/Elementwise"
        op.onnx = "Atanh"
        op.numpy = "arctanh"
        op.nnef = "atanh"
        Elementwise(lambda x: fn.atanh(x))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise inverse hyperbolic tangent; infinite at -1 and 1, NaN beyond.",
        )

    with Op("clip") as op:
        op.display_path = "/Math/Elementwise"
        op.onnx = "Clip"
        op.numpy = "clip"
        op.nnef = "clamp"
        op.unlike_nnef = (
            "NNEF's clamp gives a where the bound a is above b; this op gives b, as NumPy's "
            "clip does"
        )
        op.unlike_onnx = (
            "ONNX's bounds are optional inputs (a missing one bounds nothing); this op "
            "takes both"
        )
        x = Input(NUMERIC, "x", description="Input tensor")
        lo = Input(NUMERIC, "a_min", description="Lower bound, broadcast against x")
        hi = Input(NUMERIC, "a_max", description="Upper bound, broadcast against x")
        Output(
            NUMERIC,
            "output",
            description="x clipped, with the broadcast shape of x, a_min and a_max",
        )
        Constraint(
            "x, a_min and a_max must have the same type",
            same_type(x, lo) & same_type(x, hi),
        )
        Constraint(
            "x, a_min and a_max must have broadcastable shapes",
            broadcastable_shapes(x, lo, hi),
        )
        Elementwise(
            lambda x, a_min, a_max: fn.minimum(fn.maximum(x, a_min), a_max),
            broadcast="numpy",
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Elementwise clipping as NumPy's clip and ONNX's Clip compute it: output =
            min(max(x, a_min), a_max), with NumPy broadcasting, so where a_min is above
            a_max the result is a_max; NaN stays NaN. Both bounds are given (where NumPy
            takes None, an infinity or the dtype's limit bounds nothing).
            math.clip_by_value (ND4J's) takes scalar bounds and refuses a minimum above
            the maximum.
            """,
        )

    with Op("clip_by_value", float_transform) as op:
        op.integers_through_float = ("int8", "int16", "int32")
        op.display_path = "/Math/Elementwise"
        op.nnef = "clamp"
        op.unlike_nnef = (
            "NNEF's bounds a and b are tensors broadcast against x, and a bound a above b"
            " gives a; this op takes scalar bounds and refuses a minimum above the "
            "maximum"
        )
        lo = Arg(
            FLOATING_POINT, "clip_value_min", description="Smallest value of the result"
        )
        hi = Arg(
            FLOATING_POINT, "clip_value_max", description="Largest value of the result"
        )
        Constraint("clip_value_min must not exceed clip_value_max", lo <= hi)
        Elementwise(
            lambda x, clip_value_min, clip_value_max: fn.minimum(
                fn.maximum(x, clip_value_min), clip_value_max
            )
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise clipping: output = min(max(x, clip_value_min), clip_value_max); NaN stays NaN.",
        )

    with Op("rectified_tanh", float_transform) as op:
        op.display_path = "/Math/Elementwise"
        Elementwise(lambda x: fn.maximum(fn.tanh(x), 0.0))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise rectified hyperbolic tangent: output = max(tanh(x), 0).",
        )

    with Op("rational_tanh", float_transform) as op:
        op.display_path = "/Math/Elementwise"
        Elementwise(
            lambda x: 1.7159
            * fn.sign(rational_y(x))
            * (1.0 - 1.0 / rational_denominator(x))
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Elementwise rational approximation of the scaled hyperbolic tangent
            1.7159 * tanh(2x/3) (arXiv:1508.01292): with y = 2x/3,
            output = 1.7159 * sign(y) * (1 - 1 / (1 + |y| + y^2 + 1.41645 * y^4)).
            """,
        )

    with Op("count_non_zero", reduce) as op:
        op.display_path = "/Math/Reduction"
        Output(LONG, "output", description="The number of non-zero elements")
        Reduce("add", map=lambda x: x != 0)
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Counts the non-zero elements over the given axes (NaN counts as non-zero).",
        )

    with Op("count_zero", reduce) as op:
        op.display_path = "/Math/Reduction"
        Output(LONG, "output", description="The number of zero elements")
        Reduce("add", map=lambda x: x == 0)
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Counts the elements equal to zero (-0.0 included) over the given axes.",
        )

    with Op("zero_fraction", reduce) as op:
        op.display_path = "/Math/Reduction"
        Input(FLOATING_POINT, "x", description="Input tensor")
        Output(FLOATING_POINT, "output", description="The fraction of zero elements")
        Reduce(
            "add",
            map=lambda x: fn.where(x == 0, 1.0, 0.0),
            finalize=lambda acc, n: acc / n,
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            "The fraction of elements equal to zero over the given axes, in [0, 1]; NaN for no elements.",
        )

    with Op("log_entropy", reduce) as op:
        op.display_path = "/Math/Reduction"
        Input(FLOATING_POINT, "x", description="Input tensor (probabilities)")
        Output(FLOATING_POINT, "output", description="The reduced tensor")
        Reduce("add", map=lambda x: x * fn.log(x), finalize=lambda acc, n: fn.log(-acc))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Logarithm of the entropy over the given axes: output = log(-sum(x * log(x))).",
        )

    with Op("euclidean_distance", pair_reduce) as op:
        op.display_path = "/Math/Distance"
        Input(FLOATING_POINT, "x", description="First input tensor")
        Input(
            FLOATING_POINT,
            "y",
            description="Second input tensor, with the shape and type of x",
        )
        Output(FLOATING_POINT, "output", description="The distance")
        Reduce(
            "add",
            map=lambda x, y: (x - y) * (x - y),
            finalize=lambda acc, n: fn.sqrt(acc),
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Euclidean distance between x and y over the given axes: sqrt(sum((x - y)^2)).",
        )

    with Op("manhattan_distance", pair_reduce) as op:
        op.display_path = "/Math/Distance"
        Reduce("add", map=lambda x, y: abs(x - y))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Manhattan (L1) distance between x and y over the given axes: sum(|x - y|). Integers wrap.",
        )

    with Op("hamming_distance", pair_reduce) as op:
        op.display_path = "/Math/Distance"
        Output(LONG, "output", description="The number of differing elements")
        Reduce("add", map=lambda x, y: x != y)
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Hamming distance between x and y over the given axes: the number of elements where x != y (NaN differs from everything).",
        )

    with Op("diag_part") as op:
        op.display_path = "/Math/Matrix"
        Input(NUMERIC, "x", description="Square matrices in the last two axes")
        Output(NUMERIC, "output", description="The diagonals, with x's batch axes")
        Einsum("...|ii=>...|i")
        Doc(
            Language.ANY,
            DocScope.ALL,
            "The main diagonal of each matrix in the last two axes of x.",
        )

    with Op("diag") as op:
        op.formula = (
            r"\mathrm{output}_{i \, j} = \begin{cases} x_{i} & i = j \\ 0 & \text{otherwise} "
            r"\end{cases}",
            r"\text{$i$ and $j$: index tuples over the axes of $x$}",
        )
        op.unlike_numpy = (
            "ND4J's diag (a diagonal matrix from a vector, for any rank); NumPy's "
            "diag extracts from a matrix too"
        )
        op.display_path = "/Math/Matrix"
        Input(NDARRAY, "x", description="The diagonal values, of rank 4 or less")
        Output(
            NDARRAY,
            "output",
            description="Shape x.shape + x.shape: x on the diagonal, 0 elsewhere",
        )
        Layout("diag")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            A tensor with x on its diagonal (TensorFlow's tensor_diag): for x of
            rank r the result has rank 2r, output[i..., i...] = x[i...] and every
            other element is 0. A vector gives the diagonal matrix (numpy.diag).
            """,
        )

    with Op("is_non_decreasing") as op:
        op.display_path = "/Math/Order"
        op.formula = (
            r"\mathrm{output} = \bigwedge_{i} x_{i} \leq x_{i+1}",
            r"\text{over the elements in row-major order}",
        )
        Input(NUMERIC, "x", description="Input tensor, read in row-major order")
        Output(BOOLEAN, "output", description="Whether the order holds, a scalar")
        Fragment(
            c="fragments/order.h",
            python="fragments/order.py",
            c_fragments=fragment_names("is_non_decreasing"),
            python_fragment="is_non_decreasing",
            layout="flat",
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            True when every element of x, in row-major order, is no larger than the next
            (x[i] <= x[i + 1]); true for fewer than two elements, and false
            wherever NaN takes part.
            """,
        )

    with Op("is_strictly_increasing") as op:
        op.display_path = "/Math/Order"
        op.formula = (
            r"\mathrm{output} = \bigwedge_{i} x_{i} < x_{i+1}",
            r"\text{over the elements in row-major order}",
        )
        Input(NUMERIC, "x", description="Input tensor, read in row-major order")
        Output(BOOLEAN, "output", description="Whether the order holds, a scalar")
        Fragment(
            c="fragments/order.h",
            python="fragments/order.py",
            c_fragments=fragment_names("is_strictly_increasing"),
            python_fragment="is_strictly_increasing",
            layout="flat",
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            True when every element of x, in row-major order, is smaller than the next
            (x[i] < x[i + 1]); true for fewer than two elements, and false
            wherever NaN takes part.
            """,
        )

    with Op("set_diag") as op:
        op.display_path = "/Math/Matrix"
        op.formula = (
            r"\mathrm{output}_{\ldots i j} = \begin{cases} \mathrm{diagonal}_{\ldots i} & i = j \\"
            r" x_{\ldots i j} & \text{otherwise} \end{cases}",
        )
        Input(NDARRAY, "x", description="Matrices in the last two axes")
        Input(
            NDARRAY,
            "diagonal",
            description="The new diagonals: x's batch axes, then min(rows, cols)",
        )
        Output(NDARRAY, "output", description="x with its main diagonals replaced")
        Layout("set_diag")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Replaces the main diagonal of each matrix of x by diagonal
            (TensorFlow's matrix_set_diag); everything else is copied from x.
            """,
        )

    with Op("matrix_determinant") as op:
        op.display_path = "/Math/Matrix"
        op.onnx = "Det"
        op.formula = (
            r"\mathrm{output}_{\ldots} = \det x_{\ldots}",
            r"\text{of each matrix in the last two axes}",
        )
        x = Input(
            FLOATING_POINT, "x", description="Square matrices in the last two axes"
        )
        Output(
            FLOATING_POINT,
            "output",
            description="The determinants, with x's batch axes",
        )
        Constraint("x must hold square matrices", x.size_at(-1) == x.size_at(-2))
        Fragment(
            c="fragments/factor.h",
            python="fragments/factor.py",
            c_fragments=fragment_names("determinant", FLOAT_DTYPES),
            python_fragment="determinant",
            layout="matrix_reduce",
            workspace=x.size_at(-1) * x.size_at(-1),
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            The determinant of each matrix, from Gaussian elimination with partial
            pivoting in double: the product of the pivots, negated for each row swap.
            A singular matrix gives 0; a matrix of 0 x 0 gives 1.
            """,
        )

    with Op("matrix_inverse") as op:
        op.display_path = "/Math/Matrix"
        op.formula = (
            r"\mathrm{output}_{\ldots} = x_{\ldots}^{-1}",
            r"\text{of each matrix in the last two axes}",
        )
        x = Input(
            FLOATING_POINT, "x", description="Square matrices in the last two axes"
        )
        Output(
            FLOATING_POINT, "output", description="The inverses, with the shape of x"
        )
        Constraint("x must hold square matrices", x.size_at(-1) == x.size_at(-2))
        Fragment(
            c="fragments/factor.h",
            python="fragments/factor.py",
            c_fragments=fragment_names("inverse", FLOAT_DTYPES),
            python_fragment="inverse",
            layout="matrix",
            failure="x is singular",
            workspace=2 * x.size_at(-1) * x.size_at(-1),
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            The inverse of each matrix (numpy.linalg.inv): Gaussian elimination with
            partial pivoting in double, solving x X = I. A singular matrix (a column
            without a non-zero pivot) is an error.
            """,
        )

    with Op("iamax", arg_search) as op:
        op.display_path = "/Math/Reduction"
        Output(
            LONG,
            "output",
            description="Index of the first element of largest absolute value along the axis",
        )
        ArgReduce("max", map=lambda x: abs(x))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Index of the first element of largest absolute value along an axis (BLAS i?amax); the first NaN wins.",
        )

    with Op("iamin", arg_search) as op:
        op.display_path = "/Math/Reduction"
        Output(
            LONG,
            "output",
            description="Index of the first element of smallest absolute value along the axis",
        )
        ArgReduce("min", map=lambda x: abs(x))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Index of the first element of smallest absolute value along an axis; the first NaN wins.",
        )

    with Op("standardize", along_axis) as op:
        op.display_path = "/Math/Normalization"
        op.formula = (
            r"\mathrm{output}_{\ldots i \ldots} = \frac{x_{\ldots i \ldots} - \mu}{\sigma}",
            r"\mu = \frac{1}{n} \sum_{j} x_{\ldots j \ldots}, \quad \sigma = \sqrt{\frac{1}{n} "
            r"\sum_{j} \left(x_{\ldots j \ldots} - \mu\right)^{2}}",
            r"\text{$i$ and $j$ run along axis, of $n$ entries}",
        )
        Output(
            FLOATING_POINT,
            "output",
            description="The standardized tensor, with the shape of x",
        )
        Fragment(
            c="fragments/normalize.h",
            python="fragments/normalize.py",
            c_fragments=fragment_names("standardize", FLOAT_DTYPES),
            python_fragment="standardize",
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Standardizes along an axis: output = (x - mean) / std, with the mean and
            the population standard deviation along the axis. A constant row has
            std 0 and gives NaN.
            """,
        )

    with Op("cosine_similarity", pair_reduce) as op:
        op.display_path = "/Math/Distance"
        Input(FLOATING_POINT, "x", description="First input tensor")
        Input(
            FLOATING_POINT,
            "y",
            description="Second input tensor, with the shape and type of x",
        )
        Output(
            FLOATING_POINT, "output", description="The cosine similarity, in [-1, 1]"
        )
        Reduce(
            "add",
            map=(lambda x, y: x * y, lambda x, y: x * x, lambda x, y: y * y),
            finalize=lambda acc, acc1, acc2, n: acc / fn.sqrt(acc1 * acc2),
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Cosine similarity over the given axes: sum(x * y) / sqrt(sum(x^2) * sum(y^2)); NaN when x or y is all zeros.",
        )

    with Op("cosine_distance", pair_reduce) as op:
        op.display_path = "/Math/Distance"
        Input(FLOATING_POINT, "x", description="First input tensor")
        Input(
            FLOATING_POINT,
            "y",
            description="Second input tensor, with the shape and type of x",
        )
        Output(FLOATING_POINT, "output", description="The cosine distance, in [0, 2]")
        Reduce(
            "add",
            map=(lambda x, y: x * y, lambda x, y: x * x, lambda x, y: y * y),
            finalize=lambda acc, acc1, acc2, n: 1.0 - acc / fn.sqrt(acc1 * acc2),
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Cosine distance over the given axes: 1 - cosine_similarity(x, y).",
        )

    with Op("jaccard_distance", pair_reduce) as op:
        op.display_path = "/Math/Distance"
        Input(FLOATING_POINT, "x", description="First input tensor")
        Input(
            FLOATING_POINT,
            "y",
            description="Second input tensor, with the shape and type of x",
        )
        Output(FLOATING_POINT, "output", description="The Jaccard distance")
        Reduce(
            "add",
            map=(lambda x, y: fn.minimum(x, y), lambda x, y: fn.maximum(x, y)),
            finalize=lambda acc, acc1, n: 1.0 - acc / acc1,
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Jaccard distance over the given axes: 1 - sum(min(x, y)) / sum(max(x, y)), for non-negative weights.",
        )

    with Op("clip_by_norm", along_axis) as op:
        op.display_path = "/Math/Normalization"
        op.formula = (
            r"\mathrm{output}_{\ldots i \ldots} = \begin{cases} x_{\ldots i \ldots} \, "
            r"\frac{c}{\lVert x \rVert} & \lVert x \rVert > c \\ x_{\ldots i \ldots} & "
            r"\text{otherwise} \end{cases}",
            r"\lVert x \rVert = \sqrt{\sum_{j} x_{\ldots j \ldots}^{2}}, \quad c = "
            r"\mathrm{clip\_value}",
            r"\text{$i$ and $j$ run along axis}",
        )
        Output(
            FLOATING_POINT,
            "output",
            description="The clipped tensor, with the shape of x",
        )
        clip = Arg(
            FLOATING_POINT, "clip_value", description="The largest L2 norm a row keeps"
        )
        Constraint("clip_value must be positive", clip > 0)
        Fragment(
            c="fragments/normalize.h",
            python="fragments/normalize.py",
            c_fragments=fragment_names("clip_by_norm", FLOAT_DTYPES),
            python_fragment="clip_by_norm",
            args=("clip_value",),
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Clips by L2 norm along an axis: rows with norm above clip_value become x * clip_value / norm; the rest stay.",
        )

    with Op("clip_by_avg_norm", along_axis) as op:
        op.display_path = "/Math/Normalization"
        op.formula = (
            r"\mathrm{output}_{\ldots i \ldots} = \begin{cases} x_{\ldots i \ldots} \, \frac{c}{a}"
            r" & a > c \\ x_{\ldots i \ldots} & \text{otherwise} \end{cases}",
            r"a = \frac{1}{n} \sqrt{\sum_{j} x_{\ldots j \ldots}^{2}}, \quad c = "
            r"\mathrm{clip\_value}",
            r"\text{$i$ and $j$ run along axis, of $n$ entries}",
        )
        Output(
            FLOATING_POINT,
            "output",
            description="The clipped tensor, with the shape of x",
        )
        clip = Arg(
            FLOATING_POINT,
            "clip_value",
            description="The largest average L2 norm a row keeps",
        )
        Constraint("clip_value must be positive", clip > 0)
        Fragment(
            c="fragments/normalize.h",
            python="fragments/normalize.py",
            c_fragments=fragment_names("clip_by_avg_norm", FLOAT_DTYPES),
            python_fragment="clip_by_avg_norm",
            args=("clip_value",),
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Clips by average L2 norm along an axis: with avg = norm / n for a row of
            n elements, rows with avg above clip_value become x * clip_value / avg.
            """,
        )

    with Op("cube_derivative", float_transform) as op:
        op.display_path = "/Math/Derivatives"
        Elementwise(lambda x: 3.0 * x * x)
        Doc(Language.ANY, DocScope.ALL, "Derivative of cube: 3 * x^2.")

    with Op("rectified_tanh_derivative", float_transform) as op:
        op.display_path = "/Math/Derivatives"
        Elementwise(lambda x: fn.where(x > 0, 1.0 - fn.tanh(x) * fn.tanh(x), 0.0))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Derivative of rectified_tanh: 1 - tanh(x)^2 where x > 0, else 0.",
        )

    with Op("rational_tanh_derivative", float_transform) as op:
        op.display_path = "/Math/Derivatives"
        Elementwise(
            lambda x: 1.7159
            * (2.0 / 3.0)
            * (
                1.0
                + 2.0 * abs(rational_y(x))
                + 4.0 * 1.41645 * abs(rational_y(x)) * rational_y(x) * rational_y(x)
            )
            / (rational_denominator(x) * rational_denominator(x))
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Derivative of rational_tanh: with y = 2x/3 and
            D = 1 + |y| + y^2 + 1.41645 * y^4,
            output = 1.7159 * (2/3) * (1 + 2|y| + 4 * 1.41645 * |y|^3) / D^2.
            """,
        )

    with Op("is_max") as op:
        op.display_path = "/Math/Reduction"
        op.formula = (
            r"\mathrm{output}_{\ldots i \ldots} = \begin{cases} 1 & i = \min "
            r"\operatorname*{arg\,max}_{j} x_{\ldots j \ldots} \\ 0 & \text{otherwise} \end{cases}",
            r"\text{$i$ and $j$ run along axis}",
        )
        x = Input(NUMERIC, "x", description="Input tensor")
        axis = Arg(
            INT,
            "axis",
            default=-1,
            description="Axis to search; negative counts from the last one",
        )
        Output(
            NUMERIC,
            "output",
            description="1 at the largest element of each row, 0 elsewhere; the shape and type of x",
        )
        Constraint("axis must be an axis of x", (axis >= -x.rank()) & (axis < x.rank()))
        Fragment(
            c="fragments/normalize.h",
            python="fragments/normalize.py",
            c_fragments=fragment_names("is_max"),
            python_fragment="is_max",
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Marks the first largest element along an axis with 1 and every other element with 0 (the first NaN counts as largest, as in argmax).",
        )

    # Fixed-point conversions (ADR 0036's rules, ADR 0068): the reference library's FixedPoint units
    with Op("quantize") as op:
        op.display_path = "/Math/FixedPoint"
        op.onnx = "QuantizeLinear"
        op.unlike_onnx = (
            "ONNX quantizes to its integer types with a y_scale and y_zero_point tensor; this op "
            "quantizes float32 to a Q type (shift) or a D type (scale and offset), per tensor"
        )
        Input(FLOATING_POINT, "x", description="Real values (float32)")
        Arg(DATA_TYPE, "dtype", default="q15", description="The fixed-point type of the output")
        Arg(INT, "shift", default=0, description="A Q output's shift: real = stored / 2^(N - shift)")
        Arg(FLOATING_POINT, "scale", default=1.0, description="A D output's scale: real = (stored - offset) * scale")
        Arg(INT, "offset", default=0, description="A D output's offset (zero point): the stored value of real zero")
        Output(FIXED_POINT, "output", description="x stored as dtype, with the given attributes; the shape of x")
        Convert("quantize")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Real values as a fixed-point type: a Q type stores x * 2^(N - shift) truncated toward
            zero and saturated (CMSIS-DSP's arm_float_to_q15), a D type round-half-even(x / scale)
            + offset saturated (ONNX QuantizeLinear; NaN stores the offset).
            """,
        )

    with Op("dequantize") as op:
        op.display_path = "/Math/FixedPoint"
        op.onnx = "DequantizeLinear"
        op.unlike_onnx = "ONNX reads the scale and zero point as inputs; this op reads the tensor's own attributes"
        Input(FIXED_POINT, "x", description="A fixed-point tensor")
        Output(FLOATING_POINT, "output", description="The real values of x (float32); the shape of x")
        Convert("dequantize")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            The real (float32) values of a fixed-point tensor, from its own attributes: a Q type's
            stored / 2^(N - shift) (CMSIS-DSP's arm_q15_to_float), a D type's (stored - offset) *
            scale (ONNX DequantizeLinear).
            """,
        )

    #: What a per-tensor quantization refuses.
    PER_TENSOR = (
        "scale and zero_point must each hold one value (per-tensor quantization; per-axis and "
        "blocked scales are not taken)"
    )

    #: How both linear quantizations differ from ONNX's first.
    PER_TENSOR_ONLY = "takes one scale and one zero point (per tensor; ONNX's per-axis and blocked scales are not taken)"

    #: The scale and zero point of ONNX's linear quantization, per tensor: the zero point's dtype
    #: is the quantized values'.
    with Mixin("linear_quantization") as linear_quantization:
        Input(FLOATING_POINT, "scale", description="One value (float32): the real step of one unit")
        Input(
            NUMERIC, "zero_point", description="One value: the stored value of real zero, of the quantized values' dtype"
        )

    with Op("quantize_linear") as op:
        op.display_path = "/Math/FixedPoint"
        op.onnx = "QuantizeLinear"
        op.unlike_onnx = (
            PER_TENSOR_ONLY + " and a float32 x; the narrow types (float8, int4, ...) quantize to float "
            "or int8 values, which base.encode_narrow encodes"
        )
        op.formula = (
            r"\mathrm{output}_{i} = \operatorname{saturate}\left(\operatorname{round}\left(x_{i} / "
            r"\mathrm{scale}\right) + \mathrm{zero\_point}\right)",
            r"\text{round: half to even, of the float32 quotient; saturate: into the zero point's dtype; "
            r"NaN gives the zero point}",
        )
        x = Input(FLOATING_POINT, "x", description="Real values (float32)")
        use_mixin(linear_quantization)
        Output(NUMERIC, "output", description="x quantized, with the shape of x and the dtype of zero_point")
        Fragment(
            c="fragments/quantize.h",
            python="fragments/quantize.py",
            c_fragments=fragment_names("quantize_linear", (*INT_DTYPES, *FLOAT_DTYPES)),
            python_fragment="quantize_linear",
            layout="shaped",
            shapes=(x,),
            fixed_dtypes={"x": "float32", "scale": "float32"},
            failure=PER_TENSOR,
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            ONNX's QuantizeLinear per tensor: round_half_even(x / scale) + zero_point,
            saturated into the dtype of zero_point (int8 to uint64), which the output
            takes. The quotient is float32, as ONNX computes it; NaN gives the zero point.
            A float zero point gives x / scale + zero_point unrounded: ONNX's value for a
            float8 type before its cast, which base.encode_narrow does (saturate as ONNX's).
            """,
        )

    with Op("dequantize_linear") as op:
        op.display_path = "/Math/FixedPoint"
        op.onnx = "DequantizeLinear"
        op.unlike_onnx = (
            PER_TENSOR_ONLY + " and gives float32; the narrow types' codes decode first "
            "(base.decode_narrow), to float32 x and zero point"
        )
        op.formula = (
            r"\mathrm{output}_{i} = \left(x_{i} - \mathrm{zero\_point}\right) \cdot \mathrm{scale}",
            r"\text{in float32, $x_i$ and the zero point converted first}",
        )
        x = Input(NUMERIC, "x", description="Quantized values")
        use_mixin(linear_quantization)
        Output(FLOATING_POINT, "output", description="The real values (float32), with the shape of x")
        Fragment(
            c="fragments/quantize.h",
            python="fragments/quantize.py",
            c_fragments=fragment_names("dequantize_linear", (*INT_DTYPES, *FLOAT_DTYPES)),
            python_fragment="dequantize_linear",
            layout="shaped",
            shapes=(x,),
            fixed_dtypes={"scale": "float32", "output": "float32"},
            failure=PER_TENSOR,
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            ONNX's DequantizeLinear per tensor: (x - zero_point) * scale, computed in
            float32 as ONNX computes it (x and the zero point converted to float32 first).
            """,
        )

    with Op("requantize") as op:
        op.display_path = "/Math/FixedPoint"
        Input(FIXED_POINT, "x", description="A fixed-point tensor")
        Arg(DATA_TYPE, "dtype", default="q15", description="The fixed-point type of the output")
        Arg(INT, "shift", default=0, description="A Q output's shift")
        Arg(FLOATING_POINT, "scale", default=1.0, description="A D output's scale")
        Arg(INT, "offset", default=0, description="A D output's offset (zero point)")
        Output(FIXED_POINT, "output", description="x in dtype, with the given attributes; the shape of x")
        Convert("requantize")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            A fixed-point tensor in another fixed-point type or with other attributes. Between Q
            types exactly: the stored values shifted by the difference of the shifts and of the
            fraction bits (CMSIS-DSP's arm_q15_to_q7 at one shift); otherwise through the real
            value in float32, as dequantize then quantize.
            """,
        )

    with Op("q_shift") as op:
        op.display_path = "/Math/FixedPoint"
        Input(SHIFTED, "x", description="A Q tensor")
        Arg(INT, "shift", default=0, description="How much the output's shift exceeds the input's")
        Output(SHIFTED, "output", description="x's type, with its shift raised by shift; the shape of x")
        Convert("shift")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            The shift of a Q tensor raised by shift (lowered where it is negative), the type kept:
            the stored values shifted right arithmetically (toward minus infinity) or left with
            saturation, as CMSIS-DSP's arm_shift_q15 by -shift (the reference library's QShift).
            """,
        )

    with Op("bit_utilization") as op:
        op.display_path = "/Math/FixedPoint"
        Input(SHIFTED, "x", description="A Q tensor")
        Output(INT, "output", description="The bits each stored value uses (int8); the shape of x")
        Convert("bit_utilization")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            The bits each stored value of a Q tensor uses, its sign bit included: 1 for 0 and -1,
            16 for Q15's 32767 (32 - __builtin_clrsb(x), the reference library's BitUtilization).
            The type's bits less the largest of them is the headroom left.
            """,
        )

    Alias("base", "gather", name="embedding_lookup")
    # NumPy's names of the same meaning (ADR 0050)
    Alias("math", "max", name="amax")
    Alias("math", "min", name="amin")
    Alias("base", "transpose", name="transpose")
    Alias("math", "mod", name="remainder")
    Alias("math", "mod", name="floor_mod")  # (ND4J's name)
    Alias("base", "eye", name="eye")
    Alias("linalg", "cross", name="cross")
    Alias("base", "gt", name="gt")
    Alias("base", "eq", name="eq")
    Alias("bitwise", "left_shift", name="bit_shift")
    Alias("bitwise", "right_shift", name="bit_shift_right")
    Alias("bitwise", "left_shift_cyclic", name="bit_rotl")
    Alias("bitwise", "right_shift_cyclic", name="bit_rotr")
