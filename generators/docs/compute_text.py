"""What an op computes, as the docs' text: one function per compute form."""

from __future__ import annotations

from typing import Any, Callable

from dsl import compute as C
from dsl import fixed_point as F
from dsl.scalar import substitute
from dsl.model import Op
from generators.kernels.readable import _literal

_INFIX = {"add": "+", "sub": "-", "mul": "*", "div": "/", "pow": "**", "eq": "==", "ne": "!=", "lt": "<",
          "le": "<=", "gt": ">", "ge": ">=", "bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^",
          "left_shift": "<<", "right_shift": ">>"}


def scalar_text(node: object) -> str:
    """A compute tree as an expression: ``x + y``, ``exp(x - m)``."""
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
    if node.fn == "ilog2":  # (a fixed-point kernel's: an output shift's integer log)
        return f"floor(log2({args[0]}))"
    return f"{node.fn}({', '.join(args)})"


def _out(op: Op) -> str:
    return op.outputs[0].name if op.outputs else "output"


def _broadcast_rule(c: Any) -> str:
    return {"numpy": "NumPy broadcasting", "strict": "equal shapes or one scalar operand",
            "equal": "equal shapes"}[c.broadcast]


def _roles(params: tuple[tuple[str, str], ...]) -> str:
    return ", ".join(f"{role}={name}" if role != name else name for role, name in params)


def _composed(op: Op, c: Any) -> list[str]:
    steps = op.composition.steps  # type: ignore[union-attr]
    lines = []
    for s in steps:
        args = [str(i) for i in s.inputs] + [f"{k}={_literal(v)}" for k, v in s.args]
        name = _out(op) if s is steps[-1] else s.name
        lines.append(f"composed, {_broadcast_rule(c)}: {name} = {s.op}({', '.join(args)})")
    return lines


def _elementwise(op: Op, c: C.Elementwise) -> list[str]:
    lines = []
    for given, expr in c.cases:
        when = ""
        if c.optional:
            when = " when " + ", ".join(f"{p} is {'given' if set_ else 'None'}" for p, set_ in c.presence(given))
        text = scalar_text(expr)
        if text.startswith("(") and text.endswith(")"):
            text = text[1:-1]  # outer parentheses of an infix operation
        lines.append(f"{_out(op)} = {text}{when}")
    return [f"elementwise, {_broadcast_rule(c)}: {line}" for line in lines]


def _reduction(op: Op, c: C.Reduction) -> list[str]:
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


def _arg_reduction(op: Op, c: C.ArgReduction) -> list[str]:
    if c.searches:
        return [f"index of the {c.which} element along {c.axis} where {scalar_text(c.map)} holds, -1 where none does"]
    of = scalar_text(c.map) if c.map is not None else c.input
    which = "first" if c.last_index is None else f"first (the last where {c.last_index})"
    return [f"index of the {which} {c.which}imum of {of} along {c.axis}"]


def _contraction(op: Op, c: C.Contraction) -> list[str]:
    return [f"einsum {c.spec.text} over {', '.join(c.inputs)}"]


def _random_sample(op: Op, c: C.RandomSample) -> list[str]:
    params = ", ".join(f"{k}={v}" for k, v in c.params)
    return [f"samples of {c.distribution}({params}) from Philox4x32-10 keyed by (seed, offset)"]


def _sliding_window(op: Op, c: C.SlidingWindow) -> list[str]:
    return [f"stream: windows of {c.window} frames of {c.input} (axis 0), every {c.stride} frames; "
            f"the queue holds {C.CAPACITY_WINDOWS} * {c.window} frames"]


def _generation(op: Op, c: C.Generation) -> list[str]:
    return [f"generated {c.generator}({_roles(c.params)}) in the dtype arg's type"]


def _layout_move(op: Op, c: C.LayoutMove) -> list[str]:
    return [f"layout {c.layout}({', '.join(filter(None, [c.input, _roles(c.params)]))}): "
            "elements moved, not computed"]


def _find_all(op: Op, c: C.FindAll) -> list[str]:
    indices, count = (o.name for o in op.outputs)
    return [f"find all: {indices} = the flat indices of {c.input} where {scalar_text(c.map)} holds, in order, "
            f"then zeros; {count} = how many"]


def _tensordot(op: Op, c: C.TensorDot) -> list[str]:
    (x, y), (ax, ay), (tx, ty, tz) = c.inputs, c.axes, c.transposes
    return [f"tensordot of {x} and {y} over the axes {ax} of {x} and {ay} of {y} (numpy.tensordot); "
            f"{tx}, {ty} reverse the axes of {x}, {y} first, {tz} those of the result after"]


def _parts(op: Op, c: C.Parts) -> list[str]:
    return [f"parts {c.part}({c.source}, {_roles(c.params)}): the list {c.outputs}, elements moved, not computed"]


def _shape_query(op: Op, c: C.ShapeQuery) -> list[str]:
    what = {"shape": f"the shape of {c.input}, one int64 per axis", "size": f"the number of elements of {c.input}",
            "rank": f"the rank of {c.input}", "size_at": f"the size of axis {c.axis} of {c.input}"}[c.query]
    return [f"shape query: {_out(op)} = {what}"]


def _scatter_rows(op: Op, c: C.ScatterRows) -> list[str]:
    out, fold = _out(op), scalar_text(c.combine)
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


def _fragment(op: Op, c: C.FragmentKernel) -> list[str]:
    return [f"hand-written fragments: {c.c_file} (C), {c.python_file}:{c.python_fragment} (Python)"]


def _join(op: Op, c: C.Join) -> list[str]:
    how = f"stacked along {c.axis} (a new axis)" if c.stack else f"concatenated along {c.axis} (an existing axis)"
    return [f"{c.join}: the tensors of the list {c.inputs} {how}: elements moved, not computed"]


def _merge(op: Op, c: C.Merge) -> list[str]:
    return [f"merge: {_out(op)} = {c.combine} of the tensors of the list {c.inputs}, element by element, "
            "in list order"]


def named_rule(rule: F.Conversion, x: bool, bits: str = "N", element: str = "x") -> C.SExpr:
    """A conversion rule's value with the attributes it reads named: x's (``x.shift``,
    ``x.scale``, ``x.offset``) or the output's (the op's args: ``shift``, ...), a Q factor as the
    power of two it is over ``bits`` (N for x's type's fraction bits, M for the output's); the
    element it converts named ``element``. The docs' text and formulas show conversions so."""
    prefix = "x." if x else ""
    factor = C.SCall("pow", (C.SConst(2), C.SCall("sub", (C.SSym(bits), C.SSym(f"{prefix}shift")))))
    return substitute(rule.value, {F.FACTOR: factor, F.SCALE: C.SSym(f"{prefix}scale"),
                                   F.OFFSET: C.SSym(f"{prefix}offset"), F.X.name: C.SSym(element)})


def _conversion(op: Op, c: C.FixedPointConversion) -> list[str]:
    """The form's steps, the pairs that compute alike on one line (their rules, rounding and
    saturation are on the fixed-point types page)."""
    said: dict[str, list[str]] = {}
    for source, target in c.pairs():
        steps, k = c.steps(source, target), c.shift_by(source, target)
        if len(steps) == 2:
            text = (f"r = {scalar_text(named_rule(steps[0], True))}, then "
                    f"{scalar_text(named_rule(steps[1], False, 'M', 'r'))}, truncated toward zero and saturated")
        elif k is not None:  # (between two Q types, k counts the fraction bits x has more: N - M)
            change = scalar_text(substitute(c.shift_by(source, source), {F.shift_of(c.input): C.SSym("x.shift")}))
            text = (f"the stored values shifted by k = {'N - M + ' if c.rule == 'requantize' else ''}"
                    f"{change}: right (toward minus infinity) where k > 0, else left, saturated")
        elif c.rule == "bit_utilization":
            text = "the bits each stored value uses, its sign bit included (int8)"
        elif c.rule == "quantize":
            text = f"{scalar_text(named_rule(steps[0], False))}, truncated toward zero and saturated"
        else:
            text = scalar_text(named_rule(steps[0], True))
        said.setdefault(text, []).append(f"{source} to {target}" if c.rule == "requantize" else
                                         target if c.rule == "quantize" else source)
    lines = []
    for text, pairs in said.items():
        shown = ", ".join(pairs) if len(pairs) <= 3 else f"{len(pairs)} pairs ({pairs[0]}, ...)"
        lines.append(f"{c.rule} {shown}: {text}")
    return lines


DESCRIBERS: dict[type, Callable[[Op, Any], list[str]]] = {
    C.Elementwise: _elementwise, C.Reduction: _reduction, C.ArgReduction: _arg_reduction,
    C.Contraction: _contraction, C.RandomSample: _random_sample, C.SlidingWindow: _sliding_window,
    C.Generation: _generation, C.LayoutMove: _layout_move, C.FindAll: _find_all, C.TensorDot: _tensordot,
    C.Parts: _parts, C.ShapeQuery: _shape_query, C.ScatterRows: _scatter_rows,
    C.Join: _join, C.Merge: _merge, C.FixedPointConversion: _conversion,
    **{cls: _fragment for cls in C.FRAGMENT_LAYOUTS.values()},
}


def compute_text(op: Op) -> list[str]:
    """What an op computes, one line per case."""
    c = op.compute
    if c is None:
        return []
    if op.composition is not None and op.composition.steps:
        return _composed(op, c)
    return DESCRIBERS[type(c)](op, c)


def fixed_point_rows(op: Op) -> list[dict[str, str]]:
    """Per fixed-point type, what the op's form derives (ADR 0036): how it computes, the
    output's shift, the error bound; or why there is none."""
    if isinstance(op.compute, C.FixedPointConversion):  # (it converts between the types: its Dtypes say which)
        return []
    rows = []
    for t in F.TYPES.values():
        derived = F.derive(op, t)
        if isinstance(derived, str):
            rows.append({"type": t.system, "reason": derived})
            continue
        s = F.summary(derived, t)
        readable = {n: C.SSym(f"{n.removesuffix('_shift')}.shift") for n in C.symbols(s.output_shift)
                    if n.endswith("_shift")} if s.output_shift is not None else {}
        shift = (scalar_text(substitute(s.output_shift, readable)) if s.output_shift is not None else
                 "the caller's (an argument, as a quantized model's)" if t.family == "Q" else "")
        if F.HEADROOM in (C.symbols(s.output_shift) if s.output_shift is not None else ()):
            shift += ", h = ceil(log2 n) for n values summed"
        attributes = (f"shift {shift}" if t.family == "Q" else
                      "the input's scale and offset" if s.keeps else "scale and offset: the caller's")
        if s.output_shift is None and "compared" in s.method:
            attributes = "a bool"
        rows.append({"type": t.system, "method": s.method, "attributes": attributes, "bound": s.bound})
    return rows
