"""Einsum: a contraction in OCANNL's notation."""

from __future__ import annotations

from typing import Any

import attrs

from dsl import shapes as Sh

from dsl.forms.checks import Check

from dsl.einsum import EinsumSpec

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

    def _operands(self) -> list[tuple[str, Any, int, int]]:
        """(input, its labels, labels before the row variable, labels after it) per operand."""
        out = []
        for name, operand in zip(self.inputs, self.spec.inputs):
            labels = operand.labels
            at = labels.index("...") if operand.has_ellipsis else len(labels)
            out.append((name, operand, at, len(labels) - at - (1 if operand.has_ellipsis else 0)))
        return out

    def _size(self, label: str) -> Any:
        """The size of ``label``'s axis in the first operand that has it."""
        for name, operand, before, _ in self._operands():
            if label in operand.named:
                k = operand.labels.index(label)
                return Sh.size_at(name, k if k < before else k - len(operand.labels))
        raise KeyError(label)

    def _rows(self) -> tuple[Any, ...]:
        """The axes each operand's row variable stands for."""
        return tuple(Sh.Slice(Sh.tensor(name), before, -after if after else None)
                     for name, operand, before, after in self._operands() if operand.has_ellipsis)

    def output_shapes(self, op: Any) -> tuple[Any, ...]:
        parts = [Sh.Broadcast(self._rows()) if label == "..." else Sh.Dims((self._size(label),))
                 for label in self.spec.output.labels]
        return (Sh.Concat(tuple(parts)) if parts else Sh.Dims(()),)

    def refusals(self, op: Any) -> tuple[Sh.Refusal, ...]:
        out = []
        for name, operand, _, _ in self._operands():
            n = len(operand.named)
            out.append(Sh.Refusal(f"{name} has rank {'at least ' if operand.has_ellipsis else ''}{n} in {self.spec.text}",
                                  Sh.compare(Sh.rank(name), ">=" if operand.has_ellipsis else "==", n)))
        for label in self.spec.labels:
            sizes = [Sh.size_at(name, k if k < before else k - len(operand.labels))
                     for name, operand, before, _ in self._operands()
                     for k, seen in enumerate(operand.labels) if seen == label]
            if len(sizes) > 1:
                listed = ", ".join(n for n, o, _, _ in self._operands() if label in o.named)
                out.append(Sh.Refusal(f"{listed}: the axes labelled {label} must have one size",
                                      Sh.all_of(*(Sh.compare(s, "==", sizes[0]) for s in sizes[1:]))))
        if len(self._rows()) > 1:
            out.append(Sh.Refusal("batch axes do not broadcast", Sh.Fits(self._rows())))
        with_rows = [len(o.named) for _, o, _, _ in self._operands() if o.has_ellipsis]
        if "..." in self.spec.output.labels and with_rows:  # batch axes and more labels may be too many
            widest = Sh.MAX_RANK - min(with_rows) + len(self.spec.output.named)
            if widest > Sh.MAX_RANK:
                out.append(Sh.at_most_max_rank(self.output_shapes(op)[0], ", ".join(self.inputs)))
        return tuple(out)

    def value_refusals(self, op: Any) -> tuple[str, ...]:
        return ()
