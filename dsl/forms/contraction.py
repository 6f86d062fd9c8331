"""Einsum: a contraction in OCANNL's notation."""

from __future__ import annotations

from typing import Any

import attrs

from dsl.einsum import EinsumSpec

@attrs.frozen
class Contraction:
    spec: EinsumSpec
    inputs: tuple[str, ...]

    kind = "contraction"
