"""The one writer every generator's files go through.

* atomic: each file is written to a temporary sibling and renamed over the
  target, so a reader (or a killed run) never sees half a file;
* minimal: a file whose bytes are unchanged is not touched;
* tidy: files this writer generated earlier and no longer generates are
  removed, and only those: the manifest in each output root says which;
* checkable: :func:`plan` computes the changes without writing anything.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Iterable, Sequence

import attrs

from generators.api import GeneratedFile

MANIFEST = ".opforge-manifest.json"
_TMP_SUFFIX = ".opforge-tmp"


@attrs.frozen
class Change:
    action: str  # "write" or "remove"
    path: Path


@attrs.frozen
class Plan:
    root: Path
    files: tuple[GeneratedFile, ...]
    changes: tuple[Change, ...]
    previous: tuple[str, ...]

    @property
    def unchanged(self) -> int:
        return len(self.files) - sum(1 for c in self.changes if c.action == "write")


def _encode(text: str) -> bytes:
    return text.encode("utf-8")


def read_manifest(root: Path) -> tuple[str, ...]:
    """The paths the last run generated below ``root`` (empty if none)."""
    try:
        data = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
        files = data["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return ()
    return tuple(f for f in files if isinstance(f, str))


def _manifest_text(paths: Iterable[str]) -> str:
    return json.dumps({"generator": "opforge", "files": sorted(set(paths))}, indent=1) + "\n"


def _inside(root: Path, rel: str) -> Path | None:
    """``root/rel`` if it stays below ``root`` (a hand-edited manifest could lie)."""
    target = (root / rel).resolve()
    return target if target.is_relative_to(root.resolve()) else None


def plan(root: Path, files: Sequence[GeneratedFile]) -> Plan:
    """What writing ``files`` below ``root`` would change."""
    seen: set[str] = set()
    for f in files:
        if f.path in seen:
            raise ValueError(f"two generated files share the path {f.path}")
        seen.add(f.path)
    changes: list[Change] = []
    for f in sorted(files, key=lambda f: f.path):
        target = root / f.path
        try:
            current = target.read_bytes()
        except OSError:
            current = None
        if current != f.content:
            changes.append(Change("write", target))
    previous = read_manifest(root)
    for rel in sorted(set(previous) - seen):
        target = _inside(root, rel)
        if target is not None and target.is_file():
            changes.append(Change("remove", root / rel))
    return Plan(root, tuple(files), tuple(changes), previous)


def atomic_write(path: Path, data: bytes) -> None:
    """Replace ``path`` by ``data`` in one rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=_TMP_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _remove_stale_temporaries(root: Path) -> None:
    """Temporaries a killed run left behind are never valid output."""
    if root.is_dir():
        for tmp in root.rglob(f".*{_TMP_SUFFIX}"):
            tmp.unlink(missing_ok=True)


def _prune_empty_dirs(root: Path, start: Path) -> None:
    d = start
    while d != root and d.is_relative_to(root):
        try:
            d.rmdir()
        except OSError:
            return
        d = d.parent


def apply(p: Plan) -> None:
    """Carry out a plan. The manifest first grows to cover old and new files,
    so a run killed half-way still knows every file it may have written."""
    root = p.root
    _remove_stale_temporaries(root)
    new_paths = [f.path for f in p.files]
    union = _manifest_text([*p.previous, *new_paths])
    manifest = root / MANIFEST
    if not manifest.exists() or manifest.read_text(encoding="utf-8") != union:
        if p.changes:
            atomic_write(manifest, _encode(union))
    by_path = {root / f.path: f for f in p.files}
    for change in p.changes:
        if change.action == "write":
            atomic_write(change.path, by_path[change.path].content)
    for change in p.changes:
        if change.action == "remove":
            change.path.unlink(missing_ok=True)
            _prune_empty_dirs(root.resolve(), change.path.resolve().parent)
    final = _manifest_text(new_paths)
    if not manifest.exists() or manifest.read_text(encoding="utf-8") != final:
        atomic_write(manifest, _encode(final))
