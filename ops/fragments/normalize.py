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
