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
} opf_reduce_plan;

/* axes: count entries, negative allowed; count 0 reduces every axis. The caller has
 * checked the form's refusals (each axis in range, none twice). */
static inline void opf_reduce_plan_make(const opforge_tensor* x, const int64_t* axes, int32_t count,
                                        opf_reduce_plan* p)
{
    bool reduced[OPFORGE_MAX_RANK] = {false};
    for (int32_t i = 0; i < count; i++) {
        reduced[axes[i] < 0 ? axes[i] + x->rank : axes[i]] = true;
    }
    int64_t stride = 1;
    int64_t strides[OPFORGE_MAX_RANK];
    for (int32_t d = x->rank - 1; d >= 0; d--) {
        strides[d] = stride;
        stride *= x->shape[d];
    }
    p->outer_rank = p->inner_rank = 0;
    p->n_outer = p->n_inner = 1;
    for (int32_t d = 0; d < x->rank; d++) {
        const bool r = count == 0 || reduced[d];
        if (r) {
            p->inner_shape[p->inner_rank] = x->shape[d];
            p->inner_stride[p->inner_rank++] = strides[d];
            p->n_inner *= x->shape[d];
        } else {
            p->outer_shape[p->outer_rank] = x->shape[d];
            p->outer_stride[p->outer_rank++] = strides[d];
            p->n_outer *= x->shape[d];
        }
    }
}

#endif
