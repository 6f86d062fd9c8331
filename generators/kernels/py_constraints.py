"""Constraint expressions as Python conditions: in generated bindings, and
evaluated at generation time on golden inputs (generators.kernels.evaluate)."""

from __future__ import annotations

from dsl import expr as E
from dsl.model import Op
from generators.kernels.infix import PyInfixRenderer
from generators.kernels.py_names import config_param, py_name


class PyConstraintRenderer(PyInfixRenderer):
    """Inputs are arrays, args Python values (ENUM args as their string)."""

    def __init__(self, op: Op) -> None:
        self.op = op

    def render_paramref(self, node: E.ParamRef) -> str:
        if node.config is not None:
            return f"{config_param(node.config)}.{py_name(node.name)}"
        return py_name(node.name)

    def render_literal(self, node: E.Literal) -> str:
        return repr(node.value)

    def render_rank(self, node: E.Rank) -> str:
        return f"{py_name(node.input.name)}.ndim"

    def render_sizeat(self, node: E.SizeAt) -> str:
        return f"_size_at({py_name(node.input.name)}, {self.render(node.axis)})"

    def render_compare(self, node: E.Compare) -> str:
        for ref, lit in ((node.left, node.right), (node.right, node.left)):
            if isinstance(ref, E.ParamRef) and isinstance(lit, E.Literal) and lit.value is None:
                return f"({self.render(ref)} {'is' if node.op == '==' else 'is not'} None)"
        return f"({self.render(node.left)} {node.op} {self.render(node.right)})"

    def render_sametype(self, node: E.SameType) -> str:
        first = py_name(node.inputs[0].name)
        return "(" + " and ".join(f"{first}.dtype == {py_name(r.name)}.dtype" for r in node.inputs[1:]) + ")"

    def render_sameshape(self, node: E.SameShape) -> str:
        first = py_name(node.inputs[0].name)
        return "(" + " and ".join(f"{first}.shape == {py_name(r.name)}.shape" for r in node.inputs[1:]) + ")"

    def render_broadcastableshapes(self, node: E.BroadcastableShapes) -> str:
        return f"_broadcastable({', '.join(py_name(r.name) for r in node.inputs)})"
