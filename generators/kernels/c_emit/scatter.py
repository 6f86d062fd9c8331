"""Scatters and segment reductions (ADR 0016)."""

from __future__ import annotations

from dsl import compute as C
from dsl import dtypes as D
from generators import abi
from generators.formatting import c_string
from generators.kernels import scalar_c
from generators.kernels.scalar_c import C_TYPE
from generators.kernels.messages import scatter_messages
from generators.kernels.c_emit.base import T_MAX, T_MIN, Emitter, OpCode, PlainKernel, fragment


def _segment_init(dtype: str, init: str) -> str:
    if init in ("zero", "one"):
        return "0" if init == "zero" else "1"
    if D.category(dtype) == "float":
        return "-INFINITY" if init == "lowest" else "INFINITY"
    return T_MIN[dtype] if init == "lowest" else T_MAX[dtype]


class ScatterEmitter(Emitter):
    """Rows of updates folded into the rows indices pick, in order: the checks
    name the op's tensors; one fold kernel per dtype."""

    def emit(self) -> OpCode:
        op = self.op
        c: C.ScatterRows = op.compute  # type: ignore[assignment]
        frags = []
        for v in self.variants:
            stored = v.of(c.updates)
            t = D.computes_in(op, stored)  # (a half: each fold in float, rounded into the row; ADR 0076)
            ct = C_TYPE[stored]
            code, _ = scalar_c.render(c.combine, t, {"acc": (scalar_c.converted("row[j]", stored, t), t),
                                                     "u": (scalar_c.converted("u[j]", stored, t), t)})
            name = self.kernel_name(v)
            frags.append(fragment(name, f"""
static inline void {name}({ct}* restrict out, const int64_t* restrict at, const {ct}* restrict updates,
                          int64_t count, int64_t block, int64_t rows)
{{
    for (int64_t k = 0; k < count; k++) {{
        {ct}* row = out + (at[k] < 0 ? at[k] + rows : at[k]) * block;
        const {ct}* u = updates + k * block;
        for (int64_t j = 0; j < block; j++) {{
            row[j] = {scalar_c.narrowed(code, t, stored)};
        }}
    }}
}}"""))
            if c.rows is not None:
                frags.append(fragment(name + "_init", f"""
static inline void {name}_init({ct}* out, int64_t n)
{{
    for (int64_t i = 0; i < n; i++) {{
        out[i] = {scalar_c.narrowed(_segment_init(t, c.init), t, stored)};
    }}
}}"""))
            if c.scale is not None:
                vt = C_TYPE[t]
                divisor = f"({vt})n" if c.scale == "mean" else f"({vt})sqrt((double)n)"
                value = scalar_c.converted("out[s * block + j]", stored, t)
                frags.append(fragment(name + "_scale", f"""
static inline void {name}_scale({ct}* out, const int64_t* at, int64_t count, int64_t block, int64_t rows)
{{
    for (int64_t s = 0; s < rows; s++) {{
        int64_t n = 0;
        for (int64_t k = 0; k < count; k++) {{
            n += at[k] == s;
        }}
        for (int64_t j = 0; n > 0 && j < block; j++) {{
            out[s * block + j] = {scalar_c.narrowed(f"{value} / {divisor}", t, stored)};
        }}
    }}
}}"""))
        frags += [self.whole(c, v, api=True).fragment for v in self.variants]
        plain = tuple(self.whole(c, v, api=False) for v in self.variants)
        return OpCode(tuple(frags), (), self.api(self.body(c)), plain)

    def whole(self, c: C.ScatterRows, v: D.Variant, api: bool) -> PlainKernel:
        """The whole scatter: every index checked first (1 out of range, 2 out of order, and
        nothing written), then the output started from ref (or each segment's initial value),
        the updates folded in, and (mean, sqrt_n) scaled, by the fragments above. ``rows``
        counts the output's rows, ``count`` the indices, ``block`` the elements of a row. The
        API's version (``api``) counts in int64_t and may update ref in place (memmove); a
        unit's, in int, reads ref from another buffer."""
        op, t = self.op, v.of(c.updates)
        ct, base, size = C_TYPE[t], self.kernel_name(v), "int64_t" if api else "int"
        name, out = f"{base}_whole" if api else f"{base}_scattered", op.outputs[0].name
        alias = "" if api else " restrict"
        params = (*(((f"const {ct}*{alias} ref", c.ref),) if c.ref is not None else ()),
                  ("const int64_t* restrict at", c.indices), (f"const {ct}* restrict updates", c.updates),
                  (f"{ct}*{alias} output", out), (f"{size} rows", "rows" if c.ref is not None else c.rows),
                  (f"{size} count", "count"), (f"{size} block", "block"))
        order = "\nif (k > 0 && at[k] < at[k - 1]) {\nreturn 2;\n}" if c.sorted else ""
        copy = "memmove" if api else "memcpy"
        start = (f"if (rows > 0 && block > 0) {{\n{copy}(output, ref, sizeof output[0] * (size_t)rows * (size_t)block);\n}}"
                 if c.ref is not None else f"{base}_init(output, (int64_t)rows * block);")
        scale = f"{base}_scale(output, at, count, block, rows);" if c.scale is not None else ""
        needs = (base, *((base + "_init",) if c.rows is not None else ()), *((base + "_scale",) if c.scale else ()))
        messages = scatter_messages(c)
        failure = messages["range"] + (f", or {messages['sorted']}" if c.sorted else "")
        return PlainKernel(fragment(name, f"""
static inline int {name}({', '.join(d for d, _ in params)})
{{
    for ({size} k = 0; k < count; k++) {{
        if (at[k] < {"-rows" if c.ref is not None else "0"} || at[k] >= rows) {{
            return 1;
        }}{order}
    }}
    {start}
    {base}(output, at, updates, count, block, rows);
    {scale}
    return 0;
}}"""), v, params, "scattered", needs=needs, failure=failure)

    def body(self, c: C.ScatterRows) -> list[str]:
        """The whole kernel (``whole``, the API's version), its failure told by what it returns."""
        op = self.op
        ind, upd, out = abi.c_name(c.indices), abi.c_name(c.updates), abi.c_name(op.outputs[0].name)
        messages = scatter_messages(c)
        # (the form's checks above: the shapes fit, the rows are 0 or more)
        rows = f"{abi.c_name(c.ref)}->shape[0]" if c.ref is not None else abi.c_name(c.rows)
        lines = [f"const int64_t rows = {rows};",
                 f"const int64_t count = opf_numel({ind});",
                 f"const int64_t block = opf_shape_numel({upd}->rank - {ind}->rank, {upd}->shape + {ind}->rank);",
                 "int failed = 0;"]

        def per_variant(v: D.Variant) -> list[str]:
            ct = C_TYPE[v.of(c.updates)]
            ref = [f"(const {ct}*){abi.c_name(c.ref)}->data"] if c.ref is not None else []
            return [f"failed = {self.kernel_name(v)}_whole({', '.join([*ref, f'(const int64_t*){ind}->data', f'(const {ct}*){upd}->data', f'({ct}*){out}->data', 'rows', 'count', 'block'])});"]

        lines += self.dispatch(per_variant)
        lines += ["if (failed == 1) {", f"return opf_fail(detail, OPFORGE_ERR_ARG, {c_string(messages['range'])});", "}"]
        if c.sorted:
            lines += ["if (failed == 2) {", f"return opf_fail(detail, OPFORGE_ERR_ARG, {c_string(messages['sorted'])});", "}"]
        return lines
