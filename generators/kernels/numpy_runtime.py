"""NumPy semantics of opforge's scalar functions, Philox and samplers.

This file is copied verbatim into the generated package as ``opforge/_kernels.py``
(the reference implementation imports it as ``_k``) and imported directly by
the tests generator to compute golden vectors, so both use one implementation.
Every function mirrors a C helper of ``opforge_internal.h``.
"""

from __future__ import annotations

import math

import numpy as np

_INFO = {np.dtype(t): np.iinfo(t) for t in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")}
_UNSIGNED = {np.dtype("int8"): np.uint8, np.dtype("int16"): np.uint16, np.dtype("int32"): np.uint32,
             np.dtype("int64"): np.uint64, np.dtype("uint8"): np.uint8,
             np.dtype("uint16"): np.uint16, np.dtype("uint32"): np.uint32, np.dtype("uint64"): np.uint64}


def cast(value, dtype):
    """Convert like C's (T)value for in-range values (a float beyond float32 becomes an
    infinity, as in C, without NumPy's overflow warning)."""
    with np.errstate(over="ignore"):
        return np.asarray(value).astype(dtype, copy=False)


def div(a, b):
    """Integer division truncating toward zero; x / 0 == 0; MIN / -1 == MIN (wraps)."""
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
    dt = np.result_type(a, b)
    safe = np.where(b == 0, 1, b).astype(dt)
    if dt.kind == "i":
        minus_one = safe == -1
        safe = np.where(minus_one, 1, safe).astype(dt)
        q = np.floor_divide(a, safe)
        fix = (np.remainder(a, safe) != 0) & ((a < 0) != (safe < 0))
        q = (q + fix.astype(dt)).astype(dt)
        q = np.where(minus_one, np.negative(a), q)
    else:
        q = np.floor_divide(a, safe)
    return np.where(b == 0, 0, q).astype(dt)


def pow(a, b):  # noqa: A001 - mirrors the C helper's name
    """Wrapping integer power; negative exponents give 0 except for bases 1 and -1."""
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
    dt = np.result_type(a, b)
    u = _UNSIGNED[dt]
    result = np.ones(a.shape, dtype=u)
    base = a.astype(u)
    e = b.astype(np.int64) if dt.kind == "i" else b.astype(np.uint64)  # (a uint64 exponent may pass 2^63)
    neg = e < 0
    e = np.where(neg, 0, e).astype(np.uint64)
    while np.any(e != 0):
        odd = (e & np.uint64(1)) != 0
        result = np.where(odd, result * base, result).astype(u)
        base = (base * base).astype(u)
        e = e >> np.uint64(1)
    out = result.astype(dt)
    if dt.kind == "i":
        special = np.where(a == 1, 1, np.where(a == -1, np.where((b & 1) != 0, -1, 1), 0)).astype(dt)
        out = np.where(neg, special, out)
    return out.astype(dt)


def left_shift(a, b):
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
    dt = np.result_type(a, b)
    bits = dt.itemsize * 8
    ok = (b >= 0) & (b < bits)
    amount = np.where(ok, b, 0).astype(_UNSIGNED[dt])
    shifted = np.left_shift(a.astype(_UNSIGNED[dt]), amount).astype(dt)
    return np.where(ok, shifted, 0).astype(dt)


def right_shift(a, b):
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
    dt = np.result_type(a, b)
    bits = dt.itemsize * 8
    ok = (b >= 0) & (b < bits)
    amount = np.where(ok, b, 0).astype(dt)
    shifted = np.right_shift(a, amount)
    fill = np.where(a < 0, -1, 0) if dt.kind == "i" else 0
    return np.where(ok, shifted, fill).astype(dt)


def _safe_divisor(a, b):
    """(a, b, dtype, bad): broadcast operands, b with 0 and -1 replaced by 1, and
    where b was 0 or -1 (whose results the helpers below set explicitly)."""
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
    dt = np.result_type(a, b)
    bad = (b == 0) | ((b == -1) if dt.kind == "i" else False)
    return a, np.where(bad, 1, b).astype(dt), dt, bad


def mod(a, b):
    """Integer remainder truncated like C's %: the dividend's sign; x % 0 == 0, MIN % -1 == 0."""
    a, safe, dt, bad = _safe_divisor(a, b)
    return np.where(bad, 0, np.fmod(a, safe)).astype(dt)


def floor_mod(a, b):
    """Integer remainder of floored division (the divisor's sign, Python's %); x % 0 == 0."""
    a, safe, dt, bad = _safe_divisor(a, b)
    return np.where(bad, 0, np.remainder(a, safe)).astype(dt)


def floor_div(a, b):
    """Integer division rounding toward minus infinity; x // 0 == 0; MIN // -1 == MIN (wraps)."""
    a, safe, dt, bad = _safe_divisor(a, b)
    q = np.floor_divide(a, safe)
    b = np.broadcast_to(np.asarray(b), np.shape(a))
    return np.where(b == 0, 0, np.where(bad, np.negative(a), q)).astype(dt)


def _rotate(a, b, left):
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
    dt = np.result_type(a, b)
    bits = dt.itemsize * 8
    u = a.astype(_UNSIGNED[dt])
    s = np.mod(b.astype(np.int64) if dt.kind == "i" else b, bits).astype(np.int64)  # (as C: uint64 as it is)
    if not left:
        s = np.mod(bits - s, bits)
    back = np.where(s == 0, 0, bits - s).astype(_UNSIGNED[dt])
    s = s.astype(_UNSIGNED[dt])
    rotated = np.left_shift(u, s) | np.where(s == 0, 0, np.right_shift(u, back)).astype(_UNSIGNED[dt])
    return rotated.astype(dt)


def rotl(a, b):
    """Rotate the bits of a left by b modulo the bit width (negative b rotates right)."""
    return _rotate(a, b, True)


def rotr(a, b):
    """Rotate the bits of a right by b modulo the bit width."""
    return _rotate(a, b, False)


def popcount(a):
    """The number of 1 bits of a's two's complement representation, in a's dtype."""
    a = np.asarray(a)
    return np.bitwise_count(a.astype(_UNSIGNED[a.dtype])).astype(a.dtype)


def isqrt(a):
    """The floor of the square root of each integer (0 for a negative one), exactly, in a's dtype:
    float64's square root is within one of it for any uint64, then corrected (in uint64, below
    2^32: no overflow)."""
    a = np.asarray(a)
    v = np.maximum(a, 0).astype(np.uint64)
    top = np.uint64(2**32 - 1)  # (the root of 2^64 - 1)
    r = np.minimum(np.floor(np.sqrt(v.astype(np.float64))), float(top)).astype(np.uint64)
    r = np.where(r * r > v, r - np.uint64(1), r)
    r = np.where((r < top) & ((r + np.uint64(1)) * (r + np.uint64(1)) <= v), r + np.uint64(1), r)
    return r.astype(a.dtype)


#: CMSIS-DSP's arm_vlog by stored dtype: the fraction bits N of the Q input, the integer bits of
#: the result (Q4.11, Q5.26), ln 2 in Q(N) truncated.
_Q_LOG = {np.dtype(np.int16): (15, 4, 0x58B9), np.dtype(np.int32): (31, 5, 0x58B90BFB)}


def q_log(a):
    """The natural logarithm of each positive Q15 or Q31 value (stored / 2**N), in Q4.11 or Q5.26,
    as CMSIS-DSP's arm_vlog finds it, bit for bit (the C runtime's opf_q_log): the mantissa in
    [1, 2) squared N times, each square of 2 or more a binary digit of log2 (and halved), the digits
    less the bits the normalization moved, times ln 2. The type's lowest value for a <= 0."""
    a = np.asarray(a)
    n, whole, ln2 = _Q_LOG[a.dtype]
    positive = a > 0
    v = np.where(positive, a, 1).astype(np.int64)
    lead = n + 1 - np.frexp(v.astype(np.float64))[1].astype(np.int64)  # (zeros above the highest 1)
    m = v << (lead - 1)  # (Q(N - 1): in [1, 2))
    digits = np.zeros_like(m)
    digit = 1 << (n - whole - 1)  # (0.5 in the result's fraction bits)
    for _ in range(n):
        m = (m * m) >> (n - 1)
        big = m >= (1 << n)
        digits += np.where(big, digit, 0)
        m = np.where(big, m >> 1, m)
        digit >>= 1
    log = ((digits - (lead << (n - whole))) * ln2) >> n
    return np.where(positive, log, np.iinfo(a.dtype).min).astype(a.dtype)


def ilog2(a):
    """The floor of the base-2 logarithm of each positive integer (its bit length less one); 0 below 2."""
    a = np.asarray(a)
    return np.where(a > 1, np.frexp(np.maximum(a, 1).astype(np.float64))[1] - 1, 0).astype(a.dtype)


def round_half_away(x):
    t = np.trunc(x)
    return np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t).astype(np.asarray(x).dtype)


def sigmoid(x):
    one = np.asarray(1, dtype=np.asarray(x).dtype)
    return one / (one + np.exp(-x))


def erf(x):
    x = np.asarray(x)
    return np.vectorize(math.erf, otypes=[np.float64])(x.astype(np.float64)).astype(x.dtype)


def erfc(x):
    x = np.asarray(x)
    return np.vectorize(math.erfc, otypes=[np.float64])(x.astype(np.float64)).astype(x.dtype)


# ---------------------------------------------------------------- broadcasting
# The two rules rendered shape expressions call (dsl/shapes.py's Broadcast and Fits):
# the bindings call them here, the generation-time evaluator imports them, and the
# NNEF target copies their source into its shape functions.


def shapes_fit(shapes, strict):
    """Whether ``shapes`` broadcast together (NumPy's rule; ``strict``, TML's: equal, or scalars)."""
    if all(tuple(s) == tuple(shapes[0]) for s in shapes):
        return True
    if strict:
        wide = [tuple(s) for s in shapes if len(s) != 0]
        return all(s == wide[0] for s in wide)
    rank = max(len(s) for s in shapes)
    for j in range(1, rank + 1):
        if len({s[-j] for s in shapes if len(s) >= j} - {1}) > 1:
            return False
    return True


def shapes_broadcast(shapes, strict):
    """The shape ``shapes`` broadcast to (``shapes_fit`` holds for them)."""
    if strict:
        wide = [tuple(s) for s in shapes if len(s) != 0]
        return wide[0] if wide else ()
    rank = max((len(s) for s in shapes), default=0)
    out = [1] * rank
    for s in shapes:
        for i, n in enumerate(s):
            j = rank - len(s) + i
            out[j] = n if out[j] == 1 else out[j]
    return tuple(out)


# ---------------------------------------------------------------- reductions


def norm_axes(axes, ndim):
    """Axes as a sorted tuple; empty means every axis (ValueError if bad)."""
    if len(axes) == 0:
        return tuple(range(ndim))
    out = []
    for a in axes:
        a = int(a)
        if not -ndim <= a < ndim:
            raise ValueError(f"axis {a} is out of range for rank {ndim}")
        a %= ndim
        if a in out:
            raise ValueError(f"axis {a} is listed twice")
        out.append(a)
    return tuple(sorted(out))


def reduced_count(shape, axes):
    n = 1
    for a in axes:
        n *= shape[a]
    return n


def reduced_shape(shape, axes, keep_dims):
    return tuple(1 if i in axes else s for i, s in enumerate(shape) if keep_dims or i not in axes)


EINSUM_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def conv_view(x, axes, fill=0, beyond=None):
    """x with each convolution axis (axis, windows, stride, kernel, dilation, pad before, pad
    after) as two axes, its windows' and its kernel's (kernel None: a strided axis, its
    windows' alone), read at stride * window + dilation * position of x padded with ``fill``
    (and, where a pool's last partial window reads past the padding, with ``beyond``): a
    read-only view (of a padded copy where there is padding). The form has counted the windows
    and refused an axis too short for one."""
    x = np.asarray(x)
    axes = sorted(((a % x.ndim, *rest) for a, *rest in axes), reverse=True)
    past = {}  # (the elements a partial window reads past the padding after)
    for axis, windows, stride, kernel, dilation, before, after in axes:
        read = (windows - 1) * stride + dilation * ((kernel or 1) - 1) + 1
        past[axis] = max(0, read - (x.shape[axis] + before + after))
    if any(before or after or past[axis] for axis, *_, before, after in axes):
        widths = [(0, 0)] * x.ndim
        for axis, *_, before, after in axes:
            widths[axis] = (before, after)
        x = np.pad(x, widths, constant_values=fill)
        if any(past.values()):
            x = np.pad(x, [(0, past.get(axis, 0)) for axis in range(x.ndim)],
                       constant_values=fill if beyond is None else beyond)
    for axis, windows, stride, kernel, dilation, _, _ in axes:
        step = x.strides[axis]
        shape, strides = ((windows,), (stride * step,)) if kernel is None else \
            ((windows, kernel), (stride * step, dilation * step))
        x = np.lib.stride_tricks.as_strided(x, x.shape[:axis] + shape + x.shape[axis + 1:],
                                            x.strides[:axis] + strides + x.strides[axis + 1:], writeable=False)
    return x


def tensordot_subscripts(rx, ry, axes_x, axes_y, transpose_x, transpose_y, transpose_z):
    """numpy.einsum subscripts, over x (rank ``rx``) and y (rank ``ry``) as given, of
    numpy.tensordot(x', y', (axes_x, axes_y)), where x' is x with its axes reversed
    when transpose_x, y' likewise, and the result's axes are reversed when
    transpose_z (ND4J's tensorMmul); the op's form has refused axes that do not fit.
    As opf_tensordot_labels: axis i of x' is label i, a contracted axis of y' takes
    its partner's label, a free one the next."""
    partner = {int(b) % ry: int(a) % rx for a, b in zip(axes_x, axes_y)}
    labels_y, result, next_label = [], [i for i in range(rx) if i not in partner.values()], rx
    for j in range(ry):
        if j in partner:
            labels_y.append(partner[j])
        else:
            labels_y.append(next_label)
            result.append(next_label)
            next_label += 1
    stored_x = [rx - 1 - i for i in range(rx)] if transpose_x else list(range(rx))
    stored_y = labels_y[::-1] if transpose_y else labels_y
    result = result[::-1] if transpose_z else result
    letters = ["".join(EINSUM_LETTERS[k] for k in labels) for labels in (stored_x, stored_y, result)]
    return f"{letters[0]},{letters[1]}->{letters[2]}"


def parts(kind, xs, params):
    """The arrays ``kind`` (split, unstack or meshgrid) cuts from the arrays ``xs``."""
    if kind == "meshgrid":
        return np.meshgrid(*(np.ravel(x) for x in xs), indexing="xy" if params["cartesian"] else "ij")
    x, axis = xs[0], int(params["axis"])
    if kind == "unstack":
        return [np.take(x, k, axis=axis) for k in range(x.shape[axis])]
    return np.split(x, int(params["num"]), axis=axis)


def merge(combine, xs, dtype):
    """Element by element over equal-shape arrays in list order, as the C kernels
    combine them (see ``compute.Merge``)."""
    with np.errstate(all="ignore"):
        if combine == "avg":
            total = np.zeros(xs[0].shape)
            for x in xs:
                total = total + x.astype(np.float64)
            return (total / len(xs)).astype(dtype)
        if combine == "max_index":
            return np.argmax(np.stack(xs), axis=0).astype(np.int64)
        acc = xs[0]
        for x in xs[1:]:
            if combine == "add":
                acc = (acc + x).astype(dtype)
            elif x.dtype.kind == "f":  # NaN wins, as in C's (isnan(v) || v > acc), < for min
                acc = np.where(np.isnan(x) | ((x > acc) if combine == "max" else (x < acc)), x, acc)
            else:
                acc = np.maximum(acc, x) if combine == "max" else np.minimum(acc, x)
        return acc


def search(holds, axis, last, keep_dims):
    """Index of the first (``last``: the last) True along ``axis`` of a boolean
    array, -1 where there is none (an empty axis included)."""
    axis = axis % holds.ndim
    shape = reduced_shape(holds.shape, (axis,), keep_dims)
    n = holds.shape[axis]
    if n == 0:
        return np.full(shape, -1, dtype=np.int64)
    if last:
        index = n - 1 - np.argmax(np.flip(holds, axis), axis=axis, keepdims=keep_dims)
    else:
        index = np.argmax(holds, axis=axis, keepdims=keep_dims)
    return np.where(np.any(holds, axis=axis, keepdims=keep_dims), index, -1).astype(np.int64).reshape(shape)


def arg_reduce(which, values, axis, keep_dims, last=False):
    """numpy.argmax or argmin (``which``); an empty result when an axis kept is empty,
    where numpy refuses the empty axis reduced (as in C, nothing is left to compute).
    ``last``: the last of tied extremes (the last NaN), ONNX's select_last_index: NumPy's
    search of the axis reversed, counted from the end."""
    shape = reduced_shape(values.shape, (axis % values.ndim,), keep_dims)
    if 0 in shape:
        return np.zeros(shape, dtype=np.int64)
    fn = np.argmax if which == "max" else np.argmin
    if last:
        return values.shape[axis] - 1 - fn(np.flip(values, axis), axis=axis, keepdims=keep_dims)
    return fn(values, axis=axis, keepdims=keep_dims)


COMBINE = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}


def reduce(combine, v, axes, dtype, initial=None):
    """Combine over axes with keepdims; max/min of no elements raise ValueError
    unless ``initial`` is given (as the C kernels' starting value) or there is no
    result to compute (an empty axis kept: an empty result, as in C)."""
    shape = reduced_shape(v.shape, tuple(axes), True)
    if 0 in shape:
        return np.empty(shape, dtype=dtype)
    if initial is None:
        return COMBINE[combine].reduce(v, axis=axes, keepdims=True, dtype=dtype)
    return COMBINE[combine].reduce(v, axis=axes, keepdims=True, dtype=dtype, initial=initial)


def lowest(dtype):
    """The starting value of a max: -inf for floats, the minimum for integers."""
    dtype = np.dtype(dtype)
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


# ---------------------------------------------------------------- random

_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_W0, _W1 = np.uint32(0x9E3779B9), np.uint32(0xBB67AE85)
_MASK = np.uint64(0xFFFFFFFF)


def philox4x32_10(counter, key):
    """Random123's Philox4x32-10 on arrays: counter is four uint32 arrays, key two uint32 scalars."""
    c0, c1, c2, c3 = (np.asarray(c, dtype=np.uint32) for c in counter)
    k0, k1 = np.uint32(key[0]), np.uint32(key[1])
    with np.errstate(over="ignore"):
        for round_ in range(10):
            if round_ > 0:
                k0 = np.uint32(k0 + _W0)
                k1 = np.uint32(k1 + _W1)
            p0 = _M0 * c0.astype(np.uint64)
            p1 = _M1 * c2.astype(np.uint64)
            hi0, lo0 = (p0 >> np.uint64(32)).astype(np.uint32), (p0 & _MASK).astype(np.uint32)
            hi1, lo1 = (p1 >> np.uint64(32)).astype(np.uint32), (p1 & _MASK).astype(np.uint32)
            c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
    return c0, c1, c2, c3


def random_block(seed, offset, n, block):
    """The four words of block ``block`` of each of ``n`` elements' streams."""
    elements = (np.uint64(int(offset) % 2**64) + np.arange(n, dtype=np.uint64))
    ctr = (np.full(n, block, dtype=np.uint32), np.zeros(n, dtype=np.uint32),
           (elements & _MASK).astype(np.uint32), (elements >> np.uint64(32)).astype(np.uint32))
    s = int(seed) % 2**64
    return philox4x32_10(ctr, (s & 0xFFFFFFFF, s >> 32))


def unit24(w):
    return (w >> np.uint32(8)).astype(np.float64) * (1.0 / 16777216.0)


def unit53(a, b):
    return ((a >> np.uint32(5)).astype(np.float64) * 67108864.0 + (b >> np.uint32(6)).astype(np.float64)) * (
        1.0 / 9007199254740992.0)


_log = np.vectorize(math.log, otypes=[np.float64])
_cos = np.vectorize(math.cos, otypes=[np.float64])
_exp = np.vectorize(math.exp, otypes=[np.float64])


def sample(distribution, params, seed, offset, n, dtype):
    """``n`` values of a distribution (``_sample``); values beyond float32 become infinities, as in C."""
    with np.errstate(over="ignore"):
        return _sample(distribution, params, seed, offset, n, dtype)


def _sample(distribution, params, seed, offset, n, dtype):
    """n samples, computed in float64 with the C library's log/cos/exp (as the C kernels)."""
    dtype = np.dtype(dtype)
    if distribution == "binomial":
        count = np.zeros(n, dtype=np.int64)
        words = None
        for t in range(int(params["n"])):
            if t % 4 == 0:
                words = random_block(seed, offset, n, t // 4 + 1)
            count += (words[t % 4].astype(np.float64) * (1.0 / 4294967296.0)) < params["p"]
        return count.astype(dtype)
    if distribution == "truncated_normal":
        # Redraw from the next block while |z| > 2 (at most 64 blocks; then 0).
        z = np.zeros(n)
        pending = np.ones(n, dtype=bool)
        for block in range(64):
            if not pending.any():
                break
            w = random_block(seed, offset, n, block)
            t = np.sqrt(-2.0 * _log(1.0 - unit53(w[0], w[1]))) * _cos(6.283185307179586 * unit53(w[2], w[3]))
            take = pending & (np.abs(t) <= 2.0)
            z = np.where(take, t, z)
            pending &= ~take
        return (params["mean"] + params["stddev"] * z).astype(dtype)
    w = random_block(seed, offset, n, 0)
    if distribution in ("normal", "log_normal"):
        u1 = 1.0 - unit53(w[0], w[1])
        u2 = unit53(w[2], w[3])
        z = np.sqrt(-2.0 * _log(u1)) * _cos(6.283185307179586 * u2) if n else np.zeros(0)
        value = params["mean"] + params["stddev"] * z
        if distribution == "log_normal":
            value = _exp(value) if n else value
        return value.astype(dtype)
    if distribution == "bernoulli":
        return np.where(unit53(w[0], w[1]) < params["p"], 1.0, 0.0).astype(dtype)
    u = unit24(w[0]) if dtype == np.float32 else unit53(w[0], w[1])
    if distribution == "uniform":
        return (params["low"] + (params["high"] - params["low"]) * u).astype(dtype)
    if distribution == "exponential":
        return (-_log(1.0 - u) / params["rate"] if n else u).astype(dtype)
    raise ValueError(f"unknown distribution {distribution!r}")


# ---------------------------------------------------------------- sliding windows

_WINDOW_HEADER = 64  # int64 fields: magic, window, stride, capacity, count, skip, frame_bytes, times
_WINDOW_MAGIC = 0x0F0E5A11


def window_state_size(window, frame_shape, dtype):
    """Bytes of a sliding window's state: a header and room for 2 * window frames."""
    frame_bytes = int(np.prod(frame_shape, dtype=np.int64)) * np.dtype(dtype).itemsize
    return _WINDOW_HEADER + 2 * int(window) * frame_bytes


def _window_fields(state):
    fields = state[:_WINDOW_HEADER].view(np.int64)
    if fields[0] != _WINDOW_MAGIC:
        raise ValueError("state: not initialised")
    return fields


def window_init(state, window, stride, frame_shape, dtype, timed=False):
    """Lay out an empty queue; ``timed``: keep a [first, last] time range per frame, after the
    frames (Imaginet's optional timestamps)."""
    frame_bytes = int(np.prod(frame_shape, dtype=np.int64)) * np.dtype(dtype).itemsize
    times = -(-(_WINDOW_HEADER + 2 * window * frame_bytes) // 4) * 4 if timed else 0
    state[:_WINDOW_HEADER].view(np.int64)[:8] = (_WINDOW_MAGIC, window, stride, 2 * window, 0, 0, frame_bytes,
                                                 times)


def _window_ranges(state, fields):
    start = int(fields[7])
    return state[start:start + 2 * int(fields[3]) * 4].view(np.float32).reshape(-1, 2)


def window_enqueue(state, x, time=None):
    """Queue the frames of x (axis 0), skipping frames a large stride left out; with ``time``
    (the block's timestamps), each frame queued keeps their range [smallest, largest] (none:
    [FLT_MAX, -FLT_MAX], as the real library's windows)."""
    fields = _window_fields(state)
    at = int(fields[4])
    _, _, _, capacity, count, skip, frame_bytes = (int(v) for v in fields[:7])
    n = x.shape[0]
    drop = min(skip, n)
    store = n - drop
    if count + store > capacity:
        raise ValueError("queue is full: dequeue first")
    frames = state[_WINDOW_HEADER:]
    frames[count * frame_bytes:(count + store) * frame_bytes] = np.ascontiguousarray(x[drop:]).view(np.uint8).reshape(-1)
    fields[4] = count + store
    fields[5] = skip - drop
    if time is not None:
        values = np.asarray(time, dtype=np.float32).reshape(-1)
        big = np.finfo(np.float32).max
        _window_ranges(state, fields)[at:count + store] = (values.min() if values.size else big,
                                                            values.max() if values.size else -big)


def window_room(state, frames):
    """True if a block of ``frames`` frames can be queued now (frames a stride skips take no room)."""
    fields = _window_fields(state)
    capacity, count, skip = (int(v) for v in fields[3:6])
    return count + max(int(frames) - skip, 0) <= capacity


def window_ready(state):
    fields = _window_fields(state)
    return bool(fields[4] >= fields[1])


def window_dequeue(state, output, time_output=None):
    """The oldest window into output (and its time range, [first, last] over its frames, into
    ``time_output``); then drop stride frames (skip those not yet queued)."""
    fields = _window_fields(state)
    _, window, stride, _, count, skip, frame_bytes = (int(v) for v in fields[:7])
    if count < window:
        raise ValueError("no complete window yet")
    if time_output is not None:
        ranges = _window_ranges(state, fields)
        time_output[...] = (ranges[:window, 0].min(), ranges[:window, 1].max())
        ranges[:count - min(stride, count)] = ranges[min(stride, count):count].copy()
    frames = state[_WINDOW_HEADER:]
    np.copyto(output, frames[:window * frame_bytes].view(output.dtype).reshape(output.shape))
    drop = min(stride, count)
    frames[:(count - drop) * frame_bytes] = frames[drop * frame_bytes:count * frame_bytes].copy()
    fields[4] = count - drop
    fields[5] = skip + stride - drop


# ---------------------------------------------------------------- layouts
# Ops that move elements without computing, into the shape their form gives.

PAD_MODES = ("constant", "reflect", "symmetric", "edge", "wrap")


def _layout_axis(axis, rank, what):
    if not -rank <= axis < rank:
        raise ValueError(f"{what}: axis {axis} is out of range for rank {rank}")
    return axis % rank


def layout_check(kind, shape, p):
    """What no shape says: the values of tensor roles (gather's indices
    must lie in -n..n-1 for the gathered axis of size n)."""
    if kind == "gather":
        n = shape[_layout_axis(int(p["axis"]), len(shape), "axis")]
        indices = np.asarray(p["indices"])
        if indices.size and (indices.min() < -n or indices.max() >= n):
            raise ValueError(f"indices: values must lie in {-n}..{n - 1}")
    if kind == "gather_nd":
        indices = np.asarray(p["indices"])
        sizes = np.array(shape[: indices.shape[-1]], dtype=np.int64)
        if indices.size and (np.any(indices < -sizes) or np.any(indices >= sizes)):
            raise ValueError("indices: values must lie in -n..n-1 for the axis of x of size n")
    if kind == "reverse_sequence":
        lengths = np.asarray(p["seq_lengths"])
        n = shape[_layout_axis(int(p["seq_axis"]), len(shape), "seq_axis")]
        if lengths.size and (lengths.min() < 0 or lengths.max() > n):
            raise ValueError(f"seq_lengths: values must lie in 0..{n}, the size of the sequence axis")


def layout_apply(kind, x, p, shape):
    """The elements of x moved by layout ``kind`` into the result's ``shape`` (which
    the op's form gave, refusing what does not fit)."""
    r = x.ndim
    if kind == "gather":
        layout_check(kind, x.shape, p)
        return np.take(x, np.asarray(p["indices"]), axis=int(p["axis"]))
    if kind == "gather_nd":
        layout_check(kind, x.shape, p)
        indices = np.asarray(p["indices"])
        k = indices.shape[-1]
        count = math.prod(indices.shape[:-1])
        rows = indices.reshape(count, k)
        out = np.empty((count,) + x.shape[k:], dtype=x.dtype)
        for g in range(count):
            out[g] = x[tuple(int(v) for v in rows[g])]
        return out.reshape(indices.shape[:-1] + x.shape[k:])
    if kind == "reverse_sequence":
        layout_check(kind, x.shape, p)
        s, b = int(p["seq_axis"]) % r, int(p["batch_axis"]) % r
        out = x.copy()
        for i, n in enumerate(np.asarray(p["seq_lengths"]).tolist()):
            at = [slice(None)] * r
            at[b], at[s] = i, slice(0, n)
            out[tuple(at)] = np.flip(x[tuple(at)], axis=s - (b < s))
        return out
    if kind == "set_diag":
        out = x.copy()
        k = min(x.shape[-2:])
        out[..., np.arange(k), np.arange(k)] = np.asarray(p["diagonal"])
        return out
    if kind == "diag":
        out = np.zeros(x.size * x.size, dtype=x.dtype)
        out[:: x.size + 1] = x.reshape(-1)
        return out.reshape(x.shape + x.shape)
    if kind in ("reshape", "squeeze", "expand_dims", "narrow"):
        return np.reshape(x, shape)
    if kind == "permute":
        return np.transpose(x, [int(a) % r for a in p["perm"]])
    if kind == "transpose":
        return np.transpose(x)
    if kind == "reverse":
        return np.flip(x, [int(a) % r for a in p["axes"]])
    if kind == "tile":
        return np.tile(x, [int(k) for k in p["repeats"]]) if r else x.copy()
    if kind == "slice":
        return x[tuple(slice(int(b), int(b) + s) for b, s in zip(p["begin"], shape))]
    if kind == "strided_slice":
        return x[tuple(slice(int(b), int(e), int(s)) for b, e, s in zip(p["begin"], p["end"], p["strides"]))]
    if kind == "pad":
        pads = [int(k) for k in p["paddings"]]
        pairs = list(zip(pads[0::2], pads[1::2]))
        mode = PAD_MODES[int(p["mode"])]
        if not pairs:  # a scalar: nothing to pad
            return x.copy()
        if mode == "constant":
            return np.pad(x, pairs, mode="constant", constant_values=fill_value(p["value"], x.dtype))
        if x.size == 0:
            return np.empty(shape, dtype=x.dtype)
        return np.pad(x, pairs, mode=mode)
    if kind in ("space_to_depth", "depth_to_space"):
        return _block_move(kind, x, p)
    if kind in ("space_to_batch", "batch_to_space"):
        return _batch_move(kind, x, p)
    if kind == "upsample":  # (nearest neighbour by whole factors: each element repeated along both axes)
        axes = (1, 2) if int(p["data_format"]) == 1 else (2, 3)
        return np.repeat(np.repeat(x, int(p["scale_h"]), axis=axes[0]), int(p["scale_w"]), axis=axes[1])
    raise ValueError(f"unknown layout {kind!r}")


def _block_move(kind, x, p):
    """ONNX's SpaceToDepth and DepthToSpace (NCHW): a reshape, a transpose and a reshape;
    NHWC (data_format 1) moved to NCHW first and back after. Mode 0 is DCR, 1 CRD."""
    b, last, crd = int(p["block_size"]), int(p["data_format"]) == 1, int(p["mode"]) == 1
    t = np.transpose(x, (0, 3, 1, 2)) if last else x
    n, c, h, w = t.shape
    if kind == "space_to_depth":
        t = t.reshape(n, c, h // b, b, w // b, b).transpose((0, 1, 3, 5, 2, 4) if crd else (0, 3, 5, 1, 2, 4))
        t = t.reshape(n, c * b * b, h // b, w // b)
    elif not crd:
        t = t.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2).reshape(n, c // (b * b), h * b, w * b)
    else:
        t = t.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3).reshape(n, c // (b * b), h * b, w * b)
    return np.ascontiguousarray(np.transpose(t, (0, 2, 3, 1)) if last else t)


def _batch_move(kind, x, p):
    """TensorFlow's space_to_batch and batch_to_space (NHWC, no paddings or crops): a reshape, a
    transpose and a reshape, the block's position outermost in the batch; NCHW (data_format 0)
    moved to NHWC first and back after."""
    b, first = int(p["block_size"]), int(p["data_format"]) == 0
    t = np.transpose(x, (0, 2, 3, 1)) if first else x
    n, h, w, c = t.shape
    if kind == "space_to_batch":
        t = t.reshape(n, h // b, b, w // b, b, c).transpose(2, 4, 0, 1, 3, 5).reshape(n * b * b, h // b, w // b, c)
    else:
        t = t.reshape(b, b, n // (b * b), h, w, c).transpose(2, 3, 0, 4, 1, 5).reshape(n // (b * b), h * b, w * b, c)
    return np.ascontiguousarray(np.transpose(t, (0, 3, 1, 2)) if first else t)


def fill_value(value, dtype):
    """A padding constant in ``dtype``; ValueError unless it converts exactly."""
    dtype = np.dtype(dtype)
    value = float(value)
    if dtype.kind == "f":
        return dtype.type(value)
    if dtype.kind == "b":
        if value not in (0.0, 1.0):
            raise ValueError(f"value: {value} is not a boolean (0 or 1)")
        return bool(value)
    info = np.iinfo(dtype)
    if not (math.isfinite(value) and value == math.floor(value) and info.min <= value <= info.max):
        raise ValueError(f"value: {value} does not convert exactly to {dtype.name}")
    return dtype.type(int(value))


# ---------------------------------------------------------------- generated tensors
# Tensors made from args alone, in the shape their form gives.


def _fits(value, dtype):
    info = np.iinfo(dtype)
    return info.min <= value <= info.max


def generate_check(kind, p, dtype, shape):
    """What no shape says: the values of a result of ``shape`` must convert to ``dtype``
    (fill exactly; range and linspace ends within an integer type's range)."""
    dtype = np.dtype(dtype)
    if kind == "fill":
        fill_value(p["value"], dtype)
    elif kind == "one_hot":
        fill_value(p["on"], dtype)
        fill_value(p["off"], dtype)
    elif kind in ("range", "linspace") and shape[0] and dtype.kind in "iu":
        start = float(p["start"])
        end = start + (shape[0] - 1) * float(p["delta"]) if kind == "range" else float(p["stop"])
        if not (_fits(math.trunc(start), dtype) and _fits(math.trunc(end), dtype)):
            raise ValueError(f"the values do not fit in {dtype.name}")


def convert(x, dtype):
    """x converted to dtype: to bool x != 0 (NaN is true); integers and bools to
    integers modulo 2^bits; to floats the nearest value (overflow gives
    infinity); floats to integers truncated toward zero, saturated at the
    type's limits, NaN giving 0."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return x != 0
    if dtype.kind == "f" or x.dtype.kind in "biu":
        with np.errstate(over="ignore"):
            return x.astype(dtype)
    info = np.iinfo(dtype)
    v = x.astype(np.float64)
    lowest, beyond = float(info.min), float(info.max) + 1.0  # both powers of two, exact in double
    out = np.zeros(x.shape, dtype)
    inside = (v >= lowest) & (v < beyond)
    out[inside] = np.trunc(v[inside]).astype(dtype)
    out[v >= beyond] = info.max
    out[v < lowest] = info.min
    return out


def generate_values(kind, p, dtype, shape):
    """The generated tensor of ``shape``: values computed in float64, then converted
    (integers truncate toward zero)."""
    dtype = np.dtype(dtype)
    generate_check(kind, p, dtype, shape)
    if kind == "one_hot":
        indices = np.asarray(p["indices"], dtype=np.int64)
        axis = int(p["axis"]) % (indices.ndim + 1)
        picks = np.arange(shape[axis]).reshape([-1 if d == axis else 1 for d in range(len(shape))])
        hot = np.expand_dims(indices, axis) == picks
        return np.where(hot, fill_value(p["on"], dtype), fill_value(p["off"], dtype)).astype(dtype)
    if kind == "cast":
        return convert(np.asarray(p["input"]), dtype)
    if kind == "sequence_mask":
        lengths = np.asarray(p["lengths"], dtype=np.int64)
        return (np.arange(shape[-1]) < lengths[..., None]).astype(dtype)
    if kind == "fill":
        return np.full(shape, fill_value(p["value"], dtype), dtype=dtype)
    if kind == "eye":
        return np.eye(shape[0], shape[1], dtype=dtype)
    if kind == "tri":
        return np.tri(shape[0], shape[1], int(p["diag"]), dtype=dtype)
    n = shape[0]
    i = np.arange(n, dtype=np.float64)
    if kind == "range":
        values = float(p["start"]) + i * float(p["delta"])
    else:
        start, stop = float(p["start"]), float(p["stop"])
        values = start + i * ((stop - start) / (n - 1)) if n > 1 else np.full(n, start)
        if n > 1:
            values[-1] = stop
    return values.astype(dtype)


# ---------------------------------------------------------------- scatter and segments


def scatter_at(indices, rows, negative, ordered, messages=None):
    """The rows ``indices`` pick, flat, each in 0..rows-1 (negatives from the end
    when ``negative``); ValueError out of range, or unsorted when ``ordered``."""
    messages = messages or {"range": "indices: out of range", "sorted": "indices: not sorted"}
    at = np.asarray(indices, dtype=np.int64).reshape(-1)
    low = -rows if negative else 0
    if at.size and (at.min() < low or at.max() >= rows):
        raise ValueError(messages["range"])
    if ordered and at.size > 1 and np.any(at[1:] < at[:-1]):
        raise ValueError(messages["sorted"])
    return np.where(at < 0, at + rows, at)


def segment_init(init, dtype):
    """What a segment reduction's rows start at: 0, 1, or the lowest or highest value."""
    dt = np.dtype(dtype)
    if init in ("zero", "one"):
        return dt.type(0 if init == "zero" else 1)
    if dt.kind == "f":
        return dt.type(-np.inf if init == "lowest" else np.inf)
    info = np.iinfo(dt)
    return dt.type(info.min if init == "lowest" else info.max)


# ---------------------------------------------------------------- shape queries


def shape_query(query, shape, axis=None):
    """A fact of ``shape``: the shape itself, its size, its rank, or the size of ``axis``."""
    if query == "shape":
        return np.array(shape, dtype=np.int64).reshape(len(shape))
    if query == "size":
        return np.int64(math.prod(shape))
    if query == "rank":
        return np.int64(len(shape))
    return np.int64(shape[_layout_axis(int(axis), len(shape), "axis")])
