"""The C API takes fixed-point tensors (ADR 0040): an elementwise op whose tree derives a Q or
D kernel (ADR 0036) accepts OPFORGE_Q7 ... OPFORGE_D16 descriptors, reads each tensor's
attributes from its descriptor, sets a Q output's shift by the form's rule, and computes, in
every geometry the float kernels have (contiguous, broadcast, in place), what the NumPy
rendering of the same rule computes, bit for bit; at equal shifts what CMSIS-DSP computes.
Attributes outside a type's range are refused with a status."""

from __future__ import annotations

import collections
import math
import subprocess
from fractions import Fraction
from pathlib import Path
from typing import Callable

import cmsisdsp as dsp  # (the owner of the Q rules: a test dependency, never skipped)
import numpy as np
import pytest
from onnx import TensorProto, helper

from conftest import ROOT, GeneratedProjects, STRICT
from dsl import fixed_point as F
from dsl import loader
from generators import abi
from generators.kernels import fixed_point as R
from generators.kernels import routines
from generators.kernels.scalar_c import C_TYPE, c_array
from generators.kernels.selection import code_ops
from test_fixed_point import (LOG_BASES, LOG_SHIFTS, _attributes, _numpy, _ort, _real, clamped_exactly, reference_log,
                              stored_values)

CATALOGUE = loader.load(ROOT / "ops").catalogue
TYPES = [F.Q7, F.Q15, F.Q31, F.D8, F.D16]
#: Every (op, type) whose tree derives an elementwise Q or D kernel.
KERNELS = [(op, t, d) for ns in CATALOGUE.namespaces for op in code_ops(ns) for t in TYPES
           if isinstance(d := F.derive(op, t), (F.QKernel, F.DKernel))]
#: The shapes of each operand and the output: the same, one broadcast, a scalar.
GEOMETRIES = {"same": ((3, 5), (3, 5)), "row": ((3, 5), (5,)), "broadcast": ((2, 3, 4), (3, 1)),
              "scalar": ((4, 3), ())}
#: Attributes per tensor: Q shifts equal and different; D scales and offsets (D16's offsets 0, as TFLite's).
Q_SHIFTS = [{"x": 2, "y": 2}, {"x": 3, "y": -4}]
D_ATTRIBUTES = [{"x": (0.05, 3), "y": (0.02, -7), "output": (0.06, 1)},
                {"x": (0.5, -20), "y": (0.004, 11), "output": (0.01, -3)}]


def _descriptor(name: str, dtype: str, array: np.ndarray, attributes: dict) -> tuple[str, str]:
    """(declarations, the descriptor's name) of a tensor of ``dtype`` over ``array``."""
    data = c_array(f"{name}_data", array, str(array.dtype), const=False)  # (an output, or written in place)
    dims = ", ".join(map(str, array.shape)) or "0"
    attributes = dict(attributes)
    if "scales" in attributes:  # (per-axis scales: an array beside the descriptor)
        data += "\n" + c_array(f"{name}_scales", np.asarray(attributes["scales"], np.float32), "float32")
        attributes["scales"] = f"{name}_scales"
    fields = ", ".join(f".{k} = {'INFINITY' if v == float('inf') else v if k == 'scales' else repr(v)}"
                       for k, v in attributes.items())
    return (f"{data}\nopforge_tensor {name} = {{.data = (void*){name}_data, .dtype = {abi.DTYPE_ENUM[dtype]}, "
            f".rank = {array.ndim}, .shape = {{{dims}}}{', ' if fields else ''}{fields}}};"), name


class _Program:
    """Calls of the API, one after the other, each printing its status, output shift and values
    (a float exactly: %.17g of its double)."""

    def __init__(self) -> None:
        self.decls: list[str] = []
        self.runs: list[str] = []
        self.sizes: list[int] = []
        self.parsers: list[type] = []
        self.attributes: list[tuple[float, int]] = []  # (after run: each output's scale and offset)

    def call(self, function: str, inputs: dict[str, tuple[str, np.ndarray, dict]],
             output: tuple[str, tuple[int, ...], dict], in_place: str | None = None,
             axes: tuple[int, ...] | None = None, args: tuple[str, ...] = ()) -> None:
        """``axes``: a reduction's (its array, its count, keep_dims false), between the inputs and the output;
        ``args``: C expressions there."""
        k = len(self.sizes)
        between = "".join(f"{a}, " for a in args)
        if axes is not None:
            self.decls.append(f"static const int64_t c{k}_axes[] = {{{', '.join(map(str, axes)) or '0'}}};")
            between += f"c{k}_axes, {len(axes)}, false, "
        names = []
        for n, (dtype, array, attributes) in inputs.items():
            decl, name = _descriptor(f"c{k}_{n}", dtype, array, attributes)
            self.decls.append(decl)
            names.append(name)
        out_dtype, shape, attributes = output
        storage = F.TYPES[out_dtype].storage if out_dtype in F.TYPES else out_dtype
        if in_place is None:
            decl, out = _descriptor(f"c{k}_out", out_dtype, np.zeros(shape, storage), attributes)
            self.decls.append(decl)
        else:
            out = f"c{k}_{in_place}"
        real = storage in ("float32", "float64")
        shown = "%.17g\\n\", (double)" if real else "%lld\\n\", (long long)"
        self.runs.append(f"""{{ const char* detail = NULL;
    const opforge_status st = {function}({", ".join(f"&{n}" for n in names)}, {between}&{out}, &detail);
    printf("%d %d %.17g %d\\n", (int)st, (int){out}.shift, {out}.scale, (int){out}.offset);
    for (int64_t i = 0; st == OPFORGE_OK && i < {int(np.prod(shape))}; i++) {{
        printf("{shown}(({C_TYPE[storage]}*){out}.data)[i]);
    }} }}""")
        self.sizes.append(int(np.prod(shape)))
        self.parsers.append(float if real else int)

    def run(self, generated: GeneratedProjects, objects: list[Path], tmp_path: Path) -> list[tuple[int, int, np.ndarray]]:
        source = ("#include <math.h>\n#include <stdio.h>\n#include \"opforge/opforge_all.h\"\n" + "\n".join(self.decls)
                  + "\nint main(void)\n{\n" + "\n".join(self.runs) + "\nreturn 0;\n}\n")
        words = iter(_printed(generated, objects, tmp_path, "calls", source).split())
        results = []
        for size, parse in zip(self.sizes, self.parsers):
            status, shift = int(next(words)), int(next(words))
            self.attributes.append((float(next(words)), int(next(words))))  # (the output's scale and offset)
            values = np.array([parse(next(words)) for _ in range(size)] if status == 0 else [])
            results.append((status, shift, values))
        return results


def _printed(generated: GeneratedProjects, objects: list[Path], tmp_path: Path, name: str, source: str) -> str:
    """What a C program over the C API prints: compiled strictly (no warning) with the library's objects, run."""
    program, exe = tmp_path / f"{name}.c", tmp_path / name
    program.write_text(source)
    made = subprocess.run(["gcc", *STRICT, "-O1", f"-I{generated / 'c' / 'include'}", str(program),
                           *map(str, objects), "-lm", "-o", str(exe)], capture_output=True, text=True)
    assert made.returncode == 0 and made.stderr == "", made.stderr[-3000:]
    return subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout


def _expected(op: object, t: F.FixedPointType, derived: F.QKernel | F.DKernel, arrays: dict[str, np.ndarray],
              attributes: dict) -> tuple[np.ndarray, int | None]:
    """The rule's NumPy rendering over the broadcast inputs: (stored result, a Q output's shift)."""
    wide = {n: a.astype("int64") for n, a in arrays.items()}
    if isinstance(derived, F.QKernel):
        values, shift = _attributes(derived, {n: attributes[n] for n in arrays})
    else:
        tensors = {n: attributes[n] for n in attributes if n in arrays or n == "output"}
        values = derived.per_call({n: s for n, (s, _) in tensors.items()}, {n: o for n, (_, o) in tensors.items()})
        shift = None
    shape = np.broadcast_shapes(*(a.shape for a in arrays.values()))
    result = np.broadcast_to(_numpy(derived.value, wide, values), shape)
    return result, shift


@pytest.fixture(scope="module")
def results(generated: GeneratedProjects, c_objects: list[Path], tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Every kernel in every geometry, attributes and in place, in one compiled program."""
    program, cases = _Program(), []
    for op, t, derived in KERNELS:
        inputs = [i.name for i in op.inputs]
        geometries = GEOMETRIES if len(inputs) == 2 else {"same": ((3, 5),)}
        for geometry, shapes in geometries.items():
            for a, by_role in enumerate(Q_SHIFTS if t.family == "Q" else D_ATTRIBUTES):
                given = {n: by_role[role] for n, role in (*zip(inputs, ("x", "y")), ("output", "output"))
                         if role in by_role}
                if t.family == "Q":
                    attributes = dict(given)
                    descriptor = {n: {"shift": given[n]} for n in inputs}
                else:  # (D16's offsets are 0, as TFLite's int16 kernels require)
                    attributes = {n: (s, o if t.bits == 8 else 0) for n, (s, o) in given.items()}
                    descriptor = {n: {"scale": s, "offset": o} for n, (s, o) in attributes.items()}
                arrays = {n: stored_values(t, shape, 7 * a + j) for j, (n, shape) in enumerate(zip(inputs, shapes))}
                expected, shift = _expected(op, t, derived, arrays, attributes)
                out_dtype = t.name if expected.dtype == np.dtype(t.storage) else "bool"
                out_attributes = descriptor.get("output", {}) if out_dtype != "bool" else {}
                program.call(abi.function(op), {n: (t.name, arrays[n], descriptor[n]) for n in inputs},
                             (out_dtype, expected.shape, out_attributes))
                cases.append((f"{op.qualified_name} {t.system} {geometry} {by_role}", expected, shift))
        if t.family == "Q" and len(inputs) == 2 and op.outputs and isinstance(derived, F.QKernel) \
                and derived.output_shift is not None:  # in place: the output is x's descriptor itself
            arrays = {n: stored_values(t, shape, 40 + j) for j, (n, shape) in enumerate(zip(inputs, GEOMETRIES["row"]))}
            shifts = dict(zip(inputs, Q_SHIFTS[1].values()))
            expected, shift = _expected(op, t, derived, arrays, shifts)
            program.call(abi.function(op), {n: (t.name, arrays[n], {"shift": shifts[n]}) for n in inputs},
                         (t.name, (3, 5), {}), in_place=inputs[0])
            cases.append((f"{op.qualified_name} {t.system} in place", expected, shift))
    got = program.run(generated, c_objects, tmp_path_factory.mktemp("fixed_point_c_api"))
    return {name: (expected, shift, result) for (name, expected, shift), result in zip(cases, got)}


def test_every_elementwise_q_and_d_kernel_is_in_the_c_api() -> None:
    names = {(op.qualified_name, t.name) for op, t, _ in KERNELS}
    assert {("math.add", "q15"), ("math.mul", "q7"), ("math.neg", "q31"), ("base.lt", "q15"), ("math.add", "d8"),
            ("math.sub", "d16"), ("base.eq", "d8")} <= names
    assert len(KERNELS) >= 60, len(KERNELS)


def test_c_api_computes_the_rule_bit_for_bit_in_every_geometry(results: dict) -> None:
    """Contiguous, broadcast (the strided rows), a scalar operand, and in place: the C API's
    result is the NumPy rendering of the rule, and a Q output's shift is the rule's. A geometry
    an op's own constraints refuse (bias_add's bias is a row) is refused as for floats, and so is
    one of unequal shapes for an op whose form takes equal shapes only (a backward op's)."""
    constrained = {op.qualified_name for op, _, _ in KERNELS if any(not c.backend for _, c in op.all_constraints())}
    equal = {op.qualified_name for op, _, _ in KERNELS if getattr(op.compute, "broadcast", None) == "equal"}
    refused = abi.STATUS.index(next(s for s in abi.STATUS if s[0] == "OPFORGE_ERR_CONSTRAINT"))
    unequal = abi.STATUS.index(next(s for s in abi.STATUS if s[0] == "OPFORGE_ERR_SHAPE"))
    wrong, computed = [], collections.Counter()
    for name, (expected, shift, (status, got_shift, got)) in results.items():
        if status == refused and name.split()[0] in constrained:
            continue
        if status == unequal and name.split()[0] in equal and name.split()[2] != "same":
            continue
        if status != 0 or not np.array_equal(got.reshape(expected.shape), expected.astype(np.int64)):
            wrong.append(f"{name}: status {status}")
        elif shift is not None and got_shift != shift:
            wrong.append(f"{name}: shift {got_shift}, the rule's {shift}")
        computed[" ".join(name.split()[:2])] += 1
    assert not wrong, wrong[:10]
    assert set(computed) == {f"{op.qualified_name} {t.system}" for op, t, _ in KERNELS}
    assert sum(computed.values()) >= 300, sum(computed.values())


#: CMSIS-DSP's function of each op's job (equal shifts, equal shapes).
CMSIS = {"math.add": "arm_add_{q}", "math.sub": "arm_sub_{q}", "math.mul": "arm_mult_{q}",
         "math.neg": "arm_negate_{q}", "math.abs": "arm_abs_{q}"}


@pytest.mark.parametrize("qualified", list(CMSIS))
def test_c_api_at_equal_shifts_is_cmsis_dsp(qualified: str, results: dict) -> None:
    for t in (F.Q7, F.Q15, F.Q31):
        expected, _, (status, _, got) = results[f"{qualified} {t.system} same {Q_SHIFTS[0]}"]
        inputs = [stored_values(t, (3, 5), j).reshape(-1) for j in range(2 if qualified not in ("math.neg", "math.abs") else 1)]
        theirs = np.asarray(getattr(dsp, CMSIS[qualified].format(q=t.name))(*inputs), dtype=t.storage)
        assert status == 0 and np.array_equal(got, theirs.astype(np.int64)), (qualified, t.system)


def test_c_api_mul_by_a_scalar_is_cmsis_dsp_s_arm_scale(generated: GeneratedProjects, c_objects: list[Path],
                                                        tmp_path: Path) -> None:
    """A Q tensor times a scalar Q value at equal shifts is CMSIS-DSP's arm_scale_q7/q15/q31 by that
    value with shift 0 (the product's top bits, saturated), bit for bit, for scalars across the range;
    the result's shift is the two shifts summed. (arm_scale_q31 shifts its 32-bit high product left by
    one, so -1 times -1 wraps to its saturation at 2^31 - 1, where arm_mult_q31, whose rule opforge's
    Q31 product follows, gives 2^31 - 2: they agree elsewhere, checked here without that pair.)"""
    op = CATALOGUE.namespace("math").op("mul")
    program, cases = _Program(), []
    for t in (F.Q7, F.Q15, F.Q31):
        x = stored_values(t, (4, 5), 3)
        for y in (t.lowest, t.lowest // 3, -1, 0, 1, t.highest // 7, t.highest):
            program.call(abi.function(op), {"x": (t.name, x, {"shift": 2}),
                                            "y": (t.name, np.array(y, dtype=t.storage), {"shift": 2})},
                         (t.name, x.shape, {}))
            cases.append((t, x.reshape(-1), y))
    for (t, x, y), (status, shift, got) in zip(cases, program.run(generated, c_objects, tmp_path)):
        theirs = np.asarray(getattr(dsp, f"arm_scale_{t.name}")(x, y, 0), dtype=np.int64)
        both_lowest = (x == t.lowest) & (y == t.lowest) if t.bits == 32 else np.zeros(x.size, bool)
        assert status == 0 and shift == 4, (t.system, y, status, shift)
        assert np.array_equal(got[~both_lowest], theirs[~both_lowest]), (t.system, y, got, theirs)


def test_c_api_refuses_attributes_outside_a_type_s_range(generated: GeneratedProjects, c_objects: list[Path],
                                                          tmp_path: Path) -> None:
    """A Q shift beyond the type's range, a D scale that is not positive and finite, a D8 offset
    beyond int8, and a product whose shift would leave Q15's range: OPFORGE_ERR_ATTRIBUTE each,
    nothing written; a float tensor's attributes mean nothing and are not read."""
    program = _Program()
    x = stored_values(F.Q15, (4,), 1)
    attribute_error = abi.STATUS.index(next(s for s in abi.STATUS if s[0] == "OPFORGE_ERR_ATTRIBUTE"))
    bad = [("q15", {"shift": 128}), ("q15", {"shift": -113}), ("d8", {"scale": 0.0, "offset": 0}),
           ("d8", {"scale": float("inf"), "offset": 0}), ("d8", {"scale": 0.5, "offset": 128})]
    for dtype, attributes in bad:
        stored = x.astype(F.TYPES[dtype].storage) if dtype == "d8" else x
        program.call("opforge_math_neg" if dtype == "q15" else "opforge_math_add",
                     {n: (dtype, stored, attributes) for n in (("x",) if dtype == "q15" else ("x", "y"))},
                     (dtype, (4,), attributes if dtype == "d8" else {}))
    program.call("opforge_math_mul", {"x": ("q15", x, {"shift": 100}), "y": ("q15", x, {"shift": 100})},
                 ("q15", (4,), {}))
    program.call("opforge_math_neg", {"x": ("float32", x.astype(np.float32), {"shift": 999, "scale": -1.0})},
                 ("float32", (4,), {}))
    got = program.run(generated, c_objects, tmp_path)
    assert [status for status, _, _ in got[:-1]] == [attribute_error] * (len(bad) + 1), got
    assert got[-1][0] == 0 and list(got[-1][2]) == list(-x.astype(np.int64)), got[-1]


#: CMSIS-DSP's function of each reduction, per row.
ROWS = {"opforge_math_mean": "arm_mean_{q}", "opforge_math_max": "arm_max_no_idx_{q}",
        "opforge_math_min": "arm_min_no_idx_{q}"}


def test_c_api_reductions_and_matmul_are_cmsis_dsp_s(generated: GeneratedProjects, c_objects: list[Path],
                                                   tmp_path: Path) -> None:
    """The C API's Q reductions (over the reduce plan: any axes) and matrix products: a mean, a max
    and a min of each row CMSIS-DSP's, a sum exact then moved right by its headroom, a dot product
    arm_dot_prod's wide result moved as the rule says, a norm the integer root of the sum of
    squares, a Q7 or Q15 matmul arm_mat_mult's bit for bit; each output's shift the rule's (a sum's
    grows by the headroom, a norm's by half of it, a product's is the operands' summed); a mean of
    no elements refused (OPFORGE_ERR_SHAPE), a sum of none 0."""
    program, expected = _Program(), []
    shape_error = abi.STATUS.index(next(s for s in abi.STATUS if s[0] == "OPFORGE_ERR_SHAPE"))
    for t in (F.Q7, F.Q15, F.Q31):
        x, y = stored_values(t, (4, 6), 3), stored_values(t, (4, 6), 4)
        rows = [x[i].copy() for i in range(4)]
        for function, cmsis in ROWS.items():
            program.call(function, {"x": (t.name, x, {"shift": 2})}, (t.name, (4,), {}), axes=(1,))
            expected.append((f"{function} {t.name}", 2, [int(getattr(dsp, cmsis.format(q=t.name))(r)) for r in rows]))
        h = F.headroom(x.size)
        program.call("opforge_math_sum", {"x": (t.name, x, {"shift": -1})}, (t.name, (), {}), axes=())
        exact = int(x.astype(object).sum()) >> h
        expected.append((f"sum {t.name}", -1 + h, [min(max(exact, t.lowest), t.highest)]))
        # (a norm of each row: the integer root of the squares' sum, Q31's squares less 14 bits each)
        program.call("opforge_math_norm2", {"x": (t.name, x, {"shift": 3})}, (t.name, (4,), {}), axes=(1,))
        g, dropped = (F.headroom(6) + 1) // 2, (14 if t.bits == 32 else 0)
        sums = [sum((int(v) * int(v)) >> dropped for v in r) for r in rows]
        roots = [math.isqrt(v >> (2 * g - dropped) if 2 * g >= dropped else v << (dropped - 2 * g)) for v in sums]
        expected.append((f"norm2 {t.name}", 3 + g, [min(r, t.highest) for r in roots]))
        program.call("opforge_base_dot", {"x": (t.name, x, {"shift": 1}), "y": (t.name, y, {"shift": 0})},
                     (t.name, (), {}), axes=())
        wide = int(getattr(dsp, f"arm_dot_prod_{t.name}")(x.reshape(-1), y.reshape(-1)))
        moved = wide >> (t.fraction_bits - (14 if t.bits == 32 else 0) + h)
        expected.append((f"dot {t.name}", 1 + h, [min(max(moved, t.lowest), t.highest)]))
        if t.bits < 32:  # (Q31: arm_mat_mult_q31 keeps every product bit and wraps; the rule's held in test_fixed_point)
            a, b = stored_values(t, (5, 7), 5), stored_values(t, (7, 3), 6)
            program.call("opforge_math_matmul", {"a": (t.name, a, {"shift": 3}), "b": (t.name, b, {"shift": -2})},
                         (t.name, (5, 3), {}))
            _, theirs = getattr(dsp, f"arm_mat_mult_{t.name}")(a, b, np.zeros(a.size + b.size, t.storage))
            expected.append((f"matmul {t.name}", 1, np.asarray(theirs, dtype=t.storage).reshape(-1).tolist()))
    empty = np.zeros((0, 3), np.int16)
    program.call("opforge_math_mean", {"x": ("q15", empty, {})}, ("q15", (3,), {}), axes=(0,))
    program.call("opforge_math_sum", {"x": ("q15", empty, {})}, ("q15", (3,), {}), axes=(0,))
    got = program.run(generated, c_objects, tmp_path)
    for (name, shift, values), (status, got_shift, got_values) in zip(expected, got):
        assert (status, got_shift, got_values.tolist()) == (0, shift, values), name
    assert got[-2][0] == shape_error and (got[-1][0], got[-1][2].tolist()) == (0, [0, 0, 0]), got[-2:]


MOVES = r"""#include <stdio.h>
#include "opforge/opforge_all.h"
/* (the call first: a printf argument's order of evaluation is unspecified) */
#define SAY(call, t) do { const int st = (int)(call); printf("%d %d %g %d\n", st, (int)(t).shift, (t).scale, (int)(t).offset); } while (0)
int main(void)
{
    const char* detail = NULL;
    int16_t xd[6] = {-32768, -5, 7, 32767, 0, 12};
    opforge_tensor x = {.data = xd, .dtype = OPFORGE_Q15, .rank = 2, .shape = {2, 3}, .shift = 3};
    int16_t td[6];
    /* (an output's attributes a move sets are not read: any, even out of range) */
    opforge_tensor t = {.data = td, .dtype = OPFORGE_Q15, .rank = 2, .shape = {3, 2}, .shift = 999};
    SAY(opforge_base_transpose(&x, &t, &detail), t);
    for (int i = 0; i < 6; i++) printf("%d\n", td[i]);
    int16_t yd[3] = {1, 2, 3};
    opforge_tensor y = {.data = yd, .dtype = OPFORGE_Q15, .rank = 2, .shape = {1, 3}, .shift = 3};
    const opforge_tensor* both[2] = {&x, &y};
    int16_t cd[9];
    opforge_tensor c = {.data = cd, .dtype = OPFORGE_Q15, .rank = 2, .shape = {3, 3}};
    SAY(opforge_base_concat(both, 2, 0, &c, &detail), c);
    for (int i = 0; i < 9; i++) printf("%d\n", cd[i]);
    y.shift = 2;  /* (other attributes: the stored values mean something else) */
    SAY(opforge_base_concat(both, 2, 0, &c, &detail), c);
    int8_t dd[6] = {-128, 5, 100, 7, 127, -3};
    opforge_tensor d = {.data = dd, .dtype = OPFORGE_D8, .rank = 2, .shape = {2, 3}, .scale = 0.25, .offset = -4};
    int64_t ad[2];
    opforge_tensor a = {.data = ad, .dtype = OPFORGE_INT64, .rank = 1, .shape = {2}};
    SAY(opforge_math_argmax(&d, 1, false, false, &a, &detail), a);
    printf("%lld\n%lld\n", (long long)ad[0], (long long)ad[1]);
    int8_t gd[3];
    int64_t id[3] = {2, 0, 2};
    opforge_tensor indices = {.data = id, .dtype = OPFORGE_INT64, .rank = 1, .shape = {3}};
    opforge_tensor g = {.data = gd, .dtype = OPFORGE_D8, .rank = 2, .shape = {1, 3}};
    opforge_tensor first = {.data = dd, .dtype = OPFORGE_D8, .rank = 2, .shape = {1, 3}, .scale = 0.25, .offset = -4};
    SAY(opforge_base_gather(&first, &indices, 1, &g, &detail), g);
    for (int i = 0; i < 3; i++) printf("%d\n", gd[i]);
    int8_t p0[3], p1[3];
    opforge_tensor o0 = {.data = p0, .dtype = OPFORGE_D8, .rank = 2, .shape = {1, 3}};
    opforge_tensor o1 = {.data = p1, .dtype = OPFORGE_D8, .rank = 2, .shape = {1, 3}};
    opforge_tensor* parts[2] = {&o0, &o1};
    SAY(opforge_base_split(&d, 2, 0, parts, 2, &detail), o0);
    SAY(OPFORGE_OK, o1);
    printf("%d\n%d\n", p1[0], p1[2]);
    return 0;
}
"""


def test_moves_take_fixed_point_tensors_and_pass_their_attributes_along(generated: GeneratedProjects,
                                                                        c_objects: list[Path], tmp_path: Path) -> None:
    """An op that moves stored values (a layout, a join, parts, an arg reduction) takes every Q and
    D type through its integer kernels: its outputs take the first input's attributes, a join's
    tensors must share them (OPFORGE_ERR_ATTRIBUTE otherwise), an arg reduction's indices are the
    stored values' (the stored order is the real order) and carry none. The outputs' own attributes
    are not read (a shift of 999, a D scale of 0)."""
    lines = _printed(generated, c_objects, tmp_path, "moves", MOVES).split("\n")
    attribute_error = abi.STATUS.index(next(s for s in abi.STATUS if s[0] == "OPFORGE_ERR_ATTRIBUTE"))
    x = np.array([[-32768, -5, 7], [32767, 0, 12]])
    assert lines[0] == "0 3 0 0" and list(map(int, lines[1:7])) == x.T.reshape(-1).tolist()
    assert lines[7] == "0 3 0 0" and list(map(int, lines[8:17])) == [*x.reshape(-1), 1, 2, 3]
    assert lines[17].split()[0] == str(attribute_error)
    d = np.array([[-128, 5, 100], [7, 127, -3]])
    assert lines[18] == "0 0 0 0" and list(map(int, lines[19:21])) == np.argmax(d, axis=1).tolist()
    assert lines[21] == "0 0 0.25 -4" and list(map(int, lines[22:25])) == [100, -128, 100]
    assert lines[25:27] == ["0 0 0.25 -4"] * 2 and list(map(int, lines[27:29])) == [7, -3]


STREAM = r"""#include <stdio.h>
#include "opforge/opforge_all.h"
int main(void)
{
    const char* detail = NULL;
    static uint64_t state[256]; /* (8-byte aligned) */
    opforge_tensor frame = {.data = NULL, .dtype = OPFORGE_Q15, .rank = 1, .shape = {2}, .shift = 3};
    size_t bytes = 0;
    printf("%d\n", (int)opforge_signal_sliding_window_state_size(3, 1, &frame, &bytes, &detail));
    printf("%d\n", (int)opforge_signal_sliding_window_init(state, sizeof state, 3, 1, &frame, &detail));
    int16_t xd[6] = {-32768, 1, 2, 3, 4, 32767};
    opforge_tensor x = {.data = xd, .dtype = OPFORGE_Q15, .rank = 2, .shape = {3, 2}, .shift = 3};
    printf("%d\n", (int)opforge_signal_sliding_window_enqueue(state, &x, &detail));
    int16_t od[6];
    opforge_tensor out = {.data = od, .dtype = OPFORGE_Q15, .rank = 2, .shape = {3, 2}, .shift = 999};
    const int st = (int)opforge_signal_sliding_window_dequeue(state, &out, &detail);
    printf("%d %d\n", st, (int)out.shift);
    for (int i = 0; i < 6; i++) printf("%d\n", od[i]);
    x.shift = 2; /* (other attributes than the frames') */
    printf("%d\n", (int)opforge_signal_sliding_window_enqueue(state, &x, &detail));
    frame.shift = 500; /* (out of Q15's range) */
    printf("%d\n", (int)opforge_signal_sliding_window_state_size(3, 1, &frame, &bytes, &detail));
    return 0;
}
"""


def test_the_sliding_window_queues_fixed_point_frames(generated: GeneratedProjects, c_objects: list[Path],
                                                      tmp_path: Path) -> None:
    """The stream's state keeps its frames' attributes: every frame enqueued must hold them
    (OPFORGE_ERR_ATTRIBUTE otherwise), every window dequeued takes them (the output's own are
    not read), and a frame's attributes out of range are refused."""
    lines = _printed(generated, c_objects, tmp_path, "stream", STREAM).split("\n")
    attribute_error = abi.STATUS.index(next(s for s in abi.STATUS if s[0] == "OPFORGE_ERR_ATTRIBUTE"))
    assert lines[:4] == ["0", "0", "0", "0 3"], lines
    assert list(map(int, lines[4:10])) == [-32768, 1, 2, 3, 4, 32767]
    assert lines[10:12] == [str(attribute_error)] * 2, lines


def test_a_16_bit_table_refuses_where_its_interpolation_misses(generated: GeneratedProjects, c_objects: list[Path],
                                                               tmp_path: Path) -> None:
    """A 16-bit table's fill checks its interpolation at every stored input: where the
    op jumps (floor), has a pole (log1p at -1) or bends too fast for its knots (sqrt at 0), the call
    is refused with OPFORGE_ERR_ATTRIBUTE, nothing written; where it bends smoothly (tanh, exp,
    whose knots now run past the output's range and saturate after the interpolation), it gives
    the package's NumPy rendering of the same table bit for bit, within the bound of exact."""
    attribute_error = abi.STATUS.index(next(s for s in abi.STATUS if s[0] == "OPFORGE_ERR_ATTRIBUTE"))
    calls = [("math.floor", F.Q15, "refused"), ("math.log1p", F.Q15, "refused"), ("math.sqrt", F.D16, "refused"),
             ("math.tanh", F.Q15, "kept"), ("math.exp", F.Q15, "kept"), ("math.exp", F.D16, "kept")]
    attributes = {"q15": ({"shift": 2}, {"shift": 2}), "d16": ({"scale": 1 / 4096, "offset": 0},
                                                                {"scale": 1 / 2048, "offset": 0})}
    program, expected = _Program(), []
    for j, (qualified, t, _) in enumerate(calls):
        op = next(o for ns in CATALOGUE.namespaces for o in code_ops(ns) if o.qualified_name == qualified)
        given, made = attributes[t.name]
        x = stored_values(t, (300,), 60 + j)
        program.call(abi.function(op), {"x": (t.name, x, given)}, (t.name, x.shape, made))
        ((_, _, table),) = R.table_cases(op, t)
        values = ({f"{n}_factor": F.q_factor(t, a["shift"]) for n, a in (("x", given), ("output", made))}
                  if t.family == "Q" else {f"{n}_{k}": float(v) for n, a in (("x", given), ("output", made))
                                           for k, v in a.items()})
        space = {"np": np, "_k": routines.numpy_kernels(), "stored_x": x, **values}
        try:
            with np.errstate(all="ignore"):
                exec("\n".join(R.numpy_table(table, t, "stored_x", {k: (k, "float64") for k in values})), space)
            expected.append(np.asarray(space["result"]).astype(np.int64))
        except ValueError as refused:
            assert str(refused) == R.table_miss("x", t), refused
            expected.append(None)
    got = program.run(generated, c_objects, tmp_path)
    for (qualified, t, outcome), theirs, (status, _, values) in zip(calls, expected, got):
        assert (theirs is None) == (outcome == "refused"), (qualified, t.system)
        if theirs is None:
            assert status == attribute_error, (qualified, t.system, status)
        else:
            assert status == 0 and np.array_equal(values, theirs), (qualified, t.system, status)
            given, made = attributes[t.name]
            x = stored_values(t, (300,), 60 + [c[:2] for c in calls].index((qualified, t)))
            if t.family == "Q":
                real, step = x / F.q_factor(t, given["shift"]), 1 / F.q_factor(t, made["shift"])
            else:
                real, step = x * given["scale"], made["scale"]
            exact = np.clip({"math.tanh": np.tanh, "math.exp": np.exp}[qualified](real) / step, t.lowest, t.highest)
            assert np.abs(values - exact).max() <= F.TABLE_BOUND + 1, (qualified, t.system)


def test_the_c_api_converts_as_cmsis_dsp_and_the_package_do(generated: GeneratedProjects, c_objects: list[Path],
                                                            tmp_path: Path) -> None:
    """opforge_math_quantize, _dequantize, _requantize and _bit_utilization (ADR 0068): the
    rules of dsl.fixed_point, bit for bit what the package's NumPy rendering of the same rules
    gives for every type and pair of types, and CMSIS-DSP's arm_float_to_qN, arm_qN_to_float,
    arm_shift_q15 and arm_q15_to_q7 where it has the conversion; the bits used as the reference
    library's BitUtilization counts them. Bad descriptors, shapes and overlaps: a status each."""
    real = _real(3, 2.0)
    attributes = {"q7": {"shift": 1}, "q15": {"shift": 1}, "q31": {"shift": 1}, "d8": {"scale": 0.05, "offset": -3},
                  "d16": {"scale": 0.001, "offset": 0}, "d32": {"scale": 1e-6, "offset": 5}}
    at_zero = {"q7": {"shift": 0}, "q15": {"shift": 0}, "q31": {"shift": 0}}

    def values(t: F.FixedPointType, given: dict) -> dict[str, float]:
        return ({F.FACTOR: F.q_factor(t, given["shift"])} if t.family == "Q" else
                {F.SCALE: float(np.float32(given["scale"])), F.OFFSET: float(given["offset"])})

    def quantized(t: F.FixedPointType, given: dict, x: np.ndarray = real) -> np.ndarray:
        with np.errstate(all="ignore"):
            return _numpy(F.from_real(t), x, values(t, given)).astype(t.storage)

    def dequantized(t: F.FixedPointType, given: dict, stored: np.ndarray) -> np.ndarray:
        return _numpy(F.to_real(t), stored.astype(np.float32), values(t, given)).astype(np.float32)

    calls: list[tuple[str, tuple, tuple, np.ndarray]] = []  # (function, x, output, expected)
    for t in F.TYPES.values():
        for given in (attributes[t.name], at_zero.get(t.name, attributes[t.name])):
            stored = quantized(t, given)
            calls.append(("opforge_math_quantize", ("float32", real, {}), (t.name, given), stored))
            calls.append(("opforge_math_dequantize", (t.name, stored, given), ("float32", {}),
                          dequantized(t, given, stored)))
        stored = quantized(t, attributes[t.name])
        for to in F.TYPES.values():
            made = {"shift": 3} if to.family == "Q" else attributes[to.name]
            if t.family == to.family == "Q":
                k = (t.fraction_bits - to.fraction_bits) + (made["shift"] - attributes[t.name]["shift"])
                rule = F.shifted(t, to)
                expected = _numpy(rule, stored.astype(rule.domain), {F.SHIFT_BY: k}).astype(to.storage)
            else:
                expected = quantized(to, made, dequantized(t, attributes[t.name], stored))
            calls.append(("opforge_math_requantize", (t.name, stored, attributes[t.name]), (to.name, made), expected))
        if t.family == "Q":
            used = np.array([(int(v) if v >= 0 else ~int(v)).bit_length() + 1 for v in stored], np.int8)
            calls.append(("opforge_math_bit_utilization", (t.name, stored, attributes[t.name]), ("int8", {}), used))
    # the owners: CMSIS-DSP at shift 0 (where its C casts are defined: |x| far below 2^31 steps), and
    # its shifts between Q types
    finite = np.abs(real) <= 8
    for t, to_q, from_q in ((F.Q7, dsp.arm_float_to_q7, dsp.arm_q7_to_float),
                            (F.Q15, dsp.arm_float_to_q15, dsp.arm_q15_to_float),
                            (F.Q31, dsp.arm_float_to_q31, dsp.arm_q31_to_float)):
        stored = quantized(t, {"shift": 0})
        assert np.array_equal(stored[finite], np.asarray(to_q(real[finite])).astype(t.storage)), t.system
        assert np.array_equal(dequantized(t, {"shift": 0}, stored), np.asarray(from_q(stored), np.float32)), t.system
    q15 = quantized(F.Q15, {"shift": 1})
    shifted = next(e for f, x, o, e in calls if f == "opforge_math_requantize" and x[0] == "q15" and o[0] == "q15")
    assert np.array_equal(shifted, dsp.arm_shift_q15(q15, -2)), "arm_shift_q15"
    to_q7 = np.asarray(_numpy(F.shifted(F.Q15, F.Q7), q15.astype(np.int32), {F.SHIFT_BY: 8})).astype(np.int8)
    assert np.array_equal(to_q7, dsp.arm_q15_to_q7(q15)), "arm_q15_to_q7"
    # refused: a float input to requantize, two shapes, attributes out of range, bits of a D type
    bad = [("opforge_math_requantize", ("float32", real, {}), ("q15", {"shift": 0}), None),
           ("opforge_math_quantize", ("float32", real[:5], {}), ("q15", {"shift": 0}), real.shape),
           ("opforge_math_quantize", ("float32", real, {}), ("q15", {"shift": 500}), None),
           ("opforge_math_bit_utilization", ("d8", quantized(F.D8, attributes["d8"]), attributes["d8"]), ("int8", {}),
            None)]
    program = _Program()
    for function, (dtype, array, given), (out_dtype, made), _ in calls:
        program.call(function, {"x": (dtype, array, given)}, (out_dtype, array.shape, made))
    for function, (dtype, array, given), (out_dtype, made), shape in bad:
        program.call(function, {"x": (dtype, array, given)}, (out_dtype, shape or array.shape, made))
    got = program.run(generated, c_objects, tmp_path)
    for (function, x, output, expected), (status, _, printed) in zip(calls, got):
        assert status == 0, (function, x[0], output[0], status)
        if expected.dtype == np.float32:  # (the float's digits: exact, as its bits)
            assert np.array_equal(printed.astype(np.float32).view(np.uint32), expected.view(np.uint32)), \
                (function, x[0], output[0])
        else:
            assert printed.astype(np.int64).tolist() == expected.astype(np.int64).tolist(), (function, x[0], output[0])
    statuses = [status for status, _, _ in got[len(calls):]]  # (refused: no values printed)
    names = {n: abi.STATUS.index(next(s for s in abi.STATUS if s[0] == n)) for n in
             ("OPFORGE_ERR_DTYPE", "OPFORGE_ERR_SHAPE", "OPFORGE_ERR_ATTRIBUTE", "OPFORGE_ERR_OVERLAP")}
    assert statuses == [names["OPFORGE_ERR_DTYPE"], names["OPFORGE_ERR_SHAPE"], names["OPFORGE_ERR_ATTRIBUTE"],
                        names["OPFORGE_ERR_DTYPE"]], statuses
    # in place: two dtypes over the same bytes would alias two types: refused both ways
    source = (f"#include <math.h>\n#include <stdio.h>\n#include \"opforge/opforge_all.h\"\n"
              f"{c_array('own', real, 'float32', const=False)}\n"
              f"opforge_tensor own_x = {{.data = own, .dtype = OPFORGE_FLOAT32, .rank = 1, .shape = {{{real.size}}}}};\n"
              f"opforge_tensor own_q = {{.data = own, .dtype = OPFORGE_Q15, .rank = 1, .shape = {{{real.size}}}, "
              ".shift = 1};\nint main(void)\n{\nconst char* detail = NULL;\n"
              'printf("%d %d\\n", (int)opforge_math_quantize(&own_x, &own_q, &detail), '
              "(int)opforge_math_dequantize(&own_q, &own_x, &detail));\nreturn 0;\n}\n")
    overlaps = _printed(generated, c_objects, tmp_path, "overlaps", source).split()
    assert overlaps == [str(names["OPFORGE_ERR_OVERLAP"])] * 2, overlaps


def _onnx_per_axis(op: str, x: np.ndarray, scales: np.ndarray, offset: int, stored: str, axis: int) -> np.ndarray:
    """ONNX QuantizeLinear or DequantizeLinear along ``axis`` (per-axis scales; the zero point
    the same at every index, as a D tensor's offset is), run by onnxruntime."""
    element = {"int8": TensorProto.INT8, "int16": TensorProto.INT16}[stored]
    given, made = (TensorProto.FLOAT, element) if op == "QuantizeLinear" else (element, TensorProto.FLOAT)
    graph = helper.make_graph(
        [helper.make_node(op, ["x", "scale", "offset"], ["y"], axis=axis)], "per_axis",
        [helper.make_tensor_value_info("x", given, list(x.shape))],
        [helper.make_tensor_value_info("y", made, list(x.shape))],
        initializer=[helper.make_tensor("scale", TensorProto.FLOAT, [scales.size], scales.tolist()),
                     helper.make_tensor("offset", element, [scales.size], [offset] * scales.size)])
    return _ort(graph, {"x": x})


def test_per_axis_scales_are_onnx_s_axis_and_only_the_conversions_take_them(
        generated: GeneratedProjects, c_objects: list[Path], tmp_path: Path) -> None:
    """A D tensor's per-axis scales (ADR 0069): opforge_math_quantize and _dequantize along each
    axis of a rank-3 tensor are onnxruntime's QuantizeLinear and DequantizeLinear with that axis,
    bit for bit; requantize from and to per-axis scales goes through the real values as the rule
    says. Every other op refuses a tensor with per-axis scales (OPFORGE_ERR_ATTRIBUTE), as the
    conversions refuse an axis out of range and a scale that is not positive."""
    rng = np.random.default_rng(69)
    real = (rng.standard_normal((3, 4, 5)) * 4).astype(np.float32)
    calls: list[tuple[str, tuple, tuple, np.ndarray]] = []
    for t, offset in ((F.D8, -3), (F.D16, 0)):
        for axis in range(real.ndim):
            scales = rng.uniform(0.01, 0.2, real.shape[axis]).astype(np.float32)
            per_axis = {"scales": scales, "axis": axis, "offset": offset}
            stored = _onnx_per_axis("QuantizeLinear", real, scales, offset, t.storage, axis)
            calls.append(("opforge_math_quantize", ("float32", real, {}), (t.name, per_axis), stored))
            calls.append(("opforge_math_dequantize", (t.name, stored, per_axis), ("float32", {}),
                          _onnx_per_axis("DequantizeLinear", stored, scales, offset, t.storage, axis)))
            # (requantized to one scale, and from one scale to these: through the real values)
            one = {"scale": 0.05, "offset": 1}
            shape = (-1,) + (1,) * (real.ndim - axis - 1)
            through = (stored.astype(np.float32) - np.float32(offset)) * scales.reshape(shape)
            with np.errstate(all="ignore"):
                expected = _numpy(F.from_real(t), through, {F.SCALE: float(np.float32(0.05)), F.OFFSET: 1.0})
            calls.append(("opforge_math_requantize", (t.name, stored, per_axis), (t.name, one),
                          expected.astype(t.storage)))
            once = _numpy(F.from_real(t), real, {F.SCALE: float(np.float32(0.05)), F.OFFSET: 1.0}).astype(t.storage)
            back = _onnx_per_axis("QuantizeLinear", (once.astype(np.float32) - 1) * np.float32(0.05), scales, offset,
                                  t.storage, axis)
            calls.append(("opforge_math_requantize", (t.name, once, one), (t.name, per_axis), back))
    program = _Program()
    for function, (dtype, array, given), (out_dtype, made), _ in calls:
        program.call(function, {"x": (dtype, array, given)}, (out_dtype, array.shape, made))
    scales = np.full(4, 0.1, np.float32)
    d8 = real.astype(np.int8)
    bad = [("opforge_math_add", {"x": ("d8", d8, {"scales": scales, "axis": 1}), "y": ("d8", d8, {"scale": 0.1})},
            ("d8", real.shape, {"scale": 0.1})),
           ("opforge_math_neg", {"x": ("d8", d8, {"scale": 0.1})}, ("d8", real.shape, {"scales": scales, "axis": 1})),
           ("opforge_math_dequantize", {"x": ("d8", d8, {"scales": scales, "axis": 3})}, ("float32", real.shape, {})),
           ("opforge_math_dequantize", {"x": ("d8", d8, {"scales": scales, "axis": -1})}, ("float32", real.shape, {})),
           ("opforge_math_quantize", {"x": ("float32", real, {})},
            ("d8", real.shape, {"scales": np.array([0.1, 0.1, -0.1, 0.1], np.float32), "axis": 1}))]
    for function, inputs, output in bad:
        program.call(function, inputs, output)
    got = program.run(generated, c_objects, tmp_path)
    for (function, x, output, expected), (status, _, printed) in zip(calls, got):
        assert status == 0, (function, x[0], output[0], status)
        if expected.dtype == np.float32:
            assert np.array_equal(printed.astype(np.float32).reshape(expected.shape), expected), (function, x[0])
        else:
            assert printed.astype(np.int64).tolist() == expected.reshape(-1).astype(np.int64).tolist(), \
                (function, x[0], output)
    attribute_error = abi.STATUS.index(next(s for s in abi.STATUS if s[0] == "OPFORGE_ERR_ATTRIBUTE"))
    assert [status for status, _, _ in got[len(calls):]] == [attribute_error] * len(bad), got[len(calls):]


def _qlinear(op: str, feeds: dict[str, np.ndarray], constants: dict[str, np.ndarray], out: tuple[int, ...],
             domain: str = "") -> np.ndarray:
    """onnxruntime's QLinearMatMul or (``com.microsoft``) QGemm on int8 ``feeds``: ``constants`` give
    each scale (float32) and zero point (int8), one or one per column (in a batched b's shape, its
    rows one: onnxruntime's rule)."""
    inputs = [n for n in ("a", "as", "az", "b", "bs", "bz", "c", "ys", "yz") if n in feeds or n in constants]
    kind = {np.dtype(np.int8): TensorProto.INT8, np.dtype(np.int32): TensorProto.INT32,
            np.dtype(np.float32): TensorProto.FLOAT}
    graph = helper.make_graph(
        [helper.make_node(op, inputs, ["y"], domain=domain)], "per_column",
        [helper.make_tensor_value_info(n, kind[v.dtype], list(v.shape)) for n, v in feeds.items()],
        [helper.make_tensor_value_info("y", TensorProto.INT8, list(out))],
        initializer=[helper.make_tensor(n, kind[v.dtype], list(v.shape), v.reshape(-1).tolist())
                     for n, v in constants.items()])
    return _ort(graph, feeds)


def test_matmul_and_dense_take_per_column_scales_as_onnxruntime_does(
        generated: GeneratedProjects, c_objects: list[Path], tmp_path: Path) -> None:
    """A matmul's or dense layer's second operand with per-axis scales along its last axis, a scale
    per column of the result (ADR 0071): each column is the product over that column's scale alone,
    bit for bit (and the package's reference computes the same); D8 is within one step of
    onnxruntime's QLinearMatMul with a 1-D b_scale (batched b too) and of its QGemm (contrib domain)
    with per-column B scales over the same int32 bias; D16 within one step of the exact result. Per-axis
    scales along another axis, or in the other operand or the output, are refused."""
    rng = np.random.default_rng(71)
    matmul, linear = (CATALOGUE.namespace(ns).op(name) for ns, name in (("math", "matmul"), ("nn", "linear")))
    program, cases = _Program(), []
    for t, offsets in ((F.D8, (3, -5, -2, 4)), (F.D16, (0, 0, 0, 0))):
        oa, ob, oo, obias = offsets
        a = stored_values(t, (5, 7), 21)
        for b_shape in ((7, 4), (2, 7, 4)):
            b = stored_values(t, b_shape, 22)
            scales = rng.uniform(0.002, 0.05, 4).astype(np.float32)
            given = {"a": (t.name, a, {"scale": 0.02, "offset": oa}),
                     "b": (t.name, b, {"scales": scales, "axis": b.ndim - 1, "offset": ob})}
            shape = (*b_shape[:-2], 5, 4)
            program.call(abi.function(matmul), given, (t.name, shape, {"scale": 0.5, "offset": oo}))
            for j in range(4):  # (each column alone, over its own scale)
                alone = {"a": given["a"], "b": (t.name, np.ascontiguousarray(b[..., j:j + 1]),
                                                {"scale": float(scales[j]), "offset": ob})}
                program.call(abi.function(matmul), alone, (t.name, (*b_shape[:-2], 5, 1), {"scale": 0.5, "offset": oo}))
            cases.append(("matmul", t, a, b, scales, offsets))
        w, bias = stored_values(t, (7, 4), 23), stored_values(t, (4,), 24)
        scales = rng.uniform(0.002, 0.05, 4).astype(np.float32)
        given = {"x": (t.name, a, {"scale": 0.02, "offset": oa}),
                 "weights": (t.name, w, {"scales": scales, "axis": 1, "offset": ob}),
                 "bias": (t.name, bias, {"scale": 0.0004, "offset": obias})}
        program.call(abi.function(linear), given, (t.name, (5, 4), {"scale": 0.5, "offset": oo}))
        for j in range(4):
            alone = {"x": given["x"], "weights": (t.name, np.ascontiguousarray(w[:, j:j + 1]),
                                                  {"scale": float(scales[j]), "offset": ob}),
                     "bias": (t.name, bias[j:j + 1], {"scale": 0.0004, "offset": obias})}
            program.call(abi.function(linear), alone, (t.name, (5, 1), {"scale": 0.5, "offset": oo}))
        cases.append(("linear", t, a, (w, bias), scales, offsets))
    d8 = stored_values(F.D8, (4, 4), 25)
    four = np.full(4, 0.01, np.float32)
    bad = [({"a": ("d8", d8, {"scale": 0.1}), "b": ("d8", d8, {"scales": four, "axis": 0})}, {"scale": 0.1}),
           ({"a": ("d8", d8, {"scales": four, "axis": 1}), "b": ("d8", d8, {"scale": 0.1})}, {"scale": 0.1}),
           ({"a": ("d8", d8, {"scale": 0.1}), "b": ("d8", d8, {"scale": 0.1})}, {"scales": four, "axis": 1})]
    for inputs, out in bad:
        program.call(abi.function(matmul), inputs, ("d8", (4, 4), out))
    got = iter(program.run(generated, c_objects, tmp_path))
    for kind, t, a, b, scales, (oa, ob, oo, obias) in cases:
        status, _, values = next(got)
        name = f"{kind} {t.system} {getattr(b, 'shape', '')}"
        assert status == 0, (name, status)
        columns = [next(got) for _ in range(4)]
        assert all(s == 0 for s, _, _ in columns), name
        rows = values.reshape(-1, 4)
        for j, (_, _, alone) in enumerate(columns):
            assert rows[:, j].tolist() == alone.tolist(), (name, j)
        op = matmul if kind == "matmul" else linear
        derived = F.derive(op, t)
        scope = {"np": np, "_k": routines.numpy_kernels(), "quantize_multiplier": F.quantize_multiplier,
                 "output_scale": 0.5, "output_offset": oo}
        if kind == "matmul":
            scope |= {"a": a, "b": b, "a_scale": float(np.float32(0.02)), "a_offset": oa,
                      "b_scale": scales.astype(np.float64), "b_offset": ob}
            exec("\n".join(R.numpy_contraction_lines(derived, ["a", "b"])), scope)
            real = ((a.astype(np.float64) - oa) * float(np.float32(0.02))) @ ((b.astype(np.float64) - ob) * scales)
        else:
            w, bias = b
            scope |= {"x": a, "weights": w, "bias": bias, "x_scale": float(np.float32(0.02)), "x_offset": oa,
                      "weights_scale": scales.astype(np.float64), "weights_offset": ob,
                      "bias_scale": float(np.float32(0.0004)), "bias_offset": obias}
            exec("\n".join(R.numpy_dense_lines(derived)), scope)
            real = (((a.astype(np.float64) - oa) * float(np.float32(0.02))) @ ((w.astype(np.float64) - ob) * scales)
                    + (bias.astype(np.float64) - obias) * float(np.float32(0.0004)))
        assert np.asarray(scope["result"]).reshape(-1).tolist() == values.tolist(), name  # (the package's rule)
        ideal = np.clip(real / 0.5 + oo, t.lowest, t.highest).reshape(-1)
        assert np.abs(values - ideal).max() <= 1, (name, values, ideal)
        if t is not F.D8:
            continue
        columns_shape = (*b.shape[:-2], 1, 4) if kind == "matmul" and b.ndim > 2 else (4,)
        per = {"bs": np.broadcast_to(scales, columns_shape), "bz": np.full(columns_shape, ob, np.int8),
               "ys": np.float32(0.5), "yz": np.int8(oo), "as": np.float32(0.02), "az": np.int8(oa)}
        per = {n: np.asarray(v) for n, v in per.items()}
        if kind == "matmul":
            constants = per
            theirs = _qlinear("QLinearMatMul", {"a": a, "b": b}, constants, (*b.shape[:-2], 5, 4))
        else:  # (QGemm's bias: int32 in x's scale times each column's, ours as the rule computes it)
            bias_scope = {"np": np, "_k": routines.numpy_kernels(), "quantize_multiplier": F.quantize_multiplier,
                          **{k: v for k, v in scope.items() if k.endswith(("_scale", "_offset")) or k == "bias"}}
            lines, code = R.numpy_lines(derived.bias, {"bias": ("np.asarray(bias).astype(np.int64)", "int64"),
                                                       "bias_offset": ("np.int64(bias_offset)", "int64"),
                                                       "bias_multiplier": ("np.int32(bias_multiplier)", "int32"),
                                                       "bias_exponent": ("np.int32(bias_exponent)", "int32")})
            multipliers, _ = R.numpy_multiplier_lines(derived.multipliers, ["x_scale", "weights_scale", "bias_scale",
                                                                            "output_scale"], columns=True)
            exec("\n".join([*multipliers, *lines, f"held = {code}"]), bias_scope)
            constants = per
            theirs = _qlinear("QGemm", {"a": a, "b": w, "c": np.asarray(bias_scope["held"]).astype(np.int32)},
                              constants, (5, 4), "com.microsoft")
        assert np.abs(values - theirs.reshape(-1).astype(np.int64)).max() <= 1, (name, values, theirs)
    attribute_error = abi.STATUS.index(next(s for s in abi.STATUS if s[0] == "OPFORGE_ERR_ATTRIBUTE"))
    assert [status for status, _, _ in got] == [attribute_error] * len(bad)


def test_a_prepared_table_computes_what_the_op_computes(generated: GeneratedProjects, c_objects: list[Path],
                                                        tmp_path: Path) -> None:
    """ADR 0043: <op>_table fills an opforge_table once, <op>_lookup reads it for any tensors of
    that dtype and those attributes, bit for bit what the op's own call (which fills a table on
    its stack every time) gives; a table of other attributes or of another op, another shape and
    a NULL table are refused; the fill's own refusals (floor's jumps) and an op of several cases
    (log with a base, and without) carry over."""
    status = {n: i for i, (n, _) in enumerate(abi.STATUS)}
    decls, runs = [], []
    cases = [("tanh", "q15", {"shift": 2}, {"shift": 1}, ""), ("sigmoid", "d8", {"scale": 0.05, "offset": -3},
                                                                    {"scale": 1 / 256, "offset": -128}, ""),
             ("log", "q7", {"shift": 2}, {"shift": 3}, "&base, "), ("log", "d8", {"scale": 0.02, "offset": -128}, {"scale": 0.05, "offset": 100}, "NULL, "),
             ("exp", "d16", {"scale": 1 / 4096, "offset": 0}, {"scale": 1 / 2048, "offset": 0}, "")]
    for k, (name, dtype, given, made, args) in enumerate(cases):
        t = F.TYPES[dtype]
        x = stored_values(t, (2, 150), 80 + k)
        if name == "log":
            x = np.abs(x).astype(t.storage)
        for role, array, attributes in (("x", x, given), ("y", x[::-1].copy(), given), ("a", x, made), ("b", x, made),
                                        ("z", x, made)):
            decls.append(_descriptor(f"t{k}_{role}", dtype, array if role in "xy" else np.zeros_like(array),
                                     attributes)[0])
        other = {"shift": given["shift"] + 1} if t.family == "Q" else {"scale": given["scale"] * 2, "offset": 0}
        decls.append(_descriptor(f"t{k}_o", dtype, x, other)[0])
        fn = f"opforge_math_{name}"
        runs.append(f"""{{ const char* detail = NULL; static opforge_table table;
    printf("%d\\n", (int){fn}_table(&t{k}_x, {args}&t{k}_a, &table, &detail));
    printf("%d\\n", (int){fn}_lookup(&t{k}_x, &table, &t{k}_a, &detail));
    printf("%d\\n", (int){fn}_lookup(&t{k}_y, &table, &t{k}_b, &detail));
    printf("%d\\n", (int){fn}(&t{k}_x, {args}&t{k}_z, &detail));
    for (int64_t i = 0; i < {x.size}; i++) {{
        const {C_TYPE[t.storage]}* a = (const {C_TYPE[t.storage]}*)t{k}_a.data;
        const {C_TYPE[t.storage]}* z = (const {C_TYPE[t.storage]}*)t{k}_z.data;
        if (a[i] != z[i]) {{ printf("differs at %lld\\n", (long long)i); return 1; }}
    }}
    printf("%d\\n", (int){fn}_lookup(&t{k}_o, &table, &t{k}_b, &detail));
    printf("%d\\n", (int)opforge_math_{'exp' if name != 'exp' else 'tanh'}_lookup(&t{k}_x, &table, &t{k}_b, &detail));
    printf("%d\\n", (int){fn}_lookup(&t{k}_x, NULL, &t{k}_b, &detail)); }}""")
    # the fill's refusal: floor jumps between every two knots of Q15
    decls.append(_descriptor("f_x", "q15", stored_values(F.Q15, (8,), 1), {"shift": 2})[0])
    runs.append("""{ const char* detail = NULL; static opforge_table table;
    printf("%d\\n", (int)opforge_math_floor_table(&f_x, &f_x, &table, &detail)); }""")
    source = ("#include <math.h>\n#include <stdio.h>\n#include \"opforge/opforge_all.h\"\nstatic const double base = 2.0;\n"
              + "\n".join(decls) + "\nint main(void)\n{\n" + "\n".join(runs) + "\nreturn 0;\n}\n")
    printed = _printed(generated, c_objects, tmp_path, "tables", source).split()
    expected = [status["OPFORGE_OK"]] * 4 + [status["OPFORGE_ERR_ATTRIBUTE"]] * 2 + [status["OPFORGE_ERR_NULL"]]
    assert printed == [str(s) for s in expected * len(cases) + [status["OPFORGE_ERR_ATTRIBUTE"]]], printed


#: Every (op, type) whose tree is a clamp: minima and maxima of the input and real bounds.
CLAMPS = [(op, t, d) for ns in CATALOGUE.namespaces for op in code_ops(ns) for t in F.TYPES.values()
          if isinstance(d := F.derive(op, t), F.Clamp)]
#: Each clamp op's args, as a call gives them: bounds between steps and beyond the type's range.
CLAMP_ARGS = {"math.clip_by_value": [(-0.3, 1.1), (-1e9, 0.7), (0.25, 0.25)], "nn.relu6": [(0.0,), (-0.55,)],
              "nn.hard_tanh": [()], "nn.relu": [(0.0,), (0.3,), (-1e9,)], "math.step": [()],
              "nn.leaky_relu_derivative": [(0.01,), (-0.2,)]}


def test_c_api_clamps_are_exact_cmsis_dsp_s_arm_clip_and_refuse_a_nan_bound(
        generated: GeneratedProjects, c_objects: list[Path], tmp_path: Path) -> None:
    """clip_by_value, relu6, hard_tanh, relu, step and leaky_relu_derivative in every Q and D type:
    each value bound converted to a stored value by the type's from-real rule, each comparison's
    bound rounded as keeps the comparison exact, then minima, maxima and selections of the stored
    values. The result is the rule on the exact real values (no step lost, Q31 and D32 included),
    a clip's in Q CMSIS-DSP's arm_clip on the bounds so converted, and the output takes the input's
    attributes whatever its descriptor held; a NaN bound is refused (OPFORGE_ERR_ARG)."""
    program, cases = _Program(), []
    for op, t, derived in CLAMPS:
        tree = op.compute.case(())
        for k, given in enumerate(CLAMP_ARGS[op.qualified_name]):
            attributes = {"shift": (-2, 0, 5)[k % 3]} if t.family == "Q" else {"scale": (0.05, 0.003)[k % 2],
                                                                             "offset": (3, -11)[k % 2]}
            x = stored_values(t, (40,), 9 + k)
            args = dict(zip([a.name for a in op.args], given))
            program.call(abi.function(op), {"x": (t.name, x, attributes)},
                         (t.name, (40,), {"shift": 99} if t.family == "Q" else {"scale": 7.0, "offset": 1}),
                         args=tuple(repr(float(v)) for v in given))
            cases.append((op, t, derived, x, args, attributes, clamped_exactly(t, x, tree, args, attributes)))
    refusals = []
    for op, t, _ in CLAMPS:
        attributes = {"shift": 1} if t.family == "Q" else {"scale": 0.5, "offset": 0}
        for nan in range(len(op.args)):  # (clip's constraint, min <= max, refuses a NaN first)
            program.call(abi.function(op), {"x": (t.name, stored_values(t, (4,), 1), attributes)},
                         (t.name, (4,), attributes),
                         args=tuple("NAN" if j == nan else "0.5" for j in range(len(op.args))))
            refusals.append("OPFORGE_ERR_CONSTRAINT" if op.constraints else "OPFORGE_ERR_ARG")
    got = program.run(generated, c_objects, tmp_path)
    statuses = [abi.STATUS[status][0] for status, _, _ in got[len(cases):]]
    assert statuses == refusals and "OPFORGE_ERR_ARG" in statuses, statuses
    for (op, t, derived, x, args, attributes, exact), (status, shift, values), kept in zip(cases, got,
                                                                                            program.attributes):
        name = f"{op.qualified_name} {t.system} {args}"
        assert status == 0 and values.tolist() == exact.tolist(), name
        assert (shift == attributes["shift"] if t.family == "Q"
                else kept == (float(attributes["scale"]), attributes["offset"])), (name, shift, kept)
        if t.family == "Q":
            bounds = R.numpy_bound_lines(derived, t, {a: repr(v) for a, v in args.items()})
            scope: dict = {"np": np, "math": math, "_k": routines.numpy_kernels(), F.shift_of("x"): attributes["shift"]}
            exec("\n".join(bounds), scope)  # (the package's own rendering of the bounds' rule)
            if op.compute.case(()).fn == "minimum":  # (a clip: a maximum, then a minimum; not a selection)
                lo, hi = (scope[n] for n, _ in derived.bounds)
                theirs = getattr(dsp, f"arm_clip_{t.name}")(x, lo, hi)
                assert np.array_equal(np.asarray(theirs, dtype=np.int64), exact), name
    assert {(op.qualified_name, t.name) for op, t, _ in CLAMPS} >= {("math.clip_by_value", n) for n in F.TYPES}



def test_c_api_q_log_is_the_reference_library_s_log_bit_for_bit(generated: GeneratedProjects, c_objects: list[Path],
                                                                 tmp_path: Path) -> None:
    """log on Q15 and Q31 computes what the reference library's Log unit computes with CMSIS-DSP
    (arm_vlog, arm_scale, arm_offset; ADR 0046), with or without a base, at every shift tried, and
    sets the output's shift by its rule; 0 and negative inputs give the conversions of -inf and NaN."""
    op = CATALOGUE.namespace("math").op("log")
    program, cases = _Program(), []
    for t in (F.Q15, F.Q31):
        assert isinstance(F.derive(op, t), F.Log), t.name
        for k, shift in enumerate(LOG_SHIFTS):
            base = LOG_BASES[k % len(LOG_BASES)]
            x = np.concatenate([stored_values(t, (60,), 3 + k), [0, -1, 1, 2, t.highest, t.lowest]]).astype(t.storage)
            program.call(abi.function(op), {"x": (t.name, x, {"shift": shift})}, (t.name, x.shape, {"shift": 99}),
                         args=("NULL" if base is None else f"&(double){{{base!r}}}",))
            cases.append((t, shift, base, reference_log(t, x, shift, base)))
    for (t, shift, base, (expected, out_shift)), (status, got_shift, values) in zip(cases, program.run(
            generated, c_objects, tmp_path)):
        name = f"{t.system} shift {shift} base {base}"
        assert status == 0 and got_shift == out_shift, (name, status, got_shift)
        assert values.tolist() == expected.tolist(), name


#: A D16 logarithm's attributes in the tests: (x scale, x offset, output scale, output offset).
D_LOG_ATTRIBUTES = [(1 / 4096, 0, 1 / 2048, 0), (0.001, 0, 0.002, 0), (0.05, -300, 0.0005, 100), (3.0, 7, 0.01, -50)]


def exact_d_log(t: F.FixedPointType, x: np.ndarray, attributes: tuple[float, int, float, int],
                base: float | None) -> tuple[np.ndarray, np.ndarray]:
    """(the exact stored logarithm, unrounded and saturated, where the real value is positive; the
    stored result elsewhere: the lowest value at real zero, the output's offset below it)."""
    scale, offset, out_scale, out_offset = attributes
    real = (x.astype(np.float64) - offset) * scale
    with np.errstate(all="ignore"):
        exact = np.log(real) / (1.0 if base is None else math.log(base)) / out_scale + out_offset
    return np.clip(exact, t.lowest, t.highest), np.where(real == 0, t.lowest, out_offset)


def test_c_api_d16_log_is_within_a_step_of_the_exact_logarithm(generated: GeneratedProjects, c_objects: list[Path],
                                                               tmp_path: Path) -> None:
    """log on D16 (ADR 0046: arm_vlog_q31's steps on the input less its offset, TensorFlow Lite's
    rescaling) is within one step of the exact logarithm at every stored value, with or without a
    base, the output's scale and offset the caller's; real zero gives the lowest value, a negative
    real the output's offset (real zero's stored value, NaN's conversion)."""
    op = CATALOGUE.namespace("math").op("log")
    t = F.D16
    assert isinstance(F.derive(op, t), F.DLog)
    program, cases = _Program(), []
    x = np.arange(t.lowest, t.highest + 1).astype(t.storage)
    for k, attributes in enumerate(D_LOG_ATTRIBUTES):
        base = LOG_BASES[k % len(LOG_BASES)]
        scale, offset, out_scale, out_offset = attributes
        program.call(abi.function(op), {"x": (t.name, x, {"scale": scale, "offset": offset})},
                     (t.name, x.shape, {"scale": out_scale, "offset": out_offset}),
                     args=("NULL" if base is None else f"&(double){{{base!r}}}",))
        cases.append((attributes, base, *exact_d_log(t, x, attributes, base)))
    for (attributes, base, exact, elsewhere), (status, _, values) in zip(cases, program.run(generated, c_objects,
                                                                                            tmp_path)):
        positive = (x.astype(np.int64) - attributes[1]) > 0
        assert status == 0, (attributes, base, status)
        assert np.max(np.abs(values[positive] - exact[positive])) <= 1, (attributes, base)
        assert values[~positive].tolist() == elsewhere[~positive].astype(np.int64).tolist(), (attributes, base)


#: A dense layer's attributes in the tests: Q shifts of x, the weights and the bias (a bias far
#: above the products: it moves left and saturates), D scales and offsets of x, the weights, the
#: bias and the output (D16's offsets 0).
DENSE_SHIFTS = [(0, 0, 0), (2, -1, 3), (1, 1, -20), (0, 0, 25)]
DENSE_ATTRIBUTES = [((0.02, 3), (0.01, 0), (0.05, -2), (0.1, 5)), ((0.5, -20), (0.002, 7), (0.0001, 0), (0.03, -3))]


def _exact_dense(x: np.ndarray, w: np.ndarray, b: np.ndarray, real: Callable[[str, np.ndarray], list]) -> list[list]:
    """The exact x @ w + b of the real values (``real(tensor, stored)``: Fractions), row by row."""
    xs, ws, bs = real("x", x), real("w", w), real("b", b[None, :])[0]
    return [[sum(xs[i][k] * ws[k][j] for k in range(x.shape[1])) + bs[j] for j in range(w.shape[1])]
            for i in range(x.shape[0])]


def test_c_api_dense_layers_sum_from_their_bias(generated: GeneratedProjects, c_objects: list[Path],
                                                tmp_path: Path) -> None:
    """nn.linear on Q7, Q15, Q31, D8 and D16 (x @ weights + bias): each sum starts from the bias in
    the sum's units, then one requantization. Q: the floor of the exact result in output steps (the
    operands' shifts summed; Q31's products less 14 bits each, within one step), saturated, and with
    no bias CMSIS-DSP's arm_mat_mult bit for bit; D: within one step of the exact result in the
    output's scale and offset (the caller's), saturated; the package's reference computes the same."""
    op = CATALOGUE.namespace("nn").op("linear")
    program, cases = _Program(), []
    for t in (F.Q7, F.Q15, F.Q31, F.D8, F.D16):
        x, w, b = stored_values(t, (4, 6), 11), stored_values(t, (6, 3), 12), stored_values(t, (3,), 13)
        attributes = DENSE_SHIFTS if t.family == "Q" else DENSE_ATTRIBUTES
        for k, given in enumerate(attributes):
            bias = np.zeros_like(b) if k == 0 else b
            if t.family == "Q":
                descriptors = [{"shift": s} for s in given]
                out: dict = {}
            else:
                given = tuple((s, o if t.bits == 8 else 0) for s, o in given)  # type: ignore[assignment]
                descriptors = [{"scale": s, "offset": o} for s, o in given[:3]]  # type: ignore[index]
                out = {"scale": given[3][0], "offset": given[3][1]}  # type: ignore[index]
            program.call(abi.function(op), {n: (t.name, a, d) for n, a, d in zip(("x", "weights", "bias"), (x, w, bias),
                                                                                 descriptors)}, (t.name, (4, 3), out))
            cases.append((t, given, x, w, bias))
    for (t, given, x, w, bias), (status, shift, values) in zip(cases, program.run(generated, c_objects, tmp_path)):
        name = f"{t.system} {given}"
        assert status == 0, (name, status)
        derived = F.derive(op, t)
        if t.family == "Q":
            sx, sw, sb = given  # type: ignore[misc]
            assert shift == sx + sw, name
            steps = {"x": sx, "w": sw, "b": sb}
            exact = _exact_dense(x, w, bias, lambda n, a: [[int(v) / Fraction(2) ** (t.fraction_bits - steps[n])
                                                             for v in row] for row in a])
            ideal = [min(max(math.floor(v * Fraction(2) ** (t.fraction_bits - sx - sw)), t.lowest), t.highest)
                     for row in exact for v in row]
            slack = 1 if t.bits == 32 else 0  # (Q31: each product's lowest 14 bits dropped first)
            assert all(abs(g - i) <= slack for g, i in zip(values.tolist(), ideal)), (name, values, ideal)
            if not bias.any() and t.bits < 32:
                _, theirs = getattr(dsp, f"arm_mat_mult_{t.name}")(x, w, np.zeros(x.size + w.size, t.storage))
                assert values.tolist() == np.asarray(theirs, dtype=np.int64).reshape(-1).tolist(), name
            reference = R.numpy_dense_lines(derived)
            # (the bias moves to the sum's fraction bits: N less the operands' shifts, Q31's less 14)
            scope = {"np": np, "_k": routines.numpy_kernels(), "x": x, "weights": w, "bias": bias,
                     "bias_k": t.fraction_bits - (14 if t.bits == 32 else 0) - sx - sw + sb}
        else:
            (sx, ox), (sw, ow), (sb, ob), (so, oo) = given  # type: ignore[misc]
            reals = {"x": (sx, ox), "w": (sw, ow), "b": (sb, ob)}
            exact = _exact_dense(x, w, bias, lambda n, a: [[(int(v) - reals[n][1]) * Fraction(reals[n][0])
                                                             for v in row] for row in a])
            ideal = [min(max(float(v / Fraction(so)) + oo, t.lowest), t.highest) for row in exact for v in row]
            assert all(abs(g - i) <= 1 for g, i in zip(values.tolist(), ideal)), (name, values, ideal)
            reference = R.numpy_dense_lines(derived)
            scope = {"np": np, "_k": routines.numpy_kernels(), "x": x, "weights": w, "bias": bias,
                     "quantize_multiplier": F.quantize_multiplier,
                     **{f"{n}_{a}": v for n, pair in zip(("x", "weights", "bias", "output"), given)
                        for a, v in zip(("scale", "offset"), pair)}}
        exec("\n".join(reference), scope)  # (the package's own rendering of the rule)
        assert np.asarray(scope["result"]).reshape(-1).tolist() == values.tolist(), name
