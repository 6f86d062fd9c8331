"""Base operations: comparisons, logic, selection, creation-like and reductions."""

from dsl import *
from dsl.compute import fn
from ops.mixins import (
    compare,
    condition_test,
    condition_holds,
    fragment_names,
    FLOAT_DTYPES,
    pair_reduce,
    reduce,
    scan,
    scatter_params,
    segment_params,
)

#: The narrow formats encode_narrow and decode_narrow know, by ml_dtypes' names (its types hold
#: one code per byte), each with what it is.
NARROW_FORMATS = {
    "float8_e4m3fn": "1 sign, 4 exponent, 3 mantissa bits, bias 7; no infinity, NaN S.1111.111; at most 448",
    "float8_e4m3fnuz": "bias 8; no infinity, no -0: NaN is 0x80; at most 240",
    "float8_e5m2": "1 sign, 5 exponent, 2 mantissa bits, bias 15, IEEE's infinities and NaNs; at most 57344",
    "float8_e5m2fnuz": "bias 16; no infinity, no -0: NaN is 0x80; at most 57344",
    "float8_e8m0fnu": "8 exponent bits, no sign: 2^(code - 127), NaN 0xFF (OCP MX scales)",
    "float4_e2m1fn": "1 sign, 2 exponent, 1 mantissa bit, bias 1; no infinity or NaN; 0, 0.5, 1, 1.5, 2, 3, 4, 6",
    "int4": "-8..7, the low 4 bits two's complement",
    "uint4": "0..15",
    "int2": "-2..1, the low 2 bits two's complement",
    "uint2": "0..3",
}

#: The format arg of encode_narrow and decode_narrow, and the formats' table in their docs.
with Mixin("narrow_format") as narrow_format:
    Arg(
        ENUM,
        "format",
        possible_values=list(NARROW_FORMATS),
        description="The format of the codes (ml_dtypes' name of its type)",
    )
    Doc(
        Language.ANY,
        DocScope.ALL,
        "The formats (ONNX's and OCP's, by ml_dtypes' names; one code per element, in a uint8):\n\n"
        + "\n".join(f"- {name}: {what}" for name, what in NARROW_FORMATS.items()),
    )

#: How the scatters differ from ONNX's ScatterND, which each of them names.
UNLIKE_SCATTER_ND = (
    "ONNX's indices hold a coordinate tuple per update in their last axis; this op's "
    "indices index the first axis only"
)

with Namespace("base"):
    with Op("eq", compare) as op:
        op.display_path = "/Base/Comparison"
        op.nnef = "eq"
        Elementwise(lambda x, y: x == y)
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise x == y. NaN compares unequal to everything.",
        )

    with Op("neq", compare) as op:
        op.display_path = "/Base/Comparison"
        op.nnef = "ne"
        Elementwise(lambda x, y: x != y)
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise x != y. NaN is unequal to everything, itself included.",
        )

    with Op("gt", compare) as op:
        op.display_path = "/Base/Comparison"
        op.nnef = "gt"
        Elementwise(lambda x, y: x > y)
        Doc(Language.ANY, DocScope.ALL, "Elementwise x > y. NaN compares false.")

    with Op("gte", compare) as op:
        op.display_path = "/Base/Comparison"
        op.nnef = "ge"
        Elementwise(lambda x, y: x >= y)
        Doc(Language.ANY, DocScope.ALL, "Elementwise x >= y. NaN compares false.")

    with Op("lt", compare) as op:
        op.display_path = "/Base/Comparison"
        op.nnef = "lt"
        Elementwise(lambda x, y: x < y)
        Doc(Language.ANY, DocScope.ALL, "Elementwise x < y. NaN compares false.")

    with Op("lte", compare) as op:
        op.display_path = "/Base/Comparison"
        op.nnef = "le"
        Elementwise(lambda x, y: x <= y)
        Doc(Language.ANY, DocScope.ALL, "Elementwise x <= y. NaN compares false.")

    with Op("not") as op:
        op.display_path = "/Base/Logic"
        op.onnx = "Not"
        op.numpy = "logical_not"
        op.nnef = "not"
        Input(BOOLEAN, "x", description="Input tensor")
        Output(BOOLEAN, "output", description="Result, with the shape of x")
        Elementwise(lambda x: fn.logical_not(x))
        Doc(Language.ANY, DocScope.ALL, "Elementwise logical negation.")

    with Op("all", reduce) as op:
        op.display_path = "/Base/Logic"
        op.numpy = "all"
        op.nnef = "all_reduce"
        Input(BOOLEAN, "x", description="Input tensor")
        Output(
            BOOLEAN, "output", description="True where every reduced element is true"
        )
        Reduce("add", map=lambda x: fn.logical_not(x), finalize=lambda acc, n: acc == 0)
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Whether every element over the given axes is true; true for no elements (NumPy's all).",
        )

    with Op("any", reduce) as op:
        op.display_path = "/Base/Logic"
        op.numpy = "any"
        op.nnef = "any_reduce"
        Input(BOOLEAN, "x", description="Input tensor")
        Output(BOOLEAN, "output", description="True where some reduced element is true")
        Reduce("add", map=lambda x: x, finalize=lambda acc, n: acc != 0)
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Whether some element over the given axes is true; false for no elements (NumPy's any).",
        )

    with Op("where") as op:
        op.display_path = "/Base/Selection"
        op.onnx = "Where"
        op.numpy = "where"
        op.nnef = "select"
        condition = Input(BOOLEAN, "condition", description="Which of x and y to take")
        x = Input(NDARRAY, "x", description="Values where condition is true")
        y = Input(NDARRAY, "y", description="Values where condition is false")
        Output(
            NDARRAY,
            "output",
            description="Result, with the broadcast shape of the three inputs",
        )
        Constraint("x and y must have the same type", same_type(x, y))
        Constraint(
            "x, y and condition must have broadcastable shapes",
            broadcastable_shapes(x, y)
            & broadcastable_shapes(x, condition)
            & broadcastable_shapes(y, condition),
        )
        Elementwise(lambda condition, x, y: fn.where(condition, x, y))
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Elementwise selection: output = x where condition is true, else y, with
            NumPy broadcasting of all three; the condition comes first, as in NumPy's
            and ONNX's Where.
            """,
        )

    with Op("copy") as op:
        op.display_path = "/Base/Creation"
        op.onnx = "Identity"
        op.numpy = "copy"
        op.nnef = "copy"
        Input(NDARRAY, "x", description="Input tensor")
        Output(NDARRAY, "output", description="A copy of x")
        Elementwise(lambda x: x)
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            A copy of x: same shape, same type, same values. ND4J's and ONNX's identity;
            NumPy's identity(n) makes an identity matrix (this namespace's eye).
            """,
        )

    with Op("cast") as op:
        op.display_path = "/Base/Creation"
        op.onnx = "Cast"
        op.formula = (
            r"\mathrm{output}_{i} = \operatorname{cast}_{\mathrm{dtype}}\left(x_{i}\right)",
            r"\text{to bool: } x_{i} \neq 0; \text{ to an integer: truncated toward zero, "
            r"saturated, NaN as 0}",
        )
        op.unlike_onnx = (
            "ONNX also casts from and to bfloat16, its 8- and 4-bit floats and its 2- and "
            "4-bit integers; this op casts between bool and the integer and float dtypes it "
            "lists, and encode_narrow, decode_narrow, encode_bfloat16 and decode_bfloat16 "
            "convert to and from those types' codes"
        )
        Input(NDARRAY, "x", description="Tensor to convert, of any dtype")
        Arg(DATA_TYPE, "dtype", description="The dtype of the result")
        Output(
            NDARRAY,
            "output",
            description="x converted to dtype, with the shape of x",
        )
        Generate("cast", input="x")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            x converted to dtype element by element (ND4J castTo, ONNX Cast), with
            every conversion defined: to bool, x != 0 (NaN is true); from bool, 0
            or 1; between integers, modulo 2^bits (int8(200) is -56, as NumPy's
            astype); to a float, the nearest value, overflow giving an infinity;
            from a float to an integer, truncation toward zero saturated at the
            type's limits, NaN giving 0 (as the ARM VCVT instruction), where C and
            NumPy leave out-of-range values undefined.
            """,
        )

    with Op("encode_narrow", narrow_format) as op:
        op.display_path = "/Base/Creation"
        op.onnx = "Cast"
        op.formula = (
            r"\mathrm{codes}_{i} = \operatorname{code}_{\mathrm{format}}\left(x_{i}\right)",
            r"\text{floats: the nearest value, ties to the even code; integers: truncated, modulo } 2^{\mathrm{bits}}",
        )
        op.unlike_onnx = (
            "ONNX's Cast to these types gives a tensor of the type; this op gives its codes, one "
            "uint8 per element (ml_dtypes' layout, the 4- and 2-bit ones unpacked), and takes "
            "float32 and float64 (a float16 tensor casts to float32 exactly first)"
        )
        x = Input(FLOATING_POINT, "x", description="Values to encode")
        Arg(
            BOOLEAN,
            "saturate",
            default=True,
            description="float8 formats: overflows and infinities become the largest finite value "
            "(ONNX's saturate), else infinity, or NaN where the format has none",
        )
        Arg(
            ENUM,
            "round_mode",
            default="nearest",
            possible_values=["nearest", "up", "down"],
            description="float8_e8m0fnu's rounding of x's float32 mantissa (ONNX's round_mode); "
            "the other formats take nearest only",
        )
        Output(INT, "codes", description="One code per element, with the shape of x")
        Fragment(
            c="fragments/narrow.h",
            python="fragments/narrow.py",
            c_fragments=fragment_names("encode_narrow", FLOAT_DTYPES),
            python_fragment="encode_narrow",
            layout="shaped",
            args=("format", "saturate", "round_mode"),
            shapes=(x,),
            fixed_dtypes={"codes": "uint8"},
            failure="round_mode up or down is float8_e8m0fnu's only: the other formats round to nearest",
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Encoding rounds x (from its own bits, so float32 and float64 round once) to
            the nearest value of a float format, ties to the even code. An overflow or an
            infinity becomes the largest finite value when saturate is true (ONNX's
            default for float8) or in float4_e2m1fn, which has neither infinity nor NaN;
            otherwise infinity (float8_e5m2), or NaN. NaN becomes the format's NaN (0 in
            float4_e2m1fn), and -0 becomes 0 in the fnuz formats. float8_e8m0fnu follows
            ONNX: the exponent of x as a float32, its sign ignored, rounded by round_mode
            (up by default in ONNX, nearest here). An integer format takes x truncated
            toward zero, modulo 2^bits, as ONNX and NumPy's astype between integers
            (int4: -9 is 7); NaN and infinities give 0. The codes equal ml_dtypes'
            astype, and ONNX's Cast.
            """,
        )

    with Op("decode_narrow", narrow_format) as op:
        op.display_path = "/Base/Creation"
        op.onnx = "Cast"
        op.formula = (r"\mathrm{output}_{i} = \operatorname{value}_{\mathrm{format}}\left(\mathrm{codes}_{i}\right)",)
        op.unlike_onnx = (
            "ONNX's Cast from these types takes a tensor of the type; this op takes its codes, "
            "one uint8 per element, and gives float32 (cast that to any dtype: it holds every "
            "value exactly)"
        )
        codes = Input(INT, "codes", description="One code per element")
        Output(FLOATING_POINT, "output", description="The value of each code, with the shape of codes")
        Fragment(
            c="fragments/narrow.h",
            python="fragments/narrow.py",
            c_fragments={"uint8": "decode_narrow_u8"},
            python_fragment="decode_narrow",
            layout="shaped",
            args=("format",),
            shapes=(codes,),
            fixed_dtypes={"codes": "uint8", "output": "float32"},
            failure="a code lies outside the format's codes (0 to 2^bits - 1)",
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Decoding gives each code's value exactly: NaN for the NaN codes, infinities
            for float8_e5m2's, 2^(code - 127) for float8_e8m0fnu's, and the integer
            formats' two's complement values (int4's 15 is -1). A code beyond the
            format's bits is refused.
            """,
        )

    with Op("encode_bfloat16") as op:
        op.display_path = "/Base/Creation"
        op.onnx = "Cast"
        op.formula = (r"\mathrm{codes}_{i} = \operatorname{code}_{\mathrm{bfloat16}}\left(x_{i}\right)",)
        op.unlike_onnx = (
            "ONNX's Cast to bfloat16 gives a bfloat16 tensor; this op gives its codes, uint16 "
            "(ml_dtypes' bfloat16 viewed as uint16)"
        )
        x = Input(FLOATING_POINT, "x", description="Values to encode")
        Output(INT, "codes", description="One bfloat16 code per element, with the shape of x")
        Fragment(
            c="fragments/narrow.h",
            python="fragments/narrow.py",
            c_fragments=fragment_names("encode_bfloat16", FLOAT_DTYPES),
            python_fragment="encode_bfloat16",
            layout="shaped",
            shapes=(x,),
            fixed_dtypes={"codes": "uint16"},
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            The bfloat16 code of each element (1 sign, 8 exponent and 7 mantissa bits: the
            upper half of a float32): x, from its own bits so it rounds once, rounded to
            the nearest value, ties to the even code; overflows become infinities and NaN a
            quiet NaN of its sign. The codes equal ml_dtypes' astype(bfloat16) viewed as
            uint16, and ONNX's Cast to BFLOAT16.
            """,
        )

    with Op("decode_bfloat16") as op:
        op.display_path = "/Base/Creation"
        op.onnx = "Cast"
        op.formula = (r"\mathrm{output}_{i} = \operatorname{value}_{\mathrm{bfloat16}}\left(\mathrm{codes}_{i}\right)",)
        op.unlike_onnx = "ONNX's Cast from bfloat16 takes a bfloat16 tensor; this op takes its uint16 codes"
        codes = Input(INT, "codes", description="One bfloat16 code per element")
        Output(FLOATING_POINT, "output", description="The value of each code, with the shape of codes")
        Fragment(
            c="fragments/narrow.h",
            python="fragments/narrow.py",
            c_fragments={"uint16": "decode_bfloat16_u16"},
            python_fragment="decode_bfloat16",
            layout="shaped",
            shapes=(codes,),
            fixed_dtypes={"codes": "uint16", "output": "float32"},
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            "The value of each bfloat16 code, exactly (a float32 whose lower 16 bits are 0).",
        )

    with Op("zeros_like") as op:
        op.display_path = "/Base/Creation"
        op.numpy = "zeros_like"
        Input(NDARRAY, "x", description="Tensor whose shape and type the result takes")
        Output(
            NDARRAY,
            "output",
            description="Zeros (false for booleans), with the shape and type of x",
        )
        Elementwise(lambda x: 0)
        Doc(
            Language.ANY,
            DocScope.ALL,
            "A tensor of zeros with the shape and type of x.",
        )

    with Op("ones_like") as op:
        op.display_path = "/Base/Creation"
        op.numpy = "ones_like"
        Input(NDARRAY, "x", description="Tensor whose shape and type the result takes")
        Output(
            NDARRAY,
            "output",
            description="Ones (true for booleans), with the shape and type of x",
        )
        Elementwise(lambda x: 1)
        Doc(
            Language.ANY, DocScope.ALL, "A tensor of ones with the shape and type of x."
        )

    with Op("cumprod", scan) as op:
        op.formula = (
            r"\mathrm{output}_{\ldots i \ldots} = \prod_{j \leq i} x_{\ldots j \ldots}",
            r"\text{$i$ and $j$ run along axis; $j < i$ if exclusive, $j \geq i$ if reverse, $j > "
            r"i$ if both}",
        )
        op.unlike_numpy = (
            "takes exclusive and reverse args and defaults to axis 0; NumPy's "
            "flattens by default"
        )
        op.display_path = "/Base/Reduction"
        Output(NUMERIC, "output", description="Running products, with the shape of x")
        Fragment(
            c="fragments/cumulative.h",
            python="fragments/cumulative.py",
            c_fragments=fragment_names("cumprod"),
            python_fragment="cumprod",
            args=("exclusive", "reverse"),
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Cumulative product along an axis (inclusive unless exclusive; from the end if reverse). Integers wrap.",
        )

    with Op("standard_deviation", reduce) as op:
        op.integers_through_float = ("int8", "int16")
        op.display_path = "/Base/Reduction"
        Input(FLOATING_POINT, "x", description="Input tensor")
        Output(FLOATING_POINT, "output", description="The reduced tensor")
        Reduce(
            "add",
            pre="mean",
            map=lambda x, m: (x - m) * (x - m),
            finalize=lambda acc, n, m: fn.sqrt(acc / n),
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Population standard deviation (divided by n) over the given axes; NaN for no elements.",
        )

    with Op("dot", pair_reduce) as op:
        op.unlike_numpy = (
            "a sum of products over axes (ND4J's dot); NumPy's dot is a matrix "
            "product"
        )
        op.display_path = "/Base/Reduction"
        Reduce("add", map=lambda x, y: x * y)
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Dot product of x and y over the given axes: sum(x * y) (all axes by default). Integers wrap.",
        )

    with Mixin("layout") as layout:
        Input(NDARRAY, "x", description="Input tensor")
        Output(NDARRAY, "output", description="The moved elements, with the type of x")

    for kind, onnx, what in (
        (
            "concat",
            "Concat",
            """
            The tensors joined end to end along an existing axis (numpy.concatenate,
            ONNX Concat): their shapes must agree but along that axis, whose sizes
            add up.
            """,
        ),
        (
            "stack",
            None,
            """
            The tensors joined along a new axis (numpy.stack): they must all have
            the same shape, and the new axis, at the given position of the result,
            has one entry per tensor.
            """,
        ),
    ):
        with Op(kind) as op:
            op.display_path = "/Base/Shape"
            op.onnx = onnx
            op.nnef = kind
            op.numpy = kind
            Input(
                NDARRAY,
                "inputs",
                count=AtLeast(1),
                description="The tensors to join, of one dtype (in Python, promoted to one)",
            )
            Arg(
                INT,
                "axis",
                default=0,
                description="The axis to join along (of the result); negative counts from the last one",
            )
            Output(
                NDARRAY, "output", description="The joined tensor, of the inputs' type"
            )
            Join(kind)
            Doc(Language.ANY, DocScope.ALL, what)

    with Op("tensor_mmul") as op:
        op.display_path = "/Base/Linear algebra"
        op.formula = (
            r"\mathrm{output}_{f_{x} f_{y}} = \sum_{c} x'_{f_{x} c} \, y'_{c f_{y}}",
            r"\text{$c$ runs over the paired axes (dimensions\_x with dimensions\_y), $f_{x}$ and "
            r"$f_{y}$ over the free ones}",
            r"\text{$x'$, $y'$: x and y with their axes reversed when transpose\_x, transpose\_y; "
            r"the result's reversed when transpose\_z}",
        )
        x = Input(NUMERIC, "x", description="First tensor")
        y = Input(NUMERIC, "y", description="Second tensor, of the type of x")
        Arg(
            INT,
            "dimensions_x",
            count=AtLeast(0),
            description="Axes of x to contract (negative counts from the last), distinct",
        )
        Arg(
            INT,
            "dimensions_y",
            count=AtLeast(0),
            description="Axes of y to contract, as many, each paired with the axis of x at its position",
        )
        Arg(
            BOOLEAN,
            "transpose_x",
            default=False,
            description="Reverse the axes of x first (dimensions_x then names axes of the reversed x)",
        )
        Arg(
            BOOLEAN,
            "transpose_y",
            default=False,
            description="Reverse the axes of y first (dimensions_y then names axes of the reversed y)",
        )
        Arg(
            BOOLEAN,
            "transpose_z",
            default=False,
            description="Reverse the axes of the result",
        )
        Output(
            NUMERIC,
            "output",
            description="The free axes of x, then those of y; of the type of x",
        )
        Constraint("x and y must have the same type", same_type(x, y))
        TensorDot()
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Tensor contraction (numpy.tensordot(x, y, axes=(dimensions_x, dimensions_y)),
            ND4J tensorMmul): the sum over the paired axes, which must agree in size, of
            the products of x and y; the result has the axes of x that are not contracted,
            then those of y. The transpose flags reverse the axes of x, of y (before) and of
            the result (after), as ND4J's transpose of an N-d array; with none set and one
            axis paired, a matrix product. Integers wrap.
            """,
        )

    with Op("split") as op:
        op.nnef = "split"
        op.unlike_nnef = (
            "NNEF splits in the ratios it is given (ratios); this op splits into num "
            "equal parts"
        )
        op.unlike_onnx = (
            "ONNX takes the parts' sizes (split) and, from opset 18, makes the last part "
            "smaller when they do not divide the axis; this op splits into num equal "
            "parts"
        )
        op.unlike_numpy = (
            "splits into num_split equal parts, as ND4J; NumPy's split also takes "
            "section indices"
        )
        op.display_path = "/Base/Shape"
        op.onnx = "Split"
        Input(NDARRAY, "x", description="The tensor to cut, of rank 1 or more")
        Arg(
            INT,
            "num",
            description="How many equal parts; it must divide the size of the axis",
        )
        Arg(
            INT,
            "axis",
            default=0,
            description="The axis to cut along; negative counts from the last one",
        )
        Output(
            NDARRAY,
            "outputs",
            count=AtLeast(0),
            description="The num parts in order, each with the type of x and 1/num of the axis",
        )
        Parts("split")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            x cut into num tensors of one shape along an axis, in order (numpy.split with a
            number of sections, ONNX Split with equal parts): the size of the axis must be a
            multiple of num. Concatenating the parts along the axis gives x back.
            """,
        )

    with Op("unstack") as op:
        op.nnef = "unstack"
        op.unlike_numpy = (
            "returns a list of the parts; NumPy's unstack a tuple"
        )
        op.display_path = "/Base/Shape"
        Input(NDARRAY, "x", description="The tensor to unstack, of rank 1 or more")
        Arg(
            INT,
            "axis",
            default=0,
            description="The axis to unstack along; negative counts from the last one",
        )
        Output(
            NDARRAY,
            "outputs",
            count=AtLeast(0),
            description="One tensor per entry along the axis, with the type of x and without that axis",
        )
        Parts("unstack")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            One tensor for each entry of x along an axis, in order, with that axis removed
            (list(numpy.moveaxis(x, axis, 0))): as many tensors as the axis is long, none
            for an empty axis. Stacking them along the axis gives x back.
            """,
        )

    with Op("reshape", layout) as op:
        op.display_path = "/Base/Shape"
        op.onnx = "Reshape"
        op.numpy = "reshape"
        op.nnef = "reshape"
        op.formula = (
            r"\mathrm{output}_{\operatorname{unravel}_{\mathrm{shape}}(f)} = "
            r"x_{\operatorname{unravel}_{s}(f)}",
            r"\text{for every flat row-major index $f$; $s$ is the shape of $x$, $-1$ in shape its"
            r" remaining size}",
        )
        op.unlike_nnef = (
            "NNEF's shape copies the input's size where it says 0, and may reshape a "
            "range of axes only (axis_start, axis_count); this op's shape takes 0 as an "
            "axis of size 0, as NumPy does"
        )
        op.unlike_onnx = (
            "ONNX's shape copies the input's size where it says 0 unless allowzero = 1; "
            "this op's shape takes 0 as an axis of size 0, as NumPy and ONNX's allowzero "
            "= 1 do"
        )
        Arg(
            INT,
            "shape",
            count=AtLeast(0),
            description="The new shape; one size may be -1, inferred from the rest",
        )
        Layout("reshape")
        Doc(
            Language.ANY,
            DocScope.ALL,
            "The elements of x in row-major order, with a new shape holding as many elements; one size may be -1.",
        )

    with Op("permute", layout) as op:
        op.display_path = "/Base/Shape"
        op.onnx = "Transpose"
        op.nnef = "transpose"
        op.formula = (
            r"\mathrm{output}_{i_{0} \ldots i_{r-1}} = x_{j_{0} \ldots j_{r-1}}, \quad "
            r"j_{\mathrm{perm}_{k}} = i_{k}",
        )
        Arg(
            INT,
            "perm",
            count=AtLeast(0),
            description="For each output axis, the axis of x it takes (negative counts from the last)",
        )
        Layout("permute")
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Permutes the axes of x: output axis i is axis perm[i] of x (NumPy's transpose with axes, ONNX Transpose).",
        )

    with Op("transpose", layout) as op:
        op.formula = (
            r"\mathrm{output}_{i_{0} \ldots i_{r-1}} = x_{i_{r-1} \ldots i_{0}}",
        )
        op.unlike_numpy = (
            "reverses the axes, as NumPy's, but takes no axes= (base.permute does)"
        )
        op.display_path = "/Base/Shape"
        Layout("transpose")
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Reverses the order of the axes of x (NumPy's transpose; ONNX Transpose without perm). Matrices are transposed.",
        )

    with Op("squeeze", layout) as op:
        op.display_path = "/Base/Shape"
        op.numpy = "squeeze"
        op.onnx = "Squeeze"
        op.nnef = "squeeze"
        op.formula = (
            r"\mathrm{output}_{\ldots i \, k \ldots} = x_{\ldots i \, 0 \, k \ldots}",
            r"\text{the axis of size 1 at axis removed}",
        )
        Arg(
            INT,
            "axis",
            description="The axis to remove; it must have size 1; negative counts from the last",
        )
        Layout("squeeze")
        Doc(Language.ANY, DocScope.ALL, "Removes one axis of size 1 from x.")

    with Op("expand_dims", layout) as op:
        op.display_path = "/Base/Shape"
        op.numpy = "expand_dims"
        op.onnx = "Unsqueeze"
        op.nnef = "unsqueeze"
        op.formula = (
            r"\mathrm{output}_{\ldots i \, 0 \, k \ldots} = x_{\ldots i \, k \ldots}",
            r"\text{a new axis of size 1 at axis of the result}",
        )
        Arg(
            INT,
            "axis",
            description="Where the new axis goes in the result; negative counts from the last",
        )
        Layout("expand_dims")
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Inserts an axis of size 1 into x at position axis of the result.",
        )

    with Op("narrow", layout) as op:
        op.display_path = "/Base/Shape"
        op.formula = (
            r"\mathrm{output}_{\ldots i \, k \ldots} = x_{\ldots i \, 0 \, k \ldots}",
            r"\text{every axis of size 1 removed}",
        )
        Layout("narrow")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Narrowcasting (TML): removes every axis of size 1, the opposite of
            broadcasting. A tensor of one element becomes a scalar; narrowing never fails.
            """,
        )

    with Op("reverse", layout) as op:
        op.display_path = "/Base/Shape"
        op.formula = (
            r"\mathrm{output}_{\ldots i \ldots} = x_{\ldots\, n - 1 - i \,\ldots}",
            r"\text{along each axis of axes, of $n$ entries}",
        )
        Arg(
            INT,
            "axes",
            count=AtLeast(0),
            description="Axes to reverse, each at most once; negative counts from the last",
        )
        Layout("reverse")
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Reverses the order of the elements along the given axes (NumPy's flip).",
        )

    with Op("tile", layout) as op:
        op.display_path = "/Base/Shape"
        op.numpy = "tile"
        op.onnx = "Tile"
        op.nnef = "tile"
        op.formula = (
            r"\mathrm{output}_{i_{0} \ldots i_{r-1}} = x_{i_{0} \bmod n_{0} \,\ldots\, i_{r-1} "
            r"\bmod n_{r-1}}",
            r"\text{$x$ has shape $(n_{0}, \ldots, n_{r-1})$; the result's axis $k$ has $n_{k} \, "
            r"\mathrm{repeats}_{k}$ entries}",
        )
        Arg(
            INT,
            "repeats",
            count=AtLeast(0),
            description="How many copies along each axis of x, one count per axis",
        )
        Layout("tile")
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Repeats x along each axis: the result's axis i has size shape[i] * repeats[i].",
        )

    with Op("slice", layout) as op:
        op.display_path = "/Base/Shape"
        op.formula = (
            r"\mathrm{output}_{i_{0} \ldots i_{r-1}} = x_{\mathrm{begin}_{0} + i_{0} \,\ldots\, "
            r"\mathrm{begin}_{r-1} + i_{r-1}}",
            r"\text{$0 \leq i_{k} < \mathrm{size}_{k}$ ($-1$: to the end of the axis)}",
        )
        Arg(INT, "begin", count=AtLeast(0), description="First index along each axis")
        Arg(
            INT,
            "size",
            count=AtLeast(0),
            description="Elements to take along each axis; -1 takes the rest",
        )
        Layout("slice")
        Doc(
            Language.ANY,
            DocScope.ALL,
            "The block of x starting at begin with the given size along each axis (-1: to the end of the axis).",
        )

    with Op("strided_slice", layout) as op:
        op.display_path = "/Base/Shape"
        op.onnx = "Slice"
        op.formula = (
            r"\mathrm{output}_{i_{0} \ldots i_{r-1}} = x_{b_{0} + i_{0} s_{0} \,\ldots\, b_{r-1} +"
            r" i_{r-1} s_{r-1}}",
            r"\text{$b$: begin, $s$: strides, as Python's slices clamp them; $i_{k}$ while $b_{k} "
            r"+ i_{k} s_{k}$ is before end$_{k}$}",
        )
        Arg(
            INT,
            "begin",
            count=AtLeast(0),
            description="Start index along each axis; negative counts from the end",
        )
        Arg(
            INT,
            "end",
            count=AtLeast(0),
            description="Stop index (excluded) along each axis; negative counts from the end",
        )
        Arg(
            INT,
            "strides",
            count=AtLeast(0),
            description="Step along each axis; negative walks backwards; never 0",
        )
        Layout("strided_slice")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Python's x[begin:end:stride] on every axis (ONNX Slice): negative
            indices count from the end, indices beyond an end are clamped, and a
            negative stride walks backwards.
            """,
        )

    with Op("match_condition", condition_test) as op:
        op.display_path = "/Base/Logic"
        Input(FLOATING_POINT, "x", description="Input tensor")
        Output(
            BOOLEAN,
            "output",
            description="True where the condition holds, with the shape of x",
        )
        Elementwise(lambda x, condition, value: condition_holds(x, condition, value))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise test of a condition: x compared with value (NaN fails every comparison) or x's class.",
        )

    with Op("match_condition_indices", condition_test) as op:
        op.display_path = "/Base/Logic"
        op.formula = (
            r"\mathrm{indices}_{m} = f_{m}, \quad \mathrm{count} = \left|\left\{ f : "
            r"\operatorname{holds}\left(x_{f}\right) \right\}\right|",
            r"\text{$f_{0} < f_{1} < \ldots$: the flat row-major indices where the condition "
            r"holds; the rest of indices 0}",
        )
        Input(FLOATING_POINT, "x", description="Input tensor")
        Output(
            LONG,
            "indices",
            description="The flat indices where the condition holds, in order, then zeros: one entry per element of x",
        )
        Output(LONG, "count", description="How many indices were found (a scalar)")
        FindAll(lambda x, condition, value: condition_holds(x, condition, value))
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Where the condition holds (as match_condition tests it; NaN fails every
            comparison), as flat row-major indices of x in order (numpy.flatnonzero of
            match_condition). Nothing is allocated at run time: indices has room for every
            element of x (its capacity), the first count entries are the found indices and
            the rest are zeros.
            """,
        )

    with Op("match_condition_count", condition_test) as op:
        op.display_path = "/Base/Logic"
        Input(FLOATING_POINT, "x", description="Input tensor")
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
            description="Keep each counted axis with size 1",
        )
        Output(LONG, "output", description="How many elements meet the condition")
        Reduce(
            "add",
            map=lambda x, condition, value: condition_holds(x, condition, value),
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Counts the elements of x for which the condition holds (as match_condition
            tests them; NaN fails every comparison) over the given axes.
            """,
        )

    with Op("replace_where", condition_test) as op:
        op.display_path = "/Base/Selection"
        update = Input(
            FLOATING_POINT,
            "update",
            description="The values tested and kept where the condition fails",
        )
        source = Input(
            FLOATING_POINT,
            "source",
            description="The values taken where the condition holds",
        )
        Output(
            FLOATING_POINT,
            "output",
            description="Result, with the broadcast shape of update and source",
        )
        Constraint(
            "update and source must have the same type", same_type(update, source)
        )
        Constraint(
            "update and source must have broadcastable shapes",
            broadcastable_shapes(update, source),
        )
        Elementwise(
            lambda update, source, condition, value: fn.where(
                condition_holds(update, condition, value), source, update
            )
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise replacement: output = source where the condition holds for update, else update.",
        )

    with Op("gather") as op:
        op.display_path = "/Base/Indexing"
        op.onnx = "Gather"
        op.nnef = "gather"
        op.formula = (
            r"\mathrm{output}_{a \, i \, b} = x_{a \, \mathrm{indices}_{i} \, b}",
            r"\text{$a$: the axes of $x$ before axis, $b$: those after, $i$: the indices' axes}",
        )
        Input(NDARRAY, "x", description="Input tensor")
        Input(
            LONG,
            "indices",
            description="Which elements of the axis to take; negative counts from the end",
        )
        Arg(
            INT,
            "axis",
            default=0,
            description="The axis to gather along; negative counts from the last one",
        )
        Output(
            NDARRAY,
            "output",
            description="x with the axis replaced by the shape of indices",
        )
        Layout("gather")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Gathers slices of x along an axis (NumPy's take, ONNX Gather): the result
            has x's shape with that axis replaced by the shape of indices. An index
            outside -n..n-1 for an axis of size n is an error.
            """,
        )

    with Op("one_hot") as op:
        op.display_path = "/Base/Creation"
        Input(LONG, "indices", description="The index of the hot position, per element")
        Arg(INT, "depth", description="The size of the one-hot axis")
        Arg(
            INT,
            "axis",
            default=-1,
            description="Where the one-hot axis goes in the result; -1 makes it the last",
        )
        Arg(
            FLOATING_POINT,
            "on",
            default=1.0,
            description="The value at the hot position",
        )
        Arg(FLOATING_POINT, "off", default=0.0, description="The value elsewhere")
        Arg(
            DATA_TYPE, "dtype", default="float32", description="The dtype of the result"
        )
        Output(
            NUMERIC,
            "output",
            description="indices' shape with an axis of size depth inserted at axis",
        )
        Generate("one_hot")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            One-hot encoding (TensorFlow's one_hot): output[..., d, ...] is on where
            indices[...] == d and off elsewhere, d running along the new axis. An
            index outside 0..depth-1 gives a row of off, where ONNX OneHot takes
            negative indices from the end, so the op records no ONNX twin. on and off must convert exactly to dtype.
            """,
        )

    with Op("sequence_mask") as op:
        op.display_path = "/Base/Creation"
        Input(LONG, "lengths", description="The length of each sequence")
        Arg(INT, "maxlen", description="The size of the mask's last axis")
        Arg(DATA_TYPE, "dtype", default="bool", description="The dtype of the result")
        Output(
            NDARRAY,
            "output",
            description="Shape lengths.shape + [maxlen]: 1 (true) inside each sequence, 0 after",
        )
        Generate("sequence_mask")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            A mask of sequence lengths (TensorFlow's sequence_mask):
            output[..., j] = j < lengths[...] for j in 0..maxlen-1. maxlen is an
            arg, not the largest length, since the result's size cannot depend on
            the data; negative lengths give rows of 0.
            """,
        )

    with Op("shape_of") as op:
        op.display_path = "/Base/Shape"
        op.onnx = "Shape"
        Input(NDARRAY, "x", description="Input tensor")
        Output(
            LONG,
            "output",
            description="The size of each axis of x, a vector of x's rank",
        )
        ShapeOf("shape")
        Doc(
            Language.ANY,
            DocScope.ALL,
            "The shape of x as an int64 vector (ND4J's shape, ONNX Shape); a scalar gives an empty vector.",
        )

    with Op("size") as op:
        op.unlike_numpy = (
            "ND4J's size; NumPy's size takes an axis= keyword"
        )
        op.display_path = "/Base/Shape"
        op.onnx = "Size"
        Input(NDARRAY, "x", description="Input tensor")
        Output(LONG, "output", description="The number of elements of x, a scalar")
        ShapeOf("size")
        Doc(
            Language.ANY,
            DocScope.ALL,
            "The number of elements of x, the product of its shape (1 for a scalar), as an int64 scalar.",
        )

    with Op("rank") as op:
        op.display_path = "/Base/Shape"
        Input(NDARRAY, "x", description="Input tensor")
        Output(LONG, "output", description="The number of axes of x, a scalar")
        ShapeOf("rank")
        Doc(
            Language.ANY,
            DocScope.ALL,
            "The rank of x (its number of axes, 0 for a scalar) as an int64 scalar.",
        )

    with Op("size_at") as op:
        op.display_path = "/Base/Shape"
        Input(NDARRAY, "x", description="Input tensor")
        Arg(INT, "axis", description="The axis; negative counts from the last one")
        Output(LONG, "output", description="The size of that axis, a scalar")
        ShapeOf("size_at")
        Doc(
            Language.ANY,
            DocScope.ALL,
            "The size of one axis of x (ND4J's sizeAt) as an int64 scalar; an axis out of range is an error.",
        )

    with Op("gather_nd") as op:
        op.display_path = "/Base/Indexing"
        op.onnx = "GatherND"
        op.formula = (
            r"\mathrm{output}_{i \, b} = x_{\mathrm{indices}_{i, 0} \,\ldots\, "
            r"\mathrm{indices}_{i, k-1} \, b}",
            r"\text{$i$: the axes of indices but its last, of $k$ entries; $b$: the axes of $x$ "
            r"after the first $k$}",
        )
        op.unlike_onnx = (
            "ONNX can treat leading axes as batch axes (batch_dims); this op has none "
            "(batch_dims = 0)"
        )
        Input(NDARRAY, "x", description="Input tensor")
        Input(
            LONG,
            "indices",
            description="Index tuples in its last axis, k values each for the first k axes of x; negative counts from the end",
        )
        Output(
            NDARRAY,
            "output",
            description="The picked elements or slices: shape indices.shape[:-1] + x.shape[k:]",
        )
        Layout("gather_nd")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Gathers by index tuples (ONNX GatherND with no batch axes, TensorFlow's
            gather_nd): each row of the last axis of indices, k values long, picks
            the element or slice x[i0, ..., ik-1]. An index outside -n..n-1 for an
            axis of size n, or k above the rank of x, is an error.
            """,
        )

    with Op("reverse_sequence") as op:
        op.display_path = "/Base/Shape"
        op.onnx = "ReverseSequence"
        op.formula = (
            r"\mathrm{output}_{\ldots b \ldots t \ldots} = \begin{cases} x_{\ldots b \ldots\, "
            r"L_{b} - 1 - t \,\ldots} & t < L_{b} \\ x_{\ldots b \ldots t \ldots} & "
            r"\text{otherwise} \end{cases}",
            r"\text{$b$ along batch\_axis, $t$ along seq\_axis, $L$: seq\_lengths}",
        )
        Input(NDARRAY, "x", description="Input tensor")
        Input(
            LONG,
            "seq_lengths",
            description="How many leading elements to reverse, per position of the batch axis",
        )
        Arg(INT, "seq_axis", default=1, description="The axis of the sequences")
        Arg(INT, "batch_axis", default=0, description="The axis seq_lengths runs along")
        Output(NDARRAY, "output", description="x with its sequences reversed")
        Layout("reverse_sequence")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Reverses the first seq_lengths[b] elements along seq_axis of every
            slice b of batch_axis and keeps the rest (ONNX ReverseSequence).
            The two axes must differ; each length must lie in 0..the size of seq_axis.
            """,
        )

    with Op("scatter_update") as op:
        op.display_path = "/Base/Scatter"
        op.onnx = "ScatterND"
        op.unlike_onnx = UNLIKE_SCATTER_ND
        scatter_params(NDARRAY)
        Scatter(lambda acc, u: u)
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Replaces the rows: output[indices[k]] = updates[k]. Where an index repeats, the last update wins.
            The result starts as a copy of ref; the updates apply one row at a time in the
            order of indices (flattened), and an index outside -n..n-1 for the n rows of ref
            is an error.
            """,
        )

    with Op("scatter_add") as op:
        op.display_path = "/Base/Scatter"
        op.onnx = "ScatterND"
        op.unlike_onnx = UNLIKE_SCATTER_ND
        scatter_params(NUMERIC)
        Scatter(lambda acc, u: acc + u)
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Adds the update rows: output[indices[k]] += updates[k]; integers wrap around.
            The result starts as a copy of ref; the updates apply one row at a time in the
            order of indices (flattened), and an index outside -n..n-1 for the n rows of ref
            is an error.
            """,
        )

    with Op("scatter_sub") as op:
        op.display_path = "/Base/Scatter"
        scatter_params(NUMERIC)
        Scatter(lambda acc, u: acc - u)
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Subtracts the update rows: output[indices[k]] -= updates[k]; integers wrap around.
            The result starts as a copy of ref; the updates apply one row at a time in the
            order of indices (flattened), and an index outside -n..n-1 for the n rows of ref
            is an error.
            """,
        )

    with Op("scatter_mul") as op:
        op.display_path = "/Base/Scatter"
        op.onnx = "ScatterND"
        op.unlike_onnx = UNLIKE_SCATTER_ND
        scatter_params(NUMERIC)
        Scatter(lambda acc, u: acc * u)
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Multiplies by the update rows: output[indices[k]] *= updates[k]; integers wrap around.
            The result starts as a copy of ref; the updates apply one row at a time in the
            order of indices (flattened), and an index outside -n..n-1 for the n rows of ref
            is an error.
            """,
        )

    with Op("scatter_div") as op:
        op.display_path = "/Base/Scatter"
        scatter_params(NUMERIC)
        Scatter(lambda acc, u: acc / u)
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Divides by the update rows: output[indices[k]] /= updates[k]. Integer division truncates toward zero and dividing by 0 gives 0, as in math.div.
            The result starts as a copy of ref; the updates apply one row at a time in the
            order of indices (flattened), and an index outside -n..n-1 for the n rows of ref
            is an error.
            """,
        )

    with Op("scatter_max") as op:
        op.display_path = "/Base/Scatter"
        op.onnx = "ScatterND"
        op.unlike_onnx = UNLIKE_SCATTER_ND
        scatter_params(NUMERIC)
        Scatter(lambda acc, u: fn.maximum(acc, u))
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Keeps the larger value: output[indices[k]] = maximum(output[indices[k]], updates[k]), as math.maximum.
            The result starts as a copy of ref; the updates apply one row at a time in the
            order of indices (flattened), and an index outside -n..n-1 for the n rows of ref
            is an error.
            """,
        )

    with Op("scatter_min") as op:
        op.display_path = "/Base/Scatter"
        op.onnx = "ScatterND"
        op.unlike_onnx = UNLIKE_SCATTER_ND
        scatter_params(NUMERIC)
        Scatter(lambda acc, u: fn.minimum(acc, u))
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Keeps the smaller value: output[indices[k]] = minimum(output[indices[k]], updates[k]), as math.minimum.
            The result starts as a copy of ref; the updates apply one row at a time in the
            order of indices (flattened), and an index outside -n..n-1 for the n rows of ref
            is an error.
            """,
        )

    with Op("segment_sum") as op:
        op.display_path = "/Base/Segment"
        segment_params(NUMERIC)
        Segment(lambda acc, u: acc + u, init="zero", sorted=True)
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            The sum of each segment's rows; an empty segment gives 0; integers wrap around.
            Row s of the result folds the rows of data whose id is s, in order; an id
            outside 0..num_segments-1 is an error. segment_ids must be sorted (non-decreasing); unsorted ids are an error, so use
            unsorted_segment_sum for them.
            """,
        )

    with Op("segment_mean") as op:
        op.display_path = "/Base/Segment"
        segment_params(FLOATING_POINT)
        Segment(lambda acc, u: acc + u, init="zero", scale="mean", sorted=True)
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            The mean of each segment's rows (their sum, in the order of the rows, divided by their number); an empty segment gives 0.
            Row s of the result folds the rows of data whose id is s, in order; an id
            outside 0..num_segments-1 is an error. segment_ids must be sorted (non-decreasing); unsorted ids are an error, so use
            unsorted_segment_mean for them.
            """,
        )

    with Op("segment_max") as op:
        op.display_path = "/Base/Segment"
        segment_params(NUMERIC)
        Segment(lambda acc, u: fn.maximum(acc, u), init="lowest", sorted=True)
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            The maximum of each segment's rows, as math.maximum; an empty segment gives the lowest value of the dtype (-inf for floats).
            Row s of the result folds the rows of data whose id is s, in order; an id
            outside 0..num_segments-1 is an error. segment_ids must be sorted (non-decreasing); unsorted ids are an error, so use
            unsorted_segment_max for them.
            """,
        )

    with Op("segment_min") as op:
        op.display_path = "/Base/Segment"
        segment_params(NUMERIC)
        Segment(lambda acc, u: fn.minimum(acc, u), init="highest", sorted=True)
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            The minimum of each segment's rows, as math.minimum; an empty segment gives the highest value of the dtype (inf for floats).
            Row s of the result folds the rows of data whose id is s, in order; an id
            outside 0..num_segments-1 is an error. segment_ids must be sorted (non-decreasing); unsorted ids are an error, so use
            unsorted_segment_min for them.
            """,
        )

    with Op("segment_prod") as op:
        op.display_path = "/Base/Segment"
        segment_params(NUMERIC)
        Segment(lambda acc, u: acc * u, init="one", sorted=True)
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            The product of each segment's rows; an empty segment gives 1; integers wrap around.
            Row s of the result folds the rows of data whose id is s, in order; an id
            outside 0..num_segments-1 is an error. segment_ids must be sorted (non-decreasing); unsorted ids are an error, so use
            unsorted_segment_prod for them.
            """,
        )

    with Op("unsorted_segment_sum") as op:
        op.display_path = "/Base/Segment"
        segment_params(NUMERIC)
        Segment(lambda acc, u: acc + u, init="zero")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            The sum of each segment's rows; an empty segment gives 0; integers wrap around.
            Row s of the result folds the rows of data whose id is s, in order; an id
            outside 0..num_segments-1 is an error. segment_ids may come in any order.
            """,
        )

    with Op("unsorted_segment_mean") as op:
        op.display_path = "/Base/Segment"
        segment_params(FLOATING_POINT)
        Segment(lambda acc, u: acc + u, init="zero", scale="mean")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            The mean of each segment's rows (their sum, in the order of the rows, divided by their number); an empty segment gives 0.
            Row s of the result folds the rows of data whose id is s, in order; an id
            outside 0..num_segments-1 is an error. segment_ids may come in any order.
            """,
        )

    with Op("unsorted_segment_max") as op:
        op.display_path = "/Base/Segment"
        segment_params(NUMERIC)
        Segment(lambda acc, u: fn.maximum(acc, u), init="lowest")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            The maximum of each segment's rows, as math.maximum; an empty segment gives the lowest value of the dtype (-inf for floats).
            Row s of the result folds the rows of data whose id is s, in order; an id
            outside 0..num_segments-1 is an error. segment_ids may come in any order.
            """,
        )

    with Op("unsorted_segment_min") as op:
        op.display_path = "/Base/Segment"
        segment_params(NUMERIC)
        Segment(lambda acc, u: fn.minimum(acc, u), init="highest")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            The minimum of each segment's rows, as math.minimum; an empty segment gives the highest value of the dtype (inf for floats).
            Row s of the result folds the rows of data whose id is s, in order; an id
            outside 0..num_segments-1 is an error. segment_ids may come in any order.
            """,
        )

    with Op("unsorted_segment_prod") as op:
        op.display_path = "/Base/Segment"
        segment_params(NUMERIC)
        Segment(lambda acc, u: acc * u, init="one")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            The product of each segment's rows; an empty segment gives 1; integers wrap around.
            Row s of the result folds the rows of data whose id is s, in order; an id
            outside 0..num_segments-1 is an error. segment_ids may come in any order.
            """,
        )

    with Op("unsorted_segment_sqrt_n") as op:
        op.display_path = "/Base/Segment"
        segment_params(FLOATING_POINT)
        Segment(lambda acc, u: acc + u, init="zero", scale="sqrt_n")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            The sum of each segment's rows divided by the square root of their
            number (TensorFlow's unsorted_segment_sqrt_n); an empty segment gives 0.
            Row s of the result folds the rows of data whose id is s, in order; an id
            outside 0..num_segments-1 is an error. segment_ids may come in any order.
            """,
        )

    with Op("fill") as op:
        op.display_path = "/Base/Creation"
        op.onnx = "ConstantOfShape"
        Arg(INT, "shape", count=AtLeast(0), description="The shape of the result")
        Arg(
            FLOATING_POINT,
            "value",
            description="The value of every element; it must convert exactly to dtype",
        )
        Arg(
            DATA_TYPE, "dtype", default="float32", description="The dtype of the result"
        )
        Output(NUMERIC, "output", description="The generated tensor")
        Generate("fill")
        Doc(
            Language.ANY,
            DocScope.ALL,
            "A tensor of the given shape with every element equal to value.",
        )

    with Op("full_like") as op:
        op.unlike_numpy = (
            "takes the value as an arg named value, as ND4J; NumPy's is fill_value"
        )
        op.display_path = "/Base/Creation"
        x = Input(NDARRAY, "x", description="Tensor whose shape and dtype the result takes by default")
        Arg(
            FLOATING_POINT,
            "value",
            description="The value of every element; it must convert exactly to dtype",
        )
        Arg(
            DATA_TYPE,
            "dtype",
            default=x.data_type(),
            description="The dtype of the result (by default that of x)",
        )
        Arg(
            INT,
            "shape",
            count=AtLeast(0),
            default=x.shape(),
            description="The shape of the result (by default that of x)",
        )
        Output(NDARRAY, "output", description="The generated tensor")
        Generate("fill")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            A tensor with every element equal to value, of the shape and dtype of x
            unless shape or dtype says otherwise (NumPy's full_like); the values of
            x are not read.
            """,
        )

    with Op("range") as op:
        op.display_path = "/Base/Creation"
        op.onnx = "Range"
        Arg(FLOATING_POINT, "start", description="The first value")
        Arg(FLOATING_POINT, "limit", description="The bound, never reached")
        Arg(
            FLOATING_POINT,
            "delta",
            default=1.0,
            description="The step between values; not 0",
        )
        Arg(
            DATA_TYPE, "dtype", default="float32", description="The dtype of the result"
        )
        Output(NUMERIC, "output", description="The generated tensor")
        Generate("range")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Evenly spaced values start + i * delta for i < ceil((limit - start) / delta)
            (NumPy's arange, ONNX Range), computed in double precision and then
            converted; integer results truncate toward zero and must fit the dtype.
            """,
        )

    with Op("linspace") as op:
        op.unlike_numpy = (
            "takes start, stop and number as ND4J; NumPy's takes endpoint=, retstep= "
            "and num="
        )
        op.display_path = "/Base/Creation"
        Arg(FLOATING_POINT, "start", description="The first value")
        Arg(
            FLOATING_POINT, "stop", description="The last value (included when num > 1)"
        )
        Arg(INT, "num", description="How many values")
        Arg(
            DATA_TYPE, "dtype", default="float32", description="The dtype of the result"
        )
        Output(NUMERIC, "output", description="The generated tensor")
        Generate("linspace")
        Doc(
            Language.ANY,
            DocScope.ALL,
            "num evenly spaced values from start to stop, both included (NumPy's linspace); integers truncate toward zero.",
        )

    with Op("eye") as op:
        op.unlike_numpy = (
            "takes rows, cols and batch dimensions as ND4J; NumPy's eye takes N, M, "
            "k="
        )
        op.display_path = "/Base/Creation"
        rows = Arg(INT, "rows", description="Rows of the result")
        Arg(INT, "cols", default=rows, description="Columns of the result (by default as many as rows)")
        Arg(
            DATA_TYPE, "dtype", default="float32", description="The dtype of the result"
        )
        Output(NUMERIC, "output", description="The generated tensor")
        Generate("eye")
        Doc(
            Language.ANY,
            DocScope.ALL,
            "A rows x cols matrix with ones on the main diagonal and zeros elsewhere.",
        )

    Alias("math", "argmax", name="argmax")
    Alias("math", "argmin", name="argmin")
    Alias("math", "cumsum", name="cumsum")
    Alias("math", "variance", name="variance")
    Alias("math", "matmul", name="batch_mmul")
