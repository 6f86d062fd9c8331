"""Shape expressions (``dsl/shapes.py``) and conditions as Python source.

One renderer serves every Python consumer; what differs is how a tensor's shape, an
arg's value and a list input's shapes are spelled (:class:`Spelling`): the
generation-time evaluator binds them to plain values, NNEF's shape functions to the
shape lists and ``attribs`` that ``nnef.infer_shapes`` passes.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Mapping

import attrs

from dsl import expr as E
from dsl import shapes as S
from generators.kernels import numpy_runtime
from generators.kernels.infix import PyInfixRenderer


@attrs.frozen
class Spelling:
    """How the rendered code reads the op's parameters (names are the DSL's)."""

    shape: Callable[[str], str]  # a tensor's shape (a tuple or list of ints)
    arg: Callable[[str], str]  # an arg's value
    shapes: Callable[[str], str]  # the shapes of a list input's tensors (a list)
    # A function the code calls: a builtin (len, all, tuple, ...), "math.prod", "math.ceil",
    # "math.isfinite", or a broadcast rule of numpy_runtime ("shapes_fit", "shapes_broadcast").
    # A target whose scope shadows or lacks a name spells it otherwise.
    call: Callable[[str], str] = lambda name: name
    # A tensor's rank (None: the length of its shape); whether its shape is a tuple already.
    rank: Callable[[str], str] | None = None
    tuples: bool = False


class PyShapeRenderer(PyInfixRenderer):
    """Sizes as ints, shapes as tuples, conditions as bools."""

    def __init__(self, spelling: Spelling, hoist: str | None = None) -> None:
        self.spell = spelling
        # The variables the enclosing PerAxis/ForAxes (axes), AllValues (values) and
        # EachTensor (shapes) bind, innermost last.
        self.bound: dict[str, list[str]] = {"k": [], "v": [], "e": []}
        self.count = 0
        # Where code runs statements: the prefix of the locals that hold a size a shape reads
        # more than once (None: every size inline), their assignments not yet taken, and the
        # local of each size assigned.
        self.hoist = hoist
        self.hoisted: list[str] = []
        self.memo: dict[Any, str] = {}

    def take(self) -> list[str]:
        """The assignments of the sizes rendered since the last take, in order: the code
        runs them before the statement it rendered (and only once the values are valid)."""
        lines, self.hoisted = self.hoisted, []
        return lines

    def size(self, node: Any, text: Callable[[], str]) -> str:
        """Size ``node`` (``text()`` renders it), through a local when hoisting: a conv axis's
        padding is a tree whose parts (the total padding, its halves) recur in its windows'
        count, which every later axis and pool reads again, so inline it grows without bound
        (as C, ``c_shapes.CShapeRenderer.size``). Inside a binder's body it stays inline."""
        if self.hoist is None or any(self.bound.values()):
            return text()
        name = self.memo.get(node)
        if name is None:
            value = text()
            name = self.memo[node] = f"{self.hoist}{len(self.memo)}"
            self.hoisted.append(f"{name} = {value}")
        return name

    def f(self, name: str) -> str:
        """How the code spells function ``name``."""
        return self.spell.call(name)

    def binding(self, kind: str, render: Callable[[], str]) -> tuple[str, str]:
        """(the variable a binder of ``kind`` introduces, ``render()`` of its body)."""
        name = f"_{kind}{self.count}"
        self.count += 1
        self.bound[kind].append(name)
        try:
            return name, render()
        finally:
            self.bound[kind].pop()

    # -- constraint-language nodes
    def render_literal(self, node: E.Literal) -> str:
        return repr(node.value)

    def render_paramref(self, node: E.ParamRef) -> str:
        return self.spell.arg(node.name) if node.kind == "arg" else self.spell.shape(node.name)

    def render_rank(self, node: E.Rank) -> str:
        if self.spell.rank is not None:
            return self.spell.rank(node.input.name)
        return f"{self.f('len')}({self.spell.shape(node.input.name)})"

    def render_sizeat(self, node: E.SizeAt) -> str:
        shape, axis = self.spell.shape(node.input.name), self.render(node.axis)
        return f"(lambda _s, _a: _s[_a] if -{self.f('len')}(_s) <= _a < {self.f('len')}(_s) else -1)({shape}, {axis})"

    def render_compare(self, node: E.Compare) -> str:
        for ref, lit in ((node.left, node.right), (node.right, node.left)):
            if isinstance(lit, E.Literal) and lit.value is None:  # an optional arg: given or not
                return f"({self.render(ref)} {'is' if node.op == '==' else 'is not'} None)"
        return f"({self.render(node.left)} {node.op} {self.render(node.right)})"

    def render_sameshape(self, node: E.SameShape) -> str:
        first = self.spell.shape(node.inputs[0].name)
        return "(" + " and ".join(f"{self.f('tuple')}({first}) == {self.f('tuple')}({self.spell.shape(r.name)})"
                                  for r in node.inputs[1:]) + ")"

    def render_broadcastableshapes(self, node: E.BroadcastableShapes) -> str:
        shapes = ", ".join(self.spell.shape(r.name) for r in node.inputs)
        return f"{self.f('shapes_fit')}(({shapes},), False)"

    def render_shapeof(self, node: E.ShapeOf) -> str:
        shape = self.spell.shape(node.input.name)
        return shape if self.spell.tuples else f"{self.f('tuple')}({shape})"

    # -- sizes
    def render_axis(self, node: S.Axis) -> str:
        return self.bound["k"][-1]

    def render_value(self, node: S.Value) -> str:
        return self.bound["v"][-1]

    def render_item(self, node: S.Item) -> str:
        return f"{self.sequence(node.of)}[{self.render(node.index)}]"

    def render_length(self, node: S.Length) -> str:
        if isinstance(node.of, E.ParamRef) and node.of.kind == "input":  # a list input: its tensors
            return f"{self.f('len')}({self.spell.shapes(node.of.name)})"
        return f"{self.f('len')}({self.sequence(node.of)})"

    def render_numel(self, node: S.Numel) -> str:
        return f"{self.f('math.prod')}({self.sequence(node.of)})"

    def render_where(self, node: S.Where) -> str:
        return self.size(node, lambda: f"({self.render(node.then)} if {self.render(node.condition)} "
                                       f"else {self.render(node.otherwise)})")

    def render_max(self, node: S.Max) -> str:
        return self.size(node, lambda: f"{self.f('max')}({', '.join(self.render(t) for t in node.terms)})")

    def render_min(self, node: S.Min) -> str:
        return self.size(node, lambda: f"{self.f('min')}({', '.join(self.render(t) for t in node.terms)})")

    def render_ceil(self, node: S.Ceil) -> str:
        return f"{self.f('math.ceil')}({self.render(node.value)})"

    def render_total(self, node: S.Total) -> str:
        return f"{self.f('sum')}(_s[{self.render(node.axis)}] for _s in {self.spell.shapes(node.inputs.name)})"

    def render_names(self, node: S.Names) -> str:
        values, axis, rank = self.spell.arg(node.axes.name), self.render(node.axis), self.render(node.rank)
        named = f"{self.f('any')}(_n == {axis} or _n + {rank} == {axis} for _n in {values})"
        return f"({named} or {self.f('len')}({values}) == 0)" if node.all_when_empty else named

    def render_allvalues(self, node: S.AllValues) -> str:
        name, condition = self.binding("v", lambda: self.render(node.condition))
        return f"{self.f('all')}({condition} for {name} in {self.spell.arg(node.arg.name)})"

    def render_distinct(self, node: S.Distinct) -> str:
        values, rank = self.spell.arg(node.arg.name), self.render(node.rank)
        return f"({self.f('len')}({{_n + {rank} if _n < 0 else _n for _n in {values}}}) == {self.f('len')}({values}))"

    def render_foraxes(self, node: S.ForAxes) -> str:
        rank = self.render(node.rank)
        name, condition = self.binding("k", lambda: self.render(node.condition))
        return f"{self.f('all')}({condition} for {name} in {self.f('range')}({rank}))"

    def render_fits(self, node: S.Fits) -> str:
        return f"{self.f('shapes_fit')}(({''.join(self.render(s) + ', ' for s in node.shapes)}), {node.strict})"

    def render_shapesequal(self, node: S.ShapesEqual) -> str:
        return f"({self.f('tuple')}({self.render(node.left)}) == {self.f('tuple')}({self.render(node.right)}))"

    def render_each(self, node: S.Each) -> str:
        return f"{self.f('tuple')}({self.bound['e'][-1]})"

    def render_eachtensor(self, node: S.EachTensor) -> str:
        name, condition = self.binding("e", lambda: self.render(node.condition))
        return f"{self.f('all')}({condition} for {name} in {self.spell.shapes(node.inputs.name)})"

    def render_numels(self, node: S.Numels) -> str:
        return f"{self.f('tuple')}({self.f('math.prod')}(_s) for _s in {self.spell.shapes(node.inputs.name)})"

    def render_tensors(self, node: S.Tensors) -> str:
        return f"[{self.render(node.shape)}] * {self.render(node.count)}"

    def render_finite(self, node: S.Finite) -> str:
        return f"{self.f('math.isfinite')}({self.render(node.value)})"

    # -- shapes
    def sequence(self, node: Any) -> str:
        """A shape, or an int-list arg, as a Python sequence."""
        if isinstance(node, E.ParamRef) and node.kind == "arg":
            return f"{self.f('tuple')}({self.spell.arg(node.name)})"
        return self.render(node)

    def render_argshape(self, node: S.ArgShape) -> str:
        return f"{self.f('tuple')}({self.spell.arg(node.arg.name)})"

    def render_firstshape(self, node: S.FirstShape) -> str:
        return f"{self.f('tuple')}({self.spell.shapes(node.inputs.name)}[0])"

    def render_dims(self, node: S.Dims) -> str:
        return "(" + "".join(f"{self.render(s)}, " for s in node.sizes) + ")"

    def render_concat(self, node: S.Concat) -> str:
        return "(" + " + ".join(self.render(p) for p in node.parts) + ")"

    def render_slice(self, node: S.Slice) -> str:
        start = "" if node.start is None else self.render(S.size(node.start))
        stop = "" if node.stop is None else self.render(S.size(node.stop))
        return f"{self.render(node.of)}[{start}:{stop}]"

    def render_peraxis(self, node: S.PerAxis) -> str:
        rank = self.render(node.rank)
        parts: list[str] = []
        name, _ = self.binding("k", lambda: parts.extend(
            [self.render(node.size), self.render(node.keep) if node.keep is not None else ""]) or "")
        size, keep = parts
        return f"{self.f('tuple')}({size} for {name} in {self.f('range')}({rank}){' if ' + keep if keep else ''})"

    def render_broadcast(self, node: S.Broadcast) -> str:
        return f"{self.f('shapes_broadcast')}(({''.join(self.render(s) + ', ' for s in node.shapes)}), {node.strict})"


def evaluate(node: Any, tensors: Mapping[str, tuple[int, ...]], args: Mapping[str, Any],
             lists: Mapping[str, list[tuple[int, ...]]] | None = None) -> Any:
    """Run a shape, size or condition at generation time (DSL names -> shapes, values)."""
    lists = lists or {}
    scope: dict[str, Any] = {"math": math, "shapes_broadcast": numpy_runtime.shapes_broadcast,
                             "shapes_fit": numpy_runtime.shapes_fit,
                             "_t": dict(tensors), "_a": dict(args), "_l": dict(lists)}
    spelling = Spelling(shape=lambda n: f"_t[{n!r}]", arg=lambda n: f"_a[{n!r}]", shapes=lambda n: f"_l[{n!r}]")
    return eval(PyShapeRenderer(spelling).render(node), scope)  # our own rendering of our own tree
