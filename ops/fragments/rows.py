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
