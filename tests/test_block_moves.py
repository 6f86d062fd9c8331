"""The block moves of cnn (issue 23), the strided layouts read through a view (ADR 0063).
space_to_depth and depth_to_space: the NumPy references compute ONNX's own SpaceToDepth and
DepthToSpace node cases and its reference evaluator's results (the C backend meets the same cases
in test_generated_code, and the reference's results in the golden tests); channels last is
channels first with the axes moved; and depth_to_space undoes space_to_depth of the same mode, for
shapes hypothesis draws. space_to_batch and batch_to_space: TensorFlow's documented examples, and
the same two properties. (test_forms checks that each form's reading plan, a view of six axes,
names what the reference computes.) upsampling2d: ONNX's nearest Resize."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT
from dsl import loader
from generators.tests import golden

OPS = loader.load(ROOT / "ops").catalogue.namespace("cnn")
REFERENCE = golden.reference_functions(OPS)
#: The enum args as a reference function takes them: their index.
NCHW, NHWC, DCR, CRD = 0, 1, 0, 1


def _call(name: str, x: np.ndarray, shape: tuple[int, ...], **args: int) -> np.ndarray:
    out = np.full(shape, -1, x.dtype)
    REFERENCE[name](x, output=out, **args)
    return out


def test_the_references_compute_onnx_s_node_cases() -> None:
    from onnx import helper
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = [c for c in collect_testcases(None) if len(c.model.graph.node) == 1
                 and c.model.graph.node[0].op_type in ("SpaceToDepth", "DepthToSpace")]
    for case in cases:
        node = case.model.graph.node[0]
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        (inputs, (want,)), = case.data_sets
        args = {"block_size": int(attrs["blocksize"]), "data_format": NCHW,
                "mode": ("DCR", "CRD").index(attrs.get("mode", b"DCR").decode())}
        name = "space_to_depth" if node.op_type == "SpaceToDepth" else "depth_to_space"
        np.testing.assert_array_equal(_call(name, inputs[0], want.shape, **args), want, err_msg=case.name)
    assert len(cases) == 6, [c.name for c in cases]  # (SpaceToDepth's mode is new in ONNX's opset 24)


@pytest.mark.parametrize(("op_type", "shape", "block", "mode"), [
    ("SpaceToDepth", (2, 3, 4, 6), 2, "DCR"), ("SpaceToDepth", (1, 2, 6, 3), 3, "CRD"),
    ("DepthToSpace", (2, 8, 2, 3), 2, "DCR"), ("DepthToSpace", (1, 18, 1, 2), 3, "CRD")])
def test_the_references_agree_with_onnx_s_reference_evaluator(op_type: str, shape: tuple[int, ...], block: int,
                                                              mode: str) -> None:
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator

    x = np.random.default_rng(7).standard_normal(shape).astype(np.float32)
    node = helper.make_node(op_type, ["x"], ["y"], blocksize=block, mode=mode)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    (want,) = ReferenceEvaluator(helper.make_model(graph)).run(None, {"x": x})
    got = _call("space_to_depth" if op_type == "SpaceToDepth" else "depth_to_space", x, want.shape, block_size=block,
                mode=("DCR", "CRD").index(mode), data_format=NCHW)
    np.testing.assert_array_equal(got, want)


blocks = st.integers(1, 3).flatmap(lambda b: st.tuples(
    st.just(b), st.integers(0, 2), st.integers(1, 3), st.integers(1, 3), st.integers(1, 3)))


@settings(max_examples=60, deadline=None)
@given(blocks, st.sampled_from([DCR, CRD]))
def test_channels_last_is_channels_first_with_the_axes_moved(drawn: tuple[int, ...], mode: int) -> None:
    b, n, c, h, w = drawn
    x = np.arange(n * c * h * b * w * b, dtype=np.int32).reshape(n, c, h * b, w * b)
    first = _call("space_to_depth", x, (n, c * b * b, h, w), block_size=b, mode=mode, data_format=NCHW)
    last = _call("space_to_depth", x.transpose(0, 2, 3, 1).copy(), (n, h, w, c * b * b), block_size=b, mode=mode,
                 data_format=NHWC)
    np.testing.assert_array_equal(last, first.transpose(0, 2, 3, 1))
    back = _call("depth_to_space", first, x.shape, block_size=b, mode=mode, data_format=NCHW)
    back_last = _call("depth_to_space", last, (n, h * b, w * b, c), block_size=b, mode=mode, data_format=NHWC)
    np.testing.assert_array_equal(back_last, back.transpose(0, 2, 3, 1))
    np.testing.assert_array_equal(back, x)  # (a mode reads the channels in the order it wrote them)


@pytest.mark.parametrize(("shape", "scale_h", "scale_w"), [((1, 2, 3, 4), 2, 3), ((2, 1, 2, 2), 3, 1),
                                                           ((1, 3, 1, 5), 1, 1)])
def test_upsampling_is_onnx_s_nearest_resize_by_whole_factors(shape: tuple[int, ...], scale_h: int,
                                                              scale_w: int) -> None:
    """cnn.upsampling2d's reference against ONNX's own reference Resize (mode nearest, its
    default coordinates and rounding) with scales (1, 1, scale_h, scale_w); channels last
    against the same with the axes moved."""
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator

    x = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
    node = helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="nearest")
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape),
                                            helper.make_tensor_value_info("scales", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    scales = np.array([1, 1, scale_h, scale_w], np.float32)
    (want,) = ReferenceEvaluator(helper.make_model(graph)).run(None, {"x": x, "scales": scales})
    got = _call("upsampling2d", x, want.shape, scale_h=scale_h, scale_w=scale_w, data_format=NCHW)
    np.testing.assert_array_equal(got, want)
    last = _call("upsampling2d", x.transpose(0, 2, 3, 1).copy(), want.transpose(0, 2, 3, 1).shape,
                 scale_h=scale_h, scale_w=scale_w, data_format=NHWC)
    np.testing.assert_array_equal(last, want.transpose(0, 2, 3, 1))


#: TensorFlow's documented examples of space_to_batch_nd (block_shape [2, 2], no paddings), NHWC:
#: x, then the output.
TF_SPACE_TO_BATCH = [
    ([[[[1], [2]], [[3], [4]]]], [[[[1]]], [[[2]]], [[[3]]], [[[4]]]]),
    ([[[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 12]]]], [[[[1, 2, 3]]], [[[4, 5, 6]]], [[[7, 8, 9]]],
                                                            [[[10, 11, 12]]]]),
    (np.arange(1, 17).reshape(1, 4, 4, 1).tolist(),
     [[[[1], [3]], [[9], [11]]], [[[2], [4]], [[10], [12]]], [[[5], [7]], [[13], [15]]], [[[6], [8]], [[14], [16]]]]),
]


@pytest.mark.parametrize(("x", "want"), TF_SPACE_TO_BATCH)
def test_the_batch_moves_compute_tensorflow_s_documented_examples(x: list, want: list) -> None:
    """cnn.space_to_batch gives TensorFlow's documented outputs (NHWC, the block's position
    outermost in the batch), and cnn.batch_to_space (its batch_to_space_nd examples are these
    reversed) gives x back; NCHW is the same with the channels moved first."""
    x_, want_ = np.array(x, np.int32), np.array(want, np.int32)
    np.testing.assert_array_equal(_call("space_to_batch", x_, want_.shape, block_size=2, data_format=NHWC), want_)
    np.testing.assert_array_equal(_call("batch_to_space", want_, x_.shape, block_size=2, data_format=NHWC), x_)
    first = _call("space_to_batch", x_.transpose(0, 3, 1, 2).copy(), want_.transpose(0, 3, 1, 2).shape,
                  block_size=2, data_format=NCHW)
    np.testing.assert_array_equal(first, want_.transpose(0, 3, 1, 2))


@settings(max_examples=60, deadline=None)
@given(blocks)
def test_batch_to_space_undoes_space_to_batch(drawn: tuple[int, ...]) -> None:
    b, n, c, h, w = drawn
    x = np.arange(n * c * h * b * w * b, dtype=np.int32).reshape(n, c, h * b, w * b)
    moved = _call("space_to_batch", x, (n * b * b, c, h, w), block_size=b, data_format=NCHW)
    last = _call("space_to_batch", x.transpose(0, 2, 3, 1).copy(), (n * b * b, h, w, c), block_size=b,
                 data_format=NHWC)
    np.testing.assert_array_equal(last, moved.transpose(0, 2, 3, 1))
    np.testing.assert_array_equal(_call("batch_to_space", moved, x.shape, block_size=b, data_format=NCHW), x)
    np.testing.assert_array_equal(
        _call("batch_to_space", last, (n, h * b, w * b, c), block_size=b, data_format=NHWC), x.transpose(0, 2, 3, 1))
