"""nn.softmax in Q7, Q15, D8 and D16 (ADR 0049): TensorFlow Lite Micro's int8 softmax, derived
from the softmax fragment (a 16-bit difference's exponential the product of its two bytes'
entries). The rule is within one step of the exact softmax of the real values and of onnxruntime's
QLinearSoftmax (D8); the C API, the units' C and Python and the package's reference compute it bit
for bit; a Q output's shift is 0."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from conftest import ROOT, GeneratedProjects
from test_fixed_point import stored_values
from test_fixed_point_c_api import _Program
from test_fixed_point_units import _Call, _run_c, _run_python, _unit
from dsl import fixed_point as F
from dsl import loader
from generators import abi
from generators.imunit import checker
from generators.imunit.expression import VALUE_TYPES, Shape, Tensor
from generators.kernels import fixed_point as R
from generators.kernels import routines

CATALOGUE = loader.load(ROOT / "ops").catalogue
OP = CATALOGUE.namespace("nn").op("softmax")
TYPES = [F.Q7, F.Q15, F.D8, F.D16]
Q_SHIFTS = [0, 2, 5, -3]
#: (x's scale and offset, the output's), by the type's bits: TFLite's int8 softmax output (1/256,
#: -128) and its int16 one (2^-15, 0) among them.
D_ATTRIBUTES = {8: [(0.05, 3, 1 / 256, -128), (0.2, -10, 0.004, -100), (0.01, 0, 1 / 128, 0), (1.5, 20, 0.01, -120)],
                16: [(0.001, 0, 2.0 ** -15, 0), (0.0004, -300, 1 / 20000, -16000), (0.002, 17, 2.0 ** -15, 0),
                     (0.05, 20, 1 / 30000, -100)]}


def test_softmax_derives_for_the_8_and_16_bit_types_and_says_why_not_for_the_others() -> None:
    for t in F.TYPES.values():
        derived = F.derive(OP, t)
        if t.bits <= 16:
            assert isinstance(derived, F.Softmax), t.name
            assert (derived.output_shift == F.SConst(0)) == (t.family == "Q")
            assert derived.parts == t.bits // 8
        else:
            assert isinstance(derived, str) and "span 32 bits" in derived, (t.name, derived)
    assert isinstance(F.derive(CATALOGUE.namespace("nn").op("log_softmax"), F.Q7), str)  # (not a softmax)


def _reference(t: F.FixedPointType, x: np.ndarray, attributes: dict, axis: int) -> np.ndarray:
    """The rule as the package renders it for NumPy (the units' Python renders the same lines)."""
    scope = {"np": np, "_k": routines.numpy_kernels(), "quantize_multiplier": F.quantize_multiplier, "x": x,
             **attributes}
    exec("\n".join(R.numpy_softmax_lines(F.derive(OP, t), t, str(axis))), scope)
    return np.asarray(scope["result"])


def _exact(t: F.FixedPointType, x: np.ndarray, axis: int, step: float, offset: int, out_step: float,
           out_offset: int) -> np.ndarray:
    real = (x.astype(np.float64) - offset) * step
    p = np.exp(real - real.max(axis=axis, keepdims=True))
    return np.clip(p / p.sum(axis=axis, keepdims=True) / out_step + out_offset, t.lowest, t.highest)


def _attributes(t: F.FixedPointType, k: int) -> tuple[dict, float, int, float, int]:
    """(the rule's names, x's step and offset, the output's step and offset) of case ``k``."""
    if t.family == "Q":
        shift = Q_SHIFTS[k % len(Q_SHIFTS)]
        return {"x_shift": shift}, 2.0 ** (shift - t.fraction_bits), 0, 2.0 ** -t.fraction_bits, 0
    scale, offset, out_scale, out_offset = D_ATTRIBUTES[t.bits][k % len(D_ATTRIBUTES[t.bits])]
    return ({"x_scale": scale, "output_scale": out_scale, "output_offset": out_offset}, scale, offset, out_scale,
            out_offset)


@pytest.mark.parametrize("t", TYPES, ids=lambda t: t.system)
def test_the_rule_is_within_a_step_of_the_exact_softmax(t: F.FixedPointType) -> None:
    """Rows of every length from 1 to 40, along either axis: within one output step of the exact
    softmax of the real values (half a step but for the table's rounding), saturated."""
    rng = np.random.default_rng(t.bits)
    worst = 0.0
    for k in range(8):
        names, step, offset, out_step, out_offset = _attributes(t, k)
        for n in (1, 2, 7, 40):
            x = rng.integers(t.lowest, t.highest, (3, n), endpoint=True).astype(t.storage)
            for axis in (1, 0):
                got = _reference(t, x, names, axis)
                exact = _exact(t, x, axis, step, offset, out_step, out_offset)
                worst = max(worst, float(np.max(np.abs(got - exact))))
    assert worst <= 1.0, worst
    x = np.array([[5, 5, 5, 5]], t.storage)  # (equal values: equal shares, a quarter each)
    names, _, _, out_step, out_offset = _attributes(t, 0)
    assert _reference(t, x, names, 1).tolist() == [[round(0.25 / out_step) + out_offset] * 4]


def _quantized_softmax(x: np.ndarray, scale: float, offset: int, out_scale: float, out_offset: int) -> np.ndarray:
    """onnxruntime's contrib QLinearSoftmax (com.microsoft) along the last axis, int8."""
    node = helper.make_node("QLinearSoftmax", ["x", "xs", "xz", "ys", "yz"], ["y"], domain="com.microsoft", axis=-1,
                            opset=13)
    initial = [helper.make_tensor("xs", TensorProto.FLOAT, [], [scale]),
               helper.make_tensor("xz", TensorProto.INT8, [], [offset]),
               helper.make_tensor("ys", TensorProto.FLOAT, [], [out_scale]),
               helper.make_tensor("yz", TensorProto.INT8, [], [out_offset])]
    graph = helper.make_graph([node], "softmax", [helper.make_tensor_value_info("x", TensorProto.INT8, list(x.shape))],
                              [helper.make_tensor_value_info("y", TensorProto.INT8, list(x.shape))], initializer=initial)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13),
                                                    helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 10
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x})[0]


def test_d8_softmax_is_onnxruntime_s_qlinear_softmax_within_a_step() -> None:
    """onnxruntime computes in float32 from a table of exponentials of its own: within one step."""
    rng = np.random.default_rng(5)
    for scale, offset, out_scale, out_offset in D_ATTRIBUTES[8]:
        x = rng.integers(-128, 127, (20, 12), endpoint=True).astype(np.int8)
        got = _reference(F.D8, x, {"x_scale": scale, "output_scale": out_scale, "output_offset": out_offset}, -1)
        theirs = _quantized_softmax(x, scale, offset, out_scale, out_offset)
        assert np.max(np.abs(got.astype(np.int64) - theirs.astype(np.int64))) <= 1, (scale, offset)


def test_c_api_softmax_is_the_rule_bit_for_bit(generated: GeneratedProjects, c_objects: list[Path],
                                               tmp_path: Path) -> None:
    """opforge_nn_softmax on Q7, Q15, D8 and D16 descriptors, along each axis: the rule's NumPy rendering bit
    for bit; a Q output's shift set to 0 (whatever the descriptor held), a D output's scale and
    offset the caller's."""
    program, cases = _Program(), []
    for t in TYPES:
        for k in range(4):
            names, _, offset, out_step, out_offset = _attributes(t, k)
            x = stored_values(t, (3, 5, 4), seed=k)
            given = {"shift": names["x_shift"]} if t.family == "Q" else {"scale": names["x_scale"], "offset": offset}
            out = {"shift": 9} if t.family == "Q" else {"scale": out_step, "offset": out_offset}
            for axis in (-1, 1, 0):
                program.call(abi.function(OP), {"x": (t.name, x, given)}, (t.name, x.shape, out), args=(str(axis),))
                cases.append((t, names, x, axis))
    for (t, names, x, axis), (status, shift, values) in zip(cases, program.run(generated, c_objects, tmp_path)):
        assert status == 0, (t.name, names, axis)
        assert t.family == "D" or shift == 0, (t.name, shift)
        np.testing.assert_array_equal(values, _reference(t, x, names, axis).reshape(-1), err_msg=f"{t} {names} {axis}")


def test_a_softmax_unit_fills_its_table_in_init_and_computes_in_c_what_its_python_computes(
        generated: GeneratedProjects, tmp_path: Path) -> None:
    """The unit on Q7, Q15, D8 and D16 sockets: its output socket (Q: shift 0; D: the options' scale and
    offset), its Init choosing the type's fill (the C API's test runs that fill), its C (compiled
    strictly, given the rule's table) and its Python bit for bit the rule's."""
    folder = generated / "imunit" / "nn" / "softmax"
    unit = _unit(folder, "softmax")
    calls, checks = [], []
    for t in TYPES:
        for k in range(3):
            names, _, offset, out_step, out_offset = _attributes(t, k)
            x = stored_values(t, (4, 6), seed=20 + k)
            tensor = (Tensor(VALUE_TYPES[t.system], Shape(x.shape), shift_=names["x_shift"]) if t.family == "Q" else
                      Tensor(VALUE_TYPES[t.system], Shape(x.shape), scale_=names["x_scale"], offset_=offset))
            options = {"axis": k % 2} | ({} if t.family == "Q" else {"out_scale": out_step, "out_offset": out_offset})
            declared = checker.outputs(folder / "softmax.imunit", {"x": tensor}, options)["output"]
            assert (declared.type_.name, declared.shift_ if t.family == "Q" else (declared.scale_, declared.offset_)) \
                == (t.system, 0 if t.family == "Q" else (out_step, out_offset)), declared
            init = [c for c in checker.implementations(folder / "softmax.imunit", {"x": tensor}, options)
                    if c.section == "Init"]
            assert len(init) == 1 and init[0].fragments[-1].name.endswith(f"_{t.name}_table"), init
            picked = checker.chosen_calls(unit, {"x": tensor}, options)
            (c_impl, c_args), (py_impl, py_args) = picked["C"], picked["Python"]
            differences = np.arange(F.SOFTMAX_ENTRIES, dtype=np.float64)  # (and the high bytes' for 16 bits)
            table = np.asarray(R.numpy_run(F.derive(OP, t).entry, {
                "x": ("x", "float64"), F.STEP: ("np.float64(s)", "float64")}, {
                "x": np.concatenate([differences * F.SOFTMAX_ENTRIES ** p for p in range(t.bits // 8)]),
                "s": 2.0 ** (names["x_shift"] - t.fraction_bits) if t.family == "Q" else names["x_scale"]}), np.int32)
            from_py = _run_python(folder, "softmax", py_impl, py_args, {"x": x, "table": table}, "output",
                                  np.empty(x.shape, t.storage))
            # (the Handle, as Init fills it: the rule's table, which the C call then reads)
            calls.append(_Call(c_impl, c_args, {"x": x, "table": table}, "output", t.storage, x.size))
            axis = 1 - k % 2  # (the option counts from the innermost axis)
            checks.append((f"{t.system} {names} axis {axis}", from_py, _reference(t, x, names, axis)))
    for (what, from_py, expected), from_c in zip(checks, _run_c(folder, calls, tmp_path)):
        np.testing.assert_array_equal(from_py, expected, err_msg=f"{what}: Python")
        np.testing.assert_array_equal(from_c.reshape(from_py.shape), expected, err_msg=f"{what}: C")
