"""Defaults computed from other parameters: ND4J's ``defaultValue = otherArg``,
``x.shape()`` and ``x.dataType()``.

The one rule every target renders: an arg left out takes the value of the arg
its default names (itself resolved first), or the shape or dtype of the tensor
its default names. A default that names an output is available only when the
caller gives that output (Python's ``out=``); otherwise the arg must be given,
as in ND4J's SameDiff mode. C callers always pass every arg.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from dsl import expr as E
from dsl.model import Arg, Op

Computed = E.ParamRef | E.ShapeOf | E.DataTypeOf


def is_computed(arg: Arg) -> bool:
    """Whether ``arg``'s default is computed from another parameter."""
    return isinstance(arg.default, (E.ParamRef, E.ShapeOf, E.DataTypeOf))


def source(default: Computed) -> E.ParamRef:
    """The parameter a computed default reads."""
    return default if isinstance(default, E.ParamRef) else default.input


def reads_output(default: Computed) -> bool:
    """A default from an output's shape or dtype: given only with the output (``out=``)."""
    return source(default).kind == "output"


def fill_order(op: Op) -> tuple[Arg, ...]:
    """The args with computed defaults, each after the args its default reads."""
    pending = {a.name: a for a in op.args if is_computed(a)}
    order: list[Arg] = []
    while pending:
        ready = [a for a in pending.values() if source(a.default).name not in pending]  # type: ignore[arg-type]
        if not ready:  # a cycle: validation reports it; fill the rest in declaration order
            ready = list(pending.values())
        for a in ready:
            order.append(a)
            del pending[a.name]
    return tuple(order)


def cycle(op: Op) -> tuple[str, ...]:
    """Args whose computed defaults name each other in a ring (empty when none do)."""
    following = {a.name: source(a.default).name for a in op.args  # type: ignore[arg-type]
                 if isinstance(a.default, E.ParamRef) and a.default.kind == "arg"}
    for start in following:
        seen = [start]
        while (nxt := following.get(seen[-1])) is not None and nxt not in seen:
            seen.append(nxt)
        if nxt == start:
            return tuple(seen)
    return ()


def resolve(op: Op, given: Mapping[str, Any], tensor: Callable[[str], Any]) -> dict[str, Any]:
    """Every arg's value at generation time (tests, examples): ``given`` (arg name ->
    value), else its default, a computed one resolved; ``tensor(name)`` gives an input's
    or output's array. Raises KeyError for an arg that is neither given nor defaulted."""
    values = {a.name: given[a.name] if a.name in given else a.default for a in op.args
              if a.name in given or a.has_default}
    for a in fill_order(op):
        if a.name in given:
            continue
        d = a.default
        if isinstance(d, E.ParamRef):
            values[a.name] = values[d.name] if d.kind == "arg" else tensor(d.name)
        elif isinstance(d, E.ShapeOf):
            values[a.name] = [int(n) for n in tensor(d.input.name).shape]
        else:
            values[a.name] = tensor(d.input.name).dtype.name  # type: ignore[union-attr]
    missing = [a.name for a in op.args if a.name not in values]
    if missing:
        raise KeyError(", ".join(missing))
    return values


def describe(default: Computed) -> str:
    """The default in words, for docs and docstrings."""
    name = source(default).name
    if isinstance(default, E.ParamRef):
        return f"the value of {name}"
    what = "shape" if isinstance(default, E.ShapeOf) else "dtype"
    return f"the {what} of {name}" + (" (required unless that output is given)" if reads_output(default) else "")
