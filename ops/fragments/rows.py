# Python twins of rows.h: the same arithmetic in the inputs' dtype.
# pragma IMAGINET_INCLUDES_BEGIN
import numpy as np

# pragma IMAGINET_INCLUDES_END


# pragma IMAGINET_FRAGMENT_BEGIN "cross"
def cross(a, b, output):
    """The cross product of each pair of rows of 3, each product rounded before the difference."""
    with np.errstate(all="ignore"):
        x0, x1 = a[..., 1] * b[..., 2], a[..., 2] * b[..., 1]
        y0, y1 = a[..., 2] * b[..., 0], a[..., 0] * b[..., 2]
        z0, z1 = a[..., 0] * b[..., 1], a[..., 1] * b[..., 0]
        np.copyto(output, np.stack([x0 - x1, y0 - y1, z0 - z1], axis=-1))


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "layer_norm"
def layer_norm(x, gain, bias, axis, epsilon, output):
    """(x - mean) / sqrt(variance + epsilon) * gain + bias over each row (the axes
    from axis on, flattened), sums in float64 in order along the row, as in C."""
    if x.size == 0:
        return
    with np.errstate(all="ignore"):
        data = x.reshape(x.shape[: axis % x.ndim] + (-1,)).astype(np.float64)
        gain, bias = gain.reshape(-1), bias.reshape(-1)
        total = np.zeros(data.shape[:-1])
        for i in range(data.shape[-1]):
            total = total + data[..., i]
        mean = (total / data.shape[-1])[..., None]
        squares = np.zeros(data.shape[:-1])
        for i in range(data.shape[-1]):
            d = data[..., i] - mean[..., 0]
            squares = squares + d * d
        scale = np.sqrt(squares / data.shape[-1] + epsilon)[..., None]
        result = (data - mean) / scale * gain.astype(np.float64) + bias.astype(
            np.float64
        )
        np.copyto(output, result.astype(x.dtype).reshape(x.shape))


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "rms_norm"
def rms_norm(x, gain, axis, epsilon, output):
    """x / sqrt(mean(x^2) + epsilon) * gain over each row (the axes from axis on,
    flattened), the sum of squares in float64 in order along the row, as in C."""
    if x.size == 0:
        return
    with np.errstate(all="ignore"):
        data = x.reshape(x.shape[: axis % x.ndim] + (-1,)).astype(np.float64)
        gain = gain.reshape(-1)
        squares = np.zeros(data.shape[:-1])
        for i in range(data.shape[-1]):
            squares = squares + data[..., i] * data[..., i]
        scale = np.sqrt(squares / data.shape[-1] + epsilon)[..., None]
        result = data / scale * gain.astype(np.float64)
        np.copyto(output, result.astype(x.dtype).reshape(x.shape))


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "top_k"
def top_k(x, k, largest, values, indices):
    """The k first elements of each row (the last axis) in the order of the C kernels:
    larger values first, NaN before every number, equal values by index (largest); else
    smaller values first, NaN after every number, equal values by index."""
    if values.size == 0:
        return
    rows = x.reshape(-1, x.shape[-1])
    index = np.broadcast_to(np.arange(rows.shape[1]), rows.shape)
    # lexsort sorts ascending by the last key (NaN last), ties by the first key: by -index, then
    # reversed, that is the largest's order; by index, the smallest's
    if largest:
        order = np.lexsort((-index, rows), axis=-1)[:, ::-1][:, :k]
    else:
        order = np.lexsort((index, rows), axis=-1)[:, :k]
    np.copyto(values, np.take_along_axis(rows, order, axis=-1).reshape(values.shape))
    np.copyto(indices, order.reshape(indices.shape))


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "crelu"
def crelu(x, output):
    """Each row of len becomes 2 len: max(x, 0), then max(-x, 0); NaN gives 0."""
    len_ = x.shape[-1]
    with np.errstate(invalid="ignore"):
        output[..., :len_] = np.where(x > 0, x, 0)
        output[..., len_:] = np.where(-x > 0, -x, 0)


# pragma IMAGINET_FRAGMENT_END
