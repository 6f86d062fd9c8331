"""The C API function every op shares: checks, dispatch over dtypes, the function's frame."""

from __future__ import annotations

import re
from typing import Callable

import attrs

from dsl import compute as C
from dsl import dtypes as D
from dsl import fixed_point as F
from dsl.model import Config, Input, Op, Output
from dsl.scalar import SExpr
from dsl.types import DataType
from generators import abi
from generators.kernels import c_shapes, fixed_point
from generators.kernels.c_constraints import CConstraintRenderer
from generators.kernels.c_emit.fixed_point_api import same_attributes
from generators.formatting import c_comment, c_string
from generators.kernels.scalar_c import SUFFIX
from generators.kernels.selection import variants_of


T_MIN = {"bool": "false", "int8": "INT8_MIN", "int16": "INT16_MIN", "int32": "INT32_MIN", "int64": "INT64_MIN",
         "uint8": "0", "uint16": "0", "uint32": "0", "uint64": "0"}
T_MAX = {"bool": "true", "int8": "INT8_MAX", "int16": "INT16_MAX", "int32": "INT32_MAX", "int64": "INT64_MAX",
         "uint8": "UINT8_MAX", "uint16": "UINT16_MAX", "uint32": "UINT32_MAX", "uint64": "UINT64_MAX"}


@attrs.frozen
class CFragment:
    """A kernel as an Imaginet fragment: its name and its C text."""

    name: str
    body: str

    @property
    def text(self) -> str:
        return f'#pragma IMAGINET_FRAGMENT_BEGIN "{self.name}"\n{self.body.strip()}\n#pragma IMAGINET_FRAGMENT_END\n'


#: The sizes a plain kernel takes besides tensors and args, by its geometry: ``flat``, every
#: operand of the output's shape, ``n`` elements; ``axis``, one axis reduced, of ``size``
#: elements ``step`` apart, in ``slot`` blocks of ``step * size`` (the real library's
#: step, size and slot of an axis); ``rows``, the same for an axis of step 1 (the innermost, as the
#: real library's reductions take it): ``slot`` rows of ``size`` elements; ``second_stretched`` (``first_stretched``), two operands,
#: the first (second) of the output's shape, the other broadcast into it as Imaginet's
#: ShapeBroadcast describes it: from the outermost, runs of equal axes (``left``, ``middle``,
#: ``right`` elements) and of axes it stretches (``group1``, ``group2``).
#: ``matrices``: a batch of matrix products, ``batch`` products of ``rows`` x ``inner`` by
#: ``inner`` x ``cols`` (the operands' and the output's batch axes equal); ``transposed``,
#: ``rows`` x ``cols`` matrices transposed, ``count`` elements in all. ``second_scalar``
#: (``first_scalar``): two operands, the first (second) of the output's shape, ``n``
#: elements, the other a single element, read once. ``joined`` (``stacked``): ``count``
#: tensors concatenated (stacked), ``slot`` times a block of ``chunks[k]`` elements of each;
#: ``merged``: ``count`` tensors of ``n`` elements combined element by element; ``filled``: ``n``
#: elements, each one value; ``batched``: ``batch`` matrices in the last two axes of every
#: tensor, each input's ``rows:<input>`` x ``cols:<input>``; ``valued``: the output's ``n`` values
#: (``value:<k>``), computed by the caller from shapes (a shape query's); ``shaped``: every input
#: flat, ``count:<input>`` elements, the outputs of the shapes the caller declares; ``scattered``:
#: ``count`` indices into ``rows`` rows of ``block`` elements (ADR 0016); ``gathered``: an axis's
#: ``step``, ``size`` and ``slot``, as ``axis``'s; ``hot``: the output's axis at ``outer`` blocks
#: before it and ``inner`` elements after (one_hot's); ``drawn``: the output's ``n`` elements, each
#: from its own block of a random stream; ``lines``: ``rows`` rows of ``len`` elements (the last axis); ``strided``: the output's ``n<k>`` elements along its axis ``k``, read
#: from x ``x_s<k>`` elements apart (negative: backwards) from element ``offset`` (as many axes as
#: the kernel's rank); ``padded``: the same read through a pad's edges; ``broadcast``:
#: operands broadcast into the output's shape, ``n<k>`` elements along its axis ``k`` (0 the
#: innermost), each operand ``<operand>_s<k>`` elements apart there (0: it has size 1); ``parted``:
#: x cut into a list output's ``count`` tensors, ``slot`` times a ``block`` of each (split's);
#: ``ramp``: the output's ``n`` values, evenly spaced (range's, linspace's); ``found``: the indices of
#: x's ``n`` elements where a predicate holds, and their count; ``indexed``: ``rows``
#: tuples of ``depth`` indices into x's first axes (sizes ``n:<k>``), each a ``block`` (gather_nd's);
#: ``sequences``: x's ``count`` elements, its sequence and batch axes' step and size (reverse_sequence's);
#: ``batches``: matrix products whose batch axes broadcast, ``n<k>`` along batch axis ``k`` (0 the
#: innermost), each operand's matrices ``step:<operand>:<k>`` elements apart there (0: size 1);
#: ``meshed``: ``count`` grids of ``n`` elements, tensor k's elements ``steps[k]`` apart in its own;
#: ``product``: one matrix product, ``rows`` x ``inner`` by ``inner`` x ``cols``, each matrix stored
#: transposed where the op's transpose arg for it says so (tensordot's, ``TensorDot.matrix_product``).
_GROUPS = ("left", "group1", "middle", "group2", "right")
PLAIN_SIZES = {"flat": ("n",), "axis": ("step", "size", "slot"), "rows": ("size", "slot"), "second_stretched": _GROUPS,
               "first_stretched": _GROUPS, "second_scalar": ("n",), "first_scalar": ("n",),
               "matrices": ("batch", "rows", "inner", "cols"), "transposed": ("count", "rows", "cols"),
               "product": ("rows", "inner", "cols"),  # (and whether each of a, b, output is transposed)
               "windowed": (),  # (a size per label and per convolution axis: see windows_kernel)
               "joined": ("chunks", "count", "slot"), "stacked": ("chunks", "count", "slot"),
               "parted": ("count", "block", "slot"),
               "ramp": ("n",),
               "found": ("n",),
               "meshed": ("count", "n", "steps", "sizes"),
               # (and a step per operand and batch axis: step:<operand>:<k>)
               "batches": ("rows", "inner", "cols", *(f"n{k}" for k in range(abi.MAX_RANK - 3, -1, -1))),
               "indexed": ("rows", "depth", "block", *(f"n:{k}" for k in range(abi.MAX_RANK))),
               "sequences": ("count", "seq_step", "seq_size", "batch_step", "batch_size"),
               "merged": ("count", "n"), "filled": ("n",), "lines": ("rows", "len"), "trailing": ("rows", "len"),
               # (and each matrix's rows and cols: rows:<input>, cols:<input>)
               "batched": ("batch",),
               # (and each value: value:<k>, NumPy's order)
               "valued": ("n",),
               "shaped": (),  # (each input's count:<input>)
               "scattered": ("rows", "count", "block"),
               "gathered": ("step", "size", "slot"),  # (and the indices' count:<indices>)
               "marked": (),  # (its sizes: args, or count:<tensor>)
               "hot": ("outer", "inner"),
               "drawn": ("n",),  # (and the stream's seed and offset, the config's args)
               # (and a step of x per axis: see LayoutEmitter.plain_strided)
               "strided": (*(f"n{k}" for k in range(abi.MAX_RANK - 1, -1, -1)), "offset"),  # (n<k> below its rank)
               # (and x's steps, sizes and starts: see LayoutEmitter.plain_padded)
               "padded": tuple(f"n{k}" for k in range(abi.MAX_RANK - 1, -1, -1)),
               # (and a step per operand and axis: see ElementwiseEmitter.broadcast)
               "broadcast": tuple(f"n{k}" for k in range(abi.MAX_RANK - 1, -1, -1))}


#: The source of a plain kernel's parameter that takes a tensor's per-axis scales (``scales:<tensor>``):
#: NULL for one scale, as a unit always passes (its sockets carry one scale); the C API passes the
#: descriptor's ``scales`` (ADR 0071).
SCALES = "scales:"


@attrs.frozen
class PlainKernel:
    """A kernel over contiguous arrays, callable without descriptors, for targets that call
    kernels directly (units): its fragment (counting in ``int``), the variant it computes,
    its parameters as (C declaration, what it takes: an input's, an arg's or an output's
    name, or one of its geometry's ``PLAIN_SIZES``), its geometry and, for ``axis``, the
    arg that names the axis (a reduction's list of axes, of which a unit passes one)."""

    fragment: CFragment
    variant: D.Variant
    parameters: tuple[tuple[str, str], ...]
    geometry: str = attrs.field(default="flat", validator=attrs.validators.in_(PLAIN_SIZES))
    axis: str = ""
    #: Sizes that are one axis of a tensor: (size, tensor, its axis counted from the last, -1).
    axes: tuple[tuple[str, str, int], ...] = ()
    #: Of an op with several cases (an elementwise op's optional args given or not): when its
    #: case applies (``Elementwise.presence``: each optional arg, set or not); None for an op of
    #: one case.
    presence: tuple[tuple[str, bool], ...] | None = None
    case: str = ""  # the case's suffix in names ("_c1"), "" for an op of one case
    #: Of a geometry of a loop per axis (strided): how many axes it loops over, the output's
    #: rank at most (fewer loops: a smaller kernel for the low ranks most tensors have).
    rank: int = abi.MAX_RANK
    #: The fragments it uses, by name, dependencies first (a hand-written fragment's, ADR 0011).
    needs: tuple[str, ...] = ()
    #: Why it may fail, where it returns an int that is not 0 on failure (a hand-written
    #: matrix fragment's: "not positive definite"); "" for a kernel that cannot fail.
    failure: str = ""
    #: Args the caller converts to the output's dtype before the call (a fill's value): each must
    #: convert exactly, as the C API checks it.
    exact: tuple[str, ...] = ()
    #: Of a fixed-point kernel (ADR 0038): the type's name (``q15``), whose stored dtype the
    #: variant gives; the per-call values it takes, each over the inputs' attributes
    #: (``<input>_shift``), and the output's attributes, each as a tree the target renders.
    fixed_point: str = ""
    per_call: tuple[tuple[str, SExpr], ...] = ()
    output_attributes: tuple[tuple[str, SExpr], ...] = ()
    #: The output's attributes the caller chooses (a D output's ``scale`` and ``offset``), which
    #: the kernel takes as ``output_<attribute>``.
    chosen: tuple[str, ...] = ()
    #: Of a kernel that reads a table (a unary op's fixed-point lookup): the fragment that fills
    #: it once (a unit's Init), its parameters as ``parameters`` are, and the table's bytes.
    init: CFragment | None = None
    init_parameters: tuple[tuple[str, str], ...] = ()
    table_bytes: int = 0

    @property
    def name(self) -> str:
        return self.fragment.name


@attrs.frozen
class OpCode:
    fragments: tuple[CFragment, ...]
    includes: tuple[str, ...]
    api: str
    plain: tuple[PlainKernel, ...] = ()  # where the op has them (elementwise of one case; one-axis reductions)


#: The ranks kernels of a loop per axis (strided, broadcast) come in: a unit has one of each,
#: and runs the smallest that holds the output's rank (two loops for a matrix: a smaller kernel).
LOOP_RANKS = (2, 4, abi.MAX_RANK)


def axis_loops(operands: list[str], origin: dict[str, str] | None = None,
               rank: int = abi.MAX_RANK, wrap: bool = False, size: str = "int") -> tuple[str, str]:
    """(the opening, the closing) of a loop per axis ``k`` below ``rank``, outermost first,
    ``i<k>`` below ``n<k>``, each operand ``r`` at ``r_at<k>``: ``origin[r]`` plus ``i<k> * r_s<k>``
    per loop (the loops of kernels that read at per-axis steps; ``wrap``: ``i<k>`` modulo
    ``r_m<k>``, a tile's repetition), counting in ``size`` (a unit's int, the C API's int64_t)."""
    origin = origin or {}
    loops, closing = [], []
    for k in range(rank - 1, -1, -1):
        outer = {r: f"{r}_at{k + 1}" if k + 1 < rank else origin.get(r, "") for r in operands}
        index = {r: f"(i{k} % {r}_m{k})" if wrap else f"i{k}" for r in operands}
        at = "".join(f"const {size} {r}_at{k} = {f'{outer[r]} + ' if outer[r] else ''}{index[r]} * {r}_s{k};"
                     for r in operands)
        loops.append(f"for ({size} i{k} = 0; i{k} < n{k}; i{k}++) {{\n{at}")
        closing.append("}")
    return "".join(loops), "".join(closing)


def fragment(name: str, body: str) -> CFragment:
    return CFragment(name, body)


def mask(dtypes: set[str]) -> str:
    return " | ".join(f"OPF_DTYPE_BIT({abi.DTYPE_ENUM[d]})" for d in abi.ALL_DTYPES if d in dtypes) or "0u"


class Emitter:
    """The API function of one op: common checks, then the form's dispatch."""

    def __init__(self, op: Op, linkage: str = "") -> None:
        self.op = op
        self.linkage = linkage  # before each API function's definition
        self.fn = abi.function(op)
        self.variants = variants_of(op)
        # (the tensor whose dtype chooses the variant: where's x, not its condition)
        self.primary = (op.outputs[0].name if C.dtype_from_arg(op.compute) or not op.inputs
                        else D.primary_input(op).name)  # type: ignore[attr-defined]
        self.constraints = CConstraintRenderer(op)
        #: The API function's sizes: its form's checks render them first, so a body that reads
        #: one again (a convolution's windows) reads the local the checks computed (ADR 0062).
        self.shapes = c_shapes.CShapeRenderer(op)
        self._form_checks: list[str] | None = None
        self.lists = {t.name for t in (*op.inputs, *op.outputs) if not t.count.is_single}
        #: The types the op moves (ADR 0040), each with the variant of its storage, whose kernel
        #: moves the stored values: every tensor of that variant's primary dtype carries the type.
        self.moved = {t.name: v for t in fixed_point.api_moves(op) for v in self.variants if v.dtype == t.storage}
        #: The fixed-point types the API function takes (ADR 0040), as variants whose dtypes are the
        #: types' names (``q15``): the moves' (``moved_tensors`` carry the type), or a form's emitter
        #: sets them before the checks are rendered.
        self.fixed_variants: list[D.Variant] = []
        for t in fixed_point.api_moves(op):
            carried = set().union(*fixed_point.moved_tensors(op, t))
            self.fixed_variants.append(D.Variant(t.name, tuple((n, t.name if n in carried else d)
                                                               for n, d in self.moved[t.name].tensors)))

    def ref(self, name: str) -> str:
        """A C expression of the descriptor ``name`` (of a tensor list: its first, which the
        checks guarantee and whose dtype every other shares)."""
        return f"{abi.c_name(name)}[0]" if name in self.lists else abi.c_name(name)

    # -- common
    def checks(self) -> list[str]:
        op = self.op
        lines = ["if (detail != NULL) {", "*detail = NULL;", "}"]
        for cfg in op.configs:
            struct = abi.config_struct(cfg)
            defaults = ", ".join(_c_default(p.default, p.type) for p in cfg.args) or "0"
            name = abi.c_name(cfg.name)
            lines += [f"{struct} cfg_{cfg.name} = {{{defaults}}};",
                      f"if ({name} != NULL) {{", f"cfg_{cfg.name} = *{name};", "}"]
        for p in abi.parameters(op):
            if p.role == "array":
                lines += [f"if ({p.name}_count < 0 || ({p.name}_count > 0 && {p.name} == NULL)) {{",
                          f"return opf_fail(detail, OPFORGE_ERR_NULL, {c_string(p.source + ': NULL with a positive count, or a negative count')});",
                          "}"]
                arg = next(a for a in op.args if a.name == p.source)
                low, high = arg.count.low, arg.count.high
                cond = f"{p.name}_count < {low}" + (f" || {p.name}_count > {high}" if high is not None else "")
                if low > 0 or high is not None:  # (a negative count is refused above)
                    lines += [f"if ({cond}) {{",
                              f"return opf_fail(detail, OPFORGE_ERR_ARG, "
                              f"{c_string(f'{p.source}: count must be {arg.count.words()}')});", "}"]
            if p.role == "arg":
                arg = next(a for a in op.args if a.name == p.source)
                if arg.type is DataType.ENUM:
                    lines += [f"if ({p.name} < 0 || {p.name} >= {len(arg.possible_values)}) {{",
                              f"return opf_fail(detail, OPFORGE_ERR_ARG, {c_string(arg.name + ': not one of its possible values')});",
                              "}"]
                if arg.type is DataType.DATA_TYPE:  # (of plain values: no fixed-point type)
                    fixed = mask(set(abi.FIXED_POINT_DTYPES))
                    lines += [f"if ((unsigned){p.name} > (unsigned)OPFORGE_DTYPE_LAST "
                              f"|| (OPF_DTYPE_BIT({p.name}) & ({fixed})) != 0) {{",
                              f"return opf_fail(detail, OPFORGE_ERR_ARG, {c_string(arg.name + ': not a dtype')});",
                              "}"]
        unread = fixed_point.sets_attributes(op)
        columns = {n for n, axis in F.per_axis_scales(op).items() if axis == F.LAST_AXIS}
        for t in (*op.inputs, *op.outputs):
            allowed = {v.of(t.name) for v in (*self.variants, *self.fixed_variants)}
            name = abi.c_name(t.name)
            read = allowed - unread if t.kind == "output" else allowed
            if t.name in self.lists:
                lines += self.list_checks(t, allowed, read)
                continue
            # (an output's attributes the op sets: neither read nor checked)
            check = (f"opf_check_tensor_reading({name}, {mask(allowed)}, {mask(read)})" if read != allowed
                     else f"opf_check_tensor_columns({name}, {mask(allowed)})" if t.name in columns
                     else f"opf_check_tensor({name}, {mask(allowed)})")
            lines += [
                "{",
                f"const opforge_status st = {check};",
                "if (st != OPFORGE_OK) {",
                f"return opf_fail(detail, st, {c_string(tensor_message(t.name, allowed, t.name in columns))});",
                "}",
                "}",
            ]
        lines += self.overlap_checks()
        for cfg, c in op.all_constraints():
            if c.backend:
                continue
            cond = self.constraints.render(c.expr)
            lines += [f"if (!{cond}) {{",
                      f"return opf_fail(detail, OPFORGE_ERR_CONSTRAINT, {c_string(c.message)});", "}"]
        # Every tensor must have the dtype its variant (chosen by the primary tensor) gives it.
        prim = self.ref(self.primary)
        for v in (*self.variants, *self.fixed_variants):
            free = C.own_dtype_inputs(op)
            # (a list output's tensors are checked against the primary one by one, in list_checks)
            others = [t for t in (*op.inputs, *op.outputs) if t.name != self.primary and t.name not in free
                      and not (t.kind == "output" and t.name in self.lists)]
            if not others:
                continue
            cond = " || ".join(f"{abi.c_name(t.name)}->dtype != {abi.DTYPE_ENUM[v.of(t.name)]}" for t in others)
            lines += [f"if ({prim}->dtype == {abi.DTYPE_ENUM[v.dtype]} && ({cond})) {{",
                      f"return opf_fail(detail, OPFORGE_ERR_DTYPE, {c_string('tensor dtypes do not match: ' + _variant_text(v))});",
                      "}"]
        return lines + self.form_checks()

    def form_checks(self) -> list[str]:
        """The form's refusals and its outputs' shapes (c_shapes renders what the form says),
        rendered once by :attr:`shapes`: a body may render its sizes after them."""
        if self._form_checks is None:
            into = getattr(self.op.compute, "broadcasts_into_output", False)
            self._form_checks = c_shapes.refusal_checks(self.op, self.shapes) + \
                c_shapes.output_checks(self.op, self.shapes, into)
        return self._form_checks

    def overlap_checks(self) -> list[str]:
        """No output shares a byte with another output, nor with an input, unless it is exactly
        an input the op may write over (an elementwise op's: ADR 0006)."""
        op = self.op
        in_place = set(C.in_place_inputs(op))
        lines: list[str] = []

        def each(t: Input | Output, var: str) -> tuple[str, str, str]:
            """(loop head, loop end, the descriptor) over a tensor or the tensors of a list."""
            name = abi.c_name(t.name)
            if t.name not in self.lists:
                return "", "", name
            return f"for (int32_t {var} = 0; {var} < {name}_count; {var}++) {{", "}", f"{name}[{var}]"

        def fail(message: str) -> str:
            return f"return opf_fail(detail, OPFORGE_ERR_OVERLAP, {c_string(message)});"

        outputs = list(op.outputs)
        for k, o in enumerate(outputs):
            o_head, o_end, o_ref = each(o, "j")
            if o.name in self.lists:  # the tensors of a list output, among themselves
                name = abi.c_name(o.name)
                lines += [f"for (int32_t j = 0; j < {name}_count; j++) {{",
                          f"for (int32_t m = j + 1; m < {name}_count; m++) {{",
                          f"if (!opf_disjoint({name}[j], {name}[m])) {{", fail(f"{o.name}: its tensors overlap"),
                          "}", "}", "}"]
            for other in outputs[k + 1:]:  # several outputs are written in one pass
                b_head, b_end, b_ref = each(other, "m")
                lines += [o_head, b_head, f"if (!opf_disjoint({o_ref}, {b_ref})) {{",
                          fail(f"{o.name}, {other.name}: outputs must not overlap"), "}", b_end, o_end]
            for i in op.inputs:
                i_head, i_end, i_ref = each(i, "m")
                exact = i.name in in_place
                rule = (f"{o.name} may be {i.name} itself (the same data, dtype and shape), no other overlap"
                        if exact else f"{o.name} must not overlap {i.name}")
                lines += [o_head, i_head,
                          f"if (!opf_may_write_over({i_ref}, {o_ref}, {'true' if exact else 'false'})) {{",
                          fail(rule), "}", i_end, o_end]
        return [line for line in lines if line]

    def list_checks(self, t: Input | Output, allowed: set[str], read: set[str]) -> list[str]:
        """A tensor list: a count in range, every descriptor usable and of the first one's dtype
        (of an output list, of the primary tensor's: an output list may be empty)."""
        name, low, high = abi.c_name(t.name), t.count.low, t.count.high
        cond = f"{name}_count < {low}" + (f" || {name}_count > {high}" if high is not None else "")
        first = f"{self.ref(self.primary)}->dtype" if t.kind == "output" else f"{name}[0]->dtype"
        words = "of the inputs" if t.kind == "output" else "of the first"
        return [f"if ({cond}) {{",
                f"return opf_fail(detail, OPFORGE_ERR_ARG, {c_string(f'{t.name}: count must be {t.count.words()}')});", "}",
                f"if ({name}_count > 0 && {name} == NULL) {{",
                f"return opf_fail(detail, OPFORGE_ERR_NULL, {c_string(t.name + ': NULL')});", "}",
                f"for (int32_t k = 0; k < {name}_count; k++) {{",
                f"const opforge_status st = opf_check_tensor_reading({name}[k], {mask(allowed)}, {mask(read)});"
                if read != allowed else f"const opforge_status st = opf_check_tensor({name}[k], {mask(allowed)});",
                "if (st != OPFORGE_OK) {",
                f"return opf_fail(detail, st, {c_string(tensor_message(t.name, allowed))});", "}",
                f"if ({name}[k]->dtype != {first}) {{",
                f"return opf_fail(detail, OPFORGE_ERR_DTYPE, {c_string(t.name + ': every tensor must have the dtype ' + words)});",
                "}", "}"]

    def dispatch(self, per_variant: Callable[[D.Variant], list[str]], on: str | None = None,
                 fixed: Callable[[D.Variant], list[str]] | None = None, omittable: bool = False) -> list[str]:
        """A switch on the primary tensor's dtype: a case per variant, and per fixed-point
        type the op takes (``fixed``'s lines). ``omittable``: a build that defines the op's
        ``abi.omit_numeric`` macro compiles the plain variants' cases as a refusal (ADR 0080)."""
        on = on or f"{self.ref(self.primary)}->dtype"
        lines = [f"switch ({on}) {{"]
        omit = omittable and bool(self.variants)
        if omit:
            lines.append(f"#if !defined({abi.omit_numeric(self.op)})")
        for v in self.variants:
            lines += [f"case {abi.DTYPE_ENUM[v.dtype]}: {{", *per_variant(v), "break;", "}"]
        if omit:
            left_out = c_string(f"this build leaves out {', '.join(v.dtype for v in self.variants)} "
                                f"({abi.omit_numeric(self.op)})")
            lines += ["#else", *(f"case {abi.DTYPE_ENUM[v.dtype]}:" for v in self.variants),
                      f"return opf_fail(detail, OPFORGE_ERR_DTYPE, {left_out});", "#endif"]
        for v in self.fixed_variants:
            if fixed is not None:
                lines += [f"case {abi.DTYPE_ENUM[v.dtype]}: {{", *fixed(v), "break;", "}"]
            elif v.dtype in self.moved:  # (the storage's kernel; the attributes: api_returning)
                lines += [f"case {abi.DTYPE_ENUM[v.dtype]}: {{", *per_variant(self.moved[v.dtype]), "break;", "}"]
        lines += ["default:", f"return opf_fail(detail, OPFORGE_ERR_DTYPE, {c_string('unsupported dtype')});", "}"]
        return lines

    def moves(self) -> list[str]:
        """Of an op that moves fixed-point types, a switch that checks and passes along their
        attributes, whatever its kernels (a join's runtime copy moves bytes of any dtype)."""
        cases = [(v, self.moved_attributes(v)) for v in self.fixed_variants if v.dtype in self.moved]
        if not any(lines for _, lines in cases):  # (an arg reduction's indices carry none)
            return []
        return [f"switch ({self.ref(self.primary)}->dtype) {{",
                *(line for v, lines in cases for line in (f"case {abi.DTYPE_ENUM[v.dtype]}: {{", *lines, "break;", "}")),
                "default:", "break;", "}"]

    def moved_attributes(self, v: D.Variant) -> list[str]:
        """A move of a fixed-point type: the tensors it combines (a join's, set_diag's diagonal)
        must hold the first one's attributes, for their stored values to mean the same
        (OPFORGE_ERR_ATTRIBUTE); its outputs of the type take them, before the kernel runs."""
        t = F.TYPES[v.dtype]
        ins, outs = fixed_point.moved_tensors(self.op, t)
        first = self.ref(ins[0])
        lines: list[str] = []
        for name in ins:
            whose = "every tensor must have the first one's" if name in self.lists else f"must have {ins[0]}'s"
            others = [f"{abi.c_name(name)}[k]"] if name in self.lists else [] if name == ins[0] else [abi.c_name(name)]
            for other in others:
                check = same_attributes(t, other, first, name, whose)
                lines += ([f"for (int32_t k = 1; k < {abi.c_name(name)}_count; k++) {{", *check, "}"]
                          if name in self.lists else check)
        for o in outs:
            target = f"{abi.c_name(o)}[k]" if o in self.lists else abi.c_name(o)
            copies = [f"{target}->{a} = {first}->{a};" for a in ("shift", "scale", "offset")]
            lines += ([f"for (int32_t k = 0; k < {abi.c_name(o)}_count; k++) {{", *copies, "}"]
                      if o in self.lists else copies)
        return lines

    def api(self, body: list[str]) -> str:
        return self.api_returning(body + ["return OPFORGE_OK;"])

    def api_returning(self, body: list[str], prototype: str | None = None) -> str:
        """The API function (``prototype``, by default the op's): the common checks, then ``body``,
        which returns."""
        lines = self.checks() + self.moves() + body
        text = "\n".join(lines)
        # An arg the op's compute never reads still is a parameter: keep -Wunused-parameter quiet.
        unread = [p.name for p in abi.parameters(self.op) if p.role in ("arg", "optional", "array", "count")
                  and not re.search(rf"\b{re.escape(p.name)}\b", text)]
        voids = "".join(f"(void){name};\n" for name in unread)
        return self.linkage + (prototype or abi.prototype(self.op)) + "\n{\n" + voids + text + "\n}\n"

    @staticmethod
    def axis_sizes(x: str, axis: str) -> list[str]:
        """C declaring ``step`` (elements after the axis), ``size`` and ``slot`` (before it) of
        descriptor ``x`` around the axis arg ``axis`` (negative from the end; in range: checked)."""
        return [f"const int64_t axis_index = {axis} < 0 ? {axis} + {x}->rank : {axis};",
                "int64_t step = 1, slot = 1;",
                f"for (int32_t d = (int32_t)axis_index + 1; d < {x}->rank; d++) {{", f"step *= {x}->shape[d];", "}",
                "for (int32_t d = 0; d < (int32_t)axis_index; d++) {", f"slot *= {x}->shape[d];", "}",
                f"const int64_t size = {x}->shape[axis_index];"]

    def kernel_name(self, v: D.Variant, suffix: str = "") -> str:
        return f"{self.fn}_{SUFFIX[v.dtype]}{suffix}"

    def emit(self) -> OpCode:
        raise NotImplementedError


def tensor_message(name: str, allowed: set[str], columns: bool = False) -> str:
    """What a refused descriptor check says; ``columns``: the tensor's per-axis scales may run along
    its last axis (``opf_check_tensor_columns``)."""
    kinds = ", ".join(d for d in abi.ALL_DTYPES if d in allowed)
    fixed = allowed & set(abi.FIXED_POINT_DTYPES)
    attributes = ", fixed-point attributes out of range" if fixed else ""
    if any(F.TYPES[d].family == "D" for d in fixed):
        attributes += " or per axis along another than its last" if columns else " or per axis"
    return f"{name}: NULL, dtype not one of {kinds}, rank above {abi.MAX_RANK}{attributes}, or a bad size"


def _variant_text(v: D.Variant) -> str:
    return ", ".join(f"{n} {d}" for n, d in v.tensors)


def _c_default(value: object, type_: DataType) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value) if isinstance(value, float) else f"INT64_C({value})"
    return "0"


# ---------------------------------------------------------------- elementwise


def config_typedef(config: Config) -> str:
    """The C struct of a config: one field per arg; ops take a pointer (NULL: every default)."""
    fields = "\n".join(f"    {abi.scalar_ctype(a.type)} {abi.c_name(a.name)}; /**< {c_comment(a.description or a.name)} "
                       f"(default: {c_comment(repr(a.default))}) */" for a in config.args)
    return (f"/** @brief {c_comment(config.name)}: passed as a pointer; NULL means every default. */\n"
            f"typedef struct {abi.config_struct(config)} {{\n{fields or '    int unused; /**< (no fields) */'}\n}} "
            f"{abi.config_struct(config)};\n")
