"""Issue 17.9: one shape rule per elementwise op, the same in every target. Arithmetic
broadcasts NumPy-style; logical, relational and bitwise ops take equal shapes or one scalar
(TML, seed 004) unless the op declares broadcasting (ND4J's bitwise ops do). On 5a768c3
NNEF's shape functions broadcast for ops the kernels refuse, and units kept no shape
contract for them (and gave a broadcast result the larger operand's shape)."""

from __future__ import annotations

import importlib.util

import nnef
import numpy as np
import pytest

from conftest import ROOT, GeneratedProjects
from dsl import compute as C
from dsl import loader
from generators.imunit import checker
from generators.imunit.expression import VALUE_TYPES, Shape, Tensor
from generators.imunit.variants import variants_of  # (the dtypes a unit takes: not float16)
from generators.kernels import evaluate as reference_run, py_names
from generators.kernels.selection import code_ops
from generators.nnef.generator import fragment_name, nnef_name

CATALOGUE = loader.load(ROOT / "ops").catalogue


def tensors_of(op) -> list[str]:
    """The inputs an elementwise op's function reads."""
    return [p for p in op.compute.params if any(i.name == p for i in op.inputs)]


#: Every elementwise op whose function reads two or more tensors.
OPS = [op for ns in CATALOGUE.namespaces for op in code_ops(ns)
       if isinstance(op.compute, C.Elementwise) and len(tensors_of(op)) > 1]
#: Shapes of the first two operands (any further one is a scalar): equal, a scalar, two-sided
#: broadcasting, a rank difference, and shapes that do not broadcast.
PAIRS = [((3,), (3,)), ((), (2, 3)), ((2, 3), ()), ((3, 1), (3,)), ((2, 1), (1, 4)), ((2, 3, 1), (3, 4)),
         ((2,), (3,)), ((0, 1), (1, 5)), ((4, 1, 1, 1, 1, 1, 1, 2), (3, 1))]
STRICT = {"bool": "Bool", "float32": "Float32", "int32": "Int32", "int8": "Int8", "int16": "Int16",
          "int64": "Int64", "uint8": "UInt8", "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64",
          "float64": "Float64"}


def rule(op, shapes: list[tuple[int, ...]], constraints: bool = True) -> tuple[int, ...] | None:
    """What the definition says: the result's shape, or None where the op refuses (by its
    shape rule, or one of its constraints unless ``constraints`` is false)."""
    dtype = variants_of(op)[0]
    kwargs = {py_names.py_name(t): np.zeros(s, dtype=dtype.of(t)) for t, s in zip(tensors_of(op), shapes)}
    kwargs |= {py_names.py_name(a.name): 1.0 for a in op.args if not a.has_default or a.default is None}
    if constraints and not reference_run.constraints_hold(op, kwargs):
        return None
    if op.compute.broadcast == "equal":  # (a backward op's gradient: its input's shape)
        return None if any(s != shapes[0] for s in shapes) else shapes[0]
    if op.compute.broadcast == "strict":
        wide = [s for s in shapes if s != ()]
        return None if any(s != wide[0] for s in wide) else (wide[0] if wide else ())
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        return None


def shapes_for(op, pair) -> list[tuple[int, ...]]:
    return [*pair, *([()] * (len(tensors_of(op)) - 2))]


def test_the_catalogue_has_every_rule() -> None:
    kinds = {op.compute.broadcast for op in OPS}
    assert kinds == {"numpy", "strict", "equal"} and len(OPS) >= 30
    declared = {op.qualified_name for op in OPS if op.compute.broadcast == "numpy"
                and C.SCall is type(op.compute.expr) and op.compute.expr.fn in C.STRICT_BROADCAST}
    assert "bitwise.and" in declared  # it says it broadcasts, as ND4J's bitwise ops do


@pytest.fixture(scope="module")
def out(generated: GeneratedProjects) -> GeneratedProjects:
    return generated


def test_nnef_shape_functions_follow_the_rule(out: GeneratedProjects) -> None:
    spec = importlib.util.spec_from_file_location("shapes", out / "nnef" / "opforge_nnef_shapes.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    for op in OPS:
        for pair in PAIRS:
            shapes = shapes_for(op, pair)
            tensors = tensors_of(op)
            given = {nnef_name(t): list(s) for t, s in zip(tensors, shapes)}
            try:
                got = tuple(module.CUSTOM_SHAPES[fragment_name(op.namespace, op.name)](**given))
            except AssertionError:
                got = None
            assert got == rule(op, shapes), (op.qualified_name, shapes)


def test_nnef_graphs_refuse_what_the_op_refuses(out: GeneratedProjects) -> None:
    """Through the official parser and infer_shapes, not only the shape function."""
    spec = importlib.util.spec_from_file_location("shapes2", out / "nnef" / "opforge_nnef_shapes.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    op = next(o for o in OPS if o.qualified_name == "base.gt")
    text = (out / "nnef" / "base.nnef").read_text()
    for pair in [((3, 1), (3,)), ((3,), (3,))]:
        graph = ("graph G( a, b ) -> ( c )\n{\n"
                 f"    a = external<scalar>(shape = {list(pair[0])});\n    b = external<scalar>(shape = {list(pair[1])});\n"
                 "    c = base_gt(a, b);\n}\n")
        parsed = nnef.parse_string(text + "\n" + graph)
        try:
            nnef.infer_shapes(parsed, custom_shapes=module.CUSTOM_SHAPES)
            got = tuple(parsed.tensors["c"].shape)
        except Exception:  # noqa: BLE001 - the parser's error for a refused shape
            got = None
        assert got == rule(op, list(pair))


def _unit_outcome(out: GeneratedProjects, op, shapes: list[tuple[int, ...]]) -> tuple[int, ...] | None:
    """The unit's output shape as unit-check evaluates it (Compounds through their steps' units),
    or None where it refuses."""
    path = out / "imunit" / op.namespace.lower() / op.name / f"{op.name}.imunit"
    dtype = variants_of(op)[0]
    inputs = {t: Tensor(VALUE_TYPES[STRICT[dtype.of(t)]], Shape(s)) for t, s in zip(tensors_of(op), shapes)}
    options: dict = {}
    for a in op.args:
        options[a.name] = a.default if a.has_default and a.default is not None else 1.0
        if a.default is None:
            options[f"use_{a.name}"] = False
    try:
        produced = checker.outputs(path, inputs, options, checker.Library([out / "imunit"]))
    except checker.Refused:
        return None
    return tuple(produced[op.outputs[0].name].shape_.dims)


def test_units_declare_the_shape_the_op_gives_or_refuse(out: GeneratedProjects) -> None:
    for op in OPS:
        for pair in PAIRS:
            shapes = shapes_for(op, pair)
            assert _unit_outcome(out, op, shapes) == rule(op, shapes), (op.qualified_name, shapes)


def test_docs_say_each_ops_rule(out: GeneratedProjects) -> None:
    for op in OPS:
        page = (out / "docs" / "docs" / f"{op.namespace.lower()}.md").read_text()
        section = page.split(f'<a id="op-{op.name}"></a>')[1].split('<a id="op-')[0]
        said = {"numpy": "NumPy broadcasting", "strict": "equal shapes or one scalar operand",
                "equal": "equal shapes"}[op.compute.broadcast]
        kind = "composed" if op.composition is not None else "elementwise"
        assert f"{kind}, {said}:" in section, op.qualified_name
