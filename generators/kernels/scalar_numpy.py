"""Scalar compute trees as NumPy expressions over arrays of one dtype.

Same semantics as :mod:`generators.kernels.scalar_c`; integer helpers
(``_k.div``, ``_k.pow``, shifts, rounding) and the fixed-point routines live in the
generated package's ``_kernels`` module (:func:`generators.kernels.routines.numpy_kernels`).
"""

from __future__ import annotations

from dsl.compute import BOOL_RESULT, SCall, SConst, SExpr, SSym
from dsl.dtypes import category
from dsl.fixed_point import ROUTINES

Value = tuple[str, str]  # (Python code, dtype)


def render(node: SExpr, dtype: str, env: dict[str, Value]) -> Value:
    if isinstance(node, SSym):
        return env[node.name]
    if isinstance(node, SConst):
        if isinstance(node.value, bool):
            return f"np.bool_({node.value})", "bool"
        return f"np.{dtype}({node.value!r})", dtype
    assert isinstance(node, SCall)
    if node.fn in ROUTINES:  # (each argument in its parameter's dtype; the definition is _k's)
        routine = ROUTINES[node.fn]
        args = [_as(render(a, d, env), d, node.fn) for a, (_, d) in zip(node.args, routine.params)]
        return f"_k.{node.fn}({', '.join(args)})", routine.body.domain
    args = [render(a, dtype, env) for a in node.args]
    code = _call(node.fn, [_as(a, dtype, node.fn) for a in args], dtype, args)
    return code, ("bool" if node.fn in BOOL_RESULT else dtype)


def _as(value: Value, dtype: str, fn: str) -> str:
    code, have = value
    if have == dtype or have == "bool" and fn in ("where", "logical_and", "logical_or", "logical_xor", "logical_not"):
        return code
    return f"_k.cast({code}, np.{dtype})"


_UFUNC = {"add": "np.add", "sub": "np.subtract", "mul": "np.multiply", "minimum": "np.minimum",
          "maximum": "np.maximum", "eq": "np.equal", "ne": "np.not_equal", "lt": "np.less",
          "le": "np.less_equal", "gt": "np.greater", "ge": "np.greater_equal",
          "logical_and": "np.logical_and", "logical_or": "np.logical_or", "logical_xor": "np.logical_xor",
          "logical_not": "np.logical_not", "bitwise_and": "np.bitwise_and", "bitwise_or": "np.bitwise_or",
          "bitwise_xor": "np.bitwise_xor", "bitwise_not": "np.invert", "neg": "np.negative",
          "abs": "np.absolute", "sign": "np.sign", "isnan": "np.isnan", "isinf": "np.isinf",
          "isfinite": "np.isfinite"}
_FLOAT_UFUNC = {"div": "np.divide", "pow": "np.power", "exp": "np.exp", "log": "np.log", "sqrt": "np.sqrt",
                "sin": "np.sin", "cos": "np.cos", "tan": "np.tan", "asin": "np.arcsin", "acos": "np.arccos",
                "atan": "np.arctan", "sinh": "np.sinh", "cosh": "np.cosh", "tanh": "np.tanh",
                "expm1": "np.expm1", "log1p": "np.log1p", "atan2": "np.arctan2", "floor": "np.floor",
                "ceil": "np.ceil", "round_half_even": "np.rint", "mod": "np.fmod", "floor_mod": "np.remainder",
                "asinh": "np.arcsinh", "acosh": "np.arccosh", "atanh": "np.arctanh"}


def _call(fn: str, a: list[str], dtype: str, raw: list[Value]) -> str:
    cat = category(dtype)
    if fn == "where":
        return f"np.where({raw[0][0]}, {a[1]}, {a[2]})"
    if cat == "float":
        if fn in _FLOAT_UFUNC:
            return f"{_FLOAT_UFUNC[fn]}({', '.join(a)})"
        if fn == "round_half_away":
            return f"_k.round_half_away({a[0]})"
        if fn == "sigmoid":
            return f"_k.sigmoid({a[0]})"
        if fn in ("erf", "erfc"):
            return f"_k.{fn}({a[0]})"
        if fn == "floor_div":
            return f"np.floor_divide({a[0]}, {a[1]})"
    else:
        if fn in ("div", "pow", "left_shift", "right_shift", "mod", "floor_mod", "floor_div", "rotl", "rotr"):
            return f"_k.{fn}({a[0]}, {a[1]})"
        if fn in ("popcount", "isqrt", "q_log", "ilog2"):
            return f"_k.{fn}({a[0]})"
        if fn in ("floor", "ceil", "round_half_even", "round_half_away"):
            return a[0]
        if fn == "isfinite":
            return f"np.ones(np.shape({a[0]}), dtype=bool)"
        if fn in ("isnan", "isinf"):
            return f"np.zeros(np.shape({a[0]}), dtype=bool)"
    if fn in _UFUNC:
        return f"{_UFUNC[fn]}({', '.join(a)})"
    raise ValueError(f"{fn} is not defined for {dtype}")
