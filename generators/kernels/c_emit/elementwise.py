"""Elementwise kernels: a contiguous loop and rows with one step per operand (ADR 0007, 0025)."""

from __future__ import annotations

import attrs

from dsl import compute as C
from dsl import expr as E
from dsl import dtypes as D
from dsl import fixed_point as F
from dsl.scalar import SExpr, SSym
from generators import abi
from generators.formatting import c_string
from generators.kernels import evaluate, fixed_point, scalar_c
from generators.kernels.scalar_c import C_TYPE
from generators.kernels.c_emit import fixed_point_api
from generators.kernels.c_emit.base import (LOOP_RANKS, PLAIN_SIZES, CFragment, Emitter, OpCode, PlainKernel,
                                            axis_loops, fragment, tensor_message)


def c_presence(presence: tuple[tuple[str, bool], ...]) -> str:
    """A case's presence rule (``Elementwise.presence``) in C: an optional arg is a pointer, NULL
    where it is not given."""
    return " && ".join(f"{abi.c_name(p)} {'!=' if given else '=='} NULL" for p, given in presence) or "true"


@attrs.frozen
class _Case:
    """One case of an elementwise op for one dtype variant: what its kernels are made of."""

    v: D.Variant
    expr: E.Expr
    name: str  # the kernel's name
    inputs: tuple[str, ...]  # the op's tensor operands
    used: tuple[str, ...]  # the scalar args the case reads
    env_args: dict  # those args as the scalar renderer sees them
    compute_dtype: str
    out: str  # the output's C name
    oc: str  # the output's C type
    params: tuple[str, ...]  # the contiguous kernel's parameters before the count
    #: Of a fixed-point case: the stored result's rule (over the stored inputs, in its domain)
    fixed: F.Conversion | None = None
    prologue: str = ""  # statements once per call, before the loop (a D kernel's multipliers)
    #: Of a variant computed in another dtype (an integer through float64, ADR 0058; a half in
    #: float32, ADR 0075): the output's dtype, which the value converts to by cast's rule
    converts: str | None = None
    #: Of such a variant of an 8-bit unary tree: its result for every input value, from the
    #: NumPy reference at generation time (a kernel reads it: no libm, no double on the core)
    table: tuple[int, ...] = ()

    @property
    def read(self) -> list[tuple[int, str]]:
        """The operands the case reads, with their positions."""
        return [(j, p) for j, p in enumerate(self.inputs) if p in C.symbols(self.expr)]

    def code(self, env: dict) -> str:
        """The case's value, a number as a truth where the output is bool: nonzero (NaN too), as NumPy."""
        code, code_dtype = scalar_c.render(self.expr, self.compute_dtype, env | self.env_args)
        return f"({code}) != 0" if self.oc == "bool" and code_dtype != "bool" else code

    def store(self, target: str, env: dict) -> str:
        """The statement that stores the case's value for the operands ``env`` reads in ``target``."""
        if self.table:  # (indexed from the dtype's lowest value)
            code, dtype = env[self.inputs[0]]
            low = -(1 << (D.BITS[dtype] - 1)) if D.category(dtype) == "signed" else 0
            return f"{target} = table[(int)({code}){f' + {-low}' if low else ''}];"
        if self.converts is not None:  # (the converted value is read more than once)
            back = scalar_c.converted("r", self.compute_dtype, self.converts)
            return f"{{ const {C_TYPE[self.compute_dtype]} r = {self.code(env)}; {target} = {back}; }}"
        if self.fixed is None:
            return f"{target} = ({self.oc})({self.code(env)});"
        domain = self.fixed.domain  # (each stored input widened to the rule's domain first)
        wide = {p: (f"(({C_TYPE[domain]}){code})", domain) for p, (code, _) in env.items()}
        return fixed_point.c_statement(self.fixed, target, wide | self.env_args)


#: The dtypes of numeric args (a bool arg is a truth, read as it is).
_NUMERIC = ("int64", "float64")


def _converted_only(expr: E.Expr, name: str) -> bool:
    """Whether every read of symbol ``name`` converts it to the compute dtype: it is an operand
    of a call that is not logical (which read truths as they are) nor a ``where``'s condition."""
    if isinstance(expr, C.SSym):
        return expr.name != name  # the whole function: the output's cast reads it as it is
    if not isinstance(expr, C.SCall):
        return True
    raw = expr.fn.startswith("logical_") or expr.fn == "where"
    for k, a in enumerate(expr.args):
        if isinstance(a, C.SSym) and a.name == name and (expr.fn.startswith("logical_") or (raw and k == 0)):
            return False
        if isinstance(a, C.SCall) and not _converted_only(a, name):
            return False
    return True


class ElementwiseEmitter(Emitter):
    def emit(self) -> OpCode:
        c: C.Elementwise = self.op.compute  # type: ignore[assignment]
        inputs = [p for p in c.params if any(i.name == p for i in self.op.inputs)]
        args = {a.name: a for a in self.op.args}
        frags: list[CFragment] = []
        plain: list[PlainKernel] = []
        for v in self.variants:
            for k, (given, expr) in enumerate(c.cases):
                case = self._case(c, v, k, expr, inputs)
                frags.append(fragment(case.name, self.contiguous(case, case.name, "int64_t")))
                kernels = self.plain_kernels(case)
                if len(c.cases) > 1:
                    kernels = [attrs.evolve(kernel, presence=c.presence(given), case=f"_c{k}") for kernel in kernels]
                plain += kernels
                frags.append(fragment(case.name + "_strided", self.strided(case)))
        plain += self.fixed_point_kernels(c, inputs)
        fixed = self.fixed_point_cases(c, inputs)
        for _, _, case in fixed:  # (the C API's: a contiguous loop, and rows for the rest)
            frags += [fragment(case.name, self.contiguous(case, case.name, "int64_t")),
                      fragment(case.name + "_strided", self.strided(case))]
        self.fixed_variants = [D.Variant(t.name, tuple((n, t.name if d == t.storage else d) for n, d in case.v.tensors))
                               for t, _, case in fixed]
        tables = fixed_point.api_tables(self.op)
        out = self.op.outputs[0].name
        for name, derived in tables.items():  # (the C API's lookup, counting in int64_t; a fill per case)
            t = F.TYPES[name]
            cases = fixed_point.table_cases(self.op, t)
            for k, (_, tree, case) in enumerate(cases):
                fill = self.table_kernel(inputs[0], t, case, tree, f"_c{k}" if len(cases) > 1 else "").init
                assert fill is not None
                frags.append(fill)
            frags.append(self.table_apply(inputs[0], t, derived))
            self.fixed_variants.append(D.Variant(name, ((inputs[0], name), (out, name))))
        body = self.body(c, inputs, args, {t.name: (derived, case) for t, derived, case in fixed}, tables)
        api = self.api(body) + (self.table_api(inputs[0], tables, args) if tables else "")
        return OpCode(tuple(frags), (), api, tuple(plain))

    def plain_kernels(self, case: _Case) -> list[PlainKernel]:
        """The case's loop with an int count (a 32-bit core's natural one), and for two operands
        one broadcast into the other, or a single element."""
        names = [*case.inputs, *case.used, self.op.outputs[0].name, "n"]
        kernels = [PlainKernel(fragment(f"{case.name}_n", self.contiguous(case, f"{case.name}_n", "int")),
                               case.v, tuple(zip([*case.params, "int n"], names)))]
        if self.op.compute.broadcast == "equal":  # (no operand is ever broadcast)
            return kernels
        if len(case.inputs) == 2:  # (a unit tries them in this order)
            kernels += [self.scalar(case, geometry) for geometry in ("second_scalar", "first_scalar")]
            kernels += [self.stretched(case, geometry) for geometry in ("second_stretched", "first_stretched")]
        if len(case.inputs) >= 2:  # whatever the others do not compute: last, fewest loops first
            kernels += [self.broadcast(case, rank) for rank in LOOP_RANKS]
        return kernels

    def fixed_point_kernels(self, c: C.Elementwise, inputs: list[str]) -> list[PlainKernel]:
        """The plain kernels of each fixed-point type the op's tree derives a kernel for (ADR 0036,
        0038): the float kernels' loops over the stored values, each input moved by its per-call
        ``<input>_k``, the output's shift an expression over the inputs' (a unit's Expressions);
        a unary op's table. Args reach only a table (its fill reads them, as numbers)."""
        kernels: list[PlainKernel] = []
        cases = {t.name: (derived, case) for t, derived, case in self.fixed_point_cases(c, inputs)}
        tables = fixed_point.api_tables(self.op)
        for t in F.TYPES.values():
            if t.name not in cases:
                table_cases = fixed_point.table_cases(self.op, t) if t.name in tables else []
                for k, (given, tree, table) in enumerate(table_cases):  # (several: chosen by the args given)
                    kernel = self.table_kernel(inputs[0], t, table, tree, f"_c{k}" if len(table_cases) > 1 else "")
                    if len(table_cases) > 1:
                        kernel = attrs.evolve(kernel, presence=c.presence(given), case=f"_c{k}")
                    kernels.append(kernel)
                continue
            derived, case = cases[t.name]
            if isinstance(derived, (F.DKernel, F.DLog)):
                per_call = tuple((u, SSym(u)) for u in case.used if not u.startswith("output_"))
                chosen = () if case.oc == "bool" else ("scale", "offset")
                kernels += [attrs.evolve(k, fixed_point=t.name, per_call=per_call, chosen=chosen)
                            for k in self.plain_kernels(case)]
                continue
            if isinstance(derived, F.Clamp):  # (the output: the input's attributes)
                kept = tuple((a, SSym(f"{derived.input}_{a}")) for a in t.attributes)
                kernels += [attrs.evolve(k, fixed_point=t.name, per_call=derived.per_call, output_attributes=kept)
                            for k in self.plain_kernels(case)]
                continue
            shift = () if derived.output_shift is None else (("shift", derived.output_shift),)
            kernels += [attrs.evolve(k, fixed_point=t.name, per_call=derived.per_call, output_attributes=shift)
                        for k in self.plain_kernels(case)]
        return kernels

    def fixed_point_cases(self, c: C.Elementwise, inputs: list[str]
                          ) -> list[tuple[F.FixedPointType, fixed_point.Kernel, _Case]]:
        """Each fixed-point type whose elementwise rule the op's tree derives (ADR 0036,
        ``fixed_point.api_kernels``) with the case that computes it over the stored values: each
        input moved by its per-call ``<input>_k`` (Q), or rescaled by multipliers computed once
        per call from the tensors' scales (D)."""
        return [(F.TYPES[name], derived, self._d_case(c, inputs, F.TYPES[name], derived)
                 if isinstance(derived, (F.DKernel, F.DLog)) else self._q_case(c, inputs, F.TYPES[name], derived))
                for name, derived in fixed_point.api_kernels(self.op).items()]

    def _q_case(self, c: C.Elementwise, inputs: list[str], t: F.FixedPointType,
                derived: F.QKernel | F.Clamp | F.Log) -> _Case:
        """A Q kernel's case, a clamp's (either family) or a logarithm's: the stored inputs and the
        per-call integers (a Q input's move, a clamp's stored bounds, a logarithm's constants)."""
        out = self.op.outputs[0].name
        stored = C_TYPE[t.storage]
        # (a comparison's result: a truth)
        result = t.storage if isinstance(derived, F.Clamp) or derived.output_shift is not None else "bool"
        v = D.Variant(t.storage, (*((p, t.storage) for p in inputs), (out, result)))
        used = tuple(name for name, _ in derived.per_call)
        # (an int each; a clamp's compared bound, one past the type's ends: int64)
        wide = {name: "int64" for name, rule in derived.per_call
                if isinstance(rule, F.Conversion) and rule.storage == "int64"}
        params = (*(f"const {stored}* {abi.c_name(p)}" for p in inputs),
                  *(f"{'int64_t' if n in wide else 'int'} {abi.c_name(n)}" for n in used),
                  f"{C_TYPE[result]}* {abi.c_name(out)}")
        return _Case(v, c.cases[0][1], f"{self.fn}_{t.name}", tuple(inputs), used,
                     {n: (abi.c_name(n), wide.get(n, "int32")) for n in used}, derived.value.domain, abi.c_name(out),
                     C_TYPE[result], params, derived.value)

    def table_kernel(self, x: str, t: F.FixedPointType, derived: F.Conversion | F.InterpolatedTable,
                     tree: SExpr | None = None, suffix: str = "") -> PlainKernel:
        """A unary op's lookup (ADR 0036's tables, TFLite Micro's way): a fill of the table from
        the float reference for the input's and the output's attributes, run once (a unit's
        Init, into a Handle), and a loop that reads it; the output's attributes the caller's."""
        out, stored = self.op.outputs[0].name, C_TYPE[t.storage]
        tensors = (x, "output")
        if t.family == "Q":
            attributes = [(f"int {n}_shift", f"{n}_shift") for n in tensors]
            factors = "".join(f"const double {n}_factor = (double)opf_q_factor({t.fraction_bits}, {n}_shift);\n"
                              for n in tensors)
            env = {f"{n}_factor": (f"{n}_factor", "float64") for n in tensors}
        else:
            attributes = [p for n in tensors for p in ((f"double {n}_scale", f"{n}_scale"),
                                                        (f"int {n}_offset", f"{n}_offset"))]
            factors = ""
            env = {f"{n}_{a}": (f"{n}_{a}" if a == "scale" else f"(double){n}_offset", "float64")
                   for n in tensors for a in ("scale", "offset")}
        tree = self.op.compute.case(()) if tree is None else tree  # type: ignore[union-attr]
        used = [a.name for a in self.op.args if a.name in C.symbols(tree)]
        attributes += [(f"double {abi.c_name(a)}", a) for a in used]  # (the args, as the fill reads them)
        env |= {a: (abi.c_name(a), "float64") for a in used}
        fill_name, name = f"{self.fn}_{t.name}_table{suffix}", f"{self.fn}_{t.name}_lookup{suffix}"
        # (an op that ignores its input, zeros_like, or an attribute: -Wunused quiet)
        unused = "".join(f"(void){abi.c_name(source)};" for _, source in attributes)
        unused += "".join(f"(void){n}_factor;" for n in tensors) if t.family == "Q" else ""
        entry = C_TYPE[fixed_point.table_storage(derived, t)]
        fill = fragment(fill_name, f"""
static inline int {fill_name}(void* table, {', '.join(d for d, _ in attributes)})
{{
    {entry}* entries = ({entry}*)table;
    {factors}
    {unused}
    {fixed_point.c_table_fill(derived, t, "entries", env)}
    return 0;
}}""")
        lookup = f"""
static inline void {name}(const {stored}* {abi.c_name(x)}, const void* table, {stored}* {abi.c_name(out)}, int n)
{{
    const {entry}* entries = (const {entry}*)table;
    for (int i = 0; i < n; i++) {{
        {fixed_point.c_table_lookup(derived, t, "entries", f"{abi.c_name(x)}[i]", f"{abi.c_name(out)}[i]")}
    }}
}}"""
        v = D.Variant(t.storage, ((x, t.storage), (out, t.storage)))
        params = ((f"const {stored}* {abi.c_name(x)}", x), ("const void* table", "table"),
                  (f"{stored}* {abi.c_name(out)}", out), ("int n", "n"))
        per_call = tuple((source, SSym(source)) for _, source in attributes
                         if not source.startswith("output_") and source not in used)
        return PlainKernel(fragment(name, lookup), v, params, fixed_point=t.name, per_call=per_call,
                           chosen=tuple(t.attributes), init=fill, init_parameters=(("void* table", "table"),
                                                                                   *attributes),
                           table_bytes=fixed_point.table_bytes(derived, t))

    def table_apply(self, x: str, t: F.FixedPointType, derived: F.Conversion | F.InterpolatedTable) -> CFragment:
        """The C API's loop that reads a unary op's table (filled by ``table_kernel``'s fill)."""
        stored, name = C_TYPE[t.storage], f"{self.fn}_{t.name}_apply"
        entry = C_TYPE[fixed_point.table_storage(derived, t)]
        lookup = fixed_point.c_table_lookup(derived, t, "entries", f"{abi.c_name(x)}[i]", "output[i]")
        return fragment(name, f"""
static inline void {name}(const {stored}* {abi.c_name(x)}, const void* table, {stored}* output, int64_t n)
{{
    const {entry}* entries = (const {entry}*)table;
    for (int64_t i = 0; i < n; i++) {{
        {lookup}
    }}
}}""")

    def table_fill(self, x: str, t: F.FixedPointType, args: dict, entries: str) -> list[str]:
        """Statements that fill ``entries`` (a table's bytes) for the descriptors' attributes and the
        op's numeric args, by the fill of the case the args given choose; a 16-bit fill that
        refuses returns OPFORGE_ERR_ATTRIBUTE (``TABLE_MISS``)."""
        out = abi.c_name(self.op.outputs[0].name)
        cases = fixed_point.table_cases(self.op, t)
        lines: list[str] = []
        for k, (given, tree, case) in enumerate(cases):  # (an op of several cases: its table by the args given)
            kernel = self.table_kernel(x, t, case, tree, f"_c{k}" if len(cases) > 1 else "")
            values = []
            for _, source in kernel.init_parameters[1:]:  # (after the table: attributes, then args)
                tensor, _, attribute = source.rpartition("_")
                if source in args:
                    value = f"(*{abi.c_name(source)})" if args[source].default is None else abi.c_name(source)
                    values.append(f"(double){value}")
                else:
                    values.append(f"{out if tensor == 'output' else abi.c_name(tensor)}->{attribute}")
            fill = f"{kernel.init.name}({entries}, {', '.join(values)})"  # type: ignore[union-attr]
            if isinstance(case, F.InterpolatedTable):  # (its fill checks the interpolation: refused, a status)
                miss = c_string(fixed_point.table_miss(x, t))
                fill = f"if ({fill} != 0) {{\nreturn opf_fail(detail, OPFORGE_ERR_ATTRIBUTE, {miss});\n}}"
            else:
                fill = f"(void){fill};"
            if len(cases) == 1:
                lines.append(fill)
                continue
            cond = c_presence(self.op.compute.presence(given))  # type: ignore[union-attr]
            lines += [f"{'if' if k == 0 else 'else if'} ({cond}) {{", fill, "}"]
        return lines

    def table_call(self, x: str, t: F.FixedPointType, derived: F.Conversion | F.InterpolatedTable,
                   args: dict) -> list[str]:
        """The C API's use of a table: filled on the stack from the descriptors' attributes (and the
        op's numeric args) once per call, then read for every element; the output's attributes the
        caller's, as a quantized model's are. Only x's own shape: no broadcast into the output."""
        out, entries = abi.c_name(self.op.outputs[0].name), fixed_point.table_entries(derived, t)
        stored = C_TYPE[t.storage]
        return ["if (!contiguous) {",
                f"return opf_fail(detail, OPFORGE_ERR_SHAPE, "
                f"{c_string(f'{self.op.outputs[0].name}: a {t.name} table gives the shape of {x}, no broadcast')});",
                "}",
                f"{C_TYPE[fixed_point.table_storage(derived, t)]} table[{entries}];",
                *self.table_fill(x, t, args, "table"),
                f"{self.fn}_{t.name}_apply((const {stored}*){abi.c_name(x)}->data, table, ({stored}*){out}->data, n);"]

    def table_api(self, x: str, tables: dict[str, F.Conversion | F.InterpolatedTable], args: dict) -> str:
        """The prepared-table functions (ADR 0043): ``_table`` checks what the op checks and fills
        an ``opforge_table`` once for x's dtype and attributes, the output's and the args;
        ``_lookup`` reads it for tensors of that dtype and those attributes (refused otherwise),
        with no float work per call."""
        out = abi.c_name(self.op.outputs[0].name)
        name = c_string(self.op.qualified_name)
        protos = abi.table_prototypes(self.op)
        fills = []
        for type_name in tables:
            t = F.TYPES[type_name]
            fills += [f"case {abi.DTYPE_ENUM[t.name]}: {{", *self.table_fill(x, t, args, "table->entries"), "break;", "}"]
        body = [f"if (table == NULL) {{ return opf_fail(detail, OPFORGE_ERR_NULL, {c_string('table: NULL')}); }}",
                f"switch ({abi.c_name(x)}->dtype) {{", *fills,
                "default:", f"return opf_fail(detail, OPFORGE_ERR_DTYPE, "
                f"{c_string(f'{x}: no table for its dtype (one of ' + ', '.join(tables) + ')')});", "}",
                f"opf_table_keep(table, {name}, {abi.c_name(x)}, {out});", "return OPFORGE_OK;"]
        fill_text = self.api_returning(body, protos["table"])
        bits = " | ".join(f"OPF_DTYPE_BIT({abi.DTYPE_ENUM[n]})" for n in tables)
        applies = []
        for type_name, derived in tables.items():
            t = F.TYPES[type_name]
            stored = C_TYPE[t.storage]
            applies += [f"case {abi.DTYPE_ENUM[t.name]}:",
                        f"{self.fn}_{t.name}_apply((const {stored}*){abi.c_name(x)}->data, table->entries, "
                        f"({stored}*){out}->data, n);", "break;"]
        tensors = " ".join(
            f"{{ const opforge_status st = opf_check_tensor({abi.c_name(n)}, {bits}); if (st != OPFORGE_OK) {{ "
            f"return opf_fail(detail, st, {c_string(tensor_message(n, set(tables)))}); }} }}"
            for n in (x, self.op.outputs[0].name))
        mismatch = c_string(f"table: filled for another op, dtype or attributes than {x}'s and "
                            f"{self.op.outputs[0].name}'s")
        lookup = [protos["lookup"], "{", "if (detail != NULL) { *detail = NULL; }",
                  f"if (table == NULL) {{ return opf_fail(detail, OPFORGE_ERR_NULL, {c_string('table: NULL')}); }}",
                  tensors,
                  f"if (!opf_same_shape({abi.c_name(x)}, {out}) || {abi.c_name(x)}->dtype != {out}->dtype) {{",
                  f"return opf_fail(detail, OPFORGE_ERR_SHAPE, "
                  f"{c_string(f'{self.op.outputs[0].name}: must have the shape and dtype of {x}')});", "}",
                  f"if (!opf_may_write_over({abi.c_name(x)}, {out}, true)) {{",
                  f"return opf_fail(detail, OPFORGE_ERR_OVERLAP, "
                  f"{c_string(f'{self.op.outputs[0].name} may be {x} itself, no other overlap')});", "}",
                  f"if (!opf_table_fits(table, {name}, {abi.c_name(x)}, {out})) {{",
                  f"return opf_fail(detail, OPFORGE_ERR_ATTRIBUTE, {mismatch});", "}",
                  f"const int64_t n = opf_numel({abi.c_name(x)});",
                  f"switch ({abi.c_name(x)}->dtype) {{", *applies, "default:", "break;", "}",
                  "return OPFORGE_OK;", "}"]
        return "\n" + fill_text + "\n" + self.linkage + "\n".join(lookup) + "\n"

    def _d_case(self, c: C.Elementwise, inputs: list[str], t: F.FixedPointType, derived: F.DKernel | F.DLog) -> _Case:
        """A D type's case: the tensors' scales (double) and offsets as arguments (a logarithm's
        factor too), the rule's multipliers computed from them once per call
        (``opf_quantize_multiplier``, the twin of ``quantize_multiplier``; a logarithm's ``log_k``
        by its rule), the output's scale and offset the caller's."""
        out = self.op.outputs[0].name
        stored = C_TYPE[t.storage]
        result = "bool" if getattr(derived, "kind", None) in F.COMPARISONS else t.storage
        v = D.Variant(t.storage, (*((p, t.storage) for p in inputs), (out, result)))
        tensors = [*inputs, *(() if result == "bool" else ("output",))]
        reals = (F.LOG_FACTOR,) if isinstance(derived, F.DLog) else ()
        used = (*(f"{n}_{a}" for n in tensors for a in ("scale", "offset")), *reals)
        params = (*(f"const {stored}* {abi.c_name(p)}" for p in inputs),
                  *(f"{'int' if u.endswith('_offset') else 'double'} {abi.c_name(u)}" for u in used),
                  f"{C_TYPE[result]}* {abi.c_name(out)}")
        prologue, env = fixed_point.c_multipliers(derived.multipliers, tuple(tensors), reals)
        env |= {f"{n}_offset": (abi.c_name(f"{n}_offset"), "int32") for n in derived.offsets}
        scales = {f"{n}_scale": (abi.c_name(f"{n}_scale"), "float64") for n in tensors}
        for name, rule in getattr(derived, "constants", ()):  # (a logarithm's log_k, from x's scale)
            prologue += f"\nint64_t {name};\n{fixed_point.c_statement(rule, name, scales)}"
            env[name] = (name, "int64")
        return _Case(v, c.cases[0][1], f"{self.fn}_{t.name}", tuple(inputs), used, env, derived.value.domain,
                     abi.c_name(out), C_TYPE[result], params, derived.value, prologue)

    def _case(self, c: C.Elementwise, v: D.Variant, k: int, expr: E.Expr, inputs: list[str]) -> _Case:
        op = self.op
        args = {a.name: a for a in op.args}
        enums = op.enums
        expr = C.resolve_enums(expr, enums)
        used = [p for p in c.params if p not in inputs and p in C.symbols(expr)]
        own = v.of(D.primary_input(op).name)  # type: ignore[attr-defined]  # (where's x, not its condition)
        compute = D.computes_in(op, own)  # (an integer through floats: float64, ADR 0058; a half: float32)
        # A numeric arg the function only reads converted to the compute dtype is taken in it:
        # converted once, by the caller (a float32 kernel takes float bounds, not doubles).
        typed = {p: compute if _converted_only(expr, p) and abi.scalar_dtype(args[p].type) in _NUMERIC
                 else abi.scalar_dtype(args[p].type) for p in used}
        scalar = [f"{C_TYPE[typed[p]]} {abi.c_name(p)}" for p in used]
        out = op.outputs[0].name
        # No restrict: the output may be one of the inputs, exactly (ADR 0006); each element
        # is read before it is written, and GCC still vectorises (with an overlap check).
        ins = [f"const {C_TYPE[v.of(p)]}* {abi.c_name(p)}" for p in inputs]
        o = f"{C_TYPE[v.of(out)]}* {abi.c_name(out)}"
        table: tuple[int, ...] = ()
        prologue = ""
        if compute != own and D.BITS[own] == 8 and len(inputs) == 1 and not used:  # (ADR 0058: a table)
            table = tuple(evaluate.through_float_table(expr, inputs[0], own))
            prologue = f"static const {C_TYPE[v.of(out)]} table[{len(table)}] = {{{', '.join(map(str, table))}}};"
        return _Case(v, expr, self.kernel_name(v, f"_c{k}" if len(c.cases) > 1 else ""), tuple(inputs), tuple(used),
                     {p: (abi.c_name(p), typed[p]) for p in used}, compute,
                     abi.c_name(out), C_TYPE[v.of(out)], (*ins, *scalar, o), prologue=prologue,
                     converts=v.of(out) if compute != own else None, table=table)

    def _unused(self, case: _Case) -> list[str]:
        """Inputs the function ignores (zeros_like) still give the shape: keep -Wunused quiet."""
        return [abi.c_name(p) for p in case.inputs if p not in C.symbols(case.expr)]

    def contiguous(self, case: _Case, fn: str, count: str) -> str:
        """The plain loop over contiguous operands of the output's shape."""
        env = {p: (f"{abi.c_name(p)}[i]", case.v.of(p)) for p in case.inputs}
        void = "".join(f"(void){u};" for u in self._unused(case))
        return f"""
static inline void {fn}({', '.join(case.params)}, {count} n)
{{
    {void}
    {case.prologue}
    for ({count} i = 0; i < n; i++) {{
        {case.store(f'{case.out}[i]', env)}
    }}
}}"""

    def stretched(self, case: _Case, geometry: str) -> PlainKernel:
        """Two operands, one broadcast into the other's shape (the output's): five plain loops over
        ShapeBroadcast's runs, the full operand read at the output's index, the other where its
        runs of equal axes put it (as the real library's Add is written)."""
        full, other = case.inputs if geometry == "second_stretched" else case.inputs[::-1]
        env = {full: (f"{abi.c_name(full)}[at_out]", case.v.of(full)),
               other: (f"{abi.c_name(other)}[at_in + e_r]", case.v.of(other))}
        sizes = PLAIN_SIZES[geometry]
        name = f"{case.name}_{geometry}"
        decls = [*case.params, *(f"int {s}" for s in sizes)]
        names = [*case.inputs, *case.used, self.op.outputs[0].name, *sizes]
        void = "".join(f"(void){u};" for u in self._unused(case))
        return PlainKernel(fragment(name, f"""
static inline void {name}({', '.join(decls)})
{{
    {void}
    {case.prologue}
    int at_out = 0;
    for (int e_l = 0; e_l < left; e_l++) {{
        for (int e_g1 = 0; e_g1 < group1; e_g1++) {{
            for (int e_m = 0; e_m < middle; e_m++) {{
                const int at_in = (e_l * middle + e_m) * right;
                for (int e_g2 = 0; e_g2 < group2; e_g2++) {{
                    for (int e_r = 0; e_r < right; e_r++) {{
                        {case.store(f'{case.out}[at_out]', env)}
                        at_out++;
                    }}
                }}
            }}
        }}
    }}
}}"""), case.v, tuple(zip(decls, names)), geometry)

    def broadcast(self, case: _Case, rank: int) -> PlainKernel:
        """Every operand broadcast into the output's shape (the form's rule: NumPy's, from both
        sides), of ``rank`` axes at most: a loop per axis of the output, outermost first,
        each operand read at its step along that axis, 0 where it has size 1. Sizes ``n<k>`` and
        steps ``<operand>_s<k>`` (taking ``step:<operand>:<k>``) count axes as Imaginet does, 0 the
        innermost."""
        axes = range(rank - 1, -1, -1)
        read = [abi.c_name(p) for _, p in case.read]
        name = f"{case.name}_broadcast{rank}"
        decls = [*case.params, *(f"int n{k}" for k in axes),
                 *(f"int {abi.c_name(p)}_s{k}" for p in case.inputs for k in axes)]
        names = [*case.inputs, *case.used, self.op.outputs[0].name, *(f"n{k}" for k in axes),
                 *(f"step:{p}:{k}" for p in case.inputs for k in axes)]
        env = {p: (f"{abi.c_name(p)}[{abi.c_name(p)}_at0]", case.v.of(p)) for _, p in case.read}
        unread = [abi.c_name(p) for p in case.inputs if abi.c_name(p) not in read]
        void = "".join(f"(void){u};" + "".join(f"(void){u}_s{k};" for k in axes) for u in unread)
        loops, closing = axis_loops(read, rank=rank)
        return PlainKernel(fragment(name, f"""
static inline void {name}({', '.join(decls)})
{{
    {void}
    {case.prologue}
    int o = 0;
    {loops}
    {case.store(f'{case.out}[o]', env)}
    o++;
    {closing}
}}"""), case.v, tuple(zip(decls, names)), "broadcast", rank=rank)

    def scalar(self, case: _Case, geometry: str) -> PlainKernel:
        """Two operands, one of the output's shape, the other a single element, read once
        before the loop (a gain, an exponent, an offset)."""
        full, other = case.inputs if geometry == "second_scalar" else case.inputs[::-1]
        env = {full: (f"{abi.c_name(full)}[i]", case.v.of(full)), other: (f"{abi.c_name(other)}_0", case.v.of(other))}
        name = f"{case.name}_{geometry}"
        decls = [*case.params, "int n"]
        names = [*case.inputs, *case.used, self.op.outputs[0].name, "n"]
        void = "".join(f"(void){u};" for u in self._unused(case))
        first = (f"const {C_TYPE[case.v.of(other)]} {abi.c_name(other)}_0 = {abi.c_name(other)}[0];"
                 if other in C.symbols(case.expr) else "")
        return PlainKernel(fragment(name, f"""
static inline void {name}({', '.join(decls)})
{{
    {void}
    {case.prologue}
    {first}
    for (int i = 0; i < n; i++) {{
        {case.store(f'{case.out}[i]', env)}
    }}
}}"""), case.v, tuple(zip(decls, names)), geometry)

    def row_loop(self, case: _Case, steps: dict[str, int]) -> str:
        """The loop over one row, each operand read at its step (a step known to be 1 or 0
        indexes plainly: the loop the compiler vectorises)."""
        at = {1: "_row[i]", 0: "_first"}
        env = {p: (f"{abi.c_name(p)}{at.get(steps.get(p, -1), f'_row[i * {abi.c_name(p)}_step]')}", case.v.of(p))
               for p in case.inputs}
        # An operand broadcast along the row is read once, before the loop.
        first = "".join(f"const {C_TYPE[case.v.of(p)]} {abi.c_name(p)}_first = {abi.c_name(p)}_row[0];\n"
                        for p, s in steps.items() if s == 0)
        return f"""{first}for (int64_t i = 0; i < inner; i++) {{
            {case.store(f"{case.out}_row[i]", env)}
        }}"""

    def row_loops(self, case: _Case) -> str:
        """On a host, rows whose operands all step by 1 (a broadcast row), and for two
        operands one stepping by 0 (a broadcast column), take plain loops (ADR 0027)."""
        read = case.read
        if not read:
            return self.row_loop(case, {})
        patterns = [{p: 1 for _, p in read}]
        if len(read) == 2:
            patterns += [{read[0][1]: 1, read[1][1]: 0}, {read[0][1]: 0, read[1][1]: 1}]
        loops = "".join(
            "if (OPFORGE_UNIT_STEPS && " +
            " && ".join(f"{abi.c_name(p)}_step == {s}" for p, s in pattern.items()) +
            f") {{\n{self.row_loop(case, pattern)}\n}} else "
            for pattern in patterns)
        return loops + f"{{\n{self.row_loop(case, {})}\n}}"

    def advance(self, inputs: tuple[str, ...]) -> str:
        """The odometer over the axes before the last, moving each operand's offset."""
        if len(inputs) <= 3:
            adv = ", ".join([f"{abi.c_name(inputs[j])}_strides, &o{j}" if j < len(inputs) else "NULL, NULL"
                             for j in range(3)])
            return f"opf_advance(rank - 1, shape, index, {adv});"
        # more operands than opf_advance tracks: the same odometer, inline
        step = " ".join(f"o{j} += {abi.c_name(p)}_strides[d];" for j, p in enumerate(inputs))
        back = " ".join(f"o{j} -= {abi.c_name(p)}_strides[d] * shape[d];" for j, p in enumerate(inputs))
        return (f"for (int32_t d = rank - 2; d >= 0; d--) {{ index[d]++; {step} "
                f"if (index[d] < shape[d]) {{ break; }} {back} index[d] = 0; }}")

    def strided(self, case: _Case) -> str:
        """Broadcast or strided operands: rows of the last axis, each a plain loop with one step
        per operand (1, or 0 where the operand is broadcast along it), and an odometer over
        the other axes between rows (ADR 0025)."""
        v, inputs, out_name = case.v, case.inputs, case.out
        void_s = "".join(f"(void){u};(void){u}_strides;" for u in self._unused(case))
        strides = [f"const int64_t* {abi.c_name(p)}_strides" for p in inputs]
        offs = "\n".join(f"int64_t o{j} = 0;" for j in range(len(inputs)))
        steps = "\n".join(f"const int64_t {abi.c_name(p)}_step = "
                          f"rank > 0 ? {abi.c_name(p)}_strides[rank - 1] : 0;" for _, p in case.read)
        row_starts = "\n".join(f"const {C_TYPE[v.of(p)]}* {abi.c_name(p)}_row = {abi.c_name(p)} + o{j};"
                               for j, p in case.read)
        return f"""
static inline void {case.name}_strided({', '.join(case.params)}, int32_t rank, const int64_t* shape, {', '.join(strides)})
{{
    {void_s}
    {case.prologue}
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
        {case.oc}* {out_name}_row = {out_name} + r * inner;
        {self.row_loops(case)}
        {self.advance(inputs)}
    }}
}}"""

    def body(self, c: C.Elementwise, inputs: list[str], args: dict,
             fixed: dict[str, tuple[fixed_point.Kernel, _Case]] | None = None,
             tables: dict[str, F.Conversion | F.InterpolatedTable] | None = None) -> list[str]:
        op = self.op
        out = abi.c_name(op.outputs[0].name)
        names = [abi.c_name(p) for p in inputs]
        # The iteration's geometry: each input's strides over the output, which the form's checks
        # (above) have found every input broadcasts into.
        lines = [f"int64_t strides[{len(inputs)}][OPFORGE_MAX_RANK];", "bool contiguous = true;"]
        for j, n in enumerate(names):
            lines += [f"(void)opf_broadcast_strides({n}, {out}->rank, {out}->shape, strides[{j}]);",
                      f"contiguous = contiguous && opf_same_shape({n}, {out});"]
        # Contiguous operands are one row of n: on a host the rows' loop of unit steps runs it,
        # so no second copy of that loop is compiled; a core without unit steps (an M profile's
        # size) calls the plain loop instead (ADR 0074).
        lines += [f"const int64_t n = opf_numel({out});",
                  f"const int32_t opf_rank = contiguous ? 1 : {out}->rank;",
                  f"const int64_t* opf_shape = contiguous ? &n : {out}->shape;",
                  "if (contiguous) {", *(f"strides[{j}][0] = 1;" for j in range(len(names))), "}"]
        if self.variants:  # (a build that leaves the plain types out may have no kernel left to read them)
            lines += [f"#if defined({abi.omit_numeric(op)})", "(void)opf_rank;", "(void)opf_shape;", "#endif"]

        def per_variant(v: D.Variant) -> list[str]:
            body: list[str] = []
            for k, (given, expr) in enumerate(c.cases):
                suffix = f"_c{k}" if len(c.cases) > 1 else ""
                case = self._case(c, v, k, expr, inputs)
                given_as = {p: f"(*{abi.c_name(p)})" if args[p].default is None else abi.c_name(p) for p in case.used}
                # (an arg the kernel takes in the compute dtype is converted here, once a call)
                vals = [given_as[p] if dtype == abi.scalar_dtype(args[p].type) else f"({C_TYPE[dtype]}){given_as[p]}"
                        for p, (_, dtype) in case.env_args.items()]
                data = [f"(const {C_TYPE[v.of(p)]}*){abi.c_name(p)}->data" for p in inputs]
                odata = f"({C_TYPE[v.of(op.outputs[0].name)]}*){out}->data"
                cond = c_presence(c.presence(given))
                name = self.kernel_name(v, suffix)
                strides = ", ".join(f"strides[{j}]" for j in range(len(inputs)))
                body += [f"if ({cond}) {{", *_call(name, [*data, *vals, odata], strides), "}"]
            return body

        def per_type(v: D.Variant) -> list[str]:
            if v.dtype in (tables or {}):
                return self.table_call(inputs[0], F.TYPES[v.dtype], (tables or {})[v.dtype], args)
            derived, case = (fixed or {})[v.dtype]
            return self.fixed_point_call(derived, case, F.TYPES[v.dtype], inputs, args)

        return lines + self.dispatch(per_variant, fixed=per_type, omittable=True)

    def fixed_point_call(self, derived: fixed_point.Kernel, case: _Case, t: F.FixedPointType,
                         inputs: list[str], args: dict) -> list[str]:
        """The C API's call of a fixed-point kernel (ADR 0040): its per-call values from the
        descriptors' attributes (a Q input's move: the rule's expression over the shifts; a D
        tensor's scale and offset as they are; a clamp's bounds converted to stored values, a
        NaN one refused), and a Q output's shift, the form's, set after the call (refused where
        it leaves the type's range); a clamp's output takes the input's attributes."""
        out = abi.c_name(self.op.outputs[0].name)
        data = [f"(const {C_TYPE[t.storage]}*){abi.c_name(p)}->data" for p in inputs]
        odata = f"({case.oc}*){out}->data"
        lines: list[str] = []
        if isinstance(derived, F.Clamp):
            x = abi.c_name(derived.input)
            env: dict[str, scalar_c.Value] = {
                **{a: (f"(*{abi.c_name(a)})" if args[a].default is None else abi.c_name(a), "float64")
                   for a in derived.args},
                **{f"{derived.input}_{a}": (f"{x}->{a}", "float64" if a == "scale" else "int32")
                   for a in t.attributes}}
            for a in derived.args:
                message = F.CLAMP_NAN.format(name=a, type=t.name)
                lines += [f"if ({env[a][0]} != {env[a][0]}) {{",
                          f"return opf_fail(detail, OPFORGE_ERR_ARG, {c_string(message)});", "}"]
            for name, bound in derived.bounds:
                lines += [f"{C_TYPE[bound.storage]} {abi.c_name(name)};",  # type: ignore[index]
                          fixed_point.c_statement(bound, abi.c_name(name), env)]
            values = [abi.c_name(name) for name, _ in derived.bounds]
        elif isinstance(derived, F.Log):
            lines, values = self.log_constants(derived, t, args)
        elif isinstance(derived, F.QKernel):
            env = {F.shift_of(p): (f"{abi.c_name(p)}->shift", "int32") for p in inputs}
            for name, tree in derived.per_call:
                lines.append(f"const int {abi.c_name(name)} = (int)({scalar_c.render(tree, 'int32', env)[0]});")
            values = [abi.c_name(name) for name, _ in derived.per_call]
            if derived.output_shift is not None:
                lines += fixed_point_api.q_output_shift(self.op.outputs[0].name, t, derived.output_shift, env)
        else:  # (each per-call value is a tensor's attribute: <tensor>_scale, <tensor>_offset; a D log's factor)
            lines = self.log_factor(derived, args, {}) if isinstance(derived, F.DLog) else []
            values = []
            for used in case.used:
                tensor, attribute = used.rsplit("_", 1)
                holder = out if tensor == "output" and tensor not in inputs else abi.c_name(tensor)
                values.append(F.LOG_FACTOR if used == F.LOG_FACTOR else f"{holder}->{attribute}")
        strides = ", ".join(f"strides[{j}]" for j in range(len(inputs)))
        lines += _call(case.name, [*data, *values, odata], strides)
        if isinstance(derived, (F.QKernel, F.Log)) and derived.output_shift is not None:
            lines.append(f"{out}->shift = output_shift;")
        if isinstance(derived, F.Clamp):
            lines += [f"{out}->{a} = {abi.c_name(derived.input)}->{a};" for a in t.attributes]
        return lines

    def log_factor(self, derived: F.Log | F.DLog, args: dict, env: dict[str, scalar_c.Value]) -> list[str]:
        """C lines that set ``log_factor``, the factor of the case the args given choose (an optional
        arg is a pointer, NULL where not given)."""
        env = env | {a: (f"(*{abi.c_name(a)})" if args[a].default is None else abi.c_name(a), "float64")
                     for a in derived.args}
        c: C.Elementwise = self.op.compute  # type: ignore[assignment]
        lines = [f"double {F.LOG_FACTOR} = 1.0;"]
        for k, (given, tree) in enumerate(derived.factors):
            lines += [f"{'if' if k == 0 else '} else if'} ({c_presence(c.presence(given))}) {{",
                      f"{F.LOG_FACTOR} = {scalar_c.render(tree, 'float64', env)[0]};"]
        return [*lines, "}"]

    def log_constants(self, derived: F.Log, t: F.FixedPointType, args: dict) -> tuple[list[str], list[str]]:
        """The C API's per-call values of a logarithm (ADR 0046): the output's shift by the rule (set
        in the output's descriptor after the call), the factor of the case the args given choose,
        and the two constants quantized from them."""
        x = abi.c_name(derived.input)
        env: dict[str, scalar_c.Value] = {F.shift_of(derived.input): (f"{x}->shift", "int32")}
        lines = fixed_point_api.q_output_shift(self.op.outputs[0].name, t, derived.output_shift, env)
        env["output_shift"] = ("output_shift", "int32")
        lines += self.log_factor(derived, args, env)
        env[F.LOG_FACTOR] = (F.LOG_FACTOR, "float64")
        for name, rule in derived.constants:
            lines += [f"{C_TYPE[rule.storage]} {abi.c_name(name)};",  # type: ignore[index]
                      fixed_point.c_statement(rule, abi.c_name(name), env)]
        return lines, [abi.c_name(name) for name, _ in derived.constants]


def _call(kernel: str, operands: list[str], strides: str) -> list[str]:
    """The C API's call of a kernel over its geometry (:meth:`ElementwiseEmitter.body`): the rows'
    kernel, or the plain loop for contiguous operands on a core without unit steps."""
    return ["if (contiguous && !OPFORGE_UNIT_STEPS) {", f"{kernel}({', '.join(operands)}, n);", "} else {",
            f"{kernel}_strided({', '.join(operands)}, opf_rank, opf_shape, {strides});", "}"]


# ---------------------------------------------------------------- reductions
