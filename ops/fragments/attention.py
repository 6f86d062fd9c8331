# Python twin of attention.h: the same operations in float64, one matrix of
# scores per batch (and head), rounded to the inputs' dtype as the result is stored.
# pragma IMAGINET_INCLUDES_BEGIN
import math

import numpy as np

# pragma IMAGINET_INCLUDES_END


# pragma IMAGINET_FRAGMENT_BEGIN "attend"
def attend(q, k, v, scale, causal, softcap=0.0):
    """softmax(q k^T * scale) v for float64 matrices; query i sees keys 0..i when causal; the
    scores capped by softcap tanh(score / softcap) where softcap > 0. Shifted by the largest
    score of each row (0 when infinite); no key gives 0.
    """
    lq, lk = q.shape[0], k.shape[0]
    if lk == 0:
        return np.zeros((lq, v.shape[1]))
    seen = (
        np.arange(lk)[None, :] <= np.arange(lq)[:, None]
        if causal
        else np.ones((lq, lk), bool)
    )
    with np.errstate(all="ignore"):
        scores = (q @ k.T) * scale
        if softcap > 0.0:
            scores = softcap * np.tanh(scores / softcap)
        scores = np.where(seen, scores, -np.inf)
        m = scores.max(axis=1, keepdims=True)
        m = np.where(np.isinf(m), 0.0, m)
        w = np.where(seen, np.exp(scores - m), 0.0)
        return (w @ v) / w.sum(axis=1, keepdims=True)


def batches(queries, keys, values):
    """The batches of queries, keys and values as float64 arrays of matrices."""
    batch = math.prod(queries.shape[:-2])
    return tuple(
        t.reshape(batch, *t.shape[-2:]).astype(np.float64)
        for t in (queries, keys, values)
    )


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "attention"
# pragma IMAGINET_DEPENDENCY "attention.py:attend"
def attention(queries, keys, values, scaled, causal, scale_by, softcap, output):
    """softmax(cap(Q K^T / sqrt(d) * scale_by)) V per batch."""
    q, k, v = batches(queries, keys, values)
    out = output.reshape(q.shape[0], q.shape[1], v.shape[2])
    d = q.shape[2]
    scale = (1.0 / math.sqrt(d) if scaled and d > 0 else 1.0) * scale_by
    for s in range(q.shape[0]):
        out[s] = attend(q[s], k[s], v[s], scale, causal, softcap)


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "multi_head_attention"
# pragma IMAGINET_DEPENDENCY "attention.py:attend"
def multi_head_attention(
    queries, keys, values, wq, wk, wv, wo, num_heads, scaled, causal, output
):
    """Per batch: project with wq, wk, wv; attend head by head on column blocks;
    join the heads and project with wo."""
    q, k, v = batches(queries, keys, values)
    lq = q.shape[1]
    out = output.reshape(q.shape[0], lq, wo.shape[1])
    dk, dv = wq.shape[1] // num_heads, wv.shape[1] // num_heads
    scale = 1.0 / math.sqrt(dk) if scaled and dk > 0 else 1.0
    weights = [w.astype(np.float64) for w in (wq, wk, wv, wo)]
    with np.errstate(all="ignore"):
        for s in range(q.shape[0]):
            qp, kp, vp = q[s] @ weights[0], k[s] @ weights[1], v[s] @ weights[2]
            joined = np.zeros((lq, wv.shape[1]))
            for h in range(num_heads):
                a, b = slice(h * dk, (h + 1) * dk), slice(h * dv, (h + 1) * dv)
                joined[:, b] = attend(qp[:, a], kp[:, a], vp[:, b], scale, causal)
            out[s] = joined @ weights[3]


# pragma IMAGINET_FRAGMENT_END
