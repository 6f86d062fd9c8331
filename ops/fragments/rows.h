/* Kernels over the rows (last axis) of same-shape inputs (Imaginet fragments),
 * one per dtype: `rows` rows of `len` elements each, row-major. */
#pragma IMAGINET_INCLUDES_BEGIN
#include <stdint.h>
#pragma IMAGINET_INCLUDES_END

#pragma IMAGINET_FRAGMENT_BEGIN "rows_bodies"
/* The cross product of each pair of rows of 3 (len is 3), in T's arithmetic. */
#define CROSS(NAME, T)                                                                             \
    static inline void NAME(const T* restrict a, const T* restrict b, int64_t rows, int64_t len,    \
                            T* restrict out)                                                        \
    {                                                                                               \
        (void)len;                                                                                  \
        for (int64_t r = 0; r < rows; r++, a += 3, b += 3, out += 3) {                              \
            const T x0 = a[1] * b[2], x1 = a[2] * b[1];                                             \
            const T y0 = a[2] * b[0], y1 = a[0] * b[2];                                             \
            const T z0 = a[0] * b[1], z1 = a[1] * b[0];                                             \
            out[0] = (T)(x0 - x1);                                                                  \
            out[1] = (T)(y0 - y1);                                                                  \
            out[2] = (T)(z0 - z1);                                                                  \
        }                                                                                           \
    }
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cross_f32"
#pragma IMAGINET_DEPENDENCY "rows.h:rows_bodies"
CROSS(cross_f32, float)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cross_f64"
#pragma IMAGINET_DEPENDENCY "rows.h:rows_bodies"
CROSS(cross_f64, double)
#pragma IMAGINET_FRAGMENT_END
