# Python twins of sets.h: results of a data-dependent length fill a buffer of the
# largest possible length from its start, zeros after the count they report.
# pragma IMAGINET_INCLUDES_BEGIN
import numpy as np

# pragma IMAGINET_INCLUDES_END


# pragma IMAGINET_FRAGMENT_BEGIN "list_diff"
def list_diff(x, y, values, indices, count):
    """The elements of x equal to no element of y, in order, and their indices (NaN equals nothing)."""
    kept = np.flatnonzero(~np.isin(x, y))
    values[...] = 0
    indices[...] = 0
    values[: kept.size] = x[kept]
    indices[: kept.size] = kept
    count[...] = kept.size


# pragma IMAGINET_FRAGMENT_END
