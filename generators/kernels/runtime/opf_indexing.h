/* Joins, splits and padding constants. */
#ifndef OPF_INDEXING_H
#define OPF_INDEXING_H

#include "opf_base.h"
#include "opf_half.h"
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
    case OPFORGE_FLOAT16: {
        const uint16_t v = opf_f64_to_f16(value);
        memcpy(out, &v, sizeof v);
        return true;
    }
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
    case OPFORGE_UINT64: {
        /* 2^64 is the first double above UINT64_MAX. */
        if (value < 0 || value >= 18446744073709551616.0) {
            return false;
        }
        const uint64_t v = (uint64_t)value;
        memcpy(out, &v, sizeof v);
        return true;
    }
    default:
        return false;
    }
#undef OPF_FILL_INT
}

#endif
