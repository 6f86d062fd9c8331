"""The no-change fast path (ADR 0024): a run whose inputs and outputs are as the last
complete run left them has nothing to do, so it reads and writes nothing else.

The inputs are everything generation reads: the ops tree, the measured pages beside it,
opforge's own code (``dsl/`` and ``generators/``), the versions of the packages whose
work lands in the files, and the command's arguments. The outputs are every file the
last run generated, by hash, so a hand edit or a killed run is noticed and repaired.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from importlib import metadata
from pathlib import Path
from typing import Iterable, Mapping

import dsl
import generators
from generators.cache import cache_dir

#: Packages whose output ends up in generated files (formatting, examples, YAML).
TOOLS = ("attrs", "black", "clang-format", "jinja2", "numpy", "pykatex", "pyyaml")


def _files(folder: Path, pattern: str = "*") -> Iterable[Path]:
    if not folder.is_dir():
        return ()
    return sorted(p for p in folder.rglob(pattern) if p.is_file() and "__pycache__" not in p.parts)


def _hash(path: Path) -> str:
    return _hash_of(path.read_bytes())


def _hash_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def inputs(ops: Path, arguments: object) -> str:
    """A hash of everything a generation reads, ``arguments`` (JSON-able) included."""
    digest = hashlib.sha256()
    code = [Path(dsl.__file__).resolve().parent, Path(generators.__file__).resolve().parent]
    for root, pattern in [(ops.resolve(), "*"), (ops.resolve().parent / "docs", "*"),
                          *((folder, "*") for folder in code)]:
        for path in _files(root, pattern):
            digest.update(f"{path.relative_to(root)}\0".encode("utf-8", "surrogateescape"))
            digest.update(path.read_bytes())
            digest.update(b"\0")
    versions = {name: _version(name) for name in TOOLS}
    digest.update(json.dumps([sys.version, versions, arguments], sort_keys=True, default=str).encode())
    return digest.hexdigest()


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "none"


def _stamp(out: Path) -> Path | None:
    """The stamp of runs into ``out``: in the cache, so the output tree holds generated files only."""
    folder = cache_dir()
    name = hashlib.sha256(str(out.resolve()).encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return None if folder is None else folder / "stamps" / f"{name}.json"


def up_to_date(out: Path, key: str) -> int | None:
    """The number of files, when the last complete run into ``out`` had these inputs and
    every file it wrote is still as it wrote it; else None."""
    stamp_path = _stamp(out)
    if stamp_path is None:
        return None
    try:
        stamp = json.loads(stamp_path.read_text(encoding="utf-8"))
        if stamp["inputs"] != key:
            return None
        files: dict[str, str] = stamp["files"]
        for path, want in files.items():
            if _hash(Path(path)) != want:
                return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return len(files)


def forget(out: Path) -> None:
    """Drop the stamp before anything is written: a run killed from here on leaves none."""
    stamp_path = _stamp(out)
    try:
        if stamp_path is not None:
            stamp_path.unlink()
    except FileNotFoundError:
        pass


def record(out: Path, key: str, contents: Mapping[Path, bytes]) -> None:
    """Stamp a complete run: its inputs and the hash of every file it left, from the bytes
    the run wrote (``contents``: path -> bytes; no file is read again), atomically."""
    stamp_path = _stamp(out)
    if stamp_path is None:
        return
    files = {str(path.resolve()): _hash_of(data) for path, data in sorted(contents.items())}
    try:
        stamp_path.parent.mkdir(parents=True, exist_ok=True)
        temporary = stamp_path.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps({"inputs": key, "files": files}, indent=1, sort_keys=True) + "\n",
                             encoding="utf-8")
        os.replace(temporary, stamp_path)
    except OSError:
        pass  # (without a stamp the next run only takes longer)
