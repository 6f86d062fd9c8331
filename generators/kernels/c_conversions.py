"""The C API's conversions between real and fixed-point tensors (issue 20, ADR 0042):
``opforge_quantize``, ``opforge_dequantize``, ``opforge_requantize`` and
``opforge_bit_utilization``, each type's loop rendered from the rules of
:mod:`dsl.fixed_point` (``from_real``, ``to_real``, ``shifted``, ``bit_utilization``) as the
package's ``fixed_point.quantize``, ``dequantize``, ``requantize`` and ``bit_utilization``
render them for NumPy: the two agree bit for bit.
"""

from __future__ import annotations

from dsl import fixed_point as F
from generators import abi
from generators.formatting import c_string
from generators.kernels import scalar_c
from generators.kernels.fixed_point import c_statement
from generators.kernels.scalar_c import C_TYPE

#: The library source that holds them (beside opforge_core.c).
SOURCE = "opforge_fixed_point.c"

#: x and output are of two dtypes: an overlap would alias two types (undefined in C).
_OVERLAP = "output must not overlap x (they hold two dtypes)"


def _bits(types: list[str]) -> str:
    return " | ".join(f"OPF_DTYPE_BIT({abi.DTYPE_ENUM[t]})" for t in types)


def _checks(inputs: list[str], outputs: list[str]) -> list[str]:
    """Both descriptors checked (attributes read: a converted output's are the caller's), one
    shape, and no overlap."""
    lines = ["if (detail != NULL) {", "*detail = NULL;", "}"]
    for name, types in (("x", inputs), ("output", outputs)):
        listed = f"not one of {', '.join(types)}" if len(types) > 1 else f"not {types[0]}"
        attributes = ", fixed-point attributes out of range" if set(types) & set(F.TYPES) else ""
        message = c_string(f"{name}: NULL, dtype {listed}, rank above 8{attributes}, or a bad size")
        lines += ["{", f"const opforge_status st = opf_check_tensor({name}, {_bits(types)});",
                  f"if (st != OPFORGE_OK) {{ return opf_fail(detail, st, {message}); }}", "}"]
    lines += ["if (!opf_same_shape(x, output)) {",
              f"return opf_fail(detail, OPFORGE_ERR_SHAPE, {c_string('output: must have the shape of x')});", "}",
              "if (!opf_disjoint(x, output)) {",
              f"return opf_fail(detail, OPFORGE_ERR_OVERLAP, {c_string(_OVERLAP)});", "}",
              "const int64_t n = opf_numel(x);"]
    return lines


def _attributes(t: F.FixedPointType, tensor: str, prefix: str) -> tuple[list[str], dict[str, scalar_c.Value]]:
    """Locals holding a tensor's attributes as the rules read them (float32, as the package's
    rules take them), and the env that names them."""
    if t.family == "Q":
        return ([f"const float {prefix}factor = opf_q_factor({t.fraction_bits}, {tensor}->shift);"],
                {F.FACTOR: (f"{prefix}factor", "float32")})
    return ([f"const float {prefix}scale = (float){tensor}->scale;",
             f"const float {prefix}offset = (float){tensor}->offset;"],
            {F.SCALE: (f"{prefix}scale", "float32"), F.OFFSET: (f"{prefix}offset", "float32")})


def _loop(source: str, target: str, body: str) -> list[str]:
    """A pass over the elements: ``in`` and ``out`` pointers of the two dtypes."""
    return [f"const {C_TYPE[source]}* in = (const {C_TYPE[source]}*)x->data;",
            f"{C_TYPE[target]}* out = ({C_TYPE[target]}*)output->data;",
            "for (int64_t i = 0; i < n; i++) {", body, "}", "return OPFORGE_OK;"]


def _function(name: str, inputs: list[str], outputs: list[str], cases: list[tuple[str, list[str]]]) -> str:
    """An API function: the checks, then a case per (x's dtype, output's dtype) pair."""
    lines = [f"opforge_status {name}(const opforge_tensor* x, opforge_tensor* output, const char** detail)", "{",
             *_checks(inputs, outputs)]
    for condition, body in cases:
        lines += [f"if ({condition}) {{", *body, "}"]
    unsupported = c_string("output: no conversion between these dtypes")
    lines += [f"return opf_fail(detail, OPFORGE_ERR_DTYPE, {unsupported});", "}"]
    return "\n".join(lines)


def _is(tensor: str, dtype: str) -> str:
    return f"{tensor}->dtype == {abi.DTYPE_ENUM[dtype]}"


def _quantize() -> str:
    cases = []
    for t in F.TYPES.values():
        locals_, env = _attributes(t, "output", "")
        body = c_statement(F.from_real(t), "out[i]", env | {"x": ("in[i]", "float32")})
        cases.append((_is("output", t.name), [*locals_, *_loop("float32", t.storage, body)]))
    return _function("opforge_quantize", ["float32"], list(F.TYPES), cases)


def _dequantize() -> str:
    cases = []
    for t in F.TYPES.values():
        locals_, env = _attributes(t, "x", "")
        body = c_statement(F.to_real(t), "out[i]", env | {"x": ("(float)in[i]", "float32")})
        cases.append((_is("x", t.name), [*locals_, *_loop(t.storage, "float32", body)]))
    return _function("opforge_dequantize", list(F.TYPES), ["float32"], cases)


def _requantize() -> str:
    """Between Q types exactly (``shifted``: by the difference of fraction bits and shifts);
    otherwise through the real value in float32, as dequantize then quantize."""
    cases = []
    for t in F.TYPES.values():
        for to in F.TYPES.values():
            condition = f"{_is('x', t.name)} && {_is('output', to.name)}"
            if t.family == to.family == "Q":
                rule = F.shifted(t, to)
                k = (f"const {C_TYPE[rule.domain]} k = ({C_TYPE[rule.domain]})({t.fraction_bits - to.fraction_bits}"
                     " + output->shift - x->shift);")
                body = c_statement(rule, "out[i]", {"x": (f"(({C_TYPE[rule.domain]})in[i])", rule.domain),
                                                    F.SHIFT_BY: ("k", rule.domain)})
                cases.append((condition, [k, *_loop(t.storage, to.storage, body)]))
                continue
            given, given_env = _attributes(t, "x", "x_")
            made, made_env = _attributes(to, "output", "output_")
            real = c_statement(F.to_real(t), "real", given_env | {"x": ("(float)in[i]", "float32")})
            stored = c_statement(F.from_real(to), "out[i]", made_env | {"x": ("real", "float32")})
            cases.append((condition, [*given, *made, *_loop(t.storage, to.storage, f"float real;\n{real}\n{stored}")]))
    return _function("opforge_requantize", list(F.TYPES), list(F.TYPES), cases)


def _bit_utilization() -> str:
    cases = []
    for t in (u for u in F.TYPES.values() if u.family == "Q"):
        rule = F.bit_utilization(t)
        body = c_statement(rule, "out[i]", {"x": (f"(({C_TYPE[rule.domain]})in[i])", rule.domain)})
        cases.append((_is("x", t.name), _loop(t.storage, rule.storage or rule.domain, body)))
    q_types = [t.name for t in F.TYPES.values() if t.family == "Q"]
    return _function("opforge_bit_utilization", q_types, ["int8"], cases)


def source(header: str) -> str:
    """The library file: the four API functions over the runtime's helpers."""
    return "\n\n".join([f"/* {header} */\n#include \"opforge/opforge.h\"\n#include \"opforge_internal.h\"\n\n"
                        "#include <math.h>\n#include <stdint.h>",
                        _quantize(), _dequantize(), _requantize(), _bit_utilization()]) + "\n"
