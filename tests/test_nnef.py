"""The NNEF target: every document and a graph per op parse with the official
``nnef`` package, and ``infer_shapes`` with the generated shape functions
agrees with the reference implementation."""

from __future__ import annotations

import importlib.util
import itertools
import re
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import nnef
import numpy as np
import pytest

from conftest import ROOT, GeneratedProjects, write_ops
from dsl import compute as C
from dsl import counterparts
from dsl import dtypes as D
from dsl import fixed_point as F
from dsl import loader
from dsl.types import DataType
from generators.kernels import py_names
from generators.kernels.fixed_point import numpy_run
from generators.kernels.selection import code_ops
from generators.nnef.generator import fragment_name, nnef_name
from generators.tests import cases, golden


@pytest.fixture(scope="module")
def out(generated: GeneratedProjects) -> Path:
    return generated / "nnef"


def _generated_module(out: Path, name: str) -> types.ModuleType:
    """A generated Python module of the NNEF output (``<name>.py``), imported."""
    spec = importlib.util.spec_from_file_location(name, out / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


@pytest.fixture(scope="module")
def shapes(out: Path) -> types.ModuleType:
    return _generated_module(out, "opforge_nnef_shapes")


def _literal(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return f"'{value}'"
    return str(value)


_EXTERNAL = {"f": "scalar", "i": "integer", "u": "integer", "b": "logical"}


CATALOGUE = loader.load(ROOT / "ops").catalogue


def _graph_cases():
    for ns in CATALOGUE.namespaces:
        functions = golden.reference_functions(ns)
        for op in code_ops(ns):
            if isinstance(op.compute, C.SlidingWindow):
                continue  # stateful: NNEF has no fragment for it (checked below)
            if isinstance(op.compute, C.FixedPointConversion):
                continue  # (its operands are FixedPointArrays: test_conversions_parse_and_keep_the_shape)
            picked = None
            for dtype, spec in cases.cases(op):
                if dtype in D.through_float(op):
                    continue  # (NNEF's fragment takes reals: an integer through floats is a graph's cast)
                case = golden._Case(op, dtype, spec, functions[py_names.ref_name(op.name)], 0)
                if any(v is None for v in case.kwargs.values()):
                    continue
                expected = case.expected()
                first = (expected[0] if expected else None) if isinstance(expected, tuple) else expected
                if first is not None and first.ndim >= 1:
                    picked = (case, expected)
                    break
            if picked is not None:
                yield pytest.param(ns.key, op, *picked, id=op.qualified_name)


@pytest.mark.parametrize(("namespace", "op", "case", "expected"), list(_graph_cases()))
def test_graph_per_op_parses_and_infers_the_reference_shape(out: Path, shapes: types.ModuleType, namespace: str,
                                                           op, case, expected: np.ndarray) -> None:
    lines, names, operands = [], [], []
    for i, t in enumerate(op.inputs):
        given = case.kwargs[py_names.py_name(t.name)]
        listed = [] if t.count.is_single else [f"t{i}_{k}" for k in range(len(given))]
        for name, array in zip(listed or [f"t{i}"], given if listed else [given]):
            array = np.asarray(array)
            names.append(name)
            lines.append(f"    {name} = external<{_EXTERNAL[array.dtype.kind]}>(shape = {_literal(list(array.shape))});")
        operands.append(f"[{', '.join(listed)}]" if listed else f"t{i}")
    attributes = []
    for a in op.args:
        value = case.arg(a.name)
        if value is not None and not (isinstance(op.compute, C.Elementwise) and a.type is DataType.ENUM and False):
            attributes.append(f"{nnef_name(a.name)} = {_literal(value)}")
    for cfg in op.configs:
        given = case.kwargs.get(py_names.config_param(cfg.name))
        for a in cfg.args:
            value = getattr(given, a.name) if given is not None else a.default
            attributes.append(f"{nnef_name(a.name)} = {_literal(value)}")
    generic = "<? = scalar>" in (out / f"{namespace}.nnef").read_text().split(f"fragment {fragment_name(op.namespace, op.name)}")[1].split("(")[0]
    kind = ""
    if generic:
        # (the type of the input that chooses the variant: a quantization's zero point, not its x)
        chooser = [D.primary_input(op)] if op.inputs else []
        tensors = [np.asarray(case.kwargs[py_names.py_name(t.name)] if t.count.is_single else
                              case.kwargs[py_names.py_name(t.name)][0]) for t in chooser] or [expected]
        kind = f"<{_EXTERNAL[tensors[0].dtype.kind]}>"
    call = f"{fragment_name(op.namespace, op.name)}{kind}({', '.join(operands + attributes)})"
    if not names:  # a graph needs an input; random ops take none
        names.append("unused")
        lines.append("    unused = external<scalar>(shape = [1]);")
    ins = ", ".join(names)
    listed = C.list_output(op.compute) is not None
    # several outputs: (r0, r1) = op(...); a list output: [r0, r1, ...] = op(...)
    results = [f"r{k}" for k in range(len(expected) if listed else len(op.outputs))]
    target = f"[{', '.join(results)}]" if listed else results[0] if len(results) == 1 else f"({', '.join(results)})"
    graph = (f"graph G( {ins} ) -> ( {', '.join(results)} )\n{{\n" + "\n".join(lines)
             + f"\n    {target} = {call};\n}}\n")
    document = (out / f"{namespace}.nnef").read_text() + "\n" + graph
    parsed = nnef.parse_string(document)
    nnef.infer_shapes(parsed, custom_shapes=shapes.CUSTOM_SHAPES)
    wants = expected if isinstance(expected, tuple) else (expected,)
    assert [parsed.tensors[r].shape for r in results] == [list(w.shape) for w in wants]


@pytest.mark.parametrize("op", [o for ns in CATALOGUE.namespaces for o in code_ops(ns)
                                if isinstance(o.compute, C.FixedPointConversion)], ids=lambda o: o.name)
def test_conversions_parse_and_keep_the_shape(out: Path, shapes: types.ModuleType, op) -> None:
    """A conversion op (ADR 0068) in a graph: a fixed-point tensor is a real one in NNEF (its
    stored form the quantization file's), and the result has the input's shape; bit counts are
    integers."""
    call = f"{fragment_name(op.namespace, op.name)}(x)"
    graph = f"graph G( x ) -> ( r )\n{{\n    x = external<scalar>(shape = [2, 3, 4]);\n    r = {call};\n}}\n"
    parsed = nnef.parse_string((out / f"{op.namespace.lower()}.nnef").read_text() + "\n" + graph)
    nnef.infer_shapes(parsed, custom_shapes=shapes.CUSTOM_SHAPES)
    assert parsed.tensors["r"].shape == [2, 3, 4]
    assert parsed.tensors["r"].dtype == ("integer" if op.name == "bit_utilization" else "scalar")


def test_documents_declare_version_extension_and_every_op(out: Path) -> None:
    math = (out / "math.nnef").read_text()
    assert math.splitlines()[1:3] == ["version 1.0;", "extension KHR_enable_fragment_definitions;"]
    assert "fragment math_sum<? = scalar>(\n    x: tensor<?>,\n    axes: integer[] = [],\n    keep_dims: logical = false\n)" in math
    assert "fragment math_round<? = scalar>(\n    x: tensor<?>,\n    mode: string = 'half_to_even'\n)" in math
    bitwise = (out / "bitwise.nnef").read_text()
    assert "fragment bitwise_and(\n    x: tensor<integer>,\n    y: tensor<integer>\n) -> ( output: tensor<integer> );" in bitwise


def test_stateful_ops_are_named_not_dropped(out: Path) -> None:
    signal = (out / "signal.nnef").read_text()
    assert "# signal.sliding_window: a stateful stream, which NNEF cannot express" in signal
    assert "fragment signal_sliding_window" not in signal


_HEAD = ("version 1.0;", "extension KHR_enable_fragment_definitions;")
_GRAPH = "graph G( a ) -> ( b )\n{\n    a = external<scalar>(shape = [1]);\n    b = copy(a);\n}\n"


def _body(document: str) -> str:
    """A document's fragments: without its header comment, version and extension lines."""
    return "\n".join(line for line in document.splitlines()[1:] if line not in _HEAD)


def test_all_documents_load_together_in_one_parse(out: Path) -> None:
    """Issue 17.6: base.nnef and math.nnef in one document failed (`operation 'math_variance'
    already defined`): base declared math's ops again for its aliases. Every document alone,
    and all of them together, parse."""
    documents = sorted(out.glob("*.nnef"))
    assert len(documents) >= 7
    for path in documents:
        nnef.parse_string(path.read_text() + "\n" + _GRAPH)
    together = "\n".join(_HEAD) + "\n" + "\n".join(_body(p.read_text()) for p in documents) + "\n" + _GRAPH
    nnef.parse_string(together)
    # each fragment is defined once, in its own namespace's document
    defined = [m for p in documents for m in re.findall(r"^fragment (\w+)", p.read_text(), re.M)]
    assert len(defined) == len(set(defined))
    assert all(name.startswith(p.stem + "_") for p in documents
               for name in re.findall(r"^fragment (\w+)", p.read_text(), re.M))


def test_comments_follow_language_scope_and_tokens(tmp_path: Path) -> None:
    """Issue 17.7: NNEF comments showed the first Doc whatever its Language and DocScope, with
    raw %TOKENS%. Now they carry what any target shows: the op's docs for ANY and NNEF, of
    every scope that describes the op as a graph node (ALL, CLASS_DOC_ONLY, CONSTRUCTORS_ONLY),
    tokens expanded."""
    ops = write_ops(tmp_path, {"defs.py": '''
        from dsl import *
        with Namespace("m2"):
            with Op("user") as op:
                Input(NUMERIC, "x", description="x")
                Output(NUMERIC, "out", description="out")
                Elementwise(lambda x: -x)
                Doc(Language.PYTHON, DocScope.ALL, "PYTHON_ONLY text")
                Doc(Language.NNEF, DocScope.ALL, "NNEF_ONLY %INPUT_TYPE% of %OPNAME%, 100%%")
                Doc(Language.ANY, DocScope.CREATORS_ONLY, "CREATORS_ONLY text")
                Doc(Language.ANY, DocScope.CONSTRUCTORS_ONLY, "CONSTRUCTORS_ONLY for %NATIVE_OPNAME%")
                Doc(Language.ANY, DocScope.CLASS_DOC_ONLY, "Class docs")
    '''})
    subprocess.run([sys.executable, "-m", "generators.cli", "all", "-projects", "nnef", "-opsdir", str(ops),
                    "-outdir", str(tmp_path / "out")], cwd=ROOT, check=True, capture_output=True)
    document = (tmp_path / "out" / "nnef" / "m2.nnef").read_text()
    comment = document.split("fragment m2_user")[0].split("extension KHR_enable_fragment_definitions;")[1]
    assert comment.strip().splitlines() == [
        "# m2.user: NNEF_ONLY tensor of m2_user, 100%",
        "# CONSTRUCTORS_ONLY for user",
        "# Class docs",
    ]
    nnef.parse_string(document + "\n" + _GRAPH)


@pytest.fixture(scope="module")
def quantization(out: Path) -> types.ModuleType:
    return _generated_module(out, "opforge_nnef_quantization")


def _d_cases(seed: int) -> list[tuple[float, int]]:
    rng = np.random.default_rng(seed)
    return [(float(s), int(o)) for s, o in zip(10.0 ** rng.uniform(-6, 2, 20), rng.integers(-100, 100, 20))]


@pytest.mark.parametrize("name", list(F.TYPES))
def test_a_fixed_point_tensor_s_quantization_file_is_nnef_s_and_dequantizes_as_opforge(
        quantization: types.ModuleType, name: str) -> None:
    """Every Q shift (and seeded D scales and offsets): the official parser reads the line as
    zero_point_linear_quantize of the type's bits, signed, with dsl.fixed_point.affine's scale
    and zero point, and dequantizing with what it read gives opforge's own to_real, bit for bit."""
    t = F.TYPES[name]
    cases = ([{"shift": s} for s in t.shifts()] if t.family == "Q" else
             [{"scale": s, "offset": o} for s, o in _d_cases(t.bits)])
    graph = "version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external<scalar>(shape = [8]);\n    y = copy(x);\n}\n"
    # (32-bit values: those float32 holds, as opforge's to_real computes in float32)
    stored = np.array([t.lowest, -3, -1, 0, 1, 2, 77, t.highest if t.bits < 32 else 2**24], dtype=t.storage)
    for attributes in cases:
        text = quantization.quantization_file({"x": (name, attributes), "y": (name, attributes)})
        parsed = nnef.parse_string(graph, text).tensors["x"].quantization
        scale, zero_point = F.affine(t, **attributes)
        assert (parsed["op-name"], parsed["bits"], parsed["signed"], parsed["symmetric"]) == \
            ("zero_point_linear_quantize", t.bits, True, False), attributes
        assert (float(parsed["scale"]), int(parsed["zero_point"])) == (float(np.float32(scale)), zero_point), attributes
        theirs = (stored.astype(np.float32) - np.float32(parsed["zero_point"])) * np.float32(parsed["scale"])
        values = {"factor": F.q_factor(t, attributes["shift"])} if t.family == "Q" else attributes
        ours = numpy_run(F.to_real(t), {"x": ("x", "float32"), **{k: (f"np.float32({k})", "float32")
                                                                       for k in values}},
                         {"x": stored.astype(np.float32), **values})
        np.testing.assert_array_equal(np.asarray(ours, np.float32).view(np.uint32), theirs.view(np.uint32),
                                      err_msg=f"{name} {attributes}")


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_per_axis_scales_run_along_their_axis_in_nnef(quantization: types.ModuleType, axis: int) -> None:
    """A D8 tensor's per-axis scales (ADR 0069): the official parser reads them as a scale tensor
    whose shape, padded with singletons at its end as NNEF pads, runs along the axis; dequantized
    with it, the stored values are opforge's per-axis real values, bit for bit."""
    shape = (3, 4, 2)
    scales = np.linspace(0.01, 0.3, shape[axis]).astype(np.float32)
    text = quantization.quantization_file({"x": ("d8", {"scale": scales.tolist(), "offset": -2, "axis": axis})})
    graph = ("version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external<scalar>(shape = [3, 4, 2]);\n"
             "    y = copy(x);\n}\n")
    parsed_graph = nnef.parse_string(graph, text)
    nnef.infer_shapes(parsed_graph)  # (the scale broadcasts against the tensor's shape)
    parsed = parsed_graph.tensors["x"].quantization
    scale = np.asarray(parsed["scale"], np.float32)
    padded = scale.reshape(scale.shape + (1,) * (len(shape) - scale.ndim))  # (NNEF's: singletons at the end)
    assert padded.shape == tuple(n if k == axis else 1 for k, n in enumerate(shape)), padded.shape
    stored = np.random.default_rng(axis).integers(-128, 128, shape).astype(np.float32)
    theirs = (stored - np.float32(parsed["zero_point"])) * padded
    ours = (stored - np.float32(-2)) * scales.reshape((-1,) + (1,) * (len(shape) - axis - 1))
    np.testing.assert_array_equal(theirs.view(np.uint32), ours.view(np.uint32))
    with pytest.raises(ValueError, match="per-axis scales belong to a D type"):
        quantization.quantization("q15", scale=[1.0], axis=0)


def test_a_quantization_outside_the_type_is_refused(quantization: types.ModuleType) -> None:
    with pytest.raises(ValueError, match="type must be one of q7, q15, q31, d8, d16, d32, not 'q16'"):
        quantization.quantization("q16")
    with pytest.raises(ValueError, match=r"q15: shift must be an int in -112..127, not 128"):
        quantization.quantization("q15", shift=128)
    with pytest.raises(ValueError, match="d8: scale must be positive and offset an int"):
        quantization.quantization("d8", scale=0.0)


def test_the_standard_operations_an_op_may_name_are_the_official_parser_s() -> None:
    assert counterparts.NNEF_OPERATIONS == set(nnef.StandardOperations)


#: Operand shapes an elementwise op and its NNEF counterpart are both given, after a first operand
#: of shape (3, 4): equal, aligned at the last axes (NumPy) or at the first (NNEF), with axes of
#: size 1, a scalar, a higher rank.
_OPERAND_SHAPES = [(3, 4), (4,), (3,), (1, 4), (3, 1), (), (2, 3, 4)]


def _counterpart_cases(forms: tuple[type, ...], without_args: bool = False) -> list[Any]:
    """The ops of these forms that name an NNEF standard operation (and take no args)."""
    return [pytest.param(ns.key, op, id=op.qualified_name) for ns in CATALOGUE.namespaces for op in code_ops(ns)
            if op.nnef and isinstance(op.compute, forms) and not (without_args and op.args)]


def _own_call(document: str, op, kind: str) -> str:
    """The op's own fragment as a graph invokes it: with the element type of its operands where
    the fragment is generic."""
    name = fragment_name(op.namespace, op.name)
    return name + (f"<{kind}>" if "<?" in document.split(f"fragment {name}")[1].split("(")[0] else "")


def _inferred(document: str, call: str, inputs: list[tuple[str, tuple[int, ...]]],
              custom_shapes: dict[str, object], attributes: str = "", results: int = 1) -> list[list[int]] | str:
    """The shapes NNEF's parser infers for the results of ``call`` on externals of these kinds
    and shapes (and these attributes), or the refusal."""
    lines = [f"    t{i} = external<{kind}>(shape = {_literal(list(shape))});" for i, (kind, shape) in enumerate(inputs)]
    names = ", ".join(f"t{i}" for i in range(len(inputs)))
    outs = [f"r{k}" for k in range(results)]
    target = outs[0] if results == 1 else f"({', '.join(outs)})"
    graph = (f"graph G( {names} ) -> ( {', '.join(outs)} )\n{{\n" + "\n".join(lines)
             + f"\n    {target} = {call}({names}{attributes});\n}}\n")
    parsed = nnef.parse_string(document + "\n" + graph)
    try:
        nnef.infer_shapes(parsed, custom_shapes=custom_shapes)
    except nnef.Error:
        return "refused"
    return [parsed.tensors[r].shape for r in outs]


@pytest.mark.parametrize(("namespace", "op"), _counterpart_cases((C.Elementwise,), without_args=True))
def test_an_elementwise_op_infers_the_shapes_of_its_nnef_counterpart_unless_its_page_says_how_not(
        out: Path, shapes: types.ModuleType, namespace: str, op) -> None:
    """Both through the official parser: the op's own fragment (with its shape functions) and the
    standard operation it names (``op.nnef``), on the same operands. Where they disagree, the
    differences its docs page shows (``counterparts.differences``) must exist, and where the page
    shows one, they must disagree somewhere (ADR 0059)."""
    document = (out / f"{namespace}.nnef").read_text()
    kinds = ["logical" if t.type is DataType.BOOLEAN else "scalar" for t in op.inputs]
    call = _own_call(document, op, next((k for k in kinds if k != "logical"), "logical"))
    disagreements = []
    for rest in itertools.product(_OPERAND_SHAPES, repeat=len(op.inputs) - 1):
        operands = list(zip(kinds, [(3, 4), *rest]))
        ours = _inferred(document, call, operands, shapes.CUSTOM_SHAPES)
        theirs = _inferred("version 1.0;", op.nnef, operands, {})
        if ours != theirs:
            disagreements.append(f"{[s for _, s in operands]}: {ours} here, {theirs} in NNEF")
    stated = counterparts.differences(op, "nnef")
    assert bool(disagreements) == bool(stated), (disagreements[:4], stated)


@pytest.mark.parametrize(("namespace", "op"), _counterpart_cases((C.Reduction, C.ArgReduction)))
def test_a_reduction_infers_the_shapes_of_its_nnef_counterpart_unless_its_page_says_how_not(
        out: Path, shapes: types.ModuleType, namespace: str, op) -> None:
    """As above, for the reductions (and arg reductions) that name an NNEF reduction: the op with
    its defaults but the axes, NNEF's with the same axes (ADR 0059)."""
    document = (out / f"{namespace}.nnef").read_text()
    c = op.compute
    kind = "logical" if op.inputs[0].type is DataType.BOOLEAN else "scalar"
    call = _own_call(document, op, kind)
    listed = isinstance(c, C.Reduction)
    disagreements = []
    for axes in ([1], [0], [0, 1], []) if listed else ([1], [0]):
        given = f", {nnef_name(c.axes if listed else c.axis)} = {_literal(axes if listed else axes[0])}"
        ours = _inferred(document, call, [(kind, (3, 4))], shapes.CUSTOM_SHAPES, given, len(op.outputs))
        theirs = _inferred("version 1.0;", op.nnef, [(kind, (3, 4))], {}, f", axes = {_literal(axes)}", len(op.outputs))
        if ours != theirs:
            disagreements.append(f"axes {axes}: {ours} here, {theirs} in NNEF")
    stated = counterparts.differences(op, "nnef")
    assert bool(disagreements) == bool(stated), (disagreements, stated)
    if listed:  # (each derived difference is one the parser shows)
        assert any("[]" in d for d in disagreements) == any("empty" in s for s in stated), (disagreements, stated)
