"""Layout: elements moved without arithmetic (reshape, permute, slice, pad, gather, ...)."""

from __future__ import annotations

from typing import Any

import attrs

from dsl import expr as E
from dsl import shapes as Sh

from dsl.forms.checks import Check

@attrs.frozen
class LayoutMove:
    """Elements of ``input`` moved, not computed: reshape, permute, slice, pad, ...

    ``params`` maps each role the kind takes (:data:`LAYOUT_ROLES`) to the
    op's arg that gives it.
    """

    layout: str
    input: str
    params: tuple[tuple[str, str], ...]

    kind = "layout"
    #: Moved, not computed: a float16 variant moves halves (ADR 0075).
    takes_half = True

    def arg(self, role: str) -> str:
        return dict(self.params)[role]

    def problems(self, op: Any, check: Check) -> None:
        check.need_input(self.input)
        check.roles("layout", self.layout, LAYOUT_ROLES, self.params, self.input)
        if self.input in check.inputs and op.outputs and op.outputs[0].type is not check.inputs[self.input].type:
            check.add(f"a layout's output has the type of its input ({check.inputs[self.input].type.value})")

    def output_shapes(self, op: Any) -> tuple[Any, ...]:
        return (_LAYOUT_SHAPES[self.layout](self),)

    def strides(self) -> "Strides | None":
        """Where each output element is read, for a layout that reads x at evenly spaced
        places along each output axis (permute, transpose, reverse, slice, strided_slice; tile,
        wrapping around; pad, with edges); None for the others."""
        plan = _LAYOUT_STRIDES.get(self.layout)
        return plan(self) if plan is not None else None

    def refusals(self, op: Any) -> tuple[Sh.Refusal, ...]:
        return tuple(_LAYOUT_REFUSALS.get(self.layout, lambda c: ())(self))

    def x(self) -> Any:
        return Sh.tensor(self.input)

    def rank(self) -> Any:
        return Sh.rank(self.input)

    def role(self, role: str) -> Any:
        """The arg (or, for a tensor role, the input's shape) bound to ``role``."""
        kinds = dict(LAYOUT_ROLES[self.layout])
        return Sh.tensor(self.arg(role)) if kinds[role] in ("tensor", "values") else Sh.arg(self.arg(role))

    def value_refusals(self, op: Any) -> tuple[str, ...]:
        """What the targets check on values at run time (no shape says it)."""
        if self.layout in ("gather", "gather_nd"):
            return (f"{self.arg('indices')}: values must lie in -n..n-1 for an axis of size n",)
        if self.layout == "reverse_sequence":
            return (f"{self.arg('seq_lengths')}: values must lie in 0..the size of the sequence axis",)
        if self.layout == "pad":
            return (f"{self.arg('value')}: must convert exactly to the dtype",)
        return ()

@attrs.frozen
class Strides:
    """A strided layout's reading plan. Output element ``(i_0, ..., i_{r-1})`` is the element
    of x whose index along each axis ``a`` of x is ``start[a]`` plus ``i_d * step[d]`` for
    every output axis ``d`` with ``source[d] == a``. ``source`` and ``step`` are per output
    axis, ``start`` per axis of x (:class:`~dsl.shapes.PerAxis`, NumPy's axis order); a step
    is in elements of its axis of x, negative backwards. Targets that address x by element
    offsets (units) scale each by the axis's stride. Where ``period`` is given (tile), output
    index ``i_d`` is taken modulo ``period[d]`` first: the output repeats x along that axis.
    Where ``edges`` names an arg (pad's mode, one of :data:`PAD_MODES`), an index outside x is
    read as that mode says: ``fill`` (an arg) for constant, mirrored once for reflect (without
    the edge element) and symmetric (with it), the nearest edge element for edge, and the axis
    repeated for wrap (NumPy's pad modes of those names)."""

    source: Sh.PerAxis
    step: Sh.PerAxis
    start: Sh.PerAxis
    period: Sh.PerAxis | None = None
    edges: str | None = None
    fill: str | None = None
    #: Where given, the shape the output's elements are read in (in order, so a reshape of the
    #: output); ``source`` and ``step`` are then per axis of it (ADR 0063). A block move reads so
    #: (space_to_depth, depth_to_space: a reshape, a permute and a reshape in one plan), and an
    #: upsampling, whose steps of 0 read each element again.
    view: Sh.PerAxis | None = None


#: Layout kinds -> the roles they take: (role, "list" | "int" | "enum" | "float" | "tensor" | "values").
#: A "tensor" role names a LONG input (gather's indices), a "values" role an
#: input of the moved tensor's type (set_diag's diagonal).
LAYOUT_ROLES: dict[str, tuple[tuple[str, str], ...]] = {
    "reshape": (("shape", "list"),),
    "permute": (("perm", "list"),),
    "transpose": (),
    "squeeze": (("axis", "int"),),
    "expand_dims": (("axis", "int"),),
    "narrow": (),
    "reverse": (("axes", "list"),),
    "tile": (("repeats", "list"),),
    "slice": (("begin", "list"), ("size", "list")),
    "strided_slice": (("begin", "list"), ("end", "list"), ("strides", "list")),
    "pad": (("paddings", "list"), ("mode", "enum"), ("value", "float")),
    "gather": (("indices", "tensor"), ("axis", "int")),
    "gather_nd": (("indices", "tensor"),),
    "reverse_sequence": (("seq_lengths", "tensor"), ("seq_axis", "int"), ("batch_axis", "int")),
    "diag": (),
    "set_diag": (("diagonal", "values"),),
    "space_to_depth": (("block_size", "int"), ("mode", "enum"), ("data_format", "enum")),
    "depth_to_space": (("block_size", "int"), ("mode", "enum"), ("data_format", "enum")),
    "space_to_batch": (("block_size", "int"), ("data_format", "enum")),
    "batch_to_space": (("block_size", "int"), ("data_format", "enum")),
    "upsample": (("scale_h", "int"), ("scale_w", "int"), ("data_format", "enum")),
}
#: Layouts whose indices are data: a runtime copy, not a plan (the C function checks every index).
DATA_LAYOUTS = ("gather", "gather_nd", "reverse_sequence", "diag", "set_diag")

#: The values a pad's mode arg must offer, in this order (the kernels number them so).
PAD_MODES = ("constant", "reflect", "symmetric", "edge", "wrap")
#: The data layouts of space_to_depth, depth_to_space and upsample: channels before the two
#: spatial axes (ONNX's) or after them (TensorFlow's default, which ND4J offers too).
DATA_FORMATS = ("NCHW", "NHWC")
#: The channel orders of space_to_depth and depth_to_space (ONNX's modes): the block's
#: position outermost (DCR: depth, column, row) or innermost (CRD).
DEPTH_MODES = ("DCR", "CRD")
#: The values each enum role must offer, in this order, by (layout, role).
LAYOUT_ENUMS: dict[tuple[str, str], tuple[str, ...]] = {
    ("pad", "mode"): PAD_MODES, ("space_to_depth", "data_format"): DATA_FORMATS, ("space_to_depth", "mode"): DEPTH_MODES,
    ("depth_to_space", "data_format"): DATA_FORMATS, ("depth_to_space", "mode"): DEPTH_MODES,
    ("upsample", "data_format"): DATA_FORMATS, ("space_to_batch", "data_format"): DATA_FORMATS,
    ("batch_to_space", "data_format"): DATA_FORMATS,
}


# ---------------------------------------------------------------- shapes and refusals, by kind

_K = Sh.Axis()


def _item(shape: Any, k: Any = _K) -> Any:
    return Sh.Item(shape, k)


def _reshape(c: LayoutMove) -> Any:
    dims = c.role("shape")
    known = Sh.Numel(dims)  # -prod(others) where one size is -1
    inferred = Sh.Where(Sh.compare(known, "==", 0), Sh.size(0), Sh.floordiv(Sh.Numel(c.x()), E.Neg(known)))
    return Sh.PerAxis(Sh.Length(dims), Sh.Where(Sh.compare(_item(dims), "==", -1), inferred, _item(dims)))


def _reshape_refusals(c: LayoutMove) -> list[Sh.Refusal]:
    dims = c.role("shape")
    known = Sh.Numel(dims)
    total = Sh.Numel(c.x())
    minus_ones = Sh.Numel(Sh.PerAxis(Sh.Length(dims), Sh.size(2), Sh.compare(_item(dims), "==", -1)))
    one_inferred = Sh.compare(minus_ones, "==", 2)  # (2 ** how many sizes are -1)
    return [Sh.at_most_max_rank(dims, c.arg("shape")),
            Sh.Refusal(f"{c.arg('shape')}: sizes must be non-negative, with at most one -1", Sh.all_of(
                Sh.AllValues(dims, Sh.compare(Sh.Value(), ">=", -1)), Sh.compare(minus_ones, "<=", 2))),
            Sh.Refusal(f"{c.arg('shape')}: does not hold the elements of {c.input}", Sh.any_of(
                Sh.all_of(one_inferred, Sh.compare(known, "!=", 0), Sh.compare(E.Arith("%", total, E.Neg(known)), "==", 0)),
                Sh.all_of(Sh.not_(one_inferred), Sh.compare(known, "==", total))))]


def _permutation(c: LayoutMove) -> Any:
    if c.layout == "transpose":
        return None
    return c.role("perm")


def _permute(c: LayoutMove) -> Any:
    perm = _permutation(c)
    if perm is None:
        return Sh.reversed_shape(c.x())
    return Sh.PerAxis(Sh.Length(perm), _item(c.x(), Sh.normalized(_item(perm), c.rank())))


def _permute_refusals(c: LayoutMove) -> list[Sh.Refusal]:
    perm = _permutation(c)
    if perm is None:
        return []
    return [Sh.Refusal(f"{c.arg('perm')}: must name every axis of {c.input} once", Sh.all_of(
        Sh.compare(Sh.Length(perm), "==", c.rank()), Sh.AllValues(perm, Sh.in_range(Sh.Value(), c.rank())),
        Sh.Distinct(perm, c.rank())))]


def _axis(c: LayoutMove, rank: Any = None) -> Any:
    return Sh.normalized(c.role("axis"), rank if rank is not None else c.rank())


def _in_range(c: LayoutMove, role: str, rank: Any = None) -> Sh.Refusal:
    rank = rank if rank is not None else c.rank()
    return Sh.Refusal(f"{c.arg(role)}: out of range for the rank of {c.input}", Sh.in_range(c.role(role), rank))


def _squeeze_refusals(c: LayoutMove) -> list[Sh.Refusal]:
    return [_in_range(c, "axis"),
            Sh.Refusal(f"{c.arg('axis')}: must name an axis of size 1", Sh.compare(_item(c.x(), _axis(c)), "==", 1))]


def _expand_refusals(c: LayoutMove) -> list[Sh.Refusal]:
    rank = Sh.add(c.rank(), 1)
    return [_in_range(c, "axis", rank), Sh.Refusal(f"{c.input}: the result's rank is above {Sh.MAX_RANK}",
                                                   Sh.compare(rank, "<=", Sh.MAX_RANK))]


def _reverse_refusals(c: LayoutMove) -> list[Sh.Refusal]:
    axes = c.role("axes")
    return [Sh.Refusal(f"{c.arg('axes')}: out of range for the rank of {c.input}",
                       Sh.AllValues(axes, Sh.in_range(Sh.Value(), c.rank()))),
            Sh.Refusal(f"{c.arg('axes')}: repeats an axis", Sh.Distinct(axes, c.rank()))]


def _tile(c: LayoutMove) -> Any:
    return Sh.PerAxis(c.rank(), Sh.mul(_item(c.x()), _item(c.role("repeats"))))


def _one_per_axis(c: LayoutMove, roles: tuple[str, ...], per_axis: int = 1) -> Sh.Refusal:
    return Sh.Refusal(f"{', '.join(c.arg(r) for r in roles)}: need {per_axis if per_axis > 1 else 'one'} "
                      f"value{'s' if per_axis > 1 else ''} per axis of {c.input}",
                      Sh.all_of(*(Sh.compare(Sh.Length(c.role(r)), "==", Sh.mul(c.rank(), per_axis)) for r in roles)))


def _too_large(c: LayoutMove, role: str) -> Sh.Refusal:
    return Sh.Refusal(f"{c.arg(role)}: the result is too large",
                      Sh.compare(Sh.Numel(_LAYOUT_SHAPES[c.layout](c)), "<=", Sh.MAX_ELEMENTS))


def _tile_refusals(c: LayoutMove) -> list[Sh.Refusal]:
    return [_one_per_axis(c, ("repeats",)),
            Sh.Refusal(f"{c.arg('repeats')}: counts must be non-negative",
                       Sh.AllValues(c.role("repeats"), Sh.compare(Sh.Value(), ">=", 0))),
            _too_large(c, "repeats")]


def _slice_size(c: LayoutMove, k: Any = _K) -> Any:
    begin, size = c.role("begin"), c.role("size")
    return Sh.Where(Sh.compare(_item(size, k), "==", -1), Sh.sub(_item(c.x(), k), _item(begin, k)), _item(size, k))


def _slice_refusals(c: LayoutMove) -> list[Sh.Refusal]:
    begin = c.role("begin")
    fits = Sh.all_of(Sh.compare(_item(begin), ">=", 0), Sh.compare(_item(begin), "<=", _item(c.x())),
                     Sh.compare(_slice_size(c), ">=", 0),
                     Sh.compare(Sh.add(_item(begin), _slice_size(c)), "<=", _item(c.x())))
    return [_one_per_axis(c, ("begin", "size")),
            Sh.Refusal(f"{c.arg('begin')}, {c.arg('size')}: must lie within {c.input}", Sh.ForAxes(c.rank(), fits))]


def _strided(c: LayoutMove) -> Any:
    """len(range(n)[b:e:s]) per axis, as Python's slice.indices clamps the bounds."""
    n, b, e, s = _item(c.x()), _item(c.role("begin")), _item(c.role("end")), _item(c.role("strides"))

    def clamp(v: Any, low: Any, high: Any) -> Any:
        wrapped = Sh.Where(Sh.compare(v, "<", 0), Sh.add(v, n), v)
        return Sh.Max((low, Sh.Min((wrapped, high)))) if low is not None else Sh.Min((wrapped, high))

    up_b, up_e = clamp(b, Sh.size(0), n), clamp(e, Sh.size(0), n)
    down_b, down_e = clamp(b, Sh.size(-1), Sh.sub(n, 1)), clamp(e, Sh.size(-1), Sh.sub(n, 1))
    up = Sh.Where(Sh.compare(up_e, ">", up_b), Sh.floordiv(Sh.add(Sh.sub(up_e, up_b), Sh.sub(s, 1)), s), Sh.size(0))
    down = Sh.Where(Sh.compare(down_b, ">", down_e),
                    Sh.floordiv(Sh.sub(Sh.sub(down_b, down_e), Sh.add(s, 1)), E.Neg(s)), Sh.size(0))
    return Sh.PerAxis(c.rank(), Sh.Where(Sh.compare(s, ">", 0), up, down))


def _strided_refusals(c: LayoutMove) -> list[Sh.Refusal]:
    strides = c.role("strides")
    return [_one_per_axis(c, ("begin", "end", "strides")),
            Sh.Refusal(f"{c.arg('strides')}: must be non-zero (and at most 2**62 in size)", Sh.AllValues(
                strides, Sh.all_of(Sh.compare(Sh.Value(), "!=", 0), Sh.compare(Sh.Value(), "<=", 2**62),
                                   Sh.compare(Sh.Value(), ">=", -(2**62)))))]


def _pad(c: LayoutMove) -> Any:
    pads = c.role("paddings")
    return Sh.PerAxis(c.rank(), Sh.add(_item(c.x()), Sh.add(_item(pads, Sh.mul(_K, 2)),
                                                             _item(pads, Sh.add(Sh.mul(_K, 2), 1)))))


def _pad_refusals(c: LayoutMove) -> list[Sh.Refusal]:
    pads, mode = c.role("paddings"), c.role("mode")
    n = _item(c.x())
    before, after = _item(pads, Sh.mul(_K, 2)), _item(pads, Sh.add(Sh.mul(_K, 2), 1))
    limit = Sh.Max((Sh.size(0), Sh.Where(E.Compare("==", mode, E.Literal("reflect")), Sh.sub(n, 1), n)))
    mirrored = Sh.any_of(E.Compare("==", mode, E.Literal("reflect")), E.Compare("==", mode, E.Literal("symmetric")))
    # (constant pads any axis; edge and wrap any but an empty one; a mirror at most once)
    within = Sh.any_of(E.Compare("==", mode, E.Literal("constant")),
                       Sh.all_of(mirrored, Sh.compare(before, "<=", limit), Sh.compare(after, "<=", limit)),
                       Sh.all_of(Sh.not_(mirrored), Sh.any_of(Sh.compare(n, ">", 0),
                                                               Sh.compare(Sh.add(before, after), "==", 0))))
    return [_one_per_axis(c, ("paddings",), 2),
            Sh.Refusal(f"{c.arg('paddings')}: must be non-negative", Sh.AllValues(pads, Sh.compare(Sh.Value(), ">=", 0))),
            Sh.Refusal(f"{c.arg('paddings')}: a reflect or symmetric pad is longer than its axis allows, or an edge "
                       "or wrap pad extends an empty axis",
                       Sh.ForAxes(c.rank(), within)),
            _too_large(c, "paddings")]


def _gather(c: LayoutMove) -> Any:
    a = _axis(c)
    return Sh.Concat((Sh.Slice(c.x(), None, a), c.role("indices"), Sh.Slice(c.x(), Sh.add(a, 1), None)))


def _gather_nd(c: LayoutMove) -> Any:
    indices = c.role("indices")
    return Sh.Concat((Sh.Slice(indices, None, -1), Sh.Slice(c.x(), Sh.last(indices), None)))


def _gather_nd_refusals(c: LayoutMove) -> list[Sh.Refusal]:
    indices = c.role("indices")
    return [Sh.Refusal(f"{c.arg('indices')}: must have rank 1 or more (its last axis indexes {c.input})",
                       Sh.compare(Sh.Length(indices), ">=", 1)),
            Sh.Refusal(f"{c.arg('indices')}: its last axis must not be longer than the rank of {c.input}",
                       Sh.compare(Sh.last(indices), "<=", c.rank())),
            Sh.at_most_max_rank(_gather_nd(c), c.arg("indices"))]


def _reverse_sequence_refusals(c: LayoutMove) -> list[Sh.Refusal]:
    seq, batch = c.role("seq_axis"), c.role("batch_axis")
    return [_in_range(c, "seq_axis"), _in_range(c, "batch_axis"),
            Sh.Refusal(f"{c.arg('seq_axis')}, {c.arg('batch_axis')}: must be different axes",
                       Sh.compare(Sh.normalized(seq, c.rank()), "!=", Sh.normalized(batch, c.rank()))),
            Sh.Refusal(f"{c.arg('seq_lengths')}: must be a vector as long as the batch axis of {c.input}",
                       Sh.ShapesEqual(c.role("seq_lengths"), Sh.Dims((_item(c.x(), Sh.normalized(batch, c.rank())),))))]


def _diagonal(c: LayoutMove) -> Any:
    """x's batch axes, then min(rows, cols): the shape of set_diag's diagonal."""
    x = c.x()
    return Sh.Concat((Sh.Slice(x, None, -2), Sh.Dims((Sh.Min((_item(x, Sh.sub(c.rank(), 2)), Sh.last(x))),))))


def _set_diag_refusals(c: LayoutMove) -> list[Sh.Refusal]:
    return [Sh.Refusal(f"{c.input}: must have rank 2 or more (matrices in the last two axes)",
                       Sh.compare(c.rank(), ">=", 2)),
            Sh.Refusal(f"{c.arg('diagonal')}: must have {c.input}'s batch axes, then min(rows, cols)",
                       Sh.ShapesEqual(c.role("diagonal"), _diagonal(c)))]


def _listed(*sizes: Any) -> Any:
    """The size at axis k of a shape listed axis by axis."""
    size = Sh.size(sizes[-1])
    for k in range(len(sizes) - 2, -1, -1):
        size = Sh.Where(Sh.compare(_K, "==", k), Sh.size(sizes[k]), size)
    return size


def _channels_last(c: LayoutMove) -> Any:
    return E.Compare("==", c.role("data_format"), E.Literal(DATA_FORMATS[1]))


def _by_format(c: LayoutMove, first: tuple[Any, ...], last: tuple[Any, ...]) -> Any:
    """Per axis k: ``first[k]`` for channels first (NCHW), ``last[k]`` for channels last (NHWC)."""
    return Sh.Where(_channels_last(c), _listed(*last), _listed(*first))


def _images(c: LayoutMove) -> tuple[Any, Any, Any, Any]:
    """x's batch, channels, height and width, in either data format."""
    x = c.x()
    channels = Sh.Where(_channels_last(c), _item(x, Sh.size(3)), _item(x, Sh.size(1)))
    height, width = (Sh.Where(_channels_last(c), _item(x, Sh.size(a)), _item(x, Sh.size(a + 1))) for a in (1, 2))
    return _item(x, Sh.size(0)), channels, height, width


def _blocks(c: LayoutMove) -> tuple[Any, Any, Any, Any, Any, Any]:
    """x's batch, channels, height and width (in either data format), the block's size and its
    area (block_size squared)."""
    b = c.role("block_size")
    return (*_images(c), b, Sh.mul(b, b))


def _rank_4(c: LayoutMove) -> Sh.Refusal:
    return Sh.Refusal(f"{c.input}: must have rank 4 (batch, channels and two spatial axes, in "
                      f"{c.arg('data_format')}'s order)", Sh.compare(c.rank(), "==", 4))


def _upsample(c: LayoutMove) -> Any:
    """Each element repeated scale_h times down and scale_w times across (ND4J's upsampling2d:
    nearest-neighbour upsampling by whole factors)."""
    n, ch, h, w = _images(c)
    tall, wide = Sh.mul(h, c.role("scale_h")), Sh.mul(w, c.role("scale_w"))
    return Sh.PerAxis(Sh.size(4), _by_format(c, (n, ch, tall, wide), (n, tall, wide, ch)))


def _upsample_refusals(c: LayoutMove) -> list[Sh.Refusal]:
    scales = [(c.arg(r), c.role(r)) for r in ("scale_h", "scale_w")]
    small = Sh.all_of(*(Sh.all_of(Sh.compare(s, ">=", 1), Sh.compare(s, "<=", 2**31)) for _, s in scales))
    # (within int64: each scale at most 2**31 first, then every size and the count of elements)
    _, ch, h, w = _images(c)
    fits = Sh.all_of(Sh.compare(h, "<=", Sh.floordiv(Sh.MAX_ELEMENTS, scales[0][1])),
                     Sh.compare(w, "<=", Sh.floordiv(Sh.MAX_ELEMENTS, scales[1][1])),
                     Sh.compare(Sh.Numel(_upsample(c)), "<=", Sh.MAX_ELEMENTS))
    names = ", ".join(a for a, _ in scales)
    return [_rank_4(c), Sh.Refusal(f"{names}: must lie in 1..2**31", small),
            Sh.Refusal(f"{names}: the result is too large", Sh.all_of(small, fits))]


def _crd(c: LayoutMove) -> Any:
    return E.Compare("==", c.role("mode"), E.Literal(DEPTH_MODES[1]))


def _space_to_depth(c: LayoutMove) -> Any:
    """Each block_size x block_size block of the spatial axes becomes channels (ONNX's
    SpaceToDepth; TensorFlow's, channels last), in the order the mode says."""
    n, ch, h, w, b, area = _blocks(c)
    h_b, w_b = Sh.floordiv(h, b), Sh.floordiv(w, b)
    return Sh.PerAxis(Sh.size(4), _by_format(c, (n, Sh.mul(ch, area), h_b, w_b), (n, h_b, w_b, Sh.mul(ch, area))))


def _depth_to_space(c: LayoutMove) -> Any:
    """space_to_depth undone: channels become block_size x block_size blocks (DCR: the block's
    position outermost in the channels; CRD: innermost)."""
    n, ch, h, w, b, area = _blocks(c)
    depth = Sh.floordiv(ch, area)
    return Sh.PerAxis(Sh.size(4), _by_format(c, (n, depth, Sh.mul(h, b), Sh.mul(w, b)),
                                             (n, Sh.mul(h, b), Sh.mul(w, b), depth)))


def _space_to_batch(c: LayoutMove) -> Any:
    """Each block_size x block_size block of the spatial axes spread over batches (TensorFlow's
    and ND4J's space_to_batch without paddings): the block's position outermost in the batch."""
    n, ch, h, w, b, area = _blocks(c)
    n_b, h_b, w_b = Sh.mul(n, area), Sh.floordiv(h, b), Sh.floordiv(w, b)
    return Sh.PerAxis(Sh.size(4), _by_format(c, (n_b, ch, h_b, w_b), (n_b, h_b, w_b, ch)))


def _batch_to_space(c: LayoutMove) -> Any:
    """space_to_batch undone: the batches become block_size x block_size blocks."""
    n, ch, h, w, b, area = _blocks(c)
    n_b, tall, wide = Sh.floordiv(n, area), Sh.mul(h, b), Sh.mul(w, b)
    return Sh.PerAxis(Sh.size(4), _by_format(c, (n_b, ch, tall, wide), (n_b, tall, wide, ch)))


#: The axis a block move folds the block's area into (the channels or the batch), by layout.
_FOLDED = {"space_to_depth": "channels", "depth_to_space": "channels", "space_to_batch": "batch",
           "batch_to_space": "batch"}


def _blocks_refusals(c: LayoutMove) -> list[Sh.Refusal]:
    n, ch, h, w, b, area = _blocks(c)
    bs, limit = c.arg("block_size"), Sh.MAX_ELEMENTS
    folded = {"channels": ch, "batch": n}[_FOLDED[c.layout]]
    # (the result's sizes stay within int64: block_size at most 2**31 first, so its square does)
    small = Sh.all_of(Sh.compare(b, ">=", 1), Sh.compare(b, "<=", 2**31))
    if c.layout.startswith("space_to_"):
        fits = Sh.compare(folded, "<=", Sh.floordiv(limit, area))
        divides = Sh.Refusal(f"{bs}: must divide the height and the width of {c.input}", Sh.all_of(
            Sh.compare(E.Arith("%", h, b), "==", 0), Sh.compare(E.Arith("%", w, b), "==", 0)))
    else:
        fits = Sh.all_of(Sh.compare(h, "<=", Sh.floordiv(limit, b)), Sh.compare(w, "<=", Sh.floordiv(limit, b)))
        divides = Sh.Refusal(f"{bs}: its square must divide the {_FOLDED[c.layout]} of {c.input}",
                             Sh.compare(E.Arith("%", folded, area), "==", 0))
    return [_rank_4(c),
            Sh.Refusal(f"{bs}: must lie in 1..2**31", small),
            divides,
            Sh.Refusal(f"{bs}: the result is too large", Sh.all_of(small, fits))]


_LAYOUT_SHAPES: dict[str, Any] = {
    "reshape": _reshape,
    "permute": _permute,
    "transpose": _permute,
    "squeeze": lambda c: Sh.remove(c.x(), _axis(c)),
    "expand_dims": lambda c: Sh.insert(c.x(), _axis(c, Sh.add(c.rank(), 1)), 1),
    "narrow": lambda c: Sh.PerAxis(c.rank(), _item(c.x()), Sh.compare(_item(c.x()), "!=", 1)),
    "reverse": lambda c: c.x(),
    "tile": _tile,
    "slice": lambda c: Sh.PerAxis(c.rank(), _slice_size(c)),
    "strided_slice": _strided,
    "pad": _pad,
    "gather": _gather,
    "gather_nd": _gather_nd,
    "reverse_sequence": lambda c: c.x(),
    "diag": lambda c: Sh.Concat((c.x(), c.x())),
    "set_diag": lambda c: c.x(),
    "space_to_depth": _space_to_depth,
    "depth_to_space": _depth_to_space,
    "space_to_batch": _space_to_batch,
    "batch_to_space": _batch_to_space,
    "upsample": _upsample,
}

def _identity_strides(c: LayoutMove, out_rank: Any, start: Any = Sh.size(0), step: Any = Sh.size(1)) -> Strides:
    """Output axis d runs along axis d of x."""
    return Strides(Sh.PerAxis(out_rank, _K), Sh.PerAxis(out_rank, step), Sh.PerAxis(c.rank(), start))


def _permute_strides(c: LayoutMove) -> Strides:
    perm = _permutation(c)
    source = Sh.sub(Sh.sub(c.rank(), 1), _K) if perm is None else Sh.normalized(_item(perm), c.rank())
    return Strides(Sh.PerAxis(c.rank(), source), Sh.PerAxis(c.rank(), Sh.size(1)), Sh.PerAxis(c.rank(), Sh.size(0)))


def _reverse_strides(c: LayoutMove) -> Strides:
    reversed_ = Sh.Names(c.role("axes"), _K, c.rank())
    return _identity_strides(c, c.rank(), Sh.Where(reversed_, Sh.sub(_item(c.x()), 1), Sh.size(0)),
                             Sh.Where(reversed_, Sh.size(-1), Sh.size(1)))


def _strided_slice_strides(c: LayoutMove) -> Strides:
    """Python's slice(begin, end, stride) per axis: the first index read is begin, counted
    from the end where negative and clamped (as slice.indices clamps it)."""
    n, b, s = _item(c.x()), _item(c.role("begin")), _item(c.role("strides"))
    forward = Sh.compare(s, ">", 0)
    lower, upper = Sh.Where(forward, Sh.size(0), Sh.size(-1)), Sh.Where(forward, n, Sh.sub(n, 1))
    start = Sh.Where(Sh.compare(b, "<", 0), Sh.Max((lower, Sh.add(b, n))), Sh.Min((b, upper)))
    return _identity_strides(c, c.rank(), start, s)


def _space_to_depth_strides(c: LayoutMove) -> Strides:
    """The output read as (batch, block row, block column, channel, height / b, width / b) in
    NCHW and DCR mode, the channel before the block's row and column in CRD, the spatial axes
    first in NHWC: each of those axes runs along one axis of x, a block's row along the
    height by 1, a row of blocks by block_size."""
    n, ch, h, w, b, _ = _blocks(c)
    h_b, w_b = Sh.floordiv(h, b), Sh.floordiv(w, b)

    def per_mode(dcr: tuple[tuple[Any, ...], tuple[Any, ...]], crd: tuple[tuple[Any, ...], tuple[Any, ...]]) -> Any:
        return Sh.PerAxis(Sh.size(6), Sh.Where(_crd(c), _by_format(c, *crd), _by_format(c, *dcr)))

    view = per_mode(((n, b, b, ch, h_b, w_b), (n, h_b, w_b, b, b, ch)),
                    ((n, ch, b, b, h_b, w_b), (n, h_b, w_b, ch, b, b)))
    source = per_mode(((0, 2, 3, 1, 2, 3), (0, 1, 2, 1, 2, 3)), ((0, 1, 2, 3, 2, 3), (0, 1, 2, 3, 1, 2)))
    step = per_mode(((1, 1, 1, 1, b, b), (1, b, b, 1, 1, 1)), ((1, 1, 1, 1, b, b), (1, b, b, 1, 1, 1)))
    return Strides(source, step, Sh.PerAxis(c.rank(), Sh.size(0)), view=view)


def _depth_to_space_strides(c: LayoutMove) -> Strides:
    """The output read as (batch, channel, height, block row, width, block column) in NCHW,
    (batch, height, block row, width, block column, channel) in NHWC: the channel and the
    block's row and column all run along x's channels, by the steps the mode orders them in."""
    n, ch, h, w, b, area = _blocks(c)
    depth, crd = Sh.floordiv(ch, area), _crd(c)
    # (DCR: channel (row * b + column) * depth + c; CRD: channel c * b * b + row * b + column)
    along = {"c": Sh.Where(crd, area, Sh.size(1)), "row": Sh.Where(crd, b, Sh.mul(b, depth)),
             "column": Sh.Where(crd, Sh.size(1), depth)}
    view = Sh.PerAxis(Sh.size(6), _by_format(c, (n, depth, h, b, w, b), (n, h, b, w, b, depth)))
    source = Sh.PerAxis(Sh.size(6), _by_format(c, (0, 1, 2, 1, 3, 1), (0, 1, 3, 2, 3, 3)))
    step = Sh.PerAxis(Sh.size(6), _by_format(c, (1, along["c"], 1, along["row"], 1, along["column"]),
                                             (1, 1, along["row"], 1, along["column"], along["c"])))
    return Strides(source, step, Sh.PerAxis(c.rank(), Sh.size(0)), view=view)


def _space_to_batch_strides(c: LayoutMove) -> Strides:
    """The output read as (block row, block column, batch, channel, height / b, width / b) in
    NCHW, the channel last in NHWC: a block's row and column run along the height and the width
    by 1, a row and a column of blocks by block_size."""
    n, ch, h, w, b, _ = _blocks(c)
    h_b, w_b = Sh.floordiv(h, b), Sh.floordiv(w, b)
    view = Sh.PerAxis(Sh.size(6), _by_format(c, (b, b, n, ch, h_b, w_b), (b, b, n, h_b, w_b, ch)))
    source = Sh.PerAxis(Sh.size(6), _by_format(c, (2, 3, 0, 1, 2, 3), (1, 2, 0, 1, 2, 3)))
    step = Sh.PerAxis(Sh.size(6), _by_format(c, (1, 1, 1, 1, b, b), (1, 1, 1, b, b, 1)))
    return Strides(source, step, Sh.PerAxis(c.rank(), Sh.size(0)), view=view)


def _batch_to_space_strides(c: LayoutMove) -> Strides:
    """The output read as (batch, channel, height, block row, width, block column) in NCHW,
    (batch, height, block row, width, block column, channel) in NHWC: the block's row and
    column run along x's batch, by (block_size times) the output's batch."""
    n, ch, h, w, b, area = _blocks(c)
    batch = Sh.floordiv(n, area)
    view = Sh.PerAxis(Sh.size(6), _by_format(c, (batch, ch, h, b, w, b), (batch, h, b, w, b, ch)))
    source = Sh.PerAxis(Sh.size(6), _by_format(c, (0, 1, 2, 0, 3, 0), (0, 1, 0, 2, 0, 3)))
    row = Sh.mul(b, batch)
    step = Sh.PerAxis(Sh.size(6), _by_format(c, (1, 1, 1, row, 1, batch), (1, 1, row, 1, batch, 1)))
    return Strides(source, step, Sh.PerAxis(c.rank(), Sh.size(0)), view=view)


def _upsample_strides(c: LayoutMove) -> Strides:
    """The output read as (batch, channel, height, row in the block, width, column in the block)
    in NCHW, (batch, height, row, width, column, channel) in NHWC: a block's rows and columns
    run along no axis of x (a step of 0), so each element is read scale_h * scale_w times."""
    n, ch, h, w = _images(c)
    sh, sw = c.role("scale_h"), c.role("scale_w")
    view = Sh.PerAxis(Sh.size(6), _by_format(c, (n, ch, h, sh, w, sw), (n, h, sh, w, sw, ch)))
    source = Sh.PerAxis(Sh.size(6), _by_format(c, (0, 1, 2, 2, 3, 3), (0, 1, 1, 2, 2, 3)))
    step = Sh.PerAxis(Sh.size(6), _by_format(c, (1, 1, 1, 0, 1, 0), (1, 1, 0, 1, 0, 1)))
    return Strides(source, step, Sh.PerAxis(c.rank(), Sh.size(0)), view=view)


_LAYOUT_STRIDES: dict[str, Any] = {
    "permute": _permute_strides,
    "transpose": _permute_strides,
    "reverse": _reverse_strides,
    "slice": lambda c: _identity_strides(c, c.rank(), _item(c.role("begin"))),
    "strided_slice": _strided_slice_strides,
    "tile": lambda c: attrs.evolve(_identity_strides(c, c.rank()), period=Sh.PerAxis(c.rank(), _item(c.x()))),
    # (axis d starts `before` elements ahead of x: paddings[2d])
    "pad": lambda c: attrs.evolve(_identity_strides(c, c.rank(), E.Neg(_item(c.role("paddings"), Sh.mul(_K, 2)))),
                                  edges=c.arg("mode"), fill=c.arg("value")),
    "space_to_depth": _space_to_depth_strides,
    "depth_to_space": _depth_to_space_strides,
    "space_to_batch": _space_to_batch_strides,
    "batch_to_space": _batch_to_space_strides,
    "upsample": _upsample_strides,
}

_LAYOUT_REFUSALS: dict[str, Any] = {
    "reshape": _reshape_refusals,
    "permute": _permute_refusals,
    "squeeze": _squeeze_refusals,
    "expand_dims": _expand_refusals,
    "reverse": _reverse_refusals,
    "tile": _tile_refusals,
    "slice": _slice_refusals,
    "strided_slice": _strided_refusals,
    "pad": _pad_refusals,
    "gather": lambda c: [_in_range(c, "axis"), Sh.at_most_max_rank(_gather(c), c.arg("indices"))],
    "gather_nd": _gather_nd_refusals,
    "reverse_sequence": _reverse_sequence_refusals,
    "diag": lambda c: [Sh.Refusal(f"{c.input}: the result's rank is above {Sh.MAX_RANK}",
                                  Sh.compare(Sh.mul(c.rank(), 2), "<=", Sh.MAX_RANK))],
    "set_diag": _set_diag_refusals,
    "space_to_depth": _blocks_refusals,
    "depth_to_space": _blocks_refusals,
    "space_to_batch": _blocks_refusals,
    "batch_to_space": _blocks_refusals,
    "upsample": _upsample_refusals,
}
