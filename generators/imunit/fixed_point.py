"""What a unit declares for its fixed-point kernels (ADR 0038): the types' Conditionals, the
per-call values and the output's attributes as Expressions (or the caller's options), a table's
Handle and Init, the moves' Implementations, and the Python implementation of each family.

The kernels and their attribute trees come from :mod:`dsl.fixed_point` through the C emitter
(``PlainKernel.fixed_point``); this module only renders them in Imaginet's terms: a tree over
``<input>_shift`` becomes an expression over ``<input>.shift`` (authoring guide 11.3, 11.4).
"""

from __future__ import annotations

from typing import Mapping, Sequence

from dsl import compute as C
from dsl import dtypes as D
from dsl import fixed_point as F
from dsl.model import Op
from dsl.scalar import SCall, SConst, SExpr, SSym
from generators.imunit import plain, units
from generators.kernels import c_emit
from generators.kernels import fixed_point as R

#: Imaginet's spelling of the functions an attribute tree calls: infix, or Math's.
_INFIX = {"add": "+", "sub": "-", "mul": "*"}
_MATH = {"maximum": "Math.max", "minimum": "Math.min"}


def expression(tree: SExpr, sizes: Mapping[str, str] | None = None) -> str:
    """An attribute tree (over ``<tensor>_shift``, and the kernel's sizes, which ``sizes`` names
    as the unit's Expressions) in Imaginet's expression language."""
    sizes = sizes or {}
    if isinstance(tree, SConst):  # (a shift's integers; a clamp's real bounds and factors)
        return str(tree.value) if isinstance(tree.value, float) else str(int(tree.value))
    if isinstance(tree, SSym) and tree.name in sizes:
        return sizes[tree.name]
    if isinstance(tree, SSym):
        tensor, _, attribute = tree.name.rpartition("_")
        if not tensor or attribute not in ("shift", "scale", "offset"):
            raise ValueError(f"{tree.name}: not a tensor's attribute")
        return f"{tensor}.{attribute}"
    assert isinstance(tree, SCall), tree
    args = [expression(a, sizes) for a in tree.args]
    if tree.fn == "headroom" and len(args) == 1:  # (F.headroom: ceil(log2 n), 0 up to 1; null: no size yet)
        n = args[0]
        return f"({n} == null ? 0 : {n} > 1 ? {n}.log2.ceil : 0)"
    if tree.fn in _INFIX and len(args) == 2:
        return f"({args[0]} {_INFIX[tree.fn]} {args[1]})"
    if tree.fn in _MATH and len(args) == 2:
        return f"{_MATH[tree.fn]}({args[0]}, {args[1]})"
    if tree.fn == "neg" and len(args) == 1:
        return f"(-{args[0]})"
    if tree.fn in _SPELLED:
        return _SPELLED[tree.fn].format(*args)
    raise ValueError(f"{tree.fn}: no Imaginet spelling")


#: Imaginet's spelling of the functions a conversion from real values calls (a clamp's bounds, a
#: logarithm's constants and output shift): ``round`` rounds half to even (.NET's Math.Round), ``pow``
#: of 2 is exact, a NaN differs from itself, ``log2`` is bare only (the guide).
_SPELLED = {"div": "({} / {})", "pow": "pow({}, {})", "round_half_even": "round({})", "isnan": "({0} != {0})",
            "where": "({} ? {} : {})", "floor": "floor({})", "ceil": "ceil({})", "log": "log({})",
            "ilog2": "floor(log2({}))"}


def conversion_expression(conversion: F.Conversion, names: Mapping[str, str]) -> str:
    """A conversion to a stored integer (a clamp's bound: :func:`dsl.fixed_point.clamp`) in
    Imaginet's expression language, its symbols the tensors' attributes and ``names`` (the args'
    options): the value, then cast's rule (truncated toward zero, saturated; a NaN is refused
    before, by the unit's contract)."""
    assert not conversion.lets and conversion.storage is not None, conversion
    value = expression(conversion.value, names)
    t = next((t for t in F.TYPES.values() if t.storage == conversion.storage), None)
    if t is None:  # (a comparison's bound, int64: its tree keeps it one past the type's ends)
        return f"trunc({value})"
    return f"Math.max(Math.min(trunc({value}), {t.highest}), {t.lowest})"


def sizes(kernel: c_emit.PlainKernel) -> dict[str, str]:
    """The kernel's sizes as its geometry's Expressions name them (``size``: ``axis_size``)."""
    return {size: name for size, name, _, _ in plain.GEOMETRIES[kernel.geometry].sizes}


def of(kernels: Sequence[c_emit.PlainKernel]) -> list[c_emit.PlainKernel]:
    return [k for k in kernels if k.fixed_point]


def system_type(kernel: c_emit.PlainKernel) -> str:
    return f"System.{F.TYPES[kernel.fixed_point].system}"


def conditions(op: Op, kernel: c_emit.PlainKernel) -> list[str]:
    """Every input socket of the kernel's type (the stored values the kernel reads)."""
    return [f"{i.name}.type == {system_type(kernel)}" for i in op.inputs]


def expressions(op: Op, kernels: Sequence[c_emit.PlainKernel]) -> list[dict[str, str]]:
    """The per-call values the fixed-point kernels take, each once: one Expression where every type
    computes it alike, else chosen by the input's type (a clamp's stored bounds, which each type
    converts by its own rule; a dense layer's bias_k, which counts each type's fraction bits)."""
    values: dict[str, dict[str, str]] = {}
    args = {a.name: units.value(op, a.name) for a in op.args}
    for kernel in of(kernels):
        derived = F.derive(op, F.TYPES[kernel.fixed_point])
        names = log_names(op, derived) if isinstance(derived, (F.Log, F.DLog)) else args
        for name, tree in kernel.per_call:
            value = (conversion_expression(tree, names) if isinstance(tree, F.Conversion) else
                     names[name] if name == F.LOG_FACTOR else expression(tree, sizes(kernel)))
            values.setdefault(name, {})[system_type(kernel)] = value
    out = []
    # (the converted values after the others: they read the args' options; a type without the value,
    # a float input's, gives 0, never read)
    ordered = sorted(values.items(), key=lambda item: _converted(kernels, item[0]))
    for name, by_type in ordered:
        alike = len(set(by_type.values())) == 1 and not _converted(kernels, name)
        out.append({"name": name, "value": next(iter(by_type.values())) if alike
                    else by_input_type(units.first_tensor(op), by_type)})
    return out


def _converted(kernels: Sequence[c_emit.PlainKernel], name: str) -> bool:
    """Whether the per-call value ``name`` is a conversion to a stored value (a clamp's bound): its
    Expression is always chosen by the input's type (a float input's 0)."""
    return any(isinstance(tree, F.Conversion) for k in of(kernels) for n, tree in k.per_call if n == name)


def log_names(op: Op, derived: F.Log | F.DLog) -> dict[str, str]:
    """What a logarithm's constants read, as the unit's Expressions (ADR 0046): the args' options,
    a Q output's shift by its rule, and the factor of the case the ``use_<arg>`` options choose."""
    names = {a.name: units.value(op, a.name) for a in op.args}
    if isinstance(derived, F.Log):
        names["output_shift"] = expression(derived.output_shift)
    factor = ""
    for given, tree in reversed(derived.factors):  # (the first case's test outermost)
        presence = op.compute.presence(given)  # type: ignore[union-attr]
        test = " && ".join(f"use_{p} == {'true' if set_ else 'false'}" for p, set_ in presence)
        value = expression(tree, names)
        factor = value if not factor or not test else f"({test} ? {value} : {factor})"
    names[F.LOG_FACTOR] = factor
    return names


def by_input_type(x: str, values: Mapping[str, object], otherwise: str = "0") -> str:
    """An expression whose value is ``values``' for the type of socket ``x`` (by System type
    name), else ``otherwise``: a chain of conditionals, the first type's outermost."""
    chosen = otherwise
    for system, value in reversed(values.items()):
        chosen = f"{x}.type == {system} ? {value} : ({chosen})"
    return chosen


def clamp_contracts(op: Op, kernels: Sequence[c_emit.PlainKernel]) -> list[tuple[str, str]]:
    """A clamp's bounds must be numbers for its fixed-point types (``CLAMP_NAN``): no stored
    value holds a NaN."""
    clamps = {k.fixed_point: d for k in of(kernels) if isinstance(d := F.derive(op, F.TYPES[k.fixed_point]), F.Clamp)}
    if not clamps:
        return []
    x = units.first_tensor(op)
    types = " || ".join(sorted(f"{x}.type == System.{F.TYPES[t].system}" for t in clamps))
    read = dict.fromkeys(a for d in clamps.values() for a in d.args)
    return [(f"!({types}) || {units.value(op, a)} == {units.value(op, a)}",
             F.CLAMP_NAN.format(name=a, type=f"{{{x}.type}}")) for a in read]


def output_attributes(op: Op, kernels: Sequence[c_emit.PlainKernel]) -> dict[str, str]:
    """The output socket's attributes (``shift``, ``scale``, ``offset``), each an Expression's name
    with its value: the form's rule where a kernel derives the attribute, the caller's option where
    it chooses it (:func:`chosen_attributes`), by the input's type where the types differ (log: Q15
    and Q31 derive the shift, Q7's table takes out_shift)."""
    derived: dict[str, dict[str, str]] = {}
    for kernel in of(kernels):
        for attribute, tree in kernel.output_attributes:  # (over attributes and per-call values)
            value = expression(tree, sizes(kernel) | {name: name for name, _ in kernel.per_call})
            derived.setdefault(attribute, {})[system_type(kernel)] = value
    chosen = chosen_attributes(op, kernels)
    found = {}
    for attribute, values in derived.items():
        if len(set(values.values())) == 1 and attribute not in chosen:
            found[attribute] = next(iter(values.values()))
        else:
            found[attribute] = by_input_type(units.first_tensor(op), values, chosen.get(attribute, "0"))
    return found | {a: v for a, v in chosen.items() if a not in found}


def moved_types(op: Op) -> list[F.FixedPointType]:
    """The types whose stored values the op moves unchanged (``kernels.fixed_point.moves``)."""
    return R.moves(op)


def moved_conditions(op: Op, variant: D.Variant, t: F.FixedPointType) -> list[str]:
    """Each input socket of the type's storage in ``variant`` is of the type (indices keep theirs)."""
    tests = []
    for i in op.inputs:
        if i.name in C.own_dtype_inputs(op) or variant.of(i.name) != t.storage:
            continue
        for k, socket in enumerate(units.sockets(i)):
            test = f"{socket}.type == System.{t.system}"
            tests.append(f"({socket} == null || {test})" if not i.count.is_single and k >= i.count.low else test)
    return tests


def moved_attributes(op: Op) -> dict[str, str]:
    """The output's attributes of a move: the first tensor's (an index output has none)."""
    if not moved_types(op) or units.index_output(op):
        return {}
    first = units.first_tensor(op)
    return {a: f"{first}.{a}" for a in dict.fromkeys(a for t in moved_types(op) for a in t.attributes)}


def moved_contracts(op: Op) -> list[tuple[str, str]]:
    """The tensors a move combines (a join's, set_diag's diagonal) hold one type's attributes:
    their stored values then mean the same."""
    if not moved_types(op):
        return []
    first = units.first_tensor(op)
    data = [s for i in op.inputs if i.name not in C.own_dtype_inputs(op) for s in units.sockets(i)][1:]
    attributes = list(dict.fromkeys(a for t in moved_types(op) for a in t.attributes))
    return [(f"{s} == null || ({' && '.join(f'{s}.{a} == {first}.{a}' for a in attributes)})",
             f"{s} and {first} must have the same fixed-point attributes ({s}: {{{s}.type}}, {first}: {{{first}.type}})")
            for s in data]


#: The options a unit with D kernels takes for its output (0: the first input's scale and offset).
_CHOSEN = {"shift": units.Option("Int32Option", "out_shift", "Shift of a Q output", "0"),
           "scale": units.Option("DoubleOption", "out_scale", "Scale of a D output (0: the first input's scale and "
                                 "offset)", "0", minimum="0"),
           "offset": units.Option("Int32Option", "out_offset", "Offset of a D output whose scale is given", "0")}


def chosen_options(kernels: Sequence[c_emit.PlainKernel]) -> list[units.Option]:
    """The options of the output's attributes the caller chooses (a D output's)."""
    return [_CHOSEN[a] for a in dict.fromkeys(a for k in of(kernels) for a in k.chosen)]


def chosen_attributes(op: Op, kernels: Sequence[c_emit.PlainKernel]) -> dict[str, str]:
    """Each chosen attribute's Expression (``output_scale``): the option's, else the first input's
    (a Q shift: the option's for the types whose kernels choose it, else 0)."""
    chosen = list(dict.fromkeys(a for k in of(kernels) for a in k.chosen))
    first = units.first_tensor(op) if chosen else ""
    q_types = " || ".join(sorted({f"{first}.type == {system_type(k)}" for k in _of_family(kernels, "Q")
                                  if "shift" in k.chosen}))
    return {a: f"{q_types} ? out_shift : 0" if a == "shift" else f"out_scale == 0 ? {first}.{a} : {_CHOSEN[a].name}"
            for a in chosen}


def _table_arg(op: Op, name: str) -> str:
    """What a unit passes a table's fill for arg ``name``: its option, an enum's index
    (``<name>_index``, as the fill compares it)."""
    return f"{name}_index" if name in op.enums else units.value(op, name)


def init_args(op: Op, kernel: c_emit.PlainKernel) -> list[str]:
    """What a table's fill is passed: the Handle, the attributes' Expressions, the args' options."""
    args = {a.name for a in op.args}
    return [_table_arg(op, source) if source in args else source for _, source in kernel.init_parameters]


def table_contracts(op: Op, kernels: Sequence[c_emit.PlainKernel]) -> list[tuple[str, str]]:
    """A Q table is filled for the input's and the output's shifts: each must be one the type
    allows (``FixedPointType.shifts``: its factor a normal float), else the table means nothing."""
    tables = [k for k in of(kernels) if k.init is not None and F.TYPES[k.fixed_point].family == "Q"]
    x, out = (units.first_tensor(op) if tables else ""), []
    chosen = {k.fixed_point for k in tables if "shift" in k.chosen}  # (a softmax's output shift is 0)
    for name in dict.fromkeys(k.fixed_point for k in tables):  # (a type's tables of several cases: once)
        t = F.TYPES[name]
        low, high = t.shifts().start, t.shifts().stop - 1
        for what, value in ((x, f"{x}.shift"), *((("out_shift", "out_shift"),) if name in chosen else ())):
            out.append((f"{x}.type != System.{t.system} || ({value} >= {low} && {value} <= {high})",
                        f"{what}: a {t.system} shift must be in {low}..{high} ({what}: {{{value}}})"))
    return out


def table_handle(op: Op, kernels: Sequence[c_emit.PlainKernel]) -> dict[str, str] | None:
    """The Handle a unit's table kernels fill in Init and read per call: as many bytes as the
    input's type needs (0 for a type without a table)."""
    tables = [k for k in of(kernels) if k.init is not None]
    if not tables:
        return None
    size = by_input_type(units.first_tensor(op), {system_type(k): k.table_bytes for k in tables})
    checked = (", which fails where a 16-bit table's interpolation misses the float reference by more than "
               f"{F.TABLE_BOUND} steps at some input (the op jumps, has a pole or leaves its domain between two "
               "knots)") if any(F.TYPES[k.fixed_point].bits == 16 for k in tables) else ""
    return {"name": "table", "size": size,
            "description": f"The lookup table of the fixed-point types, filled once by Init{checked}"}


def families(kernels: Sequence[c_emit.PlainKernel]) -> list[str]:
    """The fixed-point families the kernels compute ("Q", "D"): each has its own Python entry
    (their stored dtypes coincide: Q7 and D8 are both int8)."""
    return list(dict.fromkeys(F.TYPES[k.fixed_point].family for k in of(kernels)))


def _of_family(kernels: Sequence[c_emit.PlainKernel], family: str) -> list[c_emit.PlainKernel]:
    return [k for k in of(kernels) if F.TYPES[k.fixed_point].family == family]


def python_name(op: Op, family: str) -> str:
    return f"{op.name}_unit_{family.lower()}"


def python_conditional(op: Op, kernels: Sequence[c_emit.PlainKernel], family: str) -> str:
    """The Python entry's Conditional: the first input of one of the family's types."""
    return " || ".join(sorted({f"{op.inputs[0].name}.type == {system_type(k)}" for k in _of_family(kernels, family)}))


def _reduces(kernels: Sequence[c_emit.PlainKernel]) -> bool:
    return any(k.axis for k in of(kernels))


def python_params(op: Op, kernels: Sequence[c_emit.PlainKernel], family: str) -> list[str]:
    """The Python entry's parameters: the inputs, the per-call values, a reduction's NumPy axis
    (the unit's ``numpy_axis``), the outputs."""
    kernels = _of_family(kernels, family)
    per_call = list(dict.fromkeys([*(name for k in of(kernels) for name, _ in k.per_call),
                                   *(f"output_{a}" for k in of(kernels) for a in k.chosen)]))
    axis = [units.numpy_axis("axis")] if _reduces(kernels) else []
    return [*(i.name for i in op.inputs), *per_call, *table_args(op, kernels), *case_flags(kernels), *axis,
            *(o.name for o in op.outputs)]


def case_flags(kernels: Sequence[c_emit.PlainKernel]) -> list[str]:
    """The ``use_<arg>`` options that choose the case of a table of several (log's base)."""
    return list(dict.fromkeys(f"use_{p}" for k in of(kernels) if k.init is not None for p, _ in k.presence or ()))


def table_args(op: Op, kernels: Sequence[c_emit.PlainKernel]) -> list[str]:
    """The args a table's fill reads, as the unit passes them (its options)."""
    args = {a.name for a in op.args}
    return list(dict.fromkeys(_table_arg(op, source) for k in of(kernels) for _, source in k.init_parameters
                              if source in args))


def quantize_multiplier_fragment() -> list[str]:
    """TFLite's QuantizeMultiplier as the rules state it (``dsl.fixed_point``), its source itself."""
    return ['#pragma IMAGINET_FRAGMENT_BEGIN "quantize_multiplier"', R.quantize_multiplier_source(),
            "#pragma IMAGINET_FRAGMENT_END", "", ""]


def _table_cases_lines(op: Op, kernels: Sequence[c_emit.PlainKernel], t: F.FixedPointType, x: str) -> list[str]:
    """The table of the type's kernel, or of several (log's, with a base or not) the one the
    ``use_<arg>`` options choose, as the Init's Conditionals choose its fill."""
    cases = R.table_cases(op, t)
    if len(cases) == 1:
        return _table_lines(op, cases[0][2], t, x)
    lines: list[str] = []
    for k, (given, _, table) in enumerate(cases):
        presence = op.compute.presence(given)  # type: ignore[union-attr]
        cond = " and ".join(f"use_{p}" if set_ else f"not use_{p}" for p, set_ in presence) or "True"
        lines += [f"{'if' if k == 0 else 'elif'} {cond}:", *(f"    {line}" for line in _table_lines(op, table, t, x))]
    return lines


def _table_lines(op: Op, derived: F.Conversion | F.InterpolatedTable, t: F.FixedPointType, x: str) -> list[str]:
    """The table filled as the Init's C fills it (the args as the unit passes them), then read for
    every stored input."""
    tensors = (x, "output")
    args = {a.name: (f"np.float64({_table_arg(op, a.name)})", "float64") for a in op.args}
    if t.family == "Q":  # (each factor q_factor's: 2**(N - shift), a power of two, exact)
        env = {f"{n}_factor": (f"np.float64(2.0 ** ({t.fraction_bits} - {n}_shift))", "float64") for n in tensors}
    else:
        env = {f"{n}_{a}": (f"np.float64({n}_{a})", "float64") for n in tensors for a in ("scale", "offset")}
    return R.numpy_table(derived, t, x, env | args, x)


def python_fragment(op: Op, kernels: Sequence[c_emit.PlainKernel], family: str) -> str:
    """The Python implementation over the stored values of the family's types: each type's rule
    rendered for NumPy (the C kernels' own, bit for bit), chosen by the stored dtype."""
    kernels = _of_family(kernels, family)
    inputs = [i.name for i in op.inputs]
    params = python_params(op, kernels, family)
    per_call = params[len(inputs):len(params) - len(op.outputs) - (1 if _reduces(kernels) else 0)
                      - len(table_args(op, kernels)) - len(case_flags(kernels))]
    branches: list[str] = []
    for name in dict.fromkeys(k.fixed_point for k in of(kernels)):
        t = F.TYPES[name]
        derived = F.derive(op, t)
        if isinstance(derived, (F.QKernel, F.DKernel, F.Clamp, F.Log, F.DLog)):
            lines = R.numpy_elementwise_lines(derived, inputs, per_call)
        elif isinstance(derived, (F.QContraction, F.DContraction)):
            lines = R.numpy_contraction_lines(derived, inputs)
        elif isinstance(derived, (F.QDense, F.DDense)):
            lines = R.numpy_dense_lines(derived)
        elif isinstance(derived, F.Softmax):
            lines = R.numpy_softmax_lines(derived, t, units.numpy_axis("axis"))
        elif isinstance(derived, (F.Conversion, F.InterpolatedTable)):
            lines = _table_cases_lines(op, kernels, t, inputs[0])
        else:
            assert isinstance(derived, (F.QReduction, F.DReduction)), (op.qualified_name, name)
            axis = units.numpy_axis("axis")
            lines = R.numpy_reduction_lines(derived, inputs, axis, f"{inputs[0]}.shape[{axis}]", F.HEADROOM)
        branches += [f"    {'if' if not branches else 'elif'} {inputs[0]}.dtype == np.{t.storage}:  # {t.system}",
                     *(f"        {line}" for line in lines)]
    out = op.outputs[0].name
    return "\n".join([
        *(quantize_multiplier_fragment() if family == "D" else []),
        f'#pragma IMAGINET_FRAGMENT_BEGIN "{python_name(op, family)}"',
        '#pragma IMAGINET_FRAGMENT_DEPENDENCY "opforge_kernels"',
        *(['#pragma IMAGINET_FRAGMENT_DEPENDENCY "quantize_multiplier"'] if family == "D" else []),
        f"def {python_name(op, family)}({', '.join(params)}):",
        f'    """The unit\'s entry for {family} inputs: their stored values, computed as the C kernels do."""',
        "    with np.errstate(all='ignore'):",
        *("    " + b for b in branches),
        "        else:",
        f"            raise TypeError(f'unsupported stored dtype {{{inputs[0]}.dtype}}')",
        f"    np.copyto({out}, np.reshape(result, {out}.shape), casting='unsafe')",
        "#pragma IMAGINET_FRAGMENT_END", ""])


__all__ = ["conditions", "expression", "expressions", "families", "of", "output_attributes", "python_conditional",
           "python_fragment", "python_name", "python_params"]
