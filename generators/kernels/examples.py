"""A short worked example per op, computed by the NumPy reference.

Like ONNX's ``expect()`` cases, an example is plain data: small inputs chosen
from the op's compute form, the args that make it interesting (a reduction
over one axis, not all of them), and the result the reference gives. The docs
generator shows it; the values come from running the generated code at
generation time, never from hand-written text that could drift.
"""

from __future__ import annotations

import math
import re
from typing import Any

import attrs
import numpy as np

from dsl import compute as C
from dsl import dtypes as D
from dsl.einsum import Conv
from dsl.model import Arg, Op
from dsl.types import DataType
from generators.kernels import evaluate, numpy_keywords, py_names
from generators.kernels.selection import variants_of

#: First values of an example tensor per dtype category, repeated as needed.
PATTERNS: dict[str, tuple[Any, ...]] = {
    "float": (-1.5, 0.0, 0.5, 2.0, 1.0, -0.25, 3.0, -2.0),
    "int": (-3, 0, 1, 2, 5, -1, 4, 7),
    "unsigned": (3, 0, 1, 2, 5, 255, 4, 7),
    "bool": (True, False, True, True, False, False, True, False),
}
#: Second and later operands: small non-negative values (shift amounts, divisors).
SECOND_PATTERNS: dict[str, tuple[Any, ...]] = {
    "float": (2.0, -1.0, 0.5, 4.0, 1.5, 3.0),
    "int": (2, 1, 3, 0, 4, 2),
    "unsigned": (2, 1, 3, 0, 4, 2),
    "bool": (False, True, True, False, True, False),
}
#: Per layout kind: (input shape, values by role) of its example.
LAYOUT_EXAMPLES: dict[str, tuple[tuple[int, ...], dict[str, Any]]] = {
    "reshape": ((2, 3), {"shape": [3, -1]}),
    "permute": ((2, 1, 3), {"perm": [2, 0, 1]}),
    "transpose": ((2, 3), {}),
    "squeeze": ((2, 1, 3), {"axis": 1}),
    "expand_dims": ((2, 3), {"axis": 0}),
    "narrow": ((2, 1, 3), {}),
    "reverse": ((2, 3), {"axes": [1]}),
    "tile": ((2, 3), {"repeats": [2, 1]}),
    "slice": ((2, 3), {"begin": [0, 1], "size": [-1, 2]}),
    "strided_slice": ((2, 3), {"begin": [0, -1], "end": [2, -4], "strides": [1, -2]}),
    "pad": ((2, 3), {"paddings": [1, 0, 0, 2], "mode": "reflect", "value": 0.0}),
    "diag": ((3,), {}),
    "space_to_depth": ((1, 1, 2, 4), {"block_size": 2}),
    "depth_to_space": ((1, 4, 1, 2), {"block_size": 2}),
    "space_to_batch": ((1, 1, 2, 4), {"block_size": 2}),
    "batch_to_space": ((4, 1, 1, 2), {"block_size": 2}),
    "upsample": ((1, 1, 2, 2), {"scale_h": 2, "scale_w": 2}),
}
#: Per generator with a tensor role: the role and the values of its example.
GENERATE_INDICES: dict[str, tuple[str, Any]] = {
    "one_hot": ("indices", [0, 2, 1, 3]),
    "sequence_mask": ("lengths", [1, 3, 0]),
    "cast": ("input", [-1.75, 0.5, 2.5, 300.0, -300.0, float("nan")]),
}
#: Per data-driven layout: its tensor role and the values of its example.
LAYOUT_INDICES: dict[str, tuple[str, Any]] = {
    "gather_nd": ("indices", [[0, 1], [2, 0]]),
    "reverse_sequence": ("seq_lengths", [2, 4, 0]),
}
#: The square matrix of matrix examples: symmetric positive definite.
SPD_EXAMPLE = np.array([[4.0, 2.0, 0.0], [2.0, 5.0, 1.0], [0.0, 1.0, 3.0]])
#: Per generator: the values by role of its example.
GENERATE_EXAMPLES: dict[str, dict[str, Any]] = {
    "fill": {"shape": [2, 3], "value": 1.5},
    "range": {"start": 0.0, "limit": 2.0, "delta": 0.5},
    "linspace": {"start": 0.0, "stop": 1.0, "num": 5},
    "eye": {"rows": 2, "cols": 3},
    "tri": {"rows": 3, "cols": 3, "diag": 0},
    "one_hot": {"depth": 3},
    "sequence_mask": {"maxlen": 4},
    "cast": {"dtype": "int8"},  # an arg, not a role: truncation, saturation and NaN
}
#: The vectors of shaped examples (the first, then the others), integer and float, and the
#: values of their int and float args without defaults: valid labels of 5 classes, sets that
#: share some values, and sums and sums of squares of 2 values each.
SHAPED_VALUES = {"int": ([3, 1, 4, 1], [1, 2, 4, 0]), "float": ([2.0, 1.0, 4.0, 1.0], [5.0, 2.0, 16.0, 1.0])}
SHAPED_ARGS = {"int": 5, "float": 2.0}
#: The indices of scatter examples (False) and segment examples (True).
SCATTER_INDICES = {False: np.array([0, 2, 0], dtype=np.int64), True: np.array([0, 0, 2, 2], dtype=np.int64)}
PREFERRED_DTYPES = ("float32", "int32", "float64", "int64", "bool")


@attrs.frozen
class Example:
    dtype: str
    inputs: tuple[tuple[str, np.ndarray | list[np.ndarray]], ...] = attrs.field(eq=False)
    args: tuple[tuple[str, Any], ...]
    #: None: the op refuses these inputs; a tuple for an op with several outputs
    result: np.ndarray | tuple[np.ndarray, ...] | None = attrs.field(eq=False)


def _kind(dtype: str) -> str:
    if dtype == "bool":
        return "bool"
    if dtype.startswith("uint"):
        return "unsigned"
    return "float" if D.category(dtype) == "float" else "int"


def tensor(dtype: str, shape: tuple[int, ...], position: int = 0) -> np.ndarray:
    pattern = (PATTERNS if position == 0 else SECOND_PATTERNS)[_kind(dtype)]
    n = math.prod(shape)
    shift = max(position - 1, 0)  # a third tensor (of a list) differs from the second
    values = [pattern[(i + shift) % len(pattern)] for i in range(n)]
    return np.array(values, dtype=dtype).reshape(shape)


def _sample_arg(a: Arg) -> Any:
    if a.type is DataType.ENUM:
        return a.possible_values[0]
    if a.type in (DataType.INT, DataType.LONG):
        return [1] if not a.count.is_single else 1
    if a.type in (DataType.FLOATING_POINT, DataType.NUMERIC):
        return 0.5
    if a.type is DataType.BOOLEAN:
        return False
    return None


Plan = tuple[dict[str, Any], dict[str, Any]]


def _elementwise(op: Op, c: C.Elementwise) -> Plan:
    names = [p for p in c.params if any(i.name == p for i in op.inputs)]
    if len(names) == 2 and c.broadcast == "numpy":
        return {names[0]: (2, 3), names[1]: (3,)}, {}
    return {n: (4,) for n in names}, {}


def _reduction(op: Op, c: C.Reduction) -> Plan:
    return {c.input: (2, 3), **({c.other: (2, 3)} if c.other else {})}, {c.axes: [1]}


def _arg_reduction(op: Op, c: C.ArgReduction) -> Plan:
    return {c.input: (2, 3)}, {c.axis: -1}


def _join(op: Op, c: C.Join) -> Plan:  # a tensor list: one shape per tensor
    return {c.inputs: [(2, 2), (2, 2)] if c.stack else [(2, 2), (1, 2)]}, {}


def _merge(op: Op, c: C.Merge) -> Plan:
    return {c.inputs: [(2, 2), (2, 2), (2, 2)]}, {}


def _find_all(op: Op, c: C.FindAll) -> Plan:
    return {c.input: (2, 3)}, {}


def _tensordot(op: Op, c: C.TensorDot) -> Plan:
    # (contract (2, 3, 4) with (3, 4, 2) over the 3s and 4s: numpy.tensordot(x, y, axes=2), which
    # the units compute as one matrix product)
    return dict(zip(c.inputs, ((2, 3, 4), (3, 4, 2)))), dict(zip(c.axes, ([1, 2], [0, 1])))


def _parts(op: Op, c: C.Parts) -> Plan:
    if c.part == "meshgrid":
        return {c.source: [(3,), (2,)]}, {}
    return {c.source: (2, 4)}, ({c.arg("num"): 2, c.arg("axis"): 1} if c.part == "split" else {})


def _contraction(op: Op, c: C.Contraction) -> Plan:
    sizes = {label: 2 + k for k, label in enumerate(c.spec.labels)}

    def axis(label: str | Conv) -> int:  # (a convolution axis: as long as its windows need)
        return label.span(sizes[label.output], sizes[label.kernel] if label.kernel else 1) \
            if isinstance(label, Conv) else sizes[label]

    args = {c.kernel_shape: [sizes[conv.kernel] for conv in c.spec.convs]} if c.kernel_shape else {}
    return {n: tuple(axis(label) for label in operand.named) for n, operand in zip(c.inputs, c.spec.inputs)}, args


def _random_sample(op: Op, c: C.RandomSample) -> Plan:
    return {}, {"shape": [2, 3]}


def _generation(op: Op, c: C.Generation) -> Plan:
    tensors = {c.arg(role): (len(GENERATE_INDICES[c.generator][1]),) for role, _ in c.params
               if c.generator in GENERATE_INDICES and role == GENERATE_INDICES[c.generator][0]}
    roles = dict(c.params)
    args = {roles.get(key, key): value for key, value in GENERATE_EXAMPLES[c.generator].items()}
    # An input only defaults read (full_like's x): it gives the shape, which is left out.
    for name in (i.name for i in op.inputs if i.name not in roles.values()):
        tensors[name] = tuple(args.pop(roles.get("shape", "shape"), (2, 3)))
    return tensors, args


def _shape_query(op: Op, c: C.ShapeQuery) -> Plan:
    return {c.input: (2, 3)}, ({c.axis: -1} if c.axis is not None else {})


def _scatter_rows(op: Op, c: C.ScatterRows) -> Plan:
    if c.ref is not None:
        return {c.ref: (3, 2), c.indices: (3,), c.updates: (3, 2)}, {}
    return {c.updates: (4, 2), c.indices: (4,)}, {c.rows: 3}


#: Per data-driven layout: its example's shapes and args.
_LAYOUT_PLANS: dict[str, Any] = {
    "set_diag": lambda c: ({c.input: (3, 3), c.arg("diagonal"): (3,)}, {}),
    "gather_nd": lambda c: ({c.input: (3, 2), c.arg("indices"): (2, 2)}, {}),
    "reverse_sequence": lambda c: ({c.input: (3, 4), c.arg("seq_lengths"): (3,)},
                                   {c.arg("seq_axis"): 1, c.arg("batch_axis"): 0}),
    "gather": lambda c: ({c.input: (3, 2), c.arg("indices"): (2,)}, {c.arg("axis"): 0}),
}


def _layout_move(op: Op, c: C.LayoutMove) -> Plan:
    if c.layout in _LAYOUT_PLANS:
        return _LAYOUT_PLANS[c.layout](c)
    shape, roles = LAYOUT_EXAMPLES[c.layout]
    return {c.input: shape}, {c.arg(role): value for role, value in roles.items()}


def _inputs(op: Op) -> list[str]:
    return [i.name for i in op.inputs]


def _shaped_fragment(op: Op, c: C.ShapedFragment) -> Plan:  # vectors of SHAPED_VALUES (a quantization's scalars)
    kinds = {DataType.INT: "int", DataType.LONG: "int", DataType.FLOATING_POINT: "float", DataType.NUMERIC: "float"}
    one = _inputs(op)[1:] if _inputs(op) == ["x", "scale", "zero_point"] else []
    return {n: (() if n in one else (4,)) for n in _inputs(op)}, {a.name: SHAPED_ARGS[kinds[a.type]] for a in op.args
                                            if a.type in kinds and a.count.is_single and not a.has_default}


def _matrix_fragment(op: Op, c: C.MatrixFragment) -> Plan:
    inputs = _inputs(op)
    if c.shared:  # queries, keys, values, projections
        return dict(zip(inputs, ((2, 3), (3, 3), (3, 3), (3, 4), (3, 4), (3, 4), (4, 2)))), {}
    if inputs == ["queries", "keys", "mask"]:  # attention's scores
        return dict(zip(inputs, ((2, 3), (3, 3), (2, 3)))), {}
    if len(inputs) in (3, 4):  # queries, keys, values (and a mask)
        return dict(zip(inputs, ((2, 3), (3, 3), (3, 2), (2, 3)))), {}
    return {n: ((3, 3) if k == 0 else (3, 2)) for k, n in enumerate(inputs)}, {}


def _dense_fragment(op: Op, c: C.DenseFragment) -> Plan:  # rows of 3 in, rows of 2 out
    return {n: ((2, 3), (3, 2), (2,))[min(k, 2)] for k, n in enumerate(_inputs(op))}, {}


def _channels_fragment(op: Op, c: C.ChannelsFragment) -> Plan:
    return {n: ((2, 3) if k == 0 else (3,)) for k, n in enumerate(_inputs(op))}, {}


#: Per compute form: the input shapes (a list of shapes for a tensor list) and args of its example.
PLANNERS: dict[type, Any] = {
    C.Elementwise: _elementwise, C.Reduction: _reduction, C.ArgReduction: _arg_reduction, C.Join: _join,
    C.Merge: _merge, C.FindAll: _find_all, C.TensorDot: _tensordot, C.Parts: _parts, C.Contraction: _contraction,
    C.RandomSample: _random_sample, C.Generation: _generation, C.ShapeQuery: _shape_query,
    C.ScatterRows: _scatter_rows, C.LayoutMove: _layout_move,
    C.AxisFragment: lambda op, c: ({_inputs(op)[0]: (2, 3)}, {c.axis: 1}),
    C.FlatFragment: lambda op, c: ({_inputs(op)[0]: (4,)}, {}),
    C.RowsFragment: lambda op, c: ({n: (2, 3) for n in _inputs(op)}, {}),
    C.SelectFragment: lambda op, c: ({_inputs(op)[0]: (2, 3)}, {c.length: 2}),
    C.ShapedFragment: _shaped_fragment, C.DenseFragment: _dense_fragment, C.ChannelsFragment: _channels_fragment,
    C.MatrixFragment: _matrix_fragment,
}


def _shapes(op: Op) -> Plan | None:
    """Input shapes and the args to set, or None when no example applies (a stream, a composed op)."""
    planner = PLANNERS.get(type(op.compute))
    return planner(op, op.compute) if planner is not None else None


def example(op: Op, functions: dict[str, Any]) -> Example | None:
    """The op's example, run through ``functions`` (the namespace's reference module)."""
    planned = _shapes(op)
    variants = [v.dtype for v in variants_of(op)]
    if planned is None or not variants:
        return None
    shapes, args = planned
    dtype = next((d for d in PREFERRED_DTYPES if d in variants), variants[0])
    variant = next(v for v in variants_of(op) if v.dtype == dtype)
    arrays = {n: ([tensor(variant.of(n), one, k + j) for j, one in enumerate(s)] if isinstance(s, list)
                  else tensor(variant.of(n), s, k)) for k, (n, s) in enumerate(shapes.items())}
    if isinstance(op.compute, C.MatrixFragment):  # decompositions want SPD matrices
        arrays = {n: (SPD_EXAMPLE.astype(a.dtype) if a.shape == SPD_EXAMPLE.shape else a) for n, a in arrays.items()}
    if isinstance(op.compute, C.ScatterRows):  # rows to fold: one picked twice, one (segment 1) never
        arrays[op.compute.indices] = SCATTER_INDICES[op.compute.ref is None].copy()
    if isinstance(op.compute, C.Generation) and op.compute.generator in GENERATE_INDICES:
        role, values = GENERATE_INDICES[op.compute.generator]
        arrays[op.compute.arg(role)] = np.array(values, dtype=np.float64 if op.compute.generator == "cast" else np.int64)
    if isinstance(op.compute, C.ShapedFragment):  # (a planned scalar takes the first value)
        arrays = {n: np.array(SHAPED_VALUES["float" if a.dtype.kind == "f" else "int"][min(k, 1)], dtype=a.dtype)
                  .reshape(-1)[:a.size].reshape(a.shape) for k, (n, a) in enumerate(arrays.items())}
    if isinstance(op.compute, C.LayoutMove) and op.compute.layout in LAYOUT_INDICES:
        role, values = LAYOUT_INDICES[op.compute.layout]
        arrays[op.compute.arg(role)] = np.array(values, dtype=np.int64)
    for a in op.args:
        if a.name in args or a.has_default:
            continue
        if a.type is DataType.DATA_TYPE:
            args[a.name] = dtype
        elif (value := _sample_arg(a)) is not None:
            args[a.name] = value
    kwargs = {py_names.py_name(n): v for n, v in arrays.items()}
    kwargs |= {py_names.py_name(n): v for n, v in args.items()}
    result = evaluate.run(op, functions[py_names.ref_name(op.name)], kwargs, dtype)
    return Example(dtype, tuple((py_names.py_name(n), v) for n, v in arrays.items()),
                   tuple((py_names.py_name(n), v) for n, v in args.items()), result)


def python_lines(op: Op, ex: Example, module: str) -> list[str]:
    """The example as Python a user can paste: inputs, the call, the result as a comment."""
    def literal(value: np.ndarray) -> str:
        text = repr(value.tolist())
        if value.dtype.kind == "f":  # NaN and infinities as names a user can paste
            text = re.sub(r"\b(nan|inf)\b", r"np.\1", text)
        return f"np.array({text}, dtype={value.dtype.name!r})"

    lines = [f"{name} = " + ("[" + ", ".join(literal(v) for v in value) + "]" if isinstance(value, list)
                             else literal(value)) for name, value in ex.inputs]
    given = numpy_keywords.call_kwargs(op, dict(ex.args))  # (a reduction's axes as NumPy's axis=: ADR 0052)
    call_args = [name for name, _ in ex.inputs] + [f"{name}={value!r}" for name, value in given.items()]
    stream = numpy_keywords.random_stream(op)
    if stream is not None:  # (the example's stream: left out, a call draws a fresh one, ADR 0054)
        call_args.append(f"{py_names.config_param(stream.name)}={module}.{stream.name}(seed=0)")
    elif numpy_keywords.stream_args(op) and "seed" not in given:
        call_args.append("seed=0")
    lines.append(f"{module}.{py_names.function_name(op.name)}({', '.join(call_args)})")
    if ex.result is None:
        lines.append("# raises ValueError: these inputs break a constraint")
    else:
        with np.printoptions(precision=4, suppress=True, floatmode="maxprec"):
            if C.list_output(op.compute) is not None:  # a list output: each array by its place
                name = py_names.py_name(op.outputs[0].name)
                text = "\n".join(f"{name}[{k}]: {np.array_repr(r)}" for k, r in enumerate(ex.result)) or "[]"
            elif isinstance(ex.result, tuple):  # several outputs: each by its name
                text = "\n".join(f"{py_names.py_name(o.name)}: {np.array_repr(r)}" for o, r in zip(op.outputs, ex.result))
            else:
                text = np.array_repr(ex.result)
            lines += ["# " + line for line in text.splitlines()]
    return lines
