"""Readable, Python-like text for constraint expressions and default values."""

from __future__ import annotations

from dsl import expr as E
from dsl.model import NO_DEFAULT, DefaultValue

# Binding strength, loosest first, for minimal parentheses.
_PRECEDENCE = {E.AnyOf: 1, E.AllOf: 2, E.Not: 3, E.Compare: 4}
_ARITH = {"+": 5, "-": 5, "*": 6, "//": 6, "/": 6, "%": 6}


def _literal(value: object) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


class ReadableRenderer(E.Renderer):
    """``x.rank() == 2 and (y.size_at(0) >= 7 or not flag)``."""

    def _level(self, node: E.Expr) -> int:
        if isinstance(node, E.Arith):
            return _ARITH[node.op]
        if isinstance(node, E.Neg):
            return 7
        return _PRECEDENCE.get(type(node), 9)

    def _sub(self, node: E.Expr, parent_level: int, strict: bool = False) -> str:
        text = self.render(node)
        level = self._level(node)
        return f"({text})" if level < parent_level or (strict and level == parent_level) else text

    def render_paramref(self, node: E.ParamRef) -> str:
        return str(node)

    def render_literal(self, node: E.Literal) -> str:
        return _literal(node.value)

    def render_rank(self, node: E.Rank) -> str:
        return f"{node.input}.rank()"

    def render_sizeat(self, node: E.SizeAt) -> str:
        return f"{node.input}.size_at({self.render(node.axis)})"

    def render_compare(self, node: E.Compare) -> str:
        return f"{self._sub(node.left, 5)} {node.op} {self._sub(node.right, 5)}"

    def render_arith(self, node: E.Arith) -> str:
        level = _ARITH[node.op]
        return f"{self._sub(node.left, level)} {node.op} {self._sub(node.right, level, strict=True)}"

    def render_neg(self, node: E.Neg) -> str:
        return f"-{self._sub(node.operand, 7)}"

    def render_allof(self, node: E.AllOf) -> str:
        return " and ".join(self._sub(t, 3) for t in node.terms)

    def render_anyof(self, node: E.AnyOf) -> str:
        return " or ".join(self._sub(t, 2) for t in node.terms)

    def render_not(self, node: E.Not) -> str:
        return f"not {self._sub(node.term, 5)}"

    def _call(self, name: str, refs: tuple[E.ParamRef, ...]) -> str:
        return f"{name}({', '.join(str(r) for r in refs)})"

    def render_sametype(self, node: E.SameType) -> str:
        return self._call("same_type", node.inputs)

    def render_sameshape(self, node: E.SameShape) -> str:
        return self._call("same_shape", node.inputs)

    def render_broadcastableshapes(self, node: E.BroadcastableShapes) -> str:
        return self._call("broadcastable_shapes", node.inputs)

    def render_shapeof(self, node: E.ShapeOf) -> str:
        return f"{node.input}.shape()"

    def render_datatypeof(self, node: E.DataTypeOf) -> str:
        return f"{node.input}.data_type()"


READABLE = ReadableRenderer()


def default_text(value: DefaultValue) -> str | None:
    """A default value as code, or None when there is none."""
    if value is NO_DEFAULT:
        return None
    if value is None:
        return "None"
    if isinstance(value, tuple):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, (E.ParamRef, E.ShapeOf, E.DataTypeOf)):
        return READABLE.render(value)
    return _literal(value)


def through_float_text(op: object, python: bool) -> str | None:
    """The rule of the integers an op over the reals takes through floats (ADR 0058), in words. An
    op of a NumPy function's meaning keeps NumPy's in the Python API: nothing to say there
    (``python``), and the docs page says so."""
    from dsl import dtypes as D

    through = D.through_float(op)
    numpy_name = getattr(op, "numpy", None)
    if not through or (python and numpy_name):
        return None
    names = " and ".join(", ".join(through).rsplit(", ", 1))
    rule = (f"{names} inputs compute through float64: each element is converted to float64 and the "
            "result back as cast converts a float to an integer (truncated toward zero, saturated at "
            "the dtype's limits, NaN as 0)")
    if numpy_name is None:
        return rule + "."
    return f"{rule}, in the C API and the units; the Python function keeps numpy.{numpy_name}'s meaning for them."
