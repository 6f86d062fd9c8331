/* Layouts: what the kernels of element moves share (a pad's edges, an axis counted from the
 * end) and the copy of the moves that keep the elements in order. The strided moves' kernels
 * are rendered from their form's reading plan (LayoutMove.strides). */
#ifndef OPF_LAYOUTS_H
#define OPF_LAYOUTS_H

#include "opf_base.h"

#define OPF_EDGES_CONSTANT 0
#define OPF_EDGES_REFLECT 1
#define OPF_EDGES_SYMMETRIC 2
#define OPF_EDGES_EDGE 3
#define OPF_EDGES_WRAP 4

/* A pad's mode (0 constant, 1 reflect, 2 symmetric, 3 edge, 4 wrap: the op's order) as its
 * edges. */
static inline int32_t opf_pad_edges(int mode)
{
    return mode >= 0 && mode <= OPF_EDGES_WRAP ? (int32_t)mode : OPF_EDGES_CONSTANT;
}

/* Index j of an axis of `size` elements as a pad reads it: itself inside the axis; outside,
 * -1 for constant edges (the fill value), mirrored once without the edge element (reflect) or
 * with it (symmetric), the nearest end (edge), or the axis repeated (wrap). The form's
 * refusals keep a mirror within one reflection, and edge and wrap off an empty axis. */
static inline int64_t opf_edge_index(int64_t j, int64_t size, int32_t edges)
{
    if (j >= 0 && j < size) {
        return j;
    }
    switch (edges) {
    case OPF_EDGES_CONSTANT:
        return -1;
    case OPF_EDGES_REFLECT:
        return j < 0 ? -j : 2 * (size - 1) - j;
    case OPF_EDGES_SYMMETRIC:
        return j < 0 ? -j - 1 : 2 * size - 1 - j;
    case OPF_EDGES_EDGE:
        return j < 0 ? 0 : size - 1;
    default:
        return (j % size + size) % size;
    }
}

/* An axis that may count from the end, counted from the front (in range: checked). */
static inline int64_t opf_layout_axis(int64_t axis, int32_t rank)
{
    return axis < 0 ? axis + rank : axis;
}

/* x's elements in order into out, whose shape the caller has checked holds as many (reshape,
 * squeeze, expand_dims, narrow); out may be x itself. */
static inline void opf_layout_flat(const opforge_tensor* x, opforge_tensor* out)
{
    const int64_t n = opf_numel(x);
    if (n > 0 && out->data != x->data) {
        memmove(opf_out_data(out), x->data, (size_t)n * opforge_dtype_size(x->dtype));
    }
}

#endif
