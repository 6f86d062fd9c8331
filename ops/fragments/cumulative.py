# Hand-written cumulative sum and product references (Imaginet Python fragments).
# pragma IMAGINET_INCLUDES_BEGIN
import numpy as np

# pragma IMAGINET_INCLUDES_END


# pragma IMAGINET_FRAGMENT_BEGIN "cumulate"
def cumulate(x, axis, exclusive, reverse, output, product):
    """Running sums (or products) of x along axis into output (same shape),
    combined in order like the C kernels; integers wrap."""
    data = np.flip(x, axis) if reverse else x
    running = (np.cumprod if product else np.cumsum)(data, axis=axis, dtype=x.dtype)
    if exclusive:
        shifted = np.ones_like(running) if product else np.zeros_like(running)
        head = [slice(None)] * x.ndim
        tail = [slice(None)] * x.ndim
        head[axis] = slice(1, None)
        tail[axis] = slice(None, -1)
        shifted[tuple(head)] = running[tuple(tail)]
        running = shifted
    np.copyto(output, np.flip(running, axis) if reverse else running)


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "cumsum"
# pragma IMAGINET_DEPENDENCY "cumulative.py:cumulate"
def cumsum(x, axis, exclusive, reverse, output):
    cumulate(x, axis, exclusive, reverse, output, False)


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "cumprod"
# pragma IMAGINET_DEPENDENCY "cumulative.py:cumulate"
def cumprod(x, axis, exclusive, reverse, output):
    cumulate(x, axis, exclusive, reverse, output, True)


# pragma IMAGINET_FRAGMENT_END
