"""Scanner for Imaginet fragment files (``#pragma IMAGINET_*`` annotations).

Rules (Imaginet's custom-unit reference and the authoring guide): fragments are
named and unique per file (``IMAGINET_FRAGMENT_BEGIN_HEADER`` ones too);
``IMAGINET_DEPENDENCY "file:fragment"`` (or ``IMAGINET_FRAGMENT_DEPENDENCY``)
inside a fragment applies to it, outside to every fragment below it ("all
fragments below inherit this"); includes come from ``IMAGINET_INCLUDES_BEGIN/END``;
code packages, symbol checks and fragment tests are the tool chain's business. Dependencies resolve
transitively, each fragment is emitted once, dependencies first. Python files
use ``# pragma`` comments with the same words.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

import attrs

from dsl.model import Location

_PRAGMA = re.compile(r'^\s*(?:#\s*pragma|#pragma)\s+(IMAGINET_[A-Z_]+)(?:\s+"([^"]*)")?\s*$')
_ANY_PRAGMA = re.compile(r"^\s*#\s*pragma\s+IMAGINET_")


class FragmentError(Exception):
    def __init__(self, location: Location, message: str) -> None:
        super().__init__(message)
        self.location = location
        self.message = message


@attrs.frozen
class Fragment:
    file: str
    name: str
    text: str
    dependencies: tuple[tuple[str, str, Location], ...]  # (file, fragment, where declared)
    location: Location
    #: test fragments associated with it by IMAGINET_FRAGMENT_TEST (file, fragment, where declared)
    tests: tuple[tuple[str, str, Location], ...] = ()


@attrs.frozen
class FragmentFile:
    path: str
    includes: tuple[str, ...]
    fragments: tuple[Fragment, ...]


def scan(path: Path, display: str) -> FragmentFile:
    """Split one file into its fragments; raise FragmentError for bad annotations."""
    lines = path.read_text(encoding="utf-8-sig").splitlines()  # (a byte-order mark is no code)
    includes: list[str] = []
    fragments: list[Fragment] = []
    file_deps: list[tuple[str, str, Location]] = []
    file_tests: list[tuple[str, str, Location]] = []
    current: dict | None = None
    in_includes = False
    for number, line in enumerate(lines, 1):
        where = Location(display, number)
        m = _PRAGMA.match(line)
        word, arg = (m.group(1), m.group(2)) if m else (None, None)
        if m is None and _ANY_PRAGMA.match(line):  # (a continued line would be read as code)
            raise FragmentError(where, "an IMAGINET pragma is one line: the word, then its argument in double quotes")
        if word == "IMAGINET_INCLUDES_BEGIN":
            in_includes = True
        elif word == "IMAGINET_INCLUDES_END":
            in_includes = False
        elif word in ("IMAGINET_FRAGMENT_BEGIN", "IMAGINET_FRAGMENT_BEGIN_HEADER"):
            if current is not None:
                raise FragmentError(where, f"fragment {arg!r} begins inside fragment {current['name']!r}")
            if not arg:
                raise FragmentError(where, "IMAGINET_FRAGMENT_BEGIN needs a quoted name")
            if any(f.name == arg for f in fragments):
                raise FragmentError(where, f"fragment {arg!r} is defined twice in {display}")
            current = {"name": arg, "lines": [], "deps": list(file_deps), "tests": list(file_tests), "location": where}
        elif word in ("IMAGINET_FRAGMENT_END", "IMAGINET_FRAGMENT_END_HEADER"):
            if current is None:
                raise FragmentError(where, "IMAGINET_FRAGMENT_END without a fragment")
            fragments.append(Fragment(display, current["name"], "\n".join(current["lines"]) + "\n",
                                      tuple(current["deps"]), current["location"], tuple(current["tests"])))
            current = None
        elif word in ("IMAGINET_DEPENDENCY", "IMAGINET_FRAGMENT_DEPENDENCY", "IMAGINET_FRAGMENT_TEST"):
            if not arg:
                raise FragmentError(where, f"{word} needs \"FILE_PATH:FRAGMENT_NAME\" or \"FRAGMENT_NAME\"")
            # Without a file the fragment is in the same file (the authoring guide's short form).
            dep_file, dep_name = arg.rsplit(":", 1) if ":" in arg else (path.name, arg)
            kind = "tests" if word == "IMAGINET_FRAGMENT_TEST" else "deps"
            (current[kind] if current is not None else file_tests if kind == "tests" else file_deps).append(
                (dep_file, dep_name, where))
        elif word is not None and word not in ("IMAGINET_CODEPACKAGE_DEPENDENCY", "IMAGINET_SYMBOL_CHECK"):
            raise FragmentError(where, f"unknown pragma {word}")
        elif in_includes:
            if line.strip():
                includes.append(line.strip())
        elif current is not None:
            current["lines"].append(line)
    if current is not None:
        raise FragmentError(current["location"], f"fragment {current['name']!r} has no IMAGINET_FRAGMENT_END")
    return FragmentFile(display, tuple(includes), tuple(fragments))


def resolve(root: Path, file: str, name: str, display_root: str) -> tuple[list[Fragment], list[str]]:
    """``file:name`` and everything it depends on, dependencies first, each once,
    plus the includes of every file involved. ``file`` is relative to ``root``."""
    cache: dict[str, FragmentFile] = {}
    order: list[Fragment] = []
    done: set[tuple[str, str]] = set()
    includes: list[str] = []

    def load(rel: str, where: Location | None) -> FragmentFile:
        if rel not in cache:
            path = root / rel
            if not path.is_file():
                raise FragmentError(where or Location(f"{display_root}/{rel}", 1), f"fragment file {rel} does not exist")
            cache[rel] = scan(path, f"{display_root}/{rel}")
            for inc in cache[rel].includes:
                if inc not in includes:
                    includes.append(inc)
        return cache[rel]

    def visit(rel: str, frag: str, where: Location | None, stack: tuple[tuple[str, str], ...]) -> None:
        key = (rel, frag)
        if key in stack:
            cycle = " -> ".join(f"{f}:{n}" for f, n in (*stack[stack.index(key):], key))
            raise FragmentError(where or Location(rel, 1), f"circular fragment dependency {cycle}")
        if key in done:
            return
        ff = load(rel, where)
        fragment = next((f for f in ff.fragments if f.name == frag), None)
        if fragment is None:
            known = ", ".join(f.name for f in ff.fragments) or "none"
            raise FragmentError(where or Location(ff.path, 1), f"fragment {frag!r} not found in {rel} (has: {known})")
        for dep_file, dep_name, dep_where in fragment.dependencies:
            # A dependency's path is relative to the file that declares it.
            dep_rel = posixpath.normpath(posixpath.join(posixpath.dirname(rel), dep_file))
            visit(dep_rel, dep_name, dep_where, (*stack, key))
        done.add(key)
        order.append(fragment)

    visit(file, name, None, ())
    return order, includes
