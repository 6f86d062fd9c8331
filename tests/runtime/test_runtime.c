/* Unit tests of the C runtime's helpers (generators/kernels/runtime), compiled
 * against the rendered library headers by tests/test_c_runtime.py. Prints one
 * line per failed check and exits 1 if any failed. */
#include <stdio.h>

#include "opforge_internal.h"

static int failures = 0;

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            printf("%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);    \
            failures++;                                                        \
        }                                                                      \
    } while (0)

static bool shape_equals(int32_t rank, const int64_t* shape, int32_t want_rank, const int64_t* want)
{
    if (rank != want_rank) {
        return false;
    }
    for (int32_t d = 0; d < rank; d++) {
        if (shape[d] != want[d]) {
            return false;
        }
    }
    return true;
}

/* Random123's known-answer vectors for philox4x32_10 (kat_vectors). */
static void test_philox_known_answers(void)
{
    static const uint32_t cases[3][10] = {
        {0u, 0u, 0u, 0u, 0u, 0u, 0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u},
        {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0x408f276du, 0x41c83b0eu,
         0xa20bc7c6u, 0x6d5451fdu},
        {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u, 0xa4093822u, 0x299f31d0u, 0xd16cfe09u, 0x94fdccebu,
         0x5001e420u, 0x24126ea1u},
    };
    for (int c = 0; c < 3; c++) {
        uint32_t out[4];
        opforge_philox4x32_10(cases[c], &cases[c][4], out);
        for (int i = 0; i < 4; i++) {
            CHECK(out[i] == cases[c][6 + i]);
        }
    }
}

static opf_dims dims(int32_t rank, const int64_t* sizes)
{
    return opf_dims_from(sizes, rank);
}

static void test_broadcasting(void)
{
    opf_dims acc = dims(2, (const int64_t[]){3, 1});
    const opf_dims row = dims(2, (const int64_t[]){1, 4});
    CHECK(opf_dims_fit(&acc, &row, false));
    CHECK(shape_equals(acc.rank, acc.size, 2, (const int64_t[]){3, 4}));

    /* a longer operand prepends its leading axes */
    const opf_dims batch = dims(3, (const int64_t[]){5, 1, 4});
    CHECK(opf_dims_fit(&acc, &batch, false));
    CHECK(shape_equals(acc.rank, acc.size, 3, (const int64_t[]){5, 3, 4}));

    /* 3 against 4: no broadcast; an empty axis broadcasts only against 1 */
    const opf_dims bad = dims(1, (const int64_t[]){3});
    CHECK(!opf_dims_fit(&acc, &bad, false));
    opf_dims empty = dims(1, (const int64_t[]){0});
    const opf_dims one = dims(1, (const int64_t[]){1});
    CHECK(opf_dims_fit(&empty, &one, false) && empty.size[0] == 0);

    /* TML's strict rule: equal shapes, or scalars */
    opf_dims scalar = dims(0, NULL);
    const opf_dims matrix = dims(2, (const int64_t[]){2, 3});
    CHECK(opf_dims_fit(&scalar, &matrix, true) && shape_equals(scalar.rank, scalar.size, 2, matrix.size));
    CHECK(!opf_dims_fit(&scalar, &row, true));

    /* a broadcast operand steps by 0 along the axes it lacks or has as 1 */
    float data[4] = {0};
    const opforge_tensor column = {.data = data, .dtype = OPFORGE_FLOAT32, .rank = 2, .shape = {4, 1}};
    int64_t strides[OPFORGE_MAX_RANK];
    CHECK(opf_broadcast_strides(&column, 3, (const int64_t[]){2, 4, 3}, strides));
    CHECK(strides[0] == 0 && strides[1] == 1 && strides[2] == 0);
}

static void test_descriptor_checks(void)
{
    float data[6] = {0};
    const uint32_t floats = OPF_DTYPE_BIT(OPFORGE_FLOAT32) | OPF_DTYPE_BIT(OPFORGE_FLOAT64);
    opforge_tensor t = {.data = data, .dtype = OPFORGE_FLOAT32, .rank = 2, .shape = {2, 3}};
    CHECK(opf_check_tensor(&t, floats) == OPFORGE_OK);
    CHECK(opf_check_tensor(NULL, floats) == OPFORGE_ERR_NULL);
    t.dtype = OPFORGE_INT32;
    CHECK(opf_check_tensor(&t, floats) == OPFORGE_ERR_DTYPE);
    t.dtype = (opforge_dtype)99;
    CHECK(opf_check_tensor(&t, floats) == OPFORGE_ERR_DTYPE);
    t.dtype = OPFORGE_FLOAT32;
    t.rank = OPFORGE_MAX_RANK + 1;
    CHECK(opf_check_tensor(&t, floats) == OPFORGE_ERR_RANK);
    t.rank = 2;
    t.shape[1] = -1;
    CHECK(opf_check_tensor(&t, floats) == OPFORGE_ERR_SIZE);
    t.shape[0] = INT64_MAX / 2;
    t.shape[1] = 3;
    CHECK(opf_check_tensor(&t, floats) == OPFORGE_ERR_SIZE);
    /* no elements: no data needed */
    const opforge_tensor empty = {.data = NULL, .dtype = OPFORGE_FLOAT32, .rank = 2, .shape = {0, 3}};
    CHECK(opf_check_tensor(&empty, floats) == OPFORGE_OK);
    const opforge_tensor missing = {.data = NULL, .dtype = OPFORGE_FLOAT32, .rank = 1, .shape = {3}};
    CHECK(opf_check_tensor(&missing, floats) == OPFORGE_ERR_NULL);
}

static void test_layout_edges(void)
{
    /* a pad reads an index outside the axis mirrored once, or not at all (constant) */
    const int32_t reflect = opf_pad_edges(1), symmetric = opf_pad_edges(2), constant = opf_pad_edges(0);
    CHECK(opf_edge_index(2, 3, reflect) == 2 && opf_edge_index(-1, 3, reflect) == 1);
    CHECK(opf_edge_index(3, 3, reflect) == 1 && opf_edge_index(4, 3, reflect) == 0);
    CHECK(opf_edge_index(-1, 3, symmetric) == 0 && opf_edge_index(3, 3, symmetric) == 2);
    CHECK(opf_edge_index(-2, 3, symmetric) == 1 && opf_edge_index(-1, 3, constant) == -1);
    CHECK(opf_layout_axis(-1, 3) == 2 && opf_layout_axis(1, 3) == 1);

    /* a flat move copies in order, and leaves an output that is x itself as it is */
    int32_t x[6] = {0, 1, 2, 3, 4, 5}, out[6] = {0};
    const opforge_tensor t = {.data = x, .dtype = OPFORGE_INT32, .rank = 2, .shape = {2, 3}};
    opforge_tensor into = {.data = out, .dtype = OPFORGE_INT32, .rank = 1, .shape = {6}};
    opf_layout_flat(&t, &into);
    CHECK(memcmp(out, x, sizeof x) == 0);
    into.data = x;
    opf_layout_flat(&t, &into);
    CHECK(x[5] == 5);
}

static void test_reduce_plans(void)
{
    float data[24] = {0};
    const opforge_tensor t = {.data = data, .dtype = OPFORGE_FLOAT32, .rank = 3, .shape = {2, 3, 4}};
    opf_reduce_plan p;
    const int64_t middle[1] = {-2};
    opf_reduce_plan_make(&t, middle, 1, &p);
    CHECK(shape_equals(p.outer_rank, p.outer_shape, 2, (const int64_t[]){2, 4}));
    CHECK(p.n_outer == 8 && p.n_inner == 3 && p.inner_stride[0] == 4);
    CHECK(p.outer_stride[0] == 12 && p.outer_stride[1] == 1);
    opf_reduce_plan_make(&t, NULL, 0, &p);
    CHECK(p.outer_rank == 0 && p.n_inner == 24 && p.inner_rank == 3);
    const int64_t ends[2] = {0, -1};
    opf_reduce_plan_make(&t, ends, 2, &p);
    CHECK(p.n_outer == 3 && p.n_inner == 8 && p.inner_stride[0] == 12 && p.inner_stride[1] == 1);
}

/* NumPy's semantics for the scalar helpers the kernels call per element. */
static void test_scalar_semantics(void)
{
    CHECK(opf_floor_mod_f64(-1.0, 3.0) == 2.0);
    CHECK(opf_floor_mod_f64(1.0, -3.0) == -2.0);
    CHECK(signbit(opf_floor_mod_f64(3.0, -3.0)) && opf_floor_mod_f64(3.0, -3.0) == 0.0);
    CHECK(isnan(opf_maximum_f32(NAN, 1.0f)) && isnan(opf_maximum_f32(1.0f, NAN)));
    CHECK(isnan(opf_minimum_f64(2.0, NAN)));
    CHECK(opf_sign_f32(-0.5f) == -1.0f && opf_sign_f32(0.0f) == 0.0f && isnan(opf_sign_f32(NAN)));

    CHECK(opf_div_i32(7, 0) == 0);
    CHECK(opf_div_i32(INT32_MIN, -1) == INT32_MIN);
    CHECK(opf_div_i32(-7, 2) == -3);
    CHECK(opf_floor_div_i32(-7, 2) == -4);
    CHECK(opf_floor_mod_i32(-7, 2) == 1);
    CHECK(opf_floor_mod_i8(7, -2) == -1);

    CHECK(opf_right_shift_i16(-8, 1) == -4);
    CHECK(opf_right_shift_i16(-8, 16) == -1 && opf_right_shift_i16(8, 16) == 0);
    CHECK(opf_left_shift_u8(1, 7) == 128 && opf_left_shift_u8(1, 8) == 0);
    CHECK(opf_left_shift_i8(1, -1) == 0);
    CHECK(opf_popcount_u8(255) == 8 && opf_popcount_i64(-1) == 64);
    CHECK(opf_isqrt_i64(0) == 0 && opf_isqrt_i64(-5) == 0 && opf_isqrt_i64(15) == 3 && opf_isqrt_i64(16) == 4);
    CHECK(opf_isqrt_i64(INT64_MAX) == 3037000499 && opf_isqrt_u8(255) == 15 && opf_isqrt_i8(INT8_MAX) == 11);
    CHECK(opf_isqrt_u32(UINT32_MAX) == 65535u && opf_isqrt_i32(2147395600) == 46340);
}

static void test_casts(void)
{
    double doubles[2] = {0};
    opforge_tensor d = {.data = doubles, .dtype = OPFORGE_FLOAT64, .rank = 1, .shape = {2}};
    opf_store_double(&d, 1, 2.5);
    CHECK(doubles[1] == 2.5);
    int16_t shorts[2] = {0};
    opforge_tensor s = {.data = shorts, .dtype = OPFORGE_INT16, .rank = 1, .shape = {2}};
    opf_store_double(&s, 0, -2.9);
    CHECK(shorts[0] == -2);
}

static void test_fill_values(void)
{
    unsigned char fill[8];
    CHECK(opf_fill_value(OPFORGE_INT8, 127.0, fill));
    CHECK(!opf_fill_value(OPFORGE_INT8, 128.0, fill));
    CHECK(!opf_fill_value(OPFORGE_INT32, 0.5, fill));
    CHECK(!opf_fill_value(OPFORGE_BOOL, 2.0, fill));
    CHECK(!opf_fill_value(OPFORGE_INT64, 9223372036854775808.0, fill));
    CHECK(opf_fill_value(OPFORGE_FLOAT32, 0.1, fill));
}

/* A window of 3 frames, stride 4 (one frame a stride skips), frames of one int32. */
static void test_window_queue(void)
{
    static uint64_t buffer[(OPF_WINDOW_HEADER + 6 * sizeof(int32_t)) / 8 + 1];
    opf_window_state* s = (opf_window_state*)buffer;
    opf_window_start(s, 3, 4, 6, (int64_t)sizeof(int32_t));
    int32_t out[3] = {0};
    CHECK(!opf_window_pop(s, out)); /* nothing queued */
    const int32_t first[5] = {1, 2, 3, 4, 5};
    CHECK(opf_window_push(s, first, 5));
    CHECK(s->count == 5);
    CHECK(opf_window_pop(s, out));
    CHECK(out[0] == 1 && out[1] == 2 && out[2] == 3);
    CHECK(s->count == 1 && s->skip == 0); /* 4 dropped: frame 5 is the next window's first */
    CHECK(!opf_window_pop(s, out));
    const int32_t more[2] = {6, 7};
    CHECK(opf_window_push(s, more, 2));
    CHECK(opf_window_pop(s, out));
    CHECK(out[0] == 5 && out[1] == 6 && out[2] == 7);
    CHECK(s->count == 0 && s->skip == 1); /* the stride passes one frame not yet queued */
    const int32_t next[4] = {8, 9, 10, 11};
    CHECK(opf_window_push(s, next, 4)); /* 8 is skipped */
    CHECK(s->count == 3 && s->skip == 0);
    CHECK(opf_window_room(s, 3) && !opf_window_room(s, 4));
    const int32_t too_many[4] = {12, 13, 14, 15};
    CHECK(!opf_window_push(s, too_many, 4)); /* 3 + 4 > 6: refused, unchanged */
    CHECK(s->count == 3);
    CHECK(opf_window_pop(s, out));
    CHECK(out[0] == 9 && out[1] == 10 && out[2] == 11);
}

/* The primitives rendered shape checks use: Python's slicing and floor division, sizes
 * that saturate, reads that never leave a shape. */
static void test_dims_primitives(void)
{
    const opf_dims s = dims(4, (const int64_t[]){2, 3, 4, 5});
    opf_dims cut = opf_dims_slice(&s, true, 1, true, -1);
    CHECK(shape_equals(cut.rank, cut.size, 2, (const int64_t[]){3, 4}));
    cut = opf_dims_slice(&s, true, -9, false, 0);
    CHECK(cut.rank == 4);
    cut = opf_dims_slice(&s, true, 3, true, 1);
    CHECK(cut.rank == 0);
    CHECK(opf_dims_at(&s, -1) == 5 && opf_dims_at(&s, 4) == 0 && opf_dims_at(&s, -5) == 0);
    CHECK(opf_floordiv(-7, 2) == -4 && opf_floordiv(7, -2) == -4 && opf_floordiv(7, 0) == 0);
    CHECK(opf_floormod(-7, 3) == 2 && opf_floormod(7, -3) == -2 && opf_floormod(INT64_MIN, -1) == 0);
    CHECK(opf_size_add(INT64_MAX, 1) == INT64_MAX && opf_size_sub(INT64_MIN, 1) == INT64_MIN);
    CHECK(opf_size_mul(INT64_MAX, -2) == INT64_MIN && opf_size_mul(-3, 4) == -12);
    CHECK(opf_values_numel((const int64_t[]){INT64_MAX, 2}, 2) == INT64_MAX);
    CHECK(opf_values_numel((const int64_t[]){-2, 3}, 2) == -6);
    CHECK(opf_ceil_size(2.5) == 3 && opf_ceil_size(-2.5) == -2 && opf_ceil_size(1e300) == INT64_MAX);
    const int64_t axes[2] = {-1, 0};
    CHECK(opf_names_axis(axes, 2, 3, 4, false) && opf_names_axis(axes, 2, 0, 4, false));
    CHECK(!opf_names_axis(axes, 2, 1, 4, false) && opf_names_axis(NULL, 0, 1, 4, true));
    CHECK(opf_distinct_axes(axes, 2, 4) && !opf_distinct_axes((const int64_t[]){1, -3}, 2, 4));

    /* past the room, axes are counted and their sizes dropped */
    opf_dims wide = dims(0, NULL);
    for (int d = 0; d < OPF_DIMS_ROOM + 3; d++) {
        opf_dims_push(&wide, 7);
    }
    CHECK(wide.rank == OPF_DIMS_ROOM + 3 && opf_dims_at(&wide, OPF_DIMS_ROOM + 1) == 0);

    /* a result is assignable to an output it broadcasts into, and matches only its own shape */
    float data[24] = {0};
    const opforge_tensor out = {.data = data, .dtype = OPFORGE_FLOAT32, .rank = 3, .shape = {2, 3, 4}};
    const opf_dims row = dims(1, (const int64_t[]){4});
    CHECK(opf_dims_assignable(&out, &row) && !opf_dims_match(&out, &row));
    const opf_dims wider = dims(3, (const int64_t[]){2, 1, 4});
    CHECK(opf_dims_assignable(&out, &wider));
    const opf_dims other = dims(2, (const int64_t[]){3, 5});
    CHECK(!opf_dims_assignable(&out, &other) && !opf_dims_match(&out, &wide));
}

/* Time ranges ride with their frames: each frame keeps its block's [first, last] timestamps,
 * a window gives the range over its frames, and the stride drops the ranges with the frames. */
static void test_window_times(void)
{
    static uint64_t buffer[(OPF_WINDOW_HEADER + 4 * sizeof(float) + OPF_WINDOW_TIME_BYTES(4)) / 8 + 1];
    opf_window_state* s = (opf_window_state*)buffer;
    opf_window_start(s, 2, 1, 4, (ptrdiff_t)sizeof(float));
    opf_window_keep_times(s);
    float out[2] = {0}, time[2] = {0};
    CHECK(opf_window_push_timed(s, (const float[]){1, 2}, 2, (const float[]){0.5f, 0.25f}, 2));
    CHECK(opf_window_push_timed(s, (const float[]){3}, 1, (const float[]){0.75f}, 1));
    CHECK(opf_window_pop_timed(s, out, time));
    CHECK(out[0] == 1 && out[1] == 2 && time[0] == 0.25f && time[1] == 0.5f);
    CHECK(opf_window_pop_timed(s, out, time)); /* frames 2 and 3: two blocks' ranges */
    CHECK(out[0] == 2 && out[1] == 3 && time[0] == 0.25f && time[1] == 0.75f);
    CHECK(!opf_window_pop_timed(s, out, time));
    CHECK(opf_window_push_timed(s, (const float[]){4}, 1, NULL, 0)); /* no timestamps: an empty range */
    CHECK(opf_window_pop_timed(s, out, time));
    CHECK(time[0] == 0.75f && time[1] == 0.75f);
}

int main(void)
{
    test_philox_known_answers();
    test_broadcasting();
    test_dims_primitives();
    test_descriptor_checks();
    test_layout_edges();
    test_reduce_plans();
    test_scalar_semantics();
    test_casts();
    test_fill_values();
    test_window_queue();
    test_window_times();
    if (failures == 0) {
        printf("all runtime checks passed\n");
    }
    return failures == 0 ? 0 : 1;
}
