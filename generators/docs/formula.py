"""Each op's formula in LaTeX, derived from its compute form where the form allows (elementwise
trees, reductions), rendered by KaTeX at generation time into MathML (PyKaTeX), so the site
needs no script, font or network to show it: browsers render MathML Core themselves."""

from __future__ import annotations

import re
from typing import Any

import pykatex

from dsl import compute as C
from dsl import fixed_point as F
from dsl.einsum import Conv
from dsl.model import Op
from dsl.scalar import substitute
from generators.docs.compute_text import named_rule

#: Binding strength, loosest first (minimal parentheses).
_LEVEL = {"where": 0, "logical_or": 1, "logical_xor": 1, "logical_and": 2, "logical_not": 3,
          "eq": 4, "ne": 4, "lt": 4, "le": 4, "gt": 4, "ge": 4,
          "add": 5, "sub": 5, "mul": 6, "div": 7, "mod": 6, "floor_mod": 6, "floor_div": 6, "neg": 7, "pow": 8}
_ATOM = 9
_INFIX = {"add": "+", "sub": "-", "mul": r"\cdot", "eq": "=", "ne": r"\neq", "lt": "<", "le": r"\leq",
          "gt": ">", "ge": r"\geq", "logical_and": r"\land", "logical_or": r"\lor", "logical_xor": r"\oplus",
          "mod": r"\bmod", "floor_mod": r"\bmod"}
#: Functions written as a delimiter around their operands (``%s`` each in order).
_ENCLOSED = {"div": r"\frac{%s}{%s}", "floor_div": r"\left\lfloor \frac{%s}{%s} \right\rfloor",
             "sqrt": r"\sqrt{%s}", "abs": r"\left|%s\right|", "floor": r"\left\lfloor %s \right\rfloor",
             "ceil": r"\left\lceil %s \right\rceil"}
_NAMED = {"exp": r"\exp", "log": r"\ln", "sin": r"\sin", "cos": r"\cos", "tan": r"\tan", "sinh": r"\sinh",
          "cosh": r"\cosh", "tanh": r"\tanh", "asin": r"\arcsin", "acos": r"\arccos", "atan": r"\arctan",
          "minimum": r"\min", "maximum": r"\max"}


def _name(symbol: str) -> str:
    """A variable: one letter as itself (``x_i`` indexed), a longer name upright (``\\mathrm{alpha}``)."""
    if len(symbol) == 1:
        return symbol
    if re.fullmatch(r"[a-z]_i", symbol):
        return f"{symbol[0]}_{{i}}"
    if symbol.endswith("_i"):  # (a longer tensor's element: upright, indexed)
        return _name(symbol[:-2]) + "_{i}"
    return r"\mathrm{" + symbol.replace("_", r"\_") + "}"


#: LaTeX's special characters in text mode, each as itself.
_TEXT_ESCAPES = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "%": r"\%",
                 "#": r"\#", "_": r"\_", "^": r"\textasciicircum{}", "~": r"\textasciitilde{}"}


def _number(value: object) -> str:
    if isinstance(value, str):  # (an enum value compared against)
        return r"\text{``" + "".join(_TEXT_ESCAPES.get(ch, ch) for ch in value) + "''}"
    if isinstance(value, bool):
        return r"\mathrm{" + str(value).lower() + "}"
    if isinstance(value, float):
        if value != value:
            return r"\mathrm{NaN}"
        if value in (float("inf"), float("-inf")):
            return ("-" if value < 0 else "") + r"\infty"
        text = repr(value)
        return text[:-2] if text.endswith(".0") else text
    return str(value)


def latex(node: Any) -> tuple[str, int]:
    """A scalar tree as LaTeX, with its binding level."""
    if isinstance(node, C.SSym):
        return _name(node.name), _ATOM
    if isinstance(node, C.SConst):
        text = _number(node.value)
        return text, (_ATOM if not text.startswith("-") else _LEVEL["neg"])
    fn, args = node.fn, [latex(a) for a in node.args]

    def at(k: int, level: int, strict: bool = False) -> str:
        text, own = args[k]
        return f"\\left({text}\\right)" if own < level or (strict and own == level) else text

    if fn in _INFIX and len(args) == 2:
        level = _LEVEL[fn]
        right_strict = fn in ("sub", "mod", "floor_mod") or level == 4
        return f"{at(0, level)} {_INFIX[fn]} {at(1, level, right_strict)}", level
    if fn in _ENCLOSED:  # (delimited whole: no parentheses needed)
        return _ENCLOSED[fn] % tuple(text for text, _ in args), _ATOM
    if fn == "neg":
        return f"-{at(0, _LEVEL['neg'], True)}", _LEVEL["neg"]
    if fn == "pow":
        return f"{at(0, _ATOM)}^{{{args[1][0]}}}", _LEVEL["pow"]
    if fn == "logical_not":
        return f"\\lnot {at(0, _LEVEL['logical_not'])}", _LEVEL["logical_not"]
    if fn == "where":  # (a chain of selections, an enum's cases: one row each)
        rows, rest = [], node
        while isinstance(rest, C.SCall) and rest.fn == "where":
            rows.append(f"{latex(rest.args[1])[0]} & \\text{{if }} {latex(rest.args[0])[0]}")
            rest = rest.args[2]
        rows.append(f"{latex(rest)[0]} & \\text{{otherwise}}")
        return "\\begin{cases} " + " \\\\ ".join(rows) + " \\end{cases}", _ATOM
    name = _NAMED.get(fn, r"\operatorname{" + fn.replace("_", r"\_") + "}")
    return f"{name}\\left({', '.join(a for a, _ in args)}\\right)", _ATOM


def formulas(op: Op) -> list[str]:
    """The op's formulas in LaTeX (none where its form has no formula of this kind)."""
    if op.formula is not None:  # (declared: a form that derives none)
        return [op.formula] if isinstance(op.formula, str) else list(op.formula)
    c, out = op.compute, _name(op.outputs[0].name) if op.outputs else "y"
    if c is None or op.composition is not None:
        return []
    if isinstance(c, C.Elementwise):
        return [f"{out} = {latex(expr)[0]}" + (r" \quad \text{when " + ", ".join(
                    f"{p.replace('_', ' ')} is {'given' if set_ else 'None'}" for p, set_ in c.presence(given)) + "}"
                    if c.optional else "") for given, expr in c.cases]
    if isinstance(c, C.Reduction) and c.combine in _COMBINE:
        return _reduction(c, out)
    if isinstance(c, C.Contraction):
        return _contraction(c, out)
    if isinstance(c, C.ScatterRows):
        return _scatter(c, out)
    if isinstance(c, C.ArgReduction):
        return _arg_reduction(c, out)
    if isinstance(c, C.Generation) and c.generator in GENERATED:
        given = {role: _name(arg) for role, arg in c.params}
        return [line.format(out=out, **given) for line in GENERATED[c.generator]]
    if isinstance(c, C.Merge):
        return _merge(c, out)
    if isinstance(c, C.Join):
        return _join(c, out)
    if isinstance(c, C.Parts) and c.part in _PARTS:
        return _parts(op, c)
    if isinstance(c, C.ShapeQuery):
        return [_QUERIES[c.query].format(out=out, axis=_name(c.axis or "")),
                rf"\text{{${_name(c.input)}$ has shape $(n_{{0}}, \ldots, n_{{r-1}})$}}"]
    if isinstance(c, C.FixedPointConversion):
        return _conversion(c, out)
    if isinstance(c, C.RandomSample) and c.distribution in DISTRIBUTIONS:
        given = {p: _name(arg) for p, arg in c.params}
        return [DISTRIBUTIONS[c.distribution].format(out=f"{out}_{{i}}", **given),
                r"\text{each element $i$ drawn independently}"]
    return []


def _conversion(c: C.FixedPointConversion, out: str) -> list[str]:
    """The form's steps per kind of pair, each once: the value stored, then cast's rule (truncated
    toward zero, saturated) where the result is stored; ``N`` the fraction bits of x's Q type
    (of the output's, quantizing), ``M`` the output's."""
    lines: list[str] = []
    stored = r" \quad \text{truncated toward zero, saturated}"
    for source, target in c.pairs():
        steps, k = c.steps(source, target), c.shift_by(source, target)
        if len(steps) == 2:
            line = (rf"r = {latex(named_rule(steps[0], True))[0]}, \quad "
                    rf"{out} = {latex(named_rule(steps[1], False, 'M', 'r'))[0]}{stored}")
        elif k is not None:
            change = substitute(c.shift_by(source, source), {F.shift_of(c.input): C.SSym("x.shift")})
            lost = "N - M + " if c.rule == "requantize" else ""
            line = (rf"{out} = \operatorname{{sat}}\left(\begin{{cases}} x \gg k & k \geq 0 \\ x \ll -k & "
                    rf"k < 0 \end{{cases}}\right), \quad k = {lost}{latex(change)[0]}")
        elif c.rule == "bit_utilization":
            line = (rf"{out} = \operatorname{{bitlength}}\left(\begin{{cases}} x & x \geq 0 \\ \lnot x & "
                    r"x < 0 \end{cases}\right) + 1")
        else:
            rule = named_rule(steps[0], c.rule == "dequantize")
            line = f"{out} = {latex(rule)[0]}" + (stored if steps[0].storage else "")
        if line not in lines:
            lines.append(line)
    return lines


#: What a shape query gives, of a shape ``(n_0, ..., n_{r-1})``.
_QUERIES = {"shape": r"{out}_{{i}} = n_{{i}}", "size": r"{out} = \prod_{{i}} n_{{i}}", "rank": r"{out} = r",
            "size_at": r"{out} = n_{{{axis}}}"}
#: How a merge combines the tensors of its list, element by element (``max_index``: the first of
#: the largest, as argmax).
_MERGES = {"add": r"\sum_{{k}} {t}", "avg": r"\frac{{1}}{{n}} \sum_{{k}} {t}", "max": r"\max_{{k}} {t}",
           "min": r"\min_{{k}} {t}", "max_index": r"\min \operatorname*{{arg\,max}}_{{k}} {t}"}
#: Each element's index along the axis, amid the others (``\ldots``).
_ALONG = r"\text{{$j$ runs along {axis}, \ldots{{}} over the other axes}}"


def _merge(c: C.Merge, out: str) -> list[str]:
    element = _name(c.inputs) + r"^{(k)}_{\ldots}"
    return [rf"{out}_{{\ldots}} = " + _MERGES[c.combine].format(t=element),
            r"\text{$k$ runs over the $n$ tensors of " + c.inputs.replace("_", r"\_") + "}"]


def _join(c: C.Join, out: str) -> list[str]:
    t, axis = _name(c.inputs), c.axis.replace("_", r"\_")
    if c.stack:
        return [rf"{out}_{{\ldots k \ldots}} = {t}^{{(k)}}_{{\ldots}}",
                rf"\text{{$k$ is the new axis at {axis}, \ldots{{}} the other axes}}"]
    return [rf"{out}_{{\ldots\, o_{{k}} + j \,\ldots}} = {t}^{{(k)}}_{{\ldots j \ldots}}, \quad "
            rf"o_{{k}} = \sum_{{m < k}} n^{{(m)}}",
            _ALONG.format(axis=axis) + r" \text{, which has $n^{(k)}$ entries in tensor $k$}"]


#: The parts a Parts form cuts its input into (meshgrid's grids are written below).
_PARTS = ("split", "unstack", "meshgrid")


def _parts(op: Op, c: C.Parts) -> list[str]:
    out, source = _name(op.outputs[0].name), _name(c.source)
    roles = dict(c.params)
    axis = roles.get("axis", "axis").replace("_", r"\_")
    if c.part == "split":
        return [rf"{out}^{{(k)}}_{{\ldots j \ldots}} = {source}_{{\ldots\, k m + j \,\ldots}}, \quad "
                rf"m = \frac{{n}}{{{_name(roles.get('num', 'num'))}}}", _ALONG.format(axis=axis)
                + r" \text{, of $n$ entries}"]
    if c.part == "unstack":
        return [rf"{out}^{{(k)}}_{{\ldots}} = {source}_{{\ldots k \ldots}}", rf"\text{{$k$ runs along {axis}}}"]
    return [rf"{out}^{{(k)}}_{{i_{{0}} \ldots i_{{N-1}}}} = {source}^{{(k)}}_{{i_{{k}}}}",
            r"\text{for $N$ tensors; with cartesian, the first two axes of every grid are swapped}"]


#: A fold ``acc <op> u`` of a segment reduction, as a big operator.
_FOLDS = {"add": r"\sum", "mul": r"\prod", "maximum": r"\max", "minimum": r"\min"}
_SCALES = {"mean": r"\frac{1}{n_{s}} ", "sqrt_n": r"\frac{1}{\sqrt{n_{s}}} "}


def _scatter(c: C.ScatterRows, out: str) -> list[str]:
    """A scatter as the fold of each update row into the row its index picks, in order; a
    segment reduction (whose fold is a sum, product or extreme) as that big operator over the
    rows of each segment."""
    index, rows = _name(c.indices), _name(c.updates)
    picked = f"{rows}_{{k}}"
    if c.ref is not None:
        target = f"{out}_{{{index}_{{k}}}}"
        step = _standing_for(c.combine, {"acc": target, "u": picked})
        return [f"{out} = {_name(c.ref)}", f"{target} \\leftarrow {step}",
                r"\text{for each row $k$ of the updates, in order}"]
    fold = c.combine
    uses = isinstance(fold, C.SCall) and fold.fn in _FOLDS and {a.name for a in fold.args
                                                                 if isinstance(a, C.SSym)} == {"acc", "u"}
    if not uses:
        return []
    lines = [f"{out}_{{s}} = {_SCALES.get(c.scale or '', '')}{_FOLDS[fold.fn]}_{{k \\,:\\, {index}_{{k}} = s}} {picked}"]
    return lines + [r"\text{$s$ runs over the rows of the result" + (", $n_s$ counts the rows of segment $s$}"
                                                                      if c.scale else "}")]


#: Each generator of the generation form (``GENERATE_ROLES``) but cast (cast's rule is words), its
#: roles by name: the output's elements.
GENERATED = {
    "fill": [r"{out}_{{i}} = {value}"],
    "range": [r"{out}_{{i}} = {start} + i \cdot {delta}, \quad 0 \leq i < "
              r"\left\lceil \frac{{{limit} - {start}}}{{{delta}}} \right\rceil"],
    "linspace": [r"{out}_{{i}} = {start} + i \cdot \frac{{{stop} - {start}}}{{{num} - 1}}, \quad 0 \leq i < {num}"],
    "eye": [r"{out}_{{\ldots i j}} = \begin{{cases}} 1 & \text{{if }} i = j \\ 0 & \text{{otherwise}} \end{{cases}}"],
    "tri": [r"{out}_{{i j}} = \begin{{cases}} 1 & \text{{if }} j - i \leq {diag} \\ 0 & \text{{otherwise}} "
            r"\end{{cases}}"],
    "one_hot": [r"{out}_{{\ldots j \ldots}} = \begin{{cases}} {on} & \text{{if }} j = {indices}_{{\ldots \ldots}} \\ "
                r"{off} & \text{{otherwise}} \end{{cases}}",
                r"\text{{$j$ runs along the inserted axis}}"],
    "sequence_mask": [r"{out}_{{\ldots j}} = \begin{{cases}} \mathrm{{true}} & \text{{if }} j < {lengths}_{{\ldots}} "
                      r"\\ \mathrm{{false}} & \text{{otherwise}} \end{{cases}}"],
}


#: Each distribution of the random form (``RANDOM_DISTRIBUTIONS``), its parameters by name.
DISTRIBUTIONS = {
    "uniform": r"{out} \sim \mathcal{{U}}\left[{low}, {high}\right)",
    "normal": r"{out} \sim \mathcal{{N}}\left({mean}, {stddev}^{{2}}\right)",
    "bernoulli": r"{out} \sim \mathrm{{Bernoulli}}\left({p}\right)",
    "binomial": r"{out} \sim \mathrm{{B}}\left({n}, {p}\right)",
    "exponential": r"{out} \sim \mathrm{{Exp}}\left({rate}\right)",
    "log_normal": r"\ln {out} \sim \mathcal{{N}}\left({mean}, {stddev}^{{2}}\right)",
    "truncated_normal": r"{out} \sim \mathcal{{N}}\left({mean}, {stddev}^{{2}}\right) \;\text{{given}}\; "
                        r"\left|{out} - {mean}\right| \leq 2 \, {stddev}",
}


def _standing_for(tree: Any, texts: dict[str, str], factors_enclosed: bool = False) -> str:
    """The tree's LaTeX with each symbol named in ``texts`` written as its LaTeX there (with
    ``factors_enclosed``, in parentheses where it is a factor of a product). Each symbol first
    becomes a one-character stand-in, which ``_name`` leaves as it is and no LaTeX command holds."""
    marks = {name: chr(0x2460 + k) for k, name in enumerate(texts)}
    text = latex(substitute(tree, {name: C.SSym(mark) for name, mark in marks.items()}))[0]
    for name, mark in marks.items():
        factor = factors_enclosed and re.search(rf"\\cdot\s*{mark}|{mark}\s*\\cdot", text) is not None
        text = text.replace(mark, f"\\left({texts[name]}\\right)" if factor else texts[name])
    return text


def _reduction(c: C.Reduction, out: str) -> list[str]:
    """A reduction: each accumulator (the mapped elements combined by the big operator), then the
    finalizer over them; ``m`` the pre-pass's mean or largest element."""
    indexed = {"x": C.SSym(f"{c.input}_i"), c.input: C.SSym(f"{c.input}_i")}
    if c.other is not None:
        indexed |= {"y": C.SSym(f"{c.other}_i"), c.other: C.SSym(f"{c.other}_i")}
    sums = []
    for mapped in (c.map, *c.extra_maps):
        text, level = latex(substitute(mapped, indexed) if mapped is not None else indexed["x"])
        sums.append(f"{_COMBINE[c.combine]}_{{i}} " + (f"\\left({text}\\right)" if level < _LEVEL["mul"] else text))
    if c.finalize is None:
        lines = [f"{out} = {sums[0]}"]
    else:  # (the accumulators' sums; a sum that is a factor of a product in parentheses)
        names = ("acc", *(f"acc{k}" for k in range(1, len(sums))))
        lines = [f"{out} = {_standing_for(c.finalize, dict(zip(names, sums)), factors_enclosed=True)}"]
    if c.pre is not None:  # (m: the mean or the largest of the same elements)
        lines.append(f"m = {_PRE[c.pre]}")
    counted = c.pre == "mean" or (c.finalize is not None and "n" in C.symbols(c.finalize))
    lines.append(r"\text{$i$ runs over the elements reduced" + (", $n$ counts them}" if counted else "}"))
    return lines


def _arg_reduction(c: C.ArgReduction, out: str) -> list[str]:
    """The index of the first extreme (of the mapped elements), or of the first or last element
    where the predicate holds (-1 where none does)."""
    element = substitute(c.map, {"x": C.SSym(f"{c.input}_i"), c.input: C.SSym(f"{c.input}_i")}) \
        if c.map is not None else C.SSym(f"{c.input}_i")
    text = latex(element)[0]
    if c.searches:
        pick = r"\min" if c.which == "first" else r"\max"
        return [f"{out} = {pick} \\{{\\, i : {text} \\,\\}}",
                r"\text{$i$ runs along the axis; $-1$ where no element holds}"]
    extreme = "largest" if c.which == "max" else "smallest"
    last = "" if c.last_index is None else \
        r"; $\max$ for the last where $" + _name(c.last_index) + "$ holds"
    return [f"{out} = \\min \\operatorname*{{arg\\,{c.which}}}_{{i}} {text}",
            r"\text{$i$ runs along the axis: the first index of the " + extreme + r" (a NaN first)" + last + "}"]


def _contraction(c: C.Contraction, out: str) -> list[str]:
    """An einsum as indices: the output's element, a sum over the labels only the inputs have of
    the product of theirs (``\\ldots`` the row variable's axes)."""
    convs = [w.conv for w in c.windows()]

    def coefficient(literal: int, arg: str | None, i: int) -> str:
        named = f"{_name(arg)}_{{{i}}}" if arg else ""
        return " ".join(t for t in (str(literal) if literal != 1 or not arg else "", named) if t)

    def index(label: str | Conv) -> str:
        if isinstance(label, Conv):  # (read at stride * window + dilation * kernel position - padding)
            i = convs.index(label)
            terms = [(coefficient(label.stride, c.strides, i), label.output),
                     (coefficient(label.dilation, c.dilations, i), label.kernel)][:len(label.names)]
            text = " + ".join(f"{k} {_name(n)}" if k != "1" else _name(n) for k, n in terms)
            return text + (f" - p_{{{i}}}" if c.padded else "")
        return r"\ldots" if label == "..." else _name(label)

    def indexed(name: str, labels: tuple[str | Conv, ...]) -> str:
        parts = [index(label) for label in labels if not (isinstance(label, str) and label in spec.placeholders)]
        spaced = " " if all(label == "..." or isinstance(label, str) and len(label) == 1 for label in labels) else ", "
        return f"{name}_{{{spaced.join(parts)}}}" if parts else name

    spec = c.spec
    product = r" \, ".join(indexed(_name(n), o.labels) for n, o in zip(c.inputs, spec.inputs))
    summed = ", ".join(_name(label) for label in spec.reduced)
    right = f"\\sum_{{{summed}}} {product}" if spec.reduced else product
    if c.combine == "max":
        right = f"\\max_{{{summed}}} {product}"
    elif c.combine == "mean":
        right = f"\\frac{{1}}{{|W|}} \\sum_{{{summed}}} {product}"
    elif c.combine == "lp":
        right = f"\\Big(\\sum_{{{summed}}} |{product}|^{{p}}\\Big)^{{1/p}}"
    lines = [f"{indexed(out, spec.output.labels)} = {right}"]
    if c.combine == "mean":
        lines.append(r"\text{$|W|$: the window's elements inside the input, or all of them with count\_include\_pad}")
    if c.combine == "max":
        lines.append(r"\text{the padding is never the largest}")
    if c.padded:
        lines.append(r"\text{$p_i$: the padding before convolution axis $i$; a position outside an axis reads 0}"
                     if c.combine == "add" else r"\text{$p_i$: the padding before window axis $i$}")
    batched = [o for o in spec.inputs if o.has_ellipsis]
    if batched:
        lines.append(r"\text{$\ldots$ stands for the leading (batch) axes" +
                     (", which broadcast}" if len(batched) > 1 else "}"))
    return lines


_PRE = {"mean": r"\frac{1}{n} \sum_{i} x_i", "max": r"\max_{i} x_i"}


#: How a reduction combines, as a big operator.
_COMBINE = {"add": r"\sum", "mul": r"\prod", "max": r"\max", "min": r"\min"}


def mathml(tex: str) -> str:
    """KaTeX's MathML of a display formula (its LaTeX kept as the annotation)."""
    return pykatex.renderToString(tex, output="mathml", displayMode=True, throwOnError=True)


def refusal(op: Op) -> str | None:
    """Why KaTeX cannot lay out a line of the op's formulas (its parse error), or None."""
    for k, tex in enumerate(formulas(op), 1):
        try:
            mathml(tex)
        except pykatex.ParseError as error:  # (its message ends with the LaTeX it read)
            return f"KaTeX cannot lay out line {k}: {str(error).splitlines()[0]}"
    return None
