# Python twins of order.h: the elements in row-major order give one bool.
# pragma IMAGINET_INCLUDES_BEGIN
import numpy as np

# pragma IMAGINET_INCLUDES_END


# pragma IMAGINET_FRAGMENT_BEGIN "is_non_decreasing"
def is_non_decreasing(x, output):
    """Every element <= the next one (NaN fails); true for fewer than two elements."""
    flat = x.reshape(-1)
    output[...] = bool(np.all(flat[:-1] <= flat[1:]))


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "is_strictly_increasing"
def is_strictly_increasing(x, output):
    """Every element < the next one (NaN fails); true for fewer than two elements."""
    flat = x.reshape(-1)
    output[...] = bool(np.all(flat[:-1] < flat[1:]))


# pragma IMAGINET_FRAGMENT_END
