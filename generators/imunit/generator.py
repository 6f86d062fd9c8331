"""Writes ``out/imunit``: per op a folder with ``<op>.imunit``, ``<op>.h`` and ``<op>.py``
(and the unit's comparison tests, ``<op>_tests.c`` and ``<op>_tests.py``: ADR 0035), and
``opforge_shared.h``, the fragments several units share, with the tests' checks.

A unit's C file holds the op's kernels and its checked API function as fragments,
its plain kernels (where the op has them), which the unit calls first with sizes its
Expressions compute (ADR 0032, ``plain.py``), and one adapter per dtype that takes
Imaginet-style arguments (pointers and integers) and calls the checked API function
for what the plain kernels do not cover; the runtime and shared kernels come from
``opforge_shared.h`` by relative path, so a firmware of many units holds them once
(ADR 0030). The Python file holds the NumPy reference and a unit wrapper.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Sequence

from dsl import compute as C
from dsl.model import Op
from dsl.types import Language
from generators import abi
from generators.api import GeneratedFile, GenerationContext
from generators.formatting import black_format, c_comment, clang_format
from generators.imunit import comparison, composed, conversions, fixed_point, plain, stream_unit, units
from generators.imunit.adapter import UnitAdapter
from generators.imunit.documents import condition, conditions, description, head, serialize, tensor_types
from generators.imunit.python_files import dependency, py_file, wrapper_name, wrapper_params
from generators.imunit.variants import unit_kernels, variants_of
from generators.kernels import c_emit, c_runtime, examples
from generators.kernels.evaluate import reference_functions
from generators.kernels.selection import code_ops, require_compute


#: The fragment file the units share, at the root of the imunit tree, and how a unit
#: (``<ns>/<op>/``) names it.
SHARED_FILE = "opforge_shared.h"
SHARED_PATH = f"../../{SHARED_FILE}"
RUNTIME = "opforge_runtime"
#: The checks the comparison tests call (test code, not a unit's).
_CHECKS_C = Path(__file__).resolve().parent / "runtime" / comparison.CHECKS_C
_CHECKS_PY = Path(__file__).resolve().parent / "runtime" / comparison.CHECKS_PY
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
        associations: dict[str, tuple[str, str]] = {}  # C file -> (fragment, its test)
        files: list[GeneratedFile] = []
        codes = {op: unit_kernels(c_emit.emit(op, linkage="static inline ", plain_index=units.INDEX_DTYPE))
                 for ns in context.namespaces for op in code_ops(ns)
                 if op.composition is None and not isinstance(op.compute, C.FixedPointConversion)}
        shared_header = context.header(self.name, context.namespaces)
        shared = self._shared(codes, shared_header)
        c_files[SHARED_FILE] = self._shared_file(codes, shared, shared_header)
        left_out: list[Op] = []
        for ns in context.namespaces:
            header = context.header(self.name, [ns])
            functions = reference_functions(ns)
            for op in code_ops(ns):
                folder = f"{ns.key}/{op.name}"
                if op.composition is not None:
                    unit = composed.composite(ns, op, header, True) if legacy else composed.compound(ns, op, header)
                    files.append(GeneratedFile(f"{folder}/{op.name}.imunit", unit))
                    continue
                if isinstance(op.compute, C.FixedPointConversion):
                    if legacy:  # (the seed format has no Q or D types: ADR 0048; the README says so)
                        left_out.append(op)
                        continue
                    conversion_c, conversion_tests, conversion_files = conversions.files(
                        op, folder, header, SHARED_PATH, RUNTIME)
                    c_files |= conversion_c
                    associations |= conversion_tests
                    files += conversion_files
                    continue
                if abi.is_stream(op):
                    c_files[f"{folder}/{op.name}.h"] = self._c_file(op, codes[op], shared, header)
                    files.append(GeneratedFile(f"{folder}/{op.name}.py", stream_unit.queue_py(op, header, legacy)))
                    files.append(GeneratedFile(f"{folder}/{op.name}.imunit", stream_unit.queue(op, header, legacy)))
                    continue
                c_text, py_text = self._c_file(op, codes[op], shared, header, legacy), py_file(op, header)
                for family in [] if legacy else fixed_point.families(codes[op].plain):
                    py_text += "\n\n" + black_format(fixed_point.python_fragment(op, codes[op].plain, family))
                unit = self._unit(op, header, legacy, codes[op].plain)
                tests = comparison.unit_tests(op, unit, examples.example(op, functions), header, legacy)
                if tests is not None:  # (the test fragments, and their association with what they test)
                    associations[f"{folder}/{op.name}.h"] = (tests.c_fragment, f"{op.name}_tests.c:{tests.name}")
                    py_text = comparison.associate(py_text, tests.py_fragment, f"{op.name}_tests.py:{tests.name}")
                    c_files[f"{folder}/{op.name}_tests.c"] = tests.c_text
                    files.append(GeneratedFile(f"{folder}/{op.name}_tests.py", black_format(tests.py_text)))
                c_files[f"{folder}/{op.name}.h"] = c_text
                files.append(GeneratedFile(f"{folder}/{op.name}.py", py_text))
                files.append(GeneratedFile(f"{folder}/{op.name}.imunit", unit))
        if left_out:
            listed = "".join(f"- `{op.qualified_name}`\n" for op in left_out)
            files.append(GeneratedFile("README.md", f"<!-- {shared_header} -->\n\n# Ops without a unit\n\n"
                                       "The seed (legacy) format has no fixed-point element types, so these "
                                       f"conversions have no unit in it (ADR 0048); the current style has them.\n\n"
                                       f"{listed}"))
        c_files[comparison.CHECKS_C] = f"/* {c_comment(shared_header)} */\n" + _CHECKS_C.read_text(encoding="utf-8")
        files.append(GeneratedFile(comparison.CHECKS_PY, black_format(f"# {shared_header}\n" +
                                                                      _CHECKS_PY.read_text(encoding="utf-8"))))
        # (associated once formatted: a pragma is one line, however long)
        files += [GeneratedFile(path, comparison.associate(text, *associations[path]) if path in associations else text)
                  for path, text in clang_format(c_files).items()]
        return sorted(files, key=lambda f: f.path)

    # ------------------------------------------------------------ C

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
        for op, code in codes.items():  # (each op's fragments come dependencies first: so do these)
            for f in code.fragments:
                users.setdefault(f.name, set()).add(op)
                bodies.setdefault(f.name, set()).add(f.body)
        for name in (n for n, ops in users.items() if len(ops) > 1 and len(bodies[n]) == 1):
            shared[name] = next(iter(bodies[name]))
        return shared

    @staticmethod
    def _shared_file(codes: dict[Op, c_emit.OpCode], shared: dict[str, str], header: str) -> str:
        includes = list(dict.fromkeys(i for op, code in codes.items()
                                      if any(f.name in shared for f in code.fragments) for i in code.includes))
        parts = [f"/* {c_comment(header)} */",
                 "/* What opforge's units share, each fragment once: a firmware of several units holds one copy. */",
                 "#pragma IMAGINET_INCLUDES_BEGIN", *STANDARD_INCLUDES, *includes, "#pragma IMAGINET_INCLUDES_END", ""]
        # (a hand-written kernel that units call names what it calls: a firmware takes the fragments
        # a unit names and theirs, not the whole file)
        needs = {k.fragment.name: k.needs for code in codes.values() for k in code.plain}
        for name, text in shared.items():
            fragment = c_emit.CFragment(name, text).text
            parts.append(fragment if name == RUNTIME else dependency(fragment, RUNTIME, *needs.get(name, ())))
        return "\n".join(parts)

    def _c_file(self, op: Op, code: c_emit.OpCode, shared: dict[str, str], header: str,
                legacy: bool = False) -> str:
        """The unit's own fragments; what units share comes from SHARED_FILE, by relative path.
        A unit its plain kernels cover carries only them (no API function, no adapters)."""

        def ref(name: str) -> str:
            return f"{SHARED_PATH}:{name}" if name in shared else name

        parts = [f"/* {c_comment(header)} */",
                 "#pragma IMAGINET_INCLUDES_BEGIN", *dict.fromkeys([*STANDARD_INCLUDES, *code.includes]),
                 "#pragma IMAGINET_INCLUDES_END", ""]
        if not legacy and not abi.is_stream(op) and plain.covers(op, code.plain):
            # (a hand-written fragment's dependencies first: those units share by path, the others here)
            needed = {n for k in code.plain for n in k.needs}
            parts += [dependency(f.text, ref(RUNTIME)) for f in code.fragments if f.name in needed and f.name not in shared]
            # (a hand-written kernel several units call is the shared file's)
            parts += [dependency(k.fragment.text, ref(RUNTIME), *(ref(n) for n in k.needs)) for k in code.plain
                      if k.fragment.name not in shared]
            parts += [dependency(k.init.text, ref(RUNTIME)) for k in code.plain if k.init is not None]
            return "\n".join(parts + [plain.entry(op, k, ref(k.fragment.name)) for k in code.plain])
        parts += [dependency(f.text, ref(RUNTIME)) for f in code.fragments if f.name not in shared]
        api = f'#pragma IMAGINET_FRAGMENT_BEGIN "{abi.function(op)}"\n' + "".join(
            f'#pragma IMAGINET_FRAGMENT_DEPENDENCY "{ref(n)}"\n' for n in
            [RUNTIME, *(abi.config_struct(c) for c in op.configs), *(f.name for f in code.fragments)]
        ) + code.api + "#pragma IMAGINET_FRAGMENT_END\n"
        parts.append(api)
        if abi.is_stream(op):
            parts += [stream_unit.queue_entries(op, ref(RUNTIME)),
                      *(stream_unit.queue_adapters(op, v.dtype) for v in variants_of(op)),
                      stream_unit.queue_guards(op, ref(RUNTIME))]
        else:
            parts += [UnitAdapter(op, v.dtype).fragment() for v in variants_of(op)]
            own = {f.name for f in code.fragments}  # (a hand-written fragment is there already)
            parts += [dependency(k.fragment.text, ref(RUNTIME)) for k in code.plain if k.name not in own]
            # (a table's fill is also the C API's: there already)
            parts += [dependency(k.init.text, ref(RUNTIME)) for k in code.plain
                      if k.init is not None and k.init.name not in own]
            parts += [plain.entry(op, k) for k in code.plain]
        return "\n".join(parts)

    # ------------------------------------------------------------ Python


    # ------------------------------------------------------------ XML

    def _unit(self, op: Op, header: str, legacy: bool, kernels: Sequence[c_emit.PlainKernel] = ()) -> str:
        root = ET.Element("Imaginet")
        unit = head(root, op, "Function" if legacy else "Unit", legacy)
        description(unit, op, f"{op.name}.py:{wrapper_name(op)}")
        params = ET.SubElement(unit, "Parameters")
        hidden_tag = "Hidden" if legacy else "Expression"
        adapter = legacy or not plain.covers(op, kernels)
        # (an adapter writes the API's int64 indices: only plain kernels write a unit's)
        assert not (adapter and units.index_output(op, legacy=legacy)), op.qualified_name
        self._sockets_and_options(params, op, legacy, () if legacy else kernels)
        self._outputs(params, op, hidden_tag, adapter, legacy, () if legacy else kernels)
        contracts = ET.SubElement(unit, "Contracts")
        moved = [] if legacy else (fixed_point.moved_contracts(op) + fixed_point.table_contracts(op, kernels)
                                   + fixed_point.clamp_contracts(op, kernels))
        for test, error in units.contracts(op, legacy) + plain.contracts(op, () if legacy else kernels) + moved:
            ET.SubElement(contracts, "Assert", {"test": test, "error": error})
        self._implementations(unit, params, op, legacy, hidden_tag, kernels, adapter)
        return serialize(root, header)

    @staticmethod
    def _sockets_and_options(params: ET.Element, op: Op, legacy: bool,
                             kernels: Sequence[c_emit.PlainKernel] = ()) -> None:
        """An input socket per tensor (per tensor a list may hold, the ones past its minimum
        optional), then an option per arg, and the D output's scale and offset."""
        for i in op.inputs:
            for k, s in enumerate(units.sockets(i)):
                socket = {"name": s, "pipe": "data", "description": i.description}
                if not i.count.is_single and k >= i.count.low:
                    socket["optional"] = "true"
                ET.SubElement(params, "InputSocket", socket)
        for o in [*units.options(op), *fixed_point.chosen_options(kernels)]:
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

    @staticmethod
    def _outputs(params: ET.Element, op: Op, hidden_tag: str, adapter: bool, legacy: bool,
                 kernels: Sequence[c_emit.PlainKernel]) -> None:
        """The Expressions the unit computes (its output shapes and the values its kernels take),
        each output's socket (with the attributes a fixed-point output's form derives), and the
        dims its adapter (if it has one) passes."""
        values = units.hidden(op, adapter)
        for h in values:
            if h.name.startswith("output"):
                continue
            ET.SubElement(params, hidden_tag, {"name": h.name, "value": h.value})
        out = op.outputs[0]
        shape_value = next(h.value for h in values if h.name == "output_shape")
        ET.SubElement(params, hidden_tag, {"name": "output_shape", "value": shape_value})
        derived = fixed_point.output_attributes(op, kernels)  # (Expressions after the sizes they read)
        for k, socket in enumerate(units.output_sockets(out)):
            attributes = {"name": socket, "type": units.output_type(op, legacy=legacy), "shape": "output_shape",
                          "pipe": "data", "description": out.description}
            attributes |= {attribute: f"output_{attribute}" for attribute in derived}
            attributes |= {} if legacy else fixed_point.moved_attributes(op)  # (a move keeps them)
            if not out.count.is_single:  # a list output: the sockets its tensors fill
                attributes["conditional"] = f"{units.PART_COUNT} > {k}"
            ET.SubElement(params, "OutputSocket", attributes)
        for h in values:
            if h.name.startswith("output_") and h.name != "output_shape":
                ET.SubElement(params, hidden_tag, {"name": h.name.replace("output", out.name, 1)
                                                   if out.name != "output" else h.name, "value": h.value})
        for k, o in enumerate(op.outputs[1:], 1):  # further outputs: a shape, a socket and dims each
            ET.SubElement(params, hidden_tag, {"name": f"{o.name}_shape", "value": units.further_output_shape(op, k)})
            ET.SubElement(params, "OutputSocket", {"name": o.name, "type": units.output_type(op, o, legacy),
                                                   "shape": f"{o.name}_shape", "pipe": "data",
                                                   "description": o.description})
            for h in units.dims(o.name, f"{o.name}_shape") if adapter else ():
                ET.SubElement(params, hidden_tag, {"name": h.name, "value": h.value})

    def _implementations(self, unit: ET.Element, params: ET.Element, op: Op, legacy: bool, hidden_tag: str,
                         given: Sequence[c_emit.PlainKernel], adapter: bool) -> None:
        """The plain kernels, then (``adapter``: for what they do not cover) an adapter per
        dtype, then Python."""
        kernels = () if legacy else tuple(given)
        for attributes in plain.expressions(op, kernels):  # the sizes the plain kernels take, each once
            ET.SubElement(params, hidden_tag, attributes)
        for attributes in fixed_point.expressions(op, kernels):  # (and the shifts the Q kernels take)
            ET.SubElement(params, hidden_tag, attributes)
        handle = fixed_point.table_handle(op, kernels)
        if handle is not None:  # (a table, filled once by Init: the guide's stateful pattern, 9.2)
            ET.SubElement(params, "Handle", handle)
        attributes = fixed_point.output_attributes(op, kernels)
        for attribute, value in attributes.items():  # (the guide's 11.3, 11.4: named on the socket)
            ET.SubElement(params, hidden_tag, {"name": f"output_{attribute}", "value": value})
        tables = [k for k in fixed_point.of(kernels) if k.init is not None]
        if tables:
            init = ET.SubElement(unit, "Init", {"returnStatus": "true"})
            for kernel in tables:
                name = kernel.init.name  # type: ignore[union-attr]
                impl = ET.SubElement(init, "Implementation", {
                    "language": "C", "fragment": f"{op.name}.h:{name}",
                    "call": f"{name}({', '.join(fixed_point.init_args(op, kernel))})"})
                for test in fixed_point.conditions(op, kernel) + plain.case_conditions(op, kernel):
                    ET.SubElement(impl, "Conditional", {"value": test})
        impls = ET.SubElement(unit, "Implementations")
        if not legacy:  # the adapters check what they are given: a failure stops the graph
            impls.set("returnStatus", "true")
        for kernel in kernels:  # the kernel itself, no descriptors (ADR 0030)
            name = plain.entry_name(op, kernel)
            impl = ET.SubElement(impls, "Implementation", {"language": "C", "fragment": f"{op.name}.h:{name}",
                                                           "call": f"{name}({', '.join(plain.call_args(op, kernel))})"})
            types = fixed_point.conditions(op, kernel) if kernel.fixed_point else conditions(op, kernel.variant)
            for test in types + plain.conditions(op, kernel):
                ET.SubElement(impl, "Conditional", {"value": test})
        for t in [] if legacy else fixed_point.moved_types(op):  # (the stored values move: the integer kernels)
            for kernel in (k for k in kernels if not k.fixed_point and k.variant.dtype == t.storage):
                name = plain.entry_name(op, kernel)
                impl = ET.SubElement(impls, "Implementation", {
                    "language": "C", "fragment": f"{op.name}.h:{name}",
                    "call": f"{name}({', '.join(plain.call_args(op, kernel))})"})
                for test in fixed_point.moved_conditions(op, kernel.variant, t) + plain.conditions(op, kernel):
                    ET.SubElement(impl, "Conditional", {"value": test})
        for v in variants_of(op) if adapter else ():
            checked = UnitAdapter(op, v.dtype)
            name = checked.name
            call = f"{name}({', '.join(value for _, value in checked.params())})"
            impl = ET.SubElement(impls, "Implementation", {"language": "C", "fragment": f"{op.name}.h:{name}",
                                                           "call": call})
            if legacy:
                impl.set("conditional", condition(op, v.dtype))
                tensor_types(impl, op, v)
            else:  # the kernel reads every input as its variant's type: each must be it
                for test in conditions(op, v):
                    ET.SubElement(impl, "Conditional", {"value": test})
        for t in [] if legacy or not adapter else fixed_point.moved_types(op):  # (the same, through the adapters)
            for v in (v for v in variants_of(op) if v.dtype == t.storage):
                checked = UnitAdapter(op, v.dtype)
                impl = ET.SubElement(impls, "Implementation", {
                    "language": "C", "fragment": f"{op.name}.h:{checked.name}",
                    "call": f"{checked.name}({', '.join(value for _, value in checked.params())})"})
                for test in fixed_point.moved_conditions(op, v, t):
                    ET.SubElement(impl, "Conditional", {"value": test})
        for family in fixed_point.families(kernels):  # (fixed-point inputs: their own Python, over the stored values)
            name = fixed_point.python_name(op, family)
            impl = ET.SubElement(impls, "Implementation", {
                "language": "Python", "fragment": f"{op.name}.py:{name}",
                "call": f"{name}({', '.join(fixed_point.python_params(op, kernels, family))})"})
            ET.SubElement(impl, "Conditional", {"value": fixed_point.python_conditional(op, kernels, family)})
        python = ET.SubElement(impls, "Implementation", {
            "language": "Python", "fragment": f"{op.name}.py:{wrapper_name(op)}",
            "call": f"{wrapper_name(op)}({', '.join(wrapper_params(op))})"})
        if legacy:
            tensor_types(python, op, None)


    # ------------------------------------------------------------ Queue units (stateful streams)


