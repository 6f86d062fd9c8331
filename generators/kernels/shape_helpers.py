"""The two shape rules that rendered Python shape expressions call (``dsl/shapes.py``'s
``Broadcast`` and ``BroadcastableShapes``): imported by the generation-time evaluator,
and copied into the NNEF target's shape functions.

Shapes are tuples or lists of ints.
"""


def shapes_broadcast(shapes, strict):
    """NumPy broadcasting of ``shapes`` (or, ``strict``, TML's: equal shapes or scalars);
    the caller has checked that they broadcast."""
    if strict:
        wide = [tuple(s) for s in shapes if len(s) != 0]
        return wide[0] if wide else ()
    rank = max((len(s) for s in shapes), default=0)
    out = [1] * rank
    for s in shapes:
        for i, n in enumerate(s):
            j = rank - len(s) + i
            out[j] = n if out[j] == 1 else out[j]
    return tuple(out)


def shapes_fit(shapes, strict):
    """Whether ``shapes`` broadcast together (``strict``: are equal, or scalars)."""
    if strict:
        wide = [tuple(s) for s in shapes if len(s) != 0]
        return all(s == wide[0] for s in wide)
    rank = max((len(s) for s in shapes), default=0)
    for j in range(1, rank + 1):
        sizes = {s[-j] for s in shapes if len(s) >= j} - {1}
        if len(sizes) > 1:
            return False
    return True
