/* Sliding windows: the state kept at the start of a caller-owned buffer. */
#ifndef OPF_WINDOW_H
#define OPF_WINDOW_H

#include "opf_base.h"

#define OPF_WINDOW_MAGIC 0x0F0E5A11u
#define OPF_WINDOW_HEADER ((sizeof(opf_window_state) + 15u) / 16u * 16u)

/* The state of a sliding window, at the start of a caller-owned buffer; the
 * queued frames follow it. */
typedef struct opf_window_state {
    uint32_t magic;
    opforge_dtype dtype;
    int32_t frame_rank;
    int64_t frame_shape[OPFORGE_MAX_RANK];
    int64_t frame_bytes;
    int64_t window, stride, capacity, count, skip;
} opf_window_state;

/* Check a frame description (dtype and shape; data unused) and give its byte size. */
static inline opforge_status opf_window_frame(const opforge_tensor* frame, uint32_t dtypes, int64_t* bytes,
                                              const char** detail)
{
    if (frame == NULL) {
        return opf_fail(detail, OPFORGE_ERR_NULL, "frame: NULL");
    }
    if ((unsigned)frame->dtype > (unsigned)OPFORGE_FLOAT64 || (OPF_DTYPE_BIT(frame->dtype) & dtypes) == 0) {
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
    if (window > (INT64_MAX / 4 - (int64_t)OPF_WINDOW_HEADER) / 2 / (frame_bytes > 0 ? frame_bytes : 1)) {
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
static inline void opf_window_start(opf_window_state* s, int64_t window, int64_t stride, int64_t capacity,
                                    int64_t frame_bytes)
{
    s->magic = OPF_WINDOW_MAGIC;
    s->frame_bytes = frame_bytes;
    s->window = window;
    s->stride = stride;
    s->capacity = capacity;
    s->count = 0;
    s->skip = 0;
}

/* Whether n more frames fit: those a stride longer than the window skips take no room. */
static inline bool opf_window_room(const opf_window_state* s, int64_t n)
{
    const int64_t store = n > s->skip ? n - s->skip : 0;
    return s->count + store <= s->capacity;
}

/* Append n frames from data, dropping first the frames a stride longer than the window
 * skips; false, and the queue unchanged, if the rest do not fit. */
static inline bool opf_window_push(opf_window_state* s, const void* data, int64_t n)
{
    if (!opf_window_room(s, n)) {
        return false;
    }
    const int64_t drop = n < s->skip ? n : s->skip;
    const int64_t store = n - drop;
    s->skip -= drop;
    if (store > 0) {
        memcpy(opf_window_frames(s) + s->count * s->frame_bytes,
               (const unsigned char*)data + drop * s->frame_bytes, (size_t)(store * s->frame_bytes));
    }
    s->count += store;
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
    const int64_t drop = s->stride < s->count ? s->stride : s->count;
    memmove(frames, frames + drop * s->frame_bytes, (size_t)((s->count - drop) * s->frame_bytes));
    s->count -= drop;
    s->skip += s->stride - drop;
    return true;
}

#endif
