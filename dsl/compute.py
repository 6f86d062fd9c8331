"""What an op computes: the compute descriptions of the DSL.

An op declares one of these forms inside its ``with Op(...)`` block:

* ``Elementwise(lambda x, y: x + y)``: a scalar function over inputs and
  scalar args, applied with broadcasting;
* ``Reduce("add", ...)``: init/combine/finalize over axes;
* ``ArgReduce("max", ...)``: index of the extreme value along one axis;
* ``Einsum("...|ik;...|kj=>...|ij")``: a contraction in OCANNL notation;
* ``Random("normal", ...)``: sampling from the Philox4x32-10 generator;
* ``Fragment(...)``: hand-written C and Python kernels;
* ``Scatter(lambda acc, u: acc + u)`` / ``Segment(...)``: rows folded into
  the rows that an index tensor picks;
* ``ShapeOf("shape")``: the shape, size, rank or one axis's size of a tensor;
* ``Compose(lambda x, y: step("math.mul", step("math.sub", x, y), ...))``:
  a sequence of other elementwise ops.

The lambdas run once, at definition time, on symbolic scalars, and build a
frozen tree of :class:`SCall`/:class:`SSym`/:class:`SConst` nodes that every
target renders with its own table. Nothing is a string to eval.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Union

import attrs

from dsl.dtypes import category
from dsl.einsum import EinsumSpec
from dsl.recovery import Cascade, Unbound, did_you_mean

# ---------------------------------------------------------------- scalar IR


@attrs.frozen
class SSym:
    """A named scalar: an input's element, a scalar arg, or a reduction value."""

    name: str


@attrs.frozen
class SConst:
    """A constant; a string stands for a value of the ENUM arg it is compared with."""

    value: Union[bool, int, float, str]


@attrs.frozen
class SCall:
    fn: str
    args: tuple["SExpr", ...]


SExpr = Union[SSym, SConst, SCall]

#: Scalar functions: name -> (arity, what operand types it takes).
#: "num": any number, "float": floating point only, "int": integers only,
#: "bool": booleans only, "any": any type (comparisons, where).
FUNCTIONS: dict[str, tuple[int, str]] = {
    # arithmetic (integers wrap around; see docs of each op)
    "add": (2, "num"), "sub": (2, "num"), "mul": (2, "num"), "div": (2, "num"),
    "pow": (2, "num"), "neg": (1, "num"), "abs": (1, "num"), "sign": (1, "num"),
    # remainders (truncated like C fmod; floored like Python %), floored division
    "mod": (2, "num"), "floor_mod": (2, "num"), "floor_div": (2, "num"),
    "minimum": (2, "num"), "maximum": (2, "num"),
    # rounding
    "floor": (1, "num"), "ceil": (1, "num"), "round_half_even": (1, "num"),
    "round_half_away": (1, "num"),
    # transcendental
    "exp": (1, "float"), "log": (1, "float"), "sqrt": (1, "float"), "sin": (1, "float"),
    "cos": (1, "float"), "tan": (1, "float"), "asin": (1, "float"), "acos": (1, "float"),
    "atan": (1, "float"), "sinh": (1, "float"), "cosh": (1, "float"), "tanh": (1, "float"),
    "erf": (1, "float"), "expm1": (1, "float"), "log1p": (1, "float"), "atan2": (2, "float"),
    "sigmoid": (1, "float"), "erfc": (1, "float"),
    "asinh": (1, "float"), "acosh": (1, "float"), "atanh": (1, "float"),
    # comparison (result bool)
    "eq": (2, "any"), "ne": (2, "any"), "lt": (2, "num"), "le": (2, "num"), "gt": (2, "num"),
    "ge": (2, "num"), "isnan": (1, "num"), "isinf": (1, "num"), "isfinite": (1, "num"),
    # logic on booleans
    "logical_and": (2, "bool"), "logical_or": (2, "bool"), "logical_xor": (2, "bool"),
    "logical_not": (1, "bool"),
    # bitwise on integers
    "bitwise_and": (2, "int"), "bitwise_or": (2, "int"), "bitwise_xor": (2, "int"),
    "bitwise_not": (1, "int"), "left_shift": (2, "int"), "right_shift": (2, "int"),
    "rotl": (2, "int"), "rotr": (2, "int"), "popcount": (1, "int"),
    # selection
    "where": (3, "any"),
}

#: Functions whose result is a bool whatever the operands.
BOOL_RESULT = frozenset({"eq", "ne", "lt", "le", "gt", "ge", "isnan", "isinf", "isfinite",
                         "logical_and", "logical_or", "logical_xor", "logical_not"})
#: Top-level functions that make an op "logical, relational or bitwise" (TML rules).
STRICT_BROADCAST = BOOL_RESULT | frozenset({"bitwise_and", "bitwise_or", "bitwise_xor",
                                            "bitwise_not", "left_shift", "right_shift", "rotl", "rotr"})


class Sym:
    """A symbolic scalar handed to compute lambdas; operators build SExpr trees."""

    __slots__ = ("node",)
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, node: SExpr) -> None:
        self.node = node

    def __bool__(self) -> bool:
        raise TypeError("a symbolic scalar is not a Python bool: use fn.where, "
                        "fn.logical_and/or/not, &, |, ~ instead of if, and, or, not")

    def __repr__(self) -> str:
        return f"Sym({self.node!r})"

    def _op(self, fn: str, *others: Any) -> "Sym":
        return Sym(SCall(fn, (self.node, *(sym(o).node for o in others))))

    def _rop(self, fn: str, other: Any) -> "Sym":
        return Sym(SCall(fn, (sym(other).node, self.node)))

    __add__ = lambda self, o: self._op("add", o)  # noqa: E731
    __radd__ = lambda self, o: self._rop("add", o)  # noqa: E731
    __sub__ = lambda self, o: self._op("sub", o)  # noqa: E731
    __rsub__ = lambda self, o: self._rop("sub", o)  # noqa: E731
    __mul__ = lambda self, o: self._op("mul", o)  # noqa: E731
    __rmul__ = lambda self, o: self._rop("mul", o)  # noqa: E731
    __truediv__ = lambda self, o: self._op("div", o)  # noqa: E731
    __rtruediv__ = lambda self, o: self._rop("div", o)  # noqa: E731
    __pow__ = lambda self, o: self._op("pow", o)  # noqa: E731
    __rpow__ = lambda self, o: self._rop("pow", o)  # noqa: E731
    __neg__ = lambda self: self._op("neg")  # noqa: E731
    __abs__ = lambda self: self._op("abs")  # noqa: E731
    __eq__ = lambda self, o: self._op("eq", o)  # type: ignore[assignment] # noqa: E731
    __ne__ = lambda self, o: self._op("ne", o)  # type: ignore[assignment] # noqa: E731
    __lt__ = lambda self, o: self._op("lt", o)  # noqa: E731
    __le__ = lambda self, o: self._op("le", o)  # noqa: E731
    __gt__ = lambda self, o: self._op("gt", o)  # noqa: E731
    __ge__ = lambda self, o: self._op("ge", o)  # noqa: E731
    __and__ = lambda self, o: self._op("bitwise_and", o)  # noqa: E731
    __rand__ = lambda self, o: self._rop("bitwise_and", o)  # noqa: E731
    __or__ = lambda self, o: self._op("bitwise_or", o)  # noqa: E731
    __ror__ = lambda self, o: self._rop("bitwise_or", o)  # noqa: E731
    __xor__ = lambda self, o: self._op("bitwise_xor", o)  # noqa: E731
    __rxor__ = lambda self, o: self._rop("bitwise_xor", o)  # noqa: E731
    __invert__ = lambda self: self._op("bitwise_not")  # noqa: E731
    __lshift__ = lambda self, o: self._op("left_shift", o)  # noqa: E731
    __rshift__ = lambda self, o: self._op("right_shift", o)  # noqa: E731


def sym(value: Any) -> Sym:
    if isinstance(value, Sym):
        return value
    if isinstance(value, Unbound):  # left by a failed statement, reported there
        raise Cascade(repr(value))
    if isinstance(value, (bool, int, float, str)):
        return Sym(SConst(value))
    raise TypeError(f"cannot use {value!r} in a compute expression")


def resolve_enums(node: SExpr, enums: dict[str, tuple[str, ...]]) -> SExpr:
    """Replace ``mode == "name"`` by ``mode == index`` for ENUM args (``enums``:
    arg name -> possible values); raises ValueError for a value the arg cannot take."""
    if not isinstance(node, SCall):
        return node
    args = tuple(resolve_enums(a, enums) for a in node.args)
    if node.fn in ("eq", "ne") and len(args) == 2:
        a, b = args
        for s_, c_ in ((a, b), (b, a)):
            if isinstance(s_, SSym) and isinstance(c_, SConst) and isinstance(c_.value, str):
                values = enums.get(s_.name)
                if values is None:
                    raise ValueError(f"{s_.name!r} is not an ENUM arg, so it cannot be compared with {c_.value!r}")
                if c_.value not in values:
                    raise ValueError(f"{c_.value!r} is not a value of ENUM arg {s_.name!r}")
                index = SConst(values.index(c_.value))
                args = (s_, index) if s_ is a else (index, s_)
    for arg in args:
        if isinstance(arg, SConst) and isinstance(arg.value, str):
            raise ValueError(f"string {arg.value!r} may only be compared with an ENUM arg")
    return SCall(node.fn, args)


class _Functions:
    """``fn.exp(x)``, ``fn.where(c, a, b)``, ...: every function of :data:`FUNCTIONS`."""

    def __getattr__(self, name: str) -> Callable[..., Sym]:
        if name not in FUNCTIONS:
            raise AttributeError(f"fn has no function {name!r}{did_you_mean(name, FUNCTIONS)}", name=name, obj=self)
        arity = FUNCTIONS[name][0]

        def call(*args: Any) -> Sym:
            if len(args) != arity:
                raise TypeError(f"fn.{name} takes {arity} argument{'s' if arity != 1 else ''}, got {len(args)}")
            return Sym(SCall(name, tuple(sym(a).node for a in args)))

        call.__name__ = name
        return call


fn = _Functions()


def trace_cases(function: Callable[..., Any]) -> tuple[tuple[str, ...], tuple[str, ...],
                                                      tuple[tuple[tuple[str, ...], SExpr], ...]]:
    """Trace ``function`` once per subset of its None-defaulted parameters."""
    import itertools

    signature = inspect.signature(function)
    params = tuple(signature.parameters)
    optional = tuple(n for n, p in signature.parameters.items() if p.default is None)
    cases = []
    for present in itertools.product((True, False), repeat=len(optional)):
        given = tuple(n for n, keep in zip(optional, present) if keep)
        values = [None if n in optional and n not in given else Sym(SSym(n)) for n in params]
        cases.append((given, sym(function(*values)).node))
    return params, optional, tuple(cases)


def trace(function: Callable[..., Any], names: tuple[str, ...] | None = None) -> tuple[tuple[str, ...], SExpr]:
    """Run ``function`` on symbols named after its parameters; return (names, tree)."""
    params = tuple(inspect.signature(function).parameters) if names is None else names
    result = function(*(Sym(SSym(p)) for p in params))
    return params, sym(result).node


def symbols(node: SExpr) -> set[str]:
    if isinstance(node, SSym):
        return {node.name}
    if isinstance(node, SCall):
        return set().union(*(symbols(a) for a in node.args)) if node.args else set()
    return set()


#: What the operators spell, for messages.
_SPELLING = {"bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^", "bitwise_not": "~"}
_LOGICAL = {"bitwise_and": "fn.logical_and", "bitwise_or": "fn.logical_or", "bitwise_xor": "fn.logical_xor",
            "bitwise_not": "fn.logical_not"}


def integer_misuse(node: SExpr) -> list[str]:
    """Integer-only functions applied to comparisons (``(x > 0) & (x < 1)``):
    bitwise operators on booleans, which mean the logical functions."""
    if not isinstance(node, SCall):
        return []
    problems = [p for a in node.args for p in integer_misuse(a)]
    if FUNCTIONS[node.fn][1] == "int" and any(isinstance(a, SCall) and a.fn in BOOL_RESULT for a in node.args):
        spelled = _SPELLING.get(node.fn, f"fn.{node.fn}")
        better = f": use {_LOGICAL[node.fn]}" if node.fn in _LOGICAL else ""
        problems.append(f"{spelled} takes integers, not the result of a comparison{better}")
    return problems


def functions(node: SExpr) -> set[str]:
    if isinstance(node, SCall):
        return {node.fn}.union(*(functions(a) for a in node.args))
    return set()


# ---------------------------------------------------------------- forms


@attrs.frozen
class Elementwise:
    """``output = f(inputs..., scalar args...)`` elementwise.

    ``broadcast`` is "numpy" (arithmetic) or "strict" (equal shapes or one
    scalar operand: TML's rule for logical, relational and bitwise ops).
    ``optional`` names the function's parameters that default to None (an
    optional arg); ``cases`` holds one expression per subset of them that is
    given, all given first.
    """

    params: tuple[str, ...]
    optional: tuple[str, ...]
    cases: tuple[tuple[tuple[str, ...], SExpr], ...]
    broadcast: str

    kind = "elementwise"

    @property
    def expr(self) -> SExpr:
        return self.cases[0][1]

    def case(self, given: tuple[str, ...]) -> SExpr:
        """The expression when exactly the optional args ``given`` are set."""
        return next(e for g, e in self.cases if set(g) == set(given))


@attrs.frozen
class Reduction:
    """Combine the (mapped) elements over axes; ``finalize`` sees ``acc``, ``n``
    (elements reduced) and ``m`` (the ``pre`` reduction, if any).

    ``other`` names a second input of the same shape that ``map`` reads as
    ``y`` (dot products, distances): the map then sees the pair ``(x, y)``.
    ``extra_maps`` are further maps combined alongside into ``acc1``,
    ``acc2``, ... for ``finalize`` (cosine similarity needs three sums).

    ``combine`` is add, mul, max or min (max/min propagate NaN, as NumPy).
    ``empty`` says what reducing no elements gives: the combine's identity,
    NaN, or an error (max/min: NumPy raises).
    """

    input: str
    axes: str
    keep_dims: str
    combine: str
    map: SExpr | None
    finalize: SExpr | None
    pre: str | None
    empty: str
    other: str | None = None
    extra_maps: tuple[SExpr, ...] = ()
    #: Scalar args the maps read (``lambda x, condition, value: ...``).
    args: tuple[str, ...] = ()
    #: Finalizers of the outputs after the first (moments: the mean, then the
    #: variance), each seeing what ``finalize`` sees.
    finalize_more: tuple[SExpr, ...] = ()

    kind = "reduction"

    @property
    def finalizers(self) -> tuple[SExpr | None, ...]:
        """One per output, in order (None: the combined value itself)."""
        return (self.finalize, *self.finalize_more)


@attrs.frozen
class ArgReduction:
    """Index of the first maximum (or minimum) along one axis; NaN counts as the extreme.

    ``which`` is ``"max"``, ``"min"``, or ``"first"``/``"last"``: the index of the
    first (last) element where the predicate ``map`` holds, -1 where none does
    (an empty axis included)."""

    input: str
    axis: str
    keep_dims: str
    which: str
    #: Compare f(x) instead of x (``abs`` for iamax); for first/last, the predicate.
    map: SExpr | None = None
    #: Scalar args the map reads (``lambda x, condition, value: ...``).
    args: tuple[str, ...] = ()

    @property
    def searches(self) -> bool:
        """first/last: a search for a predicate, defined (-1) on an empty axis."""
        return self.which in ("first", "last")

    kind = "argreduction"


@attrs.frozen
class Contraction:
    spec: EinsumSpec
    inputs: tuple[str, ...]

    kind = "contraction"


@attrs.frozen
class RandomSample:
    """Samples of ``distribution`` with parameters from the named args."""

    distribution: str
    params: tuple[tuple[str, str], ...]  # (distribution parameter, arg name)

    kind = "random"


@attrs.frozen
class FragmentKernel:
    """Hand-written kernels: C fragments per dtype and one Python fragment.

    ``layout`` says what the C function takes: ``"axis"`` means
    ``(input, step, size, slot, <scalar args>..., output)`` for the axis arg
    named by ``axis``, Imaginet's decomposition of a tensor around one axis.
    ``"matrix"`` means matrices in the last two axes of every input, with the
    same batch axes before them: ``(in0, rows0, cols0, in1, rows1, cols1, ...,
    batch, <scalar args>..., output)``, returning 0 or, on ``failure``, not 0;
    the output has the shape of the last input. ``"matrix_reduce"`` is the
    same with one value per matrix (the output has the batch shape).
    ``"matrix_solve"`` gives one (cols of the first input) x (cols of the last)
    matrix per batch (least squares), ``"matrix_diagonal"`` one vector of
    min(rows, cols) of the first input per batch (singular values), and
    ``"matrix_q"``/``"matrix_r"`` the rows x k and k x cols factors of a
    reduced QR (k = min(rows, cols) of the first input), ``"matrix_v"`` the
    cols x k factor V of a reduced SVD, and
    ``"matrix_product"`` one (rows of the first input) x (cols of the last)
    matrix per batch (attention).
    ``"rows"`` means inputs of one shape (rank 1 or more) in rows of their
    last axis: ``(in0, in1, ..., rows, len, <scalar args>..., output)``, the
    output of that shape too, or with rows ``widen`` times as long.
    ``"channels"`` is ``"rows"`` with one input in rows (channels in its last
    axis) and the others vectors of one value per channel (gain, bias).
    ``"select"`` takes one input in rows of its last axis and gives every
    output rows of ``length`` (the int arg that names it, also passed among the
    scalar args): ``(x, rows, len, <scalar args>..., outputs...)`` (top_k).
    ``"dense"`` takes the first input in rows of its last axis (len), the
    second a len x units matrix and any further input a vector of units:
    ``(x, rows, len, w, units, <vectors>..., <scalar args>..., output)``, the
    output rows of units (a linear layer).
    ``"shaped"`` passes every input flat, ``(in0, count0, in1, count1, ...,
    <scalar args>..., outputs...)``, and gives each output the shape in
    ``shapes``: integer expressions of the inputs' sizes and int args, or an
    input (a ``ParamRef``) whose shape the output takes; the
    kernel returns 0 or, on ``failure``, not 0 (confusion_matrix, list_diff).
    ``"flat"`` means ``(input, count, <scalar args>..., output)``: every
    element in row-major order gives one value (a scalar output).
    """

    c_file: str
    c_fragments: tuple[tuple[str, str], ...]  # (dtype, fragment name)
    python_file: str
    python_fragment: str
    layout: str
    axis: str
    args: tuple[str, ...]
    #: For matrix layouts: what a non-zero return means ("x is not positive definite").
    failure: str | None = None
    #: For matrix layouts: the doubles of scratch memory the kernel needs, an
    #: integer expression (``dsl.expr``) of the inputs' sizes; None: none.
    workspace: Any = None
    #: For the select layout: the int arg giving the length of the outputs' rows.
    length: str | None = None
    #: For matrix layouts: the layouts of the outputs after the first (lu's
    #: permutation is one vector per matrix: "matrix_diagonal").
    output_layouts: tuple[str, ...] = ()
    #: For the rows layout: the output's rows are this many times as long (crelu: 2).
    widen: int = 1
    #: For the shaped layout: per output, its sizes (``dsl.expr`` integer expressions),
    #: or the input (a ``dsl.expr.ParamRef``) whose shape it takes.
    shapes: tuple[Any, ...] = ()
    #: For matrix layouts: inputs that are one matrix (rank 2) for every batch (weights).
    shared: tuple[str, ...] = ()

    @property
    def layouts(self) -> tuple[str, ...]:
        """One layout per output (the shape rule of each)."""
        return (self.layout, *self.output_layouts)

    kind = "fragment"

    @property
    def matrix(self) -> bool:
        return self.layout in MATRIX_LAYOUTS


#: Matrix fragment layouts, by the shape of their output.
MATRIX_LAYOUTS = ("matrix", "matrix_reduce", "matrix_solve", "matrix_diagonal", "matrix_q", "matrix_r",
                  "matrix_v", "matrix_product")


@attrs.frozen
class SlidingWindow:
    """A stateful stream of frames (axis 0 of each block of ``input``).

    The queue holds at most ``CAPACITY_WINDOWS * window`` frames. A complete
    window (the oldest ``window`` frames) can be dequeued; then ``stride``
    frames are dropped, and frames still to come are skipped when ``stride``
    exceeds what the queue holds.
    """

    input: str
    window: str
    stride: str

    kind = "stream"


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

    def arg(self, role: str) -> str:
        return dict(self.params)[role]


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
}
#: Layouts whose indices are data: a runtime copy, not a plan (the C function checks every index).
DATA_LAYOUTS = ("gather", "gather_nd", "reverse_sequence", "diag", "set_diag")
@attrs.frozen
class Generation:
    """A tensor made from args alone (fill, range, linspace, eye), or from the
    values of an input (one_hot, sequence_mask, cast), in the dtype the op's
    ``dtype`` arg names. ``params`` maps each role of the kind
    (:data:`GENERATE_ROLES`) to the op's arg that gives it."""

    generator: str
    params: tuple[tuple[str, str], ...]

    kind = "generation"

    def arg(self, role: str) -> str:
        return dict(self.params)[role]


@attrs.frozen
class ScatterRows:
    """Rows of ``updates`` folded, in order, into the rows of the result that
    ``indices`` pick: ``row = combine(row, update)`` (``combine`` over ``acc``, ``u``).

    The first ``indices.rank`` axes of ``updates`` follow ``indices``; the rest
    are a row of the result. A scatter (``ref`` set) starts from a copy of ``ref``
    and takes negative indices from the end. A segment reduction (``rows`` set:
    the arg giving the number of rows) starts every row at ``init`` (the fold's
    identity: :data:`SEGMENT_INITS`), takes indices in 0..rows-1, divides each
    row by the number n of updates it got (``scale="mean"``) or by sqrt(n)
    (``scale="sqrt_n"``), and requires
    non-decreasing indices when ``sorted``.
    """

    combine: SExpr
    indices: str
    updates: str
    ref: str | None = None
    rows: str | None = None
    init: str = "zero"
    scale: str | None = None
    sorted: bool = False

    kind = "scatter"


@attrs.frozen
class ShapeQuery:
    """Facts of ``input``'s shape as a LONG tensor: its ``shape`` (a vector),
    ``size`` (element count), ``rank``, or ``size_at`` the axis arg ``axis``."""

    query: str
    input: str
    axis: str | None = None

    kind = "shape_query"


#: What a shape query can ask.
SHAPE_QUERIES = ("shape", "size", "rank", "size_at")


#: What a segment reduction's rows start at (and what an empty segment gives).
SEGMENT_INITS = ("zero", "one", "lowest", "highest")
#: What a segment reduction may divide each row by: its count, or the count's square root.
SEGMENT_SCALES = ("mean", "sqrt_n")


#: Generation kinds -> their roles: (role, "list" | "int" | "float" | "tensor" | "any").
#: A "tensor" role names a LONG input whose values place the generated ones (one_hot's indices);
#: an "any" role an input of any dtype whose values are converted (cast).
GENERATE_ROLES: dict[str, tuple[tuple[str, str], ...]] = {
    "fill": (("shape", "list"), ("value", "float")),
    "range": (("start", "float"), ("limit", "float"), ("delta", "float")),
    "linspace": (("start", "float"), ("stop", "float"), ("num", "int")),
    "eye": (("rows", "int"), ("cols", "int")),
    "tri": (("rows", "int"), ("cols", "int"), ("diag", "int")),
    "one_hot": (("indices", "tensor"), ("depth", "int"), ("axis", "int"), ("on", "float"), ("off", "float")),
    "sequence_mask": (("lengths", "tensor"), ("maxlen", "int")),
    "cast": (("input", "any"),),
}


@attrs.frozen
class Join:
    """The tensors of the list input ``inputs`` (one dtype) joined along the axis
    arg ``axis``: concatenated (``join`` "concat": shapes agree but along the
    axis) or stacked along a new axis (``join`` "stack": equal shapes)."""

    join: str
    inputs: str
    axis: str

    kind = "join"

    @property
    def stack(self) -> bool:
        return self.join == "stack"


@attrs.frozen
class Merge:
    """Element by element over the equal-shape tensors of the list input
    ``inputs``, in list order: ``add`` (wrapping for integers), ``avg`` (summed
    in double), ``max`` (NaN propagates) or ``max_index`` (the position in the
    list of the first largest; the first NaN counts as largest)."""

    inputs: str
    combine: str

    kind = "merge"


MERGE_COMBINES = ("add", "avg", "max", "max_index")


@attrs.frozen
class Parts:
    """The tensors of the list output ``outputs`` cut from ``source`` (bytes
    move, none is computed; one dtype throughout):

    - ``split``: ``num`` equal parts of the input along ``axis``;
    - ``unstack``: one tensor per entry along ``axis``, which it drops;
    - ``meshgrid``: for each tensor of the list input ``source``, its elements
      spread along its own axis of a grid of every tensor's size (``cartesian``
      swaps the first two axes: numpy.meshgrid's "xy" indexing).

    ``params`` binds each role of the kind (``PARTS_ROLES``) to an arg.
    """

    part: str
    source: str
    outputs: str
    params: tuple[tuple[str, str], ...]

    kind = "parts"

    def arg(self, role: str) -> str:
        return dict(self.params)[role]


@attrs.frozen
class FindAll:
    """The flat (row-major) indices of the elements of ``input`` where the
    predicate ``map`` holds, in order (numpy.flatnonzero), into the first
    output, as long as ``input`` (its capacity; zeros after the found ones),
    and how many there are into the second, a scalar: the capacity-and-count
    pattern of ops whose result size depends on the data. ``args`` are the
    scalar args the predicate reads."""

    input: str
    map: SExpr
    args: tuple[str, ...] = ()

    kind = "find_all"


@attrs.frozen
class TensorDot:
    """numpy.tensordot of the two ``inputs`` over the axes that the int-list
    args ``axes`` (of the first, of the second) name in pairs: ND4J's
    tensorMmul. The boolean args ``transposes`` reverse the axes of the first
    and the second input before (the axes name axes of the reversed tensors)
    and of the result after, as ND4J's transpose of an N-d array does. The
    result holds the free axes of the first, then those of the second; the
    einsum labels are built at run time."""

    inputs: tuple[str, str]
    axes: tuple[str, str]
    transposes: tuple[str, str, str]

    kind = "tensordot"


#: Parts kinds -> their roles (each an arg: "int" or "bool").
PARTS_ROLES: dict[str, tuple[tuple[str, str], ...]] = {
    "split": (("axis", "int"), ("num", "int")),
    "unstack": (("axis", "int"),),
    "meshgrid": (("cartesian", "bool"),),
}


def list_input(c: object) -> str | None:
    """The list input (a tensor list: an Input with a count) a form takes, if any."""
    if isinstance(c, Parts):
        return c.source if c.part == "meshgrid" else None
    return c.inputs if isinstance(c, (Join, Merge)) else None


def list_output(c: object) -> str | None:
    """The list output (an Output with a count: as many tensors as the inputs say) a form gives, if any."""
    return c.outputs if isinstance(c, Parts) else None


def dtype_from_arg(c: object) -> bool:
    """Ops without inputs whose output dtype is the value of their ``dtype`` arg."""
    return isinstance(c, (RandomSample, Generation))


def in_place_inputs(op: Any) -> tuple[str, ...]:
    """The inputs the op's output may be, exactly (same memory, dtype and shape): an op that
    computes element i of its result from element i of each input alone (elementwise, a
    composition of elementwise ops) reads each element before it writes it (ADR 0006)."""
    c = op.compute
    if isinstance(c, Elementwise):
        names = {i.name for i in op.inputs}
        return tuple(p for p in c.params if p in names)
    return ()


def own_dtype_inputs(op: Any) -> tuple[str, ...]:
    """Inputs whose dtype is their own, not the variant's: cast's input, and an input of a
    generated tensor that only an arg's default reads (full_like's x): any dtype."""
    c = op.compute
    if isinstance(c, Generation):
        roles = dict(GENERATE_ROLES.get(c.generator, ()))
        bound = {name for _, name in c.params}
        return tuple(i.name for i in op.inputs
                     if i.name not in bound or any(roles.get(r) == "any" for r, n in c.params if n == i.name))
    return ()


#: The values a pad's mode arg must offer, in this order (the kernels number them so).
PAD_MODES = ("constant", "reflect", "symmetric")

CAPACITY_WINDOWS = 2


def accumulator_dtype(c: Reduction, input_dtype: str, output_dtype: str) -> str:
    """The dtype a reduction combines in: the input's, except that counting
    (an add into an integer output of another dtype) counts in the output's,
    and adding booleans counts in int64."""
    if c.combine == "add" and output_dtype != input_dtype and category(output_dtype) in ("signed", "unsigned"):
        return output_dtype
    if c.combine == "add" and category(input_dtype) == "bool":
        return "int64"  # counting truths
    return input_dtype

Compute = Union[Elementwise, Reduction, ArgReduction, Contraction, RandomSample, FragmentKernel, "Composition",
                SlidingWindow, LayoutMove, Generation, ScatterRows, ShapeQuery, Join, Merge, Parts, TensorDot, FindAll]

REDUCE_COMBINES = ("add", "mul", "max", "min")
RANDOM_DISTRIBUTIONS: dict[str, tuple[str, ...]] = {
    "uniform": ("low", "high"),
    "normal": ("mean", "stddev"),
    "bernoulli": ("p",),
    "binomial": ("n", "p"),
    "exponential": ("rate",),
    "log_normal": ("mean", "stddev"),
    "truncated_normal": ("mean", "stddev"),
}


# ---------------------------------------------------------------- composition


@attrs.frozen
class Step:
    """One op applied inside a composition: ``name = op(inputs..., args...)``.

    Inputs name the composed op's inputs or earlier steps, or are numbers.
    """

    name: str
    op: str
    inputs: tuple[Union[str, float, int, bool], ...]
    args: tuple[tuple[str, Any], ...]


@attrs.frozen
class Composition:
    """An op defined as a sequence of other elementwise ops of its namespace.

    Code targets fuse it into one elementwise kernel (no intermediate buffers
    at all); units and NNEF keep the steps (Composite units with static
    buffers, fragment bodies).
    """

    params: tuple[str, ...]
    steps: tuple[Step, ...]

    kind = "composition"

    @property
    def result(self) -> str:
        return self.steps[-1].name


class TensorSym:
    """A tensor inside a composition lambda."""

    __slots__ = ("name", "_steps")

    def __init__(self, name: str, steps: list[Step]) -> None:
        self.name = name
        self._steps = steps

    def __bool__(self) -> bool:
        raise TypeError("a composed tensor is not a Python bool")


def trace_composition(function: Callable[..., Any]) -> Composition:
    """Run ``function`` on tensor symbols; ``step(...)`` calls inside it record the steps."""
    params = tuple(inspect.signature(function).parameters)
    steps: list[Step] = []
    _ACTIVE.append(steps)
    try:
        result = function(*(TensorSym(p, steps) for p in params))
    finally:
        _ACTIVE.pop()
    if not isinstance(result, TensorSym) or not steps or result.name != steps[-1].name:
        raise TypeError("a composition must return the result of its last step(...)")
    return Composition(params, tuple(steps))


_ACTIVE: list[list[Step]] = []  # compositions being traced (part of the builder stack's state)


def step(op: str, *inputs: Any, **args: Any) -> TensorSym:
    """Apply the elementwise op ``"namespace.op"`` inside ``Compose(lambda ...)``."""
    if not _ACTIVE:
        raise TypeError("step() is only available inside Compose(lambda ...)")
    steps = _ACTIVE[-1]
    refs: list[Union[str, float, int, bool]] = []
    for value in inputs:
        if isinstance(value, Unbound):
            raise Cascade(repr(value))
        if isinstance(value, TensorSym):
            refs.append(value.name)
        elif isinstance(value, (bool, int, float)):
            refs.append(value)
        else:
            raise TypeError(f"step({op!r}) takes tensors of the composition or numbers, got {value!r}")
    name = f"t{len(steps)}"
    steps.append(Step(name, op, tuple(refs), tuple(sorted(args.items()))))
    return TensorSym(name, steps)
