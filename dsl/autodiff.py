"""Derivatives of the scalar IR (``dsl/scalar.py``): each function's partial derivatives,
stated once, and the chain rule over a traced expression.

Where a derivative has a convention (a kink, a tie, a removable singularity), the rule is
JAX's, so that a backward op agrees with ``jax.vjp`` of the same computation:

* ``abs``: the slope at 0 is +1 (JAX selects ``x >= 0``);
* ``maximum``/``minimum``: on a tie each operand gets half the gradient;
* ``where``: the gradient flows to the branch taken; the condition has none;
* ``pow(u, v)``: ``v * u**(v - 1)`` for ``u``; ``log(u) * u**v`` for ``v``, with the
  logarithm's operand 1 where ``u`` is 0 (a zero, not a NaN, at ``0**v``);
* rounding, ``sign`` and ``floor_div`` are piecewise constant: their derivative is 0;
* comparisons, logic and bitwise functions have none (their results are not reals).
"""

from __future__ import annotations

import math
from typing import Callable

from dsl.scalar import SCall, SConst, SExpr, SSym, Sym, fn, sym

ZERO = SConst(0.0)
ONE = SConst(1.0)


class NotDifferentiable(ValueError):
    """An expression whose derivative does not exist: the message says why."""


_Partials = Callable[..., tuple[object, ...]]


def _pow_base(u: Sym, v: Sym) -> object:
    return v * fn.pow(u, v - 1.0)


def _pow_exponent(u: Sym, v: Sym) -> object:
    return fn.log(fn.where(u == 0.0, 1.0, u)) * fn.pow(u, v)


def _half_on_ties(u: Sym, v: Sym, wins: Sym) -> object:
    return fn.where(wins, 1.0, fn.where(u == v, 0.5, 0.0))


#: Each differentiable function's partial derivatives, by operand, as expressions of its operands.
PARTIALS: dict[str, _Partials] = {
    "add": lambda u, v: (1.0, 1.0),
    "sub": lambda u, v: (1.0, -1.0),
    "mul": lambda u, v: (v, u),
    "div": lambda u, v: (1.0 / v, -u / (v * v)),
    "pow": lambda u, v: (_pow_base(u, v), _pow_exponent(u, v)),
    "neg": lambda u: (-1.0,),
    "abs": lambda u: (fn.where(u >= 0.0, 1.0, -1.0),),
    "minimum": lambda u, v: (_half_on_ties(u, v, u < v), _half_on_ties(v, u, v < u)),
    "maximum": lambda u, v: (_half_on_ties(u, v, u > v), _half_on_ties(v, u, v > u)),
    # truncated remainder u - v * trunc(u / v); floored remainder u - v * floor(u / v)
    "mod": lambda u, v: (1.0, -(fn.sign(u / v) * fn.floor(abs(u / v)))),
    "floor_mod": lambda u, v: (1.0, -fn.floor(u / v)),
    "exp": lambda u: (fn.exp(u),),
    "expm1": lambda u: (fn.exp(u),),
    "log": lambda u: (1.0 / u,),
    "log1p": lambda u: (1.0 / (1.0 + u),),
    "sqrt": lambda u: (0.5 / fn.sqrt(u),),
    "sin": lambda u: (fn.cos(u),),
    "cos": lambda u: (-fn.sin(u),),
    "tan": lambda u: (1.0 + fn.tan(u) * fn.tan(u),),
    # (1 - u)(1 + u), not 1 - u*u: no cancellation where |u| is near 1
    "asin": lambda u: (1.0 / fn.sqrt((1.0 - u) * (1.0 + u)),),
    "acos": lambda u: (-1.0 / fn.sqrt((1.0 - u) * (1.0 + u)),),
    "atan": lambda u: (1.0 / (1.0 + u * u),),
    "atan2": lambda y, x: (x / (x * x + y * y), -y / (x * x + y * y)),
    "sinh": lambda u: (fn.cosh(u),),
    "cosh": lambda u: (fn.sinh(u),),
    "tanh": lambda u: (1.0 - fn.tanh(u) * fn.tanh(u),),
    "asinh": lambda u: (1.0 / fn.sqrt(u * u + 1.0),),
    "acosh": lambda u: (1.0 / fn.sqrt((u - 1.0) * (u + 1.0)),),
    "atanh": lambda u: (1.0 / ((1.0 - u) * (1.0 + u)),),
    "sigmoid": lambda u: (fn.sigmoid(u) * (1.0 - fn.sigmoid(u)),),
    "erf": lambda u: (2.0 / math.sqrt(math.pi) * fn.exp(-(u * u)),),
    "erfc": lambda u: (-2.0 / math.sqrt(math.pi) * fn.exp(-(u * u)),),
}

#: Piecewise-constant functions: their derivative is 0 wherever it exists.
PIECEWISE_CONSTANT = frozenset({"floor", "ceil", "round_half_even", "round_half_away", "sign", "floor_div"})


def differentiate(node: SExpr, wrt: str) -> SExpr:
    """The derivative of ``node`` with respect to the symbol ``wrt``, simplified.

    Raises :class:`NotDifferentiable` where the chain reaches a function without a
    derivative (a comparison used as a number, a bitwise function)."""
    return simplify(_derive(node, wrt))


def _derive(node: SExpr, wrt: str) -> SExpr:
    if isinstance(node, SSym):
        return ONE if node.name == wrt else ZERO
    if isinstance(node, SConst):
        return ZERO
    if node.fn == "where":  # the condition selects; it has no derivative of its own
        condition, then, otherwise = node.args
        return simplify(SCall("where", (condition, _derive(then, wrt), _derive(otherwise, wrt))))
    inner = [simplify(_derive(a, wrt)) for a in node.args]
    if all(d == ZERO for d in inner):
        return ZERO
    if node.fn in PIECEWISE_CONSTANT:
        return ZERO
    rule = PARTIALS.get(node.fn)
    if rule is None:
        raise NotDifferentiable(f"{node.fn} has no derivative")
    partials = rule(*(Sym(a) for a in node.args))
    terms = [simplify(SCall("mul", (sym(p).node, d))) for p, d in zip(partials, inner) if d != ZERO]
    total = terms[0]
    for term in terms[1:]:
        total = simplify(SCall("add", (total, term)))
    return total


def _number(node: SExpr) -> float | None:
    if isinstance(node, SConst) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return float(node.value)
    return None


def _fold(fn_: str, a: float, b: float) -> float | None:
    if fn_ == "add":
        return a + b
    if fn_ == "sub":
        return a - b
    if fn_ == "mul":
        return a * b
    if fn_ == "div" and b != 0.0:
        return a / b
    return None


def _term(node: SExpr) -> tuple[float, SExpr]:
    """``node`` as (constant factor, rest): ``3 * x`` is (3, x), ``x`` is (1, x)."""
    if isinstance(node, SCall) and node.fn == "mul" and _number(node.args[0]) is not None:
        return _number(node.args[0]), node.args[1]  # type: ignore[return-value]
    return 1.0, node


def simplify(node: SExpr) -> SExpr:
    """``node`` with constants folded and the identities of 0 and 1 applied, innermost first.

    ``0 * x`` is 0 even where x is infinite or NaN: a zero tangent stays zero, as in JAX."""
    if not isinstance(node, SCall):
        return node
    args = tuple(simplify(a) for a in node.args)
    f = node.fn
    nums = [_number(a) for a in args]
    if len(args) == 2 and nums[0] is not None and nums[1] is not None:
        folded = _fold(f, nums[0], nums[1])
        if folded is not None:
            return SConst(folded)
    if f == "neg":
        (a,) = args
        if nums[0] is not None:
            return SConst(-nums[0])
        if isinstance(a, SCall) and a.fn == "neg":
            return a.args[0]
        if isinstance(a, SCall) and a.fn == "mul" and _number(a.args[0]) is not None:
            return SCall("mul", (SConst(-_number(a.args[0])), a.args[1]))  # type: ignore[operator]
    if f == "add":
        if nums[0] == 0.0:
            return args[1]
        if nums[1] == 0.0:
            return args[0]
        if isinstance(args[1], SCall) and args[1].fn == "neg":
            return SCall("sub", (args[0], args[1].args[0]))
        # like terms: a + a is 2 * a, 2 * a + a is 3 * a (one rounding where there were three)
        (c0, t0), (c1, t1) = _term(args[0]), _term(args[1])
        if t0 == t1:
            return simplify(SCall("mul", (SConst(c0 + c1), t0)))
    if f == "sub":
        if nums[1] == 0.0:
            return args[0]
        if nums[0] == 0.0:
            return simplify(SCall("neg", (args[1],)))
        if isinstance(args[1], SCall) and args[1].fn == "neg":
            return simplify(SCall("add", (args[0], args[1].args[0])))
    if f == "mul":
        for k, other in ((0, args[1]), (1, args[0])):
            if nums[k] == 0.0:
                return ZERO
            if nums[k] == 1.0:
                return other
            if nums[k] == -1.0:
                return simplify(SCall("neg", (other,)))
        # a constant factor goes first, and constant factors merge: 2 * (3 * x) is 6 * x
        if nums[1] is not None:
            return simplify(SCall("mul", (args[1], args[0])))
        if nums[0] is not None and isinstance(args[1], SCall) and args[1].fn == "mul" \
                and _number(args[1].args[0]) is not None:
            return simplify(SCall("mul", (SConst(nums[0] * _number(args[1].args[0])), args[1].args[1])))  # type: ignore
        if nums[0] is not None and isinstance(args[1], SCall) and args[1].fn == "neg":
            return simplify(SCall("mul", (SConst(-nums[0]), args[1].args[0])))
        if nums[0] is None and isinstance(args[1], SCall) and args[1].fn == "mul" \
                and _number(args[1].args[0]) is not None:  # a * (c * b) is c * (a * b)
            return simplify(SCall("mul", (args[1].args[0], SCall("mul", (args[0], args[1].args[1])))))
        for k in (0, 1):  # (-a) * b is -(a * b)
            if isinstance(args[k], SCall) and args[k].fn == "neg":  # type: ignore[union-attr]
                rest = (args[k].args[0], args[1 - k]) if k == 0 else (args[0], args[1].args[0])  # type: ignore
                return simplify(SCall("neg", (SCall("mul", rest),)))
    if f == "div":
        if nums[1] == 1.0:
            return args[0]
        if nums[0] == 0.0:
            return ZERO
    if f == "where" and args[1] == args[2]:
        return args[1]
    return SCall(f, args)


__all__ = ["NotDifferentiable", "ONE", "PARTIALS", "PIECEWISE_CONSTANT", "ZERO", "differentiate", "simplify"]
