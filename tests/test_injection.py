"""Text that could break a target (comment and string terminators, XML, template and
Markdown syntax, doc tokens, #pragma, CR/LF, non-ASCII) in docs, descriptions and enum
values: every target still compiles, parses and evaluates, and the values arrive intact."""

from __future__ import annotations

import py_compile
import subprocess
import types
import xml.etree.ElementTree as ET
from pathlib import Path

import nnef

from conftest import Cli, write_ops
from generators.imunit.expression import evaluate, parse

NASTY = ("end */ start /* \"\"\" ''' back\\slash ]]> <!-- & < {{ x }} {% y %} %OPNAME% %%NOPE%% #pragma once"
         "\r\n#define x 1\nnaïve ünïcödé ✓")
#: Enum values with both quotes, a comment terminator and a backslash.
MODES = ['a"b', "c*/d", "e'f\\g", "h\"i'j"]

DEFS = f'''
    from dsl import *
    with Namespace("demo"):
        with Op("thing") as op:
            x = Input(NUMERIC, "x", description={NASTY!r})
            Arg(ENUM, "mode", possible_values={MODES!r}, default={MODES[3]!r}, description={NASTY!r})
            Output(NUMERIC, "out", description={NASTY!r})
            Constraint({NASTY!r}, x.rank() <= 4)
            Elementwise(lambda x, mode: fn.where(mode == {MODES[0]!r}, x, -x))
            Doc(Language.ANY, DocScope.ALL, {NASTY!r})
'''


def test_hostile_text_leaves_every_target_working(project: Path, cli: Cli, tmp_path: Path) -> None:
    write_ops(project, {"demo.py": DEFS})
    run = cli("generate", "demo")
    assert run.exit_code == 0, run.output
    out = project / "out"
    for source in sorted((out / "c" / "src").glob("*.c")):
        built = subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-Wvla",
                                f"-I{out / 'c' / 'include'}", f"-I{out / 'c' / 'src'}", "-c", str(source),
                                "-o", str(tmp_path / (source.stem + ".o"))], capture_output=True, text=True)
        assert built.returncode == 0, built.stderr
    # Each mode is a C constant spelled from its value, its comment escaped.
    header = (out / "c" / "include" / "opforge" / "demo.h").read_text()
    for i, name in enumerate(("A_B", "C_D", "E_F_G", "H_I_J")):
        assert f"#define OPFORGE_DEMO_THING_{name} {i}" in header
    for module in sorted(out.rglob("*.py")):
        py_compile.compile(str(module), doraise=True)
    # The unit: well-formed XML, every expression parses, each mode gives its own index.
    unit = ET.parse(out / "imunit" / "demo" / "thing" / "thing.imunit").getroot()[0]
    for element in unit.iter():
        for attribute in ("value", "test", "shape", "type", "conditional"):
            if element.get(attribute) is not None and element.tag != "Item":
                parse(element.get(attribute))
    index = next(e.get("value") for e in unit.iter("Expression") if e.get("name") == "mode_index")
    assert [evaluate(index, {"mode": m}) for m in MODES] == [0, 1, 2, 3]
    assert [i.text for i in unit.iter("Item")] == MODES
    unit_code = types.ModuleType("unit")
    exec(compile((out / "imunit" / "demo" / "thing" / "thing.py").read_text(), "thing.py", "exec"),
         unit_code.__dict__)
    # NNEF: the document with a graph calling the fragment parses.
    document = (out / "nnef" / "demo.nnef").read_text()
    # The default with both quotes has no NNEF spelling: the document says so, and callers pass it.
    assert "# mode: its default 'h\"i\\'j' has no NNEF spelling; pass it" in document
    graph = ("graph G( a ) -> ( b )\n{\n    a = external<scalar>(shape = [2]);\n"
             "    b = demo_thing<scalar>(a, mode = 'a\"b');\n}\n")
    nnef.parse_string(document + "\n" + graph)
    # Docs: the text reaches the Markdown source whole (rendering is checked in test_docs_generator).
    page = (out / "docs" / "docs" / "demo.md").read_text()
    assert "naïve ünïcödé ✓" in page and "%NOPE%" in page
