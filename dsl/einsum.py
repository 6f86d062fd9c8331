"""opforge's parser for OCANNL's einsum notation (``rhs1;rhs2=>lhs``), a lark grammar
(``einsum.lark``) and the rules the reference (002) states on top of it.

Each operand is a labels spec: ``batch|input->output``, ``batch|output``,
``input->output`` or just ``output`` labels. Axes are laid out batch, then output,
then input (OCANNL's matrix convention: input axes last). Labels are single letters
unless the spec contains a ``,``, ``*`` or ``+`` (the multicharacter mode, where labels
are words separated by commas or spaces). ``...`` (or ``..name..``) is a row variable
that broadcasts like NumPy's ellipsis, at most one per row; ``_`` is an axis that takes
part in no label (summed away in an operand, an axis of size 1 in the result). Labels
missing from the result are summed. A convolution axis ``stride*output+dilation*kernel``
(coefficients default to 1; ``stride*output`` alone is a strided axis) is read at
``stride * o + dilation * k``: ``o`` runs over the windows that fit in the axis and ``k``
over the kernel, whose size an operand's axis or the op's args give (the form says which).

A spec without any row variable broadcasts to the left, as OCANNL's shapes always do: the
operands' leading axes beyond their labels are batch axes, broadcast and kept in front of
the result (``ij;jk=>ik`` takes a stack of matrices as ``matmul`` does). The parsed spec
holds that row variable explicitly (``implicit``), so every target sees one notation.
"""

from __future__ import annotations

import functools
import string
from pathlib import Path

import attrs
import lark

ELLIPSIS = "..."

#: The label and placeholder terminals of each mode: one letter, or a word ("_" alone a placeholder).
_TERMINALS = {False: 'LABEL: /[^\\W\\d_]/\nPLACEHOLDER: "_"', True: "LABEL: /[^\\W\\d]\\w*/\nPLACEHOLDER.2: /_(?!\\w)/"}


class EinsumError(ValueError):
    """A spec that cannot be parsed; the message names the column."""


@attrs.frozen
class Conv:
    """An axis read at ``stride * output + dilation * kernel`` (no kernel: a strided axis)."""

    stride: int
    output: str
    dilation: int = 1
    kernel: str | None = None

    @property
    def text(self) -> str:
        head = f"{self.stride}*{self.output}" if self.stride != 1 else self.output
        if self.kernel is None:
            return head
        return head + "+" + (f"{self.dilation}*{self.kernel}" if self.dilation != 1 else self.kernel)

    @property
    def names(self) -> tuple[str, ...]:
        return (self.output,) if self.kernel is None else (self.output, self.kernel)

    def span(self, windows: int, kernel: int) -> int:
        """The axis size that holds ``windows`` windows exactly."""
        return self.stride * (windows - 1) + self.dilation * (kernel - 1) + 1


Axis = str | Conv  # a label, ELLIPSIS for the row variable, "_<n>" for a placeholder, or a Conv


@attrs.frozen
class Operand:
    """Axis labels of one tensor in NumPy order; ``...`` marks a row variable, whose names
    ``variables`` holds in the same order."""

    labels: tuple[Axis, ...]
    variables: tuple[str, ...] = ()

    @property
    def has_ellipsis(self) -> bool:
        return ELLIPSIS in self.labels

    @property
    def named(self) -> tuple[Axis, ...]:
        """The axes other than the row variable's, one entry each."""
        return tuple(label for label in self.labels if label != ELLIPSIS)

    @property
    def plain(self) -> tuple[str, ...]:
        """The labels of axes that are not convolution axes."""
        return tuple(label for label in self.named if isinstance(label, str))

    @property
    def convs(self) -> tuple[Conv, ...]:
        return tuple(label for label in self.labels if isinstance(label, Conv))

    @property
    def names(self) -> tuple[str, ...]:
        """Every label the operand's axes mention, a convolution's two included."""
        return tuple(n for label in self.named for n in (label.names if isinstance(label, Conv) else (label,)))


@attrs.frozen
class EinsumSpec:
    text: str
    inputs: tuple[Operand, ...]
    output: Operand
    implicit: bool = False  # (the row variable is the left broadcasting of a spec that wrote none)

    @property
    def labels(self) -> tuple[str, ...]:
        """Every label, in order of first appearance."""
        seen: list[str] = []
        for operand in (*self.inputs, self.output):
            for label in operand.names:
                if label not in seen:
                    seen.append(label)
        return tuple(seen)

    @property
    def reduced(self) -> tuple[str, ...]:
        return tuple(label for label in self.labels if label not in self.output.named)

    @property
    def variables(self) -> tuple[str, ...]:
        """The row variables' names, in order of first appearance."""
        return tuple(dict.fromkeys(v for o in (*self.inputs, self.output) for v in o.variables))

    @property
    def convs(self) -> tuple[Conv, ...]:
        return tuple(c for o in self.inputs for c in o.convs)

    @property
    def summed_row(self) -> bool:
        """Whether the operands' row variable is absent from the result: its axes are summed."""
        return any(o.has_ellipsis for o in self.inputs) and not self.output.has_ellipsis

    def numpy_subscripts(self, keep: tuple[str, ...] = ()) -> str:
        """The same contraction in ``numpy.einsum`` notation, over the operands as
        ``numpy_runtime.conv_view`` gives them: each convolution axis two axes, its windows'
        and its kernel's (a strided axis one); the result without its placeholders, and with
        the labels ``keep`` after its own (a pool's window, reduced by NumPy after)."""
        letters = dict(zip(self.labels, string.ascii_letters))

        def spell(operand: Operand) -> str:
            return "".join(ELLIPSIS if label == ELLIPSIS else
                           "".join(letters[n] for n in label.names) if isinstance(label, Conv) else
                           letters[label] for label in operand.labels
                           if label == ELLIPSIS or isinstance(label, Conv) or label in letters)

        return ",".join(spell(o) for o in self.inputs) + "->" + spell(attrs.evolve(self.output, labels=tuple(
            label for label in self.output.labels if label not in self.placeholders) + keep))

    @property
    def placeholders(self) -> tuple[str, ...]:
        """The result's placeholders: axes of size 1."""
        return tuple(label for label in self.output.plain if label.startswith("_"))


@functools.lru_cache(maxsize=2)
def _parser(multichar: bool) -> lark.Lark:
    grammar = Path(__file__).with_name("einsum.lark").read_text() + "\n" + _TERMINALS[multichar] + "\n"
    return lark.Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=True)


def _error(text: str, error: lark.exceptions.UnexpectedInput) -> EinsumError:
    if isinstance(error, lark.exceptions.UnexpectedCharacters):
        return EinsumError(f"column {error.column}: {text[error.pos_in_stream]!r} is not a label")
    token = getattr(error, "token", None)
    if token is None or token.type == "$END":
        wanted = "'=>' and the result" if "=>" not in text else "a label"
        return EinsumError(f"column {len(text) + 1}: the spec ends where it needs {wanted}")
    return EinsumError(f"column {token.column}: unexpected {str(token)!r}")


@attrs.define
class _Reader:
    """Turns the parse tree into operands, checking what the grammar cannot (each message
    with the column of the token it is about)."""

    anonymous: int = 0

    def operand(self, tree: lark.Tree, result: bool) -> tuple[Operand, list[tuple[Axis, int]]]:
        kinds = {"output_only": ("output",), "input_output": ("input", "output"),
                 "batch_output": ("batch", "output"), "batch_input_output": ("batch", "input", "output")}[tree.data]
        rows = dict(zip(kinds, tree.children))
        labels: list[tuple[Axis, int]] = []
        variables: list[str] = []
        for kind in ("batch", "output", "input"):  # (NumPy order: input axes last)
            if kind in rows:
                axes, variable = self.row(rows[kind], kind, result)
                labels += axes
                variables += [variable] if variable is not None else []
        return Operand(tuple(a for a, _ in labels), tuple(variables)), labels

    def row(self, tree: lark.Tree, kind: str, result: bool) -> tuple[list[tuple[Axis, int]], str | None]:
        axes: list[tuple[Axis, int]] = []
        variable: str | None = None
        for node in tree.children:
            if isinstance(node, lark.Token):  # (a separating comma)
                continue
            column = node.meta.column
            if node.data == "row_variable":
                token = str(node.children[0])
                if variable is not None:
                    raise EinsumError(f"column {column}: a row may hold only one row variable")
                variable = kind if token == ELLIPSIS else token[2:-2]
                axes.append((ELLIPSIS, column))
            elif node.data == "placeholder":
                self.anonymous += 1
                axes.append((f"_{self.anonymous}", column))
            elif node.data == "label":
                axes.append((str(node.children[0]), column))
            else:
                if result:
                    raise EinsumError(f"column {column}: a convolution axis cannot stand in the result")
                axes.append((self.conv(node), column))
        return axes, variable

    @staticmethod
    def conv(node: lark.Tree) -> Conv:
        if node.data == "strided":
            stride, output = node.children
            return Conv(int(stride), str(output))
        stride, output, dilation, kernel = node.children
        conv = Conv(int(stride) if stride is not None else 1, str(output),
                    int(dilation) if dilation is not None else 1, str(kernel))
        for value, token in ((conv.stride, stride), (conv.dilation, dilation)):
            if value < 1:
                raise EinsumError(f"column {token.column}: a stride or dilation is a positive integer")
        if conv.output == conv.kernel:
            raise EinsumError(f"column {node.meta.column}: a convolution's window and kernel labels differ")
        return conv


def parse(text: str) -> EinsumSpec:
    """Parse ``rhs1;rhs2=>lhs`` (or ``rhs=>lhs``); raise EinsumError with the column."""
    if not isinstance(text, str):
        raise EinsumError(f"an einsum spec is a string, got {text!r}")
    multichar = any(c in text for c in ",*+")
    try:
        tree = _parser(multichar).parse(text)
    except lark.exceptions.UnexpectedInput as error:
        raise _error(text, error) from None
    *sides, result = tree.children
    if len(sides) > 2:
        raise EinsumError(f"column {sides[2].meta.column}: a spec takes one or two operands")
    reader = _Reader()
    inputs = [reader.operand(side, False) for side in sides]
    output, placed = reader.operand(result, True)
    _check([o for o, _ in inputs], [p for _, p in inputs], output, placed, text.index("=>") + 3)
    operands = tuple(o for o, _ in inputs)
    if not any(o.variables for o in (*operands, output)):  # (left broadcasting: OCANNL's shapes always allow it)
        return EinsumSpec(text, tuple(_batched(o) for o in operands), _batched(output), implicit=True)
    return EinsumSpec(text, operands, output)


def _batched(operand: Operand) -> Operand:
    return Operand((ELLIPSIS, *operand.labels), ("batch", *operand.variables))


def _check(inputs: list[Operand], placed: list[list[tuple[Axis, int]]], output: Operand,
           out_placed: list[tuple[Axis, int]], result: int) -> None:
    """The rules beyond the grammar: the result's labels come from the operands, once each;
    a convolution's window label labels no other axis (its size is a count of windows)."""
    plain = {label for o in inputs for label in o.plain}
    mentioned = {n for o in inputs for n in o.names}
    seen: set[str] = set()
    for label, column in out_placed:
        if label == ELLIPSIS or isinstance(label, Conv) or label.startswith("_"):
            continue
        if label in seen:
            raise EinsumError(f"column {column}: label {label!r} appears twice in the result")
        seen.add(label)
        if label not in mentioned:
            raise EinsumError(f"column {column}: label {label!r} of the result is in no operand")
    windows: set[str] = set()
    for axes in placed:
        for label, column in axes:
            if not isinstance(label, Conv):
                continue
            if label.output in plain or label.output in windows:
                raise EinsumError(f"column {column}: {label.output!r} counts the windows of {label.text!r}, so it "
                                  "labels no other axis (its size is the number of windows that fit)")
            windows.add(label.output)
    for variable in output.variables:
        if not any(variable in o.variables for o in inputs):
            raise EinsumError(f"column {result}: the result's row variable {variable!r} is in no operand")
    if len(mentioned) > len(string.ascii_letters):
        raise EinsumError("column 1: too many labels")
