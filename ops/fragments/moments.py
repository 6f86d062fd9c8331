# Python twin of moments.h: the same arithmetic in float64, rounded as stored.
# pragma IMAGINET_INCLUDES_BEGIN
import numpy as np

# pragma IMAGINET_INCLUDES_END


# pragma IMAGINET_FRAGMENT_BEGIN "normalize_moments"
def normalize_moments(means, variances, counts, shift, mean, variance):
    """mean = means / counts + shift, variance = variances / counts - (means / counts)^2."""
    with np.errstate(all="ignore"):
        m = means.astype(np.float64) / counts
        mean[...] = m + shift
        variance[...] = variances.astype(np.float64) / counts - m * m


# pragma IMAGINET_FRAGMENT_END
