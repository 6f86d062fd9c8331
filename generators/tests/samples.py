"""The sample shapes and arg values the test cases draw from, per compute form.

Plain data, valid cases first and refused ones after, so every target is asked
both what it computes and what it refuses; ``form_cases`` turns them into cases.
"""

from __future__ import annotations

from typing import Any

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
            ((), {"paddings": [], "mode": "reflect", "value": 0.0}),
            # (edge and wrap: past the axis's length too; not to an empty axis, refused)
            ((3, 4), {"paddings": [2, 5, 1, 3], "mode": "edge", "value": 0.0}),
            ((2, 3, 2), {"paddings": [3, 4, 0, 7, 1, 0], "mode": "wrap", "value": 0.0}),
            ((0, 3), {"paddings": [1, 0, 0, 0], "mode": "edge", "value": 0.0}),
            ((0, 3), {"paddings": [0, 0, 1, 1], "mode": "wrap", "value": 0.0})],
    # (blocks of 1, 2 and 3, either data format; then sizes the block does not divide, a rank not 4)
    "space_to_depth": [((1, 2, 4, 6), {"block_size": 2, "mode": "DCR", "data_format": "NCHW"}),
                       ((2, 3, 6, 3), {"block_size": 3, "mode": "CRD", "data_format": "NCHW"}),
                       ((1, 4, 6, 3), {"block_size": 2, "mode": "DCR", "data_format": "NHWC"}),
                       ((2, 6, 4, 3), {"block_size": 2, "mode": "CRD", "data_format": "NHWC"}),
                       ((1, 2, 3, 3), {"block_size": 1, "mode": "DCR", "data_format": "NCHW"}),
                       ((0, 2, 2, 4), {"block_size": 2, "mode": "DCR", "data_format": "NHWC"}),
                       ((1, 2, 4, 5), {"block_size": 2, "mode": "DCR", "data_format": "NCHW"}),
                       ((2, 4, 4), {"block_size": 2, "mode": "CRD", "data_format": "NCHW"}),
                       ((1, 2, 2, 2), {"block_size": 0, "mode": "DCR", "data_format": "NCHW"})],
    "depth_to_space": [((1, 8, 2, 3), {"block_size": 2, "mode": "DCR", "data_format": "NCHW"}),
                       ((2, 8, 3, 2), {"block_size": 2, "mode": "CRD", "data_format": "NCHW"}),
                       ((2, 2, 3, 9), {"block_size": 3, "mode": "DCR", "data_format": "NHWC"}),
                       ((1, 2, 2, 12), {"block_size": 2, "mode": "CRD", "data_format": "NHWC"}),
                       ((1, 4, 0, 2), {"block_size": 2, "mode": "DCR", "data_format": "NCHW"}),
                       ((1, 6, 2, 2), {"block_size": 2, "mode": "DCR", "data_format": "NCHW"}),
                       ((1, 4, 2, 2, 1), {"block_size": 2, "mode": "CRD", "data_format": "NCHW"}),
                       ((1, 4, 2, 2), {"block_size": -2, "mode": "CRD", "data_format": "NHWC"})],
    # (blocks of 1 to 3, either data format, an empty batch; then sizes the block does not divide,
    # a rank not 4, a block of 0)
    "space_to_batch": [((1, 2, 4, 6), {"block_size": 2, "data_format": "NCHW"}),
                       ((2, 3, 6, 3), {"block_size": 3, "data_format": "NCHW"}),
                       ((1, 4, 6, 3), {"block_size": 2, "data_format": "NHWC"}),
                       ((1, 2, 3, 3), {"block_size": 1, "data_format": "NCHW"}),
                       ((0, 2, 2, 4), {"block_size": 2, "data_format": "NHWC"}),
                       ((1, 2, 4, 5), {"block_size": 2, "data_format": "NCHW"}),
                       ((2, 4, 4), {"block_size": 2, "data_format": "NCHW"}),
                       ((1, 2, 2, 2), {"block_size": 0, "data_format": "NCHW"})],
    "batch_to_space": [((4, 2, 2, 3), {"block_size": 2, "data_format": "NCHW"}),
                       ((18, 2, 1, 2), {"block_size": 3, "data_format": "NCHW"}),
                       ((8, 3, 2, 2), {"block_size": 2, "data_format": "NHWC"}),
                       ((0, 2, 2, 2), {"block_size": 2, "data_format": "NCHW"}),
                       ((6, 2, 2, 2), {"block_size": 2, "data_format": "NCHW"}),
                       ((4, 2, 2), {"block_size": 2, "data_format": "NHWC"}),
                       ((4, 2, 2, 2), {"block_size": -2, "data_format": "NHWC"})],
    # (factors of 1 to 3, either data format, an empty batch; then a factor of 0 and a rank not 4)
    "upsample": [((1, 2, 2, 3), {"scale_h": 2, "scale_w": 3, "data_format": "NCHW"}),
                 ((2, 3, 2, 2), {"scale_h": 3, "scale_w": 1, "data_format": "NHWC"}),
                 ((1, 1, 1, 1), {"scale_h": 1, "scale_w": 1, "data_format": "NCHW"}),
                 ((0, 2, 2, 2), {"scale_h": 2, "scale_w": 2, "data_format": "NCHW"}),
                 ((1, 2, 2, 2), {"scale_h": 0, "scale_w": 2, "data_format": "NCHW"}),
                 ((2, 2, 2), {"scale_h": 2, "scale_w": 2, "data_format": "NHWC"})],
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

#: Shaped fragments by the inputs' names, where the cases above do not fit (a quantization's one
#: scale and zero point): input shapes, the range of the values, whether extreme (NaN, infinities).
NAMED_SHAPED_CASES: dict[tuple[str, ...], list[tuple[tuple[tuple[int, ...], ...], tuple[int, int], bool]]] = {
    ("x", "scale", "zero_point"): [
        (((6,), (), ()), (1, 4), False), (((2, 3), (1,), (1,)), (-3, 3), True), (((0,), (), ()), (1, 3), False),
        (((3, 2, 2), (), (1,)), (1, 200), False), (((4,), (2,), ()), (1, 3), False), (((4,), (), (3,)), (1, 3), False),
    ],
}

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
    # queries, keys, values, mask: Lq x d, Lk x d, Lk x dv, Lq x Lk (masked attention)
    4: [((2, 3), (4, 3), (4, 2), (2, 4)), ((2, 3, 4), (2, 5, 4), (2, 5, 3), (2, 3, 5)),
        ((1, 1), (1, 1), (1, 1), (1, 1)), ((3, 2), (0, 2), (0, 4), (3, 0)), ((0, 2), (3, 2), (3, 2), (0, 3)),
        ((2, 3), (4, 3), (4, 2), (2, 3)), ((2, 3), (4, 3), (4, 2), (4, 4)), ((2, 2, 3), (2, 4, 3), (2, 4, 2), (2, 4)),
        ((2, 2, 3), (2, 4, 3), (2, 4, 2), (3, 2, 4))],
}
#: Matrix cases by the inputs' names, where their count alone does not tell the shapes.
NAMED_MATRIX_CASES: dict[tuple[str, ...], list[tuple[tuple[int, ...], ...]]] = {
    # queries, keys, mask: Lq x d, Lk x d, Lq x Lk (attention's scores)
    ("queries", "keys", "mask"): [((2, 3), (4, 3), (2, 4)), ((2, 3, 4), (2, 5, 4), (2, 3, 5)), ((1, 1), (1, 1), (1, 1)),
                                  ((3, 2), (0, 2), (3, 0)), ((0, 2), (3, 2), (0, 3)), ((2, 3), (4, 3), (4, 2)),
                                  ((2, 2, 3), (2, 4, 3), (2, 4)), ((2, 3), (4, 2), (2, 4))],
}

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
