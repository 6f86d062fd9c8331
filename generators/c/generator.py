"""Assembles ``out/c``: headers, sources and a CMakeLists.txt for a static library."""

from __future__ import annotations

from typing import Sequence

import jinja2

from dsl.model import Catalogue, Namespace, Op
from dsl import doc_tokens
from dsl import fixed_point as F
from dsl.types import DataType, Language
from generators import abi
from generators.api import GeneratedFile, GenerationContext
from generators.kernels import c_emit as emit
from generators.kernels import c_conversions, c_runtime, fixed_point
from generators.formatting import c_comment, clang_format
from generators.kernels.selection import code_ops, require_compute


_TEMPLATES = jinja2.Environment(loader=jinja2.PackageLoader("generators.c", "templates"),
                                undefined=jinja2.StrictUndefined, keep_trailing_newline=True)


class CGenerator:
    name = "c"
    summary = "C99 static library: Imaginet-style kernels and checked API functions"
    language = Language.C
    options: dict[str, tuple[str, ...]] = {}

    def generate(self, context: GenerationContext) -> Sequence[GeneratedFile]:
        require_compute(context.namespaces, self.name)
        sources: dict[str, str] = {}
        header_all = c_comment(context.header(self.name))
        sources.update(c_runtime.library_files(header_all))
        sources[f"src/{c_conversions.SOURCE}"] = c_conversions.source(header_all)
        for ns in context.namespaces:
            header = c_comment(context.header(self.name, [ns]))
            codes = {o.name: emit.emit(o) for o in code_ops(ns)}
            sources[f"include/opforge/{ns.key}.h"] = self._ns_header(ns, header, context.catalogue)
            sources[f"src/{ns.key}.c"] = self._ns_source(ns, header, codes)
        sources["include/opforge/opforge_all.h"] = self._all_header(context.namespaces, header_all)
        sources["include/opforge/version.h"] = self._version_header(context.catalogue.version, header_all)
        formatted = clang_format(sources)
        files = [GeneratedFile(path, text) for path, text in sorted(formatted.items())]
        files += [GeneratedFile(path, self._cmake_file(path, context, header_all)) for path in CMAKE_FILES]
        return files

    def _doc(self, op: Op) -> str:
        lines = doc_tokens.texts(op, Language.C, doc_tokens.FUNCTION_SCOPES, abi.function(op), "opforge_tensor")
        params = [f"{p.name}: {p.description}" for p in op.params if p.description]
        body = "\n".join(lines + [""] + params + ["Returns OPFORGE_OK, or a status with *detail (if not NULL) set "
                                                  "to a static message."])
        return "/*\n" + "\n".join(" * " + c_comment(line) if line else " *" for line in body.splitlines()) + "\n */"

    def _ns_header(self, ns: Namespace, header: str, catalogue: Catalogue) -> str:
        guard = f"OPFORGE_{ns.key.upper()}_H"
        others = sorted({a.target_namespace.lower() for a in ns.aliases} - {ns.key})
        parts = [f"/* {header} */", f"#ifndef {guard}", f"#define {guard}", "",
                 '#include "opforge/opforge.h"', *(f'#include "opforge/{k}.h"' for k in others), "",
                 "#ifdef __cplusplus", 'extern "C" {', "#endif", ""]
        for cfg in ns.configs:
            parts += [emit.config_typedef(cfg)]
        for op in code_ops(ns):
            for arg in op.args:
                if arg.type is DataType.ENUM:
                    parts.append(f"/* {abi.function(op)}'s {arg.name}. */")
                    parts += [f"#define {abi.enum_constant(op, arg, i)} {i}" for i in range(len(arg.possible_values))]
                    parts.append("")
            parts += [self._doc(op), *(p + ";" for p in abi.prototypes(op)), ""]
            tables = fixed_point.api_tables(op)
            if tables:
                fn, protos = abi.function(op), abi.table_prototypes(op)
                sixteen = any(F.TYPES[t].bits == 16 for t in tables)
                fills = ("256 evaluations of the float reference for an 8-bit type, 65,537 for a 16-bit one, whose "
                         "fill checks every input (ADR 0041)" if sixteen else
                         "256 evaluations of the float reference")
                parts += [f"/* {fn}'s fixed-point table, prepared once (ADR 0043): {fn}_table checks what {fn} "
                          f"checks and fills table for x's dtype ({', '.join(tables)}) and attributes, the output's "
                          f"attributes and the args; {fn}_lookup then computes {fn} from it for any x and output of "
                          "that dtype and those attributes (one shape, no broadcast), with no float work, and "
                          f"refuses others with OPFORGE_ERR_ATTRIBUTE. A call of the op fills its table every time: "
                          f"{fills}. */",
                          protos["table"] + ";", protos["lookup"] + ";", ""]
        for alias in ns.aliases:
            target = catalogue.resolve(alias)
            if target is None or abi.is_stream(target):
                continue  # validation refuses the first; streams have no single function to alias
            parts += [f"/* {c_comment(alias.name)}: alias of {c_comment(alias.target)}, the same function. */",
                      f"#define opforge_{ns.key}_{alias.name} {abi.function(target)}", ""]
        parts += ["#ifdef __cplusplus", "}", "#endif", "", "#endif", ""]
        return "\n".join(parts)

    def _ns_source(self, ns: Namespace, header: str, codes: dict[str, emit.OpCode]) -> str:
        includes: list[str] = []
        fragments: list[str] = []
        for code in codes.values():
            for include in code.includes:
                if include not in includes:
                    includes.append(include)
            for f in code.fragments:
                if f.text not in fragments:  # shared fragment dependencies go in once
                    fragments.append(f.text)
        parts = [f"/* {header} */",
                 "/* The IMAGINET pragmas mark fragments for the Imaginet tool chain; compilers ignore them. */",
                 "#if defined(__GNUC__)", '#pragma GCC diagnostic ignored "-Wunknown-pragmas"', "#endif",
                 f'#include "opforge/{ns.key}.h"', '#include "opforge_internal.h"',
                 "#include <math.h>", "#include <stdbool.h>", "#include <stdint.h>",
                 "#pragma IMAGINET_INCLUDES_BEGIN", *includes, "#pragma IMAGINET_INCLUDES_END", ""]
        parts += fragments
        parts += [code.api for code in codes.values()]
        return "\n".join(parts)

    def _all_header(self, namespaces: Sequence[Namespace], header: str) -> str:
        lines = [f"/* {header} */", "#ifndef OPFORGE_ALL_H", "#define OPFORGE_ALL_H",
                 '#include "opforge/version.h"', '#include "opforge/opforge.h"']
        lines += [f'#include "opforge/{ns.key}.h"' for ns in namespaces]
        return "\n".join(lines + ["#endif", ""])

    def _version_header(self, version: str, header: str) -> str:
        major, minor, patch = version.split(".")
        return "\n".join([
            f"/* {header} */", "#ifndef OPFORGE_VERSION_H", "#define OPFORGE_VERSION_H", "",
            "/* The version of the ops catalogue this library was generated from (ops/VERSION). */",
            f"#define OPFORGE_VERSION_MAJOR {int(major)}", f"#define OPFORGE_VERSION_MINOR {int(minor)}",
            f"#define OPFORGE_VERSION_PATCH {int(patch)}", f'#define OPFORGE_VERSION_STRING "{version}"',
            "", "#endif", ""])

    def _cmake_file(self, path: str, context: GenerationContext, header: str) -> str:
        sources = ["src/opforge_core.c", f"src/{c_conversions.SOURCE}",
                   *(f"src/{ns.key}.c" for ns in context.namespaces)]
        template = _TEMPLATES.get_template(CMAKE_FILES[path])
        return template.render(header=header, version=context.catalogue.version, sources=" ".join(sources))


#: The CMake build's files, by path, and their templates: the project (a static library by
#: default, installed with a CMake package and a pkg-config file), and the two files it configures.
CMAKE_FILES = {"CMakeLists.txt": "CMakeLists.txt.j2",
               "cmake/opforgeConfig.cmake.in": "opforgeConfig.cmake.in.j2",
               "cmake/opforge.pc.in": "opforge.pc.in.j2"}
