"""Builder-side expressions: parameter handles and the operators on them.

``x = Input(...)`` returns an :class:`InputHandle`; ``x.rank() == 2`` returns a
:class:`Term` wrapping the frozen node ``Compare("==", Rank(x), Literal(2))``
and remembering which handles it used, so that the op can refuse references to
another op's parameters. ``Constraint`` unwraps the node into the frozen graph.
"""

from __future__ import annotations

from typing import Any

from dsl import expr as E
from dsl.recovery import Cascade, DefinitionError, Unbound


class Term:
    """An expression under construction."""

    __slots__ = ("node", "handles")
    __hash__ = None  # type: ignore[assignment]  # == builds an expression

    def __init__(self, node: Any, handles: tuple["ParamHandle", ...] = ()) -> None:
        self.node = node
        self.handles = handles

    def __bool__(self) -> bool:
        raise TypeError(
            "a constraint expression is not a Python bool: "
            "use &, |, ~ (or all_of, some, not_) instead of and, or, not, "
            "and do not chain comparisons"
        )

    def __repr__(self) -> str:
        return f"Term({self.node!r})"

    # comparisons
    def _compare(self, op: str, other: Any) -> "Term":
        o = term(other)
        return Term(E.Compare(op, self.node, o.node), self.handles + o.handles)

    def __eq__(self, other: Any) -> "Term":  # type: ignore[override]
        return self._compare("==", other)

    def __ne__(self, other: Any) -> "Term":  # type: ignore[override]
        return self._compare("!=", other)

    def __lt__(self, other: Any) -> "Term":
        return self._compare("<", other)

    def __le__(self, other: Any) -> "Term":
        return self._compare("<=", other)

    def __gt__(self, other: Any) -> "Term":
        return self._compare(">", other)

    def __ge__(self, other: Any) -> "Term":
        return self._compare(">=", other)

    def eq(self, other: Any) -> "Term":
        return self._compare("==", other)

    def neq(self, other: Any) -> "Term":
        return self._compare("!=", other)

    def lt(self, other: Any) -> "Term":
        return self._compare("<", other)

    def lte(self, other: Any) -> "Term":
        return self._compare("<=", other)

    def gt(self, other: Any) -> "Term":
        return self._compare(">", other)

    def gte(self, other: Any) -> "Term":
        return self._compare(">=", other)

    # logic
    def __and__(self, other: Any) -> "Term":
        return all_of(self, other)

    def __rand__(self, other: Any) -> "Term":
        return all_of(other, self)

    def __or__(self, other: Any) -> "Term":
        return some(self, other)

    def __ror__(self, other: Any) -> "Term":
        return some(other, self)

    def __invert__(self) -> "Term":
        return not_(self)

    # integer arithmetic, for bounds such as ``axis < x.rank() - 1``
    def _arith(self, op: str, other: Any, reflected: bool = False) -> "Term":
        o = term(other)
        left, right = (o, self) if reflected else (self, o)
        return Term(E.Arith(op, left.node, right.node), left.handles + right.handles)

    def __add__(self, other: Any) -> "Term":
        return self._arith("+", other)

    def __radd__(self, other: Any) -> "Term":
        return self._arith("+", other, True)

    def __sub__(self, other: Any) -> "Term":
        return self._arith("-", other)

    def __rsub__(self, other: Any) -> "Term":
        return self._arith("-", other, True)

    def __mul__(self, other: Any) -> "Term":
        return self._arith("*", other)

    def __rmul__(self, other: Any) -> "Term":
        return self._arith("*", other, True)

    def __floordiv__(self, other: Any) -> "Term":
        return self._arith("//", other)

    def __mod__(self, other: Any) -> "Term":
        return self._arith("%", other)

    def __neg__(self) -> "Term":
        return Term(E.Neg(self.node), self.handles)


def term(value: Any) -> Term:
    """``value`` as a Term: Terms pass through, Python scalars become literals."""
    if isinstance(value, Term):
        return value
    if isinstance(value, Unbound):  # left by a failed statement, reported there
        raise Cascade(repr(value))
    if value is None or isinstance(value, (bool, int, float, str)):
        return Term(E.Literal(value))
    raise TypeError(f"cannot use {value!r} in a constraint expression")


class ParamHandle(Term):
    """What ``Input``/``Arg``/``Output`` return: a reference to the parameter.

    ``owner`` is the builder block (op, mixin or config) that declared it.
    """

    __slots__ = ("owner", "kind", "name")
    __hash__ = object.__hash__  # handles are identities, usable as dict keys

    def __init__(self, owner: Any, kind: str, name: str, config: str | None = None) -> None:
        super().__init__(E.ParamRef(kind, name, config))
        self.handles = (self,)
        self.owner = owner
        self.kind = kind
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.kind} {self.name!r} of {getattr(self.owner, 'context', '?')}>"


class InputHandle(ParamHandle):
    def rank(self) -> Term:
        return Term(E.Rank(self.node), self.handles)

    def size_at(self, axis: Any) -> Term:
        a = term(axis)
        return Term(E.SizeAt(self.node, a.node), self.handles + a.handles)

    def is_scalar(self) -> Term:
        """True for rank-0 tensors (ND4J's ``rank() == 1`` was a bug)."""
        return self.rank() == 0

    def shape(self) -> Term:
        """This tensor's shape, as a default value of an integer-array arg."""
        return Term(E.ShapeOf(self.node), self.handles)

    def data_type(self) -> Term:
        """This tensor's element type, as a default value of a DATA_TYPE arg."""
        return Term(E.DataTypeOf(self.node), self.handles)


class ArgHandle(ParamHandle):
    pass


class OutputHandle(ParamHandle):
    def _not_in_constraints(self, *_: Any) -> Term:
        raise DefinitionError(f"output '{self.name}' cannot appear in a constraint: constraints check "
                              "what the op is given (its inputs and args)")

    rank = size_at = is_scalar = _not_in_constraints

    def shape(self) -> Term:
        return Term(E.ShapeOf(self.node), self.handles)

    def data_type(self) -> Term:
        return Term(E.DataTypeOf(self.node), self.handles)


def _terms(values: tuple[Any, ...]) -> tuple[Term, ...]:
    return tuple(term(v) for v in values)


def _merged(terms: tuple[Term, ...]) -> tuple[ParamHandle, ...]:
    return tuple(h for t in terms for h in t.handles)


def _flatten(cls: type, terms: tuple[Term, ...]) -> tuple[Any, ...]:
    nodes: list[Any] = []
    for t in terms:
        nodes.extend(t.node.terms if isinstance(t.node, cls) else (t.node,))
    return tuple(nodes)


def all_of(*conditions: Any) -> Term:
    """True if every condition holds (``&``)."""
    ts = _terms(conditions)
    return Term(E.AllOf(_flatten(E.AllOf, ts)), _merged(ts))


def some(*conditions: Any) -> Term:
    """True if at least one condition holds (``|``)."""
    ts = _terms(conditions)
    return Term(E.AnyOf(_flatten(E.AnyOf, ts)), _merged(ts))


def not_(condition: Any) -> Term:
    t = term(condition)
    return Term(E.Not(t.node), t.handles)


def _tensor_refs(fn: str, inputs: tuple[Any, ...]) -> tuple[Term, ...]:
    for i in inputs:
        if isinstance(i, Unbound):
            raise Cascade(repr(i))
        if not isinstance(i, ParamHandle):
            raise TypeError(f"{fn}() takes inputs, got {i!r}")
    return tuple(inputs)


def same_type(*inputs: Any) -> Term:
    ts = _tensor_refs("same_type", inputs)
    return Term(E.SameType(tuple(t.node for t in ts)), _merged(ts))


def same_shape(*inputs: Any) -> Term:
    ts = _tensor_refs("same_shape", inputs)
    return Term(E.SameShape(tuple(t.node for t in ts)), _merged(ts))


def broadcastable_shapes(*inputs: Any) -> Term:
    ts = _tensor_refs("broadcastable_shapes", inputs)
    return Term(E.BroadcastableShapes(tuple(t.node for t in ts)), _merged(ts))
