"""Assembles ``out/c``: the library's CMake project (headers, sources, CMake files) and the
Doxygen configuration of its API reference."""

from __future__ import annotations

from typing import Sequence

import jinja2

from dsl.types import Language
from generators.api import GeneratedFile, GenerationContext
from generators.formatting import c_comment
from generators.kernels import c_library
from generators.kernels.selection import require_compute

_TEMPLATES = jinja2.Environment(loader=jinja2.PackageLoader("generators.c", "templates"),
                                undefined=jinja2.StrictUndefined, keep_trailing_newline=True)


class CGenerator:
    name = "c"
    summary = "C99 static library: Imaginet-style kernels and checked API functions"
    language = Language.C
    options: dict[str, tuple[str, ...]] = {}

    def generate(self, context: GenerationContext) -> Sequence[GeneratedFile]:
        require_compute(context.namespaces, self.name)
        files = c_library.project(context)  # (its files name this target, c_library.TARGET)
        doxyfile = _TEMPLATES.get_template("Doxyfile.j2").render(header=c_comment(context.header(self.name)),
                                                                 version=context.catalogue.version)
        return [*files, GeneratedFile("Doxyfile", doxyfile)]
