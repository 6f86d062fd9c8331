"""A hypothesis-driven fuzzer of op definitions: random ops files, valid and invalid. A
valid one generates code that compiles (C), compiles (Python) and parses (units, NNEF);
an invalid one exits 2 with one `file:line: context: message` line per problem, whether the
loader or a target (in a worker process of a multi-project run) finds it. Never a
traceback."""

from __future__ import annotations

import py_compile
import re
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

import nnef
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from generators.cli import app

#: Names: plain ones, and ones every target must mangle or the DSL must refuse.
_PLAIN = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True)
NAMES = st.one_of(_PLAIN, _PLAIN, _PLAIN,
                  st.sampled_from(["for", "int", "class", "double", "lambda", "out", "x", "y", "_x", "auto",
                                   "restrict", "graph", "tensor", "1bad", "bad-name", "", "Add"]))
TENSOR_TYPES = st.sampled_from(["NUMERIC", "FLOATING_POINT", "INT", "LONG", "BOOLEAN", "NDARRAY"])
ARG_TYPES = st.sampled_from(["INT", "FLOATING_POINT", "BOOLEAN", "ENUM"])
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30)
#: Docs and descriptions: some words, then anything.
PROSE = TEXT.map(lambda text: "Words " + text)
BODIES = ["{a}", "{a} + {b}", "{a} * 2", "fn.abs({a})", "fn.where({a} > 0, {a}, -{a})", "unknown_name + {a}",
          "fn.exp({a})"]


@st.composite
def ops_file(draw: st.DrawFn) -> str:
    """An ops file: half of them built to be valid (distinct names, an output, a compute of
    the right types), the rest from anything the strategies give."""
    clean = draw(st.booleans())
    names = _PLAIN if clean else NAMES
    lines = ["from dsl import *", "", f"with Namespace({draw(names)!r}):"]
    for k in range(draw(st.integers(1, 2))):
        op = f"op{k}_{draw(_PLAIN)}" if clean else draw(NAMES)
        lines.append(f"    with Op({op!r}) as op:")
        kind = draw(st.sampled_from(["NUMERIC", "FLOATING_POINT"]) if clean else TENSOR_TYPES)
        inputs = [f"i{n}_{name}" for n, name in enumerate(draw(st.lists(_PLAIN, min_size=1, max_size=3)))] \
            if clean else draw(st.lists(NAMES, min_size=0, max_size=3))
        for name in inputs:
            lines.append(f"        Input({kind}, {name!r}, description={draw(PROSE)!r})")
        args = draw(st.lists(st.tuples(names, ARG_TYPES), max_size=2))
        for n, (name, type_) in enumerate(args):
            name = f"a{n}_{name}" if clean else name
            extra = ""
            if type_ == "ENUM":
                values = draw(st.lists(TEXT.filter(str.strip) if clean else TEXT, min_size=1 if clean else 0,
                                       max_size=3, unique=clean))
                extra = f", possible_values={values!r}" + (f", default={values[0]!r}" if values and draw(st.booleans())
                                                           else "")
            elif clean:
                extra = {"INT": ", default=2", "FLOATING_POINT": ", default=-0.5", "BOOLEAN": ", default=True"}[type_]
            elif draw(st.booleans()):
                extra = f", default={draw(st.sampled_from(['0', '1.5', 'True', 'None', repr('s')]))}"
            lines.append(f"        Arg({type_}, {name!r}, description={draw(PROSE)!r}{extra})")
        if clean or draw(st.integers(0, 9)) > 0:
            output = f"o_{draw(_PLAIN)}" if clean else draw(NAMES)
            lines.append(f"        Output({kind if clean else draw(TENSOR_TYPES)}, {output!r}, "
                         f"description={draw(PROSE)!r})")
        params = [n for n in inputs if n.isidentifier()]
        # A clean op may still lack a compute description: then the code targets, each in a
        # worker process of its own, find the problem (issue 17.2: that used to crash the pool).
        if params and (draw(st.integers(0, 5)) > 0 if clean else draw(st.booleans())):
            body = draw(st.sampled_from(BODIES[:5] if clean else BODIES)).format(a=params[0], b=params[-1])
            lines.append(f"        Elementwise(lambda {', '.join(dict.fromkeys(params))}: {body})")
        lines.append(f"        Doc(Language.ANY, DocScope.ALL, {draw(PROSE)!r})")
    return "\n".join(lines) + "\n"


PROBLEM = re.compile(r"^ops/\w+\.py:\d+: \S.*: \S.*$|^<unknown>: \S.*: \S.*$")


def _check_generated(out: Path) -> None:
    for source in sorted((out / "c" / "src").glob("*.c")):
        built = subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-Wvla",
                                f"-I{out / 'c' / 'include'}", f"-I{out / 'c' / 'src'}", "-fsyntax-only",
                                str(source)], capture_output=True, text=True)
        assert built.returncode == 0, built.stderr[-2000:]
    for module in sorted(out.rglob("*.py")):
        py_compile.compile(str(module), doraise=True)
    for unit in sorted(out.rglob("*.imunit")):
        ET.parse(unit)
    for document in sorted(out.rglob("*.nnef")):
        graph = "graph G( a ) -> ( b )\n{\n    a = external<scalar>(shape = [1]);\n    b = copy(a);\n}\n"
        nnef.parse_string(document.read_text() + "\n" + graph)


@settings(max_examples=30, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops_file())
def test_random_definitions_generate_or_fail_cleanly(source: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "ops").mkdir()
        (root / "ops" / "fuzz.py").write_text(source, encoding="utf-8")
        result = CliRunner().invoke(app, ["generate", "all", "-projects", "c,python,nnef,imunit,docs",
                                          "-opsdir", str(root / "ops"), "-outdir", str(root / "out")],
                                    catch_exceptions=True)
        assert result.exception is None or isinstance(result.exception, SystemExit), (source, result.exception)
        assert "Traceback" not in result.output, (source, result.output)
        assert result.exit_code in (0, 2), (source, result.exit_code, result.output)
        event(f"exit {result.exit_code}")
        if result.exit_code == 2:
            problems = [line for line in result.output.splitlines() if line and "definition problem" not in line]
            assert problems, (source, result.output)
            for line in problems:
                assert PROBLEM.match(line.replace(str(root) + "/", "")), (source, line)
        else:
            _check_generated(root / "out")
