/* The per-call values of the fixed-point rules (dsl/fixed_point.py, ADR 0036): what a
 * fixed-point kernel computes once per call from its tensors' attributes. Each helper is
 * the C twin of a function there, held equal to it by tests/test_fixed_point.py. */
#ifndef OPF_FIXED_POINT_H
#define OPF_FIXED_POINT_H

#include <math.h>
#include <stdint.h>

/* real as multiplier * 2^(exponent - 31), multiplier of 31 bits: TensorFlow Lite's
 * QuantizeMultiplier (dsl.fixed_point.quantize_multiplier). round() is half away from
 * zero, as TFLite's; a fraction that rounds up to 1 moves to the next exponent; a real too
 * small to hold is 0, one too large the largest multiplier at exponent 30. */
static inline void opf_quantize_multiplier(double real, int32_t* multiplier, int32_t* exponent)
{
    *multiplier = 0;
    *exponent = 0;
    if (real == 0.0) {
        return;
    }
    int e = 0;
    const double fraction = frexp(real, &e);
    int64_t fixed = (int64_t)round(fraction * 2147483648.0);
    if (fixed == INT64_C(2147483648) || fixed == -INT64_C(2147483648)) {
        fixed /= 2;
        e += 1;
    }
    if (e < -31) {
        return;
    }
    if (e > 30) {
        *multiplier = INT32_MAX;
        *exponent = 30;
        return;
    }
    *multiplier = (int32_t)fixed;
    *exponent = (int32_t)e;
}

/* ceil(log2(n)), 0 for n <= 1: the bits a sum of n values may grow by
 * (dsl.fixed_point.headroom). */
static inline int32_t opf_headroom(int64_t n)
{
    int32_t h = 0;
    while (h < 63 && (INT64_C(1) << h) < n) {
        h++;
    }
    return h;
}

/* 2^(fraction_bits - shift): real values times it are a Q type's stored ones, exact for
 * the shifts the type allows (dsl.fixed_point.q_factor). */
static inline float opf_q_factor(int32_t fraction_bits, int32_t shift)
{
    return ldexpf(1.0f, fraction_bits - shift);
}

#endif
