/* Layout plans: element moves without arithmetic (reshape, permute, slice, pad,
 * ...), each planned from the shapes and run by opf_layout_run. */
#ifndef OPF_LAYOUTS_H
#define OPF_LAYOUTS_H

#include "opf_base.h"

/* Element moves without arithmetic (reshape, permute, slice, pad, ...): for
 * each output axis d, the input index along its source axis is
 * start[d] + step[d] * i, taken modulo extent[d] (tile) or mapped at the
 * edges (pad), and `stride[d]` input elements apart. `flat` plans copy the
 * input's elements in order. */
typedef struct {
    int32_t rank;
    int64_t shape[OPFORGE_MAX_RANK];
    int64_t stride[OPFORGE_MAX_RANK];
    int64_t start[OPFORGE_MAX_RANK];
    int64_t step[OPFORGE_MAX_RANK];
    int64_t extent[OPFORGE_MAX_RANK];
    int32_t edges; /* OPF_EDGES_* */
    bool flat;
} opf_layout_plan;

#define OPF_EDGES_NONE 0
#define OPF_EDGES_TILE 1
#define OPF_EDGES_CONSTANT 2
#define OPF_EDGES_REFLECT 3
#define OPF_EDGES_SYMMETRIC 4

/* A pad's mode (0 constant, 1 reflect, 2 symmetric: the op's order) as its edges. */
static inline int32_t opf_pad_edges(int mode)
{
    return mode == 0 ? OPF_EDGES_CONSTANT : mode == 1 ? OPF_EDGES_REFLECT : OPF_EDGES_SYMMETRIC;
}

/* Index j of an axis of `size` elements as a pad reads it: itself inside the axis; outside,
 * -1 for constant edges (the fill value), else mirrored once, without the edge element
 * (reflect) or with it (symmetric). The form's refusals keep a pad within one mirror. */
static inline int64_t opf_edge_index(int64_t j, int64_t size, int32_t edges)
{
    if (j >= 0 && j < size) {
        return j;
    }
    if (edges == OPF_EDGES_CONSTANT) {
        return -1;
    }
    if (edges == OPF_EDGES_REFLECT) {
        return j < 0 ? -j : 2 * (size - 1) - j;
    }
    return j < 0 ? -j - 1 : 2 * size - 1 - j;
}

/* The plan that copies x as it is. */
static inline void opf_layout_identity(const opforge_tensor* x, opf_layout_plan* p)
{
    int64_t stride = 1;
    p->rank = x->rank;
    p->edges = OPF_EDGES_NONE;
    p->flat = false;
    for (int32_t d = x->rank - 1; d >= 0; d--) {
        p->shape[d] = x->shape[d];
        p->stride[d] = stride;
        p->start[d] = 0;
        p->step[d] = 1;
        p->extent[d] = x->shape[d];
        stride *= x->shape[d];
    }
}

/* An axis that may count from the end, counted from the front (in range: checked). */
static inline int64_t opf_layout_axis(int64_t axis, int32_t rank)
{
    return axis < 0 ? axis + rank : axis;
}

/* The plan's output axes: the output's own shape, which the caller has checked is the
 * one the op's form gives. The functions below only say where each element comes from. */
static inline void opf_layout_shape(opf_layout_plan* p, const opforge_tensor* out)
{
    p->rank = out->rank;
    for (int32_t d = 0; d < out->rank; d++) {
        p->shape[d] = out->shape[d];
    }
}

/* x's elements in order, in out's shape (reshape, squeeze, expand_dims, narrow). */
static inline void opf_layout_flat(const opforge_tensor* x, const opforge_tensor* out, opf_layout_plan* p)
{
    opf_layout_identity(x, p);
    p->flat = true;
    opf_layout_shape(p, out);
}

/* Output axis d is input axis perm[d] (perm == NULL reverses the axes: transpose). */
static inline void opf_layout_permute(const opforge_tensor* x, const int64_t* perm, opf_layout_plan* p)
{
    opf_layout_plan in;
    opf_layout_identity(x, &in);
    *p = in;
    for (int32_t d = 0; d < x->rank; d++) {
        const int64_t src = perm != NULL ? opf_layout_axis(perm[d], x->rank) : x->rank - 1 - d;
        p->shape[d] = in.shape[src];
        p->stride[d] = in.stride[src];
        p->extent[d] = in.shape[src];
    }
}

/* The axes listed walk backwards. */
static inline void opf_layout_reverse(const opforge_tensor* x, const int64_t* axes, int64_t count,
                                      opf_layout_plan* p)
{
    opf_layout_identity(x, p);
    for (int64_t k = 0; k < count; k++) {
        const int64_t a = opf_layout_axis(axes[k], x->rank);
        p->start[a] = x->shape[a] - 1;
        p->step[a] = -1;
    }
}

/* Each output index taken modulo the size of x along its axis. */
static inline void opf_layout_tile(const opforge_tensor* x, const opforge_tensor* out, opf_layout_plan* p)
{
    opf_layout_identity(x, p);
    p->edges = OPF_EDGES_TILE;
    opf_layout_shape(p, out);
}

/* Axis d starts at begin[d]. */
static inline void opf_layout_slice(const opforge_tensor* x, const int64_t* begin, const opforge_tensor* out,
                                    opf_layout_plan* p)
{
    opf_layout_identity(x, p);
    opf_layout_shape(p, out);
    for (int32_t d = 0; d < x->rank; d++) {
        p->start[d] = begin[d];
    }
}

/* Python's slice(begin, end, stride) on every axis: it starts at begin, counted from the
 * end where negative and clamped to the axis, and steps by stride (negative: backwards). */
static inline void opf_layout_strided_slice(const opforge_tensor* x, const int64_t* begin, const int64_t* strides,
                                            const opforge_tensor* out, opf_layout_plan* p)
{
    opf_layout_identity(x, p);
    opf_layout_shape(p, out);
    for (int32_t d = 0; d < x->rank; d++) {
        const int64_t n = x->shape[d], s = strides[d];
        const int64_t lower = s > 0 ? 0 : -1, upper = s > 0 ? n : n - 1;
        const int64_t b = begin[d];
        p->start[d] = b < 0 ? (b + n < lower ? lower : b + n) : (b > upper ? upper : b);
        p->step[d] = s;
    }
}

/* mode: 0 constant, 1 reflect (edge not repeated), 2 symmetric (edge repeated); axis d
 * starts `before` elements ahead of x. */
static inline void opf_layout_pad(const opforge_tensor* x, const int64_t* pads, int mode, const opforge_tensor* out,
                                  opf_layout_plan* p)
{
    opf_layout_identity(x, p);
    p->edges = opf_pad_edges(mode);
    opf_layout_shape(p, out);
    for (int32_t d = 0; d < x->rank; d++) {
        p->start[d] = -pads[2 * d];
    }
}

/* Copy the elements (elem bytes each) the plan selects; `fill` is the value of
 * constant padding. */
static inline void opf_layout_run(const opf_layout_plan* p, const unsigned char* x, size_t elem,
                                  const unsigned char* fill, unsigned char* out)
{
    const int64_t n = opf_shape_numel(p->rank, p->shape);
    if (p->flat) {
        if (n > 0) {
            memcpy(out, x, (size_t)n * elem);
        }
        return;
    }
    int64_t index[OPFORGE_MAX_RANK] = {0};
    for (int64_t i = 0; i < n; i++) {
        int64_t offset = 0;
        bool inside = true;
        for (int32_t d = 0; d < p->rank; d++) {
            const int64_t size = p->extent[d];
            int64_t j = p->start[d] + p->step[d] * index[d];
            if (p->edges == OPF_EDGES_TILE) {
                j %= size;
            } else if (p->edges != OPF_EDGES_NONE) {
                j = opf_edge_index(j, size, p->edges);
                inside = inside && j >= 0;
            }
            offset += j * p->stride[d];
        }
        memcpy(out + (size_t)i * elem, inside ? x + (size_t)offset * elem : fill, elem);
        for (int32_t d = p->rank - 1; d >= 0; d--) {
            if (++index[d] < p->shape[d]) {
                break;
            }
            index[d] = 0;
        }
    }
}

/* out = the `count` tensors of xs (checked descriptors of one dtype) joined along
 * axis: concatenated (their shapes agree but along axis) or, with stack, stacked
 * along a new axis (equal shapes). Each output slice before axis takes one
 * contiguous block of every input in turn. */

#endif
