/* Test-only stand-in for CMSIS-DSP's arm_math.h: the types and the saturation helpers the reference
 * library's FixedPoint fragments call, written here from their documented semantics (CMSIS-Core's
 * portable __SSAT; arm_math's clip_q63_to_q31), so those fragments compile on a host. */
#ifndef OPFORGE_TEST_ARM_MATH_H
#define OPFORGE_TEST_ARM_MATH_H

#include <stdint.h>

typedef int8_t q7_t;
typedef int16_t q15_t;
typedef int32_t q31_t;
typedef int64_t q63_t;
typedef float float32_t;

/* val saturated to a signed integer of sat bits (1..32). */
static inline int32_t __SSAT(int32_t val, uint32_t sat)
{
    const int32_t high = (int32_t)((UINT32_C(1) << (sat - 1U)) - 1U);
    const int32_t low = -high - 1;
    return val > high ? high : val < low ? low : val;
}

/* A 64-bit value saturated to a signed integer of bits bits (QShift's Q31 form names this). */
static inline int64_t __SAT(int64_t val, uint32_t bits)
{
    const int64_t high = (int64_t)((UINT64_C(1) << (bits - 1U)) - 1U);
    const int64_t low = -high - 1;
    return val > high ? high : val < low ? low : val;
}

/* A q63 value saturated to q31. */
static inline q31_t clip_q63_to_q31(q63_t x)
{
    return x > INT32_MAX ? INT32_MAX : x < INT32_MIN ? INT32_MIN : (q31_t)x;
}

#endif
