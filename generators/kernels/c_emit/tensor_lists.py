"""Join, Parts and Merge over tensor lists (ADR 0018, 0021)."""

from __future__ import annotations

from typing import Callable

from dsl import compute as C
from dsl import dtypes as D
from generators import abi
from generators.kernels import scalar_c
from generators.kernels.scalar_c import C_TYPE
from generators.kernels.c_emit.base import Emitter, OpCode, PlainKernel, fragment
from generators.kernels.c_shapes import CShapeRenderer


class JoinEmitter(Emitter):
    """concat and stack: one runtime copy for every dtype (bytes move, none is computed)."""

    def emit(self) -> OpCode:
        c: C.Join = self.op.compute  # type: ignore[assignment]
        xs = abi.c_name(c.inputs)
        call = (f"opf_join({xs}, {xs}_count, {abi.c_name(c.axis)}, {'true' if c.stack else 'false'}, "
                f"{abi.c_name(self.op.outputs[0].name)});")
        return OpCode((), (), self.api([call]), tuple(self.plain_joined(c, v) for v in self.variants))

    def plain_joined(self, c: C.Join, v: D.Variant) -> PlainKernel:
        """The join of contiguous tensors, as a plain kernel: ``slot`` times, a block of
        ``chunks[k]`` elements of each tensor ``k`` in turn (as the real Concat and Stack)."""
        ct, name = C_TYPE[v.of(c.inputs)], f"{self.kernel_name(v)}_joined"
        params = ((f"const {ct}* const* xs", c.inputs), ("const int* chunks", "chunks"), ("int count", "count"),
                  ("int slot", "slot"), (f"{ct}* restrict output", self.op.outputs[0].name))
        return PlainKernel(fragment(name, f"""
static inline void {name}({', '.join(d for d, _ in params)})
{{
    for (int j = 0; j < slot; j++) {{
        for (int k = 0; k < count; k++) {{
            const {ct}* x = xs[k] + j * chunks[k];
            for (int i = 0; i < chunks[k]; i++) {{
                *output++ = x[i];
            }}
        }}
    }}
}}"""), v, params, "stacked" if c.stack else "joined", c.axis)


class PartsEmitter(Emitter):
    """split and unstack: one runtime copy for every dtype into a list of outputs, and a plain
    kernel per dtype (units); meshgrid: a kernel per dtype, the API's and a unit's."""

    def emit(self) -> OpCode:
        c: C.Parts = self.op.compute  # type: ignore[assignment]
        src, outs = abi.c_name(c.source), abi.c_name(c.outputs)
        if c.part == "meshgrid":
            kernels = {v.dtype: self.meshed(c, v, api=True) for v in self.variants}
            plain = tuple(self.meshed(c, v, api=False) for v in self.variants)
            return OpCode(tuple(k.fragment for k in kernels.values()), (), self.api(self.meshgrid(c, kernels)), plain)
        unstack = "false" if c.part == "split" else "true"
        call = f"opf_split({src}, {abi.c_name(c.arg('axis'))}, {unstack}, {outs}, {outs}_count);"
        return OpCode((), (), self.api([call]), tuple(self.plain_parted(c, v) for v in self.variants))

    def meshed(self, c: C.Parts, v: D.Variant, api: bool) -> PlainKernel:
        """meshgrid: each of the ``count`` outputs, of ``n`` elements, takes tensor k's elements
        along its grid axis, ``steps[k]`` elements a step there (the form's ``grid_axis``), each
        repeated over the other axes; ``sizes[k]``: tensor k's count. The API's version counts in
        int64_t, a unit's (``meshed``) in int."""
        ct, size = C_TYPE[v.of(c.source)], "int64_t" if api else "int"
        name = f"{self.kernel_name(v)}_meshed" + ("" if api else "_n")
        params = ((f"const {ct}* const* xs", c.source), (f"{ct}* const* outputs", c.outputs), (f"{size} count", "count"),
                  (f"{size} n", "n"), (f"const {size}* steps", "steps"), (f"const {size}* sizes", "sizes"))
        return PlainKernel(fragment(name, f"""
static inline void {name}({', '.join(d for d, _ in params)})
{{
    for ({size} k = 0; k < count; k++) {{
        for ({size} e = 0; e < n; e++) {{
            outputs[k][e] = xs[k][(e / steps[k]) % sizes[k]];
        }}
    }}
}}"""), v, params, "meshed")

    def meshgrid(self, c: C.Parts, kernels: dict[str, PlainKernel]) -> list[str]:
        """Each tensor's step along its grid axis (rendered from the form) and count, then the
        kernel over the data (the outputs' shapes are the form's, checked before)."""
        src, outs = abi.c_name(c.source), abi.c_name(c.outputs)
        render = CShapeRenderer(self.op, prefix="grid_")
        render.bound["k"].append("k")
        with render.block() as body:
            axis = render.render(c.grid_axis())
        lines = ["int64_t steps[OPFORGE_MAX_RANK] = {0}, sizes[OPFORGE_MAX_RANK] = {0};",
                 *render.take(), f"for (int32_t k = 0; k < {src}_count; k++) {{", *body,
                 f"const int32_t g = (int32_t)({axis});",
                 f"steps[k] = opf_shape_numel({src}_count - 1 - g, {outs}[0]->shape + g + 1);",
                 f"sizes[k] = opf_numel({src}[k]);", "}"]

        def per_variant(v: D.Variant) -> list[str]:
            ct = C_TYPE[v.of(c.source)]
            return [f"const {ct}* from[OPFORGE_MAX_RANK] = {{0}};", f"{ct}* to[OPFORGE_MAX_RANK] = {{0}};",
                    f"for (int32_t k = 0; k < {src}_count; k++) {{",
                    f"from[k] = (const {ct}*){src}[k]->data;", f"to[k] = ({ct}*){outs}[k]->data;", "}",
                    f"{kernels[v.dtype].name}(from, to, {src}_count, n, steps, sizes);"]

        return [*lines, f"const int64_t n = {src}_count > 0 ? opf_numel({outs}[0]) : 0;"] + self.dispatch(per_variant)

    def plain_parted(self, c: C.Parts, v: D.Variant) -> PlainKernel:
        """split and unstack as a plain kernel, the join's inverse: ``slot`` times, a block of
        ``block`` elements of x to each of the ``count`` outputs in turn."""
        ct, name = C_TYPE[v.of(c.source)], f"{self.kernel_name(v)}_parted"
        params = ((f"const {ct}* restrict x", c.source), (f"{ct}* const* outputs", c.outputs), ("int count", "count"),
                  ("int block", "block"), ("int slot", "slot"))
        return PlainKernel(fragment(name, f"""
static inline void {name}({', '.join(d for d, _ in params)})
{{
    for (int j = 0; j < slot; j++) {{
        for (int k = 0; k < count; k++) {{
            {ct}* o = outputs[k] + j * block;
            for (int i = 0; i < block; i++) {{
                o[i] = *x++;
            }}
        }}
    }}
}}"""), v, params, "parted", c.arg("axis"))


class MergeEmitter(Emitter):
    """Element by element over a list of equal-shape tensors, in list order: the C API's kernel
    reads the tensors through their descriptors, the plain one (units) through their data."""

    def emit(self) -> OpCode:
        c: C.Merge = self.op.compute  # type: ignore[assignment]
        out = self.op.outputs[0]
        frags, plain = [], []
        for v in self.variants:
            ct, ot = C_TYPE[v.of(c.inputs)], C_TYPE[v.of(out.name)]
            name = self.kernel_name(v)
            frags.append(fragment(name, f"""
static inline void {name}(const opforge_tensor* const* xs, int32_t count, int64_t n, {ot}* restrict output)
{{
    {self._loops(c, v, lambda k: f"((const {ct}*)xs[{k}]->data)[i]", "int32_t", "int64_t")}
}}"""))
            params = ((f"const {ct}* const* xs", c.inputs), ("int count", "count"), ("int n", "n"),
                      (f"{ot}* restrict output", out.name))
            plain.append(PlainKernel(fragment(f"{name}_merged", f"""
static inline void {name}_merged({', '.join(d for d, _ in params)})
{{
    {self._loops(c, v, lambda k: f"xs[{k}][i]", "int", "int")}
}}"""), v, params, "merged"))
        xs, outn = abi.c_name(c.inputs), abi.c_name(out.name)
        lines: list[str] = []  # (the form's checks above: the inputs and the output of one shape)

        def per_variant(v: D.Variant) -> list[str]:
            return [f"{self.kernel_name(v)}({xs}, {xs}_count, opf_numel({xs}[0]), ({C_TYPE[v.of(out.name)]}*){outn}->data);"]

        return OpCode(tuple(frags), (), self.api(lines + self.dispatch(per_variant)), tuple(plain))

    def _loops(self, c: C.Merge, v: D.Variant, element: Callable[[str], str], count_t: str, n_t: str) -> str:
        """For each of the ``n`` elements, element ``i`` of each of the ``count`` tensors (as
        ``element`` reads it from tensor number ``k``) combined into ``output[i]``."""
        given, out_t = v.of(c.inputs), v.of(self.op.outputs[0].name)
        t = D.computes_in(self.op, given)  # (a half's float, ADR 0076)
        ct = C_TYPE[t]
        floating = D.category(t) == "float"
        value, first_value = (scalar_c.converted(element(k), given, t) for k in ("k", "0"))
        if c.combine == "add":  # (as the elementwise add: an integer sum wraps, never overflows)
            sum_ = C.SCall("add", (C.SSym("acc"), C.SSym("v")))
            added, _ = scalar_c.render(sum_, t, {"acc": ("acc", t), "v": (value, t)})
            init, step, result = f"{ct} acc = {first_value};", f"acc = ({ct})({added});", "acc"
        elif c.combine == "avg":
            # the sum starts at 0: every tensor, the first included, is added
            init, step, result = "double acc = 0;", f"acc += (double){value};", "acc / (double)count"
        elif c.combine in ("max", "min"):
            beyond = ">" if c.combine == "max" else "<"
            better = f"(isnan(v) || v {beyond} acc)" if floating else f"(v {beyond} acc)"
            init = f"{ct} acc = {first_value};"
            step, result = f"const {ct} v = {value};\nif ({better}) {{\nacc = v;\n}}", "acc"
        else:  # max_index: the first largest; the first NaN counts as largest
            better = "(!nan_found && (isnan(v) || v > best))" if floating else "(v > best)"
            track = "nan_found = isnan(v);" if floating else ""
            init = (f"{ct} best = {first_value};\nint64_t acc = 0;\n"
                    f"bool nan_found = {'isnan(best)' if floating else 'false'};")
            step = f"const {ct} v = {value};\nif ({better}) {{\nbest = v;\nacc = k;\n{track}\n}}"
            result = "acc"
        first = 0 if c.combine == "avg" else 1
        stored = scalar_c.narrowed(result, "float64" if c.combine == "avg" else t, out_t)
        return f"""for ({n_t} i = 0; i < n; i++) {{
        {init}
        for ({count_t} k = {first}; k < count; k++) {{
            {step}
        }}
        {"(void)nan_found;" if c.combine == "max_index" else ""}
        output[i] = {stored};
    }}"""
