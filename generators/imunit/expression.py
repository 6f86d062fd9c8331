"""Imaginet's expression language: parser and evaluator.

The grammar is ``expression.lark`` (C#'s precedence; the authoring guide's
section 10 for everything else). Member calls with empty parentheses may leave
them out (``input.shape.flat``); a function of one or more arguments may be
called bare (``ceil(x)``), through ``Math.`` or as a method of its first
argument (``x.ceil``, ``2.pow(n)``). Strings use double or single quotes and
concatenate with ``+``. Axes count from the right: axis 0 is the last NumPy
axis, -1 the first. Integers follow C#: ``/`` truncates and ``%`` keeps the
dividend's sign. The values are in ``values.py``.
"""

from __future__ import annotations

import functools
import math
import re
from pathlib import Path
from typing import Any, Callable, Mapping

import attrs
import lark

from generators.imunit.values import (BARE_ONLY, BOTH, EXTENSIONS, MATH, MATH_ONLY, STRING_METHODS, SYSTEM,
                                      VALUE_TYPES, Array, ExpressionError, ExternalCall, Identifier, Shape,
                                      ShapeBroadcast, Tensor, ValueType, _Library, quantize)

__all__ = ["Array", "ExpressionError", "ExternalCall", "Identifier", "Shape", "ShapeBroadcast", "Tensor",
           "ValueType", "VALUE_TYPES", "evaluate", "interpolate", "parse", "names"]


# ---------------------------------------------------------------- syntax


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
    """``target.name`` or ``target.name(args)`` (the same when the member is a function)."""

    target: Any
    name: str
    args: tuple[Any, ...]


@attrs.frozen
class Call:
    """A bare function call: ``ceil(real(x))``."""

    name: str
    args: tuple[Any, ...]


class _Tree(lark.Transformer):
    """lark's parse tree to the nodes above (run inline by the LALR parser)."""

    def number(self, items: list) -> Num:
        text = str(items[0])
        return Num(float(text) if any(c in text for c in ".eE") else int(text))

    def string(self, items: list) -> Str:
        return Str(str(items[0])[1:-1])

    def name(self, items: list) -> Name:
        return Name(str(items[0]))

    def binary(self, items: list) -> Binary:
        left, op, right = items
        return Binary(str(op), left, right)

    def unary(self, items: list) -> Unary:
        op, operand = items
        return Unary(str(op), operand)

    def ternary(self, items: list) -> Ternary:
        return Ternary(*items)

    def arguments(self, items: list) -> tuple:
        return tuple(items)

    def member(self, items: list) -> Member:
        target, name = items
        return Member(target, str(name), ())

    def method(self, items: list) -> Member:
        target, name, args = items
        return Member(target, str(name), args or ())

    def call(self, items: list) -> Call:
        name, args = items
        return Call(str(name), args or ())


_PARSER = lark.Lark((Path(__file__).with_name("expression.lark")).read_text(), parser="lalr",
                    transformer=_Tree(), maybe_placeholders=True)

#: What a parse error says it expected, most telling first (lark's terminal names).
_EXPECTED = (("RPAR", "')'"), ("COLON", "':'"), ("NUMBER", "a value"), ("NAME", "name"))


def _parse_error(text: str, error: lark.exceptions.UnexpectedInput) -> ExpressionError:
    if isinstance(error, lark.exceptions.UnexpectedCharacters):
        return ExpressionError(f"column {error.column}: unexpected character {text[error.pos_in_stream]!r}")
    assert isinstance(error, (lark.exceptions.UnexpectedToken, lark.exceptions.UnexpectedEOF))
    token = getattr(error, "token", None)
    at_end = token is None or token.type == "$END"
    column = len(text) + 1 if at_end else token.column
    found = "the end" if at_end else repr(str(token))
    if not at_end:
        try:  # a whole expression before the token: the token is what is wrong
            _PARSER.parse(text[:token.start_pos])
            return ExpressionError(f"column {column}: unexpected {found}")
        except lark.exceptions.UnexpectedInput:
            pass
    wanted = next((words for terminal, words in _EXPECTED if terminal in error.expected), "a value")
    return ExpressionError(f"column {column}: expected {wanted}, found {found}")


@functools.lru_cache(maxsize=None)
def parse(text: str) -> Any:
    """The expression's tree (trees are never changed, so one parse serves every evaluation)."""
    try:
        return _PARSER.parse(text)
    except lark.exceptions.UnexpectedInput as error:
        raise _parse_error(text, error) from None


def names(node: Any) -> set[str]:
    """The parameter names an expression refers to (not members or functions)."""
    if isinstance(node, str):
        node = parse(node)
    if isinstance(node, Name):
        return {node.name}
    if isinstance(node, (Num, Str)):
        return set()
    found: set[str] = set()
    for child in attrs.astuple(node, recurse=False):
        for item in child if isinstance(child, tuple) else (child,):
            if not isinstance(item, str):
                found |= names(item)
    return found


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


def _apply(name: str, function: Callable[..., Any], args: list[Any]) -> Any:
    try:
        return function(*args)
    except ExpressionError:
        raise
    except (TypeError, ValueError, ArithmeticError) as exc:
        raise ExpressionError(f"{name}: {exc}") from None


def _member(target: Any, name: str, args: list[Any], strict: bool) -> Any:
    if strict and name in EXTENSIONS:
        raise ExpressionError(f"{name} is not part of Imaginet's expression language (an opforge extension)")
    if isinstance(target, _Library):
        value = target.member(name)
    elif _number(target):
        if name == "quantize":
            return _apply(name, quantize, [target, *args])
        function = BOTH.get(name) or BARE_ONLY.get(name) or MATH_ONLY.get(name)
        if function is None:
            raise ExpressionError(f"a number has no member {name!r}")
        return _apply(name, function, [target, *args])
    elif isinstance(target, str):
        if name not in STRING_METHODS:
            raise ExpressionError(f"a string has no member {name!r}")
        return _apply(name, STRING_METHODS[name], [target, *args])
    elif target is None:
        raise ExpressionError(f"null has no member {name!r}")
    else:
        value = getattr(target, name, None) if not name.startswith("_") else None
        if value is None:
            raise ExpressionError(f"{type(target).__name__} has no member {name!r}")
    if callable(value):
        return _apply(name, value, args)
    if args:
        raise ExpressionError(f"{name} is not a function")
    return value


def _call(name: str, args: list[Any]) -> Any:
    function = BOTH.get(name) or BARE_ONLY.get(name)
    if function is None:
        hint = f" (only as Math.{name})" if name in MATH_ONLY else ""
        raise ExpressionError(f"unknown function {name!r}{hint}")
    return _apply(name, function, args)


_GLOBALS = {"true": True, "false": False, "null": None, "Math": MATH, "System": SYSTEM}


def evaluate(node: Any, env: Mapping[str, Any], strict: bool = False) -> Any:
    """Evaluate a parsed expression; ``env`` gives the parameters. ``strict`` refuses
    opforge's extensions (``values.EXTENSIONS``), as Studio would."""
    if isinstance(node, str):
        node = parse(node)
    if isinstance(node, Num):
        return node.value
    if isinstance(node, Str):
        return node.value
    if isinstance(node, Name):
        if node.name in env:
            return env[node.name]
        if node.name in _GLOBALS:
            return _GLOBALS[node.name]
        raise ExpressionError(f"unknown name {node.name!r}")
    if isinstance(node, Call):
        return _call(node.name, [evaluate(a, env, strict) for a in node.args])
    if isinstance(node, Unary):
        v = evaluate(node.operand, env, strict)
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
        c = evaluate(node.condition, env, strict)
        if not isinstance(c, bool):
            raise ExpressionError(f"'?:' needs a bool condition, got {c!r}")
        return evaluate(node.then if c else node.otherwise, env, strict)
    if isinstance(node, Member):
        target = evaluate(node.target, env, strict)
        return _member(target, node.name, [evaluate(a, env, strict) for a in node.args], strict)
    assert isinstance(node, Binary)
    op = node.op
    if op in ("&&", "||"):
        left = evaluate(node.left, env, strict)
        if not isinstance(left, bool):
            raise ExpressionError(f"'{op}' needs bools, got {left!r}")
        if (op == "&&" and not left) or (op == "||" and left):
            return left
        right = evaluate(node.right, env, strict)
        if not isinstance(right, bool):
            raise ExpressionError(f"'{op}' needs bools, got {right!r}")
        return right
    a, b = evaluate(node.left, env, strict), evaluate(node.right, env, strict)
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


def interpolate(message: str, env: Mapping[str, Any], strict: bool = False) -> str:
    """An Assert error with its ``{expression}`` parts evaluated."""

    def value(m: re.Match[str]) -> str:
        v = evaluate(m.group(1), env, strict)
        return ("true" if v else "false") if isinstance(v, bool) else str(v)

    return _FIELD.sub(value, message)

