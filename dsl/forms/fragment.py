"""Fragment: hand-written C and Python kernels, in one of the layouts the targets know."""

from __future__ import annotations

from typing import Any

import attrs

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


#: Matrix fragment layouts, by the shape of their output.
MATRIX_LAYOUTS = ("matrix", "matrix_reduce", "matrix_solve", "matrix_diagonal", "matrix_q", "matrix_r",
                  "matrix_v", "matrix_product")
