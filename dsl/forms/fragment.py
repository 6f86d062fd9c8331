"""Fragment: hand-written C and Python kernels, one class per layout the targets know.

The layout says what the C function takes and what the output's shape is; each
class holds exactly the fields its layout uses. The matrix layouts live in
``matrix_fragment``; ``fragment_layouts`` builds a fragment from a layout's name.
"""

from __future__ import annotations

from typing import Any

import attrs

from dsl import dtypes as D
from dsl import expr as E
from dsl import shapes as Sh
from dsl.forms.checks import Check
from dsl.types import DataType


@attrs.frozen
class FragmentKernel:
    """Hand-written kernels: C fragments per dtype and one Python fragment, in the
    files ``c_file`` and ``python_file`` beside the ops file; ``args`` are the
    single-valued args the C function takes after its tensors."""

    c_file: str
    c_fragments: tuple[tuple[str, str], ...]  # (dtype, fragment name)
    python_file: str
    python_fragment: str
    args: tuple[str, ...]

    kind = "fragment"
    #: The layout's name, as an ops file spells it.
    layout = ""
    matrix = False

    @property
    def layouts(self) -> tuple[str, ...]:
        """One layout per output (the shape rule of each)."""
        return (self.layout,)

    @property
    def takes_half(self) -> bool:
        """A float16 variant where a C fragment for float16 is given: it reads each half as its
        float and rounds each result to a half once, as the Python fragment's float64 does."""
        return any(dtype == "float16" for dtype, _ in self.c_fragments)

    def problems(self, op: Any, check: Check) -> None:
        self.layout_problems(op, check)
        for name in self.args:
            if check.scalar_arg(name) is None:
                check.add(f"fragment arg '{name}' must be a single-valued arg")

    def layout_problems(self, op: Any, check: Check) -> None:
        """What the layout asks of the op; by default, one output."""
        if len(op.outputs) != 1:
            check.add(f"a {self.layout} fragment has exactly one output")

    def output_shapes(self, op: Any) -> tuple[Any, ...]:
        return (Sh.tensor(op.inputs[0].name),)

    def refusals(self, op: Any) -> tuple[Sh.Refusal, ...]:
        return ()

    def value_refusals(self, op: Any) -> tuple[str, ...]:
        """What the kernels find on values at run time (no shape says it)."""
        return ()


def _ranked(op: Any) -> Sh.Refusal:
    first = op.inputs[0].name
    return Sh.Refusal(f"{first}: must have rank 1 or more", Sh.compare(Sh.rank(first), ">=", 1))


@attrs.frozen
class AxisFragment(FragmentKernel):
    """``(input, step, size, slot, <scalar args>..., output)`` for the axis arg
    named by ``axis``: Imaginet's decomposition of a tensor around one axis; the
    output has the input's shape."""

    axis: str = "axis"

    layout = "axis"

    def layout_problems(self, op: Any, check: Check) -> None:
        super().layout_problems(op, check)
        check.need_arg(self.axis, (DataType.INT, DataType.LONG), False, "axis of the fragment")

    def refusals(self, op: Any) -> tuple[Sh.Refusal, ...]:
        first = op.inputs[0].name
        return (_ranked(op),
                Sh.Refusal(f"{self.axis}: out of range", Sh.in_range(Sh.arg(self.axis), Sh.rank(first))))


@attrs.frozen
class FlatFragment(FragmentKernel):
    """``(input, count, <scalar args>..., output)``: every element in row-major
    order gives one value (a scalar output)."""

    layout = "flat"

    def output_shapes(self, op: Any) -> tuple[Any, ...]:
        return (Sh.Dims(()),)


@attrs.frozen
class RowsFragment(FragmentKernel):
    """Inputs of one shape (rank 1 or more) in rows of their last axis:
    ``(in0, in1, ..., rows, len, <scalar args>..., output)``, the output of that
    shape too, or with rows ``widen`` times as long."""

    widen: int = 1

    layout = "rows"

    def layout_problems(self, op: Any, check: Check) -> None:
        super().layout_problems(op, check)
        if self.widen != 1 and not (isinstance(self.widen, int) and self.widen > 1 and len(op.inputs) == 1):
            check.add(WIDEN)

    def output_shapes(self, op: Any) -> tuple[Any, ...]:
        x = Sh.tensor(op.inputs[0].name)
        if self.widen == 1:
            return (x,)
        return (Sh.replace(x, Sh.sub(Sh.Length(x), 1), Sh.mul(Sh.last(x), self.widen)),)

    def refusals(self, op: Any) -> tuple[Sh.Refusal, ...]:
        names = [i.name for i in op.inputs]
        x = Sh.tensor(names[0])
        return (_ranked(op), *(Sh.Refusal(f"{n}: must have the shape of {names[0]}", Sh.ShapesEqual(Sh.tensor(n), x))
                               for n in names[1:]))


@attrs.frozen
class ChannelsFragment(FragmentKernel):
    """Rows of the first input: each row its elements along the axes from ``axis`` (the int arg
    naming the first of them, negative counting from the last: -1 is the last axis alone, as
    ONNX's LayerNormalization) to the last; the other inputs one value per element of a row,
    shaped as those axes (gain, bias): ``(x, rows, len, <vectors>..., <scalar args>..., output)``,
    the output of x's shape."""

    axis: str = "axis"

    layout = "channels"

    def layout_problems(self, op: Any, check: Check) -> None:
        super().layout_problems(op, check)
        check.need_arg(self.axis, (DataType.INT, DataType.LONG), False, "first axis of the rows")

    def refusals(self, op: Any) -> tuple[Sh.Refusal, ...]:
        names = [i.name for i in op.inputs]
        x, axis = Sh.tensor(names[0]), Sh.arg(self.axis)
        return (_ranked(op), Sh.Refusal(f"{self.axis}: out of range", Sh.in_range(axis, Sh.rank(names[0]))),
                *(Sh.Refusal(f"{n}: must have the shape of the axes of {names[0]} from {self.axis} on",
                             Sh.ShapesEqual(Sh.tensor(n), Sh.Slice(x, axis, None))) for n in names[1:]))


@attrs.frozen
class SelectFragment(FragmentKernel):
    """One input in rows of its last axis, every output rows of ``length`` (the
    int arg that names it, also among the scalar args): ``(x, rows, len, <scalar
    args>..., outputs...)`` (top_k)."""

    length: str | None = None

    layout = "select"

    def layout_problems(self, op: Any, check: Check) -> None:  # (any number of outputs)
        if self.length is None or self.length not in self.args:
            check.add("a select fragment names the int arg of its rows' length: length=..., also in args")
        else:
            check.need_arg(self.length, (DataType.INT, DataType.LONG), False, "length of the outputs' rows")

    def output_shapes(self, op: Any) -> tuple[Any, ...]:
        x = Sh.tensor(op.inputs[0].name)
        return (Sh.replace(x, Sh.sub(Sh.Length(x), 1), Sh.arg(self.length or "")),) * len(op.outputs)

    def refusals(self, op: Any) -> tuple[Sh.Refusal, ...]:
        first = op.inputs[0].name
        length, x = Sh.arg(self.length or ""), Sh.tensor(first)
        return (_ranked(op), Sh.Refusal(f"{self.length}: must lie in 0..the size of the last axis of {first}",
                                        Sh.all_of(Sh.compare(length, ">=", 0), Sh.compare(length, "<=", Sh.last(x)))))


@attrs.frozen
class DenseFragment(FragmentKernel):
    """The first input in rows of its last axis (len), the second a len x units
    matrix and any further input a vector of units: ``(x, rows, len, w, units,
    <vectors>..., <scalar args>..., output)``, the output rows of units (a linear
    layer)."""

    layout = "dense"

    def layout_problems(self, op: Any, check: Check) -> None:
        super().layout_problems(op, check)
        if len(op.inputs) < 2:
            check.add("a dense fragment takes rows and a matrix of weights (and vectors): 2 inputs or more")

    def output_shapes(self, op: Any) -> tuple[Any, ...]:
        x, w = Sh.tensor(op.inputs[0].name), Sh.tensor(op.inputs[1].name)
        return (Sh.Concat((Sh.Slice(x, None, -1), Sh.Slice(w, 1, None))),)

    def refusals(self, op: Any) -> tuple[Sh.Refusal, ...]:
        names = [i.name for i in op.inputs]
        x, w = Sh.tensor(names[0]), Sh.tensor(names[1])
        out = [_ranked(op), Sh.Refusal(f"{names[1]}: must be a matrix with as many rows as the last axis of {names[0]}",
                                       Sh.all_of(Sh.compare(Sh.rank(names[1]), "==", 2),
                                                 Sh.compare(Sh.item(w, 0), "==", Sh.last(x))))]
        out += [Sh.Refusal(f"{n}: must be a vector as long as the columns of {names[1]}",
                           Sh.ShapesEqual(Sh.tensor(n), Sh.Slice(w, 1, None))) for n in names[2:]]
        return tuple(out)


@attrs.frozen
class ShapedFragment(FragmentKernel):
    """Every input flat, ``(in0, count0, in1, count1, ..., <scalar args>...,
    outputs...)``; each output has the shape in ``shapes``: integer expressions
    of the inputs' sizes and int args, or an input (a ``ParamRef``) whose shape
    it takes. The kernel returns 0 or, on ``failure``, not 0 (confusion_matrix,
    list_diff). ``fixed_dtypes`` names the tensors with one dtype in every variant
    (a format's codes, ``uint8``: ``dsl.dtypes.variants``)."""

    shapes: tuple[Any, ...] = ()
    failure: str | None = None
    fixed_dtypes: tuple[tuple[str, str], ...] = ()

    layout = "shaped"

    def layout_problems(self, op: Any, check: Check) -> None:
        tensors = {t.name: t for t in (*op.inputs, *op.outputs)}
        for name, dtype in self.fixed_dtypes:
            if name not in tensors:
                check.add(f"fixed_dtypes names '{name}', not a tensor of the op")
            elif dtype not in D.CONCRETE[tensors[name].type]:
                check.add(f"fixed_dtypes gives '{name}' {dtype}, not a dtype of its type "
                          f"{tensors[name].type.value} ({', '.join(D.CONCRETE[tensors[name].type])})")
        if len(self.shapes) != len(op.outputs):
            check.add(f"a shaped fragment gives each output its shape: shapes=... holds {len(self.shapes)}, "
                      f"for {len(op.outputs)} output(s)")
        for shape in self.shapes:
            if isinstance(shape, E.ParamRef) and shape.kind != "input":
                check.add(f"an output takes the shape of an input, not of {shape.kind} '{shape.name}'")

        def is_size(node: Any) -> bool:
            """An integer expression of the inputs' sizes and int args."""
            if isinstance(node, E.Literal):
                return isinstance(node.value, int) and not isinstance(node.value, bool)
            if isinstance(node, E.ParamRef):
                return node.kind == "arg" and node.name in check.args and check.args[node.name].type in (
                    DataType.INT, DataType.LONG)
            if isinstance(node, E.SizeAt):
                return node.input.kind == "input" and is_size(node.axis)
            return isinstance(node, E.Arith) and is_size(node.left) and is_size(node.right)

        if not all(is_size(size) for shape in self.shapes if not isinstance(shape, E.ParamRef) for size in shape):
            check.add("an output size must be an integer expression of the inputs' sizes and int args")

    def output_shapes(self, op: Any) -> tuple[Any, ...]:
        return tuple(Sh.tensor(s.name) if isinstance(s, E.ParamRef) else Sh.Dims(tuple(s)) for s in self.shapes)

    def refusals(self, op: Any) -> tuple[Sh.Refusal, ...]:
        return tuple(Sh.Refusal(f"{o.name}: a size of the result is negative",
                                Sh.all_of(*(Sh.compare(size, ">=", 0) for size in s)))
                     for o, s in zip(op.outputs, self.shapes) if not isinstance(s, E.ParamRef) and s)

    def value_refusals(self, op: Any) -> tuple[str, ...]:
        return (self.failure,) if self.failure else ()


WIDEN = "widen (rows that many times as long) takes an int above 1, for a rows fragment of one input"
