"""The .imunit target: well-formed units whose fragments exist, whose
expressions parse, whose calls match their fragments, whose output shapes and
contracts agree with the reference, and whose Python and C implementations
compute what the reference computes."""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import sys
import types
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT, GeneratedProjects
from dsl import compute as C
from dsl import fixed_point as F
from dsl import fragments, loader
from dsl.dtypes import SYSTEM_TYPE, in_units
from generators.imunit import checker, comparison, testing, units
from generators.imunit.expression import VALUE_TYPES, Shape, Tensor, evaluate, parse
from generators.kernels import evaluate as reference_args
from generators.kernels import py_names, py_shapes
from generators.kernels.selection import code_ops
from generators.tests import cases, golden
from generators.tests.inputs import stream_events

DTYPE_TYPES = {"float32": "Float32", "float64": "Float64", "int8": "Int8", "int16": "Int16", "int32": "Int32",
               "int64": "Int64", "uint8": "UInt8", "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64",
               "bool": "Bool"}
EXPRESSION_ATTRIBUTES = ("value", "test", "shape", "type", "conditional")


def _generate(target: Path, *extra: str) -> Path:
    subprocess.run([sys.executable, "-m", "generators.cli", "all", "-projects", "imunit", "-outdir", str(target),
                    *extra], cwd=ROOT, check=True, capture_output=True)
    return target / "imunit"


@pytest.fixture(scope="module")
def out(generated: GeneratedProjects) -> Path:
    return generated / "imunit"


@pytest.fixture(scope="module")
def legacy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _generate(tmp_path_factory.mktemp("legacy"), "-imunit-style", "legacy")


CATALOGUE = loader.load(ROOT / "ops").catalogue
ALL_OPS = [(ns, op) for ns in CATALOGUE.namespaces for op in code_ops(ns)]
#: Every op has a unit.
OPS = ALL_OPS
#: The conversion ops, which have no unit in the seed (legacy) format; their units take and give
#: fixed-point tensors, which tests/test_conversion_units.py holds to CMSIS-DSP, onnxruntime and the
#: reference library's FixedPoint units (the NumPy reference here takes plain arrays).
CONVERSION_OPS = [(ns, op) for ns, op in OPS if isinstance(op.compute, C.FixedPointConversion)]
#: The ops whose units the NumPy reference computes.
REFERENCE_OPS = [(ns, op) for ns, op in OPS if (ns, op) not in CONVERSION_OPS]


def _unit_files(root: Path) -> list[Path]:
    return sorted(root.glob("*/*/*.imunit"))


def test_one_folder_per_op(out: Path, legacy: Path) -> None:
    """A unit per op; the seed (legacy) format, which has no fixed-point types, none of the
    conversion ops, which its README lists (ADR 0048, 0068)."""
    assert len(_unit_files(out)) == len(OPS)
    assert len(_unit_files(legacy)) == len(OPS) - len(CONVERSION_OPS) and CONVERSION_OPS
    assert not (out / "README.md").exists()  # no op is left without a unit
    readme = (legacy / "README.md").read_text(encoding="utf-8")
    assert all(f"`{op.qualified_name}`" in readme for _, op in CONVERSION_OPS), readme
    for ns, op in OPS:
        folder = out / ns.key / op.name
        wanted = {f"{op.name}.imunit"} if op.composition else {f"{op.name}.imunit", f"{op.name}.h", f"{op.name}.py"}
        if op.composition is None and not isinstance(op.compute, C.SlidingWindow):  # and its comparison tests
            wanted |= {f"{op.name}_tests.c", f"{op.name}_tests.py"}
        assert {p.name for p in folder.iterdir()} == wanted


@pytest.mark.parametrize("style", ["current", "legacy"])
def test_units_are_well_formed_and_consistent(out: Path, legacy: Path, style: str) -> None:
    root = out if style == "current" else legacy
    for path in _unit_files(root):
        tree = ET.parse(path)
        unit = tree.getroot()[0]
        if unit.tag == "Composite":
            assert style == "legacy"
            _check_composite(root, unit)
            continue
        if unit.tag == "Compound":
            assert style == "current"
            _check_compound(root, unit)
            continue
        if unit.tag != "Queue":
            assert unit.tag == ("Unit" if style == "current" else "Function"), path
        else:
            assert style == "legacy"  # the current format's streaming units are <Unit>s too
        names = {e.get("name") for e in unit.iter() if e.get("name")}
        for element in unit.iter():
            for attribute in EXPRESSION_ATTRIBUTES:
                if element.get(attribute) is not None and element.tag != "Item":
                    parse(element.get(attribute))
            if element.tag == "Conditional":
                parse(element.get("value"))
        if style == "current":  # every C call can fail: its section hands the status on (Imaginet's codes)
            for section in unit:
                if any(i.get("language") == "C" for i in section.findall("Implementation")) and \
                        section.tag not in ("CanEnqueue", "CanDequeue"):
                    assert section.get("returnStatus") == "true", (path, section.tag)
        hidden = "Expression" if style == "current" else "Hidden"
        assert unit.find(f"Parameters/{hidden}") is not None
        if style == "legacy":
            assert unit.find("Parameters/Expression") is None and unit.find("Parameters/BoolOption") is None
            for impl in unit.iter("Implementation"):
                types_ = {t.get("tensor"): t.get("type") for t in impl.iter("TensorType")}
                assert set(types_) >= {e.get("name") for e in unit.find("Parameters") if e.tag == "InputSocket"}
                if impl.get("language") == "C":  # typed, but for an input passed with its own dtype
                    assert all(v in DTYPE_TYPES.values() or (v is None and f"{t}_dtype_index" in impl.get("call"))
                               for t, v in types_.items()), types_
        for impl in unit.iter("Implementation"):
            file, fragment = impl.get("fragment").split(":")
            order, _ = fragments.resolve(path.parent, file, fragment, str(path.parent))
            call = re.fullmatch(r"(\w+)\((.*)\)", impl.get("call"))
            assert call and call.group(1) == fragment, impl.get("call")
            args = [a.strip() for a in call.group(2).split(",") if a.strip()]
            assert set(args) <= names, set(args) - names
            text = order[-1].text
            if impl.get("language") == "C":
                signature = re.search(rf"static inline int\s+{fragment}\((.*?)\)\s*{{", text, re.S).group(1)
            else:
                signature = re.search(rf"def {fragment}\((.*?)\):", text, re.S).group(1)
            declared = [p.strip() for p in signature.split(",") if p.strip()]
            assert len(declared) == len(args), (path.name, fragment)


def _check_composite(root: Path, unit: ET.Element) -> None:
    """Stacked units exist and get only parameters they declare; every value parses."""
    ids = {}
    for path in _unit_files(root):
        other = ET.parse(path).getroot()[0]
        ids[other.get("name") or other.get("unit")] = other
    for element in unit.iter():
        if element.get("value") is not None:
            parse(element.get("value"))
    for stacked in unit.find("Stacked"):
        component = ids[stacked.get("id")]
        declared = {e.get("name") for e in component.find("Parameters")}
        for argument in stacked:
            assert argument.get("param") in declared, (stacked.get("id"), argument.get("param"))
            parse(argument.text)


def _check_compound(root: Path, unit: ET.Element) -> None:
    """Unit nodes name generated units; connections join existing nodes, into parameters the
    target declares; every test parses."""
    ids = {}
    for path in _unit_files(root):
        other = ET.parse(path).getroot()[0]
        ids[other.get("name") or other.get("unit")] = other
    nodes = {n.get("id"): n for n in unit.find("Nodes")}
    for n in nodes.values():
        if n.tag == "UnitNode":
            assert n.get("unit") in ids, n.get("unit")
    for test in unit.iter("Test"):
        parse(test.get("assert"))
    for link in unit.iter("Connection"):
        source, target = link.find("Source"), link.find("Target")
        assert source.get("node") in nodes and target.get("node") in nodes
        node = nodes[target.get("node")]
        if node.tag == "UnitNode":
            declared = {e.get("name") for e in ids[node.get("unit")].find("Parameters")}
            assert target.get("param") in declared, (node.get("unit"), target.get("param"))


def _wants(op, expected) -> tuple:
    """The expected array of each output, in the unit's element type."""
    return comparison.wanted(op, expected)


def _output_sockets(op, expected) -> list[tuple[str, np.ndarray | None]]:
    return comparison.output_wants(op, expected)


def _socket_values(op, case) -> dict | None:
    return comparison.socket_values(op, case.kwargs)


def _case_env(op, case, expected=None):
    """The unit's parameters for a test case: tensors, options and the output's dims."""
    return comparison.unit_env(op, case.kwargs)


def _valid_cases(op, args: dict | None = None):
    """The op's generated cases the reference computes and a unit takes (``args``: with these
    args set as well)."""
    ns = next(n for n in CATALOGUE.namespaces if n.name == op.namespace)
    functions = golden.reference_functions(ns)
    for dtype, spec in cases.cases(op):
        if not in_units(dtype):  # (float16: no unit takes it, ADR 0075)
            continue
        if args:
            spec = {**spec, "args": {**spec["args"], **args}}
        case = golden._Case(op, dtype, spec, functions[py_names.ref_name(op.name)], 0)
        if not case.size_ok():
            continue
        expected = case.expected()
        if expected is None:
            continue
        if isinstance(op.compute, C.Reduction) and len(case.arg(op.compute.axes)) != 1:
            continue
        if isinstance(op.compute, (C.Reduction, C.ArgReduction)) and np.asarray(
                case.kwargs[py_names.py_name(op.compute.input)]).ndim == 0:
            continue
        if C.list_output(op.compute) is not None and len(expected) > units.LIST_SOCKETS:
            continue  # more tensors than the unit has sockets
        yield case, expected


#: How a tensor_mmul unit starts its refusal of a pairing its matrix product cannot compute.
PRODUCT_REFUSAL = "x, y: a unit computes one matrix product"
#: What a unit over convolution axes says of a broadcast of leading axes its kernel cannot read.
BATCH_REFUSAL = "a unit broadcasts the leading axes of an input only where they hold one element"


def _unit_only(failed: list[str]) -> bool:
    """Whether the failed Asserts are only those of what a unit's kernel computes, which the op
    computes as well (ADR 0066, 0067)."""
    return bool(failed) and all(f.startswith(PRODUCT_REFUSAL) or BATCH_REFUSAL in f for f in failed)


def _kernel_computes(op, case) -> bool:
    """Whether the unit's kernel computes ``case``, which the op computes: a tensordot only where
    its form's ``matrix_product`` holds."""
    if not isinstance(op.compute, C.TensorDot):
        return True
    tensors = {i.name: np.shape(case.kwargs[py_names.py_name(i.name)]) for i in op.inputs}
    args = {a.name: reference_args.arg_value(op, case.kwargs, a.name) for a in op.args}
    return py_shapes.evaluate(op.compute.matrix_product(), tensors, args) is True


def _run_python(unit: ET.Element, wrapper, op, case, env: dict, outputs: dict) -> None:
    """The unit's Python implementation through its own call string, into ``outputs``."""
    # (the float Implementation: a Q type's comes first, chosen by its Conditional)
    call = next(i for i in unit.findall("Implementations/Implementation[@language='Python']")
                if i.find("Conditional") is None).get("call")
    names = [a.strip() for a in call[call.index("(") + 1:-1].split(",")]
    values = {n: v for n, v in env.items()}
    sockets = _socket_values(op, case)
    values |= sockets
    values |= outputs
    values.update({k: (tuple(v.dims) if isinstance(v, Shape) else v) for k, v in values.items()
                   if k not in set(sockets) | set(outputs)})
    with np.errstate(all="ignore"):
        wrapper(*(values[n] for n in names))


def _evaluate_unit(unit: ET.Element, env: dict) -> tuple[dict, list[str]]:
    """Evaluate the unit's hidden values in order (null where their conditional does not hold);
    return the env and failed Asserts."""
    for element in unit.find("Parameters"):
        if element.tag.endswith("Option"):  # (an option not given is at its default, as Studio reads it)
            env[element.get("name")] = checker.option_value(element, env)
        if element.tag in ("Expression", "Hidden"):
            condition = element.get("conditional")
            holds = condition is None or evaluate(condition, env) is True
            env[element.get("name")] = evaluate(element.get("value"), env) if holds else None
    failed = [a.get("error") for a in unit.iter("Assert") if evaluate(a.get("test"), env) is not True]
    return env, failed


@pytest.mark.parametrize(("ns", "op"), REFERENCE_OPS, ids=[op.qualified_name for _, op in REFERENCE_OPS])
def test_shapes_contracts_and_python_implementation_match_the_reference(out: Path, ns, op) -> None:
    unit = ET.parse(out / ns.key / op.name / f"{op.name}.imunit").getroot()[0]
    if isinstance(op.compute, C.SlidingWindow):
        _check_queue(out, ns, op, unit)
        return
    if op.composition is not None:  # a Compound: its steps' units, no implementation of its own
        path = out / ns.key / op.name / f"{op.name}.imunit"
        for case, expected in _valid_cases(op):
            env = _case_env(op, case, expected)
            inputs = {i.name: env[i.name] for i in op.inputs}
            verdict = checker.check_unit(path, inputs, {}, checker.Library([out]))
            assert verdict.kind == "ok" and verdict.text.startswith(f"output: {env[op.inputs[0].name].type_.name}"
                                                                    f"{Shape(expected.shape)}"), verdict.line()
        return
    module = types.ModuleType(f"unit_{op.name}")
    exec(compile((out / ns.key / op.name / f"{op.name}.py").read_text(), op.name, "exec"), module.__dict__)
    wrapper = getattr(module, f"{op.name}_unit")
    checked = refused = 0
    for case, expected in _valid_cases(op):
        env = _case_env(op, case, expected)
        if env is None:
            continue
        env, failed = _evaluate_unit(unit, env)
        if not _kernel_computes(op, case) or _unit_only(failed):  # (a unit Asserts what its kernel computes)
            assert _unit_only(failed) and _kernel_computes(op, case) != failed[0].startswith(PRODUCT_REFUSAL), \
                (case.spec, failed)
            refused += 1
            continue
        assert failed == [], (case.spec, failed)
        outputs = {}
        for socket, (name, want) in zip(unit.findall("Parameters/OutputSocket"), _output_sockets(op, expected),
                                        strict=True):
            there = evaluate(socket.get("conditional") or "true", env)
            assert socket.get("name") == name and there == (want is not None), (case.spec, name, there)
            if want is None:
                outputs[name] = None
                continue
            shape = evaluate(socket.get("shape"), env)
            assert shape == Shape(want.shape), (case.spec, shape, want.shape)
            value_type = evaluate(socket.get("type"), env)
            assert value_type == VALUE_TYPES[DTYPE_TYPES[want.dtype.name]]
            outputs[name] = np.empty(want.shape, dtype=want.dtype)
        _run_python(unit, wrapper, op, case, env, outputs)
        for output, want in zip(outputs.values(), _wants(op, expected)):
            if want.dtype.kind == "f":
                assert np.allclose(output, want, equal_nan=True, rtol=1e-5, atol=1e-6), case.spec
            else:
                assert np.array_equal(output, want), case.spec
        checked += 1
    assert checked > 0


def test_units_reject_what_the_bindings_reject(out: Path) -> None:
    op = next(op for _, op in OPS if op.qualified_name == "math.matmul")
    unit = ET.parse(out / "math" / "matmul" / "matmul.imunit").getroot()[0]
    f32 = VALUE_TYPES["Float32"]
    env = {"a": Tensor(f32, Shape((2, 3))), "b": Tensor(f32, Shape((2, 3)))}
    env, failed = _evaluate_unit(unit, env)
    # the op's constraint, and the einsum's rule it stands for (its form's refusal)
    assert failed == ["the inner dimensions of a and b must agree (a: {a.shape}, b: {b.shape})",
                      "a, b: the axes labelled k must have one size (a: {a.shape}, b: {b.shape})"]
    del op


def test_list_sockets_refuse_gaps_and_other_types(out: Path) -> None:
    """A tensor list becomes sockets connected in order, all of the first one's type (the
    adapter types them so): the contracts refuse anything else."""
    unit = ET.parse(out / "base" / "concat" / "concat.imunit").getroot()[0]
    f32, f64 = VALUE_TYPES["Float32"], VALUE_TYPES["Float64"]
    # axis -1: the outermost (Imaginet counts axes from the innermost, 0)
    base = {"inputs0": Tensor(f32, Shape((2, 3))), "inputs1": None, "inputs2": None, "inputs3": None, "axis": -1}
    mixed = base | {"inputs1": Tensor(f64, Shape((2, 3)))}
    env, failed = _evaluate_unit(unit, dict(mixed))
    assert failed == ["inputs1 must have the type of inputs0 ({inputs0.type})"]
    gap = base | {"inputs2": Tensor(f32, Shape((1, 3)))}
    env, failed = _evaluate_unit(unit, dict(gap))
    assert failed == ["connect inputs in order: inputs2 needs inputs1"]
    env, failed = _evaluate_unit(unit, base | {"inputs1": Tensor(f32, Shape((4, 3)))})
    assert failed == [] and env["output_shape"] == Shape((6, 3)) and env["inputs_count"] == 2


def _first_case(op):
    return next(iter(_valid_cases(op)), None)


# Composite units have no code of their own; Queue units are run by _check_queue.
FUNCTION_OPS = [(ns, op) for ns, op in REFERENCE_OPS
                if op.composition is None and not isinstance(op.compute, C.SlidingWindow)]


def _queue_scenarios(op):
    for dtype, spec in cases.cases(op):
        yield dtype, spec, spec["stream"]


def _reference_events(ns, op, spec):
    functions = golden.reference_functions(ns)
    cls = functions[py_names.class_name(op)]
    return stream_events(lambda w, s, f, d, backend: golden._Queue(cls, w, s, f, d), spec["stream"], spec["seed"],
                         "python")


def _check_queue(out: Path, ns, op, unit: ET.Element) -> None:
    """The unit's shapes and its Python Init/Enqueue/Dequeue against the reference's events."""
    module = types.ModuleType(f"unit_{op.name}")
    exec(compile((out / ns.key / op.name / f"{op.name}.py").read_text(), op.name, "exec"), module.__dict__)
    checked = 0
    for dtype, spec, stream in _queue_scenarios(op):
        want = _reference_events(ns, op, spec)
        frame = tuple(stream["frame_shape"])
        first = next(e[1] for e in want if e[0] == "enqueue")
        env = {op.inputs[0].name: Tensor(VALUE_TYPES[DTYPE_TYPES[dtype]], Shape(first.shape)),
               "window": stream["window"], "stride": stream["stride"], "time_input": None}
        env, failed = _evaluate_unit(unit, env)
        assert failed == [] and env["output_shape"] == Shape((stream["window"], *frame))
        state = np.zeros(env["state_size"], dtype=np.uint8)
        dims = [env["x_rank"], *(env[f"x_d{k}"] for k in range(8))]
        module.sliding_window_unit_init(state, env["state_size"], stream["window"], stream["stride"], *dims,
                                         env["dtype"], *([env["timed"]] if "timed" in env else []))
        for event in want:
            if event[0] == "enqueue":
                room = module.sliding_window_unit_can_enqueue(state, event[1].shape[0])
                assert room == (0 if event[2] == "ok" else -1 if event[2].startswith("queue is full") else room)
                try:
                    module.sliding_window_unit_enqueue(state, event[1], *dims)
                    outcome = "ok"
                except ValueError as exc:
                    outcome = str(exc)
                assert outcome == event[2]
            else:
                assert module.sliding_window_unit_can_dequeue(state) == 0
                got = np.empty(event[1].shape, dtype=event[1].dtype)
                module.sliding_window_unit_dequeue(state, got, got.ndim, *(list(got.shape) + [1] * 8)[:8])
                assert np.array_equal(got, event[1], equal_nan=got.dtype.kind == "f")
        checked += 1
    assert checked > 0


def _c_call(op, unit: ET.Element, case, expected, env: dict) -> tuple[list[str], str]:
    """A driver's declarations and the call of the unit's C implementation for ``case``, with
    every value the call passes taken from ``env``."""
    # the first of the dtype's implementations whose Conditionals hold, as the tool picks it
    impl = next(i for i in unit.iter("Implementation")
                if i.get("language") == "C" and i.get("fragment").endswith(f"_{golden_suffix(case.dtype)}")
                and all(evaluate(c.get("value"), env) is True for c in i.findall("Conditional")))
    call = impl.get("call")
    lines = []
    args = []
    sockets = _socket_values(op, case)
    for arg in (a.strip() for a in call[call.index("(") + 1:-1].split(",")):
        if arg in sockets and sockets[arg] is None:  # an unconnected socket
            args.append("NULL")
        elif arg in sockets:
            data = np.array(sockets[arg], order="C")
            lines.append(golden.c_array(f"data_{arg}", data, data.dtype.name))
            args.append(f"data_{arg}")
        elif arg in (outs := [name for name, _ in _output_sockets(op, expected)]):  # out, out1, ...: one buffer each
            k = outs.index(arg)
            want = _output_sockets(op, expected)[k][1]
            if want is None:  # a socket of a list output that is not there
                args.append("NULL")
                continue
            lines.append(f"static {golden.C_TYPE[want.dtype.name]} out{k or ''}[{max(1, want.size)}];")
            args.append(f"out{k or ''}")
        elif isinstance(env.get(arg), Tensor):  # the unit's scratch (System.Tensor): a buffer of its size
            scratch = env[arg]
            assert scratch.type_.name == "Float64", scratch
            lines.append(f"static double scratch_{arg}[{max(1, int(np.prod(scratch.shape_.dims)))}];")
            args.append(f"scratch_{arg}")
        else:
            value = env[arg]
            args.append(("1" if value else "0") if isinstance(value, bool) else repr(value))
    return lines, f"{call[:call.index('(')]}({', '.join(args)})"


def _chosen_call(unit: ET.Element, env: dict) -> str:
    """The call of the C Implementation Studio chooses: the first whose Conditionals hold in ``env``."""
    return next(i for i in unit.iter("Implementation") if i.get("language") == "C"
                and all(evaluate(c.get("value"), env) is True for c in i.findall("Conditional"))).get("call")


def _invoke(call: str, passed: dict[str, str], env: dict) -> str:
    """``call`` as a C expression: each argument ``passed`` names (a tensor) as the array it
    gives, any other as its value in ``env`` (a bool as 0 or 1)."""
    def value(arg: str) -> str:
        return passed.get(arg) or (str(int(env[arg])) if isinstance(env[arg], bool) else repr(env[arg]))
    return f"{call[:call.index('(')]}({', '.join(value(a.strip()) for a in call[call.index('(') + 1:-1].split(','))})"


def _run_driver(tmp_path: Path, folder: Path, op, lines: list[str], *flags: str) -> subprocess.CompletedProcess:
    driver = tmp_path / "driver.c"
    # what the unit shares with the others (its shared fragment file), then its own fragments
    driver.write_text("\n".join(["#include <stdio.h>", "#include <string.h>", '#include "opforge_shared.h"',
                                 f'#include "{op.name}.h"', "int main(void)", "{", *lines, "}"]) + "\n")
    return _build_and_run(driver, "-ffp-contract=off", *flags, f"-I{folder}", f"-I{folder.parent.parent}")


def _build_and_run(source: Path, *flags: str) -> subprocess.CompletedProcess:
    """``source`` compiled warning-free (C99, pedantic) with ``flags`` and libm, then run."""
    exe = source.with_suffix("")
    build = subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-Wno-unknown-pragmas",
                            *flags, str(source), "-lm", "-o", str(exe)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    return subprocess.run([str(exe)], capture_output=True, text=True)


@pytest.mark.parametrize(("ns", "op"), FUNCTION_OPS, ids=[op.qualified_name for _, op in FUNCTION_OPS])
def test_c_implementation_computes_the_reference(out: Path, tmp_path: Path, ns, op) -> None:
    picked = _first_case(op)
    assert picked is not None
    case, expected = picked
    unit = ET.parse(out / ns.key / op.name / f"{op.name}.imunit").getroot()[0]
    env, failed = _evaluate_unit(unit, _case_env(op, case, expected))
    assert failed == []
    lines, call = _c_call(op, unit, case, expected, env)
    checks = []
    for k, want in enumerate(_wants(op, expected)):
        tag = k or ""
        lines.append(golden.c_array(f"want{tag}", want, want.dtype.name))
        if want.dtype.kind == "f":
            checks.append(f"for (int i = 0; i < {want.size}; i++) {{ const double a = out{tag}[i], b = want{tag}[i]; "
                          "if (!(a == b || (isnan(a) && isnan(b)) || fabs(a - b) <= 1e-5 * (1 + fabs(b)))) return 3; }")
        else:
            checks.append(f"if (memcmp(out{tag}, want{tag}, sizeof want{tag}[0] * {want.size}) != 0) return 3;")
    lines.append(f"const int status = {call};")
    lines += ["if (status != 0) { printf(\"status %d\\n\", status); return 2; }", *checks, 'printf("ok\\n");',
              "return 0;"]
    run = _run_driver(tmp_path, out / ns.key / op.name, op, lines)
    assert (run.returncode, run.stdout.strip()) == (0, "ok"), (run.returncode, run.stdout, case.spec)


#: tensor_mmul pairings as (x's shape, y's shape, dimensions_x, dimensions_y, transposes of x, y and z):
#: ones its unit computes as one matrix product, then ones it refuses (each computed by the op).
PRODUCTS = [((2, 3), (3, 4), [1], [0], (False, False, False)), ((2, 3, 4), (3, 4, 5), [1, -1], [0, 1], (False,) * 3),
            ((3, 2), (3, 4), [1], [0], (True, False, False)), ((3, 2), (4, 3), [1], [0], (True, True, True)),
            ((2, 3), (4, 3), [1], [0], (False, True, False)), ((3,), (3, 4), [0], [0], (True, False, True)),
            ((3,), (4,), [], [], (False, True, True)), ((5,), (5,), [0], [0], (True, True, True)),
            ((2, 3), (2, 3), [0, 1], [0, 1], (False, False, False)), ((0, 3), (3, 2), [1], [0], (False,) * 3)]
REFUSED_PRODUCTS = [((2, 3, 4), (4, 3, 5), [1, 2], [1, 0], (False,) * 3), ((3, 2), (3, 4), [0], [0], (False,) * 3),
                    ((4, 3, 2), (3, 5), [1], [0], (True, False, False)), ((2, 3), (3, 4, 5), [1], [0], (False, False, True)),
                    ((3, 2), (2, 3), [0, 1], [0, 1], (True, False, False))]


def test_tensor_mmul_unit_is_one_matrix_product(out: Path, tmp_path: Path) -> None:
    """tensor_mmul's unit calls one plain matrix-product kernel (no adapter, no descriptors) with
    the rows, inner and cols its Expressions compute and its transpose options: on the pairings
    its form's ``matrix_product`` allows it gives numpy.tensordot's result, in C and as the op
    does; any other pairing, which the op computes, it refuses with an Assert that says why."""
    ns, op = next((ns, op) for ns, op in OPS if op.qualified_name == "base.tensor_mmul")
    folder = out / ns.key / op.name
    unit = ET.parse(folder / f"{op.name}.imunit").getroot()[0]
    assert "opforge_tensor" not in (folder / f"{op.name}.h").read_text()
    assert all("_rank" not in i.get("call") for i in unit.iter("Implementation"))
    rng = np.random.default_rng(3)
    lines = []
    for k, (xs, ys, ax, ay, (tx, ty, tz)) in enumerate(PRODUCTS + REFUSED_PRODUCTS):
        x, y = rng.integers(-9, 9, xs).astype(np.float32), rng.integers(-9, 9, ys).astype(np.float32)
        want = np.tensordot(x.T if tx else x, y.T if ty else y, (ax, ay))
        want = want.T if tz else want
        given = {"x": x, "y": y, "dimensions_x": ax, "dimensions_y": ay, "transpose_x": tx, "transpose_y": ty,
                 "transpose_z": tz}
        case = types.SimpleNamespace(dtype="float32", kwargs={py_names.py_name(n): v for n, v in given.items()})
        assert _kernel_computes(op, case) == (k < len(PRODUCTS)), (xs, ys, ax, ay)
        env, failed = _evaluate_unit(unit, _case_env(op, case, want))
        if k >= len(PRODUCTS):
            assert [f[:len(PRODUCT_REFUSAL)] for f in failed] == [PRODUCT_REFUSAL], (xs, ys, ax, ay, failed)
            continue
        assert failed == [] and env["output_shape"] == Shape(want.shape), (xs, ys, ax, ay, failed)
        declared, call = _c_call(op, unit, case, want, env)
        assert call.startswith("opforge_base_tensor_mmul_unit_product_f32("), call
        wanted = golden.c_array("want", want, "float32")
        lines += ["{", *declared, wanted, f"if ({call} != 0) return 2;",
                  f"for (int i = 0; i < {want.size}; i++) if (out[i] != want[i]) return 3 + {k};", "}"]
    run = _run_driver(tmp_path, folder, op, [*lines, 'printf("ok\\n");', "return 0;"])
    assert (run.returncode, run.stdout.strip()) == (0, "ok")


WINDOWED_OPS = [(ns, op) for ns, op in OPS if isinstance(op.compute, C.Contraction) and op.compute.spec.convs]


@pytest.mark.parametrize(("ns", "op"), WINDOWED_OPS, ids=[op.qualified_name for _, op in WINDOWED_OPS])
def test_units_over_convolution_axes_compute_every_case_in_c(out: Path, tmp_path: Path, ns, op) -> None:
    """A unit over convolution axes (a convolution, a pool, correlate) calls its plain kernel of a
    loop per label (ADR 0067) with the sizes, strides, dilations and paddings its Expressions
    compute: on every valid case of the op (each dtype, strides, dilations, pads, auto_pad,
    ceil_mode, leading batch axes; an average pool's again with count_include_pad) the C gives
    the reference's result, or the unit refuses a broadcast of leading axes with its Assert."""
    folder = out / ns.key / op.name
    unit = ET.parse(folder / f"{op.name}.imunit").getroot()[0]
    assert "opforge_tensor" not in (folder / f"{op.name}.h").read_text()
    lines, ran, refused = [], 0, 0
    counted = op.compute.count_include_pad  # (and a mean that counts the padding, where it may)
    given = [*_valid_cases(op), *(_valid_cases(op, {counted: True}) if counted else ())]
    for k, (case, expected) in enumerate(given):
        env, failed = _evaluate_unit(unit, _case_env(op, case, expected))
        if failed:
            assert len(failed) == 1 and BATCH_REFUSAL in failed[0], (case.spec, failed)
            refused += 1
            continue
        declared, call = _c_call(op, unit, case, expected, env)
        assert "_unit_windows_" in call, call
        want = np.asarray(expected)
        wanted = golden.c_array("want", want, want.dtype.name)
        if want.dtype.kind == "f":
            check = ("const double a = out[i], b = want[i]; if (!(a == b || (isnan(a) && isnan(b)) || "
                     "fabs(a - b) <= 1e-5 * (1 + fabs(b))))")
        else:
            check = "if (out[i] != want[i])"
        lines += ["{", *declared, wanted, f"if ({call} != 0) return 2;",
                  f"for (int i = 0; i < {want.size}; i++) {{ {check} return 3 + {k}; }}", "}"]
        ran += 1
    run = _run_driver(tmp_path, folder, op, [*lines, 'printf("ok\\n");', "return 0;"])
    assert (run.returncode, run.stdout.strip()) == (0, "ok"), run.returncode
    assert ran >= 4, (ran, refused)


def test_c_implementation_rejects_a_list_longer_than_the_unit_passes(legacy: Path, tmp_path: Path) -> None:
    """A unit passes a list arg as a count and a fixed number of values; a longer count is an error
    status, never a read past those values. The seed style's tensor_mmul (a checked adapter) takes
    at most eight contracted axes of x: a ninth is refused."""
    out = legacy
    ns, op = next((ns, op) for ns, op in OPS if op.qualified_name == "base.tensor_mmul")
    x, y = np.zeros((2, 3), dtype=np.float32), np.zeros((3, 4), dtype=np.float32)
    dimensions = next(a for a in op.args if a.name == "dimensions_x")
    assert units.list_length(op, dimensions) == 8
    given = {"dimensions_x": [1], "dimensions_y": [0], "transpose_x": False, "transpose_y": False,
             "transpose_z": False}
    case = types.SimpleNamespace(dtype="float32", kwargs={py_names.py_name("x"): x, py_names.py_name("y"): y,
                                                          **{py_names.py_name(k): v for k, v in given.items()}})
    expected = np.zeros((2, 4), dtype=np.float32)
    unit = ET.parse(out / ns.key / op.name / f"{op.name}.imunit").getroot()[0]
    env, failed = _evaluate_unit(unit, _case_env(op, case, expected))
    assert failed == []
    lines, call = _c_call(op, unit, case, expected, {**env, "dimensions_x_rank": 9})
    lines += [f"const int status = {call};", 'printf("%d\\n", status);',
              "return status == -2 ? 0 : 1;"]  # IPWIN_RET_ERROR
    # AddressSanitizer: a read past the values would be reported even if a status came back.
    run = _run_driver(tmp_path, out / ns.key / op.name, op, lines, "-fsanitize=address", "-g")
    assert run.returncode == 0, run.stdout + run.stderr


def golden_suffix(dtype: str) -> str:
    from generators.kernels.scalar_c import SUFFIX

    return SUFFIX[dtype]


QUEUE_OPS = [(ns, op) for ns, op in OPS if isinstance(op.compute, C.SlidingWindow)]


@pytest.mark.parametrize(("ns", "op"), QUEUE_OPS, ids=[op.qualified_name for _, op in QUEUE_OPS])
@pytest.mark.parametrize("entries", ["lean", "legacy"])
def test_queue_c_implementation_replays_the_reference(out: Path, tmp_path: Path, ns, op, entries: str) -> None:
    """The queue's C entries replay the reference's events: the lean ones current units call
    (bytes and frame counts, any dtype) and the seed style's checked adapters."""
    dtype, spec, stream = next((d, s, st) for d, s, st in _queue_scenarios(op) if d == "float32")
    lean = entries == "lean"
    want = _reference_events(ns, op, spec)
    fn = f"opforge_{ns.key}_{op.name}_unit"
    frame = tuple(stream["frame_shape"])
    nbytes = 256 + 2 * stream["window"] * int(np.prod(frame, dtype=np.int64)) * 4
    lines = ["#include <stdio.h>", "#include <string.h>", '#include "opforge_shared.h"', f'#include "{op.name}.h"',
             "int main(void)", "{",
             f"static uint64_t state[{(nbytes + 7) // 8}];"]
    first = next(e[1] for e in want if e[0] == "enqueue")
    xdims = [first.ndim, *(list(first.shape) + [1] * 8)[:8]]
    last_window = (stream["window"], *frame)
    last = [len(last_window), *(list(last_window) + [1] * 8)[:8]]
    lines.append(f"static float g_last[{int(np.prod(last_window))} + 1];")
    frame_bytes = int(np.prod(frame, dtype=np.int64)) * 4
    init = f"{fn}_init(state, (int)sizeof state, {stream['window']}, {stream['stride']}, {frame_bytes}, 0)" if lean else \
        f"{fn}_init_f32(state, (int)sizeof state, {stream['window']}, {stream['stride']}, {', '.join(map(str, xdims))})"
    lines.append(f"if ({init} != 0) return 2;")
    for k, event in enumerate(want):
        if event[0] == "enqueue":
            block = event[1]
            lines.append(golden.c_array(f"b{k}", block, "float32"))
            dims = [block.ndim, *(list(block.shape) + [1] * 8)[:8]]
            # Imaginet's codes: 0 success, -1 no data (no room yet), -2 error
            if event[2] == "ok" or event[2].startswith("queue is full"):
                room = 0 if event[2] == "ok" else -1
                lines.append(f"if ({fn}_can_enqueue(state, {block.shape[0]}) != {room}) return 6;")
            expect = 0 if event[2] == "ok" else -2
            enqueue = f"{fn}_enqueue(state, b{k}, {block.shape[0]})" if lean else \
                f"{fn}_enqueue_f32(state, b{k}, {', '.join(map(str, dims))})"
            lines.append(f"if ({enqueue} != {expect}) return 3;")
        else:
            window = event[1]
            lines.append(golden.c_array(f"w{k}", window, "float32"))
            lines.append(f"static float g{k}[{window.size}];")
            dims = [window.ndim, *(list(window.shape) + [1] * 8)[:8]]
            lines.append(f"if ({fn}_can_dequeue(state) != 0) return 7;")
            dequeue = f"{fn}_dequeue(state, g{k})" if lean else f"{fn}_dequeue_f32(state, g{k}, {', '.join(map(str, dims))})"
            lines.append(f"if ({dequeue} != 0) return 4;")
            lines.append(f"if (memcmp(g{k}, w{k}, sizeof w{k}) != 0) return 5;")
    # drained: no window to dequeue is -1 (no data), from the guard and from Dequeue itself
    drain = f"{fn}_dequeue(state, g_last)" if lean else f"{fn}_dequeue_f32(state, g_last, {', '.join(map(str, last))})"
    lines.append(f"while ({fn}_can_dequeue(state) == 0) {drain};")
    lines.append(f"if ({drain} != -1) return 8;")
    # a fresh queue holds two windows: a block of one frame more is refused whole (-2), as the guard says (-1)
    over = 2 * stream["window"] + 1
    lines.append(f"static float big[{over * int(np.prod(frame, dtype=np.int64))}];")
    lines.append(f"if ({init} != 0) return 10;")
    lines.append(f"if ({fn}_can_enqueue(state, {over}) != -1) return 11;")
    over_dims = [1 + len(frame), *([over, *frame] + [1] * 8)[:8]]
    enqueue = f"{fn}_enqueue(state, big, {over})" if lean else \
        f"{fn}_enqueue_f32(state, big, {', '.join(map(str, over_dims))})"
    lines.append(f"if ({enqueue} != -2) return 12;")
    lines.append("static uint64_t junk[64];")
    lines.append(f"if ({fn}_can_enqueue(junk, 1) != -2) return 9;  /* not a state Init set up */")
    lines += ['printf("ok\\n");', "return 0;", "}"]
    driver = tmp_path / "queue.c"
    driver.write_text("\n".join(lines) + "\n")
    run = _build_and_run(driver, f"-I{out / ns.key / op.name}", f"-I{out}")
    assert (run.returncode, run.stdout.strip()) == (0, "ok")


def test_the_window_unit_carries_timestamps(out: Path, tmp_path: Path) -> None:
    """With its optional time input connected (as the real SlidingWindow's), the window unit keeps
    each block's [first, last] timestamps with its frames and gives each window the range over
    its frames, in C and in Python; unconnected, it declares no time output and runs untimed."""
    folder = out / "signal" / "sliding_window"
    unit = ET.parse(folder / "sliding_window.imunit").getroot()[0]
    ns, op = next((ns, op) for ns, op in QUEUE_OPS if op.name == "sliding_window")
    blocks = [np.arange(6, dtype=np.float32).reshape(2, 3), np.arange(6, 9, dtype=np.float32).reshape(1, 3)]
    times = [np.array([0.5, 0.25], np.float32), np.array([0.75], np.float32)]
    # window 2, stride 1: frames 0 and 1 (the first block: [0.25, 0.5]), then 1 and 2 (both blocks)
    want = [(blocks[0], (0.25, 0.5)), (np.concatenate([blocks[0][1:], blocks[1]]), (0.25, 0.75))]

    def env_for(time_input):
        env = {"x": Tensor(VALUE_TYPES["Float32"], Shape((2, 3))), "window": 2, "stride": 1, "time_input": time_input}
        return _evaluate_unit(unit, env)

    untimed, failed = env_for(None)
    assert failed == [] and untimed["timed"] == 0
    timed, failed = env_for(Tensor(VALUE_TYPES["Float32"], Shape((2,))))
    assert failed == [] and timed["timed"] == 1 and timed["timestamp_count"] == 2
    socket = next(o for o in unit.iter("OutputSocket") if o.get("name") == "time_output")
    assert evaluate(socket.get("conditional"), untimed) is False and evaluate(socket.get("conditional"), timed)
    assert evaluate(socket.get("shape"), timed) == Shape((2,))
    _, refused = env_for(Tensor(VALUE_TYPES["Int32"], Shape((2,))))
    assert refused == ["time_input: timestamps are Float32, not {time_input.type}"]

    def chosen(section: str, env: dict, language: str) -> str:
        return next(i.get("call") for i in unit.find(section).iter("Implementation") if i.get("language") == language
                    and all(evaluate(c.get("value"), env) is True for c in i.findall("Conditional")))

    assert "_timed(" in chosen("Enqueue", timed, "C") and "_timed(" not in chosen("Enqueue", untimed, "C")
    assert "_timed(" in chosen("Dequeue", timed, "Python") and "_timed(" not in chosen("Dequeue", untimed, "Python")

    # Python: the unit's own functions, as its calls name them
    module = types.ModuleType("unit_window")
    exec(compile((folder / "sliding_window.py").read_text(), "sliding_window", "exec"), module.__dict__)
    state = np.zeros(timed["state_size"], dtype=np.uint8)
    def dims(shape: tuple[int, ...]) -> list[int]:  # rank, then the sizes from the outermost
        return [len(shape), *(list(shape) + [1] * 8)[:8]]

    module.sliding_window_unit_init(state, timed["state_size"], 2, 1, *dims((2, 3)), "float32", 1)
    for block, time in zip(blocks, times):
        module.sliding_window_unit_enqueue_timed(state, block, *dims(block.shape), time, time.size)
    for window, (first, last) in want:
        got, got_time = np.empty((2, 3), np.float32), np.empty(2, np.float32)
        module.sliding_window_unit_dequeue_timed(state, got, *dims((2, 3)), got_time)
        assert np.array_equal(got, window) and tuple(got_time) == (first, last)

    # C: the lean entries
    fn = "opforge_signal_sliding_window_unit"
    lines = [f"static uint64_t state[{timed['state_size'] // 8 + 1}];",
             f"if ({fn}_init(state, {timed['state_size']}, 2, 1, 12, 1) != 0) return 2;",
             golden.c_array("b0", blocks[0], "float32"), golden.c_array("b1", blocks[1], "float32"),
             golden.c_array("t0", times[0], "float32"), golden.c_array("t1", times[1], "float32"),
             f"if ({fn}_enqueue_timed(state, b0, 2, t0, 2) != 0) return 3;",
             f"if ({fn}_enqueue_timed(state, b1, 1, t1, 1) != 0) return 3;",
             "float got[6], time[2];"]
    for k, (window, (first, last)) in enumerate(want):
        lines += [golden.c_array(f"w{k}", window, "float32"),
                  f"if ({fn}_dequeue_timed(state, got, time) != 0) return 4;",
                  f"if (memcmp(got, w{k}, sizeof got) != 0) return 5;",
                  f"if (time[0] != {first}f || time[1] != {last}f) return 6;"]
    lines += [f"if ({fn}_dequeue_timed(state, got, time) != -1) return 7;",
              f"if ({fn}_init(state, {untimed['state_size']}, 2, 1, 12, 0) != 0) return 8;",
              f"if ({fn}_enqueue_timed(state, b0, 2, t0, 2) != -2) return 9; /* an untimed queue */",
              'printf("ok\\n");', "return 0;"]
    run = _run_driver(tmp_path, folder, op, lines)
    assert (run.returncode, run.stdout.strip()) == (0, "ok"), run.returncode
    del ns


@pytest.mark.parametrize("style", ["current", "legacy"])
def test_every_unit_checks_as_studio_evaluates_it(out: Path, legacy: Path, style: str) -> None:
    """unit-check over every generated unit: none has an error, and a unit never calls a kernel
    on an input of another type than the kernel reads (gather's indices are Int64)."""
    root = out if style == "current" else legacy
    verdicts = checker.check([root])
    assert len(verdicts) == len(_unit_files(root))
    assert [v.line() for v in verdicts if v.kind == "error"] == []
    gather = root / "base" / "gather" / "gather.imunit"
    float_indices = checker.check_unit(gather, dict([checker.parse_input("indices=Float32[2]")]))
    assert (float_indices.kind, float_indices.text) == ("refused", "no C implementation of Implementations applies")
    int_indices = checker.check_unit(gather, dict([checker.parse_input("indices=Int64[2]")]))
    assert int_indices.kind == "ok", int_indices.line()


@pytest.mark.parametrize(("unit", "inputs", "axis", "shape"), [
    ("math/sum", ["x=Float32[3,5,7]"], 0, "[3,5]"),  # 0: the innermost
    ("math/sum", ["x=Float32[3,5,7]"], -1, "[5,7]"),  # -1: the outermost
    ("math/argmax", ["x=Float32[3,5,7]"], 2, "[5,7]"),
    ("base/gather", ["x=Float32[3,5,7]", "indices=Int64[2]"], 0, "[3,5,2]"),
    ("base/stack", ["inputs0=Float32[3,5]", "inputs1=Float32[3,5]", "inputs2=null", "inputs3=null"], 0, "[3,5,2]"),
    ("base/stack", ["inputs0=Float32[3,5]", "inputs1=Float32[3,5]", "inputs2=null", "inputs3=null"], -1, "[2,3,5]"),
    ("base/one_hot", ["indices=Int64[4]"], 1, "[3,4]"),  # depth 3, the new axis outermost of two
    ("nn/softmax", ["x=Float32[3,5,7]"], 0, "[3,5,7]"),
])
def test_axis_options_count_from_the_innermost(out: Path, unit: str, inputs: list[str], axis: int, shape: str) -> None:
    """Imaginet's axes (the guide's 10.7): 0 is the innermost, -1 the outermost; the NumPy axis
    the unit computes with is derived from them, in the rank the op's form counts that axis in."""
    path = out / unit / f"{unit.split('/')[1]}.imunit"
    options = {"axis": axis, "depth": 3}
    verdict = checker.check_unit(path, dict(checker.parse_input(i) for i in inputs), options)
    assert verdict.kind == "ok" and verdict.text.split(": ", 1)[1].split(" ")[0].endswith(shape), verdict.line()
    too_far = checker.check_unit(path, dict(checker.parse_input(i) for i in inputs), options | {"axis": 8})
    assert too_far.kind == "refused" and too_far.text.startswith("axis: out of range: 0 is the innermost axis")


@pytest.mark.parametrize(("unit", "expressions", "shape"), [
    # (and what the fixed-point kernels take: abs's Q output shift, its D table's scales and offsets)
    ("math/abs", ["output_shape", "element_count", "x_scale", "x_offset", "output_shift", "output_scale",
                  "output_offset"], "x.shape"),
    # (a clamp's bounds in stored values: relu's result for x <= cutoff, and cutoff rounded down)
    ("nn/relu", ["output_shape", "element_count", "bound1_stored", "cutoff_floor", "output_shift", "output_scale",
                 "output_offset"], "x.shape"),
    # (a kernel per case, base given or not, a table per case in Q7 and D8; Q15 and Q31 the reference
    # library's Log, its constants in Expressions; D16 the same steps, its factor an Expression)
    ("math/log", ["output_shape", "element_count", "x_shift", "x_scale", "x_offset", "log_factor", "scale_q",
                  "offset_q", "output_shift", "output_scale", "output_offset"], "x.shape"),
    ("math/sum", ["numpy_axis", "output_shape", "axis_size", "axis_slot", "axis_step", "h", "x_scale", "x_offset",
                  "output_shift", "output_scale", "output_offset"],
     "(keep_dims ? ((axis >= -x.shape.count && axis < x.shape.count) ? x.shape.replace(axis, 1) : x.shape) : "
     "((axis >= -x.shape.count && axis < x.shape.count) ? x.shape.remove(axis) : x.shape))"),
    ("math/argmax", ["numpy_axis", "output_shape", "axis_size", "axis_slot", "axis_step"], None),
    ("base/squeeze", ["numpy_axis", "output_shape", "element_count"],
     "((axis >= -x.shape.count && axis < x.shape.count) ? x.shape.remove(axis) : x.shape)"),
    ("base/stack", ["numpy_axis", "inputs_count", "output_shape", "join_block0", "join_block1", "join_block2",
                    "join_block3", "join_slot"], "((axis >= -(inputs0.shape.count + 1) && axis < (inputs0.shape.count + 1)) ? "
                         "inputs0.shape.insert(axis, inputs_count) : inputs0.shape)"),
    ("math/merge_max_index", ["inputs_count", "output_shape", "element_count"], "inputs0.shape"),
])
def test_units_compute_only_what_their_kernels_need(out: Path, unit: str, expressions: list[str] | None,
                                                    shape: str | None) -> None:
    """A unit its plain kernels cover calls only them: its Expressions are its output shape and
    its kernels' sizes (no rank and dims per tensor), its .h holds no API function or adapter.
    A shape with one axis removed, replaced or inserted is the language's own method call."""
    name = unit.split("/")[1]
    root = ET.parse(out / unit / f"{name}.imunit").getroot()[0]
    said = {e.get("name"): e.get("value") for e in root.iter("Expression")}
    if expressions is not None:
        assert list(said) == expressions
        header = (out / unit / f"{name}.h").read_text()
        assert "opforge_tensor" not in header and f"opforge_{unit.replace('/', '_')}_unit_f32(" not in header
        assert all("_rank" not in i.get("call") for i in root.iter("Implementation"))
    if shape is not None:
        assert said["output_shape"] == shape


#: The one unit whose lifecycle entries are not plain kernels: they call the runtime's queue on bytes.
QUEUE_UNITS = {"signal/sliding_window"}


def test_no_unit_calls_the_checked_c_api(out: Path) -> None:
    """Issue 19's lean units, over the whole catalogue: every C Implementation of every unit
    (the sliding window's queue aside) calls a plain kernel's entry, passing no rank or dims of
    a tensor, and its header holds no API function and no descriptor."""
    dims = re.compile(r"\b\w+_(rank|d[0-7])\b")
    checked = compounds = 0
    for path in _unit_files(out):
        unit = str(path.parent.relative_to(out))
        root = ET.parse(path).getroot()[0]
        if root.tag == "Compound":  # (no code of its own: its nodes' units)
            compounds += 1
        if unit in QUEUE_UNITS or root.tag == "Compound":
            continue
        calls = [i.get("call") for i in root.iter("Implementation") if i.get("language") == "C"]
        assert calls, unit
        assert not [c for c in calls if dims.search(c[c.index("("):])], (unit, calls[0])
        header = path.with_suffix(".h")
        assert not header.exists() or "opforge_tensor" not in header.read_text(), unit
        checked += 1
    assert compounds >= 1 and checked == len(_unit_files(out)) - len(QUEUE_UNITS) - compounds


def test_an_arg_reduction_unit_gives_int16_indices(out: Path, tmp_path: Path) -> None:
    """As the real Argmax: Int16 indices, from kernels that write int16_t, and an axis longer than
    Int16 counts is refused (the seed style keeps the C API's Int64); select_last_index gives the
    last of tied maxima."""
    path = out / "math" / "argmax" / "argmax.imunit"
    ok = checker.check_unit(path, dict([checker.parse_input("x=Float32[3,32768]")]))
    assert ok.kind == "ok" and ok.text.startswith("output: Int16[3]"), ok.line()
    long = checker.check_unit(path, dict([checker.parse_input("x=Float32[3,32769]")]))
    assert long.kind == "refused" and long.text.startswith("axis: a unit gives Int16 indices"), long.line()
    assert "int16_t* restrict output" in (path.parent / "argmax.h").read_text()
    lines = ["static float data_x[2 * 32768];", "data_x[100] = data_x[32767] = data_x[32768 + 12345] = 1;",
             "static int16_t out[2];",
             "if (opforge_math_argmax_unit_rows_f32(data_x, out, 32768, 2, false) != 0) return 2;",
             'printf("%d %d\\n", out[0], out[1]);',
             "if (opforge_math_argmax_unit_rows_f32(data_x, out, 32768, 2, true) != 0) return 2;",
             'printf("%d %d\\n", out[0], out[1]);', "return 0;"]
    op = next(o for _, o in FUNCTION_OPS if o.qualified_name == "math.argmax")
    run = _run_driver(tmp_path, path.parent, op, lines)
    assert (run.returncode, run.stdout.split()) == (0, ["100", "12345", "32767", "12345"])


def test_units_assemble_into_one_firmware(out: Path, tmp_path: Path) -> None:
    """Every unit's C implementation for the default inputs, assembled as Imaginet assembles a
    firmware (each fragment once per file and name, dependencies first): what units share comes
    from one shared fragment file, so the whole catalogue compiles as one file, warning-free."""
    library = checker.Library([out])
    chosen, units_in = [], 0
    for path in _unit_files(out):
        if checker.check_unit(path, {}, {}, library).kind != "ok" or ET.parse(path).getroot()[0].tag == "Compound":
            continue
        chosen += checker.implementations(path, {}, {})
        units_in += 1
    source = tmp_path / "firmware.c"
    source.write_text(checker.assemble(chosen) + "\n" + checker.entries(chosen), encoding="utf-8")
    build = subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-Wno-unknown-pragmas",
                            "-c", str(source), "-o", str(tmp_path / "firmware.o")], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    assert units_in >= 150 and source.read_text().count('/* opforge_shared.h: opforge_runtime */') == 1


#: Units of different jobs in one Cortex-M4 image (issue 19: at least 20).
IMAGE_UNITS = ("math.abs", "math.add", "math.sub", "math.mul", "math.div", "math.clip_by_value", "math.round",
               "math.cos", "math.sin", "math.tanh", "math.exp", "math.sqrt", "math.sum", "math.mean", "math.max",
               "math.argmax", "math.cumsum", "math.matmul", "base.transpose", "base.gather", "base.concat",
               "nn.relu", "math.sigmoid", "nn.softmax", "base.tensor_mmul", "cnn.conv2d", "cnn.max_pooling2d",
               "math.correlate")
CORTEX_M = ROOT / "generators" / "tests" / "cortex_m"
ARM_FLAGS = ["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16", "-std=c99", "-Wall", "-Wextra",
             "-Werror", "-pedantic", "-Wno-unknown-pragmas", "-ffp-contract=off", "-ffunction-sections",
             "-fdata-sections", "-Os"]


def test_units_run_their_comparison_tests_in_one_cortex_m4_image(out: Path, tmp_path: Path) -> None:
    """28 units' generated comparison tests (ADR 0035), assembled with the units' fragments into
    one firmware, pass under QEMU on a Cortex-M4: the C implementations give there the values
    the tests expect, which the units' Python implementations give too
    (test_every_unit_passes_its_comparison_tests_in_c_and_python)."""
    tools = [t for t in ("arm-none-eabi-gcc", "qemu-system-arm") if shutil.which(t) is None]
    if tools:
        message = f"{', '.join(tools)} missing: ./test.sh installs them when it runs as root"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    by_name = {op.qualified_name: (ns, op) for ns, op in FUNCTION_OPS}
    tests = []
    for name in IMAGE_UNITS:
        ns, op = by_name[name]
        tests += testing.associated(out / ns.key / op.name / f"{op.name}.imunit")["C"]
    assert len(tests) == len(IMAGE_UNITS)
    main = tmp_path / "image.c"
    main.write_text(testing.c_program(tests), encoding="utf-8")
    image = tmp_path / "image.elf"
    build = subprocess.run(["arm-none-eabi-gcc", *ARM_FLAGS, str(main), str(CORTEX_M / "startup.c"), "-nostartfiles",
                            "--specs=nosys.specs", "-Wl,--gc-sections", "-T", str(CORTEX_M / "mps2.ld"), "-lm",
                            "-o", str(image)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    run = subprocess.run(["qemu-system-arm", "-M", "mps2-an386", "-nographic", "-semihosting-config",
                          "enable=on,target=native", "-kernel", str(image)], capture_output=True, text=True,
                         timeout=300)
    said = (run.stdout + run.stderr).splitlines()
    assert run.returncode == 0 and not [line for line in said if "[FAILED]" in line], "\n".join(said[-40:])
    passed = {line.split(":")[0].split()[1] for line in said if line.startswith("[PASSED]") and "(C)" in line}
    assert passed == {name for _, name in tests}, "\n".join(said[-40:])


#: Units with no comparison tests: a Compound has no code of its own (its nodes' units are
#: tested), a stream's lifecycle is replayed by test_queue_c_implementation_replays_the_reference.
UNTESTED_UNITS = {"math/squared_difference/squared_difference.imunit", "signal/sliding_window/sliding_window.imunit"}


@pytest.mark.parametrize("style", ["current", "legacy"])
def test_every_unit_passes_its_comparison_tests_in_c_and_python(out: Path, legacy: Path, style: str) -> None:
    """The tests the generator associates with each unit's fragments (its example, through the
    unit's own call strings) pass: the C tests of all units built as one program, warning-free,
    and the Python tests, each with its checks."""
    root = out if style == "current" else legacy
    outcomes = testing.run([root])
    assert {str(o.path.relative_to(root)) for o in outcomes if o.kind == "none"} == UNTESTED_UNITS
    bad = [o.line() for o in outcomes if o.kind not in ("passed", "none")]
    assert bad == [], bad[:5]
    for o in (o for o in outcomes if o.kind == "passed"):
        assert any("(C)" in line and " returned " not in line for line in o.lines) and \
            any("(Python)" in line for line in o.lines), o.lines  # (an output checked in each)
    left_out = len(CONVERSION_OPS) if style == "legacy" else 0  # (no unit in the seed format: ADR 0068)
    assert sum(o.kind == "passed" for o in outcomes) == len(OPS) - len(UNTESTED_UNITS) - left_out


def test_a_comparison_test_fails_where_an_implementation_differs(out: Path, tmp_path: Path) -> None:
    """unit-test reports a unit whose C or Python implementation gives other values than its
    tests expect (one expected value changed here), and exits 1."""
    copy = tmp_path / "imunit"
    shutil.copytree(out / "math" / "mean", copy / "math" / "mean")
    shutil.copytree(out / "math" / "add", copy / "math" / "add")
    for name in ("opforge_shared.h", comparison.CHECKS_C, comparison.CHECKS_PY):
        shutil.copy(out / name, copy / name)
    for suffix, old, new in ((".c", "want_output[2] = {-0.3333333432674408f", "want_output[2] = {-0.25f"),
                             (".py", "want_output = np.array([-0.3333333432674408", "want_output = np.array([-0.25")):
        test = copy / "math" / "mean" / f"mean_tests{suffix}"
        assert test.read_text().count(old) == 1, test.read_text()
        test.write_text(test.read_text().replace(old, new))
    run = subprocess.run([sys.executable, "-m", "generators.cli", "unit-test", str(copy), "-v"], cwd=ROOT,
                         capture_output=True, text=True)
    assert run.returncode == 1, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert f"{copy / 'math' / 'add' / 'add.imunit'}: passed: C 2 checks, Python 1 checks" in lines
    assert f"{copy / 'math' / 'mean' / 'mean.imunit'}: failed: [FAILED] opforge_math_mean_test: (C) output: " \
           "element 0 is -0.333333343, expected -0.25." in lines
    assert "    [FAILED] opforge_math_mean_test: (Python) output: element 0 is -0.3333333432674408, expected -0.25." \
        in lines


def test_an_elementwise_unit_runs_its_plain_kernel_when_nothing_broadcasts(out: Path) -> None:
    """Inputs of one shape: the kernel over the element count, no descriptors; one input stretched:
    ShapeBroadcast's loops; both, or a high rank: a loop per axis. No checked C API."""
    path = out / "math" / "add" / "add.imunit"

    def called(*inputs: str) -> str:
        chosen = checker.implementations(path, dict(checker.parse_input(i) for i in inputs))
        return next(c.function for c in chosen if c.language == "C")

    assert called("x=Float32[3,4]", "y=Float32[3,4]") == "opforge_math_add_unit_plain_f32"
    assert called("x=Int8[5]", "y=Int8[5]") == "opforge_math_add_unit_plain_i8"
    # one operand broadcast into the other's shape: ShapeBroadcast's loops
    assert called("x=Float32[3,4]", "y=Float32[1,4]") == "opforge_math_add_unit_second_stretched_f32"
    assert called("x=Float32[4]", "y=Float32[3,4]") == "opforge_math_add_unit_first_stretched_f32"
    # both stretched, or a rank where two groups may not do: a loop per axis, the fewest that hold it
    assert called("x=Float32[3,1]", "y=Float32[1,4]") == "opforge_math_add_unit_broadcast2_f32"
    assert called("x=Float32[2,3,1]", "y=Float32[1,4]") == "opforge_math_add_unit_broadcast4_f32"
    assert called("x=Float32[2,1,2,1,2]", "y=Float32[2,2,2,2,2]") == "opforge_math_add_unit_broadcast_f32"
    assert "opforge_tensor" not in (path.parent / "add.h").read_text()
    # (the loops cover MAX_RANK axes: a higher rank is refused, naming the tensor)
    nine = checker.check_unit(path, dict(checker.parse_input(i) for i in ("x=Float32[1,1,1,1,1,1,1,1,2]",
                                                                          "y=Float32[2]")))
    assert nine.kind == "refused" and nine.text.startswith("x: a unit broadcasts tensors of rank 8 at most")


#: NumPy's result of the elementwise ops the broadcast test runs (batch_norm: its default epsilon).
BROADCAST_REFERENCES = {
    "math.add": lambda a: a["x"] + a["y"],
    "base.where": lambda a: np.where(a["condition"], a["x"], a["y"]),
    "nn.batch_norm": lambda a: (a["x"] - a["mean"]) / np.sqrt(a["variance"] + np.float32(1e-5)) * a["gamma"] + a["beta"],
}


@pytest.mark.parametrize(("name", "shapes"), [
    ("math.add", [((3, 1), (1, 4)), ((2, 1, 3), (4, 1)), ((2, 1, 2, 1, 2), (2, 2, 2, 2, 2)), ((1, 5), (3, 1, 1))]),
    ("base.where", [((3, 1), (1, 4), (4,)), ((2, 1, 1), (3, 1), (1, 4)), ((2, 3), (2, 3), (2, 3))]),
    ("nn.batch_norm", [((2, 3, 4), (4,), (1, 4), (4,), (3, 1))]),
])
def test_an_elementwise_unit_broadcasts_its_operands_from_both_sides(out: Path, tmp_path: Path, name: str,
                                                                     shapes: list) -> None:
    """Operands stretched from both sides, or more than two of them: the unit computes the output's
    size and each operand's step along every axis, and its C implementation gives NumPy's result."""
    ns, short = name.split(".")
    path = out / ns / short / f"{short}.imunit"
    unit = ET.parse(path).getroot()[0]
    op = next(o for _, o in FUNCTION_OPS if o.qualified_name == name)
    rng = np.random.default_rng(5)
    lines, checks = [], []
    for k, given in enumerate(shapes):
        arrays = {i.name: (rng.uniform(size=s) < 0.5 if i.name == "condition" else
                           rng.uniform(0.5, 2, s).astype(np.float32)) for i, s in zip(op.inputs, given, strict=True)}
        want = np.asarray(BROADCAST_REFERENCES[name](arrays), dtype=np.float32)
        options = dict(checker.parse_option(f"{o.get('name')}={o.get('default')}") for o in unit.iter()
                       if o.tag.endswith("Option") and o.get("default") is not None)  # (batch_norm's epsilon)
        env, failed = _evaluate_unit(unit, options | {n: Tensor(VALUE_TYPES["Bool" if a.dtype == bool else "Float32"],
                                                                Shape(a.shape)) for n, a in arrays.items()})
        assert failed == [] and env["output_shape"].dims == want.shape, (given, failed)
        call = _chosen_call(unit, env)
        assert re.search(r"_broadcast\d?_f32\(", call) or len(set(given)) == 1, (given, call)
        passed = []
        for a in (a.strip() for a in call[call.index("(") + 1:-1].split(",")):
            if a in arrays:
                lines.append(golden.c_array(f"{a}{k}", arrays[a], arrays[a].dtype.name))
                passed.append(f"{a}{k}")
            else:
                passed.append(f"out{k}" if a == "output" else repr(env[a]))
        lines += [golden.c_array(f"want{k}", want, "float32"), f"static float out{k}[{want.size}];",
                  f"if ({call[:call.index('(')]}({', '.join(passed)}) != 0) return 2;"]
        checks.append(f"for (int i = 0; i < {want.size}; i++) {{ if (fabs((double)out{k}[i] - (double)want{k}[i]) > "
                      f"1e-5 * (1 + fabs((double)want{k}[i]))) return {k + 10}; }}")
    run = _run_driver(tmp_path, path.parent, op, [*lines, *checks, 'printf("ok\\n");', "return 0;"])
    assert (run.returncode, run.stdout.strip()) == (0, "ok"), run.stdout


@pytest.mark.parametrize("name", ["math.sub", "math.div", "base.gt", "math.pow"])
def test_a_binary_unit_runs_shape_broadcast_loops_when_one_operand_stretches(out: Path, tmp_path: Path,
                                                                            name: str) -> None:
    """One operand broadcast into the other's shape, from either side: the unit computes
    ShapeBroadcast's runs (or, for a single element, the other's count) and its C
    implementation gives NumPy's result."""
    ns, short = name.split(".")
    path = out / ns / short / f"{short}.imunit"
    unit = ET.parse(path).getroot()[0]
    op = next(o for _, o in FUNCTION_OPS if o.qualified_name == name)
    rng = np.random.default_rng(3)
    pairs = [((2, 3, 4), (4,)), ((2, 3, 4), (3, 1)), ((2, 3, 4), (2, 1, 4)), ((2, 3, 4), (1, 3, 1)),
             ((2, 3, 4), ()), ((3, 1, 5, 1), (3, 1, 5, 2)), ((2, 3, 4, 5), (2, 1, 4, 1))]
    pairs += [(b, a) for a, b in pairs]
    lines, checks = [], []
    function = {"math.sub": np.subtract, "math.div": np.divide, "base.gt": np.greater, "math.pow": np.power}[name]
    for k, (sx, sy) in enumerate(pairs):
        x = rng.uniform(0.5, 2, sx).astype(np.float32)
        y = rng.uniform(0.5, 2, sy).astype(np.float32)
        want = function(x, y)
        env, failed = _evaluate_unit(unit, {"x": Tensor(VALUE_TYPES["Float32"], Shape(x.shape)),
                                            "y": Tensor(VALUE_TYPES["Float32"], Shape(y.shape))})
        if failed:
            assert sx and sy, (sx, sy)  # (a comparison broadcasts scalars only)
            continue
        call = _chosen_call(unit, env)
        # a single element is read once, before the loop over the other operand
        single = (y.size == 1 and want.shape == x.shape) or (x.size == 1 and want.shape == y.shape)
        assert ("_scalar_f32(" if single else "_stretched_f32(") in call, (sx, sy, call)
        lines += [golden.c_array(f"x{k}", x, "float32"), golden.c_array(f"y{k}", y, "float32"),
                  golden.c_array(f"want{k}", want, want.dtype.name),
                  f"static {golden.C_TYPE[want.dtype.name]} out{k}[{max(1, want.size)}];"]
        passed = {"x": f"x{k}", "y": f"y{k}", "output": f"out{k}"}
        lines.append(f"if ({_invoke(call, passed, env)} != 0) return 2;")
        checks.append(f"for (int i = 0; i < {want.size}; i++) {{ if (fabs((double)out{k}[i] - (double)want{k}[i]) > "
                      f"1e-6 * (1 + fabs((double)want{k}[i]))) return {k + 10}; }}")
    assert len(checks) >= 2
    run = _run_driver(tmp_path, path.parent, op, [*lines, *checks, 'printf("ok\\n");', "return 0;"])
    assert (run.returncode, run.stdout.strip()) == (0, "ok"), run.stdout


#: Reductions with a NumPy counterpart of their one-axis result (moments: mean and variance).
PLAIN_REDUCTIONS = {"sum": (np.sum,), "mean": (np.mean,), "max": (np.max,), "min": (np.min,), "prod": (np.prod,),
                    "moments": (np.mean, np.var), "argmax": (np.argmax,), "argmin": (np.argmin,)}


@pytest.mark.parametrize("name", sorted(PLAIN_REDUCTIONS))
def test_a_reduction_unit_runs_its_plain_kernel_along_any_axis(out: Path, tmp_path: Path, name: str) -> None:
    """A reduction (or arg reduction) unit computes its kernel's step, size and slot with
    Expressions and calls a plain kernel (no descriptors), first among its implementations: the
    rows kernel where the axis has step 1, else the axis kernel; along every Imaginet axis of a
    rank-3 input, kept or not, it gives NumPy's result."""
    path = out / "math" / name / f"{name}.imunit"
    unit = ET.parse(path).getroot()[0]
    op = next(o for _, o in FUNCTION_OPS if o.qualified_name == f"math.{name}")
    x = np.random.default_rng(7).uniform(-2, 2, (2, 3, 4)).astype(np.float32)
    lines = [golden.c_array("data_x", x, "float32")]
    checks = []
    for k, (axis, keep) in enumerate((a, keep) for a in (0, 1, 2, -1, -2, -3) for keep in (False, True)):
        env = {o.get("name"): evaluate(o.get("default"), {}) for o in unit.find("Parameters")
               if o.tag.endswith("Option") and o.get("default") is not None}
        env |= {"x": Tensor(VALUE_TYPES["Float32"], Shape(x.shape)), "axis": axis, "keep_dims": keep}
        env, failed = _evaluate_unit(unit, env)
        assert failed == []
        call = _chosen_call(unit, env)
        # an axis of step 1 (the innermost: 0, or -3 counted from the outermost) runs the rows kernel
        geometry = "rows" if axis in (0, -3) else "plain"
        assert call.startswith(f"opforge_math_{name}_unit_{geometry}_f32("), call
        wants = [np.asarray(f(x.astype(np.float64), axis=env["numpy_axis"], keepdims=keep)) for f in PLAIN_REDUCTIONS[name]]
        wants = [w.astype(np.float32) if w.dtype.kind == "f" else w for w in _wants(op, tuple(wants))]
        for j, o in enumerate(op.outputs):
            lines.append(f"static {golden.C_TYPE[wants[j].dtype.name]} out{k}_{j}[{wants[j].size}];")
            lines.append(golden.c_array(f"want{k}_{j}", wants[j], wants[j].dtype.name))
            checks.append(f"for (int i = 0; i < {wants[j].size}; i++) {{ if (fabs((double)out{k}_{j}[i] - "
                          f"(double)want{k}_{j}[i]) > 1e-5 * (1 + fabs((double)want{k}_{j}[i]))) return {k + 10}; }}")
            assert env[f"{o.name}_shape" if j else "output_shape"].dims == wants[j].shape
        passed = {"x": "data_x"} | {o.name: f"out{k}_{j}" for j, o in enumerate(op.outputs)}
        lines.append(f"if ({_invoke(call, passed, env)} != 0) return 2;")
    assert len(checks) >= 2
    run = _run_driver(tmp_path, path.parent, op, [*lines, *checks, 'printf("ok\\n");', "return 0;"])
    assert (run.returncode, run.stdout.strip()) == (0, "ok"), run.stdout


@pytest.mark.parametrize("name", ["concat", "stack"])
def test_a_join_unit_runs_its_plain_kernel_along_any_axis(out: Path, tmp_path: Path, name: str) -> None:
    """concat and stack call a plain kernel over their connected sockets (a block of each per
    slot, as the real Concat and Stack), with no descriptors; along every Imaginet axis, with
    two and three sockets connected, they give NumPy's result."""
    path = out / "base" / name / f"{name}.imunit"
    unit = ET.parse(path).getroot()[0]
    op = next(o for _, o in FUNCTION_OPS if o.qualified_name == f"base.{name}")
    rng = np.random.default_rng(11)
    parts = [rng.uniform(-2, 2, (2, 3)).astype(np.float32) for _ in range(3)]
    if name == "concat":
        parts[1] = rng.uniform(-2, 2, (2, 3)).astype(np.float32)
    lines = [golden.c_array(f"data_{k}", p, "float32") for k, p in enumerate(parts)]
    checks = []
    axes = (0, 1, -1, -2) if name == "concat" else (0, 1, 2, -1, -3)
    for k, (axis, count) in enumerate((a, c) for a in axes for c in (2, 3)):
        given = parts[:count]
        sockets = {f"inputs{j}": Tensor(VALUE_TYPES["Float32"], Shape(given[j].shape)) if j < count else None
                   for j in range(4)}
        env, failed = _evaluate_unit(unit, {**sockets, "axis": axis})
        assert failed == []
        call = _chosen_call(unit, env)
        assert call.startswith(f"opforge_base_{name}_unit_{'stacked' if name == 'stack' else 'joined'}_f32("), call
        join = np.stack if name == "stack" else np.concatenate
        want = join(given, axis=env["numpy_axis"])
        assert env["output_shape"].dims == want.shape
        lines += [f"static float out{k}[{want.size}];", golden.c_array(f"want{k}", want, "float32")]
        passed = {f"inputs{j}": f"data_{j}" if j < count else "NULL" for j in range(4)} | {"output": f"out{k}"}
        lines.append(f"if ({_invoke(call, passed, env)} != 0) return 2;")
        checks.append(f"if (memcmp(out{k}, want{k}, sizeof want{k}) != 0) return {k + 10};")
    run = _run_driver(tmp_path, path.parent, op, [*lines, *checks, 'printf("ok\\n");', "return 0;"])
    assert (run.returncode, run.stdout.strip()) == (0, "ok"), run.stdout


@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_a_matmul_unit_runs_its_plain_kernel_over_equal_batches(out: Path, tmp_path: Path, dtype: str) -> None:
    """A batch of matrix products with equal batch axes: the plain loop nest over batch, rows,
    inner and cols, which the unit computes with Expressions; batch axes that broadcast (NumPy's
    matmul, from both sides): a loop per batch axis, each operand's step 0 where its size is 1."""
    path = out / "math" / "matmul" / "matmul.imunit"
    unit = ET.parse(path).getroot()[0]
    op = next(o for _, o in FUNCTION_OPS if o.qualified_name == "math.matmul")
    kind = DTYPE_TYPES[dtype]
    rng = np.random.default_rng(5)
    lines, checks = [], []
    pairs = [((3, 4), (4, 5)), ((2, 3, 4), (2, 4, 5)), ((2, 1, 3, 4), (2, 1, 4, 5)), ((1, 7), (7, 1)), ((2, 3, 0), (2, 0, 4))]
    broadcast = [((2, 3, 4), (4, 5)), ((3, 4), (2, 2, 4, 5)), ((2, 1, 3, 4), (1, 3, 4, 2)), ((1, 2, 1, 2, 3), (2, 3, 3, 1))]
    for k, (sa, sb) in enumerate([*pairs, *broadcast]):
        a = rng.integers(-3, 4, sa).astype(dtype)
        b = rng.integers(-3, 4, sb).astype(dtype)
        env, failed = _evaluate_unit(unit, {"a": Tensor(VALUE_TYPES[kind], Shape(a.shape)),
                                            "b": Tensor(VALUE_TYPES[kind], Shape(b.shape))})
        assert failed == []
        call = _chosen_call(unit, env)
        kernel = "matrices" if k < len(pairs) else "batches"
        assert call.startswith(f"opforge_math_matmul_unit_{kernel}_{golden_suffix(dtype)}("), call
        want = np.matmul(a, b)
        lines += [golden.c_array(f"a{k}", a, dtype), golden.c_array(f"b{k}", b, dtype),
                  golden.c_array(f"want{k}", want, dtype), f"static {golden.C_TYPE[dtype]} out{k}[{max(1, want.size)}];"]
        passed = {"a": f"a{k}", "b": f"b{k}", "output": f"out{k}"}
        lines.append(f"if ({_invoke(call, passed, env)} != 0) return 2;")
        checks.append(f"if (memcmp(out{k}, want{k}, sizeof want{k}[0] * {want.size}) != 0) return {k + 10};")
    run = _run_driver(tmp_path, path.parent, op, [*lines, *checks, 'printf("ok\\n");', "return 0;"])
    assert (run.returncode, run.stdout.strip()) == (0, "ok"), run.stdout


def test_a_transpose_unit_runs_its_plain_kernel(out: Path, tmp_path: Path) -> None:
    """math.matrix_transpose (``...|ij=>...|ji``): the plain copy over batch, rows and cols, computed by
    the unit's Expressions, gives NumPy's swapped axes."""
    path = out / "math" / "matrix_transpose" / "matrix_transpose.imunit"
    unit = ET.parse(path).getroot()[0]
    op = next(o for _, o in FUNCTION_OPS if o.qualified_name == "math.matrix_transpose")
    lines, checks = [], []
    for k, shape in enumerate([(3, 4), (2, 3, 4), (2, 1, 3, 5), (4, 1), (0, 3)]):
        x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
        env, failed = _evaluate_unit(unit, {"x": Tensor(VALUE_TYPES["Float32"], Shape(x.shape))})
        assert failed == []
        call = _chosen_call(unit, env)
        assert call.startswith("opforge_math_matrix_transpose_unit_transposed_f32("), call
        want = np.ascontiguousarray(np.swapaxes(x, -1, -2))
        lines += [golden.c_array(f"x{k}", x, "float32"), golden.c_array(f"want{k}", want, "float32"),
                  f"static float out{k}[{max(1, want.size)}];"]
        passed = {"x": f"x{k}", "output": f"out{k}"}
        lines.append(f"if ({_invoke(call, passed, env)} != 0) return 2;")
        checks.append(f"if (memcmp(out{k}, want{k}, sizeof want{k}[0] * {want.size}) != 0) return {k + 10};")
    run = _run_driver(tmp_path, path.parent, op, [*lines, *checks, 'printf("ok\\n");', "return 0;"])
    assert (run.returncode, run.stdout.strip()) == (0, "ok"), run.stdout


#: Element types a real unit of the same job takes and opforge's does not, and why (issue 19
#: asks for at least the real unit's; the fixed-point Q and D types are issue 20's). None since
#: integers compute through floats where the real units' do (ADR 0058): mean, deviation, clip and
#: the trigonometric units.
TYPE_GAPS: dict[str, set[str]] = {}
FIXED_POINT = {"Q7", "Q15", "Q31", "D8", "D16", "D32"}


def _types_chosen(path: Path) -> set[str]:
    """The System types an Implementation of the unit is chosen for (by a socket's type, or by
    a dtype option's value: fill)."""
    tests = [c.get("value", "") for c in ET.parse(path).getroot().iter("Conditional")]
    named = {units.VALUE_TYPE[d] for t in tests for d in re.findall(r'== "(\w+)"', t) if d in units.VALUE_TYPE}
    return {t for test in [*tests, *named] for t in re.findall(r"System\.(\w+)", test)}


def test_units_take_the_element_types_of_the_real_units_of_their_job(out: Path) -> None:
    """For every pair the size benchmark measures, the types the real unit implements are
    implemented by opforge's unit too (UInt16 and UInt32 included), but for the gaps listed."""
    sys.path.insert(0, str(ROOT))
    from benchmarks.unit_sizes import PAIRS
    from test_unit_check import LIBRARY
    if not LIBRARY.is_dir():
        pytest.skip("the reference unit library is not here")
    seen = set()
    for unit, _, _, real, _, _ in PAIRS:
        missing = _types_chosen(next((LIBRARY / real).glob("*.imunit"))) - FIXED_POINT - \
            _types_chosen(out / unit / f"{unit.rsplit('/', 1)[1]}.imunit")
        assert missing == TYPE_GAPS.get(unit, set()), (unit, real, missing)
        seen.add(unit)
    assert set(TYPE_GAPS) <= seen
    assert {"UInt16", "UInt32"} <= _types_chosen(out / "math" / "argmax" / "argmax.imunit")


def test_a_unit_is_chosen_for_the_types_its_op_page_lists(out: Path) -> None:
    """The docs show each tensor's dtypes and fixed-point types with the System type names a
    unit's sockets take (issue 22): every unit but a compound one (whose nodes choose) has an
    Implementation for each type of its inputs (and of its outputs, where a dtype option sets
    them) and for no other."""
    from generators.kernels import fixed_point
    from generators.kernels.selection import variants_of
    differ = []
    for ns in loader.load(ROOT / "ops").catalogue.namespaces:
        for op in code_ops(ns):
            if op.composition is not None:
                continue
            fixed = [*fixed_point.api_types(op), *(t.name for t in fixed_point.api_moves(op))]
            # (a unit is chosen by its inputs' types, and by its dtype option where it has one)
            chooser = (*op.inputs, *op.outputs) if C.dtype_from_arg(op.compute) or \
                getattr(op.compute, "chooses_type", False) else op.inputs
            system = {**SYSTEM_TYPE, **{t.name: t.system for t in F.TYPES.values()}}  # (a conversion's are types)
            listed = ({system[v.of(t.name)] for v in variants_of(op) for t in chooser
                       if all(in_units(d) for _, d in v.tensors)}  # (float16: in no unit, ADR 0075)
                      | {F.TYPES[f].system for f in fixed})
            chosen = _types_chosen(out / ns.key / op.name / f"{op.name}.imunit")
            if chosen != listed:
                differ.append((op.qualified_name, sorted(chosen - listed), sorted(listed - chosen)))
    assert differ == []


#: The trigonometric units and the real units of their jobs.
TRIGONOMETRY = (("sin", "Sin"), ("cos", "Cos"), ("tan", "Tan"), ("sinh", "Sinh"), ("cosh", "Cosh"), ("tanh", "Tanh"),
                ("asin", "ArcSin"), ("acos", "ArcCos"), ("atan", "ArcTan"))
#: Units whose integers compute through floats (ADR 0058), the real unit of the same job and the
#: real kernel's name for a dtype suffix.
THROUGH_FLOAT = {
    **{f"math/{ours}": (f"Trigonometry/{real}", f"{real.lower()}_{{}}") for ours, real in TRIGONOMETRY},
    "math/clip_by_value": ("ElementWise/Clip", "clip_{}"),
    "math/mean": ("Single/Average", "average_{}"),
    "base/standard_deviation": ("Single/StandardDeviation", "standard_deviation_{}"),
}


def _real_header(unit: str) -> Path:
    from test_unit_check import LIBRARY
    if not LIBRARY.is_dir():
        pytest.skip("the reference unit library is not here")
    folder = LIBRARY / "Imaginet.Units.Math" / THROUGH_FLOAT[unit][0]
    return next(h for h in sorted(folder.glob("*.h")) if "cmsis" not in h.name)


def _ours_and_theirs(out: Path, tmp_path: Path, unit: str, x: np.ndarray, ours: str, theirs: str,
                     n_out: int) -> tuple[np.ndarray, np.ndarray]:
    """The outputs of our unit's C call and the real kernel's, each given ``x`` (as ``x`` and
    ``input``): ``ours`` and ``theirs`` are the calls, over ``x`` into ``output``."""
    folder = out / unit
    header = _real_header(unit)
    ct = golden.C_TYPE[x.dtype.name]
    fmt = "%lld"
    lines = ["#include <stdio.h>", '#include "opforge_shared.h"', f'#include "{folder.name}.h"',
             f'#include "{header}"', "int main(void)", "{", golden.c_array("x", x, x.dtype.name),
             f"static {ct} ours[{max(1, n_out)}], theirs[{max(1, n_out)}];",
             f"const {ct}* input = x; {ct}* output;", "(void)input;",
             f"output = ours; if ({ours} != 0) return 2;", f"output = theirs; {theirs};",
             f'for (int i = 0; i < {n_out}; i++) printf("{fmt} {fmt}\\n", (long long)ours[i], (long long)theirs[i]);',
             "return 0;", "}"]
    driver = tmp_path / "driver.c"
    driver.write_text("\n".join(lines) + "\n")
    run = _build_and_run(driver, "-ffp-contract=off", "-Wno-unused-variable", f"-I{folder}", f"-I{out}")
    assert run.returncode == 0, run.stdout + run.stderr
    both = np.array([[int(v) for v in line.split()] for line in run.stdout.split("\n") if line], dtype=np.int64)
    return both[:, 0].reshape(-1), both[:, 1].reshape(-1)


def _unit_call(out: Path, unit: str, x: np.ndarray, **options) -> str:
    """Our unit's C call, as Studio chooses it for ``x`` (bound to the C names of the driver)."""
    root = ET.parse(out / unit / f"{unit.rsplit('/', 1)[1]}.imunit").getroot()[0]
    kind = {"int8": "Int8", "uint8": "UInt8", "int16": "Int16", "int32": "Int32"}[x.dtype.name]
    name = root.find("Parameters/InputSocket").get("name")
    env, failed = _evaluate_unit(root, {name: Tensor(VALUE_TYPES[kind], Shape(x.shape)), **options})
    assert failed == [], failed
    call = _chosen_call(root, env)
    assert f"_{golden_suffix(x.dtype.name)}(" in call, call
    return _invoke(call, {name: "x", "output": "output"}, env)


@pytest.mark.parametrize("unit", [f"math/{ours}" for ours, _ in TRIGONOMETRY])
@pytest.mark.parametrize("dtype", ["int8", "uint8"])
def test_eight_bit_trigonometry_is_the_real_units_and_the_float_reference_cast_back(
        out: Path, tmp_path: Path, unit: str, dtype: str) -> None:
    """Every 8-bit value: our unit reads a table of the NumPy reference's results (ADR 0058: the
    float64 result converted back by cast's rule), so it gives exactly what NumPy computes; the
    real unit converts libm's double, and gives the same wherever C defines its conversion (a
    finite result inside the type) but where libm and NumPy straddle an integer (tanh(19) is 1.0
    to glibc, a last bit under 1 to NumPy, which rounds it correctly: 1 and 0)."""
    x = np.arange(np.iinfo(dtype).min, np.iinfo(dtype).max + 1).astype(dtype)
    ours, theirs = _ours_and_theirs(out, tmp_path, unit, x, _unit_call(out, unit, x),
                                    f"{THROUGH_FLOAT[unit][1].format(golden_suffix(dtype))}(x, {x.size}, output)",
                                    x.size)
    info = np.iinfo(dtype)

    def cast(real: np.ndarray) -> np.ndarray:
        return np.where(np.isnan(real), 0, np.clip(np.trunc(np.nan_to_num(real)), info.min, info.max))

    def libm(v: int) -> float:
        try:
            return getattr(math, unit[5:])(float(v))
        except (ValueError, OverflowError) as error:  # (math raises where libm gives NaN or infinity)
            return float("nan") if isinstance(error, ValueError) else float("inf")

    name = {"asin": "arcsin", "acos": "arccos", "atan": "arctan"}.get(unit[5:], unit[5:])
    with np.errstate(all="ignore"):
        numpy = cast(getattr(np, name)(x.astype(np.float64)))
    assert np.array_equal(ours, numpy), x[ours != numpy]
    real = np.array([libm(int(v)) for v in x])
    straddled = cast(real) != numpy
    assert np.count_nonzero(straddled) <= 2, x[straddled]
    defined = np.isfinite(real) & (np.trunc(real) >= info.min) & (np.trunc(real) <= info.max) & ~straddled
    assert defined.sum() > 0 and np.array_equal(ours[defined], theirs[defined]), x[defined & (ours != theirs)]
    assert np.array_equal(theirs[defined | straddled], cast(real)[defined | straddled])  # (the real one: libm's)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32"])
def test_integer_clip_is_the_real_units_and_keeps_its_bounds(out: Path, tmp_path: Path, dtype: str) -> None:
    """clip_by_value of integers with integer bounds: the real Clip's result (its bounds rounded
    by its Expressions are the same integers); bounds between two integers clip the real value,
    then truncate (2.5 and 7.5 give 2 and 7)."""
    info = np.iinfo(dtype)
    x = np.array([info.min, -300, -9, -3, 0, 2, 3, 7, 8, 300, info.max]).astype(dtype)
    for low, high in ((-3.0, 7.0), (-8.0, 8.0)):
        call = _unit_call(out, "math/clip_by_value", x, clip_value_min=low, clip_value_max=high)
        real = f"{THROUGH_FLOAT['math/clip_by_value'][1].format(golden_suffix(dtype))}(x, {x.size}, {int(low)}, " \
               f"{int(high)}, output)"
        ours, theirs = _ours_and_theirs(out, tmp_path, "math/clip_by_value", x, call, real, x.size)
        assert np.array_equal(ours, np.clip(x, low, high)) and np.array_equal(ours, theirs), (low, high, ours)
    call = _unit_call(out, "math/clip_by_value", x, clip_value_min=2.5, clip_value_max=7.5)
    ours, _ = _ours_and_theirs(out, tmp_path, "math/clip_by_value", x, call, "(void)0", x.size)
    assert ours.tolist() == np.trunc(np.clip(x.astype(np.float64), 2.5, 7.5)).astype(np.int64).tolist()
    assert set(ours.tolist()) == {2, 3, 7}


@pytest.mark.parametrize(("unit", "dtype"), [("math/mean", "int8"), ("math/mean", "int16"), ("math/mean", "int32"),
                                             ("base/standard_deviation", "int8"),
                                             ("base/standard_deviation", "int16")])  # (the real units' types)
def test_integer_means_and_deviations_truncate_as_the_real_units_do(out: Path, tmp_path: Path, unit: str,
                                                                    dtype: str) -> None:
    """The mean and deviation of integers along an axis, in the input's type: NumPy's float64
    result truncated toward zero, and what the real Average (an int32 sum divided in C) and
    StandardDeviation (in float32) give, wherever float32 cannot round across an integer."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(58)
    high = min(int(info.max), 1 << 20) if unit == "math/mean" else int(info.max)  # (the real int32 sum)
    x = rng.integers(-high, high, (5, 7, 3), endpoint=True).astype(dtype)
    x[0, :, 0] = info.min  # a row of the least value: its mean is exact
    x[1, :, 1] = np.arange(-3, 4)  # a row of mean 0 whose terms cancel
    axis = 1  # (NumPy's; the unit counts from the innermost: 1 too on a rank-3 input)
    real = THROUGH_FLOAT[unit][1].format(golden_suffix(dtype))
    # (the real kernel's d0, d1, d2: step, size and slot of the axis)
    call = f"{real}(x, {x.shape[2]}, {x.shape[1]}, {x.shape[0]}, output)"
    ours, theirs = _ours_and_theirs(out, tmp_path, unit, x, _unit_call(out, unit, x, axis=1), call,
                                    x.size // x.shape[axis])
    exact = (np.mean if unit == "math/mean" else np.std)(x.astype(np.float64), axis=axis).reshape(-1)
    assert np.array_equal(ours, np.trunc(exact)), (ours, exact)
    near = np.abs(exact - np.round(exact)) < 1e-4  # (float32 may round across an integer there)
    assert np.array_equal(ours[~near], theirs[~near]), (ours, theirs)


#: The Q types a real unit of the same job takes and opforge's does not (issue 20 asks for every
#: op whose real unit takes a Q type, with the same types), and why.
Q_GAPS: dict[str, set[str]] = {}  # (log's Q15 and Q31: the reference library's Log itself, ADR 0046)


def test_units_take_the_q_types_of_the_real_units_of_their_job(out: Path) -> None:
    """For every pair the size benchmark measures whose real unit takes Q types, opforge's unit
    takes them too, but for the gaps listed (each with its reason)."""
    sys.path.insert(0, str(ROOT))
    from benchmarks.unit_sizes import PAIRS
    from test_unit_check import LIBRARY
    if not LIBRARY.is_dir():
        pytest.skip("the reference unit library is not here")
    found = {}
    for unit, _, _, real, _, _ in PAIRS:
        theirs = _types_chosen(next((LIBRARY / real).glob("*.imunit"))) & FIXED_POINT
        ours = _types_chosen(out / unit / f"{unit.rsplit('/', 1)[1]}.imunit")
        if theirs:
            found[unit] = theirs - ours
    assert {u: m for u, m in found.items() if m} == Q_GAPS, found
    assert {"math/abs", "math/max", "math/min"} <= set(found), found  # (and nothing missing there)


def test_a_fill_unit_runs_its_plain_kernel_and_refuses_an_inexact_value(out: Path, tmp_path: Path) -> None:
    """fill and full_like write the value with no descriptors; a value their dtype does not hold
    exactly is refused by an Assert (as the C API refuses it), not converted."""
    path = out / "base" / "fill" / "fill.imunit"

    def check(unit: Path, inputs: dict, **options: str) -> checker.Verdict:
        return checker.check_unit(unit, inputs, {k: checker.parse_option(f"{k}={v}")[1] for k, v in options.items()})

    for dtype, value in (("int8", "127"), ("uint32", "4294967295"), ("int64", "-9223372036854775808"),
                         ("float32", "0.1")):
        assert check(path, {}, shape="System.Shape(2)", value=value, dtype=f'"{dtype}"').kind == "ok", dtype
    for dtype, value in (("int8", "128"), ("int8", "1.5"), ("uint16", "-1"), ("uint32", "4294967296")):
        refused = check(path, {}, shape="System.Shape(2)", value=value, dtype=f'"{dtype}"')
        assert refused.kind == "refused" and refused.text.startswith("value: must convert exactly"), refused.line()
    like = out / "base" / "full_like" / "full_like.imunit"
    assert check(like, dict([checker.parse_input("x=Int16[3]")]), value="2.5").kind == "refused"
    chosen = checker.implementations(path, {}, {"shape": Shape((3, 2)), "value": -7.0, "dtype": "int16"})
    c = next(c for c in chosen if c.language == "C")
    assert c.function == "opforge_base_fill_unit_filled_i16" and c.arguments[1:] == (6, -7.0), c
    assert "opforge_tensor" not in (path.parent / "fill.h").read_text()
    # its dtype option offers the dtypes it implements (a fill is numeric: no bool)
    offered = [item.text for item in ET.parse(path).getroot().iter("Item")]
    assert "bool" not in offered and {"int8", "uint32", "float32"} <= set(offered), offered
    op = next(o for _, o in FUNCTION_OPS if o.qualified_name == "base.fill")
    run = _run_driver(tmp_path, path.parent, op, [
        "int16_t out[6];", "if (opforge_base_fill_unit_filled_i16(out, 6, -7.0) != 0) return 2;",
        "for (int i = 0; i < 6; i++) { if (out[i] != -7) return 3; }", 'printf("ok\\n");', "return 0;"])
    assert (run.returncode, run.stdout.strip()) == (0, "ok"), run.stdout


def test_range_and_linspace_units_run_their_plain_kernel_and_refuse_values_the_dtype_cannot_hold(
        out: Path, tmp_path: Path) -> None:
    """range and linspace compute each value in double and truncate it to an integer dtype, with no
    descriptors; where an end (the form's ``Generation.ends``), truncated, is outside the dtype, an
    Assert refuses, as the C API does, and nothing is computed."""
    ranged, spaced = (out / "base" / name / f"{name}.imunit" for name in ("range", "linspace"))

    def check(unit: Path, **options: str) -> checker.Verdict:
        return checker.check_unit(unit, {}, {k: checker.parse_option(f"{k}={v}")[1] for k, v in options.items()})

    for unit, options in ((ranged, dict(start="0", limit="128", delta="1", dtype='"int8"')),
                          (ranged, dict(start="-128.9", limit="0", delta="1", dtype='"int8"')),
                          (ranged, dict(start="5", limit="5", delta="1", dtype='"uint8"')),
                          (ranged, dict(start="1e10", limit="0", delta="-1e9", dtype='"int64"')),
                          (spaced, dict(start="-0.5", stop="255", num="4", dtype='"uint8"')),
                          (spaced, dict(start="-300", stop="300", num="0", dtype='"int8"'))):
        assert check(unit, **options).kind == "ok", options
    for unit, options in ((ranged, dict(start="0", limit="129", delta="1", dtype='"int8"')),
                          (ranged, dict(start="3", limit="-2", delta="-1", dtype='"uint16"')),
                          (spaced, dict(start="0", stop="256", num="4", dtype='"uint8"')),
                          (spaced, dict(start="-1", stop="5", num="2", dtype='"uint32"'))):
        refused = check(unit, **options)
        assert refused.kind == "refused" and refused.text.startswith("the values must fit"), refused.line()
    cases = {ranged: [(dict(start=-3.0, limit=7.5, delta=2.5), "int16"), (dict(start=1.0, limit=0.0, delta=-0.25), "float32")],
             spaced: [(dict(start=-2.0, stop=3.0, num=7), "int32"), (dict(start=0.0, stop=1.0, num=5), "float64"),
                      (dict(start=4.0, stop=9.0, num=1), "uint8")]}
    for unit, given in cases.items():
        lines, checks = [], []
        for k, (args, dtype) in enumerate(given):
            chosen = checker.implementations(unit, {}, {**args, "dtype": dtype})
            c = next(c for c in chosen if c.language == "C")
            assert c.function == f"opforge_base_{unit.stem}_unit_ramp_{golden_suffix(dtype)}", c
            want = np.arange(args["start"], args["limit"], args["delta"]) if unit == ranged else \
                np.linspace(args["start"], args["stop"], args["num"])
            want = want.astype(dtype)  # (truncated toward zero, as NumPy converts)
            lines += [golden.c_array(f"want{k}", want, dtype), f"static {golden.C_TYPE[dtype]} out{k}[{max(1, want.size)}];",
                      f"if ({c.function}(out{k}, {', '.join(repr(a) for a in c.arguments[1:])}) != 0) return 2;"]
            checks.append(f"if (memcmp(out{k}, want{k}, sizeof want{k}[0] * {want.size}) != 0) return {k + 10};")
        op = next(o for _, o in FUNCTION_OPS if o.qualified_name == f"base.{unit.stem}")
        run = _run_driver(tmp_path, unit.parent, op, [*lines, *checks, 'printf("ok\\n");', "return 0;"])
        assert (run.returncode, run.stdout.strip()) == (0, "ok"), (unit.stem, run.stdout)


#: (op, x's shape, the unit's list options, NumPy's result from x)
STRIDED_CASES = [
    ("transpose", (2, 3, 4), {}, lambda x: np.transpose(x)),
    ("transpose", (1, 2, 1, 3, 2), {}, lambda x: np.transpose(x)),
    ("transpose", (5,), {}, lambda x: np.transpose(x)),
    ("transpose", (2, 0, 3), {}, lambda x: np.transpose(x)),
    ("permute", (2, 3, 4), {"perm": (1, -1, 0)}, lambda x: np.transpose(x, (1, 2, 0))),
    ("permute", (2, 1, 3, 2), {"perm": (3, 0, 2, 1)}, lambda x: np.transpose(x, (3, 0, 2, 1))),
    ("reverse", (2, 3, 4), {"axes": (-1, 0)}, lambda x: x[::-1, :, ::-1]),
    ("reverse", (3, 4), {"axes": ()}, lambda x: x),
    ("slice", (4, 5), {"begin": (1, 2), "size": (2, -1)}, lambda x: x[1:3, 2:]),
    ("slice", (2, 3, 4), {"begin": (0, 3, 1), "size": (2, 0, 2)}, lambda x: x[0:2, 3:3, 1:3]),
    ("strided_slice", (5, 6), {"begin": (4, -9), "end": (-9, 5), "strides": (-2, 2)}, lambda x: x[4:-9:-2, -9:5:2]),
    ("strided_slice", (2, 3, 7), {"begin": (1, 0, 6), "end": (-3, 3, 0), "strides": (-1, 1, -3)},
     lambda x: x[1:-3:-1, 0:3, 6:0:-3]),
    ("tile", (2, 3), {"repeats": (2, 3)}, lambda x: np.tile(x, (2, 3))),
    ("tile", (2, 1, 3), {"repeats": (1, 4, 2)}, lambda x: np.tile(x, (1, 4, 2))),
    ("tile", (0, 2), {"repeats": (3, 1)}, lambda x: np.tile(x, (3, 1))),
]


@pytest.mark.parametrize("dtype", ["float32", "int16"])
def test_a_strided_layout_unit_runs_its_plain_kernel(out: Path, tmp_path: Path, dtype: str) -> None:
    """transpose, permute, reverse, slice, strided_slice and tile call one plain kernel (ADR 0032)
    with steps and an offset (a tile: and periods) their Expressions render from the form's
    reading plan: negative axes and strides, clamped bounds and empty results give NumPy's
    elements."""
    lines, checks = [], []
    for k, (name, shape, options, numpy) in enumerate(STRIDED_CASES):
        path = out / "base" / name / f"{name}.imunit"
        unit = ET.parse(path).getroot()[0]
        x = np.arange(1, int(np.prod(shape)) + 1).astype(dtype).reshape(shape)
        env = {"x": Tensor(VALUE_TYPES[DTYPE_TYPES[dtype]], Shape(shape))}
        env |= {option: Shape(values) for option, values in options.items()}
        env, failed = _evaluate_unit(unit, env)
        want = np.ascontiguousarray(numpy(x))
        assert failed == [] and env["output_shape"] == Shape(want.shape), (name, failed)
        call = _chosen_call(unit, env)
        loops = next(r for r in (2, 4, "") if r == "" or want.ndim <= r)  # (the fewest loops that hold it)
        assert call.startswith(f"opforge_base_{name}_unit_strided{loops}_"), call
        lines += [golden.c_array(f"x{k}", x, dtype), golden.c_array(f"want{k}", want, dtype),
                  f"static {golden.C_TYPE[dtype]} out{k}[{max(1, want.size)}];"]
        passed = {"x": f"x{k}", "output": f"out{k}"}
        lines.append(f"if ({_invoke(call, passed, env)} != 0) return 2;")
        checks.append(f"if (memcmp(out{k}, want{k}, sizeof want{k}[0] * {want.size}) != 0) return {k + 10};")
        # (each unit's header is included once: the driver holds every call)
    ops = {o.name: o for _, o in FUNCTION_OPS if o.qualified_name.startswith("base.")}
    driver = tmp_path / "driver.c"
    names = dict.fromkeys(name for name, *_ in STRIDED_CASES)
    driver.write_text("\n".join(["#include <stdio.h>", "#include <string.h>", '#include "opforge_shared.h"',
                                 *(f'#include "{n}/{n}.h"' for n in names), "int main(void)", "{", *lines, *checks,
                                 'printf("ok\\n");', "return 0;", "}"]) + "\n")
    assert set(names) <= set(ops)
    run = _build_and_run(driver, f"-I{out / 'base'}", f"-I{out}")
    assert (run.returncode, run.stdout.strip()) == (0, "ok"), run.returncode


def _softmax(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


#: Hand-written fragments along one axis, with NumPy's result (options beyond the axis).
AXIS_FRAGMENTS = [
    ("nn", "softmax", {}, _softmax),
    ("nn", "log_softmax", {}, lambda x, a: np.log(_softmax(x, a))),
    ("math", "cumsum", {"exclusive": False, "reverse": False}, lambda x, a: np.cumsum(x, axis=a)),
    ("math", "cumsum", {"exclusive": False, "reverse": True},
     lambda x, a: np.flip(np.cumsum(np.flip(x, a), axis=a), a)),
]


@pytest.mark.parametrize(("ns", "name", "options", "numpy"), AXIS_FRAGMENTS,
                         ids=[f"{n}-{'-'.join(k for k, v in o.items() if v) or 'plain'}" for _, n, o, _ in AXIS_FRAGMENTS])
def test_an_axis_fragment_unit_calls_its_fragment_along_any_axis(out: Path, tmp_path: Path, ns: str, name: str,
                                                                   options: dict, numpy) -> None:
    """A unit over a hand-written fragment along one axis calls the fragment itself with the
    axis's step, size and slot as Expressions (no descriptors, no adapter); along every Imaginet
    axis of a rank-3 input it gives NumPy's result."""
    path = out / ns / name / f"{name}.imunit"
    unit = ET.parse(path).getroot()[0]
    op = next(o for _, o in FUNCTION_OPS if o.qualified_name == f"{ns}.{name}")
    x = np.random.default_rng(11).uniform(-2, 2, (2, 3, 4)).astype(np.float32)
    lines, checks = [golden.c_array("data_x", x, "float32")], []
    for k, axis in enumerate((0, 1, 2, -1, -3)):
        env, failed = _evaluate_unit(unit, {"x": Tensor(VALUE_TYPES["Float32"], Shape(x.shape)), "axis": axis,
                                            **options})
        assert failed == []
        call = _chosen_call(unit, env)
        assert call.startswith(f"opforge_{ns}_{name}_unit_plain_f32("), call
        want = numpy(x.astype(np.float64), env["numpy_axis"]).astype(np.float32)
        lines += [f"static float out{k}[{want.size}];", golden.c_array(f"want{k}", want, "float32")]
        checks.append(f"for (int i = 0; i < {want.size}; i++) {{ if (fabs((double)out{k}[i] - (double)want{k}[i]) > "
                      f"1e-5 * (1 + fabs((double)want{k}[i]))) return {k + 10}; }}")
        lines.append(f"if ({_invoke(call, {'x': 'data_x', 'output': f'out{k}'}, env)} != 0) return 2;")
    run = _run_driver(tmp_path, path.parent, op, [*lines, *checks, 'printf("ok\\n");', "return 0;"])
    assert (run.returncode, run.stdout.strip()) == (0, "ok"), run.stdout


def test_a_matrix_fragment_unit_calls_its_fragment_and_returns_imaginets_error(out: Path, tmp_path: Path) -> None:
    """linalg.cholesky's unit calls the hand-written fragment over a batch of matrices with sizes
    its Expressions compute (no adapter), gives NumPy's factor, and returns -2 (IPWIN_RET_ERROR)
    for a matrix that is not positive definite."""
    path = out / "linalg" / "cholesky" / "cholesky.imunit"
    unit = ET.parse(path).getroot()[0]
    op = next(o for _, o in FUNCTION_OPS if o.qualified_name == "linalg.cholesky")
    a = np.random.default_rng(5).uniform(-1, 1, (2, 3, 3))
    good = (a @ np.swapaxes(a, -1, -2) + 3 * np.eye(3)).astype(np.float32)
    bad = good.copy()
    bad[1, 2, 2] = -50.0
    env, failed = _evaluate_unit(unit, {"x": Tensor(VALUE_TYPES["Float32"], Shape(good.shape))})
    assert failed == []
    call = _chosen_call(unit, env)
    assert call.startswith("opforge_linalg_cholesky_unit_batched_f32("), call
    want = np.linalg.cholesky(good.astype(np.float64)).astype(np.float32)

    def invoke(x: str) -> str:
        return _invoke(call, {"x": x, "output": "out"}, env)

    lines = [golden.c_array("good", good, "float32"), golden.c_array("bad", bad, "float32"),
             golden.c_array("want", want, "float32"), f"static float out[{want.size}];",
             f"if ({invoke('good')} != 0) return 2;",
             f"for (int i = 0; i < {want.size}; i++) {{ if (fabs((double)out[i] - (double)want[i]) > 1e-5) return 3; }}",
             f"if ({invoke('bad')} != -2) return 4;", 'printf("ok\\n");', "return 0;"]
    run = _run_driver(tmp_path, path.parent, op, lines)
    assert (run.returncode, run.stdout.strip()) == (0, "ok"), run.stdout


def test_a_scatter_unit_checks_every_index_before_it_writes(out: Path, tmp_path: Path) -> None:
    """scatter_add and segment_mean call one plain kernel with sizes their Expressions compute:
    NumPy's result for negative and repeated indices (segments: empty ones stay 0), and -2
    (IPWIN_RET_ERROR), the output untouched, for an index out of range or out of order."""
    ref = np.arange(12, dtype=np.float32).reshape(4, 3)
    indices = np.array([0, -1, 0], dtype=np.int64)
    updates = np.ones((3, 3), dtype=np.float32) * np.array([[1], [10], [100]], dtype=np.float32)
    want_add = ref.copy()
    np.add.at(want_add, indices, updates)
    ids = np.array([0, 0, 2], dtype=np.int64)
    want_mean = np.zeros((4, 3), dtype=np.float32)
    for s in range(4):
        if (ids == s).any():
            want_mean[s] = updates[ids == s].mean(axis=0)
    lines, checks = [], []
    cases = [("scatter_add", {"ref": ref, "indices": indices, "updates": updates}, {}, want_add),
             ("segment_mean", {"segment_ids": ids, "data": updates}, {"num_segments": 4}, want_mean)]
    for k, (name, sockets, options, want) in enumerate(cases):
        path = out / "base" / name / f"{name}.imunit"
        unit = ET.parse(path).getroot()[0]
        env = {n: Tensor(VALUE_TYPES[DTYPE_TYPES[a.dtype.name]], Shape(a.shape)) for n, a in sockets.items()}
        env, failed = _evaluate_unit(unit, env | options)
        assert failed == [] and env["output_shape"] == Shape(want.shape), failed
        call = _chosen_call(unit, env)
        assert call.startswith(f"opforge_base_{name}_unit_scattered_f32("), call
        bad = {"indices": np.array([0, 4, 0]), "segment_ids": np.array([0, 2, 1])}
        for n, a in sockets.items():
            lines.append(golden.c_array(f"{n}{k}", a, a.dtype.name))
            if n in bad:
                lines.append(golden.c_array(f"bad_{n}{k}", bad[n].astype(np.int64), "int64"))
        lines += [golden.c_array(f"want{k}", want, "float32"), f"static float out{k}[{want.size}];"]

        def invoke(bad_indices: bool) -> str:
            given = {a: f"bad_{a}{k}" if bad_indices and a in bad else f"{a}{k}" for a in sockets}
            return _invoke(call, given | {"output": f"out{k}"}, env)

        lines += [f"if ({invoke(False)} != 0) return 2;",
                  f"for (int i = 0; i < {want.size}; i++) {{ if (fabs((double)out{k}[i] - (double)want{k}[i]) > 1e-6) "
                  f"return {k + 10}; }}",
                  f"memset(out{k}, 0, sizeof out{k});", f"if ({invoke(True)} != -2) return {k + 20};",
                  f"for (int i = 0; i < {want.size}; i++) {{ if (out{k}[i] != 0) return {k + 30}; }}"]
    op = next(o for _, o in FUNCTION_OPS if o.qualified_name == "base.scatter_add")
    driver = tmp_path / "driver.c"
    driver.write_text("\n".join(["#include <math.h>", "#include <stdio.h>", "#include <string.h>",
                                 '#include "opforge_shared.h"', '#include "scatter_add/scatter_add.h"',
                                 '#include "segment_mean/segment_mean.h"', "int main(void)", "{", *lines, *checks,
                                 'printf("ok\\n");', "return 0;", "}"]) + "\n")
    run = _build_and_run(driver, f"-I{out / 'base'}", f"-I{out}")
    assert (run.returncode, run.stdout.strip()) == (0, "ok"), (run.returncode, op.name)


def test_a_gather_unit_checks_its_indices_and_takes_blocks_along_any_axis(out: Path, tmp_path: Path) -> None:
    """gather calls one plain kernel with its axis's step, size and slot and the indices' count
    as Expressions: along every Imaginet axis, with negative and repeated indices of any rank,
    it gives NumPy's take; an index out of range returns -2 (IPWIN_RET_ERROR)."""
    path = out / "base" / "gather" / "gather.imunit"
    unit = ET.parse(path).getroot()[0]
    op = next(o for _, o in FUNCTION_OPS if o.qualified_name == "base.gather")
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    indices = np.array([[1, -1], [0, 1]], dtype=np.int64)
    lines = [golden.c_array("x", x, "float32"), golden.c_array("at", indices, "int64"),
             golden.c_array("bad", np.array([[0, 2], [-3, 0]], dtype=np.int64), "int64")]
    for k, axis in enumerate((0, 1, 2, -1)):
        env, failed = _evaluate_unit(unit, {"x": Tensor(VALUE_TYPES["Float32"], Shape(x.shape)),
                                            "indices": Tensor(VALUE_TYPES["Int64"], Shape(indices.shape)), "axis": axis})
        assert failed == []
        numpy_axis = x.ndim - 1 - axis if axis >= 0 else -1 - axis
        want = np.take(x, indices, axis=numpy_axis)
        assert env["output_shape"] == Shape(want.shape)
        call = _chosen_call(unit, env)
        assert call.startswith("opforge_base_gather_unit_gathered_f32("), call

        def invoke(at: str) -> str:
            return _invoke(call, {"x": "x", "indices": at, "output": f"out{k}"}, env)

        lines += [golden.c_array(f"want{k}", want, "float32"), f"static float out{k}[{want.size}];",
                  f"if ({invoke('at')} != 0) return 2;",
                  f"if (memcmp(out{k}, want{k}, sizeof want{k}) != 0) return {k + 10};"]
        if x.shape[numpy_axis] < 3:  # (bad holds 2 and -3: out of range for an axis of 2)
            lines.append(f"if ({invoke('bad')} != -2) return {k + 20};")
    run = _run_driver(tmp_path, path.parent, op, [*lines, 'printf("ok\\n");', "return 0;"])
    assert (run.returncode, run.stdout.strip()) == (0, "ok"), run.stdout


def test_a_one_hot_unit_refuses_on_and_off_that_its_dtype_cannot_hold(out: Path) -> None:
    """one_hot's kernel takes on and off converted by the caller: an Assert refuses a value the
    dtype cannot hold exactly (as the C API refuses it), naming the arg; exact ones pass."""
    path = out / "base" / "one_hot" / "one_hot.imunit"
    indices = dict([checker.parse_input("indices=Int64[3]")])

    def check(**options: str) -> checker.Verdict:
        given = {"depth": "4"} | options
        return checker.check_unit(path, indices, {k: checker.parse_option(f"{k}={v}")[1] for k, v in given.items()})

    assert check(dtype='"int8"', on="1.0", off="-128.0").kind == "ok"
    for name, value, dtype in (("on", "0.5", "int8"), ("off", "300.0", "uint8"), ("on", "-1.0", "uint16")):
        refused = check(dtype=f'"{dtype}"', **{name: value})
        assert refused.kind == "refused" and refused.text.startswith(f"{name}: must convert exactly"), refused.line()


@pytest.mark.parametrize("dtype", ["float32", "int8"])
def test_a_pad_unit_reads_the_edges_its_mode_says(out: Path, tmp_path: Path, dtype: str) -> None:
    """nn.pad calls one plain kernel (ADR 0032): each index moved back by the pad before it and
    read as the mode says (constant: the value; reflect and symmetric: mirrored once; edge: the
    end; wrap: repeated, past the axis's length too), giving
    NumPy's pad at ranks 1 to 5; a constant the dtype cannot hold is refused by an Assert."""
    path = out / "nn" / "pad" / "pad.imunit"
    unit = ET.parse(path).getroot()[0]
    op = next(o for _, o in FUNCTION_OPS if o.qualified_name == "nn.pad")
    cases = [((5,), (2, 3), "constant", 7.0), ((3, 4), (1, 2, 0, 3), "reflect", 0.0),
             ((3, 4), (3, 0, 2, 4), "symmetric", 0.0), ((2, 3, 2), (1, 1, 0, 2, 2, 0), "constant", -3.0),
             ((2, 1, 2, 3, 2), (0, 1, 1, 0, 0, 0, 2, 1, 1, 1), "symmetric", 0.0),
             ((3, 4), (2, 1, 3, 5), "edge", 0.0), ((3, 2), (4, 7, 1, 5), "wrap", 0.0)]
    lines, checks = [], []
    for k, (shape, pads, mode, value) in enumerate(cases):
        x = np.arange(1, int(np.prod(shape)) + 1).astype(dtype).reshape(shape)
        pairs = [(pads[2 * d], pads[2 * d + 1]) for d in range(len(shape))]
        want = (np.pad(x, pairs, mode="constant", constant_values=value) if mode == "constant"
                else np.pad(x, pairs, mode=mode))
        env, failed = _evaluate_unit(unit, {"x": Tensor(VALUE_TYPES[DTYPE_TYPES[dtype]], Shape(shape)),
                                            "paddings": Shape(pads), "mode": mode, "value": value})
        assert failed == [] and env["output_shape"] == Shape(want.shape), (shape, failed)
        call = _chosen_call(unit, env)
        loops = next(r for r in (2, 4, "") if r == "" or want.ndim <= r)
        assert call.startswith(f"opforge_nn_pad_unit_padded{loops}_"), call
        lines += [golden.c_array(f"x{k}", x, dtype), golden.c_array(f"want{k}", want, dtype),
                  f"static {golden.C_TYPE[dtype]} out{k}[{want.size}];",
                  f"if ({_invoke(call, {'x': f'x{k}', 'output': f'out{k}'}, env)} != 0) return 2;"]
        checks.append(f"if (memcmp(out{k}, want{k}, sizeof want{k}) != 0) return {k + 10};")
    run = _run_driver(tmp_path, path.parent, op, [*lines, *checks, 'printf("ok\\n");', "return 0;"])
    assert (run.returncode, run.stdout.strip()) == (0, "ok"), run.stdout
    inexact = checker.check_unit(path, dict([checker.parse_input("x=Int8[3]")]),
                                 {k: checker.parse_option(f"{k}={v}")[1] for k, v in
                                  {"paddings": "System.Shape(1,1)", "mode": '"constant"', "value": "0.5"}.items()})
    assert inexact.kind == "refused" and inexact.text.startswith("value: must convert exactly"), inexact.line()
