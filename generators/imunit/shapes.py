"""Shape expressions (``dsl/shapes.py``) in Imaginet's expression language.

A unit declares what its op's form says (ADR 0029): each output's shape, and each
refusal as an ``<Assert>``. The language counts axes from the right and has no list
arithmetic, so a shape that is built (per axis, sliced, concatenated, broadcast) becomes
a chain of ``<Expression>`` values that appends one axis at a time (:meth:`materialize`);
quantifiers over list args, axes and sockets unroll over their fixed limits (eight
values or axes, the unit's sockets). Every expression stays defined for inputs the
Asserts refuse: sizes read outside a shape are 0 and divisions by 0 give 0.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from dsl import expr as E
from dsl import shapes as S
from dsl.model import Op
from generators.imunit.render import ImaginetRenderer

MAX_RANK = S.MAX_RANK
#: A size rendered longer than this becomes a hidden value of its own (``UnitShapeRenderer.named``).
NAMED_SIZE_LENGTH = 100


class UnitShapeRenderer(ImaginetRenderer):
    """Renders sizes, conditions and shapes of one op's form for its unit.

    ``tensor`` spells a single input's shape, ``value`` an arg, ``sockets`` the sockets of a
    list input and ``count`` how many of them are connected; built shapes become hidden
    values named ``<prefix><n>_<k>``, collected in :attr:`hidden` (with ``name_sizes``, also
    each size that branches or divides, ``<prefix>_size<n>``)."""

    def __init__(self, op: Op, prefix: str, value: Callable[[str], str],
                 tensor: Callable[[str], str] | None = None, sockets: Callable[[str], list[str]] | None = None,
                 count: Callable[[str], str] | None = None, single_axis: str | None = None,
                 single_axis_value: str = "axis", axis_options: dict[str, Any] | None = None,
                 name_sizes: bool = False) -> None:
        super().__init__(op)
        self.prefix = prefix
        self.value = value
        self.tensor = tensor or (lambda name: f"{name}.shape")
        self.sockets = sockets or (lambda name: [name])
        self.count = count or (lambda name: f"{name}_count")
        # A reduction's list of axes, which a unit takes as its one `axis` option (ADR 0013).
        self.single_axis = single_axis
        self.single_axis_value = single_axis_value  # the unit's value of that one axis, a NumPy axis
        # The unit's options that name one axis (from the innermost), each with the rank it counts in.
        self.axis_options = axis_options or {}
        self.hidden: list[tuple[str, str]] = []
        self._built: dict[tuple[Any, ...], str] = {}
        self._named: dict[tuple[Any, ...], str] = {}
        self.name_sizes = name_sizes  # (whoever takes the hidden values declares them)
        self.bound: dict[str, list[str]] = {"k": [], "v": [], "e": []}

    # -- parameters
    def render_paramref(self, node: E.ParamRef) -> str:
        if node.kind == "input":
            return self.tensor(node.name)
        return f"{node.config}_{node.name}" if node.config else self.value(node.name)

    def render_rank(self, node: E.Rank) -> str:
        return f"{self.tensor(node.input.name)}.count"

    def render_sizeat(self, node: E.SizeAt) -> str:
        shape = self.tensor(node.input.name)
        a = self.render(node.axis)
        return (f"(({a}) < 0 ? ({shape}.count >= -({a}) ? {shape}.size(-({a}) - 1) : -1) : "
                f"({shape}.count > ({a}) ? {shape}.size({shape}.count - 1 - ({a})) : -1))")

    def render_compare(self, node: E.Compare) -> str:
        # An optional arg is a value plus a `use_<arg>` flag in a unit, never null.
        for ref, lit in ((node.left, node.right), (node.right, node.left)):
            if isinstance(ref, E.ParamRef) and isinstance(lit, E.Literal) and lit.value is None:
                return f"(use_{ref.name} {'==' if node.op == '!=' else '!='} true)"
        return super().render_compare(node)

    def render_shapeof(self, node: E.ShapeOf) -> str:
        return self.tensor(node.input.name)

    def render_sameshape(self, node: E.SameShape) -> str:
        first = self.tensor(node.inputs[0].name)
        return "(" + " && ".join(self.equal(first, self.tensor(r.name)) for r in node.inputs[1:]) + ")"

    def render_broadcastableshapes(self, node: E.BroadcastableShapes) -> str:
        return self.fits([self.tensor(r.name) for r in node.inputs], False)

    def render_arith(self, node: E.Arith) -> str:
        if node.op in ("//", "%", "/"):  # (no division by 0 while the Asserts have not run)
            return self.named(node, lambda: "(({1}) == 0 ? 0 : ({0}) {2} ({1}))".format(
                self.render(node.left), self.render(node.right), "%" if node.op == "%" else "/"))
        return f"({self.render(node.left)} {node.op} {self.render(node.right)})"

    def named(self, node: Any, text: Callable[[], str]) -> str:
        """A long size that branches or divides as a hidden value ``<prefix>_size<n>``, rendered
        once however many sizes, Asserts and shapes read it (a window's padding and count); a
        short one (a normalized axis) stays inline, as a real unit writes it."""
        if not self.name_sizes:
            return text()
        key = self.key(node)
        if key not in self._named:
            value = text()
            if len(value) <= NAMED_SIZE_LENGTH:
                return value
            self._named[key] = f"{self.prefix}_size{len(self._named)}"
            self.hidden.append((self._named[key], value))
        return self._named[key]

    def key(self, node: Any) -> tuple[Any, ...]:
        """``node`` with the values it reads of the enclosing axes, values and tensors: a shape
        or size that reads none is rendered once, wherever it stands."""
        free = S.free_bindings(node)
        return (node, tuple(tuple(v) if kind in free else () for kind, v in self.bound.items()))

    # -- sizes
    def render_axis(self, node: S.Axis) -> str:
        return self.bound["k"][-1]

    def render_value(self, node: S.Value) -> str:
        return self.bound["v"][-1]

    def render_each(self, node: S.Each) -> str:
        return self.bound["e"][-1]

    def element(self, values: str, index: str) -> str:
        """NumPy-order element ``index`` of a shape value, 0 outside it."""
        return f"((({index}) >= 0 && ({index}) < {values}.count) ? {values}.size({values}.count - 1 - ({index})) : 0)"

    def is_axes(self, node: Any) -> bool:
        return isinstance(node, E.ParamRef) and node.kind == "arg" and node.name == self.single_axis

    def values(self, node: Any) -> str:
        """A shape, or an int-list arg (a ShapeOption: a shape value), as a shape value."""
        if isinstance(node, E.ParamRef) and node.kind == "arg":
            return self.value(node.name)
        return self.shape(node)

    def render_item(self, node: S.Item) -> str:
        if self.is_axes(node.of):
            return self.single_axis_value
        return self.element(self.values(node.of), self.render(node.index))

    def render_length(self, node: S.Length) -> str:
        if isinstance(node.of, E.ParamRef) and node.of.kind == "input":  # a list input: connected sockets
            return self.count(node.of.name)
        if self.is_axes(node.of):
            return "1"
        if isinstance(node.of, (S.PerAxis, S.Slice, S.Concat, S.Broadcast, S.Numels)):
            rank, _, keep = self.per_axis(node.of)
            if keep is None:  # (a built shape holds MAX_RANK axes at most; its rank may say more)
                return f"({self.render(rank)})"
        return f"{self.values(node.of)}.count"

    def render_numel(self, node: S.Numel) -> str:
        return f"{self.values(node.of)}.flat"

    def render_where(self, node: S.Where) -> str:
        known = self.known_axis_test(node.condition)
        if known is not None:  # (a per-axis choice at an axis the unit knows: that branch alone)
            return self.render(node.then if known else node.otherwise)
        if isinstance(node.then, S.SHAPES) or isinstance(node.otherwise, S.SHAPES):
            return f"({self.render(node.condition)} ? {self.shape(node.then)} : {self.shape(node.otherwise)})"

        def text() -> str:  # (either way the same, as a per-axis choice folded at a known axis: one)
            then, otherwise = self.render(node.then), self.render(node.otherwise)
            return then if then == otherwise else f"({self.render(node.condition)} ? {then} : {otherwise})"

        return self.named(node, text)

    def known_axis_test(self, condition: Any) -> bool | None:
        """Whether ``axis == n`` holds, where the axis is bound to a number; None otherwise."""
        if not (isinstance(condition, E.Compare) and condition.op == "==" and self.bound["k"]
                and self.bound["k"][-1].isdigit()):
            return None
        for axis, literal in ((condition.left, condition.right), (condition.right, condition.left)):
            if isinstance(axis, S.Axis) and isinstance(literal, E.Literal) and type(literal.value) is int:
                return int(self.bound["k"][-1]) == literal.value
        return None

    def render_max(self, node: S.Max) -> str:
        return self.named(node, lambda: self.fold("Math.max", node.terms))

    def render_min(self, node: S.Min) -> str:
        return self.named(node, lambda: self.fold("Math.min", node.terms))

    def hidden_read_by(self, texts: list[str]) -> list[tuple[str, str]]:
        """The hidden values, less the named sizes that neither ``texts`` nor a value kept reads
        (one rendered for a refusal a unit cannot meet, or for a shape a method call gave)."""
        named = set(self._named.values())
        kept: list[tuple[str, str]] = []
        for name, value in reversed(self.hidden):  # (a value reads only those before it)
            if name not in named or any(re.search(rf"\b{name}\b", t) for t in (*texts, *(v for _, v in kept))):
                kept.append((name, value))
        return kept[::-1]

    def fold(self, function: str, terms: tuple[Any, ...]) -> str:
        text = self.render(terms[0])
        for t in terms[1:]:
            text = f"{function}({text}, {self.render(t)})"
        return text

    def render_ceil(self, node: S.Ceil) -> str:
        return f"Math.ceil({self.render(node.value)})"

    def render_total(self, node: S.Total) -> str:
        axis = self.render(node.axis)
        return "(" + " + ".join(f"({s} != null ? {self.element(s + '.shape', axis)} : 0)"
                                for s in self.sockets(node.inputs.name)) + ")"

    def render_names(self, node: S.Names) -> str:
        axis, rank = self.render(node.axis), self.render(node.rank)
        if self.is_axes(node.axes):
            a = self.single_axis_value
            return f"({a} == ({axis}) || {a} + ({rank}) == ({axis}))"
        values = self.value(node.axes.name)
        named = " || ".join(f"({values}.count > {m} && ({self.element(values, str(m))} == ({axis}) || "
                            f"{self.element(values, str(m))} + ({rank}) == ({axis})))" for m in range(MAX_RANK))
        return f"(({named}) || {values}.count == 0)" if node.all_when_empty else f"({named})"

    def render_allvalues(self, node: S.AllValues) -> str:
        if self.is_axes(node.arg):
            return self.bind("v", self.single_axis_value, node.condition)
        values = self.value(node.arg.name)
        return "(" + " && ".join(f"({values}.count <= {m} || {self.bind('v', self.element(values, str(m)), node.condition)})"
                                 for m in range(MAX_RANK)) + ")"

    def render_distinct(self, node: S.Distinct) -> str:
        if self.is_axes(node.arg):
            return "true"
        values, rank = self.value(node.arg.name), self.render(node.rank)

        def norm(m: int) -> str:
            v = self.element(values, str(m))
            return f"({v} < 0 ? {v} + ({rank}) : {v})"

        pairs = [f"({values}.count <= {n} || {norm(m)} != {norm(n)})" for n in range(MAX_RANK) for m in range(n)]
        return "(" + " && ".join(pairs) + ")"

    def render_foraxes(self, node: S.ForAxes) -> str:
        rank = self.render(node.rank)
        return "(" + " && ".join(f"(({rank}) <= {k} || {self.bind('k', str(k), node.condition)})"
                                 for k in range(MAX_RANK)) + ")"

    def render_eachtensor(self, node: S.EachTensor) -> str:
        return "(" + " && ".join(f"({s} == null || {self.bind('e', s + '.shape', node.condition)})"
                                 for s in self.sockets(node.inputs.name)) + ")"

    def render_shapesequal(self, node: S.ShapesEqual) -> str:
        return self.equal(self.shape(node.left), self.shape(node.right))

    def render_fits(self, node: S.Fits) -> str:
        return self.fits([self.shape(s) for s in node.shapes], node.strict)

    def render_finite(self, node: S.Finite) -> str:
        v = self.render(node.value)
        return f"(({v}) - ({v}) == 0)"  # false for an infinity and for NaN

    def bind(self, kind: str, value: str, node: Any) -> str:
        self.bound[kind].append(value)
        try:
            return self.render(node)
        finally:
            self.bound[kind].pop()

    def equal(self, a: str, b: str) -> str:
        """Two shape values of the same rank and sizes."""
        same = " && ".join(f"({a}.count <= {j} || {a}.size({j}) == {b}.size({j}))" for j in range(MAX_RANK))
        return f"({a}.count == {b}.count && {same})"

    def fits(self, shapes: list[str], strict: bool) -> str:
        """Whether shape values broadcast together (strict: are equal, or scalars)."""
        if strict:
            return "(" + " && ".join(f"({a}.count == 0 || {b}.count == 0 || {self.equal(a, b)})"
                                     for i, a in enumerate(shapes) for b in shapes[i + 1:]) + ")"
        terms = [f"({a}.count <= {j} || {b}.count <= {j} || {a}.size({j}) == {b}.size({j}) || {a}.size({j}) == 1 "
                 f"|| {b}.size({j}) == 1)" for i, a in enumerate(shapes) for b in shapes[i + 1:] for j in range(MAX_RANK)]
        return "(" + " && ".join(terms) + ")" if terms else "true"

    # -- shapes
    def shape(self, node: Any) -> str:
        """A shape node as a shape value (built shapes become hidden values)."""
        if isinstance(node, E.ShapeOf):
            return self.tensor(node.input.name)
        if isinstance(node, S.ArgShape):
            return self.value(node.arg.name)
        if isinstance(node, S.FirstShape):
            return f"{self.sockets(node.inputs.name)[0]}.shape"
        if isinstance(node, S.Each):
            return self.bound["e"][-1]
        if isinstance(node, S.Dims):
            return f"System.Shape({', '.join(self.render(s) for s in node.sizes)})"
        if isinstance(node, S.Where):
            return self.render_where(node)
        if isinstance(node, S.Broadcast) and node.strict:
            shapes = [self.shape(s) for s in node.shapes]
            text = shapes[-1]
            for s in reversed(shapes[:-1]):
                text = f"({s}.count != 0 ? {s} : {text})"
            return text
        return self.method(node) or self.materialize(node)

    def method(self, node: Any) -> str | None:
        """A built shape that is another with one axis removed, replaced or inserted, as the
        language's own ``remove``, ``replace`` or ``insert`` (one Expression, as a real unit
        writes it, where :meth:`materialize` builds nine); None for other shapes. Out of range,
        where an Assert refuses, the shape is left as it is."""
        if isinstance(node, S.PerAxis):
            return self._reduced(node)
        if not isinstance(node, S.Concat) or len(node.parts) not in (2, 3):
            return None
        head, *middle, tail = node.parts
        if not (isinstance(head, S.Slice) and isinstance(tail, S.Slice) and head.of == tail.of
                and head.start is None and tail.stop is None and head.stop is not None):
            return None
        if middle and not (isinstance(middle[0], S.Dims) and len(middle[0].sizes) == 1):
            return None
        of = self.shape(head.of)
        if tail.start == S.add(head.stop, 1):  # remove or replace NumPy axis `stop`
            axis, fits = self.imaginet(head.stop, f"{of}.count")
            call = f"replace({axis}, {self.render(middle[0].sizes[0])})" if middle else f"remove({axis})"
        elif middle and tail.start == head.stop:  # a new axis before NumPy axis `stop` (0..rank)
            axis, fits = self.imaginet(head.stop, f"{of}.count", insert=True)
            call = f"insert({axis}, {self.render(middle[0].sizes[0])})"
        else:
            return None
        return f"(({fits}) ? {of}.{call} : {of})"

    def imaginet(self, at: Any, n: str, insert: bool = False) -> tuple[str, str]:
        """(the language's axis for NumPy axis ``at``, 0..n-1, of a shape of ``n`` axes, or with
        ``insert`` for the position before it, 0..n; when it is in range). A normalized axis
        option the unit takes (counted from the innermost, ADR 0013) in that many axes is
        passed as it is."""
        if (isinstance(at, S.Where) and isinstance(at.condition, E.Compare) and at.condition.op == "<"
                and at.condition.right == S.size(0) and at.otherwise == at.condition.left):
            option = self.option_axis(at.otherwise, f"({n} + 1)" if insert else n)  # normalized(a, rank)
            if option is not None:
                return option
        a = self.render(at)
        if insert:
            return f"{n} - ({a})", f"({a}) >= 0 && ({a}) <= {n}"
        return f"{n} - 1 - ({a})", f"({a}) >= 0 && ({a}) < {n}"

    def option_axis(self, node: Any, extent: str) -> tuple[str, str] | None:
        """(the unit's axis option ``node``, when it is in range), if it counts in ``extent`` axes:
        either sign names the same axis in the language as in NumPy."""
        if (isinstance(node, E.ParamRef) and node.kind == "arg" and node.name in self.axis_options
                and self.render(self.axis_options[node.name]) == extent):
            return node.name, f"{node.name} >= -{extent} && {node.name} < {extent}"
        return None

    def _reduced(self, node: S.PerAxis) -> str | None:
        """A reduction's shape over the unit's one axis: that axis replaced by 1 where it is
        kept, else removed."""
        where = node.size
        if not (self.single_axis is not None and isinstance(where, S.Where) and isinstance(where.condition, S.Names)
                and self.is_axes(where.condition.axes) and where.then == S.size(1)
                and isinstance(where.otherwise, S.Item) and isinstance(where.otherwise.of, E.ShapeOf)
                and isinstance(where.otherwise.index, S.Axis) and where.condition.rank == node.rank
                and node.rank == E.Rank(where.otherwise.of.input)):
            return None
        of = self.shape(where.otherwise.of)
        # (the unit's one axis; a NumPy axis of either sign, as Names reads it, where no option says so)
        a = self.single_axis_value
        axis, fits = self.option_axis(S.arg("axis"), f"{of}.count") or (
            f"(({a}) >= 0 ? {of}.count - 1 - ({a}) : -1 - ({a}))", f"({a}) >= -{of}.count && ({a}) < {of}.count")
        replaced, removed = (f"(({fits}) ? {of}.{call} : {of})" for call in (f"replace({axis}, 1)", f"remove({axis})"))
        reduced = where.condition
        if node.keep is None:
            return replaced
        if node.keep == E.Not(reduced):
            return removed
        if isinstance(node.keep, E.AnyOf) and len(node.keep.terms) == 2 and node.keep.terms[1] == E.Not(reduced):
            return f"({self.render(node.keep.terms[0])} ? {replaced} : {removed})"
        return None

    def materialize(self, node: Any) -> str:
        """A built shape as hidden values ``<name>_0..<name>_8``, one axis appended at a time;
        its name (a shape that reads an enclosing axis or value is built once per binding)."""
        key = self.key(node)
        if key in self._built:
            return self._built[key]
        rank, size, keep = self.per_axis(node)
        name = f"{self.prefix}{len(self._built)}"
        self._built[key] = f"{name}_{MAX_RANK}"
        rank_text = self.render(rank)
        self.hidden.append((f"{name}_0", "System.Shape()"))
        for k in range(MAX_RANK):
            condition = f"({rank_text}) > {k}" + (f" && ({keep(str(k))})" if keep is not None else "")
            self.hidden.append((f"{name}_{k + 1}",
                                f"({condition}) ? {name}_{k}.insert(0, {size(str(k))}) : {name}_{k}"))
        return f"{name}_{MAX_RANK}"

    def per_axis(self, node: Any) -> tuple[Any, Callable[[str], str], Callable[[str], str] | None]:
        """(rank node, size of axis k, keep axis k or None) of a built shape."""
        if isinstance(node, S.PerAxis):
            keep = (lambda k: self.bind("k", k, node.keep)) if node.keep is not None else None
            return node.rank, lambda k: self.bind("k", k, node.size), keep
        if isinstance(node, S.Slice):
            of = self.shape(node.of)
            n = f"{of}.count"

            def bound(v: Any, default: str) -> str:
                if v is None:
                    return default
                t = self.render(S.size(v))
                return f"Math.max(0, Math.min({n}, ({t}) < 0 ? ({t}) + {n} : ({t})))"

            start, stop = bound(node.start, "0"), bound(node.stop, n)
            return (_Text(f"Math.max(0, {stop} - {start})"),
                    lambda k: self.element(of, f"{start} + {k}"), None)
        if isinstance(node, S.Concat):
            parts = [self.shape(p) for p in node.parts]

            def size(k: str) -> str:
                text, offset = "0", "0"
                pieces = []
                for p in parts:
                    pieces.append((offset, p))
                    offset = f"{offset} + {p}.count"
                for start, p in reversed(pieces):
                    text = f"({k} >= {start} && {k} < {start} + {p}.count ? {self.element(p, f'{k} - ({start})')} : {text})"
                return text

            return _Text(" + ".join(f"{p}.count" for p in parts) or "0"), size, None
        if isinstance(node, S.Broadcast):
            shapes = [self.shape(s) for s in node.shapes]
            rank = shapes[0] + ".count"
            for s in shapes[1:]:
                rank = f"Math.max({rank}, {s}.count)"

            def size(k: str) -> str:
                j = f"(({rank}) - 1 - {k})"  # from the right
                def aligned(s: str) -> str:
                    return f"({s}.count > {j} ? {s}.size({j}) : 1)"
                text = aligned(shapes[0])
                for s in shapes[1:]:
                    text = f"({text} == 1 ? {aligned(s)} : {text})"
                return text

            return _Text(rank), size, None
        if isinstance(node, S.Numels):
            sockets = self.sockets(node.inputs.name)

            def size(k: str) -> str:
                text = "0"
                for m in reversed(range(len(sockets))):
                    text = f"({k} == {m} && {sockets[m]} != null ? {sockets[m]}.shape.flat : {text})"
                return text

            return _Text(self.count(node.inputs.name)), size, None
        raise NotImplementedError(f"cannot build {type(node).__name__} in a unit")

    def render__text(self, node: "_Text") -> str:
        return node.text


class _Text:
    """Expression text already rendered (a built shape's rank)."""

    def __init__(self, text: str) -> None:
        self.text = text
