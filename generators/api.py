"""The contract between opforge and a generator plug-in."""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Protocol, Sequence

import attrs

from dsl.model import Catalogue, Namespace, Problem
from dsl.types import Language

#: First words of every generated file; the header also names the sources.
GENERATED_MARK = "GENERATED - DO NOT EDIT"


@attrs.frozen
class GeneratedFile:
    """One output file: a relative POSIX path below the project's root, and its text."""

    path: str = attrs.field()
    text: str

    @path.validator
    def _relative(self, _attribute: object, value: str) -> None:
        p = PurePosixPath(value)
        if p.is_absolute() or ".." in p.parts or not p.parts or "\\" in value:
            raise ValueError(f"generated path {value!r} must be relative and stay below the output root")


@attrs.frozen
class GenerationContext:
    """What a generator is given: the whole catalogue (so aliases resolve)
    and the namespaces it is asked to generate."""

    catalogue: Catalogue
    namespaces: tuple[Namespace, ...]
    #: The folder that holds the ops tree; op locations are shown relative to it.
    source_root: Path
    #: Base URL of the repository's files, for links to the op sources (optional).
    source_url: str | None = None

    def source_path(self, file: str) -> str:
        """``file`` (as in a Location) relative to :attr:`source_root`, POSIX style."""
        path = Path(file).resolve()
        try:
            return path.relative_to(self.source_root.resolve()).as_posix()
        except ValueError:
            return path.name


class GenerationError(Exception):
    """Definitions a target cannot generate: reported like definition errors (exit 2)."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = tuple(sorted(problems, key=Problem.sort_key))
        super().__init__("\n".join(str(p) for p in self.problems))


class Generator(Protocol):
    """A target. ``generate`` is pure: it returns files and writes nothing."""

    #: The project name used with ``-projects``.
    name: str
    #: One line for ``list``.
    summary: str
    #: Doc sections for this language (and ``Language.ANY``) are used.
    language: Language

    def generate(self, context: GenerationContext) -> Sequence[GeneratedFile]: ...
