/* ONNX's QuantizeLinear and DequantizeLinear per tensor (Imaginet fragments), one per dtype of
 * the zero point (and of the quantized values): float32 arithmetic, as ONNX computes them. */
#pragma IMAGINET_INCLUDES_BEGIN
#include <math.h>
#include <stdint.h>
#pragma IMAGINET_INCLUDES_END

#pragma IMAGINET_FRAGMENT_BEGIN "quantize_linear_loop"
/* What both quantizations share: output[i] = VALUE(x[i] / scale, zero_point), x / scale a
 * float32 quotient, exactly as ONNX's. Returns 1 unless scale and zero_point hold one value
 * each. */
#define QUANTIZE_LINEAR_LOOP(NAME, T, VALUE)                                                        \
    static inline int NAME(const float* restrict x, int64_t n, const float* restrict scale,        \
                           int64_t scales, const T* restrict zero_point, int64_t zero_points,       \
                           T* restrict output)                                                      \
    {                                                                                               \
        if (scales != 1 || zero_points != 1) {                                                      \
            return 1;                                                                               \
        }                                                                                           \
        for (int64_t i = 0; i < n; i++) {                                                           \
            output[i] = VALUE(x[i] / scale[0], zero_point[0]);                                      \
        }                                                                                           \
        return 0;                                                                                   \
    }
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "quantize_linear_body"
#pragma IMAGINET_DEPENDENCY "quantize.h:quantize_linear_loop"
/* y = round_half_even(x / scale) + zero_point, saturated to the zero point's type; NaN gives
 * the zero point. The float32 quotient is exact in double, so r, its rounding there, is too.
 * LOW: the type's least value, HIGH: 2^bits of an unsigned type or 2^(bits - 1) (exact in
 * double, one past the largest), MAX: the largest. */
#define QUANTIZE_LINEAR(NAME, T, LOW, HIGH, MAX)                                                    \
    static inline T NAME##_value(float quotient, T zp)                                              \
    {                                                                                               \
        const double q = (double)quotient;                                                          \
        if (isnan(q)) {                                                                             \
            return zp;                                                                              \
        }                                                                                           \
        double r = floor(q + 0.5);                                                                  \
        if (r - q == 0.5 && fmod(r, 2.0) != 0.0) {                                                  \
            r -= 1.0;                                                                               \
        }                                                                                           \
        r += (double)zp;                                                                            \
        return r >= (HIGH) ? (MAX) : r <= (LOW) ? (T)(LOW) : (T)r;                                  \
    }                                                                                               \
    QUANTIZE_LINEAR_LOOP(NAME, T, NAME##_value)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "quantize_linear_i8"
#pragma IMAGINET_DEPENDENCY "quantize.h:quantize_linear_body"
QUANTIZE_LINEAR(quantize_linear_i8, int8_t, -128.0, 128.0, INT8_MAX)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "quantize_linear_i16"
#pragma IMAGINET_DEPENDENCY "quantize.h:quantize_linear_body"
QUANTIZE_LINEAR(quantize_linear_i16, int16_t, -32768.0, 32768.0, INT16_MAX)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "quantize_linear_i32"
#pragma IMAGINET_DEPENDENCY "quantize.h:quantize_linear_body"
QUANTIZE_LINEAR(quantize_linear_i32, int32_t, -2147483648.0, 2147483648.0, INT32_MAX)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "quantize_linear_i64"
#pragma IMAGINET_DEPENDENCY "quantize.h:quantize_linear_body"
QUANTIZE_LINEAR(quantize_linear_i64, int64_t, -9223372036854775808.0, 9223372036854775808.0, INT64_MAX)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "quantize_linear_u8"
#pragma IMAGINET_DEPENDENCY "quantize.h:quantize_linear_body"
QUANTIZE_LINEAR(quantize_linear_u8, uint8_t, 0.0, 256.0, UINT8_MAX)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "quantize_linear_u16"
#pragma IMAGINET_DEPENDENCY "quantize.h:quantize_linear_body"
QUANTIZE_LINEAR(quantize_linear_u16, uint16_t, 0.0, 65536.0, UINT16_MAX)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "quantize_linear_u32"
#pragma IMAGINET_DEPENDENCY "quantize.h:quantize_linear_body"
QUANTIZE_LINEAR(quantize_linear_u32, uint32_t, 0.0, 4294967296.0, UINT32_MAX)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "quantize_linear_u64"
#pragma IMAGINET_DEPENDENCY "quantize.h:quantize_linear_body"
QUANTIZE_LINEAR(quantize_linear_u64, uint64_t, 0.0, 18446744073709551616.0, UINT64_MAX)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "quantize_linear_float_body"
#pragma IMAGINET_DEPENDENCY "quantize.h:quantize_linear_loop"
/* A float zero point: y = x / scale + zero_point, unrounded, in T (float32: ONNX's value before
 * its cast to a float8 type, which base.encode_narrow then rounds). */
#define QUANTIZE_LINEAR_FLOAT(NAME, T)                                                              \
    static inline T NAME##_value(float quotient, T zp)                                              \
    {                                                                                               \
        return (T)quotient + zp;                                                                    \
    }                                                                                               \
    QUANTIZE_LINEAR_LOOP(NAME, T, NAME##_value)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "quantize_linear_f32"
#pragma IMAGINET_DEPENDENCY "quantize.h:quantize_linear_float_body"
QUANTIZE_LINEAR_FLOAT(quantize_linear_f32, float)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "quantize_linear_f64"
#pragma IMAGINET_DEPENDENCY "quantize.h:quantize_linear_float_body"
QUANTIZE_LINEAR_FLOAT(quantize_linear_f64, double)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "dequantize_linear_body"
/* y = (x - zero_point) * scale in float32, as ONNX computes it (x and the zero point as floats
 * first). Returns 1 unless scale and zero_point hold one value each. */
#define DEQUANTIZE_LINEAR(NAME, T)                                                                  \
    static inline int NAME(const T* restrict x, int64_t n, const float* restrict scale,            \
                           int64_t scales, const T* restrict zero_point, int64_t zero_points,       \
                           float* restrict output)                                                  \
    {                                                                                               \
        if (scales != 1 || zero_points != 1) {                                                      \
            return 1;                                                                               \
        }                                                                                           \
        const float zp = (float)zero_point[0], s = scale[0];                                        \
        for (int64_t i = 0; i < n; i++) {                                                           \
            output[i] = ((float)x[i] - zp) * s;                                                     \
        }                                                                                           \
        return 0;                                                                                   \
    }
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "dequantize_linear_i8"
#pragma IMAGINET_DEPENDENCY "quantize.h:dequantize_linear_body"
DEQUANTIZE_LINEAR(dequantize_linear_i8, int8_t)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "dequantize_linear_i16"
#pragma IMAGINET_DEPENDENCY "quantize.h:dequantize_linear_body"
DEQUANTIZE_LINEAR(dequantize_linear_i16, int16_t)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "dequantize_linear_i32"
#pragma IMAGINET_DEPENDENCY "quantize.h:dequantize_linear_body"
DEQUANTIZE_LINEAR(dequantize_linear_i32, int32_t)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "dequantize_linear_i64"
#pragma IMAGINET_DEPENDENCY "quantize.h:dequantize_linear_body"
DEQUANTIZE_LINEAR(dequantize_linear_i64, int64_t)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "dequantize_linear_u8"
#pragma IMAGINET_DEPENDENCY "quantize.h:dequantize_linear_body"
DEQUANTIZE_LINEAR(dequantize_linear_u8, uint8_t)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "dequantize_linear_u16"
#pragma IMAGINET_DEPENDENCY "quantize.h:dequantize_linear_body"
DEQUANTIZE_LINEAR(dequantize_linear_u16, uint16_t)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "dequantize_linear_u32"
#pragma IMAGINET_DEPENDENCY "quantize.h:dequantize_linear_body"
DEQUANTIZE_LINEAR(dequantize_linear_u32, uint32_t)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "dequantize_linear_u64"
#pragma IMAGINET_DEPENDENCY "quantize.h:dequantize_linear_body"
DEQUANTIZE_LINEAR(dequantize_linear_u64, uint64_t)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "dequantize_linear_f32"
#pragma IMAGINET_DEPENDENCY "quantize.h:dequantize_linear_body"
DEQUANTIZE_LINEAR(dequantize_linear_f32, float)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "dequantize_linear_f64"
#pragma IMAGINET_DEPENDENCY "quantize.h:dequantize_linear_body"
DEQUANTIZE_LINEAR(dequantize_linear_f64, double)
#pragma IMAGINET_FRAGMENT_END
