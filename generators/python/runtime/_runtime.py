"""Argument checking shared by the generated bindings.

Every problem raises TypeError (wrong kind of value) or ValueError (right
kind, wrong value), naming the op, the parameter and the violated rule.
"""

from __future__ import annotations

import numbers
import operator
import secrets
from typing import Any, Callable, Sequence

import numpy as np

DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
          "float64")
#: The supported dtypes' names by dtype: a dict lookup, where ``dtype.name`` costs microseconds.
NAMES = {np.dtype(d): d for d in DTYPES}
#: The dtypes by name (np.empty parses a name on every call).
DTYPE_OF = {d: np.dtype(d) for d in DTYPES}
#: NumPy's scalar types of the supported dtypes (``np.float32``, ...).
SCALAR_TYPES = frozenset(d.type for d in DTYPE_OF.values())


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
        out.append(_kernel_ready(op, name, array))
    return out


def _kernel_ready(op: str, name: str, array: np.ndarray) -> np.ndarray:
    """``array`` as the kernels take it: rank 8 at most, native byte order, C-contiguous."""
    if array.ndim > 8:
        raise ValueError(f"{op}: {name} has rank {array.ndim}, more than the maximum rank 8")
    if not array.dtype.isnative:
        array = array.astype(array.dtype.newbyteorder("="))  # big-endian data: the same values
    # (np.ascontiguousarray would turn a 0-d array into a 1-d one)
    return array if array.flags.c_contiguous else array.copy(order="C")


#: NumPy's order of a ufunc's loops: a call runs the first variant its promoted dtype casts to safely.
LOOP_ORDER = ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16", "float32",
              "float64")
_WEAK = (bool, int, float)


def _weak_scalar(value: Any) -> bool:
    """Python's own bool, int or float: "weak" (NEP 50); a NumPy scalar (np.float64 is a float) is not."""
    return type(value) in _WEAK


def promoted(op: str, given: Sequence[tuple[str, Any]], variants: dict[str, dict[str, str]],
             shared: tuple[str, ...], ufunc: np.ufunc | None = None) -> tuple[list[np.ndarray], dict[str, str]]:
    """The tensor arguments ``(name, value)`` as arrays of the variant the call runs, and that variant.

    Dtypes promote as NumPy's do (NEP 50: arrays, lists and NumPy scalars by their dtype, Python's
    bool, int and float "weakly", taking the arrays' type). An op of a NumPy ufunc's meaning runs
    the loop NumPy would (``ufunc.resolve_dtypes``); any other op promotes the inputs in ``shared``,
    which have the variant's dtype in every variant, to ``numpy.result_type`` and runs the first
    variant, in NumPy's loop order, that this casts to safely (a bool to bool only). An input that
    is bool in every variant takes any number's truth, as NumPy's logical functions do. Nothing
    narrows: a dtype with no such variant is a TypeError, a Python int that does not fit a ValueError.
    """
    if shared:  # (arrays of one variant's dtypes already: that variant, NumPy's loop for them too)
        first = next(v for n, v in given if n == shared[0])
        known = NAMES.get(first.dtype) if isinstance(first, np.ndarray) else None
        variant = variants.get(known) if known is not None else None
        if variant is not None and all(isinstance(v, np.ndarray) and NAMES.get(v.dtype) == variant[n]
                                       for n, v in given):
            return [_kernel_ready(op, n, v) for n, v in given], variant
    values: dict[str, Any] = {name: value if isinstance(value, np.ndarray) or _weak_scalar(value)
                              else _array(op, name, value) for name, value in given}
    for name, value in values.items():
        if isinstance(value, np.ndarray) and value.dtype.kind not in "biuf":
            raise TypeError(f"{op}: {name} must hold booleans or numbers, got {value.dtype}")
    truth = {name for name in values if all(v[name] == "bool" for v in variants.values())}
    variant = (_ufunc_variant(op, ufunc, values, variants, truth) if ufunc is not None else
               _promoted_variant(op, values, variants, [n for n in shared if n not in truth]))
    out = []
    for name, value in values.items():
        want = DTYPE_OF[variant[name]]
        if name in truth:
            value = np.asarray(value).astype(bool)  # (NaN is true, as it is to NumPy)
        elif _weak_scalar(value):
            value = _weak(op, name, value, want, name in shared)
        elif value.dtype != want:
            if name not in shared and not (np.can_cast(value.dtype, want, "safe")
                                           and (value.dtype.kind == "b") == (want.kind == "b")):
                raise TypeError(f"{op}: {name} must have dtype {want.name}, got {value.dtype.name}")
            value = value.astype(want)
        out.append(_kernel_ready(op, name, value))
    return out, variant


#: The Python number types, which :func:`weak_operands` converts (NEP 50's "weak" scalars).
WEAK_TYPES = frozenset(_WEAK)


def weak_operands(op: str, cache: dict[tuple[Any, ...], tuple[np.dtype, ...]], given: Sequence[tuple[str, Any]],
                  variants: dict[str, dict[str, str]], shared: tuple[str, ...],
                  ufunc: np.ufunc | None = None) -> list[Any] | None:
    """A ufunc call's operands, where some are Python numbers, as :func:`promoted` makes them: each
    number a 0-d array of the variant's dtype (:func:`_weak`, which refuses an int that does not
    fit), each array as it is; None where that is not so (an array of another dtype, an input
    taking any number's truth), and the checked way decides. The variant depends on the types
    alone (NEP 50: a Python number's value never chooses it), so ``cache`` keeps it by them."""
    key = tuple([type(v) if type(v) in WEAK_TYPES else v.dtype for _, v in given])
    wants = cache.get(key)
    if wants is None:  # (the first call of these types: the checked way's conversion, kept for the next)
        made, variant = promoted(op, given, variants, shared, ufunc)  # (its errors: the checked way's too)
        truth = any(all(v[n] == "bool" for v in variants.values()) for n, _ in given)
        wants = cache[key] = () if truth else tuple(DTYPE_OF[variant[n]] for n, _ in given)  # (): refused
        kept = all(type(v) in WEAK_TYPES or v.dtype == w for (_, v), w in zip(given, wants))
        return made if wants and kept else None
    if not wants:
        return None
    out: list[Any] = []
    for (name, value), want in zip(given, wants):
        if type(value) in WEAK_TYPES:
            out.append(_weak(op, name, value, want, name in shared))
        elif value.dtype is want or value.dtype == want:
            out.append(value)
        else:
            return None
    return out


def _described(values: dict[str, Any]) -> str:
    return ", ".join(f"{n} {v.dtype.name if isinstance(v, np.ndarray) else type(v).__name__}"
                     for n, v in values.items())


def _ufunc_variant(op: str, ufunc: np.ufunc, values: dict[str, Any], variants: dict[str, dict[str, str]],
                   truth: set[str]) -> dict[str, str]:
    """The variant of the loop NumPy's ``ufunc`` runs for these inputs (a truth input takes any)."""
    dtypes = tuple(v.dtype if isinstance(v, np.ndarray) else np.dtype(bool) if isinstance(v, bool) else type(v)
                   for v in values.values())
    try:
        loop = ufunc.resolve_dtypes(dtypes + (None,) * ufunc.nout)
    except TypeError:
        raise TypeError(f"{op}: NumPy's {ufunc.__name__} takes no {_described(values)}") from None
    names = [name_of(d) for d in loop]
    for variant in variants.values():
        if all(n in truth or variant[n] == names[k] for k, n in enumerate(values)):
            return variant
    ran = ", ".join(names[k] for k, n in enumerate(values) if n not in truth)
    raise TypeError(f"{op}: NumPy's {ufunc.__name__} computes {_described(values)} in {ran}, which this op has "
                    f"no kernel for (it computes in {' or '.join(variants)})")


def _promoted_variant(op: str, values: dict[str, Any], variants: dict[str, dict[str, str]],
                      meeting: list[str]) -> dict[str, str]:
    """The first variant, in NumPy's loop order, that the inputs ``meeting`` promote to safely."""
    if not meeting:  # (only truths, or inputs of their own types: one variant, or the first input's dtype)
        if len(variants) == 1:
            return next(iter(variants.values()))
        first = np.asarray(next(iter(values.values())))
        if first.dtype.name not in variants:
            raise TypeError(f"{op}: {next(iter(values))} must have dtype {' or '.join(variants)}, "
                            f"got {first.dtype.name}")
        return variants[first.dtype.name]
    target = np.result_type(*(values[n] for n in meeting))
    chosen = _first_safe(target, [d for d in LOOP_ORDER if d in variants])
    if chosen is not None:
        return variants[chosen]
    names = " and ".join(meeting)
    got = target.name if len(meeting) == 1 else f"{target.name} (as they promote)"
    raise TypeError(f"{op}: {names} must have dtype {' or '.join(variants)}, got {got}")


def _first_safe(target: np.dtype, dtypes: list[str]) -> str | None:
    """The first of ``dtypes`` (in NumPy's loop order) that ``target`` casts to safely, a bool to bool
    only; integers where only floats are go to float64, as NumPy's mean and linalg take them."""
    for d in dtypes:
        if np.can_cast(target, d, "safe") and (target.kind == "b") == (d == "bool"):
            return "float64" if target.kind in "iu" and d in ("float16", "float32") and "float64" in dtypes else d
    return None


def _array(op: str, name: str, value: Any) -> np.ndarray:
    try:
        return np.asarray(value)
    except Exception as exc:  # ragged lists and the like
        raise TypeError(f"{op}: {name} must be an array or a number, got {type(value).__name__}") from exc


#: Each integer dtype's (least, greatest) value: np.iinfo costs a microsecond a call.
_INT_RANGE = {d: (int(np.iinfo(d).min), int(np.iinfo(d).max)) for d in DTYPE_OF.values() if d.kind in "iu"}


def _weak(op: str, name: str, value: bool | int | float, want: np.dtype, shared: bool) -> np.ndarray:
    """A Python scalar as a 0-d array of ``want``, as NumPy converts a weak scalar: a bool to any
    type, an int where it fits, a float to a float type (rounded)."""
    kind, given = want.kind, type(value)
    fits = kind == "b" if given is bool else kind in "iuf" if given is int else kind == "f"
    if not shared and not fits:  # (an input of its own type: an index's int64, a condition's bool)
        raise TypeError(f"{op}: {name} must have dtype {want.name}, got {given.__name__}")
    if given is int and kind in "iu":
        low, high = _INT_RANGE[want]
        if not low <= value <= high:
            raise ValueError(f"{op}: {name} = {value!r} is out of range for {want.name}")
    return np.asarray(value, dtype=want)


def tensor_list(op: str, name: str, value: Any, allowed: tuple[str, ...], low: int,
                high: int | None) -> list[np.ndarray]:
    """Arrays for a tensor-list argument: a list or tuple of ``low``..``high`` tensors, all of
    one dtype of ``allowed``: the one they promote to as NumPy's concatenate promotes them
    (``numpy.result_type``, Python scalars weakly), or the first it casts to safely."""
    if isinstance(value, (np.ndarray, str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(f"{op}: {name} must be a list or tuple of arrays, got {type(value).__name__}")
    if len(value) < low or (high is not None and len(value) > high):
        wanted = f"at least {low}" if high is None else f"{low} to {high}"
        raise ValueError(f"{op}: {name} must hold {wanted} tensor(s), got {len(value)}")
    items: list[Any] = [v if isinstance(v, np.ndarray) or _weak_scalar(v) else _array(op, f"{name}[{k}]", v)
             for k, v in enumerate(value)]
    for k, item in enumerate(items):
        if isinstance(item, np.ndarray) and item.dtype.kind not in "biuf":
            raise TypeError(f"{op}: {name}[{k}] must hold booleans or numbers, got {item.dtype}")
    if not items:
        return []
    target = np.result_type(*items)  # (the tensors promote together, as NumPy's concatenate's)
    chosen = _first_safe(target, [d for d in LOOP_ORDER if d in allowed])
    if chosen is None:
        raise TypeError(f"{op}: {name} must hold tensors of dtype {' or '.join(allowed)}, got {target.name}"
                        + (" (as they promote)" if len(items) > 1 else ""))
    want = DTYPE_OF[chosen]
    return [_kernel_ready(op, f"{name}[{k}]", _weak(op, f"{name}[{k}]", v, want, True) if _weak_scalar(v)
                          else v if v.dtype == want else v.astype(want)) for k, v in enumerate(items)]


def _convert(op: str, name: str, value: Any, anchor: np.dtype | None, allowed: tuple[str, ...]) -> np.ndarray:
    try:
        plain = np.asarray(value)
    except Exception as exc:  # ragged lists and the like
        raise TypeError(f"{op}: {name} must be an array or a number, got {type(value).__name__}") from exc
    if plain.dtype.kind not in "biuf":
        raise TypeError(f"{op}: {name} must hold booleans or numbers, got {plain.dtype}")
    target: np.dtype | None
    if anchor is not None and anchor.name in allowed:
        target = anchor
    elif plain.dtype.name in allowed:
        return plain
    else:
        target = next(
            (np.dtype(d) for d in allowed if np.can_cast(plain.dtype, d, casting="safe")), None)
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
    axes = _int_or_ints(op, "axis", axis, "None, an integer or a tuple of integers")
    if isinstance(axes, int):
        return (axes,), keep, None
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


def _int_or_ints(op: str, name: str, value: Any, wanted: str | None = None) -> tuple[int, ...] | int:
    """A NumPy argument that is an int or a sequence of them (axis, shape, reps); ``wanted`` says
    what else is refused with a TypeError before ``integers`` reads a sequence."""
    if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)):
        return integer(op, name, value)
    if wanted is not None and (isinstance(value, (str, bytes, bool, np.bool_))
                               or not isinstance(value, (Sequence, np.ndarray))):
        raise TypeError(f"{op}: {name} must be {wanted}, got {type(value).__name__}")
    return integers(op, name, value, 0, None)


def _axes(op: str, axis: Any) -> tuple[int, ...] | int:
    """NumPy's axis keyword: an int, or a sequence of them (a TypeError for anything else)."""
    return _int_or_ints(op, "axis", axis, "an integer or a tuple of integers")


def _distinct(op: str, given: Any, axes: list[int]) -> None:
    if len(set(axes)) != len(axes):
        raise ValueError(f"{op}: axis: an axis is listed twice (axis = {given!r})")


def numpy_squeeze(op: str, axis: Any, shape: tuple[int, ...]) -> tuple[int, Callable[[Any], Any] | None]:
    """NumPy's squeeze as the kernels' one axis: None removes every axis of size one, a tuple those
    axes (each of size one). The input reshaped to drop all but one, which the kernels remove (an
    axis the kernels must refuse, out of range or not of size one, goes to them alone, in their words)."""
    if axis is None:
        kept = tuple(s for s in shape if s != 1)
        return -1, lambda value: value.reshape(kept + (1,))
    axes = _axes(op, axis)
    if isinstance(axes, int):
        return axes, None
    n = len(shape)
    refused = [a for a in axes if not -n <= a < n or shape[a] != 1]
    if refused:
        return refused[0], None
    normal = [a % n for a in axes]
    _distinct(op, axis, normal)
    kept = tuple(s for k, s in enumerate(shape) if k not in normal)
    return -1, lambda value: value.reshape(kept + (1,))


def numpy_expand_dims(op: str, axis: Any, shape: tuple[int, ...]) -> tuple[int, Callable[[Any], Any] | None]:
    """NumPy's expand_dims as the kernels' one axis: a tuple inserts an axis of size one at each of
    its places in the result (of rank x's plus their number). The input reshaped to hold all but
    the last, which the kernels insert."""
    axes = _axes(op, axis)
    if isinstance(axes, int):
        return axes, None
    if not axes:
        raise ValueError(f"{op}: axis: give at least one axis (axis = {axis!r})")
    rank = len(shape) + len(axes)
    wrong = [a for a in axes if not -rank <= a < rank]
    if wrong:
        raise ValueError(f"{op}: axis: {wrong[0]} is out of range for the result's rank {rank} (axis = {axis!r})")
    normal = sorted(a % rank for a in axes)
    _distinct(op, axis, normal)
    sizes = iter(shape)
    result = [1 if k in normal else next(sizes) for k in range(rank)]
    last = normal[-1]
    return last, lambda value: value.reshape(tuple(result[:last] + result[last + 1:]))


def numpy_matmul(a_ndim: int, b_ndim: int) -> tuple[Callable[[Any], Any] | None, Callable[[Any], Any] | None,
                                                     tuple[int, ...]]:
    """NumPy's matmul of vectors as the kernels' matrices: a 1-D a is a row (1, n), a 1-D b a
    column (n, 1); (how to reshape a, b, and the result's axes that then go: -2 for a, -1 for b)."""
    row = (lambda value: value.reshape((1, *value.shape))) if a_ndim == 1 else None
    column = (lambda value: value.reshape((*value.shape, 1))) if b_ndim == 1 else None
    return row, column, ((-2,) if row else ()) + ((-1,) if column else ())


def dropped(shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, ...]:
    """``shape`` without the (negative) ``axes``."""
    n = len(shape)
    return tuple(s for k, s in enumerate(shape) if k - n not in axes)


def numpy_shape(op: str, shape: Any) -> tuple[int, ...]:
    """NumPy's shape argument (reshape's): an int is a shape of one axis."""
    given = _int_or_ints(op, "shape", shape)
    return (given,) if isinstance(given, int) else given


def numpy_tile(op: str, reps: Any, shape: tuple[int, ...]) -> tuple[tuple[int, ...], Callable[[Any], Any] | None]:
    """NumPy's tile as the kernels' repeats, one per axis: an int is one count; fewer counts than
    axes repeat the last axes (ones in front), more give the input leading axes of size one."""
    given = _int_or_ints(op, "reps", reps)
    counts = (given,) if isinstance(given, int) else given
    if len(counts) <= len(shape):
        return (1,) * (len(shape) - len(counts)) + counts, None
    ones = (1,) * (len(counts) - len(shape))
    return counts, lambda value: value.reshape(ones + tuple(value.shape))


def output(op: str, name: str, out: Any, shape: tuple[int, ...], dtype: str,
           inputs: Sequence[tuple[str, Any]], assign: bool,
           exact: tuple[str, ...] = ()) -> tuple[np.ndarray, np.ndarray | None]:
    """(array the kernel writes, the caller's ``out`` or None).

    ``inputs`` are (name, array or list of arrays). ``out`` must share no memory with an
    input, unless the input is one named in ``exact`` (an elementwise op's): exactly that
    input (the same data, dtype, shape and strides) the op writes over, as the C API allows
    (ADR 0006); any other overlap with it is computed apart and copied, so the result is as if
    the inputs were read first, as a NumPy ufunc's (ADR 0073). The kernel writes ``out``
    itself when it is contiguous, of the result's exact shape and dtype; otherwise a fresh
    array, copied into ``out``, whose shape never changes (elementwise ops broadcast the result
    into it) and whose dtype may be any the result casts to by NumPy's ``same_kind`` rule, as a
    ufunc's ``out`` may.
    """
    if out is None:
        return np.empty(shape, dtype=DTYPE_OF[dtype]), None
    if not isinstance(out, np.ndarray):
        raise TypeError(f"{op}: out must be a numpy.ndarray, got {type(out).__name__}")
    own = name_of(out.dtype) == dtype
    if not own and not np.can_cast(DTYPE_OF[dtype], out.dtype, casting="same_kind"):
        raise TypeError(f"{op}: out has dtype {out.dtype.name}, which the result's {dtype} does not cast to "
                        "by NumPy's same_kind rule")
    if out.shape != shape:
        fits = assign and _assignable(shape, out.shape)
        if not fits:
            raise ValueError(f"{op}: out has shape {out.shape}, the result has shape {shape}")
    if not out.flags.writeable:
        raise ValueError(f"{op}: out is read-only")
    apart = False  # (an overlap the kernel cannot take: computed into a fresh array)
    for label, value in inputs:
        for a in value if isinstance(value, list) else (value,):
            if a is None or not np.may_share_memory(out, a):
                continue
            if label not in exact:
                raise ValueError(f"{op}: {name} must not overlap {label}")
            apart = apart or not _same_array(out, a)  # (the same array: each element read before it is written)
    direct = own and not apart and out.shape == shape and out.flags.c_contiguous and out.dtype.isnative
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
    if not isinstance(out, (tuple, list)) or not isinstance(out, kind) or len(out) != n:
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


def fresh_seed() -> int:
    """A random stream's key from the operating system's entropy (a seed left out, as NumPy's
    ``default_rng()``), within the int64 range a seed takes."""
    return secrets.randbits(63)


def advanced(offset: int, count: int) -> int:
    """A stream's counter ``count`` elements on, wrapping as the kernels' 64-bit counter does (kept
    within int64, the range an offset takes)."""
    return (offset + count + 2**63) % 2**64 - 2**63
