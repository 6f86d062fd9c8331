"""Argument checking shared by the generated bindings.

Every problem raises TypeError (wrong kind of value) or ValueError (right
kind, wrong value), naming the op, the parameter and the violated rule.
"""

from __future__ import annotations

import numbers
import operator
from typing import Any, Callable, Sequence

import numpy as np

DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "float32", "float64")
#: The supported dtypes' names by dtype: a dict lookup, where ``dtype.name`` costs microseconds.
NAMES = {np.dtype(d): d for d in DTYPES}
#: The dtypes by name (np.empty parses a name on every call).
DTYPE_OF = {d: np.dtype(d) for d in DTYPES}


def name_of(dtype: np.dtype) -> str:
    """``dtype.name``, fast for the supported dtypes."""
    return NAMES.get(dtype) or dtype.name


def tensors(op: str, specs: Sequence[tuple[str, Any, tuple[str, ...]]]) -> list[np.ndarray]:
    """Arrays for the tensor arguments ``(name, value, allowed dtypes)``.

    Arrays keep their dtype. Python scalars and lists take the dtype of the
    first array argument when they convert to it exactly ("weak" scalars),
    else their own NumPy dtype; a lossy conversion is refused.
    """
    anchor = None
    for _, value, _ in specs:
        if isinstance(value, np.ndarray):
            anchor = value.dtype
            break
    out = []
    for name, value, allowed in specs:
        array = value if isinstance(value, np.ndarray) else _convert(op, name, value, anchor, allowed)
        native = NAMES.get(array.dtype)  # None: unsupported, or not in the machine's byte order
        if (native or array.dtype.name) not in allowed:
            raise TypeError(f"{op}: {name} must have dtype {' or '.join(allowed)}, got {array.dtype.name}")
        if array.ndim > 8:
            raise ValueError(f"{op}: {name} has rank {array.ndim}, more than the maximum rank 8")
        if native is None and not array.dtype.isnative:
            array = array.astype(array.dtype.newbyteorder("="))  # big-endian data: the same values
        # (np.ascontiguousarray would turn a 0-d array into a 1-d one)
        out.append(array if array.flags.c_contiguous else array.copy(order="C"))
    return out


def tensor_list(op: str, name: str, value: Any, allowed: tuple[str, ...], low: int,
                high: int | None) -> list[np.ndarray]:
    """Arrays for a tensor-list argument: a list or tuple of ``low``..``high`` tensors
    (converted as ``tensors`` converts them), all of the first one's dtype."""
    if isinstance(value, (np.ndarray, str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(f"{op}: {name} must be a list or tuple of arrays, got {type(value).__name__}")
    if len(value) < low or (high is not None and len(value) > high):
        wanted = f"at least {low}" if high is None else f"{low} to {high}"
        raise ValueError(f"{op}: {name} must hold {wanted} tensor(s), got {len(value)}")
    arrays = tensors(op, [(f"{name}[{k}]", v, allowed) for k, v in enumerate(value)])
    for k, array in enumerate(arrays[1:], 1):
        if array.dtype != arrays[0].dtype:
            raise TypeError(f"{op}: {name}[{k}] must have the dtype of {name}[0] ({arrays[0].dtype.name}), "
                            f"got {array.dtype.name}")
    return arrays


def _convert(op: str, name: str, value: Any, anchor: np.dtype | None, allowed: tuple[str, ...]) -> np.ndarray:
    try:
        plain = np.asarray(value)
    except Exception as exc:  # ragged lists and the like
        raise TypeError(f"{op}: {name} must be an array or a number, got {type(value).__name__}") from exc
    if plain.dtype.kind not in "biuf":
        raise TypeError(f"{op}: {name} must hold booleans or numbers, got {plain.dtype}")
    if anchor is not None and anchor.name in allowed:
        target = anchor
    elif plain.dtype.name in allowed:
        return plain
    else:
        target = next((np.dtype(d) for d in allowed if np.can_cast(plain.dtype, d, casting="safe")), None)
        if target is None:
            raise TypeError(f"{op}: {name} must have dtype {' or '.join(allowed)}, got {plain.dtype.name}")
    if target == plain.dtype:
        return plain
    with np.errstate(all="ignore"):
        converted = plain.astype(target)
        back = converted.astype(plain.dtype)
    both_float = plain.dtype.kind == "f" and target.kind == "f"
    if not np.array_equal(back, plain, equal_nan=both_float):
        raise TypeError(f"{op}: {name} = {value!r} does not convert exactly to {target.name}")
    return converted


def integer(op: str, name: str, value: Any) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{op}: {name} must be an integer, got {type(value).__name__}")
    value = operator.index(value)
    if not -(2**63) <= value < 2**63:
        raise ValueError(f"{op}: {name} = {value} does not fit in 64 bits")
    return value


def real(op: str, name: str, value: Any) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{op}: {name} must be a number, got {type(value).__name__}")
    return float(value)


def boolean(op: str, name: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{op}: {name} must be True or False, got {type(value).__name__}")
    return bool(value)


def enum(op: str, name: str, value: Any, values: tuple[str, ...]) -> int:
    """The index of an ENUM value (what kernels take)."""
    if not isinstance(value, str):
        raise TypeError(f"{op}: {name} must be a string, one of {', '.join(values)}")
    if value not in values:
        raise ValueError(f"{op}: {name} must be one of {', '.join(values)}, got {value!r}")
    return values.index(value)


def dtype(op: str, name: str, value: Any, allowed: tuple[str, ...]) -> str:
    try:
        name_ = np.dtype(value).name
    except TypeError as exc:
        raise TypeError(f"{op}: {name} must be a dtype, got {value!r}") from exc
    if name_ not in allowed:
        raise ValueError(f"{op}: {name} must be one of {', '.join(allowed)}, got {name_}")
    return name_


def integers(op: str, name: str, value: Any, low: int, high: int | None) -> tuple[int, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)):
        raise TypeError(f"{op}: {name} must be a sequence of integers")
    items = tuple(integer(op, f"{name}[{i}]", v) for i, v in enumerate(value))
    if len(items) < low or (high is not None and len(items) > high):
        bound = f"at least {low}" if high is None else f"{low} to {high}"
        raise ValueError(f"{op}: {name} must have {bound} values, got {len(items)}")
    return items


def numpy_reduction(op: str, axis: Any, keepdims: Any) -> tuple[tuple[int, ...], bool, Callable[[Any], Any] | None]:
    """A reduction's NumPy keywords as its kernels' args: (axes, empty for every axis; keep_dims;
    what to apply to each tensor input first, or None). ``axis=()`` reduces no axis, as NumPy's
    does: each element alone, the kernels' reduction over a new last axis of size 1."""
    keep = boolean(op, "keepdims", keepdims)
    if axis is None:
        return (), keep, None
    if isinstance(axis, numbers.Integral) and not isinstance(axis, (bool, np.bool_)):
        return (integer(op, "axis", axis),), keep, None
    if isinstance(axis, (str, bytes, bool, np.bool_)) or not isinstance(axis, (Sequence, np.ndarray)):
        raise TypeError(f"{op}: axis must be None, an integer or a tuple of integers, got {type(axis).__name__}")
    axes = integers(op, "axis", axis, 0, None)
    if not axes:
        return (-1,), False, _new_last_axis
    return axes, keep, None


def _new_last_axis(value: Any) -> Any:
    return value[..., None]


def numpy_search(op: str, axis: Any, keepdims: Any, ndim: int) -> tuple[int, bool, Callable[[Any], Any] | None]:
    """An arg reduction's NumPy keywords as its kernels' args: (axis, keep_dims, what to apply to
    the input first, or None). ``axis=None`` searches the flattened array, as NumPy's does: the
    input as one row (whose index is the flat one), kept as (1, ..., n) when keepdims is True."""
    keep = boolean(op, "keepdims", keepdims)
    if axis is not None:
        return integer(op, "axis", axis), keep, None
    if keep and ndim > 0:
        row = (1,) * (ndim - 1) + (-1,)
        return -1, True, lambda value: value.reshape(row)
    return -1, False, lambda value: value.reshape(-1)


def output(op: str, name: str, out: Any, shape: tuple[int, ...], dtype: str,
           inputs: Sequence[tuple[str, Any]], assign: bool,
           exact: tuple[str, ...] = ()) -> tuple[np.ndarray, np.ndarray | None]:
    """(array the kernel writes, the caller's ``out`` or None).

    ``inputs`` are (name, array or list of arrays). ``out`` must share no memory with an
    input, unless it is exactly one of the inputs named in ``exact`` (an elementwise op's:
    the same data, dtype, shape and strides), which the op then writes over, as the C API
    allows (ADR 0006). The kernel writes ``out`` itself when it is contiguous, of the
    result's exact shape and dtype; otherwise a fresh array, copied into ``out``, whose
    shape never changes (elementwise ops broadcast the result into it).
    """
    if out is None:
        return np.empty(shape, dtype=DTYPE_OF[dtype]), None
    if not isinstance(out, np.ndarray):
        raise TypeError(f"{op}: out must be a numpy.ndarray, got {type(out).__name__}")
    if name_of(out.dtype) != dtype:
        raise TypeError(f"{op}: out must have dtype {dtype}, got {out.dtype.name}")
    if out.shape != shape:
        fits = assign and _assignable(shape, out.shape)
        if not fits:
            raise ValueError(f"{op}: out has shape {out.shape}, the result has shape {shape}")
    if not out.flags.writeable:
        raise ValueError(f"{op}: out is read-only")
    for label, value in inputs:
        for a in value if isinstance(value, list) else (value,):
            if a is None or not np.may_share_memory(out, a):
                continue
            if label in exact and _same_array(out, a):
                continue  # in place: each element is read before it is written
            rule = (f"{name} may be {label} itself (the same data, dtype and shape), no other overlap"
                    if label in exact else f"{name} must not overlap {label}")
            raise ValueError(f"{op}: {rule}")
    direct = out.shape == shape and out.flags.c_contiguous and out.dtype.isnative
    return (out if direct else np.empty(shape, dtype=DTYPE_OF[dtype])), out


def _same_array(a: np.ndarray, b: np.ndarray) -> bool:
    """The same elements at the same addresses: data pointer, dtype, shape and strides."""
    return (a.__array_interface__["data"][0] == b.__array_interface__["data"][0] and a.dtype == b.dtype
            and a.shape == b.shape and a.strides == b.strides)


def _assignable(result: tuple[int, ...], target: tuple[int, ...]) -> bool:
    try:
        return np.broadcast_shapes(result, target) == target
    except ValueError:
        return False


def outs(op: str, out: Any, n: int, kind: type = tuple) -> Sequence[Any]:
    """``out`` of an op with ``n`` outputs: None, or a tuple of ``n`` arrays (or Nones);
    of an op with a list output (``kind`` list), a list of as many arrays as it gives."""
    if out is None:
        return (None,) * n
    if not isinstance(out, kind) or len(out) != n:
        raise TypeError(f"{op}: out must be None or a {kind.__name__} of {n} arrays (None for any to allocate), "
                        f"got {type(out).__name__}" + (f" of {len(out)}" if isinstance(out, (tuple, list)) else ""))
    given = [a for a in out if a is not None]
    for k, a in enumerate(given):
        if any(isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and np.may_share_memory(a, b)
               for b in given[k + 1:]):
            raise ValueError(f"{op}: the arrays of out must not overlap")
    return out


def finish(written: np.ndarray, out: np.ndarray | None) -> np.ndarray:
    if out is None:
        return written
    if written is not out:
        np.copyto(out, written)
    return out
