"""Random: samples of a distribution from the Philox4x32-10 stream."""

from __future__ import annotations

from typing import Any

import attrs

@attrs.frozen
class RandomSample:
    """Samples of ``distribution`` with parameters from the named args."""

    distribution: str
    params: tuple[tuple[str, str], ...]  # (distribution parameter, arg name)

    kind = "random"


RANDOM_DISTRIBUTIONS: dict[str, tuple[str, ...]] = {
    "uniform": ("low", "high"),
    "normal": ("mean", "stddev"),
    "bernoulli": ("p",),
    "binomial": ("n", "p"),
    "exponential": ("rate",),
    "log_normal": ("mean", "stddev"),
    "truncated_normal": ("mean", "stddev"),
}
