"""TensorDot: numpy.tensordot over axes given as int-list args."""

from __future__ import annotations

from typing import Any

import attrs

from dsl import shapes as Sh

from dsl.forms.checks import Check
from dsl.types import DataType

@attrs.frozen
class TensorDot:
    """numpy.tensordot of the two ``inputs`` over the axes that the int-list
    args ``axes`` (of the first, of the second) name in pairs: ND4J's
    tensorMmul. The boolean args ``transposes`` reverse the axes of the first
    and the second input before (the axes name axes of the reversed tensors)
    and of the result after, as ND4J's transpose of an N-d array does. The
    result holds the free axes of the first, then those of the second; the
    einsum labels are built at run time."""

    inputs: tuple[str, str]
    axes: tuple[str, str]
    transposes: tuple[str, str, str]

    kind = "tensordot"
    #: A float16 variant where the op takes float32: its products in float32 (ADR 0076).
    takes_half = True

    def problems(self, op: Any, check: Check) -> None:
        for name in self.inputs:
            check.need_input(name)
        if len(op.inputs) != 2:
            check.add("a tensordot takes exactly its two inputs")
        for name in self.axes:
            check.need_arg(name, (DataType.INT, DataType.LONG), True, "axes to contract")
        for name in self.transposes:
            check.need_arg(name, (DataType.BOOLEAN,), False, "whether to reverse the axes")
        first = check.inputs.get(self.inputs[0])
        if first is not None and op.outputs and op.outputs[0].type is not first.type:
            check.add(f"the output has the type of {first.name} ({first.type.value})")

    def _operands(self) -> tuple[Any, Any, Any, Any]:
        """(x', y', rank of x, rank of y): each input with its axes reversed when transposed."""
        (x, y), (tx, ty, _) = self.inputs, self.transposes
        xs = Sh.Where(Sh.arg(tx), Sh.reversed_shape(Sh.tensor(x)), Sh.tensor(x))
        ys = Sh.Where(Sh.arg(ty), Sh.reversed_shape(Sh.tensor(y)), Sh.tensor(y))
        return xs, ys, Sh.rank(x), Sh.rank(y)

    def _free(self) -> Any:
        """The free axes of x', then of y'."""
        xs, ys, rx, ry = self._operands()
        ax, ay = (Sh.arg(a) for a in self.axes)
        return Sh.Concat((Sh.PerAxis(rx, Sh.Item(xs, Sh.Axis()), Sh.not_(Sh.Names(ax, Sh.Axis(), rx))),
                          Sh.PerAxis(ry, Sh.Item(ys, Sh.Axis()), Sh.not_(Sh.Names(ay, Sh.Axis(), ry)))))

    def output_shapes(self, op: Any) -> tuple[Any, ...]:
        free = self._free()
        return (Sh.Where(Sh.arg(self.transposes[2]), Sh.reversed_shape(free), free),)

    def refusals(self, op: Any) -> tuple[Sh.Refusal, ...]:
        xs, ys, rx, ry = self._operands()
        ax, ay = (Sh.arg(a) for a in self.axes)
        pair = Sh.Axis()
        a, b = Sh.Item(ax, pair), Sh.Item(ay, pair)
        names = f"{self.axes[0]}, {self.axes[1]}"
        return (Sh.Refusal(f"{names}: must name as many axes each", Sh.compare(Sh.Length(ax), "==", Sh.Length(ay))),
                Sh.Refusal(f"{names}: an axis pair is out of range", Sh.ForAxes(Sh.Length(ax), Sh.all_of(
                    Sh.in_range(a, rx), Sh.in_range(b, ry)))),
                Sh.Refusal(f"{names}: an axis is named twice", Sh.all_of(Sh.Distinct(ax, rx), Sh.Distinct(ay, ry))),
                Sh.Refusal(f"{self.inputs[0]} and {self.inputs[1]}: contracted axes differ in size",
                           Sh.ForAxes(Sh.Length(ax), Sh.compare(Sh.Item(xs, Sh.normalized(a, rx)), "==",
                                                               Sh.Item(ys, Sh.normalized(b, ry))))),
                Sh.at_most_max_rank(self._free(), f"{self.inputs[0]} and {self.inputs[1]}"))

    def value_refusals(self, op: Any) -> tuple[str, ...]:
        return ()

    def matrix_product(self) -> Any:
        """When the contraction is one matrix product of the inputs as they are stored: x as
        rows x inner, y as inner x cols, the output as rows x cols, each of them transposed
        where its flag is set. That holds where the paired axes are x's last and y's first, in
        pair order (``numpy.tensordot(x, y, axes=k)``), and where a reversal changes no
        flattening: a reversed input has at most two axes, and one paired with the other's
        when it has two; a reversed result, at most one free axis of each input."""
        (x, y), (tx, ty, tz) = self.inputs, self.transposes
        ax, ay = (Sh.arg(a) for a in self.axes)
        rx, ry, pairs, m = Sh.rank(x), Sh.rank(y), Sh.Length(ax), Sh.Axis()
        last = Sh.ForAxes(pairs, Sh.compare(Sh.normalized(Sh.Item(ax, m), rx), "==", Sh.add(Sh.sub(rx, pairs), m)))
        first = Sh.ForAxes(pairs, Sh.compare(Sh.normalized(Sh.Item(ay, m), ry), "==", m))

        def plain(flag: str, rank: Any) -> Any:  # (reversing a matrix transposes it)
            return Sh.any_of(Sh.not_(Sh.arg(flag)), Sh.compare(rank, "<=", 1),
                             Sh.all_of(Sh.compare(rank, "==", 2), Sh.compare(pairs, "==", 1)))

        free = Sh.all_of(Sh.compare(Sh.sub(rx, pairs), "<=", 1), Sh.compare(Sh.sub(ry, pairs), "<=", 1))
        return Sh.all_of(last, first, plain(tx, rx), plain(ty, ry), Sh.any_of(Sh.not_(Sh.arg(tz)), free))
