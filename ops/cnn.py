"""Convolutions: einsums over OCANNL's convolution axes (ADR 0061)."""

from dsl import *

#: The labels of each rank's spatial axes: the output's positions, and the kernel's taps.
SPATIAL = {1: ("q",), 2: ("p", "q"), 3: ("o", "p", "q")}
TAPS = {1: ("k",), 2: ("j", "k"), 3: ("i", "j", "k")}
NAMES = {1: "width", 2: "height, width", 3: "depth, height, width"}

with Namespace("cnn"):
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
            Arg(
                INT,
                "strides",
                count=AtLeast(rank),
                default=[1] * rank,
                description="Elements from one window to the next, per spatial axis",
            )
            Arg(
                INT,
                "dilations",
                count=AtLeast(rank),
                default=[1] * rank,
                description="Elements between the kernel's taps, per spatial axis",
            )
            Arg(
                INT,
                "pads",
                count=AtLeast(2 * rank),
                default=[0] * (2 * rank),
                description="Zeros before each spatial axis, then after each (ONNX's order)",
            )
            Arg(
                ENUM,
                "auto_pad",
                possible_values=["NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"],
                default="NOTSET",
                description="NOTSET: pads as given; SAME_UPPER, SAME_LOWER: the padding that gives "
                "ceil(size / stride) windows, the odd zero after or before; VALID: none",
            )
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
