"""Convolutions: einsums over OCANNL's convolution axes (ADR 0061)."""

from dsl import *

#: The labels of each rank's spatial axes: the output's positions, and the kernel's taps.
SPATIAL = {1: ("t",), 2: ("s", "t"), 3: ("r", "s", "t")}
TAPS = {1: ("k",), 2: ("j", "k"), 3: ("i", "j", "k")}
NAMES = {1: "width", 2: "height, width", 3: "depth, height, width"}

with Namespace("cnn"):
    #: Where each rank's windows start and which elements they read: the args every conv and pool takes.
    WINDOWS = {}
    for rank in SPATIAL:
        with Mixin(f"windows{rank}d") as WINDOWS[rank]:
            for name, what in (
                ("strides", "Elements from one window to the next, per spatial axis"),
                ("dilations", "Elements between the window's taps, per spatial axis"),
            ):
                Arg(INT, name, count=AtLeast(rank), default=[1] * rank, description=what)
            Arg(
                INT,
                "pads",
                count=AtLeast(2 * rank),
                default=[0] * (2 * rank),
                description="Padding before each spatial axis, then after each (ONNX's order)",
            )
            Arg(
                ENUM,
                "auto_pad",
                possible_values=["NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"],
                default="NOTSET",
                description="NOTSET: pads as given; SAME_UPPER, SAME_LOWER: the padding that gives "
                "ceil(size / stride) windows, the odd one after or before; VALID: none",
            )

    for rank, labels in SPATIAL.items():
        kernel = TAPS[rank]
        axes = ",".join(f"{label}+{k}" for label, k in zip(labels, kernel))
        with Op(f"conv{rank}d") as op:
            op.display_path = "/CNN/Convolution"
            op.onnx = "Conv"
            op.unlike_onnx = (
                "takes no bias input and no groups (ONNX's group = 1); kernel_shape is the "
                "weights' shape"
            )
            op.nnef = "conv"
            op.unlike_nnef = (
                "NNEF's conv adds a bias and takes groups and a border mode; its padding lists "
                "(before, after) pairs, where this op takes ONNX's pads: every axis's before, then "
                "every axis's after"
            )
            x = Input(
                NUMERIC,
                "x",
                description=f"The input: batch, channels, {NAMES[rank]} (NC{'DHW'[-rank:]})",
            )
            w = Input(
                NUMERIC,
                "w",
                description=f"The filters: output channels, input channels, {NAMES[rank]} "
                f"(ONNX's OI{'DHW'[-rank:]})",
            )
            Output(
                NUMERIC,
                "output",
                description=f"batch, output channels, {NAMES[rank]} of the windows",
            )
            use_mixin(WINDOWS[rank])
            Constraint("x and w must have the same type", same_type(x, w))
            Einsum(
                f"n,c,{axes};m,c,{','.join(kernel)}=>n,m,{','.join(labels)}",
                strides="strides",
                dilations="dilations",
                pads="pads",
                auto_pad="auto_pad",
            )
            Doc(
                Language.ANY,
                DocScope.ALL,
                f"""
                The {rank}-D convolution of deep learning (a cross-correlation: the kernel is not
                flipped), as ONNX's Conv computes it: each output element sums, over the input
                channels and the kernel's taps, the products of the filter with the input read at
                stride * position + dilation * tap - padding before, where a position outside the
                input reads 0. The weights are laid out as ONNX's (output channels first); ND4J's
                default weights layout differs. Integers wrap.
                """,
            )

    #: Depthwise convolution: each channel with its own filter (ONNX's Conv with group = channels).
    kernel = TAPS[2]
    axes = ",".join(f"{label}+{k}" for label, k in zip(SPATIAL[2], kernel))
    with Op("depthwise_conv2d") as op:
        op.display_path = "/CNN/Convolution"
        op.onnx = "Conv"
        op.unlike_onnx = (
            "is ONNX's Conv with group equal to the channels and one filter per channel (a depth "
            "multiplier of 1), whose weights (channels, 1, height, width) it takes without the axis "
            "of 1; it takes no bias input"
        )
        x = Input(NUMERIC, "x", description="The input: batch, channels, height, width (NCHW)")
        w = Input(
            NUMERIC,
            "w",
            description="One filter per channel: channels, height, width (ONNX's weights of a "
            "depthwise Conv without their axis of 1)",
        )
        Output(NUMERIC, "output", description="batch, channels, height, width of the windows")
        use_mixin(WINDOWS[2])
        Constraint("x and w must have the same type", same_type(x, w))
        Einsum(
            f"n,c,{axes};c,{','.join(kernel)}=>n,c,{','.join(SPATIAL[2])}",
            strides="strides",
            dilations="dilations",
            pads="pads",
            auto_pad="auto_pad",
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            The depthwise 2-D convolution of deep learning (MobileNet's; ND4J's
            depthwise_conv2d with a depth multiplier of 1, ONNX's Conv with group equal to
            the channels): each channel of x is convolved (cross-correlated) with its own
            filter, the taps read at stride * position + dilation * tap - padding before,
            where a position outside the input reads 0. Nothing sums across channels.
            Integers wrap.
            """,
        )

    #: The pools: how a window's elements combine, ONNX's operator, NNEF's operation, what differs.
    POOLS = {
        "max": ("MaxPool", "max_pool", "the largest element of each window; the padding is never chosen"),
        "avg": ("AveragePool", "avg_pool", "the mean of each window, over its elements inside the input "
                "or, with count_include_pad, over those inside the input and its padding (counted as zeros)"),
        "lp": ("LpPool", None, "the Lp norm of each window, (sum of |x|^p)^(1/p), the padding counted as zeros"),
    }
    for kind, (onnx, nnef, what) in POOLS.items():
        for rank, labels in SPATIAL.items():
            taps = TAPS[rank]
            axes = ",".join(f"{label}+{k}" for label, k in zip(labels, taps))
            with Op(f"{kind}_pooling{rank}d") as op:
                op.display_path = "/CNN/Pooling"
                op.onnx = onnx
                if kind == "max":
                    op.unlike_onnx = "gives no Indices output"
                if nnef is not None:
                    op.nnef = nnef
                    op.unlike_nnef = (
                        "NNEF's pools take a size, stride and padding for every axis, batch and channels "
                        "included, and a border mode; this op pools the spatial axes, ONNX's way"
                    )
                Input(
                    FLOATING_POINT,
                    "x",
                    description=f"The input: batch, channels, {NAMES[rank]} (NC{'DHW'[-rank:]})",
                )
                Output(FLOATING_POINT, "output", description=f"batch, channels, {NAMES[rank]} of the windows")
                Arg(INT, "kernel_shape", count=AtLeast(rank), description="The window's size, per spatial axis")
                use_mixin(WINDOWS[rank])
                Arg(
                    BOOLEAN,
                    "ceil_mode",
                    default=False,
                    description="Count a last partial window, where it starts inside the input or its "
                    "padding before (ONNX's ceil_mode)",
                )
                extra = {}
                if kind == "avg":
                    Arg(
                        BOOLEAN,
                        "count_include_pad",
                        default=False,
                        description="Count the window's elements in the padding too (as zeros)",
                    )
                    extra = {"count_include_pad": "count_include_pad"}
                if kind == "lp":
                    Arg(INT, "p", default=2, description="The norm's order")
                    extra = {"p": "p"}
                Einsum(
                    f"n,c,{axes}=>n,c,{','.join(labels)}",
                    combine={"max": "max", "avg": "mean", "lp": "lp"}[kind],
                    kernel_shape="kernel_shape",
                    strides="strides",
                    dilations="dilations",
                    pads="pads",
                    auto_pad="auto_pad",
                    ceil_mode="ceil_mode",
                    **extra,
                )
                Doc(
                    Language.ANY,
                    DocScope.ALL,
                    f"""
                    {rank}-D pooling, as ONNX's {onnx} computes it: {what}. A window starts every
                    stride elements and reads every dilation-th element of the input, which the
                    padding extends before and after.
                    """,
                )

    #: The global pools: ONNX's operator, NNEF's reduction over the spatial axes, what each gives.
    GLOBAL_POOLS = {
        "max": ("GlobalMaxPool", "max_reduce", "the largest element of each channel's whole window"),
        "avg": ("GlobalAveragePool", "mean_reduce", "the mean of each channel's whole window"),
        "lp": ("GlobalLpPool", None, "the Lp norm of each channel's whole window, (sum of |x|^p)^(1/p)"),
    }
    for kind, (onnx, nnef, what) in GLOBAL_POOLS.items():
        for rank, labels in SPATIAL.items():
            taps = TAPS[rank]
            axes = ",".join(f"{label}+{k}" for label, k in zip(labels, taps))
            with Op(f"global_{kind}_pooling{rank}d") as op:
                op.display_path = "/CNN/Pooling"
                op.onnx = onnx
                if nnef is not None:
                    op.nnef = nnef
                    op.unlike_nnef = (
                        f"NNEF's {nnef} takes the axes it reduces; this op reduces the spatial axes, "
                        f"{', '.join(str(2 + i) for i in range(rank))}"
                    )
                Input(
                    FLOATING_POINT,
                    "x",
                    description=f"The input: batch, channels, {NAMES[rank]} (NC{'DHW'[-rank:]})",
                )
                Output(
                    FLOATING_POINT,
                    "output",
                    description=f"batch, channels, then {rank} axes of size 1",
                )
                extra = {}
                if kind == "lp":
                    Arg(INT, "p", default=2, description="The norm's order")
                    extra = {"p": "p"}
                Einsum(
                    f"n,c,{axes}=>n,c,{','.join(labels)}",
                    combine={"max": "max", "avg": "mean", "lp": "lp"}[kind],
                    whole=True,
                    **extra,
                )
                Doc(
                    Language.ANY,
                    DocScope.ALL,
                    f"""
                    Global {rank}-D pooling, as ONNX's {onnx} computes it: {what}, the window
                    spanning every spatial axis. The result keeps the spatial axes, each of size 1.
                    """,
                )

    #: The data layout of the image layouts (block moves, upsampling): ND4J offers both.
    with Mixin("images") as IMAGES:
        Arg(
            ENUM,
            "data_format",
            possible_values=["NCHW", "NHWC"],
            default="NCHW",
            description="NCHW: channels before the spatial axes (ONNX's); NHWC: after them",
        )

    #: What every block move (depth and batch) takes and gives.
    with Mixin("blocks") as BLOCKS:
        Input(NDARRAY, "x", description="The input: batch, channels, height, width (or as data_format says)")
        Output(NDARRAY, "output", description="The moved elements, with the type of x")
        Arg(INT, "block_size", description="The block's size along each spatial axis")

    #: The block moves, by ND4J's (and TensorFlow's) name: ONNX's operator, and what each does.
    BLOCK_MOVES = {
        "space_to_depth": (
            "SpaceToDepth",
            "moves each block_size x block_size block of the spatial axes into the channels: "
            "the output's channel (row * block_size + column) * C + c (DCR) or "
            "(c * block_size + row) * block_size + column (CRD) holds channel c of the block's "
            "element at that row and column",
        ),
        "depth_to_space": (
            "DepthToSpace",
            "undoes space_to_depth of the same mode: the channels become block_size x "
            "block_size blocks of the spatial axes",
        ),
    }
    #: Each block move's element, channels first: c is a channel of x (space_to_depth) or of the
    #: output (depth_to_space), r and s a row and a column in the block.
    BLOCK_FORMULAS = {
        "space_to_depth": r"\mathrm{output}_{n,\,(r b + s) C + c,\,h,\,w} = x_{n,\,c,\,h b + r,\,w b + s}",
        "depth_to_space": r"\mathrm{output}_{n,\,c,\,h b + r,\,w b + s} = x_{n,\,(r b + s) C + c,\,h,\,w}",
    }
    for name, (onnx, what) in BLOCK_MOVES.items():
        with Op(name) as op:
            op.formula = (
                BLOCK_FORMULAS[name],
                r"\text{DCR; in CRD the channel is $(c b + r) b + s$. $b$ is block\_size, $C$ the "
                r"channels of the side with fewer, $0 \leq r, s < b$; NHWC: the same, channels last}",
            )
            op.display_path = "/CNN/Layout"
            op.onnx = onnx
            op.unlike_onnx = "takes a data_format too (NHWC: TensorFlow's layout, which ND4J offers)"
            use_mixin(BLOCKS)
            Arg(
                ENUM,
                "mode",
                possible_values=["DCR", "CRD"],
                default="DCR",
                description="The channels' order: DCR, the block's position outermost (depth, "
                "column, row); CRD, innermost (ONNX's modes)",
            )
            use_mixin(IMAGES)
            Layout(name)
            Doc(
                Language.ANY,
                DocScope.ALL,
                f"""
                As ONNX's {onnx} computes it: {what}. No element is computed; x must have rank 4.
                """,
            )

    #: The batch moves (ND4J's and TensorFlow's), channels kept: what each does.
    BATCH_MOVES = {
        "space_to_batch": (
            "spreads each block_size x block_size block of the spatial axes over the batch: "
            "batch (row * block_size + column) * N + n of the output holds, at each position, the "
            "element at that row and column of the block of batch n",
            r"\mathrm{output}_{(r b + s) N + n,\,c,\,h,\,w} = x_{n,\,c,\,h b + r,\,w b + s}",
        ),
        "batch_to_space": (
            "undoes space_to_batch: the batches become block_size x block_size blocks of the "
            "spatial axes",
            r"\mathrm{output}_{n,\,c,\,h b + r,\,w b + s} = x_{(r b + s) N + n,\,c,\,h,\,w}",
        ),
    }
    for name, (what, formula) in BATCH_MOVES.items():
        with Op(name) as op:
            op.formula = (
                formula,
                r"\text{$b$ is block\_size, $N$ the batch of the side with fewer, $0 \leq r, s < b$; "
                r"NHWC: the same, channels last}",
            )
            op.display_path = "/CNN/Layout"
            use_mixin(BLOCKS)
            use_mixin(IMAGES)
            Layout(name)
            Doc(
                Language.ANY,
                DocScope.ALL,
                f"""
                As TensorFlow's and ND4J's {name} compute it with no paddings or crops (pad
                first with nn.pad, crop after with base.slice): {what}. No element is computed;
                x must have rank 4.
                """,
            )

    with Op("upsampling2d") as op:
        op.display_path = "/CNN/Layout"
        op.formula = (
            r"\mathrm{output}_{n,\,c,\,h,\,w} = x_{n,\,c,\,\lfloor h / s_h \rfloor,\,\lfloor w / s_w \rfloor}",
            r"\text{$s_h$, $s_w$: scale\_h, scale\_w; NHWC: the same, channels last}",
        )
        Input(NDARRAY, "x", description="The input: batch, channels, height, width (or as data_format says)")
        Output(NDARRAY, "output", description="x with each element repeated, with the type of x")
        Arg(INT, "scale_h", description="How many times each row is repeated")
        Arg(INT, "scale_w", description="How many times each column is repeated")
        use_mixin(IMAGES)
        Layout("upsample")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Nearest-neighbour upsampling by whole factors, as ND4J's upsampling2d computes it:
            each element of x is repeated scale_h times along the height and scale_w times along
            the width. No element is computed; x must have rank 4. ONNX's Resize computes the
            same with mode nearest and scales (1, 1, scale_h, scale_w).
            """,
        )
