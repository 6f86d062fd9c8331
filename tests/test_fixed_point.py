"""The fixed-point rules (dsl/fixed_point.py, ADR 0036), rendered for C and NumPy, held bit for
bit to the libraries that own them: CMSIS-DSP (through its PyPI package ``cmsisdsp``) for the
Q types, ONNX's QuantizeLinear and DequantizeLinear (run by onnxruntime) for the D types."""

from __future__ import annotations

import math
import operator
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import cmsisdsp as dsp  # (the owners of the rules: test dependencies, never skipped)
import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from conftest import ROOT, write_ops
from dsl import compute as C
from dsl import fixed_point as F
from dsl import loader
from dsl.fixed_point import q_kernel
from dsl.scalar import substitute
from generators.kernels import c_runtime, routines
from generators.kernels import fixed_point as R
from generators.kernels import scalar_c, scalar_numpy
from generators.kernels.scalar_c import C_TYPE, c_array
from generators.python.generator import _RUNTIME

STRICT = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O2", "-ffp-contract=off"]
Q_TYPES = [F.Q7, F.Q15, F.Q31]
D_TYPES = [F.D8, F.D16, F.D32]
#: Per-call values: a Q type's factor 2**(N - shift) and shift change k are given to the rule as
#: float32 and int values, a D type's scale and offset as float32 (the domain of the rule).
VALUE_DTYPE = {F.FACTOR: "float32", F.SCALE: "float32", F.OFFSET: "float32",
               # (a table's input and output attributes: its entries compute in float64)
               **{f"{prefix}_{name}": "float64" for prefix in ("x", "output") for name in (F.FACTOR, F.SCALE, F.OFFSET)}}


def _real(seed: int, scale: float = 1.0) -> np.ndarray:
    """Seeded float32 values around [-scale, scale], with those that test the edges: zeros,
    values beyond the type's range, infinities, and halves of a step (which rounding decides)."""
    rng = np.random.default_rng(seed)
    body = rng.uniform(-1.2, 1.2, 400) * scale
    halves = (rng.integers(-60, 60, 40) + 0.5) * scale / 64
    edges = np.array([0.0, -0.0, scale, -scale, 4 * scale, -4 * scale, 1e30, -1e30, np.inf, -np.inf])
    return np.concatenate([body, halves, edges]).astype(np.float32)


def _numpy(conversion: F.Conversion, x: np.ndarray | dict[str, np.ndarray], values: dict[str, float]) -> np.ndarray:
    inputs = x if isinstance(x, dict) else {"x": x}
    env = {**{n: (n, str(a.dtype)) for n, a in inputs.items()},
           **{name: (f"np.{VALUE_DTYPE.get(name, 'int32')}({name})", VALUE_DTYPE.get(name, "int32")) for name in values}}
    return np.asarray(R.numpy_run(conversion, env, {**inputs, **values}))


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return c_runtime.write_library(tmp_path_factory.mktemp("runtime"), "fixed-point rules under test")


def _run(runtime: Path, program: Path) -> str:
    """``program`` compiled strictly against the runtime, run: what it printed."""
    exe = program.with_suffix("")
    made = subprocess.run(["gcc", *STRICT, f"-I{runtime / 'src'}", f"-I{runtime / 'include'}", str(program),
                           str(runtime / "src" / "opforge_core.c"), "-lm", "-o", str(exe)], capture_output=True, text=True)
    assert made.returncode == 0 and made.stderr == "", made.stderr[-3000:]
    return subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout


def _c(runtime: Path, tmp_path: Path, conversion: F.Conversion, x: np.ndarray | dict[str, np.ndarray],
       cases: list[dict[str, float]]) -> list[np.ndarray]:
    """The rule compiled strictly and run over the inputs (``x``, or several by name) once per
    case of per-call values."""
    inputs = x if isinstance(x, dict) else {"x": x}
    size = next(iter(inputs.values())).size
    out_dtype = conversion.storage or conversion.domain
    names = list(cases[0])
    env = {**{n: (f"(({C_TYPE[conversion.domain]})in_{n}[i])", conversion.domain) for n in inputs},
           **{n: (n, VALUE_DTYPE.get(n, "int32")) for n in names}}
    arrays = "\n".join(c_array(f"in_{n}", a, str(a.dtype)) for n, a in inputs.items())
    columns = "\n".join(c_array(f"case_{n}", np.array([c[n] for c in cases]), VALUE_DTYPE.get(n, "int32"))
                        for n in names)
    printed = ('uint32_t bits; memcpy(&bits, &y, sizeof bits); printf("%08x\\n", (unsigned)bits);'
               if out_dtype == "float32" else 'printf("%lld\\n", (long long)y);')
    program = tmp_path / "rule.c"
    program.write_text(f"""#include <stdio.h>
#include <string.h>
#include "opforge_internal.h"
{arrays}
{columns}
int main(void)
{{
    for (int c = 0; c < {len(cases)}; c++) {{
        {" ".join(f"const {C_TYPE[VALUE_DTYPE.get(n, 'int32')]} {n} = case_{n}[c]; (void){n};" for n in names)}
        for (int i = 0; i < {size}; i++) {{
            {C_TYPE[out_dtype]} y;
            {R.c_statement(conversion, "y", env)}
            {printed}
        }}
    }}
    return 0;
}}
""")
    words = _run(runtime, program).split()
    if out_dtype == "float32":
        values = np.array([int(w, 16) for w in words], dtype=np.uint32).view(np.float32)
    else:
        values = np.array([int(w) for w in words], dtype=out_dtype)
    return list(values.reshape(len(cases), size))


def _same(ours: np.ndarray, theirs: np.ndarray, what: str) -> None:
    """Bit for bit (floats compared by their bits, so -0.0 is not 0.0)."""
    assert ours.dtype == theirs.dtype, (what, ours.dtype, theirs.dtype)
    view = {4: np.uint32, 2: np.uint16, 1: np.uint8, 8: np.uint64}[ours.dtype.itemsize]
    differ = np.flatnonzero(ours.view(view) != theirs.view(view))
    assert differ.size == 0, f"{what}: {differ.size} differ, first at {differ[:5]}: " \
                             f"ours {ours[differ[:5]]}, theirs {theirs[differ[:5]]}"


# ------------------------------------------------------------------ Q types, against CMSIS-DSP

def _cmsis(name: str, t: F.FixedPointType):
    return getattr(dsp, name.format(q=t.name))


@pytest.mark.parametrize("t", Q_TYPES, ids=lambda t: t.system)
def test_q_from_real_truncates_and_saturates_as_arm_float_to_q(t: F.FixedPointType, runtime: Path,
                                                                tmp_path: Path) -> None:
    """For each shift, arm_float_to_qN of the value scaled by 2**-shift (exact: a power of two)."""
    shifts = [0, 1, 3, -2, t.fraction_bits]
    x = _real(t.bits, 2.0 ** 6)
    c_results = _c(runtime, tmp_path, F.from_real(t), x, [{F.FACTOR: F.q_factor(t, s)} for s in shifts])
    for shift, from_c in zip(shifts, c_results):
        theirs = np.asarray(_cmsis("arm_float_to_{q}", t)(np.ldexp(x, -shift).astype(np.float32)), dtype=t.storage)
        ours = _numpy(F.from_real(t), x, {F.FACTOR: F.q_factor(t, shift)})
        _same(from_c, ours, f"{t.system} shift {shift}, C and NumPy")
        # Beyond int32, CMSIS-DSP's (q31_t) cast is undefined: x86 gives INT32_MIN (so the PyPI
        # build stores the lowest value for +inf), a Cortex-M's VCVT saturates, as the rule does.
        scaled = np.ldexp(x.astype(np.float64), t.fraction_bits - shift)
        defined = np.abs(scaled) < 2.0**31
        _same(ours[defined], theirs[defined], f"{t.system} shift {shift}")
        assert (ours[~defined] == np.where(scaled[~defined] > 0, t.highest, t.lowest)).all()
        assert (~defined).sum() >= 4  # (the edges: +-1e30 and the infinities)


@pytest.mark.parametrize("t", Q_TYPES, ids=lambda t: t.system)
def test_q_to_real_is_arm_q_to_float_scaled_exactly(t: F.FixedPointType, runtime: Path, tmp_path: Path) -> None:
    rng = np.random.default_rng(t.bits)
    stored = np.concatenate([rng.integers(t.lowest, t.highest, 500, endpoint=True),
                             [t.lowest, t.highest, 0, 1, -1]]).astype(t.storage)
    shifts = [0, 2, -3, t.fraction_bits]
    c_results = _c(runtime, tmp_path, F.to_real(t), stored, [{F.FACTOR: F.q_factor(t, s)} for s in shifts])
    for shift, from_c in zip(shifts, c_results):
        theirs = np.ldexp(np.asarray(_cmsis("arm_{q}_to_float", t)(stored), dtype=np.float32), shift)
        _same(_numpy(F.to_real(t), stored, {F.FACTOR: F.q_factor(t, shift)}), theirs, f"{t.system} shift {shift}")
        _same(from_c, theirs, f"{t.system} shift {shift}, C")


@pytest.mark.parametrize("t", Q_TYPES, ids=lambda t: t.system)
def test_q_shift_is_arm_shift_q(t: F.FixedPointType, runtime: Path, tmp_path: Path) -> None:
    """Raising the shift by k is arm_shift_qN by -k: arithmetic right, saturating left."""
    rng = np.random.default_rng(t.bits + 1)
    stored = np.concatenate([rng.integers(t.lowest, t.highest, 500, endpoint=True),
                             [t.lowest, t.highest, 0, 1, -1]]).astype(t.storage)
    ks = [0, 1, 3, t.bits - 1, -1, -4, -(t.bits - 1)]
    rule = F.shifted(t)
    wide = stored.astype(rule.domain)
    c_results = _c(runtime, tmp_path, rule, wide, [{F.SHIFT_BY: k} for k in ks])
    for k, from_c in zip(ks, c_results):
        theirs = np.asarray(_cmsis("arm_shift_{q}", t)(stored, -k), dtype=t.storage)
        _same(_numpy(rule, wide, {F.SHIFT_BY: k}), theirs, f"{t.system} k={k}")
        _same(from_c, theirs, f"{t.system} k={k}, C")


@pytest.mark.parametrize("t,to", [(t, u) for t in Q_TYPES for u in Q_TYPES if t != u],
                         ids=lambda t: t.system)
def test_q_to_another_q_is_arm_q_to_q(t: F.FixedPointType, to: F.FixedPointType, runtime: Path,
                                      tmp_path: Path) -> None:
    """At the same shift, the fraction bits' difference as a shift: arm_q15_to_q7 and the others;
    a shift on top is a shift more (k), saturating."""
    rng = np.random.default_rng(t.bits * to.bits)
    stored = np.concatenate([rng.integers(t.lowest, t.highest, 500, endpoint=True),
                             [t.lowest, t.highest, 0, 1, -1]]).astype(t.storage)
    rule = F.shifted(t, to)
    wide = stored.astype(rule.domain)
    k = t.fraction_bits - to.fraction_bits
    from_c, from_c_more = _c(runtime, tmp_path, rule, wide, [{F.SHIFT_BY: k}, {F.SHIFT_BY: k - 2}])
    theirs = np.asarray(getattr(dsp, f"arm_{t.name}_to_{to.name}")(stored), dtype=to.storage)
    _same(_numpy(rule, wide, {F.SHIFT_BY: k}), theirs, f"{t.system} to {to.system}")
    _same(from_c, theirs, f"{t.system} to {to.system}, C")
    # (the real value times 2**(N_to - shift), floored and saturated; exact in float64)
    more = np.clip(np.floor(stored.astype(np.float64) * 2.0 ** (2 - k)), to.lowest, to.highest).astype(to.storage)
    _same(from_c_more, more, f"{t.system} to {to.system}, 2 more bits")


@pytest.mark.parametrize("t", Q_TYPES, ids=lambda t: t.system)
def test_q_shift_left_beyond_the_width_saturates(t: F.FixedPointType, runtime: Path, tmp_path: Path) -> None:
    """(arm_shift_q15 is undefined there: its shift left overflows q31_t)"""
    stored = np.array([t.lowest, -3, -1, 0, 1, 3, t.highest], t.storage)
    rule = F.shifted(t)
    wide = stored.astype(rule.domain)
    expected = np.array([t.lowest, t.lowest, t.lowest, 0, t.highest, t.highest, t.highest], t.storage)
    for k, from_c in zip((-t.bits, -70), _c(runtime, tmp_path, rule, wide, [{F.SHIFT_BY: -t.bits}, {F.SHIFT_BY: -70}])):
        _same(from_c, expected, f"k={k}, C")
        _same(_numpy(rule, wide, {F.SHIFT_BY: k}), expected, f"k={k}")


@pytest.mark.parametrize("t", Q_TYPES, ids=lambda t: t.system)
def test_q_nan_is_zero_and_round_trips_are_exact(t: F.FixedPointType, runtime: Path, tmp_path: Path) -> None:
    """NaN, which CMSIS-DSP leaves undefined, stores 0 (cast's rule); every stored value
    survives the trip to real and back for every allowed shift's end points."""
    nan = np.array([np.nan, -np.nan], np.float32)
    (from_c,) = _c(runtime, tmp_path, F.from_real(t), nan, [{F.FACTOR: 1.0}])
    assert not from_c.any() and not _numpy(F.from_real(t), nan, {F.FACTOR: 1.0}).any()
    stored = np.array([t.lowest, -1, 0, 1, t.highest], t.storage)
    for shift in (t.shifts()[0], 0, t.shifts()[-1]):
        real = _numpy(F.to_real(t), stored, {F.FACTOR: F.q_factor(t, shift)})
        assert np.isfinite(real).all()
        _same(_numpy(F.from_real(t), real, {F.FACTOR: F.q_factor(t, shift)}), stored, f"shift {shift}")
    with pytest.raises(ValueError, match=r"Q15: shift must be in -112\.\.127, not 128"):
        F.q_factor(F.Q15, 128)


# -------------------------------------------------------------- D types, against ONNX Runtime

def _ort(graph: object, feeds: dict[str, np.ndarray]) -> np.ndarray:
    """The graph's one output as onnxruntime computes it (opset 21, and Microsoft's contrib
    domain for the QLinear operators of one node)."""
    opsets = [helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)]
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = 10
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)[0]


def _onnx(op: str, x: np.ndarray, scale: float, offset: int, stored: str) -> np.ndarray:
    element = {"int8": TensorProto.INT8, "int16": TensorProto.INT16, "int32": TensorProto.INT32}[stored]
    given, made = (TensorProto.FLOAT, element) if op == "QuantizeLinear" else (element, TensorProto.FLOAT)
    graph = helper.make_graph(
        [helper.make_node(op, ["x", "scale", "offset"], ["y"])], "rule",
        [helper.make_tensor_value_info("x", given, [x.size])], [helper.make_tensor_value_info("y", made, [x.size])],
        initializer=[helper.make_tensor("scale", TensorProto.FLOAT, [], [scale]),
                     helper.make_tensor("offset", element, [], [offset])])
    return _ort(graph, {"x": x})


D_CASES = [(0.1, 3), (0.0078125, -128), (1.0, 0), (0.37, 11), (2.5e-4, -7)]


@pytest.mark.parametrize("t", [F.D8, F.D16], ids=lambda t: t.system)
def test_d_from_real_is_quantize_linear(t: F.FixedPointType, runtime: Path, tmp_path: Path) -> None:
    cases = [(s, o) for s, o in D_CASES if t.lowest <= o <= t.highest]
    ties = np.arange(-40, 40) + 0.5  # (exact halves of a step for the power-of-two scales)
    x = np.concatenate([_real(t.bits, 40.0), ties, ties * 0.0078125]).astype(np.float32)
    c_results = _c(runtime, tmp_path, F.from_real(t), x, [{F.SCALE: s, F.OFFSET: o} for s, o in cases])
    for (scale, offset), from_c in zip(cases, c_results):
        theirs = _onnx("QuantizeLinear", x, scale, offset, t.storage)
        _same(_numpy(F.from_real(t), x, {F.SCALE: scale, F.OFFSET: offset}), theirs, f"{t.system} {scale} {offset}")
        _same(from_c, theirs, f"{t.system} {scale} {offset}, C")


@pytest.mark.parametrize("t", D_TYPES, ids=lambda t: t.system)
def test_d_to_real_is_dequantize_linear(t: F.FixedPointType, runtime: Path, tmp_path: Path) -> None:
    rng = np.random.default_rng(t.bits + 2)
    # (D32: stored values within float32's 24 bits, where (stored - offset) is exact in the rule's domain)
    high = min(t.highest, 2 ** 23)
    stored = np.concatenate([rng.integers(-high, high, 500, endpoint=True), [-high, high, 0]]).astype(t.storage)
    cases = [(s, o) for s, o in D_CASES if t.lowest <= o <= t.highest]
    c_results = _c(runtime, tmp_path, F.to_real(t), stored, [{F.SCALE: s, F.OFFSET: o} for s, o in cases])
    for (scale, offset), from_c in zip(cases, c_results):
        theirs = _onnx("DequantizeLinear", stored, scale, offset, t.storage)
        _same(_numpy(F.to_real(t), stored, {F.SCALE: scale, F.OFFSET: offset}), theirs, f"{t.system} {scale}")
        _same(from_c, theirs, f"{t.system} {scale} {offset}, C")


def test_d_nan_stores_the_offset_which_means_zero(runtime: Path, tmp_path: Path) -> None:
    """ONNX leaves NaN undefined (onnxruntime gives the lowest value); the rule gives real zero."""
    nan = np.array([np.nan], np.float32)
    (from_c,) = _c(runtime, tmp_path, F.from_real(F.D8), nan, [{F.SCALE: 0.5, F.OFFSET: -9}])
    assert from_c.tolist() == [-9] == _numpy(F.from_real(F.D8), nan, {F.SCALE: 0.5, F.OFFSET: -9}).tolist()


def test_the_types_are_the_guides() -> None:
    """System names, C types and attributes as the authoring guide's table 11.2 gives them."""
    table = {t.system: (t.c_type, t.attributes, t.bits) for t in F.TYPES.values()}
    assert table == {"Q7": ("q7_t", ("shift",), 8), "Q15": ("q15_t", ("shift",), 16), "Q31": ("q31_t", ("shift",), 32),
                     "D8": ("int8_t", ("scale", "offset"), 8), "D16": ("int16_t", ("scale", "offset"), 16),
                     "D32": ("int32_t", ("scale", "offset"), 32)}


# ------------------------------------------------- the package's FixedPointArray (opforge.fixed_point)

PACKAGE_CHECKS = r'''
import doctest
import numpy as np
import cmsisdsp as dsp
from opforge import fixed_point as fp

assert doctest.testmod(fp).failed == 0

def fails(kind, message, call):
    try:
        call()
    except kind as exc:
        assert str(exc) == message, (str(exc), message)
    else:
        raise AssertionError(f"no {kind.__name__}: {message}")

rng = np.random.default_rng(5)
x = rng.uniform(-1.5, 1.5, 300).astype(np.float32)
for name in ("q7", "q15", "q31"):
    q = fp.quantize(x, name)  # (shift 0: the values CMSIS-DSP's own conversion gives)
    theirs = getattr(dsp, f"arm_float_to_{name}")(x)
    assert (q.stored == theirs).all() and q.stored.dtype == theirs.dtype, name
    assert (np.asarray(q) == getattr(dsp, f"arm_{name}_to_float")(q.stored)).all(), name
    for other in ("q7", "q15", "q31"):
        if other != name:
            moved = fp.requantize(q, other)
            assert (moved.stored == getattr(dsp, f"arm_{name}_to_{other}")(q.stored)).all(), (name, other)
            assert moved.shift == 0 and moved.type == other
    assert (fp.requantize(q, shift=2).stored == dsp.arm_shift_q15(q.stored, -2)).all() if name == "q15" else True
# NumPy sees the real values; the stored integers cannot be changed behind the attributes
q = fp.quantize([0.5, -0.25], "q15", shift=1)
assert (q * 2).dtype == np.float32 and (q * 2).tolist() == [1.0, -0.5]
assert q[1:].shift == 1 and q[1:].stored.tolist() == [-4096] and len(q) == 2 and q.shape == (2,)
try:
    q.stored[0] = 1
except ValueError:
    pass
else:
    raise AssertionError("stored is writable")
d = fp.quantize([0.25, np.nan, 1e9], "d8", scale=0.5, offset=-9)
assert d.stored.tolist() == [-9, -9, 127] and (d.scale, d.offset) == (0.5, -9), d
assert np.asarray(d).tolist() == [0.0, 0.0, 68.0]
# wrong kinds are TypeError, wrong values ValueError, each naming the rule
fails(ValueError, "quantize: type must be one of q7, q15, q31, d8, d16, d32, not 'q16'", lambda: fp.quantize([1], "q16"))
fails(TypeError, "quantize: d8 needs a scale", lambda: fp.quantize([1], "d8"))
fails(TypeError, "quantize: q15 carries a shift, not a scale or an offset", lambda: fp.quantize([1], "q15", scale=2.0))
fails(ValueError, "quantize: a q15 shift must be in -112..127 (2**(15 - shift) a normal float32), not 200",
      lambda: fp.quantize([1], "q15", shift=200))
fails(ValueError, "quantize: scale must be positive and finite as a float32, not 1e+39",
      lambda: fp.quantize([1], "d16", scale=1e39))
fails(ValueError, "quantize: a d8 offset must be in -128..127, not 128", lambda: fp.quantize([1], "d8", scale=1.0, offset=128))
fails(TypeError, "quantize: x must hold real numbers (integers or floats), not bool", lambda: fp.quantize([True], "q7"))
fails(TypeError, "quantize: shift must be an integer, got float", lambda: fp.quantize([1], "q7", shift=1.0))
fails(TypeError, "quantize: scale must be a number, got str", lambda: fp.quantize([1], "d8", scale="1"))
fails(TypeError, "FixedPointArray: q15 is stored as int16, not int64", lambda: fp.FixedPointArray(np.array([1]), "q15"))
fails(TypeError, "requantize: q must be a FixedPointArray, not ndarray", lambda: fp.requantize(np.array([1])))
fails(TypeError, "multiply: out cannot be a FixedPointArray; quantize the result instead",
      lambda: np.multiply(q, 2, out=q))
# per-axis scales (ADR 0069): ONNX QuantizeLinear and DequantizeLinear with an axis, bit for bit
import onnxruntime as ort
from onnx import TensorProto, helper

def linear(op, x, scales, offset, axis):
    given, made = (TensorProto.FLOAT, TensorProto.INT8) if op == "QuantizeLinear" else (TensorProto.INT8,
                                                                                        TensorProto.FLOAT)
    graph = helper.make_graph(
        [helper.make_node(op, ["x", "s", "o"], ["y"], axis=axis)], "g",
        [helper.make_tensor_value_info("x", given, list(x.shape))], [helper.make_tensor_value_info("y", made, None)],
        initializer=[helper.make_tensor("s", TensorProto.FLOAT, [scales.size], scales.tolist()),
                     helper.make_tensor("o", TensorProto.INT8, [scales.size], [offset] * scales.size)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]

w = (rng.standard_normal((3, 4, 2)) * 3).astype(np.float32)
for axis in (0, 1, -1):
    s = rng.uniform(0.01, 0.3, w.shape[axis]).astype(np.float32)
    d = fp.quantize(w, "d8", scale=s, axis=axis, offset=-2)
    assert d.axis == axis % 3 and np.array_equal(d.scale, s) and d.offset == -2, d
    assert np.array_equal(d.stored, linear("QuantizeLinear", w, s, -2, axis)), axis
    assert np.array_equal(np.asarray(d), linear("DequantizeLinear", d.stored, s, -2, axis)), axis
    kept = fp.requantize(d, "d16")  # (the same family: its per-axis scales kept)
    assert kept.axis == d.axis and np.array_equal(kept.scale, s) and np.array_equal(np.asarray(kept), np.asarray(d))
    one = fp.requantize(d, scale=0.05)  # (a scale given: one)
    assert one.axis is None
    assert np.array_equal(one.stored, fp.quantize(np.asarray(d), "d8", scale=0.05, offset=-2).stored)
    again = fp.FixedPointArray(d.stored, "d8", scale=list(s), axis=axis, offset=-2)
    assert np.array_equal(np.asarray(again), np.asarray(d)) and "axis=" in repr(again)
fails(ValueError, "quantize: scale must hold one scale per index of axis 0 (2), not 1",
      lambda: fp.quantize([1.0, 2.0], "d8", scale=[0.1], axis=0))
fails(TypeError, "quantize: q15 carries a shift; only a D type carries per-axis scales",
      lambda: fp.quantize([1.0], "q15", scale=[0.1], axis=0))
fails(ValueError, "quantize: axis must be in -2..1 (the array has 2 axes), not 2",
      lambda: fp.quantize([[1.0]], "d8", scale=[0.1], axis=2))
fails(TypeError, "quantize: scale must be a sequence of numbers, one per index of axis 0, not float",
      lambda: fp.quantize([1.0], "d8", scale=0.1, axis=0))
fails(ValueError, "quantize: every scale must be positive and finite as a float32",
      lambda: fp.quantize([1.0], "d8", scale=[0.0], axis=0))
fails(TypeError, "quantize: scale[0] must be a number, got str", lambda: fp.quantize([1.0], "d8", scale=["a"], axis=0))
fails(ValueError, "FixedPointArray: an array with per-axis scales has no parts or reshapes of its own (the axis may go "
      "or move): take them of its stored values, or requantize it to one scale first", lambda: d[0])
print("fixed point ok")
'''


def test_the_package_holds_fixed_point_arrays_as_numpy_users_expect(tmp_path: Path) -> None:
    """opforge.fixed_point, as generated: its doctests, CMSIS-DSP's conversions through the
    public functions, NumPy seeing real values, and its refusals."""
    package = tmp_path / "opforge"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "_kernels.py").write_text(routines.numpy_source())
    (package / "_fixed_point_rules.py").write_text(R.numpy_rules_module("rules under test", []))
    for runtime in ("fixed_point.py", "_runtime.py", "_native.py"):  # (_native: no C backend built here)
        (package / runtime).write_text((_RUNTIME / runtime).read_text())
    run = subprocess.run([sys.executable, "-c", PACKAGE_CHECKS], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert run.returncode == 0 and run.stdout.strip() == "fixed point ok", run.stdout[-3000:] + run.stderr[-3000:]


def test_a_namespace_cannot_take_the_fixed_point_module_s_name(cli) -> None:
    write_ops(cli.cwd, {"fixed_point.py": """
        from dsl import *

        with Namespace("Fixed_Point"):
            with Op("twice") as op:
                x = Input(NUMERIC, "x", description="x")
                Output(NUMERIC, "output", description="out")
                Elementwise(lambda x: x * 2)
                Doc(Language.ANY, DocScope.ALL, "Twice x.")
    """})
    run = cli("generate", "all", "-projects", "python", "-opsdir", "ops", "-outdir", "out")
    assert run.exit_code == 2, run.output
    assert "ops/fixed_point.py:3: Fixed_Point: the Python package has a module fixed_point of its own: " \
           "rename the namespace" in run.output
    assert not (cli.cwd / "out").exists()


# ------------------------------------------- Q arithmetic derived from the catalogue's own ops

CATALOGUE = loader.load(ROOT / "ops").catalogue
#: The op whose tree a kernel is derived from, and CMSIS-DSP's function of the same job.
CMSIS_JOBS = {"math.add": "arm_add_{q}", "math.sub": "arm_sub_{q}", "math.mul": "arm_mult_{q}",
              "math.neg": "arm_negate_{q}", "math.abs": "arm_abs_{q}", "math.minimum": None, "math.maximum": None}


def _tree(qualified: str) -> F.SExpr:
    """The op's scalar tree, its float args at their defaults (hard_sigmoid's alpha and beta)."""
    ns, _, name = qualified.partition(".")
    op = CATALOGUE.namespace(ns).op(name)
    defaults = {a.name: F.SConst(a.default) for a in op.args if isinstance(a.default, float)}
    return substitute(op.compute.case(()), defaults)


def stored_values(t: F.FixedPointType, shape: tuple[int, ...], seed: int) -> np.ndarray:
    """Seeded stored values of ``shape`` with the type's ends among them (where they fit): the
    operands the C API's and the units' tests call with."""
    rng = np.random.default_rng(seed)
    values = rng.integers(t.lowest, t.highest, int(np.prod(shape)), endpoint=True)
    ends = [t.lowest, t.highest, 0, -1][:values.size]
    values[:len(ends)] = ends
    return values.astype(t.storage).reshape(shape)


def clamped_exactly(t: F.FixedPointType, stored: np.ndarray, tree: F.SExpr, args: dict[str, float],
                    attributes: dict) -> np.ndarray:
    """The op's tree (minima, maxima, selections by comparisons) on the exact values of ``stored``
    and the bounds, in rationals, counted in the input's steps, then converted by the type's
    from-real rule (Q truncated toward zero, D rounded half to even), saturated: what a clamp
    promises. A bound is counted in steps as the rule defines it, in float64 (Q: times 2**(N -
    shift), exact; D: divided by the scale, a float64 quotient)."""
    if t.family == "Q":
        factor = 2.0 ** (t.fraction_bits - attributes["shift"])
        steps, back = (lambda b: Fraction(b * factor)), int
        offset = 0
    else:
        scale, offset = attributes["scale"], attributes["offset"]
        steps, back = (lambda b: Fraction(b / scale)), round
    compare = {"gt": operator.gt, "ge": operator.ge, "lt": operator.lt, "le": operator.le}

    def value(node: F.SExpr, x: Fraction) -> Fraction | bool:
        if isinstance(node, F.SConst):
            return steps(float(node.value))
        if isinstance(node, F.SSym):
            return x if node.name == "x" else steps(float(args[node.name]))
        parts = [value(a, x) for a in node.args]  # type: ignore[union-attr]
        if node.fn == "where":  # type: ignore[union-attr]
            return parts[1] if parts[0] else parts[2]
        return {"minimum": min, "maximum": max, **compare}[node.fn](*parts)  # type: ignore[union-attr]

    return np.array([min(max(back(value(tree, Fraction(int(s) - offset))) + offset, t.lowest), t.highest)
                     for s in stored.reshape(-1)], dtype=np.int64).reshape(stored.shape)


def _stored(t: F.FixedPointType, seed: int, n: int = 400) -> np.ndarray:
    rng = np.random.default_rng(seed)
    edges = [t.lowest, t.highest, 0, 1, -1, t.lowest + 1, t.highest - 1]
    return np.concatenate([rng.integers(t.lowest, t.highest, n, endpoint=True), edges, edges[::-1]]).astype(t.storage)


def _attributes(kernel: F.QKernel, shifts: dict[str, int]) -> tuple[dict[str, int], int]:
    """The kernel's per-call values and output shift for the inputs' shifts (the attribute
    expressions evaluated as the NumPy reference would)."""
    values = {F.shift_of(n): np.int32(s) for n, s in shifts.items()}
    evaluate = lambda tree: int(eval(scalar_numpy.render(tree, "int32", {k: (k, "int32") for k in values})[0],  # noqa: E731
                                     {"np": np, "_k": routines.numpy_kernels(), **values}))
    output_shift = None if kernel.output_shift is None else evaluate(kernel.output_shift)
    return {name: evaluate(tree) for name, tree in kernel.per_call}, output_shift


@pytest.mark.parametrize("t", Q_TYPES, ids=lambda t: t.system)
@pytest.mark.parametrize("qualified", list(CMSIS_JOBS))
def test_q_kernels_derived_from_the_ops_are_cmsis_dsp_s(qualified: str, t: F.FixedPointType, runtime: Path,
                                                         tmp_path: Path) -> None:
    """The op's own tree, derived for the Q type: at equal shifts CMSIS-DSP's function of the
    same job, bit for bit; at different shifts, the inputs moved right to the larger shift
    (a product: the shifts add), as exact integer arithmetic says, saturated."""
    kernel = q_kernel(_tree(qualified), t)
    assert isinstance(kernel, F.QKernel), kernel
    names = [a.name for a in _tree(qualified).args]
    stored = {n: _stored(t, i + t.bits) for i, n in enumerate(names)}
    wide = {n: a.astype(kernel.value.domain) for n, a in stored.items()}
    cases = [{n: 0 for n in names}, dict(zip(names, (3, 1))), dict(zip(names, (-2, 5)))]
    per_call = [_attributes(kernel, shifts) for shifts in cases]
    from_c = _c(runtime, tmp_path, kernel.value, wide, [values or {"unused": 0} for values, _ in per_call])
    for shifts, (values, out_shift), c_result in zip(cases, per_call, from_c):
        ours = _numpy(kernel.value, wide, values)
        _same(c_result, ours, f"{qualified} {t.system} {shifts}: C and NumPy")
        exact = {n: a.astype(object) for n, a in stored.items()}  # (Python integers: no overflow)
        if CMSIS_JOBS[qualified] and len(set(shifts.values())) == 1:
            theirs = np.asarray(_cmsis(CMSIS_JOBS[qualified], t)(*stored.values()), dtype=t.storage)
            _same(ours, theirs, f"{qualified} {t.system}")
        if qualified == "math.mul":
            assert out_shift == sum(shifts.values())
            product = exact["x"] * exact["y"]
            expected = (product >> 32).clip(-2**30, 2**30 - 1) * 2 if t.bits == 32 else product >> t.fraction_bits
        elif len(names) == 2:
            assert out_shift == max(shifts.values())
            a, b = (exact[n] >> (out_shift - shifts[n]) for n in names)
            expected = {"math.add": a + b, "math.sub": a - b, "math.minimum": np.minimum(a, b),
                        "math.maximum": np.maximum(a, b)}[qualified]
        else:
            assert out_shift == shifts["x"]
            expected = -exact["x"] if qualified == "math.neg" else abs(exact["x"])
        _same(ours, np.clip(expected, t.lowest, t.highest).astype(t.storage), f"{qualified} {t.system} {shifts}")


def test_a_tree_without_q_arithmetic_says_why() -> None:
    assert q_kernel(_tree("math.exp"), F.Q15) == "exp has no Q15 arithmetic"
    assert q_kernel(F.SCall("add", (F.SCall("mul", (F.X, F.X)), F.X)), F.Q7) == \
        "its compute is not one arithmetic function of its inputs"


# ---------------------------------------------- lookup tables of unary ops, through the real values

TABLE_OPS = ["math.exp", "math.tanh", "math.sigmoid", "math.sin", "math.erf", "math.sqrt", "nn.softsign", "nn.swish",
             "nn.log_sigmoid", "nn.hard_sigmoid"]


def _q_values(prefix: str, t: F.FixedPointType, shift: int) -> dict[str, float]:
    return {f"{prefix}_{F.FACTOR}": F.q_factor(t, shift)}


def _d_values(prefix: str, scale: float, offset: int) -> dict[str, float]:
    return {f"{prefix}_{F.SCALE}": float(np.float32(scale)), f"{prefix}_{F.OFFSET}": offset}


TABLE_TYPES = [(F.Q7, F.Q7, [_q_values("x", F.Q7, 3) | _q_values("output", F.Q7, 1),
                             _q_values("x", F.Q7, 0) | _q_values("output", F.Q7, 0)]),
               (F.D8, F.D8, [_d_values("x", 0.05, -3) | _d_values("output", 1 / 256, -128),
                             _d_values("x", 0.125, 10) | _d_values("output", 0.02, 0)]),
               (F.Q15, F.Q15, [_q_values("x", F.Q15, 2) | _q_values("output", F.Q15, 3)])]


@pytest.mark.parametrize("source,target,cases", TABLE_TYPES, ids=lambda v: getattr(v, "system", ""))
@pytest.mark.parametrize("qualified", TABLE_OPS)
def test_a_unary_op_s_table_is_the_float_reference_quantized(qualified: str, source: F.FixedPointType,
                                                               target: F.FixedPointType, cases: list,
                                                               runtime: Path, tmp_path: Path) -> None:
    """Every entry (every stored input: 256 of an 8-bit type, 2**16 of a 16-bit one) in C and
    NumPy alike, and within the rounding of the output type of the exact (float64) value."""
    entry = F.table_entry(_tree(qualified), source, target)
    stored = np.arange(source.lowest, source.highest + 1).astype(np.float64)
    from_c = _c(runtime, tmp_path, entry, stored, cases)
    tree = _tree(qualified)
    for values, c_result in zip(cases, from_c):
        ours = _numpy(entry, stored, values)
        _same(c_result, ours, f"{qualified} {source.system} {values}: C and NumPy")
        # the exact value: the op's tree in float64 on the real input, then the output rule
        real = _numpy(F.to_real(source), stored, {k.removeprefix("x_"): v for k, v in values.items()
                                                  if k.startswith("x_")}).astype(np.float64)
        with np.errstate(all="ignore"):
            exact = eval(scalar_numpy.render(tree, "float64", {"x": ("real", "float64")})[0],
                         {"np": np, "_k": routines.numpy_kernels(), "real": real})
        out = {k.removeprefix("output_"): v for k, v in values.items() if k.startswith("output_")}
        if target.family == "Q":
            ideal = exact * out[F.FACTOR]
        else:
            ideal = exact / out[F.SCALE] + out[F.OFFSET]
        ideal = np.clip(np.nan_to_num(ideal, nan=0.0 if target.family == "Q" else out[F.OFFSET]),
                        target.lowest, target.highest)
        error = np.abs(ours.astype(np.float64) - ideal)
        assert error.max() <= 1.0, f"{qualified}: {error.max()} LSB from the exact value"


def _qlinear_unary(op: str, x: np.ndarray, given: tuple[float, int], made: tuple[float, int]) -> np.ndarray:
    """onnxruntime's contrib operator ``op`` (com.microsoft: QLinearSigmoid, ...) on int8 ``x``."""
    values = {"xs": given[0], "xz": given[1], "ys": made[0], "yz": made[1]}
    graph = helper.make_graph(
        [helper.make_node(op, list(values), ["y"], domain="com.microsoft")], "table",
        [helper.make_tensor_value_info("x", TensorProto.INT8, [x.size])],
        [helper.make_tensor_value_info("y", TensorProto.INT8, [x.size])],
        initializer=[helper.make_tensor(n, TensorProto.FLOAT if n.endswith("s") else TensorProto.INT8, [], [v])
                     for n, v in values.items()])
    graph.node[0].input.insert(0, "x")
    return _ort(graph, {"x": x})


@pytest.mark.parametrize("given,made", [((0.05, -3), (1 / 256, -128)), ((0.125, 10), (0.004, 7)),
                                        ((0.01, 0), (1 / 128, 0))])
def test_a_d8_sigmoid_table_is_qlinear_sigmoid(given: tuple[float, int], made: tuple[float, int]) -> None:
    """math.sigmoid's D8 table, entry for entry onnxruntime's QLinearSigmoid."""
    given, made = (float(np.float32(given[0])), given[1]), (float(np.float32(made[0])), made[1])
    stored = np.arange(-128, 128).astype(np.int8)
    entry = F.table_entry(_tree("math.sigmoid"), F.D8, F.D8)
    ours = _numpy(entry, stored.astype(np.float64), _d_values("x", *given) | _d_values("output", *made))
    _same(ours, _qlinear_unary("QLinearSigmoid", stored, given, made), f"sigmoid {given} {made}")


@pytest.mark.parametrize("alpha", [0.01, 0.2, 0.5])
def test_a_d8_leaky_relu_table_is_within_a_step_of_qlinear_leaky_relu(alpha: float) -> None:
    """nn.leaky_relu's D8 table, every entry within one step of onnxruntime's QLinearLeakyRelu (its
    contrib domain): both quantize the float result rounding half to even, but onnxruntime
    computes it in float32 and the table in float64, so a result near a half step may round the
    other way (the table is within one step of the exact value: the test above)."""
    op = CATALOGUE.namespace("nn").op("leaky_relu")
    entry = F.table_entry(substitute(op.compute.case(()), {"alpha": F.SConst(alpha)}), F.D8, F.D8)
    stored = np.arange(-128, 128).astype(np.int8)
    for given, made in (((0.05, -3), (0.04, 10)), ((0.125, 10), (0.1, -7)), ((0.01, 0), (0.02, 0))):
        given, made = (float(np.float32(given[0])), given[1]), (float(np.float32(made[0])), made[1])
        ours = _numpy(entry, stored.astype(np.float64), _d_values("x", *given) | _d_values("output", *made))
        values = {"xs": given[0], "xz": given[1], "ys": made[0], "yz": made[1]}
        graph = helper.make_graph(
            [helper.make_node("QLinearLeakyRelu", ["x", *values], ["y"], domain="com.microsoft", alpha=alpha)],
            "table", [helper.make_tensor_value_info("x", TensorProto.INT8, [256])],
            [helper.make_tensor_value_info("y", TensorProto.INT8, [256])],
            initializer=[helper.make_tensor(n, TensorProto.FLOAT if n.endswith("s") else TensorProto.INT8, [], [v])
                         for n, v in values.items()])
        theirs = _ort(graph, {"x": stored})
        assert np.abs(ours.astype(int) - theirs.astype(int)).max() <= 1, (alpha, given, made)


def test_a_d8_mean_is_within_a_step_of_qlinear_global_average_pool() -> None:
    """math.mean's D8 form along the last axis (TensorFlow Lite's integer mean: the sum less the
    offsets, rescaled once, divided by the count rounding half away from zero), within one step of
    onnxruntime's QLinearGlobalAveragePool (contrib domain: the mean of a row, rescaled in float32),
    on rows of 1 to 64 elements. (onnxruntime has no kernel for its QLinearReduceMean schema.)"""
    d = F.derive(CATALOGUE.namespace("math").op("mean"), F.D8)
    assert isinstance(d, F.DReduction), d
    rng = np.random.default_rng(20)
    for n in (1, 2, 3, 7, 10, 33, 64):
        x = stored_values(F.D8, (1, 8, n), n)
        for _ in range(3):
            (xs, ys), (xz, yz) = rng.uniform(0.005, 0.2, 2).astype(np.float32), rng.integers(-20, 20, 2)
            scope = {"np": np, "_k": routines.numpy_kernels(), "quantize_multiplier": F.quantize_multiplier, "x": x,
                     "x_scale": float(xs), "x_offset": int(xz), "output_scale": float(ys), "output_offset": int(yz)}
            exec("\n".join(R.numpy_reduction_lines(d, ["x"], "-1", str(n), "0", keepdims=True)), scope)
            values = {"xs": (TensorProto.FLOAT, float(xs)), "xz": (TensorProto.INT8, int(xz)),
                      "ys": (TensorProto.FLOAT, float(ys)), "yz": (TensorProto.INT8, int(yz))}
            graph = helper.make_graph(
                [helper.make_node("QLinearGlobalAveragePool", ["x", *values], ["y"], domain="com.microsoft",
                                  channels_last=0)], "mean",
                [helper.make_tensor_value_info("x", TensorProto.INT8, [1, 8, n])],
                [helper.make_tensor_value_info("y", TensorProto.INT8, [1, 8, 1])],
                initializer=[helper.make_tensor(k, kind, [], [v]) for k, (kind, v) in values.items()])
            theirs = _ort(graph, {"x": x}).astype(np.int64)
            ours = np.asarray(scope["result"]).astype(np.int64)
            assert np.abs(ours - theirs).max() <= 1, (n, xs, xz, ys, yz, ours.ravel(), theirs.ravel())


# ---------------------------------------------------- Q reductions derived from the catalogue's forms

REDUCTIONS = {"math.max": "arm_max_no_idx_{q}", "math.min": "arm_min_no_idx_{q}", "math.mean": "arm_mean_{q}",
              "math.sum": None, "base.dot": "arm_dot_prod_{q}"}


def _form(qualified: str) -> object:
    ns, _, name = qualified.partition(".")
    return CATALOGUE.namespace(ns).op(name).compute


def _reduce_numpy(r: F.QReduction | F.DReduction, inputs: dict[str, np.ndarray], h: int,
                  per_call: dict[str, int] | None = None) -> tuple[int, int]:
    """(the accumulator, the stored result); ``per_call``: a D reduction's integers"""
    per_call = {k: np.int64(v) for k, v in (per_call or {}).items()}
    wide = {n: a.astype(r.domain) for n, a in inputs.items()}
    env = {n: (n, r.domain) for n in [*wide, *per_call]}
    with np.errstate(all="ignore"):
        mapped = np.asarray(eval(scalar_numpy.render(r.map, r.domain, env)[0],
                                 {"np": np, "_k": routines.numpy_kernels(), **wide, **per_call}), dtype=r.domain)
    acc = {"add": np.add, "max": np.maximum, "min": np.minimum}[r.combine].reduce(mapped)
    values = {"acc": acc, "n": np.int64(mapped.size), F.HEADROOM: np.int64(h), **per_call}
    env = {"acc": ("acc", r.domain), "n": ("n", "int64"), F.HEADROOM: ("h", "int64"),
           **{k: (k, "int64") for k in per_call}}
    return int(acc), int(R.numpy_run(r.finalize, env, values))


def _reduce_c(r: F.QReduction | F.DReduction, inputs: dict[str, np.ndarray], h: int, runtime: Path, tmp_path: Path,
              per_call: dict[str, int] | None = None) -> int:
    """The reduction as a C loop: the rendered map per element, the combine, the rendered finalize."""
    ct, per_call = C_TYPE[r.domain], per_call or {}
    arrays = "\n".join(c_array(f"in_{n}", a, str(a.dtype)) for n, a in inputs.items())
    constants = " ".join(f"const int64_t {k} = INT64_C({v}); (void){k};" for k, v in per_call.items())
    env = {n: (f"(({ct})in_{n}[i])", r.domain) for n in inputs} | {k: (k, "int64") for k in per_call}
    mapped = scalar_c.render(r.map, r.domain, env)[0]
    step = {"add": "acc += v;", "max": "if (v > acc) acc = v;", "min": "if (v < acc) acc = v;"}[r.combine]
    first = "0" if r.combine == "add" else f"(({ct})in_x[0])"
    finalize = R.c_statement(r.finalize, "y", {"acc": ("acc", r.domain), "n": ("n", "int64"),
                                               F.HEADROOM: ("h", "int64"), **{k: (k, "int64") for k in per_call}})
    size = next(iter(inputs.values())).size
    program = tmp_path / "reduce.c"
    program.write_text(f"""#include <stdio.h>
#include "opforge_internal.h"
{arrays}
int main(void)
{{
    const int64_t n = {size}, h = {h};
    {constants}
    {ct} acc = {first};
    for (int64_t i = 0; i < n; i++) {{
        const {ct} v = {mapped};
        {step}
    }}
    {C_TYPE[r.finalize.storage]} y;
    {finalize}
    (void)h;
    printf("%lld\\n", (long long)y);
    return 0;
}}
""")
    return int(_run(runtime, program))


@pytest.mark.parametrize("t", Q_TYPES, ids=lambda t: t.system)
@pytest.mark.parametrize("qualified", list(REDUCTIONS))
def test_q_reductions_derived_from_the_forms_are_cmsis_dsp_s(qualified: str, t: F.FixedPointType, runtime: Path,
                                                              tmp_path: Path) -> None:
    """C and NumPy alike, and CMSIS-DSP's function of the same job (its wide result moved right
    as the rule says: a dot product to the type's fraction bits and the headroom); the sum, which
    CMSIS-DSP lacks, against exact integer arithmetic."""
    r = F.q_reduction(_form(qualified), t)
    assert isinstance(r, F.QReduction), r
    names = ["x", "y"] if qualified == "base.dot" else ["x"]
    for n, seed in ((1, 0), (7, 1), (64, 2), (1000, 3)):
        inputs = {name: _stored(t, seed * 10 + i, n)[:n] for i, name in enumerate(names)}
        if seed == 3:  # (a run at the limits: saturation and the headroom's worst case)
            inputs = {name: np.full(n, t.lowest if i == 0 else t.highest, t.storage) for i, name in enumerate(names)}
        h = F.headroom(n)
        acc, ours = _reduce_numpy(r, inputs, h)
        assert _reduce_c(r, inputs, h, runtime, tmp_path) == ours, (qualified, t.system, n)
        exact = [a.astype(object) for a in inputs.values()]
        if qualified == "math.sum":
            expected = int(sum(exact[0])) >> h
        elif qualified == "base.dot":
            wide = int(getattr(dsp, f"arm_dot_prod_{t.name}")(*inputs.values()))
            assert acc == wide, (t.system, n, acc, wide)  # (CMSIS-DSP's own wide result, bit for bit)
            fraction = 2 * t.fraction_bits - (14 if t.bits == 32 else 0)
            expected = wide >> (fraction - t.fraction_bits + h)
        else:
            expected = int(_cmsis(REDUCTIONS[qualified], t)(inputs["x"]))
        assert ours == min(max(expected, t.lowest), t.highest), (qualified, t.system, n, ours, expected)
    assert r.output_shift == {"math.sum": F.SCall("add", (F.SSym("x_shift"), F.SSym("h"))),
                              "base.dot": F.SCall("add", (F.SCall("add", (F.SSym("x_shift"), F.SSym("y_shift"))),
                                                          F.SSym("h")))}.get(qualified, F.SSym("x_shift"))


def test_a_reduction_without_a_q_form_says_why() -> None:
    assert F.q_reduction(_form("math.entropy"), F.Q15) == \
        "its reduction (add of a map, then a finalize) has no Q15 form yet"
    assert isinstance(F.q_reduction(_form("math.norm2"), F.Q15), F.QReduction)  # (an integer root: ADR 0045)
    assert F.q_reduction(_form("math.prod"), F.Q15) == "its reduction (mul of x) has no Q15 form yet"
    assert [F.headroom(n) for n in (0, 1, 2, 3, 4, 5, 1024, 1025)] == [0, 0, 1, 2, 2, 3, 10, 11]


# ------------------------------------------- D arithmetic derived from the catalogue's own ops

def _truncated(n: int, d: int) -> int:
    """C's integer division: toward zero."""
    return abs(n) // d * (1 if n >= 0 else -1)


def _multiply_by_quantized_multiplier(x: int, multiplier: int, exponent: int) -> int:
    """TensorFlow Lite's MultiplyByQuantizedMultiplier in Python integers, from gemmlowp's own
    definitions (SaturatingRoundingDoublingHighMul, RoundingDivideByPOT), apart from the routine's
    tree: for ``x << max(exponent, 0)`` within int32, as TFLite requires."""
    a, right = x << max(exponent, 0), max(-exponent, 0)
    if a == multiplier == -(2**31):
        high = 2**31 - 1
    else:
        product = a * multiplier
        high = _truncated(product + (2**30 if product >= 0 else 1 - 2**30), 2**31)
    mask = (1 << right) - 1
    threshold = (mask >> 1) + (1 if high < 0 else 0)
    return (high >> right) + (1 if (high & mask) > threshold else 0)


def test_the_rescale_routines_are_tflite_s_multiply_by_quantized_multiplier(runtime: Path, tmp_path: Path) -> None:
    """opf_rescale_int32/int64 (the C runtime's) and _kernels.rescale_int32/int64 (the package's),
    both rendered from dsl.fixed_point.ROUTINES, give TFLite's result on random and edge values:
    every exponent from -31 to 10, multipliers of both signs, MIN times MIN."""
    rng = np.random.default_rng(70)
    exponents = np.repeat(np.arange(-31, 11), 40)
    multipliers = rng.integers(2**30, 2**31, exponents.size) * rng.choice([1, -1], exponents.size)
    x = rng.integers(-(2**20), 2**20, exponents.size)
    x, multipliers, exponents = (np.append(a, v) for a, v in ((x, [-(2**31), 0, 2**31 - 1]),
                                                              (multipliers, [-(2**31), 2**31 - 1, 2**30]),
                                                              (exponents, [0, 0, 0])))
    x, multipliers, exponents = x.astype(np.int32), multipliers.astype(np.int32), exponents.astype(np.int32)
    want = [_multiply_by_quantized_multiplier(int(a), int(m), int(e)) for a, m, e in zip(x, multipliers, exponents)]
    program = tmp_path / "rescale.c"
    program.write_text(f"""#include <stdio.h>
#include "opforge_internal.h"
{c_array("xs", x, "int32")}
{c_array("ms", multipliers, "int32")}
{c_array("es", exponents, "int32")}
int main(void)
{{
    for (int i = 0; i < {x.size}; i++) {{
        printf("%ld %ld\\n", (long)opf_rescale_int32(xs[i], ms[i], es[i]),
               (long)opf_rescale_int64((int64_t)xs[i], ms[i], es[i]));
    }}
    return 0;
}}
""")
    printed = [tuple(map(int, line.split())) for line in _run(runtime, program).splitlines()]
    assert [p[0] for p in printed] == want and [p[1] for p in printed] == want
    k = routines.numpy_kernels()
    with np.errstate(all="ignore"):
        assert k.rescale_int32(x, multipliers, exponents).tolist() == want
        assert k.rescale_int64(x.astype(np.int64), multipliers, exponents).tolist() == want


def _qlinear_binary(op: str, x: np.ndarray, y: np.ndarray, attrs_: dict[str, tuple[float, int]]) -> np.ndarray:
    """onnxruntime's contrib QLinearAdd or QLinearMul on int8 ``x`` and ``y``."""
    names = ["x", "xs", "xz", "y", "ys", "yz", "os", "oz"]
    values = {"xs": attrs_["x"][0], "xz": attrs_["x"][1], "ys": attrs_["y"][0], "yz": attrs_["y"][1],
              "os": attrs_["output"][0], "oz": attrs_["output"][1]}
    graph = helper.make_graph(
        [helper.make_node(op, names, ["out"], domain="com.microsoft")], "binary",
        [helper.make_tensor_value_info(n, TensorProto.INT8, [x.size]) for n in ("x", "y")],
        [helper.make_tensor_value_info("out", TensorProto.INT8, [x.size])],
        initializer=[helper.make_tensor(n, TensorProto.FLOAT if n.endswith("s") else TensorProto.INT8, [], [v])
                     for n, v in values.items()])
    return _ort(graph, {"x": x, "y": y})


D_ATTRIBUTES = [{"x": (0.05, -3), "y": (0.05, -3), "output": (0.1, 2)},
                {"x": (0.02, 10), "y": (0.07, -20), "output": (0.09, -5)},
                {"x": (0.5, 0), "y": (0.001, 0), "output": (0.004, 0)}]


@pytest.mark.parametrize("t", [F.D8, F.D16], ids=lambda t: t.system)
@pytest.mark.parametrize("qualified", ["math.add", "math.sub", "math.mul"])
def test_d_kernels_derived_from_the_ops_rescale_in_integers(qualified: str, t: F.FixedPointType, runtime: Path,
                                                            tmp_path: Path) -> None:
    """C and NumPy alike; within one step of the exact result; for D8 add and mul, within one
    step of onnxruntime's QLinearAdd and QLinearMul (which compute in float32)."""
    kernel = F.d_kernel(_tree(qualified), t)
    assert isinstance(kernel, F.DKernel), kernel
    stored = {"x": _stored(t, 40), "y": _stored(t, 41)}
    wide = {n: a.astype("int64") for n, a in stored.items()}
    cases = []
    for attrs_ in D_ATTRIBUTES:
        attrs_ = {n: (float(np.float32(s)), o if t.bits == 8 else 0) for n, (s, o) in attrs_.items()}
        cases.append((attrs_, kernel.per_call({n: s for n, (s, _) in attrs_.items()},
                                              {n: o for n, (_, o) in attrs_.items()})))
    from_c = _c(runtime, tmp_path, kernel.value, wide, [values for _, values in cases])
    for (attrs_, values), c_result in zip(cases, from_c):
        ours = _numpy(kernel.value, wide, values)
        _same(c_result, ours, f"{qualified} {t.system} {attrs_}: C and NumPy")
        real = {n: (stored[n].astype(np.float64) - attrs_[n][1]) * attrs_[n][0] for n in ("x", "y")}
        exact = {"math.add": real["x"] + real["y"], "math.sub": real["x"] - real["y"],
                 "math.mul": real["x"] * real["y"]}[qualified]
        ideal = np.clip(exact / attrs_["output"][0] + attrs_["output"][1], t.lowest, t.highest)
        assert np.abs(ours - ideal).max() <= 1.0, (qualified, t.system, attrs_, np.abs(ours - ideal).max())
        if t.bits == 8 and qualified != "math.sub":
            theirs = _qlinear_binary("QLinearAdd" if qualified == "math.add" else "QLinearMul",
                                     stored["x"], stored["y"], attrs_)
            assert np.abs(ours.astype(int) - theirs.astype(int)).max() <= 1, (qualified, attrs_)


def test_quantize_multiplier_is_tflite_s() -> None:
    """multiplier * 2**(exponent - 31) holds the real to 31 bits; a fraction rounding up to 1
    moves to the next exponent; too small a real is 0."""
    assert F.quantize_multiplier(0.5) == (2**30, 0)
    assert F.quantize_multiplier(1.0) == (2**30, 1)
    assert F.quantize_multiplier(0.75) == (3 * 2**29, 0)
    assert F.quantize_multiplier(1 - 2**-40) == (2**30, 1)
    assert F.quantize_multiplier(2**-40) == (0, 0) and F.quantize_multiplier(0.0) == (0, 0)
    for real in (0.1, 3.7, 1e-5, 123.456):
        m, e = F.quantize_multiplier(real)
        assert 2**30 <= m < 2**31 and abs(m * 2.0 ** (e - 31) - real) <= real * 2**-31


def test_a_tree_without_d_arithmetic_says_why() -> None:
    assert F.d_kernel(_tree("math.maximum"), F.D8) == \
        "its compute is not a sum, difference, product or comparison of two inputs"


def test_the_c_runtime_computes_the_per_call_values_as_the_rules_do(runtime: Path, tmp_path: Path) -> None:
    """opf_quantize_multiplier, opf_headroom and opf_q_factor (runtime/opf_fixed_point.h) against
    quantize_multiplier, headroom and q_factor, on seeded values and the edges."""
    rng = np.random.default_rng(9)
    reals = [0.0, 0.5, 1.0, 0.75, 1 - 2**-40, 2**-40, 2**-32, 2.0**40, -0.3, *rng.uniform(0, 4, 300),
             *np.exp(rng.uniform(-30, 30, 300))]
    counts = [0, 1, 2, 3, 4, 5, 1024, 1025, 2**40 + 1, *rng.integers(1, 10**6, 100)]
    shifts = [(t.fraction_bits, s) for t in Q_TYPES for s in (t.shifts()[0], -3, 0, 5, t.shifts()[-1])]
    program = tmp_path / "per_call.c"
    program.write_text(f"""#include <stdio.h>
#include <string.h>
#include "opf_fixed_point.h"
{c_array("reals", np.array(reals), "float64")}
{c_array("counts", np.array(counts, dtype=np.int64), "int64")}
{c_array("fraction_bits", np.array([f for f, _ in shifts]), "int32")}
{c_array("shifts", np.array([s for _, s in shifts]), "int32")}
int main(void)
{{
    for (int i = 0; i < {len(reals)}; i++) {{
        int32_t m, e;
        opf_quantize_multiplier(reals[i], &m, &e);
        printf("%ld %ld\\n", (long)m, (long)e);
    }}
    for (int i = 0; i < {len(counts)}; i++) printf("%ld\\n", (long)opf_headroom(counts[i]));
    for (int i = 0; i < {len(shifts)}; i++) {{
        const float f = opf_q_factor(fraction_bits[i], shifts[i]);
        uint32_t bits;
        memcpy(&bits, &f, sizeof bits);
        printf("%08lx\\n", (unsigned long)bits);
    }}
    return 0;
}}
""")
    lines = _run(runtime, program).splitlines()
    assert [tuple(map(int, line.split())) for line in lines[:len(reals)]] == [F.quantize_multiplier(r) for r in reals]
    lines = lines[len(reals):]
    assert [int(line) for line in lines[:len(counts)]] == [F.headroom(int(n)) for n in counts]
    factors = np.array([int(line, 16) for line in lines[len(counts):]], dtype=np.uint32).view(np.float32)
    assert factors.tolist() == [F.q_factor(next(t for t in Q_TYPES if t.fraction_bits == f), s) for f, s in shifts]


COMPARISON_OPS = ["base.eq", "base.neq", "base.lt", "base.lte", "base.gt", "base.gte"]
_COMPARE = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
            "ge": np.greater_equal}


@pytest.mark.parametrize("t", Q_TYPES, ids=lambda t: t.system)
@pytest.mark.parametrize("qualified", COMPARISON_OPS)
def test_q_comparisons_are_exact(qualified: str, t: F.FixedPointType, runtime: Path, tmp_path: Path) -> None:
    """Whatever the shifts (up to far apart), the order of the real values, C and NumPy alike."""
    tree = _tree(qualified)
    kernel = q_kernel(tree, t)
    assert isinstance(kernel, F.QKernel) and kernel.output_shift is None, kernel
    stored = {"x": _stored(t, 50), "y": _stored(t, 51)}
    stored["y"][:100] = stored["x"][:100]  # (equal stored values: equal reals at equal shifts)
    stored["y"][100:150] = stored["x"][100:150] // 2
    wide = {n: a.astype("int64") for n, a in stored.items()}
    cases = [{"x": 0, "y": 0}, {"x": 1, "y": 0}, {"x": -3, "y": 4}, {"x": 40, "y": -30}]
    per_call = [_attributes(kernel, shifts)[0] for shifts in cases]
    for shifts, values, c_result in zip(cases, per_call, _c(runtime, tmp_path, kernel.value, wide, per_call)):
        ours = _numpy(kernel.value, wide, values)
        _same(c_result.astype(bool), ours.astype(bool), f"{qualified} {t.system} {shifts}: C and NumPy")
        real = {n: np.array([int(v) * 2**64 * 2**shifts[n] for v in stored[n]], dtype=object) for n in stored}
        assert (ours == _COMPARE[tree.fn](real["x"], real["y"])).all(), (qualified, t.system, shifts)


@pytest.mark.parametrize("t", [F.D8, F.D16], ids=lambda t: t.system)
@pytest.mark.parametrize("qualified", COMPARISON_OPS)
def test_d_comparisons_rescale_as_tflite(qualified: str, t: F.FixedPointType, runtime: Path, tmp_path: Path) -> None:
    """C and NumPy alike; the order of the real values wherever they differ by more than the
    rescaling resolves (2**-8 of the larger scale, TFLite's left shift), and equal reals equal."""
    tree = _tree(qualified)
    kernel = F.d_kernel(tree, t)
    assert isinstance(kernel, F.DKernel), kernel
    stored = {"x": _stored(t, 60), "y": _stored(t, 61)}
    cases = []
    for attrs_ in D_ATTRIBUTES:
        attrs_ = {n: (float(np.float32(s)), o if t.bits == 8 else 0) for n, (s, o) in attrs_.items() if n != "output"}
        cases.append((attrs_, kernel.per_call({n: s for n, (s, _) in attrs_.items()}, {n: o for n, (_, o) in attrs_.items()})))
    wide = {n: a.astype("int64") for n, a in stored.items()}
    for (attrs_, values), c_result in zip(cases, _c(runtime, tmp_path, kernel.value, wide, [v for _, v in cases])):
        ours = _numpy(kernel.value, wide, values).astype(bool)
        _same(c_result.astype(bool), ours, f"{qualified} {t.system}: C and NumPy")
        real = {n: (stored[n].astype(np.float64) - attrs_[n][1]) * attrs_[n][0] for n in stored}
        resolved = np.abs(real["x"] - real["y"]) > max(s for s, _ in attrs_.values()) * 2.0**-8
        assert (ours[resolved] == _COMPARE[tree.fn](real["x"], real["y"])[resolved]).all(), (qualified, attrs_)
        same = stored["x"] == stored["y"]
        if attrs_["x"] == attrs_["y"]:
            assert (ours[same] == _COMPARE[tree.fn](0, 0)).all()


# ------------------------------------------------ 16-bit tables: knots and linear interpolation

#: (op, input shift, output shift, the bound in steps: the interpolation's error grows with the
#: curvature between knots, largest at softsign's kink at 0; exp at shift 2 leaves the output's
#: range between two knots, which unsaturated knots follow: 101 steps off when they saturated)
INTERPOLATED = [("math.tanh", 2, 0, 2.0), ("math.sigmoid", 3, 0, 1.5), ("nn.softsign", 2, 0, 3.0),
                ("math.exp", 1, 3, 2.5), ("math.sin", 2, 0, 2.0), ("math.exp", 2, 2, 2.0)]


@pytest.mark.parametrize("qualified,shift_in,shift_out,bound", INTERPOLATED)
def test_a_q15_op_interpolates_its_513_knots(qualified: str, shift_in: int, shift_out: int, bound: float,
                                             runtime: Path, tmp_path: Path) -> None:
    """Every one of the 65,536 inputs: C and NumPy alike, within ``bound`` steps of exact."""
    t = F.Q15
    table = F.interpolated_table(_tree(qualified), t, t)
    values = {"x_factor": F.q_factor(t, shift_in), "output_factor": F.q_factor(t, shift_out)}
    knots = (t.lowest + F.KNOT_STEP * np.arange(table.knots)).astype(np.float64)
    entries = _numpy(table.entry, knots, values)
    stored = np.arange(t.lowest, t.highest + 1).astype(np.int32)
    index = _numpy(F.Conversion(table.index, "int32"), stored, {})
    fraction = _numpy(F.Conversion(table.fraction, "int32"), stored, {})
    inputs = {"base": entries[index].astype(np.int32), "next": entries[index + 1].astype(np.int32), "fraction": fraction}
    ours = _numpy(table.value, inputs, {})
    (from_c,) = _c(runtime, tmp_path, table.value, inputs, [{"unused": 0}])
    _same(from_c, ours, f"{qualified}: C and NumPy")
    real = stored.astype(np.float64) / F.q_factor(t, shift_in)
    exact = eval(scalar_numpy.render(_tree(qualified), "float64", {"x": ("real", "float64")})[0],
                 {"np": np, "_k": routines.numpy_kernels(), "real": real})
    ideal = np.clip(exact * F.q_factor(t, shift_out), t.lowest, t.highest)
    error = np.abs(ours - ideal)
    assert error.max() <= bound, (qualified, error.max())


#: Where a 16-bit fill refuses (ADR 0041), at fine attributes (Q15 shifts 0 to 7, D16 scales
#: 2^-12 and 0.001) and at every attribute tried (Q15 shifts 0 to 15; D16 scales up to 0.5, offsets
#: from -32767 to 20000): a pole at 0, which every 16-bit table holds, everywhere; floor's jumps
#: where they exceed the bound (not at a coarse step, where one jump is within 8 steps, nor where
#: they fall on the knots' midpoints, from Q15 shift 9 on, which no sample of the inputs would
#: catch); tanh where 128 stored values span its bend (Q15 shifts 8 to 11); sigmoid nowhere.
REFUSALS = {"math.log": ("all", "all"), "math.reciprocal": ("all", "all"), "math.floor": ("all", "some"),
            "math.tanh": ("none", "some"), "math.sigmoid": ("none", "none")}


@pytest.mark.parametrize("t", [F.Q15, F.D16], ids=lambda t: t.system)
@pytest.mark.parametrize("qualified", list(REFUSALS))
def test_a_16_bit_fill_refuses_where_its_interpolation_misses(qualified: str, t: F.FixedPointType) -> None:
    """ADR 0041: the fill (the package's NumPy lines, as C's) checks every stored input and raises
    TABLE_MISS where one misses the exact result by more than TABLE_BOUND steps (REFUSALS)."""
    table = F.interpolated_table(_tree(qualified), t, t)
    if t.family == "Q":
        attributes = [{"x_factor": F.q_factor(t, s), "output_factor": F.q_factor(t, s)} for s in range(0, 16)]
        fine = [s < 8 for s in range(0, 16)]
    else:
        scales = (2.0**-12, 0.001, 0.01, 0.5)
        attributes = [{"x_scale": s, "x_offset": o, "output_scale": s, "output_offset": 0}
                      for s in scales for o in (-32767, -1000, 0, 20000)]
        fine = [a["x_scale"] <= 0.001 for a in attributes]
    refused = []
    for values in attributes:
        space = {"np": np, "_k": routines.numpy_kernels(), "stored_x": np.arange(4, dtype=t.storage), **values}
        try:
            with np.errstate(all="ignore"):
                exec("\n".join(R.numpy_table(table, t, "stored_x", {k: (k, "float64") for k in values})), space)
            refused.append(False)
        except ValueError as miss:
            assert str(miss) == R.table_miss("x", t)
            refused.append(True)
    at_fine = [r for r, f in zip(refused, fine) if f]
    kinds = {"all": all, "none": lambda r: not any(r), "some": lambda r: any(r) and not all(r)}
    where_fine, anywhere = REFUSALS[qualified]
    assert kinds[where_fine](at_fine) and kinds[anywhere](refused), (qualified, list(zip(attributes, refused)))
    if qualified == "math.floor" and t.family == "Q":  # (its jumps on the midpoints, 64 stored values apart)
        assert refused[9:12] == [True] * 3 and refused[12:] == [False] * 4, refused


@pytest.mark.parametrize("t", [F.D8, F.D16], ids=lambda t: t.system)
@pytest.mark.parametrize("qualified", ["math.sum", "math.mean", "math.max", "math.min"])
def test_d_reductions_rescale_once(qualified: str, t: F.FixedPointType, runtime: Path, tmp_path: Path) -> None:
    """C and NumPy alike, and within one step of the exact result (saturated)."""
    r = F.d_reduction(_form(qualified), t)
    assert isinstance(r, F.DReduction), r
    attributes = [({"x": 0.05, "output": 0.05}, {"x": -3, "output": -3}), ({"x": 0.02, "output": 0.3}, {"x": 7, "output": -9}),
                  ({"x": 0.5, "output": 0.011}, {"x": 0, "output": 4})]
    for n, seed in ((1, 0), (9, 1), (200, 2)):
        x = _stored(t, 70 + seed, n)[:n]
        for scales, offsets in attributes:
            scales = {k: float(np.float32(v)) for k, v in scales.items()}
            if t.bits == 16:
                offsets = {k: 0 for k in offsets}
            per_call = r.per_call(scales, offsets)
            _, ours = _reduce_numpy(r, {"x": x}, 0, per_call)
            assert _reduce_c(r, {"x": x}, 0, runtime, tmp_path, per_call) == ours, (qualified, t.system, n)
            real = (x.astype(np.float64) - offsets["x"]) * scales["x"]
            exact = {"math.sum": np.sum, "math.mean": np.mean, "math.max": np.max, "math.min": np.min}[qualified](real)
            ideal = min(max(exact / scales["output"] + offsets["output"], t.lowest), t.highest)
            assert abs(ours - ideal) <= 1.0, (qualified, t.system, n, scales, ours, ideal)


def test_a_reduction_without_a_d_form_says_why() -> None:
    assert F.d_reduction(_form("math.norm2"), F.D8) == \
        "its reduction reads a map, a first pass or a second input: no D8 form yet"
    assert F.d_reduction(_form("math.prod"), F.D16) == "its reduction (mul) has no D16 form yet"


# ---------------------------------------------------------------- Q contractions (math.matmul)

@pytest.mark.parametrize("t", Q_TYPES, ids=lambda t: t.system)
def test_q_matmul_is_arm_mat_mult(t: F.FixedPointType, runtime: Path, tmp_path: Path) -> None:
    """math.matmul's Q form: C and NumPy alike; Q7 and Q15 arm_mat_mult_q7/q15 bit for bit;
    Q31's accumulators arm_dot_prod_q31's of each row and column, and its result within a
    step of arm_mat_mult_q31's wherever that one does not wrap."""
    c = q_contraction_of("math.matmul", t)
    rng = np.random.default_rng(t.bits + 80)
    # (Q31: values within 2**29, so that arm_mat_mult_q31 wraps only on the row of extremes)
    low, high = (-(2**29), 2**29) if t.bits == 32 else (t.lowest, t.highest)
    a = rng.integers(low, high, (5, 7), endpoint=True).astype(t.storage)
    b = rng.integers(low, high, (7, 3), endpoint=True).astype(t.storage)
    a[0, :] = t.lowest  # (a row of extremes: saturation)
    b[:, 0] = t.lowest
    wide = {"a": a.astype("int64"), "b": b.astype("int64")}
    terms = np.asarray(_numpy(F.Conversion(c.map, "int64"), {"a": wide["a"][:, :, None], "b": wide["b"][None, :, :]}, {}))
    acc = terms.sum(axis=1)  # (int64: exact for these sizes)
    ours = _numpy(c.finalize, {"acc": acc}, {})
    from_c = _matmul_c(runtime, tmp_path, c.map, c.finalize, a, b, {})
    assert (from_c == ours).all()
    if t.bits == 32:
        dots = np.array([[dsp.arm_dot_prod_q31(a[i].copy(), b[:, j].copy()) for j in range(3)] for i in range(5)])
        assert (acc == dots).all()
        status, theirs = dsp.arm_mat_mult_q31(a, b)
        exact = a.astype(object) @ b.astype(object)
        fits = np.vectorize(lambda v: -(2**63) <= v < 2**63 and -(2**31) <= (v >> 31) < 2**31)(exact)
        assert fits.sum() >= 8 and (np.abs(ours[fits].astype(np.int64) - theirs[fits]) <= 1).all()
    else:
        state = np.zeros(a.size + b.size, dtype=t.storage)
        status, theirs = getattr(dsp, f"arm_mat_mult_{t.name}")(a, b, state)
        _same(ours.astype(t.storage).reshape(-1), np.asarray(theirs, dtype=t.storage).reshape(-1), f"{t.system} matmul")
    assert status == 0
    assert c.output_shift == F.SCall("add", (F.SSym("a_shift"), F.SSym("b_shift")))


def _matmul_c(runtime: Path, tmp_path: Path, term: F.SExpr, finalize: F.Conversion, a: np.ndarray, b: np.ndarray,
              per_call: dict[str, int]) -> np.ndarray:
    """a @ b in C: the rule's term per product (int64), summed, and its finalize per entry."""
    (m, k), n = a.shape, b.shape[1]
    constants = " ".join(f"const int64_t {name} = INT64_C({v}); (void){name};" for name, v in per_call.items())
    values = {name: (name, "int64") for name in per_call}
    env = {"a": ("(int64_t)a[i][k]", "int64"), "b": ("(int64_t)b[k][j]", "int64"), **values}
    ct = C_TYPE[str(a.dtype)]
    rows = lambda x: ", ".join("{" + ", ".join(map(str, r)) + "}" for r in x.tolist())  # noqa: E731
    program = tmp_path / "matmul.c"
    program.write_text(f"""#include <stdio.h>
#include "opforge_internal.h"
static const {ct} a[{m}][{k}] = {{{rows(a)}}};
static const {ct} b[{k}][{n}] = {{{rows(b)}}};
int main(void)
{{
    {constants}
    for (int i = 0; i < {m}; i++) {{
        for (int j = 0; j < {n}; j++) {{
            int64_t acc = 0;
            for (int k = 0; k < {k}; k++) acc += {scalar_c.render(term, "int64", env)[0]};
            {ct} y;
            {R.c_statement(finalize, "y", {"acc": ("acc", "int64"), **values})}
            printf("%lld\\n", (long long)y);
        }}
    }}
    return 0;
}}
""")
    out = _run(runtime, program).split()
    return np.array(out, dtype=np.int64).reshape(m, n)


def q_contraction_of(qualified: str, t: F.FixedPointType) -> F.QContraction:
    c = F.q_contraction(_form(qualified), t)
    assert isinstance(c, F.QContraction), c
    return c


def _onnx_matmul(op: str, a: np.ndarray, b: np.ndarray, attrs_: dict[str, tuple[float, int]]) -> np.ndarray:
    """onnxruntime's MatMulInteger (the accumulators) or QLinearMatMul (int8)."""
    int8 = TensorProto.INT8
    if op == "MatMulInteger":
        names, values = ["a", "b", "az", "bz"], {"az": (int8, attrs_["a"][1]), "bz": (int8, attrs_["b"][1])}
        out = TensorProto.INT32
    else:
        names = ["a", "as", "az", "b", "bs", "bz", "os", "oz"]
        values = {"as": (TensorProto.FLOAT, attrs_["a"][0]), "az": (int8, attrs_["a"][1]),
                  "bs": (TensorProto.FLOAT, attrs_["b"][0]), "bz": (int8, attrs_["b"][1]),
                  "os": (TensorProto.FLOAT, attrs_["output"][0]), "oz": (int8, attrs_["output"][1])}
        out = int8
    graph = helper.make_graph(
        [helper.make_node(op, names, ["y"])], "matmul",
        [helper.make_tensor_value_info("a", int8, list(a.shape)), helper.make_tensor_value_info("b", int8, list(b.shape))],
        [helper.make_tensor_value_info("y", out, [a.shape[0], b.shape[1]])],
        initializer=[helper.make_tensor(n, kind, [], [v]) for n, (kind, v) in values.items()])
    return _ort(graph, {"a": a, "b": b})


@pytest.mark.parametrize("t", [F.D8, F.D16], ids=lambda t: t.system)
def test_d_matmul_accumulates_as_matmul_integer(t: F.FixedPointType, runtime: Path, tmp_path: Path) -> None:
    """math.matmul's D form: its accumulators onnxruntime's MatMulInteger's (D8), exactly; its
    result within one step of exact and (D8) of QLinearMatMul's, which rescales in float."""
    c = F.d_contraction(_form("math.matmul"), t)
    assert isinstance(c, F.DContraction), c
    rng = np.random.default_rng(t.bits + 90)
    a = rng.integers(t.lowest, t.highest, (6, 9), endpoint=True).astype(t.storage)
    b = rng.integers(t.lowest, t.highest, (9, 4), endpoint=True).astype(t.storage)
    for attrs_ in ({"a": (0.02, 3), "b": (0.01, -5), "output": (0.5, -2)}, {"a": (0.1, 0), "b": (0.1, 0), "output": (0.9, 0)}):
        attrs_ = {n: (float(np.float32(s)), o if t.bits == 8 else 0) for n, (s, o) in attrs_.items()}
        per_call = c.per_call({n: s for n, (s, _) in attrs_.items()}, {n: o for n, (_, o) in attrs_.items()})
        values = {k: np.int64(v) for k, v in per_call.items()}
        terms = np.asarray(R.numpy_run(F.Conversion(c.map, "int64"),
                                       {"a": ("a", "int64"), "b": ("b", "int64"), **{k: (k, "int64") for k in values}},
                                       {"a": a.astype(np.int64)[:, :, None], "b": b.astype(np.int64)[None, :, :], **values}))
        acc = terms.sum(axis=1)
        ours = np.asarray(R.numpy_run(c.finalize, {"acc": ("acc", "int64"), **{k: (k, "int64") for k in values}},
                                      {"acc": acc, **values}))
        assert (_matmul_c(runtime, tmp_path, c.map, c.finalize, a, b, per_call) == ours).all()
        real = ((a.astype(np.float64) - attrs_["a"][1]) * attrs_["a"][0]) @ ((b.astype(np.float64) - attrs_["b"][1]) * attrs_["b"][0])
        ideal = np.clip(real / attrs_["output"][0] + attrs_["output"][1], t.lowest, t.highest)
        assert np.abs(ours - ideal).max() <= 1.0, attrs_
        if t.bits == 8:
            assert (acc == _onnx_matmul("MatMulInteger", a, b, attrs_)).all()
            theirs = _onnx_matmul("QLinearMatMul", a, b, attrs_)
            assert np.abs(ours.astype(int) - theirs.astype(int)).max() <= 1


def test_every_op_derives_a_fixed_point_form_or_says_why() -> None:
    """Across the catalogue: per type, a derived form or one sentence, never an exception; the
    scope's ops (issue 20) derive in Q7, Q15, D8 and D16."""
    counts = {}
    for ns in CATALOGUE.namespaces:
        for op in ns.ops:
            if op.abstract:
                continue
            for t in (F.Q7, F.Q15, F.Q31, F.D8, F.D16):
                got = F.derive(op, t)
                assert isinstance(got, str) and got and not got.endswith(".") or not isinstance(got, str), got
                counts[t.system] = counts.get(t.system, 0) + (not isinstance(got, str))
    scope = ["math.add", "math.sub", "math.mul", "math.abs", "math.neg", "math.clip_by_value", "nn.relu", "math.sigmoid",
             "math.tanh", "math.exp", "math.log", "math.max", "math.min", "math.sum", "math.mean", "math.argmax",
             "math.matmul", "signal.sliding_window"]
    for qualified in scope:
        ns, _, name = qualified.partition(".")
        op = CATALOGUE.namespace(ns).op(name)
        for t in (F.Q7, F.Q15, F.D8, F.D16):
            assert not isinstance(F.derive(op, t), str), (qualified, t.system, F.derive(op, t))
    assert F.derive(CATALOGUE.namespace("bitwise").op("and"), F.Q15) == \
        "it computes on integers or booleans, which have no fixed-point meaning"
    assert not isinstance(F.derive(CATALOGUE.namespace("base").op("lt"), F.D8), str)  # (a bool result)
    assert counts["Q15"] >= 100, counts


def test_every_form_the_docs_show_is_one_the_targets_take() -> None:
    """The docs' fixed-point rows come from ``derive``; the C API, the package and the units take
    fixed-point tensors by ``api_types`` and ``moves``. Every form derived is one they take (an
    enum arg's table too: its index is what the fill reads), so no row promises a form that no
    target has: a bool result's table and meshgrid's list are refused by ``derive`` itself."""
    promised = []
    for ns in CATALOGUE.namespaces:
        for op in ns.ops:
            if op.abstract or op.compute is None or isinstance(op.compute, C.FixedPointConversion):
                continue
            taken = set(R.api_types(op)) | {t.name for t in R.moves(op)}
            promised += [f"{op.qualified_name} {t.system}" for t in F.TYPES.values()
                         if not isinstance(F.derive(op, t), str) and t.name not in taken]
    assert not promised, promised
    gelu, is_nan = CATALOGUE.namespace("nn").op("gelu"), CATALOGUE.namespace("math").op("is_nan")
    assert set(R.api_tables(gelu)) == {"q7", "q15", "d8", "d16"}
    assert F.derive(is_nan, F.D8).startswith("its result is a bool"), F.derive(is_nan, F.D8)


#: Q shifts a log's input takes in the tests: the reference's range and below it (-8 and less,
#: where its rule is undefined and opforge's gives 0), and the bases (None: the natural log).
LOG_SHIFTS = (0, 3, 8, 15, 24, -2, -9)
LOG_BASES = (None, 10.0, 2.0, 1.5)


def reference_log(t: F.FixedPointType, x: np.ndarray, shift: int, base: float | None) -> tuple[np.ndarray, int]:
    """The reference library's Log unit on Q15 and Q31 (``log_cmsis_q15``, ``log_cmsis_q31``), run
    through CMSIS-DSP itself: ``arm_vlog``, ``arm_scale`` by ``scale_q`` with shift 5, ``arm_offset``
    by ``offset_q``, its Expressions evaluated as written there (``quantize``: rounded half to even,
    saturated); 0 gives the lowest value and a negative value 0, the conversions of -inf and NaN."""
    n = t.fraction_bits
    out_shift = int(math.floor(math.log2(shift + 8))) if shift + 8 > 0 else 0
    actual = math.e if base is None else base

    def quantize(value: float, at: int) -> int:
        return max(t.lowest, min(t.highest, round(value * 2**n / 2**at)))

    offset_q = quantize(math.log(2.0**shift) / math.log(actual), out_shift)
    scale_q = quantize(1 / math.log(actual), out_shift + (1 if t.bits == 16 else 0))
    positive = x > 0
    logs = getattr(dsp, f"arm_vlog_{t.name}")(np.where(positive, x, 1).astype(t.storage))
    scaled = getattr(dsp, f"arm_scale_{t.name}")(logs, scale_q, 5)
    result = getattr(dsp, f"arm_offset_{t.name}")(scaled, offset_q)
    return np.where(positive, result, np.where(x == 0, t.lowest, 0)).astype(np.int64), out_shift


def test_d8_dense_is_onnxruntime_s_qgemm_within_a_step() -> None:
    """nn.linear's D8 form (ADR 0047) starts each sum from the bias in x's scale times the weights'
    (within one of the exact value there, in int32); given that bias, onnxruntime's QGemm (its
    contrib domain: int8 operands, an int32 bias, float rescaling) computes the same layer within one
    step, and the exact result is within one step too."""
    op = CATALOGUE.namespace("nn").op("linear")
    d = F.derive(op, F.D8)
    assert isinstance(d, F.DDense), d
    rng = np.random.default_rng(47)
    x, w, b = (rng.integers(-128, 127, shape, endpoint=True).astype(np.int8) for shape in ((5, 7), (7, 3), (3,)))
    for (sx, ox), (sw, ow), (sb, ob), (so, oo) in [((0.02, 3), (0.01, 0), (0.05, -2), (0.1, 5)),
                                                   ((0.5, -20), (0.002, 7), (0.0001, 0), (0.03, -3))]:
        values = {"x": x, "weights": w, "bias": b, "np": np, "_k": routines.numpy_kernels(),
                  "quantize_multiplier": F.quantize_multiplier, "x_scale": sx, "x_offset": ox, "weights_scale": sw,
                  "weights_offset": ow, "bias_scale": sb, "bias_offset": ob, "output_scale": so, "output_offset": oo}
        exec("\n".join(R.numpy_dense_lines(d)), values)  # (the package's rendering, C's bit for bit)
        ours = np.asarray(values["result"]).astype(np.int64)
        bias = np.asarray(R.numpy_run(d.bias, {"bias": ("bias", "int64"), "bias_offset": ("bias_offset", "int64"),
                                                 "bias_multiplier": ("bias_multiplier", "int64"),
                                                 "bias_exponent": ("bias_exponent", "int64")},
                                      {"bias": b.astype(np.int64), "bias_offset": np.int64(ob),
                                       **{f"bias_{k}": np.int64(v) for k, v in zip(
                                           ("multiplier", "exponent"), F.quantize_multiplier(sb / (sx * sw)))}}))
        assert np.max(np.abs(bias - (b.astype(np.float64) - ob) * sb / (sx * sw))) <= 1
        int8, f32 = TensorProto.INT8, TensorProto.FLOAT
        names = ["a", "as", "az", "b", "bs", "bz", "c", "ys", "yz"]
        constants = {"as": (f32, sx), "az": (int8, ox), "bs": (f32, sw), "bz": (int8, ow), "ys": (f32, so),
                     "yz": (int8, oo)}
        graph = helper.make_graph(
            [helper.make_node("QGemm", names, ["y"], domain="com.microsoft")], "dense",
            [helper.make_tensor_value_info("a", int8, [5, 7]), helper.make_tensor_value_info("b", int8, [7, 3]),
             helper.make_tensor_value_info("c", TensorProto.INT32, [3])],
            [helper.make_tensor_value_info("y", int8, [5, 3])],
            initializer=[helper.make_tensor(n, kind, [], [v]) for n, (kind, v) in constants.items()])
        theirs = _ort(graph, {"a": x, "b": w, "c": bias.astype(np.int32)}).astype(np.int64)
        assert np.max(np.abs(ours - theirs)) <= 1, (ours, theirs)
        real = ((x.astype(np.float64) - ox) * sx) @ ((w.astype(np.float64) - ow) * sw) + (b - ob) * sb
        assert np.max(np.abs(ours - np.clip(real / so + oo, -128, 127))) <= 1
