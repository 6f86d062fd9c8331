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
from dsl import expr as E
from dsl.model import Input, Namespace, Op
from dsl.types import DataType
from generators.kernels import numpy_runtime, reference
from generators.kernels.messages import scatter_messages
from generators.kernels.py_constraints import PyConstraintRenderer
from generators.kernels.selection import variants_of


def reference_functions(ns: Namespace) -> dict[str, Any]:
    """Execute the generated reference module of ``ns`` with the real runtime helpers."""
    source = reference.module(ns, "evaluated").replace("from opforge import _kernels as _k", "")
    scope: dict[str, Any] = {"_k": numpy_runtime, "np": np, "__name__": f"reference_{ns.key}"}
    exec(compile(source, f"<reference {ns.name}>", "exec"), scope)  # our own generated code
    return scope


def arg_value(op: Op, kwargs: Mapping[str, Any], name: str) -> Any:
    """The value of arg ``name``: given in ``kwargs`` (Python names) or its default, a
    computed one (another arg, a tensor's shape or dtype) resolved as ``dsl.defaults`` says."""
    key = reference.py_name(name)
    if key in kwargs:
        return kwargs[key]
    arg = next(a for a in op.args if a.name == name)
    if not defaults.is_computed(arg):
        return arg.default
    given = {a.name: kwargs[reference.py_name(a.name)] for a in op.args if reference.py_name(a.name) in kwargs}
    return defaults.resolve(op, given, lambda tensor: np.asarray(kwargs[reference.py_name(tensor)]))[name]


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
    scope |= {reference.py_name(i.name): _tensor(i, kwargs[reference.py_name(i.name)]) for i in op.inputs}
    scope |= {reference.py_name(a.name): arg_value(op, kwargs, a.name) for a in op.args}
    scope |= {reference.config_param(cfg.name): kwargs.get(reference.config_param(cfg.name)) or types.SimpleNamespace(
        **{reference.py_name(x.name): x.default for x in cfg.args}) for cfg in op.configs}
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


def run(op: Op, fn: Callable[..., None], kwargs: Mapping[str, Any], dtype: str) -> Any:
    """The reference result of ``op`` for the variant ``dtype`` on ``kwargs`` (inputs
    and args by Python name): an array, a tuple of arrays (one per output) for an op
    with several outputs (of a list output: one per tensor of the list), or None
    where the op must refuse the inputs."""
    c = op.compute
    arrays = {i.name: _tensor(i, kwargs[reference.py_name(i.name)], "C") for i in op.inputs}
    arg = lambda name: arg_value(op, kwargs, name)  # noqa: E731
    variant = next(v for v in variants_of(op) if v.dtype == dtype)
    if not constraints_hold(op, kwargs):
        return None
    output_shapes: list[tuple[int, ...]] | None = None  # one per output, where the form gives each its own
    try:
        if isinstance(c, C.Elementwise):
            shape = np.broadcast_shapes(*(a.shape for a in arrays.values()))
        elif isinstance(c, C.Reduction):
            axes = numpy_runtime.norm_axes(arg(c.axes), arrays[c.input].ndim)
            shape = numpy_runtime.reduced_shape(arrays[c.input].shape, axes, arg(c.keep_dims))
        elif isinstance(c, C.ArgReduction):
            x = arrays[c.input]
            if x.ndim == 0:
                return None
            shape = numpy_runtime.reduced_shape(x.shape, (arg(c.axis) % x.ndim,), arg(c.keep_dims))
        elif isinstance(c, C.FindAll):  # the indices (capacity: every element) and their count
            shape = (arrays[c.input].size,)
            output_shapes = [shape, ()]
        elif isinstance(c, C.TensorDot):
            x, y = (arrays[n] for n in c.inputs)
            shape = numpy_runtime.tensordot_plan(x.shape, y.shape, *(arg(n) for n in (*c.axes, *c.transposes)))[1]
        elif isinstance(c, C.Contraction):
            shape = np.einsum(c.spec.numpy_subscripts(), *(arrays[n] for n in c.inputs)).shape
        elif isinstance(c, C.RandomSample):
            shape = tuple(arg("shape"))
        elif isinstance(c, C.Generation):
            params = {role: arrays[name] if name in arrays else arg(name) for role, name in c.params}
            numpy_runtime.generate_check(c.generator, params, arg("dtype"))
            shape = numpy_runtime.generate_shape(c.generator, numpy_runtime.with_shapes(c.generator, params))
        elif isinstance(c, C.FragmentKernel) and c.matrix:
            first, last = arrays[op.inputs[0].name], arrays[op.inputs[-1].name]
            if any(a.ndim != 2 if n in c.shared else a.ndim < 2 or a.shape[:-2] != first.shape[:-2]
                   for n, a in arrays.items()):
                return None
            shape = numpy_runtime.matrix_shape(c.layout, first.shape, last.shape)
            output_shapes = [numpy_runtime.matrix_shape(layout, first.shape, last.shape) for layout in c.layouts]
        elif isinstance(c, C.FragmentKernel) and c.layout == "shaped":
            render, scope = PyConstraintRenderer(op).render, _scope(op, kwargs)
            output_shapes = [arrays[s.name].shape if isinstance(s, E.ParamRef) else  # an input's shape
                             tuple(int(eval(render(size), scope)) for size in s) for s in c.shapes]  # our own rendering
            if any(size < 0 for s in output_shapes for size in s):
                return None
            shape = output_shapes[0]
        elif isinstance(c, C.FragmentKernel) and c.layout == "flat":
            shape = ()
        elif isinstance(c, C.FragmentKernel) and c.layout == "rows":
            first = arrays[op.inputs[0].name]
            if first.ndim < 1 or any(a.shape != first.shape for a in arrays.values()):
                return None
            shape = first.shape[:-1] + (first.shape[-1] * c.widen,)
        elif isinstance(c, C.FragmentKernel) and c.layout == "select":
            first = arrays[op.inputs[0].name]
            if first.ndim < 1 or not 0 <= arg(c.length) <= first.shape[-1]:
                return None
            shape = first.shape[:-1] + (arg(c.length),)
        elif isinstance(c, C.FragmentKernel) and c.layout == "dense":
            first, weights = arrays[op.inputs[0].name], arrays[op.inputs[1].name]
            if first.ndim < 1 or weights.ndim != 2 or weights.shape[0] != first.shape[-1] or any(
                    arrays[i.name].shape != weights.shape[1:] for i in op.inputs[2:]):
                return None
            shape = first.shape[:-1] + weights.shape[1:]
        elif isinstance(c, C.FragmentKernel) and c.layout == "channels":
            first = arrays[op.inputs[0].name]
            if first.ndim < 1 or any(arrays[i.name].shape != first.shape[-1:] for i in op.inputs[1:]):
                return None
            shape = first.shape
        elif isinstance(c, C.Join):
            shape = numpy_runtime.join_shape([a.shape for a in arrays[c.inputs]], arg(c.axis), c.stack)
        elif isinstance(c, C.Merge):
            shape = numpy_runtime.merge_shape([a.shape for a in arrays[c.inputs]])
        elif isinstance(c, C.Parts):  # a list output: a tuple of arrays, one per tensor of the list
            source = arrays[c.source]
            given = source if isinstance(source, list) else [source]
            params = {role: arg(name) for role, name in c.params}
            parts = [np.empty(s, dtype=variant.of(c.outputs))
                     for s in numpy_runtime.parts_shapes(c.part, [a.shape for a in given], params)]
            fn(source, *(arg(a.name) for a in op.args), parts)
            return tuple(parts)
        elif isinstance(c, C.ShapeQuery):
            x = arrays[c.input]
            numpy_runtime.shape_query(c.query, x.shape, arg(c.axis) if c.axis is not None else None)
            shape = (x.ndim,) if c.query == "shape" else ()
        elif isinstance(c, C.ScatterRows):
            ref = arrays[c.ref].shape if c.ref is not None else None
            messages = scatter_messages(c)
            shape = numpy_runtime.scatter_shape(messages, arrays[c.indices].shape, arrays[c.updates].shape, ref,
                                                arg(c.rows) if c.rows is not None else None)
            numpy_runtime.scatter_at(arrays[c.indices], shape[0], c.ref is not None, c.sorted, messages)
        elif isinstance(c, C.LayoutMove):
            params = {role: arrays[name] if name in arrays else arg(name) for role, name in c.params}
            if "mode" in params:
                params["mode"] = next(a for a in op.args if a.name == c.arg("mode")).possible_values.index(params["mode"])
            shapes = {role: (arrays[name].shape if name in arrays else params[role]) for role, name in c.params}
            # The shapes first, as the bindings do: layout_check reads the tensor roles the shapes vouch for.
            shape = numpy_runtime.layout_shape(c.layout, arrays[c.input].shape, shapes)
            numpy_runtime.layout_check(c.layout, arrays[c.input].shape, params)
        else:
            shape = arrays[op.inputs[0].name].shape
        out_dtype = arg("dtype") if C.dtype_from_arg(c) else variant.of(op.outputs[0].name)
        # One shape for every output, unless the form gives each its own (a matrix fragment's layouts).
        output_shapes = output_shapes or [shape] * len(op.outputs)
        outs = [np.empty(s, dtype=out_dtype if k == 0 else variant.of(o.name))
                for k, (s, o) in enumerate(zip(output_shapes, op.outputs))]
        args: list[Any] = [arrays[i.name] for i in op.inputs]
        for a in op.args:
            value = arg(a.name)
            args.append(a.possible_values.index(value) if a.type is DataType.ENUM else value)
        args += [kwargs.get(reference.config_param(cfg.name)) or types.SimpleNamespace(
            **{x.name: x.default for x in cfg.args}) for cfg in op.configs]
        fn(*args, *outs)
        return outs[0] if len(outs) == 1 else tuple(outs)
    except ValueError:
        return None
