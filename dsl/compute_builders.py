"""The compute builders: what an op computes, declared in its ``with Op(...)`` block
(``Elementwise``, ``Reduce``, ``Fragment``, ...). Each records one frozen form of
:mod:`dsl.forms` on the enclosing op or mixin; the form validates itself when the op ends."""

from __future__ import annotations

from typing import Any

from dsl import compute, einsum
from dsl.builders import _block, _Block, _report, _top, caller_location
from dsl.recovery import guarded
from dsl.terms import Term, term


def _set_compute(what: str, value: Any) -> None:
    block = _block(what, ("op", "mixin"))
    if block is None:
        return
    location = caller_location()
    if block.compute is not None and block.compute[2] is block:
        _report(location, block.context,
                f"{block.kind} already declares what it computes (at {block.compute[1]})")
        return
    block.compute = (value, location, block)


@guarded
def Elementwise(function: Any, *, broadcast: str | None = None) -> None:
    """``output = function(inputs..., scalar args...)``, element by element.

    ``function``'s parameters are named after inputs and scalar args. Shapes
    broadcast NumPy-style for arithmetic; ops whose result is a comparison,
    logic or bitwise operation take equal shapes or one scalar operand unless
    ``broadcast="numpy"``; ``broadcast="equal"`` takes equal shapes only (a
    derived backward op's input and gradient, ADR 0065).
    """
    params, optional, cases = compute.trace_cases(function)
    node = cases[0][1]
    if broadcast is None:
        top = node.fn if isinstance(node, compute.SCall) else ""
        broadcast = "strict" if top in compute.STRICT_BROADCAST else "numpy"
    _set_compute("Elementwise", compute.Elementwise(params, optional, cases, broadcast))


@guarded
def Reduce(combine: str, *, input: str = "x", axes: str = "axes", keep_dims: str = "keep_dims",
           map: Any = None, finalize: Any = None, pre: str | None = None,
           empty: str = "identity", other: str | None = None) -> None:
    """Reduce ``input`` over ``axes`` with ``combine`` (add, mul, max, min).

    ``map(x)`` or ``map(x, m)`` transforms each element first; ``finalize(acc,
    n)`` or ``finalize(acc, n, m)`` turns the combined value into the result;
    ``m`` is the ``pre`` reduction ("max" or "mean") of the same elements.
    ``map(x, y)`` reads a second input of the same shape: ``other`` (default
    ``"y"`` when the map takes ``y``). A tuple of maps keeps one sum per map:
    ``finalize(acc, acc1, acc2, n)`` sees them in order. A tuple of finalizers
    gives one output each, in the order the op declares its outputs.
    """
    maps = tuple(map) if isinstance(map, (tuple, list)) else ((map,) if map is not None else ())
    traced = []
    args: list[str] = []
    for function in maps:
        import inspect

        names = tuple(inspect.signature(function).parameters)
        if other is None and "y" in names:
            other = "y"
        # Other parameters name scalar args of the op (validation checks they are).
        args += [n for n in names if n not in ("x", "y", "m") and n not in args]
        traced.append(compute.trace(function, names)[1])
    accumulators = ("acc", *(f"acc{k}" for k in range(1, len(maps))))
    finals = tuple(finalize) if isinstance(finalize, (tuple, list)) else (finalize,)
    nodes = [compute.trace(f, _names(f, (*accumulators, "n", "m")))[1] if f is not None else None for f in finals]
    _set_compute("Reduce", compute.Reduction(input, axes, keep_dims, combine, traced[0] if traced else None, nodes[0],
                                             pre, empty, other, tuple(traced[1:]), tuple(args), tuple(nodes[1:])))


def _names(function: Any, allowed: tuple[str, ...]) -> tuple[str, ...]:
    import inspect

    names = tuple(inspect.signature(function).parameters)
    for n in names:
        if n not in allowed:
            raise TypeError(f"compute function parameter {n!r} must be one of {', '.join(allowed)}")
    return names


@guarded
def ArgReduce(which: str, *, input: str = "x", axis: str = "axis", keep_dims: str = "keep_dims",
              map: Any = None, last_index: str | None = None) -> None:
    """Index of the first maximum (``"max"``) or minimum (``"min"``) along ``axis``,
    of ``map(x)`` when given (``lambda x: abs(x)`` for iamax), the last of tied ones
    where the bool arg ``last_index`` names is true; or of the first (``"first"``) or
    last (``"last"``) element where the predicate ``map`` holds, -1 where none does.
    Parameters of ``map`` besides ``x`` name scalar args."""
    import inspect

    names = tuple(inspect.signature(map).parameters) if map is not None else ()
    map_node = compute.trace(map, names)[1] if map is not None else None
    args = tuple(n for n in names if n != "x")
    _set_compute("ArgReduce", compute.ArgReduction(input, axis, keep_dims, which, map_node, args, last_index))


@guarded
def Einsum(spec: str, *, inputs: tuple[str, ...] | None = None, strides: str | None = None,
           dilations: str | None = None, pads: str | None = None, auto_pad: str | None = None,
           kernel_shape: str | None = None, combine: str = "add", count_include_pad: str | None = None,
           p: str | None = None, ceil_mode: str | None = None, whole: bool = False) -> None:
    """A contraction in OCANNL notation, e.g. ``"...|ik;...|kj=>...|ij"``.

    ``inputs`` names the operands (default: the op's inputs in order). A spec with convolution
    axes may name int-list args that scale each axis's stride and dilation, one value per axis
    (``strides``, ``dilations``), an int-list arg of zero padding, each axis's before its end
    as ONNX lists them (``pads``), and an enum arg choosing ONNX's automatic padding
    (``auto_pad``: NOTSET, SAME_UPPER, SAME_LOWER, VALID). A pool combines each window of one
    operand otherwise than by a sum of products (``combine``: max, mean, lp); the int-list arg
    ``kernel_shape`` gives the sizes of kernel labels no operand has, a bool arg
    ``count_include_pad`` whether a mean counts the padding, an int arg ``p`` an Lp norm's order,
    a bool arg ``ceil_mode`` whether a last partial window counts (ONNX's). ``whole=True``
    spans each axis with one window, its kernel the whole axis (a global pool).
    """
    location = caller_location()
    top = _top()
    try:
        parsed = einsum.parse(spec)
    except einsum.EinsumError as exc:
        _report(location, top.context if top is not None else "ops", f"einsum spec {spec!r}: {exc}")
        return
    if inputs is None and isinstance(top, _Block):
        inputs = tuple(p.name for p in top.params if p.kind == "input")
    _set_compute("Einsum", compute.Contraction(parsed, tuple(inputs or ()), strides, dilations, pads, auto_pad,
                                               kernel_shape, combine, count_include_pad, p, ceil_mode,
                                               whole))


@guarded
def Random(distribution: str, **params: str) -> None:
    """Sample ``distribution`` (uniform, normal, bernoulli, binomial, ...), its
    parameters given by arg names: ``Random("uniform", low="min", high="max")``."""
    _set_compute("Random", compute.RandomSample(distribution, tuple(sorted(params.items()))))


@guarded
def Fragment(*, c: str, python: str, c_fragments: dict[str, str], python_fragment: str,
             layout: str = "axis", axis: str = "axis", args: tuple[str, ...] = (), failure: str | None = None,
             workspace: Any = None, length: str | None = None, output_layouts: tuple[str, ...] = (),
             widen: int = 1, shapes: tuple[Any, ...] = (), shared: tuple[str, ...] = (),
             fixed_dtypes: dict[str, str] | None = None, columns: str | None = None) -> None:
    """Hand-written kernels: ``c`` and ``python`` are files beside the ops
    file holding ``#pragma IMAGINET_FRAGMENT_BEGIN`` fragments; ``c_fragments``
    maps each dtype to its C fragment. ``layout`` names the class of the
    fragment (``compute.FRAGMENT_LAYOUTS``: "axis", "rows", "matrix", ...), which
    takes only the options below that apply to it; matrix kernels that can
    fail say what failing means in ``failure``. ``workspace`` is the number of
    doubles of scratch memory a matrix kernel needs, a size expression of the
    inputs (``n * n + n`` with ``n = x.size_at(-1)``); the caller provides it.
    ``length`` names the int arg giving the row length of a "select" kernel's outputs;
    ``output_layouts`` gives the matrix layout of each output after the first;
    ``widen`` makes a "rows" kernel's output rows that many times as long;
    ``shapes`` gives a "shaped" kernel's output shapes, per output a tuple of
    sizes (expressions of input sizes and int args, such as ``(n, n)``) or an
    input, whose shape the output takes; ``shared`` names the inputs of a
    matrix kernel that are one matrix for every batch (weights); ``fixed_dtypes`` gives the
    tensors of a "shaped" kernel that have one dtype in every variant (codes: ``{"codes": "uint8"}``);
    ``columns`` names the input whose columns a "matrix_product" kernel's output has (the last: None)."""
    files = {"c_file": c, "c_fragments": tuple(sorted(c_fragments.items())), "python_file": python,
             "python_fragment": python_fragment, "args": tuple(args)}
    options = {"axis": axis, "widen": widen, "length": length, "failure": failure,
               "workspace": term(workspace).node if workspace is not None else None,
               "output_layouts": tuple(output_layouts), "shared": tuple(shared), "columns": columns,
               "fixed_dtypes": tuple(sorted((fixed_dtypes or {}).items())),
               "shapes": tuple(term(shape).node if isinstance(shape, Term) else tuple(term(size).node for size in shape)
                               for shape in shapes)}
    block = _block("Fragment", ("op", "mixin"))
    if block is None:
        return
    kernel, problems = compute.fragment_kernel(layout, files, options)
    for message in problems:
        _report(caller_location(), block.context, message)
    if kernel is not None:
        _set_compute("Fragment", kernel)


@guarded
def Layout(layout: str, *, input: str = "x", **params: str) -> None:
    """Move the elements of ``input`` without arithmetic: ``Layout("permute",
    perm="perm")``; each role of the kind (``compute.LAYOUT_ROLES``) names the
    arg that gives it (by default the arg of the role's name)."""
    _set_compute("Layout", compute.LayoutMove(layout, input, _roles(compute.LAYOUT_ROLES.get(layout, ()), params)))


@guarded
def Generate(generator: str, **params: str) -> None:
    """Make the output from args alone: ``Generate("range")`` (fill, range,
    linspace, eye); each role (``compute.GENERATE_ROLES``) names the arg that
    gives it, by default the arg of the role's name. The op's ``dtype`` arg
    names the output's dtype."""
    _set_compute("Generate", compute.Generation(generator, _roles(compute.GENERATE_ROLES.get(generator, ()), params)))


@guarded
def Convert(rule: str, *, input: str = "x") -> None:
    """A fixed-point conversion of ``input``, element by element: ``"quantize"``,
    ``"dequantize"``, ``"requantize"``, ``"shift"`` or ``"bit_utilization"`` (ADR 0068); a
    conversion to a chosen type reads the args ``dtype``, ``shift``, ``scale`` and ``offset``."""
    _set_compute("Convert", compute.FixedPointConversion(rule, input))


@guarded
def ShapeOf(query: str, *, input: str = "x", axis: str | None = None) -> None:
    """A fact of ``input``'s shape as a LONG tensor: ``"shape"``, ``"size"``,
    ``"rank"`` or ``"size_at"`` (of the axis arg ``axis``, by default "axis")."""
    if query == "size_at" and axis is None:
        axis = "axis"
    _set_compute("ShapeOf", compute.ShapeQuery(query, input, axis))


@guarded
def Join(kind: str, *, inputs: str = "inputs", axis: str = "axis") -> None:
    """``Join("concat")`` or ``Join("stack")``: the tensors of the list input
    ``inputs`` (an Input with a count) joined along the axis arg ``axis``."""
    _set_compute("Join", compute.Join(kind, inputs, axis))


@guarded
def Parts(kind: str, *, source: str = "x", outputs: str = "outputs", **params: str) -> None:
    """The list output ``outputs`` (an Output with a count) cut from ``source``:
    ``Parts("split")`` (roles axis, num), ``Parts("unstack")`` (axis) or
    ``Parts("meshgrid", source="inputs")`` (cartesian); each role is bound to
    the arg of its name unless given (``compute.Parts``)."""
    roles = _roles(compute.PARTS_ROLES.get(kind, ()), dict(params))
    _set_compute("Parts", compute.Parts(kind, source, outputs, roles))


@guarded
def FindAll(map: Any, *, input: str = "x") -> None:
    """The flat indices where the predicate ``map`` holds on ``input``, and their
    count (``compute.FindAll``); parameters of ``map`` besides ``x`` name scalar args."""
    import inspect

    names = tuple(inspect.signature(map).parameters)
    _set_compute("FindAll", compute.FindAll(input, compute.trace(map, names)[1], tuple(n for n in names if n != "x")))


@guarded
def TensorDot(*, x: str = "x", y: str = "y", dimensions_x: str = "dimensions_x",
              dimensions_y: str = "dimensions_y", transpose_x: str = "transpose_x", transpose_y: str = "transpose_y",
              transpose_z: str = "transpose_z") -> None:
    """numpy.tensordot of ``x`` and ``y`` over the axes the int-list args
    ``dimensions_x`` and ``dimensions_y`` name, with ND4J's transposes (boolean
    args reversing the axes of x, of y, of the result): ``compute.TensorDot``."""
    _set_compute("TensorDot", compute.TensorDot((x, y), (dimensions_x, dimensions_y),
                                                (transpose_x, transpose_y, transpose_z)))


@guarded
def Merge(combine: str, *, inputs: str = "inputs") -> None:
    """Element by element over the equal-shape tensors of the list input
    ``inputs``: "add", "avg", "max", "min" or "max_index" (``compute.Merge``)."""
    _set_compute("Merge", compute.Merge(inputs, combine))


@guarded
def Scatter(combine: Any, *, ref: str = "ref", indices: str = "indices", updates: str = "updates") -> None:
    """Fold the rows of ``updates`` into a copy of ``ref`` at the rows ``indices``
    pick, in order: ``Scatter(lambda acc, u: acc + u)`` (see ``compute.ScatterRows``)."""
    _set_compute("Scatter", compute.ScatterRows(compute.trace(combine, _names(combine, ("acc", "u")))[1], indices, updates, ref=ref))


@guarded
def Segment(combine: Any, *, data: str = "data", segment_ids: str = "segment_ids",
            num_segments: str = "num_segments", init: str = "zero", scale: str | None = None,
            sorted: bool = False) -> None:
    """A segment reduction: row ``s`` of the result folds the rows of ``data``
    whose segment id is ``s``, starting at ``init``, divided by the count of
    those rows (``scale="mean"``) or its square root (``"sqrt_n"``); see
    ``compute.ScatterRows``."""
    _set_compute("Segment", compute.ScatterRows(compute.trace(combine, _names(combine, ("acc", "u")))[1], segment_ids, data,
                                                rows=num_segments, init=init, scale=scale, sorted=sorted))


def _roles(roles: tuple[tuple[str, str], ...], params: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """(role, arg) pairs: each role of the kind bound to the arg given for it, by
    default the arg of the role's name; unknown roles kept, for validation to name."""
    given = {role: params.pop(role, role) for role, _ in roles}
    return tuple(sorted(given.items())) + tuple(sorted(params.items()))


@guarded
def Compose(function: Any) -> None:
    """The op as a sequence of elementwise ops of its namespace:
    ``Compose(lambda x, y: step("math.mul", d := step("math.sub", x, y), d))``."""
    _set_compute("Compose", compute.trace_composition(function))


@guarded
def SlidingWindow(*, input: str = "x", window: str = "window", stride: str = "stride") -> None:
    """A stateful streaming op: blocks of frames go in, windows of ``window``
    frames come out every ``stride`` frames (an Imaginet Queue unit)."""
    _set_compute("SlidingWindow", compute.SlidingWindow(input, window, stride))
