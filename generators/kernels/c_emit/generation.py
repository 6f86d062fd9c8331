"""Generated tensors: fill, range, linspace, eye, one_hot, sequence_mask, cast."""

from __future__ import annotations

from dsl import compute as C
from dsl import dtypes as D
from generators import abi
from generators.formatting import c_string
from generators.kernels.c_emit.base import Emitter, OpCode, PlainKernel, fragment
from generators.kernels.scalar_c import C_TYPE, SUFFIX, converted


class GenerationEmitter(Emitter):
    """Tensors from args: one runtime function per kind, storing through the output's dtype."""

    def emit(self) -> OpCode:
        c: C.Generation = self.op.compute  # type: ignore[assignment]
        out = self.op.outputs[0]
        outn = abi.c_name(out.name)

        def arg(role: str) -> str:
            return abi.c_name(c.arg(role))

        # The runtime writes the output, whose shape the form's checks (above) have found right;
        # it returns a status where it checks values, and nothing where there are none to check.
        call = {
            "fill": lambda: f"return opf_generate_fill({arg('value')}, {outn}, detail);",
            "range": lambda: f"return opf_generate_range({arg('start')}, {arg('delta')}, {outn}, detail);",
            "linspace": lambda: f"return opf_generate_linspace({arg('start')}, {arg('stop')}, {outn}, detail);",
            "eye": lambda: f"opf_generate_diagonals(0, 0, {outn});",
            "tri": lambda: f"opf_generate_diagonals(INT64_MIN, {arg('diag')}, {outn});",
            "one_hot": lambda: (f"return opf_generate_one_hot({arg('indices')}, {arg('depth')}, {arg('axis')}, "
                                f"{arg('on')}, {arg('off')}, {outn}, detail);"),
            "sequence_mask": lambda: f"opf_generate_sequence_mask({arg('lengths')}, {arg('maxlen')}, {outn});",
            "cast": lambda: "",
        }[c.generator]
        lines = [f"if ({outn}->dtype != {abi.c_name('dtype')}) {{",
                 f"return opf_fail(detail, OPFORGE_ERR_DTYPE, {c_string(out.name + ': dtype must equal the dtype arg')});",
                 "}"]
        if c.generator == "cast":
            return self.cast(c, lines)
        lines.append(call())
        if not lines[-1].startswith("return "):
            lines.append("return OPFORGE_OK;")
        plain = tuple(self.plain_filled(c, v) for v in self.variants) if c.generator == "fill" else ()
        return OpCode((), (), self.api_returning(lines), plain)

    def sources(self, c: C.Generation) -> list[str]:
        """The dtypes a cast converts from: those its input takes."""
        x = next(i for i in self.op.inputs if i.name == c.arg("input"))
        return [d for d in abi.DTYPES if d in D.CONCRETE[x.type]]

    def cast(self, c: C.Generation, lines: list[str]) -> OpCode:
        """A loop per pair of dtypes, each element converted by cast's rule
        (``scalar_c.converted``): the API function picks the pair, a unit calls its kernel."""
        x, outn = abi.c_name(c.arg("input")), abi.c_name(self.op.outputs[0].name)
        kernels, plain = [], []
        for v in self.variants:
            for src in self.sources(c):
                kernels.append(self.converter(c, src, v, "int64_t"))
                plain.append(self.converter(c, src, v, "int"))

        def per_variant(v: D.Variant) -> list[str]:
            body = [f"switch ({x}->dtype) {{"]
            for src in self.sources(c):
                body += [f"case {abi.DTYPE_ENUM[src]}:",
                         f"{self.converter_name(src, v)}((const {C_TYPE[src]}*){x}->data, "
                         f"({C_TYPE[v.dtype]}*){outn}->data, opf_numel({x}));", "return OPFORGE_OK;"]
            return body + ["default:", "break;", "}"]

        body = lines + self.dispatch(per_variant) + [
            f"return opf_fail(detail, OPFORGE_ERR_DTYPE, {c_string('unsupported dtype')});"]
        return OpCode(tuple(k.fragment for k in kernels), (), self.api_returning(body), tuple(plain))

    def converter_name(self, src: str, v: D.Variant) -> str:
        return f"{self.kernel_name(v)}_from_{SUFFIX[src]}"

    def converter(self, c: C.Generation, src: str, v: D.Variant, count: str) -> PlainKernel:
        """x of dtype ``src`` converted into the variant's dtype, ``n`` elements counted in
        ``count`` (the C API's int64_t; a unit's int, under its own name)."""
        name = self.converter_name(src, v) + ("_n" if count == "int" else "")
        out = self.op.outputs[0].name
        params = ((f"const {C_TYPE[src]}* restrict x", c.arg("input")), (f"{C_TYPE[v.dtype]}* restrict output", out),
                  (f"{count} n", "n"))
        variant = D.Variant(v.dtype, ((c.arg("input"), src), (out, v.dtype)))
        return PlainKernel(fragment(name, f"""
static inline void {name}({', '.join(d for d, _ in params)})
{{
    for ({count} i = 0; i < n; i++) {{
        const {C_TYPE[src]} v = x[i];
        output[i] = {converted("v", src, v.dtype)};
    }}
}}"""), variant, params, "flat", case=f"_from_{SUFFIX[src]}_to")

    def plain_filled(self, c: C.Generation, v: D.Variant) -> PlainKernel:
        """A fill as a plain kernel (units): ``n`` elements, each the value, which the caller
        has converted to the dtype (a unit's Assert has found it exact, as the C API checks)."""
        out = self.op.outputs[0].name
        ct, name = C_TYPE[v.of(out)], f"{self.kernel_name(v)}_filled"
        params = ((f"{ct}* restrict output", out), ("int n", "n"), (f"{ct} value", c.arg("value")))
        return PlainKernel(fragment(name, f"""
static inline void {name}({', '.join(d for d, _ in params)})
{{
    for (int i = 0; i < n; i++) {{
        output[i] = value;
    }}
}}"""), v, params, "filled")
