# Python twin of dropout.h, on the runtime's Philox stream (_k.random_block, _k.unit53).
# pragma IMAGINET_INCLUDES_BEGIN
import numpy as np

# pragma IMAGINET_INCLUDES_END


# pragma IMAGINET_FRAGMENT_BEGIN "dropout"
def dropout(x, p, seed, offset, training, output):
    """Element i is dropped where uniform (seed, offset + i) < p, else scaled by 1 / (1 - p);
    outside training, copied."""
    if not training:
        output[...] = x
        return
    w = _k.random_block(
        seed, offset, x.size, 0
    )  # noqa: F821 - the runtime, as in every reference
    keep = (_k.unit53(w[0], w[1]) >= p).reshape(x.shape)  # noqa: F821
    with np.errstate(all="ignore"):
        output[...] = np.where(keep, x.astype(np.float64) * (1.0 / (1.0 - p)), 0.0)


# pragma IMAGINET_FRAGMENT_END
