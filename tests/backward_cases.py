"""The derived backward ops against JAX (issue 24), in two processes.

The test process (which has jax) writes, per backward op and float dtype, seeded inputs and
``jax.vjp`` of the forward op's own computation, written in ``jax.numpy`` from its traced
expression; this script, run by the virtual env the generated package is installed in, calls
the backward op on both backends with the same inputs and writes what they give:

    python backward_cases.py cases.json inputs.npz results.npz
"""

from __future__ import annotations

import importlib
import json
import sys
from typing import Any, Callable

import numpy as np

#: Values of args that have no default (or whose other values take another case of the expression).
ARG_VALUES: dict[str, list[Any]] = {"clip_value_min": [-1.0], "clip_value_max": [1.0], "base": [None, 2.0],
                                    "approximate": ["none", "tanh"]}


def jax_function(name: str) -> Callable[..., Any]:
    """The jax.numpy function of a scalar IR function (``dsl/scalar.py``), by its meaning there."""
    import jax
    import jax.numpy as jnp
    from jax.scipy.special import erf, erfc

    table: dict[str, Callable[..., Any]] = {
        "add": jnp.add, "sub": jnp.subtract, "mul": jnp.multiply, "div": jnp.divide, "pow": jnp.power,
        "neg": jnp.negative, "abs": jnp.abs, "sign": jnp.sign, "mod": jnp.fmod, "floor_mod": jnp.mod,
        "floor_div": jnp.floor_divide, "minimum": jnp.minimum, "maximum": jnp.maximum, "floor": jnp.floor,
        "ceil": jnp.ceil, "round_half_even": jnp.round,
        "round_half_away": lambda x: jnp.sign(x) * jnp.floor(jnp.abs(x) + 0.5),
        "exp": jnp.exp, "log": jnp.log, "sqrt": jnp.sqrt, "sin": jnp.sin, "cos": jnp.cos, "tan": jnp.tan,
        "asin": jnp.arcsin, "acos": jnp.arccos, "atan": jnp.arctan, "sinh": jnp.sinh, "cosh": jnp.cosh,
        "tanh": jnp.tanh, "erf": erf, "erfc": erfc, "expm1": jnp.expm1, "log1p": jnp.log1p, "atan2": jnp.arctan2,
        "sigmoid": jax.nn.sigmoid, "asinh": jnp.arcsinh, "acosh": jnp.arccosh, "atanh": jnp.arctanh,
        "eq": jnp.equal, "ne": jnp.not_equal, "lt": jnp.less, "le": jnp.less_equal, "gt": jnp.greater,
        "ge": jnp.greater_equal, "isnan": jnp.isnan, "isinf": jnp.isinf, "isfinite": jnp.isfinite,
        "logical_and": jnp.logical_and, "logical_or": jnp.logical_or, "logical_xor": jnp.logical_xor,
        "logical_not": jnp.logical_not, "where": jnp.where,
    }
    return table[name]


def jax_evaluate(node: Any, env: dict[str, Any], dtype: str) -> Any:
    """A traced scalar expression evaluated by jax.numpy on the arrays and values of ``env``."""
    import jax.numpy as jnp

    kind = type(node).__name__
    if kind == "SSym":
        return env[node.name]
    if kind == "SConst":
        return node.value if isinstance(node.value, bool) else jnp.asarray(node.value, dtype=dtype)
    return jax_function(node.fn)(*(jax_evaluate(a, env, dtype) for a in node.args))


def main(cases_path: str, inputs_path: str, results_path: str) -> None:
    cases = json.loads(open(cases_path).read())
    inputs = np.load(inputs_path)
    results: dict[str, np.ndarray] = {}
    for key, case in cases.items():
        function = getattr(importlib.import_module(f"opforge.{case['module']}"), case["function"])
        for backend in ("c", "python"):
            results[f"{key}/{backend}"] = function(inputs[f"{key}/x"], inputs[f"{key}/grad"], **case["args"],
                                                   backend=backend)
        if case.get("forward"):  # the forward op, for central differences in float64
            forward = getattr(importlib.import_module(f"opforge.{case['module']}"), case["forward"])
            step = inputs[f"{key}/step"]
            for sign, name in ((1, "above"), (-1, "below")):
                results[f"{key}/{name}"] = forward(inputs[f"{key}/x"] + sign * step, **case["args"], backend="c")
    np.savez(results_path, **results)


if __name__ == "__main__":
    main(*sys.argv[1:4])
