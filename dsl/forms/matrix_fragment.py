"""Matrix fragments: hand-written kernels over matrices in the last two axes of every input."""

from __future__ import annotations

from typing import Any

import attrs

from dsl import expr as E
from dsl import shapes as Sh
from dsl.forms.checks import Check
from dsl.forms.fragment import FragmentKernel

#: Matrix fragment layouts, by the shape of their output.
MATRIX_LAYOUTS = ("matrix", "matrix_reduce", "matrix_solve", "matrix_diagonal", "matrix_q", "matrix_r",
                  "matrix_v", "matrix_product")


@attrs.frozen
class MatrixFragment(FragmentKernel):
    """Matrices in the last two axes of every input, with the same batch axes
    before them: ``(in0, rows0, cols0, in1, rows1, cols1, ..., batch, <scalar
    args>..., output)``, returning 0 or, on ``failure``, not 0. ``layout`` gives
    the first output's shape: ``"matrix"`` that of the last input,
    ``"matrix_reduce"`` one value per matrix (the batch shape),
    ``"matrix_solve"`` one (cols of the first input) x (cols of the last) matrix
    per batch (least squares), ``"matrix_diagonal"`` one vector of min(rows,
    cols) of the first input per batch (singular values), ``"matrix_q"`` and
    ``"matrix_r"`` the rows x k and k x cols factors of a reduced QR (k =
    min(rows, cols)), ``"matrix_v"`` the cols x k factor V of a reduced SVD and
    ``"matrix_product"`` one (rows of the first input) x (cols of the last, or
    of the input ``columns`` names) matrix per batch (attention)."""

    layout: str = "matrix"
    #: The layouts of the outputs after the first (lu's permutation: "matrix_diagonal").
    output_layouts: tuple[str, ...] = ()
    #: What a non-zero return means ("x is not positive definite").
    failure: str | None = None
    #: The doubles of scratch memory the kernel needs, an integer expression
    #: (``dsl.expr``) of the inputs' sizes; None: none.
    workspace: Any = None
    #: Inputs that are one matrix (rank 2) for every batch (weights).
    shared: tuple[str, ...] = ()
    #: The input whose columns a "matrix_product" output has (an attention's values, before its
    #: mask); None: the last input.
    columns: str | None = None

    matrix = True

    @property
    def layouts(self) -> tuple[str, ...]:
        return (self.layout, *self.output_layouts)

    def layout_problems(self, op: Any, check: Check) -> None:
        if len(op.outputs) != len(self.layouts):
            check.add(f"a {self.layout} fragment gives one output per layout: {len(self.layouts)} layout(s) "
                      f"(output_layouts=... for outputs after the first), {len(op.outputs)} output(s)")
        if self.shared and not (all(n in check.inputs for n in self.shared)
                                and op.inputs and op.inputs[0].name not in self.shared):
            check.add(SHARED)
        if not all(lay in MATRIX_LAYOUTS for lay in self.output_layouts):
            check.add(OUTPUT_LAYOUTS)
        if self.columns is not None and (self.layout != "matrix_product" or self.columns not in check.inputs):
            check.add(COLUMNS)
        if self.workspace is not None and (not isinstance(self.workspace, (E.Arith, E.SizeAt, E.Literal)) or any(
                r.kind != "input" for r in E.param_refs(self.workspace))):
            check.add("workspace must be an integer expression of the inputs' sizes")

    def output_shapes(self, op: Any) -> tuple[Any, ...]:
        names = [i.name for i in op.inputs]
        return tuple(_matrix_shape(layout, names[0], self.columns or names[-1]) for layout in self.layouts)

    def refusals(self, op: Any) -> tuple[Sh.Refusal, ...]:
        """Matrices in the last two axes; inputs after the first have its batch axes (shared
        ones are one matrix for every batch)."""
        names = [i.name for i in op.inputs]
        out = []
        for n in names:
            if n in self.shared:
                out.append(Sh.Refusal(f"{n}: must be a matrix (rank 2)", Sh.compare(Sh.rank(n), "==", 2)))
            else:
                out.append(Sh.Refusal(f"{n}: must have rank 2 or more (matrices in the last two axes)",
                                      Sh.compare(Sh.rank(n), ">=", 2)))
        first = Sh.Slice(Sh.tensor(names[0]), None, -2)
        out += [Sh.Refusal(f"{n}: must have the batch axes of {names[0]}",
                           Sh.ShapesEqual(Sh.Slice(Sh.tensor(n), None, -2), first))
                for n in names[1:] if n not in self.shared]
        return tuple(out)

    def value_refusals(self, op: Any) -> tuple[str, ...]:
        return (self.failure,) if self.failure else ()


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


SHARED = "shared=... names inputs of a matrix fragment, after the first, that are one matrix for every batch"
COLUMNS = "columns=... names the input whose columns a matrix_product fragment's output has"
OUTPUT_LAYOUTS = f"output_layouts are matrix layouts ({', '.join(MATRIX_LAYOUTS)}) of a matrix fragment"
