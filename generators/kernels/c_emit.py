"""Per-op C code: kernels (Imaginet fragments) and the checked API function.

One emitter per compute form (ADR 0005); each returns the kernel fragments
and the body of the API function after the common checks.
"""

from __future__ import annotations

import re
from typing import Callable

import attrs

from dsl import compute as C
from dsl import expr as E
from dsl import dtypes as D
from dsl import fragments
from dsl import validate
from dsl.model import Config, Input, Op, Output
from dsl.types import DataType
from generators import abi
from generators.kernels.c_constraints import CConstraintRenderer
from generators.formatting import c_comment, c_string
from generators.kernels import scalar_c
from generators.kernels.scalar_c import C_TYPE, SUFFIX, WIDE_UNSIGNED
from generators.kernels.messages import scatter_messages
from generators.kernels.selection import variants_of

T_MIN = {"int8": "INT8_MIN", "int16": "INT16_MIN", "int32": "INT32_MIN", "int64": "INT64_MIN", "uint8": "0"}
T_MAX = {"int8": "INT8_MAX", "int16": "INT16_MAX", "int32": "INT32_MAX", "int64": "INT64_MAX", "uint8": "UINT8_MAX"}


@attrs.frozen
class OpCode:
    fragments: tuple[str, ...]
    includes: tuple[str, ...]
    api: str


def fragment(name: str, body: str) -> str:
    return f'#pragma IMAGINET_FRAGMENT_BEGIN "{name}"\n{body.strip()}\n#pragma IMAGINET_FRAGMENT_END\n'


def mask(dtypes: set[str]) -> str:
    return " | ".join(f"OPF_DTYPE_BIT({abi.DTYPE_ENUM[d]})" for d in abi.DTYPES if d in dtypes) or "0u"


class Emitter:
    """The API function of one op: common checks, then the form's dispatch."""

    def __init__(self, op: Op) -> None:
        self.op = op
        self.fn = abi.function(op)
        self.variants = variants_of(op)
        self.primary = op.outputs[0].name if C.dtype_from_arg(op.compute) else (op.inputs or op.outputs)[0].name
        self.constraints = CConstraintRenderer(op)
        self.lists = {t.name for t in (*op.inputs, *op.outputs) if not t.count.is_single}

    def ref(self, name: str) -> str:
        """A C expression of the descriptor ``name`` (of a tensor list: its first, which the
        checks guarantee and whose dtype every other shares)."""
        return f"{abi.c_name(name)}[0]" if name in self.lists else abi.c_name(name)

    # -- common
    def checks(self) -> list[str]:
        op = self.op
        lines = ["if (detail != NULL) {", "*detail = NULL;", "}"]
        for cfg in op.configs:
            struct = abi.config_struct(cfg)
            defaults = ", ".join(_c_default(p.default, p.type) for p in cfg.args) or "0"
            name = abi.c_name(cfg.name)
            lines += [f"{struct} cfg_{cfg.name} = {{{defaults}}};",
                      f"if ({name} != NULL) {{", f"cfg_{cfg.name} = *{name};", "}"]
        for p in abi.parameters(op):
            if p.role == "array":
                lines += [f"if ({p.name}_count < 0 || ({p.name}_count > 0 && {p.name} == NULL)) {{",
                          f"return opf_fail(detail, OPFORGE_ERR_NULL, {c_string(p.source + ': NULL with a positive count, or a negative count')});",
                          "}"]
                arg = next(a for a in op.args if a.name == p.source)
                low, high = arg.count.low, arg.count.high
                cond = f"{p.name}_count < {low}" + (f" || {p.name}_count > {high}" if high is not None else "")
                lines += [f"if ({cond}) {{",
                          f"return opf_fail(detail, OPFORGE_ERR_ARG, {c_string(f'{p.source}: count must be {arg.count}')});",
                          "}"]
            if p.role == "arg":
                arg = next(a for a in op.args if a.name == p.source)
                if arg.type is DataType.ENUM:
                    lines += [f"if ({p.name} < 0 || {p.name} >= {len(arg.possible_values)}) {{",
                              f"return opf_fail(detail, OPFORGE_ERR_ARG, {c_string(arg.name + ': not one of its possible values')});",
                              "}"]
                if arg.type is DataType.DATA_TYPE:
                    lines += [f"if ((unsigned){p.name} > (unsigned)OPFORGE_FLOAT64) {{",
                              f"return opf_fail(detail, OPFORGE_ERR_ARG, {c_string(arg.name + ': not a dtype')});",
                              "}"]
        for t in (*op.inputs, *op.outputs):
            allowed = {v.of(t.name) for v in self.variants}
            name = abi.c_name(t.name)
            if t.name in self.lists:
                lines += self.list_checks(t, allowed)
                continue
            lines += [
                "{",
                f"const opforge_status st = opf_check_tensor({name}, {mask(allowed)});",
                "if (st != OPFORGE_OK) {",
                f"return opf_fail(detail, st, {c_string(_tensor_message(t.name, allowed))});",
                "}",
                "}",
            ]
        lines += self.overlap_checks()
        for cfg, c in op.all_constraints():
            if c.backend:
                continue
            cond = self.constraints.render(c.expr)
            lines += [f"if (!{cond}) {{",
                      f"return opf_fail(detail, OPFORGE_ERR_CONSTRAINT, {c_string(c.message)});", "}"]
        # Every tensor must have the dtype its variant (chosen by the primary tensor) gives it.
        prim = self.ref(self.primary)
        for v in self.variants:
            free = C.own_dtype_inputs(op)
            # (a list output's tensors are checked against the primary one by one, in list_checks)
            others = [t for t in (*op.inputs, *op.outputs) if t.name != self.primary and t.name not in free
                      and not (t.kind == "output" and t.name in self.lists)]
            if not others:
                continue
            cond = " || ".join(f"{abi.c_name(t.name)}->dtype != {abi.DTYPE_ENUM[v.of(t.name)]}" for t in others)
            lines += [f"if ({prim}->dtype == {abi.DTYPE_ENUM[v.dtype]} && ({cond})) {{",
                      f"return opf_fail(detail, OPFORGE_ERR_DTYPE, {c_string('tensor dtypes do not match: ' + _variant_text(v))});",
                      "}"]
        return lines

    def overlap_checks(self) -> list[str]:
        """No output shares a byte with another output, nor with an input, unless it is exactly
        an input the op may write over (an elementwise op's: ADR 0006)."""
        op = self.op
        in_place = set(C.in_place_inputs(op))
        lines: list[str] = []

        def each(t: Input | Output, var: str) -> tuple[str, str, str]:
            """(loop head, loop end, the descriptor) over a tensor or the tensors of a list."""
            name = abi.c_name(t.name)
            if t.name not in self.lists:
                return "", "", name
            return f"for (int32_t {var} = 0; {var} < {name}_count; {var}++) {{", "}", f"{name}[{var}]"

        def fail(message: str) -> str:
            return f"return opf_fail(detail, OPFORGE_ERR_OVERLAP, {c_string(message)});"

        outputs = list(op.outputs)
        for k, o in enumerate(outputs):
            o_head, o_end, o_ref = each(o, "j")
            if o.name in self.lists:  # the tensors of a list output, among themselves
                name = abi.c_name(o.name)
                lines += [f"for (int32_t j = 0; j < {name}_count; j++) {{",
                          f"for (int32_t m = j + 1; m < {name}_count; m++) {{",
                          f"if (!opf_disjoint({name}[j], {name}[m])) {{", fail(f"{o.name}: its tensors overlap"),
                          "}", "}", "}"]
            for other in outputs[k + 1:]:  # several outputs are written in one pass
                b_head, b_end, b_ref = each(other, "m")
                lines += [o_head, b_head, f"if (!opf_disjoint({o_ref}, {b_ref})) {{",
                          fail(f"{o.name}, {other.name}: outputs must not overlap"), "}", b_end, o_end]
            for i in op.inputs:
                i_head, i_end, i_ref = each(i, "m")
                exact = i.name in in_place
                rule = (f"{o.name} may be {i.name} itself (the same data, dtype and shape), no other overlap"
                        if exact else f"{o.name} must not overlap {i.name}")
                lines += [o_head, i_head,
                          f"if (!opf_may_write_over({i_ref}, {o_ref}, {'true' if exact else 'false'})) {{",
                          fail(rule), "}", i_end, o_end]
        return [line for line in lines if line]

    def list_checks(self, t: Input | Output, allowed: set[str]) -> list[str]:
        """A tensor list: a count in range, every descriptor usable and of the first one's dtype
        (of an output list, of the primary tensor's: an output list may be empty)."""
        name, low, high = abi.c_name(t.name), t.count.low, t.count.high
        cond = f"{name}_count < {low}" + (f" || {name}_count > {high}" if high is not None else "")
        first = f"{self.ref(self.primary)}->dtype" if t.kind == "output" else f"{name}[0]->dtype"
        words = "of the inputs" if t.kind == "output" else "of the first"
        return [f"if ({cond}) {{",
                f"return opf_fail(detail, OPFORGE_ERR_ARG, {c_string(f'{t.name}: count must be {t.count}')});", "}",
                f"if ({name}_count > 0 && {name} == NULL) {{",
                f"return opf_fail(detail, OPFORGE_ERR_NULL, {c_string(t.name + ': NULL')});", "}",
                f"for (int32_t k = 0; k < {name}_count; k++) {{",
                f"const opforge_status st = opf_check_tensor({name}[k], {mask(allowed)});",
                "if (st != OPFORGE_OK) {",
                f"return opf_fail(detail, st, {c_string(_tensor_message(t.name, allowed))});", "}",
                f"if ({name}[k]->dtype != {first}) {{",
                f"return opf_fail(detail, OPFORGE_ERR_DTYPE, {c_string(t.name + ': every tensor must have the dtype ' + words)});",
                "}", "}"]

    def dispatch(self, per_variant: Callable[[D.Variant], list[str]], on: str | None = None) -> list[str]:
        on = on or f"{self.ref(self.primary)}->dtype"
        lines = [f"switch ({on}) {{"]
        for v in self.variants:
            lines += [f"case {abi.DTYPE_ENUM[v.dtype]}: {{", *per_variant(v), "break;", "}"]
        lines += ["default:", f"return opf_fail(detail, OPFORGE_ERR_DTYPE, {c_string('unsupported dtype')});", "}"]
        return lines

    def api(self, body: list[str]) -> str:
        return self.api_returning(body + ["return OPFORGE_OK;"])

    def api_returning(self, body: list[str]) -> str:
        """The API function: the common checks, then ``body``, which returns."""
        lines = self.checks() + body
        text = "\n".join(lines)
        # An arg the op's compute never reads still is a parameter: keep -Wunused-parameter quiet.
        unread = [p.name for p in abi.parameters(self.op) if p.role in ("arg", "optional", "array", "count")
                  and not re.search(rf"\b{re.escape(p.name)}\b", text)]
        voids = "".join(f"(void){name};\n" for name in unread)
        return abi.prototype(self.op) + "\n{\n" + voids + text + "\n}\n"

    def kernel_name(self, v: D.Variant, suffix: str = "") -> str:
        return f"{self.fn}_{SUFFIX[v.dtype]}{suffix}"

    def output_check(self, rank: str, shape: str, every: bool = False, only: Output | None = None) -> list[str]:
        """The (first, ``every`` or ``only`` the given) output has the result's shape."""
        lines = []
        for o in [only] if only is not None else self.op.outputs if every else self.op.outputs[:1]:
            lines += [f"if (!opf_shape_is({abi.c_name(o.name)}, {rank}, {shape})) {{",
                      f"return opf_fail(detail, OPFORGE_ERR_SHAPE, {c_string(o.name + ': shape does not match the result')});",
                      "}"]
        return lines

    def emit(self) -> OpCode:
        raise NotImplementedError


def _tensor_message(name: str, allowed: set[str]) -> str:
    kinds = ", ".join(d for d in abi.DTYPES if d in allowed)
    return f"{name}: NULL, dtype not one of {kinds}, rank above {abi.MAX_RANK}, or a bad size"


def _variant_text(v: D.Variant) -> str:
    return ", ".join(f"{n} {d}" for n, d in v.tensors)


def _c_default(value: object, type_: DataType) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value) if isinstance(value, float) else f"INT64_C({value})"
    return "0"


# ---------------------------------------------------------------- elementwise


class ElementwiseEmitter(Emitter):
    def emit(self) -> OpCode:
        c: C.Elementwise = self.op.compute  # type: ignore[assignment]
        op = self.op
        inputs = [p for p in c.params if any(i.name == p for i in op.inputs)]
        args = {a.name: a for a in op.args}
        enums = {a.name: a.possible_values for a in op.args if a.type is DataType.ENUM}
        out = op.outputs[0]
        frags: list[str] = []
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
                frags.append(fragment(name, f"""
static inline void {name}({', '.join(ins + scalar + [o])}, int64_t n)
{{
    {void}
    for (int64_t i = 0; i < n; i++) {{
        {abi.c_name(out.name)}[i] = ({oc})({code});
    }}
}}"""))
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
                    f"if (OPFORGE_UNIT_STEPS && " +
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
        return OpCode(tuple(frags), (), self.api(self.body(c, inputs, args)))

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


def _acc_type(dtype: str, combine: str) -> str:
    if D.category(dtype) == "float":
        return "double"
    return WIDE_UNSIGNED[dtype] if combine in ("add", "mul") else C_TYPE[dtype]


def _init(dtype: str, combine: str) -> str:
    if combine == "add":
        return "0"
    if combine == "mul":
        return "1"
    if D.category(dtype) == "float":
        return "-INFINITY" if combine == "max" else "INFINITY"
    return T_MIN[dtype] if combine == "max" else T_MAX[dtype]


def _combine(dtype: str, combine: str, acc: str, v: str) -> str:
    at = _acc_type(dtype, combine)
    if combine in ("add", "mul"):
        op = "+" if combine == "add" else "*"
        return f"{acc} = ({at})({acc} {op} ({at})({v}));"
    cmp = ">" if combine == "max" else "<"
    if D.category(dtype) == "float":
        return f"if ({v} {cmp} {acc} || isnan({v})) {{ {acc} = {v}; }}"
    return f"if ({v} {cmp} {acc}) {{ {acc} = {v}; }}"


class ReductionEmitter(Emitter):
    def emit(self) -> OpCode:
        c: C.Reduction = self.op.compute  # type: ignore[assignment]
        out = self.op.outputs[0]
        frags = []
        kinds = {a.name: a.type for a in self.op.args}
        enums = {a.name: a.possible_values for a in self.op.args if a.type is DataType.ENUM}
        env_args = {a: (abi.c_name(a), abi.scalar_dtype(kinds[a])) for a in c.args}
        arg_params = "".join(f", {abi.scalar_ctype(kinds[a])} {abi.c_name(a)}" for a in c.args)
        for v in self.variants:
            t = v.of(c.input)
            ct, ot = C_TYPE[t], C_TYPE[v.of(out.name)]
            name = self.kernel_name(v)
            y_param = f"const {ct}* restrict y, " if c.other else ""
            more = "".join(f", {C_TYPE[v.of(o.name)]}* restrict output{k}" for k, o in enumerate(self.op.outputs[1:], 1))
            params = f"const {ct}* restrict x, {y_param}{ot}* restrict output{more}, const opf_reduce_plan* p{arg_params}"
            given = "x, " + ("y, " if c.other else "") + "output" + \
                "".join(f", output{k}" for k in range(1, len(self.op.outputs))) + ", p" + \
                "".join(f", {abi.c_name(a)}" for a in c.args)
            lanes = self._reduce(c, v, t, env_args, enums, lanes=True)
            single = self._reduce(c, v, t, env_args, enums, lanes=False)
            # Outputs side by side in x (a reduction over leading axes) are reduced together, a
            # block of lanes per pass over the reduced elements: each lane still takes its
            # elements in order, so results are those of one output at a time (ADR 0027).
            frags.append(fragment(name, f"""
static inline void {name}_lanes({params}, int64_t o, int64_t lanes, int64_t base)
{{
    {lanes}
}}

static inline void {name}({params})
{{
    int64_t oi[OPFORGE_MAX_RANK] = {{0}};
    int64_t base = 0;
    if (OPFORGE_REDUCE_LANES > 1 && p->outer_rank > 0 && p->outer_stride[p->outer_rank - 1] == 1) {{
        const int64_t run = p->outer_shape[p->outer_rank - 1];
        for (int64_t o = 0; o < p->n_outer; o += run) {{
            for (int64_t w = 0; w < run; w += OPFORGE_REDUCE_LANES) {{
                const int64_t lanes = run - w < OPFORGE_REDUCE_LANES ? run - w : OPFORGE_REDUCE_LANES;
                {name}_lanes({given}, o + w, lanes, base + w);
            }}
            opf_advance(p->outer_rank - 1, p->outer_shape, oi, p->outer_stride, &base, NULL, NULL, NULL, NULL);
        }}
        return;
    }}
    for (int64_t o = 0; o < p->n_outer; o++) {{
        {single}
        opf_advance(p->outer_rank, p->outer_shape, oi, p->outer_stride, &base, NULL, NULL, NULL, NULL);
    }}
}}"""))
        x = abi.c_name(c.input)
        axes = abi.c_name(c.axes)
        lines = ["opf_reduce_plan plan;",
                 "{",
                 f"const opforge_status st = opf_reduce_plan_make({x}, {axes}, {axes}_count, {abi.c_name(c.keep_dims)}, &plan, detail);",
                 "if (st != OPFORGE_OK) {", "return st;", "}", "}",
                 *self.output_check("plan.out_rank", "plan.out_shape", every=True)]
        if c.other:
            y = abi.c_name(c.other)
            lines += [f"if ({y}->rank != {x}->rank || memcmp({y}->shape, {x}->shape, sizeof({x}->shape[0]) * (size_t){x}->rank) != 0) {{",
                      f"return opf_fail(detail, OPFORGE_ERR_SHAPE, {c_string(c.other + ': must have the shape of ' + c.input)});",
                      "}"]
        if c.empty == "error":
            lines += ["if (plan.n_inner == 0 && plan.n_outer > 0) {",
                      f"return opf_fail(detail, OPFORGE_ERR_EMPTY, {c_string(self.op.name + ': cannot reduce no elements')});",
                      "}"]

        def per_variant(v: D.Variant) -> list[str]:
            y_arg = f"(const {C_TYPE[v.of(c.other)]}*){abi.c_name(c.other)}->data, " if c.other else ""
            given = "".join(f", {abi.c_name(a)}" for a in c.args)
            outs = ", ".join(f"({C_TYPE[v.of(o.name)]}*){abi.c_name(o.name)}->data" for o in self.op.outputs)
            return [f"{self.kernel_name(v)}((const {C_TYPE[v.of(c.input)]}*){x}->data, {y_arg}{outs}, &plan{given});"]

        return OpCode(tuple(frags), (), self.api(lines + self.dispatch(per_variant)))

    def _reduce(self, c: C.Reduction, v: D.Variant, t: str, env_args: dict[str, tuple[str, str]],
                enums: dict, lanes: bool) -> str:
        """Reduce one output at ``base`` into ``output[o]`` or, with ``lanes``, the outputs
        ``o`` .. ``o + lanes - 1`` at ``base`` .. ``base + lanes - 1`` (each name an array
        indexed by the lane ``w``)."""
        ct = C_TYPE[t]
        a_t = C.accumulator_dtype(c, t, v.of(self.op.outputs[0].name))
        acc_t = _acc_type(a_t, c.combine)
        w = "[w]" if lanes else ""
        size = "[OPFORGE_REDUCE_LANES]" if lanes else ""

        def per_lane(statements: str) -> str:
            return f"for (int64_t w = 0; w < lanes; w++) {{\n{statements}\n}}" if lanes else statements

        def over_inner(body: str, other: str) -> str:
            # The reduced elements in row-major order, the last reduced axis as a plain loop
            # with its step and the odometer only between its runs (ADR 0025).
            read = per_lane(f"const {ct} xv = x[at{' + w' if lanes else ''}];\n{other}\n{body}")

            def run(index: str) -> str:
                return f"""for (int64_t e = 0; e < last; e++) {{
                    const int64_t at = {index};
                    {read}
                }}"""

            loop = run("off + e * step")
            if not lanes:  # on a host, a run with step 1 gets its own loop (integer sums vectorise)
                loop = f"if (OPFORGE_UNIT_STEPS && step == 1) {{\n{run('off + e')}\n}} else {{\n{loop}\n}}"
            return f"""{{
            int64_t ii[OPFORGE_MAX_RANK] = {{0}};
            int64_t off = base;
            const int64_t last = p->inner_rank > 0 ? p->inner_shape[p->inner_rank - 1] : 1;
            const int64_t step = p->inner_rank > 0 ? p->inner_stride[p->inner_rank - 1] : 0;
            for (int64_t r = 0; r < p->n_inner; r += last) {{
                {loop}
                opf_advance(p->inner_rank - 1, p->inner_shape, ii, p->inner_stride, &off, NULL, NULL, NULL, NULL);
            }}
        }}"""

        other = f"const {ct} yv = y[at{' + w' if lanes else ''}];" if c.other else ""
        pre = ""
        env_m: dict[str, tuple[str, str]] = {}
        if c.pre == "max":
            pre = f"{ct} m{size};\n" + per_lane(f"m{w} = ({ct})({_init(t, 'max')});") + \
                over_inner(_combine(t, "max", f"m{w}", "xv"), "")
            if D.category(t) == "float":
                pre += "\n" + per_lane(f"if (!isfinite(m{w})) {{ m{w} = 0; }}")
            env_m = {"m": (f"m{w}", t)}
        elif c.pre == "mean":
            pre = f"double msum{size};\n" + per_lane(f"msum{w} = 0;") + \
                over_inner(f"msum{w} += (double)xv;", "") + \
                f"\n{ct} m{size};\n" + per_lane(f"m{w} = ({ct})(msum{w} / (double)p->n_inner);")
            env_m = {"m": (f"m{w}", t)}
        value = "xv"
        env_y = {"y": ("yv", t)} if c.other else {}
        if c.map is not None:
            value, _ = scalar_c.render(C.resolve_enums(c.map, enums), t, {"x": ("xv", t)} | env_y | env_m | env_args)
        body = f"const {ct} mv = ({ct})({value});\n{_combine(a_t, c.combine, f'acc{w}', 'mv')}"
        init = f"{acc_t} acc{size};\n"
        inits = [f"acc{w} = ({acc_t})({_init(a_t, c.combine)});"]
        sums: dict[str, tuple[str, str]] = {}
        for k, extra in enumerate(c.extra_maps, 1):
            value_k, _ = scalar_c.render(C.resolve_enums(extra, enums), t, {"x": ("xv", t)} | env_y | env_m | env_args)
            body += f"\nconst {ct} mv{k} = ({ct})({value_k});\n{_combine(a_t, c.combine, f'acc{k}{w}', f'mv{k}')}"
            init += f"{acc_t} acc{k}{size};\n"
            inits.append(f"acc{k}{w} = ({acc_t})({_init(a_t, c.combine)});")
            sums[f"acc{k}"] = (f"(({C_TYPE[a_t]})acc{k}{w})", a_t)
        env = {"acc": (f"(({C_TYPE[a_t]})acc{w})", a_t), "n": ("p->n_inner", "int64")} | env_m | sums
        # One result per output (moments: the mean and the variance of the same sums).
        stores = "\n".join(
            f"output{k or ''}[o{' + w' if lanes else ''}] = ({C_TYPE[v.of(o.name)]})"
            f"({scalar_c.render(final, t, env)[0] if final is not None else f'acc{w}'});"
            for k, (o, final) in enumerate(zip(self.op.outputs, c.finalizers)))
        return "\n".join([pre, init + per_lane("\n".join(inits)), over_inner(body, other), per_lane(stores)])


class ArgReductionEmitter(Emitter):
    def emit(self) -> OpCode:
        c: C.ArgReduction = self.op.compute  # type: ignore[assignment]
        if c.searches:
            return self.search(c)
        out = self.op.outputs[0]
        frags = []
        cmp = ">" if c.which == "max" else "<"
        for v in self.variants:
            t = v.of(c.input)
            ct = C_TYPE[t]
            if D.category(t) == "float":
                better = f"(!nan_found && (isnan(xv) || xv {cmp} best))"
                track = "nan_found = isnan(xv);"
            else:
                better = f"(xv {cmp} best)"
                track = ""
            name = self.kernel_name(v)

            def value(at: str, t: str = t, ct: str = ct) -> str:
                return f"({ct})({scalar_c.render(c.map, t, {'x': (at, t)})[0]})" if c.map is not None else at

            is_float = D.category(t) == "float"
            nan_lanes = "int32_t nan[OPFORGE_SEARCH_LANES];" if is_float else ""
            nan_init = "nan[l] = 0;" if is_float else ""
            nan_mark = "nan[l] |= (int32_t)(xv != xv);" if is_float else ""
            nan_any = "any |= nan[l];" if is_float else ""
            nan_tail = "any |= (int32_t)(xv != xv);" if is_float else ""
            found = "any ? xv != xv : xv == best" if is_float else "xv == best"
            frags.append(fragment(name, f"""
/* The index of the first {c.which}imum of x[0..n), n >= 1, of the first NaN when there is
 * one: the {c.which}imum of each of OPFORGE_SEARCH_LANES lanes first, branch-free so the
 * compiler vectorises it, then a scan for where it is. The index of the one-pass loop. */
static inline int64_t {name}_contiguous(const {ct}* restrict x, int64_t n)
{{
    {ct} lane[OPFORGE_SEARCH_LANES];
    {nan_lanes}
    for (int32_t l = 0; l < OPFORGE_SEARCH_LANES; l++) {{
        lane[l] = {value("x[0]")};
        {nan_init}
    }}
    int64_t r = 0;
    for (; r + OPFORGE_SEARCH_LANES <= n; r += OPFORGE_SEARCH_LANES) {{
        for (int32_t l = 0; l < OPFORGE_SEARCH_LANES; l++) {{
            const {ct} xv = {value("x[r + l]")};
            lane[l] = xv {cmp} lane[l] ? xv : lane[l];
            {nan_mark}
        }}
    }}
    {ct} best = lane[0];
    int32_t any = 0;
    for (int32_t l = 0; l < OPFORGE_SEARCH_LANES; l++) {{
        best = lane[l] {cmp} best ? lane[l] : best;
        {nan_any}
    }}
    for (; r < n; r++) {{
        const {ct} xv = {value("x[r]")};
        best = xv {cmp} best ? xv : best;
        {nan_tail}
    }}
    for (r = 0; r < n; r++) {{
        const {ct} xv = {value("x[r]")};
        if ({found}) {{
            return r;
        }}
    }}
    (void)any;
    return 0;
}}

static inline void {name}(const {ct}* restrict x, int64_t* restrict output, const opf_reduce_plan* p)
{{
    int64_t oi[OPFORGE_MAX_RANK] = {{0}};
    int64_t base = 0;
    for (int64_t o = 0; o < p->n_outer; o++) {{
        int64_t off = base;
        {ct} best = x[base];
        int64_t best_i = 0;
        bool nan_found = false;
        const int64_t step = p->inner_stride[0];  /* (one axis searched: the plan's inner rank is 1) */
        if (OPFORGE_SEARCH_LANES > 1 && step == 1 && p->n_inner >= OPFORGE_SEARCH_LANES) {{
            best_i = {name}_contiguous(x + base, p->n_inner);
        }} else {{
            for (int64_t r = 0; r < p->n_inner; r++, off += step) {{
                const {ct} xv = {value("x[off]")};
                if (r == 0 || {better}) {{
                    best = xv;
                    best_i = r;
                    {track}
                }}
            }}
        }}
        (void)best;
        (void)nan_found;
        output[o] = best_i;
        opf_advance(p->outer_rank, p->outer_shape, oi, p->outer_stride, &base, NULL, NULL, NULL, NULL);
    }}
}}"""))
        lines = self.plan(c) + ["if (plan.n_inner == 0 && plan.n_outer > 0) {",
                                f"return opf_fail(detail, OPFORGE_ERR_EMPTY, {c_string(self.op.name + ': cannot search an empty axis')});",
                                "}"]
        return OpCode(tuple(frags), (), self.api(lines + self.dispatch(self.call(c))))

    def plan(self, c: C.ArgReduction) -> list[str]:
        """The reduce plan over the one axis, and the output's shape checked against it."""
        x = abi.c_name(c.input)
        return ["opf_reduce_plan plan;",
                "{",
                f"const int64_t axis_value = {abi.c_name(c.axis)};",
                f"if ({x}->rank == 0) {{",
                f"return opf_fail(detail, OPFORGE_ERR_RANK, {c_string(c.input + ': must have rank 1 or more')});",
                "}",
                f"const opforge_status st = opf_reduce_plan_make({x}, &axis_value, 1, {abi.c_name(c.keep_dims)}, &plan, detail);",
                "if (st != OPFORGE_OK) {", "return st;", "}", "}",
                *self.output_check("plan.out_rank", "plan.out_shape")]

    def call(self, c: C.ArgReduction) -> Callable[[D.Variant], list[str]]:
        x, outn = abi.c_name(c.input), abi.c_name(self.op.outputs[0].name)
        given = "".join(f", {abi.c_name(a)}" for a in c.args)

        def per_variant(v: D.Variant) -> list[str]:
            return [f"{self.kernel_name(v)}((const {C_TYPE[v.of(c.input)]}*){x}->data, (int64_t*){outn}->data, "
                    f"&plan{given});"]

        return per_variant

    def search(self, c: C.ArgReduction) -> OpCode:
        """first/last: the index where the predicate holds first (last) along the axis, else -1."""
        kinds = {a.name: a.type for a in self.op.args}
        enums = {a.name: a.possible_values for a in self.op.args if a.type is DataType.ENUM}
        env_args = {a: (abi.c_name(a), abi.scalar_dtype(kinds[a])) for a in c.args}
        arg_params = "".join(f", {abi.scalar_ctype(kinds[a])} {abi.c_name(a)}" for a in c.args)
        frags = []
        assert c.map is not None
        for v in self.variants:
            t = v.of(c.input)
            ct = C_TYPE[t]
            name = self.kernel_name(v)
            holds, _ = scalar_c.render(C.resolve_enums(c.map, enums), t, {"x": ("x[off]", t)} | env_args)
            stop = "break;" if c.which == "first" else ""
            frags.append(fragment(name, f"""
static inline void {name}(const {ct}* restrict x, int64_t* restrict output, const opf_reduce_plan* p{arg_params})
{{
    int64_t oi[OPFORGE_MAX_RANK] = {{0}};
    int64_t base = 0;
    for (int64_t o = 0; o < p->n_outer; o++) {{
        int64_t off = base;
        int64_t found = -1;
        const int64_t step = p->inner_stride[0];  /* (one axis searched: the plan's inner rank is 1) */
        for (int64_t r = 0; r < p->n_inner; r++, off += step) {{
            if ({holds}) {{
                found = r;
                {stop}
            }}
        }}
        output[o] = found;
        opf_advance(p->outer_rank, p->outer_shape, oi, p->outer_stride, &base, NULL, NULL, NULL, NULL);
    }}
}}"""))
        return OpCode(tuple(frags), (), self.api(self.plan(c) + self.dispatch(self.call(c))))


class FindAllEmitter(Emitter):
    """The flat indices where a predicate holds, in order, zeros after them, and their count."""

    def emit(self) -> OpCode:
        c: C.FindAll = self.op.compute  # type: ignore[assignment]
        kinds = {a.name: a.type for a in self.op.args}
        enums = {a.name: a.possible_values for a in self.op.args if a.type is DataType.ENUM}
        env_args = {a: (abi.c_name(a), abi.scalar_dtype(kinds[a])) for a in c.args}
        arg_params = "".join(f", {abi.scalar_ctype(kinds[a])} {abi.c_name(a)}" for a in c.args)
        frags = []
        for v in self.variants:
            t = v.of(c.input)
            name = self.kernel_name(v)
            holds, _ = scalar_c.render(C.resolve_enums(c.map, enums), t, {"x": ("x[i]", t)} | env_args)
            frags.append(fragment(name, f"""
static inline int64_t {name}(const {C_TYPE[t]}* restrict x, int64_t n, int64_t* restrict indices{arg_params})
{{
    int64_t count = 0;
    for (int64_t i = 0; i < n; i++) {{
        if ({holds}) {{
            indices[count++] = i;
        }}
    }}
    for (int64_t i = count; i < n; i++) {{
        indices[i] = 0;
    }}
    return count;
}}"""))
        x = abi.c_name(c.input)
        indices, count = self.op.outputs
        lines = [f"const int64_t n = opf_numel({x});",
                 *self.output_check("1", "&n", only=indices), *self.output_check("0", "&n", only=count)]
        given = "".join(f", {abi.c_name(a)}" for a in c.args)

        def per_variant(v: D.Variant) -> list[str]:
            return [f"*(int64_t*){abi.c_name(count.name)}->data = {self.kernel_name(v)}((const {C_TYPE[v.of(c.input)]}*)"
                    f"{x}->data, n, (int64_t*){abi.c_name(indices.name)}->data{given});"]

        return OpCode(tuple(frags), (), self.api(lines + self.dispatch(per_variant)))


# ---------------------------------------------------------------- contractions


def _tile_loop(acc_t: str, ct: str, rows: str, cols: str) -> str:
    """The accumulation of one tile of a matrix product, ``rows`` x ``cols`` of the
    result, the reduced axis outermost: each element still sums its products in
    order of k, so the result is the plain loop nest's to the bit."""
    return f"""{acc_t} acc[OPFORGE_TILE_ROWS][OPFORGE_TILE_COLS] = {{{{0}}}};
        for (int64_t k = 0; k < g->k; k++) {{
            const {ct}* restrict bk = b + k * g->b_red;
            for (int64_t r = 0; r < {rows}; r++) {{
                const {acc_t} ar = ({acc_t})a[r * g->a_row + k * g->a_red];
                for (int64_t c = 0; c < {cols}; c++) {{
                    acc[r][c] = ({acc_t})(acc[r][c] + ar * ({acc_t})bk[c]);
                }}
            }}
        }}
        for (int64_t r = 0; r < {rows}; r++) {{
            for (int64_t c = 0; c < {cols}; c++) {{
                o[r * g->n + c] = ({ct})acc[r][c];
            }}
        }}"""


def gemm_functions(name: str, dtype: str) -> str:
    """The functions computing one matrix product of an einsum plan (opf_gemm) in
    register tiles, strips of columns outermost so a strip of b stays in cache
    while every tile of rows passes over it (ADR 0027)."""
    ct = C_TYPE[dtype]
    acc_t = ct if D.category(dtype) == "float" else WIDE_UNSIGNED[dtype]
    return f"""
static inline void {name}_tile(int64_t rows, int64_t cols, const {ct}* restrict a, const {ct}* restrict b,
                                {ct}* restrict o, const opf_gemm* g)
{{
    if (rows == OPFORGE_TILE_ROWS && cols == OPFORGE_TILE_COLS) {{
        {_tile_loop(acc_t, ct, "OPFORGE_TILE_ROWS", "OPFORGE_TILE_COLS")}
    }} else {{
        {_tile_loop(acc_t, ct, "rows", "cols")}
    }}
}}

static inline void {name}(const {ct}* restrict a, const {ct}* restrict b, {ct}* restrict o, const opf_gemm* g)
{{
    for (int64_t j = 0; j < g->n; j += OPFORGE_TILE_COLS) {{
        const int64_t cols = g->n - j < OPFORGE_TILE_COLS ? g->n - j : OPFORGE_TILE_COLS;
        for (int64_t i = 0; i < g->m; i += OPFORGE_TILE_ROWS) {{
            const int64_t rows = g->m - i < OPFORGE_TILE_ROWS ? g->m - i : OPFORGE_TILE_ROWS;
            {name}_tile(rows, cols, a + i * g->a_row, b + j, o + i * g->n + j, g);
        }}
    }}
}}
"""


def einsum_kernel(name: str, dtype: str, operands: int) -> str:
    """The fragment running an einsum plan over one or two operands of ``dtype``
    (integers accumulate wrapping, in the wide unsigned type). A plan of two
    operands that is a batch of matrix products runs in register tiles."""
    ct = C_TYPE[dtype]
    acc_t = ct if D.category(dtype) == "float" else WIDE_UNSIGNED[dtype]
    gemm, functions = "", ""
    if operands == 2:
        functions = gemm_functions(f"{name}_gemm", dtype)
        term = f"({acc_t})a[ar] * ({acc_t})b[br]"
        params = f"const {ct}* restrict a, const {ct}* restrict b"
        adv_red = "p->red_stride[0], &ar, p->red_stride[1], &br, NULL, NULL"
        adv_out = "p->out_stride[0], &ao, p->out_stride[1], &bo, p->out_stride[2], &oo"
        # The products commute exactly (floats, and integers in unsigned arithmetic),
        # so a plan with the operands' roles swapped runs the same tiles.
        gemm = f"""
    opf_gemm g;
    if (OPFORGE_TILE_ROWS * OPFORGE_TILE_COLS > 1 && opf_einsum_gemm(p, &g)) {{
        int64_t bi[OPF_MAX_LOOPS] = {{0}};
        int64_t ao = 0, bo = 0, oo = 0, batches = 1;
        for (int32_t l = 0; l < p->n_out - 2; l++) {{
            batches *= p->out_extent[l];
        }}
        for (int64_t t = 0; t < batches; t++) {{
            {name}_gemm(g.swap ? b + bo : a + ao, g.swap ? a + ao : b + bo, output + oo, &g);
            opf_advance(p->n_out - 2, p->out_extent, bi, {adv_out});
        }}
        return;
    }}"""
    else:
        term = f"({acc_t})a[ar]"
        params = f"const {ct}* restrict a"
        adv_red = "p->red_stride[0], &ar, NULL, NULL, NULL, NULL"
        adv_out = "p->out_stride[0], &ao, p->out_stride[2], &oo, NULL, NULL"
    return fragment(name, functions + f"""
static inline void {name}({params}, {ct}* restrict output, const opf_einsum_plan* p)
{{{gemm}
    int64_t oi[OPF_MAX_LOOPS] = {{0}};
    int64_t ao = 0, bo = 0, oo = 0;
    for (int64_t o = 0; o < p->n_out_total; o++) {{
        int64_t ri[OPF_MAX_LOOPS] = {{0}};
        int64_t ar = ao, br = bo;
        {acc_t} acc = 0;
        for (int64_t r = 0; r < p->n_red_total; r++) {{
            acc = ({acc_t})(acc + {term});
            opf_advance(p->n_red, p->red_extent, ri, {adv_red});
        }}
        (void)br;
        output[oo] = ({ct})acc;
        opf_advance(p->n_out, p->out_extent, oi, {adv_out});
    }}
}}""")


class ContractionEmitter(Emitter):
    def emit(self) -> OpCode:
        c: C.Contraction = self.op.compute  # type: ignore[assignment]
        spec = c.spec
        ids = {label: i for i, label in enumerate(spec.labels)}
        names = [abi.c_name(n) for n in c.inputs]
        frags = [einsum_kernel(self.kernel_name(v), v.of(c.inputs[0]), len(names)) for v in self.variants]

        def label_ids(operand) -> str:
            return ", ".join(str(-1 if label == "..." else ids[label]) for label in operand.labels) or "0"

        lines = [f"/* einsum {c_comment(spec.text)} */"]
        for k, operand in enumerate(spec.inputs):
            lines.append(f"static const int8_t labels{k}[] = {{{label_ids(operand)}}};")
        lines.append(f"static const int8_t out_labels[] = {{{label_ids(spec.output)}}};")
        lines += [f"const opforge_tensor* const ops[] = {{{', '.join(names)}}};",
                  f"const int8_t* const labels[] = {{{', '.join(f'labels{k}' for k in range(len(names)))}}};",
                  f"const int32_t n_labels[] = {{{', '.join(str(len(o.labels)) for o in spec.inputs)}}};",
                  "opf_einsum_plan plan;",
                  "{",
                  f"const opforge_status st = opf_einsum_plan_make({len(names)}, ops, labels, n_labels, out_labels, "
                  f"{len(spec.output.labels)}, {len(ids)}, &plan, detail);",
                  "if (st != OPFORGE_OK) {", "return st;", "}", "}",
                  *self.output_check("plan.out_rank", "plan.out_shape")]
        return OpCode(tuple(frags), (), self.api(lines + self.run_plan(c.inputs)))

    def run_plan(self, inputs: tuple[str, ...]) -> list[str]:
        """The kernel of the primary tensor's dtype over ``plan``, into the output."""
        out = self.op.outputs[0]

        def per_variant(v: D.Variant) -> list[str]:
            data = [f"(const {C_TYPE[v.of(n)]}*){abi.c_name(n)}->data" for n in inputs]
            return [f"{self.kernel_name(v)}({', '.join(data)}, ({C_TYPE[v.of(out.name)]}*)"
                    f"{abi.c_name(out.name)}->data, &plan);"]

        return self.dispatch(per_variant)


class TensorDotEmitter(ContractionEmitter):
    """tensordot: the einsum labels built at run time from the axes args, then an einsum plan."""

    def emit(self) -> OpCode:
        c: C.TensorDot = self.op.compute  # type: ignore[assignment]
        x, y = (abi.c_name(n) for n in c.inputs)
        ax, ay = (abi.c_name(n) for n in c.axes)
        tx, ty, tz = (abi.c_name(n) for n in c.transposes)
        frags = [einsum_kernel(self.kernel_name(v), v.of(c.inputs[0]), 2) for v in self.variants]
        lines = ["int8_t labels_x[OPFORGE_MAX_RANK] = {0}, labels_y[OPFORGE_MAX_RANK] = {0};",
                 "int8_t out_labels[OPFORGE_MAX_RANK] = {0};",
                 "int32_t n_out = 0, n_ids = 0;",
                 "opf_einsum_plan plan;",
                 "{",
                 f"opforge_status st = opf_tensordot_labels({x}, {y}, {ax}, {ax}_count, {ay}, {ay}_count, {tx}, {ty}, "
                 f"{tz}, labels_x, labels_y, out_labels, &n_out, &n_ids, detail);",
                 "if (st != OPFORGE_OK) {", "return st;", "}",
                 f"const opforge_tensor* const ops[] = {{{x}, {y}}};",
                 "const int8_t* const labels[] = {labels_x, labels_y};",
                 f"const int32_t n_labels[] = {{{x}->rank, {y}->rank}};",
                 "st = opf_einsum_plan_make(2, ops, labels, n_labels, out_labels, n_out, n_ids, &plan, detail);",
                 "if (st != OPFORGE_OK) {", "return st;", "}", "}",
                 *self.output_check("plan.out_rank", "plan.out_shape")]
        return OpCode(tuple(frags), (), self.api(lines + self.run_plan(c.inputs)))


# ---------------------------------------------------------------- random


def _seed_ref(op: Op, name: str) -> str:
    for cfg in op.configs:
        if any(a.name == name for a in cfg.args):
            return f"cfg_{cfg.name}.{abi.c_name(name)}"
    return abi.c_name(name)


_SAMPLE = {
    "uniform": ("{low} + ({high} - {low}) * u", "u"),
    "normal": ("{mean} + {stddev} * z", "z"),
    "log_normal": ("exp({mean} + {stddev} * z)", "z"),
    "exponential": ("-log(1.0 - u) / {rate}", "u"),
    "bernoulli": ("(u < {p}) ? 1.0 : 0.0", "u"),
}


class RandomEmitter(Emitter):
    def emit(self) -> OpCode:
        c: C.RandomSample = self.op.compute  # type: ignore[assignment]
        out = self.op.outputs[0]
        params = dict(c.params)
        frags = []
        for v in self.variants:
            t = v.of(out.name)
            ct = C_TYPE[t]
            args = ", ".join(f"double {p}" for p in params)
            if c.distribution == "truncated_normal":
                body = """
        double z = 0.0;
        for (uint32_t b = 0; b < 64u; b++) {
            opf_random_block(seed, e, b, w);
            const double u1 = 1.0 - opf_unit53(w[0], w[1]);
            const double u2 = opf_unit53(w[2], w[3]);
            const double t = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
            if (fabs(t) <= 2.0) {
                z = t;
                break;
            }
        }
        output[j] = (TYPE)(mean + stddev * z);""".replace("TYPE", ct)
            elif c.distribution == "binomial":
                body = """
        int64_t count = 0;
        for (int64_t t = 0; t < n_trials; t++) {
            if ((t & 3) == 0) {
                opf_random_block(seed, e, (uint32_t)(t >> 2) + 1u, w);
            }
            count += ((double)w[t & 3] * (1.0 / 4294967296.0)) < p;
        }
        output[j] = (TYPE)count;""".replace("TYPE", ct)
                args = "int64_t n_trials, double p"
            else:
                formula, needs = _SAMPLE[c.distribution]
                unit = "opf_unit24(w[0])" if t == "float32" else "opf_unit53(w[0], w[1])"
                if needs == "z":
                    prelude = ("const double u1 = 1.0 - opf_unit53(w[0], w[1]);\n"
                               "const double u2 = opf_unit53(w[2], w[3]);\n"
                               "const double z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);")
                else:
                    prelude = f"const double u = {unit};" if c.distribution != "bernoulli" else \
                        "const double u = opf_unit53(w[0], w[1]);"
                body = f"""
        opf_random_block(seed, e, 0u, w);
        {prelude}
        output[j] = ({ct})({formula.format(**{k: k for k in params})});"""
            name = self.kernel_name(v)
            frags.append(fragment(name, f"""
static inline void {name}({ct}* restrict output, int64_t n, {args}, int64_t seed, int64_t offset)
{{
    for (int64_t j = 0; j < n; j++) {{
        const uint64_t e = (uint64_t)offset + (uint64_t)j;
        uint32_t w[4];
        {body.strip()}
    }}
}}"""))
        outn = abi.c_name(out.name)
        shape, dtype = abi.c_name("shape"), abi.c_name("dtype")
        lines = [f"if ({outn}->dtype != {dtype}) {{",
                 f"return opf_fail(detail, OPFORGE_ERR_DTYPE, {c_string(out.name + ': dtype must equal the dtype arg')});",
                 "}",
                 f"if ({shape}_count > OPFORGE_MAX_RANK) {{",
                 f"return opf_fail(detail, OPFORGE_ERR_RANK, {c_string('shape: more axes than the maximum rank')});",
                 "}",
                 f"for (int32_t d = 0; d < {shape}_count; d++) {{",
                 f"if ({shape}[d] < 0) {{",
                 f"return opf_fail(detail, OPFORGE_ERR_SIZE, {c_string('shape: sizes must not be negative')});",
                 "}", "}",
                 *self.output_check(f"{shape}_count", shape),
                 f"const int64_t n = opf_numel({outn});",
                 f"const int64_t seed = {_seed_ref(self.op, 'seed')};",
                 f"const int64_t offset = {_seed_ref(self.op, 'offset')};"]
        vals = [abi.c_name(a) for a in params.values()] if c.distribution != "binomial" else \
            [abi.c_name(params["n"]), abi.c_name(params["p"])]
        if c.distribution != "binomial":
            vals = [abi.c_name(params[k]) for k in params]

        def per_variant(v: D.Variant) -> list[str]:
            return [f"{self.kernel_name(v)}(({C_TYPE[v.of(out.name)]}*){outn}->data, n, {', '.join(vals)}, seed, offset);"]

        return OpCode(tuple(frags), (), self.api(lines + self.dispatch(per_variant, on=f"{outn}->dtype")))


# ---------------------------------------------------------------- fragments


#: How a fragment receives each kind of scalar arg (booleans and enums as int flags).
_FRAGMENT_ARG_CTYPE = {DataType.INT: "int64_t", DataType.LONG: "int64_t", DataType.FLOATING_POINT: "double",
                       DataType.NUMERIC: "double"}


class FragmentEmitter(Emitter):
    def emit(self) -> OpCode:
        c: C.FragmentKernel = self.op.compute  # type: ignore[assignment]
        root, shown = validate.fragment_root(self.op)
        texts: list[str] = []
        includes: list[str] = []
        for _, name in c.c_fragments:
            order, incs = fragments.resolve(root, c.c_file, name, shown)
            for f in order:
                text = fragment(f.name, f.text)
                if text not in texts:  # dependencies shared by several dtypes go in once
                    texts.append(text)
            includes += [i for i in incs if i not in includes]
        if c.layout == "flat":
            return OpCode(tuple(texts), tuple(includes), self.api(self.flat_body(c)))
        if c.layout == "select":
            return OpCode(tuple(texts), tuple(includes), self.api(self.select_body(c)))
        if c.layout in ("rows", "channels"):
            return OpCode(tuple(texts), tuple(includes), self.api(self.rows_body(c)))
        if c.layout == "dense":
            return OpCode(tuple(texts), tuple(includes), self.api(self.dense_body(c)))
        if c.layout == "shaped":
            return OpCode(tuple(texts), tuple(includes), self.api(self.shaped_body(c)))
        if c.matrix:
            api = self.api(self.matrix_body(c))
            if c.workspace is not None:
                api = self.workspace_function(c) + "\n" + api
            return OpCode(tuple(texts), tuple(includes), api)
        x = abi.c_name(self.op.inputs[0].name)
        outn = abi.c_name(self.op.outputs[0].name)
        lines = [f"int64_t axis_index = {abi.c_name(c.axis)};",
                 f"if ({x}->rank == 0) {{",
                 f"return opf_fail(detail, OPFORGE_ERR_RANK, {c_string(self.op.inputs[0].name + ': must have rank 1 or more')});",
                 "}",
                 f"if (axis_index < -(int64_t){x}->rank || axis_index >= {x}->rank) {{",
                 f"return opf_fail(detail, OPFORGE_ERR_ARG, {c_string(c.axis + ': out of range')});", "}",
                 "if (axis_index < 0) {", f"axis_index += {x}->rank;", "}",
                 *self.output_check(f"{x}->rank", f"{x}->shape"),
                 "int64_t step = 1, slot = 1;",
                 f"for (int32_t d = (int32_t)axis_index + 1; d < {x}->rank; d++) {{", f"step *= {x}->shape[d];", "}",
                 "for (int32_t d = 0; d < (int32_t)axis_index; d++) {", f"slot *= {x}->shape[d];", "}",
                 f"const int64_t size = {x}->shape[axis_index];"]
        frags_by_dtype = dict(c.c_fragments)
        extra = self.fragment_args(c)

        def per_variant(v: D.Variant) -> list[str]:
            ct = C_TYPE[v.dtype]
            return [f"{frags_by_dtype[v.dtype]}((const {ct}*){x}->data, step, size, slot, "
                    f"{', '.join(extra + [f'({ct}*){outn}->data'])});"]

        return OpCode(tuple(texts), tuple(includes), self.api(lines + self.dispatch(per_variant)))

    def fragment_args(self, c: C.FragmentKernel) -> list[str]:
        """The scalar args a fragment takes, cast to the C types fragments declare."""
        kinds = {a.name: a.type for a in self.op.args}
        return [f"({_FRAGMENT_ARG_CTYPE.get(kinds[a], 'int')}){abi.c_name(a)}" for a in c.args]

    def rows_body(self, c: C.FragmentKernel) -> list[str]:
        """Inputs of one shape in rows of their last axis (channels: the first input, the
        others one value per channel); the output has the first input's shape."""
        op = self.op
        names = [abi.c_name(i.name) for i in op.inputs]
        first = names[0]
        out = op.outputs[0]
        lines = [f"if ({first}->rank < 1) {{",
                 f"return opf_fail(detail, OPFORGE_ERR_RANK, {c_string(op.inputs[0].name + ': must have rank 1 or more')});",
                 "}"]
        for i, n in zip(op.inputs[1:], names[1:]):
            if c.layout == "channels":
                lines += [f"if ({n}->rank != 1 || {n}->shape[0] != {first}->shape[{first}->rank - 1]) {{",
                          f"return opf_fail(detail, OPFORGE_ERR_SHAPE, {c_string(i.name + ': must be a vector as long as the last axis of ' + op.inputs[0].name)});",
                          "}"]
                continue
            lines += [f"if (!opf_same_shape({n}, {first})) {{",
                      f"return opf_fail(detail, OPFORGE_ERR_SHAPE, {c_string(i.name + ': must have the shape of ' + op.inputs[0].name)});",
                      "}"]
        if c.widen == 1:
            lines += self.output_check(f"{first}->rank", f"{first}->shape")
        else:  # rows widen times as long (the size of x fits, so the product fits an index)
            lines += ["int64_t result[OPFORGE_MAX_RANK];", f"for (int32_t d = 0; d < {first}->rank; d++) {{",
                      f"result[d] = {first}->shape[d];", "}", f"result[{first}->rank - 1] *= {c.widen};",
                      *self.output_check(f"{first}->rank", "result")]
        lines += [f"const int64_t len = {first}->shape[{first}->rank - 1];",
                  f"const int64_t rows = opf_shape_numel({first}->rank - 1, {first}->shape);"]
        frags_by_dtype = dict(c.c_fragments)
        extra = self.fragment_args(c)

        def per_variant(v: D.Variant) -> list[str]:
            ct, ot = C_TYPE[v.dtype], C_TYPE[v.of(out.name)]
            operands = [f"(const {ct}*){n}->data" for n in names] + ["rows", "len", *extra,
                                                                     f"({ot}*){abi.c_name(out.name)}->data"]
            return [f"{frags_by_dtype[v.dtype]}({', '.join(operands)});"]

        return lines + self.dispatch(per_variant)

    def dense_body(self, c: C.FragmentKernel) -> list[str]:
        """Rows of the first input's last axis (len) times a len x units matrix, with
        vectors of units; the output has rows of units."""
        op = self.op
        names = [abi.c_name(i.name) for i in op.inputs]
        x, w = names[0], names[1]
        xname, wname = op.inputs[0].name, op.inputs[1].name
        lines = [f"if ({x}->rank < 1) {{",
                 f"return opf_fail(detail, OPFORGE_ERR_RANK, {c_string(xname + ': must have rank 1 or more')});",
                 "}", f"if ({w}->rank != 2 || {w}->shape[0] != {x}->shape[{x}->rank - 1]) {{",
                 f"return opf_fail(detail, OPFORGE_ERR_SHAPE, {c_string(wname + ': must be a matrix with as many rows as the last axis of ' + xname)});",
                 "}"]
        for i, n in zip(op.inputs[2:], names[2:]):
            lines += [f"if ({n}->rank != 1 || {n}->shape[0] != {w}->shape[1]) {{",
                      f"return opf_fail(detail, OPFORGE_ERR_SHAPE, {c_string(i.name + ': must be a vector as long as the columns of ' + wname)});",
                      "}"]
        lines += ["int64_t result[OPFORGE_MAX_RANK];", f"for (int32_t d = 0; d < {x}->rank - 1; d++) {{",
                  f"result[d] = {x}->shape[d];", "}", f"result[{x}->rank - 1] = {w}->shape[1];",
                  *self.output_check(f"{x}->rank", "result"),
                  f"const int64_t len = {x}->shape[{x}->rank - 1];",
                  f"const int64_t rows = opf_shape_numel({x}->rank - 1, {x}->shape);"]
        frags_by_dtype = dict(c.c_fragments)
        extra = self.fragment_args(c)
        out = op.outputs[0]

        def per_variant(v: D.Variant) -> list[str]:
            ct = C_TYPE[v.dtype]
            operands = [f"(const {ct}*){x}->data", "rows", "len", f"(const {ct}*){w}->data", f"{w}->shape[1]",
                        *[f"(const {ct}*){n}->data" for n in names[2:]], *extra,
                        f"({C_TYPE[v.of(out.name)]}*){abi.c_name(out.name)}->data"]
            return [f"{frags_by_dtype[v.dtype]}({', '.join(operands)});"]

        return lines + self.dispatch(per_variant)

    def shaped_body(self, c: C.FragmentKernel) -> list[str]:
        """Every input flat (data, element count); each output of its declared shape;
        the kernel returns 0, or not 0 on failure."""
        op = self.op
        lines: list[str] = []
        for o, shape in zip(op.outputs, c.shapes):
            out = abi.c_name(o.name)
            if isinstance(shape, E.ParamRef):  # the shape of that input
                source = abi.c_name(shape.name)
                lines += self.output_check(f"{source}->rank", f"{source}->shape", only=o)
                continue
            sizes = [self.constraints.render(size) for size in shape]
            lines += ["{", f"const int64_t result[{max(1, len(sizes))}] = {{{', '.join(sizes) or '0'}}};",
                      f"for (int32_t d = 0; d < {len(sizes)}; d++) {{", "if (result[d] < 0) {",
                      f"return opf_fail(detail, OPFORGE_ERR_ARG, {c_string(o.name + ': a size of the result is negative')});",
                      "}", "}", f"if (!opf_shape_is({out}, {len(sizes)}, result)) {{",
                      f"return opf_fail(detail, OPFORGE_ERR_SHAPE, {c_string(o.name + ': shape does not match the result')});",
                      "}", "}"]
        frags_by_dtype = dict(c.c_fragments)
        extra = self.fragment_args(c)
        message = c_string(c.failure or "the kernel failed")

        def per_variant(v: D.Variant) -> list[str]:
            operands = [f"(const {C_TYPE[v.of(i.name)]}*){abi.c_name(i.name)}->data, opf_numel({abi.c_name(i.name)})"
                        for i in op.inputs]
            outs = [f"({C_TYPE[v.of(o.name)]}*){abi.c_name(o.name)}->data" for o in op.outputs]
            call = f"{frags_by_dtype[v.dtype]}({', '.join(operands + extra + outs)})"
            return [f"if ({call} != 0) {{", f"return opf_fail(detail, OPFORGE_ERR_ARG, {message});", "}"]

        return lines + self.dispatch(per_variant)

    def select_body(self, c: C.FragmentKernel) -> list[str]:
        """One input in rows of its last axis; every output has rows of `length` (an arg)."""
        op = self.op
        x = abi.c_name(op.inputs[0].name)
        k = abi.c_name(c.length or "")
        lines = [f"if ({x}->rank < 1) {{",
                 f"return opf_fail(detail, OPFORGE_ERR_RANK, {c_string(op.inputs[0].name + ': must have rank 1 or more')});",
                 "}", f"if ({k} < 0 || {k} > {x}->shape[{x}->rank - 1]) {{",
                 f"return opf_fail(detail, OPFORGE_ERR_ARG, {c_string(f'{c.length}: must lie in 0..the size of the last axis')});",
                 "}", "int64_t result[OPFORGE_MAX_RANK];", f"for (int32_t d = 0; d < {x}->rank - 1; d++) {{",
                 f"result[d] = {x}->shape[d];", "}", f"result[{x}->rank - 1] = {k};",
                 *self.output_check(f"{x}->rank", "result", every=True),
                 f"const int64_t len = {x}->shape[{x}->rank - 1];",
                 f"const int64_t rows = opf_shape_numel({x}->rank - 1, {x}->shape);"]
        frags_by_dtype = dict(c.c_fragments)
        extra = self.fragment_args(c)

        def per_variant(v: D.Variant) -> list[str]:
            ct = C_TYPE[v.dtype]
            outs = [f"({C_TYPE[v.of(o.name)]}*){abi.c_name(o.name)}->data" for o in op.outputs]
            return [f"{frags_by_dtype[v.dtype]}({', '.join([f'(const {ct}*){x}->data', 'rows', 'len', *extra, *outs])});"]

        return lines + self.dispatch(per_variant)

    def flat_body(self, c: C.FragmentKernel) -> list[str]:
        """Every element of the input, in row-major order, into one output value."""
        x = abi.c_name(self.op.inputs[0].name)
        out = self.op.outputs[0]
        frags_by_dtype = dict(c.c_fragments)
        extra = self.fragment_args(c)

        def per_variant(v: D.Variant) -> list[str]:
            ct, ot = C_TYPE[v.dtype], C_TYPE[v.of(out.name)]
            operands = [f"(const {ct}*){x}->data", f"opf_numel({x})", *extra, f"({ot}*){abi.c_name(out.name)}->data"]
            return [f"{frags_by_dtype[v.dtype]}({', '.join(operands)});"]

        return self.output_check("0", "NULL") + self.dispatch(per_variant)

    def workspace_function(self, c: C.FragmentKernel) -> str:
        """``<fn>_workspace``: the inputs checked as the op checks them, then the bytes
        the kernel's scratch needs (a count of doubles, so double-aligned)."""
        lines = ["if (detail != NULL) {", "*detail = NULL;", "}", "if (bytes == NULL) {",
                 f"return opf_fail(detail, OPFORGE_ERR_NULL, {c_string('bytes: NULL')});", "}", "*bytes = 0;"]
        for t in self.op.inputs:
            allowed = {v.of(t.name) for v in self.variants}
            name = abi.c_name(t.name)
            lines += ["{", f"const opforge_status st = opf_check_tensor({name}, {mask(allowed)});",
                      "if (st != OPFORGE_OK) {",
                      f"return opf_fail(detail, st, {c_string(_tensor_message(t.name, allowed))});", "}", "}"]
        lines += self.matrix_shape_checks()
        lines += [f"const int64_t doubles = {self.constraints.render(c.workspace)};",
                  "if (doubles < 0 || (uint64_t)doubles > (uint64_t)(SIZE_MAX / sizeof(double))) {",
                  f"return opf_fail(detail, OPFORGE_ERR_SIZE, {c_string('workspace: its size does not fit in size_t')});",
                  "}", "*bytes = (size_t)doubles * sizeof(double);", "return OPFORGE_OK;"]
        return abi.workspace_prototype(self.op) + "\n{\n" + "\n".join(lines) + "\n}\n"

    def matrix_shape_checks(self) -> list[str]:
        """Every input holds matrices in its last two axes, with the batch axes of the first."""
        op = self.op
        names = [abi.c_name(i.name) for i in op.inputs]
        first = names[0]
        shared = op.compute.shared  # type: ignore[union-attr]
        lines = []
        for i, n in zip(op.inputs, names):
            if i.name in shared:  # one matrix for every batch
                lines += [f"if ({n}->rank != 2) {{",
                          f"return opf_fail(detail, OPFORGE_ERR_RANK, {c_string(i.name + ': must be a matrix (rank 2)')});",
                          "}"]
                continue
            lines += [f"if ({n}->rank < 2) {{",
                      f"return opf_fail(detail, OPFORGE_ERR_RANK, {c_string(i.name + ': must have rank 2 or more (matrices in the last two axes)')});",
                      "}"]
        for i, n in [(i, n) for i, n in zip(op.inputs[1:], names[1:]) if i.name not in shared]:
            lines += [f"if ({n}->rank != {first}->rank || memcmp({n}->shape, {first}->shape, sizeof({first}->shape[0]) * (size_t)({first}->rank - 2)) != 0) {{",
                      f"return opf_fail(detail, OPFORGE_ERR_SHAPE, {c_string(i.name + ': must have the batch axes of ' + op.inputs[0].name)});",
                      "}"]
        return lines

    def matrix_body(self, c: C.FragmentKernel) -> list[str]:
        """Matrices in the last two axes, one batch for all inputs; the kernel says if it failed."""
        op = self.op
        names = [abi.c_name(i.name) for i in op.inputs]
        first, last = names[0], names[-1]
        lines = self.matrix_shape_checks()
        lines += ["int64_t batch = 1;", f"for (int32_t d = 0; d < {first}->rank - 2; d++) {{", f"batch *= {first}->shape[d];", "}"]
        for o, layout in zip(op.outputs, c.layouts):  # each output's shape, by its layout
            out = abi.c_name(o.name)
            message = c_string(o.name + ': shape does not match the result')
            if layout == "matrix":
                lines += [f"if (!opf_shape_is({out}, {last}->rank, {last}->shape)) {{",
                          f"return opf_fail(detail, OPFORGE_ERR_SHAPE, {message});", "}"]
            elif layout == "matrix_reduce":
                lines += [f"if (!opf_shape_is({out}, {first}->rank - 2, {first}->shape)) {{",
                          f"return opf_fail(detail, OPFORGE_ERR_SHAPE, {message});", "}"]
            else:  # the batch axes, then the layout's tail (matrix_diagonal: min(rows, cols) of first)
                rows, cols = f"{first}->shape[{first}->rank - 2]", f"{first}->shape[{first}->rank - 1]"
                smaller = f"({rows} < {cols} ? {rows} : {cols})"
                last_cols = f"{last}->shape[{last}->rank - 1]"
                tail = {"matrix_solve": [cols, last_cols], "matrix_q": [rows, smaller], "matrix_r": [smaller, cols],
                        "matrix_v": [cols, smaller], "matrix_product": [rows, last_cols]}.get(layout, [smaller])
                lines += ["{", "int64_t result[OPFORGE_MAX_RANK];", f"for (int32_t d = 0; d < {first}->rank - 2; d++) {{",
                          f"result[d] = {first}->shape[d];", "}"]
                lines += [f"result[{first}->rank - 2 + {k}] = {v};" for k, v in enumerate(tail)]
                lines += [f"if (!opf_shape_is({out}, {first}->rank - 2 + {len(tail)}, result)) {{",
                          f"return opf_fail(detail, OPFORGE_ERR_SHAPE, {message});", "}", "}"]
        frags_by_dtype = dict(c.c_fragments)
        extra = self.fragment_args(c)
        message = c_string(c.failure or "the kernel failed")
        if c.workspace is not None:
            # The caller's scratch: at least what <fn>_workspace says, aligned for doubles.
            lines += [f"const int64_t doubles = {self.constraints.render(c.workspace)};",
                      "if (doubles > 0 && workspace == NULL) {",
                      f"return opf_fail(detail, OPFORGE_ERR_NULL, {c_string('workspace: NULL')});", "}",
                      "if (doubles < 0 || (uint64_t)doubles > (uint64_t)(workspace_bytes / sizeof(double))) {",
                      f"return opf_fail(detail, OPFORGE_ERR_SIZE, {c_string('workspace: smaller than ' + abi.function(op) + '_workspace gives')});",
                      "}", "if ((uintptr_t)workspace % sizeof(double) != 0) {",
                      f"return opf_fail(detail, OPFORGE_ERR_ARG, {c_string('workspace: not aligned for double')});",
                      "}"]
            for t in (*op.inputs, *op.outputs):  # the scratch is written while every tensor is in use
                lines += [f"if (!opf_bytes_disjoint(workspace, (size_t)doubles * sizeof(double), {abi.c_name(t.name)})) {{",
                          f"return opf_fail(detail, OPFORGE_ERR_OVERLAP, {c_string(f'workspace: overlaps {t.name}')});",
                          "}"]
            extra = extra + ["(double*)workspace"]

        def per_variant(v: D.Variant) -> list[str]:
            ct = C_TYPE[v.dtype]
            operands = [f"(const {ct}*){n}->data, {n}->shape[{n}->rank - 2], {n}->shape[{n}->rank - 1]" for n in names]
            outs = [f"({C_TYPE[v.of(o.name)]}*){abi.c_name(o.name)}->data" for o in op.outputs]
            call = f"{frags_by_dtype[v.dtype]}({', '.join(operands + ['batch'] + extra + outs)})"
            return [f"if ({call} != 0) {{", f"return opf_fail(detail, OPFORGE_ERR_ARG, {message});", "}"]

        return lines + self.dispatch(per_variant)


class GenerationEmitter(Emitter):
    """Tensors from args: one runtime function per kind, storing through the output's dtype."""

    def emit(self) -> OpCode:
        c: C.Generation = self.op.compute  # type: ignore[assignment]
        out = self.op.outputs[0]
        outn = abi.c_name(out.name)

        def arg(role: str) -> str:
            return abi.c_name(c.arg(role))

        call = {
            "fill": lambda: f"opf_generate_fill({arg('shape')}, {arg('shape')}_count, {arg('value')}, {outn}, detail)",
            "range": lambda: f"opf_generate_range({arg('start')}, {arg('limit')}, {arg('delta')}, {outn}, detail)",
            "linspace": lambda: f"opf_generate_linspace({arg('start')}, {arg('stop')}, {arg('num')}, {outn}, detail)",
            "eye": lambda: f"opf_generate_diagonals({arg('rows')}, {arg('cols')}, 0, 0, {outn}, detail)",
            "tri": lambda: f"opf_generate_diagonals({arg('rows')}, {arg('cols')}, INT64_MIN, {arg('diag')}, {outn}, detail)",
            "one_hot": lambda: (f"opf_generate_one_hot({arg('indices')}, {arg('depth')}, {arg('axis')}, {arg('on')}, "
                                f"{arg('off')}, {outn}, detail)"),
            "sequence_mask": lambda: f"opf_generate_sequence_mask({arg('lengths')}, {arg('maxlen')}, {outn}, detail)",
            "cast": lambda: f"opf_cast({arg('input')}, {outn})",
        }[c.generator]
        lines = [f"if ({outn}->dtype != {abi.c_name('dtype')}) {{",
                 f"return opf_fail(detail, OPFORGE_ERR_DTYPE, {c_string(out.name + ': dtype must equal the dtype arg')});",
                 "}"]
        if c.generator == "cast":  # the values of x, in x's shape
            lines += self.output_check(f"{arg('input')}->rank", f"{arg('input')}->shape")
        lines += [f"return {call()};"]
        return OpCode((), (), self.api_returning(lines))


class LayoutEmitter(Emitter):
    """Moves without arithmetic: one runtime plan builder per layout kind, then a
    byte copy shared by every dtype (so no per-dtype kernels)."""

    def emit(self) -> OpCode:
        c: C.LayoutMove = self.op.compute  # type: ignore[assignment]
        x = abi.c_name(c.input)
        out = abi.c_name(self.op.outputs[0].name)
        if c.layout in C.DATA_LAYOUTS:  # not a plan: the indices are data
            given = [abi.c_name(name) for _, name in c.params]
            if c.layout == "gather":
                given = [abi.c_name(c.arg("indices")), abi.c_name(c.arg("axis"))]
            elif c.layout == "reverse_sequence":
                given = [abi.c_name(c.arg(r)) for r in ("seq_lengths", "seq_axis", "batch_axis")]
            call = f"opf_{c.layout}({', '.join([x, *given, out, 'detail'])})"
            return OpCode((), (), self.api_returning([f"return {call};"]))

        def arg(role: str) -> str:
            return abi.c_name(c.arg(role))

        def array(role: str) -> str:
            return f"{arg(role)}, {arg(role)}_count"

        build = {
            "reshape": lambda: f"opf_layout_reshape({x}, {array('shape')}, &plan, detail)",
            "permute": lambda: f"opf_layout_permute({x}, {array('perm')}, &plan, detail)",
            "transpose": lambda: f"opf_layout_permute({x}, NULL, 0, &plan, detail)",
            "squeeze": lambda: f"opf_layout_squeeze({x}, {arg('axis')}, &plan, detail)",
            "expand_dims": lambda: f"opf_layout_expand_dims({x}, {arg('axis')}, &plan, detail)",
            "narrow": lambda: f"opf_layout_narrow({x}, &plan)",
            "reverse": lambda: f"opf_layout_reverse({x}, {array('axes')}, &plan, detail)",
            "tile": lambda: f"opf_layout_tile({x}, {array('repeats')}, &plan, detail)",
            "slice": lambda: f"opf_layout_slice({x}, {array('begin')}, {array('size')}, &plan, detail)",
            "strided_slice": lambda: (f"opf_layout_strided_slice({x}, {array('begin')}, {array('end')}, "
                                      f"{array('strides')}, &plan, detail)"),
            "pad": lambda: f"opf_layout_pad({x}, {array('paddings')}, (int){arg('mode')}, &plan, detail)",
        }[c.layout]
        lines = ["opf_layout_plan plan;", "{", f"const opforge_status st = {build()};",
                 "if (st != OPFORGE_OK) {", "return st;", "}", "}",
                 *self.output_check("plan.rank", "plan.shape"),
                 "unsigned char fill[8] = {0};"]
        if c.layout == "pad":
            lines += [f"if ({arg('mode')} == 0 && !opf_fill_value({x}->dtype, {arg('value')}, fill)) {{",
                      f"return opf_fail(detail, OPFORGE_ERR_ARG, {c_string(c.arg('value') + ': does not convert exactly to the dtype of ' + c.input)});",
                      "}"]
        lines += [f"opf_layout_run(&plan, (const unsigned char*){x}->data, opforge_dtype_size({x}->dtype), fill, "
                  f"(unsigned char*){out}->data);"]
        return OpCode((), (), self.api(lines))


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
        out = op.outputs[0].name
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
        lines = [f"if ({upd}->rank < {ind}->rank || memcmp({upd}->shape, {ind}->shape, "
                 f"sizeof(int64_t) * (size_t){ind}->rank) != 0) {{",
                 f"return opf_fail(detail, OPFORGE_ERR_SHAPE, {c_string(messages['prefix'])});", "}",
                 "int64_t shape[OPFORGE_MAX_RANK];", f"const int32_t rest = {upd}->rank - {ind}->rank;"]
        if c.ref is not None:
            ref = abi.c_name(c.ref)
            lines += [f"if ({ref}->rank < 1) {{",
                      f"return opf_fail(detail, OPFORGE_ERR_RANK, {c_string(messages['rank'])});", "}",
                      f"if ({ref}->rank - 1 != rest || memcmp({ref}->shape + 1, {upd}->shape + {ind}->rank, "
                      "sizeof(int64_t) * (size_t)rest) != 0) {",
                      f"return opf_fail(detail, OPFORGE_ERR_SHAPE, {c_string(messages['rows'])});", "}",
                      f"const int64_t rows = {ref}->shape[0];"]
        else:
            lines += [f"if ({abi.c_name(c.rows)} < 0) {{",
                      f"return opf_fail(detail, OPFORGE_ERR_ARG, {c_string(messages['count'])});", "}",
                      "if (rest + 1 > OPFORGE_MAX_RANK) {",
                      f"return opf_fail(detail, OPFORGE_ERR_RANK, {c_string(messages['max_rank'])});", "}",
                      f"const int64_t rows = {abi.c_name(c.rows)};"]
        lines += ["shape[0] = rows;", "for (int32_t d = 0; d < rest; d++) {",
                  f"shape[d + 1] = {upd}->shape[{ind}->rank + d];", "}",
                  *self.output_check("rest + 1", "shape"),
                  f"const int64_t count = opf_numel({ind});",
                  "const int64_t block = opf_shape_numel(rest, shape + 1);",
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


class ShapeQueryEmitter(Emitter):
    """Facts of a shape: one runtime function for every dtype (no kernels)."""

    def emit(self) -> OpCode:
        c: C.ShapeQuery = self.op.compute  # type: ignore[assignment]
        axis = abi.c_name(c.axis) if c.axis is not None else "0"
        call = (f"opf_shape_query({C.SHAPE_QUERIES.index(c.query)}, {abi.c_name(c.input)}, {axis}, "
                f"{abi.c_name(self.op.outputs[0].name)}, detail)")
        return OpCode((), (), self.api_returning([f"return {call};"]))


class StreamEmitter(Emitter):
    """A sliding window: state size, init, enqueue, ready and dequeue over a caller-owned buffer."""

    def emit(self) -> OpCode:
        op = self.op
        c: C.SlidingWindow = op.compute  # type: ignore[assignment]
        fn = abi.function(op)
        window, stride = abi.c_name(c.window), abi.c_name(c.stride)
        protos = abi.stream_prototypes(op)
        allowed = mask({v.dtype for v in self.variants})
        checks = []
        for _, con in op.all_constraints():
            refs = {r.kind for r in E.param_refs(con.expr)}
            if con.backend or "input" in refs:
                continue
            checks += [f"if (!{self.constraints.render(con.expr)}) {{",
                       f"return opf_fail(detail, OPFORGE_ERR_CONSTRAINT, {c_string(con.message)});", "}"]
        checks = "\n".join(checks)
        clear = "if (detail != NULL) {\n*detail = NULL;\n}"
        full = c_string("queue is full: dequeue first")
        empty = c_string("no complete window yet")
        api = f"""
{protos['state_size']}
{{
    {clear}
    {checks}
    int64_t frame_bytes = 0;
    const opforge_status st = opf_window_frame(frame, {allowed}, &frame_bytes, detail);
    if (st != OPFORGE_OK) {{
        return st;
    }}
    if (bytes == NULL) {{
        return opf_fail(detail, OPFORGE_ERR_NULL, "bytes: NULL");
    }}
    return opf_window_size({window}, frame_bytes, bytes, detail);
}}

{protos['init']}
{{
    size_t needed = 0;
    const opforge_status st = {fn}_state_size({window}, {stride}, frame, &needed, detail);
    if (st != OPFORGE_OK) {{
        return st;
    }}
    if (state == NULL) {{
        return opf_fail(detail, OPFORGE_ERR_NULL, "state: NULL");
    }}
    if (((uintptr_t)state % 8u) != 0 || state_size < needed) {{
        return opf_fail(detail, OPFORGE_ERR_SIZE, "state: misaligned or smaller than the state size");
    }}
    opf_window_state* s = (opf_window_state*)state;
    s->magic = OPF_WINDOW_MAGIC;
    s->dtype = frame->dtype;
    s->frame_rank = frame->rank;
    for (int32_t d = 0; d < OPFORGE_MAX_RANK; d++) {{
        s->frame_shape[d] = d < frame->rank ? frame->shape[d] : 1;
    }}
    opf_window_frame(frame, {allowed}, &s->frame_bytes, detail);
    s->window = {window};
    s->stride = {stride};
    s->capacity = {C.CAPACITY_WINDOWS} * {window};
    s->count = 0;
    s->skip = 0;
    return OPFORGE_OK;
}}

{protos['enqueue']}
{{
    {clear}
    opf_window_state* s = NULL;
    opforge_status st = opf_window_get(state, &s, detail);
    if (st != OPFORGE_OK) {{
        return st;
    }}
    st = opf_check_tensor(x, OPF_DTYPE_BIT(s->dtype));
    if (st != OPFORGE_OK) {{
        return opf_fail(detail, st, "x: NULL, a dtype other than the frames', or a bad size");
    }}
    if (x->rank != s->frame_rank + 1) {{
        return opf_fail(detail, OPFORGE_ERR_RANK, "x: rank must be the frame rank plus one");
    }}
    for (int32_t d = 0; d < s->frame_rank; d++) {{
        if (x->shape[d + 1] != s->frame_shape[d]) {{
            return opf_fail(detail, OPFORGE_ERR_SHAPE, "x: frames must have the frame shape");
        }}
    }}
    const int64_t n = x->shape[0];
    const int64_t drop = n < s->skip ? n : s->skip;
    const int64_t store = n - drop;
    if (s->count + store > s->capacity) {{
        return opf_fail(detail, OPFORGE_ERR_SIZE, {full});
    }}
    s->skip -= drop;
    if (store > 0) {{
        memcpy(opf_window_frames(s) + s->count * s->frame_bytes,
               (const unsigned char*)x->data + drop * s->frame_bytes, (size_t)(store * s->frame_bytes));
    }}
    s->count += store;
    return OPFORGE_OK;
}}

{protos['ready']}
{{
    {clear}
    opf_window_state* s = NULL;
    const opforge_status st = opf_window_get(state, &s, detail);
    if (st != OPFORGE_OK) {{
        return st;
    }}
    if (ready == NULL) {{
        return opf_fail(detail, OPFORGE_ERR_NULL, "ready: NULL");
    }}
    *ready = s->count >= s->window;
    return OPFORGE_OK;
}}

{protos['dequeue']}
{{
    {clear}
    opf_window_state* s = NULL;
    opforge_status st = opf_window_get(state, &s, detail);
    if (st != OPFORGE_OK) {{
        return st;
    }}
    st = opf_check_tensor(output, OPF_DTYPE_BIT(s->dtype));
    if (st != OPFORGE_OK) {{
        return opf_fail(detail, st, "output: NULL, a dtype other than the frames', or a bad size");
    }}
    bool fits = output->rank == s->frame_rank + 1 && output->shape[0] == s->window;
    for (int32_t d = 0; fits && d < s->frame_rank; d++) {{
        fits = output->shape[d + 1] == s->frame_shape[d];
    }}
    if (!fits) {{
        return opf_fail(detail, OPFORGE_ERR_SHAPE, "output: shape must be (window, *frame)");
    }}
    if (s->count < s->window) {{
        return opf_fail(detail, OPFORGE_ERR_EMPTY, {empty});
    }}
    unsigned char* frames = opf_window_frames(s);
    memcpy(output->data, frames, (size_t)(s->window * s->frame_bytes));
    const int64_t drop = s->stride < s->count ? s->stride : s->count;
    memmove(frames, frames + drop * s->frame_bytes, (size_t)((s->count - drop) * s->frame_bytes));
    s->count -= drop;
    s->skip += s->stride - drop;
    return OPFORGE_OK;
}}
"""
        return OpCode((), (), api)


def config_typedef(config: Config) -> str:
    """The C struct of a config: one field per arg; ops take a pointer (NULL: every default)."""
    fields = "\n".join(f"    {abi.scalar_ctype(a.type)} {abi.c_name(a.name)};" for a in config.args)
    return (f"/* {c_comment(config.name)}: passed as a pointer; NULL means every default. */\n"
            f"typedef struct {abi.config_struct(config)} {{\n{fields or '    int unused;'}\n}} "
            f"{abi.config_struct(config)};\n")


class JoinEmitter(Emitter):
    """concat and stack: one runtime copy for every dtype (bytes move, none is computed)."""

    def emit(self) -> OpCode:
        c: C.Join = self.op.compute  # type: ignore[assignment]
        xs = abi.c_name(c.inputs)
        call = (f"opf_join({xs}, {xs}_count, {abi.c_name(c.axis)}, {'true' if c.stack else 'false'}, "
                f"{abi.c_name(self.op.outputs[0].name)}, detail)")
        return OpCode((), (), self.api_returning([f"return {call};"]))


class PartsEmitter(Emitter):
    """split, unstack and meshgrid: one runtime copy for every dtype into a list of outputs."""

    def emit(self) -> OpCode:
        c: C.Parts = self.op.compute  # type: ignore[assignment]
        src, outs = abi.c_name(c.source), abi.c_name(c.outputs)
        if c.part == "meshgrid":
            call = f"opf_meshgrid({src}, {src}_count, {abi.c_name(c.arg('cartesian'))}, {outs}, {outs}_count, detail)"
        else:
            num, unstack = (abi.c_name(c.arg("num")), "false") if c.part == "split" else ("0", "true")
            call = f"opf_split({src}, {abi.c_name(c.arg('axis'))}, {num}, {unstack}, {outs}, {outs}_count, detail)"
        return OpCode((), (), self.api_returning([f"return {call};"]))


class MergeEmitter(Emitter):
    """Element by element over a list of equal-shape tensors, in list order."""

    def emit(self) -> OpCode:
        c: C.Merge = self.op.compute  # type: ignore[assignment]
        out = self.op.outputs[0]
        frags = []
        for v in self.variants:
            t = v.of(c.inputs)
            ct, ot = C_TYPE[t], C_TYPE[v.of(out.name)]
            floating = D.category(t) == "float"
            value = f"((const {ct}*)xs[k]->data)[i]"
            if c.combine == "add":
                init, step, result = f"{ct} acc = ((const {ct}*)xs[0]->data)[i];", f"acc = ({ct})(acc + {value});", "acc"
            elif c.combine == "avg":
                init, step, result = "double acc = 0;", f"acc += (double){value};", "acc / (double)count"
                # the sum starts at 0: every tensor, the first included, is added
            elif c.combine == "max":
                better = f"(isnan(v) || v > acc)" if floating else "(v > acc)"
                init = f"{ct} acc = ((const {ct}*)xs[0]->data)[i];"
                step, result = f"const {ct} v = {value};\nif ({better}) {{\nacc = v;\n}}", "acc"
            else:  # max_index: the first largest; the first NaN counts as largest
                better = "(!nan_found && (isnan(v) || v > best))" if floating else "(v > best)"
                track = "nan_found = isnan(v);" if floating else ""
                init = (f"{ct} best = ((const {ct}*)xs[0]->data)[i];\nint64_t acc = 0;\n"
                        f"bool nan_found = {'isnan(best)' if floating else 'false'};")
                step = f"const {ct} v = {value};\nif ({better}) {{\nbest = v;\nacc = k;\n{track}\n}}"
                result = "acc"
            first = 0 if c.combine == "avg" else 1
            name = self.kernel_name(v)
            frags.append(fragment(name, f"""
static inline void {name}(const opforge_tensor* const* xs, int32_t count, int64_t n, {ot}* restrict output)
{{
    for (int64_t i = 0; i < n; i++) {{
        {init}
        for (int32_t k = {first}; k < count; k++) {{
            {step}
        }}
        {"(void)nan_found;" if c.combine == "max_index" else ""}
        output[i] = ({ot})({result});
    }}
}}"""))
        xs, outn = abi.c_name(c.inputs), abi.c_name(out.name)
        lines = [f"for (int32_t k = 1; k < {xs}_count; k++) {{",
                 f"if (!opf_same_shape({xs}[k], {xs}[0])) {{",
                 f"return opf_fail(detail, OPFORGE_ERR_SHAPE, {c_string(c.inputs + ': must all have the same shape')});",
                 "}", "}", *self.output_check(f"{xs}[0]->rank", f"{xs}[0]->shape")]

        def per_variant(v: D.Variant) -> list[str]:
            return [f"{self.kernel_name(v)}({xs}, {xs}_count, opf_numel({xs}[0]), ({C_TYPE[v.of(out.name)]}*){outn}->data);"]

        return OpCode(tuple(frags), (), self.api(lines + self.dispatch(per_variant)))


EMITTERS: dict[type, type[Emitter]] = {
    C.Elementwise: ElementwiseEmitter,
    C.Reduction: ReductionEmitter,
    C.ArgReduction: ArgReductionEmitter,
    C.Contraction: ContractionEmitter,
    C.TensorDot: TensorDotEmitter,
    C.FindAll: FindAllEmitter,
    C.RandomSample: RandomEmitter,
    C.FragmentKernel: FragmentEmitter,
    C.SlidingWindow: StreamEmitter,
    C.LayoutMove: LayoutEmitter,
    C.Generation: GenerationEmitter,
    C.ScatterRows: ScatterEmitter,
    C.ShapeQuery: ShapeQueryEmitter,
    C.Join: JoinEmitter,
    C.Merge: MergeEmitter,
    C.Parts: PartsEmitter,
}


def emit(op: Op) -> OpCode:
    return EMITTERS[type(op.compute)](op).emit()
