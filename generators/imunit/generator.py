"""Writes ``out/imunit``: per op a folder with ``<op>.imunit``, ``<op>.h`` and ``<op>.py``,
and ``opforge_shared.h``, the fragments several units share.

A unit's C file holds the op's kernels and its checked API function as fragments,
plus one adapter per dtype that takes Imaginet-style arguments (pointers and
integers) and calls the API function; the runtime and shared kernels come from
``opforge_shared.h`` by relative path, so a firmware of many units holds them once
(ADR 0030). The Python file holds the NumPy reference and a unit wrapper.
"""

from __future__ import annotations

import functools

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Sequence

from dsl import compute as C
from dsl import doc_tokens
from dsl import dtypes as D
from dsl.model import Namespace, Op
from dsl.types import DataType, Language
from generators import abi
from dsl.model import Problem
from generators.api import GeneratedFile, GenerationContext, GenerationError
from generators.formatting import black_format, c_comment, clang_format
from generators.imunit import units
from generators.imunit.shapes import UnitShapeRenderer
from generators.kernels import c_emit, c_runtime, py_names, reference
from generators.kernels.scalar_c import C_TYPE, SUFFIX
from generators.kernels.selection import code_ops, require_compute, variants_of

_NUMPY_RUNTIME = Path(__file__).resolve().parent.parent / "kernels" / "numpy_runtime.py"


#: Characters XML 1.0 cannot hold at all, not even escaped.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _xml_safe(root: ET.Element) -> ET.Element:
    """``root`` with every character XML cannot hold written as its Python escape (``\\x1f``)."""
    def spell(text: str | None) -> str | None:
        return None if text is None else _NOT_XML.sub(lambda m: repr(m.group())[1:-1], text)

    for element in root.iter():
        element.text, element.tail = spell(element.text), spell(element.tail)
        for key, value in element.attrib.items():
            element.set(key, spell(value) or "")
    return root


def _socket_array(name: str, sockets: list[str], dtype: str, shape_of: dict[str, str], const: bool,
                  count: str) -> list[str]:
    """An adapter's descriptors of a tensor list's sockets (socket ``s`` takes the rank and
    dims named ``shape_of[s]``), the array of them, and a refusal of a count beyond them."""
    q = "const " if const else ""
    lines = []
    for s in sockets:
        dims = ", ".join(f"{shape_of[s]}_d{k}" for k in range(abi.MAX_RANK))
        lines.append(f"{q}opforge_tensor t_{s} = {{(void*){abi.c_name(s)}, {dtype}, {shape_of[s]}_rank, {{{dims}}}}};")
    lines.append(f"{q}opforge_tensor* const t_{name}[{len(sockets)}] = {{{', '.join(f'&t_{s}' for s in sockets)}}};")
    return lines + [f"if ({count} < 0 || {count} > {len(sockets)}) {{", "return (int)OPFORGE_ERR_ARG;", "}"]


def unit_name(op: Op) -> str:
    camel = "".join(part.capitalize() for part in op.name.split("_"))
    return f"Opforge.{op.namespace.capitalize()}.{camel}"


def _presentation(root: ET.Element) -> None:
    """What Studio shows of each socket and option, as the real units give it: a ``text``
    (the name in words) and, for numbers, a text box."""
    for element in root.iter():
        if element.tag in ("InputSocket", "OutputSocket") or element.tag.endswith("Option"):
            if "text" not in element.attrib and element.get("name"):
                element.set("text", element.get("name", "").replace("_", " ").strip().capitalize())
            if element.tag in ("Int32Option", "DoubleOption") and "ui" not in element.attrib:
                element.set("ui", "textbox")


def _dependency(fragment_text: str, *names: str) -> str:
    """A fragment with dependencies on fragments of the same file."""
    first, rest = fragment_text.split("\n", 1)
    deps = "".join(f'#pragma IMAGINET_FRAGMENT_DEPENDENCY "{n}"\n' for n in names)
    return f"{first}\n{deps}{rest}"


@functools.lru_cache(maxsize=None)
def _numpy_runtime() -> tuple[list[str], str]:
    """The NumPy runtime's imports and the rest of its code (read once)."""
    runtime = _NUMPY_RUNTIME.read_text(encoding="utf-8").split('"""', 2)[2]
    imports = [line for line in runtime.splitlines()
               if line.startswith(("import ", "from ")) and "__future__" not in line]
    body = "\n".join(line for line in runtime.splitlines() if not line.startswith(("import ", "from ")))
    return imports, body


def _python_file(header: str, what: str, includes: list[str], fragments: list[str]) -> str:
    """A unit's Python file: includes, the NumPy runtime as the ``opforge_kernels`` fragment, then ``fragments``.

    The runtime is the same in every unit: black formats it once (cached) and the parts join.
    """
    imports, body = _numpy_runtime()
    head = [f"# {header}", f'"""Python fragments of the {what}."""', "", "#pragma IMAGINET_INCLUDES_BEGIN",
            "import types", *dict.fromkeys(imports), *[i for i in includes if i not in imports],
            "#pragma IMAGINET_INCLUDES_END"]
    kernels = ['#pragma IMAGINET_FRAGMENT_BEGIN "opforge_kernels"', body,
               "_k = types.SimpleNamespace(**{n: v for n, v in dict(globals()).items() "
               "if not n.startswith('__') and n != 'types'})",
               "#pragma IMAGINET_FRAGMENT_END"]
    return "\n\n\n".join(black_format("\n".join(part)).strip("\n") for part in (head, kernels, fragments)) + "\n"


#: The fragment file the units share, at the root of the imunit tree, and how a unit
#: (``<ns>/<op>/``) names it.
SHARED_FILE = "opforge_shared.h"
SHARED_PATH = f"../../{SHARED_FILE}"
RUNTIME = "opforge_runtime"
#: The Expression a unit passes plain kernels as their element count.
PLAIN_COUNT = "element_count"
STANDARD_INCLUDES = ("#include <math.h>", "#include <stdbool.h>", "#include <stddef.h>", "#include <stdint.h>",
                     "#include <string.h>")


class ImunitGenerator:
    name = "imunit"
    summary = "Imaginet units (.imunit) with C and Python fragment files, composable in one firmware"
    language = Language.IMUNIT
    options: dict[str, tuple[str, ...]] = {"style": ("current", "legacy")}

    def generate(self, context: GenerationContext) -> Sequence[GeneratedFile]:
        require_compute(context.namespaces, self.name)
        legacy = context.option(self, "style") == "legacy"
        c_files: dict[str, str] = {}
        files: list[GeneratedFile] = []
        codes = {op: c_emit.emit(op, linkage="static inline ") for ns in context.namespaces for op in code_ops(ns)
                 if op.composition is None}
        shared_header = context.header(self.name, context.namespaces)
        shared = self._shared(codes, shared_header)
        c_files[SHARED_FILE] = self._shared_file(codes, shared, shared_header)
        for ns in context.namespaces:
            header = context.header(self.name, [ns])
            for op in code_ops(ns):
                folder = f"{ns.key}/{op.name}"
                if op.composition is not None:
                    unit = self._composite(ns, op, header, True) if legacy else self._compound(ns, op, header)
                    files.append(GeneratedFile(f"{folder}/{op.name}.imunit", unit))
                    continue
                if abi.is_stream(op):
                    c_files[f"{folder}/{op.name}.h"] = self._c_file(op, codes[op], shared, header)
                    files.append(GeneratedFile(f"{folder}/{op.name}.py", self._queue_py(op, header)))
                    files.append(GeneratedFile(f"{folder}/{op.name}.imunit", self._queue(op, header, legacy)))
                    continue
                c_files[f"{folder}/{op.name}.h"] = self._c_file(op, codes[op], shared, header)
                files.append(GeneratedFile(f"{folder}/{op.name}.py", self._py_file(op, header)))
                files.append(GeneratedFile(f"{folder}/{op.name}.imunit", self._unit(op, header, legacy, codes[op].plain)))
        files += [GeneratedFile(path, text) for path, text in clang_format(c_files).items()]
        return sorted(files, key=lambda f: f.path)

    # ------------------------------------------------------------ C

    def adapter_name(self, op: Op, dtype: str) -> str:
        return f"{abi.function(op)}_unit_{SUFFIX[dtype]}"

    def adapter_params(self, op: Op, dtype: str) -> list[tuple[str, str]]:
        """(C declaration, unit value) pairs, in call order."""
        variant = next(v for v in variants_of(op) if v.dtype == dtype)
        out: list[tuple[str, str]] = []
        axes = units.reduction_axes_arg(op)

        def tensor(name: str, const: bool) -> None:
            if name in C.own_dtype_inputs(op):  # any dtype: untyped data and the dtype's number
                out.append((f"const void* {abi.c_name(name)}", name))
                out.append((f"int {name}_dtype_index", f"{name}_dtype_index"))
            else:
                ct = C_TYPE[variant.of(name)]
                out.append((f"{'const ' if const else ''}{ct}* {abi.c_name(name)}", name))
            out.append((f"int {name}_rank", f"{name}_rank"))
            out.extend((f"int {name}_d{k}", f"{name}_d{k}") for k in range(abi.MAX_RANK))

        for p in abi.parameters(op):
            if p.role == "input":
                tensor(p.source, True)
            elif p.role == "input_list":  # every socket, typed as the list's dtype
                for s in units.sockets(next(i for i in op.inputs if i.name == p.source)):
                    ct = C_TYPE[variant.of(p.source)]
                    out.append((f"const {ct}* {abi.c_name(s)}", s))
                    out.append((f"int {s}_rank", f"{s}_rank"))
                    out.extend((f"int {s}_d{k}", f"{s}_d{k}") for k in range(abi.MAX_RANK))
            elif p.role == "input_count":
                out.append((f"int {p.source}_count", f"{p.source}_count"))
            elif p.role == "output":
                tensor(p.source, False)
            elif p.role == "output_list":  # every socket (all of one shape), then that shape once
                ct = C_TYPE[variant.of(p.source)]
                for s in units.output_sockets(next(o for o in op.outputs if o.name == p.source)):
                    out.append((f"{ct}* {abi.c_name(s)}", s))
                out.append((f"int {p.source}_rank", f"{p.source}_rank"))
                out.extend((f"int {p.source}_d{k}", f"{p.source}_d{k}") for k in range(abi.MAX_RANK))
            elif p.role == "output_count":
                out.append((f"int {units.PART_COUNT}", units.PART_COUNT))
            elif p.role == "array" and p.source == axes:
                out.append(("int axis", units.numpy_axis("axis")))
            elif p.role == "array":
                length = units.list_length(op, next(a for a in op.args if a.name == p.source))
                out.append((f"int {p.source}_rank", f"{p.source}_rank"))
                out += [(f"int {p.source}_d{k}", f"{p.source}_d{k}") for k in range(length)]
            elif p.role == "optional":
                out.append((f"int use_{p.source}", f"use_{p.source}"))
                out.append((f"double {p.name}", p.source))
            elif p.role == "arg":
                arg = next(a for a in op.args if a.name == p.source)
                if arg.type in (DataType.ENUM, DataType.DATA_TYPE):
                    out.append((f"int {p.name}_index", f"{p.source}_index"))
                elif arg.type is DataType.BOOLEAN:
                    out.append((f"int {p.name}", units.value(op, p.source)))
                elif arg.type in (DataType.INT, DataType.LONG):
                    out.append((f"int {p.name}", units.value(op, p.source)))
                else:
                    out.append((f"double {p.name}", units.value(op, p.source)))
            elif p.role == "config":
                cfg = next(c for c in op.configs if c.name == p.source)
                for a in cfg.args:
                    out.append((f"int {cfg.name}_{a.name}", f"{cfg.name}_{a.name}"))
            elif p.role == "workspace":  # a scratch tensor of the unit (System.Tensor)
                out.append(("double* workspace", "workspace"))
            elif p.role == "workspace_bytes":
                out.append(("int workspace_count", "workspace_count"))
        return out

    def _adapter(self, op: Op, dtype: str) -> str:
        variant = next(v for v in variants_of(op) if v.dtype == dtype)
        params = self.adapter_params(op, dtype)
        body: list[str] = []
        call: list[str] = []
        axes = units.reduction_axes_arg(op)

        def descriptor(name: str) -> None:
            dims = ", ".join(f"{name}_d{k}" for k in range(abi.MAX_RANK))
            dtype = f"(opforge_dtype){name}_dtype_index" if name in C.own_dtype_inputs(op) else \
                abi.DTYPE_ENUM[variant.of(name)]
            body.append(f"opforge_tensor t_{name} = {{(void*){abi.c_name(name)}, {dtype}, {name}_rank, {{{dims}}}}};")
            call.append(f"&t_{name}")

        for p in abi.parameters(op):
            if p.role in ("input", "output"):
                descriptor(p.source)
            elif p.role == "input_list":  # the connected sockets come first (the contracts say so)
                names = units.sockets(next(i for i in op.inputs if i.name == p.source))
                body += _socket_array(p.name, names, abi.DTYPE_ENUM[variant.of(p.source)], {s: s for s in names},
                                      True, f"{p.source}_count")
                call.append(f"t_{p.name}")
            elif p.role == "input_count":
                call.append(f"{p.source}_count")
            elif p.role == "output_list":  # the sockets there come first: as many as part_count, of one shape
                names = units.output_sockets(next(o for o in op.outputs if o.name == p.source))
                body += _socket_array(p.name, names, abi.DTYPE_ENUM[variant.of(p.source)],
                                      {s: p.source for s in names}, False, units.PART_COUNT)
                call.append(f"t_{p.name}")
            elif p.role == "output_count":
                call.append(units.PART_COUNT)
            elif p.role == "array" and p.source == axes:
                body.append("const int64_t axes_value[1] = {axis};")
                call.append("axes_value")
            elif p.role == "array":
                # The unit passes at most `length` values: a longer list is an error, not a read past them.
                length = units.list_length(op, next(a for a in op.args if a.name == p.source))
                values = ", ".join(f"{p.source}_d{k}" for k in range(length))
                body += [f"if ({p.source}_rank > {length}) {{", "return -2; /* IPWIN_RET_ERROR */", "}",
                         f"const int64_t {p.name}_values[{length}] = {{{values}}};"]
                call.append(f"{p.name}_values")
            elif p.role == "count":
                call.append("1" if p.source == axes else f"{p.source}_rank")
            elif p.role == "optional":
                body.append(f"const double {p.name}_value = {p.name};")
                call.append(f"use_{p.source} ? &{p.name}_value : NULL")
            elif p.role == "arg":
                arg = next(a for a in op.args if a.name == p.source)
                if arg.type is DataType.ENUM:
                    call.append(f"{p.name}_index")
                elif arg.type is DataType.DATA_TYPE:
                    call.append(f"(opforge_dtype){p.name}_index")
                elif arg.type is DataType.BOOLEAN:
                    call.append(f"{p.name} != 0")
                else:
                    call.append(p.name)
            elif p.role == "config":
                cfg = next(c for c in op.configs if c.name == p.source)
                fields = ", ".join(f"{cfg.name}_{a.name}" for a in cfg.args)
                body.append(f"const {abi.config_struct(cfg)} cfg_{cfg.name} = {{{fields}}};")
                call.append(f"&cfg_{cfg.name}")
            elif p.role == "workspace":
                call.append("workspace")
            elif p.role == "workspace_bytes":
                call.append("(size_t)workspace_count * sizeof(double)")
            elif p.role == "detail":
                call.append("NULL")
        name = self.adapter_name(op, dtype)
        decl = ", ".join(d for d, _ in params)
        return (f'#pragma IMAGINET_FRAGMENT_BEGIN "{name}"\n'
                f'#pragma IMAGINET_FRAGMENT_DEPENDENCY "{abi.function(op)}"\n'
                f"/* Imaginet-style entry: rebuilds the descriptors and runs the checked op; returns\n"
                f" * Imaginet's status: 0 (IPWIN_RET_SUCCESS) or -2 (IPWIN_RET_ERROR). */\n"
                f"static inline int {name}({decl})\n{{\n" + "\n".join(body) +
                f"\nreturn {abi.function(op)}({', '.join(call)}) == OPFORGE_OK ? 0 : -2;\n}}\n"
                f"#pragma IMAGINET_FRAGMENT_END\n")

    @staticmethod
    def _shared(codes: dict[Op, c_emit.OpCode], header: str) -> dict[str, str]:
        """The fragments every unit that needs them takes from SHARED_FILE, by name, with their
        text: the runtime, the config structs, and kernels several ops share (hand-written
        fragments such as factor_steps), so a firmware holds each once (Imaginet includes a
        fragment once per file and name)."""
        shared = {RUNTIME: c_runtime.standalone(c_comment(header))}
        for op in codes:
            for cfg in op.configs:
                shared.setdefault(abi.config_struct(cfg), c_emit.config_typedef(cfg))
        users: dict[str, set[Op]] = {}
        bodies: dict[str, set[str]] = {}
        for op, code in codes.items():
            for f in code.fragments:
                users.setdefault(f.name, set()).add(op)
                bodies.setdefault(f.name, set()).add(f.body)
        for name in sorted(n for n, ops in users.items() if len(ops) > 1 and len(bodies[n]) == 1):
            shared[name] = next(iter(bodies[name]))
        return shared

    @staticmethod
    def _shared_file(codes: dict[Op, c_emit.OpCode], shared: dict[str, str], header: str) -> str:
        includes = list(dict.fromkeys(i for op, code in codes.items()
                                      if any(f.name in shared for f in code.fragments) for i in code.includes))
        parts = [f"/* {c_comment(header)} */",
                 "/* What opforge's units share, each fragment once: a firmware of several units holds one copy. */",
                 "#pragma IMAGINET_INCLUDES_BEGIN", *STANDARD_INCLUDES, *includes, "#pragma IMAGINET_INCLUDES_END", ""]
        for name, text in shared.items():
            fragment = c_emit.CFragment(name, text).text
            parts.append(fragment if name == RUNTIME else _dependency(fragment, RUNTIME))
        return "\n".join(parts)

    @staticmethod
    def _plain_name(op: Op, kernel: c_emit.PlainKernel) -> str:
        return f"{abi.function(op)}_unit_plain_{SUFFIX[kernel.variant.dtype]}"

    @staticmethod
    def _plain_args(op: Op, kernel: c_emit.PlainKernel) -> list[str]:
        """What the unit passes for each parameter of the entry over a plain kernel."""
        args = {a.name: a for a in op.args}

        def value(source: str) -> str:
            if source == "n":
                return PLAIN_COUNT
            if source not in args:  # a tensor
                return source
            if args[source].type in (DataType.ENUM, DataType.DATA_TYPE):  # as the adapters take them
                return f"{source}_index"
            return units.value(op, source)

        return [value(source) for _, source in kernel.parameters]

    def _plain_entry(self, op: Op, kernel: c_emit.PlainKernel) -> str:
        """The unit's entry over a plain kernel: Imaginet's ints in, a status out (it cannot fail)."""
        name = self._plain_name(op, kernel)
        decls = [("int count" if source == "n" else decl) for decl, source in kernel.parameters]
        args = ["count" if source == "n" else abi.c_name(source) for _, source in kernel.parameters]
        return (f'#pragma IMAGINET_FRAGMENT_BEGIN "{name}"\n#pragma IMAGINET_FRAGMENT_DEPENDENCY "{kernel.name}"\n'
                f"/* Every input of the output's shape: the kernel over count elements. Returns 0. */\n"
                f"static inline int {name}({', '.join(decls)})\n{{\n{kernel.name}({', '.join(args)});\n"
                f"return 0;\n}}\n#pragma IMAGINET_FRAGMENT_END\n")

    def _c_file(self, op: Op, code: c_emit.OpCode, shared: dict[str, str], header: str) -> str:
        """The unit's own fragments; what units share comes from SHARED_FILE, by relative path."""

        def ref(name: str) -> str:
            return f"{SHARED_PATH}:{name}" if name in shared else name

        parts = [f"/* {c_comment(header)} */",
                 "#pragma IMAGINET_INCLUDES_BEGIN", *STANDARD_INCLUDES, *code.includes,
                 "#pragma IMAGINET_INCLUDES_END", ""]
        parts += [_dependency(f.text, ref(RUNTIME)) for f in code.fragments if f.name not in shared]
        api = f'#pragma IMAGINET_FRAGMENT_BEGIN "{abi.function(op)}"\n' + "".join(
            f'#pragma IMAGINET_FRAGMENT_DEPENDENCY "{ref(n)}"\n' for n in
            [RUNTIME, *(abi.config_struct(c) for c in op.configs), *(f.name for f in code.fragments)]
        ) + code.api + "#pragma IMAGINET_FRAGMENT_END\n"
        parts.append(api)
        if abi.is_stream(op):
            parts += [self._queue_adapters(op, v.dtype) for v in variants_of(op)] + [self._queue_guards(op)]
        else:
            parts += [self._adapter(op, v.dtype) for v in variants_of(op)]
            parts += [_dependency(k.fragment.text, ref(RUNTIME)) for k in code.plain]
            parts += [self._plain_entry(op, k) for k in code.plain]
        return "\n".join(parts)

    # ------------------------------------------------------------ Python

    def wrapper_name(self, op: Op) -> str:
        return f"{op.name}_unit"

    def wrapper_params(self, op: Op) -> list[str]:
        names = [s for i in op.inputs for s in units.sockets(i)]
        for o in units.options(op):
            if o.name.startswith("use_") and units.value(op, o.name[4:]) != o.name[4:]:
                continue  # a computed default: the wrapper is given the value it settles on
            reduced = o.name == "axis" and units.reduction_axes_arg(op) is not None
            names.append(units.numpy_axis("axis") if reduced else units.value(op, o.name))
        return names + [s for o in op.outputs for s in units.output_sockets(o)]

    def _py_file(self, op: Op, header: str) -> str:
        includes, fragments = reference.fragment_sources(op)
        fn = py_names.ref_name(op.name)

        def local(name: str) -> str:
            """A unit parameter as a Python name: keywords mangled, and a tensor named like the op
            (linalg.lu's output lu) renamed, as it would hide the reference function."""
            return f"{name}_value" if name == fn else py_names.py_name(name)

        args = []
        for i in op.inputs:
            if i.count.is_single:
                args.append(local(i.name))
            else:  # the connected sockets, in order
                args.append(f"[t for t in ({', '.join(local(s) for s in units.sockets(i))},) if t is not None]")
        axes = units.reduction_axes_arg(op)
        for a in op.args:
            if a.name == axes:
                args.append(f"[{units.numpy_axis('axis')}]")
            elif a.type is DataType.ENUM:
                args.append(f"{a.possible_values!r}.index({local(a.name)})")
            elif units.value(op, a.name) != a.name:  # a computed default, settled by the unit
                args.append(f"list({units.value(op, a.name)})" if not a.count.is_single else units.value(op, a.name))
            elif a.default is None and a.count.is_single:
                args.append(f"{local(a.name)} if use_{a.name} else None")
            elif not a.count.is_single:
                args.append(f"list({local(a.name)})")
            else:
                args.append(local(a.name))
        for cfg in op.configs:
            fields = ", ".join(f"{py_names.py_name(a.name)}={cfg.name}_{a.name}" for a in cfg.args)
            args.append(f"types.SimpleNamespace({fields})")
        # (a list output: the sockets there, in order)
        args += [local(o.name) if o.count.is_single else
                 f"[t for t in ({', '.join(local(s) for s in units.output_sockets(o))},) if t is not None]"
                 for o in op.outputs]
        params = [local(n) for n in self.wrapper_params(op)]
        lines: list[str] = []
        lines += [_dependency(f'#pragma IMAGINET_FRAGMENT_BEGIN "{name}"\n{text}#pragma IMAGINET_FRAGMENT_END',
                              "opforge_kernels") for name, text in fragments]
        lines.append(_dependency(reference.function(op), "opforge_kernels"))
        lines += [f'#pragma IMAGINET_FRAGMENT_BEGIN "{self.wrapper_name(op)}"',
                  f'#pragma IMAGINET_FRAGMENT_DEPENDENCY "{op.name}"',
                  f"def {self.wrapper_name(op)}({', '.join(params)}):",
                  '    """The unit\'s entry: options as the unit passes them, results into the outputs."""',
                  f"    {fn}({', '.join(args)})",
                  "#pragma IMAGINET_FRAGMENT_END", ""]
        return _python_file(header, f"{op.qualified_name} unit", includes, lines)

    # ------------------------------------------------------------ XML

    def _unit(self, op: Op, header: str, legacy: bool, plain: Sequence[c_emit.PlainKernel] = ()) -> str:
        root = ET.Element("Imaginet")
        unit = self._head(root, op, "Function" if legacy else "Unit", legacy)
        self._description(unit, op, f"{op.name}.py:{self.wrapper_name(op)}")
        params = ET.SubElement(unit, "Parameters")
        for i in op.inputs:
            for k, s in enumerate(units.sockets(i)):
                socket = {"name": s, "pipe": "data", "description": i.description}
                if not i.count.is_single and k >= i.count.low:
                    socket["optional"] = "true"
                ET.SubElement(params, "InputSocket", socket)
        for o in units.options(op):
            attrs_ = {"name": o.name, "description": o.description}
            if o.default is not None:
                attrs_["default"] = o.default
            if o.minimum is not None:
                attrs_["min"] = o.minimum
            if o.maximum is not None:
                attrs_["max"] = o.maximum
            element = ET.SubElement(params, "BooleanOption" if legacy and o.element == "BoolOption" else o.element,
                                    attrs_)
            if o.one_of:
                one_of = ET.SubElement(element, "OneOf")
                for value in o.one_of:
                    ET.SubElement(one_of, "Item", {"text": value}).text = value
        hidden_tag = "Hidden" if legacy else "Expression"
        values = units.hidden(op)
        for h in values:
            if h.name.startswith("output"):
                continue
            ET.SubElement(params, hidden_tag, {"name": h.name, "value": h.value})
        out = op.outputs[0]
        shape_value = next(h.value for h in values if h.name == "output_shape")
        ET.SubElement(params, hidden_tag, {"name": "output_shape", "value": shape_value})
        for k, socket in enumerate(units.output_sockets(out)):
            attributes = {"name": socket, "type": units.output_type(op), "shape": "output_shape", "pipe": "data",
                          "description": out.description}
            if not out.count.is_single:  # a list output: the sockets its tensors fill
                attributes["conditional"] = f"{units.PART_COUNT} > {k}"
            ET.SubElement(params, "OutputSocket", attributes)
        for h in values:
            if h.name.startswith("output_") and h.name != "output_shape":
                ET.SubElement(params, hidden_tag, {"name": h.name.replace("output", out.name, 1)
                                                   if out.name != "output" else h.name, "value": h.value})
        for k, o in enumerate(op.outputs[1:], 1):  # further outputs: a shape, a socket and dims each
            ET.SubElement(params, hidden_tag, {"name": f"{o.name}_shape", "value": units.further_output_shape(op, k)})
            ET.SubElement(params, "OutputSocket", {"name": o.name, "type": units.output_type(op, o),
                                                   "shape": f"{o.name}_shape", "pipe": "data",
                                                   "description": o.description})
            for h in units.dims(o.name, f"{o.name}_shape"):
                ET.SubElement(params, hidden_tag, {"name": h.name, "value": h.value})
        contracts = ET.SubElement(unit, "Contracts")
        for test, error in units.contracts(op):
            ET.SubElement(contracts, "Assert", {"test": test, "error": error})
        plain = () if legacy else plain
        if plain:  # the plain kernels' one count
            ET.SubElement(params, hidden_tag, {"name": PLAIN_COUNT, "value": f"{plain[0].parameters[0][1]}.shape.flat"})
        impls = ET.SubElement(unit, "Implementations")
        if not legacy:  # the adapters check what they are given: a failure stops the graph
            impls.set("returnStatus", "true")
        for kernel in plain:  # all inputs of one shape: the kernel itself, no descriptors (ADR 0030)
            name = self._plain_name(op, kernel)
            impl = ET.SubElement(impls, "Implementation", {"language": "C", "fragment": f"{op.name}.h:{name}",
                                                           "call": f"{name}({', '.join(self._plain_args(op, kernel))})"})
            first = kernel.parameters[0][1]
            for condition in self._conditions(op, kernel.variant) + [
                    f"{i.name}.shape == {first}.shape" for i in op.inputs if i.name != first]:
                ET.SubElement(impl, "Conditional", {"value": condition})
        for v in variants_of(op):
            name = self.adapter_name(op, v.dtype)
            call = f"{name}({', '.join(value for _, value in self.adapter_params(op, v.dtype))})"
            impl = ET.SubElement(impls, "Implementation", {"language": "C", "fragment": f"{op.name}.h:{name}",
                                                           "call": call})
            if legacy:
                impl.set("conditional", self._condition(op, v.dtype))
                self._tensor_types(impl, op, v)
            else:  # the kernel reads every input as its variant's type: each must be it
                for condition in self._conditions(op, v):
                    ET.SubElement(impl, "Conditional", {"value": condition})
        python = ET.SubElement(impls, "Implementation", {
            "language": "Python", "fragment": f"{op.name}.py:{self.wrapper_name(op)}",
            "call": f"{self.wrapper_name(op)}({', '.join(self.wrapper_params(op))})"})
        if legacy:
            self._tensor_types(python, op, None)
        _presentation(root)
        ET.indent(root, space="  ")
        body = ET.tostring(_xml_safe(root), encoding="unicode")
        comment = header.replace("--", "- -")
        return f'<?xml version="1.0" encoding="utf-8"?>\n<!-- {comment} -->\n{body}\n'

    @staticmethod
    def _tensor_types(impl: ET.Element, op: Op, variant: object) -> None:
        """The seed format's ``<TensorType>``: each tensor's element type (none for Python)."""
        for t in (*op.inputs, *op.outputs):
            for name in units.sockets(t) if t.kind == "input" else units.output_sockets(t):
                attrs_ = {"tensor": name}
                if variant is not None and t.name not in C.own_dtype_inputs(op):  # else: any type
                    attrs_["type"] = units.VALUE_TYPE[variant.of(t.name)].removeprefix("System.")  # type: ignore[attr-defined]
                ET.SubElement(impl, "TensorType", attrs_)

    @staticmethod
    def _description(unit: ET.Element, op: Op, python_fragment: str | None) -> None:
        """The op's docs under a header, and the inlined Python fragment if the unit has one."""
        # A unit is a node one places in a graph: ND4J's constructor docs are its own (ADR 0004).
        texts = doc_tokens.texts(op, Language.IMUNIT, doc_tokens.NODE_SCOPES, unit_name(op), "array")
        description = ET.SubElement(unit, "Description")
        head = ET.SubElement(description, "Header")
        head.text = "Description"
        head.tail = "\n" + "\n\n".join(texts) + "\n"
        if python_fragment is not None:
            ET.SubElement(description, "Header").text = "Python implementation"
            ET.SubElement(description, "Inline", {"fragment": python_fragment, "language": "Python"})

    def _head(self, root: ET.Element, op: Op, tag: str, legacy: bool) -> ET.Element:
        unit = ET.SubElement(root, tag, {"unit" if legacy else "name": unit_name(op)})
        display = op.display_name if op.display_name != op.name else unit_name(op).rsplit(".", 1)[1]
        ET.SubElement(unit, "DisplayName").text = display
        ET.SubElement(unit, "DisplayPath").text = op.display_path
        return unit

    def _composite(self, ns: Namespace, op: Op, header: str, legacy: bool) -> str:
        """A Composite unit: the steps' units stacked, intermediates in static buffers."""
        root = ET.Element("Imaginet")
        unit = self._head(root, op, "Composite", legacy)
        self._description(unit, op, None)
        params = ET.SubElement(unit, "Parameters")
        for i in op.inputs:
            ET.SubElement(params, "InputSocket", {"name": i.name, "pipe": "data", "description": i.description})
        hidden_tag = "Hidden" if legacy else "Expression"
        shape_of: dict[str, str] = {i.name: f"{i.name}.shape" for i in op.inputs}
        out = op.outputs[0]
        steps = op.composition.steps
        for s in steps:
            # Each step's result, as the step op's form says, its inputs bound to the composite's
            # tensors and to the steps before it (ADR 0029).
            component = ns.op(s.op.rpartition(".")[2])
            assert component is not None  # checked when the catalogue loaded
            bound = {i.name: shape_of[v] for i, v in zip(component.inputs, s.inputs) if isinstance(v, str)}
            bound |= {i.name: "System.Shape()" for i, v in zip(component.inputs, s.inputs) if not isinstance(v, str)}
            render = UnitShapeRenderer(component, f"{s.name}_shape", value=lambda n: n, tensor=bound.__getitem__)
            name = f"{s.name}_shape" if s is not steps[-1] else "output_shape"
            shape = render.shape(component.compute.output_shapes(component)[0])
            for h_name, h_value in render.hidden:
                ET.SubElement(params, hidden_tag, {"name": h_name, "value": h_value})
            ET.SubElement(params, hidden_tag, {"name": name, "value": shape})
            shape_of[s.name] = name
            if s is not steps[-1]:
                # A static buffer for the intermediate result.
                ET.SubElement(params, hidden_tag, {"name": s.name,
                                                   "value": f"System.ArrayBuffer({op.inputs[0].name}.type, {name})"})
        ET.SubElement(params, "OutputSocket", {"name": out.name, "type": units.output_type(op),
                                               "shape": "output_shape", "pipe": "data",
                                               "description": out.description})
        contracts = ET.SubElement(unit, "Contracts")
        for test, error in units.contracts(op):
            ET.SubElement(contracts, "Assert", {"test": test, "error": error})
        stacked = ET.SubElement(unit, "Stacked")
        for s in steps:
            component = ns.op(s.op.rpartition(".")[2])
            assert component is not None  # checked when the catalogue loaded
            element = ET.SubElement(stacked, "Unit", {"id": unit_name(component)})
            for tensor, value in zip(component.inputs, s.inputs):
                ET.SubElement(element, "Argument", {"param": tensor.name}).text = str(value)
            for key, value in s.args:
                text = f'"{value}"' if isinstance(value, str) else repr(value)
                ET.SubElement(element, "Argument", {"param": key}).text = text
            target = out.name if s is steps[-1] else s.name
            ET.SubElement(element, "Argument", {"param": component.outputs[0].name}).text = target
        _presentation(root)
        ET.indent(root, space="  ")
        body = ET.tostring(_xml_safe(root), encoding="unicode")
        return f'<?xml version="1.0" encoding="utf-8"?>\n<!-- {header.replace("--", "- -")} -->\n{body}\n'

    def _compound(self, ns: Namespace, op: Op, header: str) -> str:
        """A ``<Compound>`` (the real library's ContextualWindow): a graph of the steps' units,
        each fed by the op's inputs or by the steps before it, its Asserts in an AssertNode
        (whose tests name failures), and the last step's output as the op's. Output shapes
        come from the steps' own units: the graph declares none."""
        root = ET.Element("Imaginet")
        unit = ET.SubElement(root, "Compound", {"unit": unit_name(op)})
        display = op.display_name if op.display_name != op.name else unit_name(op).rsplit(".", 1)[1]
        ET.SubElement(unit, "DisplayName").text = display
        ET.SubElement(unit, "DisplayPath").text = op.display_path
        self._description(unit, op, None)
        nodes = ET.SubElement(unit, "Nodes")
        connections = ET.SubElement(unit, "Connections")
        steps = op.composition.steps
        # Where each tensor comes from: (node, param).
        source = {i.name: (f"node_{i.name}", "value") for i in op.inputs}

        def node(tag: str, node_id: str, column: int, row: int, **attributes: str) -> ET.Element:
            return ET.SubElement(nodes, tag, {"id": node_id, "x": str(300 * column), "y": str(150 * row),
                                              "enabled": "true", **attributes})

        def connect(origin: tuple[str, str], target: str, param: str) -> None:
            link = ET.SubElement(connections, "Connection")
            ET.SubElement(link, "Source", {"node": origin[0], "param": origin[1]})
            ET.SubElement(link, "Target", {"node": target, "param": param})

        for row, i in enumerate(op.inputs):
            ET.SubElement(node("TensorInputNode", f"node_{i.name}", 0, row, name=i.name, param=i.name),
                          "Description").text = i.description
        contracts = units.contracts(op)
        if contracts:  # an AssertNode's test is the failure it names
            check = node("AssertNode", "node_contracts", 1, len(op.inputs), name="Contracts")
            inputs = ET.SubElement(check, "Inputs")
            tests = ET.SubElement(check, "Tests")
            for i in op.inputs:
                ET.SubElement(inputs, "Input", {"param": i.name, "type": "Tensor"})
                connect(source[i.name], "node_contracts", i.name)
            for test, error in contracts:
                ET.SubElement(tests, "Test", {"assert": f"!({test})", "error": error})
        problems = []
        for column, s in enumerate(steps, 1):
            component = ns.op(s.op.rpartition(".")[2])
            assert component is not None  # checked when the catalogue loaded
            step = node("UnitNode", f"node_{s.name}", column, 0, unit=unit_name(component))
            for key, value in s.args:
                kind = ("Bool" if isinstance(value, bool) else "Int32" if isinstance(value, int)
                        else "Double" if isinstance(value, float) else "String")
                ET.SubElement(step, f"{kind}Argument", {"param": key}).text = (
                    str(value).lower() if isinstance(value, bool) else str(value))
            for tensor, value in zip(component.inputs, s.inputs):
                if not isinstance(value, str):
                    problems.append(Problem(op.location, op.qualified_name,
                                            f"step {s.name}: the constant {value!r} for {tensor.name} has no node in a "
                                            "<Compound> (generate -imunit-style legacy, or pass it as a tensor)"))
                    continue
                connect(source[value], f"node_{s.name}", tensor.name)
            source[s.name] = (f"node_{s.name}", component.outputs[0].name)
        if problems:
            raise GenerationError(problems)
        out = op.outputs[0]
        ET.SubElement(node("TensorOutputNode", f"node_{out.name}", len(steps) + 1, 0, name=out.name, param=out.name),
                      "Description").text = out.description
        connect(source[steps[-1].name], f"node_{out.name}", "value")
        _presentation(root)
        ET.indent(root, space="  ")
        body = ET.tostring(_xml_safe(root), encoding="unicode")
        return f'<?xml version="1.0" encoding="utf-8"?>\n<!-- {header.replace("--", "- -")} -->\n{body}\n'

    # ------------------------------------------------------------ Queue units (stateful streams)

    QUEUE_ROLES = ("init", "enqueue", "dequeue")

    def queue_params(self, op: Op, role: str) -> list[str]:
        """The unit values each Queue entry point takes, in order."""
        c = op.compute
        x, out = op.inputs[0].name, op.outputs[0].name
        dims = [f"{x}_rank", *(f"{x}_d{k}" for k in range(abi.MAX_RANK))]
        if role == "init":
            return ["state", "state_size", c.window, c.stride, *dims]
        if role == "enqueue":
            return ["state", x, *dims]
        if role == "can_enqueue":  # the frames of one input block
            return ["state", f"{x}_d0"]
        if role == "can_dequeue":
            return ["state"]
        return ["state", out, f"{out}_rank", *(f"{out}_d{k}" for k in range(abi.MAX_RANK))]

    def _queue_adapters(self, op: Op, dtype: str) -> str:
        fn = abi.function(op)
        x, out = op.inputs[0].name, op.outputs[0].name
        ct = C_TYPE[dtype]
        enum = abi.DTYPE_ENUM[dtype]
        ints = lambda names: ", ".join(f"int {n}" for n in names)  # noqa: E731
        xdims = [f"{x}_rank", *(f"{x}_d{k}" for k in range(abi.MAX_RANK))]
        odims = [f"{out}_rank", *(f"{out}_d{k}" for k in range(abi.MAX_RANK))]
        frame = ", ".join(f"{x}_d{k}" for k in range(1, abi.MAX_RANK)) + ", 1"
        sfx = SUFFIX[dtype]
        c = op.compute
        return f"""#pragma IMAGINET_FRAGMENT_BEGIN "{fn}_unit_init_{sfx}"
#pragma IMAGINET_FRAGMENT_DEPENDENCY "{fn}"
static inline int {fn}_unit_init_{sfx}(void* state, int state_size, int {c.window}, int {c.stride}, {ints(xdims)})
{{
    opforge_tensor frame = {{NULL, {enum}, {x}_rank - 1, {{{frame}}}}};
    (void){x}_d0; /* the first block's frame count: not part of the frame */
    return {fn}_init(state, (size_t)state_size, {c.window}, {c.stride}, &frame, NULL) == OPFORGE_OK ? 0 : -2;
}}
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "{fn}_unit_enqueue_{sfx}"
#pragma IMAGINET_FRAGMENT_DEPENDENCY "{fn}"
static inline int {fn}_unit_enqueue_{sfx}(void* state, const {ct}* {x}, {ints(xdims)})
{{
    opforge_tensor t = {{(void*){x}, {enum}, {x}_rank, {{{", ".join(xdims[1:])}}}}};
    return {fn}_enqueue(state, &t, NULL) == OPFORGE_OK ? 0 : -2;
}}
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "{fn}_unit_dequeue_{sfx}"
#pragma IMAGINET_FRAGMENT_DEPENDENCY "{fn}"
static inline int {fn}_unit_dequeue_{sfx}(void* state, {ct}* {out}, {ints(odims)})
{{
    opforge_tensor t = {{(void*){out}, {enum}, {out}_rank, {{{", ".join(odims[1:])}}}}};
    const opforge_status st = {fn}_dequeue(state, &t, NULL);
    return st == OPFORGE_OK ? 0 : (st == OPFORGE_ERR_EMPTY ? -1 : -2);
}}
#pragma IMAGINET_FRAGMENT_END
"""

    def _queue_guards(self, op: Op) -> str:
        """CanEnqueue and CanDequeue, for any dtype: 0 (IPWIN_RET_SUCCESS) if a block of
        ``frames`` frames fits, or a window is complete; -1 (IPWIN_RET_NODATA) if not yet;
        -2 (IPWIN_RET_ERROR) for a state Init did not set up."""
        fn = abi.function(op)
        return f"""#pragma IMAGINET_FRAGMENT_BEGIN "{fn}_unit_can_enqueue"
#pragma IMAGINET_FRAGMENT_DEPENDENCY "{fn}"
static inline int {fn}_unit_can_enqueue(const void* state, int frames)
{{
    const opf_window_state* s = (const opf_window_state*)state;
    if (s == NULL || s->magic != OPF_WINDOW_MAGIC) {{
        return -2;
    }}
    const int64_t store = frames > s->skip ? frames - s->skip : 0; /* frames a stride skips take no room */
    return s->count + store <= s->capacity ? 0 : -1;
}}
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "{fn}_unit_can_dequeue"
#pragma IMAGINET_FRAGMENT_DEPENDENCY "{fn}"
static inline int {fn}_unit_can_dequeue(const void* state)
{{
    bool ready = false;
    if ({fn}_ready(state, &ready, NULL) != OPFORGE_OK) {{
        return -2;
    }}
    return ready ? 0 : -1;
}}
#pragma IMAGINET_FRAGMENT_END
"""

    def _queue_py(self, op: Op, header: str) -> str:
        c = op.compute
        x, out = op.inputs[0].name, op.outputs[0].name
        frame = f"tuple(d for d in ({', '.join(f'{x}_d{k}' for k in range(1, abi.MAX_RANK))})[:{x}_rank - 1])"
        lines = [_dependency(reference.function(op), "opforge_kernels")]
        for role in self.QUEUE_ROLES:
            name = f"{op.name}_unit_{role}"
            params = self.queue_params(op, role)
            if role == "init":
                body = (f"    frame_shape = {frame}\n"
                        f"    _k.window_init(state, {c.window}, {c.stride}, frame_shape, np.dtype(dtype))")
                params = [*params, "dtype"]
            elif role == "enqueue":
                body = f"    _k.window_enqueue(state, {x})"
            else:
                body = f"    _k.window_dequeue(state, {out})"
            lines += [f'#pragma IMAGINET_FRAGMENT_BEGIN "{name}"', '#pragma IMAGINET_FRAGMENT_DEPENDENCY "opforge_kernels"',
                      f"def {name}({', '.join(params)}):", f'    """The unit\'s {role.capitalize()}."""', body,
                      "#pragma IMAGINET_FRAGMENT_END", ""]
        for role, params, test in (("can_enqueue", ["state", "frames"], "_k.window_room(state, frames)"),
                                   ("can_dequeue", ["state"], "_k.window_ready(state)")):
            name = f"{op.name}_unit_{role}"
            lines += [f'#pragma IMAGINET_FRAGMENT_BEGIN "{name}"', '#pragma IMAGINET_FRAGMENT_DEPENDENCY "opforge_kernels"',
                      f"def {name}({', '.join(params)}):",
                      f'    """The unit\'s {role.title().replace("_", "")}: 0 if it can, -1 (no data) if not yet."""',
                      f"    return 0 if {test} else -1", "#pragma IMAGINET_FRAGMENT_END", ""]
        return _python_file(header, f"{op.qualified_name} Queue unit", [], lines)

    def _queue(self, op: Op, header: str, legacy: bool) -> str:
        c = op.compute
        root = ET.Element("Imaginet")
        # The current format's streaming <Unit> (the real SlidingWindow's lifecycle); the seed's <Queue>.
        unit = self._head(root, op, "Queue" if legacy else "Unit", legacy)
        self._description(unit, op, f"{op.name}.py:{op.name}")
        x, out = op.inputs[0], op.outputs[0]
        params = ET.SubElement(unit, "Parameters")
        hidden_tag = "Hidden" if legacy else "Expression"
        ET.SubElement(params, "InputSocket", {"name": x.name, "pipe": "data", "description": x.description})
        for o in units.options(op):
            ET.SubElement(params, o.element, {k: v for k, v in (("name", o.name), ("description", o.description),
                                                               ("default", o.default), ("min", o.minimum or "1"))
                                              if v is not None})
        ET.SubElement(params, hidden_tag, {"name": "frame_shape", "value": f"{x.name}.shape.remove({x.name}.shape.count - 1)"})
        size = f"256 + {C.CAPACITY_WINDOWS} * {c.window} * frame_shape.flat * {x.name}.type.size"
        ET.SubElement(params, "Handle", {"name": "state", "size": size,
                                         "description": "The queue: a header and room for 2 * window frames"})
        ET.SubElement(params, hidden_tag, {"name": "state_size", "value": size})
        for h in units.dims(x.name, f"{x.name}.shape"):
            ET.SubElement(params, hidden_tag, {"name": h.name, "value": h.value})
        ET.SubElement(params, hidden_tag, {"name": "output_shape", "value": f"frame_shape.insert(frame_shape.count, {c.window})"})
        socket = {"name": out.name, "type": f"{x.name}.type", "shape": "output_shape", "pipe": "data",
                  "description": out.description}
        if not legacy:  # a window per stride frames: blocks of x_d0 frames at x's rate
            socket["rate"] = f"{x.name}.rate * {x.name}_d0 / Math.real({c.stride})"
        ET.SubElement(params, "OutputSocket", socket)
        for h in units.dims(out.name, "output_shape"):
            ET.SubElement(params, hidden_tag, {"name": h.name, "value": h.value})
        ET.SubElement(params, hidden_tag, {"name": "dtype", "value": units.choose(
            [(f"{x.name}.type == {units.VALUE_TYPE[v.dtype]}", f'"{v.dtype}"') for v in variants_of(op)[:-1]],
            f'"{variants_of(op)[-1].dtype}"')})
        contracts = ET.SubElement(unit, "Contracts")
        for test, error in units.contracts(op):
            ET.SubElement(contracts, "Assert", {"test": test, "error": error})
        sections = [("Init", "init"), ("Enqueue", "enqueue"), ("Dequeue", "dequeue")]
        if not legacy:  # the guards the runtime's poll loop calls, and a reset between sessions
            sections += [("CanEnqueue", "can_enqueue"), ("CanDequeue", "can_dequeue"), ("SoftReset", "init")]
        for tag, role in sections:
            section = ET.SubElement(unit, tag)
            if not legacy and role in ("init", "enqueue", "dequeue"):
                section.set("returnStatus", "true")
            if role.startswith("can_"):  # one C function for every dtype
                name = f"{abi.function(op)}_unit_{role}"
                ET.SubElement(section, "Implementation", {
                    "language": "C", "fragment": f"{op.name}.h:{name}",
                    "call": f"{name}({', '.join(self.queue_params(op, role))})"})
            for v in variants_of(op) if not role.startswith("can_") else ():
                name = f"{abi.function(op)}_unit_{role}_{SUFFIX[v.dtype]}"
                impl = ET.SubElement(section, "Implementation", {
                    "language": "C", "fragment": f"{op.name}.h:{name}",
                    "call": f"{name}({', '.join(self.queue_params(op, role))})"})
                condition = f"{x.name}.type == {units.VALUE_TYPE[v.dtype]}"
                if legacy:
                    impl.set("conditional", condition)
                    self._tensor_types(impl, op, v)
                else:
                    ET.SubElement(impl, "Conditional", {"value": condition})
            py = f"{op.name}_unit_{role}"
            py_params = self.queue_params(op, role) + (["dtype"] if role == "init" else [])
            python = ET.SubElement(section, "Implementation", {"language": "Python", "fragment": f"{op.name}.py:{py}",
                                                               "call": f"{py}({', '.join(py_params)})"})
            if legacy:
                self._tensor_types(python, op, None)
        _presentation(root)
        ET.indent(root, space="  ")
        body = ET.tostring(_xml_safe(root), encoding="unicode")
        return f'<?xml version="1.0" encoding="utf-8"?>\n<!-- {header.replace("--", "- -")} -->\n{body}\n'

    def _conditions(self, op: Op, variant: D.Variant) -> list[str]:
        """The variant's own condition, then each other input socket's element type
        (an optional socket may also be left unconnected)."""
        conditions = [self._condition(op, variant.dtype)]
        for i in op.inputs:
            if i.name in C.own_dtype_inputs(op):  # passed with its dtype: any type will do
                continue
            for k, socket in enumerate(units.sockets(i)):
                test = f"{socket}.type == {units.VALUE_TYPE[variant.of(i.name)]}"
                if not i.count.is_single and k >= i.count.low:
                    test = f"({socket} == null || {test})"
                if test not in conditions:
                    conditions.append(test)
        return conditions

    def _condition(self, op: Op, dtype: str) -> str:
        if C.dtype_from_arg(op.compute):
            return f'{units.value(op, "dtype")} == "{dtype}"'
        return f"{units.first_tensor(op)}.type == {units.VALUE_TYPE[dtype]}"
