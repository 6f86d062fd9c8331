"""Neural-network activations, normalizations and their derivatives."""

from dsl import *
from dsl.compute import fn
from ops.mixins import FLOAT_DTYPES, HALF_FLOAT_DTYPES, along_axis, float_transform, fragment_names

#: SELU's constants (Klambauer et al. 2017), as ONNX and ND4J use them.
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946
#: sqrt(2 / pi), for the tanh approximation of GELU.
SQRT_2_OVER_PI = 0.7978845608028654
SQRT_HALF = 0.7071067811865476
#: 1 / sqrt(2 pi), the standard normal density at 0.
INV_SQRT_2PI = 0.3989422804014327


def softplus(x):
    """log(1 + e^x) without overflow: max(x, 0) + log1p(e^-|x|)."""
    return fn.maximum(x, 0.0) + fn.log1p(fn.exp(-abs(x)))


with Namespace("nn"):
    with Op("relu", float_transform) as op:
        op.display_path = "/NN/Activations"
        op.onnx = "Relu"
        op.nnef = "relu"
        Arg(
            FLOATING_POINT,
            "cutoff",
            default=0.0,
            description="Values at or below the cutoff become 0",
        )
        Elementwise(lambda x, cutoff: fn.where(x > cutoff, x, 0.0))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise rectified linear unit: output = x where x > cutoff, else 0 (NaN gives 0). ONNX Relu is the cutoff 0 case.",
        )

    with Op("crelu") as op:
        op.display_path = "/NN/Activations"
        op.formula = (
            r"\mathrm{output}_{\ldots} = \left[\, \max\left(x_{\ldots}, 0\right), \; "
            r"\max\left(-x_{\ldots}, 0\right) \right]",
            r"\text{the two halves joined along the last axis}",
        )
        x = Input(
            FLOATING_POINT, "x", description="Input tensor, channels in the last axis"
        )
        Output(
            FLOATING_POINT,
            "output",
            description="x with its last axis twice as long: relu(x), then relu(-x)",
        )
        Constraint(
            "x must have rank 1 or more (channels in the last axis)", x.rank() >= 1
        )
        Fragment(
            c="fragments/rows.h",
            python="fragments/rows.py",
            c_fragments=fragment_names("crelu", FLOAT_DTYPES),
            python_fragment="crelu",
            layout="rows",
            widen=2,
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Concatenated rectified linear unit (arXiv:1603.05201): relu(x) and
            relu(-x) joined along the last axis, which doubles it, as ND4J crelu
            and TensorFlow's crelu with axis -1. NaN gives 0 in both halves, as in
            relu.
            """,
        )

    with Op("relu6", float_transform) as op:
        op.display_path = "/NN/Activations"
        Arg(
            FLOATING_POINT,
            "cutoff",
            default=0.0,
            description="Lower bound of the result",
        )
        Elementwise(lambda x, cutoff: fn.minimum(fn.maximum(x, cutoff), 6.0))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise rectified linear unit capped at 6: output = min(max(x, cutoff), 6); NaN stays NaN.",
        )

    with Op("leaky_relu", float_transform) as op:
        op.display_path = "/NN/Activations"
        op.onnx = "LeakyRelu"
        op.nnef = "leaky_relu"
        Arg(
            FLOATING_POINT,
            "alpha",
            default=0.01,
            description="Slope for negative inputs",
        )
        Elementwise(lambda x, alpha: fn.where(x < 0, alpha * x, x))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise leaky ReLU: output = x where x >= 0, else alpha * x.",
        )

    with Op("elu", float_transform) as op:
        op.display_path = "/NN/Activations"
        op.onnx = "Elu"
        op.nnef = "elu"
        Arg(
            FLOATING_POINT,
            "alpha",
            default=1.0,
            description="Scale of the negative part",
        )
        Elementwise(lambda x, alpha: fn.where(x > 0, x, alpha * fn.expm1(x)))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise exponential linear unit: output = x where x > 0, else alpha * (e^x - 1).",
        )

    with Op("selu", float_transform) as op:
        op.display_path = "/NN/Activations"
        op.onnx = "Selu"
        op.nnef = "selu"
        op.unlike_nnef = "NNEF calls gamma lambda"
        Arg(
            FLOATING_POINT,
            "alpha",
            default=SELU_ALPHA,
            description="The factor of e^x - 1 below 0 (ONNX's alpha; the default makes the unit self-normalizing)",
        )
        Arg(
            FLOATING_POINT,
            "gamma",
            default=SELU_SCALE,
            description="The scale of both sides (ONNX's gamma, NNEF's lambda)",
        )
        Elementwise(lambda x, alpha, gamma: gamma * fn.where(x > 0, x, alpha * fn.expm1(x)))
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Elementwise scaled exponential linear unit (ONNX Selu):
            output = gamma * (x where x > 0, else alpha * (e^x - 1)), by default with
            alpha = 1.6732632423543772848170429916717 and
            gamma = 1.0507009873554804934193349852946 (ND4J's selu, which fixes them).
            """,
        )

    with Op("gelu", float_transform) as op:
        op.display_path = "/NN/Activations"
        op.onnx = "Gelu"
        op.nnef = "gelu"
        op.unlike_nnef = (
            "NNEF's gelu is the approximation x * sigmoid(1.702 x); this op computes x * "
            "Phi(x) exactly, or the tanh approximation when approximate = 'tanh'"
        )
        Arg(
            ENUM,
            "approximate",
            possible_values=["none", "tanh"],
            default="none",
            description="none: the exact form with erf; tanh: the tanh approximation",
        )
        Elementwise(
            lambda x, approximate: fn.where(
                approximate == "none",
                0.5 * x * (1.0 + fn.erf(x * SQRT_HALF)),
                0.5 * x * (1.0 + fn.tanh(SQRT_2_OVER_PI * (x + 0.044715 * x * x * x))),
            )
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Elementwise Gaussian error linear unit (arXiv:1606.08415), as ONNX Gelu:
            exact output = 0.5 * x * (1 + erf(x / sqrt(2))); with approximate = tanh,
            output = 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))).
            """,
        )

    with Op("precise_gelu", float_transform) as op:
        op.display_path = "/NN/Activations"
        Elementwise(lambda x: 0.5 * x * (1.0 + fn.erf(x * SQRT_HALF)))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise exact GELU: output = 0.5 * x * (1 + erf(x / sqrt(2))), the same as gelu with approximate = none.",
        )

    with Op("hard_sigmoid", float_transform) as op:
        op.display_path = "/NN/Activations"
        op.onnx = "HardSigmoid"
        Arg(FLOATING_POINT, "alpha", default=0.2, description="The slope (ONNX's alpha)")
        Arg(FLOATING_POINT, "beta", default=0.5, description="The value at 0 (ONNX's beta)")
        Elementwise(
            lambda x, alpha, beta: fn.minimum(fn.maximum(alpha * x + beta, 0.0), 1.0)
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise hard sigmoid: output = min(max(alpha * x + beta, 0), 1) (ONNX "
            "HardSigmoid; ND4J's hardSigmoid fixes alpha = 0.2 and beta = 0.5, the defaults).",
        )

    with Op("hard_tanh", float_transform) as op:
        op.display_path = "/NN/Activations"
        Elementwise(lambda x: fn.minimum(fn.maximum(x, -1.0), 1.0))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise hard tanh: output = min(max(x, -1), 1); NaN stays NaN.",
        )

    with Op("softplus", float_transform) as op:
        op.display_path = "/NN/Activations"
        op.onnx = "Softplus"
        op.nnef = "softplus"
        Elementwise(lambda x: softplus(x))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise softplus: output = log(1 + e^x), computed as max(x, 0) + log1p(e^-|x|) so it never overflows.",
        )

    with Op("log_sigmoid", float_transform) as op:
        op.display_path = "/NN/Activations"
        Elementwise(lambda x: -softplus(-x))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise log of the sigmoid: output = log(1 / (1 + e^-x)) = -softplus(-x), stable for large |x|.",
        )

    with Op("softsign", float_transform) as op:
        op.display_path = "/NN/Activations"
        op.onnx = "Softsign"
        Elementwise(lambda x: x / (1.0 + abs(x)))
        Doc(Language.ANY, DocScope.ALL, "Elementwise softsign: output = x / (1 + |x|).")

    with Op("swish", float_transform) as op:
        op.display_path = "/NN/Activations"
        op.nnef = "silu"
        Elementwise(lambda x: x * fn.sigmoid(x))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise swish (SiLU): output = x * sigmoid(x).",
        )

    with Op("prelu") as op:
        op.display_path = "/NN/Activations"
        op.onnx = "PRelu"
        op.nnef = "prelu"
        x = Input(FLOATING_POINT, "x", description="Input tensor")
        alpha = Input(
            FLOATING_POINT,
            "alpha",
            description="Slopes for negative inputs, broadcast against x",
        )
        Output(
            FLOATING_POINT,
            "output",
            description="Result, with the broadcast shape of x and alpha",
        )
        Constraint("x and alpha must have the same type", same_type(x, alpha))
        Constraint(
            "x and alpha must have broadcastable shapes", broadcastable_shapes(x, alpha)
        )
        Elementwise(lambda x, alpha: fn.where(x < 0, alpha * x, x))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Elementwise parametric ReLU: output = x where x >= 0, else alpha * x, with learned slopes alpha broadcast against x.",
        )

    with Op("bias_add") as op:
        op.display_path = "/NN/Layers"
        x = Input(NUMERIC, "x", description="Input tensor, channels in the last axis")
        b = Input(NUMERIC, "b", description="Bias: one value per channel")
        Output(NUMERIC, "output", description="Result, with the shape of x")
        Constraint("x and b must have the same type", same_type(x, b))
        Constraint("x must have rank 1 or more", x.rank() >= 1)
        Constraint(
            "b must be a vector with one value per channel (the last axis of x)",
            (b.rank() == 1) & (b.size_at(0) == x.size_at(-1)),
        )
        Elementwise(lambda x, b: x + b)
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Adds a bias per channel: output[..., c] = x[..., c] + b[c] (channels last). Integers wrap.",
        )

    with Op("batch_norm") as op:
        op.display_path = "/NN/Normalization"
        op.nnef = "batch_normalization"
        op.unlike_nnef = (
            "NNEF takes the offset before the scale (input, mean, variance, offset, "
            "scale); this op takes gamma (the scale) before beta (the offset)"
        )
        x = Input(
            FLOATING_POINT, "x", description="Input tensor, channels in the last axis"
        )
        mean = Input(FLOATING_POINT, "mean", description="Mean per channel")
        variance = Input(FLOATING_POINT, "variance", description="Variance per channel")
        gamma = Input(FLOATING_POINT, "gamma", description="Scale per channel")
        beta = Input(FLOATING_POINT, "beta", description="Offset per channel")
        Arg(
            FLOATING_POINT,
            "epsilon",
            default=1e-5,
            description="Added to the variance before the square root",
        )
        Output(FLOATING_POINT, "output", description="The normalized tensor")
        for t in (mean, variance, gamma, beta):
            Constraint(f"x and {t.name} must have the same type", same_type(x, t))
        Constraint(
            "x, mean, variance, gamma and beta must have broadcastable shapes",
            broadcastable_shapes(x, mean)
            & broadcastable_shapes(x, variance)
            & broadcastable_shapes(x, gamma)
            & broadcastable_shapes(x, beta),
        )
        Elementwise(
            lambda x, mean, variance, gamma, beta, epsilon: (x - mean)
            / fn.sqrt(variance + epsilon)
            * gamma
            + beta
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Batch normalization with given statistics (inference):
            output = (x - mean) / sqrt(variance + epsilon) * gamma + beta, with
            NumPy broadcasting; per-channel vectors apply to the last axis of x.
            """,
        )

    with Mixin("row_norm") as row_norm:
        # (the rows both normalizations take: x's axes from axis on, scaled by gain)
        Input(
            FLOATING_POINT, "x", description="Input tensor, normalized along its last axes"
        )
        Input(
            FLOATING_POINT,
            "gain",
            description="Scale per element of a row: the shape of the axes of x from axis on",
        )
        Arg(
            INT,
            "axis",
            default=-1,
            description="The first axis normalized: each row holds the elements of it and of every "
            "axis after it; negative counts from the last",
        )

    with Op("layer_norm", row_norm) as op:
        op.display_path = "/NN/Normalization"
        op.onnx = "LayerNormalization"
        op.unlike_onnx = (
            "ONNX may also give the mean and the inverse standard deviation; this op "
            "gives the output"
        )
        op.formula = (
            r"\mathrm{output}_{\ldots j} = \frac{x_{\ldots j} - \mu}{\sqrt{\sigma^{2} + \epsilon}} "
            r"\, \mathrm{gain}_{j} + \mathrm{bias}_{j}",
            r"\mu = \frac{1}{n} \sum_{j} x_{\ldots j}, \quad "
            r"\sigma^{2} = \frac{1}{n} \sum_{j} \left(x_{\ldots j} - \mu\right)^{2}",
            r"\text{$j$ runs over the $n$ elements of the axes from axis on, \ldots{} over the axes "
            r"before it}",
        )
        x, gain = op.input("x"), op.input("gain")
        bias = Input(
            FLOATING_POINT,
            "bias",
            description="Offset per element of a row: the shape of the axes of x from axis on",
        )
        Arg(
            FLOATING_POINT,
            "epsilon",
            default=1e-5,
            description="Added to the variance before the square root",
        )
        Output(
            FLOATING_POINT,
            "output",
            description="The normalized tensor, with the shape of x",
        )
        Constraint(
            "x, gain and bias must have the same type",
            same_type(x, gain) & same_type(x, bias),
        )
        Fragment(
            c="fragments/rows.h",
            python="fragments/rows.py",
            c_fragments=fragment_names("layer_norm", FLOAT_DTYPES),
            python_fragment="layer_norm",
            layout="channels",
            args=("epsilon",),
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Layer normalization (ONNX LayerNormalization, ND4J layerNorm): each row,
            the elements of the axes from axis on (by default the last axis alone),
            becomes (x - mean) / sqrt(variance + epsilon) * gain + bias, with the
            row's mean and biased variance summed in double precision.
            """,
        )

    with Op("rms_norm", row_norm) as op:
        op.display_path = "/NN/Normalization"
        op.onnx = "RMSNormalization"
        op.formula = (
            r"\mathrm{output}_{\ldots j} = \frac{x_{\ldots j}}{\sqrt{\frac{1}{n} \sum_{k} x_{\ldots k}^{2} "
            r"+ \epsilon}} \, \mathrm{gain}_{j}",
            r"\text{$j$ and $k$ run over the $n$ elements of the axes from axis on, \ldots{} over "
            r"the axes before it}",
        )
        x, gain = op.input("x"), op.input("gain")
        Arg(
            FLOATING_POINT,
            "epsilon",
            default=1e-5,
            description="Added to the mean square before the square root",
        )
        Output(
            FLOATING_POINT,
            "output",
            description="The normalized tensor, with the shape of x",
        )
        Constraint("x and gain must have the same type", same_type(x, gain))
        Fragment(
            c="fragments/rows.h",
            python="fragments/rows.py",
            c_fragments=fragment_names("rms_norm", FLOAT_DTYPES),
            python_fragment="rms_norm",
            layout="channels",
            args=("epsilon",),
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Root-mean-square normalization (ONNX RMSNormalization): each row, the
            elements of the axes from axis on (by default the last axis alone),
            becomes x / sqrt(mean(x^2) + epsilon) * gain, the row's sum of squares
            in double precision.
            """,
        )

    with Op("top_k") as op:
        op.display_path = "/NN/Selection"
        op.onnx = "TopK"
        op.formula = (
            r"\mathrm{values}_{\ldots m} = x_{\ldots\, \pi(m)}, \quad \mathrm{indices}_{\ldots m} "
            r"= \pi(m), \quad 0 \leq m < k",
            r"\text{$\pi$ orders each row of the last axis largest first (smallest first where "
            r"largest is false), ties by index}",
        )
        op.unlike_onnx = (
            "ONNX's TopK takes k as a tensor and may search another axis (axis) or leave"
            " them unsorted (sorted = 0); this op keeps the k largest (or smallest) of "
            "the last axis, in order"
        )
        x = Input(NUMERIC, "x", description="Input tensor, rows in the last axis")
        k = Arg(INT, "k", description="How many elements to keep from each row")
        Arg(
            BOOLEAN,
            "largest",
            default=True,
            description="Keep the k largest, largest first; false: the k smallest, smallest first (ONNX's largest)",
        )
        Output(
            NUMERIC, "values", description="The k largest of each row, largest first"
        )
        Output(
            LONG,
            "indices",
            description="Where each of values is in its row (an index into the last axis of x)",
        )
        Constraint("x must have rank 1 or more", x.rank() >= 1)
        Constraint(
            "k must lie in 0..the size of the last axis of x",
            (k >= 0) & (k <= x.size_at(-1)),
        )
        Fragment(
            c="fragments/rows.h",
            python="fragments/rows.py",
            c_fragments=fragment_names(
                "top_k",
                ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"),
            ),
            python_fragment="top_k",
            layout="select",
            args=("k", "largest"),
            length="k",
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            The k largest elements of each row (the last axis) and their indices,
            largest first (ONNX TopK with axis -1): NaN counts as larger than every
            number, and equal values come in the order of their indices. With
            largest = false, the k smallest, smallest first (NaN after every number).
            """,
        )

    with Op("dropout") as op:
        op.display_path = "/NN/Layers"
        op.onnx = "Dropout"
        op.formula = (
            r"\mathrm{output}_{i} = \begin{cases} 0 & u_{i} < p \\ \frac{x_{i}}{1 - p} & "
            r"\text{otherwise} \end{cases}",
            r"\text{$u_{i}$: the uniform number of the stream (seed, offset $+ i$); "
            r"$\mathrm{output} = x$ where training is false}",
        )
        op.unlike_onnx = (
            "ONNX's Dropout is the identity unless training_mode is set (it is false by "
            "default) and may give its mask; this op drops unless training is false (true "
            "by default, as ND4J's always drops) and gives no mask"
        )
        x = Input(FLOATING_POINT, "x", description="Input tensor")
        p = Arg(
            FLOATING_POINT,
            "p",
            default=0.5,
            description="The probability of dropping each element",
        )
        Arg(LONG, "seed", default=0, description="Key of the random stream")
        Arg(
            LONG,
            "offset",
            default=0,
            description="Counter of the first element's random number",
        )
        Arg(
            BOOLEAN,
            "training",
            default=True,
            description="Drop (true), or pass x through unchanged as at inference (ONNX's training_mode)",
        )
        Output(
            FLOATING_POINT,
            "output",
            description="x with dropped elements 0 and kept ones scaled, with its shape",
        )
        Constraint("p must lie in [0, 1)", (p >= 0) & (p < 1))
        Fragment(
            c="fragments/dropout.h",
            python="fragments/dropout.py",
            c_fragments=fragment_names("dropout", FLOAT_DTYPES),
            python_fragment="dropout",
            layout="shaped",
            args=("p", "seed", "offset", "training"),
            shapes=(x,),
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Inverted dropout (ONNX Dropout in training mode, without the mask): each
            element is 0 with probability p and x * (1 / (1 - p)) otherwise, in
            double precision, so the mean is kept. Element i (row-major) is dropped where the uniform number of
            the random namespace's stream (seed, offset + i) is below p: the same
            seed and offset drop the same elements in C and NumPy. With training =
            false the output is x, as ONNX's Dropout at inference and Keras' and
            PyTorch's dropout in evaluation.
            """,
        )

    with Op("linear") as op:
        op.nnef = "linear"
        op.unlike_nnef = (
            "NNEF's filter holds a row per output (outputs x inputs: input @ filter "
            "transposed); this op's weights hold a column per output (inputs x units: x @"
            " weights)"
        )
        op.unlike_onnx = (
            "ONNX's Gemm also scales (alpha, beta), transposes (transA, transB) and "
            "broadcasts its C; this op is x @ weights + bias with one bias per output "
            "column"
        )
        op.formula = (
            r"\mathrm{output}_{\ldots j} = \sum_{k} x_{\ldots k} \, \mathrm{weights}_{k j} + \mathrm{bias}_{j}",
        )
        op.display_path = "/NN/Layers"
        op.onnx = "Gemm"
        x = Input(
            FLOATING_POINT, "x", description="Input rows: features in the last axis"
        )
        w = Input(
            FLOATING_POINT,
            "weights",
            description="in x out matrix, in the size of the last axis of x",
        )
        b = Input(FLOATING_POINT, "bias", description="Vector of out values")
        Output(
            FLOATING_POINT,
            "output",
            description="x with its last axis replaced by out values",
        )
        Constraint(
            "x, weights and bias must have the same type",
            same_type(x, w) & same_type(x, b),
        )
        Constraint(
            "x must have rank 1 or more (features in the last axis)", x.rank() >= 1
        )
        Constraint(
            "weights must be a matrix with as many rows as the last axis of x",
            (w.rank() == 2) & (w.size_at(0) == x.size_at(-1)),
        )
        Constraint(
            "bias must be a vector as long as the columns of weights",
            (b.rank() == 1) & (b.size_at(0) == w.size_at(-1)),
        )
        Fragment(
            c="fragments/dense.h",
            python="fragments/dense.py",
            c_fragments=fragment_names("linear", FLOAT_DTYPES),
            python_fragment="linear",
            layout="dense",
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            A fully connected layer: output = x @ weights + bias over the last axis
            of x (ND4J linear and xw_plus_b; ONNX Gemm for a matrix x). Each sum is
            in double precision, in order, with the bias added last.
            """,
        )

    #: The queries and keys every attention op scores, with its two choices of the scores.
    with Mixin("attention_pair") as attention_pair:
        q = Input(
            FLOATING_POINT,
            "queries",
            description="Lq x d matrices of queries in the last two axes",
        )
        k = Input(
            FLOATING_POINT,
            "keys",
            description="Lk x d matrices of keys, with the batch axes of queries",
        )
        Arg(
            BOOLEAN,
            "scaled",
            default=True,
            description="Divide the scores by the square root of the key size",
        )
        Arg(
            BOOLEAN,
            "causal",
            default=False,
            description="Query i sees keys 0..i only, 0..i + offset where the op takes an offset "
            "(ONNX is_causal)",
        )
        Constraint("keys must have the type of queries", same_type(q, k))
        Constraint(
            "keys must have as many columns as queries",
            k.size_at(-1) == q.size_at(-1),
        )

    #: The pair, and the values the scores weigh.
    with Mixin("attention") as attention:
        use_mixin(attention_pair)
        v = Input(
            FLOATING_POINT,
            "values",
            description="Lk x e matrices of values, with the batch axes of queries",
        )
        Constraint("values must have the type of queries", same_type(q, v))
        Constraint(
            "values must have as many rows as keys", v.size_at(-2) == k.size_at(-2)
        )

    #: The additive mask of the scores that masked attention and its scores take.
    with Mixin("attention_mask") as attention_mask:
        mask = Input(
            FLOATING_POINT,
            "mask",
            description="Lq x Lk matrices added to the scores, with the batch axes of queries: 0 "
            "keeps a score, -inf masks its key (ND4J's mask, ONNX's additive attn_mask)",
        )
        Constraint("mask must have the type of queries", same_type(q, mask))
        Constraint(
            "mask must have a row per query and a column per key",
            (mask.size_at(-2) == q.size_at(-2)) & (mask.size_at(-1) == k.size_at(-2)),
        )

    #: What one head's scores take besides the product: ONNX's scale and softcap, and which keys
    #: each query sees (the causal mask's and the window's frontier, from the query's position).
    with Mixin("attention_scoring") as attention_scoring:
        Arg(
            FLOATING_POINT,
            "scale",
            default=1.0,
            description="A further factor of the scores, after 1 / sqrt(d) when scaled (ONNX's scale: "
            "scaled = false)",
        )
        softcap = Arg(
            FLOATING_POINT,
            "softcap",
            default=0.0,
            description="Caps each score at +-softcap by softcap * tanh(score / softcap); 0: no cap "
            "(ONNX's softcap)",
        )
        offset = Arg(
            INT,
            "offset",
            default=0,
            description="The position among the keys of the first query (the keys cached before it): "
            "query i is at position i + offset, from which causal and the window count",
        )
        left = Arg(
            INT,
            "left_window",
            default=-1,
            description="A query sees no key more than this many positions before its own; -1: no "
            "limit (ONNX's left_window_size)",
        )
        right = Arg(
            INT,
            "right_window",
            default=-1,
            description="A query sees no key more than this many positions after its own; -1: no "
            "limit (ONNX's right_window_size)",
        )
        Constraint("softcap must not be negative", softcap >= 0)
        Constraint("left_window and right_window must be -1 or more", (left >= -1) & (right >= -1))
        # (a query's position and its window's ends then fit in int64 for any real number of queries)
        Constraint(
            "offset, left_window and right_window must be at most 2^60 from 0",
            (offset >= -(1 << 60)) & (offset <= 1 << 60) & (left <= 1 << 60) & (right <= 1 << 60),
        )

    #: The steps the three attention ops take, as their docs tell them.
    ATTENTION_STEPS = """
            Each score is q.k / sqrt(d) (without the 1 / sqrt(d) when scaled = false), times
            scale, then capped at softcap * tanh(s / softcap) when softcap > 0 (ONNX's order: after
            the scale, before any mask). Query i stands at position p = i + offset among the keys:
            causal lets it see keys j <= p (offset 0: ONNX's upper-left is_causal; offset
            Lk - Lq: bottom-right, a cache before the queries), left_window >= 0 keys
            j >= p - left_window and right_window >= 0 keys j <= p + right_window. Scores, softmax
            and sums are in double precision; each row's softmax is shifted by its largest score,
            and a NaN score makes the row NaN. A query that sees no key gives zeros (ONNX's
            fully masked row)."""

    ATTENTION_FORMULA = (
        r"\mathrm{output} = \operatorname{softmax}\left(\operatorname{cap}\left(\frac{Q K^{\top}}{\sqrt{d}}"
        r" \cdot \mathrm{scale}\right) + M\right) V",
        r"\text{$Q$: queries, $K$: keys, $V$: values, for each batch; $d$ the key size, left "
        r"out unless scaled}",
        r"\operatorname{cap}(s) = \mathrm{softcap} \tanh\left(s / \mathrm{softcap}\right) "
        r"\text{ where softcap} > 0 \text{, else } s",
        r"M_{ij} = -\infty \text{ where query $i$ does not see key $j$: causal, $j > i + \mathrm{offset}$; "
        r"the window, $|j - i - \mathrm{offset}|$ past its side's size}",
    )

    with Op("dot_product_attention", attention) as op:
        use_mixin(attention_scoring)
        op.display_path = "/NN/Attention"
        op.onnx = "Attention"
        op.formula = ATTENTION_FORMULA
        op.unlike_onnx = (
            "ONNX's Attention also takes masks (masked_dot_product_attention), a key/value cache "
            "(concatenate it before keys and values; offset: its length), fewer key heads than "
            "query heads (repeat them) and 3-D inputs with the heads side by side; this op takes "
            "batches of one head's matrices (ONNX's scale is scale with scaled = false)"
        )
        k = op.input("keys")
        Output(
            FLOATING_POINT,
            "output",
            description="Lq x e matrices: each query's weighted sum of the values",
        )
        Fragment(
            c="fragments/attention.h",
            python="fragments/attention.py",
            c_fragments=fragment_names("attention", HALF_FLOAT_DTYPES),
            python_fragment="attention",
            layout="matrix_product",
            args=("scaled", "causal", "scale", "softcap", "offset", "left_window", "right_window"),
            workspace=k.size_at(-2),
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Scaled dot-product attention, softmax(Q K^T / sqrt(d)) V, for each
            batch of matrices (ONNX Attention with one head and no mask; row-major,
            where ND4J puts features first)."""
            + ATTENTION_STEPS,
        )

    with Op("masked_dot_product_attention", attention) as op:
        use_mixin(attention_scoring)
        op.display_path = "/NN/Attention"
        op.onnx = "Attention"
        op.formula = (ATTENTION_FORMULA[0].replace("+ M", r"+ \mathrm{mask} + M"), *ATTENTION_FORMULA[1:])
        op.unlike_onnx = (
            "ONNX's Attention takes its mask optionally, boolean or additive, in any shape that "
            "broadcasts into the scores, and pads a short one; this op takes an additive mask of the "
            "scores' shape (a boolean one is where(mask, 0, -inf)). A cache, grouped heads and 3-D "
            "inputs as for dot_product_attention"
        )
        use_mixin(attention_mask)
        k = op.input("keys")
        Output(
            FLOATING_POINT,
            "output",
            description="Lq x e matrices: each query's weighted sum of the values",
        )
        Fragment(
            c="fragments/attention.h",
            python="fragments/attention.py",
            c_fragments=fragment_names("masked_attention", HALF_FLOAT_DTYPES),
            python_fragment="masked_attention",
            layout="matrix_product",
            columns="values",
            args=("scaled", "causal", "scale", "softcap", "offset", "left_window", "right_window"),
            workspace=k.size_at(-2),
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Scaled dot-product attention with a mask, softmax(Q K^T / sqrt(d) + mask) V, for
            each batch of matrices (ONNX Attention with an additive attn_mask; ND4J's
            dotProductAttention with a mask, row-major). The mask is added to the capped
            scores; a key whose mask is -inf gets no weight (its score is not read), and a
            query whose every key is masked gives zeros."""
            + ATTENTION_STEPS,
        )

    with Op("attention_scores", attention_pair) as op:
        use_mixin(attention_scoring)
        op.display_path = "/NN/Attention"
        op.formula = (
            r"\mathrm{output} = \left[\, P,\ \operatorname{cap}(P),\ \operatorname{cap}(P) + \mathrm{mask} + M,"
            r"\ \operatorname{softmax}\left(\operatorname{cap}(P) + \mathrm{mask} + M\right) \,\right]_{\mathrm{stage}}",
            r"P = \frac{Q K^{\top}}{\sqrt{d}} \cdot \mathrm{scale}",
            *ATTENTION_FORMULA[1:],
        )
        use_mixin(attention_mask)
        k = op.input("keys")
        Arg(
            ENUM,
            "stage",
            possible_values=["product", "capped", "masked", "softmax"],
            default="softmax",
            description="Which scores: the scaled products; then capped by softcap; then masked; "
            "then their softmax, the weights of the values (ONNX's qk_matmul_output_mode 0 to 3)",
        )
        Output(
            FLOATING_POINT,
            "output",
            description="Lq x Lk matrices: each query's score of each key, with the mask's shape",
        )
        Fragment(
            c="fragments/attention.h",
            python="fragments/attention.py",
            c_fragments=fragment_names("attention_scores", HALF_FLOAT_DTYPES),
            python_fragment="attention_scores",
            layout="matrix",
            args=("scaled", "causal", "scale", "softcap", "offset", "left_window", "right_window", "stage"),
            workspace=k.size_at(-2),
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            The scores masked_dot_product_attention computes, at a stage of its
            computation (ONNX's Attention output qk_matmul_output, PyTorch's attention
            weights): product, the scaled products q.k; capped, after softcap; masked,
            plus the mask, -inf where the query does not see the key (causal, the
            window); softmax, the weights each query gives the values (0 for a masked
            key; a query that sees no key gives every key 0)."""
            + ATTENTION_STEPS,
        )

    with Op("multi_head_dot_product_attention") as op:
        op.display_path = "/NN/Attention"
        op.formula = (
            r"\mathrm{output} = \left[\, \operatorname{attention}\left(Q_{h}, K_{h}, V_{h}\right) "
            r"\right]_{h} W_{o}",
            r"Q = \mathrm{queries} \, W_{q}, \quad K = \mathrm{keys} \, W_{k}, \quad V = "
            r"\mathrm{values} \, W_{v}",
            r"\text{$Q_{h}$, $K_{h}$, $V_{h}$: the columns of head $h$ of num\_heads; the heads "
            r"joined in order}",
        )
        heads = Arg(INT, "num_heads", default=1, description="How many heads")
        use_mixin(
            attention
        )  # after num_heads: the args keep the order num_heads, scaled, causal
        q, k, v = op.input("queries"), op.input("keys"), op.input("values")
        wq = Input(
            FLOATING_POINT,
            "wq",
            description="d x (heads * dk) query projection, one for every batch",
        )
        wk = Input(
            FLOATING_POINT,
            "wk",
            description="d x (heads * dk) key projection, one for every batch",
        )
        wv = Input(
            FLOATING_POINT,
            "wv",
            description="e x (heads * dv) value projection, one for every batch",
        )
        wo = Input(
            FLOATING_POINT,
            "wo",
            description="(heads * dv) x out projection of the joined heads",
        )
        Output(
            FLOATING_POINT,
            "output",
            description="Lq x out matrices, with the batch axes of queries",
        )
        Constraint(
            "wq, wk, wv and wo must have the type of queries",
            same_type(q, wq) & same_type(q, wk) & same_type(q, wv) & same_type(q, wo),
        )
        Constraint(
            "wq and wk must both have as many rows as queries has columns, and the same columns",
            (wq.size_at(0) == q.size_at(-1))
            & (wk.size_at(0) == q.size_at(-1))
            & (wk.size_at(-1) == wq.size_at(-1)),
        )
        Constraint(
            "wv must have as many rows as values has columns",
            wv.size_at(0) == v.size_at(-1),
        )
        Constraint(
            "wo must have as many rows as wv has columns",
            wo.size_at(0) == wv.size_at(-1),
        )
        Constraint(
            "num_heads must be positive and divide the columns of wq and of wv",
            (heads >= 1)
            & (wq.size_at(-1) % heads == 0)
            & (wv.size_at(-1) % heads == 0),
        )
        Fragment(
            c="fragments/attention.h",
            python="fragments/attention.py",
            c_fragments=fragment_names("multi_head", FLOAT_DTYPES),
            python_fragment="multi_head_attention",
            layout="matrix_product",
            args=("num_heads", "scaled", "causal"),
            shared=("wq", "wk", "wv", "wo"),
            workspace=(q.size_at(-2) + k.size_at(-2)) * wq.size_at(-1)
            + (k.size_at(-2) + q.size_at(-2)) * wv.size_at(-1)
            + k.size_at(-2),
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Multi-head attention with input and output projections (ND4J
            multiHeadDotProductAttention without a mask, row-major): per batch,
            Q = queries wq, K = keys wk and V = values wv; head h attends as
            dot_product_attention with columns h*dk..(h+1)*dk of Q and K to columns
            h*dv..(h+1)*dv of V; the heads' results, joined in order, are
            projected by wo. All sums are in double precision.
            """,
        )

    with Op("softmax", along_axis) as op:
        op.nnef = "softmax"
        op.unlike_nnef = (
            "NNEF's softmax takes a list of axes, by default [1]; this op takes one axis,"
            " by default the last"
        )
        op.formula = (
            r"\mathrm{output}_{i} = \frac{e^{x_{i} - m}}{\sum_{j} e^{x_{j} - m}}, \quad m = \max_{j} x_{j}",
            r"\text{$i$ and $j$ run along the axis}",
        )
        op.display_path = "/NN/Activations"
        op.onnx = "Softmax"
        Output(
            FLOATING_POINT,
            "output",
            description="Probabilities along axis, with the shape of x",
        )
        Fragment(
            c="fragments/softmax.h",
            python="fragments/softmax.py",
            c_fragments=fragment_names("softmax", FLOAT_DTYPES),
            python_fragment="softmax",
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Softmax along an axis: output = e^(x - m) / sum(e^(x - m)), with m the
            maximum along the axis, so large inputs never overflow. Rows holding
            NaN give NaN.
            """,
        )

    with Op("log_softmax", along_axis) as op:
        op.formula = (
            r"\mathrm{output}_{i} = x_{i} - m - \ln \sum_{j} e^{x_{j} - m}, \quad m = \max_{j} x_{j}",
            r"\text{$i$ and $j$ run along the axis}",
        )
        op.display_path = "/NN/Activations"
        op.onnx = "LogSoftmax"
        Output(
            FLOATING_POINT,
            "output",
            description="Log-probabilities along axis, with the shape of x",
        )
        Fragment(
            c="fragments/softmax.h",
            python="fragments/softmax.py",
            c_fragments=fragment_names("log_softmax", FLOAT_DTYPES),
            python_fragment="log_softmax",
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Log of the softmax along an axis: output = (x - m) - log(sum(e^(x - m))), with m the maximum along the axis.",
        )

    with Op("hard_tanh_derivative", float_transform) as op:
        op.display_path = "/NN/Derivatives"
        Elementwise(lambda x: fn.where(fn.logical_and(x > -1.0, x < 1.0), 1.0, 0.0))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Derivative of hard_tanh: 1 where -1 < x < 1, else 0.",
        )

    with Op("leaky_relu_derivative", float_transform) as op:
        op.display_path = "/NN/Derivatives"
        Arg(
            FLOATING_POINT,
            "alpha",
            default=0.01,
            description="Slope for negative inputs",
        )
        Elementwise(lambda x, alpha: fn.where(x < 0, alpha, 1.0))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Derivative of leaky_relu: 1 where x >= 0 (and for NaN), else alpha.",
        )

    with Op("sigmoid_derivative") as op:
        op.display_path = "/NN/Derivatives"
        x = Input(FLOATING_POINT, "x", description="Input tensor")
        wrt = Input(
            FLOATING_POINT,
            "wrt",
            description="Gradient of the loss with respect to sigmoid(x)",
        )
        Output(FLOATING_POINT, "output", description="Gradient with respect to x")
        Constraint("x and wrt must have the same type", same_type(x, wrt))
        Constraint(
            "x and wrt must have broadcastable shapes", broadcastable_shapes(x, wrt)
        )
        Elementwise(lambda x, wrt: fn.sigmoid(x) * (1.0 - fn.sigmoid(x)) * wrt)
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Backpropagation through sigmoid: output = sigmoid(x) * (1 - sigmoid(x)) * wrt.",
        )

    with Op("softsign_derivative", float_transform) as op:
        op.display_path = "/NN/Derivatives"
        Elementwise(lambda x: 1.0 / ((1.0 + abs(x)) * (1.0 + abs(x))))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Derivative of softsign: output = 1 / (1 + |x|)^2.",
        )

    with Op("pad") as op:
        op.formula = (
            r"\mathrm{output}_{\ldots i \ldots} = \begin{cases} x_{\ldots\, i - b \,\ldots} & b "
            r"\leq i < b + n \\ \text{value, or $x$ mirrored (reflect, symmetric), its end (edge) "
            r"or repeated (wrap)} & \text{otherwise} \end{cases}",
            r"\text{along each axis of $n$ entries, $b$ its before padding}",
        )
        op.unlike_onnx = (
            "ONNX lists the pads as every axis's before, then every axis's after, and may "
            "pad some axes only (axes); this op takes a (before, after) pair per axis, and "
            "its symmetric mode has no ONNX counterpart"
        )
        op.unlike_numpy = (
            "takes ND4J's padding and mode; NumPy's pad takes pad_width and mode "
            "names of its own"
        )
        op.display_path = "/NN/Layers"
        op.onnx = "Pad"
        Input(NDARRAY, "x", description="Input tensor")
        Arg(
            INT,
            "paddings",
            count=AtLeast(0),
            description="Elements added before and after each axis: [before0, after0, before1, ...]",
        )
        Arg(
            ENUM,
            "mode",
            possible_values=["constant", "reflect", "symmetric", "edge", "wrap"],
            default="constant",
            description="constant: the value; reflect: mirrored without the edge; symmetric: mirrored with the edge; "
            "edge: the edge element repeated; wrap: the axis repeated (NumPy's modes)",
        )
        Arg(
            FLOATING_POINT,
            "value",
            default=0.0,
            description="The constant padding value; it must convert exactly to the type of x",
        )
        Output(NDARRAY, "output", description="The padded tensor, with the type of x")
        Layout("pad")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Pads x along every axis (NumPy's pad, ONNX Pad). Reflect padding of an
            axis of size n adds at most n - 1 elements on a side; symmetric at most n;
            edge and wrap any number, but not to an empty axis.
            """,
        )

    with Op("relu6_derivative", float_transform) as op:
        op.display_path = "/NN/Derivatives"
        Arg(FLOATING_POINT, "cutoff", default=0.0, description="Lower bound of relu6")
        Elementwise(
            lambda x, cutoff: fn.where(fn.logical_and(x > cutoff, x < 6.0), 1.0, 0.0)
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Derivative of relu6: 1 where cutoff < x < 6, else 0.",
        )

    with Op("elu_derivative", float_transform) as op:
        op.display_path = "/NN/Derivatives"
        Arg(
            FLOATING_POINT,
            "alpha",
            default=1.0,
            description="Scale of the negative part",
        )
        Elementwise(lambda x, alpha: fn.where(x > 0, 1.0, alpha * fn.exp(x)))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Derivative of elu: 1 where x > 0, else alpha * e^x.",
        )

    with Op("selu_derivative", float_transform) as op:
        op.display_path = "/NN/Derivatives"
        Elementwise(lambda x: SELU_SCALE * fn.where(x > 0, 1.0, SELU_ALPHA * fn.exp(x)))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Derivative of selu: scale where x > 0, else scale * alpha * e^x.",
        )

    with Op("hard_sigmoid_derivative", float_transform) as op:
        op.display_path = "/NN/Derivatives"
        Elementwise(lambda x: fn.where(fn.logical_and(x > -2.5, x < 2.5), 0.2, 0.0))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Derivative of hard_sigmoid: 0.2 where -2.5 < x < 2.5, else 0.",
        )

    with Op("tanh_derivative", float_transform) as op:
        op.display_path = "/NN/Derivatives"
        Elementwise(lambda x: 1.0 - fn.tanh(x) * fn.tanh(x))
        Doc(Language.ANY, DocScope.ALL, "Derivative of tanh: 1 - tanh(x)^2.")

    with Op("swish_derivative", float_transform) as op:
        op.display_path = "/NN/Derivatives"
        Elementwise(lambda x: fn.sigmoid(x) + x * fn.sigmoid(x) * (1.0 - fn.sigmoid(x)))
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Derivative of swish: s + x * s * (1 - s), with s = sigmoid(x).",
        )

    with Op("precise_gelu_derivative", float_transform) as op:
        op.display_path = "/NN/Derivatives"
        Elementwise(
            lambda x: 0.5 * (1.0 + fn.erf(x * SQRT_HALF))
            + x * fn.exp(-0.5 * x * x) * INV_SQRT_2PI
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Derivative of the exact GELU: Phi(x) + x * phi(x), the standard normal distribution and density.",
        )

    Alias("math", "sigmoid", name="sigmoid")
    Alias("math", "tanh", name="tanh")
