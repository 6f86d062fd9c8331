/* Narrow number formats (Imaginet fragments): bfloat16, OCP's 8- and 4-bit floats and the 4- and
 * 2-bit integers of ONNX and ml_dtypes, each element one code. Encoding reads the bits of x (float32
 * or float64) and rounds once, in integers; decoding is exact, as every value of these formats is a
 * float32. The format index is the op's format arg: narrow.py holds the same table. */
#pragma IMAGINET_INCLUDES_BEGIN
#include <math.h>
#include <stdint.h>
#include <string.h>
#pragma IMAGINET_INCLUDES_END

#pragma IMAGINET_FRAGMENT_BEGIN "narrow_formats"
/* A float format: its exponent and mantissa bits and bias; the magnitude codes of its largest
 * finite value and of infinity (0: none); its NaN's code (0 with no NaN), which takes the sign
 * where nan_signed; whether -0 exists (the fnuz formats' 0x80 is NaN instead). */
typedef struct narrow_float {
    int exponent_bits, mantissa_bits, bias;
    uint32_t largest, infinity, nan;
    int nan_signed, signed_zero;
} narrow_float;

/* The float formats by the format arg's index: float8_e4m3fn, float8_e4m3fnuz, float8_e5m2,
 * float8_e5m2fnuz, (4: float8_e8m0fnu, its own rule), float4_e2m1fn; then int4, uint4, int2, uint2.
 * (Tables inside functions: a firmware that takes one op gets no unused table.) */
enum { NARROW_E8M0 = 4, NARROW_FIRST_INT = 6 };
static inline const narrow_float* narrow_float_of(int format)
{
    static const narrow_float floats[] = {
        {4, 3, 7, 0x7E, 0, 0x7F, 1, 1},     {4, 3, 8, 0x7F, 0, 0x80, 0, 0}, {5, 2, 15, 0x7B, 0x7C, 0x7E, 1, 1},
        {5, 2, 16, 0x7F, 0, 0x80, 0, 0},    {0, 0, 0, 0, 0, 0, 0, 0},       {2, 1, 1, 0x7, 0, 0, 0, 1},
    };
    return &floats[format];
}

static inline const narrow_float* narrow_bfloat16(void)
{
    static const narrow_float bfloat16 = {8, 7, 127, 0x7F7F, 0x7F80, 0x7FC0, 1, 1};
    return &bfloat16;
}

/* The bits of an integer format (int4, uint4: 4; int2, uint2: 2); the even ones are signed. */
static inline int narrow_int_bits(int format)
{
    return format < NARROW_FIRST_INT + 2 ? 4 : 2;
}

/* A finite or infinite x as sign * sig * 2^exp2 with sig an integer, or a NaN: read from its bits,
 * so encoding needs no floating-point arithmetic (a Cortex-M4 has no double unit). */
typedef struct narrow_parts {
    int nan, infinite, negative;
    uint64_t sig;
    int exp2;
} narrow_parts;

static inline narrow_parts narrow_parts_f32(float x)
{
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    const uint32_t e = (b >> 23) & 0xFFu, f = b & 0x7FFFFFu;
    narrow_parts p = {e == 0xFFu && f != 0, e == 0xFFu && f == 0, (int)(b >> 31), e ? (f | 0x800000u) : f,
                      e ? (int)e - 150 : -149};
    return p;
}

static inline narrow_parts narrow_parts_f64(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    const uint64_t e = (b >> 52) & 0x7FFu, f = b & 0xFFFFFFFFFFFFFu;
    narrow_parts p = {e == 0x7FFu && f != 0, e == 0x7FFu && f == 0, (int)(b >> 63),
                      e ? (f | ((uint64_t)1 << 52)) : f, e ? (int)e - 1075 : -1074};
    return p;
}

/* The position of the highest set bit of v (not 0). */
static inline int narrow_top_bit(uint64_t v)
{
    int top = 0;
    for (int step = 32; step > 0; step /= 2) {
        if (v >> step) {
            v >>= step;
            top += step;
        }
    }
    return top;
}

/* The code of p: rounded to the nearest value, ties to the even code; an overflow (and an
 * infinity) is the largest finite value when saturating or where the format has neither infinity
 * nor NaN (float4), else infinity, else NaN. */
static inline uint32_t narrow_float_code(const narrow_float* f, narrow_parts p, int saturate)
{
    const uint32_t sign = (uint32_t)1 << (f->exponent_bits + f->mantissa_bits), s = p.negative ? sign : 0u;
    if (p.nan) {
        return f->nan | (f->nan_signed ? s : 0u);
    }
    const int m = f->mantissa_bits;
    uint32_t mag = f->largest + 1; /* (an overflow, unless the rounding below finds a code) */
    if (p.sig == 0 && !p.infinite) {
        mag = 0;
    } else if (!p.infinite) {
        const int top = narrow_top_bit(p.sig), lowest = 1 - f->bias;
        int u = top + p.exp2 < lowest ? lowest : top + p.exp2; /* (the exponent of its quantum 2^(u - m)) */
        const int shift = u - m - p.exp2;
        uint64_t r = 0;
        if (shift <= 0) {
            r = p.sig << -shift;
        } else if (shift < 60) {
            r = p.sig >> shift;
            const uint64_t rest = p.sig - (r << shift), half = (uint64_t)1 << (shift - 1);
            r += rest > half || (rest == half && (r & 1u));
        }
        if (r >> (m + 1)) {
            u += 1;
            r >>= 1;
        }
        const long field = (r >> m) ? (long)u + f->bias : 0;
        if (field < (1L << f->exponent_bits)) {
            mag = ((uint32_t)field << m) | ((uint32_t)r & (((uint32_t)1 << m) - 1u));
        }
    }
    if (mag > f->largest) {
        if (saturate || (f->infinity == 0 && f->nan == 0)) {
            mag = f->largest;
        } else if (f->infinity != 0) {
            mag = f->infinity;
        } else {
            return f->nan | (f->nan_signed ? s : 0u);
        }
    }
    return mag | (mag == 0 && !f->signed_zero ? 0u : s);
}

/* ONNX's float8_e8m0fnu: the exponent of x, rounded by round_mode (0 nearest, 1 up, 2 down) on
 * its mantissa bits, the sign ignored; NaN and infinity are 0xFF, and saturating keeps 0xFE from
 * rounding up into it. */
static inline uint32_t narrow_e8m0_code(float x, int saturate, int round_mode)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    const uint32_t exponent = (bits >> 23) & 0xFFu;
    if (exponent == 0xFFu) {
        return 0xFFu;
    }
    int up = 0;
    if (round_mode == 0) {
        up = (bits & 0x400000u) && ((bits & 0x200000u) || (bits & 0x1FFFFFu) || exponent > 0);
    } else if (round_mode == 1) {
        up = (bits & 0x7FFFFFu) != 0;
    }
    if (saturate && exponent == 0xFEu) {
        up = 0;
    }
    return (exponent + (uint32_t)up) & 0xFFu;
}

/* The integers take x truncated toward zero, modulo 2^bits, as NumPy's astype between integers
 * (the caller gives 0 for NaN, infinities and magnitudes from 2^62, which are multiples of 2^bits). */
static inline uint32_t narrow_int_code(int format, int64_t truncated)
{
    return (uint32_t)((uint64_t)truncated & (((uint64_t)1 << narrow_int_bits(format)) - 1u));
}

/* The float32 2^k, for k in -126..127. */
static inline float narrow_power(int k)
{
    const uint32_t bits = (uint32_t)(k + 127) << 23;
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

/* The value of a float format's code: NaN, an infinity, or exactly its number (the formats' powers
 * of two all lie in float32's normal range). */
static inline float narrow_float_value(const narrow_float* f, uint32_t code)
{
    const int m = f->mantissa_bits;
    const uint32_t sign = (uint32_t)1 << (f->exponent_bits + m), mag = code & (sign - 1u);
    if ((!f->signed_zero && code == sign) || (mag > f->largest && mag != f->infinity)) {
        return NAN;
    }
    const uint32_t field = mag >> m, fraction = mag & (((uint32_t)1 << m) - 1u);
    const float value = mag > f->largest ? INFINITY
                        : field == 0     ? (float)fraction * narrow_power(1 - f->bias - m)
                                         : (float)(((uint32_t)1 << m) | fraction) * narrow_power((int)field - f->bias - m);
    return (code & sign) ? -value : value;
}

/* The value of a code (below narrow_codes(format)) in format. */
static inline float narrow_value(int format, uint32_t code)
{
    if (format == NARROW_E8M0) { /* (2^(code - 127): the float32 whose exponent field is code) */
        const uint32_t bits = code == 0xFFu ? 0x7FC00000u : code == 0 ? 0x00400000u : code << 23;
        float value;
        memcpy(&value, &bits, sizeof value);
        return value;
    }
    if (format >= NARROW_FIRST_INT) {
        const int bits = narrow_int_bits(format);
        const int is_signed = (format - NARROW_FIRST_INT) % 2 == 0;
        const int32_t value = (int32_t)code;
        return (float)(is_signed && value >= (1 << (bits - 1)) ? value - (1 << bits) : value);
    }
    return narrow_float_value(narrow_float_of(format), code);
}

/* The largest code of format plus one. */
static inline uint32_t narrow_codes(int format)
{
    if (format >= NARROW_FIRST_INT) {
        return (uint32_t)1 << narrow_int_bits(format);
    }
    if (format == NARROW_E8M0) {
        return 256u;
    }
    return (uint32_t)2 << (narrow_float_of(format)->exponent_bits + narrow_float_of(format)->mantissa_bits);
}

/* Encoding: x's n elements to codes, from the bits of each (PARTS: narrow_parts_f32 or _f64); the
 * integers from x truncated; e8m0 from x as a float32, as ONNX. round_mode other than nearest (0)
 * is e8m0's only: 1. */
#define NARROW_ENCODE(NAME, T, PARTS)                                                              \
    static inline int NAME(const T* restrict x, int64_t n, int format, int saturate, int round_mode,  \
                           uint8_t* restrict codes)                                                 \
    {                                                                                               \
        if (round_mode != 0 && format != NARROW_E8M0) {                                             \
            return 1;                                                                               \
        }                                                                                           \
        for (int64_t i = 0; i < n; i++) {                                                           \
            const T v = x[i];                                                                       \
            const int inside = v > (T)-4611686018427387904.0 && v < (T)4611686018427387904.0;       \
            codes[i] = (uint8_t)(format == NARROW_E8M0       ? narrow_e8m0_code((float)v, saturate, round_mode) \
                                 : format >= NARROW_FIRST_INT ? narrow_int_code(format, inside ? (int64_t)v : 0) \
                                 : narrow_float_code(narrow_float_of(format), PARTS(v), saturate));  \
        }                                                                                           \
        return 0;                                                                                   \
    }

/* Encoding to bfloat16: the nearest value, ties to even; NaN stays a quiet NaN of its sign. */
#define BFLOAT16_ENCODE(NAME, T, PARTS)                                                            \
    static inline int NAME(const T* restrict x, int64_t n, uint16_t* restrict codes)               \
    {                                                                                               \
        for (int64_t i = 0; i < n; i++) {                                                           \
            codes[i] = (uint16_t)narrow_float_code(narrow_bfloat16(), PARTS(x[i]), 0);               \
        }                                                                                           \
        return 0;                                                                                   \
    }
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "encode_narrow_f32"
#pragma IMAGINET_DEPENDENCY "narrow.h:narrow_formats"
NARROW_ENCODE(encode_narrow_f32, float, narrow_parts_f32)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "encode_narrow_f64"
#pragma IMAGINET_DEPENDENCY "narrow.h:narrow_formats"
NARROW_ENCODE(encode_narrow_f64, double, narrow_parts_f64)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "decode_narrow_u8"
#pragma IMAGINET_DEPENDENCY "narrow.h:narrow_formats"
/* Decoding: each code's value, exact in float32; a code wider than the format fails (1). */
static inline int decode_narrow_u8(const uint8_t* restrict codes, int64_t n, int format, float* restrict output)
{
    const uint32_t count = narrow_codes(format);
    for (int64_t i = 0; i < n; i++) {
        if (codes[i] >= count) {
            return 1;
        }
        output[i] = narrow_value(format, codes[i]);
    }
    return 0;
}
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "encode_bfloat16_f32"
#pragma IMAGINET_DEPENDENCY "narrow.h:narrow_formats"
BFLOAT16_ENCODE(encode_bfloat16_f32, float, narrow_parts_f32)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "encode_bfloat16_f64"
#pragma IMAGINET_DEPENDENCY "narrow.h:narrow_formats"
BFLOAT16_ENCODE(encode_bfloat16_f64, double, narrow_parts_f64)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "decode_bfloat16_u16"
#pragma IMAGINET_DEPENDENCY "narrow.h:narrow_formats"
/* Decoding bfloat16: its value, exact in float32. */
static inline int decode_bfloat16_u16(const uint16_t* restrict codes, int64_t n, float* restrict output)
{
    for (int64_t i = 0; i < n; i++) {
        const uint32_t bits = (uint32_t)codes[i] << 16; /* (a bfloat16 is a float32's upper half) */
        memcpy(&output[i], &bits, sizeof bits);
    }
    return 0;
}
#pragma IMAGINET_FRAGMENT_END
