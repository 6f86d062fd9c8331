"""Frozen expression trees for constraints and shape-derived defaults.

The DSL builds these through operator overloading on parameter handles
(see :mod:`dsl.terms`); every generator renders them in its own language
with a table of per-node renderers. Nothing here is a string to eval.
"""

from __future__ import annotations

from typing import Callable, Iterator, Mapping, Sequence, TypeVar, Union

import attrs

Scalar = Union[None, bool, int, float, str]

#: Comparison operators, by their canonical spelling.
COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")
#: Integer arithmetic operators allowed inside constraints.
ARITHMETIC = ("+", "-", "*", "//", "%")


@attrs.frozen
class ParamRef:
    """A parameter of the op: ``kind`` is input, arg, output or config.

    ``config`` names the config the parameter belongs to, if any.
    """

    kind: str
    name: str
    config: str | None = None

    def __str__(self) -> str:
        return f"{self.config}.{self.name}" if self.config else self.name


@attrs.frozen
class Literal:
    value: Scalar


@attrs.frozen
class Rank:
    input: ParamRef


@attrs.frozen
class SizeAt:
    input: ParamRef
    axis: "Expr"


@attrs.frozen
class Compare:
    op: str
    left: "Expr"
    right: "Expr"


@attrs.frozen
class Arith:
    op: str
    left: "Expr"
    right: "Expr"


@attrs.frozen
class Neg:
    operand: "Expr"


@attrs.frozen
class AllOf:
    terms: tuple["Expr", ...]


@attrs.frozen
class AnyOf:
    terms: tuple["Expr", ...]


@attrs.frozen
class Not:
    term: "Expr"


@attrs.frozen
class SameType:
    inputs: tuple[ParamRef, ...]


@attrs.frozen
class SameShape:
    inputs: tuple[ParamRef, ...]


@attrs.frozen
class BroadcastableShapes:
    inputs: tuple[ParamRef, ...]


@attrs.frozen
class ShapeOf:
    """The shape of a tensor, as a default for an integer-array arg."""

    input: ParamRef


@attrs.frozen
class DataTypeOf:
    """The element type of a tensor, as a default for a DATA_TYPE arg."""

    input: ParamRef


Expr = Union[
    ParamRef,
    Literal,
    Rank,
    SizeAt,
    Compare,
    Arith,
    Neg,
    AllOf,
    AnyOf,
    Not,
    SameType,
    SameShape,
    BroadcastableShapes,
]

CONDITIONS = (Compare, AllOf, AnyOf, Not, SameType, SameShape, BroadcastableShapes)


def children(node: Expr) -> Iterator[Expr]:
    """The direct sub-expressions of ``node``."""
    for field in attrs.fields(type(node)):
        value = getattr(node, field.name)
        if isinstance(value, tuple):
            yield from value
        elif attrs.has(type(value)):
            yield value


def walk(node: Expr) -> Iterator[Expr]:
    """``node`` and all its descendants, depth first, in field order."""
    yield node
    for child in children(node):
        yield from walk(child)


def param_refs(node: Expr) -> tuple[ParamRef, ...]:
    return tuple(n for n in walk(node) if isinstance(n, ParamRef))


def resolve_enum(node: Compare, enums: Mapping[str, Sequence[str]]) -> Compare:
    """``node`` with the value it compares an enum arg to written as its index in ``enums``
    (how every target passes an enum), or ``node`` where it compares no enum arg."""
    for ref, lit in ((node.left, node.right), (node.right, node.left)):
        if isinstance(ref, ParamRef) and ref.kind == "arg" and ref.name in enums \
                and isinstance(lit, Literal) and isinstance(lit.value, str):
            index = Literal(list(enums[ref.name]).index(lit.value))
            return attrs.evolve(node, right=index) if ref is node.left else attrs.evolve(node, left=index)
    return node


R = TypeVar("R")


class Renderer:
    """Base for per-language expression renderers: one method per node type.

    Subclasses define ``render_<nodetype>`` methods (``render_compare``, ...)
    and call :meth:`render` recursively. A missing method is a generator bug
    and raises ``NotImplementedError`` naming the node type.
    """

    def render(self, node: Expr) -> str:
        method: Callable[[Expr], str] | None = getattr(
            self, "render_" + type(node).__name__.lower(), None
        )
        if method is None:
            raise NotImplementedError(f"{type(self).__name__} cannot render {type(node).__name__}")
        return method(node)
