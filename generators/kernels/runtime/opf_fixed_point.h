/* The per-call values of the fixed-point rules (dsl/fixed_point.py, ADR 0036): what a
 * fixed-point kernel computes once per call from its tensors' attributes. Each helper is
 * the C twin of a function there, held equal to it by tests/test_fixed_point.py. */
#ifndef OPF_FIXED_POINT_H
#define OPF_FIXED_POINT_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "opforge/opforge.h"

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

/* A D tensor's scales as a conversion walks its elements in order (opforge.h): one scale for
 * all, or per-axis scales, each for `inner` consecutive elements, cycling through `count`. */
typedef struct opf_scales {
    const float* scales; /* NULL: `scale` for every element */
    float scale;
    int64_t inner, count;
    int64_t index, left; /* the scale of the next element, and how many more it covers */
} opf_scales;

static inline opf_scales opf_scales_of(const opforge_tensor* t)
{
    opf_scales s = {t->scales, (float)t->scale, 1, 1, 0, 1};
    if (t->scales != NULL) {
        s.count = t->shape[t->axis];
        for (int32_t d = t->axis + 1; d < t->rank; d++) {
            s.inner *= t->shape[d];
        }
        s.left = s.inner;
    }
    return s;
}

/* How many elements every tensor's scale holds for at a time: the smallest per-axis `inner`
 * (each divides the larger: they are sizes of trailing axes), all n without per-axis scales. */
static inline int64_t opf_scale_run(const opf_scales* a, const opf_scales* b, int64_t n)
{
    int64_t run = n;
    if (a != NULL && a->scales != NULL && a->inner < run) {
        run = a->inner;
    }
    if (b != NULL && b->scales != NULL && b->inner < run) {
        run = b->inner;
    }
    return run > 0 ? run : 1;
}

/* The scale of the next element. */
static inline float opf_scale_now(const opf_scales* s)
{
    return s->scales == NULL ? s->scale : s->scales[s->index];
}

/* Past `run` elements (opf_scale_run's: never past the current scale's last). */
static inline void opf_scales_next(opf_scales* s, int64_t run)
{
    if (s->scales == NULL) {
        return;
    }
    s->left -= run;
    if (s->left == 0) {
        s->left = s->inner;
        s->index = s->index + 1 == s->count ? 0 : s->index + 1;
    }
}

/* Keeps in a prepared table what it was filled for: the op, x's dtype, and both tensors'
 * attributes (ADR 0043). */
static inline void opf_table_keep(opforge_table* table, const char* op, const opforge_tensor* x,
                                  const opforge_tensor* output)
{
    table->op = op;
    table->dtype = x->dtype;
    table->x_shift = x->shift;
    table->x_offset = x->offset;
    table->x_scale = x->scale;
    table->output_shift = output->shift;
    table->output_offset = output->offset;
    table->output_scale = output->scale;
}

/* Whether a prepared table was filled by `op` for x's dtype and the attributes of x and
 * output that its family reads: a Q type's shifts, a D type's scales and offsets. */
static inline bool opf_table_fits(const opforge_table* table, const char* op, const opforge_tensor* x,
                                  const opforge_tensor* output)
{
    if (table->op == NULL || strcmp(table->op, op) != 0 || table->dtype != x->dtype) {
        return false;
    }
    if (x->dtype == OPFORGE_Q7 || x->dtype == OPFORGE_Q15 || x->dtype == OPFORGE_Q31) {
        return table->x_shift == x->shift && table->output_shift == output->shift;
    }
    return table->x_scale == x->scale && table->x_offset == x->offset && table->output_scale == output->scale &&
           table->output_offset == output->offset;
}

#endif
