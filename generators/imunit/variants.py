"""The dtype variants a unit implements: its op's kernels' of the dtypes units take
(``dsl.dtypes.in_units``: not float16, which the guide's type table and Studio's checker lack;
ADR 0075)."""

from __future__ import annotations

import attrs

from dsl import dtypes as D
from dsl.model import Op
from generators.kernels import c_emit, selection


def variants_of(op: Op) -> list[D.Variant]:
    return [v for v in selection.variants_of(op) if D.in_units(v.dtype)]


def unit_kernels(code: c_emit.OpCode) -> c_emit.OpCode:
    """``code`` with the plain kernels of the variants a unit implements."""
    return attrs.evolve(code, plain=tuple(k for k in code.plain
                                           if all(D.in_units(d) for _, d in k.variant.tensors)))
