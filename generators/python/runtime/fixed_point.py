"""Fixed-point arrays: DEEPCRAFT's shifted Q7/Q15/Q31 and scaled D8/D16/D32 (ADR 0036, 0037).

A :class:`FixedPointArray` holds the stored integers and the attributes of the whole
tensor: a Q type its ``shift`` (``real = stored / 2**(N - shift)``, N = 7, 15 or 31), a
D type its ``scale`` and ``offset`` (``real = (stored - offset) * scale``). It is not an
ndarray: NumPy sees its real values (float32), so ``np.asarray(q)``, ``np.mean(q)`` or
``q + 1`` compute on what the numbers mean, never on the stored integers by mistake.
``q.stored`` is the integer array itself (read-only, but in :func:`empty`'s arrays, which
an op's ``out=`` writes into, with the attributes they choose for its result).

    >>> q = quantize([0.5, -0.25, 3.0], "q15", shift=1)
    >>> q.stored, q.shift
    (array([ 8192, -4096, 32767], dtype=int16), 1)
    >>> np.asarray(q)                            # 3.0 saturated: Q15 at shift 1 holds [-2, 2)
    array([ 0.5     , -0.25    ,  1.999939], dtype=float32)

A D array may instead carry a scale per index of one axis (per-axis scales, ONNX
QuantizeLinear's ``axis``; ADR 0069). The conversions read them; every other op refuses such
an array (requantize it to one scale).

    >>> w = quantize([[0.5, -1.0], [0.25, 2.0]], "d8", scale=[0.01, 0.02], axis=-1)
    >>> w.stored, w.axis
    (array([[ 50, -50],
           [ 25, 100]], dtype=int8), 1)

The conversions are the rules of ADR 0036, the same the C kernels compute: to Q truncated
toward zero and saturated (CMSIS-DSP), to D rounded half to even and saturated (ONNX
QuantizeLinear), between Q types and shifts an arithmetic shift, saturated. Values are
first rounded to float32, the precision the rules compute in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Callable

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin
from numpy.typing import ArrayLike

from opforge import _fixed_point_rules as _rules
from opforge import _kernels as _k
from opforge import _native
from opforge import _runtime as _rt

__all__ = ["FixedPointArray", "quantize", "dequantize", "requantize", "q_shift", "bit_utilization", "empty", "TYPES"]

#: The fixed-point types by name ("q7", "q15", "q31", "d8", "d16", "d32").
TYPES = tuple(_rules.TYPES)
#: Why a part of an array with per-axis scales is not one (its axis may go or move).
_PER_AXIS_PARTS = ("FixedPointArray: an array with per-axis scales has no parts or reshapes of its own (the axis "
                   "may go or move): take them of its stored values, or requantize it to one scale first")


def _type(where: str, name: Any) -> _rules.Type:
    if not isinstance(name, str):
        raise TypeError(f"{where}: type must be a name ({', '.join(TYPES)}), not {type(name).__name__}")
    t = _rules.TYPES.get(name.lower())
    if t is None:
        raise ValueError(f"{where}: type must be one of {', '.join(TYPES)}, not {name!r}")
    return t


def _attributes(where: str, t: _rules.Type, shift: Any, scale: Any, offset: Any) -> tuple:
    """(shift, scale, offset) checked for ``t``: a Q type takes only a shift, a D type a
    scale (positive, finite as float32) and an offset (a stored value)."""
    if t.family == "Q":
        if scale is not None or offset is not None:
            raise TypeError(f"{where}: {t.name} carries a shift, not a scale or an offset")
        shift = _rt.integer(where, "shift", 0 if shift is None else shift)
        assert t.shifts is not None  # (a Q type's)
        low, high = t.shifts
        if not low <= shift <= high:
            raise ValueError(f"{where}: a {t.name} shift must be in {low}..{high} (2**({t.fraction_bits} - shift) "
                             f"a normal float32), not {shift}")
        return shift, None, None
    _no_shift(where, t, shift)
    if scale is None:
        raise TypeError(f"{where}: {t.name} needs a scale")
    real = _rt.real(where, "scale", scale)
    with np.errstate(over="ignore"):
        single = float(np.float32(real))
    if not (np.isfinite(single) and single > 0):
        raise ValueError(f"{where}: scale must be positive and finite as a float32, not {scale!r}")
    return None, single, _offset(where, t, offset)


def _no_shift(where: str, t: _rules.Type, shift: Any) -> None:
    if shift is not None:
        raise TypeError(f"{where}: {t.name} carries a scale and an offset, not a shift")


def _offset(where: str, t: _rules.Type, offset: Any) -> int:
    """A D type's offset checked: a stored value (0 when not given)."""
    offset = _rt.integer(where, "offset", 0 if offset is None else offset)
    if not t.lowest <= offset <= t.highest:
        raise ValueError(f"{where}: a {t.name} offset must be in {t.lowest}..{t.highest}, not {offset}")
    return offset


def _per_axis(where: str, t: _rules.Type, scale: Any, axis: Any, shape: tuple[int, ...]) -> tuple[np.ndarray, int]:
    """Per-axis scales checked for a D type and an array of ``shape`` (ADR 0069): one per index
    of ``axis`` (negative from the end), each positive and finite as a float32; (scales, axis)."""
    if t.family != "D":
        raise TypeError(f"{where}: {t.name} carries a shift; only a D type carries per-axis scales")
    axis = _rt.integer(where, "axis", axis)
    if not -len(shape) <= axis < len(shape):
        raise ValueError(f"{where}: axis must be in {-len(shape)}..{len(shape) - 1} (the array has {len(shape)} axes), "
                         f"not {axis}")
    axis %= len(shape)
    if not isinstance(scale, (Sequence, np.ndarray)) or isinstance(scale, (str, bytes)) or np.ndim(scale) != 1:
        raise TypeError(f"{where}: scale must be a sequence of numbers, one per index of axis {axis}, not "
                        f"{type(scale).__name__}")
    numbers = (scale if isinstance(scale, np.ndarray) and scale.dtype.kind in "iuf" else
               [_rt.real(where, f"scale[{i}]", v) for i, v in enumerate(scale)])
    with np.errstate(over="ignore"):
        scales = np.array(numbers, dtype=np.float32)
    if scales.shape != (shape[axis],):
        raise ValueError(f"{where}: scale must hold one scale per index of axis {axis} ({shape[axis]}), "
                         f"not {scales.size}")
    if not (np.all(np.isfinite(scales)) and np.all(scales > 0)):
        raise ValueError(f"{where}: every scale must be positive and finite as a float32")
    scales.setflags(write=False)
    return scales, axis


def _scale_of(where: str, t: _rules.Type, shift: Any, scale: Any, offset: Any, axis: Any,
              shape: tuple[int, ...]) -> tuple:
    """(shift, scale, offset, axis) checked: :func:`_attributes`, or per-axis scales where an
    ``axis`` is given (``scale`` then holds one per index of it)."""
    if axis is None:
        return (*_attributes(where, t, shift, scale, offset), None)
    scales, axis = _per_axis(where, t, scale, axis, shape)
    _no_shift(where, t, shift)
    return None, scales, _offset(where, t, offset), axis


def _broadcast(scale: Any, axis: int | None, ndim: int) -> Any:
    """A scale as the rules read it: one float32, or per-axis scales shaped to broadcast along
    their axis of an array of ``ndim`` axes."""
    return scale if axis is None else scale.reshape((-1,) + (1,) * (ndim - axis - 1))


class FixedPointArray(NDArrayOperatorsMixin):
    """Stored integers of a fixed-point type with the tensor's attributes; NumPy sees the
    real values (float32). ``FixedPointArray(stored, "q15", shift=3)`` takes the stored
    integers as they are (of the type's storage dtype: int8, int16 or int32)."""

    __slots__ = ("_stored", "_type", "_shift", "_scale", "_offset", "_axis")

    def __init__(self, stored: ArrayLike, fixed_type: str, *, shift: int | None = None,
                 scale: float | ArrayLike | None = None, offset: int | None = None, axis: int | None = None) -> None:
        t = _type("FixedPointArray", fixed_type)
        array = np.array(stored, copy=True)
        if array.dtype != np.dtype(t.storage):
            raise TypeError(f"FixedPointArray: {t.name} is stored as {t.storage}, not {array.dtype.name}")
        array.setflags(write=False)
        self._stored, self._type = array, t
        self._shift, self._scale, self._offset, self._axis = _scale_of("FixedPointArray", t, shift, scale, offset,
                                                                       axis, array.shape)

    @classmethod
    def _made(cls, stored: np.ndarray, t: _rules.Type, shift: int | None, scale: Any,
              offset: int | None, writable: bool = False, axis: int | None = None) -> "FixedPointArray":
        """One whose stored array this module has just computed (checked: no copy); ``writable``
        only for :func:`empty`'s, an op's ``out=``."""
        made = cls.__new__(cls)
        stored.setflags(write=writable)
        made._stored, made._type, made._shift, made._scale, made._offset = stored, t, shift, scale, offset
        made._axis = axis
        return made

    def _like(self, stored: ArrayLike) -> "FixedPointArray":
        """``stored`` (copied) as an array of this one's type and attributes; refused for per-axis
        scales, whose axis a part or a reshape need not keep."""
        if self._axis is not None:
            raise ValueError(_PER_AXIS_PARTS)
        return FixedPointArray._made(np.array(stored), self._type, self._shift, self._scale, self._offset)

    def _same_attributes(self, other: "FixedPointArray") -> bool:
        """Whether ``other`` holds this one's attributes (its stored values then mean the same)."""
        if self._axis is not None or other._axis is not None:
            return (self._axis, self._offset) == (other._axis, other._offset) and np.array_equal(self._scale,
                                                                                                  other._scale)
        return (self._shift, self._scale, self._offset) == (other._shift, other._scale, other._offset)

    @property
    def stored(self) -> np.ndarray:
        """The stored integers (read-only, but in :func:`empty`'s)."""
        return self._stored

    @property
    def type(self) -> str:
        return self._type.name

    @property
    def shift(self) -> int | None:
        """A Q type's shift (None for D types)."""
        return self._shift

    @property
    def scale(self) -> float | np.ndarray | None:
        """A D type's scale, as the float32 the rules use, or its per-axis scales (a read-only
        float32 array, one per index of :attr:`axis`); None for Q types."""
        return self._scale

    @property
    def axis(self) -> int | None:
        """The axis a D type's per-axis scales run along (from 0), or None for one scale."""
        return self._axis

    @property
    def offset(self) -> int | None:
        """A D type's offset: the stored value of real zero (None for Q types)."""
        return self._offset

    @property
    def shape(self) -> tuple[int, ...]:
        return self._stored.shape

    @property
    def ndim(self) -> int:
        return self._stored.ndim

    @property
    def size(self) -> int:
        return self._stored.size

    def __len__(self) -> int:
        return len(self._stored)

    def __getitem__(self, key: Any) -> "FixedPointArray":
        """A part, with the same attributes (they are the whole tensor's)."""
        return self._like(self._stored[key])

    def reshape(self, *shape: Any) -> "FixedPointArray":
        """The stored values in a new shape (``numpy.reshape``'s), with the same attributes."""
        return self._like(self._stored.reshape(*shape))

    def real(self) -> np.ndarray:
        """The real values, float32 (a new array)."""
        return dequantize(self)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        if copy is False:
            raise ValueError("FixedPointArray: the real values are computed, never a view of the stored integers")
        real = dequantize(self)
        return real if dtype is None else real.astype(dtype)

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """NumPy's functions and operators compute on the real values and give ndarrays."""
        if any(isinstance(o, FixedPointArray) for o in kwargs.get("out", ())):
            raise TypeError(f"{ufunc.__name__}: out cannot be a FixedPointArray; quantize the result instead")
        real = [dequantize(i) if isinstance(i, FixedPointArray) else i for i in inputs]
        return getattr(ufunc, method)(*real, **kwargs)

    def _attributes_text(self) -> str:
        if self._type.family == "Q":
            return f"shift={self._shift}"
        if self._axis is not None:
            return f"scale={self._scale.tolist()!r}, offset={self._offset}, axis={self._axis}"
        return f"scale={self._scale!r}, offset={self._offset}"

    def __repr__(self) -> str:
        return f"FixedPointArray({self._stored!r}, {self.type!r}, {self._attributes_text()})"

    def __str__(self) -> str:
        return f"{dequantize(self)} ({self.type}, {self._attributes_text()})"


def _real_values(where: str, x: ArrayLike) -> np.ndarray:
    if isinstance(x, FixedPointArray):
        return dequantize(x)
    array = np.asarray(x)
    if array.dtype.kind not in "iuf":
        raise TypeError(f"{where}: x must hold real numbers (integers or floats), not {array.dtype.name}")
    with np.errstate(over="ignore"):
        return array.astype(np.float32)


def quantize(x: ArrayLike, fixed_type: str, *, shift: int | None = None, scale: float | ArrayLike | None = None,
             offset: int | None = None, axis: int | None = None) -> FixedPointArray:
    """``x`` (real values) as a fixed-point array: ``quantize(x, "q15", shift=1)``,
    ``quantize(x, "d8", scale=0.05, offset=-3)``. A Q type's shift defaults to 0, a D type's
    offset to 0; its scale is required: one, or with ``axis`` one per index of that axis
    (per-axis scales, as ONNX QuantizeLinear's ``axis``: ``quantize(w, "d8", scale=[0.1, 0.2],
    axis=-1)``)."""
    t = _type("quantize", fixed_type)
    real = _real_values("quantize", x)
    shift, scale, offset, axis = _scale_of("quantize", t, shift, scale, offset, axis, real.shape)
    with np.errstate(all="ignore"):  # (a value scaled beyond float32 is an infinity, then saturated)
        if t.family == "Q":
            stored = _rules.FROM_REAL[t.name](real, _rules.factor(t, shift))
        else:
            stored = _rules.FROM_REAL[t.name](real, _broadcast(scale, axis, real.ndim), offset)
    return FixedPointArray._made(np.asarray(stored), t, shift, scale, offset, axis=axis)


def empty(shape: int | tuple[int, ...], fixed_type: str, *, shift: int | None = None, scale: float | None = None,
          offset: int | None = None) -> FixedPointArray:
    """A writable FixedPointArray of ``shape`` (stored zeros) for an op's ``out=``, with the
    result's attributes chosen as the C API's output descriptor carries them: a D result's
    scale and offset, and a table op's Q shift, are these; a Q result whose shift the op's
    form computes (a sum, a product) gets the form's, written into it."""
    t = _type("empty", fixed_type)
    shift, scale, offset = _attributes("empty", t, shift, scale, offset)
    dims = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if not all(isinstance(d, (int, np.integer)) and d >= 0 for d in dims):
        raise ValueError(f"empty: shape must be sizes of 0 or more, not {shape!r}")
    return FixedPointArray._made(np.zeros(dims, dtype=t.storage), t, shift, scale, offset, writable=True)


def dequantize(q: FixedPointArray) -> np.ndarray:
    """The real values of ``q``, float32."""
    if not isinstance(q, FixedPointArray):
        raise TypeError(f"dequantize: q must be a FixedPointArray, not {type(q).__name__}")
    t, stored = q._type, q._stored.astype(np.float32)
    with np.errstate(all="ignore"):
        if t.family == "Q":
            return np.asarray(_rules.TO_REAL[t.name](stored, _rules.factor(t, q._shift)), dtype=np.float32)
        return np.asarray(_rules.TO_REAL[t.name](stored, _broadcast(q._scale, q._axis, q.ndim), q._offset),
                          dtype=np.float32)


def requantize(q: FixedPointArray, fixed_type: str | None = None, *, shift: int | None = None,
               scale: float | ArrayLike | None = None, offset: int | None = None,
               axis: int | None = None) -> FixedPointArray:
    """``q`` in another type or with other attributes. Between Q types (a new shift, or
    another width) exactly, by an arithmetic shift, saturated, as CMSIS-DSP's
    ``arm_shift_q15`` and ``arm_q15_to_q7``; otherwise through the real values (float32).
    Attributes not given keep ``q``'s where the family is the same (its per-axis scales
    too, unless a scale is given: one, or with ``axis`` one per index of it)."""
    if not isinstance(q, FixedPointArray):
        raise TypeError(f"requantize: q must be a FixedPointArray, not {type(q).__name__}")
    t = _type("requantize", q.type if fixed_type is None else fixed_type)
    if t.family == q._type.family:
        if t.family == "Q":
            shift = q._shift if shift is None else shift
        else:
            if scale is None:
                scale, axis = q._scale, q._axis if axis is None else axis
            offset = q._offset if offset is None else offset
    shift, scale, offset, axis = _scale_of("requantize", t, shift, scale, offset, axis, q.shape)
    exact = _rules.SHIFTED.get((q._type.name, t.name))  # (between Q types: a shift, the form's k)
    if exact is not None:
        rule, domain, by = exact
        with np.errstate(all="ignore"):
            stored = rule(q._stored.astype(domain), by(q._shift, shift))
        return FixedPointArray._made(np.asarray(stored), t, shift, None, None)
    return quantize(dequantize(q), t.name, shift=shift, scale=scale, offset=offset, axis=axis)


def q_shift(q: FixedPointArray, shift: int) -> FixedPointArray:
    """``q`` (Q7, Q15 or Q31) with its shift raised by ``shift`` (lowered where negative), the
    type kept: the FixedPoint library's QShift, CMSIS-DSP's ``arm_shift_q15`` by ``-shift``."""
    if not isinstance(q, FixedPointArray):
        raise TypeError(f"q_shift: q must be a FixedPointArray, not {type(q).__name__}")
    if q._type.family != "Q":
        raise TypeError(f"q_shift: q must be q7, q15 or q31, not {q.type} (a D type has no shift)")
    assert q._shift is not None  # (a Q type's)
    return requantize(q, q.type, shift=q._shift + _rt.integer("q_shift", "shift", shift))


def bit_utilization(q: FixedPointArray) -> np.ndarray:
    """The bits each stored value of a Q7, Q15 or Q31 array uses, its sign bit included, int8:
    1 for 0 and -1, 16 for Q15's 32767 (the FixedPoint library's BitUtilization unit,
    ``32 - __builtin_clrsb(x)``; the C API's ``opforge_bit_utilization``). The type's bits less
    the largest of them is the headroom left before the shift must grow."""
    if not isinstance(q, FixedPointArray):
        raise TypeError(f"bit_utilization: q must be a FixedPointArray, not {type(q).__name__}")
    if q._type.family != "Q":
        raise TypeError(f"bit_utilization: q must be q7, q15 or q31, not {q.type} (a D type's stored values "
                        "carry an offset)")
    return np.asarray(_rules.BIT_UTILIZATION[q.type](q._stored.astype(np.int32)), dtype=np.int8)


def convert(op: str, function: str, rule: str, x: Any, backend: str, **args: Any) -> FixedPointArray | np.ndarray:
    """A conversion op of the catalogue (ADR 0068): ``rule`` (quantize, dequantize, requantize,
    shift, bit_utilization) on ``x``, by this module's functions (backend "python") or by the C
    API's ``function``, whose output descriptor carries the type and attributes the args choose
    (a Q type reads ``shift``, a D type ``scale`` and ``offset``); both give the same values."""
    if rule == "quantize":
        source = _rt._kernel_ready(op, "x", _real_values(op, x))
    elif not isinstance(x, FixedPointArray):
        raise TypeError(f"{op}: x must be a FixedPointArray (quantize real values first), not {type(x).__name__}")
    else:
        if rule in ("shift", "bit_utilization") and x._type.family != "Q":
            raise TypeError(f"{op}: x must be q7, q15 or q31, not {x.type} (a D type's stored values carry an offset)")
        source = _rt._kernel_ready(op, "x", x._stored)
    t, shift, scale, offset = None, None, None, None
    if rule in ("quantize", "requantize"):  # (every arg checked; the type's family reads its own)
        t = _type(f"{op}: dtype", args["dtype"])
        given = (_rt.integer(op, "shift", args["shift"]), _rt.real(op, "scale", args["scale"]),
                 _rt.integer(op, "offset", args["offset"]))
        q = t.family == "Q"
        shift, scale, offset = _attributes(op, t, given[0] if q else None, None if q else given[1],
                                           None if q else given[2])
    elif rule == "shift":
        t, by = x._type, _rt.integer(op, "shift", args["shift"])
        assert t.shifts is not None and x._shift is not None  # (a Q type's)
        shift, (low, high) = x._shift + by, t.shifts
        if not low <= shift <= high:
            raise ValueError(f"{op}: the result's shift, x's {x._shift} plus {by}, must be in {t.name}'s {low}..{high}")
    if backend == "python":
        if rule == "quantize":
            assert t is not None
            return quantize(source, t.name, shift=shift, scale=scale, offset=offset)
        if rule == "requantize":
            assert t is not None
            return requantize(x, t.name, shift=shift, scale=scale, offset=offset)
        if rule == "shift":
            return requantize(x, x.type, shift=shift)
        return dequantize(x) if rule == "dequantize" else bit_utilization(x)
    given = (_native.tensor(source) if rule == "quantize" else
             _native.fixed_point_tensor(source, x.type, x._shift, x._scale, x._offset, x._axis))
    c_args = (args["shift"],) if rule == "shift" else ()
    if t is None:  # (real values, or bit counts: a plain array)
        result = np.empty(source.shape, dtype=np.float32 if rule == "dequantize" else np.int8)
        _native.call(op, function, given, *c_args, _native.tensor(result))
        return result
    stored = np.empty(source.shape, dtype=t.storage)
    written = _native.fixed_point_tensor(stored, t.name, shift, scale, offset)
    _native.call(op, function, given, *c_args, written)
    if shift is not None and written.shift != shift:  # (a shift's: the C API sets it by the same rule)
        raise RuntimeError(f"{op}: the C API's result shift {written.shift} is not the rule's {shift}")
    return FixedPointArray._made(stored, t, shift, scale, offset)


# ------------------------------------------------------------------ the ops on fixed-point arrays


def _flat(given: tuple[tuple[str, Any], ...]) -> list[tuple[str, Any]]:
    """(name, value) of every operand, a tensor list's (concat's inputs) one by one."""
    return [(name, v) for name, value in given
            for v in (value if isinstance(value, (list, tuple)) and any(isinstance(e, FixedPointArray) for e in value)
                      else [value])]


def kernel(op: str, given: tuple[tuple[str, Any], ...]) -> _rules.Kernel | None:
    """The op's kernel for its inputs' fixed-point type (ADR 0040), or None where no input is a
    FixedPointArray. The inputs that carry the type must then all be FixedPointArrays of it: a
    float array or another type is a ``TypeError`` (quantize or requantize it first), as is a
    type the op has no kernel for (its docs' "Fixed point" table says why); an input that holds
    indices (gather's) takes plain integers. A move's tensors must share their attributes."""
    for _, value in given:  # (the common case first, cheaply: plain operands, every call of the op)
        if isinstance(value, (FixedPointArray, list, tuple)):
            break
    else:
        return None
    flat = _flat(given)
    fixed = [(name, value) for name, value in flat if isinstance(value, FixedPointArray)]
    if not fixed:
        return None
    first_name, first = fixed[0]
    for name, value in fixed:
        if value._axis is not None:
            _per_axis_taken(op, name, value)
        if value.type != first.type:
            raise TypeError(f"{op}: {name} is {value.type} and {first_name} {first.type}: the inputs must have one "
                            "fixed-point type (requantize one)")
    found = _rules.KERNELS.get((op, first.type))
    if found is None:
        kinds = sorted(t for o, t in _rules.KERNELS if o == op)
        raise TypeError(f"{op}: no {first.type} kernel" + (f" (it has {', '.join(kinds)})" if kinds else
                                                            " (see the op's fixed-point table)"))
    for name, value in flat:
        if name in found.inputs and not isinstance(value, FixedPointArray):
            raise TypeError(f"{op}: {name} must be a {first.type} FixedPointArray as {first_name} is (quantize it), "
                            f"not {type(value).__name__}")
        if name not in found.inputs and isinstance(value, FixedPointArray):
            raise TypeError(f"{op}: {name} takes plain values (indices or counts), not a FixedPointArray")
    carried = [(name, value) for name, value in flat if name in found.inputs]
    lead_name, lead = carried[0]
    for name, value in carried[1:] if found.moved is not None else ():
        if not value._same_attributes(lead):
            listed = name == lead_name
            raise ValueError(f"{op}: " + _rules.SAME_ATTRIBUTES.format(
                name=name, whose="every tensor must have the first one's" if listed else f"must have {lead_name}'s",
                type=lead.type, attributes=" and ".join(lead._type.attributes)))
    return found


def _per_axis_taken(op: str, name: str, value: FixedPointArray) -> None:
    """Refuses per-axis scales where the op's kernels read one scale (ADR 0069, 0071): a
    ``ValueError`` unless the op takes them in that operand, along the axis it must have
    (a matmul's or dense layer's second operand: its last, the result's columns)."""
    taken = _rules.PER_AXIS.get(op, {})
    if name not in taken:
        who = f"{op} takes in {' and '.join(taken)} alone" if taken else _rules.PER_AXIS_TAKERS
        raise ValueError(f"{op}: {name} has per-axis scales, which {who} (requantize it to one scale)")
    if taken[name] == -1 and (value.ndim < 2 or value._axis != value.ndim - 1):
        raise ValueError(f"{op}: {name} has per-axis scales along axis {value._axis} of {value.ndim}; {op} takes "
                         "them along its last axis alone, a scale per column of the result, of 2 axes or more "
                         "(requantize it to one scale)")


def stand_ins(given: dict[str, Any], dtypes: tuple[str, ...]) -> list[Any]:
    """The op's operands for its own checks and shape rule: each FixedPointArray's stored values
    where the op takes their dtype, else zeros of the first dtype it takes (a float-only op's
    table: only the shapes matter); a tensor list's one by one; other operands as given."""
    t = next(v for _, v in _flat(tuple(given.items())) if isinstance(v, FixedPointArray))._type

    def one(value: Any) -> Any:
        if isinstance(value, FixedPointArray):
            return value._stored if t.storage in dtypes else np.zeros(value.shape, dtype=dtypes[0])
        if isinstance(value, (list, tuple)) and any(isinstance(e, FixedPointArray) for e in value):
            return [one(e) for e in value]
        return value

    return [one(value) for value in given.values()]


def moved(op: str, found: _rules.Kernel, given: dict[str, Any], result: Any,
          out: FixedPointArray | None = None) -> Any:
    """A move's result (its own kernels ran on the stored values): each output that carries
    the type as a FixedPointArray of the first input's attributes, as the C API passes them
    along (``out``, where given, takes them: it holds the result already); an arg
    reduction's indices as they are."""
    first = next(v for name, v in _flat(tuple(given.items())) if name in found.inputs)
    if not found.moved:
        return result
    if out is not None:
        out._shift, out._scale, out._offset = first._shift, first._scale, first._offset
        return out
    return [first._like(r) for r in result] if isinstance(result, list) else first._like(result)


def move_out(op: str, found: _rules.Kernel, given: dict[str, Any], out: Any) -> tuple[Any, Any]:
    """(the FixedPointArray ``out=`` of a move, what the op's own call writes into): a writable
    FixedPointArray of the inputs' type (:func:`empty`), whose stored array the op's kernels
    fill and whose attributes become the first input's, as the C API sets a move's output's;
    an arg reduction's indices take a plain integer array, as without fixed point."""
    if out is None or not found.moved:
        if isinstance(out, FixedPointArray):
            raise TypeError(f"{op}: out must be a plain integer array (the result holds indices), not {_kind(out)}")
        return None, out
    t = next(v for name, v in _flat(tuple(given.items())) if name in found.inputs)._type
    if isinstance(out, (list, tuple)):
        raise TypeError(f"{op}: out= takes no list of fixed-point results (each carries the input's attributes): "
                        "leave it out")
    if not isinstance(out, FixedPointArray) or out._type is not t:
        raise TypeError(f"{op}: out must be a {t.name} FixedPointArray (fixed_point.empty), not {_kind(out)}")
    if not out._stored.flags.writeable:
        raise ValueError(f"{op}: out is read-only (make it with fixed_point.empty)")
    return out, out._stored


def run(op: str, found: _rules.Kernel, given: dict[str, FixedPointArray], shape: tuple[int, ...], out: Any,
        backend: str, c_args: Callable[[], tuple] = tuple,
        args: dict[str, Any] | None = None) -> FixedPointArray | np.ndarray:
    """The kernel on the stored values (the op's checks have passed on them): the C API with
    the attributes in the descriptors (and the op's args, ``c_args()`` as C takes them: made only
    there, a Python-only install has no C to make them for), or the
    NumPy reference of the same rule. A Q result's shift is the rule's; a D result takes the
    scale and offset of ``out`` (:func:`empty`) or else the first input's, as a table's result
    takes out's attributes or else the input's, and a clamp's the input's always; a comparison
    gives a bool ndarray."""
    inputs = [given[name] for name in found.inputs]
    first = inputs[0]
    t = first._type
    target = _target(op, out, found, t, shape)
    # (the result's attributes: out's, or x's; a clamp's always x's)
    chosen = target if isinstance(target, FixedPointArray) and not found.kept else first
    values: dict[str, Any] = {}
    for name, q in zip(found.inputs, inputs):  # (per-axis scales in float64, as C's multipliers read them)
        scale = q._scale if q._axis is None else q._scale.astype(np.float64)
        values |= {f"{name}_shift": q._shift} if t.family == "Q" else {f"{name}_scale": scale,
                                                                        f"{name}_offset": q._offset}
    if t.family == "D":
        values |= {"output_scale": chosen._scale, "output_offset": chosen._offset}
    shift = chosen._shift if found.table else None
    values["output_shift"] = shift
    reduced: tuple = ()  # (a reduction's: its axes, their count and a Q sum's headroom, as the C API computes them)
    if found.axes is not None:
        axes = _k.norm_axes((args or {})[found.axes], first.ndim)
        count = _k.reduced_count(first.shape, axes)
        if found.refuses_empty and count == 0 and np.prod(shape) > 0:
            raise ValueError(f"{op}: {found.inputs[0]}: {_rules.EMPTY_MEAN}")
        reduced = (axes, count, _rules.headroom(count))
    if found.output_shift is not None:
        shift = found.output_shift(*(values[f"{name}_shift"] for name in found.inputs), *reduced[2:])
        assert t.shifts is not None  # (a Q type's)
        low, high = t.shifts
        if not low <= shift <= high:
            raise ValueError(f"{op}: the result's shift, {shift} (the rule's, from the inputs'), is outside "
                             f"{t.name}'s {low}..{high}")
    if backend == "python":
        assert found.reference is not None  # (a move's kernels are the op's own: moved())
        with np.errstate(all="ignore"):
            try:
                result = found.reference(*(q._stored for q in inputs), *(values[a] for a in found.attributes),
                                         *(_number((args or {})[a]) for a in found.args), *reduced)
            except ValueError as refused:  # (a 16-bit table's fill, as the C API's: TABLE_MISS)
                raise ValueError(f"{op}: {refused}") from None
        # (a reduction's result has the reduced axes kept: the output's shape, with or without them)
        stored = np.array(np.reshape(result, shape) if reduced else np.broadcast_to(result, shape), dtype=found.result)
    else:
        stored = np.empty(shape, dtype=found.result)
        descriptors = [_native.fixed_point_tensor(np.ascontiguousarray(q._stored), t.name, q._shift, q._scale,
                                                  q._offset, q._axis) for q in inputs]
        result_type = t.name if found.result != "bool" else "bool"
        written = _native.fixed_point_tensor(stored, result_type, shift, values.get("output_scale"),
                                             values.get("output_offset"))
        _native.call(op, found.function, *descriptors, *c_args(), written)
        if shift is not None and written.shift != shift:  # (the C API sets it by the same rule)
            raise RuntimeError(f"{op}: the C API's result shift {written.shift} is not the rule's {shift}")
    if target is not None:  # (written whole once the kernel has succeeded; a Q shift as the C API sets it)
        if isinstance(target, FixedPointArray):
            np.copyto(target._stored, stored)
            target._shift = shift if t.family == "Q" else None
            target._scale, target._offset = chosen._scale, chosen._offset
        else:
            np.copyto(target, stored)
        return target
    if found.result == "bool":
        return stored
    if t.family == "Q":
        return FixedPointArray._made(stored, t, shift, None, None)
    return FixedPointArray._made(stored, t, None, chosen._scale, chosen._offset)


def run_reshaped(op: str, found: _rules.Kernel, given: dict[str, FixedPointArray], computed: tuple[int, ...],
                 shape: tuple[int, ...], out: Any, backend: str, c_args: Callable[[], tuple] = tuple,
                 args: dict[str, Any] | None = None) -> FixedPointArray | np.ndarray:
    """:func:`run` for a result the kernels compute in the shape ``computed`` and the call gives in
    ``shape`` (NumPy's matmul of vectors: the same elements): ``out=`` of the call's shape, written
    through a view of the kernels' shape, takes the result's attributes."""
    view = out
    if isinstance(out, FixedPointArray) and out._axis is None and out._stored.size == int(np.prod(computed)):
        view = FixedPointArray._made(out._stored.reshape(computed), out._type, out._shift, out._scale, out._offset,
                                     out._stored.flags.writeable)
    result = run(op, found, given, computed, view, backend, c_args, args)
    if out is None:
        return result.reshape(shape)
    if isinstance(out, FixedPointArray) and isinstance(view, FixedPointArray):
        out._shift, out._scale, out._offset = view._shift, view._scale, view._offset
    return out


def _number(value: Any) -> float | str | None:
    """An arg as a table's reference takes it: a float, an enum's value (the reference reads its
    index), or None for an optional one not given."""
    return None if value is None else value if isinstance(value, str) else float(value)


def _target(op: str, out: Any, found: _rules.Kernel, t: _rules.Type,
            shape: tuple[int, ...]) -> FixedPointArray | np.ndarray | None:
    """``out=`` checked: for a fixed-point result a writable FixedPointArray of its type
    (:func:`empty`), for a comparison's a bool ndarray, of the result's shape either way."""
    if out is None:
        return None
    if found.result == "bool":
        if not isinstance(out, np.ndarray) or out.dtype != np.bool_:
            raise TypeError(f"{op}: out must be a bool ndarray (a comparison's result), not {_kind(out)}")
        stored = out
    else:
        if not isinstance(out, FixedPointArray) or out._type is not t:
            raise TypeError(f"{op}: out must be a {t.name} FixedPointArray (fixed_point.empty), not {_kind(out)}")
        if out._axis is not None:
            raise ValueError(f"{op}: out has per-axis scales; the result takes one scale")
        stored = out._stored
    if not stored.flags.writeable:
        raise ValueError(f"{op}: out is read-only (make it with fixed_point.empty)")
    if stored.shape != tuple(shape):
        raise ValueError(f"{op}: out has shape {stored.shape}, the result {tuple(shape)}")
    return out


def _kind(value: Any) -> str:
    if isinstance(value, FixedPointArray):
        return f"a {value.type} FixedPointArray"
    if isinstance(value, np.ndarray):
        return f"an ndarray of {value.dtype.name}"
    return type(value).__name__


# ------------------------------------------------------------------ a stream of fixed-point frames


def frames_type(op: str, dtype: Any, shift: int | None, scale: float | None,
                offset: int | None) -> FixedPointArray | None:
    """A stream's frames (ADR 0040): for a fixed-point ``dtype`` ("q15"), an empty
    FixedPointArray that holds their type and attributes (every frame enqueued must hold them,
    every window dequeued takes them); None for a plain dtype, which takes no attributes."""
    if isinstance(dtype, str) and dtype.lower() in _rules.TYPES:
        t = _rules.TYPES[dtype.lower()]
        shift, scale, offset = _attributes(op, t, shift, scale, offset)
        return FixedPointArray._made(np.zeros(0, dtype=t.storage), t, shift, scale, offset)
    if (shift, scale, offset) != (None, None, None):
        raise TypeError(f"{op}: shift, scale and offset belong to a fixed-point dtype, and {dtype!r} is not one")
    return None


def frames(op: str, kind: FixedPointArray, x: Any) -> np.ndarray:
    """The stored values of frames enqueued into a stream of ``kind``'s type and attributes."""
    if not isinstance(x, FixedPointArray) or x._type is not kind._type:
        raise TypeError(f"{op}: x must be a {kind.type} FixedPointArray as the frames are, not {_kind(x)}")
    if not x._same_attributes(kind):
        raise ValueError(f"{op}: " + _rules.SAME_ATTRIBUTES.format(
            name="x", whose="must have the frames'", type=kind.type, attributes=" and ".join(kind._type.attributes)))
    return x._stored


def window(kind: FixedPointArray, stored: np.ndarray) -> FixedPointArray:
    """A window dequeued from a stream of ``kind``: its stored values with the frames' attributes."""
    return kind._like(stored)
