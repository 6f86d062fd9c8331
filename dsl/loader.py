"""Discovers and imports ``ops/*.py`` and turns them into a :class:`Catalogue`.

Every failure, from a Python error in an ops file to a bad default, becomes a
:class:`Problem` with the file and line; nothing escapes as a traceback.
"""

from __future__ import annotations

import importlib
import sys
import traceback
from pathlib import Path

import attrs

from dsl import builders, compose, validate
from dsl.model import Catalogue, Location, Problem


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


def _exception_problem(exc: BaseException, ops_dir: Path, module_file: Path) -> Problem:
    """Locate an exception at the innermost frame inside the ops tree."""
    root = ops_dir.resolve()
    location = Location(builders.display_path(str(module_file)), 1)
    if isinstance(exc, SyntaxError) and exc.filename:
        location = Location(builders.display_path(exc.filename), exc.lineno or 1)
        message = f"SyntaxError: {exc.msg}"
    else:
        for frame in traceback.extract_tb(exc.__traceback__):
            try:
                inside = Path(frame.filename).resolve().is_relative_to(root)
            except OSError:
                inside = False
            if inside:
                location = Location(builders.display_path(frame.filename), frame.lineno or 1)
        text = str(exc).splitlines()[0] if str(exc) else ""
        message = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    context = getattr(exc, "opforge_context", None) or f"file {module_file.name}"
    return Problem(location, context, message)


def op_files(ops_dir: Path) -> list[Path]:
    """The definition files of an ops tree: ``*.py`` not starting with ``_``."""
    return sorted(p for p in ops_dir.glob("*.py") if not p.name.startswith("_"))


def load(ops_dir: Path | str) -> LoadResult:
    """Import every definition file of ``ops_dir`` and validate the catalogue.

    The files are imported as the package named after the folder, so they
    can share mixins with ``from ops.mixins import transform``.
    """
    ops_dir = Path(ops_dir)
    package = ops_dir.resolve().name
    problems: list[Problem] = []
    if not ops_dir.is_dir():
        problem = Problem(None, "ops", f"ops directory {ops_dir} does not exist")
        return LoadResult(Catalogue(()), (problem,), ops_dir)
    if not package.isidentifier():
        problem = Problem(None, "ops", f"ops directory name '{package}' must be a Python identifier")
        return LoadResult(Catalogue(()), (problem,), ops_dir)
    files = op_files(ops_dir)
    if not files:
        problems.append(Problem(None, "ops", f"no definition files (*.py) in {ops_dir}"))
    parent = str(ops_dir.resolve().parent)
    sys.path.insert(0, parent)
    dont_write = sys.dont_write_bytecode
    sys.dont_write_bytecode = True  # never litter the user's ops tree
    _purge(package)
    importlib.invalidate_caches()
    try:
        with builders.session() as session:
            for path in files:
                try:
                    importlib.import_module(f"{package}.{path.stem}")
                except (KeyboardInterrupt, SystemExit):
                    raise
                except builders.DefinitionErrors as exc:
                    problems.extend(exc.problems)
                except BaseException as exc:  # noqa: BLE001 - every error becomes a Problem
                    problems.append(_exception_problem(exc, ops_dir, path))
                    _purge(f"{package}.{path.stem}")
                finally:
                    builders.unwind(session)
            problems.extend(session.problems)
    finally:
        sys.dont_write_bytecode = dont_write
        sys.path.remove(parent)
        _purge(package)
    catalogue = Catalogue(tuple(sorted(session.namespaces, key=lambda n: (n.key, n.name))))
    problems.extend(validate.catalogue_problems(catalogue))
    catalogue, composition_problems = compose.resolve(catalogue)
    problems.extend(composition_problems)
    unique = sorted(set(problems), key=Problem.sort_key)
    return LoadResult(catalogue, tuple(unique), ops_dir)
