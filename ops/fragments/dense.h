/* Dense (fully connected) kernels (Imaginet fragments), one per dtype: `rows`
 * rows of `len` inputs times a row-major len x units weight matrix, plus a
 * bias of units. Each sum is kept in double, in order along the row, and the
 * bias added last; the result is rounded to T as it is stored. */
#pragma IMAGINET_INCLUDES_BEGIN
#include <stdint.h>
#pragma IMAGINET_INCLUDES_END

#pragma IMAGINET_FRAGMENT_BEGIN "linear_body"
#define LINEAR(NAME, T)                                                                            \
    static inline void NAME(const T* restrict x, int64_t rows, int64_t len, const T* restrict w,    \
                            int64_t units, const T* restrict bias, T* restrict out)                 \
    {                                                                                               \
        for (int64_t r = 0; r < rows; r++, x += len, out += units) {                                \
            for (int64_t u = 0; u < units; u++) {                                                   \
                double t = 0.0;                                                                     \
                for (int64_t i = 0; i < len; i++) {                                                 \
                    t += (double)x[i] * (double)w[i * units + u];                                   \
                }                                                                                   \
                out[u] = (T)(t + (double)bias[u]);                                                  \
            }                                                                                       \
        }                                                                                           \
    }
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "linear_f32"
#pragma IMAGINET_DEPENDENCY "dense.h:linear_body"
LINEAR(linear_f32, float)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "linear_f64"
#pragma IMAGINET_DEPENDENCY "dense.h:linear_body"
LINEAR(linear_f64, double)
#pragma IMAGINET_FRAGMENT_END
