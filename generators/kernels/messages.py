"""Error texts that the C API and the Python bindings share word for word."""

from __future__ import annotations

from dsl import compute as C


def scatter_messages(c: C.ScatterRows) -> dict[str, str]:
    """The errors of a scatter, naming the op's tensors: the same words in C and Python."""
    ind, upd = c.indices, c.updates
    if c.ref is not None:
        value_range = f"{ind}: values must lie in -n..n-1 for the n rows of {c.ref}"
    else:
        value_range = f"{ind}: values must lie in 0..{c.rows}-1"
    return {
        "prefix": f"{upd}: its first axes must be the shape of {ind}",
        "rank": f"{c.ref}: must have rank 1 or more",
        "rows": f"{upd}: the axes after those of {ind} must be the axes of {c.ref} after its first",
        "count": f"{c.rows}: must be 0 or more",
        "max_rank": f"{upd}: the result's rank would be above OPFORGE_MAX_RANK",
        "range": value_range,
        "sorted": f"{ind}: must be sorted (non-decreasing)",
    }
