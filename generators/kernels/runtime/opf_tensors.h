/* Generated tensors: the fit of a value in a dtype, and fills. */
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
    case OPFORGE_UINT64:
        return t >= 0 && t < 18446744073709551616.0;
    default:
        return true;
    }
}

/* A fill writes `out`, whose shape the caller has checked is the one the op's form gives for
 * its args; it checks the value only. */

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
