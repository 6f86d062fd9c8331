"""The FixedPoint library's units (issue 20, ADR 0048): Quantize, Dequantize, QShift, Requantize
and BitUtilization, in ``fixed_point/<unit>/`` beside the namespaces' units.

They are the reference library's units of the same names (``Imaginet.Units.Math/FixedPoint``):
the same sockets, options, output attributes and Asserts, a ``static inline`` kernel per type
over ``count`` elements. Each kernel is rendered from the conversion rules of
:mod:`dsl.fixed_point` (``from_real``, ``to_real``, ``shifted``, ``bit_utilization``), as the C
API's ``opforge_quantize`` and friends and the package's ``fixed_point`` module render them, so
the three agree bit for bit. Beyond the reference (whose D types are commented out), Quantize
takes D8, D16 and D32 with their scale and offset, and Requantize changes any type into any
other (exactly between Q types; through the real value otherwise). Each unit carries a comparison
test (``<unit>_tests.c`` and ``.py``) of one case against the rule's result, as every opforge unit
does; tests/test_conversion_units.py holds every type to the rules' owners.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import attrs
import numpy as np

from dsl import fixed_point as F
from generators.api import GENERATED_MARK, GeneratedFile
from generators.formatting import black_format
from generators.imunit import checker, comparison
from generators.imunit.documents import serialize
from generators.imunit.python_files import dependency, python_file
from generators.kernels import scalar_c
from generators.kernels.fixed_point import c_statement, numpy_lines, numpy_run
from generators.kernels.scalar_c import C_TYPE

#: Where the units go (a folder no namespace has), and the source their header names.
FOLDER = "fixed_point"
SOURCE = "dsl/fixed_point.py"
DISPLAY_PATH = "/Utilities/Quantization"
Q_TYPES = [t for t in F.TYPES.values() if t.family == "Q"]
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


def _head(name: str, display: str, description: str, usage: str) -> tuple[ET.Element, ET.Element]:
    root = ET.Element("Imaginet")
    unit = ET.SubElement(root, "Unit", {"name": f"Opforge.FixedPoint.{name}"})
    ET.SubElement(unit, "DisplayName").text = display
    ET.SubElement(unit, "DisplayPath").text = DISPLAY_PATH
    text = ET.SubElement(unit, "Description")
    ET.SubElement(text, "Header").text = "Description"
    text[-1].tail = f"\n{description}\n"
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


def quantize() -> _Unit:
    types = list(F.TYPES.values())
    root, unit = _head(
        "Quantize", "Quantize",
        "Real (float32) values as a fixed-point type: Q7, Q15 and Q31 (shifted: the stored value "
        "x * 2^(N - shift), truncated toward zero and saturated, as CMSIS-DSP's arm_float_to_q15) or "
        "D8, D16 and D32 (scaled: round-half-even(x / scale) + offset, saturated, as ONNX's "
        "QuantizeLinear; NaN gives the offset). The shape is kept.",
        "Before the fixed-point units of a graph that reads float32 data.")
    params, contracts = _sections(unit, "Real values (float32)", _is("input", "Float32"), "float32")
    _type_option(params, types, "The fixed-point type of the output")
    _output_attribute_options(params)
    _count(params)
    ET.SubElement(params, "OutputSocket", {
        "name": "output", "text": "Output", "type": "System.parseType(output_type)", "shape": "input.shape",
        "shift": "shift", "scale": "scale", "offset": "offset",
        "description": "The stored values of the chosen type, with the given shift (Q) or scale and offset (D)"})
    _output_attribute_asserts(contracts, types, "output_type")
    kernels = []
    for t in types:
        values, symbols = _attribute_values(t, "", "shift", "scale", "offset")
        kernels.append(_Kernel(f"opforge_quantize_{t.name}", (_is("input", "Float32"), _is("output", t)), "float32",
                               t.storage, _params(t), values, (_Step(F.from_real(t), symbols),)))
    _implementations(unit, "quantize", kernels)
    return _Unit("quantize", root, tuple(kernels))


def dequantize() -> _Unit:
    types = list(F.TYPES.values())
    root, unit = _head(
        "Dequantize", "Dequantize",
        "The real (float32) values of a fixed-point tensor, from its own attributes: a Q type's "
        "stored / 2^(N - shift) (exact, as CMSIS-DSP's arm_q15_to_float; Q31 rounded to float32), a "
        "D type's (stored - offset) * scale (ONNX's DequantizeLinear). The shape is kept.",
        "After the fixed-point units of a graph, to read, show or post-process their results.")
    params, contracts = _sections(unit, f"A fixed-point tensor: {_listed(types)}", _any_of("input", types),
                                  _listed(types))
    _count(params)
    _input_attributes(params)
    ET.SubElement(params, "OutputSocket", {"name": "output", "text": "Output", "type": "System.Float32",
                                           "shape": "input.shape", "description": "The real values"})
    kernels = []
    for t in types:
        values, symbols = _attribute_values(t, "", "input_shift", "input_scale", "input_offset")
        kernels.append(_Kernel(f"opforge_dequantize_{t.name}", (_is("input", t),), t.storage, "float32",
                               _params(t, "input_shift", "input_scale", "input_offset"), values,
                               (_Step(F.to_real(t), symbols),)))
    _implementations(unit, "dequantize", kernels)
    return _Unit("dequantize", root, tuple(kernels))


def _shift_value(rule: F.Conversion, fraction_bits: int, change: str) -> _Value:
    """``k`` of a shift rule: the change of the shift plus the fraction bits the type loses."""
    ct = C_TYPE[rule.domain]
    plus = f"{fraction_bits} + " if fraction_bits else ""
    return _Value("k", rule.domain, f"({ct})({plus}{change})", f"np.{rule.domain}({plus}{change})")


def q_shift() -> _Unit:
    root, unit = _head(
        "QShift", "Shift",
        "The shift of a Q7, Q15 or Q31 tensor raised by the option (lowered where it is negative), the "
        "type kept: the stored values shifted right arithmetically (toward minus infinity) or left with "
        "saturation, as CMSIS-DSP's arm_shift_q15 by minus the option. The real values are kept but for "
        "the bits a right shift drops and the values a left shift saturates.",
        "To give a fixed-point tensor the range (a higher shift) or the precision (a lower one) the next "
        "unit needs.")
    params, contracts = _sections(unit, f"A {_listed(Q_TYPES)} tensor", _any_of("input", Q_TYPES), _listed(Q_TYPES))
    _count(params)
    _option(params, "Int32Option", "shift", "Shift", "How much the output's shift exceeds the input's: "
            "positive shifts the stored values right (a larger range), negative left", "0")
    ET.SubElement(params, "Expression", {"name": "output_shift", "value": "input.shift + shift",
                                         "description": "The output's shift"})
    ET.SubElement(params, "OutputSocket", {"name": "output", "text": "Output", "type": "input.type",
                                           "shape": "input.shape", "shift": "output_shift",
                                           "description": "The same type, with the shift raised by the option"})
    kernels = []
    for t in Q_TYPES:
        low, high = t.shifts().start, t.shifts().stop - 1
        ET.SubElement(contracts, "Assert", {"test": f"input.type != System.{t.system} || (output_shift >= {low} && "
                                                    f"output_shift <= {high})",
                                            "error": f"A {t.system} shift must be in {low}..{high}"})
        rule = F.shifted(t)
        kernels.append(_Kernel(f"opforge_q_shift_{t.name}", (_is("input", t),), t.storage, t.storage,
                               (("int", "shift"),), (_shift_value(rule, 0, "shift"),),
                               (_Step(rule, ((F.SHIFT_BY, "k"),)),)))
    _implementations(unit, "q_shift", kernels)
    return _Unit("q_shift", root, tuple(kernels))


def requantize() -> _Unit:
    types = list(F.TYPES.values())
    root, unit = _head(
        "Requantize", "Requantize",
        "A fixed-point tensor in another fixed-point type or with other attributes. Between Q types "
        "exactly: the stored values shifted by the difference of the shifts and of the fraction bits, as "
        "QShift does (Q15 to Q7 at one shift: CMSIS-DSP's arm_q15_to_q7). Otherwise through the real "
        "value in float32: Dequantize, then Quantize.",
        "Between units that take different fixed-point types, or to give a tensor the range, or the "
        "scale and offset, the next unit needs.")
    params, contracts = _sections(unit, f"A fixed-point tensor: {_listed(types)}", _any_of("input", types),
                                  _listed(types))
    _type_option(params, types, "The fixed-point type of the output")
    _output_attribute_options(params)
    _count(params)
    _input_attributes(params)
    ET.SubElement(params, "OutputSocket", {
        "name": "output", "text": "Output", "type": "System.parseType(output_type)", "shape": "input.shape",
        "shift": "shift", "scale": "scale", "offset": "offset",
        "description": "The stored values of the chosen type, with the given shift (Q) or scale and offset (D)"})
    _output_attribute_asserts(contracts, types, "output_type")
    kernels = []
    for t in types:
        for to in types:
            name, conditions = f"opforge_requantize_{t.name}_to_{to.name}", (_is("input", t), _is("output", to))
            input_params = _params(t, "input_shift", "input_scale", "input_offset")
            if t.family == to.family == "Q":
                rule = F.shifted(t, to)
                k = _shift_value(rule, t.fraction_bits - to.fraction_bits, "shift - input_shift")
                kernels.append(_Kernel(name, conditions, t.storage, to.storage, (*input_params, *_params(to)), (k,),
                                       (_Step(rule, ((F.SHIFT_BY, "k"),)),)))
                continue
            given, given_symbols = _attribute_values(t, "input_", "input_shift", "input_scale", "input_offset")
            made, made_symbols = _attribute_values(to, "output_", "shift", "scale", "offset")
            kernels.append(_Kernel(name, conditions, t.storage, to.storage, (*input_params, *_params(to)),
                                   (*given, *made), (_Step(F.to_real(t), given_symbols),
                                                     _Step(F.from_real(to), made_symbols))))
    _implementations(unit, "requantize", kernels)
    return _Unit("requantize", root, tuple(kernels))


def bit_utilization() -> _Unit:
    root, unit = _head(
        "BitUtilization", "Bit Utilization",
        "The bits each stored value of a Q7, Q15 or Q31 tensor uses, its sign bit included, as int8: 1 "
        "for 0 and -1, 16 for Q15's 32767 (32 - __builtin_clrsb(x)). The type's bits less the largest "
        "of them is the headroom left. The shape is kept.",
        "To see how much of a fixed-point type's range the data uses, and so choose its shift.")
    params, contracts = _sections(unit, f"A {_listed(Q_TYPES)} tensor", _any_of("input", Q_TYPES), _listed(Q_TYPES))
    _count(params)
    ET.SubElement(params, "OutputSocket", {"name": "output", "text": "Output", "type": "System.Int8",
                                           "shape": "input.shape", "description": "The bits each value uses"})
    kernels = []
    for t in Q_TYPES:
        rule = F.bit_utilization(t)
        kernels.append(_Kernel(f"opforge_bit_utilization_{t.name}", (_is("input", t),), t.storage, "int8", (), (),
                               (_Step(rule, ()),)))
    _implementations(unit, "bit_utilization", kernels)
    return _Unit("bit_utilization", root, tuple(kernels))


UNITS = (quantize, dequantize, q_shift, requantize, bit_utilization)

#: Each unit's comparison test (ADR 0035's, as every opforge unit has): its input, the input's
#: values, and the options; the expected output is the rule's, evaluated now.
_REALS = np.array([0.0, 0.3, -0.3, 1.7, -2.5, 100.0, -100.0, 0.000123], np.float32)
_Q15 = np.array([0, 1, -1, 12345, -12345, 32767, -32768, 300], np.int16)
TEST_CASES: dict[str, tuple[str, np.ndarray, dict[str, object]]] = {  # (the input as unit-check takes it)
    "quantize": ("input=Float32[8]", _REALS, {"output_type": "q15", "shift": 2}),
    "dequantize": ("input=D8[8] scale=0.05 offset=-3", np.array([0, 1, -1, 127, -128, -3, 40, -90], np.int8), {}),
    "q_shift": ("input=Q15[8] shift=1", _Q15, {"shift": -3}),
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


def _tests(unit: _Unit, header: str) -> tuple[str, str, str, str]:
    """(the C test file, the Python one, the fragment they test, the test's name)."""
    spec, x, options = TEST_CASES[unit.name]
    _, tensor = checker.parse_input(spec)
    picked = checker.chosen_calls(unit.root.find("Unit"), {"input": tensor}, options)  # type: ignore[arg-type]
    (c_impl, c_args), (py_impl, py_args) = picked["C"], picked["Python"]
    kernel = next(k for k in unit.kernels if c_impl.get("fragment", "").endswith(f":{k.name}"))
    given = {name: value for name, value in c_args if name not in ("input", "output", "count")}
    want = _expected(kernel, given, x)

    def values(args: tuple) -> list[comparison.CallValue]:
        return [comparison.CallValue("input", name, x) if name == "input" else
                comparison.CallValue("output", name, want) if name == "output" else
                comparison.CallValue("value", name, value=value) for name, value in args]

    subject, name = f"fixed_point.{unit.name}", f"opforge_{unit.name}_test"
    chosen = ", ".join(f"{k}={v}" for k, v in options.items())
    what = (f"{spec.removeprefix('input=')}{' with ' + chosen if chosen else ''}, through the unit's call: the "
            "rule's result")
    return (comparison.c_test_file(header, subject, name, what, c_impl, values(c_args), True),
            comparison.py_test_file(header, subject, name, what, py_impl, values(py_args)),
            kernel.name, name)


def files(shared_path: str, runtime: str) -> tuple[dict[str, str], dict[str, tuple[str, str]], list[GeneratedFile]]:
    """The units' C files (to be formatted with the others), the C fragment each unit's C test
    is associated with (once formatted: ``file -> (fragment, test)``), and their documents and
    Python files; each C fragment depends on the shared runtime (``shared_path:runtime``)."""
    header = f"{GENERATED_MARK}: generated by opforge (imunit) from {SOURCE}"
    c_files: dict[str, str] = {}
    tests: dict[str, tuple[str, str]] = {}
    generated: list[GeneratedFile] = []
    for make in UNITS:
        unit = make()
        folder = f"{FOLDER}/{unit.name}/{unit.name}"
        c_parts = [f"/* {header} */", "#pragma IMAGINET_INCLUDES_BEGIN", "#include <math.h>", "#include <stdint.h>",
                   "#pragma IMAGINET_INCLUDES_END"]
        for kernel in unit.kernels:
            c_parts += ["", f'#pragma IMAGINET_FRAGMENT_BEGIN "{kernel.name}"',
                        f'#pragma IMAGINET_FRAGMENT_DEPENDENCY "{shared_path}:{runtime}"', kernel.c_function(),
                        "#pragma IMAGINET_FRAGMENT_END"]
        c_test, py_test, tested, test = _tests(unit, header)
        c_files[f"{folder}.h"] = "\n".join(c_parts) + "\n"
        c_files[f"{folder}_tests.c"] = c_test
        tests[f"{folder}.h"] = (tested, f"{unit.name}_tests.c:{test}")
        fragments = [dependency(f'#pragma IMAGINET_FRAGMENT_BEGIN "{k.name}"\n{k.python_function()}'
                                "#pragma IMAGINET_FRAGMENT_END\n", "opforge_kernels") for k in unit.kernels]
        python = comparison.associate(python_file(header, f"{unit.name} unit", [], fragments), tested,
                                      f"{unit.name}_tests.py:{test}")
        generated.append(GeneratedFile(f"{folder}.py", python))
        generated.append(GeneratedFile(f"{folder}_tests.py", black_format(py_test)))
        generated.append(GeneratedFile(f"{folder}.imunit", serialize(unit.root, header)))
    return c_files, tests, generated
