/* Joins, splits, gathers, diagonals, shape queries and padding constants. */
#ifndef OPF_INDEXING_H
#define OPF_INDEXING_H

#include "opf_base.h"
#include "opf_layouts.h"

/* xs concatenated along axis (stack: along a new axis) into out. The caller has checked
 * the form's refusals and out's shape; each slice of the result before axis takes one
 * contiguous block of every input in turn. */
static inline void opf_join(const opforge_tensor* const* xs, int32_t count, int64_t axis, bool stack,
                            opforge_tensor* out)
{
    const opforge_tensor* first = xs[0];
    const int64_t a = opf_layout_axis(axis, first->rank + (stack ? 1 : 0));
    const size_t size = opforge_dtype_size(first->dtype);
    int64_t outer = 1;
    for (int32_t d = 0; d < a; d++) {
        outer *= first->shape[d];
    }
    unsigned char* to = (unsigned char*)out->data;
    for (int64_t o = 0; o < outer; o++) {
        for (int32_t k = 0; k < count; k++) {
            int64_t block = 1;
            for (int32_t d = (int32_t)a; d < xs[k]->rank; d++) {
                block *= xs[k]->shape[d];
            }
            if (block > 0) {
                memcpy(to, (const unsigned char*)xs[k]->data + (size_t)(o * block) * size, (size_t)block * size);
                to += (size_t)block * size;
            }
        }
    }
}

/* x cut into the count outputs along axis: equal parts (split) or, with unstack, one
 * tensor per entry, which each drops. The caller has checked the form's refusals and the
 * outputs' shapes; each slice of x before axis gives every output one contiguous block in turn. */
static inline void opf_split(const opforge_tensor* x, int64_t axis, bool unstack, opforge_tensor* const* outputs,
                             int32_t count)
{
    const int64_t a = opf_layout_axis(axis, x->rank);
    const int64_t piece = unstack || count == 0 ? 1 : x->shape[a] / count;
    int64_t outer = 1, inner = 1;
    for (int32_t d = 0; d < x->rank; d++) {
        if (d < a) {
            outer *= x->shape[d];
        } else if (d > a) {
            inner *= x->shape[d];
        }
    }
    const size_t block = (size_t)(piece * inner) * opforge_dtype_size(x->dtype);
    if (block == 0) {
        return;
    }
    const unsigned char* from = (const unsigned char*)x->data;
    for (int64_t o = 0; o < outer; o++) {
        for (int32_t k = 0; k < count; k++) {
            memcpy((unsigned char*)outputs[k]->data + (size_t)o * block, from, block);
            from += block;
        }
    }
}

/* meshgrid: outputs[k] holds the elements of xs[k] (row-major, any shape) along grid
 * axis k of the grid, whose shape the outputs have (checked by the caller: the form's);
 * cartesian swaps axes 0 and 1 (numpy.meshgrid's "xy" indexing). */
static inline void opf_meshgrid(const opforge_tensor* const* xs, int32_t count, bool cartesian,
                                opforge_tensor* const* outputs)
{
    if (count == 0) {
        return;
    }
    const int64_t* shape = outputs[0]->shape;
    const size_t size = opforge_dtype_size(xs[0]->dtype);
    for (int32_t k = 0; k < count; k++) {
        const int32_t g = (cartesian && count >= 2 && k < 2) ? 1 - k : k;
        int64_t outer = 1, inner = 1;
        for (int32_t d = 0; d < count; d++) {
            if (d < g) {
                outer *= shape[d];
            } else if (d > g) {
                inner *= shape[d];
            }
        }
        const unsigned char* from = (const unsigned char*)xs[k]->data;
        unsigned char* to = (unsigned char*)outputs[k]->data;
        for (int64_t o = 0; o < outer; o++) {
            for (int64_t j = 0; j < shape[g]; j++) {
                for (int64_t t = 0; t < inner; t++) {
                    memcpy(to, from + (size_t)j * size, size);
                    to += size;
                }
            }
        }
    }
}

/* diag: x's elements on the diagonal of out (of shape x.shape + x.shape), 0 elsewhere. */
static inline void opf_diag(const opforge_tensor* x, opforge_tensor* out)
{
    const int64_t n = opf_numel(x);
    const size_t elem = opforge_dtype_size(x->dtype);
    if (n > 0) {
        memset(out->data, 0, (size_t)(n * n) * elem); /* zero bits: 0, 0.0 and false alike */
        for (int64_t i = 0; i < n; i++) {
            memcpy((unsigned char*)out->data + (size_t)(i * (n + 1)) * elem,
                   (const unsigned char*)x->data + (size_t)i * elem, elem);
        }
    }
}

/* set_diag: x with the main diagonal of each matrix (last two axes) replaced by `diagonal`
 * (the shapes fit: checked by the caller). */
static inline void opf_set_diag(const opforge_tensor* x, const opforge_tensor* diagonal, opforge_tensor* out)
{
    const int64_t rows = x->shape[x->rank - 2], cols = x->shape[x->rank - 1];
    const int64_t k = rows < cols ? rows : cols;
    const size_t elem = opforge_dtype_size(x->dtype);
    const int64_t n = opf_numel(x), batch = rows * cols > 0 ? n / (rows * cols) : 0;
    if (n > 0) {
        memmove(out->data, x->data, (size_t)n * elem); /* the output may be x itself */
    }
    for (int64_t b = 0; b < batch; b++) {
        for (int64_t i = 0; i < k; i++) {
            memcpy((unsigned char*)out->data + (size_t)((b * rows + i) * cols + i) * elem,
                   (const unsigned char*)diagonal->data + (size_t)(b * k + i) * elem, elem);
        }
    }
}

/* gather_nd: the last axis of indices (k values, each checked in -n..n-1) picks an element
 * or slice of x's first k axes; the caller has checked the form's refusals and out's shape. */
static inline opforge_status opf_gather_nd(const opforge_tensor* x, const opforge_tensor* indices, opforge_tensor* out,
                                           const char** detail)
{
    const int32_t k = (int32_t)indices->shape[indices->rank - 1];
    const int64_t count = opf_shape_numel(indices->rank - 1, indices->shape);
    const int64_t block = opf_shape_numel(x->rank - k, x->shape + k);
    const int64_t* at = (const int64_t*)indices->data;
    for (int64_t g = 0; g < count; g++) {
        for (int32_t j = 0; j < k; j++) {
            const int64_t v = at[g * k + j], n = x->shape[j];
            if (v < -n || v >= n) {
                return opf_fail(detail, OPFORGE_ERR_ARG, "indices: values must lie in -n..n-1 for the axis of x of size n");
            }
        }
    }
    const size_t bytes = (size_t)block * opforge_dtype_size(x->dtype);
    for (int64_t g = 0; g < count; g++) {
        int64_t offset = 0;
        for (int32_t j = 0; j < k; j++) {
            const int64_t v = at[g * k + j], n = x->shape[j];
            offset = offset * n + (v < 0 ? v + n : v);
        }
        if (bytes > 0) {
            memcpy((unsigned char*)out->data + (size_t)g * bytes, (const unsigned char*)x->data + (size_t)offset * bytes,
                   bytes);
        }
    }
    return OPFORGE_OK;
}

/* reverse_sequence: for each b along batch_axis, the first lengths[b] elements (checked:
 * within the axis) along seq_axis in reverse order; the rest as they are. The caller has
 * checked the form's refusals and out's shape. */
static inline opforge_status opf_reverse_sequence(const opforge_tensor* x, const opforge_tensor* lengths,
                                                  int64_t seq_axis, int64_t batch_axis, opforge_tensor* out,
                                                  const char** detail)
{
    const int64_t s = opf_layout_axis(seq_axis, x->rank), b = opf_layout_axis(batch_axis, x->rank);
    const int64_t* len = (const int64_t*)lengths->data;
    for (int64_t i = 0; i < lengths->shape[0]; i++) {
        if (len[i] < 0 || len[i] > x->shape[s]) {
            return opf_fail(detail, OPFORGE_ERR_ARG, "seq_lengths: values must lie in 0..the size of the sequence axis");
        }
    }
    const int64_t n = opf_numel(x);
    const size_t elem = opforge_dtype_size(x->dtype);
    int64_t stride[OPFORGE_MAX_RANK], index[OPFORGE_MAX_RANK] = {0};
    int64_t step = 1;
    for (int32_t d = x->rank - 1; d >= 0; d--) {
        stride[d] = step;
        step *= x->shape[d];
    }
    for (int64_t i = 0; i < n; i++) {
        const int64_t l = len[index[b]], at = index[s];
        const int64_t from = at < l ? i + (l - 1 - 2 * at) * stride[s] : i;
        memcpy((unsigned char*)out->data + (size_t)i * elem, (const unsigned char*)x->data + (size_t)from * elem, elem);
        for (int32_t d = x->rank - 1; d >= 0; d--) {
            if (++index[d] < x->shape[d]) {
                break;
            }
            index[d] = 0;
        }
    }
    return OPFORGE_OK;
}

/* A padding constant in the dtype of `like`; false unless it converts exactly. */
static inline bool opf_fill_value(opforge_dtype dtype, double value, unsigned char* out)
{
    switch (dtype) {
    case OPFORGE_FLOAT32: {
        const float v = (float)value;
        memcpy(out, &v, sizeof v);
        return true;
    }
    case OPFORGE_FLOAT64:
        memcpy(out, &value, sizeof value);
        return true;
    case OPFORGE_BOOL: {
        const bool v = value != 0;
        memcpy(out, &v, sizeof v);
        return value == 0 || value == 1;
    }
    default:
        break;
    }
    if (!(value == floor(value))) {
        return false;
    }
#define OPF_FILL_INT(ENUM, T, LO, HI)                \
    case ENUM: {                                     \
        if (value < (double)(LO) || value > (double)(HI)) { \
            return false;                            \
        }                                            \
        const T v = (T)value;                        \
        memcpy(out, &v, sizeof v);                   \
        return true;                                 \
    }
    switch (dtype) {
        OPF_FILL_INT(OPFORGE_INT8, int8_t, INT8_MIN, INT8_MAX)
        OPF_FILL_INT(OPFORGE_INT16, int16_t, INT16_MIN, INT16_MAX)
        OPF_FILL_INT(OPFORGE_INT32, int32_t, INT32_MIN, INT32_MAX)
        OPF_FILL_INT(OPFORGE_UINT8, uint8_t, 0, UINT8_MAX)
        OPF_FILL_INT(OPFORGE_UINT16, uint16_t, 0, UINT16_MAX)
        OPF_FILL_INT(OPFORGE_UINT32, uint32_t, 0, UINT32_MAX)
    case OPFORGE_INT64: {
        /* 2^63 is the first double above INT64_MAX. */
        if (value < -9223372036854775808.0 || value >= 9223372036854775808.0) {
            return false;
        }
        const int64_t v = (int64_t)value;
        memcpy(out, &v, sizeof v);
        return true;
    }
    default:
        return false;
    }
#undef OPF_FILL_INT
}

#endif
