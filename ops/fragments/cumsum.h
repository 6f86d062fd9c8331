/* Hand-written cumulative-sum kernels (Imaginet fragments), one per dtype.
 * x and output have the same shape; the axis is described by
 *   step = product of the sizes after the axis,
 *   size = the size of the axis,
 *   slot = product of the sizes before the axis.
 * Integer sums wrap around (computed in unsigned arithmetic). */
#pragma IMAGINET_INCLUDES_BEGIN
#include <stdint.h>
#pragma IMAGINET_INCLUDES_END

#pragma IMAGINET_FRAGMENT_BEGIN "cumsum_index"
static inline int64_t cumsum_index(int64_t j, int64_t i, int64_t k, int64_t step, int64_t size, int reverse)
{
    const int64_t pos = reverse ? size - 1 - i : i;
    return (j * size + pos) * step + k;
}
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cumsum_body"
#pragma IMAGINET_DEPENDENCY "cumsum.h:cumsum_index"
/* One body for every type: T is the element type, ACC the type the running
 * sum is kept in (T for floats; an unsigned type for integers, so they wrap). */
#define CUMSUM(NAME, T, ACC)                                                                     \
    static inline void NAME(const T* restrict x, int64_t step, int64_t size, int64_t slot,        \
                            int exclusive, int reverse, T* restrict output)                      \
    {                                                                                            \
        for (int64_t j = 0; j < slot; j++) {                                                     \
            for (int64_t k = 0; k < step; k++) {                                                 \
                ACC acc = 0;                                                                     \
                for (int64_t i = 0; i < size; i++) {                                             \
                    const int64_t at = cumsum_index(j, i, k, step, size, reverse);               \
                    const ACC v = (ACC)x[at];                                                    \
                    if (exclusive) {                                                             \
                        output[at] = (T)acc;                                                     \
                        acc = (ACC)(acc + v);                                                    \
                    } else {                                                                     \
                        acc = (ACC)(acc + v);                                                    \
                        output[at] = (T)acc;                                                     \
                    }                                                                            \
                }                                                                                \
            }                                                                                    \
        }                                                                                        \
    }
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cumsum_f32"
#pragma IMAGINET_DEPENDENCY "cumsum.h:cumsum_body"
CUMSUM(cumsum_f32, float, float)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cumsum_f64"
#pragma IMAGINET_DEPENDENCY "cumsum.h:cumsum_body"
CUMSUM(cumsum_f64, double, double)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cumsum_i8"
#pragma IMAGINET_DEPENDENCY "cumsum.h:cumsum_body"
CUMSUM(cumsum_i8, int8_t, uint32_t)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cumsum_i16"
#pragma IMAGINET_DEPENDENCY "cumsum.h:cumsum_body"
CUMSUM(cumsum_i16, int16_t, uint32_t)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cumsum_i32"
#pragma IMAGINET_DEPENDENCY "cumsum.h:cumsum_body"
CUMSUM(cumsum_i32, int32_t, uint32_t)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cumsum_i64"
#pragma IMAGINET_DEPENDENCY "cumsum.h:cumsum_body"
CUMSUM(cumsum_i64, int64_t, uint64_t)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cumsum_u8"
#pragma IMAGINET_DEPENDENCY "cumsum.h:cumsum_body"
CUMSUM(cumsum_u8, uint8_t, uint32_t)
#pragma IMAGINET_FRAGMENT_END
