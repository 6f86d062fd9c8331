"""OCANNL's convolution axes, a result's placeholders, left broadcasting and a row variable summed
away (issue 23, ADR 0061):
ops declared with such specs generate C whose golden tests (the NumPy reference's results)
pass, and the reference computes what plain loops over the reference document's definition
(``input_dimension = stride * output_iterator + dilation * kernel_iterator``) compute, and
what NumPy's correlate computes."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT, write_ops
from dsl import loader
from generators.kernels import py_shapes
from generators.tests import golden

#: The demo ops: name, inputs, spec, what the op computes.
SPECS = [
    ("signals", ("x", "w"), "b,c,2*o+3*k;d,c,k=>b,d,o", "A 1-D convolution of stride 2 and dilation 3."),
    ("planes", ("x", "w"), "h+i,2*w+j;i,j=>h,w", "A 2-D correlation, every other column."),
    ("every_other", ("x",), "c,3*o=>c,o", "Every third element of each signal."),
    ("kept", ("x", "v"), "o+k;k=>o,_", "A correlation with a trailing axis of size 1."),
    ("batch_sum", ("x",), "...|ij=>ij", "The sum of a stack of matrices: the row variable summed."),
    ("total_dot", ("a", "b"), "...|i;...|i=>", "Every product of the broadcast stacks, summed."),
    ("stacked", ("a", "b"), "ij;jk=>ik", "Matrix products; leading axes broadcast."),
]
DEMO = "from dsl import *\nwith Namespace('conv'):\n" + "".join(
    f"    with Op({name!r}) as op:\n"
    + "".join(f"        Input(NUMERIC, {i!r}, description='an operand')\n" for i in inputs)
    + f"        Output(NUMERIC, 'out', description='out')\n        Einsum({spec!r})\n"
    + f"        Doc(Language.ANY, DocScope.ALL, {doc!r})\n" for name, inputs, spec, doc in SPECS)


def _loops(name: str, args: dict[str, np.ndarray]) -> np.ndarray:
    """Each demo op by plain loops over the reference's definition (no einsum, no strides)."""
    if name == "signals":
        x, w = args["x"], args["w"]
        windows = (x.shape[-1] - 3 * (w.shape[-1] - 1) - 1) // 2 + 1
        out = np.zeros((x.shape[0], w.shape[0], windows), np.float64)
        for b, d, o, c, k in itertools.product(*map(range, (x.shape[0], w.shape[0], windows, w.shape[1], w.shape[2]))):
            out[b, d, o] += x[b, c, 2 * o + 3 * k] * w[d, c, k]
        return out
    if name == "planes":
        x, w = args["x"], args["w"]
        rows, cols = x.shape[-2] - w.shape[-2] + 1, (x.shape[-1] - w.shape[-1]) // 2 + 1
        out = np.zeros((*x.shape[:-2], rows, cols), np.float64)
        for h, c, i, j in itertools.product(range(rows), range(cols), range(w.shape[-2]), range(w.shape[-1])):
            out[..., h, c] += x[..., h + i, 2 * c + j] * w[i, j]
        return out
    if name == "every_other":
        x = args["x"]
        return np.stack([x[..., 3 * o] for o in range((x.shape[-1] - 1) // 3 + 1)], axis=-1)
    if name == "kept":
        return np.correlate(args["x"], args["v"])[:, None]
    if name == "batch_sum":
        return args["x"].reshape(-1, *args["x"].shape[-2:]).sum(axis=0)
    if name == "total_dot":
        return np.asarray(np.sum(args["a"] * args["b"]))
    assert name == "stacked"
    return np.matmul(args["a"], args["b"])


SHAPES = {"signals": [{"x": (2, 3, 11), "w": (4, 3, 2)}, {"x": (1, 1, 4), "w": (1, 1, 2)}],
          "planes": [{"x": (5, 7), "w": (2, 3)}, {"x": (2, 4, 4), "w": (4, 2)}],
          "every_other": [{"x": (2, 7)}, {"x": (3, 1)}],
          "kept": [{"x": (6,), "v": (3,)}],
          "batch_sum": [{"x": (2, 3, 2, 4)}, {"x": (2, 4)}],
          "total_dot": [{"a": (2, 1, 3), "b": (4, 3)}, {"a": (3,), "b": (3,)}],
          "stacked": [{"a": (3, 2, 4), "b": (4, 5)}, {"a": (2, 1, 2, 3), "b": (3, 3, 2)}]}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("conv")
    ops = write_ops(root, {"defs.py": DEMO})
    made = subprocess.run([sys.executable, "-m", "generators.cli", "all", "-projects", "c,tests", "-opsdir", str(ops),
                           "-outdir", str(root / "out")], cwd=ROOT, capture_output=True, text=True)
    assert made.returncode == 0, made.stdout + made.stderr
    return ops, root / "out"


@pytest.mark.parametrize("name", list(SHAPES))
def test_the_reference_computes_the_reference_documents_definition(demo: tuple[Path, Path], name: str) -> None:
    ops, _ = demo
    ns = loader.load(ops).catalogue.namespace("conv")
    function = golden.reference_functions(ns)[name]
    op = ns.op(name)
    rng = np.random.default_rng(7)
    for shapes in SHAPES[name]:
        args = {n: rng.integers(-3, 4, s).astype(np.float64) for n, s in shapes.items()}
        want = _loops(name, args)
        out = np.zeros(want.shape, np.float64)
        function(**args, **{op.outputs[0].name: out})
        np.testing.assert_array_equal(out, want)


def test_the_c_golden_tests_of_the_demo_pass(demo: tuple[Path, Path]) -> None:
    """The C API's kernels over the same plans give the reference's results (the golden cases)
    and refuse spoiled descriptors (the hostile calls), warning-free under -Werror."""
    _, out = demo
    for target, program in (("check", "test_conv"), ("hostile-check", "hostile_conv")):
        run = subprocess.run(["make", "-s", target], cwd=out / "tests" / "c", capture_output=True, text=True)
        assert run.returncode == 0 and "0 failed" in run.stdout, (program, run.stdout[-3000:], run.stderr[-3000:])


@pytest.mark.parametrize(("given", "message"), [
    ({"x": (2, 3, 3), "w": (4, 3, 2)}, "x: the axis read at 2*o+3*k must hold one window at least"),
    ({"x": (2, 3, 11), "w": (4, 3, 0)}, "x: the axis read at 2*o+3*k must hold one window at least"),
    ({"x": (2, 3, 11), "w": (4, 2, 2)}, "x, w: the axes labelled c must have one size"),
])
def test_windows_that_do_not_fit_are_refused(demo: tuple[Path, Path], given: dict, message: str) -> None:
    ops, _ = demo
    op = loader.load(ops).catalogue.namespace("conv").op("signals")
    refused = [r.message for r in op.compute.refusals(op) if not py_shapes.evaluate(r.condition, given, {})]
    assert refused and refused[0].startswith(message), refused


#: ONNX's operators the cnn ops compute, by the op's name before its rank.
ONNX_CNN = {"Conv": "conv", "MaxPool": "max_pooling", "AveragePool": "avg_pooling", "LpPool": "lp_pooling",
            "GlobalMaxPool": "global_max_pooling", "GlobalAveragePool": "global_avg_pooling"}


def test_the_cnn_references_compute_onnx_s_node_cases() -> None:
    """ONNX's own Conv, MaxPool, AveragePool, LpPool, GlobalMaxPool and GlobalAveragePool cases
    (strides, dilations, asymmetric pads, SAME_LOWER and SAME_UPPER, count_include_pad, p,
    ceil_mode) on the NumPy references of the cnn ops, in process (the C backend meets the same
    cases in test_generated_code). Left out, as the ops' pages say: MaxPool's Indices output (2
    cases) and a uint8 MaxPool."""
    import warnings

    from onnx import helper
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = [c for c in collect_testcases(None) if len(c.model.graph.node) == 1
                 and c.model.graph.node[0].op_type in ONNX_CNN]
    functions = golden.reference_functions(loader.load(ROOT / "ops").catalogue.namespace("cnn"))
    passed, left_out = [], []
    for case in cases:
        node = case.model.graph.node[0]
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        (inputs, (want, *_)), = case.data_sets
        if len(node.output) > 1 or inputs[0].dtype.kind != "f":
            left_out.append(case.name)
            continue
        rank = inputs[0].ndim - 2
        out = np.full(want.shape, np.nan, want.dtype)
        if node.op_type.startswith("Global"):  # (no attributes: the window is every spatial axis)
            functions[f"{ONNX_CNN[node.op_type]}{rank}d"](inputs[0], output=out)
            np.testing.assert_allclose(out, want, rtol=case.rtol, atol=case.atol, err_msg=case.name)
            passed.append(case.name)
            continue
        args = {"strides": [1] * rank, "dilations": [1] * rank, "pads": [0] * (2 * rank), "auto_pad": 0}
        args |= {k: list(attrs[k]) for k in ("strides", "dilations", "pads", "kernel_shape") if k in attrs}
        if node.op_type == "Conv":
            args.pop("kernel_shape", None)  # (the weights' shape)
        if "auto_pad" in attrs:  # (a reference function takes an enum arg's index)
            args["auto_pad"] = ["NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"].index(attrs["auto_pad"].decode())
        if node.op_type != "Conv":
            args["ceil_mode"] = bool(attrs.get("ceil_mode", 0))
        if node.op_type == "AveragePool":
            args["count_include_pad"] = bool(attrs.get("count_include_pad", 0))
        if node.op_type == "LpPool":
            args["p"] = int(attrs.get("p", 2))
        given = dict(zip(("x", "w"), inputs))
        functions[f"{ONNX_CNN[node.op_type]}{rank}d"](**given, output=out, **args)
        np.testing.assert_allclose(out, want, rtol=case.rtol, atol=case.atol, err_msg=case.name)
        passed.append(case.name)
    assert (len(passed), len(left_out)) == (54, 3), (passed, left_out)


@pytest.mark.parametrize("rank", [1, 2, 3])
def test_global_lp_pooling_is_onnx_s_lp_pool_over_the_whole_window(rank: int) -> None:
    """ONNX has no node case of GlobalLpPool: cnn.global_lp_pooling<rank>d's reference against
    ONNX's own reference LpPool whose kernel is every spatial axis, for p of 1, 2 and 3."""
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator

    functions = golden.reference_functions(loader.load(ROOT / "ops").catalogue.namespace("cnn"))
    x = np.random.default_rng(rank).standard_normal((2, 3, 4, 5, 3)[:2 + rank]).astype(np.float32)
    for p in (1, 2, 3):
        node = helper.make_node("LpPool", ["x"], ["y"], kernel_shape=list(x.shape[2:]), p=p)
        graph = helper.make_graph([node], "pool", [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
        (want,) = ReferenceEvaluator(helper.make_model(graph)).run(None, {"x": x})
        out = np.full((2, 3) + (1,) * rank, np.nan, np.float32)
        functions[f"global_lp_pooling{rank}d"](x, output=out, p=p)
        np.testing.assert_allclose(out, want, rtol=1e-5, err_msg=f"p={p}")
