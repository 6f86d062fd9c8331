"""Join, Merge and Parts: forms over a list input or giving a list output."""

from __future__ import annotations

from typing import Any

import attrs

from dsl import shapes as Sh

from dsl import expr as E
from dsl.forms.checks import Check
from dsl.types import DataType

@attrs.frozen
class Join:
    """The tensors of the list input ``inputs`` (one dtype) joined along the axis
    arg ``axis``: concatenated (``join`` "concat": shapes agree but along the
    axis) or stacked along a new axis (``join`` "stack": equal shapes)."""

    join: str
    inputs: str
    axis: str

    kind = "join"
    #: Moved, not computed: a float16 variant joins halves (ADR 0075).
    takes_half = True

    @property
    def stack(self) -> bool:
        return self.join == "stack"

    def problems(self, op: Any, check: Check) -> None:
        _list_input_problems(self, op, check)
        if self.join not in ("concat", "stack"):
            check.add(f"Join takes 'concat' or 'stack', got {self.join!r}")
        check.need_arg(self.axis, (DataType.INT, DataType.LONG), False, "axis to join along")

    def output_shapes(self, op: Any) -> tuple[Any, ...]:
        first = Sh.FirstShape(E.ParamRef("input", self.inputs))
        if self.stack:
            at = Sh.normalized(Sh.arg(self.axis), Sh.add(Sh.Length(first), 1))
            return (Sh.insert(first, at, Sh.Length(E.ParamRef("input", self.inputs))),)
        at = Sh.normalized(Sh.arg(self.axis), Sh.Length(first))
        return (Sh.replace(first, at, Sh.Total(E.ParamRef("input", self.inputs), at)),)

    def refusals(self, op: Any) -> tuple[Sh.Refusal, ...]:
        listed = E.ParamRef("input", self.inputs)
        first = Sh.FirstShape(listed)
        rank = Sh.add(Sh.Length(first), 1) if self.stack else Sh.Length(first)
        axis = Sh.arg(self.axis)
        out = [Sh.Refusal(f"{self.inputs}: the result's rank is above {Sh.MAX_RANK}", Sh.compare(rank, "<=", Sh.MAX_RANK))]
        if self.stack:
            out += [Sh.Refusal(f"{self.axis}: out of range", Sh.in_range(axis, rank)),
                    Sh.Refusal(f"{self.inputs}: must all have the same shape",
                               Sh.EachTensor(listed, Sh.ShapesEqual(Sh.Each(), first)))]
            return tuple(out)
        at = Sh.normalized(axis, rank)
        agree = Sh.all_of(Sh.compare(Sh.Length(Sh.Each()), "==", rank), Sh.ForAxes(rank, Sh.any_of(
            Sh.compare(Sh.Axis(), "==", at), Sh.compare(Sh.Item(Sh.Each(), Sh.Axis()), "==", Sh.Item(first, Sh.Axis())))))
        out += [Sh.Refusal(f"{self.inputs}: scalars cannot be concatenated (rank 1 or more)", Sh.compare(rank, ">=", 1)),
                Sh.Refusal(f"{self.axis}: out of range", Sh.in_range(axis, rank)),
                Sh.Refusal(f"{self.inputs}: shapes must agree except along the axis", Sh.EachTensor(listed, agree))]
        return tuple(out)

    def value_refusals(self, op: Any) -> tuple[str, ...]:
        return ()

@attrs.frozen
class Merge:
    """Element by element over the equal-shape tensors of the list input
    ``inputs``, in list order: ``add`` (wrapping for integers), ``avg`` (summed
    in double), ``max`` and ``min`` (NaN propagates) or ``max_index`` (the position in the
    list of the first largest; the first NaN counts as largest)."""

    inputs: str
    combine: str

    kind = "merge"
    #: A float16 variant where the op takes float32: each element read as its float, each result
    #: rounded once (ADR 0076).
    takes_half = True

    def problems(self, op: Any, check: Check) -> None:
        listed = _list_input_problems(self, op, check)
        if self.combine not in MERGE_COMBINES:
            check.add(f"Merge takes one of {', '.join(MERGE_COMBINES)}, got {self.combine!r}")
        elif self.combine == "max_index" and op.outputs and op.outputs[0].type is not DataType.LONG:
            check.add("Merge('max_index')'s output must be LONG")
        elif self.combine == "avg" and listed is not None and listed.type is not DataType.FLOATING_POINT:
            check.add(f"Merge('avg') divides: input '{self.inputs}' must be FLOATING_POINT")

    def output_shapes(self, op: Any) -> tuple[Any, ...]:
        return (Sh.FirstShape(E.ParamRef("input", self.inputs)),)

    def refusals(self, op: Any) -> tuple[Sh.Refusal, ...]:
        listed = E.ParamRef("input", self.inputs)
        return (Sh.Refusal(f"{self.inputs}: must all have the same shape",
                           Sh.EachTensor(listed, Sh.ShapesEqual(Sh.Each(), Sh.FirstShape(listed)))),)

    def value_refusals(self, op: Any) -> tuple[str, ...]:
        return ()

MERGE_COMBINES = ("add", "avg", "max", "min", "max_index")


@attrs.frozen
class Parts:
    """The tensors of the list output ``outputs`` cut from ``source`` (bytes
    move, none is computed; one dtype throughout):

    - ``split``: ``num`` equal parts of the input along ``axis``;
    - ``unstack``: one tensor per entry along ``axis``, which it drops;
    - ``meshgrid``: for each tensor of the list input ``source``, its elements
      spread along its own axis of a grid of every tensor's size (``cartesian``
      swaps the first two axes: numpy.meshgrid's "xy" indexing).

    ``params`` binds each role of the kind (``PARTS_ROLES``) to an arg.
    """

    part: str
    source: str
    outputs: str
    params: tuple[tuple[str, str], ...]

    kind = "parts"
    #: Bytes move: a float16 variant cuts halves (ADR 0075).
    takes_half = True

    def arg(self, role: str) -> str:
        return dict(self.params)[role]

    def problems(self, op: Any, check: Check) -> None:
        check.roles("Parts kind", self.part, PARTS_ROLES, self.params)
        source = check.inputs.get(self.source)
        listed = self.part == "meshgrid"
        if source is None:
            check.add(f"Parts needs an input '{self.source}' to cut from")
        elif source.count.is_single == listed:
            check.add(f"Parts('{self.part}') cuts from " + ("a list input (an Input with a count such as AtLeast(1))"
                                                          if listed else "a single input, not a list"))
        elif listed and source.count.low < 1:
            check.add(f"list input '{self.source}' must hold at least one tensor (AtLeast(1) or more)")
        if len(op.inputs) != 1:
            check.add("Parts takes the input it cuts from and no other input")
        target = next((o for o in op.outputs if o.name == self.outputs), None)
        if target is None:
            check.add(f"Parts needs an output '{self.outputs}' (an Output with count=AtLeast(0))")
        elif target.count.is_single or target.count.low != 0 or target.count.high is not None:
            check.add(f"output '{self.outputs}' must be a list of count AtLeast(0): the inputs say how many tensors "
                      "it holds")
        elif source is not None and target.type is not source.type:
            check.add(f"output '{self.outputs}' has the type of {self.source} ({source.type.value}): bytes move, "
                      "none is computed")
        if listed:
            _no_constraint_reads(op, self.source, check)

    def grid_axis(self) -> Any:
        """meshgrid: the axis of the grid along which tensor ``k`` of the list input (``Sh.Axis``)
        spreads its elements: ``k``, but with ``cartesian`` (where there are two tensors or more)
        the first two swapped, numpy.meshgrid's "xy" indexing."""
        k, sizes = Sh.Axis(), Sh.Numels(E.ParamRef("input", self.source))
        swapped = Sh.all_of(Sh.arg(self.arg("cartesian")), Sh.compare(Sh.Length(sizes), ">=", 2), Sh.compare(k, "<", 2))
        return Sh.Where(swapped, Sh.sub(1, k), k)

    def output_shapes(self, op: Any) -> tuple[Any, ...]:
        if self.part == "meshgrid":  # (grid axis k has the size of the tensor whose grid axis is k)
            listed = E.ParamRef("input", self.source)
            sizes = Sh.Numels(listed)
            return (Sh.Tensors(Sh.Length(listed), Sh.PerAxis(Sh.Length(sizes), Sh.Item(sizes, self.grid_axis()))),)
        x, rank = Sh.tensor(self.source), Sh.rank(self.source)
        at = Sh.normalized(Sh.arg(self.arg("axis")), rank)
        if self.part == "unstack":
            return (Sh.Tensors(Sh.Item(x, at), Sh.remove(x, at)),)
        num = Sh.arg(self.arg("num"))
        return (Sh.Tensors(num, Sh.replace(x, at, Sh.floordiv(Sh.Item(x, at), num))),)

    def refusals(self, op: Any) -> tuple[Sh.Refusal, ...]:
        if self.part == "meshgrid":
            sizes = Sh.Numels(E.ParamRef("input", self.source))
            return (Sh.Refusal(f"{self.source}: at most {Sh.MAX_RANK} tensors (one grid axis each)",
                               Sh.compare(Sh.Length(sizes), "<=", Sh.MAX_RANK)),
                    Sh.Refusal(f"{self.source}: the grids would be too large",
                               Sh.compare(Sh.Numel(sizes), "<=", Sh.MAX_ELEMENTS)))
        x, rank = Sh.tensor(self.source), Sh.rank(self.source)
        axis = Sh.arg(self.arg("axis"))
        out = [Sh.Refusal(f"{self.source}: a scalar cannot be cut (rank 1 or more)", Sh.compare(rank, ">=", 1)),
               Sh.Refusal(f"{self.arg('axis')}: out of range", Sh.in_range(axis, rank))]
        if self.part == "split":
            num = Sh.arg(self.arg("num"))
            out += [Sh.Refusal(f"{self.arg('num')}: must be 1 or more", Sh.compare(num, ">=", 1)),
                    Sh.Refusal(f"{self.source}: the size of the axis is not a multiple of {self.arg('num')}",
                               Sh.compare(_mod(Sh.Item(x, Sh.normalized(axis, rank)), num), "==", 0))]
        return tuple(out)

    def value_refusals(self, op: Any) -> tuple[str, ...]:
        return ()

PARTS_ROLES: dict[str, tuple[tuple[str, str], ...]] = {
    "split": (("axis", "int"), ("num", "int")),
    "unstack": (("axis", "int"),),
    "meshgrid": (("cartesian", "bool"),),
}


def _no_constraint_reads(op: Any, name: str, check: Check) -> None:
    """Constraints cannot read a list input: its tensors have no one shape."""
    for _, k in op.all_constraints():
        if any(r.kind == "input" and r.name == name for r in E.param_refs(k.expr)):
            check.add(f"constraint '{k.message}' reads the list input '{name}', which constraints cannot")


def _list_input_problems(c: Any, op: Any, check: Check) -> Any:
    """Join's and Merge's list input: declared with a count of one or more, the only input."""
    listed = check.inputs.get(c.inputs)
    if listed is None or listed.count.is_single:
        check.add(f"{c.kind} needs a list input '{c.inputs}' (an Input with a count such as AtLeast(1))")
    elif listed.count.low < 1:
        check.add(f"list input '{c.inputs}' must hold at least one tensor (AtLeast(1) or more)")
    if len(op.inputs) != 1:
        check.add(f"{c.kind} takes its list input and no other input")
    _no_constraint_reads(op, c.inputs, check)
    return listed


def _mod(a: Any, b: Any) -> Any:
    """a % b, as the constraint language spells it."""
    return E.Arith("%", a, b)
