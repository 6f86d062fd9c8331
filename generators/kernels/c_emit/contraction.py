"""Contractions: einsum plans, register-tiled matrix products, tensordot (ADR 0009, 0022)."""

from __future__ import annotations

from typing import Any, Callable

from dsl import compute as C
from dsl import dtypes as D
from dsl import expr as E
from dsl import fixed_point as F
from dsl import shapes as Sh
from dsl.scalar import SSym
from generators import abi
from generators.formatting import c_comment
from dsl.einsum import Conv
from generators.kernels import fixed_point, scalar_c
from generators.kernels.scalar_c import C_TYPE, WIDE_UNSIGNED
from generators.kernels.c_emit import fixed_point_api
from generators.kernels.c_emit.base import PLAIN_SIZES, CFragment, Emitter, OpCode, PlainKernel, axis_loops, fragment


def _accumulator(dtype: str) -> str:
    """The C type products are summed in: the element's for floats (a half's: float, as NumPy's
    float16 matmul sums), and for integers the wide unsigned type, where sums wrap as the element
    type's would."""
    return C_TYPE[_computed(dtype)] if D.category(dtype) == "float" else WIDE_UNSIGNED[dtype]


def _computed(dtype: str) -> str:
    """The dtype elements of ``dtype`` are computed in: their own, a half's float (ADR 0076)."""
    return D.own_computes_in(dtype)


def _read(dtype: str, code: str) -> str:
    """The element ``code`` of ``dtype`` as the accumulator's value (a half: its float, exactly)."""
    if dtype == D.HALF:
        return scalar_c.converted(code, dtype, _computed(dtype))
    return f"({_accumulator(dtype)}){code}"


def _stored(dtype: str, code: str) -> str:
    """The computed value ``code`` as an element of ``dtype`` (a half: rounded once)."""
    return scalar_c.narrowed(code, _computed(dtype), dtype)


def _tile_loop(dtype: str, rows: str, cols: str) -> str:
    """The accumulation of one tile of a matrix product, ``rows`` x ``cols`` of the
    result, the reduced axis outermost: each element still sums its products in
    order of k, so the result is the plain loop nest's to the bit."""
    ct, acc_t = C_TYPE[dtype], _accumulator(dtype)
    return f"""{acc_t} acc[OPFORGE_TILE_ROWS][OPFORGE_TILE_COLS] = {{{{0}}}};
        for (int64_t k = 0; k < g->k; k++) {{
            const {ct}* restrict bk = b + k * g->b_red;
            for (int64_t r = 0; r < {rows}; r++) {{
                const {acc_t} ar = {_read(dtype, "a[r * g->a_row + k * g->a_red]")};
                for (int64_t c = 0; c < {cols}; c++) {{
                    acc[r][c] = ({acc_t})(acc[r][c] + ar * {_read(dtype, "bk[c]")});
                }}
            }}
        }}
        for (int64_t r = 0; r < {rows}; r++) {{
            for (int64_t c = 0; c < {cols}; c++) {{
                o[r * g->n + c] = {_stored(dtype, "acc[r][c]")};
            }}
        }}"""


def gemm_functions(name: str, dtype: str) -> str:
    """The functions computing one matrix product of an einsum plan (opf_gemm) in
    register tiles, strips of columns outermost so a strip of b stays in cache
    while every tile of rows passes over it (ADR 0027)."""
    ct = C_TYPE[dtype]
    return f"""
static inline void {name}_tile(int64_t rows, int64_t cols, const {ct}* restrict a, const {ct}* restrict b,
                                {ct}* restrict o, const opf_gemm* g)
{{
    if (rows == OPFORGE_TILE_ROWS && cols == OPFORGE_TILE_COLS) {{
        {_tile_loop(dtype, "OPFORGE_TILE_ROWS", "OPFORGE_TILE_COLS")}
    }} else {{
        {_tile_loop(dtype, "rows", "cols")}
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


def einsum_kernel(name: str, dtype: str, operands: int, padded: bool = False) -> str:
    """The fragment running an einsum plan over one or two operands of ``dtype``
    (integers accumulate wrapping, in the wide unsigned type). A plan of two
    operands that is a batch of matrix products runs in register tiles. Where
    convolution axes are ``padded``, a product whose position falls in the padding
    is skipped (it reads 0), and the tiles run only for a plan without such axes."""
    ct = C_TYPE[dtype]
    acc_t = _accumulator(dtype)
    gemm, functions = "", ""
    if operands == 2:
        functions = gemm_functions(f"{name}_gemm", dtype)
        term = f"{_read(dtype, 'a[ar]')} * {_read(dtype, 'b[br]')}"
        params = f"const {ct}* restrict a, const {ct}* restrict b"
        adv_red = "p->red_stride[0], &ar, p->red_stride[1], &br, NULL, NULL"
        adv_out = "p->out_stride[0], &ao, p->out_stride[1], &bo, p->out_stride[2], &oo"
        # The products commute exactly (floats, and integers in unsigned arithmetic),
        # so a plan with the operands' roles swapped runs the same tiles.
        gemm = f"""
    opf_gemm g;
    if (OPFORGE_TILE_ROWS * OPFORGE_TILE_COLS > 1 && {"q->n == 0 && " if padded else ""}opf_einsum_gemm(p, &g)) {{
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
        term = _read(dtype, "a[ar]")
        params = f"const {ct}* restrict a"
        adv_red = "p->red_stride[0], &ar, NULL, NULL, NULL, NULL"
        adv_out = "p->out_stride[0], &ao, p->out_stride[2], &oo, NULL, NULL"
    def start(k: str) -> str:
        return f"q->start[{k}]" if padded else "0"

    accumulate = f"acc = ({acc_t})(acc + {term});"
    pads = ", const opf_einsum_pads* q" if padded else ""
    if padded:
        accumulate = f"if (opf_einsum_inside(q, oi, ri)) {{\n                {accumulate}\n            }}"
    return fragment(name, functions + f"""
static inline void {name}({params}, {ct}* restrict output, const opf_einsum_plan* p{pads})
{{{gemm}
    int64_t oi[OPF_MAX_LOOPS] = {{0}};
    int64_t ao = {start("0")}, bo = {start("1") if operands == 2 else "0"}, oo = 0;
    for (int64_t o = 0; o < p->n_out_total; o++) {{
        int64_t ri[OPF_MAX_LOOPS] = {{0}};
        int64_t ar = ao, br = bo;
        {acc_t} acc = 0;
        for (int64_t r = 0; r < p->n_red_total; r++) {{
            {accumulate}
            opf_advance(p->n_red, p->red_extent, ri, {adv_red});
        }}
        (void)br;
        output[oo] = {_stored(dtype, "acc")};
        opf_advance(p->n_out, p->out_extent, oi, {adv_out});
    }}
}}""")


def pool_combine(combine: str, dtype: str, x: str, counted: bool) -> tuple[str, str, str]:
    """(the accumulator's start, the step that takes element ``x``, the result) of a pool's
    window: the largest (a NaN wins, as NumPy's max), the mean (``counted``: over ``padded``
    elements where ``count_include_pad``, else over the ``n`` inside), or the Lp norm of
    ``order``."""
    ct, f = C_TYPE[dtype], "f" if dtype == "float32" else ""
    return {
        "max": ("-INFINITY", f"acc = isnan({x}) || {x} > acc ? {x} : acc;", "acc"),
        "mean": ("0", f"acc += {x};", f"acc / ({ct})(count_include_pad ? padded : n)" if counted else f"acc / ({ct})n"),
        "lp": ("0", f"acc += pow{f}(fabs{f}({x}), ({ct})order);", f"pow{f}(acc, ({ct})1 / ({ct})order)"),
    }[combine]


def pool_kernel(name: str, dtype: str, combine: str, padded: bool) -> str:
    """The fragment running a pool over an einsum plan of one float operand: each output
    element combines the elements of its window that lie inside the operand (the padding is
    never chosen by a max, counted by a mean only where ``count_include_pad``), in the plan's
    order: the largest (a NaN wins, as NumPy's max), the mean, or the Lp norm."""
    ct, vt = C_TYPE[dtype], C_TYPE[_computed(dtype)]
    inside = "opf_einsum_inside(q, oi, ri)" if padded else "true"
    init, step, final = pool_combine(combine, _computed(dtype), "x", padded)
    extra = {"mean": ", bool count_include_pad" if padded else "", "lp": ", int64_t order"}.get(combine, "")
    pads = ", const opf_einsum_pads* q" if padded else ""
    # (a mean with count_include_pad divides by the window's elements inside the padded operand)
    counted = "padded += opf_einsum_reads(q, oi, ri, true) ? 1 : 0;" if combine == "mean" and padded else ""
    return fragment(name, f"""
static inline void {name}(const {ct}* restrict a, {ct}* restrict output, const opf_einsum_plan* p{pads}{extra})
{{
    int64_t oi[OPF_MAX_LOOPS] = {{0}};
    int64_t ao = {"q->start[0]" if padded else "0"}, oo = 0;
    for (int64_t o = 0; o < p->n_out_total; o++) {{
        int64_t ri[OPF_MAX_LOOPS] = {{0}};
        int64_t ar = ao, n = 0, padded = 0;
        {vt} acc = {init};
        for (int64_t r = 0; r < p->n_red_total; r++) {{
            if ({inside}) {{
                const {vt} x = {scalar_c.converted("a[ar]", dtype, _computed(dtype))};
                {step}
                n++;
            }}
            {counted}
            opf_advance(p->n_red, p->red_extent, ri, p->red_stride[0], &ar, NULL, NULL, NULL, NULL);
        }}
        (void)n;
        (void)padded;
        output[oo] = {_stored(dtype, final)};
        opf_advance(p->n_out, p->out_extent, oi, p->out_stride[0], &ao, p->out_stride[2], &oo, NULL, NULL);
    }}
}}""")


def matrix_labels(spec: Any) -> tuple[str, str, str] | None:
    """(row, inner, col): the labels of a batch of matrix products, where ``spec`` is one: two
    operands and the output each the row variable then two labels, one label contracted and
    each operand's other label kept (matmul, and products with either operand transposed)."""
    operands = (*spec.inputs, spec.output)
    if len(spec.inputs) != 2 or any(o.labels[:1] != ("...",) or len(o.labels) != 3 or o.labels[1] == o.labels[2]
                                    for o in operands):
        return None
    a, b, out = (o.labels[1:] for o in operands)
    shared = set(a) & set(b)
    if len(shared) != 1:
        return None
    (inner,) = shared
    row, col = next(x for x in a if x != inner), next(x for x in b if x != inner)
    return (row, inner, col) if row != col and set(out) == {row, col} else None


def _row_of_products(dtype: str, spec: Any, labels: tuple[str, str, str]) -> str:
    """Row ``e_i`` of one matrix product, ``ab`` by ``bb`` into ``ob``: each element summing its
    products in order of the inner label (the tiled kernel's order, so its result to the bit),
    each operand indexed as its labels say (``rows``, ``inner``, ``cols`` its sizes)."""
    acc_t = _accumulator(dtype)
    row, inner, col = labels
    at = {row: "e_i", inner: "e_k", col: "e_j"}
    size = {row: "rows", inner: "inner", col: "cols"}

    def index(operand: Any) -> str:
        first, second = operand.labels[1:]
        return f"{at[first]} * {size[second]} + {at[second]}"

    a, b = spec.inputs
    return f"""for (int e_j = 0; e_j < cols; e_j++) {{
            {acc_t} acc = 0;
            for (int e_k = 0; e_k < inner; e_k++) {{
                acc = ({acc_t})(acc + {_read(dtype, f"ab[{index(a)}]")} * {_read(dtype, f"bb[{index(b)}]")});
            }}
            ob[{index(spec.output)}] = {_stored(dtype, "acc")};
        }}"""


def matrices_kernel(name: str, dtype: str, spec: Any, labels: tuple[str, str, str]) -> str:
    """A batch of matrix products over contiguous operands of equal batch axes: the rows of every
    batch in one loop (one division a row: the smallest code on a Cortex-M), each element summing
    its products in order of the inner label (the tiled kernel's order, so its result to the bit)."""
    ct = C_TYPE[dtype]
    return f"""
static inline void {name}(const {ct}* restrict a, const {ct}* restrict b, {ct}* restrict output, int batch, int rows,
                          int inner, int cols)
{{
    for (int e_r = 0; e_r < batch * rows; e_r++) {{
        const int e_b = e_r / rows, e_i = e_r - e_b * rows;
        const {ct}* restrict ab = a + e_b * rows * inner;
        const {ct}* restrict bb = b + e_b * inner * cols;
        {ct}* restrict ob = output + e_b * rows * cols;
        {_row_of_products(dtype, spec, labels)}
    }}
}}"""


def batches_kernel(name: str, dtype: str, spec: Any, labels: tuple[str, str, str]) -> str:
    """A batch of matrix products whose batch axes broadcast (NumPy's matmul): a loop per batch
    axis of the output, ``n<k>`` along axis ``k`` (0 the innermost batch axis), each operand's
    matrix ``a_s<k>`` (``b_s<k>``) elements apart there (0 where its size is 1); in each, every
    element sums its products in order of the inner label, as the other kernels do."""
    ct = C_TYPE[dtype]
    rank = abi.MAX_RANK - 2
    axes = range(rank - 1, -1, -1)
    loops, closing = axis_loops(["a", "b"], rank=rank)
    params = ", ".join([f"const {ct}* restrict a", f"const {ct}* restrict b", f"{ct}* restrict output", "int rows",
                        "int inner", "int cols", *(f"int n{k}" for k in axes), *(f"int a_s{k}" for k in axes),
                        *(f"int b_s{k}" for k in axes)])
    return f"""
static inline void {name}({params})
{{
    {ct}* restrict ob = output;
    {loops}
    const {ct}* restrict ab = a + a_at0;
    const {ct}* restrict bb = b + b_at0;
    for (int e_i = 0; e_i < rows; e_i++) {{
        {_row_of_products(dtype, spec, labels)}
    }}
    ob += rows * cols;
    {closing}
}}"""


def product_kernel(name: str, dtype: str) -> str:
    """One matrix product, ``rows`` x ``inner`` by ``inner`` x ``cols``, each of a, b and the
    output read or written transposed where its flag says so; each element sums its products in
    order of the inner index, in the einsum kernel's accumulator (integers wrap)."""
    ct, acc_t = C_TYPE[dtype], _accumulator(dtype)
    return f"""
static inline void {name}(const {ct}* restrict a, const {ct}* restrict b, {ct}* restrict output, int rows, int inner,
                          int cols, bool a_t, bool b_t, bool o_t)
{{
    const int a_row = a_t ? 1 : inner, a_in = a_t ? rows : 1;
    const int b_in = b_t ? 1 : cols, b_col = b_t ? inner : 1;
    const int o_row = o_t ? 1 : cols, o_col = o_t ? rows : 1;
    for (int e_i = 0; e_i < rows; e_i++) {{
        for (int e_j = 0; e_j < cols; e_j++) {{
            {acc_t} acc = 0;
            for (int e_k = 0; e_k < inner; e_k++) {{
                acc = ({acc_t})(acc + {_read(dtype, "a[e_i * a_row + e_k * a_in]")} *
                                {_read(dtype, "b[e_k * b_in + e_j * b_col]")});
            }}
            output[e_i * o_row + e_j * o_col] = {_stored(dtype, "acc")};
        }}
    }}
}}"""


def transposes(spec: Any) -> bool:
    """Whether ``spec`` transposes a batch of matrices: one operand and the output each the row
    variable then two labels, the output's the operand's swapped."""
    if len(spec.inputs) != 1:
        return False
    given, out = spec.inputs[0].labels, spec.output.labels
    return (given[:1] == out[:1] == ("...",) and len(given) == len(out) == 3 and given[1] != given[2]
            and out[1:] == given[:0:-1])


def transposed_kernel(name: str, dtype: str) -> str:
    """Matrices of rows x cols transposed, ``count`` elements in all: element i, at row r of
    the q-th row of the batch, goes to column r of its matrix. One loop with two divisions an
    element, as the real library's Transpose is written (the smallest code on a Cortex-M; a
    host runs the einsum kernel)."""
    ct = C_TYPE[dtype]
    return f"""
static inline void {name}(const {ct}* restrict a, {ct}* restrict output, int count, int rows, int cols)
{{
    for (int i = 0; i < count; i++) {{
        const int q = i / cols, r = q % rows;
        output[(q - r) * cols + (i - q * cols) * rows + r] = a[i];
    }}
}}"""


def diagonal(spec: Any) -> bool | None:
    """Whether ``spec`` reads the main diagonal of a batch of square matrices: one operand, the
    row variable then a label twice; the output the row variable, then that label (kept: the
    diagonal, True) or nothing (summed: the trace, False). None for any other spec."""
    if len(spec.inputs) != 1:
        return None
    given, out = spec.inputs[0].labels, spec.output.labels
    if given[:1] != ("...",) or len(given) != 3 or given[1] != given[2] or out[:1] != ("...",):
        return None
    return True if out[1:] == given[1:2] else False if len(out) == 1 else None


def diagonal_kernel(name: str, dtype: str, keep: bool) -> str:
    """The main diagonal of ``batch`` square matrices of ``n`` x ``n``: each element (``keep``),
    or its sum, in order along the diagonal and in the einsum kernel's accumulator (its result
    to the bit)."""
    ct, acc_t = C_TYPE[dtype], _accumulator(dtype)
    at = "a[(e_b * n + e_i) * n + e_i]"
    if keep:
        body = f"output[e_b * n + e_i] = {at};"
        before = after = ""
    else:
        before, body, after = (f"{acc_t} acc = 0;", f"acc = ({acc_t})(acc + {_read(dtype, at)});",
                               f"output[e_b] = {_stored(dtype, 'acc')};")
    return f"""
static inline void {name}(const {ct}* restrict a, {ct}* restrict output, int batch, int n)
{{
    for (int e_b = 0; e_b < batch; e_b++) {{
        {before}
        for (int e_i = 0; e_i < n; e_i++) {{
            {body}
        }}
        {after}
    }}
}}"""


def windows_kernel(name: str, dtype: str, c: C.Contraction) -> tuple[str, tuple[tuple[str, str], ...]]:
    """(the fragment's C, its parameters as ``PlainKernel.parameters``) of an einsum over
    convolution axes: a loop over the batch of the row variable where one leads every operand
    (each input ``<input>_batch`` elements apart there, 0: read again for every batch), then a
    loop per label, the output's in its order (it is written in order), then the summed ones; a
    convolution axis read at ``stride * window
    + dilation * tap - pad`` of its ``extent`` elements (a position outside: padding, skipped
    where the form pads). Sums of products accumulate as the einsum kernel does (integers wrap);
    a pool combines its window's elements as ``pool_kernel`` does. The sizes are per label
    (``size:<label>``) and per convolution axis (``stride:<i>``, ``dilation:<i>``, ``pad:<i>``,
    ``pad_end:<i>`` where a mean counts the padding, ``extent:<i>``): the caller's ints."""
    spec, ct = c.spec, C_TYPE[dtype]
    convs = list(spec.convs)
    pooled = c.combine != "add"
    names = ["x"] if pooled else ["a", "b"][:len(c.inputs)]  # (an einsum takes one operand or two)
    params: list[tuple[str, str]] = [(f"const {ct}* restrict {n}", given) for n, given in zip(names, c.inputs)]
    params.append((f"{ct}* restrict output", "output"))
    params.append(("int batch", "batch"))  # (the leading axes of the row variable, and each input's step)
    params += [(f"int {n}_batch", f"batch:{given}") for n, given in zip(names, c.inputs)]
    params += [(f"int n_{label}", f"size:{label}") for label in spec.labels]
    counted = c.combine == "mean" and c.count_include_pad is not None
    windows = c.windows()
    for i, w in enumerate(windows):  # (a stride or dilation the spec fixes is a constant of the kernel)
        params += [(f"int {role}{i}", f"{role}:{i}") for role, value in (("stride", w.stride), ("dilation", w.dilation))
                   if not isinstance(value, E.Literal)]
        params += [(f"int pad{i}", f"pad:{i}")] if c.padded else []
        params += [(f"int pad_end{i}", f"pad_end:{i}")] if counted else []
        reader = next(o for o in spec.inputs if convs[i] in o.labels)  # (its extent: a step, or the padding's end)
        if c.padded or reader.named.index(convs[i]) > 0:
            params.append((f"int extent{i}", f"extent:{i}"))
    if counted:
        params.append(("bool count_include_pad", c.count_include_pad))
    if c.p:
        params.append(("int order", c.p))

    def scale(index: str, role: str, i: int, value: Any) -> str:
        if not isinstance(value, E.Literal):
            return f"{index} * {role}{i}"
        return index if value.value == 1 else f"{index} * {value.value}"

    def position(i: int, conv: Conv) -> str:
        w = windows[i]
        tap = f" + {scale(f'l_{conv.kernel}', 'dilation', i, w.dilation)}" if conv.kernel is not None else ""
        return f"{scale(f'l_{conv.output}', 'stride', i, w.stride)}{tap}{f' - pad{i}' if c.padded else ''}"

    def index(operand: Any) -> str:
        text = ""
        for label in operand.named:
            at, size = ((f"q{convs.index(label)}", f"extent{convs.index(label)}") if isinstance(label, Conv)
                        else (f"l_{label}", f"n_{label}"))
            text = at if not text else f"{text if ' ' not in text else f'({text})'} * {size} + {at}"
        return text

    loops = [f"for (int l_{label} = 0; l_{label} < n_{label}; l_{label}++) {{" for label in spec.output.named]
    sums = [f"for (int l_{label} = 0; l_{label} < n_{label}; l_{label}++) {{" for label in spec.reduced]
    where = "".join(f"const int q{i} = {position(i, conv)};\n" for i, conv in enumerate(convs))
    inside = " && ".join(f"q{i} >= 0 && q{i} < extent{i}" for i in range(len(convs)))
    if not pooled:
        acc_t = _accumulator(dtype)
        term = " * ".join(_read(dtype, f"{n}b[{index(o)}]") for n, o in zip(names, spec.inputs))
        init, step, final = "0", f"acc = ({acc_t})(acc + {term});", _stored(dtype, "acc")
    else:
        acc_t = C_TYPE[_computed(dtype)]
        init, step, final = pool_combine(c.combine, _computed(dtype), "e_x", counted)
        final = _stored(dtype, final)
        step = (f"const {acc_t} e_x = {scalar_c.converted(f'xb[{index(spec.inputs[0])}]', dtype, _computed(dtype))};"
                f"\n{step}\nn++;")
    if c.padded:
        step = f"if ({inside}) {{\n{step}\n}}"
    if counted:  # (a position inside the padded axis counts, beyond it (ceil_mode's last window) not)
        reads = " && ".join(f"q{i} >= -pad{i} && q{i} < extent{i} + pad_end{i}" for i in range(len(convs)))
        step += f"\npadded += ({reads}) ? 1 : 0;"
    counts = "int n = 0, padded = 0;\n" if pooled else ""
    closing = "(void)n;\n(void)padded;\n" if pooled else ""
    batched = "".join(f"const {ct}* restrict {n}b = {n} + e_b * {n}_batch;\n" for n in names)
    body = (f"int e_o = 0;\nfor (int e_b = 0; e_b < batch; e_b++) {{\n{batched}{''.join(loops)}\n"
            f"{acc_t} acc = {init};\n{counts}{''.join(sums)}\n{where}{step}\n"
            f"{'}' * len(sums)}\n{closing}output[e_o++] = {final};\n{'}' * len(loops)}\n}}")
    text = f"""
static inline void {name}({', '.join(d for d, _ in params)})
{{
{body}
}}"""
    return text, tuple(params)


class ContractionEmitter(Emitter):
    def plain_transposed(self, c: C.Contraction) -> tuple[PlainKernel, ...]:
        """Where the einsum transposes a batch of matrices, one plain kernel per dtype."""
        (x,), out = c.inputs, self.op.outputs[0].name
        kernels = []
        for v in self.variants:
            t, name = v.of(x), f"{self.kernel_name(v)}_transposed"
            params = ((f"const {C_TYPE[t]}* restrict a", x), (f"{C_TYPE[t]}* restrict output", out),
                      *((f"int {s}", s) for s in PLAIN_SIZES["transposed"]))
            kernels.append(PlainKernel(fragment(name, transposed_kernel(name, t)), v, params, "transposed",
                                       axes=(("rows", x, -2), ("cols", x, -1))))
        return tuple(kernels)

    def plain_diagonal(self, c: C.Contraction, keep: bool) -> tuple[PlainKernel, ...]:
        """Where the einsum reads the diagonal of square matrices (diag_part) or sums it (trace),
        one plain kernel per dtype over the batch and the matrices' size."""
        (x,), out = c.inputs, self.op.outputs[0].name
        kernels = []
        for v in self.variants:
            t, name = v.of(x), f"{self.kernel_name(v)}_diagonal"
            params = ((f"const {C_TYPE[t]}* restrict a", x), (f"{C_TYPE[t]}* restrict output", out),
                      ("int batch", "batch"), ("int n", f"cols:{x}"))
            kernels.append(PlainKernel(fragment(name, diagonal_kernel(name, t, keep)), v, params, "batched"))
        return tuple(kernels)

    def plain_matrices(self, c: C.Contraction) -> tuple[PlainKernel, ...]:
        """Where the einsum is a batch of matrix products (or transposes matrices), one plain
        kernel per dtype."""
        if transposes(c.spec):
            return self.plain_transposed(c)
        if diagonal(c.spec) is not None:
            return self.plain_diagonal(c, diagonal(c.spec) is True)
        labels = matrix_labels(c.spec)
        if labels is None:
            return ()
        x, y = c.inputs
        out = self.op.outputs[0].name
        row, inner, col = labels
        (a0, _), (b0, _) = (o.labels[1:] for o in c.spec.inputs)
        axes = (("rows", x, -2 if a0 == row else -1), ("inner", x, -2 if a0 == inner else -1),
                ("cols", y, -2 if b0 == col else -1))
        kernels = []
        for v in self.variants:
            t, name = v.of(x), f"{self.kernel_name(v)}_matrices"
            params = ((f"const {C_TYPE[t]}* restrict a", x), (f"const {C_TYPE[t]}* restrict b", y),
                      (f"{C_TYPE[t]}* restrict output", out), *((f"int {s}", s) for s in PLAIN_SIZES["matrices"]))
            kernels.append(PlainKernel(fragment(name, matrices_kernel(name, t, c.spec, labels)), v, params,
                                       "matrices", axes=axes))
        # (where the batch axes differ: they broadcast, a loop per axis; chosen after the above)
        rank = abi.MAX_RANK - 2
        for v in self.variants:
            t, name = v.of(x), f"{self.kernel_name(v)}_batches"
            params = ((f"const {C_TYPE[t]}* restrict a", x), (f"const {C_TYPE[t]}* restrict b", y),
                      (f"{C_TYPE[t]}* restrict output", out), *((f"int {s}", s) for s in ("rows", "inner", "cols")),
                      *((f"int n{k}", f"n{k}") for k in range(rank - 1, -1, -1)),
                      *((f"int {o}_s{k}", f"step:{n}:{k}") for o, n in (("a", x), ("b", y)) for k in range(rank - 1, -1, -1)))
            kernels.append(PlainKernel(fragment(name, batches_kernel(name, t, c.spec, labels)), v, params,
                                       "batches", axes=axes))
        return tuple(kernels)

    def fixed_point_matrices(self, c: C.Contraction) -> tuple[PlainKernel, ...]:
        """Where the einsum is a batch of matrix products of two operands as stored (rows by
        inner, inner by cols), each fixed-point type's kernel the form derives (ADR 0036, 0038):
        the mapped products summed in int64, one requantization per element; a Q output's shift
        the operands' summed, a D kernel's scales and offsets as arguments (its multiplier from
        them once a call), its output's the caller's."""
        labels = matrix_labels(c.spec)
        if labels is None or transposes(c.spec) or len(c.inputs) != 2:
            return ()
        row, inner, col = labels
        if tuple(o.labels[1:] for o in c.spec.inputs) != ((row, inner), (inner, col)):
            return ()  # (an operand transposed: not yet)
        x, y = c.inputs
        out = self.op.outputs[0].name
        axes = (("rows", x, -2), ("inner", x, -1), ("cols", y, -1))
        kernels = []
        for t in F.TYPES.values():
            r = F.derive(self.op, t)
            if not isinstance(r, (F.QContraction, F.DContraction)):
                continue
            ct, name = C_TYPE[t.storage], f"{self.fn}_{t.name}_matrices"
            params = [(f"const {ct}* restrict a", x), (f"const {ct}* restrict b", y),
                      (f"{ct}* restrict output", out), *((f"int {s}", s) for s in PLAIN_SIZES["matrices"])]
            env = {x: ("((int64_t)ab[e_i * inner + e_k])", "int64"), y: ("((int64_t)bb[e_k * cols + e_j])", "int64")}
            final_env: dict = {"acc": ("acc", "int64")}
            prologue, per_call, chosen, shift = "", (), (), ()
            if isinstance(r, F.QContraction):
                shift = (("shift", r.output_shift),)
            else:
                tensors = (x, y, "output")
                params += [p for n in tensors for p in ((f"double {n}_scale", f"{n}_scale"),
                                                         (f"int {n}_offset", f"{n}_offset"))]
                prologue, final_env = fixed_point.c_multipliers(r.multipliers, tensors)
                final_env |= {"acc": ("acc", "int64"), "output_offset": ("output_offset", "int32")}
                env |= {f"{n}_offset": (f"{n}_offset", "int32") for n in (x, y)}
                per_call = tuple((f"{n}_{a}", SSym(f"{n}_{a}")) for n in (x, y) for a in ("scale", "offset"))
                chosen = ("scale", "offset")
            term, _ = scalar_c.render(r.map, "int64", env)
            store = fixed_point.c_statement(r.finalize, "ob[e_i * cols + e_j]", final_env)
            v = D.Variant(t.storage, tuple((p.name, t.storage) for p in (*self.op.inputs, *self.op.outputs)))
            kernels.append(PlainKernel(fragment(name, f"""
static inline void {name}({', '.join(d for d, _ in params)})
{{
    {prologue}
    for (int e_r = 0; e_r < batch * rows; e_r++) {{
        const int e_b = e_r / rows, e_i = e_r - e_b * rows;
        const {ct}* restrict ab = a + e_b * rows * inner;
        const {ct}* restrict bb = b + e_b * inner * cols;
        {ct}* restrict ob = output + e_b * rows * cols;
        for (int e_j = 0; e_j < cols; e_j++) {{
            int64_t acc = 0;
            for (int e_k = 0; e_k < inner; e_k++) {{
                acc = (int64_t)((uint64_t)acc + (uint64_t)({term}));
            }}
            {store}
        }}
    }}
}}"""), v, tuple(params), "matrices", axes=axes, fixed_point=t.name, per_call=per_call,
                output_attributes=shift, chosen=chosen))
        return tuple(kernels)

    def emit(self) -> OpCode:
        c: C.Contraction = self.op.compute  # type: ignore[assignment]
        spec = c.spec
        ids = {label: i for i, label in enumerate(spec.labels)}
        names = [abi.c_name(n) for n in c.inputs]
        if c.combine == "add":
            frags = [einsum_kernel(self.kernel_name(v), v.of(c.inputs[0]), len(names), c.padded) for v in self.variants]
        else:
            frags = [pool_kernel(self.kernel_name(v), v.of(c.inputs[0]), c.combine, c.padded) for v in self.variants]

        windows = c.windows()
        convs = [w.conv for w in windows]

        def label_ids(operand) -> str:
            return ", ".join(str(-1 if label == "..." else -2 - convs.index(label) if isinstance(label, Conv)
                                 else ids[label]) for label in operand.labels) or "0"

        lines = [f"/* einsum {c_comment(spec.text)} */"]
        if convs:  # (each convolution axis's steps, windows and padding, as the form computes them)
            self.form_checks()  # (rendered first: the sizes they computed are read, not computed again)
            sizes = self.shapes
            values = [[sizes.render(v) for v in (w.stride, w.dilation, w.windows, w.pad_begin,
                                                 w.kernel if w.kernel is not None else Sh.size(1), w.pad_end)]
                      for w in windows]
            lines += sizes.take()
            lines.append("const opf_conv_axis opf_convs[] = {" + ", ".join(
                f"{{{ids[w.conv.output]}, {ids[w.conv.kernel] if w.conv.kernel else -1}, {', '.join(given)}}}"
                for w, given in zip(windows, values)) + "};")
        for k, operand in enumerate(spec.inputs):
            lines.append(f"static const int8_t labels{k}[] = {{{label_ids(operand)}}};")
        lines.append(f"static const int8_t out_labels[] = {{{label_ids(spec.output)}}};")
        lines += [f"const opforge_tensor* const ops[] = {{{', '.join(names)}}};",
                  f"const int8_t* const labels[] = {{{', '.join(f'labels{k}' for k in range(len(names)))}}};",
                  f"const int32_t n_labels[] = {{{', '.join(str(len(o.labels)) for o in spec.inputs)}}};",
                  "opf_einsum_plan plan;",
                  *(["opf_einsum_pads opf_pads;"] if c.padded else []),
                  f"opf_einsum_plan_make({len(names)}, ops, labels, n_labels, out_labels, {len(spec.output.labels)}, "
                  f"{len(ids)}, {'opf_convs' if convs else 'NULL'}, {'&opf_pads' if c.padded else 'NULL'}, &plan);"]
        fixed = {t.name: (t, r) for t, r in self.fixed_point_contractions()}
        frags += [self.fixed_point_plan(c, t, r) for t, r in fixed.values()]
        tensors = [p.name for p in (*self.op.inputs, *self.op.outputs)]
        self.fixed_variants = [D.Variant(name, tuple((n, name) for n in tensors)) for name in fixed]
        body = self.run_plan(c.inputs, lambda v: self.fixed_point_call(c, *fixed[v.dtype]))
        plain = self.plain_matrices(c) or self.plain_windows(c)
        return OpCode(tuple(frags), (), self.api(lines + body), plain + self.fixed_point_matrices(c))

    def plain_windows(self, c: C.Contraction) -> tuple[PlainKernel, ...]:
        """Where the einsum reads convolution axes and has no row variable (the convolutions and
        pools, correlate), one plain kernel per dtype: a loop per label (``windows_kernel``)."""
        spec = c.spec
        operands = (*spec.inputs, spec.output)
        if not spec.convs or spec.placeholders or any(o.labels.count("...") != o.has_ellipsis
                                                      or o.has_ellipsis and o.labels[0] != "..." for o in operands):
            return ()  # (a row variable, where there is one, leads every operand: a batch loop)
        kernels = []
        for v in self.variants:
            name = f"{self.kernel_name(v)}_windows"
            text, params = windows_kernel(name, v.of(c.inputs[0]), c)
            params = tuple((d, self.op.outputs[0].name if s == "output" else s) for d, s in params)
            kernels.append(PlainKernel(fragment(name, text), v, params, "windowed"))
        return tuple(kernels)

    def fixed_point_contractions(self) -> list[tuple[F.FixedPointType, F.QContraction | F.DContraction]]:
        """Each fixed-point type the form derives a contraction for (ADR 0036, ``api_reductions``)."""
        return [(F.TYPES[name], r) for name, r in fixed_point.api_reductions(self.op).items()
                if isinstance(r, (F.QContraction, F.DContraction))]

    def fixed_point_plan(self, c: C.Contraction, t: F.FixedPointType, r: F.QContraction | F.DContraction) -> CFragment:
        """The C API's kernel of a fixed-point type over the einsum plan (any batch broadcast, any
        strides): per output element its mapped products summed in int64, in order, then the one
        requantization; a D kernel's scales and offsets as arguments, its multiplier from them
        once a call."""
        x, y = c.inputs
        cx, cy = abi.c_name(x), abi.c_name(y)
        stored, name = C_TYPE[t.storage], f"{self.fn}_{t.name}"
        env = {x: (f"((int64_t){cx}[ar])", "int64"), y: (f"((int64_t){cy}[br])", "int64")}
        final_env: dict = {"acc": ("acc", "int64")}
        params = [f"const {stored}* restrict {cx}", f"const {stored}* restrict {cy}", f"{stored}* restrict output",
                  "const opf_einsum_plan* p"]
        prologue = columns = ""
        if isinstance(r, F.DContraction):
            tensors = (x, y, "output")
            params += [p for n in tensors for p in (f"double {abi.c_name(n)}_scale", f"int {abi.c_name(n)}_offset")]
            prologue, final_env = fixed_point.c_multipliers(r.multipliers, tensors)
            final_env |= {"acc": ("acc", "int64"), "output_offset": ("output_offset", "int32")}
            env |= {f"{n}_offset": (f"{abi.c_name(n)}_offset", "int32") for n in (x, y)}
            if r.per_column is not None:  # (a multiplier per column of the result: its last axis, ADR 0071)
                scales = f"{abi.c_name(r.per_column)}_scales"
                params += [f"const float* restrict {scales}", "int64_t cols"]
                update = fixed_point.c_column_multipliers(r.multipliers, tensors, r.per_column, f"{scales}[oo % cols]")
                columns = f"if ({scales} != NULL) {{\n{update}\n}}"
        term, _ = scalar_c.render(r.map, "int64", env)
        return fragment(name, f"""
static inline void {name}({', '.join(params)})
{{
    {prologue}
    int64_t oi[OPF_MAX_LOOPS] = {{0}};
    int64_t ao = 0, bo = 0, oo = 0;
    for (int64_t o = 0; o < p->n_out_total; o++) {{
        int64_t ri[OPF_MAX_LOOPS] = {{0}};
        int64_t ar = ao, br = bo;
        int64_t acc = 0;
        for (int64_t r = 0; r < p->n_red_total; r++) {{
            acc = (int64_t)((uint64_t)acc + (uint64_t)({term}));
            opf_advance(p->n_red, p->red_extent, ri, p->red_stride[0], &ar, p->red_stride[1], &br, NULL, NULL);
        }}
        {columns}
        {fixed_point.c_statement(r.finalize, "output[oo]", final_env)}
        opf_advance(p->n_out, p->out_extent, oi, p->out_stride[0], &ao, p->out_stride[1], &bo, p->out_stride[2], &oo);
    }}
}}""")

    def fixed_point_call(self, c: C.Contraction, t: F.FixedPointType, r: F.QContraction | F.DContraction) -> list[str]:
        """The C API's call of a fixed-point contraction (ADR 0040): a Q output's shift the form's
        (refused where it leaves the type's range), set after the call; a D contraction reads the
        descriptors' scales and offsets, the output's the caller's."""
        stored = C_TYPE[t.storage]
        out = abi.c_name(self.op.outputs[0].name)
        names = [abi.c_name(n) for n in c.inputs]
        values = [f"(const {stored}*){n}->data" for n in names] + [f"({stored}*){out}->data", "&plan"]
        if isinstance(r, F.DContraction):
            values += [f"{n}->{a}" for n in (*names, out) for a in ("scale", "offset")]
            if r.per_column is not None:  # (its per-axis scales, checked to run along its last axis: the columns)
                values += [f"{abi.c_name(r.per_column)}->scales", f"{out}->shape[{out}->rank - 1]"]
            return [f"{self.fn}_{t.name}({', '.join(values)});"]
        env = {F.shift_of(n): (f"{abi.c_name(n)}->shift", "int32") for n in c.inputs}
        return [*fixed_point_api.q_output_shift(self.op.outputs[0].name, t, r.output_shift, env),
                f"{self.fn}_{t.name}({', '.join(values)});", f"{out}->shift = output_shift;"]

    def run_plan(self, inputs: tuple[str, ...], fixed: Callable[[D.Variant], list[str]] | None = None) -> list[str]:
        """The kernel of the primary tensor's dtype over ``plan``, into the output (a fixed-point
        type's: ``fixed``'s lines)."""
        out = self.op.outputs[0]

        def per_variant(v: D.Variant) -> list[str]:
            data = [f"(const {C_TYPE[v.of(n)]}*){abi.c_name(n)}->data" for n in inputs]
            c = self.op.compute
            pads = ", &opf_pads" if getattr(c, "padded", False) else ""
            pads += "".join(f", {abi.c_name(a)}" for a in (getattr(c, "count_include_pad", None), getattr(c, "p", None))
                            if a)
            return [f"{self.kernel_name(v)}({', '.join(data)}, ({C_TYPE[v.of(out.name)]}*)"
                    f"{abi.c_name(out.name)}->data, &plan{pads});"]

        return self.dispatch(per_variant, fixed=fixed)


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
                 f"opf_tensordot_labels({x}, {y}, {ax}, {ax}_count, {ay}, {tx}, {ty}, {tz}, labels_x, labels_y, "
                 "out_labels, &n_out, &n_ids);",
                 f"const opforge_tensor* const ops[] = {{{x}, {y}}};",
                 "const int8_t* const labels[] = {labels_x, labels_y};",
                 f"const int32_t n_labels[] = {{{x}->rank, {y}->rank}};",
                 "opf_einsum_plan plan;",
                 "opf_einsum_plan_make(2, ops, labels, n_labels, out_labels, n_out, n_ids, NULL, NULL, &plan);"]
        return OpCode(tuple(frags), (), self.api(lines + self.run_plan(c.inputs)), self.plain_product(c))

    def plain_product(self, c: C.TensorDot) -> tuple[PlainKernel, ...]:
        """Per dtype, the kernel of one matrix product: where the form's ``matrix_product`` holds,
        the contraction of x and y as they are stored."""
        (x, y), out = c.inputs, self.op.outputs[0].name
        kernels = []
        for v in self.variants:
            t, name = v.of(x), f"{self.kernel_name(v)}_product"
            params = ((f"const {C_TYPE[t]}* restrict a", x), (f"const {C_TYPE[t]}* restrict b", y),
                      (f"{C_TYPE[t]}* restrict output", out), *((f"int {s}", s) for s in PLAIN_SIZES["product"]),
                      *((f"bool {flag}", arg) for flag, arg in zip(("a_t", "b_t", "o_t"), c.transposes)))
            kernels.append(PlainKernel(fragment(name, product_kernel(name, t)), v, params, "product"))
        return tuple(kernels)


# ---------------------------------------------------------------- random
