"""TensorDot: numpy.tensordot over axes given as int-list args."""

from __future__ import annotations

from typing import Any

import attrs

from dsl.forms.checks import Check
from dsl.types import DataType

@attrs.frozen
class TensorDot:
    """numpy.tensordot of the two ``inputs`` over the axes that the int-list
    args ``axes`` (of the first, of the second) name in pairs: ND4J's
    tensorMmul. The boolean args ``transposes`` reverse the axes of the first
    and the second input before (the axes name axes of the reversed tensors)
    and of the result after, as ND4J's transpose of an N-d array does. The
    result holds the free axes of the first, then those of the second; the
    einsum labels are built at run time."""

    inputs: tuple[str, str]
    axes: tuple[str, str]
    transposes: tuple[str, str, str]

    kind = "tensordot"

    def problems(self, op: Any, check: Check) -> None:
        for name in self.inputs:
            check.need_input(name)
        if len(op.inputs) != 2:
            check.add("a tensordot takes exactly its two inputs")
        for name in self.axes:
            check.need_arg(name, (DataType.INT, DataType.LONG), True, "axes to contract")
        for name in self.transposes:
            check.need_arg(name, (DataType.BOOLEAN,), False, "whether to reverse the axes")
        first = check.inputs.get(self.inputs[0])
        if first is not None and op.outputs and op.outputs[0].type is not first.type:
            check.add(f"the output has the type of {first.name} ({first.type.value})")
