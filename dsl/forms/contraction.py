"""Einsum: a contraction in OCANNL's notation (ADR 0009, 0061)."""

from __future__ import annotations

from typing import Any

import attrs

from dsl import expr as E
from dsl import shapes as Sh

from dsl.forms.checks import Check

from dsl.einsum import ELLIPSIS, Conv, EinsumSpec
from dsl.types import DataType

#: How a window's elements combine: the sum of products (an einsum), or over one operand's window
#: its largest element (padding never chosen), its mean, or its Lp norm (ONNX's pools).
COMBINES = ("add", "max", "mean", "lp")

#: ONNX's auto_pad values, in this order (the kernels number them so): explicit pads, the
#: windows of ceil(n / stride) with the extra padding after or before, no padding.
AUTO_PADS = ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")


@attrs.frozen
class Window:
    """One convolution axis as the form computes it: sizes of the shapes' language."""

    conv: Conv
    operand: str
    axis: int  # (from the end where it follows the row variable)
    size: Any  # the axis's size
    stride: Any
    dilation: Any
    span: Any  # dilation * (kernel - 1): how far a window reaches beyond its first element
    pad_begin: Any
    pad_end: Any
    windows: Any
    kernel: Any = None  # the kernel's size (None: a strided axis)


@attrs.frozen
class Contraction:
    spec: EinsumSpec
    inputs: tuple[str, ...]
    strides: str | None = None  # int-list args scaling each convolution axis's coefficients
    dilations: str | None = None
    pads: str | None = None  # int-list arg: each axis's padding before, then each one's after
    auto_pad: str | None = None  # enum arg of AUTO_PADS
    kernel_shape: str | None = None  # int-list arg: the kernel labels' sizes no operand gives
    combine: str = "add"  # a window's elements: summed products, or one operand's max, mean or Lp norm
    count_include_pad: str | None = None  # bool arg (mean): the padding counts in a window's size
    p: str | None = None  # int arg (lp): the norm's order
    ceil_mode: str | None = None  # bool arg (a pool): a last window that starts inside the padded axis
    whole: bool = False  # (a global pool) each kernel spans its axis: one window per axis

    kind = "contraction"
    #: A float16 variant where the op takes float32: products and windows in float32, each result
    #: rounded to the nearest half once, as NumPy's float16 matmul (ADR 0076).
    takes_half = True

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
        elif variables and not self.spec.output.has_ellipsis and self.combine != "add":
            check.add(f"einsum spec {self.spec.text!r} pools over its row variable {variables[0]}: a pool keeps the "
                      "row variable's axes in the result")
        given = [(role, name) for role, name in (("strides", self.strides), ("dilations", self.dilations),
                                                 ("pads", self.pads), ("auto_pad", self.auto_pad),
                                                 ("kernel_shape", self.kernel_shape)) if name]
        plain = {label for o in self.spec.inputs for label in o.plain}
        if self.whole and (given or self.ceil_mode):
            check.add("whole=True spans each axis with one window: it takes no "
                      f"{', '.join([role for role, _ in given] + (['ceil_mode'] if self.ceil_mode else []))}")
        if self.whole and any(conv.kernel is None or conv.kernel in plain for conv in self.spec.convs):
            check.add(f"einsum spec {self.spec.text!r}: whole=True spans each axis with its kernel label, which no "
                      "operand may give")
        for conv in self.spec.convs:
            if conv.kernel is not None and conv.kernel not in plain and not self.kernel_shape and not self.whole:
                check.add(f"einsum spec {self.spec.text!r}: the kernel label {conv.kernel} of {conv.text} labels no "
                          "axis of an operand, and the op names no kernel_shape arg to give its size")
        if self.combine not in COMBINES:
            check.add(f"combine must be one of {', '.join(COMBINES)}, got {self.combine!r}")
        elif self.combine != "add" and len(self.spec.inputs) != 1:
            check.add(f"combine={self.combine!r} takes the windows of one operand, the spec has "
                      f"{len(self.spec.inputs)}")
        elif self.combine != "add" and any(check.inputs[n].type is not DataType.FLOATING_POINT
                                           for n in self.inputs if n in check.inputs):
            check.add(f"combine={self.combine!r} pools floats: its input must be FLOATING_POINT")
        if self.ceil_mode and self.combine == "add":
            check.add("ceil_mode is for a pool (combine max, mean or lp): a sum of products has no partial windows")
        elif self.ceil_mode:
            check.need_arg(self.ceil_mode, (DataType.BOOLEAN,), False, "a pool's ceil_mode")
        for role, name, wanted, types in (("count_include_pad", self.count_include_pad, "mean", (DataType.BOOLEAN,)),
                                          ("p", self.p, "lp", (DataType.INT, DataType.LONG))):
            counts = wanted != "mean" or self.padded  # (without padding, every window is whole)
            if name and self.combine != wanted:
                check.add(f"{role} is for combine={wanted!r}")
            elif name and not counts:
                check.add(f"{role} is for a padded mean: this one reads no padding")
            elif name:
                check.need_arg(name, types, False, f"the pool's {role}")
            elif self.combine == wanted and counts:
                check.add(f"combine={wanted!r} needs {role}=, an arg")
        if given and not self.spec.convs:
            check.add(f"einsum spec {self.spec.text!r} has no convolution axis for "
                      f"{', '.join(role for role, _ in given)}")
        for role, name in given:
            if role == "auto_pad":
                check.need_arg(name, (DataType.ENUM,), False, "ONNX's automatic padding")
                if name in check.args and tuple(check.args[name].possible_values) != AUTO_PADS:
                    check.add(f"arg '{name}' must offer {', '.join(AUTO_PADS)}, in this order")
            else:
                check.need_arg(name, (DataType.INT, DataType.LONG), True, f"the convolution axes' {role}")
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
        """The size of ``label``'s axis: the first operand's that has it as a plain axis, or for a
        kernel label no operand has its value of the kernel_shape arg (a pool's window), or the
        number of windows of the convolution axis it counts, or 1 for a placeholder of the result."""
        plain = self._axes(label)
        if plain:
            return plain[0][1]
        kernels = [c.kernel for c in self.spec.convs]
        if label in kernels and self.kernel_shape:  # (a pool's window: its size an arg)
            return Sh.item(Sh.arg(self.kernel_shape), kernels.index(label))
        if label in kernels and self.whole:  # (a global pool's window: its whole axis)
            return next(Sh.size_at(name, axis) for name, axis, conv in self._conv_axes() if conv.kernel == label)
        window = next((w for w in self.windows() if w.conv.output == label), None)
        if window is not None:
            return window.windows
        if label in self.spec.placeholders:
            return Sh.size(1)
        raise KeyError(label)

    def windows(self) -> list[Window]:
        """Each convolution axis, in order: its stride and dilation (the spec's coefficient
        times the args'), its padding (the pads arg's, or ONNX's automatic padding), and the
        windows that fit, ``(n + before + after - span - 1) // stride + 1``."""
        out = []
        count = len(self.spec.convs)
        for i, (name, axis, conv) in enumerate(self._conv_axes()):
            size = Sh.size_at(name, axis)
            stride, dilation = (self._scaled(coefficient, arg, i) for coefficient, arg in
                                ((conv.stride, self.strides), (conv.dilation, self.dilations)))
            kernel = self.size(conv.kernel) if conv.kernel is not None else None
            span = Sh.size(0) if kernel is None else Sh.mul(dilation, Sh.sub(kernel, 1))
            before = Sh.item(Sh.arg(self.pads), i) if self.pads else Sh.size(0)
            after = Sh.item(Sh.arg(self.pads), i + count) if self.pads else Sh.size(0)
            if self.auto_pad:  # (ONNX: the windows of ceil(n / stride), the padding that takes, split)
                same = Sh.floordiv(Sh.add(size, Sh.sub(stride, 1)), stride)
                total = Sh.Max((Sh.size(0), Sh.sub(Sh.add(Sh.mul(Sh.sub(same, 1), stride), Sh.add(span, 1)), size)))
                half = Sh.floordiv(total, 2)
                mode = {value: E.Compare("==", Sh.arg(self.auto_pad), E.Literal(value)) for value in AUTO_PADS}
                before = Sh.Where(mode["SAME_UPPER"], half, Sh.Where(mode["SAME_LOWER"], Sh.sub(total, half), Sh.Where(
                    mode["VALID"], Sh.size(0), before)))
                after = Sh.Where(mode["SAME_UPPER"], Sh.sub(total, half), Sh.Where(mode["SAME_LOWER"], half, Sh.Where(
                    mode["VALID"], Sh.size(0), after)))
            reach = Sh.sub(Sh.add(size, Sh.add(before, after)), span)  # (first elements a window fits after, + 1)
            windows = reach if conv.stride == 1 and not self.strides else \
                Sh.add(Sh.floordiv(Sh.sub(reach, 1), stride), 1)
            if self.ceil_mode:  # (ONNX: a last partial window, if it starts inside the input or its padding before)
                ceiled = Sh.add(Sh.floordiv(Sh.add(reach, Sh.sub(stride, 2)), stride), 1)
                starts_inside = Sh.compare(Sh.mul(Sh.sub(ceiled, 1), stride), "<", Sh.add(size, before))
                windows = Sh.Where(Sh.arg(self.ceil_mode), Sh.Where(starts_inside, ceiled, Sh.sub(ceiled, 1)), windows)
            out.append(Window(conv, name, axis, size, stride, dilation, span, before, after, windows, kernel))
        return out

    def _conv_axes(self) -> list[tuple[str, int, Conv]]:
        """(input, axis, its Conv) for each convolution axis, in order."""
        return [(name, k if k < before else k - len(operand.labels), label)
                for name, operand, before, _ in self._operands()
                for k, label in enumerate(operand.labels) if isinstance(label, Conv)]

    def _scaled(self, coefficient: int, arg: str | None, i: int) -> Any:
        if arg is None:
            return Sh.size(coefficient)
        value = Sh.item(Sh.arg(arg), i)
        return value if coefficient == 1 else Sh.mul(coefficient, value)

    @property
    def padded(self) -> bool:
        """Whether a convolution axis may read beyond its ends, into its padding (zeros for a sum
        of products and a mean, never chosen by a max)."""
        return bool(self.pads or self.auto_pad or self.ceil_mode)

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
        count = len(self.spec.convs)
        for role, name, length, least in (("kernel_shape", self.kernel_shape, count, 1),
                                          ("strides", self.strides, count, 1), ("dilations", self.dilations, count, 1),
                                          ("pads", self.pads, 2 * count, 0)):
            if name:
                out.append(Sh.Refusal(f"{name} must hold {length} values, each {least} or more (the convolution "
                                      f"axes' {role})", Sh.all_of(Sh.compare(Sh.Length(Sh.arg(name)), "==", length),
                                                                  Sh.AllValues(Sh.arg(name),
                                                                               Sh.compare(Sh.Value(), ">=", least)))))
        if self.p:
            out.append(Sh.Refusal(f"{self.p} must be 1 or more (the norm's order)",
                                  Sh.compare(Sh.arg(self.p), ">=", 1)))
        for w in self.windows():
            kernel = () if w.kernel is None else (Sh.compare(w.kernel, ">=", 1),)
            padding = " with its padding" if self.padded else ""
            out.append(Sh.Refusal(f"{w.operand}: the axis read at {w.conv.text} must hold one window at least "
                                  f"({w.conv.kernel or 'its kernel'} not empty, the axis{padding} not shorter than "
                                  "the window)",
                                  Sh.all_of(*kernel, Sh.compare(Sh.add(w.size, Sh.add(w.pad_begin, w.pad_end)), ">",
                                                                w.span))))
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
