"""Imaginet's expression language: parser, evaluator and standard libraries.

Grammar (Imaginet's custom-unit reference)::

    EXPR = TERNARY
    TERNARY = LOGICAL ('?' LOGICAL ':' LOGICAL)*
    LOGICAL = EQUALITY (('&' | '^' | '|' | '&&' | '||') EQUALITY)*
    EQUALITY = RELATIONAL (('==' | '!=') RELATIONAL)*
    RELATIONAL = SHIFT (('<' | '>' | '>=' | '<=') SHIFT)*
    SHIFT = ADDITIVE (('<<' | '>>') ADDITIVE)*
    ADDITIVE = MULTIPLICATIVE (('+' | '-') MULTIPLICATIVE)*
    MULTIPLICATIVE = UNARY (('*' | '/' | '%') UNARY)*
    UNARY = ('-' | '~' | '!')? CALL
    CALL = PRIMARY ('.' IDENTIFIER ARGSLIST)*
    PRIMARY = CONSTANT | GLOBAL | '(' EXPR ')'

Member calls with empty parentheses may leave them out (``input.shape.flat``).
Strings use double or single quotes and concatenate with ``+``.
Axes count from the right: axis 0 is the last NumPy axis. Integers follow
C#: ``/`` truncates and ``%`` keeps the dividend's sign.
"""

from __future__ import annotations

import functools

import math
import re
from typing import Any, Callable, Mapping

import attrs


class ExpressionError(ValueError):
    """A parse or evaluation error; parse errors name the column."""


# ---------------------------------------------------------------- syntax

_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<number>\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
  | (?P<string>"[^"]*"|'[^']*')
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>&&|\|\||==|!=|<=|>=|<<|>>|[?:&^|<>+\-*/%~!().,])
""", re.X)


@attrs.frozen
class Token:
    kind: str
    text: str
    column: int


def tokenize(text: str) -> list[Token]:
    tokens, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ExpressionError(f"column {pos + 1}: unexpected character {text[pos]!r}")
        if m.lastgroup != "space":
            tokens.append(Token(m.lastgroup, m.group(), pos + 1))  # type: ignore[arg-type]
        pos = m.end()
    tokens.append(Token("end", "", len(text) + 1))
    return tokens


@attrs.frozen
class Num:
    value: int | float


@attrs.frozen
class Str:
    value: str


@attrs.frozen
class Name:
    name: str


@attrs.frozen
class Unary:
    op: str
    operand: Any


@attrs.frozen
class Binary:
    op: str
    left: Any
    right: Any


@attrs.frozen
class Ternary:
    condition: Any
    then: Any
    otherwise: Any


@attrs.frozen
class Member:
    target: Any
    name: str
    args: tuple[Any, ...]


_LEVELS = (("&", "^", "|", "&&", "||"), ("==", "!="), ("<", ">", ">=", "<="), ("<<", ">>"), ("+", "-"),
           ("*", "/", "%"))


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = tokenize(text)
        self.i = 0

    def peek(self) -> Token:
        return self.tokens[self.i]

    def take(self, text: str | None = None, kind: str | None = None) -> Token:
        token = self.peek()
        if (text is not None and token.text != text) or (kind is not None and token.kind != kind):
            wanted = repr(text) if text is not None else kind
            found = repr(token.text) if token.kind != "end" else "the end"
            raise ExpressionError(f"column {token.column}: expected {wanted}, found {found}")
        self.i += 1
        return token

    def parse(self) -> Any:
        node = self.ternary()
        if self.peek().kind != "end":
            token = self.peek()
            raise ExpressionError(f"column {token.column}: unexpected {token.text!r}")
        return node

    def ternary(self) -> Any:
        node = self.level(0)
        while self.peek().text == "?":
            self.take("?")
            then = self.level(0)
            self.take(":")
            node = Ternary(node, then, self.level(0))
        return node

    def level(self, depth: int) -> Any:
        if depth == len(_LEVELS):
            return self.unary()
        node = self.level(depth + 1)
        while self.peek().kind == "op" and self.peek().text in _LEVELS[depth]:
            op = self.take().text
            node = Binary(op, node, self.level(depth + 1))
        return node

    def unary(self) -> Any:
        if self.peek().text in ("-", "~", "!"):
            op = self.take().text
            return Unary(op, self.unary())
        return self.call()

    def call(self) -> Any:
        node = self.primary()
        while self.peek().text == ".":
            self.take(".")
            name = self.take(kind="name").text
            args: list[Any] = []
            if self.peek().text == "(":
                self.take("(")
                if self.peek().text != ")":
                    args.append(self.ternary())
                    while self.peek().text == ",":
                        self.take(",")
                        args.append(self.ternary())
                self.take(")")
            node = Member(node, name, tuple(args))
        return node

    def primary(self) -> Any:
        token = self.peek()
        if token.kind == "number":
            self.take()
            text = token.text
            return Num(float(text) if any(c in text for c in ".eE") else int(text))
        if token.kind == "string":
            self.take()
            return Str(token.text[1:-1])
        if token.kind == "name":
            self.take()
            return Name(token.text)
        if token.text == "(":
            self.take("(")
            node = self.ternary()
            self.take(")")
            return node
        found = repr(token.text) if token.kind != "end" else "the end"
        raise ExpressionError(f"column {token.column}: expected a value, found {found}")


@functools.lru_cache(maxsize=None)
def parse(text: str) -> Any:
    """The expression's tree (trees are never changed, so one parse serves every evaluation)."""
    return _Parser(text).parse()


# ---------------------------------------------------------------- values


@attrs.frozen
class ValueType:
    name: str
    size_bytes: int

    def size(self) -> int:
        return self.size_bytes

    def __str__(self) -> str:
        return f"System.{self.name}"


VALUE_TYPES = {n: ValueType(n, s) for n, s in (
    ("Float16", 2), ("Float32", 4), ("Float64", 8), ("Int8", 1), ("Int16", 2), ("Int32", 4),
    # opforge's extensions for its other dtypes:
    ("Int64", 8), ("UInt8", 1), ("Bool", 1))}


@attrs.frozen
class ShapeBroadcast:
    """Shape A broadcast into B, grouped from the right (Imaginet's five numbers)."""

    left_: int
    group1_: int
    middle_: int
    group2_: int
    right_: int

    def left(self) -> int:
        return self.left_

    def group1(self) -> int:
        return self.group1_

    def middle(self) -> int:
        return self.middle_

    def group2(self) -> int:
        return self.group2_

    def right(self) -> int:
        return self.right_


@attrs.frozen
class Shape:
    """Dimensions in NumPy order; methods take axes counted from the right."""

    dims: tuple[int, ...]

    def _index(self, axis: int) -> int:
        if not 0 <= axis < len(self.dims):
            raise ExpressionError(f"axis {axis} is out of range for a shape of rank {len(self.dims)}")
        return len(self.dims) - 1 - axis

    def count(self) -> int:
        return len(self.dims)

    def flat(self) -> int:
        return math.prod(self.dims)

    def size(self, dim: int) -> int:
        return self.dims[self._index(dim)]

    def step(self, start: int, stop: int | None = None) -> int:
        """step(axis): elements between neighbours along axis; step(start, stop): the product of axes start..stop-1."""
        if stop is None:
            start, stop = 0, start
        if not 0 <= start <= stop <= len(self.dims):
            raise ExpressionError(f"step({start}, {stop}) is out of range for a shape of rank {len(self.dims)}")
        return math.prod(self.dims[len(self.dims) - stop:len(self.dims) - start])

    def slot(self, axis: int) -> int:
        return math.prod(self.dims[:self._index(axis)])

    def replace(self, axis: int, size: int) -> "Shape":
        i = self._index(axis)
        return Shape(self.dims[:i] + (size,) + self.dims[i + 1:])

    def insert(self, axis: int, size: int) -> "Shape":
        if not 0 <= axis <= len(self.dims):
            raise ExpressionError(f"axis {axis} is out of range for inserting into rank {len(self.dims)}")
        i = len(self.dims) - axis
        return Shape(self.dims[:i] + (size,) + self.dims[i:])

    def remove(self, axis: int) -> "Shape":
        i = self._index(axis)
        return Shape(self.dims[:i] + self.dims[i + 1:])

    def broadcastable(self, other: "Shape") -> bool:
        """opforge's extension: True if the shapes broadcast together (NumPy rules)."""
        a, b = self.dims[::-1], other.dims[::-1]
        return all(x == y or x == 1 or y == 1 for x, y in zip(a, b))

    def broadcast(self, other: "Shape") -> ShapeBroadcast:
        buckets = {"right": 1, "group2": 1, "middle": 1, "group1": 1, "left": 1}
        order = ["right", "group2", "middle", "group1", "left"]
        phase = 0
        for k in range(len(other.dims)):
            b = other.dims[-1 - k]
            a = self.dims[-1 - k] if k < len(self.dims) else 1
            if a != b and a != 1:
                raise ExpressionError(f"shape {self} does not broadcast into {other}")
            stretched = a != b
            if stretched and order[phase] in ("right", "middle"):
                phase += 1
            elif not stretched and order[phase] in ("group2", "group1"):
                phase += 1
            if phase >= len(order) or (stretched and order[phase] == "left"):
                raise ExpressionError(f"broadcasting {self} into {other} needs more than two groups")
            buckets[order[phase]] *= b
        return ShapeBroadcast(buckets["left"], buckets["group1"], buckets["middle"], buckets["group2"],
                              buckets["right"])

    def __str__(self) -> str:
        return "(" + ",".join(str(d) for d in self.dims) + ")"


@attrs.frozen
class Tensor:
    """An array parameter: its element type and shape."""

    type_: ValueType
    shape_: Shape

    def type(self) -> ValueType:
        return self.type_

    def shape(self) -> Shape:
        return self.shape_


class _Math:
    E = math.e
    PI = math.pi
    Epsilon = 5e-324
    NaN = math.nan
    MinValue = -1.7976931348623157e308
    MaxValue = 1.7976931348623157e308

    @staticmethod
    def real(x: int) -> float:
        return float(x)

    @staticmethod
    def int(x: float) -> int:
        return int(math.trunc(x))

    @staticmethod
    def abs(x: Any) -> Any:
        return abs(x)

    @staticmethod
    def max(a: Any, b: Any) -> Any:
        return max(a, b)

    @staticmethod
    def min(a: Any, b: Any) -> Any:
        return min(a, b)

    @staticmethod
    def pow(a: Any, b: Any) -> Any:
        return a ** b if isinstance(a, int) and isinstance(b, int) and b >= 0 else math.pow(a, b)

    @staticmethod
    def exp(x: float) -> float:
        return math.exp(x)

    @staticmethod
    def log(x: float, base: float | None = None) -> float:
        return math.log(x) if base is None else math.log(x, base)

    @staticmethod
    def hann(type_: ValueType, size: int) -> "Array":
        values = tuple(0.5 - 0.5 * math.cos(2 * math.pi * n / (size - 1)) if size > 1 else 1.0 for n in range(size))
        return Array(type_, Shape((size,)), values)

    @staticmethod
    def floor(x: float) -> int:
        return math.floor(x)

    @staticmethod
    def ceil(x: float) -> int:
        return math.ceil(x)

    @staticmethod
    def round(x: float) -> int:
        return round(x)  # midpoints to even, as .NET's Math.Round

    @staticmethod
    def sqrt(x: float) -> float:
        return math.sqrt(x)

    @staticmethod
    def sign(x: Any) -> int:
        return (x > 0) - (x < 0)

    sin = staticmethod(math.sin)
    sinh = staticmethod(math.sinh)
    cos = staticmethod(math.cos)
    cosh = staticmethod(math.cosh)
    tan = staticmethod(math.tan)
    tanh = staticmethod(math.tanh)
    atan = staticmethod(math.atan)
    atan2 = staticmethod(math.atan2)
    acos = staticmethod(math.acos)
    asin = staticmethod(math.asin)


@attrs.frozen
class Array:
    type_: ValueType
    shape_: Shape
    values: tuple[float, ...]

    def type(self) -> ValueType:
        return self.type_

    def shape(self) -> Shape:
        return self.shape_


class _System:
    @staticmethod
    def Shape(*dims: int) -> Shape:  # noqa: N802 - the library's name
        return Shape(tuple(int(d) for d in dims))

    @staticmethod
    def ArrayBuffer(type_: ValueType, shape: Any, static: bool = True) -> Tensor:  # noqa: N802
        return Tensor(type_, shape if isinstance(shape, Shape) else Shape((int(shape),)))

    @staticmethod
    def Tensor(type_: ValueType, shape: Any, static: bool = False) -> Tensor:  # noqa: N802
        """Scratch memory of a unit (the authoring guide's temporary buffers)."""
        return Tensor(type_, shape if isinstance(shape, Shape) else Shape((int(shape),)))

    def __getattr__(self, name: str) -> Any:
        if name in VALUE_TYPES:
            return VALUE_TYPES[name]
        raise AttributeError(name)


MATH = _Math()
SYSTEM = _System()

# ---------------------------------------------------------------- evaluation


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _arith(op: str, a: Any, b: Any) -> Any:
    if op == "+" and isinstance(a, str) and isinstance(b, str):
        return a + b
    if not (_number(a) and _number(b)):
        raise ExpressionError(f"'{op}' needs numbers, got {a!r} and {b!r}")
    both_int = isinstance(a, int) and isinstance(b, int)
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        if both_int:
            if b == 0:
                raise ExpressionError("integer division by zero")
            q = abs(a) // abs(b)
            return q if (a >= 0) == (b >= 0) else -q
        return a / b if b != 0 else (math.copysign(math.inf, a) * math.copysign(1, b) if a else math.nan)
    if op == "%":
        if both_int:
            if b == 0:
                raise ExpressionError("integer division by zero")
            return int(math.fmod(a, b))
        return math.fmod(a, b)
    raise ExpressionError(f"unknown operator {op}")


def _member(target: Any, name: str, args: list[Any]) -> Any:
    attr = getattr(target, name, None) if not name.startswith("_") else None
    if attr is None:
        raise ExpressionError(f"{type(target).__name__} has no member {name!r}")
    if callable(attr):
        try:
            return attr(*args)
        except TypeError as exc:
            raise ExpressionError(f"{name}: {exc}") from None
    if args:
        raise ExpressionError(f"{name} is not a function")
    return attr


def evaluate(node: Any, env: Mapping[str, Any]) -> Any:
    """Evaluate a parsed expression; ``env`` gives the parameters."""
    if isinstance(node, str):
        node = parse(node)
    if isinstance(node, Num):
        return node.value
    if isinstance(node, Str):
        return node.value
    if isinstance(node, Name):
        globals_ = {"true": True, "false": False, "null": None, "Math": MATH, "System": SYSTEM}
        if node.name in env:
            return env[node.name]
        if node.name in globals_:
            return globals_[node.name]
        raise ExpressionError(f"unknown name {node.name!r}")
    if isinstance(node, Unary):
        v = evaluate(node.operand, env)
        if node.op == "!":
            if not isinstance(v, bool):
                raise ExpressionError(f"'!' needs a bool, got {v!r}")
            return not v
        if node.op == "~":
            if not isinstance(v, int) or isinstance(v, bool):
                raise ExpressionError(f"'~' needs an integer, got {v!r}")
            return ~v
        if not _number(v):
            raise ExpressionError(f"'-' needs a number, got {v!r}")
        return -v
    if isinstance(node, Ternary):
        c = evaluate(node.condition, env)
        if not isinstance(c, bool):
            raise ExpressionError(f"'?:' needs a bool condition, got {c!r}")
        return evaluate(node.then if c else node.otherwise, env)
    if isinstance(node, Member):
        target = evaluate(node.target, env)
        return _member(target, node.name, [evaluate(a, env) for a in node.args])
    assert isinstance(node, Binary)
    op = node.op
    if op in ("&&", "||"):
        left = evaluate(node.left, env)
        if not isinstance(left, bool):
            raise ExpressionError(f"'{op}' needs bools, got {left!r}")
        if (op == "&&" and not left) or (op == "||" and left):
            return left
        right = evaluate(node.right, env)
        if not isinstance(right, bool):
            raise ExpressionError(f"'{op}' needs bools, got {right!r}")
        return right
    a, b = evaluate(node.left, env), evaluate(node.right, env)
    if op in ("==", "!="):
        same = a == b
        return same if op == "==" else not same
    if op in ("<", ">", "<=", ">="):
        if not (_number(a) and _number(b)):
            raise ExpressionError(f"'{op}' needs numbers, got {a!r} and {b!r}")
        return {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op]
    if op in ("&", "^", "|"):
        if isinstance(a, bool) and isinstance(b, bool) or (isinstance(a, int) and isinstance(b, int)):
            return {"&": a & b, "^": a ^ b, "|": a | b}[op]
        raise ExpressionError(f"'{op}' needs two bools or two integers, got {a!r} and {b!r}")
    if op in ("<<", ">>"):
        if not (isinstance(a, int) and isinstance(b, int)):
            raise ExpressionError(f"'{op}' needs integers")
        return a << b if op == "<<" else a >> b
    return _arith(op, a, b)


_FIELD = re.compile(r"\{([^{}]*)\}")


def interpolate(message: str, env: Mapping[str, Any]) -> str:
    """An Assert error with its ``{expression}`` parts evaluated."""

    def value(m: re.Match[str]) -> str:
        v = evaluate(m.group(1), env)
        return ("true" if v else "false") if isinstance(v, bool) else str(v)

    return _FIELD.sub(value, message)


Function = Callable[..., Any]
