/* Casts between dtypes, integers saturating or wrapping as the op asks. */
#ifndef OPF_CAST_H
#define OPF_CAST_H

#include "opf_base.h"

/* Element i of an integer or bool tensor, as int64. */
static inline int64_t opf_cast_load_int(const opforge_tensor* x, int64_t i)
{
    switch (x->dtype) {
    case OPFORGE_BOOL:
        return ((const bool*)x->data)[i] ? 1 : 0;
    case OPFORGE_INT8:
        return ((const int8_t*)x->data)[i];
    case OPFORGE_INT16:
        return ((const int16_t*)x->data)[i];
    case OPFORGE_INT32:
        return ((const int32_t*)x->data)[i];
    case OPFORGE_INT64:
        return ((const int64_t*)x->data)[i];
    case OPFORGE_UINT8:
        return ((const uint8_t*)x->data)[i];
    case OPFORGE_UINT16:
        return ((const uint16_t*)x->data)[i];
    case OPFORGE_UINT32:
        return ((const uint32_t*)x->data)[i];
    default:
        return 0;
    }
}

/* v stored into element i: integers modulo 2^bits (computed so that no conversion
 * is implementation-defined), floats the nearest value, bool v != 0. */
static inline void opf_cast_store_int(opforge_tensor* out, int64_t i, int64_t v)
{
    const uint64_t u = (uint64_t)v;
    switch (out->dtype) {
    case OPFORGE_BOOL:
        ((bool*)out->data)[i] = v != 0;
        break;
    case OPFORGE_INT8:
        ((int8_t*)out->data)[i] = (int8_t)((int64_t)(u & 0xFFu) - (int64_t)((u & 0x80u) << 1));
        break;
    case OPFORGE_INT16:
        ((int16_t*)out->data)[i] = (int16_t)((int64_t)(u & 0xFFFFu) - (int64_t)((u & 0x8000u) << 1));
        break;
    case OPFORGE_INT32:
        ((int32_t*)out->data)[i] = (int32_t)((int64_t)(u & 0xFFFFFFFFu) - (int64_t)((u & 0x80000000u) << 1));
        break;
    case OPFORGE_INT64:
        ((int64_t*)out->data)[i] = v;
        break;
    case OPFORGE_UINT8:
        ((uint8_t*)out->data)[i] = (uint8_t)(u & 0xFFu);
        break;
    case OPFORGE_UINT16:
        ((uint16_t*)out->data)[i] = (uint16_t)(u & 0xFFFFu);
        break;
    case OPFORGE_UINT32:
        ((uint32_t*)out->data)[i] = (uint32_t)(u & 0xFFFFFFFFu);
        break;
    case OPFORGE_FLOAT32:
        ((float*)out->data)[i] = (float)v;
        break;
    case OPFORGE_FLOAT64:
        ((double*)out->data)[i] = (double)v;
        break;
    default:
        break;
    }
}

/* v truncated toward zero into the integer dtype, saturated at its limits; NaN gives 0. */
static inline int64_t opf_cast_saturate(opforge_dtype dtype, double v)
{
    /* lowest and beyond (one past the largest) are powers of two, exact in double */
    double lowest = -9223372036854775808.0, beyond = 9223372036854775808.0;
    int64_t lo = INT64_MIN, hi = INT64_MAX;
    switch (dtype) {
    case OPFORGE_INT8:
        lowest = -128.0, beyond = 128.0, lo = INT8_MIN, hi = INT8_MAX;
        break;
    case OPFORGE_INT16:
        lowest = -32768.0, beyond = 32768.0, lo = INT16_MIN, hi = INT16_MAX;
        break;
    case OPFORGE_INT32:
        lowest = -2147483648.0, beyond = 2147483648.0, lo = INT32_MIN, hi = INT32_MAX;
        break;
    case OPFORGE_UINT8:
        lowest = 0.0, beyond = 256.0, lo = 0, hi = UINT8_MAX;
        break;
    case OPFORGE_UINT16:
        lowest = 0.0, beyond = 65536.0, lo = 0, hi = UINT16_MAX;
        break;
    case OPFORGE_UINT32:
        lowest = 0.0, beyond = 4294967296.0, lo = 0, hi = UINT32_MAX;
        break;
    default:
        break;
    }
    if (isnan(v)) {
        return 0;
    }
    if (v < lowest) {
        return lo;
    }
    if (v >= beyond) {
        return hi;
    }
    return (int64_t)v;
}

/* x converted element by element into out (same shape): see opf_cast_store_int and
 * opf_cast_saturate; floats become the nearest value of a float dtype (overflow gives
 * infinity) and bool v != 0 (NaN is true). */
static inline opforge_status opf_cast(const opforge_tensor* x, opforge_tensor* out)
{
    const int64_t n = opf_numel(x);
    const bool to_int = out->dtype != OPFORGE_FLOAT32 && out->dtype != OPFORGE_FLOAT64 && out->dtype != OPFORGE_BOOL;
    for (int64_t i = 0; i < n; i++) {
        double v;
        if (x->dtype == OPFORGE_FLOAT32) {
            v = (double)((const float*)x->data)[i];
        } else if (x->dtype == OPFORGE_FLOAT64) {
            v = ((const double*)x->data)[i];
        } else {
            opf_cast_store_int(out, i, opf_cast_load_int(x, i));
            continue;
        }
        if (to_int) {
            opf_cast_store_int(out, i, opf_cast_saturate(out->dtype, v));
        } else if (out->dtype == OPFORGE_BOOL) {
            ((bool*)out->data)[i] = v != 0;
        } else if (out->dtype == OPFORGE_FLOAT32) {
            ((float*)out->data)[i] = (float)v;
        } else {
            ((double*)out->data)[i] = v;
        }
    }
    return OPFORGE_OK;
}

#endif
