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

#: Ops exported under a NumPy function's name that do not compute what it computes there, and how
#: they differ, as each declares it (``op.unlike_numpy``, shown in the docs and the docstring):
#: issue 21's remaining work, each to be changed to NumPy's meaning or renamed. A new op with a
#: NumPy name and another meaning, saying nothing, fails the test below.
NUMPY_NAME_GAPS = {op.qualified_name: op.unlike_numpy for ns in CATALOGUE.namespaces for op in ns.ops
                   if op.unlike_numpy is not None}


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
    """Each op saying how it differs from NumPy is one the package exports under a NumPy name and
    that declares none, so the list shrinks as ops take NumPy's meaning."""
    exported = {op.qualified_name: op for name, ns, op in _exported() if numpy_function(ns, name) is not None}
    assert len(NUMPY_NAME_GAPS) == 26
    for qualified in NUMPY_NAME_GAPS:
        assert qualified in exported and exported[qualified].numpy is None, qualified


def test_unlike_numpy_is_words_and_never_beside_numpy(project: Path) -> None:
    write_ops(project, {"m.py": '''
        from dsl import *
        with Namespace("m"):
            with Op("a") as op:
                op.numpy = "sum"
                op.unlike_numpy = "sums differently"
                Output(NUMERIC, "out", description="out")
                Doc(Language.ANY, DocScope.ALL, "a")
            with Op("b") as op:
                op.unlike_numpy = "  "
                Output(NUMERIC, "out", description="out")
                Doc(Language.ANY, DocScope.ALL, "b")
    '''})
    found = [str(p) for p in loader.load(project / "ops").problems]
    assert found == ["ops/m.py:5: m.a: unlike_numpy contradicts numpy='sum': an op computes what its NumPy function "
                     "computes, or says how it differs",
                     "ops/m.py:9: m.b: unlike_numpy must say how the op differs from NumPy's function of its name, "
                     "got '  '"], found


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
