"""Constraint expressions as C conditions inside a generated API function."""

from __future__ import annotations

from dsl import expr as E
from dsl.model import Arg, Op
from generators import abi
from generators.formatting import c_string
from generators.kernels.infix import InfixRenderer


class CConstraintRenderer(InfixRenderer):
    """Renders with the API function's parameter names; configs are read from
    the local ``cfg_<Name>`` copies that hold their defaults."""

    def __init__(self, op: Op) -> None:
        self.op = op

    def _arg(self, ref: E.ParamRef) -> Arg | None:
        found = self.op.param(ref)
        return found if isinstance(found, Arg) else None

    def render_paramref(self, node: E.ParamRef) -> str:
        if node.config is not None:
            return f"cfg_{node.config}.{abi.c_name(node.name)}"
        name = abi.c_name(node.name)
        arg = self._arg(node)
        if arg is not None and arg.default is None and arg.count.is_single:
            return f"(*{name})"
        return name

    def render_literal(self, node: E.Literal) -> str:
        v = node.value
        if v is None:
            return "NULL"
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int):
            return f"INT64_C({v})"
        if isinstance(v, float):
            return repr(v)
        return c_string(v)

    def render_rank(self, node: E.Rank) -> str:
        return f"((int64_t){abi.c_name(node.input.name)}->rank)"

    def render_sizeat(self, node: E.SizeAt) -> str:
        return f"opf_size_at({abi.c_name(node.input.name)}, {self.render(node.axis)})"

    def render_compare(self, node: E.Compare) -> str:
        node = E.resolve_enum(node, self.op.enums)
        for ref, lit in ((node.left, node.right), (node.right, node.left)):
            if isinstance(ref, E.ParamRef) and isinstance(lit, E.Literal) and lit.value is None:
                return f"({abi.c_name(ref.name)} {node.op} NULL)"
        return super().render_compare(node)

    def name(self, ref: E.ParamRef) -> str:
        return abi.c_name(ref.name)

    def render_sametype(self, node: E.SameType) -> str:
        return self.pairs("({0}->dtype == {1}->dtype)", node.inputs)

    def render_sameshape(self, node: E.SameShape) -> str:
        return self.pairs("opf_same_shape({0}, {1})", node.inputs)

    def render_broadcastableshapes(self, node: E.BroadcastableShapes) -> str:
        return self.all_pairs("opf_broadcastable({0}, {1})", node.inputs)
