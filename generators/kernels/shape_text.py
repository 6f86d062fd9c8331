"""Shape expressions (``dsl/shapes.py``) as readable, NumPy-like text: what each output's
shape is and what the op refuses, rendered from the op's form (ADR 0029), for the docs site's
op pages and the C headers."""

from __future__ import annotations

from typing import Any

from dsl import expr as E
from dsl import shapes as S
from generators.kernels.readable import ReadableRenderer


class ShapeTextRenderer(ReadableRenderer):
    """``x.shape[:-1] + w.shape[1:]``, ``[x.shape[k] * repeats[k] for k in range(x.ndim)]``."""

    def __init__(self) -> None:
        self.names = {"k": iter(()), "v": iter(()), "e": iter(())}
        self.bound: dict[str, list[str]] = {"k": [], "v": [], "e": []}

    def bind(self, kind: str, node: Any) -> tuple[str, str]:
        depth = len(self.bound[kind])
        name = {"k": "k", "v": "v", "e": "t"}[kind] + ("" if depth == 0 else str(depth + 1))
        self.bound[kind].append(name)
        try:
            return name, self.render(node)
        finally:
            self.bound[kind].pop()

    def _level(self, node: Any) -> int:
        if isinstance(node, (S.Where, S.Concat)):
            return 1
        return super()._level(node)

    # -- the constraint language, as NumPy spells shapes
    def render_paramref(self, node: E.ParamRef) -> str:
        return f"{node.name}.shape" if node.kind == "input" else str(node)

    def render_rank(self, node: E.Rank) -> str:
        return f"{node.input}.ndim"

    def render_sizeat(self, node: E.SizeAt) -> str:
        return f"{node.input}.shape[{self.render(node.axis)}]"

    def render_shapeof(self, node: E.ShapeOf) -> str:
        return f"{node.input}.shape"

    # -- sizes
    def render_axis(self, node: S.Axis) -> str:
        return self.bound["k"][-1]

    def render_value(self, node: S.Value) -> str:
        return self.bound["v"][-1]

    def render_each(self, node: S.Each) -> str:
        return f"{self.bound['e'][-1]}.shape"

    def render_item(self, node: S.Item) -> str:
        index = node.index
        if (isinstance(index, E.Arith) and index.op == "-" and index.left == S.Length(node.of)
                and isinstance(index.right, E.Literal)):  # of[len(of) - n] reads as of[-n]
            return f"{self._sub(node.of, 9)}[-{index.right.value}]"
        return f"{self._sub(node.of, 9)}[{self.render(index)}]"

    def render_length(self, node: S.Length) -> str:
        if isinstance(node.of, E.ShapeOf):
            return f"{node.of.input}.ndim"
        return f"len({self.render(node.of)})"

    def render_arith(self, node: E.Arith) -> str:
        if node.op == "*" and node.right == E.Literal(1):
            return self.render(node.left)
        return super().render_arith(node)

    def render_numel(self, node: S.Numel) -> str:
        return f"prod({self.render(node.of)})"

    def render_where(self, node: S.Where) -> str:
        return f"{self._sub(node.then, 2)} if {self._sub(node.condition, 2)} else {self._sub(node.otherwise, 2)}"

    def render_max(self, node: S.Max) -> str:
        return f"max({', '.join(self.render(t) for t in node.terms)})"

    def render_min(self, node: S.Min) -> str:
        return f"min({', '.join(self.render(t) for t in node.terms)})"

    def render_ceil(self, node: S.Ceil) -> str:
        return f"ceil({self.render(node.value)})"

    def render_total(self, node: S.Total) -> str:
        return f"sum(t.shape[{self.render(node.axis)}] for t in {node.inputs})"

    def render_names(self, node: S.Names) -> str:
        named = f"{self._sub(node.axis, 5)} in {node.axes} (mod {self.render(node.rank)})"
        return f"({named} or not {node.axes})" if node.all_when_empty else named

    def render_allvalues(self, node: S.AllValues) -> str:
        name, condition = self.bind("v", node.condition)
        return f"all({condition} for {name} in {node.arg})"

    def render_distinct(self, node: S.Distinct) -> str:
        return f"{node.arg} names distinct axes (mod {self.render(node.rank)})"

    def render_foraxes(self, node: S.ForAxes) -> str:
        rank = self.render(node.rank)
        name, condition = self.bind("k", node.condition)
        return f"all({condition} for {name} in range({rank}))"

    def render_eachtensor(self, node: S.EachTensor) -> str:
        name, condition = self.bind("e", node.condition)
        return f"all({condition} for {name} in {node.inputs})"

    def render_shapesequal(self, node: S.ShapesEqual) -> str:
        return f"{self.render(node.left)} == {self.render(node.right)}"

    def render_fits(self, node: S.Fits) -> str:
        return f"{'equal_or_scalar' if node.strict else 'broadcastable'}({', '.join(self.render(s) for s in node.shapes)})"

    def render_finite(self, node: S.Finite) -> str:
        return f"isfinite({self.render(node.value)})"

    # -- shapes
    def render_argshape(self, node: S.ArgShape) -> str:
        return f"tuple({node.arg})"

    def render_firstshape(self, node: S.FirstShape) -> str:
        return f"{node.inputs}[0].shape"

    def render_numels(self, node: S.Numels) -> str:
        return f"tuple(t.size for t in {node.inputs})"

    def render_dims(self, node: S.Dims) -> str:
        sizes = [self.render(s) for s in node.sizes]
        return "(" + ", ".join(sizes) + ("," if len(sizes) == 1 else "") + ")"

    def render_concat(self, node: S.Concat) -> str:
        return " + ".join(self._sub(p, 5) for p in node.parts)

    def render_slice(self, node: S.Slice) -> str:
        start = "" if node.start is None else self.render(S.size(node.start))
        stop = "" if node.stop is None else self.render(S.size(node.stop))
        return f"{self._sub(node.of, 9)}[{start}:{stop}]"

    def render_peraxis(self, node: S.PerAxis) -> str:
        rank = self.render(node.rank)
        self.bound["k"].append("k" if not self.bound["k"] else f"k{len(self.bound['k']) + 1}")
        try:
            name = self.bound["k"][-1]
            size = self.render(node.size)
            keep = f" if {self.render(node.keep)}" if node.keep is not None else ""
        finally:
            self.bound["k"].pop()
        return f"tuple({size} for {name} in range({rank}){keep})"

    def render_broadcast(self, node: S.Broadcast) -> str:
        name = "equal_or_scalar" if node.strict else "broadcast"
        return f"{name}({', '.join(self.render(s) for s in node.shapes)})"

    def render_tensors(self, node: S.Tensors) -> str:
        return f"{self.render(node.count)} tensors, each of shape {self.render(node.shape)}"


#: Longer formulas say less than the op's own words: the page leaves them out.
READABLE_LENGTH = 160


def output_shapes(op: Any) -> list[tuple[str, str]]:
    """(output, its shape as a formula) of each output whose formula is short enough to read,
    as the op's form says."""
    render = ShapeTextRenderer().render
    shown = [(o.name, render(s)) for o, s in zip(op.outputs, op.compute.output_shapes(op))]
    return [(name, text) for name, text in shown if len(text) <= READABLE_LENGTH]


def refusals(op: Any) -> list[tuple[str, str | None]]:
    """(words, the condition as a formula where short enough) of each refusal of the op's
    form, in the order they are checked."""
    render = ShapeTextRenderer().render
    out = []
    for r in op.compute.refusals(op):
        text = render(r.condition)
        out.append((r.message, text if len(text) <= READABLE_LENGTH else None))
    return out
