"""NumPy's names keep NumPy's meaning (issue 21, ADR 0050): an op or alias the package exports
under the name of a NumPy function declares that function (``op.numpy``) and computes what it
computes, which tests/test_generated_code.py checks on the installed package; or it is listed
below with what still differs. A definition's ``numpy`` is checked at load time."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT, write_ops
from dsl import loader
from dsl import validate
from dsl.validate import numpy_name_problem
from generators.kernels import py_names

CATALOGUE = loader.load(ROOT / "ops").catalogue

#: Ops (by qualified name) exported under a NumPy function's name that do not yet compute what it
#: computes there, and how they differ: issue 21's remaining work, each to be changed to NumPy's
#: meaning or renamed. A new op with a NumPy name and another meaning fails the test below.
NUMPY_NAME_GAPS = {
    "math.sum": "integer sums keep (and wrap in) the input's type; NumPy's sum of a smaller integer type is int64 "
                "(uint64: no type of opforge's yet), of bools a count",
    "math.prod": "integer products keep (and wrap in) the input's type; NumPy's promote as its sum does",
    "base.dot": "a sum of products over axes (ND4J's dot); NumPy's dot is a matrix product",
    "math.cumsum": "takes exclusive and reverse args and defaults to axis 0; NumPy's flattens by default",
    "base.cumprod": "takes exclusive and reverse args and defaults to axis 0; NumPy's flattens by default",
    "base.size": "ND4J's size; NumPy's size takes an axis= keyword",
    "base.split": "splits into num_split equal parts, as ND4J; NumPy's split also takes section indices",
    "base.unstack": "returns a list of the parts; NumPy's unstack a tuple",
    "base.transpose": "reverses the axes, as NumPy's, but takes no axes= (base.permute does)",
    "base.full_like": "takes the value as an arg named value, as ND4J; NumPy's is fill_value",
    "base.linspace": "takes start, stop and number as ND4J; NumPy's takes endpoint=, retstep= and num=",
    "base.eye": "takes rows, cols and batch dimensions as ND4J; NumPy's eye takes N, M, k=",
    "math.trace": "traces the last two axes of a batch; NumPy's trace takes the first two (offset=, axis1=, axis2=)",
    "math.diag": "ND4J's diag (a diagonal matrix from a vector, for any rank); NumPy's diag extracts from a matrix too",
    "math.meshgrid": "returns ND4J's pair of grids; NumPy's takes any number of vectors and indexing=",
    "linalg.triu": "takes its diagonal as ND4J's arg; NumPy's triu takes k=",
    "linalg.tri": "takes rows, cols and diagonal as ND4J; NumPy's tri takes N, M, k=",
    "linalg.cross": "takes ND4J's arguments; NumPy's cross takes axisa=, axisb=, axisc=, axis=",
    "linalg.cholesky": "not yet compared with numpy.linalg.cholesky",
    "linalg.qr": "returns ND4J's results; numpy.linalg.qr takes mode=",
    "linalg.solve": "not yet compared with numpy.linalg.solve",
    "linalg.lstsq": "returns the solution only; numpy.linalg.lstsq returns four results and takes rcond=",
    "linalg.svd": "returns ND4J's results; numpy.linalg.svd takes full_matrices= and compute_uv=",
    "math.pow": "an integer to a negative integer power is 0 (1 or -1 for bases 1 and -1); NumPy's power raises",
    "nn.pad": "takes ND4J's padding and mode; NumPy's pad takes pad_width and mode names of its own",
}


def numpy_function(namespace: str, name: str) -> object | None:
    """The NumPy function the package name ``name`` in ``namespace`` would be read as: numpy.linalg's
    in the linalg namespace, else numpy's (a public callable that is not a class)."""
    for owner in ((np.linalg, np) if namespace == "linalg" else (np,)):
        found = getattr(owner, name, None)
        if callable(found) and not name.startswith("_") and not isinstance(found, type):
            return found
    return None


def declared(op_numpy: str | None) -> object | None:
    return None if op_numpy is None else validate.numpy_function(op_numpy)


def _exported() -> list[tuple[str, str, object]]:
    """(the package name, the namespace, the op it calls) of every op and alias exported."""
    found = []
    for ns in CATALOGUE.namespaces:
        found += [(py_names.function_name(op.name), ns.name, op) for op in ns.ops if not op.abstract]
        found += [(py_names.function_name(a.name), ns.name, CATALOGUE.resolve(a)) for a in ns.aliases]
    return found


#: NumPy's own second names for one function (``numpy.amax`` is documented as ``numpy.max``'s alias;
#: ``numpy.linalg.matmul``, the Array API's, computes ``numpy.matmul``'s product, without its out=).
NUMPY_ALIASES = {"amax": "max", "amin": "min", "matmul": "matmul"}


def test_every_numpy_name_the_package_exports_means_what_numpy_means() -> None:
    """A name NumPy uses either calls an op declaring that very function, or is a listed gap."""
    wrong = []
    for name, namespace, op in _exported():
        theirs = numpy_function(namespace, name)
        if theirs is None or op.qualified_name in NUMPY_NAME_GAPS:
            continue
        ours = declared(op.numpy)
        same = ours is theirs or (ours is not None and getattr(np, NUMPY_ALIASES.get(name, ""), None) is ours)
        if not same:
            wrong.append(f"{namespace}.{name} (calls {op.qualified_name}, numpy={op.numpy!r})")
    assert wrong == [], wrong


def test_the_gaps_are_still_gaps() -> None:
    """Each listed gap is an op the package exports under a NumPy name and that declares none, so the
    list shrinks as ops take NumPy's meaning."""
    exported = {op.qualified_name: op for name, ns, op in _exported() if numpy_function(ns, name) is not None}
    for qualified in NUMPY_NAME_GAPS:
        assert qualified in exported and exported[qualified].numpy is None, qualified


def test_the_renamed_ops_keep_nd4j_s_meaning_under_names_numpy_does_not_use() -> None:
    """ND4J's amax, amin, mod, matrix transpose and identity kept their meaning under new names;
    NumPy's names now call the op of NumPy's meaning (or none, as identity)."""
    math = CATALOGUE.namespace("math")
    aliases = {a.name: CATALOGUE.resolve(a).qualified_name for a in math.aliases}
    assert {k: aliases[k] for k in ("amax", "amin", "transpose", "remainder", "floor_mod")} == {
        "amax": "math.max", "amin": "math.min", "transpose": "base.transpose", "remainder": "math.mod",
        "floor_mod": "math.mod"}
    assert math.op("max_abs").compute.map is not None and math.op("min_abs").compute.map is not None
    assert (math.op("mod").numpy, math.op("fmod").numpy) == ("mod", "fmod")
    assert math.op("matrix_transpose").numpy == "matrix_transpose" and math.op("transpose") is None
    base = CATALOGUE.namespace("base")
    assert base.op("copy").numpy == "copy" and base.op("identity") is None  # (ONNX's Identity: a copy)
    where = CATALOGUE.namespace("base").op("where")
    assert [i.name for i in where.inputs] == ["condition", "x", "y"]


@pytest.mark.parametrize(("given", "words"), [
    ("fmodd", "numpy: numpy has no function 'fmodd' (did you mean 'fmod'"),
    ("linalg.cholesk", "numpy: numpy.linalg has no function 'cholesk' (did you mean 'cholesky'?)"),
    ("fft.fft", "numpy: 'fft' is not a NumPy module opforge knows"),
    ("Add", "numpy must name a NumPy function such as 'fmod'"),
    ("pi", "numpy: numpy has no function 'pi'"),
])
def test_a_numpy_name_that_names_no_numpy_function_is_a_definition_error(project: Path, given: str,
                                                                         words: str) -> None:
    assert words in (numpy_name_problem(given) or "")
    write_ops(project, {"defs.py": f'''
        from dsl import *
        with Namespace("m"):
            with Op("twice") as op:
                op.numpy = {given!r}
                x = Input(NUMERIC, "x", description="x")
                Output(NUMERIC, "out", description="out")
                Elementwise(lambda x: x + x)
                Doc(Language.ANY, DocScope.ALL, "twice")
    '''})
    found = [p for p in loader.load(project / "ops").problems if words in p.message]
    assert [(p.context, p.location.line) for p in found] == [("m.twice", 4)], found
