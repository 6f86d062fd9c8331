"""The units of the fixed-point conversion ops (ADR 0048, 0068): math.quantize, dequantize,
requantize, q_shift and bit_utilization, as the reference library's FixedPoint units
(``Imaginet.Units.Math/FixedPoint``) write them: the same sockets (``input``, ``output``), options
(``output_type``, ``shift``, ``scale``, ``offset``), output attributes and Asserts, and a
``static inline`` kernel per pair of types over ``count`` elements. Each kernel applies the op's
form's steps (``FixedPointConversion.steps``: ``dsl.fixed_point``'s rules), rendered by the
renderers the C API and the package use, so the three agree bit for bit. Beyond the reference
(whose D types are commented out), quantize takes D8, D16 and D32 with their scale and offset, and
requantize changes any type into any other. Each unit carries a comparison test
(``<unit>_tests.c`` and ``.py``) of one case against the rules' result, as every opforge unit does;
tests/test_conversion_units.py holds every type to the rules' owners.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import attrs
import numpy as np

from dsl import compute as C
from dsl import doc_tokens
from dsl import dtypes as D
from dsl import fixed_point as F
from dsl.forms.conversion import SHIFT_ARG
from dsl.model import Op
from dsl.scalar import SExpr
from dsl.types import Language
from generators import abi
from generators.api import GeneratedFile
from generators.formatting import black_format
from generators.imunit import checker, comparison
from generators.imunit.documents import head, serialize, unit_name
from generators.imunit.fixed_point import expression
from generators.imunit.python_files import dependency, python_file
from generators.kernels import scalar_c, scalar_numpy
from generators.kernels.fixed_point import c_statement, numpy_lines, numpy_run
from generators.kernels.scalar_c import C_TYPE

Q_TYPES = [t for t in F.TYPES.values() if t.family == "Q"]
#: The op's input is the unit's ``input`` socket (the reference's name): its attributes' symbols.
_SOCKET = "input"
#: What the reference's output_type option shows for each type.
_TYPE_TEXT = {"Q": "Shifted Fixed Point ({bits} bit)", "D": "Scaled Fixed Point ({bits} bit)"}
_FLOAT32_MAX = "3.4028234663852886e38"


@attrs.frozen
class _Value:
    """A per-call value a rule reads (``factor``, ``scale``, ``offset``, ``k``): its local's name
    and dtype, and how C and Python compute it from the kernel's parameters."""

    name: str
    dtype: str
    c: str
    python: str


@attrs.frozen
class _Step:
    """One rule applied to the element; ``values`` name the per-call values its symbols read."""

    rule: F.Conversion
    values: tuple[tuple[str, str], ...]  # (the rule's symbol, the _Value's name)


@attrs.frozen
class _Kernel:
    """One type's (or pair of types') implementation: a C fragment and a Python function."""

    name: str
    conditions: tuple[str, ...]
    source: str  # the dtype the input holds
    target: str  # the dtype the output holds
    params: tuple[tuple[str, str], ...]  # (C type, name) after input, output and count
    values: tuple[_Value, ...]
    steps: tuple[_Step, ...]  # one, or two through the real value (``real``)

    def c_function(self) -> str:
        params = ", ".join([f"const {C_TYPE[self.source]}* restrict input", f"{C_TYPE[self.target]}* restrict output",
                            "int count", *(f"{ct} {name}" for ct, name in self.params)])
        lines = ["/* The conversion of count elements. Returns 0 (it cannot fail: the unit's Asserts hold its"
                 " attributes to their ranges). */", f"static inline int {self.name}({params}) {{",
                 *(f"const {C_TYPE[v.dtype]} {v.name} = {v.c};" for v in self.values),
                 "for (int i = 0; i < count; i++) {"]
        if len(self.steps) == 2:
            lines.append("float real;")
        dtypes = {v.name: v.dtype for v in self.values}
        for k, step in enumerate(self.steps):
            last = k == len(self.steps) - 1
            read = "real" if k else f"(({C_TYPE[step.rule.domain]})input[i])"
            env: dict[str, scalar_c.Value] = {"x": (read, step.rule.domain)}
            env |= {symbol: (name, dtypes[name]) for symbol, name in step.values}
            lines.append(c_statement(step.rule, "output[i]" if last else "real", env))
        return "\n".join([*lines, "}", "return 0;", "}"])

    def python_function(self) -> str:
        params = ", ".join(["input", "output", *(name for _, name in self.params)])
        lines = [f"def {self.name}({params}):",
                 '    """The C fragment of the same name, over NumPy arrays: bit for bit its results."""',
                 *(f"    {v.name} = {v.python}" for v in self.values),
                 f"    x = np.asarray(input).astype(np.{self.steps[0].rule.domain})",
                 "    with np.errstate(all='ignore'):"]
        dtypes = {v.name: v.dtype for v in self.values}
        for k, step in enumerate(self.steps):
            env = {"x": ("x" if k == 0 else "real", step.rule.domain)}
            env |= {symbol: (name, dtypes[name]) for symbol, name in step.values}
            assignments, code = numpy_lines(step.rule, env)
            lines += [f"        {line}" for line in assignments]
            lines.append(f"        {'result' if k == len(self.steps) - 1 else 'real'} = {code}")
        lines.append("    np.copyto(output, np.reshape(result, output.shape), casting='unsafe')")
        return "\n".join(lines) + "\n"


@attrs.frozen
class _Unit:
    """A unit's document (its root) and the kernels its Implementations call."""

    name: str
    root: ET.Element
    kernels: tuple[_Kernel, ...]


def _is(tensor: str, t: F.FixedPointType | str) -> str:
    return f"{tensor}.type == System.{t.system if isinstance(t, F.FixedPointType) else t}"


def _any_of(tensor: str, types: list[F.FixedPointType]) -> str:
    return " || ".join(_is(tensor, t) for t in types)


def _attribute_values(t: F.FixedPointType, prefix: str, shift: str, scale: str, offset: str) -> tuple:
    """The per-call values a rule of ``t`` reads (float32 locals), computed from the kernel's
    parameters, and the symbols they stand for."""
    if t.family == "Q":
        value = _Value(f"{prefix}factor", "float32", f"opf_q_factor({t.fraction_bits}, {shift})",
                       f"np.float32(2.0 ** ({t.fraction_bits} - {shift}))")
        return (value,), ((F.FACTOR, value.name),)
    values = (_Value(f"{scale}_f32", "float32", f"(float){scale}", f"np.float32({scale})"),
              _Value(f"{offset}_f32", "float32", f"(float){offset}", f"np.float32({offset})"))
    return values, ((F.SCALE, values[0].name), (F.OFFSET, values[1].name))


def _params(t: F.FixedPointType, shift: str = "shift", scale: str = "scale", offset: str = "offset") -> tuple:
    return ((("int", shift),) if t.family == "Q" else (("double", scale), ("int", offset)))


def _call_args(kernel: _Kernel) -> str:
    return ", ".join(["input", "output", "count", *(name for _, name in kernel.params)])


# ------------------------------------------------------------ the documents


def _head(op: Op, usage: str) -> tuple[ET.Element, ET.Element]:
    """The unit's root and its element: the op's name, display path and docs, and the usage."""
    root = ET.Element("Imaginet")
    unit = head(root, op, "Unit", False)
    text = ET.SubElement(unit, "Description")
    ET.SubElement(text, "Header").text = "Description"
    texts = doc_tokens.texts(op, Language.IMUNIT, doc_tokens.NODE_SCOPES, unit_name(op), "array")
    text[-1].tail = "\n" + "\n\n".join(texts) + "\n"
    ET.SubElement(text, "Header").text = "Usage"
    text[-1].tail = f"\n{usage}\n"
    return root, unit


def _listed(types: list[F.FixedPointType]) -> str:
    names = [t.system for t in types]
    return f"{', '.join(names[:-1])} or {names[-1]}"


def _sections(unit: ET.Element, description: str, test: str, accepted: str) -> tuple[ET.Element, ET.Element]:
    """The unit's Parameters, opened with its input socket, and its Contracts, opened with the
    Assert that the input's type is one the unit takes (``accepted``, in words)."""
    params = ET.SubElement(unit, "Parameters")
    ET.SubElement(params, "InputSocket", {"name": "input", "text": "Input", "description": description})
    contracts = ET.SubElement(unit, "Contracts")
    ET.SubElement(contracts, "Assert", {"test": test, "error": f"The input must be {accepted}"})
    return params, contracts


def _option(params: ET.Element, tag: str, name: str, text: str, description: str, default: str,
            minimum: str | None = None) -> ET.Element:
    attributes = {"name": name, "text": text, "description": description, "default": default}
    if minimum is not None:
        attributes["min"] = minimum
    return ET.SubElement(params, tag, attributes)


def _type_option(params: ET.Element, types: list[F.FixedPointType], description: str) -> None:
    option = _option(params, "StringOption", "output_type", "Output type", description, "q15")
    one_of = ET.SubElement(option, "OneOf")
    for t in types:
        ET.SubElement(one_of, "Item", {"text": _TYPE_TEXT[t.family].format(bits=t.bits)}).text = t.name


def _output_attribute_options(params: ET.Element) -> None:
    """shift (a Q output's), scale and offset (a D output's): the reference's Quantize options."""
    _option(params, "Int32Option", "shift", "Shift", "The shift of a Q output: real = stored / 2^(N - shift), N "
            "the type's fraction bits (7, 15, 31); a higher shift holds a larger range, less finely", "0")
    _option(params, "DoubleOption", "scale", "Scale", "The scale of a D output: real = (stored - offset) * scale",
            "1", "0")
    _option(params, "Int32Option", "offset", "Offset", "The offset (zero point) of a D output: the stored value "
            "of real zero", "0")


def _output_attribute_asserts(contracts: ET.Element, types: list[F.FixedPointType], chosen: str) -> None:
    """A Q output's shift in the range its type allows, a D output's scale positive and finite as
    a float32 and its offset a stored value: what the C API and the package check."""
    for t in types:
        if t.family == "Q":
            low, high = t.shifts().start, t.shifts().stop - 1
            test, error = f"shift >= {low} && shift <= {high}", f"A {t.system} output's shift must be in {low}..{high}"
        else:
            test = f"offset >= {t.lowest} && offset <= {t.highest}"
            error = f"A {t.system} output's offset must be in {t.lowest}..{t.highest}"
        ET.SubElement(contracts, "Assert", {"test": f"{chosen} != \"{t.name}\" || ({test})", "error": error})
    ET.SubElement(contracts, "Assert", {"test": f"scale > 0 && scale <= {_FLOAT32_MAX}",
                                        "error": "The scale must be positive and finite as a float32"})


def _implementations(unit: ET.Element, name: str, kernels: list[_Kernel]) -> None:
    impls = ET.SubElement(unit, "Implementations", {"returnStatus": "true"})  # (as every opforge unit's)
    for language, file in (("C", f"{name}.h"), ("Python", f"{name}.py")):
        for kernel in kernels:
            args = _call_args(kernel) if language == "C" else ", ".join(
                ["input", "output", *(n for _, n in kernel.params)])
            impl = ET.SubElement(impls, "Implementation", {"language": language, "fragment": f"{file}:{kernel.name}",
                                                           "call": f"{kernel.name}({args})"})
            for test in kernel.conditions:
                ET.SubElement(impl, "Conditional", {"value": test})


def _count(params: ET.Element) -> None:
    ET.SubElement(params, "Expression", {"name": "count", "value": "input.shape.flat",
                                         "description": "The number of elements"})


def _input_attributes(params: ET.Element) -> None:
    for attribute in ("shift", "scale", "offset"):
        ET.SubElement(params, "Expression", {"name": f"input_{attribute}", "value": f"input.{attribute}",
                                             "description": f"The input's {attribute} (its tensor's attribute)"})


# ------------------------------------------------------------ the units


#: Where each conversion goes in a graph (the unit's Usage).
USAGE = {
    "quantize": "Before the fixed-point units of a graph that reads float32 data.",
    "dequantize": "After the fixed-point units of a graph, to read, show or post-process their results.",
    "requantize": "Between units that take different fixed-point types, or to give a tensor the range, or the "
                  "scale and offset, the next unit needs.",
    "shift": "To give a fixed-point tensor the range (a higher shift) or the precision (a lower one) the next unit "
             "needs.",
    "bit_utilization": "To see how much of a fixed-point type's range the data uses, and so choose its shift.",
}


def _system(dtype: str) -> str:
    return F.TYPES[dtype].system if dtype in F.TYPES else D.SYSTEM_TYPE[dtype]


def _shift_value(form: C.FixedPointConversion, source: str, target: str, domain: str) -> _Value:
    """``k`` of a shift step: the form's tree over the op's ``shift`` and the input's shift."""
    tree: SExpr | None = form.shift_by(source, target)
    assert tree is not None, (source, target)
    names = {"shift": "shift", F.shift_of(form.input): f"{_SOCKET}_shift"}
    c = scalar_c.render(tree, domain, {s: (n, "int32") for s, n in names.items()})[0]
    py = scalar_numpy.render(tree, domain, {s: (f"np.int32({n})", "int32") for s, n in names.items()})[0]
    return _Value("k", domain, f"({C_TYPE[domain]})({c})", f"np.{domain}({py})")


def _kernels(op: Op) -> list[_Kernel]:
    """A kernel per pair of the form: its steps, the attributes they read as parameters (the
    input's, then the chosen output's, then a shift's change), and the per-call values."""
    form: C.FixedPointConversion = op.compute  # type: ignore[assignment]
    kernels = []
    attributes = (f"{_SOCKET}_shift", f"{_SOCKET}_scale", f"{_SOCKET}_offset")
    for source, target in form.pairs():
        given, made = F.TYPES.get(source), F.TYPES.get(target)
        steps = form.steps(source, target)
        reads_input = False
        if len(steps) == 2:  # (through the real value)
            assert given is not None and made is not None
            before, before_symbols = _attribute_values(given, "input_", *attributes)
            after, after_symbols = _attribute_values(made, "output_", "shift", "scale", "offset")
            values, made_steps = (*before, *after), (_Step(steps[0], before_symbols), _Step(steps[1], after_symbols))
            reads_input = True
        elif form.shift_by(source, target) is not None:  # (a shift, by k)
            k = _shift_value(form, source, target, steps[0].domain)
            values, made_steps = (k,), (_Step(steps[0], ((F.SHIFT_BY, k.name),)),)
            reads_input = form.rule == "requantize"  # (k reads the input's shift)
        elif form.rule in ("quantize", "dequantize"):
            t = made if form.rule == "quantize" else given
            assert t is not None
            values, symbols = _attribute_values(t, "", *(("shift", "scale", "offset") if form.rule == "quantize"
                                                         else attributes))
            made_steps = (_Step(steps[0], symbols),)
            reads_input = form.rule == "dequantize"
        else:  # (bit utilization: the stored values alone)
            values, made_steps = (), (_Step(steps[0], ()),)
        params: tuple = _params(given, *attributes) if reads_input and given is not None else ()
        if form.chooses_type:
            assert made is not None
            params += _params(made)
        if form.rule == "shift":
            params += (("int", SHIFT_ARG),)
        conditions = (_is("input", _system(source)),) + ((_is("output", _system(target)),) if form.chooses_type
                                                          else ())
        suffix = "_to_".join(dict.fromkeys(d for d in (source, target) if d in F.TYPES))
        kernels.append(_Kernel(f"{abi.function(op)}_{suffix}", conditions, F.storage_of(source), F.storage_of(target),
                               params, values, made_steps))
    return kernels


def unit(op: Op) -> _Unit:
    """The op's unit: the input socket and the Assert on its type; the options that choose the
    output's type and attributes (or a shift's change), with their Asserts; the output socket,
    its attributes the form's; an Implementation per kernel."""
    form: C.FixedPointConversion = op.compute  # type: ignore[assignment]
    pairs = form.pairs()
    sources = [F.TYPES[s] for s in dict.fromkeys(s for s, _ in pairs) if s in F.TYPES]
    targets = [F.TYPES[t] for t in dict.fromkeys(t for _, t in pairs) if t in F.TYPES]
    root, element = _head(op, USAGE[form.rule])
    x = op.inputs[0]
    if sources:
        params, contracts = _sections(element, f"{x.description}: {_listed(sources)}", _any_of("input", sources),
                                      _listed(sources))
    else:
        params, contracts = _sections(element, x.description, _is("input", "Float32"), "float32")
    if form.chooses_type:
        _type_option(params, targets, next(a.description for a in op.args if a.name == "dtype"))
        _output_attribute_options(params)
    if form.rule == "shift":
        arg = next(a for a in op.args if a.name == SHIFT_ARG)
        _option(params, "Int32Option", arg.name, "Shift", arg.description, str(arg.default))
    _count(params)
    if sources and form.rule != "shift" and form.rule != "bit_utilization":
        _input_attributes(params)
    output = op.outputs[0]
    socket = {"name": "output", "text": "Output", "shape": "input.shape", "description": output.description}
    if form.chooses_type:
        socket |= {"type": "System.parseType(output_type)", "shift": "shift", "scale": "scale", "offset": "offset"}
    elif form.rule == "shift":
        names = {F.shift_of(form.input): f"{_SOCKET}.shift", SHIFT_ARG: SHIFT_ARG}
        ET.SubElement(params, "Expression", {"name": "output_shift", "description": "The output's shift",
                                             "value": expression(form.output_attributes(sources[0].name)["shift"],
                                                                 names)})
        socket |= {"type": "input.type", "shift": "output_shift"}
    else:
        socket["type"] = f"System.{_system(pairs[0][1])}"
    ET.SubElement(params, "OutputSocket", socket)
    if form.chooses_type:
        _output_attribute_asserts(contracts, targets, "output_type")
    if form.rule == "shift":
        for t in sources:
            low, high = t.shifts().start, t.shifts().stop - 1
            ET.SubElement(contracts, "Assert", {
                "test": f"input.type != System.{t.system} || (output_shift >= {low} && output_shift <= {high})",
                "error": f"A {t.system} shift must be in {low}..{high}"})
    kernels = _kernels(op)
    _implementations(element, op.name, kernels)
    return _Unit(op.name, root, tuple(kernels))


#: Each unit's comparison test (ADR 0035's, as every opforge unit has): its input, the input's
#: values, and the options; the expected output is the rule's, evaluated now.
_REALS = np.array([0.0, 0.3, -0.3, 1.7, -2.5, 100.0, -100.0, 0.000123], np.float32)
_Q15 = np.array([0, 1, -1, 12345, -12345, 32767, -32768, 300], np.int16)
TEST_CASES: dict[str, tuple[str, np.ndarray, dict[str, object]]] = {  # (by rule; the input as unit-check takes it)
    "quantize": ("input=Float32[8]", _REALS, {"output_type": "q15", "shift": 2}),
    "dequantize": ("input=D8[8] scale=0.05 offset=-3", np.array([0, 1, -1, 127, -128, -3, 40, -90], np.int8), {}),
    "shift": ("input=Q15[8] shift=1", _Q15, {"shift": -3}),
    "requantize": ("input=Q15[8] shift=1", _Q15, {"output_type": "d8", "scale": 0.01, "offset": 5}),
    "bit_utilization": ("input=Q15[8] shift=0", _Q15, {}),
}


def _expected(kernel: _Kernel, args: dict[str, object], x: np.ndarray) -> np.ndarray:
    """The kernel's rule on ``x`` as the rule's NumPy rendering computes it, now."""
    scope: dict[str, object] = {"np": np, **args}
    values = {v.name: eval(v.python, scope) for v in kernel.values}  # (our own rendering)
    dtypes = {v.name: v.dtype for v in kernel.values}
    current = np.asarray(x).astype(kernel.steps[0].rule.domain)
    for step in kernel.steps:
        env = {"x": ("x", step.rule.domain)} | {symbol: (name, dtypes[name]) for symbol, name in step.values}
        current = np.asarray(numpy_run(step.rule, env, {"x": current, **values}))
    return current.astype(kernel.target)


def _tests(op: Op, made: _Unit, header: str) -> tuple[str, str, str, str]:
    """(the C test file, the Python one, the fragment they test, the test's name)."""
    spec, x, options = TEST_CASES[op.compute.rule]  # type: ignore[union-attr]
    _, tensor = checker.parse_input(spec)
    picked = checker.chosen_calls(made.root.find("Unit"), {"input": tensor}, options)  # type: ignore[arg-type]
    (c_impl, c_args), (py_impl, py_args) = picked["C"], picked["Python"]
    kernel = next(k for k in made.kernels if c_impl.get("fragment", "").endswith(f":{k.name}"))
    given = {name: value for name, value in c_args if name not in ("input", "output", "count")}
    want = _expected(kernel, given, x)

    def values(args: tuple) -> list[comparison.CallValue]:
        return [comparison.CallValue("input", name, x) if name == "input" else
                comparison.CallValue("output", name, want) if name == "output" else
                comparison.CallValue("value", name, value=value) for name, value in args]

    name = f"{abi.function(op)}_test"
    chosen = ", ".join(f"{k}={v}" for k, v in options.items())
    what = (f"{spec.removeprefix('input=')}{' with ' + chosen if chosen else ''}, through the unit's call: the "
            "rule's result")
    return (comparison.c_test_file(header, op.qualified_name, name, what, c_impl, values(c_args), True),
            comparison.py_test_file(header, op.qualified_name, name, what, py_impl, values(py_args)),
            kernel.name, name)


def files(op: Op, folder: str, header: str, shared_path: str,
          runtime: str) -> tuple[dict[str, str], dict[str, tuple[str, str]], list[GeneratedFile]]:
    """The op's unit in ``folder``: its C files (to be formatted with the others), the C fragment
    its C test is associated with (once formatted: ``file -> (fragment, test)``), and its document
    and Python files; each C fragment depends on the shared runtime (``shared_path:runtime``)."""
    made = unit(op)
    base = f"{folder}/{op.name}"
    c_parts = [f"/* {header} */", "#pragma IMAGINET_INCLUDES_BEGIN", "#include <math.h>", "#include <stdint.h>",
               "#pragma IMAGINET_INCLUDES_END"]
    for kernel in made.kernels:
        c_parts += ["", f'#pragma IMAGINET_FRAGMENT_BEGIN "{kernel.name}"',
                    f'#pragma IMAGINET_FRAGMENT_DEPENDENCY "{shared_path}:{runtime}"', kernel.c_function(),
                    "#pragma IMAGINET_FRAGMENT_END"]
    c_test, py_test, tested, test = _tests(op, made, header)
    c_files = {f"{base}.h": "\n".join(c_parts) + "\n", f"{base}_tests.c": c_test}
    fragments = [dependency(f'#pragma IMAGINET_FRAGMENT_BEGIN "{k.name}"\n{k.python_function()}'
                            "#pragma IMAGINET_FRAGMENT_END\n", "opforge_kernels") for k in made.kernels]
    python = comparison.associate(python_file(header, f"{op.name} unit", [], fragments), tested,
                                  f"{op.name}_tests.py:{test}")
    generated = [GeneratedFile(f"{base}.py", python), GeneratedFile(f"{base}_tests.py", black_format(py_test)),
                 GeneratedFile(f"{base}.imunit", serialize(made.root, header))]
    return c_files, {f"{base}.h": (tested, f"{op.name}_tests.c:{test}")}, generated
