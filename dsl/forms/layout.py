"""Layout: elements moved without arithmetic (reshape, permute, slice, pad, gather, ...)."""

from __future__ import annotations

from typing import Any

import attrs

from dsl.forms.checks import Check

@attrs.frozen
class LayoutMove:
    """Elements of ``input`` moved, not computed: reshape, permute, slice, pad, ...

    ``params`` maps each role the kind takes (:data:`LAYOUT_ROLES`) to the
    op's arg that gives it.
    """

    layout: str
    input: str
    params: tuple[tuple[str, str], ...]

    kind = "layout"

    def arg(self, role: str) -> str:
        return dict(self.params)[role]

    def problems(self, op: Any, check: Check) -> None:
        check.need_input(self.input)
        check.roles("layout", self.layout, LAYOUT_ROLES, self.params, self.input)
        if self.input in check.inputs and op.outputs and op.outputs[0].type is not check.inputs[self.input].type:
            check.add(f"a layout's output has the type of its input ({check.inputs[self.input].type.value})")

#: Layout kinds -> the roles they take: (role, "list" | "int" | "enum" | "float" | "tensor" | "values").
#: A "tensor" role names a LONG input (gather's indices), a "values" role an
#: input of the moved tensor's type (set_diag's diagonal).
LAYOUT_ROLES: dict[str, tuple[tuple[str, str], ...]] = {
    "reshape": (("shape", "list"),),
    "permute": (("perm", "list"),),
    "transpose": (),
    "squeeze": (("axis", "int"),),
    "expand_dims": (("axis", "int"),),
    "narrow": (),
    "reverse": (("axes", "list"),),
    "tile": (("repeats", "list"),),
    "slice": (("begin", "list"), ("size", "list")),
    "strided_slice": (("begin", "list"), ("end", "list"), ("strides", "list")),
    "pad": (("paddings", "list"), ("mode", "enum"), ("value", "float")),
    "gather": (("indices", "tensor"), ("axis", "int")),
    "gather_nd": (("indices", "tensor"),),
    "reverse_sequence": (("seq_lengths", "tensor"), ("seq_axis", "int"), ("batch_axis", "int")),
    "diag": (),
    "set_diag": (("diagonal", "values"),),
}
#: Layouts whose indices are data: a runtime copy, not a plan (the C function checks every index).
DATA_LAYOUTS = ("gather", "gather_nd", "reverse_sequence", "diag", "set_diag")

#: The values a pad's mode arg must offer, in this order (the kernels number them so).
PAD_MODES = ("constant", "reflect", "symmetric")
