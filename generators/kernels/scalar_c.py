"""Scalar compute trees as C99 expressions, per concrete dtype.

Semantics (the same in :mod:`generators.kernels.scalar_numpy`):
integers wrap around (computed in unsigned types, no undefined behaviour);
integer division truncates, x / 0 is 0 (likewise the remainders and
floored division: x % 0 is 0, MIN // -1 wraps to MIN); integer powers with a negative
exponent are 0 except for bases 1 and -1; shifts by a negative amount or the
bit width or more give 0 (left) or the sign fill (right); max/min propagate
NaN; rounding to even uses nearbyint in the default rounding mode. The
``opf_*`` helpers the output calls live in ``opforge_internal.h``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dsl.compute import BOOL_RESULT, SCall, SConst, SExpr, SSym
from dsl.dtypes import HALF, category
from dsl.fixed_point import ROUTINES

C_TYPE = {"bool": "bool", "int8": "int8_t", "int16": "int16_t", "int32": "int32_t", "int64": "int64_t",
          "uint8": "uint8_t", "uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t", "float32": "float",
          "float64": "double", "float16": "uint16_t"}  # (a half's bits: C99 has no half type, ADR 0075)
SUFFIX = {"bool": "b", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8", "uint16": "u16",
          "uint32": "u32", "uint64": "u64", "float32": "f32", "float64": "f64", "float16": "f16"}
#: Functions the fixed-point kernels call that no op may (not in dsl.scalar.FUNCTIONS), and the
#: dtypes each is defined for: CMSIS-DSP's arm_vlog (``q_log``), an output shift's ``ilog2``.
KERNEL_ONLY = {"q_log": ("int16", "int32"), "ilog2": ("int32",)}
#: Unsigned type integer arithmetic wraps in (at least as wide as int).
WIDE_UNSIGNED = {"int8": "uint32_t", "int16": "uint32_t", "int32": "uint32_t", "int64": "uint64_t",
                 "uint8": "uint32_t", "uint16": "uint32_t", "uint32": "uint32_t", "uint64": "uint64_t"}

_LIBM = ("exp", "log", "sqrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
         "erf", "erfc", "asinh", "acosh", "atanh", "expm1", "log1p", "floor", "ceil")


def _libm(name: str, dtype: str) -> str:
    return name + ("f" if dtype == "float32" else "")


Value = tuple[str, str]  # (C code, dtype of the value)


def render(node: SExpr, dtype: str, env: dict[str, Value]) -> Value:
    """C code for ``node`` computed in ``dtype``; ``env`` gives each symbol's code and dtype. A half
    is read as the float it is (ADR 0075): its bits are no number C computes with."""
    if isinstance(node, SSym):
        code, have = env[node.name]
        return (f"opf_f16_to_f32({code})", "float32") if have == HALF else (code, have)
    if isinstance(node, SConst):
        return _const(node.value, dtype), ("bool" if isinstance(node.value, bool) else dtype)
    assert isinstance(node, SCall)
    if node.fn in ROUTINES:  # (each argument in its parameter's dtype; the definition is the runtime's)
        routine = ROUTINES[node.fn]
        args = [_as(render(a, d, env), d, node.fn) for a, (_, d) in zip(node.args, routine.params)]
        return f"opf_{node.fn}({', '.join(args)})", routine.body.domain
    args = [render(a, dtype, env) for a in node.args]
    code = _call(node.fn, [_as(a, dtype, node.fn) for a in args], dtype, args)
    return code, ("bool" if node.fn in BOOL_RESULT else dtype)


def _const(value: object, dtype: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if category(dtype) == "float":
        text = repr(float(value))
        if text in ("inf", "-inf", "nan"):
            return {"inf": "INFINITY", "-inf": "(-INFINITY)", "nan": "NAN"}[text]
        return f"{text}f" if dtype == "float32" else text
    if category(dtype) == "bool":
        return "true" if value else "false"
    if int(value) > 2**63 - 1:  # (a decimal constant C gives no signed type)
        return f"UINT64_C({int(value)})"
    return f"(({C_TYPE[dtype]}){int(value)})" if int(value) >= 0 else f"(({C_TYPE[dtype]})({int(value)}))"


def _as(value: Value, dtype: str, fn: str) -> str:
    code, have = value
    if fn in ("logical_and", "logical_or", "logical_xor", "logical_not") or have == dtype or have == "bool" and fn == "where":
        return code
    return f"(({C_TYPE[dtype]})({code}))"


def _call(fn: str, a: list[str], dtype: str, raw: list[Value]) -> str:
    cat = category(dtype)
    sfx = SUFFIX[dtype]
    t = C_TYPE[dtype]
    if fn == "where":
        cond = raw[0][0]
        return f"(({cond}) ? ({a[1]}) : ({a[2]}))"
    if fn in _CMP:
        return f"(({a[0]}) {_CMP[fn]} ({a[1]}))"
    if fn in ("logical_and", "logical_or", "logical_xor"):
        op = {"logical_and": "&&", "logical_or": "||", "logical_xor": "!="}[fn]
        return f"((bool)({a[0]}) {op} (bool)({a[1]}))"
    if fn == "logical_not":
        return f"(!({a[0]}))"
    if fn in ("isnan", "isinf", "isfinite"):
        if cat != "float":
            return "true" if fn == "isfinite" else "false"
        return f"({fn}({a[0]}) != 0)"
    if cat == "float":
        return _float_call(fn, a, dtype)
    if cat == "bool":
        raise ValueError(f"{fn} is not defined for bool")
    w = WIDE_UNSIGNED[dtype]
    if fn in ("add", "sub", "mul"):
        op = {"add": "+", "sub": "-", "mul": "*"}[fn]
        return f"(({t})({w})(({w})({a[0]}) {op} ({w})({a[1]})))"
    if fn == "neg":
        return f"(({t})({w})(({w})0 - ({w})({a[0]})))"
    if fn == "abs":
        if cat == "unsigned":
            return a[0]
        return f"(({a[0]}) < 0 ? ({t})({w})(({w})0 - ({w})({a[0]})) : ({a[0]}))"
    if fn in ("div", "pow", "left_shift", "right_shift", "mod", "floor_mod", "floor_div", "rotl", "rotr"):
        return f"opf_{fn}_{sfx}({a[0]}, {a[1]})"
    if fn in ("popcount", "isqrt"):
        return f"opf_{fn}_{sfx}({a[0]})"
    if fn in KERNEL_ONLY:  # (a fixed-point kernel's: defined for the dtypes it computes in)
        if dtype not in KERNEL_ONLY[fn]:
            raise ValueError(f"{fn} is not defined for {dtype}")
        return f"opf_{fn}_{sfx}({a[0]})"
    if fn in ("minimum", "maximum"):  # (functions: each operand computed once)
        return f"opf_{fn}_{sfx}({a[0]}, {a[1]})"
    if fn == "sign":
        if cat == "unsigned":  # (x < 0 is always false there, and gcc says so)
            return f"(({t})(({a[0]}) > 0))"
        return f"(({t})((({a[0]}) > 0) - (({a[0]}) < 0)))"
    if fn in ("floor", "ceil", "round_half_even", "round_half_away"):
        return a[0]
    if fn in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        op = {"bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^"}[fn]
        return f"(({t})(({a[0]}) {op} ({a[1]})))"
    if fn == "bitwise_not":
        return f"(({t})(~({w})({a[0]})))"
    raise ValueError(f"{fn} is not defined for {dtype}")


_CMP = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


def _float_call(fn: str, a: list[str], dtype: str) -> str:
    one = "1.0f" if dtype == "float32" else "1.0"
    if fn in ("add", "sub", "mul", "div"):
        op = {"add": "+", "sub": "-", "mul": "*", "div": "/"}[fn]
        return f"(({a[0]}) {op} ({a[1]}))"
    if fn == "neg":
        return f"(-({a[0]}))"
    if fn == "abs":
        return f"{_libm('fabs', dtype)}({a[0]})"
    if fn == "pow":
        return f"{_libm('pow', dtype)}({a[0]}, {a[1]})"
    if fn == "atan2":
        return f"{_libm('atan2', dtype)}({a[0]}, {a[1]})"
    if fn == "mod":
        return f"{_libm('fmod', dtype)}({a[0]}, {a[1]})"
    if fn == "floor_div":
        return f"opf_floor_div_{SUFFIX[dtype]}({a[0]}, {a[1]})"
    if fn == "floor_mod":
        return f"opf_floor_mod_{SUFFIX[dtype]}({a[0]}, {a[1]})"
    if fn in ("minimum", "maximum"):
        return f"opf_{fn}_{SUFFIX[dtype]}({a[0]}, {a[1]})"
    if fn == "sign":
        return f"opf_sign_{SUFFIX[dtype]}({a[0]})"
    if fn == "round_half_even":
        return f"{_libm('nearbyint', dtype)}({a[0]})"
    if fn == "round_half_away":
        return f"{_libm('round', dtype)}({a[0]})"
    if fn == "sigmoid":
        return f"({one} / ({one} + {_libm('exp', dtype)}(-({a[0]}))))"
    if fn in _LIBM:
        return f"{_libm(fn, dtype)}({a[0]})"
    raise ValueError(f"{fn} is not defined for {dtype}")



def _limits(dtype: str) -> tuple[int, int]:
    """(lowest, highest) of an integer dtype."""
    bits = int(dtype.lstrip("uint"))
    return (0, 2**bits - 1) if dtype.startswith("u") else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)


def narrowed(code: str, src: str, to: str) -> str:
    """``code``, a result a kernel computed in ``src``, stored as an element of ``to``: a half
    rounded once by cast's rule (ADR 0076); any other dtype by a C cast, as a kernel of its own
    dtype stores (an integer result wraps as its arithmetic does)."""
    return converted(f"({code})", src, to) if to == HALF else f"({C_TYPE[to]})({code})"


def converted(code: str, src: str, to: str) -> str:
    """``code``, a value of dtype ``src``, as a value of ``to``: cast's rule (ops/base.py), once
    for every C kernel. To bool, != 0 (NaN is true); to a float, the nearest value (overflow an
    infinity); a float to an integer, truncated toward zero and saturated at the limits, NaN 0;
    an integer (or bool) to an integer, modulo 2^bits, computed in unsigned types so that no
    conversion is implementation-defined. ``code`` is read more than once: a plain value."""
    ct = C_TYPE[to]
    if src == to:
        return code
    if src == HALF:  # (a half is read as its float, exactly)
        return converted(f"opf_f16_to_f32({code})", "float32", to)
    if to == HALF:  # (rounded once; an integer as a float is exact below 2^24, and 65520 is infinity)
        if src == "bool":
            return f"(uint16_t)({code} ? 0x3C00u : 0u)"
        return {"float32": f"opf_f32_to_f16({code})", "float64": f"opf_f64_to_f16({code})"}.get(
            src, f"opf_f32_to_f16((float){code})")
    if to == "bool":
        return f"({code} != 0)"
    if category(to) == "float":
        return f"(({ct}){code})"
    low, high = _limits(to)
    if category(src) == "float":  # (both bounds powers of two: exact in either float type)
        suffix = "f" if src == "float32" else ""
        lowest, beyond = f"{float(low):.1f}{suffix}", f"{float(high + 1):.1f}{suffix}"
        least, most = {"int64": ("INT64_MIN", "INT64_MAX"), "uint64": ("((uint64_t)0)", "UINT64_MAX")}.get(
            to, (_const(low, to), _const(high, to)))
        return (f"(isnan({code}) ? ({ct})0 : {code} < {lowest} ? {least} : {code} >= {beyond} ? {most} "
                f": ({ct}){code})")
    if src == "bool" or (_limits(src)[0] >= low and _limits(src)[1] <= high):  # every value fits
        return f"(({ct}){code})"
    bits = int(to.lstrip("uint"))
    if to == "int64":  # (from uint64, the one source that does not fit: values above INT64_MAX wrap)
        return (f"((uint64_t){code} > (uint64_t)INT64_MAX ? "
                f"(int64_t)((uint64_t){code} - (uint64_t)INT64_MAX - 1u) + INT64_MIN : (int64_t){code})")
    if to == "uint64":  # (modulo 2^64 is C's own conversion to an unsigned type)
        return f"((uint64_t){code})"
    wide, signed = ("uint64_t", "int64_t") if "64" in src or bits == 32 else ("uint32_t", "int32_t")
    unsigned = f"(({wide}){code} & {hex(2**bits - 1)}u)"
    if to.startswith("u"):
        return f"(({ct}){unsigned})"
    return f"(({ct})(({signed}){unsigned} - ({signed})((({wide}){code} & {hex(2 ** (bits - 1))}u) << 1)))"


def c_value(value: Any, dtype: str) -> str:
    """``value`` as a C literal of ``dtype`` (NaN and the infinities as math.h names)."""
    if dtype == "bool":
        return "true" if bool(value) else "false"
    if dtype == HALF:  # (its bits)
        return f"0x{int(np.float16(value).view(np.uint16)):04X}u"
    if dtype in ("float32", "float64"):
        v = float(value)
        if math.isnan(v):
            return "NAN"
        if math.isinf(v):
            return "INFINITY" if v > 0 else "-INFINITY"
        text = repr(v) if v != 0 or math.copysign(1, v) > 0 else "-0.0"
        return text + ("f" if dtype == "float32" else "")
    v = int(value)
    if dtype == "int64" and v == -(2**63):
        return "INT64_MIN"
    return {"int64": f"INT64_C({v})", "uint64": f"UINT64_C({v})"}.get(dtype, str(v))


def c_array(name: str, values: np.ndarray, dtype: str, const: bool = True) -> str:
    """A static C array ``name`` of ``values`` (one zero where there are none: C has no empty arrays)."""
    flat = [c_value(v, dtype) for v in values.reshape(-1)] or [c_value(0, dtype)]
    qual = "static const" if const else "static"
    return f"{qual} {C_TYPE[dtype]} {name}[{len(flat)}] = {{{', '.join(flat)}}};"
