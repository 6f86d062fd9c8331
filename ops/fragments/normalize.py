# Hand-written standardization reference (an Imaginet Python fragment).
# pragma IMAGINET_INCLUDES_BEGIN
import numpy as np

# pragma IMAGINET_INCLUDES_END


# pragma IMAGINET_FRAGMENT_BEGIN "standardize"
def standardize(x, axis, output):
    """(x - mean) / std along axis, statistics summed in float64 in order along
    the axis, exactly as the C kernels sum them."""
    if x.size == 0:
        return
    with np.errstate(all="ignore"):
        data = np.moveaxis(x.astype(np.float64), axis, 0)
        total = np.zeros(data.shape[1:])
        for row in data:
            total = total + row
        mean = total / data.shape[0]
        squares = np.zeros(data.shape[1:])
        for row in data:
            squares = squares + (row - mean) * (row - mean)
        std = np.sqrt(squares / data.shape[0])
        np.copyto(output, np.moveaxis((data - mean) / std, 0, axis).astype(x.dtype))


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "clip_norm"
def clip_norm(x, axis, clip, output, average):
    """Rows along axis rescaled so their L2 norm (divided by the row's length
    when average) is at most clip; sums in float64 in order, as in C."""
    if x.size == 0:
        return
    data = np.moveaxis(x.astype(np.float64), axis, 0)
    squares = np.zeros(data.shape[1:])
    for row in data:
        squares = squares + row * row
    norm = np.sqrt(squares) / data.shape[0] if average else np.sqrt(squares)
    with np.errstate(all="ignore"):
        scaled = np.where(norm > clip, data * clip / norm, data)
    np.copyto(output, np.moveaxis(scaled, 0, axis).astype(x.dtype))


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "clip_by_norm"
# pragma IMAGINET_DEPENDENCY "normalize.py:clip_norm"
def clip_by_norm(x, axis, clip_value, output):
    clip_norm(x, axis, clip_value, output, False)


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "clip_by_avg_norm"
# pragma IMAGINET_DEPENDENCY "normalize.py:clip_norm"
def clip_by_avg_norm(x, axis, clip_value, output):
    clip_norm(x, axis, clip_value, output, True)


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "is_max"
def is_max(x, axis, output):
    """1 at the first largest element along axis (the first NaN wins, as in argmax), else 0."""
    if x.size == 0:
        return
    best = np.expand_dims(np.argmax(x, axis=axis), axis)
    positions = np.arange(x.shape[axis]).reshape(
        [-1 if d == axis % x.ndim else 1 for d in range(x.ndim)]
    )
    np.copyto(output, (positions == best).astype(x.dtype))


# pragma IMAGINET_FRAGMENT_END
