"""The shape-expression language: what a compute form says its outputs' shapes are.

A form gives each output a *shape* built from the nodes below over the op's tensors
and args, and its refusals as conditions of the constraint language (``dsl.expr``)
extended with the size nodes below. Targets render these trees (Python for the
generation-time reference and NNEF, Imaginet expressions for units, words for the
docs); none of them holds a shape rule of its own (ADR 0029).

Sizes are integers: the constraint language's ``Literal``, ``ParamRef`` (an int arg),
``Rank``, ``SizeAt`` (negative axes count from the end), ``Arith`` (``+ - * // %``, and
``/`` for the one real quotient a shape needs, range's), ``Neg``, plus :class:`Item`,
:class:`Length`, :class:`Numel`, :class:`Where`, :class:`Max`, :class:`Min`,
:class:`Ceil`, :class:`Total` and the axis variable :class:`Axis` of :class:`PerAxis`.
A shape's axes are numbered as NumPy numbers them (0 outermost).
"""

from __future__ import annotations

from typing import Any, Union

import attrs

from dsl import expr as E

# ---------------------------------------------------------------- sizes


@attrs.frozen
class Axis:
    """The axis :class:`PerAxis` is building (0, 1, ... up to its rank)."""


@attrs.frozen
class Value:
    """The value :class:`AllValues` is looking at."""


@attrs.frozen
class Item:
    """Element ``index`` of a shape, or value ``index`` of an int-list arg (0 first; in range)."""

    of: Any
    index: Any


@attrs.frozen
class Length:
    """How many axes a shape has, values an int-list arg, or tensors a list input."""

    of: Any


@attrs.frozen
class Numel:
    """The product of a shape's sizes (or of an int-list arg's values)."""

    of: Any


@attrs.frozen
class Where:
    """``then`` where ``condition`` holds, else ``otherwise`` (sizes or shapes)."""

    condition: Any
    then: Any
    otherwise: Any


@attrs.frozen
class Max:
    terms: tuple[Any, ...]


@attrs.frozen
class Min:
    terms: tuple[Any, ...]


@attrs.frozen
class Ceil:
    """The smallest integer not below a real ``value`` (range's length)."""

    value: Any


@attrs.frozen
class Total:
    """The sum over the tensors of a list input of their size at ``axis`` (concat)."""

    inputs: E.ParamRef
    axis: Any


@attrs.frozen
class Names:
    """Whether an int-list arg names ``axis`` of a tensor of ``rank`` axes (a value v
    with v == axis or v + rank == axis); an empty list names ``all_when_empty``."""

    axes: E.ParamRef
    axis: Any
    rank: Any
    all_when_empty: bool = False


@attrs.frozen
class AllValues:
    """Whether ``condition`` holds for every value of an int-list arg (:class:`Value`)."""

    arg: E.ParamRef
    condition: Any


@attrs.frozen
class Distinct:
    """Whether the values of an int-list arg name distinct axes of ``rank`` axes (v and
    v + rank are the same axis)."""

    arg: E.ParamRef
    rank: Any


@attrs.frozen
class ForAxes:
    """Whether ``condition`` holds for every axis :class:`Axis` below ``rank``."""

    rank: Any
    condition: Any


@attrs.frozen
class Fits:
    """Whether ``shapes`` broadcast together (``strict``: TML's equal shapes or scalars)."""

    shapes: tuple[Any, ...]
    strict: bool = False


@attrs.frozen
class ShapesEqual:
    """Whether two shapes are equal."""

    left: Any
    right: Any


@attrs.frozen
class Each:
    """The shape of the tensor :class:`EachTensor` is looking at."""


@attrs.frozen
class EachTensor:
    """Whether ``condition`` holds for the shape (:class:`Each`) of every tensor of a list input."""

    inputs: E.ParamRef
    condition: Any


@attrs.frozen
class Finite:
    """Whether a real arg is neither infinite nor NaN."""

    value: Any


# ---------------------------------------------------------------- shapes


@attrs.frozen
class ArgShape:
    """The values of an int-list arg as a shape (fill's ``shape``)."""

    arg: E.ParamRef


@attrs.frozen
class FirstShape:
    """The shape of the first tensor of a list input."""

    inputs: E.ParamRef


@attrs.frozen
class Numels:
    """The element counts of the tensors of a list input, as a shape (meshgrid's grid)."""

    inputs: E.ParamRef


@attrs.frozen
class Dims:
    """A shape of the given sizes."""

    sizes: tuple[Any, ...]


@attrs.frozen
class Concat:
    """The axes of each shape, in order."""

    parts: tuple[Any, ...]


@attrs.frozen
class Slice:
    """``of[start:stop]`` as Python slices a tuple (negative bounds count from the end)."""

    of: Any
    start: Any = None
    stop: Any = None


@attrs.frozen
class PerAxis:
    """``rank`` axes, axis :class:`Axis` of size ``size``, kept where ``keep`` holds."""

    rank: Any
    size: Any
    keep: Any = None


@attrs.frozen
class Broadcast:
    """NumPy broadcasting of ``shapes`` (``strict``: TML's equal shapes or scalars)."""

    shapes: tuple[Any, ...]
    strict: bool = False


@attrs.frozen
class Tensors:
    """A list output: ``count`` tensors, each of ``shape``."""

    count: Any
    shape: Any


#: The largest rank a tensor may have (every target's limit).
MAX_RANK = 8
#: The most elements a result may have (the C runtime's limit: sizes stay within int64).
MAX_ELEMENTS = 2**62

#: A shape node (``E.ShapeOf`` is a tensor's own shape).
SHAPES = (E.ShapeOf, ArgShape, FirstShape, Dims, Concat, Slice, PerAxis, Broadcast)
Shape = Union[E.ShapeOf, ArgShape, FirstShape, Dims, Concat, Slice, PerAxis, Broadcast, Where]


@attrs.frozen
class Refusal:
    """A condition the inputs must meet, and the words a target refuses them with."""

    message: str
    condition: Any
    #: What the inputs get wrong, for targets that say it with a status: "empty" (no
    #: elements, where the op needs some), else a shape, or an arg where the condition reads one.
    kind: str = attrs.field(default="", validator=attrs.validators.in_(("", "empty")))


# ---------------------------------------------------------------- building


def size(value: Any) -> Any:
    """``value`` as a size node: an int becomes a literal."""
    return E.Literal(value) if isinstance(value, (bool, int, float)) else value


def tensor(name: str) -> E.ShapeOf:
    return E.ShapeOf(E.ParamRef("input", name))


def arg(name: str) -> E.ParamRef:
    return E.ParamRef("arg", name)


def rank(name: str) -> E.Rank:
    return E.Rank(E.ParamRef("input", name))


def size_at(name: str, axis: Any) -> E.SizeAt:
    return E.SizeAt(E.ParamRef("input", name), size(axis))


def add(a: Any, b: Any) -> E.Arith:
    return E.Arith("+", size(a), size(b))


def sub(a: Any, b: Any) -> E.Arith:
    return E.Arith("-", size(a), size(b))


def mul(a: Any, b: Any) -> E.Arith:
    return E.Arith("*", size(a), size(b))


def floordiv(a: Any, b: Any) -> E.Arith:
    return E.Arith("//", size(a), size(b))


def compare(a: Any, op: str, b: Any) -> E.Compare:
    return E.Compare(op, size(a), size(b))


def all_of(*terms: Any) -> Any:
    kept = tuple(t for t in terms if t is not None)
    return kept[0] if len(kept) == 1 else E.AllOf(kept)


def any_of(*terms: Any) -> Any:
    return terms[0] if len(terms) == 1 else E.AnyOf(tuple(terms))


def not_(term: Any) -> E.Not:
    return E.Not(term)


def item(of: Any, index: Any) -> Item:
    return Item(of, size(index))


def last(of: Any) -> Item:
    """The last size of a shape."""
    return Item(of, sub(Length(of), 1))


def reversed_shape(shape: Any) -> PerAxis:
    return PerAxis(Length(shape), Item(shape, sub(sub(Length(shape), 1), Axis())))


def at_most_max_rank(shape: Any, what: str) -> Refusal:
    return Refusal(f"{what}: the result's rank is above {MAX_RANK}", compare(Length(shape), "<=", MAX_RANK))


def normalized(axis: Any, rank_: Any) -> Where:
    """An axis that may be negative, counted from the front."""
    return Where(compare(axis, "<", 0), add(axis, rank_), size(axis))


def in_range(axis: Any, rank_: Any) -> Any:
    """-rank <= axis < rank."""
    return all_of(compare(axis, ">=", E.Neg(size(rank_))), compare(axis, "<", rank_))


def axis_extents(refusals: Any) -> dict[str, Any]:
    """The args that name one axis, each with the rank it counts in: what a form's
    ``in_range`` refusals say (``-rank <= arg < rank``), read back. Targets whose axes
    count otherwise (Imaginet's, from the innermost) convert through it."""
    found: dict[str, Any] = {}
    for refusal in refusals:
        c = refusal.condition
        if not (isinstance(c, E.AllOf) and len(c.terms) == 2):
            continue
        low, high = c.terms
        if (isinstance(low, E.Compare) and isinstance(high, E.Compare) and low.op == ">=" and high.op == "<"
                and isinstance(low.left, E.ParamRef) and low.left.kind == "arg" and low.left == high.left
                and low.right == E.Neg(high.right)):
            found.setdefault(low.left.name, high.right)
    return found


def insert(shape: Any, at: Any, size_: Any) -> Concat:
    """``shape`` with a new axis of ``size_`` before axis ``at`` (0..len)."""
    return Concat((Slice(shape, None, at), Dims((size(size_),)), Slice(shape, at, None)))


def remove(shape: Any, at: Any) -> Concat:
    """``shape`` without axis ``at`` (0..len-1)."""
    return Concat((Slice(shape, None, at), Slice(shape, add(at, 1), None)))


def replace(shape: Any, at: Any, size_: Any) -> Concat:
    """``shape`` with axis ``at`` (0..len-1) of ``size_``."""
    return Concat((Slice(shape, None, at), Dims((size(size_),)), Slice(shape, add(at, 1), None)))


def _fields(node: Any) -> list[tuple[str, Any]]:
    """(field name, sub-expression) of a shape or size node (or of a constraint node)."""
    out = []
    for field in attrs.fields(type(node)) if attrs.has(type(node)) else ():
        value = getattr(node, field.name)
        out += [(field.name, v) for v in (value if isinstance(value, tuple) else (value,)) if attrs.has(type(v))]
    return out


def children(node: Any) -> list[Any]:
    """The sub-expressions of a shape or size node (or of a constraint node)."""
    return [v for _, v in _fields(node)]


#: What each binder binds, and in which of its fields: an :class:`Axis` (``"k"``), a
#: :class:`Value` (``"v"``) or an :class:`Each` (``"e"``) read there is the binder's own.
_BINDERS = {PerAxis: ("k", ("size", "keep")), ForAxes: ("k", ("condition",)),
            AllValues: ("v", ("condition",)), EachTensor: ("e", ("condition",))}
_BOUND = {Axis: "k", Value: "v", Each: "e"}


def free_bindings(node: Any) -> frozenset[str]:
    """Which enclosing bindings (``"k"``, ``"v"``, ``"e"``) ``node`` reads: a node that reads
    none has one value wherever it stands, however many axes or values enclose it."""
    kind = _BOUND.get(type(node))
    if kind is not None:
        return frozenset((kind,))
    binder = _BINDERS.get(type(node))
    free: set[str] = set()
    for name, v in _fields(node):
        inner = free_bindings(v)
        free |= inner - {binder[0]} if binder and name in binder[1] else inner
    return frozenset(free)


def refs(node: Any) -> list[E.ParamRef]:
    """Every parameter a shape, size or condition reads."""
    if isinstance(node, E.ParamRef):
        return [node]
    return [r for child in children(node) for r in refs(child)]
