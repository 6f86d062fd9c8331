/* Hand-written cumulative sum and product kernels (Imaginet fragments), one per dtype.
 * x and output have the same shape; the axis is described by
 *   step = product of the sizes after the axis,
 *   size = the size of the axis,
 *   slot = product of the sizes before the axis.
 * Integers wrap around (computed in unsigned arithmetic). */
#pragma IMAGINET_INCLUDES_BEGIN
#include <stdint.h>
#pragma IMAGINET_INCLUDES_END

#pragma IMAGINET_FRAGMENT_BEGIN "cumulative_index"
static inline int64_t cumulative_index(int64_t j, int64_t i, int64_t k, int64_t step, int64_t size, int reverse)
{
    const int64_t pos = reverse ? size - 1 - i : i;
    return (j * size + pos) * step + k;
}
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cumulative_body"
#pragma IMAGINET_DEPENDENCY "cumulative.h:cumulative_index"
/* One body for every type and both operations: T is the element type, ACC the
 * type the running value is kept in (T for floats; an unsigned type for
 * integers, so they wrap), OP + or *, INIT its identity. */
#define CUMULATE(NAME, T, ACC, OP, INIT)                                                         \
    static inline void NAME(const T* restrict x, int64_t step, int64_t size, int64_t slot,        \
                            int exclusive, int reverse, T* restrict output)                      \
    {                                                                                            \
        for (int64_t j = 0; j < slot; j++) {                                                     \
            for (int64_t k = 0; k < step; k++) {                                                 \
                ACC acc = INIT;                                                                  \
                for (int64_t i = 0; i < size; i++) {                                             \
                    const int64_t at = cumulative_index(j, i, k, step, size, reverse);           \
                    const ACC v = (ACC)x[at];                                                    \
                    if (exclusive) {                                                             \
                        output[at] = (T)acc;                                                     \
                        acc = (ACC)(acc OP v);                                                   \
                    } else {                                                                     \
                        acc = (ACC)(acc OP v);                                                   \
                        output[at] = (T)acc;                                                     \
                    }                                                                            \
                }                                                                                \
            }                                                                                    \
        }                                                                                        \
    }
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cumsum_f32"
#pragma IMAGINET_DEPENDENCY "cumulative.h:cumulative_body"
CUMULATE(cumsum_f32, float, float, +, 0)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cumsum_f64"
#pragma IMAGINET_DEPENDENCY "cumulative.h:cumulative_body"
CUMULATE(cumsum_f64, double, double, +, 0)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cumsum_i8"
#pragma IMAGINET_DEPENDENCY "cumulative.h:cumulative_body"
CUMULATE(cumsum_i8, int8_t, uint32_t, +, 0)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cumsum_i16"
#pragma IMAGINET_DEPENDENCY "cumulative.h:cumulative_body"
CUMULATE(cumsum_i16, int16_t, uint32_t, +, 0)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cumsum_i32"
#pragma IMAGINET_DEPENDENCY "cumulative.h:cumulative_body"
CUMULATE(cumsum_i32, int32_t, uint32_t, +, 0)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cumsum_i64"
#pragma IMAGINET_DEPENDENCY "cumulative.h:cumulative_body"
CUMULATE(cumsum_i64, int64_t, uint64_t, +, 0)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cumsum_u8"
#pragma IMAGINET_DEPENDENCY "cumulative.h:cumulative_body"
CUMULATE(cumsum_u8, uint8_t, uint32_t, +, 0)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cumsum_u16"
#pragma IMAGINET_DEPENDENCY "cumulative.h:cumulative_body"
CUMULATE(cumsum_u16, uint16_t, uint32_t, +, 0)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cumsum_u32"
#pragma IMAGINET_DEPENDENCY "cumulative.h:cumulative_body"
CUMULATE(cumsum_u32, uint32_t, uint32_t, +, 0)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cumsum_u64"
#pragma IMAGINET_DEPENDENCY "cumulative.h:cumulative_body"
CUMULATE(cumsum_u64, uint64_t, uint64_t, +, 0)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cumprod_f32"
#pragma IMAGINET_DEPENDENCY "cumulative.h:cumulative_body"
CUMULATE(cumprod_f32, float, float, *, 1)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cumprod_f64"
#pragma IMAGINET_DEPENDENCY "cumulative.h:cumulative_body"
CUMULATE(cumprod_f64, double, double, *, 1)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cumprod_i8"
#pragma IMAGINET_DEPENDENCY "cumulative.h:cumulative_body"
CUMULATE(cumprod_i8, int8_t, uint32_t, *, 1)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cumprod_i16"
#pragma IMAGINET_DEPENDENCY "cumulative.h:cumulative_body"
CUMULATE(cumprod_i16, int16_t, uint32_t, *, 1)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cumprod_i32"
#pragma IMAGINET_DEPENDENCY "cumulative.h:cumulative_body"
CUMULATE(cumprod_i32, int32_t, uint32_t, *, 1)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cumprod_i64"
#pragma IMAGINET_DEPENDENCY "cumulative.h:cumulative_body"
CUMULATE(cumprod_i64, int64_t, uint64_t, *, 1)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cumprod_u8"
#pragma IMAGINET_DEPENDENCY "cumulative.h:cumulative_body"
CUMULATE(cumprod_u8, uint8_t, uint32_t, *, 1)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cumprod_u16"
#pragma IMAGINET_DEPENDENCY "cumulative.h:cumulative_body"
CUMULATE(cumprod_u16, uint16_t, uint32_t, *, 1)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cumprod_u32"
#pragma IMAGINET_DEPENDENCY "cumulative.h:cumulative_body"
CUMULATE(cumprod_u32, uint32_t, uint32_t, *, 1)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cumprod_u64"
#pragma IMAGINET_DEPENDENCY "cumulative.h:cumulative_body"
CUMULATE(cumprod_u64, uint64_t, uint64_t, *, 1)
#pragma IMAGINET_FRAGMENT_END
