"""Constraint expressions as C conditions inside a generated API function."""

from __future__ import annotations

from dsl import expr as E
from dsl.model import Arg, Op
from generators import abi
from generators.formatting import c_string


class CConstraintRenderer(E.Renderer):
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
        left, right = node.left, node.right
        for ref, lit in ((left, right), (right, left)):
            if isinstance(ref, E.ParamRef) and isinstance(lit, E.Literal):
                arg = self._arg(ref)
                if lit.value is None:
                    return f"({abi.c_name(ref.name)} {node.op} NULL)"
                if isinstance(lit.value, str) and arg is not None:
                    index = arg.possible_values.index(lit.value)
                    return f"({self.render(ref)} {node.op} {index})"
        return f"({self.render(left)} {node.op} {self.render(right)})"

    def render_arith(self, node: E.Arith) -> str:
        op = "/" if node.op == "//" else node.op
        return f"({self.render(node.left)} {op} {self.render(node.right)})"

    def render_neg(self, node: E.Neg) -> str:
        return f"(-{self.render(node.operand)})"

    def render_allof(self, node: E.AllOf) -> str:
        return "(" + " && ".join(self.render(t) for t in node.terms) + ")"

    def render_anyof(self, node: E.AnyOf) -> str:
        return "(" + " || ".join(self.render(t) for t in node.terms) + ")"

    def render_not(self, node: E.Not) -> str:
        return f"(!{self.render(node.term)})"

    def _pairs(self, fn: str, refs: tuple[E.ParamRef, ...]) -> str:
        first = abi.c_name(refs[0].name)
        return "(" + " && ".join(fn.format(first, abi.c_name(r.name)) for r in refs[1:]) + ")"

    def render_sametype(self, node: E.SameType) -> str:
        return self._pairs("({0}->dtype == {1}->dtype)", node.inputs)

    def render_sameshape(self, node: E.SameShape) -> str:
        return self._pairs("opf_same_shape({0}, {1})", node.inputs)

    def render_broadcastableshapes(self, node: E.BroadcastableShapes) -> str:
        names = [abi.c_name(r.name) for r in node.inputs]
        return "(" + " && ".join(f"opf_broadcastable({a}, {b})" for i, a in enumerate(names)
                                 for b in names[i + 1:]) + ")"
