/* Reduction plans: the kept axes as outer loops, the reduced ones as inner loops. */
#ifndef OPF_REDUCE_H
#define OPF_REDUCE_H

#include "opf_base.h"

/* A reduction viewed as outer (kept) and inner (reduced) loops over x. */
typedef struct opf_reduce_plan {
    int32_t outer_rank;
    int64_t outer_shape[OPFORGE_MAX_RANK];
    int64_t outer_stride[OPFORGE_MAX_RANK];
    int32_t inner_rank;
    int64_t inner_shape[OPFORGE_MAX_RANK];
    int64_t inner_stride[OPFORGE_MAX_RANK];
    int64_t n_outer;
    int64_t n_inner;
    int32_t out_rank;
    int64_t out_shape[OPFORGE_MAX_RANK];
} opf_reduce_plan;

/* axes: count entries, negative allowed; count 0 reduces every axis. */
static inline opforge_status opf_reduce_plan_make(const opforge_tensor* x, const int64_t* axes, int32_t count,
                                                  bool keep_dims, opf_reduce_plan* p, const char** detail)
{
    bool reduced[OPFORGE_MAX_RANK] = {false};
    if (count < 0 || (count > 0 && axes == NULL)) {
        return opf_fail(detail, OPFORGE_ERR_NULL, "axes: NULL or negative count");
    }
    for (int32_t i = 0; i < count; i++) {
        int64_t a = axes[i];
        if (a < -(int64_t)x->rank || a >= x->rank) {
            return opf_fail(detail, OPFORGE_ERR_ARG, "axes: an axis is out of range for the rank of x");
        }
        if (a < 0) {
            a += x->rank;
        }
        if (reduced[a]) {
            return opf_fail(detail, OPFORGE_ERR_ARG, "axes: an axis is listed twice");
        }
        reduced[a] = true;
    }
    int64_t stride = 1;
    int64_t strides[OPFORGE_MAX_RANK];
    for (int32_t d = x->rank - 1; d >= 0; d--) {
        strides[d] = stride;
        stride *= x->shape[d];
    }
    p->outer_rank = p->inner_rank = p->out_rank = 0;
    p->n_outer = p->n_inner = 1;
    for (int32_t d = 0; d < x->rank; d++) {
        const bool r = count == 0 || reduced[d];
        if (r) {
            p->inner_shape[p->inner_rank] = x->shape[d];
            p->inner_stride[p->inner_rank++] = strides[d];
            p->n_inner *= x->shape[d];
            if (keep_dims) {
                p->out_shape[p->out_rank++] = 1;
            }
        } else {
            p->outer_shape[p->outer_rank] = x->shape[d];
            p->outer_stride[p->outer_rank++] = strides[d];
            p->n_outer *= x->shape[d];
            p->out_shape[p->out_rank++] = x->shape[d];
        }
    }
    return OPFORGE_OK;
}

#endif
