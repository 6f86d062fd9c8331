/* Joins, splits, gathers, diagonals, shape queries and padding constants. */
#ifndef OPF_INDEXING_H
#define OPF_INDEXING_H

#include "opf_base.h"
#include "opf_layouts.h"

static inline opforge_status opf_join(const opforge_tensor* const* xs, int32_t count, int64_t axis, bool stack,
                                      opforge_tensor* out, const char** detail)
{
    const opforge_tensor* first = xs[0];
    const int32_t rank = first->rank + (stack ? 1 : 0);
    if (rank > OPFORGE_MAX_RANK) {
        return opf_fail(detail, OPFORGE_ERR_RANK, "inputs: the result's rank would be above OPFORGE_MAX_RANK");
    }
    if (!stack && first->rank == 0) {
        return opf_fail(detail, OPFORGE_ERR_RANK, "inputs: scalars cannot be concatenated (rank 1 or more)");
    }
    int64_t a;
    if (!opf_layout_axis(axis, rank, &a)) {
        return opf_fail(detail, OPFORGE_ERR_ARG, "axis: out of range");
    }
    int64_t shape[OPFORGE_MAX_RANK];
    for (int32_t d = 0, k = 0; d < rank; d++) {
        shape[d] = (stack && d == a) ? (int64_t)count : first->shape[k++];
    }
    if (!stack) {
        shape[a] = 0;
    }
    for (int32_t k = 0; k < count; k++) {
        bool fits = xs[k]->rank == first->rank;
        for (int32_t d = 0; fits && d < first->rank; d++) {
            fits = xs[k]->shape[d] == first->shape[d] || (!stack && d == a);
        }
        if (!fits) {
            return opf_fail(detail, OPFORGE_ERR_SHAPE, stack ? "inputs: must all have the same shape"
                                                           : "inputs: shapes must agree except along axis");
        }
        if (!stack) {
            if (xs[k]->shape[a] > INT64_MAX - shape[a]) {
                return opf_fail(detail, OPFORGE_ERR_SIZE, "inputs: the result is too large");
            }
            shape[a] += xs[k]->shape[a];
        }
    }
    if (!opf_shape_is(out, rank, shape)) {
        return opf_fail(detail, OPFORGE_ERR_SHAPE, "output: shape does not match the result");
    }
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
    return OPFORGE_OK;
}

/* x cut into outputs: num equal parts along axis (split) or, with unstack, one
 * tensor per entry along axis, which each drops. Each slice of x before axis
 * gives every output one contiguous block in turn. */
static inline opforge_status opf_split(const opforge_tensor* x, int64_t axis, int64_t num, bool unstack,
                                       opforge_tensor* const* outputs, int32_t count, const char** detail)
{
    if (x->rank == 0) {
        return opf_fail(detail, OPFORGE_ERR_RANK, unstack ? "x: a scalar cannot be unstacked (rank 1 or more)"
                                                          : "x: a scalar cannot be split (rank 1 or more)");
    }
    int64_t a;
    if (!opf_layout_axis(axis, x->rank, &a)) {
        return opf_fail(detail, OPFORGE_ERR_ARG, "axis: out of range");
    }
    if (!unstack && num < 1) {
        return opf_fail(detail, OPFORGE_ERR_ARG, "num: must be 1 or more");
    }
    const int64_t along = x->shape[a];
    if (!unstack && along % num != 0) {
        return opf_fail(detail, OPFORGE_ERR_SHAPE, "x: the size of axis is not a multiple of num");
    }
    if ((int64_t)count != (unstack ? along : num)) {
        return opf_fail(detail, OPFORGE_ERR_ARG, unstack ? "outputs: count must be the size of x along axis"
                                                         : "outputs: count must be num");
    }
    const int64_t piece = unstack ? 1 : along / num;
    int64_t shape[OPFORGE_MAX_RANK];
    int32_t rank = 0;
    int64_t outer = 1, inner = 1;
    for (int32_t d = 0; d < x->rank; d++) {
        if (d != a || !unstack) {
            shape[rank++] = d == a ? piece : x->shape[d];
        }
        if (d < a) {
            outer *= x->shape[d];
        } else if (d > a) {
            inner *= x->shape[d];
        }
    }
    for (int32_t k = 0; k < count; k++) {
        if (!opf_shape_is(outputs[k], rank, shape)) {
            return opf_fail(detail, OPFORGE_ERR_SHAPE, "outputs: a tensor's shape does not match its part");
        }
        if (!opf_disjoint(outputs[k], x)) {
            return opf_fail(detail, OPFORGE_ERR_ARG, "outputs: must not overlap x");
        }
    }
    const size_t block = (size_t)(piece * inner) * opforge_dtype_size(x->dtype);
    if (block == 0) {
        return OPFORGE_OK;
    }
    const unsigned char* from = (const unsigned char*)x->data;
    for (int64_t o = 0; o < outer; o++) {
        for (int32_t k = 0; k < count; k++) {
            memcpy((unsigned char*)outputs[k]->data + (size_t)o * block, from, block);
            from += block;
        }
    }
    return OPFORGE_OK;
}

#define OPF_PARTS_LIMIT (INT64_C(1) << 62)

/* meshgrid: outputs[k] holds the elements of xs[k] (row-major, any shape) along
 * grid axis k of a grid as long as each tensor on its axis; cartesian swaps
 * axes 0 and 1 (numpy.meshgrid's "xy" indexing). */
static inline opforge_status opf_meshgrid(const opforge_tensor* const* xs, int32_t count, bool cartesian,
                                          opforge_tensor* const* outputs, int32_t outputs_count, const char** detail)
{
    if (count > OPFORGE_MAX_RANK) {
        return opf_fail(detail, OPFORGE_ERR_RANK, "inputs: at most OPFORGE_MAX_RANK tensors (one grid axis each)");
    }
    if (outputs_count != count) {
        return opf_fail(detail, OPFORGE_ERR_ARG, "outputs: count must be the count of inputs");
    }
    int64_t shape[OPFORGE_MAX_RANK];
    bool empty = false;
    for (int32_t k = 0; k < count; k++) {
        const int32_t g = (cartesian && count >= 2 && k < 2) ? 1 - k : k;
        shape[g] = opf_numel(xs[k]);
        empty = empty || shape[g] == 0;
    }
    int64_t total = 1;
    for (int32_t g = 0; g < count && !empty; g++) {
        if (shape[g] > OPF_PARTS_LIMIT / total) {
            return opf_fail(detail, OPFORGE_ERR_SIZE, "inputs: the grids would be too large");
        }
        total *= shape[g];
    }
    for (int32_t k = 0; k < count; k++) {
        if (!opf_shape_is(outputs[k], count, shape)) {
            return opf_fail(detail, OPFORGE_ERR_SHAPE, "outputs: a tensor's shape does not match the grid");
        }
        for (int32_t j = 0; j < count; j++) {
            if (!opf_disjoint(outputs[k], xs[j])) {
                return opf_fail(detail, OPFORGE_ERR_ARG, "outputs: must not overlap the inputs");
            }
        }
    }
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
    return OPFORGE_OK;
}

/* out = x gathered along axis at int64 indices (each in -n..n-1): the shape of x
 * with that axis replaced by the shape of indices. */
static inline opforge_status opf_gather(const opforge_tensor* x, const opforge_tensor* indices, int64_t axis,
                                        opforge_tensor* out, const char** detail)
{
    int64_t a;
    if (!opf_layout_axis(axis, x->rank, &a)) {
        return opf_fail(detail, OPFORGE_ERR_ARG, "axis: out of range");
    }
    if (x->rank - 1 + indices->rank > OPFORGE_MAX_RANK) {
        return opf_fail(detail, OPFORGE_ERR_RANK, "indices: the result's rank would be above OPFORGE_MAX_RANK");
    }
    int64_t shape[OPFORGE_MAX_RANK];
    int32_t rank = 0;
    int64_t outer = 1, inner = 1;
    for (int32_t d = 0; d < x->rank; d++) {
        if (d == a) {
            for (int32_t k = 0; k < indices->rank; k++) {
                shape[rank++] = indices->shape[k];
            }
        } else {
            shape[rank++] = x->shape[d];
        }
        if (d < a) {
            outer *= x->shape[d];
        } else if (d > a) {
            inner *= x->shape[d];
        }
    }
    if (!opf_shape_is(out, rank, shape)) {
        return opf_fail(detail, OPFORGE_ERR_SHAPE, "output: shape does not match the result");
    }
    const int64_t n = x->shape[a], count = opf_numel(indices);
    const int64_t* at = (const int64_t*)indices->data;
    for (int64_t k = 0; k < count; k++) {
        if (at[k] < -n || at[k] >= n) {
            return opf_fail(detail, OPFORGE_ERR_ARG, "indices: values must lie in -n..n-1 for the gathered axis");
        }
    }
    const size_t elem = opforge_dtype_size(x->dtype), block = (size_t)inner * elem;
    const unsigned char* from = (const unsigned char*)x->data;
    unsigned char* to = (unsigned char*)out->data;
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t k = 0; k < count; k++) {
            const int64_t i = at[k] < 0 ? at[k] + n : at[k];
            if (block > 0) {
                memcpy(to + (size_t)(o * count + k) * block, from + (size_t)(o * n + i) * block, block);
            }
        }
    }
    return OPFORGE_OK;
}

/* diag: x's elements on the diagonal of a tensor of shape x.shape + x.shape, 0 elsewhere. */
static inline opforge_status opf_diag(const opforge_tensor* x, opforge_tensor* out, const char** detail)
{
    if (2 * x->rank > OPFORGE_MAX_RANK) {
        return opf_fail(detail, OPFORGE_ERR_RANK, "x: the result's rank, twice x's, would be above OPFORGE_MAX_RANK");
    }
    int64_t shape[OPFORGE_MAX_RANK];
    for (int32_t d = 0; d < x->rank; d++) {
        shape[d] = x->shape[d];
        shape[x->rank + d] = x->shape[d];
    }
    const int64_t n = opf_numel(x);
    if (n > 0 && n > INT64_MAX / n) {
        return opf_fail(detail, OPFORGE_ERR_SIZE, "x: the result is too large");
    }
    if (!opf_shape_is(out, 2 * x->rank, shape)) {
        return opf_fail(detail, OPFORGE_ERR_SHAPE, "output: shape does not match the result");
    }
    const size_t elem = opforge_dtype_size(x->dtype);
    if (n > 0) {
        memset(out->data, 0, (size_t)(n * n) * elem); /* zero bits: 0, 0.0 and false alike */
        for (int64_t i = 0; i < n; i++) {
            memcpy((unsigned char*)out->data + (size_t)(i * (n + 1)) * elem,
                   (const unsigned char*)x->data + (size_t)i * elem, elem);
        }
    }
    return OPFORGE_OK;
}

/* set_diag: x with the main diagonal of each matrix (last two axes) replaced by `diagonal`. */
static inline opforge_status opf_set_diag(const opforge_tensor* x, const opforge_tensor* diagonal, opforge_tensor* out,
                                          const char** detail)
{
    if (x->rank < 2) {
        return opf_fail(detail, OPFORGE_ERR_RANK, "x: must have rank 2 or more (matrices in the last two axes)");
    }
    const int64_t rows = x->shape[x->rank - 2], cols = x->shape[x->rank - 1];
    const int64_t k = rows < cols ? rows : cols;
    if (diagonal->rank != x->rank - 1 || diagonal->shape[diagonal->rank - 1] != k ||
        memcmp(diagonal->shape, x->shape, sizeof(int64_t) * (size_t)(x->rank - 2)) != 0) {
        return opf_fail(detail, OPFORGE_ERR_SHAPE, "diagonal: must have x's batch axes, then min(rows, cols)");
    }
    if (!opf_shape_is(out, x->rank, x->shape)) {
        return opf_fail(detail, OPFORGE_ERR_SHAPE, "output: shape does not match the result");
    }
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
    return OPFORGE_OK;
}

/* gather_nd: the last axis of indices (k values) picks an element or slice of x's
 * first k axes; the result has shape indices.shape[:-1] + x.shape[k:]. */
static inline opforge_status opf_gather_nd(const opforge_tensor* x, const opforge_tensor* indices, opforge_tensor* out,
                                           const char** detail)
{
    if (indices->rank < 1) {
        return opf_fail(detail, OPFORGE_ERR_RANK, "indices: must have rank 1 or more (its last axis indexes x)");
    }
    const int32_t k = (int32_t)(indices->shape[indices->rank - 1] <= x->rank ? indices->shape[indices->rank - 1] : -1);
    if (k < 0) {
        return opf_fail(detail, OPFORGE_ERR_SHAPE, "indices: its last axis must not be longer than the rank of x");
    }
    if (indices->rank - 1 + x->rank - k > OPFORGE_MAX_RANK) {
        return opf_fail(detail, OPFORGE_ERR_RANK, "indices: the result's rank would be above OPFORGE_MAX_RANK");
    }
    int64_t shape[OPFORGE_MAX_RANK];
    int32_t rank = 0;
    int64_t count = 1, block = 1;
    for (int32_t d = 0; d < indices->rank - 1; d++) {
        shape[rank++] = indices->shape[d];
        count *= indices->shape[d];
    }
    for (int32_t d = k; d < x->rank; d++) {
        shape[rank++] = x->shape[d];
        block *= x->shape[d];
    }
    if (!opf_shape_is(out, rank, shape)) {
        return opf_fail(detail, OPFORGE_ERR_SHAPE, "output: shape does not match the result");
    }
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

/* reverse_sequence: for each b along batch_axis, the first lengths[b] elements
 * along seq_axis in reverse order; the rest as they are. */
static inline opforge_status opf_reverse_sequence(const opforge_tensor* x, const opforge_tensor* lengths,
                                                  int64_t seq_axis, int64_t batch_axis, opforge_tensor* out,
                                                  const char** detail)
{
    int64_t s, b;
    if (!opf_layout_axis(seq_axis, x->rank, &s)) {
        return opf_fail(detail, OPFORGE_ERR_ARG, "seq_axis: out of range");
    }
    if (!opf_layout_axis(batch_axis, x->rank, &b)) {
        return opf_fail(detail, OPFORGE_ERR_ARG, "batch_axis: out of range");
    }
    if (s == b) {
        return opf_fail(detail, OPFORGE_ERR_ARG, "seq_axis, batch_axis: must be different axes");
    }
    if (lengths->rank != 1 || lengths->shape[0] != x->shape[b]) {
        return opf_fail(detail, OPFORGE_ERR_SHAPE, "seq_lengths: must be a vector as long as the batch axis of x");
    }
    const int64_t* len = (const int64_t*)lengths->data;
    for (int64_t i = 0; i < lengths->shape[0]; i++) {
        if (len[i] < 0 || len[i] > x->shape[s]) {
            return opf_fail(detail, OPFORGE_ERR_ARG, "seq_lengths: values must lie in 0..the size of the sequence axis");
        }
    }
    if (!opf_shape_is(out, x->rank, x->shape)) {
        return opf_fail(detail, OPFORGE_ERR_SHAPE, "output: shape does not match the result");
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

/* A fact of x's shape into the int64 `out`: 0 its shape, 1 its size, 2 its rank, 3 the size of `axis`. */
static inline opforge_status opf_shape_query(int query, const opforge_tensor* x, int64_t axis, opforge_tensor* out,
                                             const char** detail)
{
    const int64_t length = x->rank;
    int64_t a = 0;
    if (query == 3 && !opf_layout_axis(axis, x->rank, &a)) {
        return opf_fail(detail, OPFORGE_ERR_ARG, "axis: out of range");
    }
    if (!opf_shape_is(out, query == 0 ? 1 : 0, &length)) {
        return opf_fail(detail, OPFORGE_ERR_SHAPE, "output: shape does not match the result");
    }
    int64_t* to = (int64_t*)out->data;
    if (query == 0) {
        for (int32_t d = 0; d < x->rank; d++) {
            to[d] = x->shape[d];
        }
    } else {
        to[0] = query == 1 ? opf_numel(x) : query == 2 ? (int64_t)x->rank : x->shape[a];
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
