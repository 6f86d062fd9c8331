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

static inline bool opf_layout_axis(int64_t axis, int32_t rank, int64_t* out)
{
    if (axis < -(int64_t)rank || axis >= rank) {
        return false;
    }
    *out = axis < 0 ? axis + rank : axis;
    return true;
}

static inline opforge_status opf_layout_reshape(const opforge_tensor* x, const int64_t* dims, int64_t count,
                                                opf_layout_plan* p, const char** detail)
{
    if (count > OPFORGE_MAX_RANK) {
        return opf_fail(detail, OPFORGE_ERR_RANK, "shape: rank above OPFORGE_MAX_RANK");
    }
    int64_t known = 1, unknown = -1;
    for (int64_t d = 0; d < count; d++) {
        if (dims[d] == -1 && unknown < 0) {
            unknown = d;
        } else if (dims[d] < 0) {
            return opf_fail(detail, OPFORGE_ERR_ARG, "shape: sizes must be non-negative, with at most one -1");
        } else if (dims[d] != 0 && known > INT64_MAX / dims[d]) {
            return opf_fail(detail, OPFORGE_ERR_ARG, "shape: does not hold the elements of x");
        } else {
            known *= dims[d];
        }
    }
    const int64_t total = opf_numel(x);
    opf_layout_identity(x, p);
    p->flat = true;
    p->rank = (int32_t)count;
    for (int64_t d = 0; d < count; d++) {
        p->shape[d] = dims[d];
    }
    if (unknown >= 0) {
        if (known == 0 || total % known != 0) {
            return opf_fail(detail, OPFORGE_ERR_ARG, "shape: cannot fit the elements of x");
        }
        p->shape[unknown] = total / known;
    } else if (known != total) {
        return opf_fail(detail, OPFORGE_ERR_ARG, "shape: does not hold the elements of x");
    }
    return OPFORGE_OK;
}

/* perm == NULL reverses the axes (transpose). */
static inline opforge_status opf_layout_permute(const opforge_tensor* x, const int64_t* perm, int64_t count,
                                                opf_layout_plan* p, const char** detail)
{
    opf_layout_plan in;
    bool seen[OPFORGE_MAX_RANK] = {false};
    opf_layout_identity(x, &in);
    if (perm != NULL && count != x->rank) {
        return opf_fail(detail, OPFORGE_ERR_ARG, "perm: must name every axis of x once");
    }
    *p = in;
    for (int32_t d = 0; d < x->rank; d++) {
        int64_t src = x->rank - 1 - d;
        if (perm != NULL && !opf_layout_axis(perm[d], x->rank, &src)) {
            return opf_fail(detail, OPFORGE_ERR_ARG, "perm: must name every axis of x once");
        }
        if (seen[src]) {
            return opf_fail(detail, OPFORGE_ERR_ARG, "perm: must name every axis of x once");
        }
        seen[src] = true;
        p->shape[d] = in.shape[src];
        p->stride[d] = in.stride[src];
        p->extent[d] = in.shape[src];
    }
    return OPFORGE_OK;
}

static inline opforge_status opf_layout_squeeze(const opforge_tensor* x, int64_t axis, opf_layout_plan* p,
                                                const char** detail)
{
    int64_t a;
    if (!opf_layout_axis(axis, x->rank, &a)) {
        return opf_fail(detail, OPFORGE_ERR_ARG, "axis: out of range");
    }
    if (x->shape[a] != 1) {
        return opf_fail(detail, OPFORGE_ERR_ARG, "axis: must have size 1");
    }
    opf_layout_identity(x, p);
    p->flat = true;
    p->rank = x->rank - 1;
    for (int32_t d = (int32_t)a; d < p->rank; d++) {
        p->shape[d] = x->shape[d + 1];
    }
    return OPFORGE_OK;
}

static inline opforge_status opf_layout_expand_dims(const opforge_tensor* x, int64_t axis, opf_layout_plan* p,
                                                    const char** detail)
{
    int64_t a;
    if (!opf_layout_axis(axis, x->rank + 1, &a)) {
        return opf_fail(detail, OPFORGE_ERR_ARG, "axis: out of range");
    }
    if (x->rank + 1 > OPFORGE_MAX_RANK) {
        return opf_fail(detail, OPFORGE_ERR_RANK, "x: the result's rank would be above OPFORGE_MAX_RANK");
    }
    opf_layout_identity(x, p);
    p->flat = true;
    p->rank = x->rank + 1;
    for (int32_t d = 0; d < p->rank; d++) {
        p->shape[d] = d < a ? x->shape[d] : d == a ? 1 : x->shape[d - 1];
    }
    return OPFORGE_OK;
}

/* TML's narrowcasting: every axis of size 1 goes. */
static inline opforge_status opf_layout_narrow(const opforge_tensor* x, opf_layout_plan* p)
{
    opf_layout_identity(x, p);
    p->flat = true;
    p->rank = 0;
    for (int32_t d = 0; d < x->rank; d++) {
        if (x->shape[d] != 1) {
            p->shape[p->rank++] = x->shape[d];
        }
    }
    return OPFORGE_OK;
}

static inline opforge_status opf_layout_reverse(const opforge_tensor* x, const int64_t* axes, int64_t count,
                                                opf_layout_plan* p, const char** detail)
{
    opf_layout_identity(x, p);
    for (int64_t k = 0; k < count; k++) {
        int64_t a;
        if (!opf_layout_axis(axes[k], x->rank, &a)) {
            return opf_fail(detail, OPFORGE_ERR_ARG, "axes: out of range");
        }
        if (p->step[a] < 0) {
            return opf_fail(detail, OPFORGE_ERR_ARG, "axes: repeats an axis");
        }
        p->start[a] = x->shape[a] - 1;
        p->step[a] = -1;
    }
    return OPFORGE_OK;
}

static inline opforge_status opf_layout_tile(const opforge_tensor* x, const int64_t* repeats, int64_t count,
                                             opf_layout_plan* p, const char** detail)
{
    if (count != x->rank) {
        return opf_fail(detail, OPFORGE_ERR_ARG, "repeats: needs one count per axis of x");
    }
    opf_layout_identity(x, p);
    p->edges = OPF_EDGES_TILE;
    int64_t total = 1;
    for (int32_t d = 0; d < x->rank; d++) {
        if (repeats[d] < 0) {
            return opf_fail(detail, OPFORGE_ERR_ARG, "repeats: counts must be non-negative");
        }
        if (repeats[d] != 0 && x->shape[d] > INT64_MAX / repeats[d]) {
            return opf_fail(detail, OPFORGE_ERR_SIZE, "repeats: the result is too large");
        }
        p->shape[d] = x->shape[d] * repeats[d];
        if (p->shape[d] != 0 && total > (INT64_C(1) << 62) / p->shape[d]) {
            return opf_fail(detail, OPFORGE_ERR_SIZE, "repeats: the result is too large");
        }
        total *= p->shape[d];
    }
    return OPFORGE_OK;
}

static inline opforge_status opf_layout_slice(const opforge_tensor* x, const int64_t* begin, int64_t begin_count,
                                              const int64_t* size, int64_t size_count, opf_layout_plan* p,
                                              const char** detail)
{
    if (begin_count != x->rank || size_count != x->rank) {
        return opf_fail(detail, OPFORGE_ERR_ARG, "begin, size: need one value per axis of x");
    }
    opf_layout_identity(x, p);
    for (int32_t d = 0; d < x->rank; d++) {
        const int64_t n = x->shape[d], b = begin[d], s = size[d] == -1 ? n - b : size[d];
        if (b < 0 || b > n || s < 0 || s > n - b) {
            return opf_fail(detail, OPFORGE_ERR_ARG, "begin, size: must lie within x");
        }
        p->shape[d] = s;
        p->start[d] = b;
    }
    return OPFORGE_OK;
}

/* Python's slice(begin, end, stride) on every axis: negative indices count
 * from the end, out-of-range ones are clamped, a negative stride walks back. */
static inline opforge_status opf_layout_strided_slice(const opforge_tensor* x, const int64_t* begin, int64_t begin_count,
                                                      const int64_t* end, int64_t end_count, const int64_t* strides,
                                                      int64_t strides_count, opf_layout_plan* p, const char** detail)
{
    if (begin_count != x->rank || end_count != x->rank || strides_count != x->rank) {
        return opf_fail(detail, OPFORGE_ERR_ARG, "begin, end, strides: need one value per axis of x");
    }
    opf_layout_identity(x, p);
    for (int32_t d = 0; d < x->rank; d++) {
        const int64_t n = x->shape[d], s = strides[d];
        if (s == 0 || s > (INT64_C(1) << 62) || s < -(INT64_C(1) << 62)) {
            return opf_fail(detail, OPFORGE_ERR_ARG, "strides: must be non-zero (and at most 2**62 in size)");
        }
        const int64_t lower = s > 0 ? 0 : -1, upper = s > 0 ? n : n - 1;
        int64_t b = begin[d], e = end[d];
        b = b < 0 ? (b + n < lower ? lower : b + n) : (b > upper ? upper : b);
        e = e < 0 ? (e + n < lower ? lower : e + n) : (e > upper ? upper : e);
        const int64_t size = s > 0 ? (e > b ? (e - b + s - 1) / s : 0) : (b > e ? (b - e - s - 1) / -s : 0);
        p->shape[d] = size;
        p->start[d] = b;
        p->step[d] = s;
    }
    return OPFORGE_OK;
}

/* mode: 0 constant, 1 reflect (edge not repeated), 2 symmetric (edge repeated). */
static inline opforge_status opf_layout_pad(const opforge_tensor* x, const int64_t* pads, int64_t count, int mode,
                                            opf_layout_plan* p, const char** detail)
{
    if (count != 2 * (int64_t)x->rank) {
        return opf_fail(detail, OPFORGE_ERR_ARG, "paddings: needs before and after counts for every axis of x");
    }
    opf_layout_identity(x, p);
    p->edges = mode == 0 ? OPF_EDGES_CONSTANT : mode == 1 ? OPF_EDGES_REFLECT : OPF_EDGES_SYMMETRIC;
    for (int32_t d = 0; d < x->rank; d++) {
        const int64_t n = x->shape[d], before = pads[2 * d], after = pads[2 * d + 1];
        const int64_t limit = mode == 0 ? INT64_MAX / 4 : mode == 1 ? (n > 0 ? n - 1 : 0) : n;
        if (before < 0 || after < 0) {
            return opf_fail(detail, OPFORGE_ERR_ARG, "paddings: must be non-negative");
        }
        if (before > limit || after > limit || n > INT64_MAX / 4) {
            return opf_fail(detail, OPFORGE_ERR_ARG, "paddings: too large for the mode and the size of the axis");
        }
        p->shape[d] = n + before + after;
        p->start[d] = -before;
    }
    return OPFORGE_OK;
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
            } else if (j < 0 || j >= size) {
                if (p->edges == OPF_EDGES_CONSTANT) {
                    inside = false;
                } else if (p->edges == OPF_EDGES_REFLECT) {
                    j = j < 0 ? -j : 2 * (size - 1) - j;
                } else {
                    j = j < 0 ? -j - 1 : 2 * size - 1 - j;
                }
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
