"""Each compute form owns its outputs' shapes and its refusals (ADR 0029). The generation-time
reference takes its shapes from the forms, so here the forms are held to what only they
can be: on every parity case of every op, their refusals and shapes evaluate, the reference
computes arrays of those shapes, and it refuses nothing else but what the op's constraints
say or the form names as a run-time check of values. What the C API, the bindings, units
and NNEF make of the same cases is the cross-target tests' (the golden runs of test_generated_c_library, the
parity runs of test_generated_code, test_shapes_across_targets)."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import ROOT
from dsl import compute as C
from dsl import loader
from generators.kernels import evaluate, py_names
from generators.kernels.py_shapes import evaluate as run_shape
from generators.kernels.selection import code_ops
from generators.tests import cases, golden

CATALOGUE = loader.load(ROOT / "ops").catalogue
#: (a fixed-point conversion's reference is the package's, over FixedPointArrays: the parity suite's, ADR 0068)
OPS = [(ns, op) for ns in CATALOGUE.namespaces for op in code_ops(ns)
       if not isinstance(op.compute, (C.SlidingWindow, C.FixedPointConversion))]


def form_outcome(op, kwargs):
    """(the message of the first refusal that fails, or None; the shapes of the outputs)."""
    c = op.compute
    tensors = {i.name: np.shape(kwargs[py_names.py_name(i.name)]) for i in op.inputs if i.count.is_single}
    lists = {i.name: [np.shape(t) for t in kwargs[py_names.py_name(i.name)]] for i in op.inputs
             if not i.count.is_single}
    args = {a.name: evaluate.arg_value(op, kwargs, a.name) for a in op.args}
    for refusal in c.refusals(op):
        if not run_shape(refusal.condition, tensors, args, lists):
            return refusal.message, None
    return None, [run_shape(s, tensors, args, lists) for s in c.output_shapes(op)]


@pytest.mark.parametrize(("ns", "op"), OPS, ids=[op.qualified_name for _, op in OPS])
def test_the_form_says_what_the_reference_does(ns, op) -> None:
    functions = golden.reference_functions(ns)
    checked = 0
    for dtype, spec in cases.cases(op):
        case = golden._Case(op, dtype, spec, functions[py_names.ref_name(op.name)], 0)
        expected = case.expected()
        refused, shapes = form_outcome(op, case.kwargs)
        where = (op.qualified_name, dtype, spec["inputs"], spec["args"])
        if expected is None:
            if refused is None:  # a constraint of the op, or a value the form checks at run time
                assert not evaluate.constraints_hold(op, case.kwargs) or op.compute.value_refusals(op), where
            continue
        assert refused is None, (where, refused)
        wants = expected if isinstance(expected, tuple) else (expected,)
        if C.list_output(op.compute) is not None:
            assert [tuple(s) for s in shapes[0]] == [w.shape for w in wants], where
        else:
            assert [tuple(s) for s in shapes] == [w.shape for w in wants], where
        checked += 1
    assert checked > 0


STRIDED = [(ns, op) for ns, op in OPS if isinstance(op.compute, C.LayoutMove) and op.compute.strides() is not None]


def _read_by_plan(op, kwargs, x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The elements of x that the form's reading plan names, in ``shape``."""
    args = {a.name: evaluate.arg_value(op, kwargs, a.name) for a in op.args}
    plan = op.compute.strides()
    source, step, start = (run_shape(p, {op.compute.input: x.shape}, args) for p in (plan.source, plan.step, plan.start))
    period = run_shape(plan.period, {op.compute.input: x.shape}, args) if plan.period is not None else None
    mode = args[plan.edges] if plan.edges is not None else None
    view = tuple(run_shape(plan.view, {op.compute.input: x.shape}, args)) if plan.view is not None else shape
    out = np.empty(view, x.dtype)  # (the output's elements in order, read as the view's)
    for index in np.ndindex(*view):
        at = list(start)
        for d, i in enumerate(index):
            at[source[d]] += (i % period[d] if period is not None else i) * step[d]
        for a, (j, n) in enumerate(zip(at, x.shape)):  # (an edge: outside x, as the mode reads it, or the fill)
            if not 0 <= j < n and mode in ("reflect", "symmetric"):
                at[a] = (-j if j < 0 else 2 * (n - 1) - j) if mode == "reflect" else (-j - 1 if j < 0 else 2 * n - 1 - j)
            elif not 0 <= j < n and mode in ("edge", "wrap"):
                at[a] = min(max(j, 0), n - 1) if mode == "edge" else j % n
        inside = all(0 <= j < n for j, n in zip(at, x.shape))
        out[index] = x[tuple(at)] if inside else np.asarray(args[plan.fill]).astype(x.dtype)
    return out.reshape(shape)


def test_strided_layouts_are_the_twelve_that_read_evenly_spaced_elements() -> None:
    assert sorted(op.qualified_name for _, op in STRIDED) == [
        "base.permute", "base.reverse", "base.slice", "base.strided_slice", "base.tile", "base.transpose",
        "cnn.batch_to_space", "cnn.depth_to_space", "cnn.space_to_batch", "cnn.space_to_depth", "cnn.upsampling2d",
        "nn.pad"]


@pytest.mark.parametrize(("ns", "op"), STRIDED, ids=[op.qualified_name for _, op in STRIDED])
def test_a_strided_layout_reads_what_the_reference_gives(ns, op) -> None:
    """The reading plan a unit renders (ADR 0032) names, on every parity case the reference
    computes, the elements NumPy puts there: negative axes, negative strides, clamped bounds."""
    functions = golden.reference_functions(ns)
    checked = 0
    for dtype, spec in cases.cases(op):
        case = golden._Case(op, dtype, spec, functions[py_names.ref_name(op.name)], 0)
        expected = case.expected()
        if expected is None:
            continue
        x = np.asarray(case.kwargs[py_names.py_name(op.compute.input)])
        got = _read_by_plan(op, case.kwargs, x, expected.shape)
        assert np.array_equal(got, expected, equal_nan=True), (op.qualified_name, spec["inputs"], spec["args"])
        checked += 1
    assert checked > 0
