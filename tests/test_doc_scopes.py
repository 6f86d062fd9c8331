"""Issue 17.7: one doc selection and token expansion for every target (ADR 0004). Each place an
op is documented takes the Docs of its language (and ANY) and of the scopes that place stands
for: a function one calls (C, Python: ND4J's creators), a node one puts in a graph (NNEF, a
unit: ND4J's constructors), the op described as a whole (the docs page). No raw %TOKEN% is left."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, write_ops

OPS = '''
    from dsl import *
    with Namespace("demo"):
        with Op("thing") as op:
            op.native_name = "thing_native"
            Input(NUMERIC, "x", description="x")
            Output(NUMERIC, "out", description="out")
            Elementwise(lambda x: -x)
            Doc(Language.ANY, DocScope.ALL, "ALL-TEXT %OPNAME% %NATIVE_OPNAME% %INPUT_TYPE% 5%%")
            Doc(Language.ANY, DocScope.CLASS_DOC_ONLY, "CLASS-TEXT")
            Doc(Language.ANY, DocScope.CREATORS_ONLY, "CREATORS-TEXT")
            Doc(Language.ANY, DocScope.CONSTRUCTORS_ONLY, "CONSTRUCTORS-TEXT")
            Doc(Language.C, DocScope.ALL, "C-TEXT")
            Doc(Language.PYTHON, DocScope.ALL, "PYTHON-TEXT")
            Doc(Language.NNEF, DocScope.ALL, "NNEF-TEXT")
            Doc(Language.IMUNIT, DocScope.ALL, "IMUNIT-TEXT")
            Doc(Language.MARKDOWN, DocScope.ALL, "MARKDOWN-TEXT")
'''

#: file -> (the texts it must show, how ALL-TEXT's tokens read there)
WANTED = {
    "c/include/opforge/demo.h": ({"ALL", "CLASS", "CREATORS", "C"}, "opforge_demo_thing thing_native opforge_tensor 5%"),
    "python/src/opforge/demo.py": ({"ALL", "CLASS", "CREATORS", "PYTHON"}, "thing thing_native numpy.ndarray 5%"),
    "nnef/demo.nnef": ({"ALL", "CLASS", "CONSTRUCTORS", "NNEF"}, "demo_thing thing_native tensor 5%"),
    "imunit/demo/thing/thing.imunit": ({"ALL", "CLASS", "CONSTRUCTORS", "IMUNIT"}, "Opforge.Demo.Thing thing_native array 5%"),
    "docs/docs/demo.md": ({"ALL", "CLASS", "CREATORS", "CONSTRUCTORS", "MARKDOWN"}, "thing thing\\_native tensor 5%"),
}
ALL = {"ALL", "CLASS", "CREATORS", "CONSTRUCTORS", "C", "PYTHON", "NNEF", "IMUNIT", "MARKDOWN"}


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("scopes")
    ops = write_ops(root, {"defs.py": OPS})
    subprocess.run([sys.executable, "-m", "generators.cli", "all", "-projects", "c,python,nnef,imunit,docs",
                    "-opsdir", str(ops), "-outdir", str(root / "out")], cwd=ROOT, check=True, capture_output=True)
    return root / "out"


@pytest.mark.parametrize("path", sorted(WANTED))
def test_each_target_shows_the_docs_of_its_place(out: Path, path: str) -> None:
    text = (out / path).read_text()
    wanted, tokens = WANTED[path]
    shown = {word for word in ALL if f"{word}-TEXT" in text}
    assert shown == wanted, path
    assert f"ALL-TEXT {tokens}" in text, path
    assert not re.search(r"%[A-Z_]+%", text), path
