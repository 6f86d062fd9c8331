"""What a unit declares for an op: options, hidden values, output type and shape.

A unit hands its fragments plain integers (Imaginet style), so every tensor
is described to the C adapter by its rank and eight dimension values, and
the adapter rebuilds the descriptors and calls the op's checked API
function. Reductions take one ``axis`` (Imaginet's convention for reducing
units) instead of a list of axes (ADR 0013). Every option that names an axis
counts as Imaginet's axes do: 0 the innermost, -1 the outermost (ADR 0030);
``numpy_<name>`` is the NumPy axis the shapes, the adapter and the wrapper take.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import attrs

from dsl import compute as C
from dsl import defaults
from dsl import expr as E
from dsl.model import Arg, Input, Op, Output
from dsl.dtypes import BITS, SYSTEM_TYPE, primary_input
from dsl.types import CONCRETE_DTYPES, DataType
from generators import abi
from dsl import shapes as S
from generators.imunit.render import expression_string
from generators.imunit.shapes import UnitShapeRenderer
from generators.imunit.variants import variants_of

VALUE_TYPE = {dtype: f"System.{name}" for dtype, name in SYSTEM_TYPE.items()}
MAX_RANK = abi.MAX_RANK
#: Sockets a unit gives a tensor list (Imaginet has no variadic sockets): the first
#: ``count.low`` are required, the rest optional and connected in order.
LIST_SOCKETS = 4


def sockets(i: Input) -> list[str]:
    """The input sockets of an input: its name, or ``<name>0..`` for a tensor list."""
    if i.count.is_single:
        return [i.name]
    n = max(i.count.low, min(LIST_SOCKETS, i.count.high or LIST_SOCKETS))
    return [f"{i.name}{k}" for k in range(n)]


def output_sockets(o: Output) -> list[str]:
    """The output sockets of an output: its name, or ``<name>0..`` for a list output,
    each there while the list has a tensor for it (``PART_COUNT``)."""
    return [o.name] if o.count.is_single else [f"{o.name}{k}" for k in range(LIST_SOCKETS)]


#: The hidden value holding how many tensors a list output has.
PART_COUNT = "part_count"

#: The element type of a unit's index output (an arg reduction's): Int16, as the real Argmax
#: and Argmin give; the unit refuses an axis longer than it counts. The seed style keeps the
#: C API's Int64.
INDEX_DTYPE = "int16"


def index_output(op: Op, out: Output | None = None, legacy: bool = False) -> bool:
    """Whether ``out`` (the first output by default) holds indices of :data:`INDEX_DTYPE`."""
    return not legacy and isinstance(op.compute, C.ArgReduction) and (out is None or out is op.outputs[0])


def first_tensor(op: Op) -> str:
    """The socket whose type chooses the unit's implementation: the first of the input whose dtype
    chooses the op's variant (``dtypes.primary_input``: where's x, not its condition)."""
    return sockets(primary_input(op))[0]  # type: ignore[arg-type]


def list_count(i: Input) -> str:
    """How many tensors of a list are connected."""
    names = sockets(i)
    return " + ".join([str(i.count.low)] + [f"({s} != null ? 1 : 0)" for s in names[i.count.low:]])


@attrs.frozen
class Option:
    element: str  # Int32Option, DoubleOption, BoolOption, StringOption, ShapeOption
    name: str
    description: str
    default: str | None
    one_of: tuple[str, ...] = ()
    minimum: str | None = None
    maximum: str | None = None


@attrs.frozen
class Hidden:
    name: str
    value: str


def is_reduction(op: Op) -> bool:
    return isinstance(op.compute, C.Reduction)


def reduction_axes_arg(op: Op) -> str | None:
    return op.compute.axes if is_reduction(op) else None  # type: ignore[union-attr]


def choose(cases: list[tuple[str, str]], last: str) -> str:
    """``c1 ? v1 : (c2 ? v2 : last)``: the grammar's ternary binds left, so nest explicitly."""
    text = last
    for condition, value in reversed(cases):
        text = f"({condition}) ? {value} : ({text})"
    return text


def _number(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


def _bounds(op: Op, arg: Arg) -> tuple[str | None, str | None]:
    """min/max from constraints of the form ``arg >= c`` (or ``>``, ``<=``, ``<``), alone or in an all_of."""
    from dsl import expr as E

    low = high = None
    terms = []
    for _, c in op.all_constraints():
        terms += list(c.expr.terms) if isinstance(c.expr, E.AllOf) else [c.expr]
    for t in terms:
        if not (isinstance(t, E.Compare) and isinstance(t.left, E.ParamRef) and t.left.name == arg.name
                and isinstance(t.right, E.Literal) and isinstance(t.right.value, (int, float))
                and not isinstance(t.right.value, bool)):
            continue
        v = t.right.value
        if t.op in (">=", ">") and arg.type in (DataType.INT, DataType.LONG):
            low = str(v if t.op == ">=" else v + 1)
        elif t.op in ("<=", "<") and arg.type in (DataType.INT, DataType.LONG):
            high = str(v if t.op == "<=" else v - 1)
        elif t.op == ">=":
            low = repr(float(v))
        elif t.op == "<=":
            high = repr(float(v))
    return low, high


def _defaulted(op: Op) -> list[Arg]:
    """Args whose default a unit computes: from another arg or an input's shape or type (a
    default from an output has nothing to read in a unit, which makes its outputs: required)."""
    return [a for a in op.args if defaults.is_computed(a) and not defaults.reads_output(a.default)]  # type: ignore[arg-type]


_NUMPY_AXIS_WORDS = re.compile(r";\s*(negative counts from the last( one)?|-1 makes it the last)$")


@functools.lru_cache(maxsize=None)
def axis_options(op: Op) -> dict[str, Any]:
    """The unit's options that name one axis, each with the rank (a size node) it counts in:
    a reduction's one ``axis``, and each single arg the form bounds with ``in_range``
    (once per op: every arg a unit reads asks, through :func:`value`; read, never changed)."""
    found: dict[str, Any] = {}
    if reduction_axes_arg(op) is not None:
        found["axis"] = S.rank(op.compute.input)  # type: ignore[union-attr]
    computed = {a.name for a in _defaulted(op)}
    for name, extent in S.axis_extents(op.compute.refusals(op)).items():
        arg = next((a for a in op.args if a.name == name), None)
        if arg is not None and arg.count.is_single and name not in computed and arg.default is not None:
            found[name] = extent
    return found


def numpy_axis(name: str) -> str:
    """The Expression holding the NumPy axis of axis option ``name``."""
    return f"numpy_{name}"


def imaginet_axis(numpy: int) -> int:
    """A NumPy axis as Imaginet counts it, for any rank: -1 (the last) is 0, 0 (the first) is -1."""
    return -numpy - 1


def value(op: Op, name: str) -> str:
    """What a unit reads for arg ``name``: the option, for a computed default the
    expression ``<name>_value`` (the option when ``use_<name>``, else the default), for an
    axis the NumPy axis ``numpy_<name>``."""
    if any(a.name == name for a in _defaulted(op)):
        return f"{name}_value"
    return numpy_axis(name) if name in axis_options(op) else name


def _default_values(op: Op) -> list[Hidden]:
    """``<name>_value`` of each arg with a computed default, in the order they read each other."""
    chosen = {a.name for a in _defaulted(op)}
    out = []
    for a in defaults.fill_order(op):
        if a.name not in chosen:
            continue
        d, source = a.default, defaults.source(a.default)  # type: ignore[arg-type]
        if isinstance(d, E.ShapeOf):
            fallback = f"{source.name}.shape"
        elif isinstance(d, E.DataTypeOf):
            fallback = choose([(f"{source.name}.type == {VALUE_TYPE[t]}", f'"{t}"') for t in abi.DTYPES[:-1]],
                              f'"{abi.DTYPES[-1]}"')
        else:
            fallback = value(op, source.name)
        out.append(Hidden(f"{a.name}_value", f"use_{a.name} ? {a.name} : ({fallback})"))
    return out


def options(op: Op) -> list[Option]:
    out: list[Option] = []
    axes = reduction_axes_arg(op)
    computed = {a.name for a in _defaulted(op)}
    for a in op.args:
        if a.name == axes:
            out.append(Option("Int32Option", "axis", "Axis to reduce: 0 is the innermost, -1 the outermost", "0",
                              (), str(-MAX_RANK), str(MAX_RANK - 1)))
            continue
        if a.name in axis_options(op):
            default = str(imaginet_axis(a.default)) if isinstance(a.default, int) else None
            # The op's words say how NumPy counts (for the other targets): say how the unit does.
            words = _NUMPY_AXIS_WORDS.sub("", a.description)
            out.append(Option("Int32Option", a.name, f"{words}; 0 is the innermost axis, -1 the outermost",
                              default, (), str(-MAX_RANK), str(MAX_RANK - 1)))
            continue
        if a.name in computed:  # the option counts when use_<name> is set; else the default does
            out.append(Option("BoolOption", f"use_{a.name}",
                              f"Give {a.name} (else it is {defaults.describe(a.default)})", "false"))  # type: ignore[arg-type]
        low, high = _bounds(op, a)
        default = a.default
        if not a.count.is_single:
            text = None if not isinstance(default, tuple) else "[" + ",".join(str(v) for v in default) + "]"
            out.append(Option("ShapeOption", a.name, a.description, text))
        elif a.default is None:
            out.append(Option("BoolOption", f"use_{a.name}", f"Give {a.name} (else it is None)", "false"))
            out.append(Option("DoubleOption" if a.type in (DataType.FLOATING_POINT, DataType.NUMERIC) else
                              "Int32Option", a.name, a.description, None, (), low, high))
        elif a.type is DataType.ENUM:
            out.append(Option("StringOption", a.name, a.description, default if isinstance(default, str) else None,
                              a.possible_values))
        elif a.type is DataType.DATA_TYPE:  # (the dtypes the unit implements, where the arg picks the variant)
            dtypes = tuple(v.dtype for v in variants_of(op)) if C.dtype_from_arg(op.compute) else CONCRETE_DTYPES
            out.append(Option("StringOption", a.name, a.description, default if isinstance(default, str) else None,
                              dtypes))
        elif a.type is DataType.STRING:
            out.append(Option("StringOption", a.name, a.description, default if isinstance(default, str) else None))
        elif a.type is DataType.BOOLEAN:
            out.append(Option("BoolOption", a.name, a.description, _number(default) if a.has_default else None))
        elif a.type in (DataType.INT, DataType.LONG):
            out.append(Option("Int32Option", a.name, a.description,
                              _number(default) if isinstance(default, int) else None, (), low, high))
        else:
            out.append(Option("DoubleOption", a.name, a.description,
                              _number(float(default)) if isinstance(default, (int, float)) else None, (), low, high))
    for cfg in op.configs:
        for a in cfg.args:
            out.append(Option("Int32Option" if a.type in (DataType.INT, DataType.LONG) else "DoubleOption",
                              f"{cfg.name}_{a.name}", a.description,
                              _number(a.default) if isinstance(a.default, (int, float)) else None))
    return out


def dims(name: str, shape: str, length: int = MAX_RANK) -> list[Hidden]:
    """``<name>_rank`` and ``<name>_d0..d<length - 1>`` (NumPy order, 1 past the rank)."""
    out = [Hidden(f"{name}_rank", f"{shape}.count")]
    for k in range(length):
        out.append(Hidden(f"{name}_d{k}", f"{shape}.count > {k} ? {shape}.size({shape}.count - {k + 1}) : 1"))
    return out


@functools.lru_cache(maxsize=None)
def axis_hidden(op: Op) -> tuple[tuple[Hidden, ...], dict[str, str]]:
    """(the Expressions giving each axis option's NumPy axis, and each one's rank as text;
    once per op: the hidden values and the contracts both read them)."""
    render = shape_renderer(op, "axis_rank")
    ranks = {name: render.render(extent) for name, extent in axis_options(op).items()}
    out = [Hidden(n, v) for n, v in render.hidden]
    out += [Hidden(numpy_axis(name), f"{name} >= 0 ? ({rank}) - 1 - {name} : -1 - {name}")
            for name, rank in ranks.items()]
    return tuple(out), ranks


def hidden(op: Op, adapter: bool = True) -> list[Hidden]:
    """The unit's Expressions: the values its shapes and kernels read and, with ``adapter``,
    what the C adapter takes besides tensors and plain options (the tensors' dims)."""
    out: list[Hidden] = list(axis_hidden(op)[0])
    for i in op.inputs:
        if not i.count.is_single:  # each socket (0 dims when unconnected), then the count
            for s in sockets(i)[:i.count.low] if adapter else ():
                out += dims(s, f"{s}.shape")
            for s in sockets(i)[i.count.low:] if adapter else ():
                out += [Hidden(h.name, f"{s} == null ? {0 if h.name.endswith('_rank') else 1} : ({h.value})")
                        for h in dims(s, f"{s}.shape")]
            out.append(Hidden(f"{i.name}_count", list_count(i)))  # (the shapes read it too)
            continue
        if not adapter:
            continue
        out += dims(i.name, f"{i.name}.shape")
        if i.name in C.own_dtype_inputs(op):  # any type: the adapter is told which
            out.append(Hidden(f"{i.name}_dtype_index", choose(
                [(f"{i.name}.type == {VALUE_TYPE[d]}", str(abi.DTYPE_VALUE[d])) for d in abi.DTYPES[:-1]],
                str(abi.DTYPE_VALUE[abi.DTYPES[-1]]))))
    out += _default_values(op)
    for a in op.args:
        if a.type is DataType.ENUM:
            values = a.possible_values
            out.append(Hidden(f"{a.name}_index", choose([(f"{a.name} == {expression_string(v)}", str(k)) for k, v in
                                                          enumerate(values[:-1])], str(len(values) - 1))))
        elif a.type is DataType.DATA_TYPE and adapter:  # (a plain kernel is one dtype's: none reads it)
            chosen = [(f'{value(op, a.name)} == "{d}"', str(abi.DTYPE_VALUE[d])) for d in abi.DTYPES[:-1]]
            out.append(Hidden(f"{a.name}_index", choose(chosen, str(abi.DTYPE_VALUE[abi.DTYPES[-1]]))))
        elif adapter and not a.count.is_single and a.name != reduction_axes_arg(op):
            out += dims(a.name, value(op, a.name), list_length(op, a))
    if abi.has_workspace(op):  # the kernel's scratch: a tensor of the unit, sized from the inputs
        out.append(Hidden("workspace_count", shape_renderer(op, "workspace").render(op.compute.workspace)))  # type: ignore[union-attr]
        out.append(Hidden("workspace", "System.Tensor(System.Float64, workspace_count > 0 ? workspace_count : 1)"))
    said = declared(op)
    out += said.hidden
    if said.part_count is not None:
        out.append(Hidden(PART_COUNT, said.part_count))
    out.append(Hidden("output_shape", said.shapes[0]))
    return out + (dims("output", "output_shape") if adapter else [])


def output_type(op: Op, out: Output | None = None, legacy: bool = False) -> str:
    """The value type of an output (the first by default)."""
    if index_output(op, out, legacy):
        return VALUE_TYPE[INDEX_DTYPE]
    out = out or op.outputs[0]
    c = op.compute
    if C.dtype_from_arg(c):
        variants = [v.dtype for v in variants_of(op)]
        dtype = value(op, "dtype")
        return choose([(f'{dtype} == "{d}"', VALUE_TYPE[d]) for d in variants[:-1]], VALUE_TYPE[variants[-1]])
    fixed = dict(getattr(c, "fixed_dtypes", ()))  # (a format's codes: one dtype in every variant)
    if out.name in fixed:
        return VALUE_TYPE[fixed[out.name]]
    if out.type is DataType.BOOLEAN:
        return "System.Bool"
    if out.type is DataType.LONG:
        return "System.Int64"
    first = primary_input(op)
    return f"{first_tensor(op)}.type" if first.type is out.type else VALUE_TYPE["float64"]  # type: ignore[attr-defined]


def list_length(op: Op, arg: Arg) -> int:
    """How many values of a list arg a unit passes on: pad's paddings hold two per axis."""
    c = op.compute
    if isinstance(c, C.LayoutMove) and c.layout == "pad" and arg.name == c.arg("paddings"):
        return 2 * MAX_RANK
    return MAX_RANK


def further_output_shape(op: Op, k: int) -> str:
    """The shape of output ``k`` (1 or more), as its form says."""
    return declared(op).shapes[k]


@attrs.frozen
class Declared:
    """What a unit declares from its op's form (ADR 0029): the hidden values its shapes and
    refusals are built in, each output's shape, a list output's count, and the refusals as
    (test, error) Asserts."""

    hidden: tuple[Hidden, ...]
    shapes: tuple[str, ...]
    part_count: str | None
    asserts: tuple[tuple[str, str], ...]


def shape_renderer(op: Op, prefix: str = "shape", name_sizes: bool = False) -> UnitShapeRenderer:
    """How a unit reads its op's parameters in shape expressions (``name_sizes``: the caller
    declares the renderer's hidden values, sizes among them)."""
    lists = {i.name: i for i in op.inputs if not i.count.is_single}
    return UnitShapeRenderer(op, prefix, value=lambda name: value(op, name),
                             sockets=lambda name: sockets(lists[name]) if name in lists else [name],
                             count=lambda name: f"{name}_count", single_axis=reduction_axes_arg(op),
                             single_axis_value=numpy_axis("axis"), axis_options=axis_options(op),
                             name_sizes=name_sizes)


@functools.lru_cache(maxsize=None)
def declared(op: Op) -> Declared:
    c = op.compute
    render = shape_renderer(op, name_sizes=True)
    shapes, count = [], None
    for shape in c.output_shapes(op):
        if isinstance(shape, S.Tensors):  # a list output: every tensor of one shape, and how many
            count = render.render(shape.count)
            shape = shape.shape
        shapes.append(render.shape(shape))
    asserts = []
    for refusal in c.refusals(op):
        read = {r.name for r in S.refs(refusal.condition) if r.kind == "input"}
        tensors = [i.name for i in op.inputs if i.name in read and i.count.is_single]  # (in the op's order)
        message = refusal.message.replace("{", "(").replace("}", ")")
        if tensors:
            message += " (" + ", ".join(f"{t}: {{{t}.shape}}" for t in tensors) + ")"
        test = render.render(refusal.condition)
        if test != "true":  # (a refusal a unit cannot meet: one axis is never listed twice)
            asserts.append((test, message))
    read = render.hidden_read_by([*shapes, count or "", *(test for test, _ in asserts)])
    return Declared(tuple(Hidden(n, v) for n, v in read), tuple(shapes), count, tuple(asserts))


def contracts(op: Op, legacy: bool = False) -> list[tuple[str, str]]:
    """(test, error) per Assert: the op's constraints, then the unit's own rules."""
    render = shape_renderer(op, "constraint").render
    out = []
    for cfg, c in op.all_constraints():
        if c.backend:
            continue
        tensors = list(dict.fromkeys(r.name for r in _refs(c.expr) if r.kind == "input"))
        message = c.message.replace("{", "(").replace("}", ")")
        if tensors:
            message += " (" + ", ".join(f"{t}: {{{t}.shape}}" for t in tensors) + ")"
        out.append((render(c.expr), message))
    c = op.compute
    if isinstance(c, C.Reduction):  # a unit reduces one axis (ADR 0013); an arg reduction's form says so
        out.append((f"{c.input}.shape.count >= 1", f"{c.input} must have rank 1 or more"))
    if index_output(op, legacy=legacy):  # every index of the axis (and -1) as INDEX_DTYPE
        axis, x, most = c.axis, f"{c.input}.shape", 2 ** (BITS[INDEX_DTYPE] - 1)  # type: ignore[union-attr]
        out.append((f"!({axis} >= -{x}.count && {axis} < {x}.count) || {x}.size({axis}) <= {most}",
                    f"{axis}: a unit gives {VALUE_TYPE[INDEX_DTYPE][len('System.'):]} indices, of at most "
                    f"{most} elements along the axis ({c.input}: {{{c.input}.shape}})"))
    for name, rank in axis_hidden(op)[1].items():  # before the form's own checks, which read numpy_<name>
        out.insert(0, (f"{name} >= -({rank}) && {name} < ({rank})",
                       f"{name}: out of range: 0 is the innermost axis, -1 the outermost ({name}: {{{name}}})"))
    out += declared(op).asserts
    for i in op.inputs:
        names = sockets(i)
        if i.count.is_single:
            continue
        for k in range(i.count.low + 1, len(names)):
            out.append((f"{names[k]} == null || {names[k - 1]} != null",
                        f"connect {i.name} in order: {names[k]} needs {names[k - 1]}"))
        # The adapter types every socket as the first one: another type must be refused here.
        for k in range(1, len(names)):
            out.append((f"{names[k]} == null || {names[k]}.type == {names[0]}.type",
                        f"{names[k]} must have the type of {names[0]} ({{{names[0]}.type}})"))
    if isinstance(c, C.Parts):
        listed = next(o for o in op.outputs if o.name == c.outputs)
        out.append((f"{PART_COUNT} <= {LIST_SOCKETS}",
                    f"a unit gives at most {LIST_SOCKETS} tensors of {listed.name}, these inputs give {{{PART_COUNT}}}"))
    return out


def _refs(expr: E.Expr) -> tuple[E.ParamRef, ...]:
    return E.param_refs(expr)
