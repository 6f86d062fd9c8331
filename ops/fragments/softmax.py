# Hand-written softmax and log-softmax references (Imaginet Python fragments).
# pragma IMAGINET_INCLUDES_BEGIN
import numpy as np

# pragma IMAGINET_INCLUDES_END


# pragma IMAGINET_FRAGMENT_BEGIN "softmax_rows"
def softmax_rows(x, axis, log):
    """Each row along axis shifted by its maximum (0 when not finite); exp of
    the shifted values and their sum in float64, as the C kernels keep it."""
    with np.errstate(all="ignore"):
        m = np.max(x, axis=axis, keepdims=True)
        m = np.where(np.isinf(m), 0, m).astype(x.dtype)
        shifted = x - m
        e = np.exp(shifted)
        total = np.sum(e.astype(np.float64), axis=axis, keepdims=True)
        if log:
            return (shifted.astype(np.float64) - np.log(total)).astype(x.dtype)
        return (e.astype(np.float64) / total).astype(x.dtype)


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "softmax"
# pragma IMAGINET_DEPENDENCY "softmax.py:softmax_rows"
def softmax(x, axis, output):
    if x.size:
        np.copyto(output, softmax_rows(x, axis, False))


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "log_softmax"
# pragma IMAGINET_DEPENDENCY "softmax.py:softmax_rows"
def log_softmax(x, axis, output):
    if x.size:
        np.copyto(output, softmax_rows(x, axis, True))


# pragma IMAGINET_FRAGMENT_END
