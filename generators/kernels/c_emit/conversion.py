"""Fixed-point conversions (ADR 0042, 0068): the API function of quantize, dequantize,
requantize, q_shift and bit_utilization, a case per (x's dtype, output's dtype) pair of the form,
each applying the form's steps (``dsl.fixed_point``'s rules) to every element.

The output's type and attributes a conversion chooses are the output descriptor's (the caller
sets its dtype, shift, scale and offset, as for every fixed-point output of the C API); a Q
shift's output shift is the form's, written into the output descriptor after the checks.
"""

from __future__ import annotations

from dsl import compute as C
from dsl import fixed_point as F
from generators import abi
from generators.formatting import c_string
from generators.kernels import scalar_c
from generators.kernels.c_emit.base import Emitter, OpCode, mask
from generators.kernels.fixed_point import c_statement
from generators.kernels.scalar_c import C_TYPE

#: x and output are of two dtypes: an overlap would alias two types (undefined in C).
_OVERLAP = "output must not overlap x (they hold two dtypes)"


def _attributes(t: F.FixedPointType, tensor: str, prefix: str) -> tuple[list[str], dict[str, scalar_c.Value]]:
    """Locals holding a tensor's attributes as the rules read them (float32), and their env: a D
    tensor's scale is ``<prefix>scale``, which the loop declares per run of its scales."""
    if t.family == "Q":
        return ([f"const float {prefix}factor = opf_q_factor({t.fraction_bits}, {tensor}->shift);"],
                {F.FACTOR: (f"{prefix}factor", "float32")})
    return ([f"opf_scales {prefix}scales = opf_scales_of({tensor});",
             f"const float {prefix}offset = (float){tensor}->offset;"],
            {F.SCALE: (f"{prefix}scale", "float32"), F.OFFSET: (f"{prefix}offset", "float32")})


def _loop(body: str, scaled: list[str]) -> list[str]:
    """The pass over the elements; with D tensors (their ``<prefix>`` in ``scaled``), in runs
    of elements that share their scales (all n of them but for per-axis scales)."""
    if not scaled:
        return ["for (int64_t i = 0; i < n; i++) {", body, "}"]
    runs = ", ".join([f"&{p}scales" for p in scaled] + ["NULL"] * (2 - len(scaled)))
    return [f"const int64_t run = opf_scale_run({runs}, n);",
            "for (int64_t start = 0; start < n; start += run) {",
            *(f"const float {p}scale = opf_scale_now(&{p}scales);" for p in scaled),
            "for (int64_t i = start; i < start + run; i++) {", body, "}",
            *(f"opf_scales_next(&{p}scales, run);" for p in scaled), "}"]


class ConversionEmitter(Emitter):
    """The checks (both descriptors, attributes read where the caller gives them; one shape; no
    overlap), then a case per pair."""

    def emit(self) -> OpCode:
        form: C.FixedPointConversion = self.op.compute  # type: ignore[assignment]
        x, y = abi.c_name(form.input), abi.c_name(self.op.outputs[0].name)
        pairs = form.pairs()
        lines = ["if (detail != NULL) {", "*detail = NULL;", "}"]
        sets_shift = form.rule == "shift"  # (the form's shift: written below, not read)
        for name, types, read in ((x, [s for s, _ in pairs], True), (y, [t for _, t in pairs], not sets_shift)):
            allowed = sorted(set(types), key=abi.ALL_DTYPES.index)
            listed = f"not one of {', '.join(allowed)}" if len(allowed) > 1 else f"not {allowed[0]}"
            attributes = ", fixed-point attributes out of range" if read and set(allowed) & set(F.TYPES) else ""
            checker = "opf_check_tensor_per_axis" if F.reads_per_axis_scales(self.op) else "opf_check_tensor"
            check = (f"{checker}({name}, {mask(set(allowed))})" if read else
                     f"opf_check_tensor_reading({name}, {mask(set(allowed))}, 0u)")
            message = c_string(f"{name}: NULL, dtype {listed}, rank above 8{attributes}, or a bad size")
            lines += ["{", f"const opforge_status st = {check};",
                      f"if (st != OPFORGE_OK) {{ return opf_fail(detail, st, {message}); }}", "}"]
        lines += [f"if (!opf_same_shape({x}, {y})) {{",
                  f"return opf_fail(detail, OPFORGE_ERR_SHAPE, {c_string(f'{y}: must have the shape of {x}')});",
                  "}", f"if (!opf_disjoint({x}, {y})) {{",
                  f"return opf_fail(detail, OPFORGE_ERR_OVERLAP, {c_string(_OVERLAP)});", "}",
                  f"const int64_t n = opf_numel({x});"]
        for source, target in pairs:
            condition = f"{x}->dtype == {abi.DTYPE_ENUM[source]} && {y}->dtype == {abi.DTYPE_ENUM[target]}"
            lines += [f"if ({condition}) {{", *self._case(form, source, target, x, y), "}"]
        unsupported = c_string(f"{y}: no conversion of x's dtype into this dtype")
        lines.append(f"return opf_fail(detail, OPFORGE_ERR_DTYPE, {unsupported});")
        return OpCode((), (), self.linkage + abi.prototype(self.op) + "\n{\n" + "\n".join(lines) + "\n}\n")

    def _case(self, form: C.FixedPointConversion, source: str, target: str, x: str, y: str) -> list[str]:
        """One pair: the per-call values its steps read, then a pass over the elements."""
        given, made = F.TYPES.get(source), F.TYPES.get(target)
        steps = form.steps(source, target)
        k = form.shift_by(source, target)
        lines: list[str] = []
        env: dict[str, scalar_c.Value] = {}
        if k is not None:
            domain = steps[0].domain
            shift_env = {F.shift_of(form.input): (f"{x}->shift", "int32"), "shift": (abi.c_name("shift"), "int32")}
            if form.rule == "requantize":
                shift_env["shift"] = (f"{y}->shift", "int32")
            code, _ = scalar_c.render(k, domain, shift_env)
            lines.append(f"const {C_TYPE[domain]} k = ({C_TYPE[domain]})({code});")
            env[F.SHIFT_BY] = ("k", domain)
        if form.rule == "shift":  # (the output's shift is the form's: in range, or refused)
            assert given is not None
            low, high = given.shifts().start, given.shifts().stop - 1
            shift, = form.output_attributes(target).values()
            code, _ = scalar_c.render(shift, "int64", {F.shift_of(form.input): (f"{x}->shift", "int64"),
                                                       "shift": (abi.c_name("shift"), "int64")})
            message = c_string(f"{y}: its shift, x's plus shift, must be in {given.name}'s {low}..{high}")
            lines += [f"const int64_t output_shift = {code};",
                      f"if (output_shift < {low} || output_shift > {high}) {{",
                      f"return opf_fail(detail, OPFORGE_ERR_ATTRIBUTE, {message});", "}",
                      f"{y}->shift = (int32_t)output_shift;"]
        scaled = [p for t, p in ((given, "x_"), (made, "output_")) if t is not None and t.family == "D"]
        if len(steps) == 2:  # (through the real value)
            assert given is not None and made is not None
            before, before_env = _attributes(given, x, "x_")
            after, after_env = _attributes(made, y, "output_")
            body = "\n".join(["float real;",
                              c_statement(steps[0], "real", before_env | {"x": ("(float)in[i]", "float32")}),
                              c_statement(steps[1], "out[i]", after_env | {"x": ("real", "float32")})])
            lines += [*before, *after]
        else:
            step = steps[0]
            attributes: list[str] = []
            if form.rule == "quantize":
                attributes, env = _attributes(made, y, "output_")  # type: ignore[arg-type]
            elif form.rule == "dequantize":
                attributes, env = _attributes(given, x, "x_")  # type: ignore[arg-type]
            read = f"(({C_TYPE[step.domain]})in[i])" if step.domain != "float32" else "(float)in[i]"
            body = c_statement(step, "out[i]", env | {"x": (read, step.domain)})
            lines += attributes
        return [*lines, f"const {C_TYPE[F.storage_of(source)]}* in = (const {C_TYPE[F.storage_of(source)]}*){x}->data;",
                f"{C_TYPE[F.storage_of(target)]}* out = ({C_TYPE[F.storage_of(target)]}*){y}->data;",
                *_loop(body, scaled), "return OPFORGE_OK;"]
