/* Generated tensors: ranges, linspace, diagonals, fills, one-hot and sequence masks. */
#ifndef OPF_TENSORS_H
#define OPF_TENSORS_H

#include "opf_base.h"
#include "opf_indexing.h"
#include "opf_scalar.h"

static inline bool opf_double_fits(opforge_dtype dtype, double v)
{
    const double t = trunc(v);
    switch (dtype) {
    case OPFORGE_INT8:
        return t >= INT8_MIN && t <= INT8_MAX;
    case OPFORGE_INT16:
        return t >= INT16_MIN && t <= INT16_MAX;
    case OPFORGE_INT32:
        return t >= INT32_MIN && t <= INT32_MAX;
    case OPFORGE_INT64:
        return t >= -9223372036854775808.0 && t < 9223372036854775808.0;
    case OPFORGE_UINT8:
        return t >= 0 && t <= UINT8_MAX;
    case OPFORGE_UINT16:
        return t >= 0 && t <= UINT16_MAX;
    case OPFORGE_UINT32:
        return t >= 0 && t <= UINT32_MAX;
    default:
        return true;
    }
}

/* The generators below write `out`, whose shape the caller has checked is the one the op's
 * form gives for these args (and whose refusals it has checked); they check values only. */

/* start + i * delta for each of the n elements of out. */
static inline opforge_status opf_generate_range(double start, double delta, opforge_tensor* out, const char** detail)
{
    const int64_t n = out->shape[0];
    if (n > 0 && (!opf_double_fits(out->dtype, start) || !opf_double_fits(out->dtype, start + (double)(n - 1) * delta))) {
        return opf_fail(detail, OPFORGE_ERR_ARG, "the values do not fit in the dtype");
    }
    for (int64_t i = 0; i < n; i++) {
        opf_store_double(out, i, start + (double)i * delta);
    }
    return OPFORGE_OK;
}

/* As many values as out holds from start to stop, both included. */
static inline opforge_status opf_generate_linspace(double start, double stop, opforge_tensor* out, const char** detail)
{
    const int64_t num = out->shape[0];
    if (num > 0 && (!opf_double_fits(out->dtype, start) || !opf_double_fits(out->dtype, stop))) {
        return opf_fail(detail, OPFORGE_ERR_ARG, "the values do not fit in the dtype");
    }
    const double step = num > 1 ? (stop - start) / (double)(num - 1) : 0;
    for (int64_t i = 0; i < num; i++) {
        opf_store_double(out, i, i == num - 1 && num > 1 ? stop : start + (double)i * step);
    }
    return OPFORGE_OK;
}

/* A matrix (out: rows x cols) of ones where lo <= j - i <= hi, zeros elsewhere: eye is
 * (0, 0), tri (INT64_MIN, diag). */
static inline void opf_generate_diagonals(int64_t lo, int64_t hi, opforge_tensor* out)
{
    const int64_t rows = out->shape[0], cols = out->shape[1];
    for (int64_t i = 0; i < rows; i++) {
        for (int64_t j = 0; j < cols; j++) {
            opf_store_double(out, i * cols + j, j - i >= lo && j - i <= hi ? 1.0 : 0.0);
        }
    }
}

static inline opforge_status opf_generate_fill(double value, opforge_tensor* out, const char** detail)
{
    unsigned char fill[8] = {0};
    if (!opf_fill_value(out->dtype, value, fill)) {
        return opf_fail(detail, OPFORGE_ERR_ARG, "value: does not convert exactly to the dtype");
    }
    const size_t elem = opforge_dtype_size(out->dtype);
    const int64_t n = opf_numel(out);
    for (int64_t i = 0; i < n; i++) {
        memcpy((unsigned char*)out->data + (size_t)i * elem, fill, elem);
    }
    return OPFORGE_OK;
}

/* one_hot: `on` where indices[...] == d along the inserted axis of size depth,
 * `off` elsewhere (an index outside 0..depth-1 gives a row of `off`). */
static inline opforge_status opf_generate_one_hot(const opforge_tensor* indices, int64_t depth, int64_t axis, double on,
                                                  double off, opforge_tensor* out, const char** detail)
{
    const int64_t a = opf_layout_axis(axis, indices->rank + 1);
    const int64_t outer = opf_shape_numel((int32_t)a, indices->shape);
    const int64_t inner = opf_shape_numel(indices->rank - (int32_t)a, indices->shape + a);
    unsigned char on_bytes[8] = {0}, off_bytes[8] = {0};
    if (!opf_fill_value(out->dtype, on, on_bytes)) {
        return opf_fail(detail, OPFORGE_ERR_ARG, "on: does not convert exactly to the dtype");
    }
    if (!opf_fill_value(out->dtype, off, off_bytes)) {
        return opf_fail(detail, OPFORGE_ERR_ARG, "off: does not convert exactly to the dtype");
    }
    const int64_t* at = (const int64_t*)indices->data;
    const size_t elem = opforge_dtype_size(out->dtype);
    unsigned char* to = (unsigned char*)out->data;
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t d = 0; d < depth; d++) {
            for (int64_t i = 0; i < inner; i++) {
                memcpy(to + (size_t)((o * depth + d) * inner + i) * elem, at[o * inner + i] == d ? on_bytes : off_bytes,
                       elem);
            }
        }
    }
    return OPFORGE_OK;
}

/* sequence_mask: out[..., j] = 1 where j < lengths[...], else 0, for j < maxlen. */
static inline void opf_generate_sequence_mask(const opforge_tensor* lengths, int64_t maxlen, opforge_tensor* out)
{
    unsigned char one[8] = {0}, zero[8] = {0};
    (void)opf_fill_value(out->dtype, 1.0, one); /* 0 and 1 are exact in every dtype */
    (void)opf_fill_value(out->dtype, 0.0, zero);
    const int64_t* len = (const int64_t*)lengths->data;
    const int64_t n = opf_numel(lengths);
    const size_t elem = opforge_dtype_size(out->dtype);
    for (int64_t i = 0; i < n; i++) {
        for (int64_t j = 0; j < maxlen; j++) {
            memcpy((unsigned char*)out->data + (size_t)(i * maxlen + j) * elem, j < len[i] ? one : zero, elem);
        }
    }
}

#endif
