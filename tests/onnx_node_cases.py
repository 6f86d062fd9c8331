"""ONNX's own backend node tests, through the opforge package's C backend (issue 21).

Run by the installed package's Python (with the ``onnx`` package): ``python onnx_node_cases.py
ops.json``, where ops.json maps each ONNX operator an op declares (``op.onnx``) to the package
functions of those ops (``"math.add"``). Every single-node test case of the ``onnx`` package for
such an operator is called through the matching function with ONNX's inputs and attributes, as
ONNX's calling convention reads them (the adapters below), on the C backend, and its outputs are
compared with ONNX's expected ones (dtype, shape, and values within the case's rtol and atol).
Prints one JSON object: every case with "pass", or why it fails or what opforge lacks.
"""

from __future__ import annotations

import importlib
import json
import sys
import warnings
from typing import Any, Callable

import numpy as np
from onnx import TensorProto, helper, numpy_helper
from onnx.backend.test.case.node import collect_testcases

OPS: dict[str, list[str]] = json.loads(open(sys.argv[1]).read())


class Lacks(Exception):
    """An ONNX attribute or input form the opforge op has no counterpart for."""


def fn(qualified: str) -> Callable[..., Any]:
    module, _, name = qualified.partition(".")
    found = importlib.import_module(f"opforge.{module}")
    return getattr(found, name, None) or getattr(found, name + "_")


def only(attrs: dict[str, Any], **defaults: Any) -> None:
    """Refuse an attribute with a value other than the one the opforge op computes."""
    for name, value in attrs.items():
        if name not in defaults or value != defaults[name]:
            raise Lacks(f"attribute {name}={value!r}")


def ints(value: Any) -> list[int]:
    return [int(v) for v in np.asarray(value).reshape(-1)]


def elementwise(op: str) -> Callable[..., Any]:
    def call(ins: list[Any], attrs: dict[str, Any]) -> Any:
        only(attrs)
        return fn(op)(*ins)
    return call


def reduction(op: str) -> Callable[..., Any]:
    def call(ins: list[Any], attrs: dict[str, Any]) -> Any:
        keep = bool(attrs.pop("keepdims", 1))
        noop = bool(attrs.pop("noop_with_empty_axes", 0))
        axes = attrs.pop("axes", None)
        if len(ins) > 1 and ins[1] is not None:
            axes = ints(ins[1])
        only(attrs)
        axis = tuple(axes) if axes else (() if noop else None)
        return fn(op)(ins[0], axis, keepdims=keep)
    return call


def arg_reduction(op: str) -> Callable[..., Any]:
    def call(ins: list[Any], attrs: dict[str, Any]) -> Any:
        axis, keep = attrs.pop("axis", 0), bool(attrs.pop("keepdims", 1))
        last = bool(attrs.pop("select_last_index", 0))
        only(attrs)
        return fn(op)(ins[0], axis, keepdims=keep, select_last_index=last)
    return call


def variadic(pairwise: str, merged: str) -> Callable[..., Any]:
    """Two inputs (which broadcast) to the pairwise op, any other number to the merge."""
    def call(ins: list[Any], attrs: dict[str, Any]) -> Any:
        only(attrs)
        if len(ins) == 2:
            return fn(pairwise)(*ins)
        return fn(merged)(list(ins))
    return call


def merged(op: str) -> Callable[..., Any]:
    def call(ins: list[Any], attrs: dict[str, Any]) -> Any:
        only(attrs)
        return fn(op)(list(ins))
    return call


#: ONNX's narrow types, which the package holds as codes (ml_dtypes' bytes): each one's encoder and
#: decoder, and the args that name the format.
NARROW = {"bfloat16": ("base.encode_bfloat16", "base.decode_bfloat16", {})}


def narrow(dtype: np.dtype) -> tuple[str, str, dict[str, Any]] | None:
    name = np.dtype(dtype).name
    if name in NARROW:
        return NARROW[name]
    if name.startswith(("float8", "float4", "int4", "uint4", "int2", "uint2")):
        return "base.encode_narrow", "base.decode_narrow", {"format": name}
    return None


def cast(ins: list[Any], attrs: dict[str, Any]) -> Any:
    """Plain dtypes through base.cast; a narrow type's codes through its decoder to float32 (which
    holds each value), or its encoder from float32 or float64 (float16 casts to float32 exactly)."""
    to = np.dtype(helper.tensor_dtype_to_np_dtype(attrs.pop("to")))
    saturate, round_mode = bool(attrs.pop("saturate", 1)), attrs.pop("round_mode", b"up")
    round_mode = round_mode.decode() if isinstance(round_mode, bytes) else round_mode
    only(attrs)
    x, source, target = ins[0], narrow(ins[0].dtype), narrow(to)
    if x.dtype.kind not in "biuf" and source is None or to.kind not in "biuf" and target is None:
        raise Lacks(f"cast from {x.dtype} to {to}")
    if source is not None:
        x = fn(source[1])(x.view(np.uint16 if x.dtype.itemsize == 2 else np.uint8), **source[2])
    if target is None:
        return x if x.dtype == to else fn("base.cast")(x, to)
    if x.dtype.kind != "f" or x.dtype.itemsize < 4:
        x = fn("base.cast")(x, np.dtype(np.float32))
    options = dict(target[2])
    if target[0] == "base.encode_narrow":
        options.update(saturate=saturate, round_mode=round_mode if to.name == "float8_e8m0fnu" else "nearest")
    return fn(target[0])(x, **options).view(to)


def split(ins: list[Any], attrs: dict[str, Any]) -> Any:
    axis, n = attrs.pop("axis", 0), attrs.pop("num_outputs")
    only(attrs)
    if len(ins) > 1 and ins[1] is not None:
        parts = ints(ins[1])
        if len(set(parts)) != 1:
            raise Lacks(f"unequal parts {parts}")
        n = len(parts)
    if ins[0].shape[axis] % n:
        raise Lacks(f"{n} parts of {ins[0].shape[axis]} (ONNX's last part is smaller)")
    return fn("base.split")(ins[0], n, axis)


def squeeze(ins: list[Any], attrs: dict[str, Any]) -> Any:
    only(attrs)
    axes = tuple(ints(ins[1])) if len(ins) > 1 and ins[1] is not None else None
    return fn("base.squeeze")(ins[0], axes)


def unsqueeze(ins: list[Any], attrs: dict[str, Any]) -> Any:
    only(attrs)
    return fn("base.expand_dims")(ins[0], tuple(ints(ins[1])))


def slice_(ins: list[Any], attrs: dict[str, Any]) -> Any:
    only(attrs)
    x, starts, ends = ins[0], ints(ins[1]), ints(ins[2])
    axes = ints(ins[3]) if len(ins) > 3 and ins[3] is not None else list(range(len(starts)))
    steps = ints(ins[4]) if len(ins) > 4 and ins[4] is not None else [1] * len(starts)
    begin, end, strides = [0] * x.ndim, list(x.shape), [1] * x.ndim
    for a, s, e, st in zip(axes, starts, ends, steps):
        begin[a], end[a], strides[a] = s, e, st
    return fn("base.strided_slice")(x, begin, end, strides)


def renamed(op: str, **renames: str) -> Callable[..., Any]:
    """An op whose ONNX attributes are its args under other names (``onnx_name="arg"``)."""
    def call(ins: list[Any], attrs: dict[str, Any]) -> Any:
        kwargs = {}
        for name, value in attrs.items():
            if name not in renames:
                raise Lacks(f"attribute {name}={value!r}")
            kwargs[renames[name]] = value.decode() if isinstance(value, bytes) else value
        return fn(op)(*[i for i in ins if i is not None], **kwargs)
    return call


def fixed(op: str, **defaults: Any) -> Callable[..., Any]:
    """An op computing ONNX's operator with these attribute values only."""
    def call(ins: list[Any], attrs: dict[str, Any]) -> Any:
        only(attrs, **defaults)
        return fn(op)(*ins)
    return call


def mod(ins: list[Any], attrs: dict[str, Any]) -> Any:
    return fn("math.fmod" if attrs.pop("fmod", 0) else "math.mod")(*ins)


def bit_shift(ins: list[Any], attrs: dict[str, Any]) -> Any:
    return fn("bitwise.left_shift" if attrs.pop("direction") == b"LEFT" else "bitwise.right_shift")(*ins)


def clip(ins: list[Any], attrs: dict[str, Any]) -> Any:
    only(attrs)
    x = ins[0]
    info = np.finfo(x.dtype) if x.dtype.kind == "f" else np.iinfo(x.dtype)
    low = ins[1] if len(ins) > 1 and ins[1] is not None and ins[1].size else -np.inf if x.dtype.kind == "f" else info.min
    high = ins[2] if len(ins) > 2 and ins[2] is not None and ins[2].size else np.inf if x.dtype.kind == "f" else info.max
    return fn("math.clip")(x, np.asarray(low, x.dtype), np.asarray(high, x.dtype))


def cumsum(ins: list[Any], attrs: dict[str, Any]) -> Any:
    exclusive, reverse = bool(attrs.pop("exclusive", 0)), bool(attrs.pop("reverse", 0))
    only(attrs)
    return fn("math.cumsum")(ins[0], int(np.asarray(ins[1]).reshape(-1)[0]), exclusive, reverse)


def gather(ins: list[Any], attrs: dict[str, Any]) -> Any:
    axis = attrs.pop("axis", 0)
    only(attrs)
    return fn("base.gather")(ins[0], ins[1].astype(np.int64), axis)


def shape(ins: list[Any], attrs: dict[str, Any]) -> Any:
    start, end = attrs.pop("start", 0), attrs.pop("end", None)
    only(attrs)
    return fn("base.shape_of")(ins[0])[start:end]


def transpose(ins: list[Any], attrs: dict[str, Any]) -> Any:
    perm = attrs.pop("perm", None)
    only(attrs)
    return fn("base.permute")(ins[0], list(perm) if perm is not None else list(range(ins[0].ndim))[::-1])


def is_inf(ins: list[Any], attrs: dict[str, Any]) -> Any:
    negative, positive = attrs.pop("detect_negative", 1), attrs.pop("detect_positive", 1)
    only(attrs)
    if not (negative or positive):
        raise Lacks("detect_negative=0 with detect_positive=0")
    return fn("math.is_infinite" if negative and positive else "math.isposinf" if positive else "math.isneginf")(ins[0])


def softmax(op: str) -> Callable[..., Any]:
    def call(ins: list[Any], attrs: dict[str, Any]) -> Any:
        axis = attrs.pop("axis", -1)
        only(attrs)
        return fn(op)(ins[0], axis)
    return call


def normalization(op: str) -> Callable[..., Any]:
    def call(ins: list[Any], attrs: dict[str, Any]) -> Any:
        epsilon, axis = attrs.pop("epsilon", 1e-5), attrs.pop("axis", -1)
        only(attrs, stash_type=1)
        if ins[0].ndim and any(p.shape != ins[0].shape[axis:] for p in ins[1:] if p is not None):
            raise Lacks(f"parameters of shapes {[p.shape for p in ins[1:] if p is not None]}, which broadcast into "
                        f"the normalized axes {ins[0].shape[axis:]} (the op takes those axes' shape)")
        y = fn(op)(*[i for i in ins if i is not None], axis=axis, epsilon=epsilon)
        if op != "nn.layer_norm":
            return y
        # (LayerNormalization's further outputs, the mean and 1 / sqrt(variance + epsilon) over the
        # normalized axes, kept: math's reductions, as ONNX's function body computes them)
        axes = tuple(range(axis % max(ins[0].ndim, 1), ins[0].ndim))
        mean = fn("math.mean")(ins[0], axes, keepdims=True)
        variance = fn("math.variance")(ins[0], axes, keepdims=True)
        return y, mean, fn("math.rsqrt")(fn("math.add")(variance, np.asarray(epsilon, variance.dtype)))
    return call


def top_k(ins: list[Any], attrs: dict[str, Any]) -> Any:
    axis = int(attrs.pop("axis", -1))
    if axis % max(ins[0].ndim, 1) != ins[0].ndim - 1:  # (the op's axis is the last: ONNX's -1 and its equals)
        raise Lacks(f"attribute axis={axis}")
    largest = bool(attrs.pop("largest", 1))
    only(attrs, sorted=1)
    values, indices = fn("nn.top_k")(ins[0], int(np.asarray(ins[1]).reshape(-1)[0]), largest)
    return values, indices


def gemm(ins: list[Any], attrs: dict[str, Any]) -> Any:
    """nn.linear where Gemm is x @ w + b with a bias per column; else ONNX's definition step by
    step: the transposes, the product, times alpha, plus beta * C broadcast into the result."""
    alpha, beta = float(attrs.pop("alpha", 1.0)), float(attrs.pop("beta", 1.0))
    trans_a, trans_b = bool(attrs.pop("transA", 0)), bool(attrs.pop("transB", 0))
    only(attrs)
    a, b, c = ins[0], ins[1], ins[2] if len(ins) > 2 else None
    if (alpha, beta, trans_a, trans_b) == (1.0, 1.0, False, False) and c is not None and c.shape == (b.shape[1],):
        return fn("nn.linear")(a, b, c)
    a = fn("math.matrix_transpose")(a) if trans_a else a
    b = fn("math.matrix_transpose")(b) if trans_b else b
    y = fn("math.mul")(fn("math.matmul")(a, b), np.asarray(alpha, a.dtype))
    if c is None or beta == 0:
        return y
    return fn("math.add")(y, fn("math.mul")(c, np.asarray(beta, c.dtype)))


def pad(ins: list[Any], attrs: dict[str, Any]) -> Any:
    mode = attrs.pop("mode", b"constant").decode()
    only(attrs)
    pads, n = ints(ins[1]), ins[0].ndim
    if len(ins) > 3 and ins[3] is not None:  # (pads for the axes listed, every other axis unpadded)
        listed, full = [a % n for a in ints(ins[3])], [0] * (2 * n)
        for k, a in enumerate(listed):
            full[a], full[a + n] = pads[k], pads[k + len(listed)]
        pads = full
    value = float(ins[2]) if len(ins) > 2 and ins[2] is not None and ins[2].size else 0.0
    return fn("nn.pad")(ins[0], [p for k in range(n) for p in (pads[k], pads[k + n])], mode, value)


def dropout(ins: list[Any], attrs: dict[str, Any]) -> Any:
    """ONNX's Dropout without its mask: the ratio an input (an attribute before opset 12), training
    mode an input, false by default (the identity); the seed the key of opforge's stream."""
    seed = int(attrs.pop("seed", 0))
    ratio = float(attrs.pop("ratio", 0.5))
    only(attrs)
    if len(ins) > 1 and ins[1] is not None:
        ratio = float(np.asarray(ins[1]).reshape(-1)[0])
    training = bool(np.asarray(ins[2]).reshape(-1)[0]) if len(ins) > 2 and ins[2] is not None else False
    if training and ratio > 0:
        raise Lacks("drops drawn from ONNX's random generator (opforge's stream drops other elements)")
    return fn("nn.dropout")(ins[0], ratio, seed, training=training)


def attention(ins: list[Any], attrs: dict[str, Any]) -> Any:
    """ONNX's Attention as its function body computes it, around nn.dot_product_attention or, with a
    mask, nn.masked_dot_product_attention. 3-D inputs hold the heads side by side in their last axis
    (q_num_heads, kv_num_heads): split into a heads axis before and joined after. A cache
    (past_key, past_value) goes before the keys and values (base.concat), which are also the
    present_key and present_value outputs, and the queries stand after it (offset); key heads
    fewer than the query heads serve a group each (base.tile); a boolean mask is where(mask, 0,
    -inf) (base.where), a short one padded with -inf (nn.pad) and broadcast into the scores
    (base.tile); nonpad_kv_seqlen gives each batch its first keys, the queries standing at their
    end. The qk_matmul_output output is nn.attention_scores at the stage its mode names (with a mask
    of zeros where none is given)."""
    causal = bool(attrs.pop("is_causal", 0))
    heads, kv_heads = attrs.pop("q_num_heads", None), attrs.pop("kv_num_heads", None)
    scale, softcap = attrs.pop("scale", None), float(attrs.pop("softcap", 0.0))
    left, right = int(attrs.pop("left_window_size", -1)), int(attrs.pop("right_window_size", -1))
    attrs.pop("softmax_precision", None)  # (the op's softmax is in double, finer than any)
    stage = ("product", "capped", "masked", "softmax")[int(attrs.pop("qk_matmul_output_mode", 0))]
    only(attrs)
    q, k, v, mask, past_key, past_value, nonpad = (list(ins) + [None] * 7)[:7]
    if q.ndim == 3:
        def split(t: Any, n: int) -> Any:
            return t.reshape(t.shape[0], t.shape[1], n, -1).transpose(0, 2, 1, 3)
        q, k, v = split(q, heads), split(k, kv_heads), split(v, kv_heads)
    offset = 0
    if past_key is not None:
        k, v = fn("base.concat")([past_key, k], 2), fn("base.concat")([past_value, v], 2)
        offset = past_key.shape[2]
    present = (k, v)
    if q.shape[1] != k.shape[1]:  # (ONNX repeats each key head for its group of query heads)
        group = [1, 1, q.shape[1] // k.shape[1], 1, 1]
        k, v = (fn("base.tile")(t.reshape(t.shape[0], t.shape[1], 1, *t.shape[2:]), group).reshape(
            t.shape[0], q.shape[1], *t.shape[2:]) for t in (k, v))
    scores = (q.shape[0], q.shape[1], q.shape[2], k.shape[2])
    if mask is not None:
        if mask.dtype == np.bool_:
            mask = fn("base.where")(mask, np.asarray(0, q.dtype), np.asarray(-np.inf, q.dtype))
        if mask.shape[-1] < scores[3]:
            padding = [0, 0] * (mask.ndim - 1) + [0, scores[3] - mask.shape[-1]]
            mask = fn("nn.pad")(mask, padding, "constant", -np.inf)
        mask = mask.reshape((1,) * (4 - mask.ndim) + mask.shape)
        mask = fn("base.tile")(mask, [n // m for n, m in zip(scores, mask.shape)])
    options = {"causal": causal, "softcap": softcap, "left_window": left, "right_window": right}
    if scale is not None:  # (ONNX's scale replaces 1 / sqrt(d))
        options.update(scaled=False, scale=float(scale))

    def attend(q: Any, k: Any, v: Any, mask: Any, offset: int) -> Any:
        if mask is None:
            return fn("nn.dot_product_attention")(q, k, v, offset=offset, **options)
        return fn("nn.masked_dot_product_attention")(q, k, v, mask, offset=offset, **options)

    scored = []
    if nonpad is None:
        y = attend(q, k, v, mask, offset)
        zeros = fn("base.fill")(list(scores), 0.0, q.dtype) if mask is None else mask
        scored = [fn("nn.attention_scores")(q, k, zeros, offset=offset, stage=stage, **options)]
    else:  # (batch by batch: its keys up to its length, the queries at their end)
        lengths = ints(nonpad)
        y = fn("base.concat")([attend(q[b:b + 1], k[b:b + 1, :, :n], v[b:b + 1, :, :n],
                                      None if mask is None else mask[b:b + 1, :, :, :n], n - q.shape[2])
                               for b, n in enumerate(lengths)], 0)
    if ins[0].ndim == 3:
        y = y.transpose(0, 2, 1, 3).reshape(y.shape[0], y.shape[2], -1)
    return (y, *present, *scored)


def quantize_linear(ins: list[Any], attrs: dict[str, Any]) -> Any:
    """ONNX's QuantizeLinear as math.quantize_linear (per tensor: the op refuses other scales). A
    float8 or float4 zero point's code decodes (base.decode_narrow) to a float32 one, with which
    the op gives x / scale + zero point, and base.encode_narrow rounds and saturates that, as
    ONNX's cast to the type does. Without a zero point: 0 of output_dtype (uint8 by default)."""
    attrs.pop("axis", None), attrs.pop("block_size", None)
    saturate = bool(attrs.pop("saturate", 1))
    to = attrs.pop("output_dtype", 0)
    only(attrs)
    x, scale = ins[0], ins[1]
    zero = ins[2] if len(ins) > 2 and ins[2] is not None else np.zeros(
        (), helper.tensor_dtype_to_np_dtype(to) if to else np.uint8)
    coded = narrow(zero.dtype)
    if coded is None:
        return fn("math.quantize_linear")(x, scale, zero)
    if not zero.dtype.name.startswith("float"):
        raise Lacks(f"{zero.dtype} quantization (the package's {zero.dtype} codes take x truncated, ONNX's "
                    "rounded and saturated)")
    decoded = fn(coded[1])(zero.view(np.uint8), **coded[2])
    y = fn("math.quantize_linear")(x, scale, decoded)
    return fn(coded[0])(y, **coded[2], saturate=saturate).view(zero.dtype)


def dequantize_linear(ins: list[Any], attrs: dict[str, Any]) -> Any:
    """ONNX's DequantizeLinear as math.dequantize_linear (per tensor: the op refuses other scales);
    a narrow type's codes (and zero point) decode to float32 first (base.decode_narrow)."""
    attrs.pop("axis", None), attrs.pop("block_size", None)
    only(attrs, output_dtype=0)
    x, scale = ins[0], ins[1]
    zero = ins[2] if len(ins) > 2 and ins[2] is not None else np.zeros((), x.dtype)
    coded = narrow(x.dtype)
    if coded is not None:
        x, zero = (fn(coded[1])(t.view(np.uint8), **coded[2]) for t in (x, zero))
    return fn("math.dequantize_linear")(x, scale, zero)


def constant_of_shape(ins: list[Any], attrs: dict[str, Any]) -> Any:
    value = numpy_helper.to_array(attrs["value"]) if "value" in attrs else np.zeros(1, np.float32)
    return fn("base.fill")(ints(ins[0]), float(value.reshape(-1)[0]), value.dtype)


def range_(ins: list[Any], attrs: dict[str, Any]) -> Any:
    only(attrs)
    start, limit, delta = (np.asarray(i).reshape(()) for i in ins)
    return fn("base.range")(start.item(), limit.item(), delta.item(), start.dtype)


def reverse_sequence(ins: list[Any], attrs: dict[str, Any]) -> Any:
    batch, time = attrs.pop("batch_axis", 1), attrs.pop("time_axis", 0)
    only(attrs)
    return fn("base.reverse_sequence")(ins[0], ins[1], seq_axis=time, batch_axis=batch)


def scatter_nd(ins: list[Any], attrs: dict[str, Any]) -> Any:
    reduction = attrs.pop("reduction", b"none").decode()
    only(attrs)
    name = {"none": "update", "add": "add", "mul": "mul", "max": "max", "min": "min"}[reduction]
    if ins[1].shape[-1] != 1:
        raise Lacks(f"indices of {ins[1].shape[-1]} coordinates (the op's index the first axis)")
    return fn(f"base.scatter_{name}")(ins[0], ins[1][..., 0], ins[2])


def with_list(op: str, **defaults: Any) -> Callable[..., Any]:
    """An op taking ONNX's second input (a shape, repeats) as a list arg."""
    def call(ins: list[Any], attrs: dict[str, Any]) -> Any:
        only(attrs, **defaults)
        return fn(op)(ins[0], ints(ins[1]))
    return call


def power(ins: list[Any], attrs: dict[str, Any]) -> Any:
    """ONNX's Pow computes in the base's type (T), whatever the exponent's (T1)."""
    only(attrs)
    return fn("math.pow")(ins[0], ins[1].astype(ins[0].dtype))


def reshape(ins: list[Any], attrs: dict[str, Any]) -> Any:
    """ONNX's Reshape copies an input dimension where the shape says 0, unless allowzero = 1: then
    a 0 is an axis of size 0, as the op (and NumPy) take it."""
    allowzero = attrs.pop("allowzero", 0)
    only(attrs)
    shape = ints(ins[1]) if allowzero else [ins[0].shape[k] if s == 0 else s for k, s in enumerate(ints(ins[1]))]
    return fn("base.reshape")(ins[0], shape)


#: ONNX's operators, each as a call of the opforge op declaring it (by ONNX's calling convention).
def conv(ins: list[Any], attrs: dict[str, Any]) -> Any:
    """ONNX's Conv as cnn.conv1d/2d/3d, by the input's spatial rank; with a group per channel and a
    filter each, as cnn.depthwise_conv2d."""
    x, w = ins[0], ins[1]
    if len(ins) > 2:
        raise Lacks("a bias input")
    kernel = attrs.pop("kernel_shape", None)
    if kernel is not None and ints(kernel) != list(w.shape[2:]):
        raise Lacks(f"kernel_shape {ints(kernel)} other than the weights' {list(w.shape[2:])}")
    kwargs = {name: ints(attrs.pop(name)) for name in ("strides", "dilations", "pads") if name in attrs}
    if "auto_pad" in attrs:
        kwargs["auto_pad"] = attrs.pop("auto_pad").decode()
    group = int(attrs.pop("group", 1))
    only(attrs)
    if group != 1 and (group, x.ndim, w.shape[:2]) == (x.shape[1], 4, (x.shape[1], 1)):  # (a filter per channel)
        return fn("cnn.depthwise_conv2d")(x, w[:, 0], **kwargs)
    if group != 1:
        raise Lacks(f"attribute group={group}")
    return fn(f"cnn.conv{x.ndim - 2}d")(x, w, **kwargs)


def pool(kind: str, **renamed: tuple[str, type]) -> Callable[..., Any]:
    """ONNX's MaxPool, AveragePool or LpPool as cnn.<kind>_pooling1d/2d/3d, by the input's rank."""
    def call(ins: list[Any], attrs: dict[str, Any]) -> Any:
        x = ins[0]
        kwargs: dict[str, Any] = {"kernel_shape": ints(attrs.pop("kernel_shape"))}
        kwargs |= {name: ints(attrs.pop(name)) for name in ("strides", "dilations", "pads") if name in attrs}
        if "auto_pad" in attrs:
            kwargs["auto_pad"] = attrs.pop("auto_pad").decode()
        for onnx_name, (arg, kind_of) in renamed.items():
            if onnx_name in attrs:
                kwargs[arg] = kind_of(attrs.pop(onnx_name))
        if "ceil_mode" in attrs:
            kwargs["ceil_mode"] = bool(attrs.pop("ceil_mode"))
        attrs.pop("storage_order", None)  # (the order of the Indices output, which the op does not give)
        only(attrs)
        return fn(f"cnn.{kind}_pooling{x.ndim - 2}d")(x, **kwargs)
    return call


def global_pool(kind: str) -> Callable[..., Any]:
    """ONNX's GlobalMaxPool, GlobalAveragePool or GlobalLpPool as cnn.global_<kind>_pooling1d/2d/3d,
    by the input's rank."""
    def call(ins: list[Any], attrs: dict[str, Any]) -> Any:
        kwargs = {"p": int(attrs.pop("p"))} if "p" in attrs else {}
        only(attrs)
        return fn(f"cnn.global_{kind}_pooling{ins[0].ndim - 2}d")(ins[0], **kwargs)
    return call


ADAPTERS: dict[str, Callable[[list[Any], dict[str, Any]], Any]] = {
    "ArgMax": arg_reduction("math.argmax"), "ArgMin": arg_reduction("math.argmin"),
    "Max": variadic("math.maximum", "math.merge_max"), "Min": variadic("math.minimum", "math.merge_min"),
    "Sum": merged("math.merge_add"), "Mean": merged("math.merge_avg"),
    "ReduceSum": reduction("math.sum"), "ReduceMean": reduction("math.mean"), "ReduceMax": reduction("math.max"),
    "ReduceMin": reduction("math.min"), "ReduceProd": reduction("math.prod"), "ReduceL1": reduction("math.norm1"),
    "ReduceL2": reduction("math.norm2"), "ReduceLogSumExp": reduction("math.log_sum_exp"),
    "ReduceSumSquare": reduction("math.squared_norm"),
    "Cast": cast, "Split": split, "Squeeze": squeeze, "Unsqueeze": unsqueeze, "Slice": slice_, "Mod": mod,
    "BitShift": bit_shift, "Clip": clip, "CumSum": cumsum, "Gather": gather, "Shape": shape, "Transpose": transpose,
    "IsInf": is_inf, "Softmax": softmax("nn.softmax"), "LogSoftmax": softmax("nn.log_softmax"),
    "LayerNormalization": normalization("nn.layer_norm"), "RMSNormalization": normalization("nn.rms_norm"),
    "TopK": top_k, "Gemm": gemm, "Pad": pad, "Dropout": dropout, "ConstantOfShape": constant_of_shape,
    "Range": range_, "ReverseSequence": reverse_sequence, "ScatterND": scatter_nd,
    "Concat": lambda ins, attrs: fn("base.concat")(list(ins), attrs.get("axis", 0)),
    "Reshape": reshape, "Tile": with_list("base.tile"), "Pow": power,
    "LeakyRelu": renamed("nn.leaky_relu", alpha="alpha"), "Elu": renamed("nn.elu", alpha="alpha"),
    "Gelu": renamed("nn.gelu", approximate="approximate"),
    "Selu": renamed("nn.selu", alpha="alpha", gamma="gamma"),
    "HardSigmoid": renamed("nn.hard_sigmoid", alpha="alpha", beta="beta"),
    "GatherND": fixed("base.gather_nd", batch_dims=0),
    "Attention": attention, "QuantizeLinear": quantize_linear, "DequantizeLinear": dequantize_linear, "Conv": conv, "MaxPool": pool("max"),
    "AveragePool": pool("avg", count_include_pad=("count_include_pad", bool)), "LpPool": pool("lp", p=("p", int)),
    "GlobalMaxPool": global_pool("max"), "GlobalAveragePool": global_pool("avg"),
    "GlobalLpPool": global_pool("lp"),
    "SpaceToDepth": renamed("cnn.space_to_depth", blocksize="block_size", mode="mode"),
    "DepthToSpace": renamed("cnn.depth_to_space", blocksize="block_size", mode="mode"),
}


def array(value: Any) -> Any:
    """A case's input or output as NumPy holds it (some cases give TensorProtos)."""
    return numpy_helper.to_array(value) if isinstance(value, TensorProto) else value


def run(case: Any) -> str:
    node = case.model.graph.node[0]
    given = dict(zip([i.name for i in case.model.graph.input], map(array, case.data_sets[0][0])))
    ins = [given.get(n) if n else None for n in node.input]
    while ins and ins[-1] is None:
        ins.pop()
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    if node.op_type == "Split":  # (without num_outputs, as many parts as the node has outputs)
        attrs.setdefault("num_outputs", len(node.output))
    wanted = [array(w) for w in case.data_sets[0][1]]
    adapter = ADAPTERS.get(node.op_type) or elementwise(OPS[node.op_type][0])
    try:
        with np.errstate(all="ignore"):
            # (bfloat16, which the package holds as codes, computes as float32: decoded before the
            # op, its results encoded after, as a user of the package computes on it; Cast converts
            # codes itself)
            def bf16(i: Any) -> bool:
                return isinstance(i, np.ndarray) and i.dtype.name == "bfloat16"
            coded = node.op_type != "Cast" and any(map(bf16, ins))
            if coded:
                ins = [fn("base.decode_bfloat16")(i.view(np.uint16)) if bf16(i) else i for i in ins]
            got = adapter(ins, attrs)
            if coded:
                got = [fn("base.encode_bfloat16")(g).view(w.dtype) if w.dtype.name == "bfloat16" else g
                       for g, w in zip(got if isinstance(got, (tuple, list)) else [got], wanted)]
    except Lacks as exc:
        return f"lacks: {exc}"
    except (TypeError, ValueError) as exc:
        return f"refused: {type(exc).__name__}: {exc}"
    except Exception as exc:  # (anything else is a failure to look at, never taken for a pass)
        return f"error: {type(exc).__name__}: {exc}"
    got = list(got) if isinstance(got, (tuple, list)) else [got]
    # (ONNX's outputs by position: one the node leaves unnamed is not among the expected ones)
    got = [g for k, g in enumerate(got) if k >= len(node.output) or node.output[k]]
    if len(got) < len(wanted):
        return f"gives {len(got)} outputs, ONNX {len(wanted)}"
    for k, (ours, theirs) in enumerate(zip(got, wanted)):
        ours, theirs = np.asarray(ours), np.asarray(theirs)
        if ours.dtype != theirs.dtype or ours.shape != theirs.shape:
            return f"output {k}: {ours.dtype}{ours.shape}, ONNX {theirs.dtype}{theirs.shape}"
        if ours.dtype.name.startswith(("bfloat16", "float8", "float4")):  # (ml_dtypes' floats: by value)
            ours, theirs = ours.astype(np.float32), theirs.astype(np.float32)
        if ours.dtype.kind in "fc":
            if not np.allclose(ours, theirs, rtol=case.rtol, atol=case.atol, equal_nan=True):
                return f"output {k}: values differ by up to {np.nanmax(np.abs(ours - theirs))}"
        elif not np.array_equal(ours, theirs):
            return f"output {k}: values differ at {np.argwhere(ours != theirs)[:3].tolist()}"
    return "pass"


def main() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = collect_testcases(None)
    said = {}
    for case in cases:
        nodes = case.model.graph.node
        if len(nodes) == 1 and nodes[0].op_type in OPS and case.data_sets:
            said[case.name] = [nodes[0].op_type, run(case)]
    print(json.dumps(said))


if __name__ == "__main__":
    main()
