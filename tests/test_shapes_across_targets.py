"""Issue 18's cross-target shape test, in-process part: for input shapes hypothesis draws for
every op (valid and invalid: two-sided broadcasting, batch axes in front, rank 0, empty and
dropped axes, the maximum rank), each target declares the shape the NumPy reference gives
and refuses what it refuses: every .imunit unit (its output sockets' shapes and its Asserts,
evaluated as Studio would) and NNEF (the generated shape functions, and nnef.infer_shapes on
graphs). test_generated_code.py replays the same corpus through the C API and the bindings.
Besides the draws, the four wrong shapes the issue found are fixed examples."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import types
import xml.etree.ElementTree as ET
from pathlib import Path

import nnef
import pytest

import shape_corpus as SC
from conftest import ROOT, GeneratedProjects, write_ops
from dsl import compute as C
from dsl.dtypes import primary_input
from generators.imunit import checker
from generators.kernels import evaluate, py_names
from generators.nnef.generator import fragment_name, nnef_name

import test_imunit as TI


@pytest.fixture(scope="module")
def out(generated: GeneratedProjects) -> GeneratedProjects:
    return generated


@pytest.fixture(scope="module")
def shape_functions(out: GeneratedProjects) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("across_shapes", out / "nnef" / "opforge_nnef_shapes.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def shape_refused(op, kwargs) -> bool:
    """Whether the reference refuses for shapes and args (a form's refusal or a constraint),
    which a unit or an NNEF shape function can see, unlike a value it cannot."""
    import test_forms

    refused, _ = test_forms.form_outcome(op, kwargs)
    return refused is not None or not evaluate.constraints_hold(op, kwargs)


def unit_outcome(out: GeneratedProjects, ns, op, case, result):
    """(None: the unit refuses, or the shapes of its output sockets), or "skip" where a unit
    cannot take the case (a reduction over several axes, more tensors than its sockets, what its
    kernel does not compute: a tensordot that is no one matrix product, ADR 0066)."""
    env = TI._case_env(op, case, result)
    if env is None:
        return "skip"
    path = out / "imunit" / ns.key / op.name / f"{op.name}.imunit"
    unit = ET.parse(path).getroot()[0]
    if unit.tag == "Compound":  # a graph of its steps' units, as unit-check evaluates it
        try:
            produced = checker.outputs(path, {i.name: env[i.name] for i in op.inputs}, {},
                                       checker.Library([out / "imunit"]))
        except checker.Refused:
            return None
        return [tuple(produced[o.name].shape_.dims) for o in op.outputs]
    env, failed = TI._evaluate_unit(unit, env)
    if TI._unit_only(failed):
        return "skip"
    if failed:
        return None
    shapes = []
    for socket in unit.findall("Parameters/OutputSocket"):
        if TI.evaluate(socket.get("conditional") or "true", env):
            shapes.append(tuple(TI.evaluate(socket.get("shape"), env).dims))
    return shapes


def nnef_outcome(functions, op, kwargs):
    """(None: the shape function refuses, or the shapes it gives)."""
    given = {nnef_name(i.name): ([list(SC.np.shape(t)) for t in kwargs[py_names.py_name(i.name)]]
                                 if not i.count.is_single else list(SC.np.shape(kwargs[py_names.py_name(i.name)])))
             for i in op.inputs}
    attribs = {nnef_name(a.name): evaluate.arg_value(op, kwargs, a.name) for a in op.args}
    try:
        got = functions.CUSTOM_SHAPES[fragment_name(op.namespace, op.name)](**given, **attribs)
    except AssertionError:
        return None
    if C.list_output(op.compute) is not None:
        return [tuple(s) for s in got]
    return [tuple(s) for s in got] if isinstance(got, tuple) else [tuple(got)]


_KINDS = {"f": "scalar", "i": "integer", "u": "integer", "b": "logical"}


def _literal(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, str):
        return f"'{value}'"
    return repr(float(value)) if isinstance(value, float) else str(value)


def graph_outcome(out: GeneratedProjects, functions, op, kwargs, wants):
    """(None: nnef.infer_shapes refuses, or the shapes it gives) for a graph of one call of the
    op's fragment, parsed by the official nnef package with its namespace's document."""
    lines, names, operands = [], [], []
    for k, i in enumerate(op.inputs):
        given = kwargs[py_names.py_name(i.name)]
        tensors = [SC.np.asarray(t) for t in given] if not i.count.is_single else [SC.np.asarray(given)]
        listed = [f"t{k}_{j}" for j in range(len(tensors))]
        for name, array in zip(listed, tensors):
            names.append(name)
            lines.append(f"    {name} = external<{_KINDS[array.dtype.kind]}>(shape = {_literal(list(array.shape))});")
        operands.append(f"[{', '.join(listed)}]" if not i.count.is_single else listed[0])
    attributes = [f"{nnef_name(a.name)} = {_literal(evaluate.arg_value(op, kwargs, a.name))}" for a in op.args
                  if evaluate.arg_value(op, kwargs, a.name) is not None]
    for cfg in op.configs:
        given = kwargs.get(py_names.config_param(cfg.name))
        attributes += [f"{nnef_name(a.name)} = {_literal(getattr(given, a.name) if given is not None else a.default)}"
                       for a in cfg.args]
    document = (out / "nnef" / f"{op.namespace.lower()}.nnef").read_text()
    head = document.split(f"fragment {fragment_name(op.namespace, op.name)}")[1].split("(")[0]
    # (the generic type is the dtype of the input that chooses the variant: where's x, not its condition)
    chosen = primary_input(op) if op.inputs else None
    given = None if chosen is None else kwargs[py_names.py_name(chosen.name)]
    first = None if chosen is None else SC.np.asarray(given if chosen.count.is_single else given[0])
    kind = f"<{_KINDS[first.dtype.kind]}>" if "<? = scalar>" in head and first is not None else ""
    if not names:
        names, lines = ["unused"], ["    unused = external<scalar>(shape = [1]);"]
    count = len(wants) if wants is not None else 1
    results = [f"r{k}" for k in range(count if C.list_output(op.compute) is not None else len(op.outputs))]
    target = (f"[{', '.join(results)}]" if C.list_output(op.compute) is not None
              else results[0] if len(results) == 1 else f"({', '.join(results)})")
    call = f"{fragment_name(op.namespace, op.name)}{kind}({', '.join(operands + attributes)})"
    graph = f"graph G( {', '.join(names)} ) -> ( {', '.join(results)} )\n{{\n" + "\n".join(lines) + \
        f"\n    {target} = {call};\n}}\n"
    parsed = nnef.parse_string(document + "\n" + graph)
    try:
        nnef.infer_shapes(parsed, custom_shapes=functions.CUSTOM_SHAPES)
    except Exception:  # noqa: BLE001 - the parser's way of refusing: a shape function's assertion
        return None
    return [tuple(parsed.tensors[r].shape) for r in results]


@pytest.mark.parametrize(("ns", "op"), SC.OPS, ids=[op.qualified_name for _, op in SC.OPS])
def test_units_and_nnef_declare_the_references_shapes(out: GeneratedProjects, shape_functions, ns, op) -> None:
    checked = 0
    for dtype, spec in SC.corpus(op.qualified_name):
        case, result = SC.expected(ns, op, dtype, spec)
        where = (op.qualified_name, dtype, {k: v["shape"] if isinstance(v, dict) else [t["shape"] for t in v]
                                           for k, v in spec["inputs"].items()}, spec["args"])
        if result is None and not shape_refused(op, case.kwargs):
            continue  # refused for a value (an index out of range): no shape says it
        wants = None if result is None else SC.shapes_of(result)
        if C.list_output(op.compute) is not None and wants is not None:
            wants = [w for w in wants]
        assert nnef_outcome(shape_functions, op, case.kwargs) == wants, ("nnef", where)
        # (a graph cannot take a list of no tensors, or of unknown length; NNEF has no None for an optional arg)
        optional_unset = any(a.default is None and evaluate.arg_value(op, case.kwargs, a.name) is None for a in op.args)
        if (C.list_output(op.compute) is None or wants) and not optional_unset:
            assert graph_outcome(out, shape_functions, op, case.kwargs, wants) == wants, ("nnef graph", where)
        got = unit_outcome(out, ns, op, case, result)
        if got != "skip":
            unit_wants = wants
            if wants is not None and C.list_output(op.compute) is not None:
                unit_wants = wants[:TI.units.LIST_SOCKETS]
            if wants is not None and len(wants) > TI.units.LIST_SOCKETS and C.list_output(op.compute) is not None:
                unit_wants = None  # a unit gives at most LIST_SOCKETS tensors: it refuses more
            assert got == unit_wants, ("unit", where, got)
        checked += 1
    assert checked > 0


#: The four shapes units declared wrongly on 5a768c3 (issue 18): (op, input shapes, the result's shape).
FIXED = [("math.add", {"x": (3, 1), "y": (1, 4)}, (3, 4)),
         ("math.matmul", {"a": (3, 4), "b": (5, 4, 6)}, (5, 3, 6)),
         ("math.matmul", {"a": (2, 1, 3, 4), "b": (5, 4, 6)}, (2, 5, 3, 6))]


@pytest.mark.parametrize(("name", "given", "want"), FIXED, ids=[f"{n}{tuple(g.values())}" for n, g, _ in FIXED])
def test_the_wrong_shapes_of_5a768c3(out: GeneratedProjects, shape_functions, name: str, given: dict, want: tuple) -> None:
    ns, op = next((ns, op) for ns, op in SC.OPS if op.qualified_name == name)
    spec = {"inputs": {n: {"shape": list(s), "dtype": "float32", "extreme": False} for n, s in given.items()},
            "args": {}, "seed": 1, "tol": {"ulps": 4, "abs": 0.0}}
    case, result = SC.expected(ns, op, "float32", spec)
    assert SC.shapes_of(result) == [want]
    assert nnef_outcome(shape_functions, op, case.kwargs) == [want]
    assert unit_outcome(out, ns, op, case, result) == [want]


def test_an_einsum_with_its_row_variable_in_the_middle(tmp_path: Path) -> None:
    """`a...b=>ba...` on (2, 3, 4, 5): the kernel gives (5, 2, 3, 4), where units declared (2, 3, 5, 4)."""
    ops = write_ops(tmp_path, {"defs.py": '''
        from dsl import *
        with Namespace("demo"):
            with Op("turn") as op:
                Input(NUMERIC, "x", description="x")
                Output(NUMERIC, "out", description="out")
                Einsum("a...b=>ba...")
                Doc(Language.ANY, DocScope.ALL, "The last axis first, the first axis after it.")
    '''})
    subprocess.run([sys.executable, "-m", "generators.cli", "all", "-projects", "imunit,nnef", "-opsdir", str(ops),
                    "-outdir", str(tmp_path / "out")], cwd=ROOT, check=True, capture_output=True)
    from dsl import loader

    op = loader.load(ops).catalogue.namespace("demo").op("turn")
    unit = ET.parse(tmp_path / "out" / "imunit" / "demo" / "turn" / "turn.imunit").getroot()[0]
    env, failed = TI._evaluate_unit(unit, {"x": TI.Tensor(TI.VALUE_TYPES["Float32"], TI.Shape((2, 3, 4, 5)))})
    assert failed == [] and env["output_shape"] == TI.Shape((5, 2, 3, 4))
    spec = importlib.util.spec_from_file_location("demo_shapes", tmp_path / "out" / "nnef" / "opforge_nnef_shapes.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    assert module.demo_turn([2, 3, 4, 5]) == [5, 2, 3, 4]
    assert SC.np.einsum("a...b->ba...", SC.np.zeros((2, 3, 4, 5))).shape == (5, 2, 3, 4)
    del op
