"""Fragment: hand-written C and Python kernels, in one of the layouts the targets know."""

from __future__ import annotations

from typing import Any

import attrs

from dsl import expr as E
from dsl import shapes as Sh

from dsl.forms.checks import Check
from dsl.types import DataType

@attrs.frozen
class FragmentKernel:
    """Hand-written kernels: C fragments per dtype and one Python fragment.

    ``layout`` says what the C function takes: ``"axis"`` means
    ``(input, step, size, slot, <scalar args>..., output)`` for the axis arg
    named by ``axis``, Imaginet's decomposition of a tensor around one axis.
    ``"matrix"`` means matrices in the last two axes of every input, with the
    same batch axes before them: ``(in0, rows0, cols0, in1, rows1, cols1, ...,
    batch, <scalar args>..., output)``, returning 0 or, on ``failure``, not 0;
    the output has the shape of the last input. ``"matrix_reduce"`` is the
    same with one value per matrix (the output has the batch shape).
    ``"matrix_solve"`` gives one (cols of the first input) x (cols of the last)
    matrix per batch (least squares), ``"matrix_diagonal"`` one vector of
    min(rows, cols) of the first input per batch (singular values), and
    ``"matrix_q"``/``"matrix_r"`` the rows x k and k x cols factors of a
    reduced QR (k = min(rows, cols) of the first input), ``"matrix_v"`` the
    cols x k factor V of a reduced SVD, and
    ``"matrix_product"`` one (rows of the first input) x (cols of the last)
    matrix per batch (attention).
    ``"rows"`` means inputs of one shape (rank 1 or more) in rows of their
    last axis: ``(in0, in1, ..., rows, len, <scalar args>..., output)``, the
    output of that shape too, or with rows ``widen`` times as long.
    ``"channels"`` is ``"rows"`` with one input in rows (channels in its last
    axis) and the others vectors of one value per channel (gain, bias).
    ``"select"`` takes one input in rows of its last axis and gives every
    output rows of ``length`` (the int arg that names it, also passed among the
    scalar args): ``(x, rows, len, <scalar args>..., outputs...)`` (top_k).
    ``"dense"`` takes the first input in rows of its last axis (len), the
    second a len x units matrix and any further input a vector of units:
    ``(x, rows, len, w, units, <vectors>..., <scalar args>..., output)``, the
    output rows of units (a linear layer).
    ``"shaped"`` passes every input flat, ``(in0, count0, in1, count1, ...,
    <scalar args>..., outputs...)``, and gives each output the shape in
    ``shapes``: integer expressions of the inputs' sizes and int args, or an
    input (a ``ParamRef``) whose shape the output takes; the
    kernel returns 0 or, on ``failure``, not 0 (confusion_matrix, list_diff).
    ``"flat"`` means ``(input, count, <scalar args>..., output)``: every
    element in row-major order gives one value (a scalar output).
    """

    c_file: str
    c_fragments: tuple[tuple[str, str], ...]  # (dtype, fragment name)
    python_file: str
    python_fragment: str
    layout: str
    axis: str
    args: tuple[str, ...]
    #: For matrix layouts: what a non-zero return means ("x is not positive definite").
    failure: str | None = None
    #: For matrix layouts: the doubles of scratch memory the kernel needs, an
    #: integer expression (``dsl.expr``) of the inputs' sizes; None: none.
    workspace: Any = None
    #: For the select layout: the int arg giving the length of the outputs' rows.
    length: str | None = None
    #: For matrix layouts: the layouts of the outputs after the first (lu's
    #: permutation is one vector per matrix: "matrix_diagonal").
    output_layouts: tuple[str, ...] = ()
    #: For the rows layout: the output's rows are this many times as long (crelu: 2).
    widen: int = 1
    #: For the shaped layout: per output, its sizes (``dsl.expr`` integer expressions),
    #: or the input (a ``dsl.expr.ParamRef``) whose shape it takes.
    shapes: tuple[Any, ...] = ()
    #: For matrix layouts: inputs that are one matrix (rank 2) for every batch (weights).
    shared: tuple[str, ...] = ()

    @property
    def layouts(self) -> tuple[str, ...]:
        """One layout per output (the shape rule of each)."""
        return (self.layout, *self.output_layouts)

    kind = "fragment"

    @property
    def matrix(self) -> bool:
        return self.layout in MATRIX_LAYOUTS

    def problems(self, op: Any, check: Check) -> None:
        inputs = check.inputs
        if self.layout not in ("axis", "flat", "rows", "channels", "select", "dense", "shaped", *MATRIX_LAYOUTS):
            check.add(f"fragment layout must be one of axis, flat, rows, channels, select, dense, shaped, "
                      f"{', '.join(MATRIX_LAYOUTS)}, got {self.layout!r}")
        if self.layout == "axis":
            check.need_arg(self.axis, (DataType.INT, DataType.LONG), False, "axis of the fragment")
        elif self.layout == "select":
            if self.length is None or self.length not in self.args:
                check.add("a select fragment names the int arg of its rows' length: length=..., also in args")
            else:
                check.need_arg(self.length, (DataType.INT, DataType.LONG), False, "length of the outputs' rows")
        elif self.layout == "shaped":
            self._shaped_problems(op, check)
        elif self.matrix and len(op.outputs) != len(self.layouts):
            check.add(f"a {self.layout} fragment gives one output per layout: {len(self.layouts)} layout(s) "
                      f"(output_layouts=... for outputs after the first), {len(op.outputs)} output(s)")
        elif not self.matrix and len(op.outputs) != 1:
            check.add(f"a {self.layout} fragment has exactly one output")
        if self.layout == "dense" and len(op.inputs) < 2:
            check.add("a dense fragment takes rows and a matrix of weights (and vectors): 2 inputs or more")
        if self.widen != 1 and not (self.layout == "rows" and isinstance(self.widen, int) and self.widen > 1
                                    and len(op.inputs) == 1):
            check.add("widen (rows that many times as long) takes an int above 1, for a rows fragment of one input")
        if self.shared and not (self.matrix and all(n in inputs for n in self.shared)
                                and op.inputs and op.inputs[0].name not in self.shared):
            check.add("shared=... names inputs of a matrix fragment, after the first, that are one matrix for "
                      "every batch")
        if self.shapes and self.layout != "shaped":
            check.add("shapes=... gives the outputs of a shaped fragment")
        if self.output_layouts and not (self.matrix and all(lay in MATRIX_LAYOUTS for lay in self.output_layouts)):
            check.add(f"output_layouts are matrix layouts ({', '.join(MATRIX_LAYOUTS)}) of a matrix fragment")
        if self.failure is not None and not (self.matrix or self.layout == "shaped"):
            check.add("only matrix and shaped fragments can fail (failure=...)")
        if self.workspace is not None:
            if not self.matrix:
                check.add("only matrix fragments take a workspace")
            if not isinstance(self.workspace, (E.Arith, E.SizeAt, E.Literal)) or any(
                    r.kind != "input" for r in E.param_refs(self.workspace)):
                check.add("workspace must be an integer expression of the inputs' sizes")
        for name in self.args:
            if check.scalar_arg(name) is None:
                check.add(f"fragment arg '{name}' must be a single-valued arg")

    def _shaped_problems(self, op: Any, check: Check) -> None:
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
        names = [i.name for i in op.inputs]
        x = Sh.tensor(names[0])
        if self.matrix:
            return tuple(_matrix_shape(layout, names[0], names[-1]) for layout in self.layouts)
        if self.layout == "shaped":
            return tuple(Sh.tensor(s.name) if isinstance(s, E.ParamRef) else Sh.Dims(tuple(s)) for s in self.shapes)
        if self.layout == "flat":
            return (Sh.Dims(()),)
        if self.layout == "select":
            return (Sh.replace(x, Sh.sub(Sh.Length(x), 1), Sh.arg(self.length or "")),) * len(op.outputs)
        if self.layout == "dense":
            return (Sh.Concat((Sh.Slice(x, None, -1), Sh.Slice(Sh.tensor(names[1]), 1, None))),)
        if self.layout == "rows" and self.widen != 1:
            return (Sh.replace(x, Sh.sub(Sh.Length(x), 1), Sh.mul(Sh.last(x), self.widen)),)
        return (x,)  # axis, rows, channels

    def refusals(self, op: Any) -> tuple[Sh.Refusal, ...]:
        names = [i.name for i in op.inputs]
        first, x = names[0], Sh.tensor(names[0])
        ranked = Sh.Refusal(f"{first}: must have rank 1 or more", Sh.compare(Sh.rank(first), ">=", 1))
        if self.matrix:
            return _matrix_refusals(self, names)
        if self.layout == "shaped":
            return tuple(Sh.Refusal(f"{o.name}: a size of the result is negative",
                                    Sh.all_of(*(Sh.compare(size, ">=", 0) for size in s)))
                         for o, s in zip(op.outputs, self.shapes) if not isinstance(s, E.ParamRef) and s)
        if self.layout == "flat":
            return ()
        if self.layout == "axis":
            return (ranked, Sh.Refusal(f"{self.axis}: out of range", Sh.in_range(Sh.arg(self.axis), Sh.rank(first))))
        if self.layout == "select":
            length = Sh.arg(self.length or "")
            return (ranked, Sh.Refusal(f"{self.length}: must lie in 0..the size of the last axis of {first}",
                                       Sh.all_of(Sh.compare(length, ">=", 0), Sh.compare(length, "<=", Sh.last(x)))))
        if self.layout == "dense":
            w = Sh.tensor(names[1])
            out = [ranked, Sh.Refusal(f"{names[1]}: must be a matrix with as many rows as the last axis of {first}",
                                      Sh.all_of(Sh.compare(Sh.rank(names[1]), "==", 2),
                                                Sh.compare(Sh.item(w, 0), "==", Sh.last(x))))]
            out += [Sh.Refusal(f"{n}: must be a vector as long as the columns of {names[1]}",
                               Sh.ShapesEqual(Sh.tensor(n), Sh.Slice(w, 1, None))) for n in names[2:]]
            return tuple(out)
        if self.layout == "channels":
            return (ranked, *(Sh.Refusal(f"{n}: must be a vector as long as the last axis of {first}",
                                         Sh.ShapesEqual(Sh.tensor(n), Sh.Slice(x, -1, None))) for n in names[1:]))
        return (ranked, *(Sh.Refusal(f"{n}: must have the shape of {first}", Sh.ShapesEqual(Sh.tensor(n), x))
                          for n in names[1:]))  # rows

    def value_refusals(self, op: Any) -> tuple[str, ...]:
        """What the kernels find on values at run time (no shape says it)."""
        return (self.failure,) if self.failure else ()

#: Matrix fragment layouts, by the shape of their output.
MATRIX_LAYOUTS = ("matrix", "matrix_reduce", "matrix_solve", "matrix_diagonal", "matrix_q", "matrix_r",
                  "matrix_v", "matrix_product")


def _matrix_shape(layout: str, first: str, last: str) -> Any:
    """The output of a matrix ``layout``: the first input's batch axes, then the matrix."""
    f, l_ = Sh.tensor(first), Sh.tensor(last)
    batch = Sh.Slice(f, None, -2)
    rows, cols, last_cols = Sh.item(f, Sh.sub(Sh.Length(f), 2)), Sh.last(f), Sh.last(l_)
    smaller = Sh.Min((rows, cols))
    if layout == "matrix":
        return l_
    tail = {"matrix_reduce": (), "matrix_solve": (cols, last_cols), "matrix_q": (rows, smaller),
            "matrix_v": (cols, smaller), "matrix_product": (rows, last_cols), "matrix_r": (smaller, cols),
            "matrix_diagonal": (smaller,)}[layout]
    return Sh.Concat((batch, Sh.Dims(tail))) if tail else batch


def _matrix_refusals(c: FragmentKernel, names: list[str]) -> tuple[Sh.Refusal, ...]:
    """Matrices in the last two axes; inputs after the first have its batch axes (shared
    ones are one matrix for every batch)."""
    out = []
    for n in names:
        if n in c.shared:
            out.append(Sh.Refusal(f"{n}: must be a matrix (rank 2)", Sh.compare(Sh.rank(n), "==", 2)))
        else:
            out.append(Sh.Refusal(f"{n}: must have rank 2 or more (matrices in the last two axes)",
                                  Sh.compare(Sh.rank(n), ">=", 2)))
    first = Sh.Slice(Sh.tensor(names[0]), None, -2)
    out += [Sh.Refusal(f"{n}: must have the batch axes of {names[0]}",
                       Sh.ShapesEqual(Sh.Slice(Sh.tensor(n), None, -2), first))
            for n in names[1:] if n not in c.shared]
    return tuple(out)
