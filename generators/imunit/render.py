"""DSL constraint expressions in Imaginet's expression language.

Imaginet counts axes from the right, so ``x.size_at(i)`` becomes
``x.shape.size(x.shape.count - 1 - i)`` (``x.shape.size(-i - 1)`` for a
negative ``i``), guarded to give -1 outside the rank as C and Python do. ``broadcastable_shapes`` uses opforge's extension
``Shape.broadcastable(other)`` (the language has no way to say it).
"""

from __future__ import annotations

from dsl import expr as E
from dsl.model import Op
from generators.kernels.infix import InfixRenderer

# Binding strength in the expression language, loosest first.
_PRECEDENCE = {"?:": 0, "||": 1, "&&": 1, "==": 2, "!=": 2, "<": 3, ">": 3, "<=": 3, ">=": 3,
               "+": 5, "-": 5, "*": 6, "/": 6, "%": 6}


def expression_string(value: str) -> str:
    """``value`` as a string of the expression language, which has no escapes: quoted with
    whichever quote it lacks, or, holding both, joined from pieces with ``+``."""
    if '"' not in value:
        return f'"{value}"'
    if "'" not in value:
        return f"'{value}'"
    return "(" + " + '\"' + ".join(f'"{piece}"' for piece in value.split('"')) + ")"


class ImaginetRenderer(InfixRenderer):
    def __init__(self, op: Op) -> None:
        self.op = op

    def render_paramref(self, node: E.ParamRef) -> str:
        return f"{node.config}_{node.name}" if node.config else node.name

    def render_literal(self, node: E.Literal) -> str:
        v = node.value
        if v is None:
            return "null"
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int):
            return str(v) if v >= 0 else f"(-{-v})"
        if isinstance(v, float):
            text = format(v, ".17g") if abs(v) >= 1e-4 or v == 0 else f"{v:.20f}".rstrip("0")
            text = text if any(c in text for c in ".e") else text + ".0"
            return text if v >= 0 else f"({text})"
        return expression_string(v)

    def render_rank(self, node: E.Rank) -> str:
        return f"{node.input.name}.shape.count"

    def render_sizeat(self, node: E.SizeAt) -> str:
        x = node.input.name
        axis = node.axis
        # Outside the rank the size is -1, as in C and Python.
        if isinstance(axis, E.Literal) and isinstance(axis.value, int):
            i = axis.value
            if i < 0:
                return f"({x}.shape.count >= {-i} ? {x}.shape.size({-i - 1}) : -1)"
            return f"({x}.shape.count > {i} ? {x}.shape.size({x}.shape.count - {i + 1}) : -1)"
        a = self.render(axis)
        return (f"({a} < 0 ? ({x}.shape.count >= -{a} ? {x}.shape.size(-{a} - 1) : -1) : "
                f"({x}.shape.count > {a} ? {x}.shape.size({x}.shape.count - 1 - {a}) : -1))")

    def render_sametype(self, node: E.SameType) -> str:
        return self.pairs("{0}.type == {1}.type", node.inputs)

    def render_sameshape(self, node: E.SameShape) -> str:
        return self.pairs("{0}.shape == {1}.shape", node.inputs)

    def render_broadcastableshapes(self, node: E.BroadcastableShapes) -> str:
        return self.all_pairs("{0}.shape.broadcastable({1}.shape)", node.inputs)
