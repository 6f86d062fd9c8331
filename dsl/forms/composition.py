"""Compose: an op as a sequence of other elementwise ops of its namespace."""

from __future__ import annotations

import inspect
from typing import Any, Callable, Union

import attrs

from dsl.recovery import Cascade, Unbound

@attrs.frozen
class Step:
    """One op applied inside a composition: ``name = op(inputs..., args...)``.

    Inputs name the composed op's inputs or earlier steps, or are numbers.
    """

    name: str
    op: str
    inputs: tuple[Union[str, float, int, bool], ...]
    args: tuple[tuple[str, Any], ...]


@attrs.frozen
class Composition:
    """An op defined as a sequence of other elementwise ops of its namespace.

    Code targets fuse it into one elementwise kernel (no intermediate buffers
    at all); units and NNEF keep the steps (Composite units with static
    buffers, fragment bodies).
    """

    params: tuple[str, ...]
    steps: tuple[Step, ...]

    kind = "composition"

    @property
    def result(self) -> str:
        return self.steps[-1].name

    def problems(self, op: Any, check: Any) -> None:
        """Checked when the steps resolve (``dsl/compose.py``): they are ops of the catalogue."""

class TensorSym:
    """A tensor inside a composition lambda."""

    __slots__ = ("name", "_steps")

    def __init__(self, name: str, steps: list[Step]) -> None:
        self.name = name
        self._steps = steps

    def __bool__(self) -> bool:
        raise TypeError("a composed tensor is not a Python bool")


def trace_composition(function: Callable[..., Any]) -> Composition:
    """Run ``function`` on tensor symbols; ``step(...)`` calls inside it record the steps."""
    params = tuple(inspect.signature(function).parameters)
    steps: list[Step] = []
    _ACTIVE.append(steps)
    try:
        result = function(*(TensorSym(p, steps) for p in params))
    finally:
        _ACTIVE.pop()
    if not isinstance(result, TensorSym) or not steps or result.name != steps[-1].name:
        raise TypeError("a composition must return the result of its last step(...)")
    return Composition(params, tuple(steps))


_ACTIVE: list[list[Step]] = []  # compositions being traced (part of the builder stack's state)


def step(op: str, *inputs: Any, **args: Any) -> TensorSym:
    """Apply the elementwise op ``"namespace.op"`` inside ``Compose(lambda ...)``."""
    if not _ACTIVE:
        raise TypeError("step() is only available inside Compose(lambda ...)")
    steps = _ACTIVE[-1]
    refs: list[Union[str, float, int, bool]] = []
    for value in inputs:
        if isinstance(value, Unbound):
            raise Cascade(repr(value))
        if isinstance(value, TensorSym):
            refs.append(value.name)
        elif isinstance(value, (bool, int, float)):
            refs.append(value)
        else:
            raise TypeError(f"step({op!r}) takes tensors of the composition or numbers, got {value!r}")
    name = f"t{len(steps)}"
    steps.append(Step(name, op, tuple(refs), tuple(sorted(args.items()))))
    return TensorSym(name, steps)
