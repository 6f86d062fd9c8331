/* Contractions: einsum plans, their matrix-product special case and tensordot's labels. */
#ifndef OPF_EINSUM_H
#define OPF_EINSUM_H

#include "opf_base.h"
#include "opf_dims.h"
#include "opf_layouts.h"

#define OPF_MAX_LOOPS (2 * OPFORGE_MAX_RANK)

/* An einsum as output loops and reduction loops, with each operand's stride per loop. */
typedef struct opf_einsum_plan {
    int32_t n_out;
    int64_t out_extent[OPF_MAX_LOOPS];
    int64_t out_stride[3][OPF_MAX_LOOPS];
    int32_t n_red;
    int64_t red_extent[OPF_MAX_LOOPS];
    int64_t red_stride[2][OPF_MAX_LOOPS];
    int64_t n_out_total;
    int64_t n_red_total;
    int32_t out_rank;
    int64_t out_shape[OPFORGE_MAX_RANK];
} opf_einsum_plan;

/* A plan's padded convolution axes: each position stride * w + dilation * k - pad must lie in
 * [0, size), w and k the indices of loops (red: a reduced loop's; ker_loop -1: no kernel);
 * start: each operand's offset of its first element read (negative by the padding before).
 * Only an op with padding keeps one, beside its plan. */
typedef struct opf_einsum_pads {
    int32_t n;
    struct {
        int64_t size, pad, pad_after, stride, dilation;
        bool win_red, ker_red;
        int32_t win_loop, ker_loop;
    } at[OPFORGE_MAX_RANK];
    int64_t start[2];
} opf_einsum_pads;

/* Whether every padded convolution axis reads inside its operand at these loop indices (or,
 * with `padding`, inside the operand and its padding: a pool's partial window reads beyond). */
static inline bool opf_einsum_reads(const opf_einsum_pads* q, const int64_t* oi, const int64_t* ri, bool padding)
{
    for (int32_t c = 0; c < q->n; c++) {
        const int64_t w = q->at[c].win_red ? ri[q->at[c].win_loop] : oi[q->at[c].win_loop];
        const int64_t k = q->at[c].ker_loop < 0 ? 0 : q->at[c].ker_red ? ri[q->at[c].ker_loop] : oi[q->at[c].ker_loop];
        const int64_t at = q->at[c].stride * w + q->at[c].dilation * k - q->at[c].pad;
        const int64_t low = padding ? -q->at[c].pad : 0, high = q->at[c].size + (padding ? q->at[c].pad_after : 0);
        if (at < low || at >= high) {
            return false;
        }
    }
    return true;
}

static inline bool opf_einsum_inside(const opf_einsum_pads* q, const int64_t* oi, const int64_t* ri)
{
    return opf_einsum_reads(q, oi, ri, false);
}

/* Operand k moves `step` elements along label `id`'s loop (an output or a reduced one). */
static inline void opf_einsum_step(opf_einsum_plan* p, int32_t k, const int32_t* loop_of_id, const int32_t* red_of_id,
                                   int8_t id, int64_t step)
{
    if (loop_of_id[id] >= 0) {
        p->out_stride[k][loop_of_id[id]] += step;
    } else {
        p->red_stride[k][red_of_id[id]] += step;
    }
}

/* A convolution axis (OCANNL's stride*output+dilation*kernel): read at stride * o +
 * dilation * k - pad, where o, label id `output`, runs over `windows` windows and k, label id
 * `kernel` (-1: none, a strided axis), over the `taps` of the kernel; a position outside the
 * axis reads 0 (padding). The caller renders the values from the form. */
typedef struct opf_conv_axis {
    int8_t output;
    int8_t kernel;
    int64_t stride;
    int64_t dilation;
    int64_t windows;
    int64_t pad;
    int64_t taps; /* the kernel's size (a pool's: no operand has its axis) */
    int64_t pad_after;
} opf_conv_axis;

/* labels[k][i]: label id of axis i of operand k, -1 for the row variable (ellipsis), -2 - c
 * for convolution axis c of convs; out_labels likewise for the result (no convolution axes;
 * a label no operand has is an axis of size 1); n_ids: number of distinct label ids. The
 * operands fit the spec (the caller has checked the form's refusals: ranks, sizes along
 * shared labels, windows that fit with their padding, batch axes that broadcast, the
 * result's rank); the plan is their loops, and q (NULL for an op without padding) the
 * checks of the axes that read into their padding. */
static inline void opf_einsum_plan_make(int32_t n_ops, const opforge_tensor* const* ops, const int8_t* const* labels,
                                        const int32_t* n_labels, const int8_t* out_labels, int32_t n_out_labels,
                                        int32_t n_ids, const opf_conv_axis* convs, opf_einsum_pads* q,
                                        opf_einsum_plan* p)
{
    int64_t extent[OPF_MAX_LOOPS];
    bool known[OPF_MAX_LOOPS] = {false};
    for (int32_t id = 0; id < n_ids; id++) {
        extent[id] = 1;
    }
    opf_dims ell = {0, {0}}; /* the batch axes, the operands' row variables broadcast */
    int32_t ell_of[2] = {0, 0};
    for (int32_t k = 0; k < n_ops; k++) {
        int32_t named = 0;
        for (int32_t i = 0; i < n_labels[k]; i++) {
            named += labels[k][i] == -1 ? 0 : 1;
        }
        ell_of[k] = ops[k]->rank - named;
    }
    for (int32_t k = 0; k < n_ops; k++) {
        int32_t axis = 0;
        for (int32_t i = 0; i < n_labels[k]; i++) {
            if (labels[k][i] == -1) {
                const opf_dims rows = opf_dims_from(ops[k]->shape + axis, ell_of[k]);
                (void)opf_dims_fit(&ell, &rows, false);
                axis += ell_of[k];
                continue;
            }
            if (labels[k][i] < -1) {
                const opf_conv_axis* c = &convs[-2 - labels[k][i]];
                extent[c->output] = c->windows;
                known[c->output] = true;
                if (c->kernel >= 0) {
                    extent[c->kernel] = c->taps;
                    known[c->kernel] = true;
                }
                axis++;
                continue;
            }
            const int8_t id = labels[k][i];
            extent[id] = ops[k]->shape[axis++];
            known[id] = true;
        }
    }
    /* Output loops: the labels of the result, the row variable expanded. */
    int32_t loop_of_id[OPF_MAX_LOOPS];
    for (int32_t id = 0; id < n_ids; id++) {
        loop_of_id[id] = -1;
    }
    int32_t ell_loop = -1;
    p->n_out = 0;
    p->out_rank = 0;
    for (int32_t i = 0; i < n_out_labels; i++) {
        if (out_labels[i] < 0) {
            ell_loop = p->n_out;
            for (int32_t e = 0; e < ell.rank; e++) {
                p->out_extent[p->n_out++] = ell.size[e];
            }
        } else {
            loop_of_id[out_labels[i]] = p->n_out;
            p->out_extent[p->n_out++] = extent[out_labels[i]];
        }
    }
    p->n_red = 0;
    int32_t red_of_id[OPF_MAX_LOOPS];
    for (int32_t id = 0; id < n_ids; id++) {
        red_of_id[id] = -1;
        if (loop_of_id[id] < 0 && known[id]) {
            red_of_id[id] = p->n_red;
            p->red_extent[p->n_red++] = extent[id];
        }
    }
    const int32_t ell_red = p->n_red; /* a row variable the result lacks: its axes summed */
    if (ell_loop < 0) {
        for (int32_t e = 0; e < ell.rank; e++) {
            p->red_extent[p->n_red++] = ell.size[e];
        }
    }
    p->n_out_total = 1;
    for (int32_t l = 0; l < p->n_out; l++) {
        p->out_shape[l] = p->out_extent[l];
        p->n_out_total *= p->out_extent[l];
        p->out_stride[0][l] = p->out_stride[1][l] = 0;
    }
    p->out_rank = p->n_out;
    p->n_red_total = 1;
    for (int32_t l = 0; l < p->n_red; l++) {
        p->n_red_total *= p->red_extent[l];
        p->red_stride[0][l] = p->red_stride[1][l] = 0;
    }
    int64_t stride = 1;
    for (int32_t l = p->n_out - 1; l >= 0; l--) {
        p->out_stride[2][l] = stride;
        stride *= p->out_extent[l];
    }
    if (q != NULL) {
        q->n = 0;
        q->start[0] = q->start[1] = 0;
    }
    for (int32_t k = 0; k < n_ops; k++) {
        int64_t astride = 1;
        int32_t axis = ops[k]->rank;
        for (int32_t i = n_labels[k] - 1; i >= 0; i--) {
            if (labels[k][i] == -1) {
                for (int32_t e = ell_of[k] - 1; e >= 0; e--) {
                    axis--;
                    const int64_t s = ops[k]->shape[axis];
                    const int32_t at = (ell.rank - ell_of[k]) + e;
                    if (s != 1 && ell_loop >= 0) {
                        p->out_stride[k][ell_loop + at] += astride;
                    } else if (s != 1) {
                        p->red_stride[k][ell_red + at] += astride;
                    }
                    astride *= s;
                }
                continue;
            }
            axis--;
            if (labels[k][i] < -1) { /* a convolution axis: its window's and its kernel's steps */
                const opf_conv_axis* c = &convs[-2 - labels[k][i]];
                opf_einsum_step(p, k, loop_of_id, red_of_id, c->output, c->stride * astride);
                const int64_t kernel = c->kernel >= 0 ? extent[c->kernel] : 1;
                if (c->kernel >= 0) {
                    opf_einsum_step(p, k, loop_of_id, red_of_id, c->kernel, c->dilation * astride);
                }
                const int64_t size = ops[k]->shape[axis];
                if (q != NULL &&
                    (c->pad > 0 || (c->windows - 1) * c->stride + c->dilation * (kernel - 1) - c->pad >= size)) {
                    q->start[k] -= c->pad * astride;
                    q->at[q->n].size = size;
                    q->at[q->n].pad = c->pad;
                    q->at[q->n].pad_after = c->pad_after;
                    q->at[q->n].stride = c->stride;
                    q->at[q->n].dilation = c->dilation;
                    q->at[q->n].win_red = loop_of_id[c->output] < 0;
                    q->at[q->n].win_loop = loop_of_id[c->output] < 0 ? red_of_id[c->output] : loop_of_id[c->output];
                    q->at[q->n].ker_red = c->kernel >= 0 && loop_of_id[c->kernel] < 0;
                    q->at[q->n].ker_loop = c->kernel < 0                  ? -1
                                           : loop_of_id[c->kernel] < 0 ? red_of_id[c->kernel]
                                                                        : loop_of_id[c->kernel];
                    q->n++;
                }
            } else {
                opf_einsum_step(p, k, loop_of_id, red_of_id, labels[k][i], astride);
            }
            astride *= ops[k]->shape[axis];
        }
    }
}

/* A plan that is a batch of matrix products: one reduced loop k, and its last two
 * output loops i and j where one operand ("a") runs along i and k and the other
 * ("b") along k and j with step 1 along j. Fills the sizes and steps of one product
 * (swap: the operands play b and a) and returns false for any other plan. */
typedef struct opf_gemm {
    bool swap;
    int64_t m, n, k;
    int64_t a_row, a_red, b_red;
} opf_gemm;

static inline bool opf_einsum_gemm(const opf_einsum_plan* p, opf_gemm* g)
{
    if (p->n_red != 1 || p->n_out < 2) {
        return false;
    }
    const int32_t i = p->n_out - 2, j = p->n_out - 1;
    for (int32_t s = 0; s < 2; s++) {
        const int32_t a = s, b = 1 - s;
        if (p->out_stride[a][j] == 0 && p->out_stride[b][j] == 1 && p->out_stride[b][i] == 0) {
            g->swap = s == 1;
            g->m = p->out_extent[i];
            g->n = p->out_extent[j];
            g->k = p->red_extent[0];
            g->a_row = p->out_stride[a][i];
            g->a_red = p->red_stride[a][0];
            g->b_red = p->red_stride[b][0];
            return true;
        }
    }
    return false;
}

/* The einsum labels of numpy.tensordot(x', y', (axes_x, axes_y)), where x' is x
 * with its axes reversed when transpose_x (ND4J's transpose), y' likewise, and the
 * result's axes reversed when transpose_z: axis i of x' is label i, a contracted
 * axis of y' takes its partner's label, a free one the next label; the result holds
 * the free axes of x' then those of y'. The caller has checked the form's refusals: as
 * many axes in each list, in range, distinct, pairs of one size, a result within the
 * maximum rank. */
static inline void opf_tensordot_labels(const opforge_tensor* x, const opforge_tensor* y, const int64_t* axes_x,
                                        int32_t count, const int64_t* axes_y, bool transpose_x, bool transpose_y,
                                        bool transpose_z, int8_t* labels_x, int8_t* labels_y, int8_t* labels_out,
                                        int32_t* n_out, int32_t* n_ids)
{
    int8_t partner[OPFORGE_MAX_RANK]; /* of each axis of y': the axis of x' it is contracted with, or -1 */
    bool used_x[OPFORGE_MAX_RANK] = {false};
    for (int32_t d = 0; d < y->rank; d++) {
        partner[d] = -1;
    }
    for (int32_t k = 0; k < count; k++) {
        const int64_t a = axes_x[k] < 0 ? axes_x[k] + x->rank : axes_x[k];
        const int64_t b = axes_y[k] < 0 ? axes_y[k] + y->rank : axes_y[k];
        used_x[a] = true;
        partner[b] = (int8_t)a;
    }
    int8_t out[2 * OPFORGE_MAX_RANK];
    int32_t n = 0, ids = x->rank;
    for (int32_t i = 0; i < x->rank; i++) {
        labels_x[transpose_x ? x->rank - 1 - i : i] = (int8_t)i; /* memory axis of x' axis i */
        if (!used_x[i]) {
            out[n++] = (int8_t)i;
        }
    }
    for (int32_t j = 0; j < y->rank; j++) {
        const int8_t id = partner[j] >= 0 ? partner[j] : (int8_t)ids++;
        labels_y[transpose_y ? y->rank - 1 - j : j] = id;
        if (partner[j] < 0) {
            out[n++] = id;
        }
    }
    /* n <= OPFORGE_MAX_RANK was checked by the caller; the bound says so to the compiler too,
     * which cannot see it and warns (-Wstringop-overflow) at -O3 when the loop is inlined. */
    for (int32_t i = 0; i < n && i < OPFORGE_MAX_RANK; i++) {
        labels_out[i] = out[transpose_z ? n - 1 - i : i];
    }
    *n_out = n;
    *n_ids = ids;
}

#endif
