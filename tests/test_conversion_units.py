"""The units of the conversion ops (ADR 0048, 0068): math.quantize, dequantize, q_shift, requantize
and bit_utilization in ``out/imunit/math``, as the FixedPoint library's Quantize, Dequantize, QShift
and BitUtilization. Each is chosen through ``unit-check`` as Studio
chooses it, its C (compiled strictly, as Imaginet assembles the fragments) and its Python agree bit
for bit, and both are what the owners of the rules compute: CMSIS-DSP (``cmsisdsp``) for the Q
types, onnxruntime's QuantizeLinear and DequantizeLinear for the D types, and, where the reference
library has the unit, that unit's own C fragments (compiled against a stand-in arm_math.h) and its
output socket."""

from __future__ import annotations

import functools
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import attrs
import cmsisdsp as dsp  # (the owner of the Q rules: a test dependency, never skipped)
import numpy as np
import pytest

from conftest import ROOT, GeneratedProjects
from test_fixed_point import D_CASES, _onnx, stored_values
from test_unit_check import LIBRARY, needs_library
from dsl import fixed_point as F
from generators.imunit import checker
from generators.imunit.expression import VALUE_TYPES, Shape, Tensor
from generators.kernels import fixed_point as R
from generators.kernels.scalar_c import C_TYPE, c_array, c_value

STRICT = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O2"]
#: The reference's fragments as their library builds them: gnu99 (they compare int with 0U), with the
#: cmsis-dsp code package they depend on (some of their files include nothing) stood in for.
LENIENT = ["-std=gnu99", "-w", "-O2", f"-I{ROOT / 'tests' / 'runtime'}", "-include", "arm_math.h"]
REFERENCE = LIBRARY / "Imaginet.Units.Math" / "FixedPoint"
Q_TYPES = [t for t in F.TYPES.values() if t.family == "Q"]
TYPES = list(F.TYPES.values())
#: The reference's name of each unit opforge gives it.
REFERENCE_UNITS = {"quantize": "Quantize", "dequantize": "Dequantize", "q_shift": "QShift",
                   "bit_utilization": "BitUtilization"}
#: The conversion ops' units.
CONVERSIONS = ("quantize", "dequantize", "q_shift", "requantize", "bit_utilization")


@pytest.fixture(scope="module")
def out(generated: GeneratedProjects) -> Path:
    return generated / "imunit" / "math"


@attrs.frozen
class _Call:
    """One chosen Implementation, called on ``x``."""

    folder: Path
    impl: ET.Element
    args: tuple
    x: np.ndarray
    out_dtype: str


def _root(path: Path) -> ET.Element:
    return next(u for u in ET.parse(path).getroot() if isinstance(u.tag, str))


def _chosen(path: Path, x: np.ndarray, tensor: Tensor, options: dict, out_dtype: str) -> dict[str, _Call]:
    """Per language, the call Studio picks for ``input`` (``tensor``, holding ``x``) and ``options``."""
    picked = checker.chosen_calls(_root(path), {"input": tensor}, options)
    return {language: _Call(path.parent, impl, args, x, out_dtype) for language, (impl, args) in picked.items()}


def _run_c(calls: list[_Call], tmp_path: Path, flags: list[str]) -> list[np.ndarray]:
    """The calls in one program, assembled as Imaginet assembles a firmware: each call's output."""
    fragments = [f for c in calls for f in checker.fragments_of(c.folder, c.impl.get("fragment", ""))]
    decls, runs = [], []
    for k, c in enumerate(calls):
        passed = []
        for source, value in c.args:
            if source == "input":
                decls.append(c_array(f"in{k}", c.x, c.x.dtype.name))
                passed.append(f"in{k}")
            elif source == "output":
                decls.append(f"static {C_TYPE[c.out_dtype]} got{k}[{c.x.size}];")
                passed.append(f"got{k}")
            else:  # (count, a shift, an offset: ints; a scale: a double)
                passed.append(str(value) if isinstance(value, int) else c_value(value, "float64"))
        printed = ('printf("%a\\n", (double)got{k}[i]);' if c.out_dtype == "float32" else
                   'printf("%lld\\n", (long long)got{k}[i]);').format(k=k)
        runs.append(f"{c.impl.get('call', '').split('(')[0]}({', '.join(passed)});\n"
                    f"for (int i = 0; i < {c.x.size}; i++) {{ {printed} }}")
    program = tmp_path / "units.c"
    program.write_text(f"{checker.assemble_fragments(fragments)}\n#include <stdio.h>\n{chr(10).join(decls)}\n"
                       f"int main(void)\n{{\n{chr(10).join(runs)}\nreturn 0;\n}}\n", encoding="utf-8")
    exe = tmp_path / "units"
    made = subprocess.run(["gcc", *flags, str(program), "-lm", "-o", str(exe)], capture_output=True, text=True)
    assert made.returncode == 0 and made.stderr == "", made.stderr[-3000:]
    words = iter(subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split())
    return [np.array([float.fromhex(next(words)) if c.out_dtype == "float32" else int(next(words))
                      for _ in range(c.x.size)]).astype(c.out_dtype) for c in calls]


@functools.lru_cache(maxsize=None)
def _module(path: Path) -> dict:
    scope: dict = {"__name__": f"unit_{path.stem}"}
    exec(compile(path.read_text(encoding="utf-8"), path.name, "exec"), scope)
    return scope


def _run_python(call: _Call) -> np.ndarray:
    """The chosen Python implementation, the unit's .py file run as a module."""
    file, function = call.impl.get("fragment", "").split(":")
    got = np.empty(call.x.shape, call.out_dtype)
    values = [call.x if s == "input" else got if s == "output" else v for s, v in call.args]
    _module(call.folder / file)[function](*values)
    return got


def _ours(out: Path, name: str, cases: list[tuple[np.ndarray, Tensor, dict, str]], tmp_path: Path) -> list[np.ndarray]:
    """Each case through the unit's C and Python implementations: equal bit for bit (NaN to NaN);
    the C results."""
    chosen = [_chosen(out / name / f"{name}.imunit", *case) for case in cases]
    results = _run_c([c["C"] for c in chosen], tmp_path, STRICT)
    for c, from_c in zip(chosen, results):
        assert c["C"].impl.get("fragment") == c["Python"].impl.get("fragment").replace(".py:", ".h:")
        np.testing.assert_array_equal(from_c, _run_python(c["Python"]), err_msg=c["C"].impl.get("call"))
    return results


def _reference(name: str, cases: list[tuple[np.ndarray, Tensor, dict, str]], tmp_path: Path) -> list[np.ndarray]:
    """The reference library's unit of the same job, chosen and run the same way."""
    unit = REFERENCE_UNITS[name]
    chosen = [_chosen(REFERENCE / unit / f"{unit}.imunit", *case)["C"] for case in cases]
    return _run_c(chosen, tmp_path, LENIENT)


def _q(t: F.FixedPointType, shape: tuple[int, ...] = (64,), shift: int = 0) -> Tensor:
    return Tensor(VALUE_TYPES[t.system], Shape(shape), shift_=shift)


def _d(t: F.FixedPointType, scale: float, offset: int, shape: tuple[int, ...] = (64,)) -> Tensor:
    return Tensor(VALUE_TYPES[t.system], Shape(shape), scale_=scale, offset_=offset)


def _reals(n: int, magnitude: float, seed: int) -> np.ndarray:
    """Seeded reals up to ``magnitude``, with zero, exact halves of steps and the ends among them."""
    rng = np.random.default_rng(seed)
    values = rng.uniform(-magnitude, magnitude, n)
    values[:6] = [0.0, -0.0, magnitude, -magnitude, 0.5, -1.5]
    return values.astype(np.float32)


SPECIAL = np.array([np.nan, np.inf, -np.inf, 1e30, -1e30], np.float32)
Q_SHIFTS = [0, 3, 9, -2]


# ------------------------------------------------------------------ Quantize


def test_quantize_to_q_is_arm_float_to_q_and_the_reference_unit(out: Path, tmp_path: Path) -> None:
    """Every Q type at several shifts: arm_float_to_qN of the value scaled by 2^-shift (exact),
    and, at the shifts the reference's unit defines (0 and up), that unit's own fragment; the
    output socket is the reference's. NaN, infinities and huge values saturate (NaN to 0)."""
    cases, finite = [], []
    for t in Q_TYPES:
        for shift in Q_SHIFTS:
            x = _reals(64, 2.0 ** (shift + 1), t.bits + shift)
            cases.append((x, Tensor(VALUE_TYPES["Float32"], Shape(x.shape)), {"output_type": t.name, "shift": shift},
                          t.storage))
            finite.append(t)
    ours = _ours(out, "quantize", cases, tmp_path)
    for (x, _, options, _), t, got in zip(cases, finite, ours):
        theirs = getattr(dsp, f"arm_float_to_{t.name}")(np.ldexp(x, -options["shift"]).astype(np.float32))
        np.testing.assert_array_equal(got, np.asarray(theirs, t.storage), err_msg=f"{t.system} {options}")
    if LIBRARY.is_dir():
        shown = [i for i, (_, _, options, _) in enumerate(cases) if options["shift"] >= 0]
        theirs = _reference("quantize", [cases[i] for i in shown], tmp_path)
        for i, got in zip(shown, theirs):
            np.testing.assert_array_equal(ours[i], got, err_msg=f"reference Quantize {cases[i][2]}")
            ours_socket = checker.outputs(out / "quantize" / "quantize.imunit", {"input": cases[i][1]}, cases[i][2])
            their_socket = checker.outputs(REFERENCE / "Quantize" / "Quantize.imunit", {"input": cases[i][1]},
                                           cases[i][2])
            assert ours_socket["output"] == their_socket["output"], (ours_socket, their_socket)
    special = [(SPECIAL, Tensor(VALUE_TYPES["Float32"], Shape(SPECIAL.shape)), {"output_type": t.name, "shift": 1},
                t.storage) for t in Q_TYPES]
    for t, got in zip(Q_TYPES, _ours(out, "quantize", special, tmp_path)):
        assert got.tolist() == [0, t.highest, t.lowest, t.highest, t.lowest], t.system


def test_quantize_to_d_is_quantize_linear(out: Path, tmp_path: Path) -> None:
    """D8 and D16 at several scales and offsets: onnxruntime's QuantizeLinear (rounded half to
    even, saturated); D32 (which QuantizeLinear does not produce) the same rule in float32. NaN
    gives the offset."""
    cases = []
    for t in (F.D8, F.D16, F.D32):
        for scale, offset in (c for c in D_CASES if t.lowest <= c[1] <= t.highest):
            x = np.concatenate([_reals(60, scale * 2.0 ** (t.bits - 1), t.bits), (np.arange(-4, 4) + 0.5) * scale,
                                [np.nan]]).astype(np.float32)
            tensor = Tensor(VALUE_TYPES["Float32"], Shape(x.shape))
            cases.append((x, tensor, {"output_type": t.name, "scale": scale, "offset": offset}, t.storage))
    for (x, _, options, storage), got in zip(cases, _ours(out, "quantize", cases, tmp_path)):
        what = f"{storage} {options}"
        assert got[-1] == options["offset"], what
        if storage == "int32":
            # (in float32, as QuantizeLinear computes: the offset is lost beside values of 2^24 and more)
            steps = (np.rint(x[:-1] / np.float32(options["scale"])) + np.float32(options["offset"])).astype(np.float64)
            expected = np.clip(steps, -2.0 ** 31, 2.0 ** 31 - 1).astype(np.int64)
        else:
            expected = _onnx("QuantizeLinear", x[:-1], options["scale"], options["offset"], storage)
        np.testing.assert_array_equal(got[:-1].astype(np.int64), np.asarray(expected).astype(np.int64), err_msg=what)


def test_quantize_refuses_attributes_no_tensor_can_carry(out: Path) -> None:
    unit = out / "quantize" / "quantize.imunit"
    real = {"input": Tensor(VALUE_TYPES["Float32"], Shape((4,)))}
    for options, message in (({"output_type": "q15", "shift": 128}, "shift must be in -112..127"),
                             ({"output_type": "d8", "offset": 200}, "offset must be in -128..127"),
                             ({"output_type": "d16", "scale": 0.0}, "scale must be positive"),
                             ({"output_type": "d16", "scale": 1e39}, "finite as a float32")):
        with pytest.raises(checker.Refused, match=message):
            checker.outputs(unit, real, options)
    with pytest.raises(checker.Refused, match="must be float32"):
        checker.outputs(unit, {"input": _q(F.Q15)}, {})


# ------------------------------------------------------------------ Dequantize


def test_dequantize_is_arm_q_to_float_dequantize_linear_and_the_reference_unit(out: Path, tmp_path: Path) -> None:
    """Q types: arm_qN_to_float times 2^shift (exact); D types: onnxruntime's DequantizeLinear
    (D32 where its values are float32's integers); at the shifts the reference's unit defines
    (0 to N) that unit's own fragment; the output socket Float32 of the input's shape."""
    cases = []
    for t in TYPES:
        for k, attributes in enumerate(Q_SHIFTS if t.family == "Q" else
                                       [c for c in D_CASES if t.lowest <= c[1] <= t.highest]):
            x = stored_values(t, (64,), seed=k + t.bits)
            if t is F.D32:
                x = (x >> 8).astype(t.storage)  # (within 2^23: (stored - offset) exact in float32)
            tensor = _q(t, x.shape, attributes) if t.family == "Q" else _d(t, *attributes, shape=x.shape)
            cases.append((x, tensor, {}, "float32"))
    ours = _ours(out, "dequantize", cases, tmp_path)
    for (x, tensor, _, _), got in zip(cases, ours):
        t = F.TYPES[tensor.type_.name.lower()]
        if t.family == "Q":
            theirs = np.ldexp(np.asarray(getattr(dsp, f"arm_{t.name}_to_float")(x), np.float32), tensor.shift_)
        else:
            theirs = _onnx("DequantizeLinear", x, tensor.scale_, tensor.offset_, t.storage)
        np.testing.assert_array_equal(got, np.asarray(theirs, np.float32), err_msg=f"{t.system} {tensor}")
    if LIBRARY.is_dir():
        shown = [i for i, (_, tensor, _, _) in enumerate(cases)
                 if tensor.type_.name.startswith("Q") and 0 <= tensor.shift_ <= F.TYPES[
                     tensor.type_.name.lower()].fraction_bits]
        for i, got in zip(shown, _reference("dequantize", [cases[i] for i in shown], tmp_path)):
            np.testing.assert_array_equal(ours[i], got, err_msg=f"reference Dequantize {cases[i][1]}")
            assert (checker.outputs(out / "dequantize" / "dequantize.imunit", {"input": cases[i][1]})["output"]
                    == checker.outputs(REFERENCE / "Dequantize" / "Dequantize.imunit",
                                       {"input": cases[i][1]})["output"])


# ------------------------------------------------------------------ QShift and Requantize


def test_q_shift_is_arm_shift_q_and_the_reference_unit(out: Path, tmp_path: Path) -> None:
    """Raising a Q tensor's shift by k is arm_shift_qN by -k (an arithmetic shift right, or a
    saturating one left) and the reference's QShift; the output's shift is the input's plus k."""
    cases = []
    for t in Q_TYPES:
        for k, (shift, change) in enumerate(((0, 3), (4, -2), (1, 0), (-3, 7), (6, -6))):
            x = stored_values(t, (64,), seed=k)
            cases.append((x, _q(t, x.shape, shift), {"shift": change}, t.storage))
    ours = _ours(out, "q_shift", cases, tmp_path)
    for (x, tensor, options, storage), got in zip(cases, ours):
        t = F.TYPES[tensor.type_.name.lower()]
        theirs = getattr(dsp, f"arm_shift_{t.name}")(x, -options["shift"])
        np.testing.assert_array_equal(got, np.asarray(theirs, storage), err_msg=f"{t.system} {options}")
        declared = checker.outputs(out / "q_shift" / "q_shift.imunit", {"input": tensor}, options)["output"]
        assert (declared.type_, declared.shift_) == (tensor.type_, tensor.shift_ + options["shift"])
    if LIBRARY.is_dir():
        for case, got, theirs in zip(cases, ours, _reference("q_shift", cases, tmp_path)):
            np.testing.assert_array_equal(got, theirs, err_msg=f"reference QShift {case[1]} {case[2]}")
            assert (checker.outputs(out / "q_shift" / "q_shift.imunit", {"input": case[1]}, case[2])["output"]
                    == checker.outputs(REFERENCE / "QShift" / "QShift.imunit", {"input": case[1]}, case[2])["output"])
    with pytest.raises(checker.Refused, match="shift must be in -112..127"):
        checker.outputs(out / "q_shift" / "q_shift.imunit", {"input": _q(F.Q15, shift=120)}, {"shift": 8})


def _exactly_shifted(x: np.ndarray, t: F.FixedPointType, to: F.FixedPointType, shift: int, to_shift: int) -> list:
    """A Q value in another Q type and shift, with Python's integers: floor of the real value in
    the new steps, saturated."""
    k = (t.fraction_bits - to.fraction_bits) + (to_shift - shift)
    moved = [v >> k if k >= 0 else v << -k for v in x.astype(object)]
    return [min(max(v, to.lowest), to.highest) for v in moved]


def test_requantize_between_q_types_is_exact_and_otherwise_dequantize_then_quantize(out: Path,
                                                                                    tmp_path: Path) -> None:
    """Every pair of types: between Q types the exact floor of the real value in the new type's
    steps, saturated (Q15 to Q7 at one shift: arm_q15_to_q7); otherwise the real value of the input
    (the Dequantize rule) converted by the Quantize rule of the output type."""
    attributes = {"q": [(0, 0), (3, -1), (-2, 6)], "d": [(0.05, 3, 0.02, -7), (0.25, 0, 0.1, 1)]}
    cases = []
    for t in TYPES:
        for to in TYPES:
            for k in range(2):
                x = stored_values(t, (32,), seed=k + t.bits)
                shift, to_shift = attributes["q"][k]
                scale, offset, to_scale, to_offset = attributes["d"][k]
                tensor = _q(t, x.shape, shift) if t.family == "Q" else _d(t, scale, offset, x.shape)
                options = {"output_type": to.name} | ({"shift": to_shift} if to.family == "Q" else
                                                      {"scale": to_scale, "offset": to_offset})
                cases.append((x, tensor, options, to.storage))
    for (x, tensor, options, storage), got in zip(cases, _ours(out, "requantize", cases, tmp_path)):
        t, to = F.TYPES[tensor.type_.name.lower()], F.TYPES[options["output_type"]]
        what = f"{t.system} {tensor} to {options}"
        if t.family == to.family == "Q":
            assert got.tolist() == _exactly_shifted(x, t, to, tensor.shift_, options["shift"]), what
            continue
        given = {F.FACTOR: F.q_factor(t, tensor.shift_)} if t.family == "Q" else {F.SCALE: tensor.scale_,
                                                                                    F.OFFSET: tensor.offset_}
        made = {F.FACTOR: F.q_factor(to, options["shift"])} if to.family == "Q" else {F.SCALE: options["scale"],
                                                                                       F.OFFSET: options["offset"]}
        real = np.asarray(R.numpy_run(F.to_real(t), _env(given), {"x": x.astype(np.float32), **given}), np.float32)
        expected = np.asarray(R.numpy_run(F.from_real(to), _env(made), {"x": real, **made}))
        np.testing.assert_array_equal(got, expected.astype(storage), err_msg=what)
    q15 = stored_values(F.Q15, (32,), seed=5)
    q7 = _exactly_shifted(q15, F.Q15, F.Q7, 2, 2)
    assert q7 == np.asarray(dsp.arm_q15_to_q7(q15), np.int8).tolist()


def _env(values: dict[str, float]) -> dict:
    return {"x": ("x", "float32"), **{n: (f"np.float32({n})", "float32") for n in values}}


# ------------------------------------------------------------------ BitUtilization


def test_bit_utilization_counts_the_bits_as_the_reference_unit(out: Path, tmp_path: Path) -> None:
    """The bits each value uses, its sign bit included (the bit length of x, or of ~x, plus one),
    as the reference's BitUtilization (32 - __builtin_clrsb(x)) counts them; Int8 out."""
    cases = []
    for t in Q_TYPES:
        x = np.concatenate([stored_values(t, (60,), seed=t.bits), [1, -2, 2 ** (t.bits - 2), -(2 ** (t.bits - 2))]])
        cases.append((x.astype(t.storage), _q(t, (64,), 2), {}, "int8"))
    ours = _ours(out, "bit_utilization", cases, tmp_path)
    for (x, _, _, _), got in zip(cases, ours):
        assert got.tolist() == [(int(v) if v >= 0 else ~int(v)).bit_length() + 1 for v in x]
    if LIBRARY.is_dir():
        for case, got, theirs in zip(cases, ours, _reference("bit_utilization", cases, tmp_path)):
            np.testing.assert_array_equal(got, theirs, err_msg=f"reference BitUtilization {case[1]}")


@needs_library
def test_the_conversion_units_check_as_the_reference_units_do(out: Path) -> None:
    """unit-check finds no error in any conversion unit (each takes a tensor of its kind), and every
    one of the reference's FixedPoint units has opforge's counterpart."""
    real, fixed = Tensor(VALUE_TYPES["Float32"], Shape((8,))), _q(F.Q15, (8,), 1)
    for paths, tensor, ok in (([out / "quantize"], real, 1), ([out / n for n in CONVERSIONS[1:]], fixed, 4)):
        verdicts = checker.check(paths, {"input": tensor})
        assert all(v.kind != "error" for v in verdicts), [v.line() for v in verdicts]
        assert sum(v.kind == "ok" for v in verdicts) == ok, verdicts
    assert {p.parent.name for p in REFERENCE.rglob("*.imunit")} == set(REFERENCE_UNITS.values())
    assert set(REFERENCE_UNITS) < set(CONVERSIONS)
    for folder in (out / n for n in CONVERSIONS):  # (and each its comparison tests, as every opforge unit)
        assert {p.name for p in folder.iterdir()} == {f"{folder.name}{suffix}" for suffix in
                                                       (".imunit", ".h", ".py", "_tests.c", "_tests.py")}
