# Hand-written cumulative-sum reference (an Imaginet Python fragment).
# pragma IMAGINET_INCLUDES_BEGIN
import numpy as np

# pragma IMAGINET_INCLUDES_END


# pragma IMAGINET_FRAGMENT_BEGIN "cumsum"
def cumsum(x, axis, exclusive, reverse, output):
    """Running sums of x along axis into output (same shape), summed in order
    like the C kernels; integers wrap."""
    data = np.flip(x, axis) if reverse else x
    sums = np.cumsum(data, axis=axis, dtype=x.dtype)
    if exclusive:
        shifted = np.zeros_like(sums)
        head = [slice(None)] * x.ndim
        tail = [slice(None)] * x.ndim
        head[axis] = slice(1, None)
        tail[axis] = slice(None, -1)
        shifted[tuple(head)] = sums[tuple(tail)]
        sums = shifted
    np.copyto(output, np.flip(sums, axis) if reverse else sums)


# pragma IMAGINET_FRAGMENT_END
