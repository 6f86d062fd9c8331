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
from dsl.model import Arg, Op
from dsl.types import DataType
from generators.kernels.selection import variants_of
from generators.kernels.py_names import config_param, py_name

#: Functions whose float results are correctly rounded in C and NumPy alike.
EXACT = {"add", "sub", "mul", "div", "neg", "abs", "minimum", "maximum", "sqrt", "eq", "ne", "lt", "le", "gt",
         "ge", "where", "floor", "ceil", "round_half_even", "round_half_away", "sign", "isnan", "isinf",
         "isfinite", "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or",
         "bitwise_xor", "bitwise_not", "left_shift", "right_shift", "mod", "floor_mod", "floor_div", "rotl", "rotr",
         "popcount"}
MAX_RANK_SHAPES = ((2, 1, 2, 1, 2, 1, 2, 1), (1, 2, 1, 2, 1, 2, 1, 2))


#: Per layout kind: (input shape, values by role), valid and invalid alike.
LAYOUT_CASES: dict[str, list[tuple[tuple[int, ...], dict[str, Any]]]] = {
    "diag": [((3,), {}), ((2, 2), {}), ((), {}), ((0, 2), {}), ((2, 3, 4), {}), ((1, 1, 1, 1, 1), {})],
    "reshape": [((2, 3, 4), {"shape": [6, 4]}), ((2, 3, 4), {"shape": [-1, 2]}), ((), {"shape": [1, 1]}),
                ((0, 3), {"shape": [3, -1, 0]}), ((2, 3), {"shape": [7]}), ((5,), {"shape": [-1, -1]}),
                ((4,), {"shape": [2, -2]})],
    "permute": [((2, 3, 4), {"perm": [2, 0, 1]}), ((2, 3, 4), {"perm": [-1, 0, 1]}), ((), {"perm": []}),
                ((2, 3), {"perm": [0, 0]}), ((2, 3), {"perm": [1]}), ((2, 3), {"perm": [1, 2]})],
    "transpose": [((2, 3, 4), {}), ((5,), {}), ((), {}), ((1, 2, 1, 2, 1, 2, 1, 2), {}), ((0, 3), {})],
    "squeeze": [((2, 1, 3), {"axis": 1}), ((2, 1, 3), {"axis": -2}), ((1,), {"axis": 0}), ((2, 3), {"axis": 0}),
                ((2, 3), {"axis": 2})],
    "expand_dims": [((2, 3), {"axis": 0}), ((2, 3), {"axis": 2}), ((2, 3), {"axis": -1}), ((), {"axis": 0}),
                    ((2, 3), {"axis": 3}), ((1, 1, 1, 1, 1, 1, 1, 2), {"axis": 0})],
    "narrow": [((2, 1, 3), {}), ((1, 1), {}), ((), {}), ((0, 1), {}), ((2, 3, 4), {})],
    "reverse": [((2, 3, 4), {"axes": [0, 2]}), ((2, 3, 4), {"axes": []}), ((2, 3), {"axes": [-1]}),
                ((2, 3), {"axes": [0, 0]}), ((2, 3), {"axes": [2]}), ((0, 3), {"axes": [0, 1]})],
    "tile": [((2, 3), {"repeats": [2, 1]}), ((2, 3), {"repeats": [0, 2]}), ((), {"repeats": []}),
             ((2, 3, 4), {"repeats": [1, 2, 1]}), ((2, 3), {"repeats": [1]}), ((2, 3), {"repeats": [-1, 1]})],
    "slice": [((4, 5), {"begin": [1, 2], "size": [2, -1]}), ((4, 5), {"begin": [0, 0], "size": [4, 5]}),
              ((4, 5), {"begin": [4, 5], "size": [0, 0]}), ((2, 3, 4), {"begin": [1, 0, 2], "size": [1, 3, -1]}),
              ((4, 5), {"begin": [3, 0], "size": [2, 1]}), ((4, 5), {"begin": [0], "size": [1]}),
              ((4, 5), {"begin": [-1, 0], "size": [1, 1]})],
    "strided_slice": [((6, 5), {"begin": [1, 0], "end": [5, 5], "strides": [2, 1]}),
                      ((6, 5), {"begin": [-1, 4], "end": [-7, -9], "strides": [-2, -1]}),
                      ((6, 5), {"begin": [-100, 3], "end": [100, 1], "strides": [3, 1]}),
                      ((2, 3, 4), {"begin": [0, 2, 1], "end": [2, 0, 4], "strides": [1, -1, 2]}),
                      ((0, 3), {"begin": [0, 0], "end": [5, 3], "strides": [1, 1]}),
                      ((6, 5), {"begin": [0, 0], "end": [6, 5], "strides": [1, 0]}),
                      ((6, 5), {"begin": [0], "end": [6], "strides": [1]})],
    "pad": [((2, 3), {"paddings": [1, 1, 0, 2], "mode": "constant", "value": 1.0}),
            ((2, 3), {"paddings": [0, 0, 0, 0], "mode": "constant", "value": 0.0}),
            ((3, 4), {"paddings": [2, 2, 1, 3], "mode": "reflect", "value": 0.0}),
            ((3, 4), {"paddings": [3, 0, 1, 4], "mode": "symmetric", "value": 0.0}),
            ((2, 3, 4), {"paddings": [1, 0, 0, 1, 2, 2], "mode": "symmetric", "value": 0.0}),
            ((3, 4), {"paddings": [3, 0, 0, 0], "mode": "reflect", "value": 0.0}),
            ((2, 3), {"paddings": [1, 1], "mode": "constant", "value": 0.0}),
            ((2, 3), {"paddings": [1, 1, 1, 1], "mode": "constant", "value": 1.5}),
            ((0, 3), {"paddings": [1, 0, 1, 1], "mode": "constant", "value": 0.0}),
            ((), {"paddings": [], "mode": "reflect", "value": 0.0})],
}


#: Per generator: values by role, valid and invalid alike (each case runs in every dtype).
GENERATE_CASES: dict[str, list[dict[str, Any]]] = {
    "fill": [{"shape": [2, 3], "value": 1.0}, {"shape": [], "value": 0.0}, {"shape": [0, 4], "value": 3.0},
             {"shape": [2], "value": 2.5}, {"shape": [-1], "value": 0.0}, {"shape": [2], "value": 300.0}],
    "range": [{"start": 0.0, "limit": 5.0, "delta": 1.0}, {"start": 10.0, "limit": 1.0, "delta": -3.0},
              {"start": 0.5, "limit": 2.0, "delta": 0.25}, {"start": 3.0, "limit": 3.0, "delta": 1.0},
              {"start": 0.0, "limit": 1.0, "delta": 0.0}, {"start": 100.0, "limit": 400.0, "delta": 100.0}],
    "linspace": [{"start": 0.0, "stop": 1.0, "num": 5}, {"start": 4.0, "stop": -4.0, "num": 3},
                 {"start": 2.0, "stop": 3.0, "num": 1}, {"start": 0.0, "stop": 1.0, "num": 0},
                 {"start": 0.0, "stop": 1.0, "num": -1}, {"start": -200.0, "stop": 200.0, "num": 4}],
    "eye": [{"rows": 3, "cols": 3}, {"rows": 2, "cols": 4}, {"rows": 0, "cols": 2}, {"rows": -1, "cols": 2},
            {"rows": 3}, {"rows": -2}],
    "tri": [{"rows": 3, "cols": 3, "diag": 0}, {"rows": 2, "cols": 4, "diag": 1}, {"rows": 4, "cols": 2, "diag": -1},
            {"rows": 0, "cols": 2, "diag": 0}, {"rows": 2, "cols": -1, "diag": 0}],
    # A tensor role is (shape, lowest, highest value).
    "one_hot": [{"indices": ((5,), -1, 4), "depth": 4, "axis": -1, "on": 1.0, "off": 0.0},
                {"indices": ((2, 3), 0, 2), "depth": 3, "axis": 0, "on": 5.0, "off": -1.0},
                {"indices": ((2, 3), 0, 2), "depth": 3, "axis": 1, "on": 1.0, "off": 0.0},
                {"indices": ((), 0, 3), "depth": 3, "axis": -1, "on": 1.0, "off": 0.0},
                {"indices": ((0, 2), 0, 1), "depth": 2, "axis": -1, "on": 1.0, "off": 0.0},
                {"indices": ((3,), 0, 2), "depth": 3, "axis": 2, "on": 1.0, "off": 0.0},
                {"indices": ((3,), 0, 2), "depth": -1, "axis": -1, "on": 1.0, "off": 0.0},
                {"indices": ((3,), 0, 2), "depth": 3, "axis": -1, "on": 0.5, "off": 0.0}],
    "sequence_mask": [{"lengths": ((4,), -1, 6), "maxlen": 5}, {"lengths": ((2, 3), 0, 3), "maxlen": 3},
                      {"lengths": ((), 0, 4), "maxlen": 4}, {"lengths": ((3,), 0, 2), "maxlen": 0},
                      {"lengths": ((3,), 0, 2), "maxlen": -2}],
}

#: gather: (x shape, indices shape, axis, (lowest, highest index)), valid and invalid alike.
GATHER_CASES: list[tuple[tuple[int, ...], tuple[int, ...], int, tuple[int, int]]] = [
    ((5, 3), (4,), 0, (-5, 4)), ((2, 6, 3), (2, 2), 1, (-6, 5)), ((4,), (), 0, (0, 3)), ((3, 4), (0,), 1, (0, 3)),
    ((2, 3, 4), (3,), -1, (0, 3)), ((5, 3), (4,), 0, (5, 9)), ((5, 3), (2,), 2, (0, 1)), ((0, 3), (2,), 1, (0, 2)),
]

#: scatter: (ref shape, indices shape, updates shape, (lowest, highest index)), valid and invalid alike.
SCATTER_CASES: list[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, int]]] = [
    ((5, 3), (7,), (7, 3), (-5, 4)), ((6,), (4,), (4,), (0, 5)), ((4, 2, 3), (2, 2), (2, 2, 2, 3), (-4, 3)),
    ((3, 2), (0,), (0, 2), (0, 2)), ((3, 2), (), (2,), (1, 1)), ((3, 2), (2,), (2, 3), (0, 2)),
    ((3, 2), (2,), (2, 2), (3, 5)), ((), (1,), (1,), (0, 0)),
]
#: segments: (data shape, ids length, num_segments, (lowest, highest id), sorted ids), valid and invalid alike.
SEGMENT_CASES: list[tuple[tuple[int, ...], int, int, tuple[int, int], bool]] = [
    ((9, 3), 9, 4, (0, 3), True), ((8,), 8, 3, (0, 2), True), ((5, 2, 2), 5, 7, (1, 5), True),
    ((0, 3), 0, 2, (0, 1), True), ((6, 2), 6, 3, (0, 2), False), ((4, 3), 4, 2, (0, 5), True),
    ((4, 3), 3, 2, (0, 1), True), ((4,), 4, 0, (0, 0), True), ((3,), 3, -1, (0, 0), True),
]

#: gather_nd: (x shape, indices shape, (lowest, highest index)), valid and invalid alike.
GATHER_ND_CASES: list[tuple[tuple[int, ...], tuple[int, ...], tuple[int, int]]] = [
    ((4, 3), (5, 2), (-3, 2)), ((4, 3, 2), (2, 1), (0, 3)), ((2, 3), (2, 0), (0, 0)), ((5,), (0, 1), (0, 4)),
    ((4, 3), (3,), (0, 2)), ((4, 3), (2, 2), (3, 5)), ((3, 2), (), (0, 0)),
]
#: set_diag: (x shape, diagonal shape), valid and invalid alike.
SET_DIAG_CASES: list[tuple[tuple[int, ...], tuple[int, ...]]] = [
    ((3, 3), (3,)), ((2, 3, 4), (2, 3)), ((4, 2), (2,)), ((2, 0, 3), (2, 0)), ((3, 3), (2,)), ((3,), (3,)),
    ((2, 3, 3), (3, 3)),
]
#: reverse_sequence: (x shape, lengths size, seq_axis, batch_axis, (lowest, highest length)).
REVERSE_SEQUENCE_CASES: list[tuple[tuple[int, ...], int, int, int, tuple[int, int]]] = [
    ((3, 5), 3, 1, 0, (0, 5)), ((4, 2, 3), 2, 0, 1, (1, 4)), ((0, 3), 0, 1, 0, (0, 0)), ((2, 6), 2, -1, -2, (6, 9)),
    ((3, 4), 3, 0, 0, (0, 3)), ((3, 4), 2, 1, 0, (0, 4)),
]

#: Dense fragments: (rows, weights, vectors) shapes, valid and invalid alike.
DENSE_CASES: list[tuple[tuple[int, ...], ...]] = [
    ((5,), (5, 3), (3,)), ((4, 3), (3, 2), (2,)), ((2, 3, 4), (4, 5), (5,)), ((0, 3), (3, 2), (2,)),
    ((4, 0), (0, 3), (3,)), ((4, 3), (3, 0), (0,)), ((), (1, 2), (2,)), ((4, 3), (4, 2), (2,)),
    ((4, 3), (3, 2), (3,)), ((4, 3), (2, 3, 2), (2,)), ((4, 3), (3,), (3,)),
]

#: Shaped fragments: (shape of every input, (lowest, highest value), value of every int arg,
#: extreme), valid and invalid alike: values beyond the int arg, shapes that differ, a matrix.
SHAPED_CASES: list[tuple[tuple[tuple[int, ...], ...], tuple[int, int], int, bool]] = [
    (((6,), (6,)), (0, 3), 4, False), (((0,), (0,)), (0, 3), 3, False), (((9,), (9,)), (0, 2), 3, False),
    (((5,), (3,)), (0, 3), 4, False), (((1,), (0,)), (0, 3), 2, False), (((8,), (8,)), (0, 4), 4, False),
    (((4,), (4,)), (-1, 2), 3, False), (((7,), (5,)), (-2, 2), 3, True), (((2, 3), (2, 3)), (0, 2), 3, False),
    (((3,), (3,)), (0, 2), -1, False),
]

#: Matrix fragments with inputs shared by every batch (multi-head attention: queries, keys,
#: values, then the projections wq, wk, wv, wo): input shapes and the value of the int args.
SHARED_CASES: list[tuple[tuple[tuple[int, ...], ...], int]] = [
    (((2, 3, 4), (2, 5, 4), (2, 5, 5), (4, 6), (4, 6), (5, 4), (4, 3)), 2),
    (((3, 4), (5, 4), (5, 5), (4, 6), (4, 6), (5, 4), (4, 3)), 1),
    (((3, 4), (2, 4), (2, 5), (4, 6), (4, 6), (5, 4), (4, 3)), 2),
    (((1, 2, 4), (1, 0, 4), (1, 0, 5), (4, 6), (4, 6), (5, 4), (4, 3)), 2),
    (((3, 4), (5, 4), (5, 5), (4, 6), (4, 6), (5, 4), (4, 3)), 4),
    (((3, 4), (5, 4), (5, 5), (4, 6), (4, 6), (5, 4), (4, 3)), 0),
    (((3, 4), (5, 4), (5, 5), (3, 6), (4, 6), (5, 4), (4, 3)), 2),
    (((3, 4), (5, 4), (5, 5), (4, 6), (4, 6), (5, 4), (4, 3)), 3),
    (((3, 4), (5, 4), (5, 5), (2, 4, 6), (4, 6), (5, 4), (4, 3)), 2),
]

#: Per number of inputs of a matrix fragment: input shapes, valid and invalid alike.
MATRIX_CASES: dict[int, list[tuple[tuple[int, ...], ...]]] = {
    1: [((3, 3),), ((2, 4, 4),), ((1, 1),), ((2, 1, 2, 2),), ((0, 3, 3),), ((3, 4),), ((5,),), ((2, 4, 3),),
        ((2, 0),)],
    2: [((3, 3), (3, 2)), ((2, 4, 4), (2, 4, 1)), ((1, 1), (1, 3)), ((2, 3, 3), (2, 3, 2)), ((3, 3), (4, 2)),
        ((2, 3, 3), (3, 3, 1)), ((3,), (3, 1)), ((5, 3), (5, 2))],
    # queries, keys, values: Lq x d, Lk x d, Lk x dv (attention)
    3: [((2, 3), (4, 3), (4, 2)), ((2, 3, 4), (2, 5, 4), (2, 5, 3)), ((4, 2), (3, 2), (3, 3)),
        ((1, 1), (1, 1), (1, 1)), ((3, 2), (0, 2), (0, 4)), ((0, 2), (3, 2), (3, 2)), ((2, 0), (3, 0), (3, 2)),
        ((2, 3), (4, 2), (4, 2)), ((2, 3), (4, 3), (3, 2)), ((2, 2, 3), (3, 4, 3), (3, 4, 2)),
        ((3,), (4, 3), (4, 2))],
}


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


def _seed(*parts: object) -> int:
    return zlib.crc32(repr(parts).encode()) & 0x7FFFFFFF


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


def cases(op: Op) -> Iterator[tuple[str, dict[str, Any]]]:
    """(dtype, case spec) pairs for every variant of the op."""
    c = op.compute
    for v in variants_of(op):
        for i, spec in enumerate(_cases_for(op, c, v)):
            spec["seed"] = _seed(op.qualified_name, v.dtype, i)
            if (resolved := _resolved_defaults(op, spec)):
                spec["defaults"] = resolved
            spec["inputs"] = {py_name(k): t for k, t in spec["inputs"].items()}
            spec["args"] = {py_name(k): a for k, a in spec["args"].items()}
            yield v.dtype, spec


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


#: cast: (shape, extreme, lowest, highest, view) of the input, in every source dtype: specials and
#: integer limits; floats beyond int8/uint8 and beyond int32 (saturated), and integers to wrap.
CAST_CASES: list[tuple[tuple[int, ...], bool, float | None, float | None, str | None]] = [
    ((9,), True, None, None, None), ((3, 4), False, -300.0, 300.0, None),
    ((2, 3, 4), False, -3e10, 3e10, "strided"), ((), True, None, None, None), ((0, 3), False, None, None, None),
    ((16,), False, -2e19, 2e19, None),
]

#: (shapes of the listed tensors, axis): valid joins, then ones the op refuses.
CONCAT_CASES = [([(2, 3), (4, 3)], 0), ([(2, 3), (2, 1), (2, 0)], -1), ([(5,)], 0), ([(2, 3, 4), (2, 3, 4)], 1),
                ([(0, 3), (2, 3)], 0), ([(1,) * 8, (1,) * 8], 7),
                ([(2, 3), (3, 3)], 1), ([(), ()], 0), ([(2, 3), (2, 3)], 2), ([(2, 3), (2, 3, 1)], 0)]
STACK_CASES = [([(2, 3), (2, 3), (2, 3)], 0), ([(2, 3), (2, 3)], -1), ([(), (), (), ()], 0), ([(5,)], 1),
               ([(2, 3, 4), (2, 3, 4)], 1), ([(0, 3), (0, 3)], 1),
               ([(2, 3), (3, 2)], 0), ([(1,) * 8, (1,) * 8], 0), ([(2, 3), (2, 3)], 3)]
#: tensordot: (x's shape, y's shape, x's axes, y's axes, transposes of x, y and the result): valid, then refused.
TENSORDOT_CASES: list[tuple[tuple[int, ...], tuple[int, ...], list[int], list[int], tuple[bool, bool, bool]]] = [
    ((2, 3), (3, 4), [1], [0], (False, False, False)), ((2, 3, 4), (4, 3, 5), [1, 2], [1, 0], (False, False, False)),
    ((3,), (3,), [0], [0], (False, False, False)), ((2, 3), (2, 2), [], [], (False, False, False)),
    ((3, 2), (3, 4), [1], [0], (True, False, False)), ((3, 2), (4, 3), [1], [0], (True, True, True)),
    ((2, 3, 4), (4, 2), [-1], [0], (False, False, True)), ((0, 3), (3, 2), [1], [0], (False, False, False)),
    ((2, 0), (0, 3), [1], [0], (False, False, False)), ((), (2, 3), [], [], (False, False, False)),
    ((2, 3), (4, 4), [1], [0], (False, False, False)), ((2, 3), (3, 4), [1], [], (False, False, False)),
    ((2, 3), (3, 4), [2], [0], (False, False, False)), ((3, 3), (3, 3), [0, 0], [0, 1], (False, False, False)),
    ((1,) * 5, (1,) * 5, [], [], (False, False, False)),
]
#: Parts kinds -> (shapes of the source: one, or the listed tensors; role values): valid cuts, then refused ones.
PARTS_CASES: dict[str, list[tuple[list[tuple[int, ...]], dict[str, Any]]]] = {
    "split": [([(6,)], {"num": 3, "axis": 0}), ([(2, 6, 2)], {"num": 3, "axis": 1}), ([(4, 3)], {"num": 1, "axis": -1}),
              ([(2, 3, 4)], {"num": 2, "axis": 2}), ([(0, 4)], {"num": 2, "axis": 1}), ([(0, 4)], {"num": 3, "axis": 0}),
              ([(1,) * 8], {"num": 1, "axis": 7}),
              ([(5,)], {"num": 2, "axis": 0}), ([()], {"num": 1, "axis": 0}), ([(3, 4)], {"num": 0, "axis": 0}),
              ([(3, 4)], {"num": 1, "axis": 2})],
    "unstack": [([(3,)], {"axis": 0}), ([(2, 3)], {"axis": 1}), ([(2, 3, 4)], {"axis": -1}), ([(0, 3)], {"axis": 0}),
                ([(4, 0)], {"axis": 0}), ([(1,) * 8], {"axis": 3}),
                ([()], {"axis": 0}), ([(2, 3)], {"axis": -3})],
    "meshgrid": [([(3,), (4,)], {"cartesian": True}), ([(3,), (4,)], {"cartesian": False}),
                 ([(2,), (3,), (2,)], {"cartesian": True}), ([(5,)], {"cartesian": True}),
                 ([(2, 3, 4), (2,)], {"cartesian": False}), ([(0,), (3,)], {"cartesian": True}), ([()], {"cartesian": False}),
                 ([(2,)] * 6, {"cartesian": False}),
                 ([(1,)] * 9, {"cartesian": True})],
}
MERGE_CASES = [[(3, 4), (3, 4), (3, 4)], [(5,)], [(), ()], [(2, 3, 4), (2, 3, 4)], [(0, 3), (0, 3)],
               [(7,)] * 5, [(2, 3), (3, 2)]]


def _cases_for(op: Op, c: Any, v: D.Variant) -> list[dict[str, Any]]:
    tol = _tol(op, c, v.dtype)
    out: list[dict[str, Any]] = []
    if isinstance(c, C.Elementwise):
        names = [p for p in c.params if any(i.name == p for i in op.inputs)]
        # (then shapes the op refuses: TML's rule refuses broadcasting, NumPy's unequal sizes)
        if c.broadcast == "numpy" and len(names) == 2:
            shapes = [((), ()), ((7,), (7,)), ((3, 4), (3, 4)), ((2, 3, 4), (1, 3, 1)), ((3, 1), (1, 4)),
                      ((5,), ()), MAX_RANK_SHAPES, ((0, 3), (1, 3)), ((2,), (3,))]
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
    elif isinstance(c, C.Reduction):
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
    elif isinstance(c, C.ArgReduction):
        x = c.input
        for k, (shape, axis, keep) in enumerate([((3, 4), 0, False), ((3, 4), -1, True), ((2, 3, 4), 1, False),
                                                 ((5,), 0, False), ((0, 3), 0, False), ((3, 0), 0, False)]):
            # The args a predicate reads: every combination (each condition) on the first shape.
            combos = _arg_values(op) if c.args else [{}]
            for given in combos if k == 0 else combos[:1]:
                out.append({"inputs": {x: _tensor(v.of(x), shape)},
                            "args": given | {c.axis: axis, c.keep_dims: keep}, "tol": tol})
    elif isinstance(c, C.Contraction):
        if len(c.inputs) == 2:
            pairs = [((2, 3), (3, 4)), ((2, 2, 3), (2, 3, 4)), ((2, 1, 3, 4), (3, 4, 5)), ((1, 1), (1, 1)),
                     ((0, 3), (3, 2)), ((3, 0), (0, 2))]
        else:
            pairs = [((3, 4),), ((2, 3, 4),), ((1, 5),), ((2, 1, 2, 3),), ((3, 3),), ((2, 4, 4),), ((1, 1),)]
        for shapes in pairs:
            small = D.category(v.dtype) != "float"
            inputs = {n: _tensor(v.of(n), s, extreme=False, low=-4 if small else None, high=4 if small else None)
                      for n, s in zip(c.inputs, shapes)}
            out.append({"inputs": inputs, "args": {}, "tol": tol})
    elif isinstance(c, C.RandomSample):
        base = _arg_values(op)[0]
        for shape, seed, offset in [((), 0, 0), ((7,), 42, 7), ((3, 5), 2**40 + 3, 2**33)]:
            args = dict(base) | {"shape": list(shape), "dtype": v.dtype}
            config = next((cfg for cfg in op.configs if any(a.name == "seed" for a in cfg.args)), None)
            if config is not None:
                args[config_param(config.name)] = {"__config__": config.name, "seed": seed, "offset": offset}
            out.append({"inputs": {}, "args": args, "tol": tol})
    elif isinstance(c, C.Generation) and c.generator == "cast":
        x = c.arg("input")
        for source in D.CONCRETE[DataType.NDARRAY]:
            for shape, extreme, low, high, view in CAST_CASES:
                out.append({"inputs": {x: _tensor(source, shape, extreme, view, low, high)},
                            "args": {"dtype": v.dtype}, "tol": tol})
    elif isinstance(c, C.Generation):
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
    elif isinstance(c, C.SlidingWindow):
        for window, stride, frame, blocks in [(3, 2, (2,), [1, 2, 4, 0, 3, 2]), (2, 5, (), [4, 1, 3, 2, 2]),
                                              (1, 1, (2, 2), [3, 1]), (4, 4, (3,), [2, 2, 5, 4, 4])]:
            out.append({"inputs": {}, "args": {}, "tol": tol,
                        "stream": {"window": window, "stride": stride, "frame_shape": list(frame),
                                   "blocks": blocks, "dtype": v.dtype}})
    elif isinstance(c, C.ShapeQuery):
        for shape, axis in [((), 0), ((7,), 0), ((3, 4), -1), ((0, 3), 1), ((2,) * 8, 5), ((3, 4), 2), ((3, 4), -3)]:
            args = {c.axis: axis} if c.axis is not None else {}
            out.append({"inputs": {c.input: _tensor(v.of(c.input), shape)}, "args": args, "tol": tol})
    elif isinstance(c, C.ScatterRows) and c.ref is not None:
        for k, (shape, index_shape, update_shape, (low, high)) in enumerate(SCATTER_CASES):
            view = "strided" if k == 0 else None
            inputs = {c.ref: _tensor(v.of(c.ref), shape, view=view),
                      c.indices: _tensor(v.of(c.indices), index_shape, extreme=False, low=low, high=high),
                      c.updates: _tensor(v.of(c.updates), update_shape, view=view)}
            out.append({"inputs": inputs, "args": {}, "tol": tol})
    elif isinstance(c, C.ScatterRows):
        for shape, count, rows, (low, high), ordered in SEGMENT_CASES:
            ids = _tensor(v.of(c.indices), (count,), extreme=False, low=low, high=high) | ({"sorted": True} if ordered else {})
            inputs = {c.updates: _tensor(v.of(c.updates), shape), c.indices: ids}
            out.append({"inputs": inputs, "args": {c.rows: rows}, "tol": tol})
    elif isinstance(c, C.LayoutMove) and c.layout == "gather_nd":
        x, indices = c.input, c.arg("indices")
        for shape, index_shape, (low, high) in GATHER_ND_CASES:
            inputs = {x: _tensor(v.of(x), shape), indices: _tensor(v.of(indices), index_shape, extreme=False,
                                                                   low=low, high=high)}
            out.append({"inputs": inputs, "args": {}, "tol": tol})
    elif isinstance(c, C.LayoutMove) and c.layout == "set_diag":
        x, diagonal = c.input, c.arg("diagonal")
        for shape, diagonal_shape in SET_DIAG_CASES:
            view = "strided" if shape == (2, 3, 4) else None
            inputs = {x: _tensor(v.of(x), shape, view=view), diagonal: _tensor(v.of(diagonal), diagonal_shape)}
            out.append({"inputs": inputs, "args": {}, "tol": tol})
    elif isinstance(c, C.LayoutMove) and c.layout == "reverse_sequence":
        x, lengths = c.input, c.arg("seq_lengths")
        for shape, count, seq, batch, (low, high) in REVERSE_SEQUENCE_CASES:
            view = "strided" if shape == (4, 2, 3) else None
            inputs = {x: _tensor(v.of(x), shape, view=view),
                      lengths: _tensor(v.of(lengths), (count,), extreme=False, low=low, high=high)}
            out.append({"inputs": inputs, "args": {c.arg("seq_axis"): seq, c.arg("batch_axis"): batch}, "tol": tol})
    elif isinstance(c, C.LayoutMove) and c.layout == "gather":
        x, indices, axis = c.input, c.arg("indices"), c.arg("axis")
        for shape, index_shape, a, (low, high) in GATHER_CASES:
            inputs = {x: _tensor(v.of(x), shape), indices: _tensor(v.of(indices), index_shape, extreme=False,
                                                                   low=low, high=high)}
            out.append({"inputs": inputs, "args": {axis: a}, "tol": tol})
    elif isinstance(c, C.LayoutMove):
        for shape, roles in LAYOUT_CASES[c.layout]:
            args = {c.arg(role): value for role, value in roles.items()}
            view = "strided" if shape == (2, 3, 4) else None
            out.append({"inputs": {c.input: _tensor(v.of(c.input), shape, view=view)}, "args": args, "tol": tol})
    elif isinstance(c, C.FragmentKernel) and c.layout == "rows":
        names = [i.name for i in op.inputs]
        for shapes in [((3,), (3,)), ((4, 3), (4, 3)), ((2, 2, 3), (2, 2, 3)), ((0, 3), (0, 3)), ((4, 3), (3, 3)),
                       ((4, 2), (4, 2)), ((), ())]:
            view = "strided" if shapes[0] == (2, 2, 3) else None
            inputs = {n: _tensor(v.of(n), s, view=view) for n, s in zip(names, shapes)}
            out.append({"inputs": inputs, "args": _arg_values(op)[0], "tol": tol})
    elif isinstance(c, C.Join):
        t = v.of(c.inputs)
        joins = CONCAT_CASES if not c.stack else STACK_CASES
        for shapes, axis in joins:
            view = "strided" if shapes[0] == (2, 3, 4) else None
            listed = [_tensor(t, shape, view=view) for shape in shapes]
            out.append({"inputs": {c.inputs: listed}, "args": {c.axis: axis}, "tol": tol})
    elif isinstance(c, C.FindAll):  # every predicate (the args' combinations) on the first shape
        x = c.input
        for k, shape in enumerate([(9,), (3, 4), (2, 3, 4), (), (0, 3)]):
            combos = _arg_values(op) if c.args else [{}]
            for given in combos if k == 0 else combos[:1]:
                view = "strided" if shape == (2, 3, 4) else None
                out.append({"inputs": {x: _tensor(v.of(x), shape, view=view)}, "args": given, "tol": tol})
    elif isinstance(c, C.TensorDot):
        small = D.category(v.dtype) != "float"
        for x_shape, y_shape, ax, ay, flags in TENSORDOT_CASES:
            view = "strided" if x_shape == (2, 3, 4) else None
            inputs = {n: _tensor(v.of(n), s, extreme=False, view=view if n == c.inputs[0] else None,
                                 low=-4 if small else None, high=4 if small else None)
                      for n, s in zip(c.inputs, (x_shape, y_shape))}
            args = dict(zip(c.axes, (ax, ay))) | dict(zip(c.transposes, flags))
            out.append({"inputs": inputs, "args": args, "tol": tol})
    elif isinstance(c, C.Parts):
        t = v.of(c.source)
        for shapes, roles in PARTS_CASES[c.part]:
            view = "strided" if shapes[0] == (2, 3, 4) else None
            listed = [_tensor(t, shape, view=view) for shape in shapes]
            source = listed if c.part == "meshgrid" else listed[0]
            out.append({"inputs": {c.source: source}, "args": {c.arg(r): value for r, value in roles.items()},
                        "tol": tol})
    elif isinstance(c, C.Merge):
        t = v.of(c.inputs)
        for shapes in MERGE_CASES:
            view = "strided" if shapes[0] == (2, 3, 4) else None
            listed = [_tensor(t, shape, view=view) for shape in shapes]
            out.append({"inputs": {c.inputs: listed}, "args": {}, "tol": tol})
    elif isinstance(c, C.FragmentKernel) and c.layout == "select":
        x = op.inputs[0].name
        for shape, k in [((5,), 2), ((5,), 5), ((3, 4), 1), ((2, 3, 4), 3), ((0, 3), 2), ((3, 0), 0), ((4, 6), 0),
                         ((3, 4), 5), ((3, 4), -1), ((), 1)]:
            view = "strided" if shape == (2, 3, 4) else None
            out.append({"inputs": {x: _tensor(v.of(x), shape, view=view)}, "args": _arg_values(op)[0] | {c.length: k},
                        "tol": tol})
        # ties: many equal values, ordered by index
        out.append({"inputs": {x: _tensor(v.of(x), (3, 7), extreme=False, low=0, high=2)},
                    "args": _arg_values(op)[0] | {c.length: 4}, "tol": tol})
    elif isinstance(c, C.FragmentKernel) and c.layout == "shaped":
        ints = [a.name for a in op.args if a.type in (DataType.INT, DataType.LONG) and a.count.is_single]
        for k, (shapes, (low, high), value, extreme) in enumerate(SHAPED_CASES):
            view = "strided" if k == 2 else None
            inputs = {i.name: _tensor(v.of(i.name), s, extreme, view, low, high) | {"whole": True}
                      for i, s in zip(op.inputs, shapes)}
            out.append({"inputs": inputs, "args": _arg_values(op)[0] | {n: value for n in ints}, "tol": tol})
    elif isinstance(c, C.FragmentKernel) and c.layout == "dense":
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
    elif isinstance(c, C.FragmentKernel) and c.layout == "channels":
        names = [i.name for i in op.inputs]
        for shape, channels in [((5,), 5), ((4, 3), 3), ((2, 3, 4), 4), ((0, 3), 3), ((3, 0), 0), ((4, 3), 4),
                                ((), 1), ((4, 3), None)]:
            view = "strided" if shape == (2, 3, 4) else None
            # NaN and infinities in one case; finite values elsewhere, so the statistics are exercised
            inputs = {names[0]: _tensor(v.of(names[0]), shape, extreme=shape == (4, 3) and channels == 3, view=view)}
            # channels None: a parameter of the wrong rank (a matrix)
            inputs |= {n: _tensor(v.of(n), (channels,) if channels is not None else (4, 3), extreme=False)
                       for n in names[1:]}
            for args in _arg_values(op)[:1]:
                out.append({"inputs": inputs, "args": args, "tol": tol})
    elif isinstance(c, C.FragmentKernel) and c.layout == "flat":
        x = op.inputs[0].name
        for shape, ordered, view in [((), False, None), ((1,), False, None), ((7,), False, None), ((7,), True, None),
                                     ((3, 4), True, None), ((3, 4), True, "strided"), ((0, 3), False, None),
                                     ((2, 3, 4), False, None)]:
            t = _tensor(v.of(x), shape, extreme=not ordered, view=view) | ({"sorted": True} if ordered else {})
            out.append({"inputs": {x: t}, "args": _arg_values(op)[0], "tol": tol})
    elif isinstance(c, C.FragmentKernel) and c.matrix and c.shared:
        ints = [a.name for a in op.args if a.type in (DataType.INT, DataType.LONG)]
        for k, (shapes, value) in enumerate(SHARED_CASES):
            inputs = {i.name: _tensor(v.of(i.name), s, extreme=False) for i, s in zip(op.inputs, shapes)}
            out.append({"inputs": inputs, "args": _matrix_args(op, c, k) | {n: value for n in ints}, "tol": tol})
    elif isinstance(c, C.FragmentKernel) and c.matrix:
        names = [i.name for i in op.inputs]
        shape_sets = MATRIX_CASES[len(names)] if len(names) in MATRIX_CASES else []
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
    elif isinstance(c, C.FragmentKernel):
        x = op.inputs[0].name
        for shape, axis in [((6,), 0), ((3, 4), 1), ((3, 4), -2), ((2, 3, 4), 1)]:
            kinds = {a.name: a for a in op.args}
            flags = [n for n in c.args if kinds[n].type is DataType.BOOLEAN]
            for flag in (False, True) if flags else (False,):
                args = _arg_values(op)[0] | {c.axis: axis} | {n: flag for n in flags}
                out.append({"inputs": {x: _tensor(v.of(x), shape, extreme=False)}, "args": args, "tol": tol})
    return out


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
}
ALL_DTYPES = D.CONCRETE[DataType.NDARRAY]


def _arg_kind(a: Arg) -> str:
    if a.type in (DataType.INT, DataType.LONG):
        return "int" if a.count.is_single else "ints"
    return {DataType.FLOATING_POINT: "real", DataType.NUMERIC: "real", DataType.BOOLEAN: "bool",
            DataType.ENUM: "enum", DataType.DATA_TYPE: "dtype"}[a.type]


def spoiled_cases(op: Op) -> Iterator[tuple[str, str, str, dict[str, Any]]]:
    """(dtype, what is spoiled, expected outcome, case spec): the op's first case with one
    parameter at a time given a value of the wrong type or dtype, out of range, a rank
    above the maximum or a shape that may not fit (BAD_ARGS says what each must raise)."""
    if isinstance(op.compute, C.SlidingWindow):  # (a stream's queue checks its own arguments)
        return
    dtype, template = next(cases(op))
    allowed = {i.name: {v.of(i.name) for v in variants_of(op)} for i in op.inputs}
    names = {py_name(i.name): i.name for i in op.inputs}

    def spoil(what: str, expect: str, inputs: dict[str, Any] | None = None,
              args: dict[str, Any] | None = None) -> tuple[str, str, str, dict[str, Any]]:
        spec = dict(template, inputs=template["inputs"] | (inputs or {}), args=template["args"] | (args or {}))
        spec.pop("defaults", None)  # (what the template's defaults resolve to need not hold for the spoiled one)
        return dtype, what, expect, spec

    for name, t in template["inputs"].items():
        label = names[name]
        if isinstance(t, list):  # a list of two dtypes
            other = next((d for d in ALL_DTYPES if d != t[0]["dtype"]), None)
            yield spoil(f"{label} mixed dtypes", "TypeError", {name: [t[0], dict(t[0], dtype=other)]})
            continue
        for d in ALL_DTYPES:
            if d != t["dtype"]:
                yield spoil(f"{label} dtype {d}", "agree" if d in allowed[label] else "TypeError",
                            {name: dict(t, dtype=d)})
        yield spoil(f"{label} rank 9", "ValueError", {name: dict(t, shape=[1] * 9)})
        yield spoil(f"{label} one more axis", "agree", {name: dict(t, shape=[*t["shape"], 3])})
    for a in op.args:
        for value, expect in BAD_ARGS[_arg_kind(a)]:
            yield spoil(f"{a.name} = {value!r}", expect, args={py_name(a.name): value})
    for cfg in op.configs:
        yield spoil(f"{config_param(cfg.name)} a dict", "TypeError", args={config_param(cfg.name): {"seed": 1}})


def python_args(op: Op) -> set[str]:
    return {py_name(a.name) for a in op.args}
