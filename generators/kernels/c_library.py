"""The generated C library's CMake project (ADR 0064): headers, sources and the CMake files
that build and install it. The ``c`` target is this project; the ``python`` target builds its
C backend from a copy of it inside the package, so that the package's sdist is whole."""

from __future__ import annotations

import math
from typing import Sequence

import jinja2

from dsl import fixed_point as F
from dsl.model import Catalogue, Namespace, Op
from dsl.types import DataType
from generators import abi
from generators.api import GeneratedFile, GenerationContext
from generators.formatting import c_comment, clang_format
from generators.kernels import c_api_docs, c_runtime, fixed_point
from generators.kernels import c_emit as emit
from generators.kernels.selection import code_ops

_TEMPLATES = jinja2.Environment(loader=jinja2.PackageLoader("generators.kernels", "templates/c_project"),
                                undefined=jinja2.StrictUndefined, keep_trailing_newline=True)

#: The target the library's files name as their generator, wherever they are copied: the python
#: target's copy is byte for byte the c target's project.
TARGET = "c"

#: The build's files, by path, and their templates: the CMake project (a static library by
#: default, installed with a CMake package and a pkg-config file) and the two files it configures.
CMAKE_FILES = {"CMakeLists.txt": "CMakeLists.txt.j2",
               "cmake/opforgeConfig.cmake.in": "opforgeConfig.cmake.in.j2",
               "cmake/opforge.pc.in": "opforge.pc.in.j2"}


def project(context: GenerationContext) -> list[GeneratedFile]:
    """The library's CMake project for the selected namespaces, every file's header naming
    the ``c`` target as the generator: formatted sources and headers, then the CMake files."""
    sources: dict[str, str] = {}
    header_all = c_comment(context.header(TARGET))
    sources.update(c_runtime.library_files(header_all))
    for ns in context.namespaces:
        header = c_comment(context.header(TARGET, [ns]))
        codes = {o.name: emit.emit(o) for o in code_ops(ns)}
        sources[f"include/opforge/{ns.key}.h"] = _ns_header(ns, header, context.catalogue, codes)
        sources.update(_ns_sources(ns, header, codes))
    sources["include/opforge/opforge_all.h"] = _all_header(context.namespaces, header_all)
    sources["include/opforge/version.h"] = _version_header(context.catalogue.version, header_all)
    formatted = clang_format(sources)
    files = [GeneratedFile(path, text) for path, text in sorted(formatted.items())]
    compiled = ["src/opforge_core.c", *(path for path in sources if path.startswith("src/") and path.endswith(".c")
                                        and path != "src/opforge_core.c")]
    files += [GeneratedFile(path, _cmake_file(path, context, header_all, compiled)) for path in CMAKE_FILES]
    return files


def _cmake_file(path: str, context: GenerationContext, header: str, sources: list[str]) -> str:
    template = _TEMPLATES.get_template(CMAKE_FILES[path])
    return template.render(header=header, version=context.catalogue.version, sources=" ".join(sources))


def _ns_header(ns: Namespace, header: str, catalogue: Catalogue, codes: dict[str, emit.OpCode]) -> str:
    guard = f"OPFORGE_{ns.key.upper()}_H"
    others = sorted({a.target_namespace.lower() for a in ns.aliases} - {ns.key})
    about = c_api_docs.escape(f"The {ns.name} ops, as {ns.location.file} declares them.")
    parts = [f"/* {header} */",
             f"/**\n * @file\n * @brief {about}\n *\n * Each function returns OPFORGE_OK or a status "
             "saying why it refused the call, with a static message in *detail.\n */",
             f"#ifndef {guard}", f"#define {guard}", "",
             '#include "opforge/opforge.h"', *(f'#include "opforge/{k}.h"' for k in others), "",
             "#ifdef __cplusplus", 'extern "C" {', "#endif", ""]
    for cfg in ns.configs:
        parts += [emit.config_typedef(cfg)]
    for op in code_ops(ns):
        fn = abi.function(op)
        for arg in op.args:
            if arg.type is DataType.ENUM:
                parts += [f"/** {fn}'s {arg.name}: {c_api_docs.escape(value)}. */\n"
                          f"#define {abi.enum_constant(op, arg, i)} {i}"
                          for i, value in enumerate(arg.possible_values)]
                parts.append("")
        for prototype in abi.prototypes(op):
            name = prototype.split("(", 1)[0].split()[-1]
            parts += [c_api_docs.function_doc(op, codes[op.name].api, name, prototype, _brief(op, name)),
                      prototype + ";", ""]
        tables = fixed_point.api_tables(op)
        if tables:
            protos = abi.table_prototypes(op)
            sixteen = any(F.TYPES[t].bits == 16 for t in tables)
            fills = ("256 evaluations of the float reference for an 8-bit type, 65,537 for a 16-bit one, whose "
                     "fill checks every input (ADR 0041)" if sixteen else
                     "256 evaluations of the float reference")
            table = (f"Prepares {fn}'s fixed-point table once (ADR 0043): checks what {fn} checks and fills "
                     f"table for x's dtype ({', '.join(tables)}) and attributes, the output's attributes and "
                     f"the args (the output's data is not read). A call of {fn} itself fills one every time: "
                     f"{fills}.")
            lookup = (f"Computes {fn} from a table {fn}_table prepared: for any x and output of its dtype and "
                      "attributes (one shape, no broadcast), with no float work; others are refused with "
                      "OPFORGE_ERR_ATTRIBUTE.")
            for role, brief in (("table", table), ("lookup", lookup)):
                name = f"{fn}_{role}"
                parts += [c_api_docs.function_doc(op, codes[op.name].api, name, protos[role], brief),
                          protos[role] + ";", ""]
    for alias in ns.aliases:
        target = catalogue.resolve(alias)
        if target is None or abi.is_stream(target):
            continue  # validation refuses the first; streams have no single function to alias
        parts += [f"/** {c_api_docs.escape(alias.name)}: alias of {c_api_docs.escape(alias.target)}, the same "
                  f"function ({abi.function(target)}). */",
                  f"#define opforge_{ns.key}_{alias.name} {abi.function(target)}", ""]
    parts += ["#ifdef __cplusplus", "}", "#endif", "", "#endif", ""]
    return "\n".join(parts)


#: The most bytes of kernels and API functions a source file holds before the namespace's next
#: ops go into another (ADR 0074): a build compiles the files in parallel, and a file this size
#: takes some 10 s at -O3, where all of math in one took over a minute on one core.
PART_BYTES = 600_000


def _ns_sources(ns: Namespace, header: str, codes: dict[str, emit.OpCode]) -> dict[str, str]:
    """The namespace's source files: ``src/<ns>.c``, or, when its ops hold more than
    :data:`PART_BYTES`, ``src/<ns>_1.c``, ``src/<ns>_2.c``, ... of about equal size, each holding
    whole ops in the catalogue's order with the fragments they use (a fragment that two files use
    is in both: each is static)."""
    sizes = [len(c.api) + sum(len(f.text) for f in c.fragments) for c in codes.values()]
    total = sum(sizes)
    count = max(1, math.ceil(total / PART_BYTES))
    if count == 1:
        return {f"src/{ns.key}.c": _ns_source(ns, header, list(codes.values()))}
    parts: list[list[emit.OpCode]] = [[] for _ in range(count)]
    before = 0
    for code, size in zip(codes.values(), sizes):
        parts[min(count - 1, (before + size // 2) * count // total)].append(code)  # (by its middle)
        before += size
    return {f"src/{ns.key}_{k}.c": _ns_source(ns, header, part) for k, part in enumerate(filter(None, parts), 1)}


def _ns_source(ns: Namespace, header: str, codes: Sequence[emit.OpCode]) -> str:
    includes: list[str] = []
    fragments: list[str] = []
    for code in codes:
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
    parts += [code.api for code in codes]
    return "\n".join(parts)


def _all_header(namespaces: Sequence[Namespace], header: str) -> str:
    lines = [f"/* {header} */", "/**\n * @file\n * @brief Every header of the library: include this one.\n */",
             "#ifndef OPFORGE_ALL_H", "#define OPFORGE_ALL_H",
             '#include "opforge/version.h"', '#include "opforge/opforge.h"']
    lines += [f'#include "opforge/{ns.key}.h"' for ns in namespaces]
    return "\n".join(lines + ["#endif", ""])


def _version_header(version: str, header: str) -> str:
    major, minor, patch = version.split(".")
    return "\n".join([
        f"/* {header} */",
        "/**\n * @file\n * @brief The version of the ops catalogue this library was generated from\n"
        " * (ops/VERSION).\n */",
        "#ifndef OPFORGE_VERSION_H", "#define OPFORGE_VERSION_H", "",
        f"/** The major version. */\n#define OPFORGE_VERSION_MAJOR {int(major)}",
        f"/** The minor version (before 1.0, a new one may change the API). */\n"
        f"#define OPFORGE_VERSION_MINOR {int(minor)}",
        f"/** The patch version. */\n#define OPFORGE_VERSION_PATCH {int(patch)}",
        f'/** MAJOR.MINOR.PATCH. */\n#define OPFORGE_VERSION_STRING "{version}"',
        "", "#endif", ""])


def _brief(op: Op, name: str) -> str | None:
    """The brief of an op's function other than the one computing it (None: the op's docs)."""
    fn = abi.function(op)
    return {
        f"{fn}_workspace": f"The bytes of workspace {fn} needs for these inputs (0: none).",
        f"{fn}_state_size": f"The bytes of state the queue of {fn}_init needs for this window, stride and frame.",
        f"{fn}_init": f"Starts the queue of {fn} in the caller's state memory (ADR 0014).",
        f"{fn}_enqueue": "Appends x's frames (x: frames of the frame's shape, stacked on a first axis) to the queue.",
        f"{fn}_ready": "Whether a window is ready to dequeue.",
        f"{fn}_dequeue": "Takes the next window into output (a window's frames, stacked on a first axis).",
    }.get(name)
