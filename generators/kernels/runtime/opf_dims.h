/* Shapes as values, for the checks an API function renders from its op's form: the
 * form's refusals and its outputs' shapes (dsl/shapes.py, rendered by
 * generators/kernels/c_shapes.py; ADR 0033). The rules are the form's; these helpers
 * only give the rendered code NumPy's and Python's primitives: a shape, slicing,
 * broadcasting, floor division. Every read is defined for any input, so a rendered
 * condition never reads out of bounds before an earlier refusal has been checked. */
#ifndef OPF_DIMS_H
#define OPF_DIMS_H

#include "opf_base.h"

/* Room for the axes a form builds before it refuses a result above OPFORGE_MAX_RANK
 * (a concatenation of two shapes of the maximum rank). */
#define OPF_DIMS_ROOM (2 * OPFORGE_MAX_RANK)

/* A shape: `rank` counts every axis given, even past the room, whose sizes are dropped
 * (such a shape is refused by its rank; reads past the room give 0). */
typedef struct opf_dims {
    int32_t rank;
    int64_t size[OPF_DIMS_ROOM];
} opf_dims;

static inline void opf_dims_push(opf_dims* s, int64_t size)
{
    if (s->rank >= 0 && s->rank < OPF_DIMS_ROOM) {
        s->size[s->rank] = size;
    }
    if (s->rank < INT32_MAX) {
        s->rank++;
    }
}

/* The sizes `values[0..count)`: a tensor's shape or an int-list arg's values. */
static inline opf_dims opf_dims_from(const int64_t* values, int32_t count)
{
    opf_dims s = {0, {0}};
    for (int32_t d = 0; d < count; d++) {
        opf_dims_push(&s, values[d]);
    }
    return s;
}

static inline opf_dims opf_dims_of(const opforge_tensor* t)
{
    return opf_dims_from(t->shape, t->rank);
}

/* Size `index` (negative counts from the end, as Python indexes); 0 outside the shape. */
static inline int64_t opf_dims_at(const opf_dims* s, int64_t index)
{
    if (index < 0) {
        index += s->rank;
    }
    return (index < 0 || index >= s->rank || index >= OPF_DIMS_ROOM) ? 0 : s->size[index];
}

/* Value `index` of an int-list arg (negative counts from the end); 0 outside it. */
static inline int64_t opf_values_at(const int64_t* values, int32_t count, int64_t index)
{
    if (index < 0) {
        index += count;
    }
    return (index < 0 || index >= count) ? 0 : values[index];
}

static inline void opf_dims_append(opf_dims* s, const opf_dims* part)
{
    for (int32_t d = 0; d < part->rank; d++) {
        opf_dims_push(s, opf_dims_at(part, d));
    }
}

/* Python's s[start:stop] (a missing bound is the end; negative bounds count from the end). */
static inline opf_dims opf_dims_slice(const opf_dims* s, bool has_start, int64_t start, bool has_stop, int64_t stop)
{
    const int64_t n = s->rank;
    int64_t lo = has_start ? start : 0, hi = has_stop ? stop : n;
    lo = lo < 0 ? (lo + n < 0 ? 0 : lo + n) : (lo > n ? n : lo);
    hi = hi < 0 ? (hi + n < 0 ? 0 : hi + n) : (hi > n ? n : hi);
    opf_dims out = {0, {0}};
    for (int64_t d = lo; d < hi; d++) {
        opf_dims_push(&out, opf_dims_at(s, d));
    }
    return out;
}

static inline bool opf_dims_equal(const opf_dims* a, const opf_dims* b)
{
    if (a->rank != b->rank) {
        return false;
    }
    for (int32_t d = 0; d < a->rank; d++) {
        if (opf_dims_at(a, d) != opf_dims_at(b, d)) {
            return false;
        }
    }
    return true;
}

/* Folds shape `s` into the broadcast `acc` of the shapes before it; whether they still fit:
 * NumPy's rule, or (`strict`) TML's, equal shapes or scalars (rank 0). `acc` starts as the
 * first shape; once they do not fit, it is some shape the checks never use. */
static inline bool opf_dims_fit(opf_dims* acc, const opf_dims* s, bool strict)
{
    if (strict) {
        if (s->rank == 0) {
            return true;
        }
        if (acc->rank == 0) {
            *acc = *s;
            return true;
        }
        return opf_dims_equal(acc, s);
    }
    const int32_t rank = acc->rank > s->rank ? acc->rank : s->rank;
    opf_dims out = {0, {0}};
    bool fits = true;
    for (int32_t d = 0; d < rank; d++) {
        const int64_t a = d < rank - acc->rank ? 1 : opf_dims_at(acc, d - (rank - acc->rank));
        const int64_t b = d < rank - s->rank ? 1 : opf_dims_at(s, d - (rank - s->rank));
        fits = fits && (a == b || a == 1 || b == 1);
        opf_dims_push(&out, a == 1 ? b : a);
    }
    *acc = out;
    return fits;
}

/* Whether two tensors' shapes broadcast together (a constraint's `broadcastable`). */
static inline bool opf_broadcastable(const opforge_tensor* a, const opforge_tensor* b)
{
    opf_dims acc = opf_dims_of(a);
    const opf_dims other = opf_dims_of(b);
    return opf_dims_fit(&acc, &other, false);
}

/* The product of the values, its magnitude saturating at INT64_MAX. */
static inline int64_t opf_values_numel(const int64_t* values, int32_t count)
{
    int64_t n = 1;
    bool negative = false;
    for (int32_t d = 0; d < count; d++) {
        const int64_t v = values[d];
        if (v == 0) {
            return 0;
        }
        const int64_t m = v == INT64_MIN ? INT64_MAX : (v < 0 ? -v : v);
        negative = negative != (v < 0);
        n = n > INT64_MAX / m ? INT64_MAX : n * m;
    }
    return negative ? -n : n;
}

static inline int64_t opf_dims_numel(const opf_dims* s)
{
    const int32_t held = s->rank < OPF_DIMS_ROOM ? s->rank : OPF_DIMS_ROOM;
    return opf_values_numel(s->size, held);
}

/* Whether tensor t has the shape s. */
static inline bool opf_dims_match(const opforge_tensor* t, const opf_dims* s)
{
    return s->rank <= OPFORGE_MAX_RANK && opf_shape_is(t, s->rank, s->size);
}

/* Whether the result's shape s broadcasts into t's own shape (an elementwise op's output
 * may be larger than its result: the result is assigned to it by broadcasting). */
static inline bool opf_dims_assignable(const opforge_tensor* t, const opf_dims* s)
{
    opf_dims acc = opf_dims_of(t);
    const opf_dims own = acc;
    return s->rank <= OPFORGE_MAX_RANK && opf_dims_fit(&acc, s, false) && opf_dims_equal(&acc, &own);
}

/* Python's a // b and a % b (the quotient rounded down); 0 for b == 0, which a form refuses. */
static inline int64_t opf_floordiv(int64_t a, int64_t b)
{
    if (b == 0 || (a == INT64_MIN && b == -1)) {
        return 0;
    }
    const int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static inline int64_t opf_floormod(int64_t a, int64_t b)
{
    if (b == 0 || b == -1) {
        return 0;
    }
    const int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

/* Sizes added, subtracted and multiplied as Python does, saturating at int64's limits
 * (a size that large is refused by the checks that read it). */
static inline int64_t opf_size_add(int64_t a, int64_t b)
{
    if (b > 0 && a > INT64_MAX - b) {
        return INT64_MAX;
    }
    if (b < 0 && a < INT64_MIN - b) {
        return INT64_MIN;
    }
    return a + b;
}

static inline int64_t opf_size_sub(int64_t a, int64_t b)
{
    if (b < 0 && a > INT64_MAX + b) {
        return INT64_MAX;
    }
    if (b > 0 && a < INT64_MIN + b) {
        return INT64_MIN;
    }
    return a - b;
}

static inline int64_t opf_size_mul(int64_t a, int64_t b)
{
    if (a == 0 || b == 0) {
        return 0;
    }
    const bool negative = (a < 0) != (b < 0);
    const uint64_t ma = a < 0 ? (uint64_t)0 - (uint64_t)a : (uint64_t)a;
    const uint64_t mb = b < 0 ? (uint64_t)0 - (uint64_t)b : (uint64_t)b;
    if (ma > (uint64_t)INT64_MAX / mb) {
        return negative ? INT64_MIN : INT64_MAX;
    }
    const int64_t m = (int64_t)(ma * mb);
    return negative ? -m : m;
}

static inline int64_t opf_max_i64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static inline int64_t opf_min_i64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* The smallest integer not below a real size (range's length), within int64's range. */
static inline int64_t opf_ceil_size(double value)
{
    if (!(value > -9.0e18)) {
        return value != value ? 0 : INT64_MIN;
    }
    if (value >= 9.0e18) {
        return INT64_MAX;
    }
    const int64_t t = (int64_t)value;
    return (double)t < value ? t + 1 : t;
}

/* Whether an int-list arg names axis `axis` of `rank` axes (v == axis or v + rank == axis);
 * an empty list names every axis when `all_when_empty`. */
static inline bool opf_names_axis(const int64_t* values, int32_t count, int64_t axis, int64_t rank,
                                  bool all_when_empty)
{
    if (count == 0) {
        return all_when_empty;
    }
    for (int32_t i = 0; i < count; i++) {
        if (values[i] == axis || values[i] + rank == axis) {
            return true;
        }
    }
    return false;
}

/* Whether the values name distinct axes of `rank` axes (v and v + rank are one axis). */
static inline bool opf_distinct_axes(const int64_t* values, int32_t count, int64_t rank)
{
    for (int32_t i = 0; i < count; i++) {
        const int64_t a = values[i] < 0 ? values[i] + rank : values[i];
        for (int32_t j = 0; j < i; j++) {
            const int64_t b = values[j] < 0 ? values[j] + rank : values[j];
            if (a == b) {
                return false;
            }
        }
    }
    return true;
}

#endif
