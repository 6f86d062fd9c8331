"""Einsum: a contraction in OCANNL's notation (ADR 0009, 0061)."""

from __future__ import annotations

from typing import Any

import attrs

from dsl import shapes as Sh

from dsl.forms.checks import Check

from dsl.einsum import ELLIPSIS, Conv, EinsumSpec


@attrs.frozen
class Contraction:
    spec: EinsumSpec
    inputs: tuple[str, ...]

    kind = "contraction"

    def problems(self, op: Any, check: Check) -> None:
        if len(self.inputs) != len(self.spec.inputs):
            check.add(f"einsum spec {self.spec.text!r} takes {len(self.spec.inputs)} operands, "
                      f"the op gives {len(self.inputs)}")
        for name in self.inputs:
            check.need_input(name)
        # What the notation says and the kernels do not compute yet: each is named, not dropped.
        variables = self.spec.variables
        if len(variables) > 1:
            check.add(f"einsum spec {self.spec.text!r} uses the row variables {', '.join(variables)}: the targets "
                      "compute one row variable per spec, not yet several")
        elif variables and not self.spec.output.has_ellipsis:
            check.add(f"einsum spec {self.spec.text!r} sums the axes of its row variable {variables[0]}: the targets "
                      "keep a row variable's axes in the result, they do not sum them yet")
        if len(self.spec.reduced) > Sh.MAX_RANK:
            check.add(f"einsum spec {self.spec.text!r} sums over {len(self.spec.reduced)} labels, more than the "
                      f"{Sh.MAX_RANK} loops a kernel runs")

    def _operands(self) -> list[tuple[str, Any, int, int]]:
        """(input, its labels, labels before the row variable, labels after it) per operand."""
        out = []
        for name, operand in zip(self.inputs, self.spec.inputs):
            labels = operand.labels
            at = labels.index(ELLIPSIS) if operand.has_ellipsis else len(labels)
            out.append((name, operand, at, len(labels) - at - (1 if operand.has_ellipsis else 0)))
        return out

    def _axes(self, want: Any) -> list[tuple[str, Any]]:
        """(input, the size of its axis) for every axis labelled ``want`` (a label or a Conv)."""
        return [(name, Sh.size_at(name, k if k < before else k - len(operand.labels)))
                for name, operand, before, _ in self._operands()
                for k, label in enumerate(operand.labels) if label == want]

    def size(self, label: str) -> Any:
        """The size of ``label``'s axis: the first operand's that has it as a plain axis, or the
        number of windows of the convolution axis it counts, or 1 for a placeholder of the result."""
        plain = self._axes(label)
        if plain:
            return plain[0][1]
        conv = next((c for c in self.spec.convs if c.output == label), None)
        if conv is not None:
            # (the windows' first elements: the axis's elements a window still fits after, every stride-th)
            last = Sh.sub(self._axes(conv)[0][1], self._span(conv))
            return Sh.add(Sh.floordiv(Sh.sub(last, 1), conv.stride), 1) if conv.stride != 1 else last
        if label in self.spec.placeholders:
            return Sh.size(1)
        raise KeyError(label)

    def conv_axes(self) -> list[tuple[str, int, Conv]]:
        """(input, axis, convolution) for each convolution axis, in order; the axis counts from
        the end where it follows the row variable."""
        return [(name, k if k < before else k - len(operand.labels), label)
                for name, operand, before, _ in self._operands()
                for k, label in enumerate(operand.labels) if isinstance(label, Conv)]

    def _span(self, conv: Conv) -> Any:
        """How far one window reaches beyond its first element: dilation * (kernel - 1)."""
        if conv.kernel is None:
            return 0
        reach = Sh.sub(self.size(conv.kernel), 1)
        return Sh.mul(conv.dilation, reach) if conv.dilation != 1 else reach

    def _rows(self) -> tuple[Any, ...]:
        """The axes each operand's row variable stands for."""
        return tuple(Sh.Slice(Sh.tensor(name), before, -after if after else None)
                     for name, operand, before, after in self._operands() if operand.has_ellipsis)

    def output_shapes(self, op: Any) -> tuple[Any, ...]:
        parts = [Sh.Broadcast(self._rows()) if label == ELLIPSIS else Sh.Dims((self.size(label),))
                 for label in self.spec.output.labels]
        return (Sh.Concat(tuple(parts)) if parts else Sh.Dims(()),)

    def refusals(self, op: Any) -> tuple[Sh.Refusal, ...]:
        out = []
        for name, operand, _, _ in self._operands():
            n = len(operand.named)
            out.append(Sh.Refusal(f"{name} has rank {'at least ' if operand.has_ellipsis else ''}{n} in {self.spec.text}",
                                  Sh.compare(Sh.rank(name), ">=" if operand.has_ellipsis else "==", n)))
        for label in self.spec.labels:
            axes = self._axes(label)
            if len(axes) > 1:
                listed = ", ".join(dict.fromkeys(n for n, _ in axes))
                out.append(Sh.Refusal(f"{listed}: the axes labelled {label} must have one size",
                                      Sh.all_of(*(Sh.compare(s, "==", axes[0][1]) for _, s in axes[1:]))))
        for conv in self.spec.convs:
            (name, size), *_ = self._axes(conv)
            kernel = () if conv.kernel is None else (Sh.compare(self.size(conv.kernel), ">=", 1),)
            out.append(Sh.Refusal(f"{name}: the axis read at {conv.text} must hold one window at least "
                                  f"({conv.kernel or 'its kernel'} not empty, the axis not shorter than the window)",
                                  Sh.all_of(*kernel, Sh.compare(size, ">", self._span(conv)))))
        if len(self._rows()) > 1:
            out.append(Sh.Refusal("batch axes do not broadcast", Sh.Fits(self._rows())))
        with_rows = [len(o.named) for _, o, _, _ in self._operands() if o.has_ellipsis]
        if ELLIPSIS in self.spec.output.labels and with_rows:  # batch axes and more labels may be too many
            widest = Sh.MAX_RANK - min(with_rows) + len(self.spec.output.named)
            if widest > Sh.MAX_RANK:
                out.append(Sh.at_most_max_rank(self.output_shapes(op)[0], ", ".join(self.inputs)))
        return tuple(out)

    def value_refusals(self, op: Any) -> tuple[str, ...]:
        return ()
