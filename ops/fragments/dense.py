# Python twin of dense.h: the sums in float64, the bias added last, each
# result rounded to the inputs' dtype as it is stored.
# pragma IMAGINET_INCLUDES_BEGIN
import numpy as np

# pragma IMAGINET_INCLUDES_END


# pragma IMAGINET_FRAGMENT_BEGIN "linear"
def linear(x, weights, bias, output):
    """x @ weights + bias over the last axis of x."""
    with np.errstate(all="ignore"):
        t = np.matmul(x.astype(np.float64), weights.astype(np.float64))
        np.copyto(output, (t + bias.astype(np.float64)).astype(output.dtype))


# pragma IMAGINET_FRAGMENT_END
