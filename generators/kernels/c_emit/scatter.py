"""Scatters and segment reductions (ADR 0016)."""

from __future__ import annotations



from dsl import compute as C
from dsl import dtypes as D
from generators import abi
from generators.formatting import c_string
from generators.kernels import scalar_c
from generators.kernels.scalar_c import C_TYPE
from generators.kernels.messages import scatter_messages
from generators.kernels.c_emit.base import T_MAX, T_MIN, Emitter, OpCode, fragment


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
            t = v.of(c.updates)
            ct = C_TYPE[t]
            code, _ = scalar_c.render(c.combine, t, {"acc": ("row[j]", t), "u": ("u[j]", t)})
            name = self.kernel_name(v)
            frags.append(fragment(name, f"""
static inline void {name}({ct}* restrict out, const int64_t* restrict at, const {ct}* restrict updates,
                          int64_t count, int64_t block, int64_t rows)
{{
    for (int64_t k = 0; k < count; k++) {{
        {ct}* row = out + (at[k] < 0 ? at[k] + rows : at[k]) * block;
        const {ct}* u = updates + k * block;
        for (int64_t j = 0; j < block; j++) {{
            row[j] = ({ct})({code});
        }}
    }}
}}"""))
            if c.rows is not None:
                frags.append(fragment(name + "_init", f"""
static inline void {name}_init({ct}* out, int64_t n)
{{
    for (int64_t i = 0; i < n; i++) {{
        out[i] = ({ct})({_segment_init(t, c.init)});
    }}
}}"""))
            if c.scale is not None:
                divisor = f"({ct})n" if c.scale == "mean" else f"({ct})sqrt((double)n)"
                frags.append(fragment(name + "_scale", f"""
static inline void {name}_scale({ct}* out, const int64_t* at, int64_t count, int64_t block, int64_t rows)
{{
    for (int64_t s = 0; s < rows; s++) {{
        int64_t n = 0;
        for (int64_t k = 0; k < count; k++) {{
            n += at[k] == s;
        }}
        for (int64_t j = 0; n > 0 && j < block; j++) {{
            out[s * block + j] = ({ct})(out[s * block + j] / {divisor});
        }}
    }}
}}"""))
        return OpCode(tuple(frags), (), self.api(self.body(c)))

    def body(self, c: C.ScatterRows) -> list[str]:
        op = self.op
        ind, upd, out = abi.c_name(c.indices), abi.c_name(c.updates), abi.c_name(op.outputs[0].name)
        messages = scatter_messages(c)
        # (the form's checks above: the shapes fit, the rows are 0 or more)
        rows = f"{abi.c_name(c.ref)}->shape[0]" if c.ref is not None else abi.c_name(c.rows)
        lines = [f"const int64_t rows = {rows};",
                  f"const int64_t count = opf_numel({ind});",
                  f"const int64_t block = opf_shape_numel({upd}->rank - {ind}->rank, {upd}->shape + {ind}->rank);",
                  f"const int64_t* at = (const int64_t*){ind}->data;",
                  "for (int64_t k = 0; k < count; k++) {",
                  f"if (at[k] < {'-rows' if c.ref is not None else '0'} || at[k] >= rows) {{",
                  f"return opf_fail(detail, OPFORGE_ERR_ARG, {c_string(messages['range'])});", "}"]
        if c.sorted:
            lines += ["if (k > 0 && at[k] < at[k - 1]) {",
                      f"return opf_fail(detail, OPFORGE_ERR_ARG, {c_string(messages['sorted'])});", "}"]
        lines += ["}"]
        if c.ref is not None:
            # memmove: the output may be ref itself (an update in place).
            lines += [f"if (opf_numel({out}) > 0) {{",
                      f"memmove({out}->data, {abi.c_name(c.ref)}->data, (size_t)opf_numel({out}) * opforge_dtype_size({out}->dtype));",
                      "}"]

        def per_variant(v: D.Variant) -> list[str]:
            ct = C_TYPE[v.of(c.updates)]
            name = self.kernel_name(v)
            data = f"({ct}*){out}->data"
            body = [f"{name}_init({data}, opf_numel({out}));"] if c.rows is not None else []
            body += [f"{name}({data}, at, (const {ct}*){upd}->data, count, block, rows);"]
            if c.scale is not None:
                body += [f"{name}_scale({data}, at, count, block, rows);"]
            return body

        return lines + self.dispatch(per_variant)
