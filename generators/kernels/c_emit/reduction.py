"""Reduction kernels over a plan of reduced and kept axes (ADR 0008)."""

from __future__ import annotations

from typing import Callable

from dsl import compute as C
from dsl import dtypes as D
from dsl import fixed_point as F
from dsl.scalar import SExpr, SSym
from generators import abi
from generators.kernels import fixed_point, scalar_c
from generators.kernels.scalar_c import C_TYPE, WIDE_UNSIGNED
from generators.formatting import c_string
from generators.kernels.c_emit import fixed_point_api
from generators.kernels.c_emit.base import (PLAIN_SIZES, T_MAX, T_MIN, CFragment, Emitter, OpCode, PlainKernel,
                                            fragment)


def _acc_type(dtype: str, combine: str) -> str:
    """Sums and products of floats accumulate in double, of integers in the wide unsigned type
    (wrapping as the input's type does); an extreme is one of the elements: their own type (on a
    core with a single-precision FPU, double comparisons would be library calls)."""
    if combine not in ("add", "mul"):
        return C_TYPE[dtype]
    return "double" if D.category(dtype) == "float" else WIDE_UNSIGNED[dtype]


def _plain_float32(dtype: str, combine: str, plain: bool) -> bool:
    """Whether a plain (unit) kernel sums or multiplies float32 in float32: on a core with a
    single-precision FPU a double is a library call per element, several times the code and the
    time. Products then round as NumPy's float32 multiply.reduce does; sums cascade (see
    ``_cascade``; ADR 0032)."""
    return plain and dtype == "float32" and combine in ("add", "mul")


#: Elements a float32 cascade sums plainly before adding their partial sum to the total.
CASCADE = 16


def _cascade(acc: str, v: str) -> str:
    """``acc += v`` in two levels: ``<acc>_part`` sums ``CASCADE`` elements, then joins ``acc``,
    which the result reads as ``acc + acc_part``. The error stays within (CASCADE + n / CASCADE)
    roundings of the sum of |terms|, NumPy's order for its float32 sum (whose eight pairwise lanes
    sum 16 elements each) at the sizes units see, for one add and a test per element: Kahan's
    compensation was within two roundings, but half again the real units' code (ADR 0032).
    Infinities and NaN propagate as in a plain sum."""
    return (f"{acc}_part += (float)({v}); "
            f"if ((e & {CASCADE - 1}) == {CASCADE - 1}) {{ {acc} += {acc}_part; {acc}_part = 0; }}")


def _plain_loops(geometry: str, single: str) -> str:
    """``single`` (which reduces ``size`` elements ``step`` apart from ``base`` into ``o``) for
    every output: ``slot`` blocks of ``step`` positions, or ``slot`` rows (``rows``: step 1)."""
    if geometry == "rows":
        return f"""const int step = 1;
    for (int j = 0; j < slot; j++) {{
        const int base = j * size;
        const int o = j;
        {single}
    }}"""
    return f"""for (int j = 0; j < slot; j++) {{
        for (int i = 0; i < step; i++) {{
            const int base = j * step * size + i;
            const int o = j * step + i;
            {single}
        }}
    }}"""


def _pre_pass(pre: str | None, t: str, plain: bool, count: str, lanes: bool,
              over_inner: Callable[[str, str], str]) -> str:
    """The pass before the reduction that gives ``m`` (per lane): the largest finite element
    (``max``, for log-sum-exp) or the mean (``mean``, for variance)."""
    ct, w, size = C_TYPE[t], "[w]" if lanes else "", "[OPFORGE_REDUCE_LANES]" if lanes else ""
    if pre == "max":
        text = f"{ct} m{size};\n" + _per_lane(f"m{w} = ({ct})({_init(t, 'max')});", lanes) + \
            over_inner(_combine(t, "max", f"m{w}", "xv"), "")
        if D.category(t) == "float":
            text += "\n" + _per_lane(f"if (!isfinite(m{w})) {{ m{w} = 0; }}", lanes)
        return text
    if pre == "mean" and _plain_float32(t, "add", plain):
        # (in float32, uncompensated: an error d in the mean m adds only n * d * d to the sum of
        # squares about it, sum (x - m)^2 = sum (x - mean)^2 + n (mean - m)^2; ADR 0032)
        return f"float msum{size};\n" + _per_lane(f"msum{w} = 0;", lanes) + over_inner(f"msum{w} += xv;", "") + \
            f"\n{ct} m{size};\n" + _per_lane(f"m{w} = msum{w} / (float){count};", lanes)
    if pre == "mean":
        return f"double msum{size};\n" + _per_lane(f"msum{w} = 0;", lanes) + \
            over_inner(f"msum{w} += (double)xv;", "") + \
            f"\n{ct} m{size};\n" + _per_lane(f"m{w} = ({ct})(msum{w} / (double){count});", lanes)
    return ""


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


def _per_lane(statements: str, lanes: bool) -> str:
    """``statements`` once, or once per lane ``w``."""
    return f"for (int64_t w = 0; w < lanes; w++) {{\n{statements}\n}}" if lanes else statements


def _over_inner(read: str, lanes: bool, plain: bool) -> str:
    """``read`` (which reads ``x[at]``) for each reduced element in row-major order: the last
    reduced axis as a plain loop with its step and the odometer only between its runs (ADR 0025);
    with ``plain``, the one axis of ``size`` elements ``step`` apart."""
    def run(index: str) -> str:
        return f"""for (int64_t e = 0; e < last; e++) {{
                    const int64_t at = {index};
                    {read}
                }}"""

    if plain:
        return f"""for (int e = 0; e < size; e++) {{
                    const int at = base + e * step;
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


def _reads_headroom(r: F.QReduction) -> bool:
    """Whether a Q reduction's result or output shift reads the headroom ``h`` of its count (a sum)."""
    lets = {n for _, _, tree in r.finalize.lets for n in C.symbols(tree)}
    return F.HEADROOM in C.symbols(r.finalize.value) | lets | C.symbols(r.output_shift)


class ReductionEmitter(Emitter):
    def emit(self) -> OpCode:
        c: C.Reduction = self.op.compute  # type: ignore[assignment]
        out = self.op.outputs[0]
        frags = []
        kinds = {a.name: a.type for a in self.op.args}
        enums = self.op.enums
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
        # The loops' geometry (the form's checks above have found the axes good).
        lines = ["opf_reduce_plan plan;", f"opf_reduce_plan_make({x}, {axes}, {axes}_count, &plan);"]

        def per_variant(v: D.Variant) -> list[str]:
            y_arg = f"(const {C_TYPE[v.of(c.other)]}*){abi.c_name(c.other)}->data, " if c.other else ""
            given = "".join(f", {abi.c_name(a)}" for a in c.args)
            outs = ", ".join(f"({C_TYPE[v.of(o.name)]}*){abi.c_name(o.name)}->data" for o in self.op.outputs)
            return [f"{self.kernel_name(v)}((const {C_TYPE[v.of(c.input)]}*){x}->data, {y_arg}{outs}, &plan{given});"]

        plain = tuple(self.plain_axis(c, v, env_args, enums, geometry) for v in self.variants
                      for geometry in ("rows", "axis"))
        plain += tuple(k for geometry in ("rows", "axis") for k in self.fixed_point_axis(c, geometry))
        fixed = {t.name: (t, r) for t, r in self.fixed_point_reductions(c)}
        frags += [self.fixed_point_plan(c, t, r) for t, r in fixed.values()]
        tensors = [p.name for p in (*self.op.inputs, *self.op.outputs)]
        self.fixed_variants = [D.Variant(name, tuple((n, name) for n in tensors)) for name in fixed]
        body = self.dispatch(per_variant, fixed=lambda v: self.fixed_point_call(c, *fixed[v.dtype]))
        return OpCode(tuple(frags), (), self.api(lines + body), plain)

    def fixed_point_reductions(self, c: C.Reduction) -> list[tuple[F.FixedPointType, F.QReduction | F.DReduction]]:
        """Each fixed-point type the form derives a reduction for (ADR 0036, ``api_reductions``)."""
        return [(F.TYPES[name], r) for name, r in fixed_point.api_reductions(self.op).items()
                if isinstance(r, (F.QReduction, F.DReduction))]

    def fixed_point_loop(self, c: C.Reduction, t: F.FixedPointType, r: F.QReduction | F.DReduction,
                         count: tuple[str, str], plain: bool) -> tuple[list[tuple[str, str]], str, str]:
        """(the per-call parameters, the prologue, one output's reduction into ``output[o]``) of a
        fixed-point kernel: the mapped stored values combined wide, then the one requantization;
        ``count`` (code, dtype) how many elements an output reduces; a Q sum's headroom ``h`` and
        a D reduction's scales and offsets (its multiplier from them once a call) as parameters."""
        wide = C_TYPE[r.domain]
        env = {"x": (f"(({wide})x[at])", r.domain), **({"y": (f"(({wide})y[at])", r.domain)} if c.other else {})}
        final_env = {"acc": ("acc", r.domain), "n": count}
        params: list[tuple[str, str]] = []
        prologue = ""
        if isinstance(r, F.QReduction):
            if _reads_headroom(r):
                params.append((f"int {F.HEADROOM}", F.HEADROOM))
            final_env[F.HEADROOM] = (F.HEADROOM, "int32")
        else:
            params += [("double x_scale", "x_scale"), ("int x_offset", "x_offset"),
                       ("double output_scale", "output_scale"), ("int output_offset", "output_offset")]
            prologue, more = fixed_point.c_multipliers(r.multipliers, ("x", "output"))
            env |= {"x_offset": ("x_offset", "int32")}
            final_env |= more | {f"{n}_offset": (f"{n}_offset", "int32") for n in r.offsets}
        value, _ = scalar_c.render(r.map, r.domain, env)
        init = "0" if r.combine == "add" else T_MIN[t.storage] if r.combine == "max" else T_MAX[t.storage]
        read = f"const {wide} mv = {value};\n{_combine(r.domain, r.combine, 'acc', 'mv')}"
        single = f"""{wide} acc = {init};
        {_over_inner(read, lanes=False, plain=plain)}
        {fixed_point.c_statement(r.finalize, "output[o]", final_env)}"""
        return params, prologue, single

    def fixed_point_params(self, c: C.Reduction, t: F.FixedPointType) -> list[tuple[str, str]]:
        """A fixed-point kernel's stored operands and output, as (declaration, source) pairs."""
        stored = C_TYPE[t.storage]
        params = [(f"const {stored}* restrict x", c.input)]
        if c.other:
            params.append((f"const {stored}* restrict y", c.other))
        return params + [(f"{stored}* restrict output", self.op.outputs[0].name)]

    def fixed_point_axis(self, c: C.Reduction, geometry: str) -> tuple[PlainKernel, ...]:
        """The plain kernels of each fixed-point type the form derives a reduction for (ADR 0036,
        0038), along one axis; a Q output's shift the form's, a D output's attributes the caller's."""
        op = self.op
        kernels = []
        for t, r in self.fixed_point_reductions(c):
            name = f"{self.fn}_{t.name}_{geometry}"
            extra, prologue, single = self.fixed_point_loop(c, t, r, ("size", "int32"), plain=True)
            params = [*self.fixed_point_params(c, t), *((f"int {size}", size) for size in PLAIN_SIZES[geometry]), *extra]
            if isinstance(r, F.QReduction):
                per_call = tuple((n, F.headroom_of(SSym("size"))) for _, n in extra)
                shift, chosen = (("shift", r.output_shift),), ()
            else:
                per_call = (("x_scale", SSym("x_scale")), ("x_offset", SSym("x_offset")))
                shift, chosen = (), ("scale", "offset")
            v = D.Variant(t.storage, tuple((p.name, t.storage) for p in (*op.inputs, *op.outputs)))
            kernels.append(PlainKernel(fragment(name, f"""
static inline void {name}({', '.join(d for d, _ in params)})
{{
    {prologue}
    {_plain_loops(geometry, single)}
}}"""), v, tuple(params), geometry, c.axes, fixed_point=t.name,
                per_call=per_call, output_attributes=shift, chosen=chosen))
        return tuple(kernels)

    def fixed_point_plan(self, c: C.Reduction, t: F.FixedPointType, r: F.QReduction | F.DReduction) -> CFragment:
        """The C API's kernel of a fixed-point type over the reduce plan (any axes, any strides)."""
        name = f"{self.fn}_{t.name}"
        extra, prologue, single = self.fixed_point_loop(c, t, r, ("p->n_inner", "int64"), plain=False)
        params = [*self.fixed_point_params(c, t), ("const opf_reduce_plan* p", "plan"), *extra]
        return fragment(name, f"""
static inline void {name}({', '.join(d for d, _ in params)})
{{
    {prologue}
    int64_t oi[OPFORGE_MAX_RANK] = {{0}};
    int64_t base = 0;
    for (int64_t o = 0; o < p->n_outer; o++) {{
        {single}
        opf_advance(p->outer_rank, p->outer_shape, oi, p->outer_stride, &base, NULL, NULL, NULL, NULL);
    }}
}}""")

    def fixed_point_call(self, c: C.Reduction, t: F.FixedPointType, r: F.QReduction | F.DReduction) -> list[str]:
        """The C API's call of a fixed-point reduction (ADR 0040): a mean refuses no elements; a
        Q sum's headroom from the plan's count and the output's shift the form's, set after the
        call; a D reduction reads the descriptors' scales and offsets, the output's the caller's."""
        stored = C_TYPE[t.storage]
        out = abi.c_name(self.op.outputs[0].name)
        tensors = [abi.c_name(c.input), *([abi.c_name(c.other)] if c.other else [])]
        lines: list[str] = []
        if r.refuses_empty:
            lines += ["if (plan.n_inner == 0 && plan.n_outer > 0) {",
                      f"return opf_fail(detail, OPFORGE_ERR_SHAPE, {c_string(f'{c.input}: {F.EMPTY_MEAN}')});", "}"]
        values = [f"(const {stored}*){n}->data" for n in tensors] + [f"({stored}*){out}->data", "&plan"]
        if isinstance(r, F.QReduction):
            env = {F.shift_of(n): (f"{abi.c_name(n)}->shift", "int32") for n in (c.input, c.other) if n}
            if _reads_headroom(r):
                lines.append(f"const int {F.HEADROOM} = (int)opf_headroom(plan.n_inner);")
                env[F.HEADROOM] = (F.HEADROOM, "int32")
                values.append(F.HEADROOM)
            lines += fixed_point_api.q_output_shift(self.op.outputs[0].name, t, r.output_shift, env)
        else:
            values += [f"{tensors[0]}->scale", f"{tensors[0]}->offset", f"{out}->scale", f"{out}->offset"]
        lines.append(f"{self.fn}_{t.name}({', '.join(values)});")
        if isinstance(r, F.QReduction):
            lines.append(f"{out}->shift = output_shift;")
        return lines

    def plain_axis(self, c: C.Reduction, v: D.Variant, env_args: dict[str, tuple[str, str]],
                   enums: dict, geometry: str) -> PlainKernel:
        """The reduction of one axis of contiguous operands, without a plan: for each of
        ``slot`` blocks and each of ``step`` positions in it, ``size`` elements ``step`` apart
        (the real library's loops over an axis); for ``rows``, an axis of step 1."""
        kinds = {a.name: a.type for a in self.op.args}
        t = v.of(c.input)
        name = f"{self.kernel_name(v)}_{geometry}"
        params = [(f"const {C_TYPE[t]}* restrict x", c.input)]
        if c.other:
            params.append((f"const {C_TYPE[v.of(c.other)]}* restrict y", c.other))
        params += [(f"{C_TYPE[v.of(o.name)]}* restrict output{k or ''}", o.name) for k, o in enumerate(self.op.outputs)]
        params += [(f"int {size}", size) for size in PLAIN_SIZES[geometry]]
        params += [(f"{abi.scalar_ctype(kinds[a])} {abi.c_name(a)}", a) for a in c.args]
        single = self._reduce(c, v, t, env_args, enums, lanes=False, plain=True)
        return PlainKernel(fragment(name, f"""
static inline void {name}({', '.join(d for d, _ in params)})
{{
    {_plain_loops(geometry, single)}
}}"""), v, tuple(params), geometry, c.axes)

    def _reduce(self, c: C.Reduction, v: D.Variant, t: str, env_args: dict[str, tuple[str, str]],
                enums: dict, lanes: bool, plain: bool = False) -> str:
        """Reduce one output at ``base`` into ``output[o]`` or, with ``lanes``, the outputs
        ``o`` .. ``o + lanes - 1`` at ``base`` .. ``base + lanes - 1`` (each name an array
        indexed by the lane ``w``); with ``plain``, over ``size`` elements ``step`` apart
        rather than the plan's reduced axes."""
        # (a plain kernel's count is an int: converting it to float is one instruction on a
        # 32-bit core, an int64_t's a library call)
        count, count_t = ("size", "int32") if plain else ("p->n_inner", "int64")
        # An integer through floats reads its elements as doubles, a half as its float, and each
        # result converts back by cast's rule (ADR 0058, 0076).
        given = t
        dt = C.reduction_dtypes(c, t, v.of(self.op.outputs[0].name), D.computes_in(self.op, t))
        a_t, t, final_t = dt.accumulator, dt.elements, dt.finalize
        ct = C_TYPE[t]
        acc_t = _acc_type(a_t, c.combine)
        w = "[w]" if lanes else ""
        size = "[OPFORGE_REDUCE_LANES]" if lanes else ""

        def per_lane(statements: str) -> str:
            return _per_lane(statements, lanes)

        def over_inner(body: str, other: str) -> str:
            return _over_inner(per_lane(f"const {ct} xv = {read('x', given)};\n{other}\n{body}"), lanes, plain)

        def read(name: str, dtype: str) -> str:
            element = f"{name}[at{' + w' if lanes else ''}]"
            return scalar_c.converted(element, dtype, t) if dtype == D.HALF else \
                f"({ct}){element}" if dtype != t else element

        other = f"const {ct} yv = {read('y', v.of(c.other))};" if c.other else ""
        pre = _pre_pass(c.pre, t, plain, count, lanes, over_inner)
        env_m = {"m": (f"m{w}", t)} if c.pre else {}
        value = "xv"
        env_y = {"y": ("yv", t)} if c.other else {}
        if c.map is not None:
            value, _ = scalar_c.render(C.resolve_enums(c.map, enums), t, {"x": ("xv", t)} | env_y | env_m | env_args)
        single = _plain_float32(a_t, c.combine, plain)
        if single:
            acc_t = "float"
        cascaded = single and c.combine == "add"

        def fold(acc: str, v: str) -> str:
            return _cascade(acc, v) if cascaded else _combine(a_t, c.combine, acc, v)

        def declare(acc: str) -> str:
            return f"{acc_t} {acc}{size};\n" + (f"float {acc}_part{size};\n" if cascaded else "")

        def start(acc: str) -> list[str]:
            return [f"{acc}{w} = ({acc_t})({_init(a_t, c.combine)});"] + ([f"{acc}_part{w} = 0;"] if cascaded else [])

        def total(acc: str) -> str:
            """What the finalizers read: a cascade's total and its last partial sum."""
            return f"(({C_TYPE[a_t]})({acc}{w} + {acc}_part{w}))" if cascaded else f"(({C_TYPE[a_t]}){acc}{w})"

        body = f"const {ct} mv = ({ct})({value});\n{fold(f'acc{w}', 'mv')}"
        init = declare("acc")
        inits = start("acc")
        sums: dict[str, tuple[str, str]] = {}
        for k, extra in enumerate(c.extra_maps, 1):
            value_k, _ = scalar_c.render(C.resolve_enums(extra, enums), t, {"x": ("xv", t)} | env_y | env_m | env_args)
            body += f"\nconst {ct} mv{k} = ({ct})({value_k});\n{fold(f'acc{k}{w}', f'mv{k}')}"
            init += declare(f"acc{k}")
            inits += start(f"acc{k}")
            sums[f"acc{k}"] = (total(f"acc{k}"), a_t)
        env = {"acc": (total("acc"), a_t), "n": (count, count_t)} | env_m | sums
        # One result per output (moments: the mean and the variance of the same sums).
        def store(k: int, to: str, final: SExpr | None) -> str:
            value = scalar_c.render(final, final_t, env)[0] if final is not None else \
                total("acc") if cascaded else f"acc{w}"
            target = f"output{k or ''}[o{' + w' if lanes else ''}]"
            if dt.converts:  # (the converted value is read more than once)
                return (f"{{ const {C_TYPE[final_t]} r = ({C_TYPE[final_t]})({value}); "
                        f"{target} = {scalar_c.converted('r', final_t, to)}; }}")
            return f"{target} = ({C_TYPE[to]})({value});"

        stores = "\n".join(store(k, v.of(o.name), final)
                           for k, (o, final) in enumerate(zip(self.op.outputs, c.finalizers)))
        return "\n".join([pre, init + per_lane("\n".join(inits)), over_inner(body, other), per_lane(stores)])
