/* Hand-written standardization kernels (Imaginet fragments), one per dtype.
 * x and output have the same shape; the axis is described by
 *   step = product of the sizes after the axis,
 *   size = the size of the axis,
 *   slot = product of the sizes before the axis.
 * Mean and variance are summed in double, in order along the axis. */
#pragma IMAGINET_INCLUDES_BEGIN
#include <math.h>
#include <stdint.h>
#pragma IMAGINET_INCLUDES_END

#pragma IMAGINET_FRAGMENT_BEGIN "standardize_body"
#define STANDARDIZE(NAME, T)                                                                      \
    static inline void NAME(const T* restrict x, int64_t step, int64_t size, int64_t slot,        \
                            T* restrict output)                                                  \
    {                                                                                            \
        for (int64_t j = 0; j < slot; j++) {                                                     \
            for (int64_t k = 0; k < step; k++) {                                                 \
                const int64_t first = j * size * step + k;                                       \
                double sum = 0;                                                                  \
                for (int64_t i = 0; i < size; i++) {                                             \
                    sum += (double)x[first + i * step];                                          \
                }                                                                                \
                const double mean = sum / (double)size;                                          \
                double squares = 0;                                                              \
                for (int64_t i = 0; i < size; i++) {                                             \
                    const double d = (double)x[first + i * step] - mean;                         \
                    squares += d * d;                                                            \
                }                                                                                \
                const double std = sqrt(squares / (double)size);                                 \
                for (int64_t i = 0; i < size; i++) {                                             \
                    output[first + i * step] = (T)(((double)x[first + i * step] - mean) / std);  \
                }                                                                                \
            }                                                                                    \
        }                                                                                        \
    }
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "standardize_f32"
#pragma IMAGINET_DEPENDENCY "normalize.h:standardize_body"
STANDARDIZE(standardize_f32, float)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "standardize_f64"
#pragma IMAGINET_DEPENDENCY "normalize.h:standardize_body"
STANDARDIZE(standardize_f64, double)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "clip_norm_body"
/* Rescales each row along the axis so its L2 norm (AVG: divided by the row's
 * length) is at most clip; rows within the bound are copied. */
#define CLIP_NORM(NAME, T, AVG)                                                                   \
    static inline void NAME(const T* restrict x, int64_t step, int64_t size, int64_t slot,        \
                            double clip, T* restrict output)                                     \
    {                                                                                            \
        for (int64_t j = 0; j < slot; j++) {                                                     \
            for (int64_t k = 0; k < step; k++) {                                                 \
                const int64_t first = j * size * step + k;                                       \
                double squares = 0;                                                              \
                for (int64_t i = 0; i < size; i++) {                                             \
                    squares += (double)x[first + i * step] * (double)x[first + i * step];        \
                }                                                                                \
                const double norm = AVG ? sqrt(squares) / (double)size : sqrt(squares);          \
                for (int64_t i = 0; i < size; i++) {                                             \
                    const double v = (double)x[first + i * step];                                \
                    output[first + i * step] = norm > clip ? (T)(v * clip / norm) : (T)v;        \
                }                                                                                \
            }                                                                                    \
        }                                                                                        \
    }
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "clip_by_norm_f32"
#pragma IMAGINET_DEPENDENCY "normalize.h:clip_norm_body"
CLIP_NORM(clip_by_norm_f32, float, 0)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "clip_by_norm_f64"
#pragma IMAGINET_DEPENDENCY "normalize.h:clip_norm_body"
CLIP_NORM(clip_by_norm_f64, double, 0)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "clip_by_avg_norm_f32"
#pragma IMAGINET_DEPENDENCY "normalize.h:clip_norm_body"
CLIP_NORM(clip_by_avg_norm_f32, float, 1)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "clip_by_avg_norm_f64"
#pragma IMAGINET_DEPENDENCY "normalize.h:clip_norm_body"
CLIP_NORM(clip_by_avg_norm_f64, double, 1)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "is_max_body"
/* 1 at the first largest element of each row along the axis (the first NaN
 * counts as largest, as in argmax), 0 elsewhere. */
#define IS_MAX(NAME, T, ISNAN)                                                                    \
    static inline void NAME(const T* restrict x, int64_t step, int64_t size, int64_t slot,        \
                            T* restrict output)                                                  \
    {                                                                                            \
        for (int64_t j = 0; j < slot; j++) {                                                     \
            for (int64_t k = 0; k < step; k++) {                                                 \
                const int64_t first = j * size * step + k;                                       \
                int64_t best = 0;                                                                \
                for (int64_t i = 1; i < size && !ISNAN(x[first + best * step]); i++) {          \
                    const T v = x[first + i * step];                                             \
                    if (ISNAN(v) || v > x[first + best * step]) {                                \
                        best = i;                                                                \
                    }                                                                            \
                }                                                                                \
                for (int64_t i = 0; i < size; i++) {                                             \
                    output[first + i * step] = (T)(i == best);                                   \
                }                                                                                \
            }                                                                                    \
        }                                                                                        \
    }
#define IS_MAX_NEVER_NAN(v) 0
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "is_max_f32"
#pragma IMAGINET_DEPENDENCY "normalize.h:is_max_body"
IS_MAX(is_max_f32, float, isnan)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "is_max_f64"
#pragma IMAGINET_DEPENDENCY "normalize.h:is_max_body"
IS_MAX(is_max_f64, double, isnan)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "is_max_i8"
#pragma IMAGINET_DEPENDENCY "normalize.h:is_max_body"
IS_MAX(is_max_i8, int8_t, IS_MAX_NEVER_NAN)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "is_max_i16"
#pragma IMAGINET_DEPENDENCY "normalize.h:is_max_body"
IS_MAX(is_max_i16, int16_t, IS_MAX_NEVER_NAN)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "is_max_i32"
#pragma IMAGINET_DEPENDENCY "normalize.h:is_max_body"
IS_MAX(is_max_i32, int32_t, IS_MAX_NEVER_NAN)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "is_max_i64"
#pragma IMAGINET_DEPENDENCY "normalize.h:is_max_body"
IS_MAX(is_max_i64, int64_t, IS_MAX_NEVER_NAN)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "is_max_u8"
#pragma IMAGINET_DEPENDENCY "normalize.h:is_max_body"
IS_MAX(is_max_u8, uint8_t, IS_MAX_NEVER_NAN)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "is_max_u16"
#pragma IMAGINET_DEPENDENCY "normalize.h:is_max_body"
IS_MAX(is_max_u16, uint16_t, IS_MAX_NEVER_NAN)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "is_max_u32"
#pragma IMAGINET_DEPENDENCY "normalize.h:is_max_body"
IS_MAX(is_max_u32, uint32_t, IS_MAX_NEVER_NAN)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "is_max_u64"
#pragma IMAGINET_DEPENDENCY "normalize.h:is_max_body"
IS_MAX(is_max_u64, uint64_t, IS_MAX_NEVER_NAN)
#pragma IMAGINET_FRAGMENT_END
