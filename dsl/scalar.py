"""The scalar IR of compute lambdas: ``Elementwise(lambda x, y: x + y)`` runs once, at
definition time, on symbolic scalars, and builds a frozen tree of :class:`SCall`,
:class:`SSym` and :class:`SConst` nodes that every target renders with its own table.
Nothing is a string to eval.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Union

import attrs

from dsl.recovery import Cascade, Unbound, did_you_mean

# ---------------------------------------------------------------- scalar IR


@attrs.frozen
class SSym:
    """A named scalar: an input's element, a scalar arg, or a reduction value."""

    name: str


@attrs.frozen
class SConst:
    """A constant; a string stands for a value of the ENUM arg it is compared with."""

    value: Union[bool, int, float, str]


@attrs.frozen
class SCall:
    fn: str
    args: tuple["SExpr", ...]


SExpr = Union[SSym, SConst, SCall]

#: Scalar functions: name -> (arity, what operand types it takes).
#: "num": any number, "float": floating point only, "int": integers only,
#: "bool": booleans only, "any": any type (comparisons, where).
FUNCTIONS: dict[str, tuple[int, str]] = {
    # arithmetic (integers wrap around; see docs of each op)
    "add": (2, "num"), "sub": (2, "num"), "mul": (2, "num"), "div": (2, "num"),
    "pow": (2, "num"), "neg": (1, "num"), "abs": (1, "num"), "sign": (1, "num"),
    # remainders (truncated like C fmod; floored like Python %), floored division
    "mod": (2, "num"), "floor_mod": (2, "num"), "floor_div": (2, "num"),
    "minimum": (2, "num"), "maximum": (2, "num"),
    # rounding
    "floor": (1, "num"), "ceil": (1, "num"), "round_half_even": (1, "num"),
    "round_half_away": (1, "num"),
    # transcendental
    "exp": (1, "float"), "log": (1, "float"), "sqrt": (1, "float"), "sin": (1, "float"),
    "cos": (1, "float"), "tan": (1, "float"), "asin": (1, "float"), "acos": (1, "float"),
    "atan": (1, "float"), "sinh": (1, "float"), "cosh": (1, "float"), "tanh": (1, "float"),
    "erf": (1, "float"), "expm1": (1, "float"), "log1p": (1, "float"), "atan2": (2, "float"),
    "sigmoid": (1, "float"), "erfc": (1, "float"),
    "asinh": (1, "float"), "acosh": (1, "float"), "atanh": (1, "float"),
    # comparison (result bool)
    "eq": (2, "any"), "ne": (2, "any"), "lt": (2, "num"), "le": (2, "num"), "gt": (2, "num"),
    "ge": (2, "num"), "isnan": (1, "num"), "isinf": (1, "num"), "isfinite": (1, "num"),
    # logic on booleans
    "logical_and": (2, "bool"), "logical_or": (2, "bool"), "logical_xor": (2, "bool"),
    "logical_not": (1, "bool"),
    # bitwise on integers
    "bitwise_and": (2, "int"), "bitwise_or": (2, "int"), "bitwise_xor": (2, "int"),
    "bitwise_not": (1, "int"), "left_shift": (2, "int"), "right_shift": (2, "int"),
    "rotl": (2, "int"), "rotr": (2, "int"), "popcount": (1, "int"),
    # integer square root: the floor of the square root (0 for a negative operand)
    "isqrt": (1, "int"),
    # selection
    "where": (3, "any"),
}

#: Functions whose result is a bool whatever the operands.
BOOL_RESULT = frozenset({"eq", "ne", "lt", "le", "gt", "ge", "isnan", "isinf", "isfinite",
                         "logical_and", "logical_or", "logical_xor", "logical_not"})
#: Top-level functions that make an op "logical, relational or bitwise" (TML rules).
STRICT_BROADCAST = BOOL_RESULT | frozenset({"bitwise_and", "bitwise_or", "bitwise_xor",
                                            "bitwise_not", "left_shift", "right_shift", "rotl", "rotr"})


class Sym:
    """A symbolic scalar handed to compute lambdas; operators build SExpr trees."""

    __slots__ = ("node",)
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, node: SExpr) -> None:
        self.node = node

    def __bool__(self) -> bool:
        raise TypeError("a symbolic scalar is not a Python bool: use fn.where, "
                        "fn.logical_and/or/not, &, |, ~ instead of if, and, or, not")

    def __repr__(self) -> str:
        return f"Sym({self.node!r})"

    def _op(self, fn: str, *others: Any) -> "Sym":
        return Sym(SCall(fn, (self.node, *(sym(o).node for o in others))))

    def _rop(self, fn: str, other: Any) -> "Sym":
        return Sym(SCall(fn, (sym(other).node, self.node)))

    __add__ = lambda self, o: self._op("add", o)  # noqa: E731
    __radd__ = lambda self, o: self._rop("add", o)  # noqa: E731
    __sub__ = lambda self, o: self._op("sub", o)  # noqa: E731
    __rsub__ = lambda self, o: self._rop("sub", o)  # noqa: E731
    __mul__ = lambda self, o: self._op("mul", o)  # noqa: E731
    __rmul__ = lambda self, o: self._rop("mul", o)  # noqa: E731
    __truediv__ = lambda self, o: self._op("div", o)  # noqa: E731
    __rtruediv__ = lambda self, o: self._rop("div", o)  # noqa: E731
    __pow__ = lambda self, o: self._op("pow", o)  # noqa: E731
    __rpow__ = lambda self, o: self._rop("pow", o)  # noqa: E731
    __neg__ = lambda self: self._op("neg")  # noqa: E731
    __abs__ = lambda self: self._op("abs")  # noqa: E731
    __eq__ = lambda self, o: self._op("eq", o)  # type: ignore[assignment] # noqa: E731
    __ne__ = lambda self, o: self._op("ne", o)  # type: ignore[assignment] # noqa: E731
    __lt__ = lambda self, o: self._op("lt", o)  # noqa: E731
    __le__ = lambda self, o: self._op("le", o)  # noqa: E731
    __gt__ = lambda self, o: self._op("gt", o)  # noqa: E731
    __ge__ = lambda self, o: self._op("ge", o)  # noqa: E731
    __and__ = lambda self, o: self._op("bitwise_and", o)  # noqa: E731
    __rand__ = lambda self, o: self._rop("bitwise_and", o)  # noqa: E731
    __or__ = lambda self, o: self._op("bitwise_or", o)  # noqa: E731
    __ror__ = lambda self, o: self._rop("bitwise_or", o)  # noqa: E731
    __xor__ = lambda self, o: self._op("bitwise_xor", o)  # noqa: E731
    __rxor__ = lambda self, o: self._rop("bitwise_xor", o)  # noqa: E731
    __invert__ = lambda self: self._op("bitwise_not")  # noqa: E731
    __lshift__ = lambda self, o: self._op("left_shift", o)  # noqa: E731
    __rshift__ = lambda self, o: self._op("right_shift", o)  # noqa: E731


def sym(value: Any) -> Sym:
    if isinstance(value, Sym):
        return value
    if isinstance(value, Unbound):  # left by a failed statement, reported there
        raise Cascade(repr(value))
    if isinstance(value, (bool, int, float, str)):
        return Sym(SConst(value))
    raise TypeError(f"cannot use {value!r} in a compute expression")


def resolve_enums(node: SExpr, enums: dict[str, tuple[str, ...]]) -> SExpr:
    """Replace ``mode == "name"`` by ``mode == index`` for ENUM args (``enums``:
    arg name -> possible values); raises ValueError for a value the arg cannot take."""
    if not isinstance(node, SCall):
        return node
    args = tuple(resolve_enums(a, enums) for a in node.args)
    if node.fn in ("eq", "ne") and len(args) == 2:
        a, b = args
        for s_, c_ in ((a, b), (b, a)):
            if isinstance(s_, SSym) and isinstance(c_, SConst) and isinstance(c_.value, str):
                values = enums.get(s_.name)
                if values is None:
                    raise ValueError(f"{s_.name!r} is not an ENUM arg, so it cannot be compared with {c_.value!r}")
                if c_.value not in values:
                    raise ValueError(f"{c_.value!r} is not a value of ENUM arg {s_.name!r}")
                index = SConst(values.index(c_.value))
                args = (s_, index) if s_ is a else (index, s_)
    for arg in args:
        if isinstance(arg, SConst) and isinstance(arg.value, str):
            raise ValueError(f"string {arg.value!r} may only be compared with an ENUM arg")
    return SCall(node.fn, args)


class _Functions:
    """``fn.exp(x)``, ``fn.where(c, a, b)``, ...: every function of :data:`FUNCTIONS`."""

    def __getattr__(self, name: str) -> Callable[..., Sym]:
        if name not in FUNCTIONS:
            raise AttributeError(f"fn has no function {name!r}{did_you_mean(name, FUNCTIONS)}", name=name, obj=self)
        arity = FUNCTIONS[name][0]

        def call(*args: Any) -> Sym:
            if len(args) != arity:
                raise TypeError(f"fn.{name} takes {arity} argument{'s' if arity != 1 else ''}, got {len(args)}")
            return Sym(SCall(name, tuple(sym(a).node for a in args)))

        call.__name__ = name
        return call


fn = _Functions()


def trace_cases(function: Callable[..., Any]) -> tuple[tuple[str, ...], tuple[str, ...],
                                                      tuple[tuple[tuple[str, ...], SExpr], ...]]:
    """Trace ``function`` once per subset of its None-defaulted parameters."""
    import itertools

    signature = inspect.signature(function)
    params = tuple(signature.parameters)
    optional = tuple(n for n, p in signature.parameters.items() if p.default is None)
    cases = []
    for present in itertools.product((True, False), repeat=len(optional)):
        given = tuple(n for n, keep in zip(optional, present) if keep)
        values = [None if n in optional and n not in given else Sym(SSym(n)) for n in params]
        cases.append((given, sym(function(*values)).node))
    return params, optional, tuple(cases)


def trace(function: Callable[..., Any], names: tuple[str, ...] | None = None) -> tuple[tuple[str, ...], SExpr]:
    """Run ``function`` on symbols named after its parameters; return (names, tree)."""
    params = tuple(inspect.signature(function).parameters) if names is None else names
    result = function(*(Sym(SSym(p)) for p in params))
    return params, sym(result).node


def substitute(node: SExpr, mapping: dict[str, SExpr]) -> SExpr:
    """``node`` with each symbol named in ``mapping`` replaced by its tree."""
    if isinstance(node, SSym):
        return mapping.get(node.name, node)
    if isinstance(node, SCall):
        return SCall(node.fn, tuple(substitute(a, mapping) for a in node.args))
    return node


def symbols(node: SExpr) -> set[str]:
    if isinstance(node, SSym):
        return {node.name}
    if isinstance(node, SCall):
        return set().union(*(symbols(a) for a in node.args)) if node.args else set()
    return set()


#: What the operators spell, for messages.
_SPELLING = {"bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^", "bitwise_not": "~"}
_LOGICAL = {"bitwise_and": "fn.logical_and", "bitwise_or": "fn.logical_or", "bitwise_xor": "fn.logical_xor",
            "bitwise_not": "fn.logical_not"}


def integer_misuse(node: SExpr) -> list[str]:
    """Integer-only functions applied to comparisons (``(x > 0) & (x < 1)``):
    bitwise operators on booleans, which mean the logical functions."""
    if not isinstance(node, SCall):
        return []
    problems = [p for a in node.args for p in integer_misuse(a)]
    if FUNCTIONS[node.fn][1] == "int" and any(isinstance(a, SCall) and a.fn in BOOL_RESULT for a in node.args):
        spelled = _SPELLING.get(node.fn, f"fn.{node.fn}")
        better = f": use {_LOGICAL[node.fn]}" if node.fn in _LOGICAL else ""
        problems.append(f"{spelled} takes integers, not the result of a comparison{better}")
    return problems


def functions(node: SExpr) -> set[str]:
    if isinstance(node, SCall):
        return {node.fn}.union(*(functions(a) for a in node.args))
    return set()


__all__ = ["BOOL_RESULT", "FUNCTIONS", "SCall", "SConst", "SExpr", "SSym", "STRICT_BROADCAST", "Sym", "fn",
           "functions", "integer_misuse", "resolve_enums", "sym", "symbols", "trace", "trace_cases"]
