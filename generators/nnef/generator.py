"""Writes ``out/nnef``: ``<ns>.nnef`` fragment declarations and ``opforge_nnef_shapes.py``.

Each op becomes ``fragment <ns>_<op>`` (prefixed so that it never clashes with
NNEF's standard operations): tensor parameters first, then attributes with
NNEF literal defaults (ADR 0012). Aliases are fragments whose body invokes the
original op; a derived backward op's body computes its expression in NNEF's standard
operations where it can (ADR 0065).
"""

from __future__ import annotations

import inspect
import math
from typing import Any, Sequence

from dsl import compute as C
from dsl import fixed_point as F
from dsl import defaults, doc_tokens
from dsl import expr as E
from dsl.model import NO_DEFAULT, Arg, Namespace, Op
from dsl.types import DataType, Language
from generators import abi
from generators.api import GeneratedFile, GenerationContext
from generators.formatting import black_format, visible_controls
from generators.kernels import numpy_runtime
from generators.kernels.py_shapes import PyShapeRenderer, Spelling
from generators.kernels.selection import code_ops, require_compute
from generators.naming import mangle

#: NNEF's keywords and built-in type names.
NNEF_RESERVED = frozenset(
    "version extension fragment graph tensor integer scalar logical string true false for in if else yield "
    "length_of shape_of range_of".split()
)

#: A fixed-point tensor is a real one in NNEF, whose stored form the graph's quantization file
#: states (ADR 0039): a fixed-point type is ``scalar`` here.
TENSOR_TYPE = {DataType.FLOATING_POINT: "scalar", DataType.INT: "integer", DataType.LONG: "integer",
               DataType.BOOLEAN: "logical", DataType.NUMERIC: "?", DataType.NDARRAY: "?",
               DataType.FIXED_POINT: "scalar", DataType.SHIFTED: "scalar", DataType.SCALED: "scalar"}
ATTRIBUTE_TYPE = {DataType.INT: "integer", DataType.LONG: "integer", DataType.FLOATING_POINT: "scalar",
                  DataType.NUMERIC: "scalar", DataType.BOOLEAN: "logical", DataType.STRING: "string",
                  DataType.ENUM: "string", DataType.DATA_TYPE: "string"}



def fragment_name(namespace: str, op: str) -> str:
    return f"{namespace.lower()}_{op}"


def nnef_name(name: str) -> str:
    return mangle(name, NNEF_RESERVED)


def _literal_defaults(op: Op) -> dict[str, Any]:
    """Arg name -> default, for the defaults NNEF can spell: a computed one (another arg,
    a tensor's shape or dtype) has no NNEF form, so the attribute is required there."""
    return {a.name: a.default for a in op.args if a.has_default and not defaults.is_computed(a)}


def _literal(value: Any, type_: DataType) -> str | None:
    """An NNEF literal, or None when the value has no NNEF spelling."""
    if isinstance(value, tuple):
        items = [_literal(v, type_) for v in value]
        return None if any(i is None for i in items) else "[" + ", ".join(items) + "]"  # type: ignore[arg-type]
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and type_ in (DataType.INT, DataType.LONG):
        return str(value)
    if isinstance(value, (int, float)) and type_ in (DataType.FLOATING_POINT, DataType.NUMERIC):
        v = float(value)
        if not math.isfinite(v):
            return None
        text = repr(v)
        return text if any(c in text for c in ".e") else text + ".0"
    if isinstance(value, str):
        if "'" not in value and "\n" not in value and "\\" not in value:
            return f"'{value}'"
        if '"' not in value and "\n" not in value and "\\" not in value:
            return f'"{value}"'
    return None


def _attribute(arg: Arg, name: str) -> str:
    type_ = ATTRIBUTE_TYPE[arg.type] + ("" if arg.count.is_single else "[]")
    default = None
    if arg.default is not NO_DEFAULT and arg.default is not None:
        default = _literal(arg.default, arg.type)
    return f"{name}: {type_}" + (f" = {default}" if default is not None else "")


def _comment(text: str) -> str:
    return "# " + visible_controls(" ".join(text.split()))


QUANTIZATION_MODULE = '''# {header}
"""NNEF quantization of opforge's fixed-point tensors: the lines of a graph's quantization file
(``nnef.parse_string(graph, quant_str)``, ``graph.quant`` beside ``graph.nnef``)."""

#: Per type: its family (Q: shifted, D: scaled), bits, a Q type's shifts and scale at shift 0.
TYPES = {types}


def quantization(type: str, shift: int = 0, scale: float | list = 1.0, offset: int = 0, axis: int | None = None) -> str:
    """A tensor of fixed-point ``type`` as NNEF's ``zero_point_linear_quantize``:
    ``real = (stored - zero_point) * scale``; a Q type's zero point 0 and scale 2^(shift - N).
    A D type's per-axis scales (``scale`` a list, one per index of ``axis``, counted from the
    first axis) are a tensor literal with ``axis`` leading singleton axes: NNEF pads a shape
    with singletons at its end, so they run along ``axis``."""
    if type not in TYPES:
        raise ValueError(f"type must be one of {{', '.join(TYPES)}}, not {{type!r}}")
    t = TYPES[type]
    if axis is not None:
        if t["family"] == "Q" or not (isinstance(axis, int) and axis >= 0):
            raise ValueError(f"{{type}}: per-axis scales belong to a D type, along an axis >= 0, not {{axis!r}}")
        scales = [float(s) for s in scale]
        if not scales or not all(s > 0 for s in scales) or not isinstance(offset, int):
            raise ValueError(f"{{type}}: every scale must be positive and offset an int, not {{scale!r}}, {{offset!r}}")
        literal = "[" * (axis + 1) + ", ".join(map(repr, scales)) + "]" * (axis + 1)
        return (f"zero_point_linear_quantize(zero_point = {{offset}}, scale = {{literal}}, bits = {{t['bits']}}, "
                "signed = true, symmetric = false)")
    if t["family"] == "Q":
        low, high = t["shifts"]
        if not (isinstance(shift, int) and low <= shift <= high):
            raise ValueError(f"{{type}}: shift must be an int in {{low}}..{{high}}, not {{shift!r}}")
        scale, offset = t["scale0"] * 2.0**shift, 0
    elif not scale > 0 or not isinstance(offset, int):
        raise ValueError(f"{{type}}: scale must be positive and offset an int, not {{scale!r}}, {{offset!r}}")
    return (f"zero_point_linear_quantize(zero_point = {{offset}}, scale = {{float(scale)!r}}, bits = {{t['bits']}}, "
            "signed = true, symmetric = false)")


def quantization_file(tensors: dict) -> str:
    """A graph's quantization file: ``tensors`` maps a tensor's name to its ``(type, attributes)``
    (``{{"x": ("q15", {{"shift": 1}})}}``)."""
    return "".join(f'"{{name}}": {{quantization(type, **attributes)}};\\n'
                   for name, (type, attributes) in tensors.items())
'''

#: The scalar functions (``dsl/scalar.py``) whose NNEF standard operation computes the same on
#: real operands; an expression of other functions (erf, expm1, floored remainders) has none.
STANDARD_FUNCTIONS = {
    "add": "add", "sub": "sub", "mul": "mul", "div": "div", "pow": "pow", "neg": "neg", "abs": "abs",
    "sign": "sign", "exp": "exp", "log": "log", "sqrt": "sqrt", "sin": "sin", "cos": "cos", "tan": "tan",
    "asin": "asin", "acos": "acos", "atan": "atan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh",
    "asinh": "asinh", "acosh": "acosh", "atanh": "atanh", "sigmoid": "sigmoid", "minimum": "min",
    "maximum": "max", "floor": "floor", "ceil": "ceil", "lt": "lt", "gt": "gt", "le": "le", "ge": "ge",
    "eq": "eq", "ne": "ne", "logical_and": "and", "logical_or": "or", "logical_not": "not", "where": "select",
}


def standard_body(op: Op) -> str | None:
    """A backward op's expression as NNEF standard operations, each common subexpression once
    (``t0 = tanh(x);``), or None where an operation has no standard counterpart, the expression
    has cases (optional args) or compares an enum (a string in NNEF)."""
    c = op.compute
    if op.gradient_of is None or not isinstance(c, C.Elementwise) or len(c.cases) != 1 or op.enums:
        return None
    if not C.functions(c.expr) <= STANDARD_FUNCTIONS.keys():
        return None
    lines: list[str] = []
    names: dict[Any, str] = {}

    def call(node: C.SCall) -> str:
        return f"{STANDARD_FUNCTIONS[node.fn]}({', '.join(operand(a) for a in node.args)})"

    def operand(node: Any) -> str:
        if isinstance(node, C.SSym):
            return nnef_name(node.name)
        if isinstance(node, C.SConst):
            return _literal(node.value, DataType.BOOLEAN if isinstance(node.value, bool) else DataType.FLOATING_POINT)
        if node not in names:
            text = call(node)
            names[node] = f"t{len(names)}"
            lines.append(f"    {names[node]} = {text};")
        return names[node]

    # (the result is the top call itself; a bare parameter is copied, as NNEF assigns only results)
    result = call(c.expr) if isinstance(c.expr, C.SCall) else f"copy({operand(c.expr)})"
    lines.append(f"    {nnef_name(op.outputs[0].name)} = {result};")
    return "\n".join(lines)


class NnefGenerator:
    name = "nnef"
    summary = "NNEF fragment declarations and shape functions for nnef.infer_shapes"
    language = Language.NNEF
    options: dict[str, tuple[str, ...]] = {}

    def generate(self, context: GenerationContext) -> Sequence[GeneratedFile]:
        require_compute(context.namespaces, self.name)
        files = [GeneratedFile(f"{ns.key}.nnef", self._document(context, ns)) for ns in context.namespaces]
        files.append(GeneratedFile("opforge_nnef_shapes.py", black_format(self._shapes(context))))
        files.append(GeneratedFile("opforge_nnef_quantization.py", black_format(self._quantization(context))))
        return files

    def _quantization(self, context: GenerationContext) -> str:
        """A graph's quantization file for opforge's fixed-point tensors (NNEF 1.0, section
        "Quantization"): each tensor as ``zero_point_linear_quantize`` of its type's bits, signed,
        asymmetric, with the scale and zero point of ``dsl.fixed_point.affine``."""
        types = {name: {"family": t.family, "bits": t.bits,
                        "shifts": (t.shifts().start, t.shifts().stop - 1) if t.family == "Q" else None,
                        # (a Q type's scale at shift 0; each shift doubles it: affine's power of two)
                        "scale0": F.affine(t, 0)[0] if t.family == "Q" else None}
                 for name, t in F.TYPES.items()}
        return QUANTIZATION_MODULE.format(header=context.header(self.name), types=repr(types))

    @staticmethod
    def _generic(op: Op) -> bool:
        return any(TENSOR_TYPE.get(t.type) == "?" for t in (*op.inputs, *op.outputs))

    def fragment(self, op: Op, name: str | None = None, body: str | None = None) -> str:
        generic = self._generic(op)
        params = []
        for i in op.inputs:
            array = "" if i.count.is_single else "[]"
            params.append(f"{nnef_name(i.name)}: tensor<{TENSOR_TYPE[i.type]}>{array}")
        taken = {p.name for p in op.params}
        for a in op.args:
            attribute = _attribute(a, nnef_name(a.name))
            if isinstance(a.default, (bool, int, float, str, tuple)) and _literal(a.default, a.type) is None:
                # Said, not dropped: NNEF strings have no escapes, nor numbers infinities.
                attribute = _comment(f"{nnef_name(a.name)}: its default {a.default!r} has no NNEF spelling; "
                                     "pass it") + "\n    " + attribute
            elif defaults.is_computed(a):  # an attribute's default cannot read another parameter
                attribute = _comment(f"{nnef_name(a.name)}: opforge's default is "
                                     f"{defaults.describe(a.default)}; pass it") + "\n    " + attribute  # type: ignore[arg-type]
            params.append(attribute)
        for cfg in op.configs:
            for a in cfg.args:
                field = a.name if a.name not in taken else f"{cfg.name}_{a.name}"
                params.append(_attribute(a, nnef_name(field)))
        results = [f"{nnef_name(o.name)}: tensor<{TENSOR_TYPE[o.type]}>" + ("" if o.count.is_single else "[]")
                   for o in op.outputs]
        head = f"fragment {name or fragment_name(op.namespace, op.name)}{'<? = scalar>' if generic else ''}"
        text = f"{head}(\n    " + ",\n    ".join(params) + f"\n) -> ( {', '.join(results)} )"
        return text + (f"\n{{\n{body}\n}}\n" if body else ";\n")

    def _document(self, context: GenerationContext, ns: Namespace) -> str:
        parts = [f"# {context.header(self.name, [ns])}", "version 1.0;",
                 "extension KHR_enable_fragment_definitions;", ""]
        declared = set()
        for op in code_ops(ns):
            if abi.is_stream(op):
                # NNEF describes stateless graphs: a stateful op has no fragment (ADR 0014).
                parts += [_comment(f"{op.qualified_name}: a stateful stream, which NNEF cannot express"), ""]
                continue
            parts += [*self._docs(op), self.fragment(op, body=self._composition_body(op, ns) or standard_body(op))]
            declared.add(op.qualified_name)
        for alias in ns.aliases:
            target = context.catalogue.resolve(alias)
            if target is None or target.abstract or abi.is_stream(target):
                continue
            name = fragment_name(ns.name, alias.name)
            if target.qualified_name not in declared:
                # The target lives in another namespace's document: declare the alias with the
                # target's interface instead of a body, so that every document stands alone and
                # any set of them loads together (each fragment defined once, in its own document).
                parts += [_comment(f"{alias.qualified_name}: alias of {alias.target} "
                                   f"(declared in {target.namespace.lower()}.nnef)"), self.fragment(target, name)]
                continue
            args = [nnef_name(i.name) for i in target.inputs]
            args += [f"{nnef_name(a.name)} = {nnef_name(a.name)}" for a in target.args]
            outs = ", ".join(nnef_name(o.name) for o in target.outputs)
            kind = "<?>" if self._generic(target) else ""  # else the callee's type defaults to scalar
            body = f"    {outs} = {fragment_name(target.namespace, target.name)}{kind}({', '.join(args)});"
            parts += [_comment(f"{alias.qualified_name}: alias of {alias.target}"), self.fragment(target, name, body)]
        return "\n".join(parts)

    @staticmethod
    def _docs(op: Op) -> list[str]:
        """The op's docs as comment lines: those for a node of a graph (ADR 0004), tokens expanded."""
        texts = doc_tokens.texts(op, Language.NNEF, doc_tokens.NODE_SCOPES, fragment_name(op.namespace, op.name),
                                 "tensor")
        lines = [line for text in texts for line in text.splitlines() if line.strip()] or [""]
        return [_comment(f"{op.qualified_name}: {lines[0]}"), *(_comment(line) for line in lines[1:])]

    def _composition_body(self, op: Op, ns: Namespace) -> str | None:
        """A composed op's fragment invokes its steps (which the document declares above)."""
        if op.composition is None:
            return None
        lines = []
        generic = self._generic(op)
        for s in op.composition.steps:
            target = s.op.rpartition(".")[2]
            args = [nnef_name(v) if isinstance(v, str) else _literal(v, DataType.FLOATING_POINT) or repr(v)
                    for v in s.inputs]
            args += [f"{nnef_name(k)} = {_literal(v, DataType.FLOATING_POINT if isinstance(v, float) else DataType.INT)}"
                     for k, v in s.args]
            result = nnef_name(op.outputs[0].name) if s is op.composition.steps[-1] else s.name
            # Inside a generic fragment the generic steps take its type explicitly (else they default to scalar).
            callee = ns.op(target) if generic else None
            kind = "<?>" if callee is not None and self._generic(callee) else ""
            lines.append(f"    {result} = {fragment_name(op.namespace, target)}{kind}({', '.join(args)});")
        return "\n".join(lines)

    def _shapes(self, context: GenerationContext) -> str:
        """Every op's shape function: its form's refusals as assertions, then its output
        shapes, rendered from the form (ADR 0029); the two broadcast rules they call first."""
        lines = [f"# {context.header(self.name)}",
                 '"""Shape functions of opforge\'s ops for ``nnef.infer_shapes(graph, custom_shapes=CUSTOM_SHAPES)``:',
                 "each takes its inputs' shapes (lists of ints) and the attributes, asserts what the op",
                 'refuses, and returns the output shape (a tuple of them for several outputs)."""', "",
                 "import math", "", inspect.getsource(numpy_runtime.shapes_broadcast), "",
                 inspect.getsource(numpy_runtime.shapes_fit), ""]
        table = []
        for ns in context.namespaces:
            entries = [(fragment_name(ns.name, o.name), o) for o in code_ops(ns) if not abi.is_stream(o)]
            entries += [(fragment_name(ns.name, a.name), context.catalogue.resolve(a)) for a in ns.aliases
                        if context.catalogue.resolve(a) is not None and not abi.is_stream(context.catalogue.resolve(a))]
            for name, op in entries:
                lines.append(self._shape_function(name, op))
                table.append(name)
        lines.append("CUSTOM_SHAPES = {" + ", ".join(f"{n!r}: {n}" for n in table) + "}")
        return "\n".join(lines) + "\n"

    @staticmethod
    def _shape_function(name: str, op: Op) -> str:
        c = op.compute
        known = _literal_defaults(op)
        spelling = Spelling(
            shape=nnef_name, shapes=nnef_name,
            arg=lambda a: f"attribs.get({nnef_name(a)!r}, {known[a]!r})" if a in known else f"attribs[{nnef_name(a)!r}]")
        render = PyShapeRenderer(spelling).render
        body = [f"assert {render(r.condition)}, {r.message!r}" for r in c.refusals(op)]
        # The op's own constraints, where they speak of shapes and args (dtypes are not a shape function's).
        body += [f"assert {render(k.expr)}, {k.message!r}" for config, k in op.all_constraints()
                 if config is None and not k.backend and not any(isinstance(n, (E.SameType,)) for n in E.walk(k.expr))]
        shapes = [render(shape) for shape in c.output_shapes(op)]
        if C.list_output(c) is not None:  # a list output: one shape per tensor
            body.append(f"return [list(s) for s in {shapes[0]}]")
        elif len(shapes) > 1:
            body.append("return (" + ", ".join(f"list({s})" for s in shapes) + ")")
        else:
            body.append(f"return list({shapes[0]})")
        params = ", ".join([nnef_name(i.name) for i in op.inputs] + ["**attribs"])
        return f"def {name}({params}):\n" + "".join(f"    {line}\n" for line in body)
