"""Generated tensors: fill, range, linspace, eye, one_hot, sequence_mask, cast."""

from __future__ import annotations

from dsl import compute as C
from dsl import dtypes as D
from generators import abi
from generators.formatting import c_string
from generators.kernels.c_emit.base import Emitter, OpCode, PlainKernel, fragment
from generators.kernels.c_shapes import CShapeRenderer
from generators.kernels.scalar_c import C_TYPE, SUFFIX, converted, narrowed


class GenerationEmitter(Emitter):
    """Tensors from args. cast, eye, tri, sequence_mask, one_hot, range and linspace: a kernel per
    dtype (cast: per pair of dtypes), rendered once for the C API (int64_t counts) and for
    units (int); fill: a runtime function storing through the output's dtype (and a plain
    kernel for units)."""

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
        }.get(c.generator)
        lines = [f"if ({outn}->dtype != {abi.c_name('dtype')}) {{",
                 f"return opf_fail(detail, OPFORGE_ERR_DTYPE, {c_string(out.name + ': dtype must equal the dtype arg')});",
                 "}"]
        if c.generator == "cast":
            return self.cast(c, lines)
        if c.generator in _MARKS:
            return self.marks(c, lines)
        if c.generator == "one_hot":
            return self.one_hot(c, lines)
        if c.ends() is not None:
            return self.ramps(c, lines)
        assert call is not None, c.generator
        lines.append(call())
        if not lines[-1].startswith("return "):
            lines.append("return OPFORGE_OK;")
        plain = tuple(self.plain_filled(c, v) for v in self.variants) if c.generator == "fill" else ()
        return OpCode((), (), self.api_returning(lines), plain)

    def marks(self, c: C.Generation, lines: list[str]) -> OpCode:
        """A generated matrix of ones where its rule holds, zeros elsewhere (``_MARKS``): the C
        API calls its int64_t kernel, a unit its int one."""
        kernels = {v.dtype: self.marked(c, v, api=True) for v in self.variants}

        def per_variant(v: D.Variant) -> list[str]:
            k = kernels[v.dtype]
            values = {t.name: f"({'const ' if t.kind == 'input' else ''}{C_TYPE[v.of(t.name)]}*){abi.c_name(t.name)}->data"
                      for t in (*self.op.inputs, *self.op.outputs)}
            if c.generator == "sequence_mask":  # (a row per length)
                values[f"count:{c.arg('lengths')}"] = f"opf_numel({abi.c_name(c.arg('lengths'))})"
            return [f"{k.name}({', '.join(values.get(source, abi.c_name(source)) for _, source in k.parameters)});"]

        body = lines + self.dispatch(per_variant) + ["return OPFORGE_OK;"]
        plain = tuple(self.marked(c, v, api=False) for v in self.variants)
        return OpCode(tuple(k.fragment for k in kernels.values()), (), self.api_returning(body), plain)

    def marked(self, c: C.Generation, v: D.Variant, api: bool) -> PlainKernel:
        """``rows`` x ``cols`` values, 1 where the generator's rule holds of row i and column j
        (eye: j == i; tri: j - i <= diag; sequence_mask: j < lengths[i], rows the lengths' count),
        0 elsewhere. The API's version counts in int64_t, a unit's in int."""
        size, out = "int64_t" if api else "int", self.op.outputs[0].name
        ot = C_TYPE[v.of(out)]
        name = f"{self.kernel_name(v)}_marks" + ("" if api else "_n")
        if c.generator == "sequence_mask":
            lengths = c.arg("lengths")
            params = (("const int64_t* restrict lengths", lengths), (f"{ot}* restrict output", out),
                      (f"{size} rows", f"count:{lengths}"), (f"{size} cols", c.arg("maxlen")))
        else:
            params = ((f"{ot}* restrict output", out), (f"{size} rows", c.arg("rows")), (f"{size} cols", c.arg("cols")),
                      *(((f"{size} diag", c.arg("diag")),) if c.generator == "tri" else ()))
        return PlainKernel(fragment(name, f"""
static inline void {name}({', '.join(d for d, _ in params)})
{{
    for ({size} i = 0; i < rows; i++) {{
        for ({size} j = 0; j < cols; j++) {{
            output[i * cols + j] = {converted(f"({_MARKS[c.generator]})", "bool", v.of(out))};
        }}
    }}
}}"""), v, params, "marked")

    def ramps(self, c: C.Generation, lines: list[str]) -> OpCode:
        """range and linspace: the form's ends checked (``Generation.ends``), then the kernel of
        the dtype: the C API calls its int64_t one, a unit its int one (its Asserts check the ends)."""
        outn = abi.c_name(self.op.outputs[0].name)
        render = CShapeRenderer(self.op, prefix="ends_")
        _, first, last = (render.render(node) for node in c.ends())
        lines = [*lines, f"const int64_t n = {outn}->shape[0];", *render.take(),
                 f"if (n > 0 && (!opf_double_fits({outn}->dtype, {first}) || !opf_double_fits({outn}->dtype, {last}))) {{",
                 f"return opf_fail(detail, OPFORGE_ERR_ARG, {c_string(c.value_refusals(self.op)[0])});", "}"]
        kernels = {v.dtype: self.ramp(c, v, api=True) for v in self.variants}

        def per_variant(v: D.Variant) -> list[str]:
            k = kernels[v.dtype]
            values = {self.op.outputs[0].name: f"({C_TYPE[v.of(self.op.outputs[0].name)]}*){outn}->data", "n": "n"}
            return [f"{k.name}({', '.join(values.get(source, abi.c_name(source)) for _, source in k.parameters)});"]

        body = lines + self.dispatch(per_variant) + ["return OPFORGE_OK;"]
        plain = tuple(self.ramp(c, v, api=False) for v in self.variants)
        return OpCode(tuple(k.fragment for k in kernels.values()), (), self.api_returning(body), plain)

    def ramp(self, c: C.Generation, v: D.Variant, api: bool) -> PlainKernel:
        """``n`` evenly spaced values, each computed in double and converted to the dtype
        (integers truncate toward zero): range's start + i * delta; linspace's from start to
        stop, both included (stop itself last). The API's version counts in int64_t, a unit's in int."""
        size, out = "int64_t" if api else "int", self.op.outputs[0].name
        ot = C_TYPE[v.of(out)]
        name = f"{self.kernel_name(v)}_ramp" + ("" if api else "_n")
        if c.generator == "range":
            params = ((f"{ot}* restrict output", out), (f"{size} n", "n"), ("double start", c.arg("start")),
                      ("double delta", c.arg("delta")))
            body = f"""for ({size} i = 0; i < n; i++) {{
        output[i] = {_from_double("start + (double)i * delta", v.of(out))};
    }}"""
        else:
            params = ((f"{ot}* restrict output", out), (f"{size} n", "n"), ("double start", c.arg("start")),
                      ("double stop", c.arg("stop")))
            body = f"""const double step = n > 1 ? (stop - start) / (double)(n - 1) : 0;
    for ({size} i = 0; i < n; i++) {{
        output[i] = {_from_double("i == n - 1 && n > 1 ? stop : start + (double)i * step", v.of(out))};
    }}"""
        return PlainKernel(fragment(name, f"""
static inline void {name}({', '.join(d for d, _ in params)})
{{
    {body}
}}"""), v, params, "ramp")

    def one_hot(self, c: C.Generation, lines: list[str]) -> OpCode:
        """on and off converted exactly to the dtype (checked), then the kernel around the
        inserted axis; a unit's Asserts check what the checks here do."""
        indices, outn = abi.c_name(c.arg("indices")), abi.c_name(self.op.outputs[0].name)
        lines = [*lines, "unsigned char exact[8];"]
        for role in ("on", "off"):
            lines += [f"if (!opf_fill_value({outn}->dtype, {abi.c_name(c.arg(role))}, exact)) {{",
                      f"return opf_fail(detail, OPFORGE_ERR_ARG, {c_string(c.arg(role) + ': does not convert exactly to the dtype')});",
                      "}"]
        lines += [f"const int64_t a = {abi.c_name(c.arg('axis'))} < 0 ? {abi.c_name(c.arg('axis'))} + {indices}->rank + 1 "
                  f": {abi.c_name(c.arg('axis'))};",
                  f"const int64_t outer = opf_shape_numel((int32_t)a, {indices}->shape);",
                  f"const int64_t inner = opf_shape_numel({indices}->rank - (int32_t)a, {indices}->shape + a);"]
        kernels = {v.dtype: self.hot(c, v, api=True) for v in self.variants}

        def per_variant(v: D.Variant) -> list[str]:
            dtype = v.of(self.op.outputs[0].name)
            on, off = (_from_double(abi.c_name(c.arg(role)), dtype) for role in ("on", "off"))
            return [f"{kernels[v.dtype].name}((const int64_t*){indices}->data, ({C_TYPE[dtype]}*){outn}->data, outer, "
                    f"{abi.c_name(c.arg('depth'))}, inner, {on}, {off});"]

        body = lines + self.dispatch(per_variant) + ["return OPFORGE_OK;"]
        plain = tuple(self.hot(c, v, api=False) for v in self.variants)
        return OpCode(tuple(k.fragment for k in kernels.values()), (), self.api_returning(body), plain)

    def hot(self, c: C.Generation, v: D.Variant, api: bool) -> PlainKernel:
        """one_hot: along the inserted axis of ``depth``, ``on`` where the index is its
        position, ``off`` elsewhere (an index outside 0..depth-1 gives a row of ``off``), in
        ``outer`` blocks of ``inner`` indices; on and off converted by the caller."""
        size, out = "int64_t" if api else "int", self.op.outputs[0].name
        ot = C_TYPE[v.of(out)]
        name = f"{self.kernel_name(v)}_hot" + ("" if api else "_n")
        params = (("const int64_t* restrict at", c.arg("indices")), (f"{ot}* restrict output", out),
                  (f"{size} outer", "outer"), (f"{size} depth", c.arg("depth")), (f"{size} inner", "inner"),
                  (f"{ot} on", c.arg("on")), (f"{ot} off", c.arg("off")))
        return PlainKernel(fragment(name, f"""
static inline void {name}({', '.join(d for d, _ in params)})
{{
    {size} o = 0;
    for ({size} b = 0; b < outer; b++) {{
        for ({size} d = 0; d < depth; d++) {{
            for ({size} i = 0; i < inner; i++) {{
                output[o++] = at[b * inner + i] == d ? on : off;
            }}
        }}
    }}
}}"""), v, params, "hot", c.arg("axis"), exact=(c.arg("on"), c.arg("off")))

    def sources(self, c: C.Generation) -> list[str]:
        """The dtypes a cast converts from: those its input takes."""
        x = next(i for i in self.op.inputs if i.name == c.arg("input"))
        return [d for d in abi.DTYPES if d in D.CONCRETE[x.type] or d == D.HALF and D.takes_half(self.op)]

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
}}"""), v, params, "filled", exact=(c.arg("value"),))


def _from_double(code: str, dtype: str) -> str:
    """The value ``code``, computed in double, as an element of ``dtype``: a plain conversion (the
    caller has checked it fits), a half's rounded once (ADR 0076)."""
    return narrowed(code, "float64", dtype)


#: The generators of a matrix of ones where a rule of row i and column j holds: the rule, in C.
_MARKS = {"eye": "j == i", "tri": "j - i <= diag", "sequence_mask": "j < lengths[i]"}
