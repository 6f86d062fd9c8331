# Python twin of quantize.h: ONNX's QuantizeLinear and DequantizeLinear per tensor, in float32.
# pragma IMAGINET_INCLUDES_BEGIN
import numpy as np

# pragma IMAGINET_INCLUDES_END


# pragma IMAGINET_FRAGMENT_BEGIN "per_tensor"
PER_TENSOR = (
    "scale and zero_point must each hold one value (per-tensor quantization; per-axis and "
    "blocked scales are not taken)"
)


def per_tensor(scale, zero_point):
    """The one scale (float32) and zero point, or the ValueError of PER_TENSOR."""
    if scale.size != 1 or zero_point.size != 1:
        raise ValueError(PER_TENSOR)
    return np.float32(scale.reshape(-1)[0]), zero_point.reshape(-1)[0]


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "quantize_linear"
# pragma IMAGINET_DEPENDENCY "quantize.py:per_tensor"
def quantize_linear(x, scale, zero_point, output):
    """round_half_even(x / scale) + zero_point (x / scale a float32 quotient), saturated to the
    zero point's integer dtype, NaN giving the zero point; x / scale + zero_point for a float one."""
    s, zp = per_tensor(scale, zero_point)
    with np.errstate(all="ignore"):
        q = np.asarray(x, np.float32) / s
        if output.dtype.kind == "f":  # (a float zero point: x / scale + zero point, unrounded)
            output[...] = q.astype(output.dtype) + zp
            return
    info = np.iinfo(output.dtype)
    high = float(info.max) + 1.0  # (one past the largest: 2^bits or 2^(bits - 1), exact in float64)
    with np.errstate(all="ignore"):
        r = np.rint(q.astype(np.float64)) + float(zp)
        inside = (r > info.min) & (r < high)
        values = np.where(inside, r, 0.0).astype(output.dtype)  # (exact where inside)
    saturated = np.where(r >= high, info.max, np.where(inside, values, info.min))
    output[...] = np.where(np.isnan(q), zp, saturated)


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "dequantize_linear"
# pragma IMAGINET_DEPENDENCY "quantize.py:per_tensor"
def dequantize_linear(x, scale, zero_point, output):
    """(x - zero_point) * scale in float32 (x and the zero point as float32 first)."""
    s, zp = per_tensor(scale, zero_point)
    with np.errstate(all="ignore"):
        output[...] = (np.asarray(x).astype(np.float32) - np.float32(zp)) * s


# pragma IMAGINET_FRAGMENT_END
