"""opforge's parser for OCANNL's einsum notation (``rhs1;rhs2=>lhs``).

Each operand is a labels spec: ``batch|input->output``, ``input->output`` or
just ``output`` labels. Axes are laid out batch, then output, then input
(OCANNL's matrix convention: input axes last). Labels are single characters
unless the spec contains a comma, in which case they are comma-separated
words. ``...`` (or ``..name..``) is a row variable that broadcasts like
NumPy's ellipsis; ``_`` is an axis that takes part in no label (summed away
in an operand, refused in the result). Labels missing from the result are
summed. Convolution axes (``stride*o+dilation*k``) are not supported.
"""

from __future__ import annotations

import re
import string

import attrs

ELLIPSIS = "..."


class EinsumError(ValueError):
    """A spec that cannot be parsed; the message names the column."""


@attrs.frozen
class Operand:
    """Axis labels of one tensor in NumPy order; ``...`` marks the row variable."""

    labels: tuple[str, ...]

    @property
    def has_ellipsis(self) -> bool:
        return ELLIPSIS in self.labels

    @property
    def named(self) -> tuple[str, ...]:
        return tuple(label for label in self.labels if label != ELLIPSIS)


@attrs.frozen
class EinsumSpec:
    text: str
    inputs: tuple[Operand, ...]
    output: Operand

    @property
    def labels(self) -> tuple[str, ...]:
        """Every label, in order of first appearance."""
        seen: list[str] = []
        for operand in (*self.inputs, self.output):
            for label in operand.named:
                if label not in seen:
                    seen.append(label)
        return tuple(seen)

    @property
    def reduced(self) -> tuple[str, ...]:
        return tuple(label for label in self.labels if label not in self.output.named)

    def numpy_subscripts(self) -> str:
        """The same contraction in ``numpy.einsum`` notation."""
        letters = dict(zip(self.labels, string.ascii_letters))

        def spell(operand: Operand) -> str:
            return "".join(ELLIPSIS if label == ELLIPSIS else letters[label] for label in operand.labels)

        return ",".join(spell(o) for o in self.inputs) + "->" + spell(self.output)


_ROW_VARIABLE = re.compile(r"\.\.([^.|>,;=*+_\- ]*)\.\.")


def _row_labels(text: str, start: int, kind: str, multichar: bool, anonymous: list[int]) -> tuple[list[str], str | None]:
    """Labels of one row and the name of its row variable, if any."""
    labels: list[str] = []
    variable: str | None = None
    if multichar:
        tokens = [(t.strip(), start + text.index(t)) for t in text.split(",")] if text.strip() else []
    else:
        tokens = []
        i = 0
        while i < len(text):
            m = _ROW_VARIABLE.match(text, i) if text.startswith("..", i) else None
            if text.startswith(ELLIPSIS, i) and (m is None or m.group(1) == ""):
                tokens.append((ELLIPSIS, start + i))
                i += 3
            elif m is not None:
                tokens.append((m.group(0), start + i))
                i = m.end()
            else:
                tokens.append((text[i], start + i))
                i += 1
    for token, column in tokens:
        if token == "" or token.isspace():
            continue
        if token == ELLIPSIS or _ROW_VARIABLE.fullmatch(token):
            name = kind if token == ELLIPSIS else _ROW_VARIABLE.fullmatch(token).group(1)  # type: ignore[union-attr]
            if variable is not None:
                raise EinsumError(f"column {column + 1}: a row may hold only one row variable")
            variable = name
            labels.append(ELLIPSIS)
        elif token == "_":
            anonymous[0] += 1
            labels.append(f"_{anonymous[0]}")
        elif "*" in token or "+" in token:
            raise EinsumError(f"column {column + 1}: convolution axes ({token!r}) are not supported")
        elif token.isidentifier() and (multichar or len(token) == 1):
            labels.append(token)
        else:
            raise EinsumError(f"column {column + 1}: {token!r} is not a label")
    return labels, variable


def _operand(text: str, start: int, multichar: bool, anonymous: list[int]) -> tuple[Operand, str | None]:
    batch, rest, rest_start = "", text, start
    if "|" in text:
        batch, rest = text.split("|", 1)
        rest_start = start + len(batch) + 1
        if "|" in rest:
            raise EinsumError(f"column {rest_start + rest.index('|') + 1}: more than one '|' in an operand")
    input_, output, output_start = "", rest, rest_start
    if "->" in rest:
        input_, output = rest.split("->", 1)
        output_start = rest_start + len(input_) + 2
    rows = [
        _row_labels(batch, start, "batch", multichar, anonymous),
        _row_labels(output, output_start, "output", multichar, anonymous),
        _row_labels(input_, rest_start, "input", multichar, anonymous),
    ]
    variables = [v for _, v in rows if v is not None]
    if len(variables) > 1:
        raise EinsumError(f"column {start + 1}: only one row variable per operand is supported")
    labels = [label for row, _ in rows for label in row]
    return Operand(tuple(labels)), (variables[0] if variables else None)


def parse(text: str) -> EinsumSpec:
    """Parse ``rhs1;rhs2=>lhs`` (or ``rhs=>lhs``); raise EinsumError with the column."""
    if not isinstance(text, str):
        raise EinsumError(f"an einsum spec is a string, got {text!r}")
    if text.count("=>") != 1:
        raise EinsumError("column 1: a spec needs exactly one '=>' between operands and result")
    multichar = "," in text
    rhs, lhs = text.split("=>")
    parts = rhs.split(";")
    if not 1 <= len(parts) <= 2:
        raise EinsumError("column 1: a spec takes one or two operands")
    anonymous = [0]
    inputs, variables = [], []
    offset = 0
    for part in parts:
        operand, variable = _operand(part, offset, multichar, anonymous)
        inputs.append(operand)
        variables.append(variable)
        offset += len(part) + 1
    output, out_variable = _operand(lhs, len(rhs) + 2, multichar, anonymous)
    named_vars = {v for v in variables if v is not None}
    if len(named_vars) > 1:
        raise EinsumError(f"column 1: operands use different row variables {sorted(named_vars)}")
    if out_variable is not None and out_variable not in named_vars:
        raise EinsumError(f"column {len(rhs) + 3}: the result's row variable {out_variable!r} is in no operand")
    if named_vars and out_variable is None:
        raise EinsumError(f"column {len(rhs) + 3}: the operands' row variable must appear in the result")
    seen: set[str] = set()
    for label in output.named:
        if label.startswith("_"):
            raise EinsumError(f"column {len(rhs) + 3}: '_' cannot stand in the result")
        if label in seen:
            raise EinsumError(f"column {len(rhs) + 3}: label {label!r} appears twice in the result")
        seen.add(label)
        if not any(label in o.named for o in inputs):
            raise EinsumError(f"column {len(rhs) + 3}: label {label!r} of the result is in no operand")
    if len(set(label for o in inputs for label in o.named)) > len(string.ascii_letters):
        raise EinsumError("column 1: too many labels")
    return EinsumSpec(text, tuple(inputs), output)
