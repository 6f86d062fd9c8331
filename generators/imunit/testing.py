"""Runs the tests units name, as Studio's test runner does: the test fragments associated
(``IMAGINET_FRAGMENT_TEST``) with the fragments of each unit's Implementations.

The C tests of all units are assembled as Imaginet assembles a firmware (each fragment once,
dependencies first) into one program, compiled with ``-std=c99 -Wall -Wextra -Werror
-pedantic`` and run; the Python tests are assembled per unit and run in a fresh namespace.
A test is a function of no arguments returning the number of its checks that failed and
printing a ``[PASSED]`` or ``[FAILED]`` line per check (the library's ``iassert.h`` format).
"""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

import attrs

from generators.imunit import checker

LANGUAGES = ("C", "Python")
C_FLAGS = ("-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-Wno-unknown-pragmas", "-O1")


@attrs.frozen
class Outcome:
    """A unit's tests: ``passed``, ``failed`` (a check failed), ``none`` (no test is associated
    with its fragments) or ``error`` (they could not run); the checks' lines."""

    path: Path
    kind: str
    detail: str
    lines: tuple[str, ...] = ()

    def line(self) -> str:
        return f"{self.path}: {self.kind}" + (f": {self.detail}" if self.detail else "")


def associated(path: Path) -> dict[str, list[tuple[Path, str]]]:
    """Per language, the test fragments (file, name) associated with the fragments of the
    unit's Implementations, each once."""
    unit = next(u for u in ET.parse(path).getroot() if isinstance(u.tag, str))
    found: dict[str, dict[tuple[Path, str], None]] = {language: {} for language in LANGUAGES}
    for implementation in unit.iter("Implementation"):
        language = implementation.get("language", "")
        if language in found:
            found[language] |= dict.fromkeys(checker.tests_of(path.parent, implementation.get("fragment", "")))
    return {language: list(tests) for language, tests in found.items()}


def c_program(tests: list[tuple[Path, str]]) -> str:
    """One C program running ``tests`` (file, name), assembled as a firmware is; it exits 1 if one fails."""
    fragment_list = [f for file, name in tests for f in checker.fragments_of(file.parent, f"{file.name}:{name}")]
    calls = "\n".join(f"    failed += {name}() != 0;" for _, name in tests)
    return (checker.assemble_fragments(fragment_list) + "\nint main(void);\nint main(void)\n{\n    int failed = 0;\n"
            f"{calls}\n    fflush(stdout);\n    return failed != 0;\n}}\n")


def _run_c(tests: list[tuple[Path, str]], cc: str) -> tuple[str, str | None]:
    """The C tests' output, and why they did not all run (None: they did)."""
    try:
        text = c_program(tests)
    except checker.Unresolved as exc:
        return "", f"the C tests cannot be assembled: {exc}"
    with tempfile.TemporaryDirectory() as folder:
        source, program = Path(folder) / "unit_tests.c", Path(folder) / "unit_tests"
        source.write_text(text, encoding="utf-8")
        build = subprocess.run([cc, *C_FLAGS, str(source), "-lm", "-o", str(program)], capture_output=True, text=True)
        if build.returncode != 0:
            first = next((line for line in build.stderr.splitlines() if "error" in line), build.stderr.strip())
            return "", f"the C tests do not compile: {first.replace(str(source), 'unit_tests.c')}"
        run = subprocess.run([str(program)], capture_output=True, text=True, timeout=600)
        if run.returncode < 0:
            return run.stdout, f"the C tests stopped by signal {-run.returncode}"
        return run.stdout, None


def _run_python(file: Path, name: str) -> str:
    """One Python test's output (an exception it raises is a failed check)."""
    try:
        source = checker.assemble_fragments(checker.fragments_of(file.parent, f"{file.name}:{name}"), "Python")
    except checker.Unresolved as exc:
        return f"[FAILED] {name}: (Python) cannot be assembled: {exc}\n"
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        try:
            scope: dict[str, object] = {"__name__": f"unit_test_{name}"}
            exec(compile(source, f"{file.name}:{name}", "exec"), scope)
            scope[name]()  # type: ignore[operator]
        except Exception as exc:  # noqa: BLE001 (a test that raises has failed, and says why)
            print(f"[FAILED] {name}: (Python) raised {type(exc).__name__}: {exc}")
    return printed.getvalue()


def run(paths: list[Path], cc: str = "gcc") -> list[Outcome]:
    """Every unit's tests under ``paths``: one outcome per unit."""
    units = checker.unit_files(paths)
    tests: dict[Path, dict[str, list[tuple[Path, str]]]] = {}
    outcomes: dict[Path, Outcome] = {}
    for path in units:
        try:
            tests[path] = associated(path)
        except (ET.ParseError, checker.Unresolved, StopIteration) as exc:
            outcomes[path] = Outcome(path, "error", str(exc) or "no unit element")
    c_tests = list(dict.fromkeys(t for found in tests.values() for t in found["C"]))
    c_output, c_error = _run_c(c_tests, cc) if c_tests else ("", None)
    printed = c_output.splitlines()
    for path, found in tests.items():
        if not found["C"] and not found["Python"]:
            outcomes[path] = Outcome(path, "none", "no test is associated with its fragments")
            continue
        lines = [line for _, name in found["C"] for line in printed if re.match(rf"\[\w+\] {name}: \(C\)", line)]
        missing = [name for _, name in found["C"] if not any(f"] {name}: (C)" in line for line in lines)]
        lines += [line for file, name in found["Python"] for line in _run_python(file, name).splitlines()]
        failed = [line for line in lines if line.startswith("[FAILED]")]
        if failed:
            outcomes[path] = Outcome(path, "failed", failed[0], tuple(lines))
        elif missing:
            outcomes[path] = Outcome(path, "error", c_error or f"the C test {missing[0]} printed nothing", tuple(lines))
        else:
            counts = {language: sum(f"({language})" in line for line in lines) for language in LANGUAGES}
            outcomes[path] = Outcome(path, "passed", ", ".join(f"{language} {n} checks" for language, n in counts.items()),
                                     tuple(lines))
    return [outcomes[path] for path in units]
