"""Formatting of generated code with the real tools: clang-format and black.

Each runs once per generation over every file of its language (ADR 0005),
not once per file.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import black

CLANG_FORMAT_STYLE = (
    "{BasedOnStyle: LLVM, IndentWidth: 4, ColumnLimit: 110, SortIncludes: Never, "
    "AllowShortFunctionsOnASingleLine: None, PointerAlignment: Left}"
)


def _clang_format() -> str:
    beside = Path(sys.executable).parent / "clang-format"
    found = str(beside) if beside.exists() else shutil.which("clang-format")
    if found is None:
        raise RuntimeError("clang-format is not installed (pip install clang-format)")
    return found


def clang_format(sources: dict[str, str]) -> dict[str, str]:
    """Format C sources (name -> text) in one clang-format run."""
    if not sources:
        return {}
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i, (name, text) in enumerate(sorted(sources.items())):
            path = Path(tmp) / f"{i}{Path(name).suffix}"
            path.write_text(text, encoding="utf-8")
            paths.append((name, path))
        subprocess.run([_clang_format(), f"--style={CLANG_FORMAT_STYLE}", "-i", *(str(p) for _, p in paths)],
                       check=True, capture_output=True)
        return {name: path.read_text(encoding="utf-8") for name, path in paths}


@functools.lru_cache(maxsize=None)
def black_format(source: str) -> str:
    formatted = black.format_str(source, mode=black.Mode(line_length=100))
    # black writes "# pragma"; Imaginet's fragment scanner expects "#pragma".
    return formatted.replace("# pragma IMAGINET_", "#pragma IMAGINET_")


#: Control characters no source file should hold raw (tab and newline aside).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f]")


def visible_controls(text: str) -> str:
    """``text`` with each control character but tab and newline written as its escape (``\\x00``)."""
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], text)


def c_comment(text: str) -> str:
    """Text that cannot end a C comment, splice a line or form a trigraph."""
    return visible_controls(text.replace("*/", "* /").replace("/*", "/ *").replace("??", "? ?")
                            .replace("\\", "\\\\").replace("\r", " "))


def c_string(text: str) -> str:
    """A C string literal for ``text``: ASCII only, every special byte escaped."""
    out = []
    for byte in text.encode("utf-8"):
        c = chr(byte)
        if c in '"\\':
            out.append("\\" + c)
        elif c == "?":
            out.append("\\?")  # no trigraphs
        elif 32 <= byte < 127:
            out.append(c)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'
