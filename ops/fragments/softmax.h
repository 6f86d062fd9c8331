/* Hand-written softmax and log-softmax kernels (Imaginet fragments), one per dtype.
 * x and output have the same shape; the axis is described by
 *   step = product of the sizes after the axis,
 *   size = the size of the axis,
 *   slot = product of the sizes before the axis.
 * Each row is shifted by its maximum (0 when that is not finite) so exp never
 * overflows, and its sum is kept in double. NaN anywhere in a row gives NaN. */
#pragma IMAGINET_INCLUDES_BEGIN
#include <math.h>
#include <stdint.h>
#pragma IMAGINET_INCLUDES_END

#pragma IMAGINET_FRAGMENT_BEGIN "softmax_body"
/* LOG is 0 for softmax, 1 for log-softmax; EXP is the type's exp. */
#define SOFTMAX(NAME, T, EXP, LOG)                                                               \
    static inline void NAME(const T* restrict x, int64_t step, int64_t size, int64_t slot,         \
                            T* restrict output)                                                   \
    {                                                                                             \
        for (int64_t j = 0; j < slot; j++) {                                                      \
            for (int64_t k = 0; k < step; k++) {                                                  \
                const int64_t first = j * size * step + k;                                        \
                T m = (T)-INFINITY;                                                               \
                for (int64_t i = 0; i < size; i++) {                                              \
                    const T v = x[first + i * step];                                              \
                    if (v > m || isnan(v)) {                                                      \
                        m = v;                                                                    \
                    }                                                                             \
                    if (isnan(m)) {                                                               \
                        break;                                                                    \
                    }                                                                             \
                }                                                                                 \
                if (isinf(m)) {                                                                   \
                    m = 0;                                                                        \
                }                                                                                 \
                /* Each exp once: kept in output (softmax) until the sum is known. */            \
                double sum = 0;                                                                   \
                for (int64_t i = 0; i < size; i++) {                                              \
                    const T e = EXP(x[first + i * step] - m);                                     \
                    if (!LOG) {                                                                   \
                        output[first + i * step] = e;                                             \
                    }                                                                             \
                    sum += (double)e;                                                             \
                }                                                                                 \
                const double log_sum = LOG ? log(sum) : 0;                                        \
                for (int64_t i = 0; i < size; i++) {                                              \
                    const int64_t at = first + i * step;                                          \
                    output[at] = LOG ? (T)((double)(x[at] - m) - log_sum)                         \
                                     : (T)((double)output[at] / sum);                             \
                }                                                                                 \
            }                                                                                     \
        }                                                                                         \
    }
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "softmax_f32"
#pragma IMAGINET_DEPENDENCY "softmax.h:softmax_body"
SOFTMAX(softmax_f32, float, expf, 0)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "softmax_f64"
#pragma IMAGINET_DEPENDENCY "softmax.h:softmax_body"
SOFTMAX(softmax_f64, double, exp, 0)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "log_softmax_f32"
#pragma IMAGINET_DEPENDENCY "softmax.h:softmax_body"
SOFTMAX(log_softmax_f32, float, expf, 1)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "log_softmax_f64"
#pragma IMAGINET_DEPENDENCY "softmax.h:softmax_body"
SOFTMAX(log_softmax_f64, double, exp, 1)
#pragma IMAGINET_FRAGMENT_END
