# Python twin of narrow.h: the same formats (in the format arg's order) and rules, on NumPy arrays.
# pragma IMAGINET_INCLUDES_BEGIN
import numpy as np

# pragma IMAGINET_INCLUDES_END


# pragma IMAGINET_FRAGMENT_BEGIN "narrow_formats"
# A float format: exponent and mantissa bits, bias, the magnitude codes of its largest finite value
# and of infinity (0: none), its NaN's code (0: none), whether NaN takes the sign, whether -0 exists.
NARROW_FLOATS = {
    "float8_e4m3fn": (4, 3, 7, 0x7E, 0, 0x7F, True, True),
    "float8_e4m3fnuz": (4, 3, 8, 0x7F, 0, 0x80, False, False),
    "float8_e5m2": (5, 2, 15, 0x7B, 0x7C, 0x7E, True, True),
    "float8_e5m2fnuz": (5, 2, 16, 0x7F, 0, 0x80, False, False),
    "float4_e2m1fn": (2, 1, 1, 0x7, 0, 0, False, True),
    "bfloat16": (8, 7, 127, 0x7F7F, 0x7F80, 0x7FC0, True, True),
}
# The integers: bits, signed.
NARROW_INTS = {"int4": (4, True), "uint4": (4, False), "int2": (2, True), "uint2": (2, False)}


def narrow_float_codes(x, spec, saturate):
    """narrow_float_code of every element (float64 in, int64 codes out)."""
    e_bits, m, bias, largest, infinity, nan, nan_signed, signed_zero = spec
    sign = 1 << (e_bits + m)
    a = np.abs(x)
    finite = np.isfinite(a) & (a != 0)
    _, e = np.frexp(np.where(finite, a, 1.0))
    u = np.maximum(e.astype(np.int64) - 1, 1 - bias)
    n = np.ldexp(np.where(finite, a, 0.0), (m - u).astype(np.int32))
    whole = np.floor(n)
    part = n - whole
    r = whole + ((part > 0.5) | ((part == 0.5) & (np.fmod(whole, 2.0) != 0)))
    carry = r >= 2.0 ** (m + 1)
    u = np.where(carry, u + 1, u)
    r = np.where(carry, 2.0**m, r)
    field = np.where(r >= 2.0**m, u + bias, 0)
    fits = field < (1 << e_bits)
    mag = np.where(fits, (np.minimum(field, (1 << e_bits) - 1) << m) | (r.astype(np.int64) & ((1 << m) - 1)), largest + 1)
    mag = np.where(finite, mag, np.where(np.isinf(a), largest + 1, 0))
    over = mag > largest
    s = np.where(np.signbit(x), sign, 0)
    if saturate or (infinity == 0 and nan == 0):
        mag = np.where(over, largest, mag)
        codes = mag | np.where((mag == 0) & (not signed_zero), 0, s)
    elif infinity != 0:
        mag = np.where(over, infinity, mag)
        codes = mag | np.where((mag == 0) & (not signed_zero), 0, s)
    else:
        codes = np.where(over, nan | (s if nan_signed else 0), mag | np.where((mag == 0) & (not signed_zero), 0, s))
    return np.where(np.isnan(x), nan | (s if nan_signed else 0), codes)


def narrow_e8m0_codes(x, saturate, round_mode):
    """ONNX's float8_e8m0fnu: x's float32 exponent, rounded on its mantissa bits."""
    bits = x.astype(np.float32).view(np.uint32).astype(np.int64)
    exponent = (bits >> 23) & 0xFF
    if round_mode == "nearest":
        up = ((bits & 0x400000) != 0) & (((bits & 0x200000) != 0) | ((bits & 0x1FFFFF) != 0) | (exponent > 0))
    elif round_mode == "up":
        up = (bits & 0x7FFFFF) != 0
    else:
        up = np.zeros(bits.shape, bool)
    if saturate:
        up &= exponent != 0xFE
    return np.where(exponent == 0xFF, 0xFF, (exponent + up) & 0xFF)


def narrow_float_values(codes, spec):
    """narrow_float_value of every code (int64 in, float64 out)."""
    e_bits, m, bias, largest, infinity, nan, nan_signed, signed_zero = spec
    sign = 1 << (e_bits + m)
    mag = codes & (sign - 1)
    field, fraction = mag >> m, mag & ((1 << m) - 1)
    value = np.where(field == 0, np.ldexp(fraction.astype(np.float64), 1 - bias - m),
                     np.ldexp((fraction | (1 << m)).astype(np.float64), (field - bias - m).astype(np.int32)))
    value = np.where(mag > largest, np.inf, value)
    value = np.where((codes & sign) != 0, -value, value)
    is_nan = ((mag > largest) & (mag != infinity)) | ((codes == sign) & (not signed_zero))
    return np.where(is_nan, np.nan, value)


def narrow_codes(x, format, saturate, round_mode):
    """narrow_code of every element of x (an array of float64)."""
    if format == "float8_e8m0fnu":
        return narrow_e8m0_codes(x, saturate, round_mode)
    if format in NARROW_INTS:
        bits = NARROW_INTS[format][0]
        inside = np.abs(x) < 2.0**62
        return np.where(inside, np.trunc(np.where(inside, x, 0.0)).astype(np.int64) & ((1 << bits) - 1), 0)
    return narrow_float_codes(x, NARROW_FLOATS[format], saturate)


def narrow_values(codes, format):
    """narrow_value of every code (int64 in, float64 out)."""
    if format == "float8_e8m0fnu":
        return np.where(codes == 0xFF, np.nan, np.ldexp(1.0, (codes - 127).astype(np.int32)))
    if format in NARROW_INTS:
        bits, signed = NARROW_INTS[format]
        return np.where(signed & (codes >= 1 << (bits - 1)), codes - (1 << bits), codes).astype(np.float64)
    return narrow_float_values(codes, NARROW_FLOATS[format])


def narrow_count(format):
    """The largest code of format plus one."""
    if format in NARROW_INTS:
        return 1 << NARROW_INTS[format][0]
    if format == "float8_e8m0fnu":
        return 256
    e_bits, m = NARROW_FLOATS[format][:2]
    return 2 << (e_bits + m)


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "encode_narrow"
# pragma IMAGINET_DEPENDENCY "narrow.py:narrow_formats"
def encode_narrow(x, format, saturate, round_mode, codes):
    """Each element's code; round_mode other than nearest is float8_e8m0fnu's only."""
    if round_mode != "nearest" and format != "float8_e8m0fnu":
        raise ValueError("round_mode up or down is float8_e8m0fnu's only: the other formats round to nearest")
    with np.errstate(all="ignore"):
        codes[...] = narrow_codes(np.asarray(x, np.float64), format, saturate, round_mode)


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "decode_narrow"
# pragma IMAGINET_DEPENDENCY "narrow.py:narrow_formats"
def decode_narrow(codes, format, output):
    """Each code's value; a code wider than the format is refused."""
    wide = codes.astype(np.int64)
    if wide.size and wide.max() >= narrow_count(format):
        raise ValueError("a code lies outside the format's codes (0 to 2^bits - 1)")
    output[...] = narrow_values(wide, format)


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "encode_bfloat16"
# pragma IMAGINET_DEPENDENCY "narrow.py:narrow_formats"
def encode_bfloat16(x, codes):
    """Each element's bfloat16 code: the nearest value, ties to even; NaN a quiet NaN of its sign."""
    with np.errstate(all="ignore"):
        codes[...] = narrow_float_codes(np.asarray(x, np.float64), NARROW_FLOATS["bfloat16"], False)


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "decode_bfloat16"
# pragma IMAGINET_DEPENDENCY "narrow.py:narrow_formats"
def decode_bfloat16(codes, output):
    """Each bfloat16 code's value."""
    output[...] = narrow_float_values(codes.astype(np.int64), NARROW_FLOATS["bfloat16"])


# pragma IMAGINET_FRAGMENT_END
