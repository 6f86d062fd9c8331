# Python twin of attention.h: the same operations in float64, one matrix of
# scores per batch (and head), rounded to the inputs' dtype as the result is stored.
# pragma IMAGINET_INCLUDES_BEGIN
import math

import numpy as np

# pragma IMAGINET_INCLUDES_END


# pragma IMAGINET_FRAGMENT_BEGIN "attend"
def seen_keys(lq, lk, causal, offset=0, left=-1, right=-1):
    """Which keys each query sees (lq x lk booleans): query i stands at position p = i + offset;
    causal hides the keys after p, left >= 0 those more than left before p, right >= 0 those
    more than right after p."""
    p = np.arange(lq)[:, None] + offset
    j = np.arange(lk)[None, :]
    seen = np.ones((lq, lk), bool)
    if causal:
        seen &= j <= p
    if left >= 0:
        seen &= j >= p - left
    if right >= 0:
        seen &= j <= p + right
    return seen


def capped_scores(q, k, scale, softcap):
    """q k^T * scale for float64 matrices, capped by softcap tanh(score / softcap) where
    softcap > 0."""
    with np.errstate(all="ignore"):
        scores = (q @ k.T) * scale
        return softcap * np.tanh(scores / softcap) if softcap > 0.0 else scores


def softmax_weights(scores, seen):
    """exp(score - the row's largest) where seen, else 0 (the largest taken as 0 when
    infinite: a row of -inf weighs nothing; a NaN makes its row NaN), and each row's sum."""
    with np.errstate(all="ignore"):
        scores = np.where(seen, scores, -np.inf)
        m = scores.max(axis=1, keepdims=True, initial=-np.inf)
        m = np.where(np.isinf(m), 0.0, m)
        w = np.where(seen, np.exp(scores - m), 0.0)
        return w, w.sum(axis=1, keepdims=True)


def attend(q, k, v, scale, causal, softcap=0.0, offset=0, left=-1, right=-1, mask=None):
    """softmax(q k^T * scale + mask) v for float64 matrices, over the keys seen_keys gives each
    query; the scores capped (capped_scores) before the mask, whose -inf leaves a score unread.
    A query with no key to see gives 0.
    """
    seen = seen_keys(q.shape[0], k.shape[0], causal, offset, left, right)
    scores = capped_scores(q, k, scale, softcap)
    if mask is not None:
        seen &= mask != -np.inf
        scores = scores + mask
    w, total = softmax_weights(scores, seen)
    with np.errstate(all="ignore"):
        return np.where(total != 0.0, (w @ v) / np.where(total != 0.0, total, 1.0), 0.0)


def batches(*tensors):
    """The batches of each tensor (queries, keys, values, ...) as float64 arrays of matrices."""
    batch = math.prod(tensors[0].shape[:-2])
    return tuple(t.reshape(batch, *t.shape[-2:]).astype(np.float64) for t in tensors)


def scores_scale(d, scaled, scale_by):
    """1 / sqrt(d) when scaled (and d > 0), times scale_by."""
    return (1.0 / math.sqrt(d) if scaled and d > 0 else 1.0) * scale_by


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "attention"
# pragma IMAGINET_DEPENDENCY "attention.py:attend"
def attention(
    queries,
    keys,
    values,
    scaled,
    causal,
    scale_by,
    softcap,
    offset,
    left,
    right,
    output,
    mask=None,
):
    """softmax(cap(Q K^T / sqrt(d) * scale_by) + mask) V per batch, over the keys each query sees
    (no mask: none added)."""
    q, k, v = batches(queries, keys, values)
    m = batches(mask)[0] if mask is not None else [None] * q.shape[0]
    out = output.reshape(q.shape[0], q.shape[1], v.shape[2])
    scale = scores_scale(q.shape[2], scaled, scale_by)
    for s in range(q.shape[0]):
        out[s] = attend(q[s], k[s], v[s], scale, causal, softcap, offset, left, right, m[s])


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "masked_attention"
# pragma IMAGINET_DEPENDENCY "attention.py:attention"
def masked_attention(
    queries,
    keys,
    values,
    mask,
    scaled,
    causal,
    scale_by,
    softcap,
    offset,
    left,
    right,
    output,
):
    """attention with an additive mask (the op's inputs in its order)."""
    attention(
        queries,
        keys,
        values,
        scaled,
        causal,
        scale_by,
        softcap,
        offset,
        left,
        right,
        output,
        mask,
    )


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
    scale = scores_scale(dk, scaled, 1.0)
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


# pragma IMAGINET_FRAGMENT_BEGIN "attention_scores"
# pragma IMAGINET_DEPENDENCY "attention.py:attend"
def attention_scores(
    queries,
    keys,
    mask,
    scaled,
    causal,
    scale_by,
    softcap,
    offset,
    left,
    right,
    stage,
    output,
):
    """Per batch, the scores of masked attention at a stage: "product", "capped", "masked" (-inf
    where the query does not see the key) or "softmax" (the values' weights)."""
    q, k, m = batches(queries, keys, mask)
    out = output.reshape(m.shape)
    scale = scores_scale(q.shape[2], scaled, scale_by)
    for s in range(q.shape[0]):
        scores = capped_scores(q[s], k[s], scale, softcap if stage != "product" else 0.0)
        seen = seen_keys(q.shape[1], k.shape[1], causal, offset, left, right)
        if stage in ("product", "capped"):
            out[s] = scores
            continue
        with np.errstate(all="ignore"):
            masked = np.where(seen, scores + m[s], -np.inf)
        if stage == "masked":
            out[s] = masked
            continue
        w, total = softmax_weights(masked, seen & (m[s] != -np.inf))
        out[s] = np.where(total != 0.0, w / np.where(total != 0.0, total, 1.0), 0.0)


# pragma IMAGINET_FRAGMENT_END
