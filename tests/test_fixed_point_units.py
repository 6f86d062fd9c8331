"""Units of the fixed-point types (ADR 0038): every op whose tree derives a Q or D kernel has a
unit that takes System.Q7/Q15/Q31 (or D8/D16) sockets, declares its output's shift (or scale
and offset) as the form derives it (or as the unit's options choose), and computes in C
(compiled strictly, as Imaginet assembles the fragments) what its Python implementation
computes, bit for bit, in every geometry the unit chooses; Q at equal shifts what CMSIS-DSP's
function of the same job computes, D within one step of exact. Ops that move stored values take
the types through their integer kernels."""

from __future__ import annotations

import math
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import cmsisdsp as dsp  # (the owner of the Q rules: a test dependency, never skipped)
import attrs
import numpy as np
import pytest

from conftest import ROOT, GeneratedProjects
from test_fixed_point import LOG_BASES, LOG_SHIFTS, clamped_exactly, reference_log, stored_values
from test_fixed_point_c_api import D_LOG_ATTRIBUTES, exact_d_log
from dsl import fixed_point as F
from dsl import loader
from dsl import compute as C
from dsl.model import NO_DEFAULT
from dsl.types import DataType
from generators import abi
from generators.imunit import checker, comparison
from generators.imunit import fixed_point as fixed_point_units
from generators.imunit import units as units_module
from generators.imunit.expression import VALUE_TYPES, Shape, Tensor
from generators.kernels import examples, py_names
from generators.kernels import fixed_point as R
from generators.kernels.evaluate import reference_functions
from generators.kernels.scalar_c import C_TYPE, SUFFIX, c_array, c_value
from generators.kernels.selection import code_ops

STRICT = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O2"]
CATALOGUE = loader.load(ROOT / "ops").catalogue
Q_TYPES = [t for t in F.TYPES.values() if t.family == "Q"]
#: Every op with a Q kernel (its tree is one arithmetic function or comparison of its inputs).
OPS = [op for ns in CATALOGUE.namespaces for op in code_ops(ns)
       if all(isinstance(F.derive(op, t), F.QKernel) for t in Q_TYPES)]
#: Every op with a Q reduction.
REDUCTIONS = [op for ns in CATALOGUE.namespaces for op in code_ops(ns)
              if all(isinstance(F.derive(op, t), F.QReduction) for t in Q_TYPES)]
#: CMSIS-DSP's function of the same job, at equal shifts (same shapes).
CMSIS = {"math.add": "arm_add_{q}", "math.sub": "arm_sub_{q}", "math.mul": "arm_mult_{q}",
         "math.neg": "arm_negate_{q}", "math.abs": "arm_abs_{q}"}
#: Shapes of two operands: each a geometry the unit chooses a kernel for.
SHAPES = {"same": ((3, 5), (3, 5)), "second scalar": ((3, 5), ()), "first scalar": ((), (3, 5)),
          "stretched": ((2, 3, 4), (3, 1)), "vector": ((2, 3, 4), (4,)), "broadcast": ((2, 1, 4), (3, 1))}


def test_the_ops_with_q_kernels_are_the_arithmetic_and_comparisons() -> None:
    assert {op.qualified_name for op in OPS} >= {"math.add", "math.sub", "math.mul", "math.neg", "math.abs",
                                                 "math.minimum", "math.maximum", "base.lt", "base.eq"}


@pytest.fixture(scope="module")
def out(generated: GeneratedProjects) -> Path:
    return generated / "imunit"


@attrs.frozen
class _Call:
    """One case's call of the C implementation the unit chose."""

    impl: ET.Element
    args: tuple
    arrays: dict
    out_name: str
    out_dtype: str
    size: int


def _run_c(folder: Path, calls: list[_Call], tmp_path: Path) -> list[np.ndarray]:
    """The chosen C implementations, assembled as Imaginet assembles them (each fragment once),
    compiled strictly, called one after the other: each call's output."""
    chosen = [f for c in calls for f in checker.fragments_of(folder, c.impl.get("fragment", ""))]
    decls, runs = [], []
    for k, c in enumerate(calls):
        passed = []
        for source, value in c.args:
            if source in c.arrays:
                decls.append(c_array(f"in{k}_{source}", c.arrays[source], c.arrays[source].dtype.name))
                passed.append(f"in{k}_{source}")
            elif source == c.out_name:
                decls.append(f"static {C_TYPE[c.out_dtype]} got{k}[{c.size}];")
                passed.append(f"got{k}")
            else:  # (a shift, an offset: an int; a scale: a double)
                assert isinstance(value, (int, float)) and not isinstance(value, bool), (source, value)
                passed.append(str(value) if isinstance(value, int) else c_value(value, "float64"))
        runs.append(f"""if ({c.impl.get("call", "").split("(")[0]}({", ".join(passed)}) != 0) {{ return 1; }}
    for (int i = 0; i < {c.size}; i++) {{ printf("%lld\\n", (long long)got{k}[i]); }}""")
    program = tmp_path / "unit.c"
    program.write_text(f"""{checker.assemble_fragments(chosen)}
#include <stdio.h>
{chr(10).join(decls)}
int main(void)
{{
    {chr(10).join(runs)}
    return 0;
}}
""")
    exe = tmp_path / "unit"
    made = subprocess.run(["gcc", *STRICT, str(program), "-lm", "-o", str(exe)], capture_output=True, text=True)
    assert made.returncode == 0 and made.stderr == "", made.stderr[-3000:]
    printed = iter(int(w) for w in subprocess.run([str(exe)], capture_output=True, text=True,
                                                  check=True).stdout.split())
    return [np.array([next(printed) for _ in range(c.size)]).astype(c.out_dtype) for c in calls]


def _unit(folder: Path, name: str) -> ET.Element:
    return next(u for u in ET.parse(folder / f"{name}.imunit").getroot() if isinstance(u.tag, str))


def _run_python(folder: Path, op_name: str, impl: ET.Element, args: tuple, arrays: dict[str, np.ndarray],
                out_name: str, got: np.ndarray) -> np.ndarray:
    """The chosen Python implementation, the unit's .py file run as a module."""
    scope: dict = {"__name__": f"unit_{op_name}"}
    exec(compile((folder / f"{op_name}.py").read_text(encoding="utf-8"), f"{op_name}.py", "exec"), scope)
    passed = [arrays[s] if s in arrays else got if s == out_name else v for s, v in args]
    scope[impl.get("call", "").split("(")[0]](*passed)
    return got


def _cases(op: object) -> list[tuple[str, dict[str, tuple[int, ...]], dict[str, int]]]:
    """(geometry, shapes, shifts) per case: for two operands every geometry, at equal and at
    different shifts; for one, a few shifts."""
    names = [i.name for i in op.inputs]  # type: ignore[attr-defined]
    if len(names) == 1:
        return [("same", {names[0]: (4, 6)}, {names[0]: s}) for s in (0, 3, -2)]
    return [(geometry, dict(zip(names, shapes)), dict(zip(names, shifts)))
            for geometry, shapes in SHAPES.items() for shifts in ((0, 0), (3, 1), (-2, 5))]


@pytest.mark.parametrize("t", Q_TYPES, ids=lambda t: t.system)
@pytest.mark.parametrize("op", OPS, ids=lambda op: op.qualified_name)
def test_a_q_unit_computes_in_c_what_its_python_computes(op: object, t: F.FixedPointType, out: Path,
                                                         tmp_path: Path) -> None:
    qualified = op.qualified_name  # type: ignore[attr-defined]
    ns, name = qualified.split(".")
    folder = out / ns / name
    unit = next(u for u in ET.parse(folder / f"{name}.imunit").getroot() if isinstance(u.tag, str))
    kernel = F.derive(op, t)
    assert isinstance(kernel, F.QKernel)
    out_name = op.outputs[0].name  # type: ignore[attr-defined]
    refused: list[str] = []
    checked = []  # (what, its C call, the Python result, its arrays and shifts)
    for k, (geometry, shapes, shifts) in enumerate(_cases(op)):
        what = f"{qualified} {t.system} {geometry} {shifts}"
        arrays = {n: stored_values(t, shape, seed=k * 7 + j) for j, (n, shape) in enumerate(shapes.items())}
        inputs = {n: Tensor(VALUE_TYPES[t.system], Shape(a.shape), shift_=shifts[n]) for n, a in arrays.items()}
        # the output socket: the broadcast shape, the Q type (a comparison's: Bool), the derived shift
        try:
            declared = checker.outputs(folder / f"{name}.imunit", inputs)[out_name]
        except checker.Refused:  # (the op's own shape rule: comparisons take equal shapes or a scalar)
            refused.append(geometry)
            continue
        shape = np.broadcast_shapes(*(a.shape for a in arrays.values()))
        assert tuple(declared.shape_.dims) == shape, what
        if kernel.output_shift is None:
            assert declared.type_.name == "Bool", what
        else:
            assert declared.type_.name == t.system, what
            expected_shift = {"math.mul": sum(shifts.values()), "math.square": 2 * shifts.get("x", 0),
                              "math.neg": shifts.get("x"), "math.abs": shifts.get("x"),
                              "math.neg_bp": shifts.get("grad")}.get(qualified,
                                                                                             max(shifts.values()))
            assert declared.shift_ == expected_shift, what
        picked = checker.chosen_calls(unit, inputs, {})
        (c_impl, c_args), (py_impl, py_args) = picked["C"], picked["Python"]
        assert c_impl.get("fragment", "").endswith(f"_{t.name}"), (what, c_impl.get("fragment"))
        out_dtype = t.storage if kernel.output_shift is not None else "bool"
        size = int(np.prod(shape))
        from_py = _run_python(folder, name, py_impl, py_args, arrays, out_name, np.empty(shape, out_dtype))
        checked.append((what, _Call(c_impl, c_args, arrays, out_name, out_dtype, size), from_py, shifts,
                        geometry))
    for (what, call, from_py, shifts, geometry), from_c in zip(checked, _run_c(folder, [c[1] for c in checked],
                                                                                 tmp_path)):
        from_c, arrays = from_c.reshape(from_py.shape), call.arrays
        np.testing.assert_array_equal(from_c, from_py, err_msg=f"{what}: C and Python")
        if qualified in CMSIS and len(set(shifts.values())) == 1 and geometry == "same":
            theirs = getattr(dsp, CMSIS[qualified].format(q=t.name))(*(a.reshape(-1) for a in arrays.values()))
            np.testing.assert_array_equal(from_c.reshape(-1), np.asarray(theirs, t.storage), err_msg=what)
        _exact(qualified, t, arrays, shifts, from_c, what)
    # (every op takes some geometry: the same shapes, a scalar, bias_add's vector; add takes them all)
    assert checked and (qualified != "math.add" or not refused), refused


def _exact(qualified: str, t: F.FixedPointType, arrays: dict[str, np.ndarray], shifts: dict[str, int],
           result: np.ndarray, what: str) -> None:
    """Against exact integer arithmetic on the stored values (Python integers: no overflow)."""
    exact = {n: a.astype(object) for n, a in arrays.items()}
    top = max(shifts.values())
    moved = [exact[n] >> (top - shifts[n]) for n in exact]
    if qualified in ("math.add", "math.sub", "math.minimum", "math.maximum", "math.rsub"):
        expected = {"math.add": lambda a, b: a + b, "math.sub": lambda a, b: a - b, "math.rsub": lambda a, b: b - a,
                    "math.minimum": np.minimum, "math.maximum": np.maximum}[qualified](*moved)
    elif qualified in ("math.neg", "math.abs"):
        expected = -exact["x"] if qualified == "math.neg" else abs(exact["x"])
    elif qualified in ("base.lt", "base.lte", "base.gt", "base.gte", "base.eq", "base.neq"):
        # (the real values' order: each moved left to the smaller shift, exactly)
        low = min(shifts.values())
        a, b = (exact[n] << (shifts[n] - low) for n in exact)
        expected = {"base.lt": a < b, "base.lte": a <= b, "base.gt": a > b, "base.gte": a >= b, "base.eq": a == b,
                    "base.neq": a != b}[qualified]
        np.testing.assert_array_equal(result, np.asarray(expected, bool), err_msg=what)
        return
    else:
        return  # (products: held to arm_mult and to the rule's NumPy rendering above)
    np.testing.assert_array_equal(result, np.clip(expected, t.lowest, t.highest).astype(t.storage), err_msg=what)


def test_a_unit_takes_no_fixed_point_type_its_op_has_no_form_for(out: Path) -> None:
    """An op whose form derives nothing for any type (a binary op without integer arithmetic) has
    no fixed-point Implementation, and its unit says nothing of shifts, scales or offsets."""
    op = next(op for op in code_ops(CATALOGUE.namespace("math")) if op.name == "atan2")
    assert all(isinstance(F.derive(op, t), str) for t in F.TYPES.values())
    text = (out / "math" / "atan2" / "atan2.imunit").read_text(encoding="utf-8")
    assert "System.Q" not in text and "System.D" not in text
    assert not any(word in text for word in ("shift", "scale", "offset", "Handle", "<Init"))


def test_the_input_spec_of_unit_check_gives_fixed_point_attributes(out: Path) -> None:
    name, tensor = checker.parse_input("x=Q15[4,8] shift=2")
    assert (name, tensor.type_.name, tensor.shift_) == ("x", "Q15", 2)
    _, tensor = checker.parse_input("x=D8[4] scale=0.5 offset=-3")
    assert (tensor.scale_, tensor.offset_) == (0.5, -3)
    with pytest.raises(ValueError, match="shift must be int"):
        checker.parse_input("x=Q15[4] shift=a")
    with pytest.raises(ValueError, match="unknown attribute 'zero'"):
        checker.parse_input("x=Q15[4] zero=1")



#: Every op with a D kernel (TFLite's integer add, sub, mul and comparisons).
D_OPS = [op for ns in CATALOGUE.namespaces for op in code_ops(ns)
         if all(isinstance(F.derive(op, t), F.DKernel) for t in (F.D8, F.D16))]
#: (the inputs' scales and offsets, the unit's out_scale and out_offset options)
D_ATTRIBUTES = [((0.05, 3), (0.03, -7), (0.0, 0)), ((0.0125, -20), (0.02, 11), (0.04, 5)),
                ((0.5, 0), (0.5, 0), (0.25, -2))]


def test_the_ops_with_d_kernels_are_tflite_s_arithmetic_and_comparisons() -> None:
    """(TFLite's 8- and 16-bit arithmetic; D32 has none: its rescaling would overflow 64 bits)"""
    assert {op.qualified_name for op in D_OPS} >= {"math.add", "math.sub", "math.mul", "base.lt", "base.eq"}
    assert all(isinstance(F.derive(op, F.D32), str) for op in D_OPS)


@pytest.mark.parametrize("t", [F.D8, F.D16], ids=lambda t: t.system)
@pytest.mark.parametrize("op", D_OPS, ids=lambda op: op.qualified_name)
def test_a_d_unit_computes_in_c_what_its_python_computes(op: object, t: F.FixedPointType, out: Path,
                                                         tmp_path: Path) -> None:
    """D inputs of their own scales and offsets, the output's chosen by the unit's out_scale and
    out_offset (0: the first input's): the output socket carries them, C and Python agree bit for
    bit in every geometry, and the values are within one step of exact (comparisons: exact
    wherever the real values differ by more than 2^-8 of the larger scale)."""
    qualified = op.qualified_name  # type: ignore[attr-defined]
    ns, name = qualified.split(".")
    folder, out_name = out / ns / name, op.outputs[0].name  # type: ignore[attr-defined]
    unit = _unit(folder, name)
    kernel = F.derive(op, t)
    assert isinstance(kernel, F.DKernel)
    comparison_ = kernel.kind in F.COMPARISONS
    names = [i.name for i in op.inputs]  # type: ignore[attr-defined]
    geometries = SHAPES.items() if len(names) == 2 else [("same", ((4, 6),))]
    checked, refused = [], []
    for k, (geometry, shapes) in enumerate(geometries):
        (xs, xo), (ys, yo), (os_, oo) = D_ATTRIBUTES[k % len(D_ATTRIBUTES)]
        given = dict(zip(names, ((xs, xo), (ys, yo))))
        arrays = {n: stored_values(t, shape, seed=k * 3 + j) for j, (n, shape) in enumerate(zip(names, shapes))}
        inputs = {n: Tensor(VALUE_TYPES[t.system], Shape(a.shape), scale_=given[n][0], offset_=given[n][1])
                  for n, a in arrays.items()}
        options = {"out_scale": os_, "out_offset": oo}
        what = f"{qualified} {t.system} {geometry} {given} out {options}"
        try:
            declared = checker.outputs(folder / f"{name}.imunit", inputs, options)[out_name]
        except checker.Refused:
            refused.append(geometry)
            continue
        out_scale, out_offset = (os_, oo) if os_ else given[names[0]]
        if comparison_:
            assert declared.type_.name == "Bool", what
        else:
            assert (declared.type_.name, declared.scale_, declared.offset_) == (t.system, out_scale, out_offset), what
        picked = checker.chosen_calls(unit, inputs, options)
        (c_impl, c_args), (py_impl, py_args) = picked["C"], picked["Python"]
        assert c_impl.get("fragment", "").endswith(f"_{t.name}"), (what, c_impl.get("fragment"))
        assert py_impl.get("fragment", "").endswith("_unit_d"), (what, py_impl.get("fragment"))
        shape = np.broadcast_shapes(*(a.shape for a in arrays.values()))
        out_dtype = "bool" if comparison_ else t.storage
        from_py = _run_python(folder, name, py_impl, py_args, arrays, out_name, np.empty(shape, out_dtype))
        checked.append((what, _Call(c_impl, c_args, arrays, out_name, out_dtype, int(np.prod(shape))), from_py,
                        given, (out_scale, out_offset)))
    # (every op takes some geometry: the same shapes, a scalar, bias_add's vector; add takes them all)
    assert checked and (qualified != "math.add" or not refused), refused
    for (what, call, from_py, given, (out_scale, out_offset)), from_c in zip(
            checked, _run_c(folder, [c[1] for c in checked], tmp_path)):
        from_c = from_c.reshape(from_py.shape)
        np.testing.assert_array_equal(from_c, from_py, err_msg=f"{what}: C and Python")
        real = {n: (a.astype(np.float64) - given[n][1]) * given[n][0] for n, a in call.arrays.items()}
        a, b = (real[n] for n in kernel.inputs)  # (the tree's order: rsub's is y - x)
        if comparison_:
            exact = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
                     "ge": np.greater_equal}[kernel.kind](a, b)
            decided = np.abs(a - b) > 2.0 ** -8 * max(s for s, _ in given.values())
            np.testing.assert_array_equal(from_c[decided], np.broadcast_to(exact, from_c.shape)[decided],
                                          err_msg=what)
            continue
        value = {"add": a + b, "sub": a - b, "mul": a * b}[kernel.kind]
        ideal = np.clip(np.round(value / out_scale) + out_offset, t.lowest, t.highest)
        worst = np.max(np.abs(from_c.astype(np.float64) - ideal))
        assert worst <= 1, f"{what}: {worst} steps from exact"


def test_the_ops_with_q_reductions_are_sum_mean_max_min_dot_and_norm2() -> None:
    assert {op.qualified_name for op in REDUCTIONS} == {"math.sum", "math.mean", "math.max", "math.min", "base.dot",
                                                        "math.norm2"}


@pytest.mark.parametrize("t", Q_TYPES, ids=lambda t: t.system)
@pytest.mark.parametrize("op", REDUCTIONS, ids=lambda op: op.qualified_name)
def test_a_q_reduction_unit_computes_in_c_what_its_python_computes(op: object, t: F.FixedPointType, out: Path,
                                                                   tmp_path: Path) -> None:
    """Along the innermost axis (rows) and an outer one (axis): C and Python bit for bit, the
    output's shift the form's (a sum's and a dot product's grow by the headroom of the axis, a
    norm's by half of it, rounded up), and the values those of exact integer arithmetic (a Q7 or
    Q15 norm the floor of the exact one in output steps)."""
    qualified = op.qualified_name  # type: ignore[attr-defined]
    ns, name = qualified.split(".")
    folder, out_name = out / ns / name, op.outputs[0].name  # type: ignore[attr-defined]
    unit = _unit(folder, name)
    names = [i.name for i in op.inputs]  # type: ignore[attr-defined]
    checked = []
    for k, (shape, axis, shifts) in enumerate([((3, 37), 0, (0, 0)), ((3, 37), 1, (2, -1)), ((5, 4, 6), 1, (1, 3)),
                                               ((2, 200), 0, (-3, 0))]):
        arrays = {n: stored_values(t, shape, seed=k * 5 + j) for j, n in enumerate(names)}
        given = dict(zip(names, shifts))
        inputs = {n: Tensor(VALUE_TYPES[t.system], Shape(shape), shift_=given[n]) for n in names}
        what = f"{qualified} {t.system} {shape} axis {axis} {given}"
        declared = checker.outputs(folder / f"{name}.imunit", inputs, {"axis": axis})[out_name]
        numpy_axis = len(shape) - 1 - axis
        size = shape[numpy_axis]
        h = F.headroom(size)
        expected_shift = {"math.sum": given["x"] + h, "base.dot": sum(given.values()) + h,
                          "math.norm2": given["x"] + (h + 1) // 2}.get(qualified, given["x"])
        assert (declared.type_.name, declared.shift_) == (t.system, expected_shift), what
        picked = checker.chosen_calls(unit, inputs, {"axis": axis})
        (c_impl, c_args), (py_impl, py_args) = picked["C"], picked["Python"]
        assert c_impl.get("fragment", "").endswith(f"_{t.name}"), (what, c_impl.get("fragment"))
        result_shape = tuple(d for j, d in enumerate(shape) if j != numpy_axis)
        from_py = _run_python(folder, name, py_impl, py_args, arrays, out_name, np.empty(result_shape, t.storage))
        checked.append((what, _Call(c_impl, c_args, arrays, out_name, t.storage, int(np.prod(result_shape))),
                        from_py, numpy_axis, h))
    for (what, call, from_py, numpy_axis, h), from_c in zip(checked, _run_c(folder, [c[1] for c in checked],
                                                                            tmp_path)):
        from_c = from_c.reshape(from_py.shape)
        np.testing.assert_array_equal(from_c, from_py, err_msg=f"{what}: C and Python")
        x = call.arrays["x"].astype(object)
        size = x.shape[numpy_axis]
        if qualified == "base.dot":
            products = x * call.arrays["y"].astype(object)
            if t.bits == 32:  # (arm_dot_prod_q31: each product's lowest 14 bits dropped)
                products = products >> 14
            moved = (2 * t.fraction_bits - (14 if t.bits == 32 else 0) - t.fraction_bits) + h
            expected = products.sum(axis=numpy_axis) >> moved
        elif qualified == "math.norm2":  # (Q31: each square's lowest 14 bits dropped, as arm_dot_prod_q31)
            squares = (x * x) >> 14 if t.bits == 32 else x * x
            k = 2 * ((h + 1) // 2) - (14 if t.bits == 32 else 0)
            sums = squares.sum(axis=numpy_axis)
            expected = np.vectorize(lambda v: math.isqrt(v >> k if k >= 0 else v << -k), otypes=[object])(sums)
        else:
            total = x.sum(axis=numpy_axis)
            expected = {"math.sum": total >> h,
                        "math.mean": np.sign(total) * (abs(total) // size),  # (arm_mean: C's division)
                        "math.max": x.max(axis=numpy_axis), "math.min": x.min(axis=numpy_axis)}[qualified]
        np.testing.assert_array_equal(from_c, np.clip(expected, t.lowest, t.highest).astype(t.storage), err_msg=what)


#: Every op whose stored values move unchanged (ADR 0036's moves and arg reductions).
MOVES = [(ns, op) for ns in CATALOGUE.namespaces for op in code_ops(ns) if fixed_point_units.moved_types(op)
         and not abi.is_stream(op)]


def test_the_moves_are_the_layouts_joins_parts_and_arg_reductions() -> None:
    names = {op.qualified_name for _, op in MOVES}
    assert {"base.transpose", "base.concat", "base.gather", "base.split", "math.argmax"} <= names
    assert "nn.pad" not in names  # (its constant is a real value: its integer kernel would write it as a stored one)
    assert not names & {"math.first_index", "math.meshgrid", "math.exp"}


@pytest.mark.parametrize("ns, op", MOVES, ids=lambda v: getattr(v, "qualified_name", ""))
def test_a_move_unit_takes_fixed_point_tensors_through_its_integer_kernels(ns: object, op: object, out: Path) -> None:
    """On its example, with its data inputs Q15 (shift 3) and then D8 (scale 0.25, offset -2),
    the unit chooses the integer kernel of the type's storage, and its output keeps the first
    input's type and attributes (an index output: Int16, none); inputs of other attributes
    than the first's are refused."""
    example = examples.example(op, reference_functions(ns))  # type: ignore[arg-type]
    if example is None or example.result is None:
        pytest.skip("no example to run (the op's unit is checked by test_imunit)")
    env = comparison.unit_env(op, dict(example.inputs) | dict(example.args))  # type: ignore[arg-type]
    if env is None:
        pytest.skip("the unit cannot take the example")
    qualified, name = op.qualified_name, op.name  # type: ignore[attr-defined]
    folder = out / qualified.split(".")[0] / name
    unit = _unit(folder, name)
    data = {s for i in op.inputs if i.name not in C.own_dtype_inputs(op)  # type: ignore[attr-defined]
            for s in units_module.sockets(i)}
    for t, attributes in ((F.Q15, {"shift_": 3}), (F.D8, {"scale_": 0.25, "offset_": -2})):
        if t not in fixed_point_units.moved_types(op):  # type: ignore[arg-type]
            assert F.derive(op, t) == f"it orders |x|, which a {t.system} offset breaks: no {t.system} form yet"
            continue
        given = {k: attrs.evolve(v, type_=VALUE_TYPES[t.system], **attributes) if k in data and v is not None else v
                 for k, v in env.items()}
        c_impl = checker.chosen_calls(unit, given, given)["C"][0]
        assert c_impl.get("fragment", "").endswith(f"_{SUFFIX[t.storage]}"), (t.system, c_impl.get("fragment"))
        output = checker.outputs(folder / f"{name}.imunit", given, given)[op.outputs[0].name  # type: ignore[attr-defined]
                                                                          if op.outputs[0].count.is_single  # type: ignore[attr-defined]
                                                                          else f"{op.outputs[0].name}0"]  # type: ignore[attr-defined]
        if units_module.index_output(op):  # type: ignore[arg-type]
            assert output.type_.name == "Int16"
            continue
        assert output.type_.name == t.system
        assert (output.shift_, output.scale_, output.offset_) == (attributes.get("shift_", 0),
                                                                  attributes.get("scale_", 1.0),
                                                                  attributes.get("offset_", 0)), t.system
        others = sorted(data - {units_module.first_tensor(op)})  # type: ignore[arg-type]
        if others and given.get(others[0]) is not None:
            mixed = given | {others[0]: attrs.evolve(given[others[0]], shift_=5, scale_=0.5)}
            with pytest.raises(checker.Refused, match="same fixed-point attributes"):
                checker.outputs(folder / f"{name}.imunit", mixed, mixed)


#: Every op with a D reduction (TFLite's integer sum, mean, max and min).
D_REDUCTIONS = [op for ns in CATALOGUE.namespaces for op in code_ops(ns)
                if all(isinstance(F.derive(op, t), F.DReduction) for t in (F.D8, F.D16))]


@pytest.mark.parametrize("t", [F.D8, F.D16], ids=lambda t: t.system)
@pytest.mark.parametrize("op", D_REDUCTIONS, ids=lambda op: op.qualified_name)
def test_a_d_reduction_unit_computes_in_c_what_its_python_computes(op: object, t: F.FixedPointType, out: Path,
                                                                   tmp_path: Path) -> None:
    """Along the innermost axis and an outer one, the output's scale and offset the unit's options
    (0: the input's): C and Python bit for bit, within one step of exact (max and min exact)."""
    qualified = op.qualified_name  # type: ignore[attr-defined]
    ns, name = qualified.split(".")
    folder, out_name = out / ns / name, op.outputs[0].name  # type: ignore[attr-defined]
    unit = _unit(folder, name)
    checked = []
    for k, (shape, axis, (scale, offset), options) in enumerate([
            ((3, 37), 0, (0.05, 3), {"out_scale": 0.0, "out_offset": 0}),
            ((3, 37), 1, (0.02, -9), {"out_scale": 0.5, "out_offset": -4}),
            ((5, 4, 6), 1, (0.125, 0), {"out_scale": 0.03, "out_offset": 7})]):
        x = stored_values(t, shape, seed=40 + k)
        inputs = {"x": Tensor(VALUE_TYPES[t.system], Shape(shape), scale_=scale, offset_=offset)}
        given = options | {"axis": axis}
        what = f"{qualified} {t.system} {shape} axis {axis} x {(scale, offset)} {options}"
        declared = checker.outputs(folder / f"{name}.imunit", inputs, given)[out_name]
        out_scale, out_offset = (options["out_scale"], options["out_offset"]) if options["out_scale"] else (scale,
                                                                                                            offset)
        assert (declared.type_.name, declared.scale_, declared.offset_) == (t.system, out_scale, out_offset), what
        picked = checker.chosen_calls(unit, inputs, given)
        (c_impl, c_args), (py_impl, py_args) = picked["C"], picked["Python"]
        assert c_impl.get("fragment", "").endswith(f"_{t.name}"), (what, c_impl.get("fragment"))
        numpy_axis = len(shape) - 1 - axis
        result_shape = tuple(d for j, d in enumerate(shape) if j != numpy_axis)
        from_py = _run_python(folder, name, py_impl, py_args, {"x": x}, out_name, np.empty(result_shape, t.storage))
        checked.append((what, _Call(c_impl, c_args, {"x": x}, out_name, t.storage, int(np.prod(result_shape))),
                        from_py, numpy_axis, (scale, offset), (out_scale, out_offset)))
    for (what, call, from_py, numpy_axis, (scale, offset), (out_scale, out_offset)), from_c in zip(
            checked, _run_c(folder, [c[1] for c in checked], tmp_path)):
        from_c = from_c.reshape(from_py.shape)
        np.testing.assert_array_equal(from_c, from_py, err_msg=f"{what}: C and Python")
        real = (call.arrays["x"].astype(np.float64) - offset) * scale
        value = {"math.sum": np.sum, "math.mean": np.mean, "math.max": np.max,
                 "math.min": np.min}[qualified](real, axis=numpy_axis)
        ideal = np.clip(np.round(value / out_scale) + out_offset, t.lowest, t.highest)
        worst = np.max(np.abs(from_c.astype(np.float64) - ideal))
        assert worst <= (0 if qualified in ("math.max", "math.min") and out_scale == scale else 1), \
            f"{what}: {worst} steps from exact"


@pytest.mark.parametrize("t", [*Q_TYPES, F.D8, F.D16], ids=lambda t: t.system)
def test_a_matmul_unit_computes_in_c_what_its_python_computes(t: F.FixedPointType, out: Path,
                                                              tmp_path: Path) -> None:
    """math.matmul's unit on batches of matrices: C and Python bit for bit; Q exact integer
    arithmetic, arm_mat_mult's (tests/test_fixed_point.py holds the rule to it; Q31 drops each
    product's lowest 14 bits, as arm_dot_prod_q31 does), its output's shift the operands' summed;
    D within one step of exact, its output's scale and offset the unit's options."""
    folder = out / "math" / "matmul"
    unit = _unit(folder, "matmul")
    cases = [((3, 4), (4, 2), (0, 0), (0.05, 3), (0.04, -2), 0.0), ((2, 3, 5), (2, 5, 4), (1, 2), (0.02, -5),
                                                                      (0.03, 7), 0.5)]
    checked = []
    for k, (sa, sb, shifts, (as_, ao), (bs, bo), out_scale) in enumerate(cases):
        arrays = {"a": stored_values(t, sa, seed=60 + k), "b": stored_values(t, sb, seed=70 + k)}
        if t.family == "Q":
            inputs = {n: Tensor(VALUE_TYPES[t.system], Shape(a.shape), shift_=s) for (n, a), s in
                      zip(arrays.items(), shifts)}
            options: dict = {}
        else:
            inputs = {"a": Tensor(VALUE_TYPES[t.system], Shape(sa), scale_=as_, offset_=ao),
                      "b": Tensor(VALUE_TYPES[t.system], Shape(sb), scale_=bs, offset_=bo)}
            options = {"out_scale": out_scale, "out_offset": 1}
        what = f"math.matmul {t.system} {sa}x{sb}"
        declared = checker.outputs(folder / "matmul.imunit", inputs, options)["output"]
        shape = np.matmul(np.zeros(sa), np.zeros(sb)).shape
        assert tuple(declared.shape_.dims) == shape, what
        if t.family == "Q":
            assert declared.shift_ == sum(shifts), what
        else:
            chosen = (out_scale, 1) if out_scale else (as_, ao)
            assert (declared.scale_, declared.offset_) == chosen, what
        picked = checker.chosen_calls(unit, inputs, options)
        (c_impl, c_args), (py_impl, py_args) = picked["C"], picked["Python"]
        assert c_impl.get("fragment", "").endswith(f"_{t.name}"), (what, c_impl.get("fragment"))
        from_py = _run_python(folder, "matmul", py_impl, py_args, arrays, "output", np.empty(shape, t.storage))
        checked.append((what, _Call(c_impl, c_args, arrays, "output", t.storage, int(np.prod(shape))), from_py,
                        (as_, ao), (bs, bo), (chosen if t.family == "D" else None)))
    for (what, call, from_py, (as_, ao), (bs, bo), chosen), from_c in zip(
            checked, _run_c(folder, [c[1] for c in checked], tmp_path)):
        from_c = from_c.reshape(from_py.shape)
        np.testing.assert_array_equal(from_c, from_py, err_msg=f"{what}: C and Python")
        a, b = call.arrays["a"], call.arrays["b"]
        if t.family == "D":
            real = np.matmul((a.astype(np.float64) - ao) * as_, (b.astype(np.float64) - bo) * bs)
            ideal = np.clip(np.round(real / chosen[0]) + chosen[1], t.lowest, t.highest)
            assert np.max(np.abs(from_c - ideal)) <= 1, what
            continue
        exact = np.zeros(from_c.shape, dtype=object)
        ao_, bo_ = a.astype(object), b.astype(object)
        for index in np.ndindex(*from_c.shape):
            *batch, i, j = index
            terms = [ao_[(*batch, i, k)] * bo_[(*batch, k, j)] for k in range(a.shape[-1])]
            if t.bits == 32:
                terms = [v >> 14 for v in terms]
            exact[index] = sum(terms) >> (t.fraction_bits - (14 if t.bits == 32 else 0))
        np.testing.assert_array_equal(from_c, np.clip(exact, t.lowest, t.highest).astype(t.storage), err_msg=what)


#: Unary ops whose fixed-point form is a table (ADR 0036): every one's unit fills it in Init.
TABLES = [op for ns in CATALOGUE.namespaces for op in code_ops(ns)
          if len(op.inputs) == 1 and op.compute.kind == "elementwise"
          and all(a.type in (DataType.FLOATING_POINT, DataType.NUMERIC, DataType.ENUM) for a in op.args)
          and all(isinstance(F.derive(op, t), (F.Conversion, F.InterpolatedTable)) for t in (F.Q7, F.D8))
          and all(isinstance(F.derive(op, t), (F.Conversion, F.InterpolatedTable, F.Log, F.DLog))  # (log: arm_vlog's)
                  for t in (F.Q15, F.D16))]
#: The issue's activations, compiled and run; the others are resolved (Init and body) only.
TABLES_RUN = ["math.exp", "math.sqrt", "math.tanh", "math.sigmoid", "nn.softsign", "math.log", "nn.gelu", "math.round"]
#: Each table unit with its args at their defaults, and an op of several cases with the other case
#: chosen too (log with a base: its Init fills the table of ln(x) / ln(base)); an enum arg's other
#: value (its index is what the fill reads).
OTHER_CASES = {"math.log": {"use_base": True, "base": 2.0}, "nn.gelu": {"approximate": "tanh"},
               "math.round": {"mode": "half_away_from_zero"}}
TABLE_CALLS = [(op, {}) for op in TABLES] + [(op, OTHER_CASES[op.qualified_name]) for op in TABLES
                                             if op.qualified_name in OTHER_CASES]
TABLE_TYPES = [(F.Q7, {"shift_": 1}, {"out_shift": 0}), (F.Q15, {"shift_": 2}, {"out_shift": 3}),
               (F.D8, {"scale_": 0.05, "offset_": -3}, {"out_scale": 0.02, "out_offset": 7}),
               (F.D16, {"scale_": 0.001, "offset_": 0}, {"out_scale": 0.0, "out_offset": 0})]


def test_the_table_units_include_the_activations() -> None:
    assert set(TABLES_RUN) | set(OTHER_CASES) <= {op.qualified_name for op in TABLES}


@pytest.mark.parametrize("op, case", TABLE_CALLS,
                         ids=lambda v: getattr(v, "qualified_name", None) or "+".join(f"{k}={w}" for k, w in v.items()))
def test_a_table_unit_fills_its_handle_in_init_and_reads_it(op: object, case: dict, out: Path, tmp_path: Path) -> None:
    """For Q7, Q15, D8 and D16 inputs: Init fills the Handle (of the type's bytes) from the float
    reference, the body reads it; the output's attributes are the unit's options. The issue's
    activations run: C (Init, then the body) and Python bit for bit, every 8-bit entry within one
    step of the exact result, every 16-bit knot too (between knots the interpolation's own error)."""
    qualified = op.qualified_name  # type: ignore[attr-defined]
    ns, name = qualified.split(".")
    folder = out / ns / name
    path = folder / f"{name}.imunit"
    unit = _unit(folder, name)
    reference = reference_functions(next(n for n in CATALOGUE.namespaces if n.key == ns))[py_names.ref_name(name)]
    # (the args at their defaults; one without, as clip's bounds, given: -0.5, then 0.75)
    given = {a.name: case.get(a.name, a.default if a.default is not NO_DEFAULT else (-0.5, 0.75)[j % 2])
             for j, a in enumerate(op.args)}  # type: ignore[attr-defined]
    programs, checks = [], []
    for k, (t, attributes, options) in enumerate(TABLE_TYPES):
        if isinstance(F.derive(op, t), (F.Log, F.DLog)):  # (log's Q15 and D16: arm_vlog's, tested below)
            continue
        options = options | {a: v for a, v in given.items() if v is not None} | case  # (None: the option unset)
        x = (np.arange(t.lowest, t.highest + 1) if t.bits == 8 else
             np.concatenate([np.arange(t.lowest, t.highest + 1, F.KNOT_STEP), stored_values(t, (600,), seed=k)]))
        x = x.astype(t.storage)
        inputs = {"x": Tensor(VALUE_TYPES[t.system], Shape(x.shape), **attributes)}
        chosen = checker.implementations(path, inputs, options)
        init = next(c for c in chosen if c.section == "Init" and c.language == "C")
        body = next(c for c in chosen if c.section == "Implementations" and c.language == "C")
        assert re.search(rf"_{t.name}_table(_c\d+)?$", init.function) and body.function.endswith(f"_{t.name}"), \
            (t.system, init.function, body.function)
        handle = init.arguments[0]
        assert handle.shape_.dims == ((513 * 4,) if t.bits == 16 else (256,)), (t.system, handle)  # (int32 knots)
        declared = checker.outputs(path, inputs, options)["output"]
        wanted = ({"shift_": options["out_shift"]} if t.family == "Q" else
                  {"scale_": options["out_scale"] or attributes["scale_"],
                   "offset_": options["out_offset"] if options["out_scale"] else attributes["offset_"]})
        assert {a: getattr(declared, a) for a in wanted} == wanted, t.system
        if t.family == "Q":  # (a shift the type does not allow: refused, not a table of nonsense)
            with pytest.raises(checker.Refused, match=f"out_shift: a {t.system} shift must be in"):
                checker.outputs(path, inputs, options | {"out_shift": 200})
        if qualified not in TABLES_RUN:
            continue
        init_args = ", ".join(c_value(v, "float64") if isinstance(v, float) else str(v) for v in init.arguments[1:])
        programs.append((init, body, f"""{{
    static int32_t handle{k}[{(handle.shape_.dims[0] + 3) // 4}];
    {c_array(f"in{k}", x, t.storage)}
    static {C_TYPE[t.storage]} got{k}[{x.size}];
    const int status{k} = {init.function}(handle{k}, {init_args});
    printf("%d\\n", status{k});
    if (status{k} == 0) {{
        if ({body.function}(in{k}, handle{k}, got{k}, {x.size}) != 0) {{
            return 1;
        }}
        for (int i = 0; i < {x.size}; i++) {{ printf("%d\\n", (int)got{k}[i]); }}
    }}
}}"""))
        py_impl, py_args = checker.chosen_calls(unit, inputs, options)["Python"]
        try:  # (a 16-bit fill refuses where its interpolation misses, as the C Init does: -2)
            from_py = _run_python(folder, name, py_impl, py_args, {"x": x}, "output", np.empty(x.shape, t.storage))
        except ValueError as refused:
            assert t.bits == 16 and str(refused) == R.table_miss("x", t), (t.system, refused)
            from_py = None
        checks.append((t, attributes, wanted, x, from_py))
    if not programs:
        return
    source = tmp_path / "tables.c"
    fragments = [f for init, body, _ in programs for c in (init, body) for f in c.fragments]
    source.write_text(f"{checker.assemble_fragments(fragments)}\n#include <stdio.h>\nint main(void)\n{{\n"
                      + "\n".join(p for _, _, p in programs) + "\nreturn 0;\n}\n")
    exe = tmp_path / "tables"
    made = subprocess.run(["gcc", *STRICT, str(source), "-lm", "-o", str(exe)], capture_output=True, text=True)
    assert made.returncode == 0 and made.stderr == "", made.stderr[-3000:]
    printed = iter(int(w) for w in subprocess.run([str(exe)], capture_output=True, text=True,
                                                  check=True).stdout.split())
    for t, attributes, wanted, x, from_py in checks:
        status = next(printed)
        assert status == (0 if from_py is not None else -2), f"{qualified} {t.system}: Init gave {status}"
        if from_py is None:
            continue
        from_c = np.array([next(printed) for _ in range(x.size)]).astype(t.storage)
        np.testing.assert_array_equal(from_c, from_py, err_msg=f"{qualified} {t.system}: C and Python")
        if t.family == "Q":
            real = x.astype(np.float64) / 2.0 ** (t.fraction_bits - attributes["shift_"])
        else:
            real = (x.astype(np.float64) - attributes["offset_"]) * attributes["scale_"]
        with np.errstate(all="ignore"):
            exact = np.empty(real.shape, np.float64)
            reference(real, *(op.enums[a].index(v) if a in op.enums else v  # type: ignore[attr-defined]
                              for a, v in given.items()), exact)  # (an enum as its index, as units pass it)
            ideal = (exact * 2.0 ** (t.fraction_bits - wanted["shift_"]) if t.family == "Q" else
                     exact / wanted["scale_"] + wanted["offset_"])
        ideal = np.clip(np.round(ideal), t.lowest, t.highest)
        at = np.isfinite(exact) & ((np.arange(x.size) < 256) if t.bits == 8 else
                                   (np.arange(x.size) < 512))  # (every 8-bit value; the 16-bit knots)
        worst = np.max(np.abs(from_c[at].astype(np.float64) - ideal[at]))
        assert worst <= 1, f"{qualified} {t.system}: {worst} steps from exact"


#: Every op whose tree is a clamp (minima and maxima of its input and real bounds), in every type.
CLAMP_OPS = [op for ns in CATALOGUE.namespaces for op in code_ops(ns)
             if all(isinstance(F.derive(op, t), F.Clamp) for t in F.TYPES.values())]
CLAMP_ATTRIBUTES = {"Q": ({"shift": 0}, {"shift": 3}),
                    "D": ({"scale": 0.05, "offset": -3}, {"scale": 0.004, "offset": 9})}


def test_the_clamps_are_clip_relu6_hard_tanh_relu_and_steps() -> None:
    assert {op.qualified_name for op in CLAMP_OPS} == {"math.clip_by_value", "nn.relu6", "nn.hard_tanh", "nn.relu",
                                                       "math.step", "nn.leaky_relu_derivative"}


@pytest.mark.parametrize("op", CLAMP_OPS, ids=lambda op: op.qualified_name)
def test_a_clamp_unit_converts_its_bounds_in_expressions_and_clips_the_stored_values(op: object, out: Path,
                                                                                     tmp_path: Path) -> None:
    """In every Q and D type the unit's Expressions convert each bound to a stored value (the type's
    from-real rule, as the reference library's Clip quantizes its min and max), its C kernel (CMSIS-DSP's
    arm_clip in Q) and its Python take them, and both give the op's tree on the exact real values; the
    output socket keeps the input's attributes, and a NaN bound is refused by an Assert."""
    qualified = op.qualified_name  # type: ignore[attr-defined]
    ns, name = qualified.split(".")
    folder = out / ns / name
    unit = _unit(folder, name)
    tree = op.compute.case(())  # type: ignore[attr-defined]
    given = {"clip_value_min": -0.3, "clip_value_max": 0.45, "cutoff": -0.05, "alpha": 0.3}
    calls, checks = [], []
    for k, t in enumerate(F.TYPES.values()):
        for attributes in CLAMP_ATTRIBUTES[t.family]:
            x = stored_values(t, (5, 8), seed=k)
            options = {a.name: given[a.name] for a in op.args}  # type: ignore[attr-defined]
            inputs = {"x": Tensor(VALUE_TYPES[t.system], Shape(x.shape), **{f"{a}_": v for a, v in attributes.items()})}
            declared = checker.outputs(folder / f"{name}.imunit", inputs, options)["output"]
            assert {a: getattr(declared, f"{a}_") for a in attributes} == attributes, (t.system, declared)
            picked = checker.chosen_calls(unit, inputs, options)
            (c_impl, c_args), (py_impl, py_args) = picked["C"], picked["Python"]
            assert c_impl.get("fragment", "").endswith(f"_{t.name}"), (t.system, c_impl.get("fragment"))
            from_py = _run_python(folder, name, py_impl, py_args, {"x": x}, "output", np.empty(x.shape, t.storage))
            calls.append(_Call(c_impl, c_args, {"x": x}, "output", t.storage, x.size))
            checks.append((f"{qualified} {t.system} {attributes}", from_py,
                           clamped_exactly(t, x, tree, options, attributes)))
            if op.args:  # type: ignore[attr-defined]
                nan = {a: float("nan") for a in options}
                with pytest.raises(checker.Refused, match="bound must be a number, not NaN|must not exceed"):
                    checker.chosen_calls(unit, inputs, nan)
    for (what, from_py, exact), from_c in zip(checks, _run_c(folder, calls, tmp_path)):
        np.testing.assert_array_equal(from_c.reshape(from_py.shape), from_py, err_msg=f"{what}: C and Python")
        np.testing.assert_array_equal(from_c.astype(np.int64).reshape(-1), exact.reshape(-1), err_msg=what)


def test_a_q_log_unit_is_the_reference_library_s_log(out: Path, tmp_path: Path) -> None:
    """log's unit on Q15 and Q31 declares the reference library's Log output shift and computes, in
    C and in Python, what that unit computes with CMSIS-DSP (arm_vlog, arm_scale, arm_offset; ADR
    0046), with its constants in Expressions, with and without a base."""
    folder = out / "math" / "log"
    unit = _unit(folder, "log")
    calls, checks = [], []
    for t in (F.Q15, F.Q31):
        for k, shift in enumerate(LOG_SHIFTS):
            base = LOG_BASES[k % len(LOG_BASES)]
            options = {} if base is None else {"use_base": True, "base": base}
            x = np.concatenate([stored_values(t, (40,), seed=k), [0, -1, 1, 2, t.highest, t.lowest]]).astype(t.storage)
            inputs = {"x": Tensor(VALUE_TYPES[t.system], Shape(x.shape), shift_=shift)}
            expected, out_shift = reference_log(t, x, shift, base)
            declared = checker.outputs(folder / "log.imunit", inputs, options)["output"]
            assert declared.shift_ == out_shift, (t.system, shift, declared)
            picked = checker.chosen_calls(unit, inputs, options)
            (c_impl, c_args), (py_impl, py_args) = picked["C"], picked["Python"]
            assert c_impl.get("fragment", "").endswith(f"_{t.name}"), (t.system, c_impl.get("fragment"))
            from_py = _run_python(folder, "log", py_impl, py_args, {"x": x}, "output", np.empty(x.shape, t.storage))
            calls.append(_Call(c_impl, c_args, {"x": x}, "output", t.storage, x.size))
            checks.append((f"{t.system} shift {shift} base {base}", from_py, expected))
    for (what, from_py, expected), from_c in zip(checks, _run_c(folder, calls, tmp_path)):
        np.testing.assert_array_equal(from_py.astype(np.int64), expected, err_msg=f"{what}: Python")
        np.testing.assert_array_equal(from_c.astype(np.int64).reshape(-1), expected, err_msg=f"{what}: C")


def test_a_d16_log_unit_is_within_a_step_of_the_exact_logarithm(out: Path, tmp_path: Path) -> None:
    """log's unit on D16 (ADR 0046) takes the output's scale and offset from its options, its factor
    from an Expression (use_base), and computes in C what its Python computes, within one step of
    the exact logarithm; real zero gives the lowest value, a negative real the output's offset."""
    folder = out / "math" / "log"
    unit = _unit(folder, "log")
    t = F.D16
    calls, checks = [], []
    for k, attributes in enumerate(D_LOG_ATTRIBUTES):
        base = LOG_BASES[k % len(LOG_BASES)]
        scale, offset, out_scale, out_offset = attributes
        options = {"out_scale": out_scale, "out_offset": out_offset} | ({} if base is None else
                                                                         {"use_base": True, "base": base})
        x = np.concatenate([stored_values(t, (50,), seed=k), [offset, offset - 1, offset + 1, t.highest]])
        x = x.astype(t.storage)
        inputs = {"x": Tensor(VALUE_TYPES[t.system], Shape(x.shape), scale_=scale, offset_=offset)}
        declared = checker.outputs(folder / "log.imunit", inputs, options)["output"]
        assert (declared.scale_, declared.offset_) == (out_scale, out_offset), declared
        picked = checker.chosen_calls(unit, inputs, options)
        (c_impl, c_args), (py_impl, py_args) = picked["C"], picked["Python"]
        assert c_impl.get("fragment", "").endswith("_d16"), c_impl.get("fragment")
        from_py = _run_python(folder, "log", py_impl, py_args, {"x": x}, "output", np.empty(x.shape, t.storage))
        calls.append(_Call(c_impl, c_args, {"x": x}, "output", t.storage, x.size))
        checks.append((f"D16 {attributes} base {base}", x, attributes, base, from_py))
    for (what, x, attributes, base, from_py), from_c in zip(checks, _run_c(folder, calls, tmp_path)):
        np.testing.assert_array_equal(from_c.reshape(from_py.shape), from_py, err_msg=f"{what}: C and Python")
        exact, elsewhere = exact_d_log(t, x, attributes, base)
        positive = (x.astype(np.int64) - attributes[1]) > 0
        assert np.max(np.abs(from_py[positive].astype(np.float64) - exact[positive])) <= 1, what
        assert from_py[~positive].tolist() == elsewhere[~positive].astype(np.int64).tolist(), what


@pytest.mark.parametrize("t", [F.Q7, F.Q15, F.Q31, F.D8, F.D16], ids=lambda t: t.system)
def test_a_dense_unit_computes_in_c_what_its_python_computes(t: F.FixedPointType, out: Path, tmp_path: Path) -> None:
    """nn.linear's unit on rows of x (x @ weights + bias): C and Python bit for bit, its bias_k (Q)
    an Expression of the shifts, its output's shift the rule's (x's plus the weights'), a D output's
    scale and offset the unit's options; within one step of the exact result, saturated."""
    folder = out / "nn" / "linear"
    unit = _unit(folder, "linear")
    arrays = {"x": stored_values(t, (2, 3, 5), seed=81), "weights": stored_values(t, (5, 4), seed=82),
              "bias": stored_values(t, (4,), seed=83)}
    if t.family == "Q":
        attributes = {"x": {"shift_": 1}, "weights": {"shift_": 2}, "bias": {"shift_": 4}}
        options: dict = {}
    else:
        zero = t.bits == 16  # (D16's offsets 0, as TFLite's int16 kernels take them)
        attributes = {"x": {"scale_": 0.05, "offset_": 0 if zero else 3},
                      "weights": {"scale_": 0.02, "offset_": 0 if zero else -4},
                      "bias": {"scale_": 0.01, "offset_": 0 if zero else 2}}
        options = {"out_scale": 0.04, "out_offset": 0 if zero else -1}
    inputs = {n: Tensor(VALUE_TYPES[t.system], Shape(a.shape), **attributes[n]) for n, a in arrays.items()}
    declared = checker.outputs(folder / "linear.imunit", inputs, options)["output"]
    assert tuple(declared.shape_.dims) == (2, 3, 4)
    if t.family == "Q":
        assert declared.shift_ == 3, declared
    else:
        assert (declared.scale_, declared.offset_) == (0.04, options["out_offset"]), declared
    picked = checker.chosen_calls(unit, inputs, options)
    (c_impl, c_args), (py_impl, py_args) = picked["C"], picked["Python"]
    assert c_impl.get("fragment", "").endswith(f"_{t.name}"), c_impl.get("fragment")
    from_py = _run_python(folder, "linear", py_impl, py_args, arrays, "output", np.empty((2, 3, 4), t.storage))
    (from_c,) = _run_c(folder, [_Call(c_impl, c_args, arrays, "output", t.storage, 24)], tmp_path)
    np.testing.assert_array_equal(from_c.reshape(from_py.shape), from_py, err_msg=f"{t.system}: C and Python")
    if t.family == "Q":
        real = {n: a.astype(np.float64) / 2.0 ** (t.fraction_bits - attributes[n]["shift_"]) for n, a in arrays.items()}
        ideal = (real["x"] @ real["weights"] + real["bias"]) * 2.0 ** (t.fraction_bits - 3)
    else:
        real = {n: (a.astype(np.float64) - attributes[n]["offset_"]) * attributes[n]["scale_"]
                for n, a in arrays.items()}
        ideal = (real["x"] @ real["weights"] + real["bias"]) / 0.04 + options["out_offset"]
    ideal = np.clip(ideal, t.lowest, t.highest)
    assert np.max(np.abs(from_py.astype(np.float64) - ideal)) <= 1, t.system
