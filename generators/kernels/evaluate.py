"""Running the NumPy reference at generation time.

The tests generator computes golden vectors with it and the docs generator
the examples on each op's page, so both see the very code the python
generator ships.
"""

from __future__ import annotations

import types
from typing import Any, Callable, Mapping

import numpy as np

from dsl import compute as C
from dsl import defaults
from dsl.model import Input, Namespace, Op
from dsl.types import DataType
from generators.kernels import numpy_runtime, py_names, reference, routines
from generators.kernels.py_constraints import PyConstraintRenderer
from generators.kernels.py_shapes import evaluate as run_shape
from generators.kernels.selection import variants_of
from generators.kernels.py_value_checks import PyValueChecks


def reference_functions(ns: Namespace) -> dict[str, Any]:
    """Execute the generated reference module of ``ns`` with the real runtime helpers."""
    source = reference.module(ns, "evaluated").replace("from opforge import _kernels as _k", "")
    scope: dict[str, Any] = {"_k": routines.numpy_kernels(), "np": np, "__name__": f"reference_{ns.key}"}
    exec(compile(source, f"<reference {ns.name}>", "exec"), scope)  # our own generated code
    return scope


def arg_value(op: Op, kwargs: Mapping[str, Any], name: str) -> Any:
    """The value of arg ``name``: given in ``kwargs`` (Python names) or its default, a
    computed one (another arg, a tensor's shape or dtype) resolved as ``dsl.defaults`` says."""
    key = py_names.py_name(name)
    if key in kwargs:
        return kwargs[key]
    arg = next(a for a in op.args if a.name == name)
    if not defaults.is_computed(arg):
        return arg.default
    given = {a.name: kwargs[py_names.py_name(a.name)] for a in op.args if py_names.py_name(a.name) in kwargs}
    return defaults.resolve(op, given, lambda tensor: np.asarray(kwargs[py_names.py_name(tensor)]))[name]


def _size_at(x: np.ndarray, axis: int) -> int:
    return x.shape[axis] if -x.ndim <= axis < x.ndim else -1


def _broadcastable(*arrays: np.ndarray) -> bool:
    try:
        np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        return False
    return True


def _tensor(i: Input, value: Any, order: str | None = None) -> Any:
    """An input's value as an array, or as a list of arrays for a tensor list."""
    if i.count.is_single:
        return np.array(value, order=order) if order else np.asarray(value)
    return [np.array(v, order=order) if order else np.asarray(v) for v in value]


def _scope(op: Op, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """The names a rendered constraint expression reads, bound to ``kwargs``."""
    scope: dict[str, Any] = {"_size_at": _size_at, "_broadcastable": _broadcastable}
    scope |= {py_names.py_name(i.name): _tensor(i, kwargs[py_names.py_name(i.name)]) for i in op.inputs}
    scope |= {py_names.py_name(a.name): arg_value(op, kwargs, a.name) for a in op.args}
    scope |= {py_names.config_param(cfg.name): kwargs.get(py_names.config_param(cfg.name)) or types.SimpleNamespace(
        **{py_names.py_name(x.name): x.default for x in cfg.args}) for cfg in op.configs}
    return scope


def constraints_hold(op: Op, kwargs: Mapping[str, Any]) -> bool:
    """Whether every constraint of ``op`` (backend ones included: the C API
    checks them all) holds for ``kwargs``."""
    scope, render = _scope(op, kwargs), PyConstraintRenderer(op).render
    return all(eval(render(c.expr), scope) for _, c in op.all_constraints())  # our own rendering


def workspace_doubles(op: Op, kwargs: Mapping[str, Any]) -> int:
    """The doubles of scratch an op's kernel needs for ``kwargs`` (0 without a workspace)."""
    node = getattr(op.compute, "workspace", None)
    if node is None:
        return 0
    return max(0, int(eval(PyConstraintRenderer(op).render(node), _scope(op, kwargs))))  # our own rendering


def _values_ok(op: Op, arrays: Mapping[str, Any], args: Mapping[str, Any], dtype: str,
               shapes: list[Any]) -> None:
    """The checks the op's form makes on values at run time (``value_refusals``), run as
    the binding's very lines: ValueError where they fail."""
    lines = PyValueChecks().lines(op)
    if not lines:
        return
    scope: dict[str, Any] = {"_k": routines.numpy_kernels(), "_op": op.qualified_name, "dtype": dtype}
    scope |= {py_names.py_name(n): a for n, a in arrays.items()}
    scope |= {py_names.py_name(n): v for n, v in args.items()}
    scope |= {f"{py_names.py_name(a.name)}_index": a.possible_values.index(args[a.name])
              for a in op.args if a.type is DataType.ENUM}
    scope |= {f"_shape{k}" if k else "_shape": s for k, s in enumerate(shapes)}
    exec("\n".join(lines), scope)  # the binding's own generated lines


def run(op: Op, fn: Callable[..., None], kwargs: Mapping[str, Any], dtype: str) -> Any:
    """The reference result of ``op`` for the variant ``dtype`` on ``kwargs`` (inputs
    and args by Python name): an array, a tuple of arrays (one per output) for an op
    with several outputs (of a list output: one per tensor of the list), or None
    where the op must refuse the inputs. The outputs' shapes, and what the op refuses
    before it looks at values, are what its form says (ADR 0029)."""
    c = op.compute
    arrays = {i.name: _tensor(i, kwargs[py_names.py_name(i.name)], "C") for i in op.inputs}
    arg = lambda name: arg_value(op, kwargs, name)  # noqa: E731
    variant = next(v for v in variants_of(op) if v.dtype == dtype)
    if not constraints_hold(op, kwargs):
        return None
    tensors = {n: a.shape for n, a in arrays.items() if not isinstance(a, list)}
    lists = {n: [t.shape for t in a] for n, a in arrays.items() if isinstance(a, list)}
    args = {a.name: arg(a.name) for a in op.args}
    if not all(run_shape(r.condition, tensors, args, lists) for r in c.refusals(op)):
        return None
    shapes = [run_shape(s, tensors, args, lists) for s in c.output_shapes(op)]
    try:
        _values_ok(op, arrays, args, arg("dtype") if C.dtype_from_arg(c) else dtype, shapes)
        if C.list_output(c) is not None:  # a list output: a tuple of arrays, one per tensor of the list
            parts = [np.empty(s, dtype=variant.of(c.outputs)) for s in shapes[0]]
            fn(arrays[c.source], *(arg(a.name) for a in op.args), parts)
            return tuple(parts)
        out_dtype = arg("dtype") if C.dtype_from_arg(c) else variant.of(op.outputs[0].name)
        outs = [np.empty(s, dtype=out_dtype if k == 0 else variant.of(o.name))
                for k, (s, o) in enumerate(zip(shapes, op.outputs))]
        args_: list[Any] = [arrays[i.name] for i in op.inputs]
        for a in op.args:
            value = arg(a.name)
            args_.append(a.possible_values.index(value) if a.type is DataType.ENUM else value)
        args_ += [kwargs.get(py_names.config_param(cfg.name)) or types.SimpleNamespace(
            **{x.name: x.default for x in cfg.args}) for cfg in op.configs]
        fn(*args_, *outs)
        return outs[0] if len(outs) == 1 else tuple(outs)
    except ValueError:
        return None


def through_float_table(expr: Any, name: str, dtype: str) -> list[int]:
    """The results of a unary tree over ``name`` for every value of the 8-bit ``dtype``, as the
    NumPy reference computes an integer through floats (ADR 0058): in float64, converted back
    by cast's rule. A kernel that reads them computes exactly what the reference does."""
    from generators.kernels import scalar_numpy

    info = np.iinfo(dtype)
    values = np.arange(info.min, info.max + 1, dtype=np.float64)
    code, _ = scalar_numpy.render(expr, "float64", {name: ("v", "float64")})
    with np.errstate(all="ignore"):
        result = eval(code, {"np": np, "_k": routines.numpy_kernels(), "v": values})  # our own rendered tree
    real = np.broadcast_to(np.asarray(result, dtype=np.float64), values.shape)
    return [int(r) for r in numpy_runtime.convert(real, dtype)]
