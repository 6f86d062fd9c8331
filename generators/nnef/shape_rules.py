"""Shape rules of opforge's ops for ``nnef.infer_shapes(graph, custom_shapes=CUSTOM_SHAPES)``.

Each function takes the input shapes (lists of ints) and the attributes, and
returns the output shape, the same as the reference implementation.
"""


def broadcast(*shapes):
    rank = max((len(s) for s in shapes), default=0)
    out = [1] * rank
    for shape in shapes:
        for i, size in enumerate(shape):
            j = rank - len(shape) + i
            assert out[j] == size or out[j] == 1 or size == 1, f"shapes do not broadcast: {shapes}"
            out[j] = size if out[j] == 1 else out[j]
    return out


def same_or_scalar(*shapes):
    """TML's rule for logical, relational and bitwise ops: equal shapes, or scalars (rank 0)."""
    wide = [list(s) for s in shapes if len(s) != 0]
    assert all(s == wide[0] for s in wide), f"shapes must be equal, or one operand a scalar: {shapes}"
    return wide[0] if wide else []


def reduced(shape, axes, keep_dims):
    rank = len(shape)
    chosen = {a % rank for a in axes} if axes else set(range(rank))
    assert all(-rank <= a < rank for a in axes), f"axes {axes} out of range for rank {rank}"
    return [1 if i in chosen else s for i, s in enumerate(shape) if keep_dims or i not in chosen]


def contracted(shapes, labels, out_labels):
    extents, batch = {}, []
    for shape, operand in zip(shapes, labels):
        named = [l for l in operand if l >= 0]
        extra = len(shape) - len(named)
        axis = 0
        for label in operand:
            if label < 0:
                batch.append(shape[axis:axis + extra])
                axis += extra
                continue
            assert extents.setdefault(label, shape[axis]) == shape[axis], f"sizes disagree: {shapes}"
            axis += 1
    batch_shape = broadcast(*batch) if batch else []
    result = []
    for label in out_labels:
        result.extend(batch_shape if label < 0 else [extents[label]])
    return result
