"""Arg reductions and searches along one axis."""

from __future__ import annotations

from typing import Callable

import attrs


from dsl import compute as C
from dsl import dtypes as D
from dsl.model import Op
from generators import abi
from generators.kernels import scalar_c
from generators.kernels.scalar_c import C_TYPE
from generators.kernels.c_emit.base import PLAIN_SIZES, Emitter, OpCode, PlainKernel, fragment


class ArgReductionEmitter(Emitter):
    def __init__(self, op: Op, linkage: str = "", plain_index: str = "int64") -> None:
        super().__init__(op, linkage)
        # The dtype the plain kernels write indices in (a unit's may be narrower than the
        # API's int64: the unit refuses an axis whose indices do not fit).
        self.plain_index = plain_index

    def emit(self) -> OpCode:
        c: C.ArgReduction = self.op.compute  # type: ignore[assignment]
        plain = tuple(self.plain_axis(c, v, geometry) for v in self.variants for geometry in ("rows", "axis"))
        if c.searches:
            return attrs.evolve(self.search(c), plain=plain)
        frags = [fragment(self.kernel_name(v), self.first_best(c, v) + "\n\n" + self.per_row(c, v))
                 for v in self.variants]
        return OpCode(tuple(frags), (), self.api(self.plan(c) + self.dispatch(self.call(c))), plain)

    def plain_axis(self, c: C.ArgReduction, v: D.Variant, geometry: str) -> PlainKernel:
        """The search of one axis of a contiguous input, without a plan: for each of ``slot``
        blocks and each of ``step`` positions in it, ``size`` elements ``step`` apart, in one
        pass; for ``rows``, an axis of step 1."""
        kinds = {a.name: a.type for a in self.op.args}
        ct, name = C_TYPE[v.of(c.input)], f"{self.kernel_name(v)}_{geometry}"
        it = C_TYPE[self.plain_index]
        params = [(f"const {ct}* restrict x", c.input), (f"{it}* restrict output", self.op.outputs[0].name)]
        params += [(f"int {size}", size) for size in PLAIN_SIZES[geometry]]
        params += [(f"{abi.scalar_ctype(kinds[a])} {abi.c_name(a)}", a) for a in c.args]
        if c.last_index is not None:
            params.append(("bool last", c.last_index))
        row = self.search_row(c, v) if c.searches else self.best_row(c, v)
        if geometry == "rows":
            loops = f"""const int step = 1;
    for (int j = 0; j < slot; j++) {{
        const {ct}* restrict row = x + j * size;
        {row}
        output[j] = ({it})found;
    }}"""
        else:
            loops = f"""for (int j = 0; j < slot; j++) {{
        for (int i = 0; i < step; i++) {{
            const {ct}* restrict row = x + j * step * size + i;
            {row}
            output[j * step + i] = ({it})found;
        }}
    }}"""
        return PlainKernel(fragment(name, f"""
static inline void {name}({', '.join(d for d, _ in params)})
{{
    {loops}
}}"""), v, tuple(params), geometry, c.axis)

    def best_row(self, c: C.ArgReduction, v: D.Variant) -> str:
        """``found``: where the first extreme of ``row`` is (the first NaN, for floats); the
        last where ``last`` (the op's last_index) holds."""
        t = self._compared(v)
        ct = C_TYPE[t]
        better, track = self._better(c, t)
        nan = "bool nan_found = false;" if track else ""
        return f"""{ct} best = {self._read(v, "row[0]")};
            int64_t found = 0;
            {nan}
            for (int r = 0; r < size; r++) {{
                const {ct} xv = {self._value(c, v, "row[r * step]")};
                if (r == 0 || {better}) {{
                    best = xv;
                    found = r;
                    {track}
                }}
            }}"""

    def search_row(self, c: C.ArgReduction, v: D.Variant) -> str:
        """``found``: where the predicate first (last) holds in ``row``, else -1."""
        holds = self._holds(c, v, "row[r * step]")
        stop = "break;" if c.which == "first" else ""
        return f"""int64_t found = -1;
            for (int r = 0; r < size; r++) {{
                if ({holds}) {{
                    found = r;
                    {stop}
                }}
            }}"""

    @staticmethod
    def _better(c: C.ArgReduction, t: str) -> tuple[str, str]:
        """(whether ``xv`` replaces ``best``, the statement that tracks a NaN when it does): the
        first extreme wins, and for floats the first NaN, after which nothing replaces it; with
        a last_index, where ``last`` holds, a tie replaces it too, and a NaN a NaN."""
        cmp = ">" if c.which == "max" else "<"
        tie = " || (last && xv == best)" if c.last_index is not None else ""
        if D.category(t) == "float":
            if c.last_index is not None:
                return f"(isnan(xv) ? (!nan_found || last) : (!nan_found && (xv {cmp} best{tie})))", \
                    "nan_found = isnan(xv);"
            return f"(!nan_found && (isnan(xv) || xv {cmp} best))", "nan_found = isnan(xv);"
        return f"(xv {cmp} best{tie})", ""

    def _compared(self, v: D.Variant) -> str:
        """The dtype the variant ``v`` compares in: its own, a half's float (ADR 0076)."""
        return D.computes_in(self.op, v.of(self.op.compute.input))  # type: ignore[attr-defined]

    def _read(self, v: D.Variant, at: str) -> str:
        """The element at ``at`` in the dtype compared (a half as its float, exactly)."""
        return scalar_c.converted(at, v.of(self.op.compute.input), self._compared(v))  # type: ignore[attr-defined]

    def _holds(self, c: C.ArgReduction, v: D.Variant, at: str) -> str:
        """The search's predicate on the element at ``at``."""
        enums = self.op.enums
        kinds = {a.name: a.type for a in self.op.args}
        env_args = {a: (abi.c_name(a), abi.scalar_dtype(kinds[a])) for a in c.args}
        assert c.map is not None
        t = self._compared(v)
        return scalar_c.render(C.resolve_enums(c.map, enums), t, {"x": (self._read(v, at), t)} | env_args)[0]

    def _value(self, c: C.ArgReduction, v: D.Variant, at: str) -> str:
        """The element at ``at`` as searched: mapped first where the op maps it."""
        t, read = self._compared(v), self._read(v, at)
        return f"({C_TYPE[t]})({scalar_c.render(c.map, t, {'x': (read, t)})[0]})" if c.map is not None else read

    def first_best(self, c: C.ArgReduction, v: D.Variant) -> str:
        """The search over one contiguous row, in lanes the compiler vectorises (with a
        last_index, the scan for the extreme runs backwards where ``last`` holds)."""
        t = self._compared(v)
        ct, name, cmp = C_TYPE[t], self.kernel_name(v), ">" if c.which == "max" else "<"
        def value(at: str) -> str:
            return self._value(c, v, at)
        is_float = D.category(t) == "float"
        nan_lanes = "int32_t nan[OPFORGE_SEARCH_LANES];" if is_float else ""
        nan_init = "nan[l] = 0;" if is_float else ""
        nan_mark = "nan[l] |= (int32_t)(xv != xv);" if is_float else ""
        nan_any = "any |= nan[l];" if is_float else ""
        nan_tail = "any |= (int32_t)(xv != xv);" if is_float else ""
        found = "any ? xv != xv : xv == best" if is_float else "xv == best"
        last_param, backwards, last_text = "", "", ""
        if c.last_index is not None:
            last_param, last_text = ", bool last", " (the last of them where last holds)"
            backwards = f"""if (last) {{
        for (r = n; r-- > 0;) {{
            const {ct} xv = {value("x[r]")};
            if ({found}) {{
                return r;
            }}
        }}
    }}
    """
        return f"""
/* The index of the first {c.which}imum of x[0..n), n >= 1, of the first NaN when there is
 * one{last_text}: the {c.which}imum of each of OPFORGE_SEARCH_LANES lanes first, branch-free so
 * the compiler vectorises it, then a scan for where it is. The index of the one-pass loop. */
static inline int64_t {name}_contiguous(const {C_TYPE[v.of(c.input)]}* restrict x, int64_t n{last_param})
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
    {backwards}for (r = 0; r < n; r++) {{
        const {ct} xv = {value("x[r]")};
        if ({found}) {{
            return r;
        }}
    }}
    (void)any;
    return 0;
}}"""

    def per_row(self, c: C.ArgReduction, v: D.Variant) -> str:
        """Each row of the reduce plan: the lanes where the row is contiguous and long, else one pass."""
        t = self._compared(v)
        ct, name = C_TYPE[t], self.kernel_name(v)
        def value(at: str) -> str:
            return self._value(c, v, at)
        better, track = self._better(c, t)
        last_param, last = (", bool last", ", last") if c.last_index is not None else ("", "")
        return f"""static inline void {name}(const {C_TYPE[v.of(c.input)]}* restrict x, int64_t* restrict output, const opf_reduce_plan* p{last_param})
{{
    int64_t oi[OPFORGE_MAX_RANK] = {{0}};
    int64_t base = 0;
    for (int64_t o = 0; o < p->n_outer; o++) {{
        int64_t off = base;
        {ct} best = {self._read(v, "x[base]")};
        int64_t best_i = 0;
        bool nan_found = false;
        const int64_t step = p->inner_stride[0];  /* (one axis searched: the plan's inner rank is 1) */
        if (OPFORGE_SEARCH_LANES > 1 && step == 1 && p->n_inner >= OPFORGE_SEARCH_LANES) {{
            best_i = {name}_contiguous(x + base, p->n_inner{last});
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
}}"""

    def plan(self, c: C.ArgReduction) -> list[str]:
        """The reduce plan over the one axis (the form's checks above have found it good)."""
        x = abi.c_name(c.input)
        return ["opf_reduce_plan plan;", f"const int64_t axis_value = {abi.c_name(c.axis)};",
                f"opf_reduce_plan_make({x}, &axis_value, 1, &plan);"]

    def call(self, c: C.ArgReduction) -> Callable[[D.Variant], list[str]]:
        x, outn = abi.c_name(c.input), abi.c_name(self.op.outputs[0].name)
        given = "".join(f", {abi.c_name(a)}" for a in (*c.args, *([c.last_index] if c.last_index else [])))

        def per_variant(v: D.Variant) -> list[str]:
            return [f"{self.kernel_name(v)}((const {C_TYPE[v.of(c.input)]}*){x}->data, (int64_t*){outn}->data, "
                    f"&plan{given});"]

        return per_variant

    def search(self, c: C.ArgReduction) -> OpCode:
        """first/last: the index where the predicate holds first (last) along the axis, else -1."""
        kinds = {a.name: a.type for a in self.op.args}
        arg_params = "".join(f", {abi.scalar_ctype(kinds[a])} {abi.c_name(a)}" for a in c.args)
        frags = []
        for v in self.variants:
            t = v.of(c.input)
            ct = C_TYPE[t]
            name = self.kernel_name(v)
            holds = self._holds(c, v, "x[off]")
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
