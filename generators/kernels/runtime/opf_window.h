/* Sliding windows: the state kept at the start of a caller-owned buffer. */
#ifndef OPF_WINDOW_H
#define OPF_WINDOW_H

#include "opf_base.h"

#include <float.h>

#define OPF_WINDOW_MAGIC 0x0F0E5A11u
#define OPF_WINDOW_HEADER ((sizeof(opf_window_state) + 15u) / 16u * 16u)

/* The state of a sliding window, at the start of a caller-owned buffer; the
 * queued frames follow it. */
typedef struct opf_window_state {
    uint32_t magic;
    opforge_dtype dtype;
    int32_t frame_rank;
    int64_t frame_shape[OPFORGE_MAX_RANK];
    /* The queue's counts and bytes, in the core's own width: a buffer in memory fits a
     * ptrdiff_t, and a 32-bit core does its arithmetic in one instruction, not a pair. */
    ptrdiff_t frame_bytes;
    ptrdiff_t window, stride, capacity, count, skip;
    /* Where the frames' time ranges start (a unit's optional timestamps: a [first, last] pair
     * of floats per queued frame, after the frames), or 0 without them. */
    ptrdiff_t times;
    /* The frames' fixed-point attributes (ADR 0040; a plain dtype's are not read): every
     * frame enqueued holds them, and every window dequeued takes them. */
    int32_t shift, offset;
    double scale;
} opf_window_state;

/* Check a frame description (dtype and shape; data unused) and give its byte size. */
static inline opforge_status opf_window_frame(const opforge_tensor* frame, uint32_t dtypes, int64_t* bytes,
                                              const char** detail)
{
    if (frame == NULL) {
        return opf_fail(detail, OPFORGE_ERR_NULL, "frame: NULL");
    }
    if ((unsigned)frame->dtype > (unsigned)OPFORGE_DTYPE_LAST || (OPF_DTYPE_BIT(frame->dtype) & dtypes) == 0) {
        return opf_fail(detail, OPFORGE_ERR_DTYPE, "frame: unsupported dtype");
    }
    if (frame->rank < 0 || frame->rank >= OPFORGE_MAX_RANK) {
        return opf_fail(detail, OPFORGE_ERR_RANK, "frame: rank must leave room for the window axis");
    }
    int64_t n = (int64_t)opforge_dtype_size(frame->dtype);
    for (int32_t d = 0; d < frame->rank; d++) {
        if (frame->shape[d] < 0 || (frame->shape[d] != 0 && n > INT64_MAX / 4 / frame->shape[d])) {
            return opf_fail(detail, OPFORGE_ERR_SIZE, "frame: negative or too large size");
        }
        n *= frame->shape[d];
    }
    *bytes = n;
    return OPFORGE_OK;
}

static inline opforge_status opf_window_size(int64_t window, int64_t frame_bytes, size_t* bytes, const char** detail)
{
    if (window > ((int64_t)PTRDIFF_MAX / 4 - (int64_t)OPF_WINDOW_HEADER) / 2 / (frame_bytes > 0 ? frame_bytes : 1)) {
        return opf_fail(detail, OPFORGE_ERR_SIZE, "window: the queue would not fit in memory");
    }
    *bytes = (size_t)OPF_WINDOW_HEADER + (size_t)(2 * window * frame_bytes);
    return OPFORGE_OK;
}

static inline opforge_status opf_window_get(const void* state, opf_window_state** s, const char** detail)
{
    if (state == NULL) {
        return opf_fail(detail, OPFORGE_ERR_NULL, "state: NULL");
    }
    *s = (opf_window_state*)(uintptr_t)state;
    if ((*s)->magic != OPF_WINDOW_MAGIC) {
        return opf_fail(detail, OPFORGE_ERR_ARG, "state: not initialised");
    }
    return OPFORGE_OK;
}

static inline unsigned char* opf_window_frames(opf_window_state* s)
{
    return (unsigned char*)s + OPF_WINDOW_HEADER;
}

/* Lay out an empty queue of at most capacity frames of frame_bytes each, giving windows of
 * window frames, stride frames apart. The caller has checked the buffer's size and alignment. */
static inline void opf_window_start(opf_window_state* s, ptrdiff_t window, ptrdiff_t stride, ptrdiff_t capacity,
                                    ptrdiff_t frame_bytes)
{
    s->magic = OPF_WINDOW_MAGIC;
    s->frame_bytes = frame_bytes;
    s->window = window;
    s->stride = stride;
    s->capacity = capacity;
    s->count = 0;
    s->skip = 0;
    s->times = 0;
}

/* The bytes a queue of capacity frames needs after its frames for their time ranges. */
#define OPF_WINDOW_TIME_BYTES(capacity) ((size_t)(capacity) * 2u * sizeof(float))

/* Keep a time range per frame from now on (Imaginet's timestamps), after the frames. The
 * caller has checked that the buffer holds OPF_WINDOW_TIME_BYTES(capacity) more bytes. */
static inline void opf_window_keep_times(opf_window_state* s)
{
    s->times = (ptrdiff_t)OPF_WINDOW_HEADER + s->capacity * s->frame_bytes;
    s->times = (s->times + (ptrdiff_t)sizeof(float) - 1) / (ptrdiff_t)sizeof(float) * (ptrdiff_t)sizeof(float);
}

static inline float* opf_window_ranges(opf_window_state* s)
{
    return (float*)(void*)((unsigned char*)s + s->times);
}

/* Whether n more frames fit: those a stride longer than the window skips take no room. */
static inline bool opf_window_room(const opf_window_state* s, ptrdiff_t n)
{
    const ptrdiff_t store = n > s->skip ? n - s->skip : 0;
    return s->count + store <= s->capacity;
}

/* Append n frames from data, dropping first the frames a stride longer than the window
 * skips; false, and the queue unchanged, if the rest do not fit. */
static inline bool opf_window_push(opf_window_state* s, const void* data, ptrdiff_t n)
{
    if (!opf_window_room(s, n)) {
        return false;
    }
    const ptrdiff_t drop = n < s->skip ? n : s->skip;
    const ptrdiff_t store = n - drop;
    s->skip -= drop;
    if (store > 0) {
        memcpy(opf_window_frames(s) + s->count * s->frame_bytes,
               (const unsigned char*)data + drop * s->frame_bytes, (size_t)(store * s->frame_bytes));
    }
    s->count += store;
    return true;
}

/* As opf_window_push, each frame stored taking the range [smallest, largest] of the block's
 * `count` timestamps (none: [FLT_MAX, -FLT_MAX], as the real library's windows have it). */
static inline bool opf_window_push_timed(opf_window_state* s, const void* data, ptrdiff_t n, const float* time,
                                         ptrdiff_t count)
{
    float first = FLT_MAX, last = -FLT_MAX;
    for (ptrdiff_t i = 0; i < count; i++) {
        first = time[i] < first ? time[i] : first;
        last = time[i] > last ? time[i] : last;
    }
    const ptrdiff_t at = s->count;
    if (!opf_window_push(s, data, n)) {
        return false;
    }
    float* ranges = opf_window_ranges(s);
    for (ptrdiff_t f = at; f < s->count; f++) {
        ranges[2 * f] = first;
        ranges[2 * f + 1] = last;
    }
    return true;
}

/* Copy the oldest window to out and advance by the stride (frames not yet queued are
 * skipped when they come); false, and the queue unchanged, if no window is complete. */
static inline bool opf_window_pop(opf_window_state* s, void* out)
{
    if (s->count < s->window) {
        return false;
    }
    unsigned char* frames = opf_window_frames(s);
    memcpy(out, frames, (size_t)(s->window * s->frame_bytes));
    const ptrdiff_t drop = s->stride < s->count ? s->stride : s->count;
    memmove(frames, frames + drop * s->frame_bytes, (size_t)((s->count - drop) * s->frame_bytes));
    s->count -= drop;
    s->skip += s->stride - drop;
    return true;
}

/* As opf_window_pop, with the window's time range, [first, last] over its frames, into time. */
static inline bool opf_window_pop_timed(opf_window_state* s, void* out, float* time)
{
    if (s->count < s->window) {
        return false;
    }
    float* ranges = opf_window_ranges(s);
    float first = FLT_MAX, last = -FLT_MAX;
    for (ptrdiff_t f = 0; f < s->window; f++) {
        first = ranges[2 * f] < first ? ranges[2 * f] : first;
        last = ranges[2 * f + 1] > last ? ranges[2 * f + 1] : last;
    }
    time[0] = first;
    time[1] = last;
    const ptrdiff_t before = s->count;
    (void)opf_window_pop(s, out);
    memmove(ranges, ranges + 2 * (before - s->count), (size_t)(2 * s->count) * sizeof(float));
    return true;
}

#endif
