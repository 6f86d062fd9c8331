/* Loop-shape settings, failure reporting, descriptor checks, broadcasting and
 * multi-index stepping: what every other part of the runtime builds on. */
#ifndef OPF_BASE_H
#define OPF_BASE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "opforge/opforge.h"


#define OPF_DTYPE_BIT(d) (1u << (unsigned)(d))

/* ------------------------------------------------------------ loop shapes
 * How the kernels lay out their loops for speed (ADR 0027); no result depends on
 * them. A host gets wide ones that fill its vector unit; an M-profile Arm core has
 * none, a small stack and little flash, so there each is off (0, or 1 lane). Define
 * any of them (-DOPFORGE_TILE_ROWS=4, ...) to tune a build. */
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
#define OPF_M_PROFILE 1
#else
#define OPF_M_PROFILE 0
#endif

/* 1: elementwise rows whose operands all step by 1 (a broadcast row), or by 1 and 0
 * (a broadcast column), and reduced runs of step 1, take loops of their own; 0: one
 * strided loop serves all. */
#ifndef OPFORGE_UNIT_STEPS
#define OPFORGE_UNIT_STEPS (!OPF_M_PROFILE)
#endif

/* Outputs of a reduction over leading axes computed in one pass: adjacent in x,
 * they are read as a vector per reduced element. 1024 takes a whole row of a
 * 1000-wide array in one sweep (8 KiB of double accumulators). */
#ifndef OPFORGE_REDUCE_LANES
#define OPFORGE_REDUCE_LANES (OPF_M_PROFILE ? 1 : 1024)
#endif

/* Lanes of the contiguous arg-reduction search, each keeping its own extreme. */
#ifndef OPFORGE_SEARCH_LANES
#define OPFORGE_SEARCH_LANES (OPF_M_PROFILE ? 1 : 32)
#endif

/* Register tile of a matrix product: rows x columns of the result held in
 * accumulators while the reduced axis runs (1 x 1: the plain loop nest). */
#ifndef OPFORGE_TILE_ROWS
#define OPFORGE_TILE_ROWS (OPF_M_PROFILE ? 1 : 8)
#endif
#ifndef OPFORGE_TILE_COLS
#define OPFORGE_TILE_COLS (OPF_M_PROFILE ? 1 : 32)
#endif

/* ------------------------------------------------------------ types left out
 * OPFORGE_OMIT_NUMERIC_<NAMESPACE>_<OP> (math.add's: OPFORGE_OMIT_NUMERIC_MATH_ADD), defined
 * where the library compiles, leaves an elementwise function's integer, float and bool kernels
 * out of the build: a call of those types returns OPFORGE_ERR_DTYPE, the fixed-point types
 * compute. For a caller that computes those types itself: the Python package, whose ufuncs
 * do (ADR 0080). */

/* Every failure goes through opf_fail, marked cold: GCC then predicts the checks to
 * pass. Without it, the guessed odds of a function's many checks multiplied until
 * the kernel loops after them looked cold, and were left scalar (ADR 0027). */
#if defined(__GNUC__)
#define OPF_COLD __attribute__((cold))
#else
#define OPF_COLD
#endif

OPF_COLD static inline opforge_status opf_fail(const char** detail, opforge_status status, const char* message)
{
    if (detail != NULL) {
        *detail = message;
    }
    return status;
}

static inline int64_t opf_shape_numel(int32_t rank, const int64_t* shape)
{
    int64_t n = 1;
    for (int32_t d = 0; d < rank; d++) {
        n *= shape[d];
    }
    return n;
}

static inline int64_t opf_numel(const opforge_tensor* t)
{
    return opf_shape_numel(t->rank, t->shape);
}

/* An output's elements, to write. A descriptor's data is const so that an input may point
 * into a const table; an output's must be writable memory (opforge.h, ADR 0055). */
static inline void* opf_out_data(const opforge_tensor* t)
{
    return (void*)(uintptr_t)t->data;
}

/* The D types, which may carry per-axis scales (opforge.h). */
#define OPF_SCALED_DTYPES (OPF_DTYPE_BIT(OPFORGE_D8) | OPF_DTYPE_BIT(OPFORGE_D16) | OPF_DTYPE_BIT(OPFORGE_D32))

/* Whether a descriptor is a D tensor with per-axis scales. */
static inline bool opf_per_axis(const opforge_tensor* t)
{
    return (OPF_DTYPE_BIT(t->dtype) & OPF_SCALED_DTYPES) != 0 && t->scales != NULL;
}

/* A usable descriptor: not NULL, a known dtype among `dtypes` (a bit set),
 * rank 0..OPFORGE_MAX_RANK, a fixed-point type's attributes in its range where its dtype
 * is among `read` (an output whose attributes the op sets, a move's or a Q result's shift,
 * need hold none), per-axis scales only where `per_axis` (the conversions), sizes >= 0
 * whose byte count fits in int64_t, and data unless it holds no element. */
static inline opforge_status opf_check_descriptor(const opforge_tensor* t, uint32_t dtypes, uint32_t read,
                                                  bool per_axis)
{
    if (t == NULL) {
        return OPFORGE_ERR_NULL;
    }
    if ((unsigned)t->dtype > (unsigned)OPFORGE_DTYPE_LAST || (OPF_DTYPE_BIT(t->dtype) & dtypes) == 0) {
        return OPFORGE_ERR_DTYPE;
    }
    if (t->rank < 0 || t->rank > OPFORGE_MAX_RANK) {
        return OPFORGE_ERR_RANK;
    }
    if ((OPF_DTYPE_BIT(t->dtype) & read) != 0 && !opforge_attributes_valid(t)) {
        return OPFORGE_ERR_ATTRIBUTE;
    }
    if (!per_axis && opf_per_axis(t)) {
        return OPFORGE_ERR_ATTRIBUTE;
    }
    int64_t n = 1;
    const int64_t limit = INT64_MAX / (int64_t)opforge_dtype_size(t->dtype);
    for (int32_t d = 0; d < t->rank; d++) {
        const int64_t s = t->shape[d];
        if (s < 0) {
            return OPFORGE_ERR_SIZE;
        }
        if (s != 0 && n > limit / s) {
            return OPFORGE_ERR_SIZE;
        }
        n *= s;
    }
    if (n > 0 && t->data == NULL) {
        return OPFORGE_ERR_NULL;
    }
    return OPFORGE_OK;
}

/* opf_check_descriptor of a tensor that may not carry per-axis scales. */
static inline opforge_status opf_check_tensor_reading(const opforge_tensor* t, uint32_t dtypes, uint32_t read)
{
    return opf_check_descriptor(t, dtypes, read, false);
}

/* opf_check_tensor_reading with every fixed-point type's attributes read. */
static inline opforge_status opf_check_tensor(const opforge_tensor* t, uint32_t dtypes)
{
    return opf_check_descriptor(t, dtypes, dtypes, false);
}

/* opf_check_tensor of a conversion's tensor, which may carry per-axis scales. */
static inline opforge_status opf_check_tensor_per_axis(const opforge_tensor* t, uint32_t dtypes)
{
    return opf_check_descriptor(t, dtypes, dtypes, true);
}

/* opf_check_tensor of a contraction's second operand, which may carry per-axis scales along its
 * last axis alone: a scale per column of the result (ADR 0071). */
static inline opforge_status opf_check_tensor_columns(const opforge_tensor* t, uint32_t dtypes)
{
    const opforge_status st = opf_check_descriptor(t, dtypes, dtypes, true);
    if (st == OPFORGE_OK && opf_per_axis(t) && t->axis != t->rank - 1) {
        return OPFORGE_ERR_ATTRIBUTE;
    }
    return st;
}

/* Whether the elements of two checked descriptors share no byte (outputs written in
 * one pass through restrict pointers must not). */
static inline bool opf_disjoint(const opforge_tensor* a, const opforge_tensor* b)
{
    const uintptr_t pa = (uintptr_t)a->data, pb = (uintptr_t)b->data;
    const uintptr_t na = (uintptr_t)opf_numel(a) * opforge_dtype_size(a->dtype);
    const uintptr_t nb = (uintptr_t)opf_numel(b) * opforge_dtype_size(b->dtype);
    return na == 0 || nb == 0 || pa + na <= pb || pb + nb <= pa;
}

static inline bool opf_shape_is(const opforge_tensor* t, int32_t rank, const int64_t* shape)
{
    if (t->rank != rank) {
        return false;
    }
    for (int32_t d = 0; d < rank; d++) {
        if (t->shape[d] != shape[d]) {
            return false;
        }
    }
    return true;
}

static inline bool opf_same_shape(const opforge_tensor* a, const opforge_tensor* b)
{
    return opf_shape_is(a, b->rank, b->shape);
}

/* Whether input `in` may be read while `out` is written (ADR 0006): their bytes are
 * disjoint, or, for an op that computes element i of its result from element i of the
 * input alone (`exact_ok`: an elementwise op), `out` is exactly `in`: the same data, dtype
 * and shape. Any other overlap would read what the op has already overwritten. */
static inline bool opf_may_write_over(const opforge_tensor* in, const opforge_tensor* out, bool exact_ok)
{
    if (opf_disjoint(in, out)) {
        return true;
    }
    return exact_ok && in->data == out->data && in->dtype == out->dtype && opf_same_shape(in, out);
}

/* Whether `bytes` bytes at `p` (a caller's workspace) share no byte with the tensor `t`. */
static inline bool opf_bytes_disjoint(const void* p, size_t bytes, const opforge_tensor* t)
{
    const uintptr_t a = (uintptr_t)p, b = (uintptr_t)t->data;
    const uintptr_t nb = (uintptr_t)opf_numel(t) * opforge_dtype_size(t->dtype);
    return bytes == 0 || nb == 0 || a + bytes <= b || b + nb <= a;
}

/* Element strides of t viewed with shape (rank, shape) by broadcasting:
 * 0 along stretched or missing axes. False if t does not broadcast to it. */
static inline bool opf_broadcast_strides(const opforge_tensor* t, int32_t rank, const int64_t* shape, int64_t* strides)
{
    if (t->rank > rank) {
        return false;
    }
    int64_t stride = 1;
    for (int32_t d = rank - 1; d >= 0; d--) {
        const int32_t td = d - (rank - t->rank);
        if (td < 0) {
            strides[d] = 0;
            continue;
        }
        const int64_t s = t->shape[td];
        if (s == shape[d]) {
            strides[d] = s == 1 ? 0 : stride;
        } else if (s == 1) {
            strides[d] = 0;
        } else {
            return false;
        }
        stride *= s;
    }
    return true;
}

/* Size of axis `axis` of t (negative axes count from the end); -1 outside the rank. */
static inline int64_t opf_size_at(const opforge_tensor* t, int64_t axis)
{
    if (axis < 0) {
        axis += t->rank;
    }
    return (axis < 0 || axis >= t->rank) ? -1 : t->shape[axis];
}

/* Advance a row-major multi-index by one and move up to three offsets along. */
static inline void opf_advance(int32_t rank, const int64_t* shape, int64_t* index, const int64_t* s0, int64_t* o0,
                               const int64_t* s1, int64_t* o1, const int64_t* s2, int64_t* o2)
{
    for (int32_t d = rank - 1; d >= 0; d--) {
        index[d]++;
        if (s0 != NULL) {
            *o0 += s0[d];
        }
        if (s1 != NULL) {
            *o1 += s1[d];
        }
        if (s2 != NULL) {
            *o2 += s2[d];
        }
        if (index[d] < shape[d]) {
            return;
        }
        if (s0 != NULL) {
            *o0 -= s0[d] * shape[d];
        }
        if (s1 != NULL) {
            *o1 -= s1[d] * shape[d];
        }
        if (s2 != NULL) {
            *o2 -= s2[d] * shape[d];
        }
        index[d] = 0;
    }
}

#endif
