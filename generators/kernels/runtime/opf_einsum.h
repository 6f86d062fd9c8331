/* Contractions: einsum plans, their matrix-product special case and tensordot's labels. */
#ifndef OPF_EINSUM_H
#define OPF_EINSUM_H

#include "opf_base.h"
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

/* labels[k][i]: label id of axis i of operand k, -1 for the row variable (ellipsis);
 * out_labels likewise for the result; n_ids: number of distinct label ids. */
static inline opforge_status opf_einsum_plan_make(int32_t n_ops, const opforge_tensor* const* ops,
                                                  const int8_t* const* labels, const int32_t* n_labels,
                                                  const int8_t* out_labels, int32_t n_out_labels, int32_t n_ids,
                                                  opf_einsum_plan* p, const char** detail)
{
    int64_t extent[OPF_MAX_LOOPS];
    bool known[OPF_MAX_LOOPS] = {false};
    int32_t ell_rank = 0;
    int64_t ell_shape[OPFORGE_MAX_RANK];
    int32_t ell_of[2] = {0, 0};
    for (int32_t k = 0; k < n_ops; k++) {
        int32_t named = 0;
        bool has_ell = false;
        for (int32_t i = 0; i < n_labels[k]; i++) {
            if (labels[k][i] < 0) {
                has_ell = true;
            } else {
                named++;
            }
        }
        if (has_ell ? ops[k]->rank < named : ops[k]->rank != named) {
            return opf_fail(detail, OPFORGE_ERR_RANK, "an operand's rank does not fit the einsum spec");
        }
        ell_of[k] = ops[k]->rank - named;
    }
    for (int32_t k = 0; k < n_ops; k++) {
        int32_t axis = 0;
        for (int32_t i = 0; i < n_labels[k]; i++) {
            if (labels[k][i] < 0) {
                if (!opf_broadcast_into(ell_of[k], ops[k]->shape + axis, &ell_rank, ell_shape)) {
                    return opf_fail(detail, OPFORGE_ERR_SHAPE, "the operands' batch axes do not broadcast");
                }
                axis += ell_of[k];
                continue;
            }
            const int8_t id = labels[k][i];
            const int64_t s = ops[k]->shape[axis++];
            if (known[id] && extent[id] != s) {
                return opf_fail(detail, OPFORGE_ERR_SHAPE, "operand sizes disagree along a shared label");
            }
            extent[id] = s;
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
            for (int32_t e = 0; e < ell_rank; e++) {
                p->out_extent[p->n_out++] = ell_shape[e];
            }
        } else {
            loop_of_id[out_labels[i]] = p->n_out;
            p->out_extent[p->n_out++] = extent[out_labels[i]];
        }
    }
    if (p->n_out > OPFORGE_MAX_RANK) {
        return opf_fail(detail, OPFORGE_ERR_RANK, "the result would exceed the maximum rank");
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
    for (int32_t k = 0; k < n_ops; k++) {
        int64_t astride = 1;
        int32_t axis = ops[k]->rank;
        for (int32_t i = n_labels[k] - 1; i >= 0; i--) {
            if (labels[k][i] < 0) {
                for (int32_t e = ell_of[k] - 1; e >= 0; e--) {
                    axis--;
                    const int64_t s = ops[k]->shape[axis];
                    const int32_t loop = ell_loop + (ell_rank - ell_of[k]) + e;
                    if (s != 1) {
                        p->out_stride[k][loop] += astride;
                    }
                    astride *= s;
                }
                continue;
            }
            axis--;
            const int8_t id = labels[k][i];
            if (loop_of_id[id] >= 0) {
                p->out_stride[k][loop_of_id[id]] += astride;
            } else {
                p->red_stride[k][red_of_id[id]] += astride;
            }
            astride *= ops[k]->shape[axis];
        }
    }
    return OPFORGE_OK;
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
 * the free axes of x' then those of y'. Each list names distinct axes, pairs agree
 * in size (the plan checks that). */
static inline opforge_status opf_tensordot_labels(const opforge_tensor* x, const opforge_tensor* y,
                                                  const int64_t* axes_x, int32_t count_x, const int64_t* axes_y,
                                                  int32_t count_y, bool transpose_x, bool transpose_y,
                                                  bool transpose_z, int8_t* labels_x, int8_t* labels_y,
                                                  int8_t* labels_out, int32_t* n_out, int32_t* n_ids,
                                                  const char** detail)
{
    if (count_x != count_y) {
        return opf_fail(detail, OPFORGE_ERR_ARG, "dimensions_x, dimensions_y: must name as many axes each");
    }
    int8_t partner[OPFORGE_MAX_RANK]; /* of each axis of y': the axis of x' it is contracted with, or -1 */
    bool used_x[OPFORGE_MAX_RANK] = {false};
    for (int32_t d = 0; d < y->rank; d++) {
        partner[d] = -1;
    }
    for (int32_t k = 0; k < count_x; k++) {
        int64_t a, b;
        if (!opf_layout_axis(axes_x[k], x->rank, &a) || !opf_layout_axis(axes_y[k], y->rank, &b)) {
            return opf_fail(detail, OPFORGE_ERR_ARG, "dimensions_x, dimensions_y: an axis is out of range");
        }
        if (used_x[a] || partner[b] >= 0) {
            return opf_fail(detail, OPFORGE_ERR_ARG, "dimensions_x, dimensions_y: an axis is named twice");
        }
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
    if (n > OPFORGE_MAX_RANK) {
        return opf_fail(detail, OPFORGE_ERR_RANK, "the result would exceed the maximum rank");
    }
    for (int32_t i = 0; i < n; i++) {
        labels_out[i] = out[transpose_z ? n - 1 - i : i];
    }
    *n_out = n;
    *n_ids = ids;
    return OPFORGE_OK;
}

#endif
