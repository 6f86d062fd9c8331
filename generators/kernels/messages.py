"""Error texts that the C API and the Python bindings share word for word."""

from __future__ import annotations

from dsl import compute as C


def scatter_messages(c: C.ScatterRows) -> dict[str, str]:
    """The value errors of a scatter, naming the op's tensors: the same words in C and Python
    (its shape errors are its form's refusals)."""
    ind = c.indices
    if c.ref is not None:
        value_range = f"{ind}: values must lie in -n..n-1 for the n rows of {c.ref}"
    else:
        value_range = f"{ind}: values must lie in 0..{c.rows}-1"
    return {
        "range": value_range,
        "sorted": f"{ind}: must be sorted (non-decreasing)",
    }
