"""Test cases per compute form: one function per form (and per fragment or
layout kind where they take other inputs), each drawing its samples from
``samples`` for one op and dtype variant.

Each case is plain data (shapes, dtypes, args, tolerance); ``cases`` adds the
seed and the defaults and hands them to the parity and golden tests.
"""

from __future__ import annotations

from typing import Any, Callable

from dsl import compute as C
from dsl import dtypes as D
from dsl import fixed_point as F
from dsl.einsum import Conv
from dsl.model import Arg, Op
from dsl.types import DataType
from generators.kernels.py_names import config_param
from generators.tests.samples import (MAX_RANK_SHAPES, LAYOUT_CASES, GENERATE_CASES, GATHER_CASES, SCATTER_CASES,
                                      SEGMENT_CASES, GATHER_ND_CASES, SET_DIAG_CASES, REVERSE_SEQUENCE_CASES,
                                      DENSE_CASES, SHAPED_CASES, NAMED_SHAPED_CASES, SHARED_CASES, MATRIX_CASES,
                                      NAMED_MATRIX_CASES, CAST_CASES, CONCAT_CASES, STACK_CASES, TENSORDOT_CASES,
                                      PARTS_CASES, MERGE_CASES)

Drawer = Callable[[Any, Op, D.Variant, dict[str, float]], list[dict[str, Any]]]


def _matrix_args(op: Op, c: Any, k: int) -> dict[str, Any]:
    """Args of the k-th matrix case: booleans alternate, integers cycle through -1, 0 and 1."""
    kinds = {a.name: a for a in op.args}
    args: dict[str, Any] = {}
    for j, name in enumerate(c.args):
        if kinds[name].type is DataType.BOOLEAN:
            args[name] = (k + j) % 2 == 1
        elif kinds[name].type in (DataType.INT, DataType.LONG):
            args[name] = (-1, 0, 1)[(k + j) % 3]
    return args



def _arg_values(op: Op) -> list[dict[str, Any]]:
    """Arg combinations to test: defaults, each ENUM value, optional args set and unset."""
    base: dict[str, Any] = {}
    variations: list[tuple[str, list[Any]]] = []
    for a in op.args:
        if a.type is DataType.ENUM:
            variations.append((a.name, list(a.possible_values)))
            continue
        if a.default is None and a.count.is_single:
            variations.append((a.name, [None, _sample_value(a)]))
            continue
        if a.has_default:
            continue
        base[a.name] = _sample_value(a)
    combos = [dict(base)]
    for name, values in variations:
        combos = [c | {name: v} for c in combos for v in values]
    return combos


def _sample_value(a: Arg) -> Any:
    if a.type in (DataType.INT, DataType.LONG):
        return 3
    if a.type in (DataType.FLOATING_POINT, DataType.NUMERIC):
        return 0.5 if a.name == "p" else 2.0
    if a.type is DataType.BOOLEAN:
        return False
    return None


def _tensor(dtype: str, shape: tuple[int, ...], extreme: bool = True, view: str | None = None,
            low: float | None = None, high: float | None = None) -> dict[str, Any]:
    t: dict[str, Any] = {"shape": list(shape), "dtype": dtype, "extreme": extreme}
    if view:
        t["view"] = view
    if low is not None:
        t["low"], t["high"] = low, high
    return t


def _elementwise(c: C.Elementwise, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    names = [p for p in c.params if any(i.name == p for i in op.inputs)]
    # (then shapes the op refuses: TML's rule refuses broadcasting, NumPy's unequal sizes)
    if c.broadcast == "numpy" and len(names) == 2:
        shapes = [((), ()), ((7,), (7,)), ((3, 4), (3, 4)), ((2, 3, 4), (1, 3, 1)), ((3, 1), (1, 4)),
                  ((5,), ()), MAX_RANK_SHAPES, ((0, 3), (1, 3)), ((2,), (3,))]
    elif c.broadcast == "equal":  # (then shapes that are not)
        shapes = [((),) * len(names), ((7,),) * len(names), ((3, 4),) * len(names), ((0, 3),) * len(names),
                  (MAX_RANK_SHAPES[0],) * len(names), ((3, 4), *[(4,)] * (len(names) - 1)),
                  ((), *[(2,)] * (len(names) - 1))]
    elif len(names) == 2:
        shapes = [((), ()), ((7,), (7,)), ((3, 4), (3, 4)), ((3, 4), ()), ((), (2, 5)), ((0, 3), (0, 3)),
                  (MAX_RANK_SHAPES[0], MAX_RANK_SHAPES[0]), ((3, 1), (3,)), ((2,), (3,))]
    elif len(names) == 1:
        shapes = [((),), ((7,),), ((3, 4),), (MAX_RANK_SHAPES[0],), ((0, 3),)]
    else:  # three or more operands: equal shapes, then the trailing-axis broadcasts of a batch norm
        n = len(names)
        shapes = [((),) * n, ((7,),) * n, ((3, 4),) * n, ((2, 3, 4),) + ((4,),) * (n - 1),
                  ((3, 1),) + ((1, 4),) * (n - 1), ((0, 3),) + ((3,),) * (n - 1)]
    for args in _arg_values(op):
        for k, shape_set in enumerate(shapes):
            inputs = {n: _tensor(v.of(n), s) for n, s in zip(names, shape_set)}
            out.append({"inputs": inputs, "args": args, "tol": tol})
        strided = {n: _tensor(v.of(n), (3, 4), view="strided") for n in names}
        out.append({"inputs": strided, "args": args, "tol": tol})
    return out


def _reduction(c: C.Reduction, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    x = c.input
    for shape, axes, keep in [((3, 4, 5), [], False), ((3, 4, 5), [0], True), ((3, 4, 5), [-1], False),
                              ((3, 4, 5), [0, 2], False), ((), [], False), ((0, 3), [0], False),
                              ((0, 3), [1], True), ((2,) * 8, [1, 3, 5], False)]:
        strided = shape == (3, 4, 5) and axes == [0]
        names = [x, c.other] if c.other else [x]
        # The args a map reads: every combination (each ENUM value) on the first shapes, then the first.
        combos = _arg_values(op) if c.args and shape == (3, 4, 5) else _arg_values(op)[:1]
        for given in combos:
            inputs = {n: _tensor(v.of(n), shape, view="strided" if strided else None) for n in names}
            out.append({"inputs": inputs, "args": given | {c.axes: axes, c.keep_dims: keep}, "tol": tol})
    if c.other:  # the shapes must be equal
        out.append({"inputs": {x: _tensor(v.of(x), (3, 4)), c.other: _tensor(v.of(c.other), (4, 3))},
                    "args": {c.axes: [], c.keep_dims: False}, "tol": tol})
    return out


def _arg_reduction(c: C.ArgReduction, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    x = c.input
    for k, (shape, axis, keep) in enumerate([((3, 4), 0, False), ((3, 4), -1, True), ((2, 3, 4), 1, False),
                                             ((5,), 0, False), ((0, 3), 0, False), ((3, 0), 0, False)]):
        # The args a predicate reads: every combination (each condition) on the first shape.
        combos = _arg_values(op) if c.args else [{}]
        for given in combos if k == 0 else combos[:1]:
            out.append({"inputs": {x: _tensor(v.of(x), shape)},
                        "args": given | {c.axis: axis, c.keep_dims: keep}, "tol": tol})
    if c.last_index is not None:  # (ties: few values, or the specials repeated; rows long and short, both picks)
        for shape, axis, low in (((6, 9), -1, None), ((9, 6), 0, -2), ((2, 17), 1, -1)):
            for last in (True, False):
                t = _tensor(v.of(x), shape, extreme=low is None, low=low, high=None if low is None else -low)
                out.append({"inputs": {x: t}, "args": {c.axis: axis, c.keep_dims: False, c.last_index: last},
                            "tol": tol})
    return out


#: Cases of a spec whose operands take their shapes from its labels (convolution axes, a summed row
#: variable): (batch axes per operand, windows, kernel size, the other labels' size, axis elements
#: beyond the last window: none, or one short of a further stride).
LABEL_CASES = [(((), ()), 3, 2, 2, False), (((2,), (2,)), 3, 3, 3, True), (((2, 1), (3,)), 4, 2, 1, True),
               (((), ()), 2, 3, 0, False), (((0,), ()), 2, 2, 2, False), (((), ()), 4, 1, 2, False)]
#: The step and padding args of each case, where the form names them: the defaults, steps of 2 with
#: uneven padding (and a pool's partial last window), and ONNX's three automatic paddings.
CONV_ARGS = [{}, {"strides": 2, "dilations": 2, "pads": (2, 1), "ceil_mode": True},
             {"strides": 2, "auto_pad": "SAME_LOWER"},
             {"auto_pad": "SAME_UPPER"}, {"auto_pad": "VALID"}, {}]


def _conv_args(c: C.Contraction, given: dict[str, Any], kernel: int) -> dict[str, Any]:
    n = len(c.spec.convs)
    args: dict[str, Any] = {c.kernel_shape: [kernel] * n} if c.kernel_shape else {}
    for role, name in (("strides", c.strides), ("dilations", c.dilations)):
        if name and role in given:
            args[name] = [given[role]] * n
    if c.pads and "pads" in given:
        args[c.pads] = [given["pads"][0]] * n + [given["pads"][1]] * n
    if c.auto_pad and "auto_pad" in given:
        args[c.auto_pad] = given["auto_pad"]
    if c.ceil_mode and "ceil_mode" in given:  # (a pool's last partial window)
        args[c.ceil_mode] = given["ceil_mode"]
    return args


def _shapes_from_labels(c: C.Contraction) -> list[tuple[tuple[int, ...], ...]]:
    """Operand shapes from a spec's labels, for one with convolution axes (a view's steps, strides
    that drop a remainder) or a row variable summed away: broadcast batch axes, an empty axis."""
    shapes = []
    for batches, windows, kernel, other, remainder in LABEL_CASES:
        kernels = {conv.kernel for conv in c.spec.convs}

        def size(label: object) -> int:
            if isinstance(label, Conv):
                return label.span(windows, kernel) + (label.stride - 1 if remainder else 0)
            return kernel if label in kernels else other

        shapes.append(tuple((*batch, *(size(label) for label in operand.named))
                            for batch, operand in zip(batches, c.spec.inputs)))
    return shapes


def _contraction(c: C.Contraction, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if c.spec.convs or c.spec.summed_row:  # (shapes from the spec's labels)
        pairs = _shapes_from_labels(c)
    elif len(c.inputs) == 2:
        pairs = [((2, 3), (3, 4)), ((2, 2, 3), (2, 3, 4)), ((2, 1, 3, 4), (3, 4, 5)), ((1, 1), (1, 1)),
                 ((0, 3), (3, 2)), ((3, 0), (0, 2))]
    else:
        pairs = [((3, 4),), ((2, 3, 4),), ((1, 5),), ((2, 1, 2, 3),), ((3, 3),), ((2, 4, 4),), ((1, 1),)]
    for k, shapes in enumerate(pairs):
        small = D.category(v.dtype) != "float"
        inputs = {n: _tensor(v.of(n), s, extreme=False, low=-4 if small else None, high=4 if small else None)
                  for n, s in zip(c.inputs, shapes)}
        args = _conv_args(c, CONV_ARGS[k], LABEL_CASES[k][2]) if c.spec.convs else {}
        out.append({"inputs": inputs, "args": args, "tol": tol})
    return out


def _random_sample(c: C.RandomSample, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    base = _arg_values(op)[0]
    for shape, seed, offset in [((), 0, 0), ((7,), 42, 7), ((3, 5), 2**40 + 3, 2**33)]:
        args = dict(base) | {"shape": list(shape), "dtype": v.dtype}
        config = next((cfg for cfg in op.configs if any(a.name == "seed" for a in cfg.args)), None)
        if config is not None:
            args[config_param(config.name)] = {"__config__": config.name, "seed": seed, "offset": offset}
        out.append({"inputs": {}, "args": args, "tol": tol})
    return out


def _cast(c: C.Generation, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    x = c.arg("input")
    for source in D.CONCRETE[DataType.NDARRAY]:
        for shape, extreme, low, high, view in CAST_CASES:
            out.append({"inputs": {x: _tensor(source, shape, extreme, view, low, high)},
                        "args": {"dtype": v.dtype}, "tol": tol})
    return out


def _generation(c: C.Generation, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    tensors = {i.name for i in op.inputs}
    # Inputs only defaults read (full_like's x gives the shape and dtype left out).
    free = [i.name for i in op.inputs if i.name not in dict(c.params).values()]
    for k, roles in enumerate(GENERATE_CASES[c.generator]):
        args = {c.arg(role): value for role, value in roles.items() if c.arg(role) not in tensors}
        inputs = {c.arg(role): _tensor(v.of(c.arg(role)), value[0], extreme=False, low=value[1], high=value[2])
                  for role, value in roles.items() if c.arg(role) in tensors}
        args["dtype"] = v.dtype
        shape = args.get(dict(c.params).get("shape", "shape"))
        for name in free:
            if k % 2 == 0 and shape is not None and min(shape, default=0) >= 0:  # x says shape and dtype
                inputs[name] = _tensor(v.dtype, tuple(shape))
                args = {a: value for a, value in args.items() if a not in ("dtype", c.arg("shape"))}
            else:  # given explicitly, x of another dtype and shape
                inputs[name] = _tensor("int16" if v.dtype != "int16" else "float32", (3, 1))
        out.append({"inputs": inputs, "args": args, "tol": tol})
    return out


def _sliding_window(c: C.SlidingWindow, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for window, stride, frame, blocks in [(3, 2, (2,), [1, 2, 4, 0, 3, 2]), (2, 5, (), [4, 1, 3, 2, 2]),
                                          (1, 1, (2, 2), [3, 1]), (4, 4, (3,), [2, 2, 5, 4, 4])]:
        out.append({"inputs": {}, "args": {}, "tol": tol,
                    "stream": {"window": window, "stride": stride, "frame_shape": list(frame),
                               "blocks": blocks, "dtype": v.dtype}})
    return out


def _shape_query(c: C.ShapeQuery, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for shape, axis in [((), 0), ((7,), 0), ((3, 4), -1), ((0, 3), 1), ((2,) * 8, 5), ((3, 4), 2), ((3, 4), -3)]:
        args = {c.axis: axis} if c.axis is not None else {}
        out.append({"inputs": {c.input: _tensor(v.of(c.input), shape)}, "args": args, "tol": tol})
    return out


def _scatter(c: C.ScatterRows, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for k, (shape, index_shape, update_shape, (low, high)) in enumerate(SCATTER_CASES):
        view = "strided" if k == 0 else None
        inputs = {c.ref: _tensor(v.of(c.ref), shape, view=view),
                  c.indices: _tensor(v.of(c.indices), index_shape, extreme=False, low=low, high=high),
                  c.updates: _tensor(v.of(c.updates), update_shape, view=view)}
        out.append({"inputs": inputs, "args": {}, "tol": tol})
    return out


def _segments(c: C.ScatterRows, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for shape, count, rows, (low, high), ordered in SEGMENT_CASES:
        ids = _tensor(v.of(c.indices), (count,), extreme=False, low=low, high=high) | ({"sorted": True} if ordered else {})
        inputs = {c.updates: _tensor(v.of(c.updates), shape), c.indices: ids}
        out.append({"inputs": inputs, "args": {c.rows: rows}, "tol": tol})
    return out


def _gather_nd(c: C.LayoutMove, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    x, indices = c.input, c.arg("indices")
    for shape, index_shape, (low, high) in GATHER_ND_CASES:
        inputs = {x: _tensor(v.of(x), shape), indices: _tensor(v.of(indices), index_shape, extreme=False,
                                                               low=low, high=high)}
        out.append({"inputs": inputs, "args": {}, "tol": tol})
    return out


def _set_diag(c: C.LayoutMove, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    x, diagonal = c.input, c.arg("diagonal")
    for shape, diagonal_shape in SET_DIAG_CASES:
        view = "strided" if shape == (2, 3, 4) else None
        inputs = {x: _tensor(v.of(x), shape, view=view), diagonal: _tensor(v.of(diagonal), diagonal_shape)}
        out.append({"inputs": inputs, "args": {}, "tol": tol})
    return out


def _reverse_sequence(c: C.LayoutMove, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    x, lengths = c.input, c.arg("seq_lengths")
    for shape, count, seq, batch, (low, high) in REVERSE_SEQUENCE_CASES:
        view = "strided" if shape == (4, 2, 3) else None
        inputs = {x: _tensor(v.of(x), shape, view=view),
                  lengths: _tensor(v.of(lengths), (count,), extreme=False, low=low, high=high)}
        out.append({"inputs": inputs, "args": {c.arg("seq_axis"): seq, c.arg("batch_axis"): batch}, "tol": tol})
    return out


def _gather(c: C.LayoutMove, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    x, indices, axis = c.input, c.arg("indices"), c.arg("axis")
    for shape, index_shape, a, (low, high) in GATHER_CASES:
        inputs = {x: _tensor(v.of(x), shape), indices: _tensor(v.of(indices), index_shape, extreme=False,
                                                               low=low, high=high)}
        out.append({"inputs": inputs, "args": {axis: a}, "tol": tol})
    return out


def _layout_move(c: C.LayoutMove, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for shape, roles in LAYOUT_CASES[c.layout]:
        args = {c.arg(role): value for role, value in roles.items()}
        view = "strided" if shape == (2, 3, 4) else None
        out.append({"inputs": {c.input: _tensor(v.of(c.input), shape, view=view)}, "args": args, "tol": tol})
    return out


def _fragment_rows(c: C.RowsFragment, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    names = [i.name for i in op.inputs]
    for shapes in [((3,), (3,)), ((4, 3), (4, 3)), ((2, 2, 3), (2, 2, 3)), ((0, 3), (0, 3)), ((4, 3), (3, 3)),
                   ((4, 2), (4, 2)), ((), ())]:
        view = "strided" if shapes[0] == (2, 2, 3) else None
        inputs = {n: _tensor(v.of(n), s, view=view) for n, s in zip(names, shapes)}
        out.append({"inputs": inputs, "args": _arg_values(op)[0], "tol": tol})
    return out


def _join(c: C.Join, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    t = v.of(c.inputs)
    joins = CONCAT_CASES if not c.stack else STACK_CASES
    for shapes, axis in joins:
        view = "strided" if shapes[0] == (2, 3, 4) else None
        listed = [_tensor(t, shape, view=view) for shape in shapes]
        out.append({"inputs": {c.inputs: listed}, "args": {c.axis: axis}, "tol": tol})
    return out


def _find_all(c: C.FindAll, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    x = c.input
    for k, shape in enumerate([(9,), (3, 4), (2, 3, 4), (), (0, 3)]):
        combos = _arg_values(op) if c.args else [{}]
        for given in combos if k == 0 else combos[:1]:
            view = "strided" if shape == (2, 3, 4) else None
            out.append({"inputs": {x: _tensor(v.of(x), shape, view=view)}, "args": given, "tol": tol})
    return out


def _tensordot(c: C.TensorDot, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    small = D.category(v.dtype) != "float"
    for x_shape, y_shape, ax, ay, flags in TENSORDOT_CASES:
        view = "strided" if x_shape == (2, 3, 4) else None
        inputs = {n: _tensor(v.of(n), s, extreme=False, view=view if n == c.inputs[0] else None,
                             low=-4 if small else None, high=4 if small else None)
                  for n, s in zip(c.inputs, (x_shape, y_shape))}
        args = dict(zip(c.axes, (ax, ay))) | dict(zip(c.transposes, flags))
        out.append({"inputs": inputs, "args": args, "tol": tol})
    return out


def _parts(c: C.Parts, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    t = v.of(c.source)
    for shapes, roles in PARTS_CASES[c.part]:
        view = "strided" if shapes[0] == (2, 3, 4) else None
        listed = [_tensor(t, shape, view=view) for shape in shapes]
        source = listed if c.part == "meshgrid" else listed[0]
        out.append({"inputs": {c.source: source}, "args": {c.arg(r): value for r, value in roles.items()},
                    "tol": tol})
    return out


def _merge(c: C.Merge, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    t = v.of(c.inputs)
    for shapes in MERGE_CASES:
        view = "strided" if shapes[0] == (2, 3, 4) else None
        listed = [_tensor(t, shape, view=view) for shape in shapes]
        out.append({"inputs": {c.inputs: listed}, "args": {}, "tol": tol})
    return out


def _fragment_select(c: C.SelectFragment, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    x = op.inputs[0].name
    for shape, k in [((5,), 2), ((5,), 5), ((3, 4), 1), ((2, 3, 4), 3), ((0, 3), 2), ((3, 0), 0), ((4, 6), 0),
                     ((3, 4), 5), ((3, 4), -1), ((), 1)]:
        view = "strided" if shape == (2, 3, 4) else None
        out.append({"inputs": {x: _tensor(v.of(x), shape, view=view)}, "args": _arg_values(op)[0] | {c.length: k},
                    "tol": tol})
    # ties: many equal values, ordered by index
    out.append({"inputs": {x: _tensor(v.of(x), (3, 7), extreme=False, low=0, high=2)},
                "args": _arg_values(op)[0] | {c.length: 4}, "tol": tol})
    return out


def _fragment_shaped(c: C.ShapedFragment, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    ints = [a.name for a in op.args if a.type in (DataType.INT, DataType.LONG) and a.count.is_single]
    named = NAMED_SHAPED_CASES.get(tuple(i.name for i in op.inputs))
    if named is not None:
        return [{"inputs": {i.name: _tensor(v.of(i.name), s, extreme and k == 0, None, low, high) | {"whole": True}
                            for k, (i, s) in enumerate(zip(op.inputs, shapes))},
                 "args": _arg_values(op)[0], "tol": tol} for shapes, (low, high), extreme in named]
    for k, (shapes, (low, high), value, extreme) in enumerate(SHAPED_CASES):
        view = "strided" if k == 2 else None
        inputs = {i.name: _tensor(v.of(i.name), s, extreme, view, low, high) | {"whole": True}
                  for i, s in zip(op.inputs, shapes)}
        out.append({"inputs": inputs, "args": _arg_values(op)[0] | {n: value for n in ints}, "tol": tol})
    return out


def _fragment_dense(c: C.DenseFragment, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    names = [i.name for i in op.inputs]
    for shapes in DENSE_CASES:
        view = "strided" if shapes[0] == (2, 3, 4) else None
        inputs = {n: _tensor(v.of(n), s, extreme=False, view=view if k == 0 else None)
                  for k, (n, s) in enumerate(zip(names, shapes[:1] + shapes[1:2] + shapes[2:] * (len(names) - 2)))}
        out.append({"inputs": inputs, "args": _arg_values(op)[0], "tol": tol})
    # NaN and infinities in the rows
    out.append({"inputs": {n: _tensor(v.of(n), s, extreme=k == 0)
                           for k, (n, s) in enumerate(zip(names, ((4, 3), (3, 2), (2,), (2,))))},
                "args": _arg_values(op)[0], "tol": tol})
    return out


def _fragment_channels(c: C.ChannelsFragment, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    names = [i.name for i in op.inputs]
    # (x's shape, the first axis of a row, the parameters' shape: those axes' shape, or not)
    for shape, axis, row in [((5,), -1, (5,)), ((4, 3), -1, (3,)), ((2, 3, 4), -1, (4,)), ((0, 3), -1, (3,)),
                             ((3, 0), -1, (0,)), ((4, 3), -1, (4,)), ((), -1, (1,)), ((4, 3), -1, (4, 3)),
                             ((2, 3, 4), -2, (3, 4)), ((2, 3, 4), 0, (2, 3, 4)), ((2, 3, 4), 1, (3, 4)),
                             ((2, 3, 4), -2, (12,)), ((2, 3), 2, (3,)), ((2, 3), -3, (2, 3))]:
        view = "strided" if shape == (2, 3, 4) and axis == -1 else None
        # NaN and infinities in one case; finite values elsewhere, so the statistics are exercised
        inputs = {names[0]: _tensor(v.of(names[0]), shape, extreme=shape == (4, 3) and row == (3,), view=view)}
        inputs |= {n: _tensor(v.of(n), row, extreme=False) for n in names[1:]}
        for args in _arg_values(op)[:1]:
            out.append({"inputs": inputs, "args": {**args, c.axis: axis}, "tol": tol})
    return out


def _fragment_flat(c: C.FlatFragment, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    x = op.inputs[0].name
    for shape, ordered, view in [((), False, None), ((1,), False, None), ((7,), False, None), ((7,), True, None),
                                 ((3, 4), True, None), ((3, 4), True, "strided"), ((0, 3), False, None),
                                 ((2, 3, 4), False, None)]:
        t = _tensor(v.of(x), shape, extreme=not ordered, view=view) | ({"sorted": True} if ordered else {})
        out.append({"inputs": {x: t}, "args": _arg_values(op)[0], "tol": tol})
    return out


def _fragment_shared_matrix(c: C.MatrixFragment, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    ints = [a.name for a in op.args if a.type in (DataType.INT, DataType.LONG)]
    for k, (shapes, value) in enumerate(SHARED_CASES):
        inputs = {i.name: _tensor(v.of(i.name), s, extreme=False) for i, s in zip(op.inputs, shapes)}
        out.append({"inputs": inputs, "args": _matrix_args(op, c, k) | {n: value for n in ints}, "tol": tol})
    return out


def _fragment_matrix(c: C.MatrixFragment, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    names = [i.name for i in op.inputs]
    shape_sets = NAMED_MATRIX_CASES.get(tuple(names)) or MATRIX_CASES.get(len(names), [])
    for k, shapes in enumerate(shape_sets):
        inputs = {}
        for n, s in zip(names, shapes):
            square = len(s) >= 2 and s[-1] == s[-2]
            inputs[n] = _tensor(v.of(n), s, extreme=False) | ({"matrix": "spd"} if square else {})
        out.append({"inputs": inputs, "args": _matrix_args(op, c, k), "tol": tol})
    if shape_sets:  # a zero first matrix: singular and not positive definite
        inputs = {n: _tensor(v.of(n), s, extreme=False) for n, s in zip(names, shape_sets[0])}
        inputs[names[0]]["matrix"] = "zero"
        out.append({"inputs": inputs, "args": _matrix_args(op, c, 0), "tol": tol})
    return out


def _fragment_axis(c: C.AxisFragment, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    x = op.inputs[0].name
    for shape, axis in [((6,), 0), ((3, 4), 1), ((3, 4), -2), ((2, 3, 4), 1)]:
        kinds = {a.name: a for a in op.args}
        flags = [n for n in c.args if kinds[n].type is DataType.BOOLEAN]
        for flag in (False, True) if flags else (False,):
            args = _arg_values(op)[0] | {c.axis: axis} | {n: flag for n in flags}
            out.append({"inputs": {x: _tensor(v.of(x), shape, extreme=False)}, "args": args, "tol": tol})
    return out


_LAYOUTS: dict[str, Drawer] = {"gather_nd": _gather_nd, "set_diag": _set_diag,
                               "reverse_sequence": _reverse_sequence, "gather": _gather}


def _fragment_matrices(c: C.MatrixFragment, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    return (_fragment_shared_matrix if c.shared else _fragment_matrix)(c, op, v, tol)


def _layout(c: C.LayoutMove, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    return _LAYOUTS.get(c.layout, _layout_move)(c, op, v, tol)


def _generated(c: C.Generation, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    return (_cast if c.generator == "cast" else _generation)(c, op, v, tol)


def _scattered(c: C.ScatterRows, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    return (_scatter if c.ref is not None else _segments)(c, op, v, tol)


def _composed(c: C.Composition, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    return []  # a composed op runs its parts' kernels, each tested as its own op


def _converted(c: C.FixedPointConversion, op: Op, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    """A fixed-point conversion of one pair (ADR 0068): x real (float32 with infinities and NaN) or
    stored values of its type with attributes drawn in range, the args choosing the output's type
    and attributes (or a shift's change, at the ends of the type's range too)."""
    source, target = v.of(c.input), v.of(op.outputs[0].name)
    given, made = F.TYPES.get(source), F.TYPES.get(target)
    specs = []
    for k, shape in enumerate(([3, 5], [0], [2, 1, 4])):
        x: dict[str, Any] = {"shape": shape, "dtype": source if given is None else given.storage, "extreme": k == 0}
        if given is not None:
            x["fixed"] = {"type": given.name, **({"shift": (-3, 0, 5)[k]} if given.family == "Q" else
                                                 {"scale": (0.05, 1.5, 1e-3)[k], "offset": (0, -3, 7)[k]})}
        args: dict[str, Any] = {}
        if c.chooses_type:
            assert made is not None
            args = {"dtype": made.name, "shift": (2, -1, 9)[k], "scale": (0.01, 0.25, 3.0)[k],
                    "offset": (0, 5, -2)[k]}
        if c.rule == "shift":
            assert given is not None
            args = {"shift": (1, -4, given.shifts().stop - 1 - 5)[k]}
        specs.append({"inputs": {c.input: x}, "args": args, "tol": tol})
    return specs


DRAWERS: dict[type, Drawer] = {
    C.Elementwise: _elementwise, C.Reduction: _reduction, C.ArgReduction: _arg_reduction,
    C.Contraction: _contraction, C.RandomSample: _random_sample, C.Generation: _generated,
    C.SlidingWindow: _sliding_window, C.ShapeQuery: _shape_query, C.ScatterRows: _scattered,
    C.LayoutMove: _layout, C.Join: _join, C.FindAll: _find_all, C.TensorDot: _tensordot, C.Parts: _parts,
    C.Merge: _merge, C.Composition: _composed, C.FixedPointConversion: _converted,
    C.AxisFragment: _fragment_axis, C.FlatFragment: _fragment_flat, C.RowsFragment: _fragment_rows,
    C.ChannelsFragment: _fragment_channels, C.SelectFragment: _fragment_select, C.DenseFragment: _fragment_dense,
    C.ShapedFragment: _fragment_shaped, C.MatrixFragment: _fragment_matrices,
}


def draw(op: Op, c: Any, v: D.Variant, tol: dict[str, float]) -> list[dict[str, Any]]:
    """The cases of one op and dtype variant, from the drawer of its compute form."""
    return DRAWERS[type(c)](c, op, v, tol)
