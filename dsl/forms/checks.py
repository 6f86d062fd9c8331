"""What a form's validation uses: the op's parameters by name, and the problems found.

Each form's ``problems(op, check)`` adds messages (without a location: the caller puts
them at the line that declared the compute) through the methods here, which say the
same thing the same way for every form.
"""

from __future__ import annotations

from typing import Any, Mapping

from dsl import scalar as S
from dsl.types import DataType

class Check:
    def __init__(self, op: Any, kind: str) -> None:
        self.op = op
        self.kind = kind
        self.inputs = {i.name: i for i in op.inputs}
        self.args = {a.name: a for a in op.args}
        self.out: list[str] = []

    def add(self, message: str) -> None:
        self.out.append(message)

    def scalar_arg(self, name: str) -> Any:
        """The single-valued arg ``name``, or None."""
        arg = self.args.get(name)
        return arg if arg is not None and arg.count.is_single else None

    def need_arg(self, name: str, types: tuple[Any, ...], array: bool, what: str) -> None:
        arg = self.args.get(name)
        if arg is None:
            self.add(f"{self.kind} needs an arg '{name}' ({what})")
        elif arg.type not in types or arg.count.is_single == array:
            shape = "a list" if array else "a single value"
            self.add(f"arg '{name}' must be {shape} of type {' or '.join(t.value for t in types)} ({what})")

    def plain_dtype(self, name: str) -> None:
        """The DATA_TYPE arg ``name`` defaults to a plain dtype: only a conversion makes a
        fixed-point type (ADR 0068)."""
        from dsl.fixed_point import TYPES

        arg = self.args.get(name)
        if arg is not None and arg.type is DataType.DATA_TYPE and arg.default in TYPES:
            self.add(f"arg '{name}' defaults to {arg.default!r}, a fixed-point type, which {self.kind} does not "
                     "make (a conversion, math.quantize, does)")

    def need_input(self, name: str) -> None:  # (a list input is reported once, by the caller)
        if name not in self.inputs:
            self.add(f"{self.kind} needs an input '{name}'")

    def functions_known(self, node: Any, allowed_symbols: set[str], where: str) -> None:
        unknown = S.symbols(node) - allowed_symbols
        if unknown:
            self.add(f"{where} uses unknown names {', '.join(sorted(unknown))}")

    def enums_resolve(self, node: Any) -> None:
        try:
            S.resolve_enums(node, self.op.enums)
        except ValueError as exc:
            self.add(str(exc))

    def map_ok(self, node: Any, map_args: tuple[str, ...]) -> None:
        """A traced map or predicate: its args are single-valued and not optional, its names
        and functions known, its enum comparisons resolvable."""
        for name in map_args:
            if self.scalar_arg(name) is None or self.args[name].default is None:
                self.add(f"map parameter '{name}' must be x or a single-valued arg that is not optional")
        if node is None:
            return
        self.functions_known(node, {"x", *map_args}, "map")
        self.out.extend(S.integer_misuse(node))
        self.enums_resolve(node)

    def roles(self, label: str, kind: str, table: Mapping[str, tuple[tuple[str, str], ...]],
              params: tuple[tuple[str, str], ...], source: str | None = None) -> None:
        """The kind is known, takes the roles given, and each role's arg or input has the right
        type (``source``: the input whose type a "values" role must have)."""
        roles = table.get(kind)
        if roles is None:
            self.add(f"unknown {label} {kind!r} (known: {', '.join(table)})")
            roles = ()
        known_roles = {r for r, _ in roles}
        for role, _ in params:
            if role not in known_roles:
                self.add(f"{label} {kind} has no role {role!r} (roles: {', '.join(sorted(known_roles)) or 'none'})")
        given = dict(params)
        for role, what in roles:
            name, purpose = given[role], f"{role} of the {kind}"
            if what in ("list", "int"):
                self.need_arg(name, (DataType.INT, DataType.LONG), what == "list", purpose)
            elif what == "float":
                self.need_arg(name, (DataType.FLOATING_POINT, DataType.NUMERIC), False, purpose)
            elif what == "bool":
                self.need_arg(name, (DataType.BOOLEAN,), False, purpose)
            elif what == "any":
                self.need_input(name)
            elif what == "tensor":
                self.need_input(name)
                if name in self.inputs and self.inputs[name].type is not DataType.LONG:
                    self.add(f"input '{name}' must be LONG ({purpose})")
            elif what == "values":
                self.need_input(name)
                if name in self.inputs and source in self.inputs and \
                        self.inputs[name].type is not self.inputs[source].type:
                    self.add(f"input '{name}' must have the type of {source} ({purpose})")
            else:
                from dsl.forms.layout import LAYOUT_ENUMS

                self.need_arg(name, (DataType.ENUM,), False, purpose)
                values = LAYOUT_ENUMS[(kind, role)]
                if name in self.args and tuple(self.args[name].possible_values) != values:
                    self.add(f"arg '{name}' must offer {', '.join(values)}, in this order")
