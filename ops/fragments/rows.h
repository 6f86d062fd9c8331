/* Kernels over the rows (last axis) of same-shape inputs, or of one input with
 * per-channel vectors (Imaginet fragments), one per dtype: `rows` rows of `len`
 * elements each, row-major. */
#pragma IMAGINET_INCLUDES_BEGIN
#include <math.h>
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

#pragma IMAGINET_FRAGMENT_BEGIN "norm_bodies"
/* Normalization of each row (channels in the last axis), statistics summed in
 * double in order along the row; gain and bias hold one value per channel.
 * layer_norm: (x - mean) / sqrt(variance + epsilon) * gain + bias (biased variance).
 * rms_norm: x / sqrt(mean(x^2) + epsilon) * gain. */
#define LAYER_NORM(NAME, T)                                                                        \
    static inline void NAME(const T* restrict x, const T* restrict gain, const T* restrict bias,    \
                            int64_t rows, int64_t len, double epsilon, T* restrict out)             \
    {                                                                                               \
        for (int64_t r = 0; r < rows; r++, x += len, out += len) {                                  \
            double sum = 0;                                                                         \
            for (int64_t i = 0; i < len; i++) {                                                     \
                sum += (double)x[i];                                                                \
            }                                                                                       \
            const double mean = sum / (double)len;                                                  \
            double squares = 0;                                                                     \
            for (int64_t i = 0; i < len; i++) {                                                     \
                const double d = (double)x[i] - mean;                                               \
                squares += d * d;                                                                   \
            }                                                                                       \
            const double scale = sqrt(squares / (double)len + epsilon);                             \
            for (int64_t i = 0; i < len; i++) {                                                     \
                out[i] = (T)(((double)x[i] - mean) / scale * (double)gain[i] + (double)bias[i]);    \
            }                                                                                       \
        }                                                                                           \
    }
#define RMS_NORM(NAME, T)                                                                          \
    static inline void NAME(const T* restrict x, const T* restrict gain, int64_t rows, int64_t len, \
                            double epsilon, T* restrict out)                                        \
    {                                                                                               \
        for (int64_t r = 0; r < rows; r++, x += len, out += len) {                                  \
            double squares = 0;                                                                     \
            for (int64_t i = 0; i < len; i++) {                                                     \
                squares += (double)x[i] * (double)x[i];                                             \
            }                                                                                       \
            const double scale = sqrt(squares / (double)len + epsilon);                             \
            for (int64_t i = 0; i < len; i++) {                                                     \
                out[i] = (T)((double)x[i] / scale * (double)gain[i]);                               \
            }                                                                                       \
        }                                                                                           \
    }
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "layer_norm_f32"
#pragma IMAGINET_DEPENDENCY "rows.h:norm_bodies"
LAYER_NORM(layer_norm_f32, float)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "layer_norm_f64"
#pragma IMAGINET_DEPENDENCY "rows.h:norm_bodies"
LAYER_NORM(layer_norm_f64, double)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "rms_norm_f32"
#pragma IMAGINET_DEPENDENCY "rows.h:norm_bodies"
RMS_NORM(rms_norm_f32, float)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "rms_norm_f64"
#pragma IMAGINET_DEPENDENCY "rows.h:norm_bodies"
RMS_NORM(rms_norm_f64, double)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "top_k_bodies"
/* The k first elements of each row in the order: larger values first, NaN before
 * every number, equal values by index (largest); or smaller values first, NaN after
 * every number, equal values by index. Each pick is the first element after the
 * previous pick in that order (no scratch memory: O(len * k) comparisons). */
#define TOP_K(NAME, T, PRECEDES)                                                                   \
    static inline void NAME(const T* restrict x, int64_t rows, int64_t len, int64_t k,             \
                            int largest, T* restrict values, int64_t* restrict indices)            \
    {                                                                                              \
        for (int64_t r = 0; r < rows; r++, x += len, values += k, indices += k) {                  \
            int64_t previous = -1;                                                                 \
            for (int64_t j = 0; j < k; j++) {                                                      \
                int64_t best = -1;                                                                 \
                for (int64_t i = 0; i < len; i++) {                                                \
                    if (previous >= 0 && !PRECEDES(largest, x[previous], previous, x[i], i)) {     \
                        continue;                                                                  \
                    }                                                                              \
                    if (best < 0 || PRECEDES(largest, x[i], i, x[best], best)) {                   \
                        best = i;                                                                  \
                    }                                                                              \
                }                                                                                  \
                values[j] = x[best];                                                               \
                indices[j] = best;                                                                 \
                previous = best;                                                                   \
            }                                                                                      \
        }                                                                                          \
    }
/* a (at ia) comes before b (at ib): where largest, NaN first, then larger, then the lower
 * index; else NaN last, smaller first, then the lower index. */
#define TOP_K_FLOAT_PRECEDES(largest, a, ia, b, ib)                                                \
    ((largest) ? (isnan(a) ? (!isnan(b) || (ia) < (ib))                                           \
                           : (!isnan(b) && ((a) > (b) || ((a) == (b) && (ia) < (ib)))))            \
               : (isnan(a) ? (isnan(b) && (ia) < (ib))                                            \
                           : (isnan(b) || (a) < (b) || ((a) == (b) && (ia) < (ib)))))
#define TOP_K_INT_PRECEDES(largest, a, ia, b, ib)                                                  \
    (((largest) ? (a) > (b) : (a) < (b)) || ((a) == (b) && (ia) < (ib)))
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "top_k_f32"
#pragma IMAGINET_DEPENDENCY "rows.h:top_k_bodies"
TOP_K(top_k_f32, float, TOP_K_FLOAT_PRECEDES)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "top_k_f64"
#pragma IMAGINET_DEPENDENCY "rows.h:top_k_bodies"
TOP_K(top_k_f64, double, TOP_K_FLOAT_PRECEDES)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "top_k_i8"
#pragma IMAGINET_DEPENDENCY "rows.h:top_k_bodies"
TOP_K(top_k_i8, int8_t, TOP_K_INT_PRECEDES)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "top_k_i16"
#pragma IMAGINET_DEPENDENCY "rows.h:top_k_bodies"
TOP_K(top_k_i16, int16_t, TOP_K_INT_PRECEDES)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "top_k_i32"
#pragma IMAGINET_DEPENDENCY "rows.h:top_k_bodies"
TOP_K(top_k_i32, int32_t, TOP_K_INT_PRECEDES)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "top_k_i64"
#pragma IMAGINET_DEPENDENCY "rows.h:top_k_bodies"
TOP_K(top_k_i64, int64_t, TOP_K_INT_PRECEDES)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "top_k_u8"
#pragma IMAGINET_DEPENDENCY "rows.h:top_k_bodies"
TOP_K(top_k_u8, uint8_t, TOP_K_INT_PRECEDES)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "top_k_u16"
#pragma IMAGINET_DEPENDENCY "rows.h:top_k_bodies"
TOP_K(top_k_u16, uint16_t, TOP_K_INT_PRECEDES)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "top_k_u32"
#pragma IMAGINET_DEPENDENCY "rows.h:top_k_bodies"
TOP_K(top_k_u32, uint32_t, TOP_K_INT_PRECEDES)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "top_k_u64"
#pragma IMAGINET_DEPENDENCY "rows.h:top_k_bodies"
TOP_K(top_k_u64, uint64_t, TOP_K_INT_PRECEDES)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "crelu_body"
/* Each row of len becomes 2 len: max(x, 0), then max(-x, 0) (NaN gives 0, as relu). */
#define CRELU(NAME, T)                                                                             \
    static inline void NAME(const T* restrict x, int64_t rows, int64_t len, T* restrict out)        \
    {                                                                                               \
        for (int64_t r = 0; r < rows; r++, x += len, out += 2 * len) {                              \
            for (int64_t i = 0; i < len; i++) {                                                     \
                out[i] = x[i] > 0 ? x[i] : (T)0;                                                    \
                out[len + i] = -x[i] > 0 ? -x[i] : (T)0;                                            \
            }                                                                                       \
        }                                                                                           \
    }
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "crelu_f32"
#pragma IMAGINET_DEPENDENCY "rows.h:crelu_body"
CRELU(crelu_f32, float)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "crelu_f64"
#pragma IMAGINET_DEPENDENCY "rows.h:crelu_body"
CRELU(crelu_f64, double)
#pragma IMAGINET_FRAGMENT_END
