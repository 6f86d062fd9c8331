"""Discovers and imports ``ops/*.py`` and turns them into a :class:`Catalogue`.

Every failure, from a Python error in an ops file to a bad default, becomes a
:class:`Problem` with the file and line; nothing escapes as a traceback, and one
failed statement does not hide the rest of its file (:mod:`dsl.recovery`).

The files of an ops folder are imported as the package ``ops`` whatever the
folder is called (``my-ops``, ``ops.v2``, ``team ops``), so they share mixins
with ``from ops.mixins import transform``; a folder whose name is an identifier
that names nothing else is also importable by that name.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import re
import sys
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any, Sequence

import attrs

from dsl import backward, builders, compose, recovery, validate
from dsl.model import Catalogue, Location, Problem

#: The package name an ops folder is imported as.
PACKAGE = "ops"


@attrs.frozen
class LoadResult:
    catalogue: Catalogue
    problems: tuple[Problem, ...]
    ops_dir: Path

    @property
    def ok(self) -> bool:
        return not self.problems


def _purge(package: str) -> None:
    for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
        del sys.modules[name]


def _location(exc: BaseException, root: Path, fallback: Path) -> Location:
    """The innermost frame of ``exc`` inside the ops tree (else the file's first line)."""
    location = Location(builders.display_path(str(fallback)), 1)
    for frame in traceback.extract_tb(exc.__traceback__):
        try:
            inside = Path(frame.filename).resolve().is_relative_to(root)
        except OSError:
            inside = False
        if inside:
            location = Location(builders.display_path(frame.filename), frame.lineno or 1)
    return location


def _file_problem(exc: BaseException, root: Path, module_file: Path) -> Problem:
    """A whole file that could not run: it does not parse, or failed outside any statement."""
    if isinstance(exc, SyntaxError) and exc.filename:
        location = Location(builders.display_path(exc.filename), exc.lineno or 1)
        return Problem(location, f"file {module_file.name}", f"SyntaxError: {exc.msg}")
    return Problem(_location(exc, root, module_file), f"file {module_file.name}", recovery.explain(exc, {}))


class _OpsLoader(importlib.machinery.SourceFileLoader):
    """Compiles an ops file so that a failed statement is reported and the next one runs."""

    def __init__(self, fullname: str, path: str, root: Path, problems: list[Problem]) -> None:
        super().__init__(fullname, path)
        self.root = root
        self.problems = problems

    def get_code(self, fullname: str) -> Any:
        # Never the bytecode cache: it holds the file as Python compiles it, not as rewritten.
        path = self.get_filename(fullname)
        return recovery.compile_resilient(self.get_data(path), path)

    def exec_module(self, module: ModuleType) -> None:
        scope = module.__dict__
        file = Path(self.path)

        def recover(exc: BaseException) -> None:
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise exc
            builders.damage()
            if isinstance(exc, recovery.Cascade):
                return  # follows from a problem already reported
            context = builders.current_context() or f"file {file.name}"
            self.problems.append(Problem(_location(exc, self.root, file), context, recovery.explain(exc, scope)))

        scope[recovery.RECOVER] = recover
        scope[recovery.UNBOUND] = recovery.Unbound
        super().exec_module(module)


class _AliasLoader(importlib.abc.Loader):
    """The folder's own name for a module of the ``ops`` package: the very same module."""

    def __init__(self, canonical: str) -> None:
        self.canonical = canonical

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(self.canonical)

    def exec_module(self, module: ModuleType) -> None:
        pass


class _OpsFinder(importlib.abc.MetaPathFinder):
    """Finds ``ops`` (and ``<alias>``) and the modules below it in the ops folder."""

    def __init__(self, root: Path, alias: str | None, problems: list[Problem]) -> None:
        self.root = root
        self.alias = alias
        self.problems = problems

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        head, _, rest = fullname.partition(".")
        if self.alias is not None and head == self.alias:
            canonical = PACKAGE + fullname[len(head):]
            spec = importlib.machinery.ModuleSpec(fullname, _AliasLoader(canonical))
            return spec
        if head != PACKAGE:
            return None
        folder = self.root.joinpath(*rest.split(".")) if rest else self.root
        if folder.is_dir():
            init = folder / "__init__.py"
            loader = _OpsLoader(fullname, str(init), self.root, self.problems) if init.is_file() else None
            spec = importlib.machinery.ModuleSpec(fullname, loader, origin=str(init) if loader else None,
                                                  is_package=True)
            spec.submodule_search_locations = [str(folder)]
            spec.has_location = loader is not None
            return spec
        file = folder.with_name(folder.name + ".py")
        if file.is_file():
            return importlib.util.spec_from_file_location(
                fullname, file, loader=_OpsLoader(fullname, str(file), self.root, self.problems))
        return None


def op_files(ops_dir: Path) -> list[Path]:
    """The definition files of an ops tree: ``*.py`` not starting with ``_``."""
    return sorted(p for p in ops_dir.glob("*.py") if not p.name.startswith("_"))


def _alias(ops_dir: Path) -> str | None:
    """The folder's name as a second package name, when it is one and names nothing else."""
    name = ops_dir.name
    if name == PACKAGE or not name.isidentifier() or name in sys.modules:
        return None
    try:
        return name if importlib.util.find_spec(name) is None else None
    except (ImportError, ValueError):
        return None


#: A catalogue's version: what CMake's project(VERSION), pkg-config and PEP 440 all take.
_VERSION = re.compile(r"(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)")


def _version(ops_dir: Path) -> tuple[str, list[Problem]]:
    """The ``VERSION`` file's ``MAJOR.MINOR.PATCH`` (0.0.0 without one)."""
    path = ops_dir / "VERSION"
    if not path.is_file():
        return "0.0.0", []
    text = path.read_text(encoding="utf-8", errors="replace").strip()
    if _VERSION.fullmatch(text):
        return text, []
    where = Location(builders.display_path(str(path)), 1)
    return "0.0.0", [Problem(where, "catalogue", f"version must be MAJOR.MINOR.PATCH (e.g. 1.2.0), got {text!r}")]


def load(ops_dir: Path | str) -> LoadResult:
    """Import every definition file of ``ops_dir`` and validate the catalogue."""
    ops_dir = Path(ops_dir)
    problems: list[Problem] = []
    if not ops_dir.is_dir():
        problem = Problem(None, "ops", f"ops directory {ops_dir} does not exist")
        return LoadResult(Catalogue(()), (problem,), ops_dir)
    files = op_files(ops_dir)
    if not files:
        problems.append(Problem(None, "ops", f"no definition files (*.py) in {ops_dir}"))
    root = ops_dir.resolve()
    alias = _alias(root)
    finder = _OpsFinder(root, alias, problems)
    packages = [PACKAGE, *([alias] if alias else [])]
    dont_write = sys.dont_write_bytecode
    sys.dont_write_bytecode = True  # never litter the user's ops tree
    for package in packages:
        _purge(package)
    sys.meta_path.insert(0, finder)
    try:
        with builders.session() as session:
            for path in files:
                try:
                    importlib.import_module(f"{PACKAGE}.{path.stem}")
                except (KeyboardInterrupt, SystemExit):
                    raise
                except builders.DefinitionErrors as exc:
                    problems.extend(exc.problems)
                except BaseException as exc:  # noqa: BLE001 - every error becomes a Problem
                    problems.append(_file_problem(exc, root, path))
                    _purge(f"{PACKAGE}.{path.stem}")
                finally:
                    builders.unwind(session)
            problems.extend(session.problems)
    finally:
        sys.meta_path.remove(finder)
        sys.dont_write_bytecode = dont_write
        for package in packages:
            _purge(package)
    version, version_problems = _version(ops_dir)
    problems.extend(version_problems)
    catalogue = Catalogue(tuple(sorted(session.namespaces, key=lambda n: (n.key, n.name))), version)
    problems.extend(validate.catalogue_problems(catalogue))
    catalogue, composition_problems = compose.resolve(catalogue)
    problems.extend(composition_problems)
    catalogue, backward_problems = backward.derive(catalogue, frozenset(p.context for p in problems))
    problems.extend(backward_problems)
    unique = sorted(set(problems), key=Problem.sort_key)
    return LoadResult(catalogue, tuple(unique), ops_dir)
