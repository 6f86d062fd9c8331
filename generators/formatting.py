"""Formatting of generated code with the real tools: clang-format and black.

clang-format runs once per call over every file given (ADR 0005), black in
this process. Both are deterministic, so what they made is kept in a cache
keyed by a hash of the tool, its version, its style and the text (ADR 0024):
a text formatted once is never formatted again.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import black

from generators.cache import cache_dir

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


@functools.lru_cache(maxsize=None)
def _clang_format_version() -> str:
    return subprocess.run([_clang_format(), "--version"], capture_output=True, text=True, check=True).stdout.strip()


def _key(tool: str, suffix: str, text: str) -> str:
    return hashlib.sha256(f"{tool}\0{suffix}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()


def _cached(key: str) -> str | None:
    folder = cache_dir()
    if folder is None:
        return None
    entry = folder / "format" / key[:2] / key
    try:
        stored = entry.read_bytes().decode("utf-8", "surrogatepass")
        os.utime(entry)  # (recently used: pruning keeps it)
    except (OSError, UnicodeDecodeError):
        return None
    digest, _, text = stored.partition("\n")
    return text if digest == _digest(text) else None  # (a damaged entry is formatted again)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _keep(key: str, text: str) -> None:
    """Store a formatted text (atomically: a killed run leaves no half entry); a cache
    that cannot be written is only slower."""
    folder = cache_dir()
    if folder is None:
        return
    target = folder / "format" / key[:2] / key
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("wb", dir=target.parent, delete=False, suffix=".tmp") as handle:
            handle.write(f"{_digest(text)}\n{text}".encode("utf-8", "surrogatepass"))
        os.replace(handle.name, target)
    except OSError:
        pass


def clang_format(sources: dict[str, str]) -> dict[str, str]:
    """Format C sources (name -> text): the cached ones from the cache, the others
    in one clang-format run per core."""
    tool = f"{_clang_format_version()} {CLANG_FORMAT_STYLE}"
    keys = {name: _key(tool, Path(name).suffix, text) for name, text in sources.items()}
    done = {name: _cached(key) for name, key in keys.items()}
    missing = sorted(name for name, text in done.items() if text is None)
    if missing:
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for i, name in enumerate(missing):
                path = Path(tmp) / f"{i}{Path(name).suffix}"
                path.write_text(sources[name], encoding="utf-8")
                paths.append((name, path))
            # One clang-format per core, each on an equal share of the bytes.
            shares: list[list[str]] = [[] for _ in range(min(os.cpu_count() or 1, len(paths)))]
            sizes = [0] * len(shares)
            for name, path in sorted(paths, key=lambda item: -len(sources[item[0]])):
                k = sizes.index(min(sizes))
                shares[k].append(str(path))
                sizes[k] += len(sources[name])
            runs = [subprocess.Popen([_clang_format(), f"--style={CLANG_FORMAT_STYLE}", "-i", *share],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE) for share in shares]
            for run in runs:
                _, err = run.communicate()
                if run.returncode != 0:
                    raise RuntimeError(f"clang-format failed: {err.decode(errors='replace')[-2000:]}")
            for name, path in paths:
                done[name] = path.read_text(encoding="utf-8")
                _keep(keys[name], done[name])
    return {name: text for name, text in done.items() if text is not None}


_BLACK_MODE = black.Mode(line_length=100)


@functools.lru_cache(maxsize=None)
def black_format(source: str) -> str:
    key = _key(f"black {black.__version__} line-length {_BLACK_MODE.line_length}", ".py", source)
    formatted = _cached(key)
    if formatted is None:
        formatted = black.format_str(source, mode=_BLACK_MODE)
        _keep(key, formatted)  # (black's own output: the cache holds only what the tool made)
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
