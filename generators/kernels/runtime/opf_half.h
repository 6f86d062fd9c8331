/* float16 (IEEE binary16) as C99 holds it: the bits in a uint16_t, widened to float to compute and
 * rounded back once per result (ADR 0075). C99 has no half type, and a Cortex-M compiler's __fp16
 * or _Float16 is not every compiler's; these two conversions are exact where a float can be. */
#ifndef OPF_HALF_H
#define OPF_HALF_H

#include <stdint.h>
#include <string.h>

/* The half's value as a float: exact (every half is a float). NaN keeps its payload's top bits. */
static inline float opf_f16_to_f32(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    const uint32_t exponent = (uint32_t)(h >> 10) & 0x1Fu;
    const uint32_t fraction = (uint32_t)h & 0x3FFu;
    uint32_t bits;
    float f;
    if (exponent == 0) { /* zero or subnormal: fraction units of 2^-24 */
        f = (float)fraction * 0x1p-24f;
        return sign ? -f : f;
    }
    if (exponent == 0x1Fu) { /* infinity or NaN */
        bits = sign | 0x7F800000u | (fraction << 13);
    } else {
        bits = sign | ((exponent + 112u) << 23) | (fraction << 13);
    }
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* The half nearest to f, ties to even (IEEE's default rounding); beyond 65520 in size, an
 * infinity; NaN stays NaN, with its payload's top bits where they are not all zero. */
static inline uint16_t opf_f32_to_f16(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    const uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
    const uint32_t size = bits & 0x7FFFFFFFu;
    if (size > 0x7F800000u) { /* NaN */
        const uint32_t payload = (size >> 13) & 0x3FFu;
        return (uint16_t)(sign | 0x7C00u | (payload ? payload : 1u));
    }
    if (size >= 0x477FF000u) { /* 65520 and above (infinity too): rounds past the largest half */
        return (uint16_t)(sign | 0x7C00u);
    }
    if (size >= 0x38800000u) { /* a normal half, 2^-14 and above */
        uint32_t h = ((size >> 23) - 112u) << 10 | ((size >> 13) & 0x3FFu);
        const uint32_t rest = size & 0x1FFFu;
        h += rest > 0x1000u || (rest == 0x1000u && (h & 1u)); /* (a carry moves to the next exponent) */
        return (uint16_t)(sign | h);
    }
    if (size < 0x33000000u) { /* below 2^-25: rounds to zero */
        return sign;
    }
    { /* a subnormal half: units of 2^-24 */
        const uint32_t significand = (size & 0x7FFFFFu) | 0x800000u;
        const uint32_t shift = 126u - (size >> 23); /* 14 to 24 */
        uint32_t h = significand >> shift;
        const uint32_t rest = significand & ((1u << shift) - 1u);
        const uint32_t half = 1u << (shift - 1u);
        h += rest > half || (rest == half && (h & 1u));
        return (uint16_t)(sign | h);
    }
}

/* The half nearest to d, rounded once (through a float, a value could round twice): as
 * opf_f32_to_f16, on a double's 52 fraction bits. */
static inline uint16_t opf_f64_to_f16(double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    const uint16_t sign = (uint16_t)((bits >> 48) & 0x8000u);
    const uint64_t size = bits & UINT64_C(0x7FFFFFFFFFFFFFFF);
    if (size > UINT64_C(0x7FF0000000000000)) { /* NaN */
        const uint32_t payload = (uint32_t)(size >> 42) & 0x3FFu;
        return (uint16_t)(sign | 0x7C00u | (payload ? payload : 1u));
    }
    if (size >= UINT64_C(0x40EFFE0000000000)) { /* 65520 and above */
        return (uint16_t)(sign | 0x7C00u);
    }
    if (size >= UINT64_C(0x3F10000000000000)) { /* a normal half, 2^-14 and above */
        uint32_t h = (uint32_t)((size >> 52) - 1008u) << 10 | ((uint32_t)(size >> 42) & 0x3FFu);
        const uint64_t rest = size & ((UINT64_C(1) << 42) - 1u);
        const uint64_t half = UINT64_C(1) << 41;
        h += rest > half || (rest == half && (h & 1u));
        return (uint16_t)(sign | h);
    }
    if (size < UINT64_C(0x3E60000000000000)) { /* below 2^-25 */
        return sign;
    }
    { /* a subnormal half: units of 2^-24 */
        const uint64_t significand = (size & ((UINT64_C(1) << 52) - 1u)) | (UINT64_C(1) << 52);
        const unsigned shift = 1051u - (unsigned)(size >> 52); /* 43 to 53 */
        uint32_t h = (uint32_t)(significand >> shift);
        const uint64_t rest = significand & ((UINT64_C(1) << shift) - 1u);
        const uint64_t half = UINT64_C(1) << (shift - 1u);
        h += rest > half || (rest == half && (h & 1u));
        return (uint16_t)(sign | h);
    }
}

#endif
