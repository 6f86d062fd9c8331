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

#endif
