"""The fixed-point conversions of :mod:`dsl.fixed_point`, rendered for C and for NumPy.

Both go through the scalar renderers every elementwise kernel uses, then cast's rule to
the stored integer (:func:`scalar_c.converted`, ``_k.convert``): no rounding or
saturation is written here.
"""

from __future__ import annotations

import inspect

import numpy as np

from dsl import compute as C
from dsl import fixed_point as F
from dsl.fixed_point import Conversion
from dsl.model import Arg, Op
from dsl.types import DataType
from dsl.scalar import SExpr, symbols
from generators import abi
from generators.kernels import lets, routines, scalar_c, scalar_numpy
from generators.kernels.selection import variants_of


def c_statement(conversion: Conversion, target: str, env: dict[str, scalar_c.Value]) -> str:
    """C statements that store the converted element in ``target``; ``env`` gives the code
    and dtype of ``x`` and of the per-call values (``factor``, ``scale``, ``offset``, ``k``)."""
    ct = scalar_c.C_TYPE[conversion.domain]
    steps, env = lets.c_lets(conversion.lets, env)
    code, _ = scalar_c.render(conversion.value, conversion.domain, env)
    if conversion.storage is None:
        return f"{{ {' '.join(steps)} {target} = {code}; }}" if steps else f"{target} = {code};"
    # (cast's rule reads its operand more than once: a local first)
    return (f"{{ {' '.join(steps)} const {ct} v = {code}; "
            f"{target} = {scalar_c.converted('v', conversion.domain, conversion.storage)}; }}")


def takes_fixed_point(op: Op) -> bool:
    """Whether an elementwise op may have fixed-point kernels: one output, and args that are
    numbers (a table's fill reads them as such)."""
    c = op.compute
    return (isinstance(c, C.Elementwise) and len(op.outputs) == 1
            and all(abi.scalar_dtype(a.type) in ("int64", "float64") for a in op.args))


#: The elementwise kernels of :func:`api_kernels`.
Kernel = F.QKernel | F.DKernel | F.Clamp | F.Log | F.DLog


def api_kernels(op: Op) -> dict[str, Kernel]:
    """The elementwise Q and D kernels an op's tree derives (clamps and logarithms among them), by
    type name: what the C API and the Python package take fixed-point tensors through (ADR 0040).
    Of an op of several cases, a logarithm's (each case a factor of its constants); the others
    derive from one case."""
    if not takes_fixed_point(op):
        return {}
    single = len(op.compute.cases) == 1  # type: ignore[union-attr]
    derived = {t.name: F.derive(op, t) for t in F.TYPES.values()}
    return {name: d for name, d in derived.items()
            if isinstance(d, (F.Log, F.DLog)) or (single and isinstance(d, (F.QKernel, F.DKernel, F.Clamp)))}


def api_tables(op: Op) -> dict[str, F.Conversion | F.InterpolatedTable]:
    """The lookup tables a unary elementwise op's tree derives, by type name (8-bit: an entry per
    stored value; 16-bit: 513 knots): what the C API and the Python package compute a unary op
    on fixed-point tensors with (ADR 0040), the output's attributes the caller's. Of an op of
    several cases, its default case's (every case's: :func:`table_cases`)."""
    c = op.compute
    if not (isinstance(c, C.Elementwise) and len(op.inputs) == 1 and len(op.outputs) == 1
            and all(table_reads(a) for a in op.args)):
        return {}
    derived = {t.name: F.derive(op, t) for t in F.TYPES.values()}
    tables = {name: d for name, d in derived.items() if isinstance(d, (F.Conversion, F.InterpolatedTable))}
    return tables if all(table_cases(op, F.TYPES[name]) for name in tables) else {}


def table_reads(arg: Arg) -> bool:
    """Whether a table's fill reads ``arg`` (as a number, float64): a number, or an enum as its
    index (``Op.enums``: every target passes that, and :func:`table_cases` compares it)."""
    return abi.scalar_dtype(arg.type) in ("int64", "float64") or arg.type is DataType.ENUM


def table_cases(op: Op, t: F.FixedPointType) -> list[tuple[tuple[str, ...], SExpr, F.Conversion | F.InterpolatedTable]]:
    """(the optional args the case takes, its tree, its table) of each case of a unary op's form,
    in the form's order (log: with a base, then without); empty where a case has no table. A
    tree's enum values are their indices, as the fill reads an enum arg."""
    c: C.Elementwise = op.compute  # type: ignore[assignment]
    x = op.inputs[0].name
    found = [(tuple(given), tree, F.lookup_table(tree, t, x))
             for given, tree in ((given, C.resolve_enums(tree, op.enums)) for given, tree in c.cases)]
    return [(g, tree, d) for g, tree, d in found if d is not None] if all(d for _, _, d in found) else []


def api_reductions(op: Op) -> dict[str, F.QReduction | F.DReduction | F.QContraction | F.DContraction]:
    """The reductions and contractions an op's form derives, by type name, that the C API and the
    package take fixed-point tensors through (ADR 0040): of an op with no compute args and one
    output; a D reduction of one input."""
    c = op.compute
    if not isinstance(c, (C.Reduction, C.Contraction)) or len(op.outputs) != 1 or getattr(c, "args", ()):
        return {}
    found = {t.name: F.derive(op, t) for t in F.TYPES.values()}
    return {name: d for name, d in found.items()
            if isinstance(d, (F.QReduction, F.QContraction, F.DContraction))
            or (isinstance(d, F.DReduction) and not getattr(c, "other", None))}


def api_dense(op: Op) -> dict[str, F.QDense | F.DDense]:
    """The dense layers (a dense fragment's x, weights and bias) an op derives, by type name, that the
    C API, the package and the units take fixed-point tensors through."""
    c = op.compute
    if not (isinstance(c, C.DenseFragment) and len(op.outputs) == 1):
        return {}
    found = {t.name: F.derive(op, t) for t in F.TYPES.values()}
    return {name: d for name, d in found.items() if isinstance(d, (F.QDense, F.DDense))}


def api_softmax(op: Op) -> dict[str, F.Softmax]:
    """The 8- and 16-bit softmaxes (a softmax fragment along an axis) an op derives, by type name, that the C
    API, the package and the units take fixed-point tensors through."""
    if not (isinstance(op.compute, C.AxisFragment) and len(op.inputs) == 1 and len(op.outputs) == 1):
        return {}
    found = {t.name: F.derive(op, t) for t in F.TYPES.values()}
    return {name: d for name, d in found.items() if isinstance(d, F.Softmax)}


def numpy_softmax_lines(derived: F.Softmax, t: F.FixedPointType, axis: str) -> list[str]:
    """NumPy lines that leave in ``result`` a softmax's stored values along ``axis``: the table of
    the input's step (``x_shift``, or ``x_scale``, in scope), each row's largest value, the entries
    of the differences from it, their sum, each share by the sum's reciprocal, one rescaling (a D
    output's scale and offset in scope)."""
    x = derived.x
    values = ({f"{x}_{F.FACTOR}": (f"np.float64(2.0 ** ({t.fraction_bits} - {derived.attribute}))", "float64")}
              if t.family == "Q" else {derived.attribute: (f"np.float64({derived.attribute})", "float64")})
    step, _ = scalar_numpy.render(derived.step, "float64", values)
    differences = f"np.arange({F.SOFTMAX_ENTRIES}, dtype=np.float64)"
    if derived.parts > 1:  # (part p's entry i: the rule's difference of that part)
        scaled = [f"{differences} * {derived.part_difference(p)}.0" for p in range(1, derived.parts)]
        differences = f"np.concatenate([{', '.join([differences, *scaled])}])"
    fill, entries = numpy_lines(derived.entry, {"x": (differences, "float64"),
                                                F.STEP: (f"np.float64({step})", "float64")})
    constant = derived.constant_multiplier()
    if constant is None:
        lines, multiplier = numpy_multiplier_lines(derived.multipliers, ["output_scale"])
        final = multiplier | {"output_offset": ("np.int32(output_offset)", "int32")}
    else:
        lines, final = [], {"output_multiplier": (f"np.int32({constant[0]})", "int32"),
                            "output_exponent": (f"np.int32({constant[1]})", "int32")}
    index = [scalar_numpy.render(derived.part_index(p), "int64", {"d": ("d", "int64")})[0]
             for p in range(derived.parts)]
    exponential = ["d = largest - stored", f"e = table[{index[0]}]"]
    if derived.combine is not None:  # (a 16-bit difference's two bytes, each part's entry, their product)
        combine_rule, combined = numpy_lines(derived.combine, {"low": ("low", "int64"), "high": ("high", "int64")})
        exponential = ["d = largest - stored", f"low = table[{index[0]}]", f"high = table[{index[1]}]",
                       *combine_rule, f"e = np.asarray({combined}).astype(np.int64)"]
    share_rule, share = numpy_lines(derived.share, {"e": ("e", "int64"), "reciprocal": ("reciprocal", "int64")})
    rule, code = numpy_lines(derived.finalize, final | {"acc": ("acc", "int64")})
    return [*lines, *fill, f"table = np.asarray({entries}).astype(np.int64)",
            f"stored = np.asarray({x}).astype(np.int64)",
            f"largest = np.max(stored, axis={axis}, keepdims=True, initial={t.lowest})",
            *exponential,
            f"total = np.sum(e, axis={axis}, keepdims=True, dtype=np.int64)",
            f"reciprocal = np.where(total > 0, np.int64(1 << {F.RECIPROCAL_BITS}) // np.maximum(total, 1), 0)",
            *share_rule, f"acc = np.asarray({share}).astype(np.int64)", *rule, f"result = {code}"]


def _python_softmax(op: Op, t: F.FixedPointType, derived: F.Softmax) -> tuple[str, str]:
    """(source, entry) of the package's reference of a softmax: a function of the stored x, the
    input's step (its shift or scale), a D output's scale and offset, and the axis."""
    x = derived.x
    name = f"{op.namespace.lower()}_{op.name}_{t.name}"
    attributes = [derived.attribute, *(() if t.family == "Q" else ("output_scale", "output_offset"))]
    axis = op.compute.axis  # type: ignore[union-attr]
    body = [f"{axis} = int({axis})", *numpy_softmax_lines(derived, t, axis)]
    source = "".join([f"def {name}({', '.join([x, *attributes, axis])}):\n", *(f"    {line}\n" for line in body),
                      "    return np.asarray(result)\n"])
    shift = f"lambda {F.shift_of(x)}: 0" if t.family == "Q" else "None"
    entry = (f"({op.qualified_name!r}, {t.name!r}): Kernel({abi.function(op)!r}, {(x,)!r}, {tuple(attributes)!r}, "
             f"{(axis,)!r}, {name}, {shift}, {t.storage!r}, False)")
    return source, entry


def moves(op: Op) -> list[F.FixedPointType]:
    """The types whose stored values the op moves unchanged (layouts, joins, parts, arg
    reductions, the stream: ``derive`` gives the stored value itself): its integer kernels of the
    type's storage serve them. Not a type whose storage the op does not take. (``derive`` refuses
    a move with a real-valued arg, and a list output made of several inputs.)"""
    if not op.inputs:
        return []
    storages = {v.dtype for v in variants_of(op)}
    return [t for t in F.TYPES.values()
            if t.storage in storages and isinstance(d := F.derive(op, t), F.Conversion) and d.value == F.X]


def api_moves(op: Op) -> list[F.FixedPointType]:
    """The moves the C API and the package take fixed-point tensors through (ADR 0040): not the
    stream's (its frames are the state's, not a call's)."""
    return [] if abi.is_stream(op) else moves(op)


def api_takes(op: Op) -> bool:
    """Whether the C API and the package take fixed-point tensors for the op: a kernel, a table,
    a reduction or contraction of its own (``api_types``), or a move of stored values (the
    stream's frames too)."""
    return bool(api_types(op) or moves(op))


def sets_attributes(op: Op) -> set[str]:
    """The types whose output attributes the op sets rather than reads (ADR 0040): a move's
    and a clamp's (the first input's), a Q result's shift (the form's). The C API neither reads
    nor checks them in the output descriptor; a D result's scale and offset, a table's output
    attributes, are read."""
    set_here = {t.name for t in api_moves(op)}
    for name, d in {**api_kernels(op), **api_reductions(op), **api_dense(op), **api_softmax(op)}.items():
        if isinstance(d, (F.QReduction, F.QContraction, F.Clamp, F.Log, F.QDense)) or (
                isinstance(d, F.Softmax) and d.output_shift is not None) or (
                isinstance(d, F.QKernel) and d.output_shift is not None):
            set_here.add(name)
    return set_here


def api_types(op: Op) -> dict[str, F.Derived]:
    """Every fixed-point type the C API and the Python package take for the op (its kernels',
    its tables', its reductions' and contractions'), in the types' order."""
    derived = {**api_tables(op), **api_kernels(op), **api_reductions(op), **api_dense(op), **api_softmax(op)}
    return {name: derived[name] for name in F.TYPES if name in derived}


def c_multipliers(multipliers: tuple[tuple[str, SExpr], ...], tensors: tuple[str, ...],
                  reals: tuple[str, ...] = ()) -> tuple[str, dict]:
    """C statements that compute a D kernel's per-call multipliers and exponents from the
    tensors' ``<name>_scale`` (and ``reals``: other doubles, a logarithm's factor) by the rule's
    trees and ``opf_quantize_multiplier``, and the env that names them."""
    scales = _c_scales(tensors) | {n: (n, "float64") for n in reals}
    lines, env = [], {}
    for name, tree in multipliers:
        lines += [f"int32_t {name}_multiplier;", f"int32_t {name}_exponent;", _c_quantized(name, tree, scales)]
        env |= {f"{name}_{part}": (f"{name}_{part}", "int32") for part in ("multiplier", "exponent")}
    return "\n".join(lines), env


def c_column_multipliers(multipliers: tuple[tuple[str, SExpr], ...], tensors: tuple[str, ...], column: str,
                         scale: str) -> str:
    """C statements that compute again each multiplier of :func:`c_multipliers` whose rule reads
    ``column``'s scale, that scale read from ``scale`` (C code, a float: one of its per-axis scales),
    into the same locals: a contraction's multipliers at each column of its result (ADR 0071)."""
    scales = _c_scales(tensors) | {f"{column}_scale": (f"((double){scale})", "float64")}
    return "\n".join(_c_quantized(name, tree, scales) for name, tree in multipliers
                     if f"{column}_scale" in symbols(tree))


def _c_scales(tensors: tuple[str, ...]) -> dict[str, scalar_c.Value]:
    """Each tensor's ``<name>_scale``, a double of that name."""
    return {f"{n}_scale": (f"{n}_scale", "float64") for n in tensors}


def _c_quantized(name: str, tree: SExpr, scales: dict[str, scalar_c.Value]) -> str:
    """The multiplier ``name``'s rule in float64, into ``<name>_multiplier`` and ``<name>_exponent``."""
    real, _ = scalar_c.render(tree, "float64", scales)
    return f"opf_quantize_multiplier({real}, &{name}_multiplier, &{name}_exponent);"


def table_entries(derived: F.Conversion | F.InterpolatedTable, source: F.FixedPointType) -> int:
    """How many entries a unary op's table holds: one per stored 8-bit value, or the knots."""
    return derived.knots if isinstance(derived, F.InterpolatedTable) else 1 << source.bits


def table_storage(derived: F.Conversion | F.InterpolatedTable, source: F.FixedPointType) -> str:
    """The dtype of a table's entries: the type's own, or int32 knots (``KNOT_LIMIT``)."""
    return derived.entry.storage if isinstance(derived, F.InterpolatedTable) else source.storage  # type: ignore[return-value]


def table_bytes(derived: F.Conversion | F.InterpolatedTable, source: F.FixedPointType) -> int:
    return table_entries(derived, source) * np.dtype(table_storage(derived, source)).itemsize


def table_miss(name: str, t: F.FixedPointType) -> str:
    """The words of a fill that refuses (:data:`dsl.fixed_point.TABLE_MISS`)."""
    return F.TABLE_MISS.format(name=name, type=t.name, miss=F.TABLE_BOUND)


def c_table_fill(derived: F.Conversion | F.InterpolatedTable, source: F.FixedPointType, entries: str,
                 env: dict[str, scalar_c.Value]) -> str:
    """A loop that fills ``entries`` (the table) from the float reference: entry ``i`` is the
    op on stored input ``lowest + i``, by the rule of ``table_entry`` in float64; ``env`` names
    the per-call attributes (``x_factor``, ...). A 16-bit table's loop runs over every stored
    input and one past the last: a knot (every KNOT_STEP) is kept; any other input's exact
    output waits in ``pending`` until the knot after it is in, and is then compared with the
    interpolation: ``return -2`` (IPWIN_RET_ERROR) where they differ by more than TABLE_BOUND
    (``InterpolatedTable``). The op's tree is inlined once."""
    if not isinstance(derived, F.InterpolatedTable):
        return (f"for (int i = 0; i < {table_entries(derived, source)}; i++) {{\n"
                f"    const double s = (double)({source.lowest} + i);\n    (void)s;\n"
                f"    {c_statement(derived, f'{entries}[i]', env | {'x': ('s', 'float64')})}\n}}")
    step, bound = F.KNOT_STEP, F.TABLE_BOUND
    got = c_statement(derived.value, "got", {"base": (f"{entries}[k - 1]", "int32"), "next": ("knot", "int32"),
                                             "fraction": ("q", "int32")})
    return (f"int32_t pending[{step - 1}];\n"
            f"for (int32_t j = 0; j <= {1 << source.bits}; j++) {{\n"
            f"    const double s = (double)({source.lowest} + j);\n    (void)s;\n"
            f"    int32_t knot;\n"
            f"    {c_statement(derived.entry, 'knot', env | {'x': ('s', 'float64')})}\n"
            f"    const int32_t r = j & {step - 1};\n"
            f"    if (r != 0) {{\n"
            f"        {c_statement(derived.exact, 'pending[r - 1]', {'knot': ('knot', 'int32')})}\n"
            f"        continue;\n    }}\n"
            f"    const int32_t k = j >> {F.KNOT_BITS};\n"
            f"    {entries}[k] = knot;\n"
            f"    for (int32_t q = 1; k > 0 && q < {step}; q++) {{\n"
            f"        int32_t got;\n        {got}\n"
            f"        if (pending[q - 1] - got > {bound} || got - pending[q - 1] > {bound}) {{\n"
            f"            return -2;\n        }}\n    }}\n}}")


def c_table_lookup(derived: F.Conversion | F.InterpolatedTable, source: F.FixedPointType, entries: str, x: str,
                   target: str) -> str:
    """Statements that store in ``target`` the table's value for the stored input ``x``: its entry,
    or (16-bit) the interpolation between the two knots around it."""
    if not isinstance(derived, F.InterpolatedTable):
        return f"{target} = {entries}[(int32_t){x} - ({source.lowest})];"
    scalar = {"x": (f"((int32_t){x})", "int32")}
    env = {"base": (f"{entries}[k]", "int32"), "next": (f"{entries}[k + 1]", "int32"), "fraction": ("f", "int32")}
    return (f"{{ const int32_t k = {scalar_c.render(derived.index, 'int32', scalar)[0]}; "
            f"const int32_t f = {scalar_c.render(derived.fraction, 'int32', scalar)[0]}; "
            f"{c_statement(derived.value, target, env)} }}")


def numpy_table(derived: F.Conversion | F.InterpolatedTable, source: F.FixedPointType, x: str,
                env: dict[str, scalar_numpy.Value], name: str = "x") -> list[str]:
    """NumPy lines that compute ``table`` (the entries, as :func:`c_table_fill`, raising
    ``ValueError`` where its check refuses; ``name`` is the input's, for the message) and
    ``result`` (the table's values for the stored inputs ``x``, as :func:`c_table_lookup`)."""
    if not isinstance(derived, F.InterpolatedTable):
        lines = [f"s = ({source.lowest} + np.arange({table_entries(derived, source)})).astype(np.float64)"]
        fill, code = numpy_lines(derived, env | {"x": ("s", "float64")})
        # (an entry that ignores the input, zeros_like's, is one value: as many as the entries)
        return [*lines, *fill, f"table = np.broadcast_to(np.asarray({code}), s.shape)",
                f"result = table[np.asarray({x}).astype(np.int32) - ({source.lowest})]"]
    # (every stored input and one past the last: the knots, and every input's exact output to check)
    lines = [f"s = ({source.lowest} + np.arange({(1 << source.bits) + 1})).astype(np.float64)"]
    fill, code = numpy_lines(derived.entry, env | {"x": ("s", "float64")})
    lines += [*fill, f"knot = np.broadcast_to(np.asarray({code}), s.shape)", f"table = knot[::{F.KNOT_STEP}]"]
    exact, exact_code = numpy_lines(derived.exact, {"knot": ("knot[:-1]", "int32")})
    inputs = {"x": (f"np.arange({source.lowest}, {source.highest + 1}, dtype=np.int32)", "int32")}
    lines += [f"k = {scalar_numpy.render(derived.index, 'int32', inputs)[0]}",
              f"f = {scalar_numpy.render(derived.fraction, 'int32', inputs)[0]}"]
    got, got_code = numpy_lines(derived.value, {"base": ("table[k].astype(np.int32)", "int32"),
                                                "next": ("table[k + 1].astype(np.int32)", "int32"),
                                                "fraction": ("f", "int32")})
    lines += [*exact, f"exact = np.asarray({exact_code}).astype(np.int32)",
              *got, f"got = np.asarray({got_code}).astype(np.int32)",
              f"if np.any(np.abs(exact - got) > {F.TABLE_BOUND}):",
              f"    raise ValueError({table_miss(name, source)!r})",
              f"stored = np.asarray({x}).astype(np.int32)"]
    scalar = {"x": ("stored", "int32")}
    lines += [f"k = {scalar_numpy.render(derived.index, 'int32', scalar)[0]}",
              f"f = {scalar_numpy.render(derived.fraction, 'int32', scalar)[0]}"]
    value, code = numpy_lines(derived.value, {"base": ("table[k].astype(np.int32)", "int32"),
                                              "next": ("table[k + 1].astype(np.int32)", "int32"),
                                              "fraction": ("f", "int32")})
    return [*lines, *value, f"result = {code}"]


def numpy_lines(conversion: Conversion, env: dict[str, scalar_numpy.Value]) -> tuple[list[str], str]:
    """(assignments, expression): NumPy code (over the generated package's ``_k`` helpers)
    for the converted array; ``env`` as for :func:`c_statement`, with NumPy code. Run it as
    the reference kernels run theirs, under ``np.errstate(all='ignore')``: a value scaled
    beyond float32 is an infinity, which then saturates."""
    lines, env = lets.numpy_lets(conversion.lets, env)
    code, _ = scalar_numpy.render(conversion.value, conversion.domain, env)
    if conversion.storage is not None:
        code = f"_k.convert(np.asarray({code}), np.{conversion.storage})"
    return lines, code


def numpy_run(conversion: Conversion, env: dict[str, scalar_numpy.Value], values: dict[str, object]) -> object:
    """The conversion evaluated now (generation time, tests, benchmarks): ``values`` hold
    what ``env``'s code names."""
    lines, code = numpy_lines(conversion, env)
    scope = {"np": np, "_k": routines.numpy_kernels(), **values}
    with np.errstate(all="ignore"):
        for line in lines:
            exec(line, scope)  # our own rendering
        return eval(code, scope)


#: The NumPy spelling of each per-call value: a scalar of the rule's domain.
_VALUES = {F.FACTOR: "float32", F.SCALE: "float32", F.OFFSET: "float32"}


def numpy_multiplier_lines(multipliers: tuple[tuple[str, SExpr], ...], scales: list[str],
                           columns: bool = False) -> tuple[list[str], dict]:
    """A D kernel's per-call multipliers from the scales: the rule's trees in float64 and
    ``quantize_multiplier``, as the C kernel computes them. ``columns``: a scale may be a float64
    array (per-axis scales along the result's last axis, ADR 0071), each multiplier then one per
    column, as the C kernel computes it at each column."""
    env = {n: (n, "float64") for n in scales}
    lines, names = [], {}
    for name, tree in multipliers:
        real, _ = scalar_numpy.render(tree, "float64", env)
        lines.append(f"{name}_multiplier, {name}_exponent = np.frompyfunc(quantize_multiplier, 1, 2)(np.float64({real}))"
                     if columns else f"{name}_multiplier, {name}_exponent = quantize_multiplier(float({real}))")
        names |= {f"{name}_{part}": (f"np.int32({name}_{part})", "int32") for part in ("multiplier", "exponent")}
    return lines, names


def numpy_elementwise_lines(derived: Kernel, inputs: list[str], per_call: list[str]) -> list[str]:
    """A Q kernel's per-call values (a clamp's stored bounds, a logarithm's constants) are the
    caller's; a D kernel's multipliers come from the scales here, by the same trees and the same
    ``quantize_multiplier`` as the C kernel's."""
    domain = derived.value.domain
    env = {p: (f"np.asarray({p}).astype(np.{domain})", domain) for p in inputs}
    lines = []
    if isinstance(derived, (F.QKernel, F.Clamp, F.Log)):
        env |= {n: (f"np.{domain}({n})", domain) for n in per_call}
    else:  # (a D logarithm's factor is a real per-call value too, and its log_k comes from x's scale)
        reals = [n for n in per_call if n.endswith("_scale") or n == F.LOG_FACTOR]
        lines, multipliers = numpy_multiplier_lines(derived.multipliers, reals)
        env |= multipliers | {f"{n}_offset": (f"np.int32({n}_offset)", "int32") for n in derived.offsets}
        for name, rule in getattr(derived, "constants", ()):
            rule_lines, code = numpy_lines(rule, {n: (f"np.float64({n})", "float64") for n in reals})
            lines += [*rule_lines, f"{name} = int({code})"]
            env[name] = (f"np.int64({name})", "int64")
    rule_lines, code = numpy_lines(derived.value, env)
    return [*lines, *rule_lines, f"result = {code}"]


#: NumPy's reduction of each combine, over the wide mapped values.
_COMBINE = {"add": "np.sum", "max": "np.max", "min": "np.min"}


def numpy_reduction_lines(derived: F.QReduction | F.DReduction, inputs: list[str], axis: str, count: str,
                          headroom: str, keepdims: bool = False) -> list[str]:
    """NumPy lines that leave in ``result`` a reduction's stored values: the mapped stored inputs
    combined along ``axis`` (code: an axis or a tuple of them; ``keepdims`` as NumPy's) in the wide dtype, then the one
    requantization; ``count`` (code) is how many elements each result reduces, ``headroom``
    (code) a Q sum's ``h``, a D reduction's multiplier comes from the scales."""
    domain = derived.domain
    env = {p: (f"np.asarray({p}).astype(np.{domain})", domain) for p in inputs}
    final = {"acc": ("acc", domain), "n": (f"np.int64({count})", "int64"),
             F.HEADROOM: (f"np.int32({headroom})", "int32")}
    lines: list[str] = []
    if isinstance(derived, F.DReduction):
        lines, multipliers = numpy_multiplier_lines(derived.multipliers, ["x_scale", "output_scale"])
        offsets = {f"{n}_offset": (f"np.int64({n}_offset)", "int64") for n in derived.offsets}
        env |= offsets
        final = {k: v for k, v in final.items() if k != F.HEADROOM} | multipliers | offsets
    mapped, _ = scalar_numpy.render(derived.map, domain, env)
    rule, code = numpy_lines(derived.finalize, final)
    kept = ", keepdims=True" if keepdims else ""
    return [*lines, f"acc = {_COMBINE[derived.combine]}({mapped}, axis={axis}{kept}).astype(np.{domain})", *rule,
            f"result = {code}"]


def numpy_contraction_lines(derived: F.QContraction | F.DContraction, inputs: list[str]) -> list[str]:
    """NumPy lines that leave in ``result`` a matrix product's stored values: each product of a
    row of ``a`` and a column of ``b`` mapped in int64 (the operands broadcast against each other
    along a new axis, their batch axes as NumPy's matmul broadcasts them), summed over the inner
    axis, then the one requantization."""
    a, b = inputs
    env = {a: (f"np.asarray({a}).astype(np.int64)[..., :, :, None]", "int64"),
           b: (f"np.asarray({b}).astype(np.int64)[..., None, :, :]", "int64")}
    final: dict = {"acc": ("acc", "int64")}
    lines: list[str] = []
    if isinstance(derived, F.DContraction):
        lines, final = numpy_multiplier_lines(derived.multipliers, [f"{n}_scale" for n in (a, b, "output")],
                                              columns=derived.per_column is not None)
        final |= {"acc": ("acc", "int64"), "output_offset": ("np.int64(output_offset)", "int64")}
        env |= {f"{n}_offset": (f"np.int64({n}_offset)", "int64") for n in (a, b)}
    term, _ = scalar_numpy.render(derived.map, "int64", env)
    rule, code = numpy_lines(derived.finalize, final)
    return [*lines, f"acc = np.sum({term}, axis=-2, dtype=np.int64)", *rule, f"result = {code}"]


def numpy_dense_lines(derived: F.QDense | F.DDense) -> list[str]:
    """NumPy lines that leave in ``result`` a dense layer's stored values: each output the bias in the
    sum's units (its rule) plus the products of a row of x and a column of the weights, summed in
    int64, then the one requantization. A Q layer's ``bias_k`` is a name in scope; a D layer's
    multipliers come from the scales, its offsets by name."""
    x, w, b = derived.inputs
    env = {x: (f"np.asarray({x}).astype(np.int64)[..., :, None]", "int64"),
           w: (f"np.asarray({w}).astype(np.int64)", "int64")}
    bias_env: dict = {b: (f"np.asarray({b}).astype(np.int64)", "int64")}
    final: dict = {"acc": ("acc", "int64")}
    lines: list[str] = []
    if isinstance(derived, F.QDense):
        bias_env["bias_k"] = ("np.int64(bias_k)", "int64")
    else:
        lines, multipliers = numpy_multiplier_lines(derived.multipliers, [f"{n}_scale" for n in (x, w, b, "output")],
                                                    columns=derived.contraction.per_column is not None)
        final |= multipliers | {"output_offset": ("np.int64(output_offset)", "int64")}
        bias_env |= multipliers | {f"{b}_offset": (f"np.int64({b}_offset)", "int64")}
        env |= {f"{n}_offset": (f"np.int64({n}_offset)", "int64") for n in (x, w)}
    term, _ = scalar_numpy.render(derived.contraction.map, "int64", env)
    bias_rule, bias = numpy_lines(derived.bias, bias_env)
    rule, code = numpy_lines(derived.contraction.finalize, final)
    return [*lines, *bias_rule, f"acc = np.asarray({bias}).astype(np.int64) + np.sum({term}, axis=-2, dtype=np.int64)",
            *rule, f"result = {code}"]


def _python_dense(op: Op, t: F.FixedPointType, derived: F.QDense | F.DDense) -> tuple[str, str]:
    """(source, entry) of the package's reference of a dense layer: a function of the stored x,
    weights and bias and the tensors' attributes (:func:`numpy_dense_lines`); a Q result's shift
    the rule's, a D result's attributes the caller's."""
    inputs = list(derived.inputs)
    assert all(n.isidentifier() for n in inputs), inputs
    name = f"{op.namespace.lower()}_{op.name}_{t.name}"
    if isinstance(derived, F.QDense):
        attributes = [F.shift_of(n) for n in inputs]
        env = {a: (f"np.int32({a})", "int32") for a in attributes}
        k = scalar_numpy.render(derived.per_call[0][1], "int32", env)[0]
        body = [f"bias_k = int({k})", *numpy_dense_lines(derived)]
        shift = (f"lambda {', '.join(attributes)}: "
                 f"int({scalar_numpy.render(derived.output_shift, 'int32', env)[0]})")
    else:
        attributes = [f"{n}_{a}" for n in (*inputs, "output") for a in ("scale", "offset")]
        body, shift = numpy_dense_lines(derived), "None"
    source = "".join([f"def {name}({', '.join([*inputs, *attributes])}):\n", *(f"    {line}\n" for line in body),
                      "    return np.asarray(result)\n"])
    entry = (f"({op.qualified_name!r}, {t.name!r}): Kernel({abi.function(op)!r}, {tuple(inputs)!r}, "
             f"{tuple(attributes)!r}, (), {name}, {shift}, {t.storage!r}, False)")
    return source, entry


def quantize_multiplier_source() -> str:
    """TFLite's QuantizeMultiplier as the rules state it (``dsl.fixed_point``): its source itself,
    for a target that runs Python (a unit's implementation, the package's reference)."""
    return inspect.getsource(F.quantize_multiplier)


def _numpy_function(name: str, conversion: Conversion, params: tuple[str, ...]) -> str:
    env = {"x": ("x", conversion.domain),
           **{p: (f"np.{_VALUES.get(p, conversion.domain)}({p})", _VALUES.get(p, conversion.domain)) for p in params}}
    lines, code = numpy_lines(conversion, env)
    return "".join([f"def {name}({', '.join(['x', *params])}):\n", *(f"    {line}\n" for line in lines),
                    f"    return {code}\n"])


def numpy_rules_module(head: str, ops: list[Op]) -> str:
    """The generated package's ``_fixed_point_rules``: each type's facts and its conversions as
    functions over arrays, ``x`` already in the rule's domain: float32 (real values, and
    stored values on their way to real) or, for a shift, the wider integer; and the ops'
    elementwise kernels (:func:`numpy_api_kernels`)."""
    lines = [f"# {head}", '"""The fixed-point rules of ADR 0036, rendered for NumPy (run under np.errstate)."""',
             "", "import math", "from typing import Any, Callable, NamedTuple", "", "import numpy as np", "",
             "from opforge import _kernels as _k", "", ""]
    types, from_real, to_real, shifted, bits = [], [], [], [], []
    for t in F.TYPES.values():
        params = (F.FACTOR,) if t.family == "Q" else (F.SCALE, F.OFFSET)
        lines.append(_numpy_function(f"{t.name}_from_real", F.from_real(t), params))
        lines.append(_numpy_function(f"{t.name}_to_real", F.to_real(t), params))
        from_real.append(f"{t.name!r}: {t.name}_from_real")
        to_real.append(f"{t.name!r}: {t.name}_to_real")
        shifts = (t.shifts().start, t.shifts().stop - 1) if t.family == "Q" else None
        fraction = t.fraction_bits if t.family == "Q" else None
        types.append(f"{t.name!r}: Type({t.name!r}, {t.family!r}, {t.storage!r}, {t.bits}, {fraction!r}, {shifts!r}, "
                     f"{t.attributes!r}, {t.lowest}, {t.highest})")
        if t.family == "Q":
            lines.append(_numpy_function(f"{t.name}_bit_utilization", F.bit_utilization(t), ()))
            bits.append(f"{t.name!r}: {t.name}_bit_utilization")
    requantize = C.FixedPointConversion("requantize")  # (which pairs shift exactly, and by how much: the form's)
    for source, target in requantize.pairs():
        steps, k = requantize.steps(source, target), requantize.shift_by(source, target)
        if len(steps) != 1 or k is None:
            continue
        rule, name = steps[0], f"{source}_to_{target}_shifted"
        lines.append(_numpy_function(name, rule, (F.SHIFT_BY,)))
        shifts = {"shift": ("int(shift)", "int64"), F.shift_of(requantize.input): ("int(x_shift)", "int64")}
        by = scalar_numpy.render(k, "int64", shifts)[0]
        lines.append(f"def {name}_by(x_shift, shift):\n    return int({by})\n")
        shifted.append(f"({source!r}, {target!r}): ({name}, {rule.domain!r}, {name}_by)")
    lines += ["class Type(NamedTuple):",
              "    name: str", "    family: str", "    storage: str", "    bits: int",
              "    fraction_bits: int | None  # N of a Q type: real = stored / 2**(N - shift)",
              "    shifts: tuple[int, int] | None  # (lowest, highest) of a Q type's shift",
              "    attributes: tuple[str, ...]", "    lowest: int", "    highest: int", "", "",
              f"TYPES = {{{', '.join(types)}}}",
              "#: (a Q type's rules take its factor, a D type's its scale and offset)",
              f"FROM_REAL: dict[str, Callable[..., Any]] = {{{', '.join(from_real)}}}",
              f"TO_REAL: dict[str, Callable[..., Any]] = {{{', '.join(to_real)}}}",
              "#: The requantizations that shift exactly: (the rule, its domain, its k from x's shift and the output's)",
              f"SHIFTED: dict[tuple[str, str], tuple[Callable[..., Any], str, Callable[[int, int], int]]] = "
              f"{{{', '.join(shifted)}}}",
              f"BIT_UTILIZATION: dict[str, Callable[..., Any]] = {{{', '.join(bits)}}}", "", "",
              "def factor(t: Type, shift: int) -> float:",
              '    """2**(N - shift): real values times it are a Q type\'s stored ones (exact in float32)."""',
              "    assert t.fraction_bits is not None  # (a Q type's)",
              "    return 2.0 ** (t.fraction_bits - shift)", "", "", *numpy_api_kernels(ops)]
    return "\n".join(lines)


def _python_function(op: Op, t: F.FixedPointType, derived: F.QKernel | F.DKernel) -> tuple[str, str]:
    """(source, entry) of the package's reference of one kernel: a function of the stored inputs
    (named as the op's) and the tensors' attributes (``<tensor>_shift``, or ``_scale`` and
    ``_offset``) that returns the stored result; a Q kernel's per-call values and output shift
    from the shifts by the rule's trees, a D kernel's multipliers by ``quantize_multiplier``."""
    inputs = [i.name for i in op.inputs]
    assert all(n.isidentifier() for n in inputs), inputs
    name = f"{op.namespace.lower()}_{op.name}_{t.name}"
    if isinstance(derived, F.QKernel):
        attributes = [F.shift_of(n) for n in inputs]
        env = {a: (f"np.int32({a})", "int32") for a in attributes}
        per_call = [f"{n} = int({scalar_numpy.render(tree, 'int32', env)[0]})" for n, tree in derived.per_call]
        body = [*per_call, *numpy_elementwise_lines(derived, inputs, [n for n, _ in derived.per_call])]
        shift = (f"lambda {', '.join(attributes)}: int({scalar_numpy.render(derived.output_shift, 'int32', env)[0]})"
                 if derived.output_shift is not None else "None")
    else:
        tensors = [*inputs, *(["output"] if "output" in derived.offsets else [])]
        attributes = [f"{n}_{a}" for n in tensors for a in ("scale", "offset")]
        body = numpy_elementwise_lines(derived, inputs, attributes)
        shift = "None"
    result = "bool" if (derived.output_shift is None if isinstance(derived, F.QKernel)
                        else derived.kind in F.COMPARISONS) else t.storage
    source = "".join([f"def {name}({', '.join([*inputs, *attributes])}):\n", *(f"    {line}\n" for line in body),
                      "    return np.asarray(result)\n"])
    entry = (f"({op.qualified_name!r}, {t.name!r}): Kernel({abi.function(op)!r}, {tuple(inputs)!r}, "
             f"{tuple(attributes)!r}, (), {name}, {shift}, {result!r}, False)")
    return source, entry


def numpy_bound_lines(derived: F.Clamp, t: F.FixedPointType, args: dict[str, str]) -> list[str]:
    """NumPy lines that refuse a NaN bound (``CLAMP_NAN``, a ValueError) and compute a clamp's
    stored bounds by their rules from the input's attributes (named as the clamp's) and the
    args (``args``: each arg's code, a float)."""
    env: dict[str, scalar_numpy.Value] = {a: (f"np.float64({code})", "float64") for a, code in args.items()}
    env |= {a: (f"np.{'float64' if a.endswith('_scale') else 'int32'}({a})",
                "float64" if a.endswith("_scale") else "int32") for a in derived.attributes}
    lines = [line for a, code in args.items() for line in (
        f"if math.isnan({code}):", f"    raise ValueError({F.CLAMP_NAN.format(name=a, type=t.name)!r})")]
    for name, bound in derived.bounds:
        rule, code = numpy_lines(bound, env)
        lines += [*rule, f"{name} = int({code})"]
    return lines


def _python_clamp(op: Op, t: F.FixedPointType, derived: F.Clamp) -> tuple[str, str]:
    """(source, entry) of the package's reference of a clamp: a function of the stored input, its
    attributes and the args the bounds read (in order), whose result keeps the input's
    attributes (``kept``)."""
    assert derived.input.isidentifier(), derived.input
    name = f"{op.namespace.lower()}_{op.name}_{t.name}"
    params = {a: f"_arg{j}" for j, a in enumerate(derived.args)}  # (an arg's name may be any word)
    body = [*numpy_bound_lines(derived, t, params),
            *numpy_elementwise_lines(derived, [derived.input], [n for n, _ in derived.bounds])]
    shift = f"lambda {F.shift_of(derived.input)}: {F.shift_of(derived.input)}" if t.family == "Q" else "None"
    source = "".join([f"def {name}({', '.join([derived.input, *derived.attributes, *params.values()])}):\n",
                      *(f"    {line}\n" for line in body), "    return np.asarray(result)\n"])
    entry = (f"({op.qualified_name!r}, {t.name!r}): Kernel({abi.function(op)!r}, {(derived.input,)!r}, "
             f"{derived.attributes!r}, {derived.args!r}, {name}, {shift}, {t.storage!r}, False, kept=True)")
    return source, entry


def numpy_log_lines(derived: F.Log, op: Op, args: dict[str, str]) -> list[str]:
    """NumPy lines that compute a logarithm's per-call values as the C API does (ADR 0046): the
    output's shift by its rule from the input's (``<input>_shift``), the factor of the case the
    args given choose (``args``: each arg's code, None where not given), the two constants."""
    env: dict[str, scalar_numpy.Value] = {a: (f"np.float64({code})", "float64") for a, code in args.items()}
    shift = F.shift_of(derived.input)
    env[shift] = (f"np.int32({shift})", "int32")
    lines = [f"output_shift = int({scalar_numpy.render(derived.output_shift, 'int32', env)[0]})"]
    env["output_shift"] = ("np.int32(output_shift)", "int32")
    lines += numpy_log_factor_lines(derived, op, args, env)
    env[F.LOG_FACTOR] = (f"np.float64({F.LOG_FACTOR})", "float64")
    for name, rule in derived.constants:
        rule_lines, code = numpy_lines(rule, env)
        lines += [*rule_lines, f"{name} = int({code})"]
    return lines


def _python_log(op: Op, t: F.FixedPointType, derived: F.Log) -> tuple[str, str]:
    """(source, entry) of the package's reference of a logarithm: a function of the stored input,
    its shift and the args the factors read (in order, None where not given); the result's shift
    the rule's."""
    x = derived.input
    assert x.isidentifier(), x
    name = f"{op.namespace.lower()}_{op.name}_{t.name}"
    params = {a: f"_arg{j}" for j, a in enumerate(derived.args)}  # (an arg's name may be any word)
    body = [*numpy_log_lines(derived, op, params),
            *numpy_elementwise_lines(derived, [x], [n for n, _ in derived.constants])]
    env = {F.shift_of(x): (f"np.int32({F.shift_of(x)})", "int32")}
    shift = f"lambda {F.shift_of(x)}: int({scalar_numpy.render(derived.output_shift, 'int32', env)[0]})"
    source = "".join([f"def {name}({', '.join([x, *derived.attributes, *params.values()])}):\n",
                      *(f"    {line}\n" for line in body), "    return np.asarray(result)\n"])
    entry = (f"({op.qualified_name!r}, {t.name!r}): Kernel({abi.function(op)!r}, {(x,)!r}, "
             f"{derived.attributes!r}, {derived.args!r}, {name}, {shift}, {t.storage!r}, False)")
    return source, entry


def numpy_log_factor_lines(derived: F.Log | F.DLog, op: Op, args: dict[str, str],
                           env: dict[str, scalar_numpy.Value]) -> list[str]:
    """NumPy lines that set ``log_factor``, the factor of the case the args given choose (``args``:
    each arg's code, None where not given; ``env`` renders them)."""
    lines = []
    for k, (given, tree) in enumerate(derived.factors):
        presence = op.compute.presence(given)  # type: ignore[union-attr]
        cond = " and ".join(f"{args[a]} is {'not ' if set_ else ''}None" for a, set_ in presence if a in args)
        lines += [f"{'if' if k == 0 else 'elif'} {cond or 'True'}:",
                  f"    {F.LOG_FACTOR} = {scalar_numpy.render(tree, 'float64', env)[0]}"]
    return lines


def _python_dlog(op: Op, t: F.FixedPointType, derived: F.DLog) -> tuple[str, str]:
    """(source, entry) of the package's reference of a D logarithm: a function of the stored input,
    the input's and the output's scales and offsets and the args the factors read (None where not
    given); the output's attributes the caller's."""
    x = derived.input
    assert x.isidentifier(), x
    name = f"{op.namespace.lower()}_{op.name}_{t.name}"
    params = {a: f"_arg{j}" for j, a in enumerate(derived.args)}
    attributes = tuple(f"{n}_{a}" for n in (x, "output") for a in ("scale", "offset"))
    reals = {a: (f"np.float64({p})", "float64") for a, p in params.items()}
    body = [*numpy_log_factor_lines(derived, op, params, reals),
            *numpy_elementwise_lines(derived, [x], [*attributes, F.LOG_FACTOR])]
    source = "".join([f"def {name}({', '.join([x, *attributes, *params.values()])}):\n",
                      *(f"    {line}\n" for line in body), "    return np.asarray(result)\n"])
    entry = (f"({op.qualified_name!r}, {t.name!r}): Kernel({abi.function(op)!r}, {(x,)!r}, "
             f"{attributes!r}, {derived.args!r}, {name}, None, {t.storage!r}, False)")
    return source, entry


def _python_table(op: Op, t: F.FixedPointType, derived: F.Conversion | F.InterpolatedTable) -> tuple[str, str]:
    """(source, entry) of the package's reference of a unary op's table: filled from the float
    reference for the input's and the output's attributes and the op's numeric args, then read
    (:func:`numpy_table`, as the C API's fill and lookup); of an op of several cases, the table
    of the case the args given choose (an optional arg not given is None), as in C."""
    x = op.inputs[0].name
    assert x.isidentifier(), x
    name = f"{op.namespace.lower()}_{op.name}_{t.name}"
    tensors = (x, "output")
    if t.family == "Q":
        attributes = [f"{n}_shift" for n in tensors]
        env = {f"{n}_factor": (f"np.float64(2.0 ** ({t.fraction_bits} - {n}_shift))", "float64") for n in tensors}
    else:
        attributes = [f"{n}_{a}" for n in tensors for a in ("scale", "offset")]
        env = {a: (f"np.float64({a})", "float64") for a in attributes}
    cases = table_cases(op, t)
    read = set().union(*(C.symbols(tree) for _, tree, _ in cases))
    used = [a.name for a in op.args if a.name in read]
    params = [f"_arg{j}" for j in range(len(used))]  # (an arg's name may be any word: passed in order)
    env |= {a: (f"np.float64({p})", "float64") for a, p in zip(used, params)}
    param_of = dict(zip(used, params))
    # (an enum arg comes as its value, checked by the op: the fill reads its index, as C's)
    body: list[str] = [f"{param_of[a]} = {values!r}.index({param_of[a]})" for a, values in op.enums.items()
                       if a in param_of]
    for k, (given, _, case) in enumerate(cases):
        lines = numpy_table(case, t, "stored_x", env, x)
        if len(cases) == 1:
            body += lines
            break
        presence = op.compute.presence(given)  # type: ignore[union-attr]
        cond = " and ".join(f"{param_of[a]} is {'not ' if set_ else ''}None" for a, set_ in presence
                            if a in param_of) or "True"
        body += [f"{'if' if k == 0 else 'elif'} {cond}:", *(f"    {line}" for line in lines)]
    source = "".join([f"def {name}(stored_x, {', '.join([*attributes, *params])}):\n",
                      *(f"    {line}\n" for line in body), "    return np.asarray(result)\n"])
    entry = (f"({op.qualified_name!r}, {t.name!r}): Kernel({abi.function(op)!r}, {(x,)!r}, {tuple(attributes)!r}, "
             f"{tuple(used)!r}, {name}, None, {t.storage!r}, True)")
    return source, entry


def _q_shift(derived: F.QReduction | F.QContraction, tensors: list[str], more: list[str]) -> str:
    """A Q result's shift as a lambda over the inputs' shifts (and ``more``: a reduction's ``h``)."""
    env = {F.shift_of(n): (f"np.int32({F.shift_of(n)})", "int32") for n in tensors} | \
        {n: (f"np.int32({n})", "int32") for n in more}
    return (f"lambda {', '.join([*(F.shift_of(n) for n in tensors), *more])}: "
            f"int({scalar_numpy.render(derived.output_shift, 'int32', env)[0]})")


def _python_reduction(op: Op, t: F.FixedPointType, derived: F.QReduction | F.DReduction) -> tuple[str, str]:
    """(source, entry) of the package's reference of a reduction: a function of the stored inputs,
    the tensors' attributes, the reduced axes (normalized: ``_k.norm_axes``), their count and a
    Q sum's headroom ``h`` (the same ``headroom`` the C API computes), reducing as the rule says
    (:func:`numpy_reduction_lines`) with the axes kept."""
    c = op.compute
    inputs = [c.input, *([c.other] if c.other else [])]  # type: ignore[union-attr]
    assert inputs == ["x", "y"][:len(inputs)], (op.qualified_name, inputs)  # (the rules are written over x, y)
    name = f"{op.namespace.lower()}_{op.name}_{t.name}"
    if isinstance(derived, F.QReduction):
        attributes, shift = [F.shift_of(n) for n in inputs], _q_shift(derived, inputs, [F.HEADROOM])
    else:
        attributes, shift = [f"{n}_{a}" for n in ("x", "output") for a in ("scale", "offset")], "None"
    body = numpy_reduction_lines(derived, inputs, "axes", "count", F.HEADROOM, keepdims=True)
    source = "".join([f"def {name}({', '.join([*inputs, *attributes, 'axes', 'count', F.HEADROOM])}):\n",
                      *(f"    {line}\n" for line in body), "    return np.asarray(result)\n"])
    entry = (f"({op.qualified_name!r}, {t.name!r}): Kernel({abi.function(op)!r}, {tuple(inputs)!r}, "
             f"{tuple(attributes)!r}, (), {name}, {shift}, {t.storage!r}, False, {c.axes!r}, "  # type: ignore[union-attr]
             f"{derived.refuses_empty!r})")
    return source, entry


def _python_contraction(op: Op, t: F.FixedPointType, derived: F.QContraction | F.DContraction) -> tuple[str, str]:
    """(source, entry) of the package's reference of a matrix product: a function of the stored
    operands and the tensors' attributes (:func:`numpy_contraction_lines`)."""
    inputs = list(op.compute.inputs)  # type: ignore[union-attr]
    assert all(n.isidentifier() for n in inputs), inputs
    name = f"{op.namespace.lower()}_{op.name}_{t.name}"
    if isinstance(derived, F.QContraction):
        attributes, shift = [F.shift_of(n) for n in inputs], _q_shift(derived, inputs, [])
    else:
        attributes, shift = [f"{n}_{a}" for n in (*inputs, "output") for a in ("scale", "offset")], "None"
    body = numpy_contraction_lines(derived, inputs)
    source = "".join([f"def {name}({', '.join([*inputs, *attributes])}):\n", *(f"    {line}\n" for line in body),
                      "    return np.asarray(result)\n"])
    entry = (f"({op.qualified_name!r}, {t.name!r}): Kernel({abi.function(op)!r}, {tuple(inputs)!r}, "
             f"{tuple(attributes)!r}, (), {name}, {shift}, {t.storage!r}, False)")
    return source, entry


def moved_tensors(op: Op, t: F.FixedPointType) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(inputs, outputs) of a move that carry the fixed-point type ``t``: in the variant of its
    storage, the tensors of the primary dtype (an arg reduction's indices, gather's, carry none)."""
    v = next(v for v in variants_of(op) if v.dtype == t.storage)
    carried = {n for n, d in v.tensors if d == v.dtype}
    return (tuple(i.name for i in op.inputs if i.name in carried),
            tuple(o.name for o in op.outputs if o.name in carried))


def _python_move(op: Op, t: F.FixedPointType) -> str:
    """The entry of a move (``api_moves``): no reference of its own, the op's code runs on the
    stored values; ``moved`` names the outputs that carry the type (:func:`moved_tensors`)."""
    inputs, moved = moved_tensors(op, t)
    return (f"({op.qualified_name!r}, {t.name!r}): Kernel({abi.function(op)!r}, {inputs!r}, (), (), None, None, "
            f"{t.storage!r}, False, moved={moved!r})")


def _listed(words: list[str]) -> str:
    return f"{', '.join(words[:-1])} and {words[-1]}" if len(words) > 1 else words[0]


def numpy_api_kernels(ops: list[Op]) -> list[str]:
    """The package's references of the kernels :func:`api_kernels` gives, and ``KERNELS``, by
    (op, type): what ``opforge.fixed_point`` runs for ``backend="python"``."""
    sources, entries = [], []
    for op in ops:
        made = [_python_clamp(op, F.TYPES[name], d) if isinstance(d, F.Clamp)
                else _python_log(op, F.TYPES[name], d) if isinstance(d, F.Log)
                else _python_dlog(op, F.TYPES[name], d) if isinstance(d, F.DLog)
                else _python_function(op, F.TYPES[name], d) for name, d in api_kernels(op).items()]
        made += [_python_table(op, F.TYPES[name], d) for name, d in api_tables(op).items()]
        made += [_python_reduction(op, F.TYPES[name], d) if isinstance(d, (F.QReduction, F.DReduction))
                 else _python_contraction(op, F.TYPES[name], d) for name, d in api_reductions(op).items()]
        made += [_python_dense(op, F.TYPES[name], d) for name, d in api_dense(op).items()]
        made += [_python_softmax(op, F.TYPES[name], d) for name, d in api_softmax(op).items()]
        made += [("", _python_move(op, t)) for t in api_moves(op)]
        sources += [source for source, _ in made if source]
        entries += [entry for _, entry in made]
    per_axis = {op.qualified_name: F.per_axis_scales(op) for op in ops if F.reads_per_axis_scales(op)}
    anywhere = [name.partition(".")[2] for name, taken in per_axis.items() if F.ANY_AXIS in taken.values()]
    columns = [f"{name.partition('.')[2]}'s {tensor}" for name, taken in per_axis.items()
               for tensor, axis in taken.items() if axis == F.LAST_AXIS]
    takers = (f"only {_listed(anywhere)} take" if anywhere else "no op of this package takes" if not columns else
              "only")
    whose = "their" if len(columns) > 1 else "its"
    takers += f"{',' if anywhere else ''} and {_listed(columns)} along {whose} last axis" if columns else ""
    return ["class Kernel(NamedTuple):",
            "    function: str  # the C API's",
            "    inputs: tuple[str, ...]",
            "    attributes: tuple[str, ...]  # what the reference takes besides the stored inputs",
            "    args: tuple[str, ...]  # the op's args the reference takes last (a table's fill reads them)",
            "    reference: Callable[..., np.ndarray] | None  # (None: a move's, whose own kernels run)",
            "    output_shift: Callable[..., int] | None  # a Q result's shift from the inputs' (None: bool, or D)",
            "    result: str  # the stored result's dtype",
            "    table: bool  # a unary op's table: the output's attributes are the caller's",
            "    axes: str | None = None  # a reduction's axes arg: the reference takes the axes, their count and h",
            "    refuses_empty: bool = False  # a mean: no elements have no value",
            "    moved: tuple[str, ...] | None = None  # a move's outputs that carry the type (the op's own code runs)",
            "    kept: bool = False  # a clamp's: the result keeps the input's attributes",
            "", "", quantize_multiplier_source(), "", inspect.getsource(F.headroom), "",
            f"#: Why a mean refuses no elements (dsl.fixed_point.EMPTY_MEAN).\nEMPTY_MEAN = {F.EMPTY_MEAN!r}",
            f"#: Why a move refuses tensors of other attributes (dsl.fixed_point.SAME_ATTRIBUTES).\n"
            f"SAME_ATTRIBUTES = {F.SAME_ATTRIBUTES!r}",
            "#: The ops whose kernels read a D tensor's per-axis scales (ADR 0069, 0071): by op, the tensors that",
            "#: may carry them and the axis they must run along (None: any; -1: the last, the result's columns),",
            "#: and who they are, in words.",
            f"PER_AXIS: dict[str, dict[str, int | None]] = {per_axis!r}", f"PER_AXIS_TAKERS = {takers!r}", "", "",
            *sources, "",
            "KERNELS = {" + ",\n    ".join(entries) + "}", ""]
