"""Generate: a tensor made from args (fill, range, eye, ...) or placed by an input's values."""

from __future__ import annotations

from typing import Any

import attrs

from dsl import defaults
from dsl.forms.checks import Check
from dsl.types import DataType

@attrs.frozen
class Generation:
    """A tensor made from args alone (fill, range, linspace, eye), or from the
    values of an input (one_hot, sequence_mask, cast), in the dtype the op's
    ``dtype`` arg names. ``params`` maps each role of the kind
    (:data:`GENERATE_ROLES`) to the op's arg that gives it."""

    generator: str
    params: tuple[tuple[str, str], ...]

    kind = "generation"

    def arg(self, role: str) -> str:
        return dict(self.params)[role]

    def problems(self, op: Any, check: Check) -> None:
        check.roles("generator", self.generator, GENERATE_ROLES, self.params)
        check.need_arg("dtype", (DataType.DATA_TYPE,), False, "the output's dtype")
        tensor_roles = {name for role, name in self.params
                        if dict(GENERATE_ROLES.get(self.generator, ())).get(role) in ("tensor", "any")}
        # An input may also be what an arg's default reads (full_like: the shape and dtype of x).
        read = {defaults.source(a.default).name for a in op.args if defaults.is_computed(a)}  # type: ignore[arg-type]
        for i in op.inputs:
            if i.name not in tensor_roles | read:
                check.add("a generated tensor is made from args and its generator's tensor roles: "
                          f"input '{i.name}' is neither, nor read by an arg's default")

#: Generation kinds -> their roles: (role, "list" | "int" | "float" | "tensor" | "any").
#: A "tensor" role names a LONG input whose values place the generated ones (one_hot's indices);
#: an "any" role an input of any dtype whose values are converted (cast).
GENERATE_ROLES: dict[str, tuple[tuple[str, str], ...]] = {
    "fill": (("shape", "list"), ("value", "float")),
    "range": (("start", "float"), ("limit", "float"), ("delta", "float")),
    "linspace": (("start", "float"), ("stop", "float"), ("num", "int")),
    "eye": (("rows", "int"), ("cols", "int")),
    "tri": (("rows", "int"), ("cols", "int"), ("diag", "int")),
    "one_hot": (("indices", "tensor"), ("depth", "int"), ("axis", "int"), ("on", "float"), ("off", "float")),
    "sequence_mask": (("lengths", "tensor"), ("maxlen", "int")),
    "cast": (("input", "any"),),
}
