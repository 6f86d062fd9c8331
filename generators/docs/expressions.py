"""Readable, Python-like text for constraint expressions and default values."""

from __future__ import annotations

from dsl import expr as E
from dsl.model import NO_DEFAULT, DefaultValue

# Binding strength, loosest first, for minimal parentheses.
_PRECEDENCE = {E.AnyOf: 1, E.AllOf: 2, E.Not: 3, E.Compare: 4}
_ARITH = {"+": 5, "-": 5, "*": 6, "//": 6, "/": 6, "%": 6}


def _literal(value: object) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


class ReadableRenderer(E.Renderer):
    """``x.rank() == 2 and (y.size_at(0) >= 7 or not flag)``."""

    def _level(self, node: E.Expr) -> int:
        if isinstance(node, E.Arith):
            return _ARITH[node.op]
        if isinstance(node, E.Neg):
            return 7
        return _PRECEDENCE.get(type(node), 9)

    def _sub(self, node: E.Expr, parent_level: int, strict: bool = False) -> str:
        text = self.render(node)
        level = self._level(node)
        return f"({text})" if level < parent_level or (strict and level == parent_level) else text

    def render_paramref(self, node: E.ParamRef) -> str:
        return str(node)

    def render_literal(self, node: E.Literal) -> str:
        return _literal(node.value)

    def render_rank(self, node: E.Rank) -> str:
        return f"{node.input}.rank()"

    def render_sizeat(self, node: E.SizeAt) -> str:
        return f"{node.input}.size_at({self.render(node.axis)})"

    def render_compare(self, node: E.Compare) -> str:
        return f"{self._sub(node.left, 5)} {node.op} {self._sub(node.right, 5)}"

    def render_arith(self, node: E.Arith) -> str:
        level = _ARITH[node.op]
        return f"{self._sub(node.left, level)} {node.op} {self._sub(node.right, level, strict=True)}"

    def render_neg(self, node: E.Neg) -> str:
        return f"-{self._sub(node.operand, 7)}"

    def render_allof(self, node: E.AllOf) -> str:
        return " and ".join(self._sub(t, 3) for t in node.terms)

    def render_anyof(self, node: E.AnyOf) -> str:
        return " or ".join(self._sub(t, 2) for t in node.terms)

    def render_not(self, node: E.Not) -> str:
        return f"not {self._sub(node.term, 5)}"

    def _call(self, name: str, refs: tuple[E.ParamRef, ...]) -> str:
        return f"{name}({', '.join(str(r) for r in refs)})"

    def render_sametype(self, node: E.SameType) -> str:
        return self._call("same_type", node.inputs)

    def render_sameshape(self, node: E.SameShape) -> str:
        return self._call("same_shape", node.inputs)

    def render_broadcastableshapes(self, node: E.BroadcastableShapes) -> str:
        return self._call("broadcastable_shapes", node.inputs)

    def render_shapeof(self, node: E.ShapeOf) -> str:
        return f"{node.input}.shape()"

    def render_datatypeof(self, node: E.DataTypeOf) -> str:
        return f"{node.input}.data_type()"


READABLE = ReadableRenderer()


def default_text(value: DefaultValue) -> str | None:
    """A default value as code, or None when there is none."""
    if value is NO_DEFAULT:
        return None
    if value is None:
        return "None"
    if isinstance(value, tuple):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, (E.ParamRef, E.ShapeOf, E.DataTypeOf)):
        return READABLE.render(value)
    return _literal(value)


# ---------------------------------------------------------------- compute

_INFIX = {"add": "+", "sub": "-", "mul": "*", "div": "/", "pow": "**", "eq": "==", "ne": "!=", "lt": "<",
          "le": "<=", "gt": ">", "ge": ">=", "bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^",
          "left_shift": "<<", "right_shift": ">>"}


def scalar_text(node: object) -> str:
    """A compute tree as an expression: ``x + y``, ``exp(x - m)``."""
    from dsl import compute as C

    if isinstance(node, C.SSym):
        return node.name
    if isinstance(node, C.SConst):
        return _literal(node.value)
    assert isinstance(node, C.SCall)
    args = [scalar_text(a) for a in node.args]
    if node.fn in _INFIX:
        return f"({args[0]} {_INFIX[node.fn]} {args[1]})"
    if node.fn == "neg":
        return f"-{args[0]}"
    return f"{node.fn}({', '.join(args)})"


def compute_text(op: object) -> list[str]:
    """What an op computes, one line per case."""
    from dsl import compute as C

    c = op.compute  # type: ignore[attr-defined]
    out = op.outputs[0].name if op.outputs else "output"  # type: ignore[attr-defined]
    if c is None:
        return []
    steps = op.composition.steps if op.composition is not None else ()  # type: ignore[attr-defined]
    if steps:
        rule = "NumPy broadcasting" if c.broadcast == "numpy" else "equal shapes or one scalar operand"
        lines = []
        for s in steps:
            args = [str(i) for i in s.inputs] + [f"{k}={_literal(v)}" for k, v in s.args]
            name = out if s is steps[-1] else s.name
            lines.append(f"composed, {rule}: {name} = {s.op}({', '.join(args)})")
        return lines
    if isinstance(c, C.Elementwise):
        lines = []
        for given, expr in c.cases:
            when = ""
            if c.optional:
                unset = [p for p in c.optional if p not in given]
                when = " when " + ", ".join([f"{p} is given" for p in given] + [f"{p} is None" for p in unset])
            text = scalar_text(expr)
            if text.startswith("(") and text.endswith(")"):
                text = text[1:-1]  # outer parentheses of an infix operation
            lines.append(f"{out} = {text}{when}")
        rule = "NumPy broadcasting" if c.broadcast == "numpy" else "equal shapes or one scalar operand"
        return [f"elementwise, {rule}: {line}" for line in lines]
    if isinstance(c, C.Reduction):
        pair = f"({c.input}, {c.other}) pairs" if c.other else c.input
        parts = [f"reduce {pair} over {c.axes} with {c.combine}"]
        if c.pre:
            parts.append(f"m = {c.pre} of the same elements")
        if c.map is not None and c.extra_maps:
            sums = [f"acc = sum of {scalar_text(c.map)}"]
            sums += [f"acc{k} = sum of {scalar_text(e)}" for k, e in enumerate(c.extra_maps, 1)]
            parts.append(", ".join(sums))
        elif c.map is not None:
            parts.append(f"each element as {scalar_text(c.map)}")
        if c.finalize is not None:
            parts.append(f"result {scalar_text(c.finalize)}")
        return ["; ".join(parts)]
    if isinstance(c, C.ArgReduction) and c.searches:
        return [f"index of the {c.which} element along {c.axis} where {scalar_text(c.map)} holds, -1 where none does"]
    if isinstance(c, C.ArgReduction):
        of = scalar_text(c.map) if c.map is not None else c.input
        return [f"index of the first {c.which}imum of {of} along {c.axis}"]
    if isinstance(c, C.Contraction):
        return [f"einsum {c.spec.text} over {', '.join(c.inputs)}"]
    if isinstance(c, C.RandomSample):
        params = ", ".join(f"{k}={v}" for k, v in c.params)
        return [f"samples of {c.distribution}({params}) from Philox4x32-10 keyed by (seed, offset)"]
    if isinstance(c, C.SlidingWindow):
        return [f"stream: windows of {c.window} frames of {c.input} (axis 0), every {c.stride} frames; "
                f"the queue holds {C.CAPACITY_WINDOWS} * {c.window} frames"]
    if isinstance(c, C.Generation):
        given = ", ".join(f"{role}={name}" if role != name else name for role, name in c.params)
        return [f"generated {c.generator}({given}) in the dtype arg's type"]
    if isinstance(c, C.LayoutMove):
        given = ", ".join(f"{role}={name}" if role != name else name for role, name in c.params)
        return [f"layout {c.layout}({', '.join(filter(None, [c.input, given]))}): elements moved, not computed"]
    if isinstance(c, C.FindAll):
        indices, count = (o.name for o in op.outputs)  # type: ignore[attr-defined]
        return [f"find all: {indices} = the flat indices of {c.input} where {scalar_text(c.map)} holds, in order, "
                f"then zeros; {count} = how many"]
    if isinstance(c, C.TensorDot):
        (x, y), (ax, ay), (tx, ty, tz) = c.inputs, c.axes, c.transposes
        return [f"tensordot of {x} and {y} over the axes {ax} of {x} and {ay} of {y} (numpy.tensordot); "
                f"{tx}, {ty} reverse the axes of {x}, {y} first, {tz} those of the result after"]
    if isinstance(c, C.Parts):
        given = ", ".join(f"{role}={name}" if role != name else name for role, name in c.params)
        return [f"parts {c.part}({c.source}, {given}): the list {c.outputs}, elements moved, not computed"]
    if isinstance(c, C.ShapeQuery):
        what = {"shape": f"the shape of {c.input}, one int64 per axis", "size": f"the number of elements of {c.input}",
                "rank": f"the rank of {c.input}", "size_at": f"the size of axis {c.axis} of {c.input}"}[c.query]
        return [f"shape query: {out} = {what}"]
    if isinstance(c, C.ScatterRows):
        fold = scalar_text(c.combine)
        if c.ref is not None:
            return [f"scatter: {out} starts as {c.ref}; for each k in order, with i = {c.indices}[k] "
                    f"(negative from the end): acc = {out}[i], u = {c.updates}[k], {out}[i] = {fold}"]
        start = {"zero": "0", "one": "1", "lowest": "the lowest value", "highest": "the highest value"}[c.init]
        text = (f"segments: {out} has {c.rows} rows starting at {start}; for each k in order, with "
                f"s = {c.indices}[k]: acc = {out}[s], u = {c.updates}[k], {out}[s] = {fold}")
        if c.scale is not None:
            by = "its number n of updates" if c.scale == "mean" else "sqrt(n), n its number of updates"
            text += f"; then each row is divided by {by}"
        if c.sorted:
            text += f"; {c.indices} must be sorted"
        return [text]
    if isinstance(c, C.FragmentKernel):
        return [f"hand-written fragments: {c.c_file} (C), {c.python_file}:{c.python_fragment} (Python)"]
    return []
