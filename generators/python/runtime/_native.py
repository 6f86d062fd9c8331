"""The C backend: descriptors for the compiled kernels, called through cffi."""

from __future__ import annotations

from typing import Any

import numpy as np

def _load() -> tuple[Any, Any, ImportError | None]:
    """cffi's ffi and lib of the built extension, or why it is missing (the package was installed
    without building it)."""
    try:
        from opforge._opforge_c import ffi, lib  # type: ignore[import-not-found]  # (cffi's: no stub)
    except ImportError as exc:
        return None, None, exc
    return ffi, lib, None


ffi, lib, _MISSING = _load()
try:  # (the elementwise ops' NumPy ufuncs, which a binding calls first where they apply: ADR 0073)
    from opforge import _opforge_ufuncs as ufuncs  # type: ignore[attr-defined]  # (an extension: no stub)
except ImportError:
    ufuncs = None

#: opforge.h's values of the plain dtypes (a fixed-point type's is read from lib: fixed_point_tensor)
_DTYPE_ENUM = {"bool": 0, "int8": 1, "int16": 2, "int32": 3, "int64": 4, "uint8": 5, "float32": 6, "float64": 7,
               "uint16": 8, "uint32": 9, "uint64": 16, "float16": 17}
#: The same by dtype (a dict lookup; ``dtype.name`` costs microseconds a call).
_BY_DTYPE = {np.dtype(name): code for name, code in _DTYPE_ENUM.items()}


def _code(array: np.ndarray) -> int:
    code = _BY_DTYPE.get(array.dtype)
    return code if code is not None else _DTYPE_ENUM[array.dtype.name]


def available() -> bool:
    return lib is not None


def _fields(array: np.ndarray) -> list[Any]:
    """The initializer of a descriptor of a C-contiguous array: filling it in one
    ``ffi.new`` costs half of setting its fields one by one."""
    return [ffi.from_buffer(array), _code(array), array.ndim, array.shape]


def tensor(array: np.ndarray) -> Any:
    """A descriptor pointing at a C-contiguous array (kept alive by the caller)."""
    return ffi.new("opforge_tensor*", _fields(array))


def tensors(arrays: list[np.ndarray]) -> tuple[Any, Any]:
    """(array of descriptor pointers, the descriptors): the caller keeps both alive
    while C reads them."""
    descriptors = ffi.new("opforge_tensor[]", [_fields(a) for a in arrays] or 1)
    return ffi.new("opforge_tensor*[]", [descriptors + k for k in range(len(arrays))] or [ffi.NULL]), descriptors


def fixed_point_tensor(array: np.ndarray, fixed_type: str, shift: int | None, scale: Any,
                       offset: int | None, axis: int | None = None) -> Any:
    """A descriptor of a C-contiguous array of stored values of a fixed-point type (``q15``;
    ``bool`` for a comparison's result) with its attributes (ADR 0040); with an ``axis``,
    ``scale`` is its per-axis scales, a float32 array the caller keeps alive (ADR 0069)."""
    if lib is None:
        raise RuntimeError(f"the C backend is not built ({_MISSING}); use backend='python'")
    code = getattr(lib, f"OPFORGE_{fixed_type.upper()}")
    if axis is not None:
        return ffi.new("opforge_tensor*", [ffi.from_buffer(array), code, array.ndim, array.shape, 0, offset or 0, 0.0,
                                           ffi.cast("const float*", ffi.from_buffer(scale)), axis])
    return ffi.new("opforge_tensor*", [ffi.from_buffer(array), code, array.ndim, array.shape, shift or 0,
                                       offset or 0, scale or 0.0])


def frame(dtype: str, shape: tuple[int, ...]) -> Any:
    """A descriptor of one frame: dtype and shape, no data."""
    return ffi.new("opforge_tensor*", [ffi.NULL, _DTYPE_ENUM[dtype], len(shape), shape])


def pointer(array: np.ndarray) -> Any:
    """The address of a C-contiguous array's data (through the buffer protocol: a fraction
    of ``array.ctypes.data``'s cost)."""
    return ffi.cast("void*", ffi.from_buffer(array))


def int64s(values: tuple[int, ...]) -> Any:
    return ffi.new("int64_t[]", list(values) or [0])


def optional(ctype: str, value: Any) -> Any:
    return ffi.NULL if value is None else ffi.new(f"{ctype}*", value)


def dtype(name: str) -> int:
    return _DTYPE_ENUM[name]


def config(struct: str, values: dict[str, Any]) -> Any:
    return ffi.new(f"{struct}*", values)


def call(op: str, function: str, *args: Any) -> None:
    """Call the API function; a non-OK status raises ValueError with its detail."""
    if lib is None:
        raise RuntimeError(f"{op}: the C backend is not built ({_MISSING}); use backend='python'")
    detail = ffi.new("const char**")
    status = getattr(lib, function)(*args, detail)
    if status != 0:
        message = ffi.string(detail[0]).decode() if detail[0] != ffi.NULL else ""
        reason = ffi.string(lib.opforge_status_message(status)).decode()
        raise ValueError(f"{op}: {message or reason}")
