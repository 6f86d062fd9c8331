"""Layouts: elements moved by a plan, or by data (gather, ...)."""

from __future__ import annotations

from typing import Callable

from dsl import compute as C
from dsl import dtypes as D
from generators import abi
from generators.formatting import c_string
from generators.kernels.c_emit.base import LOOP_RANKS, Emitter, OpCode, PlainKernel, axis_loops, fragment
from generators.kernels.c_shapes import CShapeRenderer
from generators.kernels.scalar_c import C_TYPE, narrowed


class LayoutEmitter(Emitter):
    """Moves without arithmetic: a runtime plan says where each output element comes from (one
    byte copy for every dtype); gather, gather_nd, reverse_sequence (whose indices are data, which
    they check), diag and set_diag run a kernel per dtype that units call too. The output's
    shape is the form's (checked before)."""

    def emit(self) -> OpCode:
        c: C.LayoutMove = self.op.compute  # type: ignore[assignment]
        plain: tuple[PlainKernel, ...] = ()
        if c.layout in _IN_ORDER:
            plain = tuple(self.plain_in_order(c, v) for v in self.variants)
        elif c.strides() is not None:  # (a kernel of fewer loops first, for the ranks it covers)
            make = self.plain_padded if c.strides().edges is not None else self.plain_strided
            # (a plan over a view runs over its 6 axes: only the kernel of 8 loops serves it)
            ranks = LOOP_RANKS if c.strides().view is None else (abi.MAX_RANK,)
            plain = tuple(make(c, v, rank) for rank in ranks for v in self.variants)
            kernels = {v.dtype: make(c, v, abi.MAX_RANK, api=True) for v in self.variants}  # (the API's)
            return OpCode(tuple(k.fragment for k in kernels.values()), (), self.api_returning(self.by_plan(c, kernels)),
                          plain)
        elif c.layout in _INDEXED:  # (the API calls their int64_t versions; they check the indices)
            kernels = tuple(self.indexed(c, v, api=True).fragment for v in self.variants)
            plain = tuple(self.indexed(c, v, api=False) for v in self.variants)
            return OpCode(kernels, (), self.api_returning(self.by_index(c)), plain)
        elif c.layout in _DIAGONALS:  # (the API calls their int64_t versions)
            kernels = tuple(self.diagonal(c, v, api=True).fragment for v in self.variants)
            plain = tuple(self.diagonal(c, v, api=False) for v in self.variants)
            return OpCode(kernels, (), self.api_returning(self.on_diagonal(c)), plain)
        elif c.layout == "gather":  # (the API calls its int64_t version)
            kernels = tuple(self.gathered(c, v, api=True).fragment for v in self.variants)
            plain = tuple(self.gathered(c, v, api=False) for v in self.variants)
            return OpCode(kernels, (), self.api_returning(self.gather(c)), plain)
        return OpCode((), (), self.api_returning(_LAYOUTS[c.layout](self, c)), plain)

    def plain_padded(self, c: C.LayoutMove, v: D.Variant, rank: int, api: bool = False) -> PlainKernel:
        """A pad as a plain kernel: a loop per output axis ``k`` (below ``rank``), its index moved
        back by ``x_b<k>`` (the plan's start, minus the pad before) and read as the mode's edges
        say (``opf_edge_index``): inside x, at ``x_s<k>`` elements a step; outside, constant
        edges write ``value``, which the caller converted to the dtype. The C API's version
        (``api``) counts in int64_t, a unit's in int."""
        plan = c.strides()
        size = "int64_t" if api else "int"
        ct, name = C_TYPE[v.of(c.input)], f"{self.kernel_name(v)}_padded" + ("_whole" if api else str(rank))
        axes = range(rank - 1, -1, -1)
        params = ((f"const {ct}* restrict x", c.input), (f"{ct}* restrict output", self.op.outputs[0].name),
                  *((f"{size} n{k}", f"n{k}") for k in axes), *((f"{size} x_s{k}", f"step:{c.input}:{k}") for k in axes),
                  *((f"{size} x_n{k}", f"extent:{c.input}:{k}") for k in axes),
                  *((f"{size} x_b{k}", f"start:{c.input}:{k}") for k in axes),
                  ("int mode", plan.edges), (f"{ct} value", plan.fill))
        loops, closing = [], []
        for k in axes:
            outer = f"x_at{k + 1} < 0 ? -1 : x_at{k + 1} + " if k + 1 < rank else ""
            loops.append(f"for ({size} i{k} = 0; i{k} < n{k}; i{k}++) {{\n"
                         f"const int64_t j{k} = opf_edge_index(i{k} + x_b{k}, x_n{k}, edges);\n"
                         f"const {size} x_at{k} = j{k} < 0 ? -1 : {outer}({size})j{k} * x_s{k};")
            closing.append("}")
        return PlainKernel(fragment(name, f"""
static inline void {name}({', '.join(d for d, _ in params)})
{{
    const int32_t edges = opf_pad_edges(mode);
    {size} o = 0;
    {"".join(loops)}
    output[o] = x_at0 < 0 ? value : x[x_at0];
    o++;
    {"".join(closing)}
}}"""), v, params, "padded", rank=rank, exact=(plan.fill,))

    def gathered(self, c: C.LayoutMove, v: D.Variant, api: bool) -> PlainKernel:
        """gather: every index checked first (1, nothing written, for one outside -size..size-1),
        then for each of ``slot`` blocks before the axis, the ``step`` elements after it at each
        index, negative ones counted from the end. The API's version counts in int64_t, a
        unit's (``gathered`` geometry: the axis's step, size and slot, the indices' count) in int."""
        ct, size = C_TYPE[v.of(c.input)], "int64_t" if api else "int"
        name = f"{self.kernel_name(v)}_{'whole' if api else 'gathered'}"
        params = ((f"const {ct}* restrict x", c.input), ("const int64_t* restrict at", c.arg("indices")),
                  (f"{ct}* restrict output", self.op.outputs[0].name), (f"{size} step", "step"),
                  (f"{size} size", "size"), (f"{size} slot", "slot"), (f"{size} count", f"count:{c.arg('indices')}"))
        return PlainKernel(fragment(name, f"""
static inline int {name}({', '.join(d for d, _ in params)})
{{
    for ({size} k = 0; k < count; k++) {{
        if (at[k] < -size || at[k] >= size) {{
            return 1;
        }}
    }}
    {size} o = 0;
    for ({size} j = 0; j < slot; j++) {{
        for ({size} k = 0; k < count; k++) {{
            const {ct}* from = x + (j * size + ({size})(at[k] < 0 ? at[k] + size : at[k])) * step;
            for ({size} i = 0; i < step; i++) {{
                output[o++] = from[i];
            }}
        }}
    }}
    return 0;
}}"""), v, params, "gathered", c.arg("axis"), failure=f"{c.arg('indices')}: values must lie in -n..n-1")

    def diagonal(self, c: C.LayoutMove, v: D.Variant, api: bool) -> PlainKernel:
        """diag: x's ``count`` elements on the diagonal of a count x count output, 0 elsewhere;
        set_diag: x with the main diagonal of each of ``batch`` matrices of ``rows`` x ``cols``
        replaced by ``diagonal``'s min(rows, cols) values of that matrix. Each output element is
        read from its own place of x, so the output may be x itself (set_diag in place). The
        API's version counts in int64_t, a unit's (``shaped``, ``batched``) in int."""
        ct, size, out = C_TYPE[v.of(c.input)], "int64_t" if api else "int", self.op.outputs[0].name
        name = f"{self.kernel_name(v)}_{c.layout}" + ("" if api else "_n")
        if c.layout == "diag":
            params = ((f"const {ct}* restrict x", c.input), (f"{ct}* restrict output", out),
                      (f"{size} count", f"count:{c.input}"))
            body = f"""for ({size} i = 0; i < count; i++) {{
        for ({size} j = 0; j < count; j++) {{
            output[i * count + j] = j == i ? x[i] : ({ct})0;
        }}
    }}"""
            return PlainKernel(fragment(name, f"""
static inline void {name}({', '.join(d for d, _ in params)})
{{
    {body}
}}"""), v, params, "shaped")
        diagonal = c.arg("diagonal")
        params = ((f"const {ct}* x", c.input), (f"const {ct}* restrict diagonal", diagonal), (f"{ct}* output", out),
                  (f"{size} batch", "batch"), (f"{size} rows", f"rows:{c.input}"), (f"{size} cols", f"cols:{c.input}"))
        return PlainKernel(fragment(name, f"""
static inline void {name}({', '.join(d for d, _ in params)})
{{
    const {size} k = rows < cols ? rows : cols;
    {size} o = 0;
    for ({size} b = 0; b < batch; b++) {{
        for ({size} i = 0; i < rows; i++) {{
            for ({size} j = 0; j < cols; j++) {{
                output[o] = j == i ? diagonal[b * k + i] : x[o];
                o++;
            }}
        }}
    }}
}}"""), v, params, "batched")

    def on_diagonal(self, c: C.LayoutMove) -> list[str]:
        """diag and set_diag: their kernel over x's count, or its batch of matrices (the shapes
        are the form's, checked before)."""
        x, out, arg = self.names(c)
        lines = []
        if c.layout == "set_diag":
            lines = [f"const int64_t rows = {x}->shape[{x}->rank - 2], cols = {x}->shape[{x}->rank - 1];",
                     f"const int64_t batch = rows * cols > 0 ? opf_numel({x}) / (rows * cols) : 0;"]

        def per_variant(v: D.Variant) -> list[str]:
            ct = C_TYPE[v.of(c.input)]
            given = [f"(const {ct}*){x}->data"]
            if c.layout == "diag":
                sizes = [f"opf_numel({x})"]
            else:
                given.append(f"(const {ct}*){arg('diagonal')}->data")
                sizes = ["batch", "rows", "cols"]
            return [f"{self.diagonal(c, v, api=True).name}({', '.join([*given, f'({ct}*){out}->data', *sizes])});"]

        return lines + self.dispatch(per_variant) + ["return OPFORGE_OK;"]

    def indexed(self, c: C.LayoutMove, v: D.Variant, api: bool) -> PlainKernel:
        """gather_nd and reverse_sequence, each index checked first (1, nothing written, for one
        outside its range). gather_nd: each of ``rows`` tuples of ``depth`` indices into x's first
        axes (of sizes ``n0``, ``n1``, ...; negative from the end) picks a block of ``block``
        elements. reverse_sequence: element i of x, at position ``(i / seq_step) % seq_size``
        along the sequence axis and ``(i / batch_step) % batch_size`` along the batch axis, read
        mirrored within the first lengths[b] of its sequence (lengths in 0..seq_size). The API's
        version counts in int64_t, a unit's (``indexed``, ``sequences``) in int."""
        ct, size, out = C_TYPE[v.of(c.input)], "int64_t" if api else "int", self.op.outputs[0].name
        name = f"{self.kernel_name(v)}_{'whole' if api else 'indexed'}"
        if c.layout == "gather_nd":
            sizes = ("rows", "depth", "block", *(f"n{k}" for k in range(abi.MAX_RANK)))
            params = ((f"const {ct}* restrict x", c.input), ("const int64_t* restrict at", c.arg("indices")),
                      (f"{ct}* restrict output", out), *((f"{size} {s}", s if s[0] != "n" else f"n:{s[1:]}") for s in sizes))
            body = f"""const {size} n[{abi.MAX_RANK}] = {{{', '.join(f'n{k}' for k in range(abi.MAX_RANK))}}};
    for ({size} r = 0; r < rows * depth; r++) {{
        const int64_t size = (int64_t)n[r % depth];
        if (at[r] < -size || at[r] >= size) {{
            return 1;
        }}
    }}
    for ({size} r = 0; r < rows; r++) {{
        {size} from = 0;
        for ({size} j = 0; j < depth; j++) {{
            const int64_t i = at[r * depth + j];
            from = from * n[j] + ({size})(i < 0 ? i + (int64_t)n[j] : i);
        }}
        for ({size} i = 0; i < block; i++) {{
            output[r * block + i] = x[from * block + i];
        }}
    }}
    return 0;"""
            geometry = "indexed"
        else:
            sizes = ("count", "seq_step", "seq_size", "batch_step", "batch_size")
            params = ((f"const {ct}* restrict x", c.input), ("const int64_t* restrict lengths", c.arg("seq_lengths")),
                      (f"{ct}* restrict output", out), *((f"{size} {s}", s) for s in sizes))
            body = f"""for ({size} b = 0; b < batch_size; b++) {{
        if (lengths[b] < 0 || lengths[b] > (int64_t)seq_size) {{
            return 1;
        }}
    }}
    for ({size} i = 0; i < count; i++) {{
        const {size} at = (i / seq_step) % seq_size, length = ({size})lengths[(i / batch_step) % batch_size];
        output[i] = x[at < length ? i + (length - 1 - 2 * at) * seq_step : i];
    }}
    return 0;"""
            geometry = "sequences"
        return PlainKernel(fragment(name, f"""
static inline int {name}({', '.join(d for d, _ in params)})
{{
    {body}
}}"""), v, params, geometry, failure=c.value_refusals(self.op)[0])

    def by_index(self, c: C.LayoutMove) -> list[str]:
        """gather_nd and reverse_sequence: their kernel over the sizes it takes (the shapes are
        the form's, checked before); its failure in the op's words."""
        x, out, arg = self.names(c)
        if c.layout == "gather_nd":
            at = arg("indices")
            lines = [f"const int32_t depth = (int32_t){at}->shape[{at}->rank - 1];",
                     "int64_t n[OPFORGE_MAX_RANK] = {0};",
                     "for (int32_t j = 0; j < depth; j++) {", f"n[j] = {x}->shape[j];", "}"]
            given = [at, f"opf_shape_numel({at}->rank - 1, {at}->shape)", "depth",
                     f"opf_shape_numel({x}->rank - depth, {x}->shape + depth)",
                     *(f"n[{k}]" for k in range(abi.MAX_RANK))]
        else:
            lines = [f"const int64_t s = opf_layout_axis({arg('seq_axis')}, {x}->rank), "
                     f"b = opf_layout_axis({arg('batch_axis')}, {x}->rank);"]
            given = [arg("seq_lengths"), f"opf_numel({x})", f"opf_shape_numel({x}->rank - (int32_t)s - 1, {x}->shape + s + 1)",
                     f"{x}->shape[s]", f"opf_shape_numel({x}->rank - (int32_t)b - 1, {x}->shape + b + 1)", f"{x}->shape[b]"]
        lines.append("int failed = 0;")

        def per_variant(v: D.Variant) -> list[str]:
            ct = C_TYPE[v.of(c.input)]
            data = [f"(const {ct}*){x}->data", f"(const int64_t*){given[0]}->data", f"({ct}*){out}->data"]
            return [f"failed = {self.indexed(c, v, api=True).name}({', '.join([*data, *given[1:]])});"]

        return lines + self.dispatch(per_variant) + [
            "if (failed != 0) {", f"return opf_fail(detail, OPFORGE_ERR_ARG, {c_string(c.value_refusals(self.op)[0])});",
            "}", "return OPFORGE_OK;"]

    def gather(self, c: C.LayoutMove) -> list[str]:
        """The kernel over the axis's step, size and slot; its failure in the op's words."""
        x, out, arg = self.names(c)
        lines = [*self.axis_sizes(x, arg("axis")), "int failed = 0;"]

        def per_variant(v: D.Variant) -> list[str]:
            ct = C_TYPE[v.of(c.input)]
            return [f"failed = {self.kernel_name(v)}_whole((const {ct}*){x}->data, (const int64_t*){arg('indices')}->data, "
                    f"({ct}*){out}->data, step, size, slot, opf_numel({arg('indices')}));"]

        return lines + self.dispatch(per_variant) + [
            "if (failed != 0) {",
            f"return opf_fail(detail, OPFORGE_ERR_ARG, {c_string(self.op.compute.value_refusals(self.op)[0])});", "}",
            "return OPFORGE_OK;"]

    def plain_in_order(self, c: C.LayoutMove, v: D.Variant) -> PlainKernel:
        """A move that keeps the elements in order, as a plain kernel: ``n`` elements copied
        (for targets that call kernels directly; the output's shape is the unit's)."""
        ct, name = C_TYPE[v.of(c.input)], f"{self.kernel_name(v)}_n"
        params = ((f"const {ct}* restrict x", c.input), (f"{ct}* restrict output", self.op.outputs[0].name),
                  ("int n", "n"))
        return PlainKernel(fragment(name, f"""
static inline void {name}({', '.join(d for d, _ in params)})
{{
    for (int i = 0; i < n; i++) {{
        output[i] = x[i];
    }}
}}"""), v, params)

    def plain_strided(self, c: C.LayoutMove, v: D.Variant, rank: int, api: bool = False) -> PlainKernel:
        """A move that reads x at evenly spaced places along each output axis (the form's
        ``strides``), as a plain kernel: a loop per axis of an output of ``rank`` axes at most,
        outermost first, x read ``x_s<k>`` elements apart along axis ``k`` (0 the innermost) from
        element ``offset`` (a tile: the index modulo ``x_m<k>`` first). The caller computes the
        steps and offset from the plan; an index never leaves x. The C API's version (``api``)
        counts in int64_t, a unit's in int."""
        size = "int64_t" if api else "int"
        ct, name = C_TYPE[v.of(c.input)], f"{self.kernel_name(v)}_strided" + ("_whole" if api else str(rank))
        axes = range(rank - 1, -1, -1)
        wrap = c.strides().period is not None  # (tile: each output index modulo x's size there)
        params = ((f"const {ct}* restrict x", c.input), (f"{ct}* restrict output", self.op.outputs[0].name),
                  *((f"{size} n{k}", f"n{k}") for k in axes), *((f"{size} x_s{k}", f"step:{c.input}:{k}") for k in axes),
                  *((f"{size} x_m{k}", f"period:{c.input}:{k}") for k in axes if wrap), (f"{size} offset", "offset"))
        loops, closing = axis_loops(["x"], {"x": "offset"}, rank, wrap, size)
        return PlainKernel(fragment(name, f"""
static inline void {name}({', '.join(d for d, _ in params)})
{{
    {size} o = 0;
    {loops}
    output[o] = x[x_at0];
    o++;
    {closing}
}}"""), v, params, "strided", rank=rank)

    def by_plan(self, c: C.LayoutMove, kernels: dict[str, PlainKernel]) -> list[str]:
        """A strided layout: the form's reading plan (``LayoutMove.strides``) rendered into the
        sizes its kernel takes, per axis counted from the innermost as the kernel counts them
        (1 element and step 0 beyond the output's rank), then the kernel of the dtype. The
        output's shape and the plan's indices are the form's, checked before."""
        x, out, _ = self.names(c)
        plan = c.strides()
        render = CShapeRenderer(self.op, prefix="plan_")
        beyond = {"n": "1", "x_s": "0", "x_m": "1", "x_n": "1", "x_b": "0"}  # (an axis beyond the output's rank)
        names = ["n", "x_s", *(["x_m"] if plan.period is not None else []),
                 *(["x_n", "x_b"] if plan.edges is not None else [])]
        lines = [f"int64_t {', '.join(f'{n}[OPFORGE_MAX_RANK]' for n in names)};",
                 "for (int32_t j = 0; j < OPFORGE_MAX_RANK; j++) {", *(f"{n}[j] = {beyond[n]};" for n in names), "}"]

        def stride(axis: str) -> str:  # (of axis `axis` of x, in elements)
            return f"opf_shape_numel({x}->rank - (int32_t)({axis}) - 1, {x}->shape + ({axis}) + 1)"

        render.bound["k"].append("d")
        if plan.edges is None:  # (the first element read: each axis's start)
            with render.block() as body:
                start = render.render(plan.start.size)
            lines += ["int64_t offset = 0;", *render.take(), f"for (int32_t d = 0; d < {x}->rank; d++) {{", *body,
                      f"offset += ({start}) * {stride('d')};", "}"]
        with render.block() as body:
            source, step = render.render(plan.source.size), render.render(plan.step.size)
            period = render.render(plan.period.size) if plan.period is not None else ""
            # (the axes it runs over: the output's, or the view's it reads the output in)
            size = f"{out}->shape[d]" if plan.view is None else render.render(plan.view.size)
        rank = f"{out}->rank" if plan.view is None else f"(int32_t)({render.render(plan.view.rank)})"
        lines += [*render.take(), f"for (int32_t d = 0; d < {rank}; d++) {{", *body,
                  f"const int64_t a = {source};", f"const int32_t j = {rank} - 1 - d;",
                  f"n[j] = {size};", f"x_s[j] = ({step}) * {stride('a')};"]
        if plan.period is not None:
            lines.append(f"x_m[j] = ({period}) > 0 ? ({period}) : 1;")
        if plan.edges is not None:  # (x's size and first index along the axis it runs along)
            render.bound["k"].append("a")
            with render.block() as inner:
                start = render.render(plan.start.size)
            render.bound["k"].pop()
            lines += [*inner, f"x_n[j] = {x}->shape[a];", f"x_b[j] = {start};"]
        lines.append("}")
        render.bound["k"].pop()
        if plan.edges is not None:  # (a constant pad writes the value, which must convert exactly)
            message = c_string(f"{plan.fill}: does not convert exactly to the dtype of {c.input}")
            lines += ["unsigned char exact[8];",
                      f"if ({abi.c_name(plan.edges)} == 0 && !opf_fill_value({x}->dtype, {abi.c_name(plan.fill)}, exact)) {{",
                      f"return opf_fail(detail, OPFORGE_ERR_ARG, {message});", "}"]
        axes = range(abi.MAX_RANK - 1, -1, -1)

        def per_variant(v: D.Variant) -> list[str]:
            ct = C_TYPE[v.of(c.input)]
            given = [f"(const {ct}*){x}->data", f"({ct}*){out}->data", *(f"{n}[{k}]" for n in names for k in axes)]
            if plan.edges is None:
                return [f"{kernels[v.dtype].name}({', '.join([*given, 'offset'])});"]
            # (the value only where it is written, and so converts exactly: constant edges)
            mode = abi.c_name(plan.edges)
            # (a half's bits are no cast of it: rounded, ADR 0075)
            fill = narrowed(abi.c_name(plan.fill), "float64", v.of(c.input))
            given += [f"(int){mode}", f"{mode} == 0 ? {fill} : ({ct})0"]
            return [f"{kernels[v.dtype].name}({', '.join(given)});"]

        return lines + self.dispatch(per_variant) + ["return OPFORGE_OK;"]

    def names(self, c: C.LayoutMove) -> tuple[str, str, Callable[[str], str]]:
        """(the input, the output, the C name of the arg that plays a role)."""
        return abi.c_name(c.input), abi.c_name(self.op.outputs[0].name), lambda role: abi.c_name(c.arg(role))

    def flat(self, c: C.LayoutMove) -> list[str]:
        """The elements in order, in the output's shape (reshape, squeeze, expand_dims, narrow)."""
        x, out, _ = self.names(c)
        return [f"opf_layout_flat({x}, {out});", "return OPFORGE_OK;"]

#: The layouts that keep the elements in order (only the shape changes).
_IN_ORDER = ("reshape", "squeeze", "expand_dims", "narrow")

#: The layouts whose indices are data (beside gather): a kernel per dtype that checks them.
_INDEXED = ("gather_nd", "reverse_sequence")

#: The layouts that write (diag) or replace (set_diag) a main diagonal: a kernel per dtype.
_DIAGONALS = ("diag", "set_diag")

#: What each layout kind lowers to.
_LAYOUTS: dict[str, Callable[[LayoutEmitter, C.LayoutMove], list[str]]] = {
    "reshape": LayoutEmitter.flat, "squeeze": LayoutEmitter.flat, "expand_dims": LayoutEmitter.flat,
    "narrow": LayoutEmitter.flat,
}
