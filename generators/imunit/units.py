"""What a unit declares for an op: options, hidden values, output type and shape.

A unit hands its fragments plain integers (Imaginet style), so every tensor
is described to the C adapter by its rank and eight dimension values, and
the adapter rebuilds the descriptors and calls the op's checked API
function. Reductions take one ``axis`` (Imaginet's convention for reducing
units) instead of a list of axes (ADR 0013).
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from dsl import compute as C
from dsl import defaults
from dsl import expr as E
from dsl.model import Arg, Input, Op, Output
from dsl.types import CONCRETE_DTYPES, DataType
from generators import abi
from generators.imunit.render import ImaginetRenderer, expression_string
from generators.kernels.selection import variants_of

VALUE_TYPE = {"bool": "System.Bool", "int8": "System.Int8", "int16": "System.Int16", "int32": "System.Int32",
              "int64": "System.Int64", "uint8": "System.UInt8", "float32": "System.Float32",
              "float64": "System.Float64"}
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


def part_count(op: Op) -> str | None:
    """How many tensors the op's list output holds, or None without one."""
    c = op.compute
    if not isinstance(c, C.Parts):
        return None
    if c.part == "meshgrid":
        return f"{c.source}_count"
    if c.part == "split":
        return c.arg("num")
    x, axis = c.source, c.arg("axis")
    return f"({_axis_in_range(axis, x)}) ? {x}.shape.size({axis_from_right(axis, x)}) : 0"


def _axis_in_range(axis: str, x: str) -> str:
    """Whether ``axis`` names an axis of ``x``: expressions that read it stay defined when it does not."""
    return f"{axis} >= -{x}.shape.count && {axis} < {x}.shape.count"


def first_tensor(op: Op) -> str:
    """The unit's first tensor: its first input socket."""
    return sockets(op.inputs[0])[0]


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


def axis_from_right(axis: str, tensor: str) -> str:
    """Imaginet's axis (from the right) for a NumPy axis (negative allowed)."""
    return f"({axis} < 0 ? -{axis} - 1 : {tensor}.shape.count - 1 - {axis})"


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


def value(op: Op, name: str) -> str:
    """What a unit reads for arg ``name``: the option, or for a computed default the
    expression ``<name>_value`` (the option when ``use_<name>``, else the default)."""
    return f"{name}_value" if any(a.name == name for a in _defaulted(op)) else name


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
            out.append(Option("Int32Option", "axis", "Axis to reduce; negative counts from the last one", "-1"))
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
        elif a.type is DataType.DATA_TYPE:
            out.append(Option("StringOption", a.name, a.description, default if isinstance(default, str) else None,
                              CONCRETE_DTYPES))
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


def hidden(op: Op) -> list[Hidden]:
    """Values the C adapter takes besides tensors and plain options."""
    out: list[Hidden] = []
    for i in op.inputs:
        if not i.count.is_single:  # each socket (0 dims when unconnected), then the count
            for s in sockets(i)[:i.count.low]:
                out += dims(s, f"{s}.shape")
            for s in sockets(i)[i.count.low:]:
                out += [Hidden(h.name, f"{s} == null ? {0 if h.name.endswith('_rank') else 1} : ({h.value})")
                        for h in dims(s, f"{s}.shape")]
            out.append(Hidden(f"{i.name}_count", list_count(i)))
            continue
        out += dims(i.name, f"{i.name}.shape")
        if i.name in C.own_dtype_inputs(op):  # any type: the adapter is told which
            out.append(Hidden(f"{i.name}_dtype_index", choose(
                [(f"{i.name}.type == {VALUE_TYPE[d]}", str(k)) for k, d in enumerate(abi.DTYPES[:-1])],
                str(len(abi.DTYPES) - 1))))
    out += _default_values(op)
    for a in op.args:
        if a.type is DataType.ENUM:
            values = a.possible_values
            out.append(Hidden(f"{a.name}_index", choose([(f"{a.name} == {expression_string(v)}", str(k)) for k, v in
                                                          enumerate(values[:-1])], str(len(values) - 1))))
        elif a.type is DataType.DATA_TYPE:
            out.append(Hidden(f"{a.name}_index", choose([(f'{value(op, a.name)} == "{d}"', str(k)) for k, d in
                                                          enumerate(abi.DTYPES[:-1])], str(len(abi.DTYPES) - 1))))
        elif not a.count.is_single and a.name != reduction_axes_arg(op):
            out += dims(a.name, value(op, a.name), list_length(op, a))
    if abi.has_workspace(op):  # the kernel's scratch: a tensor of the unit, sized from the inputs
        out.append(Hidden("workspace_count", UnitRenderer(op).render(op.compute.workspace)))  # type: ignore[union-attr]
        out.append(Hidden("workspace", "System.Tensor(System.Float64, workspace_count > 0 ? workspace_count : 1)"))
    if (count := part_count(op)) is not None:
        out.append(Hidden(PART_COUNT, count))
    result = layout_result(op)
    out += result
    out.append(Hidden("output_shape", result[-1].name if result else output_shape(op)))
    out += dims("output", "output_shape")
    return out


def output_type(op: Op, out: Output | None = None) -> str:
    """The value type of an output (the first by default)."""
    out = out or op.outputs[0]
    c = op.compute
    if C.dtype_from_arg(c):
        variants = [v.dtype for v in variants_of(op)]
        dtype = value(op, "dtype")
        return choose([(f'{dtype} == "{d}"', VALUE_TYPE[d]) for d in variants[:-1]], VALUE_TYPE[variants[-1]])
    if out.type is DataType.BOOLEAN:
        return "System.Bool"
    if out.type is DataType.LONG:
        return "System.Int64"
    first = op.inputs[0]
    return f"{first_tensor(op)}.type" if first.type is out.type else VALUE_TYPE["float64"]


def list_length(op: Op, arg: Arg) -> int:
    """How many values of a list arg a unit passes on: pad's paddings hold two per axis."""
    c = op.compute
    if isinstance(c, C.LayoutMove) and c.layout == "pad" and arg.name == c.arg("paddings"):
        return 2 * MAX_RANK
    return MAX_RANK


def element(values: str, index: str) -> str:
    """NumPy-order element ``index`` (an expression) of a shape or list value, 0 past its ends,
    so that an expression stays defined for inputs the C API will reject."""
    return (f"(((({index}) >= 0) && (({index}) < {values}.count)) ? "
            f"{values}.size({values}.count - 1 - ({index})) : 0)")


#: The hidden values a shape is built in, one axis at a time (``result_0`` is empty).
RESULT = "result"


def built_shape(rank: str, dim: Callable[[int], str], keep: Callable[[int], str] | None = None,
                name: str = RESULT) -> list[Hidden]:
    """A shape of ``rank`` axes (at most MAX_RANK), NumPy axis k of size ``dim(k)``, built in
    hidden values ``<name>_0..<name>_8``: the expression language has no list arithmetic,
    but appending an axis (``insert(0, size)``: Imaginet counts from the right) is enough.
    ``keep(k)`` drops axis k when false."""
    out = [Hidden(f"{name}_0", "System.Shape()")]
    for k in range(MAX_RANK):
        condition = f"({rank}) > {k}" + (f" && ({keep(k)})" if keep is not None else "")
        out.append(Hidden(f"{name}_{k + 1}",
                          f"({condition}) ? {name}_{k}.insert(0, {dim(k)}) : {name}_{k}"))
    return out


def _strided_length(n: str, b: str, e: str, s: str) -> str:
    """len(range(n)[b:e:s]) (Python's slice.indices clamping), for s != 0."""
    up_b = f"({b} < 0 ? Math.max({b} + {n}, 0) : Math.min({b}, {n}))"
    up_e = f"({e} < 0 ? Math.max({e} + {n}, 0) : Math.min({e}, {n}))"
    down_b = f"({b} < 0 ? Math.max({b} + {n}, -1) : Math.min({b}, {n} - 1))"
    down_e = f"({e} < 0 ? Math.max({e} + {n}, -1) : Math.min({e}, {n} - 1))"
    up = f"({up_e} > {up_b} ? ({up_e} - {up_b} + {s} - 1) / {s} : 0)"
    down = f"({down_b} > {down_e} ? ({down_b} - {down_e} - {s} - 1) / (0 - {s}) : 0)"
    return f"({s} > 0 ? {up} : ({s} < 0 ? {down} : 0))"


def _tensordot_result(c: C.TensorDot) -> list[Hidden]:
    """The free axes of x', then of y' (x', y': reversed when transposed), appended one at a
    time, or prepended when the result is transposed: hidden values result_0..result_16."""
    (x, y), (ax, ay), (tx, ty, tz) = c.inputs, c.axes, c.transposes

    def contracted(axes: str, k: int, rank: str) -> str:
        return " || ".join(f"({axes}_rank > {m} && ({axes}_d{m} == {k} || {axes}_d{m} == {k} - {rank}))"
                           for m in range(MAX_RANK))

    out = [Hidden(f"{RESULT}_0", "System.Shape()")]
    for t, axes, flag in ((x, ax, tx), (y, ay, ty)):
        rank = f"{t}_rank"
        for k in range(MAX_RANK):
            size = element(f"{t}.shape", f"({flag} ? {rank} - 1 - {k} : {k})")
            prev = f"{RESULT}_{len(out) - 1}"
            grow = f"({tz} ? {prev}.insert({prev}.count, {size}) : {prev}.insert(0, {size}))"
            out.append(Hidden(f"{RESULT}_{len(out)}", f"({rank} > {k} && !({contracted(axes, k, rank)})) ? {grow} : {prev}"))
    return out


def elementwise_tensors(op: Op) -> list[str]:
    """The inputs an elementwise op's function reads (its other parameters are args)."""
    names = {i.name for i in op.inputs}
    return [p for p in op.compute.params if p in names]  # type: ignore[union-attr]


def _from_right(shape: str, j: str) -> str:
    """The size of axis ``j`` of ``shape`` counted from the right, 1 past its rank (how
    broadcasting aligns shapes)."""
    return f"({shape}.count > {j} ? {shape}.size({j}) : 1)"


def broadcast_result(shapes: list[str], name: str = RESULT) -> list[Hidden]:
    """NumPy broadcasting of ``shapes`` (shape expressions), one axis at a time, in hidden
    values ``<name>_rank``, ``<name>_0..<name>_8`` (the result): the largest rank, and each
    axis the size of the operands that are not 1 there (the contracts refuse shapes that do
    not broadcast)."""
    rank = f"{shapes[0]}.count"
    for t in shapes[1:]:
        rank = f"Math.max({rank}, {t}.count)"

    def dim(k: int) -> str:
        j = f"({name}_rank - 1 - {k})"
        size = _from_right(shapes[0], j)
        for t in shapes[1:]:
            size = f"({size} == 1 ? {_from_right(t, j)} : {size})"
        return size

    return [Hidden(f"{name}_rank", rank), *built_shape(f"{name}_rank", dim, name=name)]


def same_or_scalar(shapes: list[str]) -> str:
    """TML's strict rule: the shape of the first operand that is not a scalar."""
    return choose([(f"{t}.count != 0", t) for t in shapes[:-1]], shapes[-1])


def layout_result(op: Op) -> list[Hidden]:
    """The hidden values that build a layout's output shape (empty when one expression does)."""
    c = op.compute
    if isinstance(c, C.Elementwise) and c.broadcast == "numpy" and len(elementwise_tensors(op)) > 1:
        return broadcast_result([f"{t}.shape" for t in elementwise_tensors(op)])
    if isinstance(c, C.TensorDot):
        return _tensordot_result(c)
    if not isinstance(c, C.LayoutMove):
        return []
    x = c.input
    rank = f"{x}_rank"

    def x_dim(k: int) -> str:
        return f"{x}_d{k}"

    if c.layout == "reshape":
        s = c.arg("shape")
        inferred = f"({s}.flat == 0 ? 0 : {x}.shape.flat / (0 - {s}.flat))"
        return built_shape(f"{s}_rank", lambda k: f"({s}_d{k} == -1 ? {inferred} : {s}_d{k})")
    if c.layout == "transpose":
        return built_shape(rank, lambda k: f"{x}.shape.size({k})")
    if c.layout == "permute":
        perm = c.arg("perm")
        return built_shape(f"{perm}_rank", lambda k: element(
            f"{x}.shape", f"{perm}_d{k} < 0 ? {perm}_d{k} + {rank} : {perm}_d{k}"))
    if c.layout == "narrow":
        return built_shape(rank, x_dim, lambda k: f"{x}_d{k} != 1")
    if c.layout == "tile":
        reps = c.arg("repeats")
        return built_shape(rank, lambda k: f"{x}_d{k} * {reps}_d{k}")
    if c.layout == "slice":
        begin, size = c.arg("begin"), c.arg("size")
        return built_shape(rank, lambda k: f"({size}_d{k} == -1 ? {x}_d{k} - {begin}_d{k} : {size}_d{k})")
    if c.layout == "strided_slice":
        b, e, s = c.arg("begin"), c.arg("end"), c.arg("strides")
        return built_shape(rank, lambda k: _strided_length(f"{x}_d{k}", f"{b}_d{k}", f"{e}_d{k}", f"{s}_d{k}"))
    if c.layout == "pad":
        pads = c.arg("paddings")
        return built_shape(rank, lambda k: f"{x}_d{k} + {pads}_d{2 * k} + {pads}_d{2 * k + 1}")
    if c.layout == "gather":
        indices, axis = c.arg("indices"), c.arg("axis")
        at = f"({axis} < 0 ? {axis} + {rank} : {axis})"
        many = f"{indices}_rank"
        return built_shape(f"{rank} - 1 + {many}", lambda k: (
            f"({k} < {at}) ? {x}_d{k} : (({k} < {at} + {many}) ? {element(indices + '.shape', f'{k} - {at}')} : "
            f"({element(x + '.shape', f'{k} - {many} + 1')}))"))
    if c.layout == "gather_nd":
        indices = c.arg("indices")
        lead = f"({indices}_rank - 1)"
        depth = f"({indices}_rank > 0 ? {indices}.shape.size(0) : 0)"
        return built_shape(f"{lead} + {rank} - {depth}", lambda k: (
            f"({k} < {lead}) ? {indices}_d{k} : ({element(x + '.shape', f'{k} - {lead} + {depth}')})"))
    if c.layout == "diag":
        return built_shape(f"2 * {rank}", lambda k: element(f"{x}.shape", f"{k} % {rank}"))
    return []


def matrix_shape(op: Op, layout: str) -> str:
    """The shape of a matrix fragment's output of ``layout`` (Imaginet's axis 0 is the last)."""
    first, last = op.inputs[0].name, op.inputs[-1].name
    if layout == "matrix":
        return f"{last}.shape"
    if layout == "matrix_reduce":
        return f"{first}.shape.remove(0).remove(0)"
    if layout == "matrix_solve":
        return f"{first}.shape.replace(0, {last}.shape.size(0)).replace(1, {first}.shape.size(0))"
    if layout == "matrix_product":  # rows of first x cols of last
        return f"{first}.shape.replace(0, {last}.shape.size(0))"
    smaller = f"({first}.shape.size(0) < {first}.shape.size(1) ? {first}.shape.size(0) : {first}.shape.size(1))"
    if layout == "matrix_q":  # rows x k: the columns become k
        return f"{first}.shape.replace(0, {smaller})"
    if layout == "matrix_v":  # cols x k: the rows become cols, the columns k
        return f"{first}.shape.replace(1, {first}.shape.size(0)).replace(0, {smaller})"
    if layout == "matrix_r":  # k x cols: the rows become k
        return f"{first}.shape.replace(1, {smaller})"
    return f"{first}.shape.remove(0).replace(0, {smaller})"  # matrix_diagonal


def further_output_shape(op: Op, k: int) -> str:
    """The shape of output ``k`` (1 or more): the first output's, unless its layout says."""
    c = op.compute
    if isinstance(c, C.FragmentKernel) and c.matrix and c.output_layouts:
        return matrix_shape(op, c.layouts[k])
    if isinstance(c, C.FragmentKernel) and c.layout == "shaped":
        return declared_shape(op, k)
    if isinstance(c, C.FindAll):  # the count
        return "System.Shape()"
    return "output_shape"


def declared_shape(op: Op, k: int) -> str:
    """Output ``k`` of a shaped fragment: its declared sizes (System.Shape takes them outermost first)."""
    sizes = op.compute.shapes[k]  # type: ignore[union-attr]
    if isinstance(sizes, E.ParamRef):  # the shape of that input
        return f"{sizes.name}.shape"
    return f"System.Shape({', '.join(UnitRenderer(op).render(size) for size in sizes)})"


def output_shape(op: Op) -> str:
    c = op.compute
    if isinstance(c, C.FragmentKernel) and c.matrix:
        return matrix_shape(op, c.layout)
    if isinstance(c, C.FragmentKernel) and c.layout == "shaped":
        return declared_shape(op, 0)
    if isinstance(c, C.Generation) and c.generator == "one_hot":
        indices, axis = c.arg("indices"), c.arg("axis")
        return f"{indices}.shape.insert(({axis} < 0 ? -{axis} - 1 : {indices}.shape.count - {axis}), {c.arg('depth')})"
    if isinstance(c, C.Generation) and c.generator == "range":
        start, limit, delta = c.arg("start"), c.arg("limit"), c.arg("delta")
        return f"System.Shape({delta} == 0 ? 0 : Math.max(0, Math.ceil(({limit} - {start}) / {delta})))"
    if isinstance(c, C.Generation) and c.generator == "linspace":
        return f"System.Shape({c.arg('num')})"
    if isinstance(c, C.Generation) and c.generator in ("eye", "tri"):
        return f"System.Shape({value(op, c.arg('rows'))}, {value(op, c.arg('cols'))})"
    if isinstance(c, C.Generation) and c.generator == "sequence_mask":
        return f"{c.arg('lengths')}.shape.insert(0, {c.arg('maxlen')})"
    if isinstance(c, C.FragmentKernel) and c.layout == "flat":
        return "System.Shape()"
    if isinstance(c, C.FragmentKernel) and c.widen != 1:  # rows widen times as long (axis 0 is the last)
        x = op.inputs[0].name
        return f"{x}.shape.replace(0, {x}.shape.size(0) * {c.widen})"
    if isinstance(c, C.FragmentKernel) and c.layout == "dense":  # rows of the weights' columns (axis 0 is the last)
        return f"{op.inputs[0].name}.shape.replace(0, {op.inputs[1].name}.shape.size(0))"
    if isinstance(c, C.FragmentKernel) and c.layout == "select":  # rows of `length`: Imaginet's axis 0 is the last
        return f"{op.inputs[0].name}.shape.replace(0, {c.length})"
    if isinstance(c, C.ShapeQuery):
        return f"System.Shape({c.input}.shape.count)" if c.query == "shape" else "System.Shape()"
    if isinstance(c, C.Merge):
        return f"{first_tensor(op)}.shape"
    if isinstance(c, C.FindAll):  # capacity: one index per element
        return f"System.Shape({c.input}.shape.flat)"
    if isinstance(c, C.Parts) and c.part == "meshgrid":  # System.Shape takes the grid's axes outermost first
        names = sockets(next(i for i in op.inputs if i.name == c.source))
        cases = []
        for n in range(1, len(names) + 1):
            sizes = [f"{s}.shape.flat" for s in names[:n]]
            swapped = sizes[1::-1] + sizes[2:]
            grid = (f"({c.arg('cartesian')} ? System.Shape({', '.join(swapped)}) : System.Shape({', '.join(sizes)}))"
                    if n >= 2 else f"System.Shape({sizes[0]})")
            cases.append((f"{c.source}_count == {n}", grid))
        return choose(cases[:-1], cases[-1][1])
    if isinstance(c, C.Parts):
        x, axis = c.source, c.arg("axis")
        right = axis_from_right(axis, x)
        if c.part == "unstack":
            return f"({_axis_in_range(axis, x)}) ? {x}.shape.remove({right}) : {x}.shape"
        num = c.arg("num")
        return (f"({_axis_in_range(axis, x)} && {num} > 0) ? "
                f"{x}.shape.replace({right}, {x}.shape.size({right}) / {num}) : {x}.shape")
    if isinstance(c, C.Join):
        first = f"{first_tensor(op)}.shape"
        listed = next(i for i in op.inputs if i.name == c.inputs)
        if c.stack:  # the new axis, counted from the right in a result one axis longer
            return f"{first}.insert(({c.axis} < 0 ? -{c.axis} - 1 : {first}.count - {c.axis}), {c.inputs}_count)"
        right = f"({c.axis} < 0 ? -{c.axis} - 1 : {first}.count - 1 - {c.axis})"
        sizes = " + ".join(f"({s} != null ? {s}.shape.size({right}) : 0)" for s in sockets(listed))
        return f"{first}.replace({right}, {sizes})"
    if isinstance(c, C.ScatterRows) and c.ref is not None:
        return f"{c.ref}.shape"
    if isinstance(c, C.ScatterRows):
        # The rows replace the outermost axis, that of the (vector) segment ids; Imaginet counts from the right.
        shape = f"{c.updates}.shape"
        return f"{shape}.replace({shape}.count - 1, {c.rows})"
    if isinstance(c, C.LayoutMove):
        x = f"{c.input}.shape"
        if c.layout == "squeeze":
            return f"{x}.remove({axis_from_right(c.arg('axis'), c.input)})"
        if c.layout == "expand_dims":
            axis = c.arg("axis")
            return f"{x}.insert(({axis} < 0 ? -{axis} - 1 : {x}.count - {axis}), 1)"
        return x
    if isinstance(c, C.Elementwise):
        # (NumPy broadcasting of several operands is built in layout_result.) TML's strict rule:
        # equal shapes, or scalars; the result has the shape of the first operand that is not one.
        return same_or_scalar([f"{t}.shape" for t in elementwise_tensors(op)])
    if isinstance(c, (C.Reduction, C.ArgReduction)):
        x = c.input
        axis = "axis"
        keep = c.keep_dims
        right = axis_from_right(axis, x)
        return f"{keep} ? {x}.shape.replace({right}, 1) : {x}.shape.remove({right})"
    if isinstance(c, C.Contraction):
        return _contraction_shape(c)
    if isinstance(c, C.RandomSample) or isinstance(c, C.Generation) and c.generator == "fill":
        return value(op, "shape")
    return f"{op.inputs[0].name}.shape"


def _contraction_shape(c: C.Contraction) -> str:
    spec = c.spec
    extent: dict[str, str] = {}
    for name, operand in zip(c.inputs, spec.inputs):
        named = operand.named
        for k, label in enumerate(named):
            if label not in extent:
                from_right = len(named) - 1 - k
                extent[label] = f"{name}.shape.size({from_right})"
    if not spec.output.has_ellipsis:
        return "System.Shape(" + ", ".join(extent[label] for label in spec.output.named) + ")"
    # Start from the first operand with the row variable; rewrite its named axes (after the row variable).
    base_name, base = next((n, o) for n, o in zip(c.inputs, spec.inputs) if o.has_ellipsis)
    shape = f"{base_name}.shape"
    for _ in base.named:
        shape += ".remove(0)"
    for label in spec.output.named:
        shape += f".insert(0, {extent[label]})"
    return shape


class UnitRenderer(ImaginetRenderer):
    """In a unit an optional arg is a value plus a ``use_<arg>`` flag, never null."""

    def render_compare(self, node) -> str:  # type: ignore[no-untyped-def]
        for ref, lit in ((node.left, node.right), (node.right, node.left)):
            if isinstance(ref, E.ParamRef) and isinstance(lit, E.Literal) and lit.value is None:
                return f"(use_{ref.name} {'==' if node.op == '!=' else '!='} true)"
        return super().render_compare(node)


def contracts(op: Op) -> list[tuple[str, str]]:
    """(test, error) per Assert: the op's constraints, then the unit's own rules."""
    render = UnitRenderer(op).render
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
    if isinstance(c, C.Parts) and c.part != "meshgrid":
        x, axis = c.source, c.arg("axis")
        out.append((f"{x}.shape.count >= 1", f"{x} must have rank 1 or more"))
        out.append((_axis_in_range(axis, x), f"{axis} {{{axis}}} is out of range for rank {{{x}.shape.count}}"))
        if c.part == "split":
            num, right = c.arg("num"), axis_from_right(axis, x)
            out.append((f"{num} >= 1", f"{num} must be 1 or more, got {{{num}}}"))
            out.append((f"!({_axis_in_range(axis, x)} && {num} >= 1) || {x}.shape.size({right}) % {num} == 0",
                        f"the size of axis {{{axis}}} of {x} must be a multiple of {num} ({x}: {{{x}.shape}})"))
    if isinstance(c, C.TensorDot):
        ax, ay = c.axes
        last = f"{RESULT}_{2 * MAX_RANK}"
        out.append((f"{ax}_rank == {ay}_rank", f"{ax} and {ay} must name as many axes each"))
        out.append((f"{last}.count <= {MAX_RANK}", f"the result's rank {{{last}.count}} is above {MAX_RANK}"))
    if isinstance(c, C.Parts):
        listed = next(o for o in op.outputs if o.name == c.outputs)
        out.append((f"{PART_COUNT} <= {LIST_SOCKETS}",
                    f"a unit gives at most {LIST_SOCKETS} tensors of {listed.name}, these inputs give {{{PART_COUNT}}}"))
    if isinstance(c, C.Elementwise) and c.broadcast == "strict" and len(elementwise_tensors(op)) > 1:
        # TML: logical, relational and bitwise ops take equal shapes, or scalars (rank 0).
        tensors = elementwise_tensors(op)
        for k, a in enumerate(tensors):
            for b in tensors[k + 1:]:
                same = " && ".join([f"{a}_rank == {b}_rank", *(f"{a}_d{d} == {b}_d{d}" for d in range(MAX_RANK))])
                out.append((f"{a}_rank == 0 || {b}_rank == 0 || ({same})",
                            f"{a} and {b} must have the same shape, or one be a scalar ({a}: {{{a}.shape}}, "
                            f"{b}: {{{b}.shape}})"))
    if isinstance(c, (C.Reduction, C.ArgReduction)):
        x = c.input
        out.insert(0, (f"{x}.shape.count >= 1", f"{x} must have rank 1 or more"))
        out.insert(1, (f"axis >= -{x}.shape.count && axis < {x}.shape.count",
                       f"axis {{axis}} is out of range for rank {{{x}.shape.count}}"))
    return out


def _refs(expr):
    from dsl import expr as E

    return E.param_refs(expr)
