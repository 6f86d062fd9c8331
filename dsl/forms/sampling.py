"""Random: samples of a distribution from the Philox4x32-10 stream."""

from __future__ import annotations

from typing import Any

import attrs

from dsl import shapes as Sh

from dsl.forms.checks import Check
from dsl.types import DataType

@attrs.frozen
class RandomSample:
    """Samples of ``distribution`` with parameters from the named args."""

    distribution: str
    params: tuple[tuple[str, str], ...]  # (distribution parameter, arg name)

    kind = "random"

    def problems(self, op: Any, check: Check) -> None:
        wanted = RANDOM_DISTRIBUTIONS.get(self.distribution)
        if wanted is None:
            check.add(f"unknown distribution {self.distribution!r} (known: {', '.join(RANDOM_DISTRIBUTIONS)})")
        else:
            given = dict(self.params)
            if sorted(given) != sorted(wanted):
                check.add(f"{self.distribution} takes parameters {', '.join(wanted)}, "
                          f"got {', '.join(sorted(given)) or 'none'}")
            for name in given.values():
                if check.scalar_arg(name) is None:
                    check.add(f"distribution parameter arg '{name}' must be a single-valued arg")
        check.need_arg("shape", (DataType.INT, DataType.LONG), True, "shape of the result")
        check.need_arg("dtype", (DataType.DATA_TYPE,), False, "element type of the result")
        check.plain_dtype("dtype")
        seeds = [p.name for cfg in op.configs for p in cfg.args] + list(check.args)
        for name in ("seed", "offset"):
            if name not in seeds:
                check.add(f"random ops need a LONG arg '{name}' (directly or from a config)")

    def output_shapes(self, op: Any) -> tuple[Any, ...]:
        return (Sh.ArgShape(Sh.arg("shape")),)

    def refusals(self, op: Any) -> tuple[Sh.Refusal, ...]:
        shape = Sh.arg("shape")
        return (Sh.Refusal(f"shape: more axes than the maximum rank {Sh.MAX_RANK}",
                           Sh.compare(Sh.Length(shape), "<=", Sh.MAX_RANK)),
                Sh.Refusal("shape: sizes must not be negative",
                           Sh.AllValues(shape, Sh.compare(Sh.Value(), ">=", 0))))

    def value_refusals(self, op: Any) -> tuple[str, ...]:
        return ()

RANDOM_DISTRIBUTIONS: dict[str, tuple[str, ...]] = {
    "uniform": ("low", "high"),
    "normal": ("mean", "stddev"),
    "bernoulli": ("p",),
    "binomial": ("n", "p"),
    "exponential": ("rate",),
    "log_normal": ("mean", "stddev"),
    "truncated_normal": ("mean", "stddev"),
}
