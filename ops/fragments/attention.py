# Python twin of attention.h: the same operations in float64, one matrix of
# scores per batch, rounded to the inputs' dtype as the result is stored.
# pragma IMAGINET_INCLUDES_BEGIN
import math

import numpy as np

# pragma IMAGINET_INCLUDES_END


# pragma IMAGINET_FRAGMENT_BEGIN "attention"
def attention(queries, keys, values, scaled, causal, output):
    """softmax(Q K^T / sqrt(d)) V per batch; query i sees keys 0..i when causal.
    Shifted by the largest score of each row (0 when infinite); no key gives 0.
    """
    lq, d = queries.shape[-2:]
    lk, dv = values.shape[-2:]
    batch = math.prod(queries.shape[:-2])
    q = queries.reshape(batch, lq, d).astype(np.float64)
    k = keys.reshape(batch, lk, d).astype(np.float64)
    v = values.reshape(batch, lk, dv).astype(np.float64)
    out = output.reshape(batch, lq, dv)
    scale = 1.0 / math.sqrt(d) if scaled and d > 0 else 1.0
    seen = (
        np.arange(lk)[None, :] <= np.arange(lq)[:, None]
        if causal
        else np.ones((lq, lk), bool)
    )
    with np.errstate(all="ignore"):
        for s in range(batch):
            scores = np.where(seen, (q[s] @ k[s].T) * scale, -np.inf)
            m = scores.max(axis=1, keepdims=True) if lk else np.zeros((lq, 1))
            m = np.where(np.isinf(m), 0.0, m)
            w = np.where(seen, np.exp(scores - m), 0.0)
            total = w.sum(axis=1, keepdims=True)
            out[s] = (w @ v[s]) / total if lk else 0.0


# pragma IMAGINET_FRAGMENT_END
