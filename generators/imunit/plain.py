"""Units over plain kernels (ADR 0030): per geometry of a kernel (``c_emit.PLAIN_SIZES``), the
Expressions a unit computes for its sizes, the Conditionals that choose it, and the two-line
entry that calls it and returns Imaginet's status."""

from __future__ import annotations

from typing import Sequence

import attrs

from dsl import compute as C
from dsl import shapes as S
from dsl.model import Op
from dsl.types import DataType
from generators import abi
from generators.imunit import units
from generators.imunit.values import VALUE_TYPES
from generators.imunit.variants import variants_of
from generators.formatting import c_comment
from generators.kernels import c_emit
from generators.kernels.scalar_c import C_TYPE, SUFFIX

#: The Expression a unit passes plain kernels as their element count.
PLAIN_COUNT = "element_count"
#: Inputs of a higher rank than this broadcast through the ``broadcast`` kernel: broadcasting an
#: operand of rank 5 or more into the other may need more than ShapeBroadcast's two groups.
STRETCH_RANK = 4


@attrs.frozen
class Geometry:
    """How a unit calls a kernel of one geometry. Templates name ``{x}`` and ``{y}``, the
    kernel's first two tensors, and ``{axis}``, the unit's axis option."""

    name: str  # in the entry's name: <fn>_unit_<name>_<dtype>
    what: str  # the entry's comment
    #: Expressions the sizes read: (name, value, conditional or None).
    prelude: tuple[tuple[str, str, str | None], ...]
    #: Per size of the kernel: (the kernel's size, the Expression's name, value, conditional or None).
    sizes: tuple[tuple[str, str, str, str | None], ...]
    #: The Conditionals that choose the kernel, beyond the element types.
    conditions: tuple[str, ...]
    same_shapes: bool = False  # also: every input of the first one's shape


def _stretch(into: str, stretched: str, prefix: str) -> Geometry:
    """The operand ``stretched`` (``x`` or ``y``) broadcast into the shape of ``into``, the output's,
    by the guide's ShapeBroadcast: runs of equal axes (left, middle, right) between runs of
    stretched ones (group1, group2)."""
    big, small = f"{{{into}}}.shape", f"{{{stretched}}}.shape"
    # Each axis of the smaller operand equal to the larger's, or 1 (an axis beyond a shape's rank
    # has size 1): ShapeBroadcast is then defined, and is never asked where it is not.
    fits = " && ".join([f"{big}.count <= {STRETCH_RANK}", f"{small}.count <= {big}.count",
                        *(f"({small}.size({k}) == {big}.size({k}) || {small}.size({k}) == 1)"
                          for k in range(STRETCH_RANK))])
    groups = f"{prefix}_groups"
    return Geometry(
        f"{prefix}_stretched",
        f"{{{stretched}}} broadcast into the shape of {{{into}}}: ShapeBroadcast's five runs.",
        ((groups, f"{big}.broadcast({small})", fits),),
        tuple((size, f"{prefix}_{size}", f"{groups}.{size}", f"{groups} != null")
              for size in c_emit.PLAIN_SIZES[f"{prefix}_stretched"]),
        (f"{groups} != null", f"output_shape == {big}"))


# Studio evaluates a unit's Expressions before it knows whether the Asserts hold: each is
# defined (``conditional``) only where it cannot fail, and is null elsewhere.
_AXIS = "{x}.shape.count > 0 && {axis} >= -{x}.shape.count && {axis} < {x}.shape.count"
_MATRICES = "{x}.shape.count >= 2 && {y}.shape.count >= 2"
_MATRIX = "{x}.shape.count >= 2"
_HOT = "output_shape.count > 0 && {axis} >= -output_shape.count && {axis} < output_shape.count"

GEOMETRIES = {
    "flat": Geometry("plain", "The kernel over count elements, as many in every input and the output.", (),
                     (("n", PLAIN_COUNT, "{x}.shape.flat", None),), (), same_shapes=True),
    "axis": Geometry("plain", "Along one axis: size elements step apart, in slot blocks.", (),
                     (("step", "axis_step", "{x}.shape.step({axis})", _AXIS),
                      ("size", "axis_size", "{x}.shape.size({axis})", _AXIS),
                      ("slot", "axis_slot", "{x}.shape.slot({axis})", _AXIS)), ()),
    # (the same axis when its step is 1: the innermost, or one with only 1s inside it; first, so
    # that a unit runs it wherever it applies)
    "rows": Geometry("rows", "One axis of step 1 reduced: slot rows of size elements.", (),
                     (("size", "axis_size", "{x}.shape.size({axis})", _AXIS),
                      ("slot", "axis_slot", "{x}.shape.slot({axis})", _AXIS)),
                     (f"{_AXIS} && {{x}}.shape.step({{axis}}) == 1",)),
    "second_stretched": _stretch("x", "y", "second"),
    "first_stretched": _stretch("y", "x", "first"),
    # (a single element, tried before the stretched kernels, which would run it with runs of 1;
    # ``full_count``: the element count of the operand of the output's shape)
    "second_scalar": Geometry("second_scalar", "{y} a single element, {x} of the output's shape: count elements.",
                              (), (("n", PLAIN_COUNT, "{x}.shape.flat", None),),
                              ("{y}.shape.flat == 1", "output_shape == {x}.shape")),
    "first_scalar": Geometry("first_scalar", "{x} a single element, {y} of the output's shape: count elements.",
                             (), (("n", "full_count", "{y}.shape.flat", None),),
                             ("{x}.shape.flat == 1", "output_shape == {y}.shape")),
    # (rows, inner and cols: one axis each, as the kernel's ``axes`` say)
    # (a list input's sockets: their sizes are per socket, see _joined)
    "joined": Geometry("joined", "The connected tensors of {x} concatenated: slot times a block of each.", (), (), ()),
    "stacked": Geometry("stacked", "The connected tensors of {x} stacked: slot times a block of each.", (), (), ()),
    "merged": Geometry("merged", "The connected tensors of {x}, count elements each, combined element by element.",
                       (), (), ()),
    # (a list output's sockets: see _parted)
    "parted": Geometry("parted", "{x} cut into the tensors of the list output: slot times a block to each.", (), (), ()),
    # (and each matrix's rows and cols, see _tensor_sizes)
    "batched": Geometry("batched", "A batch of matrices in the last two axes of each tensor.", (),
                        (("batch", "matrix_batch", "{x}.shape.step(2, {x}.shape.count)", _MATRIX),), ()),
    # (each input's count, see _tensor_sizes)
    "shaped": Geometry("shaped", "Every input flat, count elements each.", (), (), ()),
    # (one_hot's inserted axis, the unit's axis option: counted in the output's rank)
    "hot": Geometry("hot", "Along the output's inserted axis, on at each index, off elsewhere.", (),
                    (("outer", "hot_outer", "output_shape.slot({axis})", _HOT),
                     ("inner", "hot_inner", "output_shape.step({axis})", _HOT)), ()),
    # (its sizes are args, or a tensor's count: see _tensor_sizes)
    "marked": Geometry("marked", "Rows of values, 1 where the rule holds, 0 elsewhere.", (), (), ()),
    # (and the indices' count, see _tensor_sizes)
    "gathered": Geometry("gathered", "Blocks of {x} at each index along one axis: step elements each, in slot blocks.",
                         (), (("step", "axis_step", "{x}.shape.step({axis})", _AXIS),
                              ("size", "axis_size", "{x}.shape.size({axis})", _AXIS),
                              ("slot", "axis_slot", "{x}.shape.slot({axis})", _AXIS)), ()),
    # (its sizes, see _scattered)
    "scattered": Geometry("scattered", "Indexed rows of the output folded with rows of updates.", (), (), ()),
    # (its values, see _valued)
    "valued": Geometry("valued", "The output's values, computed from shapes.", (), (), ()),
    "lines": Geometry("lines", "Rows of the last axis of {x}: rows of len elements.", (),
                      (("rows", "line_rows", "{x}.shape.step(1, {x}.shape.count)", "{x}.shape.count >= 1"),
                       ("len", "line_len", "{x}.shape.size(0)", "{x}.shape.count >= 1")), ()),
    # (the unit's axis counts from the innermost: its rows hold the axes from 0 to it)
    "trailing": Geometry("trailing", "Rows of the axes of {x} from {axis} to the innermost: rows of len elements.",
                         (), (("rows", "trailing_rows", "{x}.shape.slot({axis})", _AXIS),
                              ("len", "trailing_len", "{x}.shape.step({axis}) * {x}.shape.size({axis})", _AXIS)),
                         ()),
    "drawn": Geometry("drawn", "The output's count elements, each drawn from its own block of the stream.", (),
                      (("n", "output_count", "output_shape.flat", None),), ()),
    "filled": Geometry("filled", "The output's count elements, each the value.", (),
                       (("n", "output_count", "output_shape.flat", None),), ()),
    # (its sizes, see _indexed)
    "indexed": Geometry("indexed", "Blocks of {x} at each tuple of indices into its first axes.", (), (), ()),
    "sequences": Geometry("sequences", "{x} with the first lengths[b] elements of each sequence reversed.",
                          (), (), ()),
    "found": Geometry("found", "The flat indices of {x}'s count elements where the condition holds, and how many.",
                      (), (("n", PLAIN_COUNT, "{x}.shape.flat", None),), ()),
    # (its sizes and ends, see _ramp)
    "ramp": Geometry("ramp", "The output's count values, evenly spaced.", (), (), ()),
    # (its sizes: one per axis, and a step per operand and axis, see _broadcast)
    # (its sizes: one per axis, a step of x per axis and the offset, see _strided)
    "strided": Geometry("strided", "{x}'s elements read at a step along each axis of the output, from an offset.",
                        (), (), ()),
    "padded": Geometry("padded", "{x}'s elements along each axis of the output, through the pad's edges.",
                       (), (), ()),
    "broadcast": Geometry("broadcast", "Every operand broadcast into the output's shape: a loop per axis, each "
                          "operand read at its step along it, 0 where its size is 1.", (), (), ()),
    "matrices": Geometry("matrices", "A batch of matrix products: batch of rows x inner by inner x cols.", (),
                         (("batch", "matrix_batch", "{x}.shape.step(2, {x}.shape.count)", _MATRICES),
                          ("rows", "matrix_rows", "", _MATRICES), ("inner", "matrix_inner", "", _MATRICES),
                          ("cols", "matrix_cols", "", _MATRICES)),
                         (f"{_MATRICES} && {{x}}.shape.remove(0).remove(0) == {{y}}.shape.remove(0).remove(0)",)),
    # (a list input's and a list output's sockets: see _meshed)
    "meshed": Geometry("meshed", "Each output a grid of count elements: the elements of its tensor of {x} along its "
                       "own axis.", (), (), ()),
    # (its sizes, see _batches; after matrices, which it covers where the batch axes are equal)
    "batches": Geometry("batches", "Matrix products whose batch axes broadcast: rows x inner by inner x cols, a "
                        "loop per batch axis.", (), (), ()),
    # (its sizes, see _windowed)
    "windowed": Geometry("windows", "A loop per label of the einsum, convolution axes read through their windows.",
                         (), (), ()),
    # (its sizes, see _product)
    "product": Geometry("product", "One matrix product, rows x inner by inner x cols, each matrix transposed where "
                        "its flag says so.", (), (), ()),
    "transposed": Geometry("transposed", "Matrices of rows x cols transposed, count elements in all.", (),
                           (("count", PLAIN_COUNT, "{x}.shape.flat", None),
                            ("rows", "matrix_rows", "", _MATRIX), ("cols", "matrix_cols", "", _MATRIX)), ()),
}


def _names(op: Op, kernel: c_emit.PlainKernel) -> dict[str, str]:
    """What the templates of the kernel's geometry name: its first two inputs and the axis option."""
    inputs = {i.name for i in op.inputs}
    tensors = [source for _, source in kernel.parameters if source in inputs]
    axis = "axis" if kernel.axis == units.reduction_axes_arg(op) else kernel.axis  # a unit reduces one axis
    return {"x": tensors[0] if tensors else "", "y": tensors[1] if len(tensors) > 1 else "", "axis": axis}


_JOINS = ("joined", "stacked")
#: Geometries over a list input's sockets, gathered by the entry into the kernel's list.
_LISTS = (*_JOINS, "merged")


def _merged(op: Op, kernel: c_emit.PlainKernel) -> tuple[list[str], list[tuple[str, str, str | None]]]:
    """(the sockets of a merge's list input, the Expression of its element count): the
    sockets have one shape (the unit's Asserts), the first is connected."""
    sockets = units.sockets(next(i for i in op.inputs if i.name == _names(op, kernel)["x"]))
    return sockets, [(PLAIN_COUNT, f"{sockets[0]}.shape.flat", None)]


def _parted(op: Op, kernel: c_emit.PlainKernel) -> tuple[list[str], list[tuple[str, str, str | None]]]:
    """(the sockets of the list output, the Expressions of the block each takes and of the slots):
    a block holds x's axes inside the cut axis (split: and the part of that axis), a slot the
    axes outside it; the axis counts from the innermost, in x's rank. Each socket is there
    while the list has a tensor for it, as many as the Expression ``part_count`` says."""
    listed = next(o for o in op.outputs if o.name == op.compute.outputs)
    x, axis = _names(op, kernel)["x"], _names(op, kernel)["axis"]
    n = f"{x}.shape.count"
    at, fits = f"({axis} >= 0 ? {axis} : {axis} + {n})", f"{axis} >= -{n} && {axis} < {n}"
    block = (f"output_shape.step(0, {at} + 1)" if op.compute.part == "split" else f"{x}.shape.step(0, {at})")
    return units.output_sockets(listed), [("part_block", block, fits), ("part_slot", f"{x}.shape.step({at} + 1, {n})", fits)]


def _meshed(op: Op, kernel: c_emit.PlainKernel) -> tuple[list[str], list[str], list[tuple[str, str, str | None]]]:
    """(the list input's sockets, the list output's, the Expressions of the grid's count and of
    each tensor's step along its grid axis (the form's ``grid_axis``) and count; 1 for a socket
    not connected, which the kernel does not read)."""
    c = op.compute
    inputs = units.sockets(next(i for i in op.inputs if i.name == c.source))
    outputs = units.output_sockets(next(o for o in op.outputs if o.name == c.outputs))
    render = units.shape_renderer(op)
    sizes: list[tuple[str, str, str | None]] = [("mesh_count", "output_shape.flat", None)]
    for k, socket in enumerate(inputs):
        axis = render.bind("k", str(k), c.grid_axis())
        sizes.append((f"mesh_step{k}", f"{socket} == null ? 1 : output_shape.step(0, output_shape.count - 1 - ({axis}))",
                      None))
    sizes += [(f"mesh_size{k}", f"{socket} == null ? 1 : {socket}.shape.flat", None) for k, socket in enumerate(inputs)]
    assert not render.hidden, "a grid axis is built from no shape"
    return inputs, outputs, sizes


def _broadcast(kernel: c_emit.PlainKernel) -> list[tuple[str, str, str]]:
    """(the parameter's source, the Expression's name and value) of each of the broadcast
    kernel's sizes: the output's size along each axis (1 beyond its rank), each operand's
    step there (0 where its size is 1, as beyond its rank)."""
    out = []
    for _, source in kernel.parameters:
        if source in c_emit.PLAIN_SIZES["broadcast"]:
            out.append((source, f"broadcast_{source}", f"output_shape.size({source[1:]})"))
        elif source.startswith("step:"):
            _, operand, axis = source.split(":")
            out.append((source, f"{operand}_step{axis}",
                        f"{operand}.shape.size({axis}) == 1 ? 0 : {operand}.shape.step({axis})"))
    return out


def _strided(op: Op, kernel: c_emit.PlainKernel) -> list[tuple[str, str, str]]:
    """(the parameter's source, the Expression's name and value) of each of the strided kernel's
    sizes, rendered from the form's reading plan (``LayoutMove.strides``): the output's size
    along each axis; x's step along it, the plan's step times the stride of the axis of x it
    runs along; the offset, the plan's start on each axis of x times that axis's stride; a
    pad's value. Axes count from the innermost, as the kernel's do; NumPy's axis of the plan is
    ``count - 1 - k``."""
    c = op.compute
    plan, x = c.strides(), f"{c.input}.shape"
    render = units.shape_renderer(op)

    def stride(axis: str) -> str:  # of x's NumPy axis `axis` (0 outside x, where an Assert refuses)
        return f"(({axis}) >= 0 && ({axis}) < {x}.count ? {x}.step({x}.count - 1 - ({axis})) : 0)"

    # (the axes the plan runs over: the output's, or those of the view it reads the output in,
    # whose rank is known: each of its axes is then a number, and beyond them a size is 1, a step 0)
    count = "output_shape.count" if plan.view is None else render.render(plan.view.rank)

    def axis(k: str) -> str:  # (the plan's NumPy axis)
        return str(int(count) - 1 - int(k)) if count.isdigit() else f"({count} - 1 - {k})"

    def within(k: str, value: str, beyond: str) -> str:
        if count.isdigit():
            return value if int(k) < int(count) else beyond
        return f"{k} < {count} ? {value} : {beyond}"

    out = []
    for _, source in kernel.parameters:
        if source in c_emit.PLAIN_SIZES["padded"]:  # (the output's sizes)
            k = source[1:]
            size = f"output_shape.size({k})" if plan.view is None else \
                within(k, render.bind("k", axis(k), plan.view.size), "1")
            out.append((source, f"strided_{source}", size))
        elif source.startswith("step:"):
            k = source.rsplit(":", 1)[1]
            along = render.bind("k", axis(k), plan.source.size)
            out.append((source, f"{c.input}_step{k}",
                        within(k, f"({render.bind('k', axis(k), plan.step.size)}) * {stride(along)}", "0")))
        elif source.startswith(("extent:", "start:")):  # (a pad's: x's size and first index along it)
            k = source.rsplit(":", 1)[1]
            along = render.bind("k", axis(k), plan.source.size)
            value = (render.element(x, along) if source.startswith("extent:")
                     else render.bind("k", along, plan.start.size))
            name = f"{c.input}_{source.split(':')[0]}{k}"
            out.append((source, name, f"{k} < {count} ? {value} : {1 if source.startswith('extent:') else 0}"))
        elif source.startswith("period:"):  # (1 beyond the output's rank: the index there is 0)
            k = source.rsplit(":", 1)[1]
            period = render.bind("k", axis(k), plan.period.size)
            out.append((source, f"{c.input}_period{k}", f"{k} < {count} ? Math.max(1, {period}) : 1"))
    if plan.edges is not None:  # (a pad's value where it is written, else 0: it converts exactly, as Asserted)
        mode, value = units.value(op, plan.edges), units.value(op, plan.fill)
        out.append((plan.fill, "pad_value", f'{mode} == "{C.PAD_MODES[0]}" ? {value} : 0'))
    if any(source == "offset" for _, source in kernel.parameters):
        starts = {a: render.bind("k", str(a), plan.start.size) for a in range(abi.MAX_RANK)}
        terms = [f"({a} < {x}.count ? ({start}) * {stride(str(a))} : 0)" for a, start in starts.items() if start != "0"]
        out.append(("offset", "strided_offset", " + ".join(terms) or "0"))
    assert not render.hidden, "a reading plan's sizes are built from no shape"
    return out


#: The sizes of one tensor a kernel may take (``<size>:<tensor>``): its Expression's value.
_TENSOR_SIZES = {"rows": "{t}.shape.size(1)", "cols": "{t}.shape.size(0)", "count": "{t}.shape.flat"}


def _tensor_sizes(op: Op, kernel: c_emit.PlainKernel) -> list[tuple[str, str, str]]:
    """(the parameter's source, the Expression's name and value) of each size of one tensor the
    kernel takes: a matrix's rows and cols (its last two axes, which the unit's Asserts say it
    has), a tensor's element count."""
    out = []
    for _, source in kernel.parameters:
        what, _, tensor = source.partition(":")
        if what in _TENSOR_SIZES and tensor:
            out.append((source, f"{tensor}_{what}", _TENSOR_SIZES[what].format(t=tensor)))
    return out


def _valued(op: Op, kernel: c_emit.PlainKernel) -> list[tuple[str, str, str]]:
    """(the parameter's source, the Expression's name and value) of a shape query's values, as
    its form says them (``ShapeQuery.values``): the count, and each value (0 beyond the rank)."""
    values, render = op.compute.values(), units.shape_renderer(op)
    out = []
    for _, source in kernel.parameters:
        if source == "n":
            out.append((source, "value_count", "output_shape.flat"))
        elif source.startswith("value:"):
            k = source.split(":")[1]
            value = (render.bind("k", k, S.Item(values, S.Axis())) if isinstance(values, S.SHAPES)
                     else render.render(values))
            out.append((source, f"value{k}", value))
    assert not render.hidden, "a shape query's values are built from no shape"
    return out


def _scattered(op: Op, kernel: c_emit.PlainKernel) -> list[tuple[str, str, str]]:
    """(the parameter's source, the Expression's name and value) of a scatter's sizes: the rows
    of ref (its first axis; a segment reduction takes its arg), the indices' count, and the
    elements of a row (the axes of the updates after the indices'). Where the shapes do not fit,
    the unit's Asserts refuse; the values stay defined (0)."""
    c = op.compute
    ind, upd = f"{c.indices}.shape", f"{c.updates}.shape"
    sizes = {"count": ("scatter_count", f"{ind}.flat"),
             "block": ("scatter_block", f"{upd}.count >= {ind}.count ? {upd}.step(0, {upd}.count - {ind}.count) : 0")}
    if c.ref is not None:
        ref = f"{c.ref}.shape"
        sizes["rows"] = ("scatter_rows", f"{ref}.count >= 1 ? {ref}.size({ref}.count - 1) : 0")
    return [(source, *sizes[source]) for _, source in kernel.parameters if source in sizes]


def _indexed(op: Op, kernel: c_emit.PlainKernel) -> list[tuple[str, str, str]]:
    """(the source, the Expression's name and value) of the sizes of gather_nd's kernel (the
    tuples of indices, their depth, the block each picks, the sizes of x's first axes, 0 beyond
    the depth) or reverse_sequence's (x's count, and the step and size of its sequence and batch
    axes, options counted from the innermost). Where the shapes do not fit, the unit's Asserts
    refuse; the values stay defined."""
    c = op.compute
    x = f"{c.input}.shape"
    if c.layout == "reverse_sequence":
        out = [("count", "sequence_count", f"{x}.flat")]
        for axis in ("seq", "batch"):
            option = c.arg(f"{axis}_axis")  # (the option itself: Imaginet's axis, as step and size take it)
            inside = f"{option} >= -{x}.count && {option} < {x}.count"
            out += [(f"{axis}_step", f"{axis}_step", f"{inside} ? {x}.step({option}) : 1"),
                    (f"{axis}_size", f"{axis}_size", f"{inside} ? {x}.size({option}) : 1")]
        return out
    at = f"{c.arg('indices')}.shape"
    fits = f"tuple_depth <= {x}.count"
    return [("rows", "tuple_count", f"{at}.count >= 1 ? {at}.step(1, {at}.count) : 0"),
            ("depth", "tuple_depth", f"{at}.count >= 1 ? {at}.size(0) : 0"),
            ("block", "tuple_block", f"{fits} ? {x}.step(0, {x}.count - tuple_depth) : 0"),
            *((f"n:{k}", f"{c.input}_size{k}", f"{k} < tuple_depth && {fits} ? {x}.size({x}.count - 1 - {k}) : 0")
              for k in range(abi.MAX_RANK))]


def _batches(op: Op, kernel: c_emit.PlainKernel) -> list[tuple[str, str, str]]:
    """(the source, the Expression's name and value) of the broadcast matrix kernel's sizes: each
    matrix's rows, inner and cols (the ``matrices`` geometry's Expressions), the output's size
    along each batch axis (1 beyond its rank), each operand's step there (0 where its size is
    1, as beyond its rank). Batch axis k is axis k + 2, counted from the innermost."""
    tensors = [source for _, source in kernel.parameters if source in {i.name for i in op.inputs}]
    fits = " && ".join(f"{t}.shape.count >= 2" for t in tensors)
    out = [(size, f"matrix_{size}", f"{fits} ? {tensor}.shape.size({-1 - axis}) : 0") for size, tensor, axis in kernel.axes]
    for _, source in kernel.parameters:
        if source in c_emit.PLAIN_SIZES["batches"] and source.startswith("n"):
            k = int(source[1:]) + 2
            out.append((source, f"batch_n{k - 2}", f"output_shape.size({k})"))
        elif source.startswith("step:"):
            _, operand, k = source.split(":")
            axis = int(k) + 2
            out.append((source, f"{operand}_batch_step{k}",
                        f"{operand}.shape.size({axis}) == 1 ? 0 : {operand}.shape.step({axis})"))
    return out


def _ramp(op: Op, kernel: c_emit.PlainKernel) -> list[tuple[str, str, str]]:
    """(the source, the Expression's name and value) of a range's or linspace's count and, for
    its Asserts (``_ends``), of its first and last values, as the form says them."""
    count, first, last = op.compute.ends()
    render = units.shape_renderer(op)
    out = [("n", "output_count", "output_shape.flat"), ("first", "first_value", render.render(first)),
           ("last", "last_value", f"{render.render(count)} > 0 ? {render.render(last)} : 0")]
    assert not render.hidden, "a generator's ends are built from no shape"
    return out


def _product(op: Op, kernel: c_emit.PlainKernel) -> list[tuple[str, str, str]]:
    """(the source, the Expression's name and value) of a tensordot's matrix product: where the
    form's ``matrix_product`` holds (the unit Asserts it), x is rows x inner with its paired axes
    innermost, or inner x rows for a reversed matrix; y is inner x cols, or cols x inner. Axes
    count from the innermost; out of range, where the Assert refuses, a size is 0."""
    c = op.compute
    (x, y), (tx, ty, _) = c.inputs, (units.value(op, t) for t in c.transposes)
    pairs, xs, ys = f"{units.value(op, c.axes[0])}.count", f"{x}.shape", f"{y}.shape"
    flipped = f"{tx} && {xs}.count == 2"  # (x a reversed matrix: inner x rows as stored)

    def within(value: str, rank: str) -> str:
        return f"{pairs} <= {rank} ? {value} : 0"

    sizes = {"rows": f"{flipped} ? {xs}.size(0) : ({within(f'{xs}.step({pairs}, {xs}.count)', f'{xs}.count')})",
             "inner": f"{flipped} ? {xs}.size(1) : ({within(f'{xs}.step(0, {pairs})', f'{xs}.count')})",
             "cols": f"{ty} && {ys}.count == 2 ? {ys}.size(1) : "
                     f"({within(f'{ys}.step(0, {ys}.count - {pairs})', f'{ys}.count')})"}
    return [(source, f"product_{source}", sizes[source]) for _, source in kernel.parameters if source in sizes]


def _windowed(op: Op, kernel: c_emit.PlainKernel) -> list[tuple[str, str, str]]:
    """(the source, the Expression's name and value) of an einsum's sizes over convolution axes
    (``windows_kernel``): a label's, the output's axis or an input's it labels (0 where the input
    has another rank: the unit Asserts it), else the form's (a pool's window); each convolution
    axis's stride, dilation and padding as the form computes them, and the extent of the axis it
    reads. Axes count from the innermost."""
    c = op.compute
    render, windows = units.shape_renderer(op), c.windows()
    # (where a label's size is read: the output's shape, declared, then each input's, Asserted)
    placed = [("output_shape", c.spec.output, True),
              *((f"{n}.shape", o, False) for n, o in zip(c.inputs, c.spec.inputs))]

    def axis_of(shape: str, operand, declared: bool, k: int) -> str:
        """Label ``k`` of ``operand``: its axis from the innermost (a row variable leads)."""
        at = f"{shape}.size({len(operand.labels) - 1 - k})"
        fits = f">= {len(operand.named)}" if operand.has_ellipsis else f"== {len(operand.labels)}"
        return at if declared else f"{shape}.count {fits} ? {at} : 0"

    def size(label: str) -> str:
        for shape, operand, declared in placed:
            if label in operand.labels:
                return axis_of(shape, operand, declared, operand.labels.index(label))
        return render.render(c.size(label))

    def extent(w) -> str:
        operand = c.spec.inputs[c.inputs.index(w.operand)]
        return axis_of(f"{w.operand}.shape", operand, False, operand.labels.index(w.conv))

    values = {"stride": lambda w: render.render(w.stride), "dilation": lambda w: render.render(w.dilation),
              "pad": lambda w: render.render(w.pad_begin), "pad_end": lambda w: render.render(w.pad_end),
              "extent": extent}
    # (the batch: the output's leading axes beyond its labels)
    labelled = len(c.spec.output.named)
    batch = f"output_shape.step({labelled}, output_shape.count)" if c.spec.output.has_ellipsis else "1"
    out = []
    for _, source in kernel.parameters:
        what, _, which = source.partition(":")
        if source == "batch":
            out.append((source, "window_batch", batch))
        elif what == "batch":  # (an input's leading axes: the output's, or one element read for every batch)
            operand, n = c.spec.inputs[c.inputs.index(which)], f"{which}.shape"
            k = len(operand.named)
            out.append((source, f"{which}_batch", f"{n}.count >= {k} && {n}.step({k}, {n}.count) == window_batch ? "
                                                  f"{n}.step(0, {k}) : 0"))
        elif what == "size":
            out.append((source, f"label_{which}", size(which)))
        elif what in values:
            out.append((source, f"window_{what}{which}", values[what](windows[int(which)])))
    assert not render.hidden, "an einsum's sizes are built from no shape"
    return out


#: The geometries whose sizes' Expressions are per kernel: a loop per axis, the values of a query,
#: a scatter's, a ramp's ends, indices into several axes, broadcast batches of matrices.
_LOOPED = {"broadcast": lambda op, kernel: _broadcast(kernel), "strided": _strided, "padded": _strided,
           "valued": _valued, "scattered": _scattered, "ramp": _ramp, "indexed": _indexed, "sequences": _indexed,
           "batches": _batches, "product": _product, "windowed": _windowed}


def contracts(op: Op, kernels: Sequence[c_emit.PlainKernel]) -> list[tuple[str, str]]:
    """(test, error) Asserts for what the kernels cannot compute: kernels of a loop per axis
    (broadcast, strided, padded, broadcast batches) or of an index per axis (gather_nd) take
    tensors of MAX_RANK axes at most; an arg the caller converts to the dtype (a fill's value,
    one_hot's on and off) must convert exactly (as the C API checks it: an integer within an
    integer dtype's limits, 0 or 1 for bool); a range's ends must fit the dtype (``_ends``)."""
    out = []
    looped = {"broadcast": "broadcasts", "strided": "moves the elements of", "padded": "pads",
              "batches": "multiplies matrices of", "indexed": "gathers from"}
    for geometry, does in looped.items():
        if any(k.geometry == geometry for k in kernels):
            out += [(f"{i.name}.shape.count <= {abi.MAX_RANK}",
                     f"{i.name}: a unit {does} tensors of rank {abi.MAX_RANK} at most ({i.name}: {{{i.name}.shape}})")
                    for i in op.inputs]
    converted = [k for k in kernels if k.exact]
    # the dtype: the option's, or the first tensor's type (a pad converts to x's)
    by_arg = C.dtype_from_arg(op.compute)
    dtype = units.value(op, "dtype") if by_arg else f"{units.first_tensor(op)}.type"
    # (a pad converts its value only for constant edges: the C API checks it only then)
    plan = op.compute.strides() if isinstance(op.compute, C.LayoutMove) else None
    unless = f'{units.value(op, plan.edges)} != "{C.PAD_MODES[0]}" || ' if plan is not None and plan.edges else ""
    for arg in dict.fromkeys(a for k in converted for a in k.exact):
        value = units.value(op, arg)
        tests = []
        for d in dict.fromkeys(k.variant.dtype for k in converted):
            other = f'{dtype} != "{d}"' if by_arg else f"{dtype} != {units.VALUE_TYPE[d]}"
            limits = VALUE_TYPES[units.VALUE_TYPE[d].removeprefix("System.")].limits()
            if limits is not None:
                low, high = limits  # (below high + 1: a power of two, exact in a double)
                tests.append(f"({other} || ({value} >= {low} && {value} < {high + 1} && "
                             f"{value} == Math.floor({value})))")
            elif d == "bool":
                tests.append(f"({other} || {value} == 0 || {value} == 1)")
        if tests:
            out.append((unless + " && ".join(tests),
                        f"{arg}: must convert exactly to the dtype ({{{dtype}}}: {{{value}}})"))
    return out + _ends(op, kernels) + _product_contract(op, kernels) + _batch_contract(op, kernels)


def _batch_contract(op: Op, kernels: Sequence[c_emit.PlainKernel]) -> list[tuple[str, str]]:
    """The Assert that each input of an einsum over windows has the output's leading axes (the
    row variable's), or leading axes of one element: its kernel steps through a batch, and
    reads such an input again for each (``_windowed``)."""
    c = op.compute
    if not any(k.geometry == "windowed" for k in kernels) or not c.spec.output.has_ellipsis:
        return []
    tests = []
    for name, operand in zip(c.inputs, c.spec.inputs):
        n, k = f"{name}.shape", len(operand.named)
        tests.append(f"({n}.count < {k} || {n}.step({k}, {n}.count) == window_batch || {n}.step({k}, {n}.count) == 1)")
    shapes = ", ".join(f"{n}: {{{n}.shape}}" for n in c.inputs)
    return [(" && ".join(tests), f"{', '.join(c.inputs)}: a unit broadcasts the leading axes of an input only where "
                                 f"they hold one element ({shapes})")]


def _product_contract(op: Op, kernels: Sequence[c_emit.PlainKernel]) -> list[tuple[str, str]]:
    """The Assert that a tensordot is the one matrix product its kernel computes (the form's
    ``matrix_product``); other pairings need a Permute before the unit."""
    if not any(k.geometry == "product" for k in kernels):
        return []
    c = op.compute
    (x, y), (ax, ay), (tx, ty, tz) = c.inputs, c.axes, c.transposes
    test = units.shape_renderer(op).render(c.matrix_product())
    return [(test, f"{x}, {y}: a unit computes one matrix product: {ax} must name the last axes of {x} and {ay} the "
                   f"first axes of {y}, pair by pair in order; {tx} and {ty} need a tensor of at most 2 axes (of 2: "
                   f"one pair), {tz} at most one free axis of each; permute first ({x}: {{{x}.shape}}, "
                   f"{y}: {{{y}.shape}})")]


def _ends(op: Op, kernels: Sequence[c_emit.PlainKernel]) -> list[tuple[str, str]]:
    """The Assert that a range's or linspace's ends (the form's ``Generation.ends``, the
    Expressions of ``_ramp``), truncated toward zero, lie within the range of an integer dtype,
    where there are values (the C API's check)."""
    if not any(k.geometry == "ramp" for k in kernels):
        return []
    dtype, tests = units.value(op, "dtype"), []
    for d in dict.fromkeys(k.variant.dtype for k in kernels):
        limits = VALUE_TYPES[units.VALUE_TYPE[d].removeprefix("System.")].limits()
        if limits is not None:
            low, high = limits  # (truncated within low..high: above low - 1, below high + 1, a power
            # of two; at or above low where low - 1 is no double: int64's)
            above = (lambda v: f"{v} > {low - 1}") if low > -2**53 else (lambda v: f"{v} >= {low}")
            inside = " && ".join(f"{above(v)} && {v} < {high + 1}" for v in ("first_value", "last_value"))
            tests.append(f'({dtype} != "{d}" || output_count == 0 || ({inside}))')
    message = op.compute.value_refusals(op)[0]
    return [(" && ".join(tests), f"{message} ({{{dtype}}}: {{first_value}} to {{last_value}})")] if tests else []


def _listed(op: Op, kernel: c_emit.PlainKernel) -> tuple[list[str], list[tuple[str, str, str | None]]]:
    """A list geometry's sockets and the Expressions of its sizes."""
    return _merged(op, kernel) if kernel.geometry == "merged" else _joined(op, kernel)


def _joined(op: Op, kernel: c_emit.PlainKernel) -> tuple[list[str], list[tuple[str, str, str | None]]]:
    """(the sockets of a join's list input, the Expressions (name, value, conditional) of its
    blocks and slot): a socket's block holds its axes inside the join's axis (concat: and
    that axis), a slot the axes outside; the axis counts from the innermost, in the result's
    rank. An unconnected socket's block is empty."""
    listed = next(i for i in op.inputs if i.name == _names(op, kernel)["x"])
    sockets = units.sockets(listed)
    axis, n = _names(op, kernel)["axis"], f"{sockets[0]}.shape.count"
    rank = f"({n} + 1)" if kernel.geometry == "stacked" else n
    inner = f"({axis} >= 0 ? {axis} : {axis} + {rank})" + (" + 1" if kernel.geometry == "joined" else "")
    fits = f"{axis} >= -{rank} && {axis} < {rank}"
    blocks = [(f"join_block{k}", f"{s} == null || {s}.shape.count < {inner} ? 0 : {s}.shape.step(0, {inner})", fits)
              for k, s in enumerate(sockets)]
    return sockets, [*blocks, ("join_slot", f"{sockets[0]}.shape.step({inner}, {n})", fits)]


def expressions(op: Op, kernels: tuple[c_emit.PlainKernel, ...]) -> list[dict[str, str]]:
    """The Expressions (their attributes) every geometry among ``kernels`` needs, each once."""
    out: dict[str, dict[str, str]] = {}
    for kernel in kernels:
        if kernel.geometry in (*_LISTS, "parted", "meshed"):
            listed = {"parted": _parted, "meshed": _meshed}.get(kernel.geometry, _listed)(op, kernel)
            for name, value, conditional in listed[-1]:
                element = {"name": name, "value": value} | ({"conditional": conditional} if conditional else {})
                out.setdefault(name, element)
            continue
        if kernel.geometry in _LOOPED:
            for _, name, value in _LOOPED[kernel.geometry](op, kernel):
                out.setdefault(name, {"name": name, "value": value})
            continue
        geometry, names = GEOMETRIES[kernel.geometry], _names(op, kernel)
        # a size that is one axis of a tensor: Imaginet counts that axis from the last, 0
        one_axis = {size: f"{tensor}.shape.size({-1 - axis})" for size, tensor, axis in kernel.axes}
        sized = ((n, one_axis.get(size, v), c) for size, n, v, c in geometry.sizes)
        per_tensor = ((name, value, None) for _, name, value in _tensor_sizes(op, kernel))
        for name, value, conditional in (*geometry.prelude, *sized, *per_tensor):
            element = {"name": name, "value": value.format(**names)}
            if conditional is not None:
                element["conditional"] = conditional.format(**names)
            out.setdefault(name, element)
    return list(out.values())


def conditions(op: Op, kernel: c_emit.PlainKernel) -> list[str]:
    """The Conditionals beyond the element types that choose the kernel: its geometry's, then
    its case's (which optional args the unit is given)."""
    return _geometry_conditions(op, kernel) + _case_conditions(op, kernel)


def _geometry_conditions(op: Op, kernel: c_emit.PlainKernel) -> list[str]:
    geometry, names = GEOMETRIES[kernel.geometry], _names(op, kernel)
    # (an elementwise op whose shapes must be equal has its contract say so: no Conditional repeats it)
    equal = isinstance(op.compute, C.Elementwise) and op.compute.broadcast == "equal"
    same = [] if equal else [f"{i.name}.shape == {names['x']}.shape" for i in op.inputs if i.name != names["x"]]
    fewer = [f"output_shape.count <= {kernel.rank}"] if kernel.rank < abi.MAX_RANK else []  # (loops)
    return (same if geometry.same_shapes else []) + [c.format(**names) for c in geometry.conditions] + fewer


def case_conditions(op: Op, kernel: c_emit.PlainKernel) -> list[str]:
    """The Conditionals of the kernel's case alone (a table's Init: filled for the case's tree)."""
    return _case_conditions(op, kernel)


def _case_conditions(op: Op, kernel: c_emit.PlainKernel) -> list[str]:
    """An optional arg is given when its ``use_<arg>`` option is set (``units.options``); an
    input of its own dtype (cast's) that the kernel reads has the kernel's type for it."""
    read = {source for _, source in kernel.parameters}
    own = [f"{i}.type == {units.VALUE_TYPE[kernel.variant.of(i)]}" for i in C.own_dtype_inputs(op) if i in read]
    return own + [f"use_{p} == {'true' if given else 'false'}" for p, given in kernel.presence or ()]


def covers(op: Op, kernels: Sequence[c_emit.PlainKernel]) -> bool:
    """Whether the plain kernels compute every case the unit's Asserts let through: for each
    dtype and each case of the op's optional args, one chosen by its element types (and that
    case) alone. Such a unit needs no checked adapter, nor the dims it takes (ADR 0032)."""
    # (an op's every case: each has the same float kernels; a logarithm's Q kernel serves them all)
    cases = {k.presence for k in kernels if not k.fixed_point}
    covered: dict[str, set] = {}
    for k in kernels:
        if not k.fixed_point and not _geometry_conditions(op, k):  # (a Q type's: an addition)
            covered.setdefault(k.variant.dtype, set()).add(k.presence)
    return bool(kernels) and all(covered.get(v.dtype) == cases for v in variants_of(op))


def entry_name(op: Op, kernel: c_emit.PlainKernel) -> str:
    rank = str(kernel.rank) if kernel.rank < abi.MAX_RANK else ""
    return (f"{abi.function(op)}_unit_{GEOMETRIES[kernel.geometry].name}{rank}{kernel.case}"
            f"_{kernel.fixed_point or SUFFIX[kernel.variant.dtype]}")


def call_args(op: Op, kernel: c_emit.PlainKernel) -> list[str]:
    """What the unit passes for each parameter of the entry over a plain kernel."""
    listed = _names(op, kernel)["x"]
    if kernel.geometry in _JOINS:  # each socket, the output, each socket's block, how many, the slots
        sockets, sizes = _joined(op, kernel)
        return [*sockets, op.outputs[0].name, *(name for name, _, _ in sizes[:-1]), f"{listed}_count", "join_slot"]
    if kernel.geometry == "merged":  # each socket, the output, how many, their element count
        return [*_merged(op, kernel)[0], op.outputs[0].name, f"{listed}_count", PLAIN_COUNT]
    if kernel.geometry == "meshed":  # each input socket, each output socket, how many, the sizes
        inputs, outputs, sizes = _meshed(op, kernel)
        return [*inputs, *outputs, units.PART_COUNT, *(name for name, _, _ in sizes)]
    if kernel.geometry == "parted":  # x, each output socket, how many, the block and the slots
        sockets, sizes = _parted(op, kernel)
        return [listed, *sockets, units.PART_COUNT, *(name for name, _, _ in sizes)]
    sizes = {size: name for size, name, _, _ in GEOMETRIES[kernel.geometry].sizes}
    sizes |= {source: name for source, name, _ in _tensor_sizes(op, kernel)}
    if kernel.geometry in _LOOPED:  # (its sizes' Expressions)
        sizes = {source: name for source, name, _ in _LOOPED[kernel.geometry](op, kernel)}
    args = {a.name: a for a in op.args}
    configured = {a.name: f"{cfg.name}_{a.name}" for cfg in op.configs for a in cfg.args}  # (as options name them)

    def value(source: str) -> str:
        if source in sizes:
            return sizes[source]
        if source in configured:
            return configured[source]
        if source not in args:  # a tensor
            return source
        if args[source].type in (DataType.ENUM, DataType.DATA_TYPE):  # as the adapters take them
            return f"{source}_index"
        return units.value(op, source)

    return [value(source) for _, source in kernel.parameters if not source.startswith(c_emit.SCALES)]


def _listed_entry(op: Op, kernel: c_emit.PlainKernel) -> tuple[list[str], str]:
    """(the parameters of a list geometry's entry, its body): the sockets as the kernel's list."""
    sockets = _listed(op, kernel)[0]
    ct = C_TYPE[kernel.variant.of(_names(op, kernel)["x"])]
    ot = C_TYPE[kernel.variant.of(op.outputs[0].name)]
    gather = f"const {ct}* const xs[{len(sockets)}] = {{{', '.join(sockets)}}};\n"
    if kernel.geometry == "merged":
        return ([*(f"const {ct}* {s}" for s in sockets), f"{ot}* output", "int count", "int n"],
                f"{gather}{kernel.name}(xs, count, n, output);\n")
    decls = [*(f"const {ct}* {s}" for s in sockets), f"{ot}* output",
             *(f"int block{k}" for k in range(len(sockets))), "int count", "int slot"]
    body = (f"{gather}const int blocks[{len(sockets)}] = {{{', '.join(f'block{k}' for k in range(len(sockets)))}}};\n"
            f"{kernel.name}(xs, blocks, count, slot, output);\n")
    return decls, body


def entry(op: Op, kernel: c_emit.PlainKernel, called: str | None = None) -> str:
    """The unit's entry over a plain kernel: Imaginet's ints in, a status out (it cannot fail).
    ``called`` is the dependency that names the kernel (the shared file's, where units share it)."""
    name = entry_name(op, kernel)
    what = GEOMETRIES[kernel.geometry].what.format(**_names(op, kernel))
    if kernel.geometry in _LISTS:
        decls, body = _listed_entry(op, kernel)
    elif kernel.geometry == "meshed":  # (the sockets, steps and sizes as the kernel's lists)
        inputs, outputs, _ = _meshed(op, kernel)
        ct = C_TYPE[kernel.variant.of(op.compute.source)]
        listed = lambda fmt: ", ".join(fmt.format(k) for k in range(len(inputs)))  # noqa: E731
        decls = [*(f"const {ct}* {s}" for s in inputs), *(f"{ct}* {s}" for s in outputs), "int count", "int n",
                 *(f"int step{k}" for k in range(len(inputs))), *(f"int size{k}" for k in range(len(inputs)))]
        body = (f"const {ct}* const xs[{len(inputs)}] = {{{', '.join(inputs)}}};\n"
                f"{ct}* const outputs[{len(outputs)}] = {{{', '.join(outputs)}}};\n"
                f"const int steps[{len(inputs)}] = {{{listed('step{}')}}};\n"
                f"const int sizes[{len(inputs)}] = {{{listed('size{}')}}};\n"
                f"{kernel.name}(xs, outputs, count, n, steps, sizes);\n")
    elif kernel.geometry == "parted":  # (the sockets as the kernel's list)
        sockets, ct = _parted(op, kernel)[0], C_TYPE[kernel.variant.of(_names(op, kernel)["x"])]
        decls = [f"const {ct}* x", *(f"{ct}* {s}" for s in sockets), "int count", "int block", "int slot"]
        body = (f"{ct}* const outputs[{len(sockets)}] = {{{', '.join(sockets)}}};\n"
                f"{kernel.name}(x, outputs, count, block, slot);\n")
    else:
        flat = kernel.geometry == "flat"
        decls, args = [], []
        for decl, source in kernel.parameters:
            if source.startswith(c_emit.SCALES):  # (NULL: one scale, as the guide's sockets carry it)
                args.append("NULL")
                continue
            decls.append("int count" if flat and source == "n" else decl)
            args.append(decls[-1].rsplit(" ", 1)[1].lstrip("*"))  # each parameter's own name
        body = f"{kernel.name}({', '.join(args)});\n"
    returns, result = "Returns 0.", "return 0;\n"
    if kernel.failure:  # (a kernel that may fail says so with an int that is not 0)
        returns = f"Returns 0, or -2 (IPWIN_RET_ERROR) where it fails: {c_comment(kernel.failure)}."
        body, result = f"const int failed = {body}", "return failed != 0 ? -2 : 0;\n"
    return (f'#pragma IMAGINET_FRAGMENT_BEGIN "{name}"\n#pragma IMAGINET_FRAGMENT_DEPENDENCY "{called or kernel.name}"\n'
            f"/* {what} {returns} */\n"
            f"static inline int {name}({', '.join(decls)})\n{{\n{body}{result}}}\n"
            f"#pragma IMAGINET_FRAGMENT_END\n")
