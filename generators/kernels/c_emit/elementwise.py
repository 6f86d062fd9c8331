"""Elementwise kernels: a contiguous loop and rows with one step per operand (ADR 0007, 0025)."""

from __future__ import annotations



from dsl import compute as C
from dsl import expr as E
from dsl import dtypes as D
from dsl.types import DataType
from generators import abi
from generators.formatting import c_string
from generators.kernels import scalar_c
from generators.kernels.scalar_c import C_TYPE
from generators.kernels.c_emit.base import Emitter, OpCode, PlainKernel, fragment


class ElementwiseEmitter(Emitter):
    def emit(self) -> OpCode:
        c: C.Elementwise = self.op.compute  # type: ignore[assignment]
        op = self.op
        inputs = [p for p in c.params if any(i.name == p for i in op.inputs)]
        args = {a.name: a for a in op.args}
        enums = {a.name: a.possible_values for a in op.args if a.type is DataType.ENUM}
        out = op.outputs[0]
        frags: list[str] = []
        plain: list[PlainKernel] = []
        for v in self.variants:
            compute_dtype = v.of(inputs[0])
            for k, (given, expr) in enumerate(c.cases):
                expr = C.resolve_enums(expr, enums)
                used = [p for p in c.params if p not in inputs and p in C.symbols(expr)]
                scalar = [f"{abi.scalar_ctype(args[p].type)} {abi.c_name(p)}" for p in used]
                env_args = {p: (abi.c_name(p), abi.scalar_dtype(args[p].type)) for p in used}
                suffix = f"_c{k}" if len(c.cases) > 1 else ""
                # No restrict: the output may be one of the inputs, exactly (ADR 0006); each element
                # is read before it is written, and GCC still vectorises (with an overlap check).
                ins = [f"const {C_TYPE[v.of(p)]}* {abi.c_name(p)}" for p in inputs]
                o = f"{C_TYPE[v.of(out.name)]}* {abi.c_name(out.name)}"
                env = {p: (f"{abi.c_name(p)}[i]", v.of(p)) for p in inputs} | env_args
                code, code_dtype = scalar_c.render(expr, compute_dtype, env)
                oc = C_TYPE[v.of(out.name)]
                if oc == "bool" and code_dtype != "bool":  # a number as a truth: nonzero (NaN too), as NumPy
                    code, oc = f"({code}) != 0", "bool"
                name = self.kernel_name(v, suffix)
                # Inputs the function ignores (zeros_like) still give the shape: keep -Wunused quiet.
                unused = [abi.c_name(p) for p in inputs if p not in C.symbols(expr)]
                void = "".join(f"(void){u};" for u in unused)
                void_s = "".join(f"(void){u};(void){u}_strides;" for u in unused)
                def loop(fn: str, count: str) -> str:
                    return f"""
static inline void {fn}({', '.join(ins + scalar + [o])}, {count} n)
{{
    {void}
    for ({count} i = 0; i < n; i++) {{
        {abi.c_name(out.name)}[i] = ({oc})({code});
    }}
}}"""
                frags.append(fragment(name, loop(name, "int64_t")))
                if len(c.cases) == 1:  # the same loop with an int count: a 32-bit core's natural one
                    plain.append(PlainKernel(fragment(f"{name}_n", loop(f"{name}_n", "int")), v,
                                             tuple(zip(ins + scalar + [o, "int n"], [*inputs, *used, out.name, "n"]))))
                # Broadcast or strided operands: rows of the last axis, each a plain loop with one step
                # per operand (1, or 0 where the operand is broadcast along it), and an odometer over
                # the other axes between rows (ADR 0025).
                out_name = abi.c_name(out.name)
                read = [(j, p) for j, p in enumerate(inputs) if p in C.symbols(expr)]

                def row_loop(steps: dict[str, int], expr: E.Expr = expr, compute_dtype: str = compute_dtype,
                             env_args: dict = env_args, oc: str = oc, v: D.Variant = v,
                             out_name: str = out_name) -> str:
                    """The loop over one row, each operand read at its step (a step known to be 1 or 0
                    indexes plainly: the loop the compiler vectorises)."""
                    at = {1: "_row[i]", 0: "_first"}
                    env = {p: (f"{abi.c_name(p)}{at.get(steps.get(p, -1), f'_row[i * {abi.c_name(p)}_step]')}",
                               v.of(p)) for p in inputs} | env_args
                    code, code_dtype = scalar_c.render(expr, compute_dtype, env)
                    if oc == "bool" and code_dtype != "bool":
                        code = f"({code}) != 0"
                    # An operand broadcast along the row is read once, before the loop.
                    first = "".join(f"const {C_TYPE[v.of(p)]} {abi.c_name(p)}_first = {abi.c_name(p)}_row[0];\n"
                                    for p, s in steps.items() if s == 0)
                    return f"""{first}for (int64_t i = 0; i < inner; i++) {{
            {out_name}_row[i] = ({oc})({code});
        }}"""

                # On a host, rows whose operands all step by 1 (a broadcast row), and for two
                # operands one stepping by 0 (a broadcast column), take plain loops (ADR 0027).
                patterns = [{p: 1 for _, p in read}]
                if len(read) == 2:
                    patterns += [{read[0][1]: 1, read[1][1]: 0}, {read[0][1]: 0, read[1][1]: 1}]
                loops = "".join(
                    "if (OPFORGE_UNIT_STEPS && " +
                    " && ".join(f"{abi.c_name(p)}_step == {s}" for p, s in pattern.items()) +
                    f") {{\n{row_loop(pattern)}\n}} else "
                    for pattern in (patterns if read else []))
                loops += f"{{\n{row_loop({})}\n}}" if read else row_loop({})
                strides = [f"const int64_t* {abi.c_name(p)}_strides" for p in inputs]
                ins_s = [f"const {C_TYPE[v.of(p)]}* {abi.c_name(p)}" for p in inputs]
                offs = "\n".join(f"int64_t o{j} = 0;" for j in range(len(inputs)))
                steps = "\n".join(f"const int64_t {abi.c_name(p)}_step = "
                                   f"rank > 0 ? {abi.c_name(p)}_strides[rank - 1] : 0;" for _, p in read)
                row_starts = "\n".join(f"const {C_TYPE[v.of(p)]}* {abi.c_name(p)}_row = {abi.c_name(p)} + o{j};"
                                        for j, p in read)
                if len(inputs) <= 3:
                    adv = ", ".join([f"{abi.c_name(inputs[j])}_strides, &o{j}" if j < len(inputs) else "NULL, NULL"
                                     for j in range(3)])
                    advance = f"opf_advance(rank - 1, shape, index, {adv});"
                else:  # more operands than opf_advance tracks: the same odometer, inline
                    step = " ".join(f"o{j} += {abi.c_name(p)}_strides[d];" for j, p in enumerate(inputs))
                    back = " ".join(f"o{j} -= {abi.c_name(p)}_strides[d] * shape[d];" for j, p in enumerate(inputs))
                    advance = (f"for (int32_t d = rank - 2; d >= 0; d--) {{ index[d]++; {step} "
                               f"if (index[d] < shape[d]) {{ break; }} {back} index[d] = 0; }}")
                frags.append(fragment(name + "_strided", f"""
static inline void {name}_strided({', '.join(ins_s + scalar + [o])}, int32_t rank, const int64_t* shape, {', '.join(strides)})
{{
    {void_s}
    const int64_t inner = rank > 0 ? shape[rank - 1] : 1;
    const int64_t rows = opf_shape_numel(rank > 0 ? rank - 1 : 0, shape);
    if (inner == 0 || rows == 0) {{
        return;
    }}
    {steps}
    int64_t index[OPFORGE_MAX_RANK] = {{0}};
    {offs}
    for (int64_t r = 0; r < rows; r++) {{
        {row_starts}
        {oc}* {out_name}_row = {out_name} + r * inner;
        {loops}
        {advance}
    }}
}}"""))
        return OpCode(tuple(frags), (), self.api(self.body(c, inputs, args)), tuple(plain))

    def body(self, c: C.Elementwise, inputs: list[str], args: dict) -> list[str]:
        op = self.op
        out = abi.c_name(op.outputs[0].name)
        names = [abi.c_name(p) for p in inputs]
        lines = ["int32_t rank = 0;", "int64_t shape[OPFORGE_MAX_RANK];"]
        if c.broadcast == "numpy":
            for n in names:
                lines += [f"if (!opf_broadcast_into({n}->rank, {n}->shape, &rank, shape)) {{",
                          f"return opf_fail(detail, OPFORGE_ERR_SHAPE, {c_string('inputs do not broadcast together: ' + ', '.join(inputs))});",
                          "}"]
        else:
            first = names[0]
            lines += [f"const opforge_tensor* widest = {first};"]
            for n in names[1:]:
                lines += [f"if (!opf_same_shape(widest, {n})) {{",
                          "if (widest->rank == 0) {", f"widest = {n};", f"}} else if ({n}->rank != 0) {{",
                          f"return opf_fail(detail, OPFORGE_ERR_SHAPE, {c_string('inputs must have the same shape, or be scalars (rank 0): ' + ', '.join(inputs))});",
                          "}", "}"]
            lines += ["rank = widest->rank;", "for (int32_t d = 0; d < rank; d++) {", "shape[d] = widest->shape[d];", "}"]
        # Assignment broadcasting: the result must stretch to the output's shape, which never changes.
        lines += [f"int64_t strides[{len(inputs)}][OPFORGE_MAX_RANK];", "bool contiguous = true;"]
        for j, n in enumerate(names):
            lines += [f"if (!opf_broadcast_strides({n}, {out}->rank, {out}->shape, strides[{j}])) {{",
                      f"return opf_fail(detail, OPFORGE_ERR_SHAPE, {c_string(op.outputs[0].name + ': the result does not broadcast to its shape')});",
                      "}", f"contiguous = contiguous && opf_same_shape({n}, {out});"]
        lines += ["{", "int32_t assigned = " + f"{out}->rank;", "int64_t check[OPFORGE_MAX_RANK];",
                  "for (int32_t d = 0; d < assigned; d++) {", f"check[d] = {out}->shape[d];", "}",
                  "if (!opf_broadcast_into(rank, shape, &assigned, check) || !opf_shape_is(" + out + ", assigned, check)) {",
                  f"return opf_fail(detail, OPFORGE_ERR_SHAPE, {c_string(op.outputs[0].name + ': the result does not broadcast to its shape')});",
                  "}", "}"]
        lines += [f"const int64_t n = opf_numel({out});"]

        def per_variant(v: D.Variant) -> list[str]:
            body: list[str] = []
            for k, (given, expr) in enumerate(c.cases):
                suffix = f"_c{k}" if len(c.cases) > 1 else ""
                enums = {a.name: a.possible_values for a in op.args if a.type is DataType.ENUM}
                used = [p for p in c.params if p not in inputs and p in C.symbols(C.resolve_enums(expr, enums))]
                vals = [f"(*{abi.c_name(p)})" if args[p].default is None else abi.c_name(p) for p in used]
                data = [f"(const {C_TYPE[v.of(p)]}*){abi.c_name(p)}->data" for p in inputs]
                odata = f"({C_TYPE[v.of(op.outputs[0].name)]}*){out}->data"
                cond = " && ".join([f"{abi.c_name(p)} != NULL" for p in given] +
                                   [f"{abi.c_name(p)} == NULL" for p in c.optional if p not in given]) or "true"
                name = self.kernel_name(v, suffix)
                strides = ", ".join(f"strides[{j}]" for j in range(len(inputs)))
                body += [f"if ({cond}) {{",
                         "if (contiguous) {",
                         f"{name}({', '.join(data + vals + [odata])}, n);",
                         "} else {",
                         f"{name}_strided({', '.join(data + vals + [odata])}, {out}->rank, {out}->shape, {strides});",
                         "}", "}"]
            return body

        return lines + self.dispatch(per_variant)


# ---------------------------------------------------------------- reductions
