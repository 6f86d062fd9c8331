"""Einsum: a contraction in OCANNL's notation."""

from __future__ import annotations

from typing import Any

import attrs

from dsl.forms.checks import Check

from dsl.einsum import EinsumSpec

@attrs.frozen
class Contraction:
    spec: EinsumSpec
    inputs: tuple[str, ...]

    kind = "contraction"

    def problems(self, op: Any, check: Check) -> None:
        if len(self.inputs) != len(self.spec.inputs):
            check.add(f"einsum spec {self.spec.text!r} takes {len(self.spec.inputs)} operands, "
                      f"the op gives {len(self.inputs)}")
        for name in self.inputs:
            check.need_input(name)
