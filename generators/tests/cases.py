"""Test cases per op and dtype, derived from the compute description.

Each case is plain data (shapes, dtypes, args, seed, tolerance) so the same
case drives the generated pytest parity tests and the golden C tests.
"""

from __future__ import annotations

import zlib
from typing import Any, Iterator

import numpy as np

from dsl import compute as C
from dsl import defaults
from dsl import dtypes as D
from dsl import fixed_point as F
from dsl.model import Arg, Op
from dsl.types import DataType
from generators.kernels import numpy_keywords
from generators.kernels.selection import variants_of
from generators.kernels.py_names import config_param, py_name
from generators.tests.form_cases import draw

#: Functions whose float results are correctly rounded in C and NumPy alike.
EXACT = {"add", "sub", "mul", "div", "neg", "abs", "minimum", "maximum", "sqrt", "eq", "ne", "lt", "le", "gt",
         "ge", "where", "floor", "ceil", "round_half_even", "round_half_away", "sign", "isnan", "isinf",
         "isfinite", "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or",
         "bitwise_xor", "bitwise_not", "left_shift", "right_shift", "mod", "floor_mod", "floor_div", "rotl", "rotr",
         "popcount", "isqrt"}


def _seed(*parts: object) -> int:
    return zlib.crc32(repr(parts).encode()) & 0x7FFFFFFF


def cases(op: Op) -> Iterator[tuple[str, dict[str, Any]]]:
    """(dtype, case spec) pairs for every variant of the op."""
    c = op.compute
    for v in variants_of(op):
        for i, spec in enumerate(draw(op, c, v, _tol(op, c, v.dtype))):
            spec["seed"] = _seed(op.qualified_name, v.dtype, i)
            if (resolved := _resolved_defaults(op, spec)):
                spec["defaults"] = resolved
            spec["inputs"] = {py_name(k): t for k, t in spec["inputs"].items()}
            spec["args"] = {py_name(k): a for k, a in spec["args"].items()}
            yield v.dtype, spec


def python_dtypes(op: Op) -> set[str]:
    """The variants the package's function runs (``numpy_keywords.api_variants``): its parity
    cases and spoiled calls are of those; the C golden tests take every variant."""
    return {v.dtype for v in numpy_keywords.api_variants(op)}


def call_spec(op: Op, spec: dict[str, Any]) -> dict[str, Any]:
    """A case as the package's function is called with it: args standing for NumPy's keywords
    under their names (``numpy_keywords``); the C golden tests take the case as it is."""
    return dict(spec, args=numpy_keywords.call_kwargs(op, spec["args"]),
                **({"defaults": numpy_keywords.call_kwargs(op, spec["defaults"])} if "defaults" in spec else {}))


def _resolved_defaults(op: Op, spec: dict[str, Any]) -> dict[str, Any]:
    """The values the args a case leaves out take from computed defaults (Python names): the
    tests call the op with them given too, and both calls must agree (issue 17.1)."""
    left_out = [a for a in defaults.fill_order(op) if a.name not in spec["args"]]
    tensors = {n: t for n, t in spec["inputs"].items() if isinstance(t, dict)}
    if not left_out or any(defaults.source(a.default).name not in tensors | spec["args"]  # type: ignore[arg-type]
                           for a in left_out):
        return {}
    given = {a.name: spec["args"][a.name] for a in op.args if a.name in spec["args"]}
    values = defaults.resolve(op, given, lambda n: np.empty(tensors[n]["shape"], dtype=tensors[n]["dtype"]))
    return {py_name(a.name): values[a.name] for a in left_out}


def _tol(op: Op, c: Any, dtype: str) -> dict[str, float]:
    if dtype in D.through_float(op):
        # (a float64 sum's order, or C's libm against NumPy, may put the float result either side
        # of an integer: the integers then differ by one, ADR 0058; an 8-bit table is exact)
        return {"ulps": 1, "abs": 0.0}
    if D.category(dtype) != "float":
        return {"ulps": 0, "abs": 0.0}
    eps = float(np.finfo(dtype).eps)
    if isinstance(c, C.Elementwise):
        used = {f for _, e in c.cases for f in C.functions(e)}
        # Composed formulas may cancel (1 + tanh(...) near -1): a few eps of the scale besides the ulps.
        return {"ulps": 0, "abs": 0.0} if used <= EXACT else {"ulps": 8, "abs": 4 * eps}
    if isinstance(c, (C.Reduction, C.Contraction, C.TensorDot, C.FragmentKernel)):
        return {"ulps": 4, "abs": 256 * eps}
    if isinstance(c, C.RandomSample):
        return {"ulps": 2, "abs": 0.0}
    return {"ulps": 0, "abs": 0.0}




#: Per kind of arg: a value and what the binding must do with it: raise "TypeError" or
#: "ValueError", or "agree" (take it or refuse it, the same way on both backends).
BAD_ARGS: dict[str, list[tuple[Any, str]]] = {
    "int": [(2**70, "ValueError"), (1.5, "TypeError"), ("3", "TypeError"), (True, "TypeError"), (99, "agree"),
            (-99, "agree")],
    "ints": [(["a"], "TypeError"), ([2**70], "ValueError"), (7, "TypeError"), ("ab", "TypeError"), ([99], "agree"),
             ([-99], "agree"), ([], "agree")],
    "real": [("x", "TypeError"), (True, "TypeError"), (float("nan"), "agree"), (float("inf"), "agree"),
             (-1e300, "agree")],
    "bool": [("yes", "TypeError"), (1, "TypeError")],
    "enum": [("no_such_value", "ValueError"), (0, "TypeError")],
    "dtype": [("no_such_type", "TypeError"), ("complex64", "ValueError")],
    "fixed_type": [("no_such_type", "ValueError"), ("float32", "ValueError"), (15, "TypeError")],
}
ALL_DTYPES = D.CONCRETE[DataType.NDARRAY]


def _arg_kind(a: Arg) -> str:
    if a.type in (DataType.INT, DataType.LONG):
        return "int" if a.count.is_single else "ints"
    if a.type is DataType.DATA_TYPE and a.default in F.TYPES:  # (a fixed-point type's name: ADR 0068)
        return "fixed_type"
    return {DataType.FLOATING_POINT: "real", DataType.NUMERIC: "real", DataType.BOOLEAN: "bool",
            DataType.ENUM: "enum", DataType.DATA_TYPE: "dtype"}[a.type]


def spoiled_cases(op: Op) -> Iterator[tuple[str, str, str, dict[str, Any]]]:
    """(dtype, what is spoiled, expected outcome, case spec): the op's first case with one
    parameter at a time given a value of the wrong type or dtype, out of range, a rank
    above the maximum or a shape that may not fit (BAD_ARGS says what each must raise)."""
    if isinstance(op.compute, C.SlidingWindow):  # (a stream's queue checks its own arguments)
        return
    # (a variant of the op's own types: an integer through floats would lend its exact tolerance to
    # a spoiled call promoted to floats)
    runs = python_dtypes(op) - set(D.through_float(op))
    dtype, template = next((d, spec) for d, spec in cases(op) if d in runs)
    template = call_spec(op, template)
    named = numpy_keywords.keywords(op)
    allowed = {i.name: {v.of(i.name) for v in numpy_keywords.api_variants(op)} for i in op.inputs}
    names = {py_name(i.name): i.name for i in op.inputs}

    def spoil(what: str, expect: str, inputs: dict[str, Any] | None = None,
              args: dict[str, Any] | None = None, tol: dict[str, float] | None = None
              ) -> tuple[str, str, str, dict[str, Any]]:
        spec = dict(template, inputs=template["inputs"] | (inputs or {}), args=template["args"] | (args or {}))
        spec.pop("defaults", None)  # (what the template's defaults resolve to need not hold for the spoiled one)
        if tol is not None:
            spec["tol"] = tol
        return dtype, what, expect, spec

    for name, t in template["inputs"].items():
        label = names[name]
        if isinstance(t, list):  # a list of two dtypes
            other = next((d for d in ALL_DTYPES if d != t[0]["dtype"]), None)
            # (they promote as NumPy's concatenate's, ADR 0053: taken, or refused alike)
            yield spoil(f"{label} mixed dtypes", "agree", {name: [t[0], dict(t[0], dtype=other)]})
            continue
        for d in ALL_DTYPES:
            if d != t["dtype"]:
                # (integers promoted to floats, by a float or by uint64 beside a signed integer: the
                # floats' tolerance, as sums may run in other orders)
                promoted = np.result_type(d, t["dtype"]).name
                floats = D.category(promoted) == "float" and D.category(t["dtype"]) != "float"
                plain = {k: v for k, v in t.items() if k != "fixed"}  # (a plain array: not the type's stored values)
                yield spoil(f"{label} dtype {d}", _dtype_outcome(op, label, d, allowed[label]),
                            {name: dict(plain, dtype=d)}, tol=_tol(op, op.compute, promoted) if floats else None)
        yield spoil(f"{label} rank 9", "ValueError", {name: dict(t, shape=[1] * 9)})
        yield spoil(f"{label} one more axis", "agree", {name: dict(t, shape=[*t["shape"], 3])})
    for a in op.args:
        if a.name in named:  # (NumPy's keyword, and the values it must refuse)
            k = named[a.name]
            for value, expect in k.bad:
                yield spoil(f"{k.name} = {value!r}", expect, args={k.name: value})
            continue
        for value, expect in BAD_ARGS[_arg_kind(a)]:
            yield spoil(f"{a.name} = {value!r}", expect, args={py_name(a.name): value})
    for cfg in op.configs:
        yield spoil(f"{config_param(cfg.name)} a dict", "TypeError", args={config_param(cfg.name): {"seed": 1}})


def _dtype_outcome(op: Op, name: str, dtype: str, allowed: set[str]) -> str:
    """What the binding does with input ``name`` given as ``dtype``: a dtype of its variants is
    taken or refused alike on both backends; where NumPy's promotion applies (ADR 0053), another
    one may promote into a variant (the NumPy tables check which), but outside a NumPy ufunc's
    loops a bool alone never turns into a number; elsewhere it is a TypeError."""
    if dtype in allowed:
        return "agree"
    if isinstance(op.compute, C.FixedPointConversion):  # (real numbers quantize; anything else is no FixedPointArray)
        real = D.category(dtype) in ("float", "signed", "unsigned") and allowed == {"float32"}
        return "agree" if real else "TypeError"
    if numpy_keywords.promotes(op):
        alone = dtype == "bool" and D.shared_type_inputs(op) == (name,) and not numpy_keywords.ufunc(op)
        return "TypeError" if alone else "agree"
    return "TypeError"


def python_args(op: Op) -> set[str]:
    return {py_name(a.name) for a in op.args}
