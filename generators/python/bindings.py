"""Source of the generated Python bindings: one function per op."""

from __future__ import annotations

import textwrap

from dsl import compute as C
from dsl import defaults, doc_tokens
from dsl import expr as E
from dsl import shapes as S
from dsl import dtypes as D
from dsl import fixed_point as F
from dsl.model import Arg, Config, Constraint, Namespace, Op
from dsl.types import FIXED_POINT_TYPES, DataType, Language
from generators import abi
from generators.kernels import fixed_point, numpy_keywords
from generators.formatting import visible_controls
from generators.kernels.selection import variants_of
from generators.kernels.py_names import class_name, config_param, function_name, module_name, py_name, ref_name
from generators.kernels.py_constraints import PyConstraintRenderer
from generators.kernels.py_signature import (PY_TYPE, default_text, listed, replaces_tuple_method, returns,
                                              signature, stream_parameters)
from generators.kernels.py_shapes import PyShapeRenderer, Spelling
from generators.kernels.py_value_checks import PyValueChecks
from generators.kernels.readable import through_float_text
from generators.python import ufuncs

#: The order dtypes are listed in: NumPy's, then the fixed-point types'.
ORDER = (*D.PLAIN, *F.TYPES)




def docstring_text(text: str) -> str:
    """Text that is safe inside a triple-quoted docstring."""
    return visible_controls(text.replace("\\", "\\\\").replace('"', '\\"').replace("\r", ""))


def _braces(text: str) -> str:
    """Literal text inside an f-string: braces doubled."""
    return text.replace("{", "{{").replace("}", "}}")


def _doc(op: Op) -> str:
    docs = doc_tokens.texts(op, Language.PYTHON, doc_tokens.FUNCTION_SCOPES, function_name(op.name), "numpy.ndarray")
    variants = numpy_keywords.api_variants(op)
    if through := through_float_text(op, python=True):
        docs = [*docs, through]
    if op.unlike_numpy:  # (the NumPy function of its name computes something else)
        docs = [*docs, f"Unlike numpy.{'linalg.' if op.namespace.lower() == 'linalg' else ''}"
                       f"{function_name(op.name)}: {op.unlike_numpy}."]
    lines = ["\n\n".join(docs), "", "Parameters", "----------"]
    converts = isinstance(op.compute, C.FixedPointConversion)  # (ADR 0068: FixedPointArrays in or out)
    for i in op.inputs:
        kinds = " or ".join(sorted({v.of(i.name) for v in variants}, key=ORDER.index))
        kind = f"array_like of {kinds}" if i.count.is_single else f"sequence ({i.count}) of array_like of {kinds}, one dtype"
        if i.type in FIXED_POINT_TYPES:
            kind = f"opforge.fixed_point.FixedPointArray of {kinds}"
        lines += [f"{py_name(i.name)} : {kind}" + (", optional" if i.has_default else ""),
                  f"    {i.description}"]
    named = numpy_keywords.keywords(op)
    for a in op.args:
        if a.name in named:
            k = named[a.name]
            lines += [f"{k.name} : {k.kind}" + ("" if k.required else f", default {k.default}"), f"    {k.description}"]
            continue
        kind = PY_TYPE.get(a.type, "object")
        if a.type is DataType.ENUM:
            kind = "{" + ", ".join(repr(v) for v in a.possible_values) + "}"
        if a.type is DataType.DATA_TYPE:  # (NumPy's own docs' word: a dtype, its type or its name)
            kind = "{" + ", ".join(repr(t) for t in F.TYPES) + "}" if converts else "data-type"
        if not a.count.is_single:
            kind = f"sequence of {kind} ({a.count})"
        default = f", default {default_text(a)}" if a.has_default else ""
        if defaults.is_computed(a):
            default = f", default {defaults.describe(a.default)}"  # type: ignore[arg-type]
        lines += [f"{py_name(a.name)} : {kind}{default}", f"    {a.description}"]
    for c in op.configs:
        lines += [f"{config_param(c.name)} : {c.name}, optional", "    Settings; None means every default."]
    lines += ([] if converts else
              ["out : list of numpy.ndarray or None, optional",
               "    Where to write each result (None: a new array); as many as the result has, each of its shape "
               "and dtype."]
              if listed(op) else
              ["out : tuple of numpy.ndarray or None, optional",
               "    Where to write each result (None: a new array); each of the result's shape and dtype."]
              if len(op.outputs) > 1 else
              ["out : numpy.ndarray, optional",
               "    Where to write the result; it keeps its shape (the result is broadcast into it)."])
    lines += ['backend : {"c", "python"}, default "c"',
              "    The compiled C kernels, or the NumPy reference implementation.",
              "", "Returns", "-------"]
    for o in op.outputs:
        lines += [f"{py_name(o.name)} : " + ("list of numpy.ndarray" if not o.count.is_single else
                                              "opforge.fixed_point.FixedPointArray" if o.type in FIXED_POINT_TYPES
                                              else "numpy.ndarray"), f"    {o.description}"]
    tables, fixed = fixed_point.api_tables(op), fixed_point.api_types(op)
    computed = {**fixed_point.api_kernels(op), **fixed_point.api_reductions(op), **fixed_point.api_dense(op),
                **fixed_point.api_softmax(op)}
    clamps = bool(computed) and all(isinstance(k, F.Clamp) for k in computed.values())  # (ADR 0044)
    if fixed:  # (ADR 0040)
        names = " and ".join(py_name(i.name) for i in op.inputs)
        said = []
        if computed and all(getattr(k, "kind", None) in F.COMPARISONS for k in computed.values()):
            said.append("a bool numpy.ndarray (or out=, a bool ndarray)")
        elif clamps:
            said.append(f"in {', '.join(computed)} a FixedPointArray of the input's type and attributes (each bound "
                        "converted to a stored value by the type's from-real rule, then the stored values clamped: "
                        "exact; a NaN bound raises ValueError)")
        elif computed:
            rules = [*(["a Q result's shift the rule's"] if any(F.TYPES[t].family == "Q" for t in computed) else []),
                     *(["a D result's scale and offset out's, or else the first input's"]
                       if any(F.TYPES[t].family == "D" for t in computed) else [])]
            said.append(f"in {', '.join(computed)} a FixedPointArray of the type ({'; '.join(rules)})")
        if tables:
            knots = "; 16-bit types interpolate 513 knots" if any(F.TYPES[t].bits == 16 for t in tables) else ""
            said.append(f"in {', '.join(tables)} a FixedPointArray of the input's type and of out's attributes, or "
                        f"else the input's, from a table of the float reference (within one step{knots})")
        result = "; ".join(said)
        lines += ["", "Notes", "-----",
                  *textwrap.wrap((f"{names} may be an opforge.fixed_point.FixedPointArray" if len(op.inputs) == 1
                                  else f"{names} may be opforge.fixed_point.FixedPointArrays of one type")
                                 + f" ({', '.join(fixed)}): the op's fixed-point kernel computes on the stored "
                                 f"integers, and the result is {result}. out= then takes a FixedPointArray made by "
                                 "opforge.fixed_point.empty" + (", which takes the input's attributes." if clamps
                                                                else ", whose attributes choose the result's."), 84)]
    moved = fixed_point.api_moves(op)
    if moved:  # (ADR 0040: a move's own kernels on the stored values)
        carried = fixed_point.moved_tensors(op, moved[0])
        one = len(carried[0]) == 1 and op.inputs[0].count.is_single
        names = " and ".join(py_name(n) for n in carried[0])
        given = (f"{names} may be an opforge.fixed_point.FixedPointArray" if one else
                 f"{names} may hold opforge.fixed_point.FixedPointArrays of one type and attributes")
        whose = "its" if one else "the first one's"
        single = len(op.outputs) == 1 and op.outputs[0].count.is_single  # (a list of results: no out= to hold them)
        outputs = (f"the result carries {whose} attributes" if carried[1]
                   else "the result (indices) is what it is for the real values, whose order the stored ones keep")
        lines += ["", "Notes", "-----",
                  *textwrap.wrap(f"{given} ({', '.join(t.name for t in moved)}): the op moves the stored integers, "
                                 f"and {outputs}" + ("; out= (fixed_point.empty) takes the stored values and those "
                                                     "attributes." if carried[1] and single else
                                                     "; out= is then refused." if carried[1] else "."), 84)]
    messages = [c.message for _, c in op.all_constraints() if not c.backend and not promoted_away(op, c)]
    if not abi.is_stream(op):  # what the op's form refuses, on shapes and then on values (ADR 0029)
        messages += [public_message(op, r.message) for r in op.compute.refusals(op)] + list(
            op.compute.value_refusals(op))
    lines += ["", "Raises", "------", "TypeError", "    If an argument has the wrong type or dtype.",
              "ValueError", "    If shapes do not fit or a constraint does not hold"
              + (":" if messages else ".")]
    lines += [f"    - {m}" for m in dict.fromkeys(messages)]
    return docstring_text("\n".join(lines).strip())


def promoted_away(op: Op, c: Constraint) -> bool:
    """Whether ``c`` is a same-type rule on inputs that promotion converts to one dtype (ADR 0053):
    it holds by the time the binding could check it, and is no error a Python caller can meet."""
    names = {r.name for r in E.param_refs(c.expr) if r.kind == "input"}
    terms = c.expr.terms if isinstance(c.expr, E.AllOf) else (c.expr,)
    return (all(isinstance(t, E.SameType) for t in terms) and numpy_keywords.promotes(op)
            and names <= set(D.shared_type_inputs(op)))


def _shape_name(k: int) -> str:
    """The binding's variable for the shape of output ``k``."""
    return f"_shape{k}" if k else "_shape"


def _public_names(op: Op) -> dict[str, str]:
    """The catalogue's arg names the Python API calls otherwise (NumPy's keywords: ADR 0052)."""
    return {arg: k.name for arg, k in numpy_keywords.keywords(op).items() if k.name != arg}


def public_message(op: Op, message: str) -> str:
    """A form's refusal as the Python API says it: the arg it names first by its keyword there."""
    arg, colon, rest = message.partition(":")
    return f"{_public_names(op)[arg]}:{rest}" if colon and arg in _public_names(op) else message


def _facts(op: Op, condition: object) -> str:
    """What a refusal looked at, for its message: the shapes of the tensors, the values of the args."""
    inputs = {i.name: i for i in op.inputs}
    facts = []
    for name, kind in dict.fromkeys((r.name, r.kind) for r in S.refs(condition)):
        n = py_name(name)
        if kind != "input":
            facts.append(f"{_public_names(op).get(name, name)} = {{{n}!r}}")
        elif inputs[name].count.is_single:
            facts.append(f"{name} has shape {{{n}.shape}}")
        else:
            facts.append(f"{name} have shapes {{[_x.shape for _x in {n}]}}")
    return f" ({', '.join(facts)})" if facts else ""


#: The builtins a rendered shape expression calls (generators.kernels.py_shapes).
SHAPE_BUILTINS = frozenset({"len", "tuple", "all", "any", "max", "min", "sum", "range"})


def shape_spelling(op: Op, module_names: frozenset[str], used: set[str] | None = None) -> Spelling:
    """How a binding's rendered shapes read its values: arrays' ``.shape``, args by name,
    the broadcast rules from ``_kernels``, ``math`` as ``_math``, and a builtin that a
    function of the module or a parameter of the op shadows from ``builtins`` (``_b``).
    The functions it spells go into ``used``."""
    shadowed = module_names | {py_name(p.name) for p in (*op.inputs, *op.args)}

    def call(name: str) -> str:
        spelled = f"_k.{name}" if name.startswith("shapes_") else f"_{name}" if name.startswith("math.") else \
            f"_b.{name}" if name in shadowed else name
        if used is not None:
            used.add(spelled)
        return spelled

    return Spelling(shape=lambda n: f"{py_name(n)}.shape", arg=py_name,
                    shapes=lambda n: f"[_x.shape for _x in {py_name(n)}]", call=call,
                    rank=lambda n: f"{py_name(n)}.ndim", tuples=True)


def module_imports(ops: list[Op], module_names: frozenset[str]) -> list[str]:
    """What the bindings of ``ops``, in a module defining ``module_names``, import for
    their rendered shapes: ``math`` (as ``_math``) and ``builtins`` (as ``_b``) where used."""
    used: set[str] = set()
    for op in ops:
        if abi.is_stream(op):
            continue
        render = PyShapeRenderer(shape_spelling(op, module_names, used)).render
        for node in (*(r.condition for r in op.compute.refusals(op)), *op.compute.output_shapes(op)):
            render(node)
    return ((["import builtins as _b"] if any(n.startswith("_b.") for n in used) else [])
            + (["import math as _math"] if any(n.startswith("_math.") for n in used) else []))


class _Binding:
    def __init__(self, op: Op, module_names: frozenset[str] = frozenset()) -> None:
        self.op = op
        self.c = op.compute
        self.spelling = shape_spelling(op, module_names)
        self.variants = numpy_keywords.api_variants(op)
        self.lines: list[str] = []
        #: Whether FixedPointArrays may come in (``_fixed``, ``_fixed_given``: ADR 0040).
        self.fixed = bool(fixed_point.api_types(op) or fixed_point.api_moves(op))
        #: Whether the inputs' dtypes choose the variant as NumPy's promotion does.
        self.promotes = numpy_keywords.promotes(op)
        #: Module-level statements the function uses (tables built once, at import).
        self.module: list[str] = []

    def add(self, *lines: str) -> None:
        self.lines.extend(lines)

    def source(self) -> str:
        op = self.op
        if ufuncs.takes(op):  # (before anything else: a ufunc's call costs what NumPy's does, ADR 0073)
            module, lines = ufuncs.fast_path(op, self.promotion())
            self.module += module
            self.add(*lines)
        self.add(f'_op = "{op.qualified_name}"',
                 'if backend not in ("c", "python"):',
                 '    raise ValueError(f"{_op}: backend must be \'c\' or \'python\', got {backend!r}")')
        fixed = bool(fixed_point.api_types(op))
        moves = bool(fixed_point.api_moves(op))
        if fixed or moves:
            self.fixed_point_operands()
        if moves:  # (the op's own kernels move the stored values into out=, if given; it then takes the attributes)
            self.add("_fixed_out = None",
                     "if _fixed is not None:",
                     "    _fixed_out, out = _fp.move_out(_op, _fixed, _fixed_given, out)")
        self.tensors()
        self.args()
        self.constraints()
        self.variant()
        self.shape()
        vectors = numpy_keywords.takes_vectors(op)
        if vectors:  # (the kernels compute matrices; the call gives what NumPy's matmul of its vectors does)
            self.add("_computed, _shape = _shape, _rt.dropped(_shape, _dropped)")
        if fixed:  # (the op's checks and shapes ran on the stored values: its kernel for the type)
            # (what the C API takes between the inputs and the output: args, and an array's values and count)
            c_args = [self.c_argument(p, []) for p in abi.parameters(op) if p.role in ("arg", "optional", "array", "count")]
            py_args = ", ".join(f"{a.name!r}: {py_name(a.name)}" for a in op.args)
            run = ("_fp.run_reshaped(_op, _fixed, _fixed_given, _computed, " if vectors
                   else "_fp.run(_op, _fixed, _fixed_given, ")
            self.add("if _fixed is not None:",
                     f"    return {run}_shape, out, backend, lambda: ({''.join(a + ', ' for a in c_args)}), "
                     f"{{{py_args}}})")
        self.call()
        body = "\n".join("    " + line for line in self.lines)
        module = "".join(line + "\n\n\n" for line in self.module)
        return (result_class(op) + module + f"def {function_name(op.name)}({signature(op)}) -> {returns(op)}:\n"
                f'    """{_doc(op)}\n    """\n{body}\n')

    def fixed_point_operands(self) -> None:
        """FixedPointArrays in (ADR 0040): the op's kernel for their type, and arrays of their
        shapes in their place (the stored values, or zeros of a dtype the op takes), on which
        the op's own checks and shape rule then run."""
        names = [py_name(i.name) for i in self.op.inputs]
        given = ", ".join(f"({i.name!r}, {n})" for i, n in zip(self.op.inputs, names))
        allowed = tuple(dict.fromkeys(v.dtype for v in self.variants))
        self.add(f"_fixed = _fp.kernel(_op, ({given},))",
                 "if _fixed is not None:",
                 f"    _fixed_given = {{{', '.join(f'{i.name!r}: {n}' for i, n in zip(self.op.inputs, names))}}}",
                 f"    {', '.join(names)}, = _fp.stand_ins(_fixed_given, {allowed!r})")

    def tensors(self) -> None:
        ins = self.op.inputs
        if not ins:
            return
        # The caller's own arrays, before any conversion copies them: out= may not overlap them.
        self.add(f"_given = ({''.join(f'({i.name!r}, {py_name(i.name)}), ' for i in ins).rstrip(', ')},)")
        specs = []
        for i in ins:
            allowed = tuple(d for d in abi.DTYPES if d in {v.of(i.name) for v in self.variants})
            if not i.count.is_single:  # a tensor list (its op's only input)
                self.add(f"{py_name(i.name)} = _rt.tensor_list(_op, {i.name!r}, {py_name(i.name)}, {allowed!r}, "
                         f"{i.count.low}, {i.count.high})")
                return
            specs.append(f"({i.name!r}, {py_name(i.name)}, {allowed!r})")
        names = ", ".join(py_name(i.name) for i in ins)
        optional = [i for i in ins if i.has_default]
        for i in optional:
            if i.default is None:
                continue
            self.add(f"if {py_name(i.name)} is None:", f"    {py_name(i.name)} = {py_name(i.default.name)}")
        if self.promotes:  # (NumPy's promotion chooses the variant: ADR 0053)
            self.add(f"({names},), variant = _rt.promoted(_op, {self.promotion()})")
            return
        self.add(f"{names}, = _rt.tensors(_op, ({', '.join(specs)},))")

    def computed_defaults(self) -> None:
        """Args left out whose default is another parameter, a tensor's shape or its dtype."""
        outputs = [o.name for o in self.op.outputs]
        for a in defaults.fill_order(self.op):
            n, d = py_name(a.name), a.default
            source = defaults.source(d)  # type: ignore[arg-type]
            if source.kind == "output":  # given only with out= (else the arg is required)
                where = "out" if len(outputs) == 1 else f"out[{outputs.index(source.name)}]"
                tensor = "_given"
                self.add(f"if {n} is None:",
                         f"    _given = {where} if out is not None else None",
                         "    if not isinstance(_given, np.ndarray):",
                         f"        raise TypeError(f\"{{_op}}: {a.name} is required unless out= gives {source.name}\")")
            else:
                tensor = py_name(source.name)
                self.add(f"if {n} is None:")
            if isinstance(d, E.ParamRef) and source.kind == "arg":
                self.add(f"    {n} = {py_name(source.name)}")
            elif isinstance(d, E.ShapeOf):
                self.add(f"    {n} = {tensor}.shape")
            else:
                self.add(f"    {n} = _rt.name_of({tensor}.dtype)")

    def args(self) -> None:
        self.computed_defaults()
        named = numpy_keywords.keywords(self.op)
        for a in self.op.args:
            if a.name in named:
                continue
            n = py_name(a.name)
            check = self._arg_check(a, n, a.name)
            if a.default is None:
                self.add(f"if {n} is not None:", f"    {n} = {check}")
            elif check:
                self.add(f"{n} = {check}")
            if a.type is DataType.ENUM:
                self.add(f"{n}_index = _rt.enum(_op, {a.name!r}, {n}, {a.possible_values!r})")
        for cfg in self.op.configs:
            p = config_param(cfg.name)
            self.add(f"{p} = _check_{cfg.name}(_op, {p})")
        if named:
            self.numpy_keywords(named)
        if numpy_keywords.takes_vectors(self.op):  # (NumPy's matmul of vectors, ADR 0052)
            a, b = (py_name(i.name) for i in self.op.inputs)
            self.add(f"_row, _column, _dropped = _rt.numpy_matmul({a}.ndim, {b}.ndim)")
            for name, how in ((a, "_row"), (b, "_column")):
                self.add(f"if {how} is not None:", f"    {name} = {how}({name})")
                if self.fixed:
                    self.add("    if _fixed is not None:",
                             f"        _fixed_given[{name!r}] = {how}(_fixed_given[{name!r}])")

    def numpy_keywords(self, named: dict[str, numpy_keywords.Keyword]) -> None:
        """NumPy's axis= and keepdims= as the form's args (ADR 0052), the inputs reshaped where
        NumPy's meaning needs it (the runtime says how); a stream's seed (ADR 0054)."""
        c = self.c
        if numpy_keywords.stream_args(self.op):  # (a seed left out: fresh entropy, ADR 0054)
            self.add("seed = _rt.fresh_seed() if seed is None else _rt.integer(_op, 'seed', seed)")
            return
        if isinstance(c, C.LayoutMove):  # (squeeze, expand_dims, tile, reshape: NumPy's calls, ADR 0052)
            arg = py_name(next(iter(named)))
            given = next(iter(named.values())).name
            if c.layout == "reshape":  # (an int is a shape of one axis; the input stays)
                self.add(f"{arg} = _rt.numpy_shape(_op, {given})")
                return
            self.add(f"{arg}, _reshape = _rt.numpy_{c.layout}(_op, {given}, {py_name(c.input)}.shape)")
            self.reshape_inputs()
            return
        axes, keep = (c.axes, c.keep_dims) if isinstance(c, C.Reduction) else (c.axis, c.keep_dims)
        axis, keepdims = named[axes].name, named[keep].name
        if isinstance(c, C.Reduction):
            self.add(f"{py_name(axes)}, {py_name(keep)}, _reshape = _rt.numpy_reduction(_op, {axis}, {keepdims})")
        else:
            self.add(f"{py_name(axes)}, {py_name(keep)}, _reshape = _rt.numpy_search(_op, {axis}, {keepdims}, "
                     f"{py_name(c.input)}.ndim)")
        self.reshape_inputs()

    def reshape_inputs(self) -> None:
        """Each input (and each FixedPointArray given) as the runtime's ``_reshape`` makes it, if any."""
        names = [py_name(i.name) for i in self.op.inputs]
        self.add("if _reshape is not None:",
                 f"    {', '.join(names)}, = {', '.join(f'_reshape({n})' for n in names)},")
        if self.fixed:
            self.add("    if _fixed is not None:",
                     "        _fixed_given = {_k: _reshape(_v) for _k, _v in _fixed_given.items()}")

    @staticmethod
    def _arg_check(a: Arg, n: str, label: str) -> str:
        if not a.count.is_single:
            if a.type in (DataType.INT, DataType.LONG):
                return f"_rt.integers(_op, {label!r}, {n}, {a.count.low}, {a.count.high})"
            return f"tuple({n})"
        if a.type in (DataType.INT, DataType.LONG):
            return f"_rt.integer(_op, {label!r}, {n})"
        if a.type in (DataType.FLOATING_POINT, DataType.NUMERIC):
            return f"_rt.real(_op, {label!r}, {n})"
        if a.type is DataType.BOOLEAN:
            return f"_rt.boolean(_op, {label!r}, {n})"
        if a.type is DataType.DATA_TYPE:
            return f"_rt.dtype(_op, {label!r}, {n}, _rt.DTYPES)"
        return ""

    def constraints(self) -> None:
        render = PyConstraintRenderer(self.op).render
        for cfg, c in self.op.all_constraints():
            if c.backend or promoted_away(self.op, c):
                continue
            # Name what the constraint looked at: shapes, or dtypes for same_type.
            tensors = list(dict.fromkeys(r.name for r in E.param_refs(c.expr) if r.kind == "input"))
            what = "dtype" if isinstance(c.expr, E.SameType) else "shape"
            facts = ", ".join(f"{_braces(t)} has {what} {{{py_name(t)}.{what}}}" for t in tensors)
            message = f"{{_op}}: {_braces(c.message)}" + (f" ({facts})" if facts else "")
            self.add(f"if not {render(c.expr)}:",
                     f"    raise ValueError(f{message!r})")

    def promotion(self) -> str:
        """The arguments of ``_rt.promoted`` after the op's name: the inputs by name, the variants'
        table, the inputs of the shared type, and NumPy's ufunc of the op's meaning if it has one."""
        pairs = "".join(f"({i.name!r}, {py_name(i.name)}), " for i in self.op.inputs)
        ufunc = numpy_keywords.ufunc(self.op)
        return f"({pairs}), {self.table_name()}, {D.shared_type_inputs(self.op)!r}" + (f", np.{ufunc}" if ufunc else "")

    def table_name(self) -> str:
        """The module's table of the op's variants: each one's dtype of every tensor, by its dtype."""
        return f"_{function_name(self.op.name).rstrip('_')}_variants"

    def variant(self) -> None:
        op = self.op
        table = {v.dtype: dict(v.tensors) for v in self.variants}
        self.module.append(f"{self.table_name()} = {table!r}")
        if self.promotes:  # (chosen with the inputs' conversion)
            return
        self.add(f"_variants = {self.table_name()}")
        if C.dtype_from_arg(self.c):
            self.add("variant = _variants.get(dtype)",
                     "if variant is None:",
                     f"    raise ValueError(f\"{{_op}}: dtype must be one of {', '.join(table)}, got {{dtype}}\")")
            return
        primary = D.primary_input(op)  # (where's x, not its condition: the input that chooses the variant)
        first = py_name(primary.name) + ("" if primary.count.is_single else "[0]")
        self.add(f"variant = _variants[_rt.name_of({first}.dtype)]")
        for i in op.inputs:
            if i is primary:
                continue
            n = py_name(i.name)
            self.add(f"if _rt.name_of({n}.dtype) != variant[{i.name!r}]:",
                     f"    raise TypeError(f\"{{_op}}: {i.name} must have dtype {{variant[{i.name!r}]}} "
                     f"(as {primary.name} is {{{first}.dtype.name}}), got {{{n}.dtype.name}}\")")

    def shape(self) -> None:
        """The form's refusals, then its output shapes (ADR 0029), then its checks on values."""
        op = self.op
        render = PyShapeRenderer(self.spelling).render
        for r in op.compute.refusals(op):
            message = f"{{_op}}: {_braces(public_message(op, r.message))}" + _facts(op, r.condition)
            self.add(f"if not {render(r.condition)}:", f"    raise ValueError(f{message!r})")
        # (the sizes the shapes read more than once, each computed once: every refusal has held)
        sizes = PyShapeRenderer(self.spelling, hoist="_size")
        shapes = [sizes.render(shape) for shape in op.compute.output_shapes(op)]
        self.add(*sizes.take())
        if listed(op):  # one shape per tensor of the list output
            self.add(f"_shapes = {shapes[0]}")
        else:
            self.add(*(f"{_shape_name(k)} = {shape}" for k, shape in enumerate(shapes)))
        self.add(*PyValueChecks().lines(op))

    def call(self) -> None:
        op, c = self.op, self.c
        out = op.outputs[0]
        exact = C.in_place_inputs(op)
        inputs = ("_given" if op.inputs else "()") + (f", exact={exact!r}" if exact else "")
        assign = getattr(c, "broadcasts_into_output", False)
        several = len(op.outputs) > 1
        if listed(op):  # out: None or a list of arrays (or Nones), one per tensor the inputs give
            self.add("_outs = _rt.outs(_op, out, len(_shapes), list)",
                     f"_pairs = [_rt.output(_op, f'out[{{k}}]', _outs[k], s, variant[{out.name!r}], {inputs}, "
                     "assign=False) for k, s in enumerate(_shapes)]",
                     "written = [w for w, _ in _pairs]")
        elif several:  # out: None or one array (or None) per output, each of its own shape
            self.add(f"_outs = _rt.outs(_op, out, {len(op.outputs)})")
            for k, o in enumerate(op.outputs):
                self.add(f"written{k}, out{k} = _rt.output(_op, 'out[{k}]', _outs[{k}], {_shape_name(k)}, "
                         f"variant[{o.name!r}], {inputs}, assign=False)")
        else:
            self.add(f"written, out = _rt.output(_op, 'out', out, _shape, variant[{out.name!r}], {inputs}, "
                     f"assign={assign})")
        written = [f"written{k}" for k in range(len(op.outputs))] if several and not listed(op) else ["written"]
        if numpy_keywords.takes_vectors(op):  # (the kernels write the result through a view of their shape)
            self.add("_into = written.reshape(_computed)")
            written = ["_into"]
        ref_args = [py_name(i.name) for i in op.inputs]
        ref_args += [f"{py_name(a.name)}_index" if a.type is DataType.ENUM else py_name(a.name) for a in op.args]
        ref_args += [config_param(cfg.name) for cfg in op.configs] + written
        if isinstance(c, C.FragmentKernel) and c.value_refusals(op):
            # The reference fails as the C kernel does, with the same words.
            self.add('if backend == "python":', "    try:", f"        _ref.{ref_name(op.name)}({', '.join(ref_args)})",
                     "    except ValueError as exc:", "        raise ValueError(f\"{_op}: {exc}\") from None", "else:")
        else:
            self.add('if backend == "python":', f"    _ref.{ref_name(op.name)}({', '.join(ref_args)})", "else:")
        c_args = [self.c_argument(p, written) for p in abi.parameters(op)]
        c_args = [a for a in c_args if a is not None]
        if ufuncs.takes(op):  # (the package's library leaves these types out: its ufunc computes them, ADR 0080)
            ufunc, ins = f"{ufuncs.prefix(op)}_ufunc", ", ".join(py_name(i.name) for i in op.inputs)
            self.add(f"    if {ufunc} is not None:", f"        {ufunc}({ins}, out={written[0]})",
                     "    else:", f"        _native.call(_op, {abi.function(op)!r}, {', '.join(c_args)})")
        else:
            self.add(f"    _native.call(_op, {abi.function(op)!r}, {', '.join(c_args)})")
        if listed(op):
            result = "[_rt.finish(w, o) for w, o in _pairs]"
        elif several:
            result = (f"{class_name(op)}Result("
                      + ", ".join(f"_rt.finish(written{k}, out{k})" for k in range(len(op.outputs))) + ")")
        else:
            result = "_rt.finish(written, out)"
        if fixed_point.api_moves(op):  # (FixedPointArrays in: the result carries their attributes)
            self.add(f"_result = {result}",
                     "return _result if _fixed is None else _fp.moved(_op, _fixed, _fixed_given, _result, _fixed_out)")
        else:
            self.add(f"return {result}")


    def c_argument(self, p: abi.CParam, written: list[str]) -> str | None:
        """What the C call passes for one parameter, after adding the lines that prepare it
        (None: the parameter takes nothing from Python, as ``detail``)."""
        op, name = self.op, py_name(p.source)
        if p.role == "input":
            return f"_native.tensor({name})"
        if p.role in ("input_list", "output_list"):  # descriptors kept alive by the local name until the call returns
            local, given = (f"_{name}_c", name) if p.role == "input_list" else ("_written_c", "written")
            self.add(f"    {local} = _native.tensors({given})")
            return f"{local}[0]"
        if p.role == "output":
            return f"_native.tensor({written[[o.name for o in op.outputs].index(p.source)]})"
        if p.role in ("input_count", "count"):
            return f"len({name})"
        if p.role == "output_count":
            return "len(written)"
        if p.role == "array":
            return f"_native.int64s({name})"
        if p.role in ("optional", "arg"):
            return self.c_scalar(p)
        if p.role == "config":
            cfg = next(x for x in op.configs if x.name == p.source)
            fields = ", ".join(f"{a.name!r}: {config_param(cfg.name)}.{py_name(a.name)}" for a in cfg.args)
            return f"_native.config({abi.config_struct(cfg)!r}, {{{fields}}})"
        if p.role == "workspace":
            # The scratch the kernel needs, as its _workspace function says (ADR 0017).
            ins = ", ".join(f"_native.tensor({py_name(i.name)})" for i in op.inputs)
            self.add("    _bytes = _native.ffi.new('size_t*')",
                     f"    _native.call(_op, {abi.function(op) + '_workspace'!r}, {ins}, _bytes)",
                     # (max is not the builtin here: math.max is generated into this module)
                     "    _workspace = np.empty(_bytes[0] // 8 or 1, dtype=np.float64)")
            return "_native.pointer(_workspace)"
        if p.role == "workspace_bytes":
            return "_workspace.nbytes"
        return None

    def c_scalar(self, p: abi.CParam) -> str:
        """An arg as C takes it: optional ones by pointer, enums by index, dtypes by enum."""
        arg = next(a for a in self.op.args if a.name == p.source)
        if p.role == "optional":
            return f"_native.optional({abi.scalar_ctype(arg.type)!r}, {py_name(p.source)})"
        if arg.type is DataType.ENUM:
            return f"{py_name(p.source)}_index"
        if arg.type is DataType.DATA_TYPE:
            return f"_native.dtype({py_name(p.source)})"
        return py_name(p.source)


#: The keywords of a stream whose frames may be of a fixed-point type (its constructor's and function's).
def stream_binding(op: Op) -> str:
    """A stateful op: a class (queue in a state buffer) and a factory function named after the op."""
    cls = class_name(op)
    # The queue is a class one constructs: its docs are those of a graph node, ND4J's constructors.
    doc = docstring_text("\n\n".join(doc_tokens.texts(op, Language.PYTHON, doc_tokens.NODE_SCOPES, cls, "numpy.ndarray")))
    c = op.compute
    fixed = bool(fixed_point.moves(op))  # (frames of a fixed-point type: ADR 0040)
    passed = ", shift=shift, scale=scale, offset=offset" if fixed else ""
    kinds = ("\n\n    dtype may be a fixed-point type (\"q15\", with shift=; \"d8\", with scale= and offset=): the\n"
             "    frames enqueued are then FixedPointArrays of those attributes, and each window dequeued one."
             if fixed else "")
    return f'''
class {cls}:
    """{doc}

    Create with {function_name(op.name)}(window, stride, frame_shape, dtype); then enqueue(x)
    blocks of frames (axis 0), and dequeue() a window whenever ready().{kinds}
    """

''' + _stream_init(op) + _stream_methods(op) + f'''
def {function_name(op.name)}({stream_parameters(op)}) -> {cls}:
    """A new {cls} (see its documentation)."""
    return {cls}({c.window}, {c.stride}, frame_shape, dtype{passed}, backend=backend)
'''


def _stream_init(op: Op) -> str:
    """The constructor: the args checked as the op's constraints say, then the state laid out."""
    c = op.compute
    cls = class_name(op)
    fn = abi.function(op)
    allowed = tuple(d for d in abi.DTYPES if d in {v.dtype for v in variants_of(op)})
    render = PyConstraintRenderer(op).render
    checks = "".join(
        f"        if not {render(k.expr)}:\n            raise ValueError(_op + {(': ' + k.message)!r})\n"
        for _, k in op.all_constraints()
        if not k.backend and "input" not in {r.kind for r in E.param_refs(k.expr)})
    fixed = bool(fixed_point.moves(op))  # (frames of a fixed-point type: ADR 0040)
    kind = ("        self._fixed = _fp.frames_type(_op, dtype, shift, scale, offset)\n"
            "        if self._fixed is not None:\n            dtype = self._fixed.stored.dtype.name\n" if fixed else "")
    return f'''    def __init__(self, {stream_parameters(op)}) -> None:
        _op = "{op.qualified_name}"
        if backend not in ("c", "python"):
            raise ValueError(f"{{_op}}: backend must be 'c' or 'python', got {{backend!r}}")
        {c.window} = _rt.integer(_op, {c.window!r}, {c.window})
        {c.stride} = _rt.integer(_op, {c.stride!r}, {c.stride})
{checks}        self.frame_shape = _rt.integers(_op, "frame_shape", frame_shape, 0, 7)
{kind}        self.dtype = _rt.dtype(_op, "dtype", dtype, {allowed!r})
        self.window = {c.window}
        self.backend = backend
        if backend == "python":
            self._impl = _ref.{cls}({c.window}, {c.stride}, self.frame_shape, self.dtype)
            self.state = self._impl.state
        else:
            frame = _native.frame(self.dtype, self.frame_shape)
            size = _native.ffi.new("size_t*")
            _native.call(_op, "{fn}_state_size", {c.window}, {c.stride}, frame, size)
            self.state = np.zeros(size[0], dtype=np.uint8)
            _native.call(_op, "{fn}_init", _native.pointer(self.state), size[0], {c.window}, {c.stride}, frame)

'''


def _stream_methods(op: Op) -> str:
    """enqueue, ready and dequeue, each on the backend the queue was made for."""
    fn = abi.function(op)
    x = op.inputs[0]
    fixed = bool(fixed_point.moves(op))  # (frames of a fixed-point type: their stored values queue)
    stored = (f"        if self._fixed is not None:\n            {x.name} = _fp.frames(_op, self._fixed, {x.name})\n"
              if fixed else "")
    result = ("_rt.finish(written, out) if self._fixed is None else _fp.window(self._fixed, written)" if fixed
              else "_rt.finish(written, out)")
    returns = "np.ndarray | _fp.FixedPointArray" if fixed else "np.ndarray"
    refuse_out = ("        if self._fixed is not None and out is not None:\n"
                  "            raise TypeError(f\"{_op}: out= takes no window of fixed-point frames\")\n" if fixed else "")
    return f'''    def _call(self, python, c, *args):
        if self.backend == "python":
            try:
                return python(*args)
            except ValueError as exc:
                raise ValueError(f"{op.qualified_name}: {{exc}}") from None
        return _native.call("{op.qualified_name}", c, _native.pointer(self.state), *args)

    def enqueue(self, {x.name}: ArrayLike) -> None:
        """Queue a block of frames: shape (n, *frame_shape)."""
        _op = "{op.qualified_name}"
{stored}        ({x.name},) = _rt.tensors(_op, (({x.name!r}, {x.name}, (self.dtype,)),))
        if {x.name}.shape[1:] != self.frame_shape or {x.name}.ndim == 0:
            raise ValueError(f"{{_op}}: {x.name} must have shape (n, *{{self.frame_shape}}), got {{{x.name}.shape}}")
        if self.backend == "python":
            self._call(self._impl.enqueue, None, {x.name})
        else:
            self._call(None, "{fn}_enqueue", _native.tensor({x.name}))

    def ready(self) -> bool:
        """True when a complete window can be dequeued."""
        if self.backend == "python":
            return self._impl.ready()
        flag = _native.ffi.new("bool*")
        self._call(None, "{fn}_ready", flag)
        return bool(flag[0])

    def dequeue(self, *, out: np.ndarray | None = None) -> {returns}:
        """The oldest window, shape (window, *frame_shape); ValueError if none is complete."""
        _op = "{op.qualified_name}"
{refuse_out}        shape = (self.window, *self.frame_shape)
        written, out = _rt.output(_op, "out", out, shape, self.dtype, (), assign=False)
        if self.backend == "python":
            self._call(self._impl.dequeue, None, written)
        else:
            self._call(None, "{fn}_dequeue", _native.tensor(written))
        return {result}

'''


def result_class(op: Op) -> str:
    """An op with several outputs returns them as a named tuple (unpacks like a tuple)."""
    if len(op.outputs) < 2:
        return ""
    fields = "\n".join(f"    {py_name(o.name)}: np.ndarray" + replaces_tuple_method(py_name(o.name))
                       + f"\n    \"\"\"{docstring_text(o.description)}\"\"\"" for o in op.outputs)
    return (f"class {class_name(op)}Result(NamedTuple):\n"
            f'    """The outputs of {function_name(op.name)}, in order."""\n\n{fields}\n\n\n')


def binding(op: Op, module_names: frozenset[str] = frozenset()) -> str:
    """The op's function in its namespace's module, which defines ``module_names``."""
    if abi.is_stream(op):
        return stream_binding(op)
    if isinstance(op.compute, C.FixedPointConversion):
        return conversion_binding(op)
    return _Binding(op, module_names).source()


def conversion_binding(op: Op) -> str:
    """A fixed-point conversion (ADR 0068): the runtime's ``convert`` with the form's rule, the
    C API function, and the args by name (they choose the result's type and attributes)."""
    c: C.FixedPointConversion = op.compute  # type: ignore[assignment]
    args = "".join(f", {py_name(a.name)}={py_name(a.name)}" for a in op.args)
    return (f"def {function_name(op.name)}({signature(op)}) -> {returns(op)}:\n"
            f'    """{_doc(op)}\n    """\n'
            f'    _op = "{op.qualified_name}"\n'
            '    if backend not in ("c", "python"):\n'
            '        raise ValueError(f"{_op}: backend must be \'c\' or \'python\', got {backend!r}")\n'
            f"    return _fp.convert(_op, {abi.function(op)!r}, {c.rule!r}, {py_name(c.input)}, backend{args})\n")


def config_class(cfg: Config, fresh: bool = False) -> str:
    """A config's frozen dataclass and its check; left out (None), a random stream's (``fresh``)
    takes a fresh seed (ADR 0054)."""
    fields = "\n".join(f"    {py_name(a.name)}: {PY_TYPE.get(a.type, 'object')} = {a.default!r}" for a in cfg.args)
    doc = docstring_text(" ".join(d.text for d in cfg.docs) or cfg.name)
    checks = "\n".join(f"    {py_name(a.name)} = {_Binding._arg_check(a, 'value.' + py_name(a.name), cfg.name + '.' + a.name)}"
                       for a in cfg.args if _Binding._arg_check(a, 'x', 'x'))
    values = ", ".join(f"{py_name(a.name)}={py_name(a.name)}" for a in cfg.args)
    return f'''
@dataclasses.dataclass(frozen=True)
class {cfg.name}:
    """{doc}"""

{fields or "    pass"}


def _check_{cfg.name}(_op: str, value: object) -> {cfg.name}:
    if value is None:
        return {cfg.name}({"seed=_rt.fresh_seed()" if fresh else ""})
    if not isinstance(value, {cfg.name}):
        raise TypeError(f"{{_op}}: {config_param(cfg.name)} must be a {cfg.name}, got {{type(value).__name__}}")
{checks}
    return {cfg.name}({values})
'''


def _drawn(host: str, ns: Namespace, op: Op) -> tuple[str, frozenset[str], str, str]:
    """How a Generator of module ``host`` draws ``op``: (its method's name, the parameters the stream
    fills, the function it calls, what it passes for them)."""
    name = function_name(op.name)
    cfg = numpy_keywords.random_stream(op)
    function = name if module_name(ns.key) == host else f"_{module_name(ns.key)}.{name}"
    if cfg is not None:
        return name, frozenset({cfg.name}), function, f"{config_param(cfg.name)}=self._config()"
    return name, frozenset(numpy_keywords.STREAM), function, "seed=self.seed, offset=self.offset"


def generator_class(host: str, drawn: list[tuple[Namespace, Op]]) -> str:
    """Module ``host``'s ``Generator`` (NumPy's name) and ``default_rng``: one random stream whose
    methods are the random ops (``drawn``), each drawing the elements after the last draw's (ADR 0054)."""
    cfg = next(c for _, op in drawn if (c := numpy_keywords.random_stream(op)) is not None)
    methods = []
    for ns, op in drawn:
        name, filled, function, stream = _drawn(host, ns, op)
        named = numpy_keywords.keywords(op)
        passed = [py_name(i.name) for i in op.inputs] + [
            named[a.name].name if a.name in named else py_name(a.name) for a in op.args if a.name not in filled]
        call = ", ".join(f"{n}={n}" for n in [*passed, "out", "backend"])
        other = module_name(ns.key)  # (imported when drawn: the modules import this one's configs)
        imported = "" if function == name else f"        from opforge import {other} as _{other}\n\n"
        methods.append(f'''
    def {name}(self, {signature(op, without=filled)}) -> {returns(op)}:
        """The {module_name(ns.key)} module's {name}, drawn from the generator's stream."""
{imported}        return self._took({function}({call}, {stream}))
''')
    return f'''
class Generator:
    """Random numbers as NumPy's Generator draws them: one Philox4x32-10 stream, its key ``seed``
    (None: fresh entropy from the operating system) and the counter of its next element, ``offset``.
    Each method is the random op of that name, drawing the elements after the last draw's: draws
    never repeat each other, and the same seed replays them, on either backend."""

    def __init__(self, seed: int | None = None, offset: int = 0) -> None:
        self.seed = _rt.integer("Generator", "seed", _rt.fresh_seed() if seed is None else seed)
        self.offset = _rt.integer("Generator", "offset", offset)

    def __repr__(self) -> str:
        return f"Generator(seed={{self.seed}}, offset={{self.offset}})"

    def _config(self) -> {cfg.name}:
        return {cfg.name}(seed=self.seed, offset=self.offset)

    def _took(self, result: np.ndarray) -> np.ndarray:
        """The draw's result, the stream moved past its elements (element i took the counter offset + i)."""
        self.offset = _rt.advanced(self.offset, result.size)
        return result
{"".join(methods)}

def default_rng(seed: int | None = None) -> Generator:
    """A Generator of the random ops (NumPy's ``default_rng``): ``seed`` keys its stream; None takes
    fresh entropy from the operating system."""
    return Generator(seed)
'''


def generator_stub(host: str, drawn: list[tuple[Namespace, Op]]) -> str:
    methods = "".join(f"    def {_drawn(host, ns, op)[0]}(self, {signature(op, without=_drawn(host, ns, op)[1])}) -> "
                      f"{returns(op)}: ...\n" for ns, op in drawn)
    return ("class Generator:\n    seed: int\n    offset: int\n"
            "    def __init__(self, seed: int | None = ..., offset: int = ...) -> None: ...\n" + methods
            + "\ndef default_rng(seed: int | None = ...) -> Generator: ...\n")
