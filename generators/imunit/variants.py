"""The dtype variants a unit implements: its op's kernels', less float16 (ADR 0075).

The current authoring guide's type table (section 11.2) has no Float16, and Studio's checker
refuses ``System.Float16`` in a unit (``values.EXTENSIONS``), so no unit offers it.
"""

from __future__ import annotations

import attrs

from dsl import dtypes as D
from dsl.model import Op
from generators.kernels import c_emit, selection


def variants_of(op: Op) -> list[D.Variant]:
    return [v for v in selection.variants_of(op) if v.dtype != D.HALF]


def unit_kernels(code: c_emit.OpCode) -> c_emit.OpCode:
    """``code`` with the plain kernels of the variants a unit implements."""
    return attrs.evolve(code, plain=tuple(k for k in code.plain if k.variant.dtype != D.HALF))
