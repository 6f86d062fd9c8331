"""Fixed-point element types and their conversions, stated once (ADR 0036).

DEEPCRAFT's two families (imunit authoring guide, 11.3 and 11.4):

- **Q7, Q15, Q31**, shifted fixed point as CMSIS-DSP holds it (``q7_t``, ``q15_t``,
  ``q31_t``): ``real = stored / 2**(N - shift)`` with ``N`` the fraction bits (7, 15,
  31); each tensor carries its ``shift``.
- **D8, D16, D32**, scaled (affine) fixed point as TensorFlow Lite and ONNX hold it:
  ``real = (stored - offset) * scale``; each tensor carries its ``scale`` and ``offset``.

The conversions are scalar trees (:mod:`dsl.scalar`) over the element ``x`` and the
per-call values of the attributes, computed in float32 (``real`` is float32), and every
target renders them with its own scalar renderer; a conversion to the stored integer
then takes cast's rule (truncated toward zero, saturated at the type's limits, NaN 0),
which the targets already render. The rules follow the libraries that own them, and the
tests hold them to those libraries bit for bit:

- Q from real: truncated toward zero and saturated, as CMSIS-DSP's ``arm_float_to_q15``
  (built without ``ARM_MATH_ROUNDING``, as its PyPI package is) and the reference
  library's Quantize unit; the scaling by a power of two is exact.
- Q to real: exact (a power-of-two division of an integer of at most 24 significant
  bits; Q31 rounds to float32's 24 bits, as ``arm_q31_to_float`` does).
- Q shift by ``k`` (the QShift unit, CMSIS-DSP's ``arm_shift_q15`` with ``-k``):
  ``k > 0`` an arithmetic shift right (rounding toward minus infinity), ``k < 0`` a
  saturating shift left; the result's shift is the input's plus ``k``. From one Q type to
  another the same, the difference of their fraction bits counted in ``k``
  (``arm_q15_to_q7`` is a shift right by 8).
- D from real: ``round_half_even(x / scale) + offset``, saturated (ONNX QuantizeLinear);
  NaN gives ``offset``, the stored value of real zero (ONNX leaves NaN undefined).
- D to real: ``(stored - offset) * scale`` (ONNX DequantizeLinear).

Below the conversions, the kernels an op's compute form derives, each held to its owner
the same way: Q and D arithmetic and comparisons (``q_kernel``, ``d_kernel``), lookup
tables of unary ops (``table_entry``; 16-bit types interpolate, ``interpolated_table``),
reductions (``q_reduction``, ``d_reduction``) and contractions (``q_contraction``,
``d_contraction``); ``derive`` picks the one for an op and a type, or says why there is none.
"""

from __future__ import annotations

import math
from typing import Any

import attrs

from dsl.scalar import FUNCTIONS, SCall, SConst, SExpr, SSym, resolve_enums, substitute, symbols
from dsl.types import DataType

#: The per-call values the conversions read besides the element ``x``.
FACTOR = "factor"  # Q: 2**(N - shift), exact in float32 for the shifts a Q type allows
SCALE, OFFSET = "scale", "offset"  # D: the tensor's own attributes
SHIFT_BY = "k"  # a Q shift: the change of the shift


@attrs.frozen
class FixedPointType:
    """One fixed-point element type: its family, and the integer dtype that stores it."""

    name: str  # the DSL's name, and System.parseType's: "q15"
    family: str  # "Q" (shifted) or "D" (scaled)
    storage: str  # "int16"

    @property
    def bits(self) -> int:
        return int(self.storage.removeprefix("int"))

    @property
    def system(self) -> str:
        """The Imaginet type name: ``System.Q15``."""
        return self.name.upper()

    @property
    def c_type(self) -> str:
        """CMSIS-DSP's type for Q (the guide's table), the standard integer for D."""
        return f"q{self.bits - 1}_t" if self.family == "Q" else f"{self.storage}_t"

    @property
    def fraction_bits(self) -> int:
        """N of ``real = stored / 2**(N - shift)`` (Q only)."""
        assert self.family == "Q", self.name
        return self.bits - 1

    @property
    def attributes(self) -> tuple[str, ...]:
        """What each tensor of the type carries (the guide's tensor metadata)."""
        return ("shift",) if self.family == "Q" else ("scale", "offset")

    @property
    def lowest(self) -> int:
        return -(2 ** (self.bits - 1))

    @property
    def highest(self) -> int:
        return 2 ** (self.bits - 1) - 1

    def shifts(self) -> range:
        """The shifts a Q type allows: those whose factor 2**(N - shift) is a normal float32
        number (so scaling by it is exact) and whose largest real value is finite."""
        n = self.fraction_bits
        return range(n - 127, min(n + 126, 127) + 1)


Q7, Q15, Q31 = (FixedPointType(f"q{b - 1}", "Q", f"int{b}") for b in (8, 16, 32))
D8, D16, D32 = (FixedPointType(f"d{b}", "D", f"int{b}") for b in (8, 16, 32))
TYPES: dict[str, FixedPointType] = {t.name: t for t in (Q7, Q15, Q31, D8, D16, D32)}


def storage_of(dtype: str) -> str:
    """The plain dtype that holds ``dtype``'s values: a fixed-point type's storage, else itself."""
    return TYPES[dtype].storage if dtype in TYPES else dtype


def _call(fn: str, *args: SExpr) -> SExpr:
    return SCall(fn, args)


X = SSym("x")


@attrs.frozen
class Conversion:
    """A conversion of one element ``x``: ``value`` computed in ``domain``, then, when
    ``storage`` is set, converted to that integer dtype by cast's rule. ``lets`` are named
    values (name, dtype, tree) computed first, in order, each in its own dtype, that later
    ones and ``value`` read: a value read twice is computed once (a tree would repeat it in
    every place it is read), and in no wider a type than it needs."""

    value: SExpr
    domain: str
    storage: str | None = None
    lets: tuple[tuple[str, str, SExpr], ...] = ()


class _Lets:
    """Collects the named values of a Conversion as a kernel is built."""

    def __init__(self) -> None:
        self.bound: list[tuple[str, str, SExpr]] = []

    def __call__(self, name: str, tree: SExpr, dtype: str) -> SSym:
        named = f"{name}_{len(self.bound)}"
        self.bound.append((named, dtype, tree))
        return SSym(named)


def _saturated(value: SExpr, t: FixedPointType) -> SExpr:
    return _call("minimum", _call("maximum", value, SConst(t.lowest)), SConst(t.highest))


def q_factor(t: FixedPointType, shift: int) -> float:
    """2**(N - shift): real values times it are the stored ones (exact in float32)."""
    if shift not in t.shifts():
        raise ValueError(f"{t.system}: shift must be in {t.shifts().start}..{t.shifts().stop - 1}, not {shift}")
    return 2.0 ** (t.fraction_bits - shift)


def affine(t: FixedPointType, shift: int = 0, scale: float = 1.0, offset: int = 0) -> tuple[float, int]:
    """The tensor in the affine scheme ``real = (stored - zero_point) * scale`` that NNEF's and
    ONNX's quantization describe: a Q type's scale is ``1 / q_factor`` (a power of two, exact)
    and its zero point 0; a D type's are its own scale and offset."""
    if t.family == "Q":
        return 1.0 / q_factor(t, shift), 0
    return scale, offset


def in_steps(t: FixedPointType) -> SExpr:
    """A real ``x`` counted in the type's steps, before from-real rounds it: Q ``x * factor``
    (the stored value, which the cast truncates); D ``x / scale`` (the offset is added after
    rounding)."""
    return _call("mul", X, SSym(FACTOR)) if t.family == "Q" else _call("div", X, SSym(SCALE))


def from_real(t: FixedPointType) -> Conversion:
    """real (float32 ``x``) -> stored."""
    if t.family == "Q":
        return Conversion(in_steps(t), "float32", t.storage)
    rounded = _call("add", _call("round_half_even", in_steps(t)), SSym(OFFSET))
    return Conversion(_call("where", _call("isnan", X), SSym(OFFSET), rounded), "float32", t.storage)


def to_real(t: FixedPointType) -> Conversion:
    """stored ``x`` -> real (float32)."""
    if t.family == "Q":
        return Conversion(_call("div", X, SSym(FACTOR)), "float32")
    return Conversion(_call("mul", _call("sub", X, SSym(OFFSET)), SSym(SCALE)), "float32")


def shifted(t: FixedPointType, to: FixedPointType | None = None) -> Conversion:
    """A stored Q value (of ``t``) re-expressed with its shift raised by ``k`` (lowered for
    ``k < 0``) and, with ``to``, in another Q type whose fraction bits count in ``k`` (Q15 to Q7
    at the same shift: ``k = 8``, CMSIS-DSP's ``arm_q15_to_q7``): ``x`` shifted right by ``k``
    (toward minus infinity) or left by ``-k``, then saturated. Computed in an integer wide
    enough for both; a left shift of ``to``'s bits less one saturates every value but 0, so
    it stops there (and cannot overflow)."""
    to = to or t
    assert t.family == to.family == "Q", (t.name, to.name)
    wide = "int64" if 32 in (t.bits, to.bits) else "int32"
    k = SSym(SHIFT_BY)
    left = _call("left_shift", X, _call("minimum", _call("neg", k), SConst(to.bits - 1)))
    moved = _call("where", _call("ge", k, SConst(0)), _call("right_shift", X, k), left)
    return Conversion(_saturated(moved, to), wide, to.storage)


def bit_utilization(t: FixedPointType) -> Conversion:
    """The bits a stored Q value uses, its sign bit included, as the FixedPoint library's
    BitUtilization unit counts them (``32 - __builtin_clrsb(x)``): the bit length of ``x``, or
    of ``~x`` where it is negative, plus one (1 for 0 and -1, 16 for Q15's 32767), int8. The
    bit length as a popcount of the value with every bit below its highest set (portable C,
    and NumPy has no bit length)."""
    assert t.family == "Q", t.name
    let = _Lets()
    smeared = let("magnitude", _call("where", _call("lt", X, SConst(0)), _call("bitwise_not", X), X), "int32")
    for k in (1, 2, 4, 8, 16):
        smeared = let("smeared", _call("bitwise_or", smeared, _call("right_shift", smeared, SConst(k))), "int32")
    return Conversion(_call("add", _call("popcount", smeared), SConst(1)), "int32", "int8", tuple(let.bound))


# ------------------------------------------------------------ Q arithmetic derived from an op's tree


#: The comparisons a Q or D kernel derives (their result is a bool).
COMPARISONS = ("eq", "ne", "lt", "le", "gt", "ge")


#: The axis a tensor's per-axis scales run along that an op's kernels take (ADR 0069, 0071): any
#: (a conversion's tensors, whose loop reads each element's scale), or the last (a contraction's
#: second operand: a scale per column of the result, as ONNX's QLinearMatMul takes a 1-D b_scale).
ANY_AXIS, LAST_AXIS = None, -1


def per_axis_scales(op: Any) -> dict[str, int | None]:
    """The tensors whose per-axis scales ``op``'s kernels read, by name, each with the axis they
    must run along (:data:`ANY_AXIS`, :data:`LAST_AXIS`): every tensor of a conversion that may be
    a D type (q_shift and bit_utilization take Q tensors alone); the operand whose last axis is
    the result's columns in a D contraction or dense layer. Each target's check and refusal of
    per-axis scales reads this."""
    if getattr(op.compute, "takes_per_axis_scales", False):
        tensors = (*op.inputs, *op.outputs)
        scaled = any(t.type in (DataType.FIXED_POINT, DataType.SCALED) for t in tensors)
        return {t.name: ANY_AXIS for t in tensors} if scaled else {}
    found: dict[str, int | None] = {}
    if getattr(op.compute, "kind", None) not in ("contraction", "fragment"):
        return found
    for t in TYPES.values():
        derived = derive(op, t) if t.family == "D" else None
        contraction = derived.contraction if isinstance(derived, DDense) else derived
        if isinstance(contraction, DContraction) and contraction.per_column is not None:
            found[contraction.per_column] = LAST_AXIS
    return found


def reads_per_axis_scales(op: Any) -> bool:
    """Whether any of ``op``'s tensors may carry per-axis scales (:func:`per_axis_scales`)."""
    return bool(per_axis_scales(op))


def shift_of(name: str) -> str:
    """The symbol of input ``name``'s shift in attribute expressions."""
    return f"{name}_shift"


def aligned_by(name: str) -> str:
    """The per-call symbol: how far input ``name`` moves right to reach the output's shift."""
    return f"{name}_k"


@attrs.frozen
class QKernel:
    """A Q type's elementwise kernel, derived from an op's scalar tree: ``value`` computes the
    stored result from the stored inputs (named as the op's inputs) and per-call values
    (``per_call``: name -> expression over the inputs' shifts, evaluated once per call), and
    ``output_shift`` is the result's shift, over the inputs' shifts (None: a comparison's
    result is a bool)."""

    value: Conversion
    per_call: tuple[tuple[str, SExpr], ...]
    output_shift: SExpr | None
    kind: str  # the op's function: add, sub, minimum, maximum, neg, abs, mul or a comparison


def q_kernel(tree: SExpr, t: FixedPointType) -> QKernel | str:
    """The Q kernel of an elementwise op whose tree is one arithmetic function of its inputs,
    with CMSIS-DSP's meaning for equal shifts (``arm_add_q15``, ``arm_sub_q15``,
    ``arm_mult_q15``, ``arm_negate_q15``, ``arm_abs_q15``: saturating), or why there is none.

    Shifts may differ: a sum, a difference, a minimum or a maximum first moves each input
    right to the larger shift (toward minus infinity), which is the output's; a product's
    shift is the sum of the inputs'. A Q31 product keeps CMSIS-DSP's 31 bits (its lowest
    bit is 0). A comparison is exact: the input of the larger shift moves left to the
    smaller one, in int64 (by at most 32 bits, beyond which the order is already decided)."""
    assert t.family == "Q", t.name
    if not (isinstance(tree, SCall) and all(isinstance(a, SSym) for a in tree.args)):
        return "its compute is not one arithmetic function of its inputs"
    names = [a.name for a in tree.args if isinstance(a, SSym)]
    wide = "int64" if t.bits == 32 else "int32"
    shifts = [SSym(shift_of(n)) for n in names]
    let = _Lets()  # (a value saturation reads twice is named: computed once, in the wide dtype)
    if tree.fn in ("add", "sub", "minimum", "maximum") and len(names) == 2:
        out = _call("maximum", *shifts)
        moved = [_call("right_shift", SSym(n), SSym(aligned_by(n))) for n in names]
        value = _call(tree.fn, *moved)
        if tree.fn in ("add", "sub"):
            value = _saturated(let("raw", value, wide), t)
        per_call = tuple((aligned_by(n), _call("sub", out, s)) for n, s in zip(names, shifts))
        return QKernel(Conversion(value, wide, t.storage, tuple(let.bound)), per_call, out, tree.fn)
    if tree.fn in COMPARISONS and len(names) == 2:
        ups = [_call("minimum", _call("maximum", _call("sub", a, b), SConst(0)), SConst(32))
               for a, b in ((shifts[0], shifts[1]), (shifts[1], shifts[0]))]
        moved = [_call("left_shift", SSym(n), SSym(aligned_by(n))) for n in names]
        return QKernel(Conversion(_call(tree.fn, *moved), "int64"), tuple(zip(map(aligned_by, names), ups)), None,
                       tree.fn)
    if tree.fn in ("neg", "abs") and len(names) == 1:
        return QKernel(Conversion(_saturated(let("raw", tree, wide), t), wide, t.storage, tuple(let.bound)), (),
                       shifts[0], tree.fn)
    if tree.fn == "mul" and len(names) == 2:
        product = _call("mul", *(SSym(n) for n in names))
        if t.bits == 32:  # (arm_mult_q31: the top 32 bits, saturated to 31, shifted back)
            high = let("high", _call("right_shift", product, SConst(32)), wide)
            value = _call("mul", _call("minimum", _call("maximum", high, SConst(-(2**30))), SConst(2**30 - 1)),
                          SConst(2))
        else:
            value = _saturated(let("raw", _call("right_shift", product, SConst(t.fraction_bits)), wide), t)
        return QKernel(Conversion(value, wide, t.storage, tuple(let.bound)), (), _call("add", *shifts), "mul")
    return f"{tree.fn} has no {t.system} arithmetic"


# ------------------------------------------------------- lookup tables through the real values


def _renamed(conversion: Conversion, prefix: str) -> SExpr:
    """The conversion's tree with its per-call symbols prefixed (``factor`` -> ``x_factor``)."""
    names = (FACTOR, SCALE, OFFSET)
    return substitute(conversion.value, {n: SSym(f"{prefix}_{n}") for n in names})


def table_entry(tree: SExpr, source: FixedPointType, target: FixedPointType, name: str = "x",
                output: str = "output") -> Conversion:
    """The entry of a unary op's lookup table for stored input ``x`` (float32, every value of
    ``source`` in turn): the op's float tree on the real value, converted to ``target`` by
    the rules above, as TensorFlow Lite Micro fills its int8 activation tables. The per-call
    values are the input's and the output's attributes, prefixed with their names
    (``x_factor``, ``output_scale``, ...). Computed in float64 (once per table, not per
    element): C's libm and NumPy's float32 functions differ in the last bit often enough to
    give another entry in a 16-bit table; in float64 they would have to differ by 2**-36 of
    an output step. The real input and the op's result are named: the op's tree may read its
    input several times and the output rule its result (a gelu derivative's NumPy fill was 123 KB)."""
    let = _Lets()
    real = substitute(_renamed(to_real(source), name), {"x": X})
    if name in symbols(tree):  # (zeros_like's tree reads no input: nothing to name)
        real = let("real", real, "float64")
    result = let("result", substitute(tree, {name: real}), "float64")
    stored = substitute(_renamed(from_real(target), output), {"x": result})
    return Conversion(stored, "float64", target.storage, tuple(let.bound))


# ---------------------------------------------------------------- Q reductions, from the form

#: The per-call value of a sum's headroom: the bits a sum of ``n`` values may grow by.
HEADROOM = "h"
ACC, COUNT = SSym("acc"), SSym("n")

#: Why a fixed-point reduction that divides by its count (a mean) refuses no elements: its
#: float form gives NaN there, which no stored integer holds. Every target says these words.
EMPTY_MEAN = "a fixed-point mean of no elements has no value (its float form gives NaN)"


#: Why a move refuses tensors of other attributes than its first (a join's, set_diag's
#: diagonal): ``whose`` is "every tensor must have the first one's" (a tensor list) or
#: "must have <first>'s". Every target formats these words.
SAME_ATTRIBUTES = ("{name}: {whose} fixed-point attributes (the same {type} {attributes}), "
                   "for the stored values to mean the same")


def _divides_by_count(finalize: "Conversion") -> bool:
    """Whether a reduction's finalize divides by its count: it then needs one element at least
    (:data:`EMPTY_MEAN`); max and min refuse no elements in their float form already."""
    return COUNT.name in symbols(finalize.value) | {n for _, _, t in finalize.lets for n in symbols(t)}


def headroom(n: int) -> int:
    """ceil(log2(n)): a sum of ``n`` stored values, shifted right by it, fits the type again
    (0 for ``n <= 1``). Imaginet's ``n.log2.ceil``, as the real Norm unit computes it; in C
    ``opf_headroom``."""
    return max(n - 1, 0).bit_length()


def headroom_of(count: SExpr) -> SExpr:
    """:func:`headroom` of a count a target computes (a unit's axis size) as a per-call tree:
    the ``headroom`` function, which each target spells as it computes it."""
    return _call("headroom", count)


@attrs.frozen
class QReduction:
    """A Q type's reduction, derived from a Reduce form: each element's ``map`` (over the
    stored ``x`` and ``y``, in ``domain``) is combined by ``combine`` into ``acc``, which
    ``finalize`` (over ``acc``, ``n`` and the headroom ``h``) turns into the stored result;
    ``output_shift`` is over the inputs' shifts and ``h``. One requantization, at the end."""

    combine: str
    map: SExpr
    finalize: Conversion
    output_shift: SExpr
    domain: str

    @property
    def refuses_empty(self) -> bool:
        """A mean: no elements have no value (:data:`EMPTY_MEAN`)."""
        return _divides_by_count(self.finalize)


def q_reduction(form: object, t: FixedPointType) -> QReduction | str:
    """max and min exactly (CMSIS-DSP's ``arm_max_no_idx_q15``); a mean as ``arm_mean_q15``
    (the sum over the truncating count, the input's shift); a sum moved right by its
    headroom (the shift grows by it); a dot product as ``arm_dot_prod_q15`` accumulates it
    (Q31: each product's lowest 14 bits dropped first, as CMSIS-DSP does), moved right to the
    type's fraction bits and the headroom. Anything else says why it has none."""
    assert t.family == "Q", t.name
    combine, map_, finalize = (getattr(form, f) for f in ("combine", "map", "finalize"))
    other, pre, extra = (getattr(form, f) for f in ("other", "pre", "extra_maps"))
    x_shift, h = SSym(shift_of("x")), SSym(HEADROOM)
    let = _Lets()  # (a value saturation reads twice is named)
    if pre is not None or extra:
        return "its reduction reads a first pass or several sums"
    if other is None and map_ is None:
        if combine in ("max", "min") and finalize is None:
            return QReduction(combine, X, Conversion(ACC, t.storage, t.storage), x_shift, t.storage)
        if combine == "add" and finalize is None:
            value = _saturated(let("moved", _call("right_shift", ACC, h), "int64"), t)
            return QReduction("add", X, Conversion(value, "int64", t.storage, tuple(let.bound)),
                              _call("add", x_shift, h), "int64")
        if combine == "add" and finalize == _call("div", ACC, COUNT):
            return QReduction("add", X, Conversion(_call("div", ACC, COUNT), "int64", t.storage), x_shift, "int64")
    if other is None and combine == "add" and map_ == _call("mul", X, X) and finalize == _call("sqrt", ACC):
        return _q_norm(t)
    if other is not None and combine == "add" and finalize is None and map_ == _call("mul", X, SSym("y")):
        product = _call("mul", X, SSym("y"))
        fraction = 2 * t.fraction_bits
        if t.bits == 32:
            product, fraction = _call("right_shift", product, SConst(14)), fraction - 14
        moved = let("moved", _call("right_shift", ACC, _call("add", SConst(fraction - t.fraction_bits), h)), "int64")
        shifts = _call("add", _call("add", x_shift, SSym(shift_of("y"))), h)
        return QReduction("add", product, Conversion(_saturated(moved, t), "int64", t.storage, tuple(let.bound)),
                          shifts, "int64")
    return f"its reduction ({combine} of {'a map' if map_ is not None else 'x'}" \
           f"{', then a finalize' if finalize is not None else ''}) has no {t.system} form yet"


def root_headroom(h: SExpr) -> SExpr:
    """ceil(h / 2): the bits the square root of a sum of ``n`` squares grows by, for ``h`` the
    sum's :func:`headroom` (ceil(log2 sqrt(n)), the real Norm unit's ``(n.sqrt).log2.ceil``)."""
    return _call("div", _call("add", h, SConst(1)), SConst(2))


def _q_norm(t: FixedPointType) -> QReduction:
    """The Euclidean norm: the squares summed in int64 (Q31: each square's lowest 14 bits dropped
    first, as ``arm_dot_prod_q31`` does), then the integer square root of the sum moved right by
    twice the root's headroom ``g`` (Q31: by 2g - 14, a left shift where negative), saturated;
    the output's shift the input's plus ``g``. Q7 and Q15 are the floor of the exact norm in output
    steps; the real Norm unit's ``arm_sqrt_q31`` approximates it."""
    square, dropped = _call("mul", X, X), 0
    if t.bits == 32:
        square, dropped = _call("right_shift", square, SConst(14)), 14
    let = _Lets()
    g = let("root_headroom", root_headroom(SSym(HEADROOM)), "int64")
    k = let("k", _call("sub", _call("mul", SConst(2), g), SConst(dropped)), "int64")
    moved = _call("where", _call("ge", k, SConst(0)), _call("right_shift", ACC, k),
                  _call("left_shift", ACC, _call("neg", k)))
    root = let("root", _call("isqrt", moved), "int64")
    return QReduction("add", square, Conversion(_saturated(root, t), "int64", t.storage, tuple(let.bound)),
                      _call("add", SSym(shift_of("x")), root_headroom(SSym(HEADROOM))), "int64")


# ------------------------------------------------ D arithmetic: integer rescaling, as TFLite does


def quantize_multiplier(real: float) -> tuple[int, int]:
    """``real`` as ``multiplier * 2**(exponent - 31)`` with a 31-bit ``multiplier``: TensorFlow
    Lite's QuantizeMultiplier (the fraction of frexp rounded half away from zero; 0 for a
    real too small to hold, the largest multiplier at exponent 30 for one too large). Its C
    twin is ``opf_quantize_multiplier`` (runtime/opf_fixed_point.h)."""
    if real == 0:
        return 0, 0
    fraction, exponent = math.frexp(real)
    fixed = math.floor(abs(fraction) * 2**31 + 0.5) * (1 if fraction > 0 else -1)
    if abs(fixed) == 2**31:
        fixed //= 2
        exponent += 1
    if exponent < -31:
        return 0, 0
    if exponent > 30:
        return 2**31 - 1, 30
    return fixed, exponent


def _int64(value: int) -> SExpr:
    return SConst(value)


def _high_mul(let: _Lets, a: SExpr, b: SExpr) -> SExpr:
    """gemmlowp's SaturatingRoundingDoublingHighMul of two int32 values: the high half of
    ``2 a b`` (the product in int64), rounded half away from zero (its division truncates:
    a negative sum is raised by 2**31 - 1 before the shift); MIN * MIN saturates to MAX."""
    product = let("product", _call("mul", a, b), "int64")
    nudged = let("nudged", _call("add", product, _call("where", _call("ge", product, _int64(0)), _int64(2**30),
                                                             _int64(1 - 2**30))), "int64")
    truncated = _call("add", nudged, _call("where", _call("lt", nudged, _int64(0)), _int64(2**31 - 1), _int64(0)))
    high = let("top", _call("right_shift", truncated, _int64(31)), "int64")
    both_min = _call("logical_and", _call("eq", a, _int64(-(2**31))), _call("eq", b, _int64(-(2**31))))
    return let("high", _call("where", both_min, _int64(2**31 - 1), high), "int32")


def _rounding_shift(let: _Lets, x: SExpr, exponent: SExpr) -> SExpr:
    """gemmlowp's RoundingDivideByPOT: ``x / 2**exponent`` rounded half away from zero."""
    mask = let("mask", _call("sub", _call("left_shift", _int64(1), exponent), _int64(1)), "int32")
    remainder = _call("bitwise_and", x, mask)
    threshold = _call("add", _call("right_shift", mask, _int64(1)),
                      _call("where", _call("lt", x, _int64(0)), _int64(1), _int64(0)))
    return let("rounded", _call("add", _call("right_shift", x, exponent),
                                _call("where", _call("gt", remainder, threshold), _int64(1), _int64(0))), "int32")


@attrs.frozen
class Routine:
    """A scalar function the fixed-point kernels call by name, ``SCall(name, args)``, defined
    once here as a tree over its parameters. Each target renders the definition once (C: the
    runtime's ``static inline opf_<name>``; NumPy: the package's ``_kernels.<name>``) and its
    kernels call it: a tree inlined would repeat the body in every kernel, loop and variant
    (a D8 add's three rescalings were 46 KB of C per loop)."""

    name: str
    params: tuple[tuple[str, str], ...]  # (name, dtype): each argument is computed in its dtype
    body: Conversion  # (the result: body.value in body.domain, after body.lets)
    doc: str  # (one sentence, the definitions' comment)


def _rescale_routine(wide: str) -> Routine:
    """TFLite's MultiplyByQuantizedMultiplier of ``x`` (computed in ``wide``) by a 31-bit
    ``multiplier`` and an ``exponent``: a left shift for a positive exponent, gemmlowp's
    doubling high multiply, then a rounding right shift for a negative one; int32."""
    let, exponent = _Lets(), SSym("exponent")
    right = let("right", _call("maximum", _call("neg", exponent), _int64(0)), "int32")
    shifted_x = let("shifted", _call("left_shift", X, _call("maximum", exponent, _int64(0))), wide)
    value = _rounding_shift(let, _high_mul(let, shifted_x, SSym("multiplier")), right)
    return Routine(f"rescale_{wide}", (("x", wide), ("multiplier", "int32"), ("exponent", "int32")),
                   Conversion(value, "int32", None, tuple(let.bound)),
                   f"x ({wide}) times multiplier * 2**(exponent - 31), rounded half away from zero "
                   "(TensorFlow Lite's MultiplyByQuantizedMultiplier).")


#: The routines, by name: what a kernel's tree may call besides the scalar functions.
ROUTINES: dict[str, Routine] = {r.name: r for r in (_rescale_routine("int32"), _rescale_routine("int64"))}


def _rescaled(let: _Lets, x: SExpr, name: str, wide: str) -> SExpr:
    """``x`` (computed in ``wide``) rescaled by the per-call ``<name>_multiplier`` and
    ``<name>_exponent``: a call of the ``rescale_<wide>`` routine."""
    call = _call(f"rescale_{wide}", x, SSym(f"{name}_multiplier"), SSym(f"{name}_exponent"))
    return let("rescaled", call, "int32")


@attrs.frozen
class DKernel:
    """A D type's elementwise kernel (integer-only): ``value`` over the stored inputs and the
    per-call integers that :meth:`per_call` computes from the tensors' scales and offsets."""

    kind: str  # "add", "sub" or "mul"
    inputs: tuple[str, ...]
    value: Conversion
    left_shift: int  # (add, sub: the inputs' headroom before rescaling, TFLite's left_shift)

    @property
    def multipliers(self) -> tuple[tuple[str, SExpr], ...]:
        """Each rescaling's real factor, over the tensors' ``<name>_scale`` (float64): TFLite's
        inputs over twice the larger input scale, and that over the output's (shifted left by
        ``left_shift``); a product's, the inputs' scales over the output's. Each becomes the
        per-call ``<name>_multiplier`` and ``<name>_exponent`` (:func:`quantize_multiplier`)."""
        scale = {n: SSym(f"{n}_scale") for n in (*self.inputs, "output")}
        if self.kind == "mul":
            return (("output", _call("div", _call("mul", *(scale[n] for n in self.inputs)), scale["output"])),)
        twice_max = _call("mul", SConst(2.0), _call("maximum", *(scale[n] for n in self.inputs)))
        out = [(n, _call("div", scale[n], twice_max)) for n in self.inputs]
        if self.kind not in COMPARISONS:
            out.append(("output", _call("div", twice_max, _call("mul", SConst(float(1 << self.left_shift)),
                                                                scale["output"]))))
        return tuple(out)

    @property
    def offsets(self) -> tuple[str, ...]:
        """The tensors whose offsets the kernel reads (``<name>_offset``): a comparison's output none."""
        return (*self.inputs, *(() if self.kind in COMPARISONS else ("output",)))

    def per_call(self, scales: dict[str, float], offsets: dict[str, int]) -> dict[str, int]:
        """The kernel's per-call integers for the tensors' scales and offsets."""
        return _per_call(self.multipliers, self.offsets, scales, offsets)


def _real(tree: SExpr, values: dict[str, float]) -> float:
    """A multiplier's tree in float64 (Python's float: C's double, operation for operation)."""
    if isinstance(tree, SConst):
        return float(tree.value)
    if isinstance(tree, SSym):
        return float(values[tree.name])
    args = [_real(a, values) for a in tree.args]  # type: ignore[union-attr]
    return {"mul": lambda a, b: a * b, "div": lambda a, b: a / b, "maximum": max}[tree.fn](*args)  # type: ignore[union-attr]


def _per_call(multipliers: tuple[tuple[str, SExpr], ...], offsets: tuple[str, ...], scales: dict[str, float],
              given: dict[str, int]) -> dict[str, int]:
    values = {f"{n}_offset": given[n] for n in offsets}
    reals = {f"{n}_scale": v for n, v in scales.items()}
    for name, tree in multipliers:
        values[f"{name}_multiplier"], values[f"{name}_exponent"] = quantize_multiplier(_real(tree, reals))
    return values


def d_kernel(tree: SExpr, t: FixedPointType) -> DKernel | str:
    """The D kernel of an elementwise add, sub, mul or comparison of two inputs, TensorFlow
    Lite's integer arithmetic (its reference int8/int16 Add, Mul and comparisons): inputs
    less their offsets, rescaled by 31-bit multipliers with gemmlowp's rounding, the result
    rescaled and offset, saturated (a comparison compares the rescaled inputs). The output's
    scale and offset are the caller's (a D tensor's attributes are chosen, as a TFLite
    model's are); anything else says why it has none."""
    assert t.family == "D", t.name
    if not (isinstance(tree, SCall) and tree.fn in ("add", "sub", "mul", *COMPARISONS) and len(tree.args) == 2
            and all(isinstance(a, SSym) for a in tree.args)):
        return "its compute is not a sum, difference, product or comparison of two inputs"
    if t.bits == 32:  # (a 32-bit value shifted left and times a 31-bit multiplier passes 64 bits)
        return ("TensorFlow Lite's integer arithmetic is defined for 8- and 16-bit tensors: a D32 operand's "
                "rescaling would overflow its 64 bits")
    names = tuple(a.name for a in tree.args if isinstance(a, SSym))
    let = _Lets()
    # (D8's values less their offsets, shifted left by 20, fit int32; D16's need int64)
    wide = "int32" if t.bits == 8 else "int64"
    centred = [let("centred", _call("sub", SSym(n), SSym(f"{n}_offset")), wide) for n in names]
    if tree.fn in COMPARISONS:  # (TFLite's comparisons: the inputs rescaled as a sum's, shifted by 8)
        scaled = [_rescaled(let, _call("left_shift", c, _int64(8)), n, wide) for c, n in zip(centred, names)]
        return DKernel(tree.fn, names, Conversion(_call(tree.fn, *scaled), "int32", None, tuple(let.bound)), 8)
    if tree.fn == "mul":
        raw = _rescaled(let, let("product", _call("mul", *centred), "int64"), "output", "int64")
        left_shift = 0
    else:
        left_shift = 20 if t.bits == 8 else 15
        scaled = [_rescaled(let, _call("left_shift", c, _int64(left_shift)), n, wide) for c, n in zip(centred, names)]
        raw = _rescaled(let, let("sum", _call(tree.fn, *scaled), wide), "output", wide)
    value = _saturated(let("offset", _call("add", raw, SSym("output_offset")), "int32"), t)
    return DKernel(tree.fn, names, Conversion(value, "int32", t.storage, tuple(let.bound)), left_shift)


# ------------------------------------------- 16-bit tables: 513 knots and linear interpolation

#: A 16-bit input's table has a knot every KNOT_STEP stored values (TensorFlow Lite Micro's
#: int16 activations: 513 entries, the last at the type's end), interpolated between.
KNOT_BITS = 7
KNOT_STEP = 1 << KNOT_BITS
#: Knots are int32 and unsaturated up to +-KNOT_LIMIT; the interpolation saturates after. A
#: knot saturated to the type would bend the line toward it where the op leaves the output's
#: range between two knots (exp on Q15 then missed by 101 steps). 2**23 keeps a knots'
#: difference times a fraction (below KNOT_STEP) within int32.
KNOT_LIMIT = 1 << 23
#: The most a 16-bit table's value may differ from the exact stored output, at any input: every
#: fill checks all 65,536 and refuses the attributes and args otherwise. A smooth op misses by
#: its curvature over 128 stored values (at most 6.4 steps where the benchmark's attributes
#: accept the catalogue's ops); a jump, a pole or a domain edge between two knots by hundreds.
TABLE_BOUND = 8
TABLE_MISS = ("{name}: a {type} table's interpolation misses the float reference by more than {miss} steps "
              "at these attributes and args (the op jumps, has a pole, leaves its domain or bends too fast "
              "between two knots)")


@attrs.frozen
class InterpolatedTable:
    """A unary op on a 16-bit type as 513 int32 knots and an integer interpolation.

    ``entry`` gives knot ``i``'s output for ``x = lowest + i * KNOT_STEP`` (float64, ``table_entry``'s
    rule, but a Q knot rounded to the nearest step rather than truncated, and clamped to
    +-KNOT_LIMIT rather than saturated to the type: an interpolation is no conversion, and rounded
    knots centre its error); ``index`` and ``fraction`` (over the stored input ``x``, int32) say which
    knots an input falls between and how far; ``value`` (over ``base``, the knot below, ``next``, the
    knot above, and ``fraction``, int32) interpolates, rounding half up, and saturates. ``exact``
    (over ``knot``, the entry's rule at any stored input) is the exact stored output there: the
    fill evaluates the rule at every stored input, keeps the knots, and compares every other
    input's ``exact`` with its ``value``, refusing where one differs by more than TABLE_BOUND
    (:data:`TABLE_MISS`). No midpoint or sample would do: a jump can fall between any two of
    them (floor at Q15 shift 9 jumps every 64 stored values, on the midpoints), a pole's reach
    can be one stored value."""

    entry: Conversion
    index: SExpr
    fraction: SExpr
    value: Conversion
    exact: Conversion

    @property
    def knots(self) -> int:
        return (1 << 16) // KNOT_STEP + 1


def interpolated_table(tree: SExpr, source: FixedPointType, target: FixedPointType, name: str = "x",
                       output: str = "output") -> InterpolatedTable:
    assert source.bits == 16, source.name
    above = _call("sub", X, SConst(source.lowest))
    index = _call("right_shift", above, SConst(KNOT_BITS))
    fraction = _call("bitwise_and", above, SConst(KNOT_STEP - 1))
    base, step = SSym("base"), _call("sub", SSym("next"), SSym("base"))
    moved = _call("right_shift", _call("add", _call("mul", step, SSym("fraction")), SConst(KNOT_STEP // 2)),
                  SConst(KNOT_BITS))
    let = _Lets()  # (the sum saturation reads twice, named)
    value = Conversion(_saturated(let("sum", _call("add", base, moved), "int32"), target), "int32", target.storage,
                       tuple(let.bound))
    entry = table_entry(tree, source, target, name, output)
    if target.family == "Q":  # (to the nearest step: the interpolation's error then centres on 0)
        entry = attrs.evolve(entry, value=_call("round_half_even", entry.value))
    clamped = _call("minimum", _call("maximum", entry.value, SConst(-KNOT_LIMIT)), SConst(KNOT_LIMIT))
    entry = attrs.evolve(entry, value=clamped, storage="int32")  # (a NaN stays NaN, then cast's 0)
    # (the knot rule at any input, saturated: what an exact table would store there)
    exact = Conversion(_saturated(SSym("knot"), target), "int32", target.storage)
    return InterpolatedTable(entry, index, fraction, value, exact)


def lookup_table(tree: SExpr, t: FixedPointType, name: str = "x") -> Conversion | InterpolatedTable | None:
    """A unary tree's table on ``t``: an entry per stored value (8-bit), 513 interpolated knots
    (16-bit), none for a 32-bit type (too large). An op of several cases (log with a base) has a
    table per case, each of its own tree."""
    if t.bits == 8:
        return table_entry(tree, t, t, name)
    return interpolated_table(tree, t, t, name) if t.bits == 16 else None


# ----------------------------------------------------------------- D reductions, from the form


@attrs.frozen
class DReduction:
    """A D type's reduction, derived from a Reduce form, integer-only: each element's ``map``
    (over the stored ``x`` and the per-call ``x_offset``) is combined into ``acc``, which
    ``finalize`` (over ``acc``, ``n`` and the per-call integers of :meth:`per_call`) rescales
    once to the output's scale and offset."""

    combine: str
    map: SExpr
    finalize: Conversion
    domain: str

    #: TFLite's rescaling of ``x``'s scale over the output's, and the offsets read.
    multipliers = (("output", SCall("div", (SSym("x_scale"), SSym("output_scale")))),)
    offsets = ("x", "output")

    @property
    def refuses_empty(self) -> bool:
        """A mean: no elements have no value (:data:`EMPTY_MEAN`)."""
        return _divides_by_count(self.finalize)

    def per_call(self, scales: dict[str, float], offsets: dict[str, int]) -> dict[str, int]:
        return _per_call(self.multipliers, self.offsets, scales, offsets)


def d_reduction(form: object, t: FixedPointType) -> DReduction | str:
    """A sum, a mean, a max or a min of a D tensor as TensorFlow Lite's integer reductions
    compute them: the stored values less the input's offset summed in int64 (a max or min
    picks the stored value), rescaled once by the input's scale over the output's with
    gemmlowp's rounding; a mean then divided by the count, rounding half away from zero;
    offset and saturated. Anything else says why it has none."""
    assert t.family == "D", t.name
    combine, map_, finalize = (getattr(form, f) for f in ("combine", "map", "finalize"))
    if any(getattr(form, f) for f in ("other", "pre", "extra_maps")) or map_ is not None:
        return f"its reduction reads a map, a first pass or a second input: no {t.system} form yet"
    if t.bits == 32:  # (a sum of 32-bit values, or one less its offset, times a 31-bit multiplier passes 64 bits)
        return ("TensorFlow Lite's integer reductions are defined for 8- and 16-bit tensors: a D32 accumulator's "
                "rescaling would overflow its 64 bits")
    mean = finalize == _call("div", ACC, COUNT)
    if not (combine in ("add", "max", "min") and (finalize is None or (mean and combine == "add"))):
        return f"its reduction ({combine}{', then a finalize' if finalize is not None else ''}) has no {t.system} form yet"
    let = _Lets()
    centred = ACC if combine == "add" else _call("sub", ACC, SSym("x_offset"))
    raw = _rescaled(let, let("centred", centred, "int64"), "output", "int64")
    if mean:
        half = _call("div", COUNT, _int64(2))
        raw = let("mean", _call("div", _call("where", _call("gt", raw, _int64(0)), _call("add", raw, half),
                                              _call("sub", raw, half)), COUNT), "int64")
    value = _saturated(_call("add", raw, SSym("output_offset")), t)
    mapped = _call("sub", X, SSym("x_offset")) if combine == "add" else X
    return DReduction(combine, mapped, Conversion(value, "int64", t.storage, tuple(let.bound)), "int64")


# ------------------------------------------------------------ Q contractions (matmul, einsum)


@attrs.frozen
class QContraction:
    """A Q type's contraction (a sum of products over the contracted labels): each term's
    ``map`` (over the two stored operands, named as the form's inputs) accumulates in int64
    into ``acc``, which ``finalize`` requantizes once; ``output_shift`` is over the operands'
    shifts."""

    map: SExpr
    finalize: Conversion
    output_shift: SExpr


def q_contraction(form: object, t: FixedPointType) -> QContraction | str:
    """CMSIS-DSP's ``arm_mat_mult_q7``/``q15``: the products summed wide, shifted right by the
    fraction bits and saturated, the output's shift the sum of the operands' (no headroom:
    a product that does not fit saturates, as there). Q31 drops each product's lowest 14 bits
    first, as ``arm_dot_prod_q31`` does, so that int64 holds 2**15 terms (``arm_mat_mult_q31``
    keeps them and wraps past two extreme terms); its result is saturated too."""
    assert t.family == "Q", t.name
    inputs = getattr(form, "inputs", ())
    if len(inputs) != 2:
        return f"its contraction does not take two operands: no {t.system} form yet"
    a, b = (SSym(n) for n in inputs)
    product, fraction = _call("mul", a, b), t.fraction_bits
    if t.bits == 32:
        product, fraction = _call("right_shift", product, SConst(14)), fraction - 14
    let = _Lets()  # (the value saturation reads twice, named)
    value = _saturated(let("moved", _call("right_shift", ACC, SConst(fraction)), "int64"), t)
    shifts = _call("add", SSym(shift_of(inputs[0])), SSym(shift_of(inputs[1])))
    return QContraction(product, Conversion(value, "int64", t.storage, tuple(let.bound)), shifts)


def _rescaled_wide(let: _Lets, x: SExpr, name: str) -> SExpr:
    """TFLite's MultiplyByQuantizedMultiplier for an int64 ``x`` (its int16 kernels' wide
    accumulators, up to 2**47): the multiplier reduced to 15 bits (rounded), the product
    shifted right by ``15 - exponent`` rounding half up."""
    multiplier, exponent = SSym(f"{name}_multiplier"), SSym(f"{name}_exponent")
    reduced = _call("where", _call("lt", multiplier, _int64(0x7FFF0000)),
                    _call("right_shift", _call("add", multiplier, _int64(1 << 15)), _int64(16)), _int64(0x7FFF))
    total = let("total", _call("sub", _int64(15), exponent), "int64")
    rounding = _call("left_shift", _int64(1), _call("sub", total, _int64(1)))
    return let("rescaled", _call("right_shift", _call("add", _call("mul", x, reduced), rounding), total), "int64")


@attrs.frozen
class DContraction:
    """A D type's contraction: each term's ``map`` (the two operands less their offsets,
    multiplied) accumulates in int64 into ``acc``, which ``finalize`` rescales once by
    ``a``'s scale times ``b``'s over the output's (per-call integers of :meth:`per_call`)."""

    inputs: tuple[str, str]
    map: SExpr
    finalize: Conversion
    #: The operand whose last axis is the result's columns (the second, where the form says so):
    #: its per-axis scales along that axis give a multiplier per column (ADR 0071).
    per_column: str | None = None

    @property
    def multipliers(self) -> tuple[tuple[str, SExpr], ...]:
        """The operands' scales over the output's."""
        a, b = (SSym(f"{n}_scale") for n in self.inputs)
        return (("output", _call("div", _call("mul", a, b), SSym("output_scale"))),)

    @property
    def offsets(self) -> tuple[str, ...]:
        return (*self.inputs, "output")

    def per_call(self, scales: dict[str, float], offsets: dict[str, int]) -> dict[str, int]:
        return _per_call(self.multipliers, self.offsets, scales, offsets)


def d_contraction(form: object, t: FixedPointType) -> DContraction | str:
    """ONNX's MatMulInteger accumulators (the operands less their offsets, multiplied and
    summed: exact), rescaled as TensorFlow Lite's FullyConnected and BatchMatMul do (D16: its
    int16 kernels' wide rescaling of int64 accumulators), offset and saturated."""
    assert t.family == "D", t.name
    inputs = tuple(getattr(form, "inputs", ()))
    if len(inputs) != 2:
        return f"its contraction does not take two operands: no {t.system} form yet"
    if t.bits == 32:  # (two 32-bit operands' products fill int64 alone)
        return ("ONNX's MatMulInteger and TensorFlow Lite's integer matmuls take 8- and 16-bit operands: D32 "
                "products would overflow a 64-bit sum")
    product = _call("mul", *(_call("sub", SSym(n), SSym(f"{n}_offset")) for n in inputs))
    let = _Lets()
    raw = _rescaled(let, ACC, "output", "int64") if t.bits == 8 else _rescaled_wide(let, ACC, "output")
    value = _saturated(_call("add", raw, SSym("output_offset")), t)
    return DContraction((inputs[0], inputs[1]), product, Conversion(value, "int64", t.storage, tuple(let.bound)),
                        _columns(form))


def _columns(form: object) -> str | None:
    """The operand of a two-operand contraction whose last axis is the result's columns: the second,
    where its last label is the result's last and the first operand's labels lack it (a matrix
    product's ``kj``), or the weights of a dense layer's operands (no spec: rows of x by columns)."""
    spec = getattr(form, "spec", None)
    inputs = tuple(getattr(form, "inputs", ()))
    if spec is None:
        return inputs[1]
    a, b = (tuple(o.labels) for o in spec.inputs)
    column = b[-1] if b else None
    out = tuple(spec.output.labels)
    return inputs[1] if column not in (None, "...") and out and out[-1] == column and column not in a else None


# ------------------------------------------------------ dense layers: a contraction and a bias

#: The most a dense layer's moved bias holds (in the sum's steps): beyond it the result saturates
#: in every type (2**61 over the sum's fraction bits passes Q31's range), and the sum stays in int64.
BIAS_LIMIT = 1 << 61


@attrs.frozen
class _Operands:
    """A contraction's operands, for deriving a dense layer's products as a matmul's."""

    inputs: tuple[str, ...] = ()


@attrs.frozen
class QDense:
    """A Q dense layer (a dense fragment: rows of x times a matrix of weights, plus a bias vector):
    the products summed in int64 as :func:`q_contraction` sums them, starting from the bias moved
    to the sum's fraction bits, as CMSIS-NN's fully connected layers start theirs from the shifted
    bias; then the contraction's one requantization, and its output shift (x's plus the weights').
    ``bias`` is the moved bias, over the stored ``<bias>`` and the per-call ``bias_k`` (the sum's
    fraction bits less the bias's: a left shift, saturated at :data:`BIAS_LIMIT`, or a right shift,
    toward minus infinity, where negative)."""

    inputs: tuple[str, str, str]  # (x, the weights, the bias)
    contraction: QContraction
    bias: Conversion
    per_call: tuple[tuple[str, SExpr], ...]

    @property
    def output_shift(self) -> SExpr:
        return self.contraction.output_shift


def dense(inputs: tuple[str, ...], t: FixedPointType) -> QDense | DDense | str:
    """The dense layer of a dense fragment's inputs (x, the weights, the bias) on ``t``
    (:class:`QDense`, :class:`DDense`), or why there is none."""
    if len(inputs) != 3:
        return f"its dense layer does not take one bias vector: no {t.system} form yet"
    x, w, b = inputs
    return _q_dense(x, w, b, t) if t.family == "Q" else _d_dense(x, w, b, t)


def _q_dense(x: str, w: str, b: str, t: FixedPointType) -> QDense:
    contraction = q_contraction(_Operands((x, w)), t)
    assert isinstance(contraction, QContraction), contraction
    # (the sum's fraction bits, 2N less the operands' shifts (Q31: 14 fewer, its products' dropped
    # bits), less the bias's, N less its shift)
    fraction = t.fraction_bits - (14 if t.bits == 32 else 0)
    k = _call("add", _call("sub", _call("sub", SConst(fraction), SSym(shift_of(x))), SSym(shift_of(w))),
              SSym(shift_of(b)))
    let = _Lets()
    bias, k_sym = let("bias", SSym(b), "int64"), SSym("bias_k")
    left = let("left", _call("minimum", k_sym, SConst(62)), "int64")
    room = _call("right_shift", SConst(BIAS_LIMIT), left)
    held = _call("where", _call("gt", _call("abs", bias), room),
                 _call("where", _call("gt", bias, SConst(0)), SConst(BIAS_LIMIT), SConst(-BIAS_LIMIT)),
                 _call("left_shift", bias, left))
    moved = _call("where", _call("ge", k_sym, SConst(0)), held,
                  _call("right_shift", bias, _call("minimum", _call("neg", k_sym), SConst(63))))
    return QDense((x, w, b), contraction, Conversion(moved, "int64", None, tuple(let.bound)), (("bias_k", k),))


@attrs.frozen
class DDense:
    """A D dense layer: TensorFlow Lite's FullyConnected (its int8 and int16 kernels): the operands
    less their offsets multiplied and summed in int64 (:func:`d_contraction`), starting from the
    bias in the sum's units (x's scale times the weights'): the bias less its offset rescaled by its
    scale over those (``bias_multiplier``, ``bias_exponent``), saturated to int32 as TensorFlow
    Lite's int32 bias holds it; then the contraction's one rescaling into the output's scale and
    offset, which are the caller's."""

    inputs: tuple[str, str, str]
    contraction: DContraction
    bias: Conversion

    @property
    def multipliers(self) -> tuple[tuple[str, SExpr], ...]:
        x, w, b = (SSym(f"{n}_scale") for n in self.inputs)
        return (*self.contraction.multipliers, ("bias", _call("div", b, _call("mul", x, w))))

    @property
    def offsets(self) -> tuple[str, ...]:
        return (*self.inputs, "output")

    def per_call(self, scales: dict[str, float], offsets: dict[str, int]) -> dict[str, int]:
        return _per_call(self.multipliers, self.offsets, scales, offsets)


def _d_dense(x: str, w: str, b: str, t: FixedPointType) -> DDense | str:
    contraction = d_contraction(_Operands((x, w)), t)
    if isinstance(contraction, str):
        return contraction
    let = _Lets()
    centred = let("centred", _call("sub", SSym(b), SSym(f"{b}_offset")), "int64")
    exponent = SSym("bias_exponent")
    shifted = let("shifted", _call("left_shift", centred, _call("maximum", exponent, SConst(0))), "int64")
    held = let("held", _call("minimum", _call("maximum", shifted, SConst(-(2**31))), SConst(2**31 - 1)), "int64")
    right = let("right", _call("maximum", _call("neg", exponent), SConst(0)), "int32")
    value = _rounding_shift(let, _high_mul(let, held, SSym("bias_multiplier")), right)
    return DDense((x, w, b), contraction, Conversion(value, "int64", None, tuple(let.bound)))


# ------------------------------------------- softmax: a table of exponentials, one rescaling

#: An 8-bit softmax's table holds e^(-d * step) for the 256 stored differences d from a row's
#: largest value, in 2**-SOFTMAX_BITS steps (2**30 at d = 0, so a row's sum of 2**31 entries
#: stays in int64); each element's share of its row's sum is taken in 2**-31 steps. A 16-bit
#: difference d = 256 * high + low has e^(-d * step) = e^(-low * step) * e^(-256 * high * step):
#: its table holds a second part of SOFTMAX_ENTRIES entries, of the high byte's differences.
SOFTMAX_BITS = 30
SOFTMAX_ENTRIES = 256
#: The per-call real step of the input's stored values (Q: 2**(shift - N); D: its scale).
STEP = "x_real_step"
#: The reciprocal of a row's sum the shares take: 2**RECIPROCAL_BITS // sum.
RECIPROCAL_BITS = 61


@attrs.frozen
class Softmax:
    """An 8- or 16-bit softmax along an axis (a softmax fragment), as TensorFlow Lite Micro's int8
    softmax computes one: per row the largest stored value m; each element's e^(-(m - x) * step)
    from a table of :data:`SOFTMAX_ENTRIES` entries (``entry``: rounded half to even in
    2**-SOFTMAX_BITS steps, filled once for the input's ``step``, the per-call :data:`STEP`) or, for
    a 16-bit type, the product of two (``combine``, over the symbols ``low`` and ``high``: the
    entries of the difference's low byte and of its high byte, the second part's entry i being
    ``entry`` at the difference 256 * i), rounded back to 2**-SOFTMAX_BITS steps; their
    sum in int64; each element's share, ``entry * (2**61 // sum)`` rounded to 2**-31 steps and held
    below 2**31 (``share``, over the symbols ``e`` and ``reciprocal``); then ``finalize``, the one
    rescaling of the share (``acc``) into the output's steps (TFLite's MultiplyByQuantizedMultiplier
    by the ``output`` multiplier, 2**-31 over the output's step), plus its offset, saturated. A Q
    output's shift is 0 (real = stored / 2**N: a probability's range); a D output's scale and
    offset are the caller's."""

    x: str
    attribute: str  # the input's attribute the table is filled for: ``<x>_shift`` or ``<x>_scale``
    step: SExpr  # the input's real step (float64): Q 1 / ``<x>_factor`` (the type's q_factor), D its scale
    entry: Conversion
    share: Conversion
    finalize: Conversion
    output_shift: SExpr | None
    output_step: SExpr  # a Q output's 2**-N; a D output's ``output_scale``
    combine: Conversion | None = None  # a 16-bit difference's exponential from its two bytes' entries

    @property
    def parts(self) -> int:
        """The table's parts of :data:`SOFTMAX_ENTRIES` entries: one per byte of a difference."""
        return 1 if self.combine is None else 2

    def part_difference(self, part: int) -> int:
        """What part ``part``'s entry i is ``entry`` at: the difference i times this."""
        return SOFTMAX_ENTRIES**part

    def part_index(self, part: int) -> SExpr:
        """Where in the table part ``part``'s entry of the stored difference ``d`` (the symbol)
        sits: d itself for an 8-bit type; for a 16-bit one its low byte, then SOFTMAX_ENTRIES plus
        its high byte (d is below 2**16: nothing above it to mask)."""
        d = SSym("d")
        shifted = d if part == 0 else _call("right_shift", d, SConst(8 * part))
        byte = shifted if part == self.parts - 1 else _call("bitwise_and", shifted, SConst(SOFTMAX_ENTRIES - 1))
        return byte if part == 0 else _call("add", SConst(SOFTMAX_ENTRIES * part), byte)

    @property
    def multipliers(self) -> tuple[tuple[str, SExpr], ...]:
        """The output's rescaling: 2**-31 (a share's step) over the output's step."""
        return (("output", _call("div", SConst(2.0 ** -31), self.output_step)),)

    def constant_multiplier(self) -> tuple[int, int] | None:
        """A Q output's multiplier and exponent (its step is a constant), or None for a D output's
        (from its scale, per call)."""
        tree = self.multipliers[0][1]
        return None if symbols(tree) else quantize_multiplier(_real(tree, {}))


def softmax(form: object, inputs: tuple[str, ...], t: FixedPointType) -> Softmax | str:
    """The softmax of a softmax fragment on ``t`` (:class:`Softmax`), or why there is none."""
    names = {name for _, name in getattr(form, "c_fragments", ())}
    if getattr(form, "layout", None) != "axis" or not names or not all(n.startswith("softmax_") for n in names):
        return f"its fragment form has no {t.system} form yet"
    if t.bits > 16:
        return (f"a {t.system} row's differences from its largest value span {t.bits} bits: their exponentials "
                f"would take a table part per byte, and a share in 2^-31 steps is coarser than the {t.system} "
                "output's step (neither CMSIS-NN nor onnxruntime has a 32-bit softmax)")
    d = X  # (the table's index: a stored difference (or its high byte's) from the row's largest value)
    exponential = _call("exp", _call("neg", _call("mul", d, SSym(STEP))))
    entry = Conversion(_call("round_half_even", _call("mul", exponential, SConst(float(2 ** SOFTMAX_BITS)))),
                       "float64", "int32")
    rounded = _call("right_shift", _call("add", _call("mul", SSym("e"), SSym("reciprocal")),
                                         _int64(1 << (RECIPROCAL_BITS - 32))), _int64(RECIPROCAL_BITS - 31))
    share = Conversion(_call("minimum", rounded, _int64(2**31 - 1)), "int64", None)
    let = _Lets()
    offset = SConst(0) if t.family == "Q" else SSym("output_offset")
    value = _saturated(_call("add", _rescaled(let, SSym("acc"), "output", "int64"), offset), t)
    finalize = Conversion(value, "int32", t.storage, tuple(let.bound))
    combine = None if t.bits == 8 else Conversion(_call("right_shift", _call(
        "add", _call("mul", SSym("low"), SSym("high")), _int64(1 << (SOFTMAX_BITS - 1))), _int64(SOFTMAX_BITS)),
        "int64", None)
    x = inputs[0]
    if t.family == "Q":  # (the factor as every Q rule reads it: 2**(N - shift), exact)
        step = _call("div", SConst(1.0), SSym(f"{x}_{FACTOR}"))
        return Softmax(x, shift_of(x), step, entry, share, finalize, SConst(0), SConst(2.0 ** -t.fraction_bits),
                       combine)
    return Softmax(x, f"{x}_scale", SSym(f"{x}_scale"), entry, share, finalize, None, SSym("output_scale"), combine)


# --------------------------------- clamps: minima, maxima and selections with real bounds

#: Why a clamp refuses a NaN bound: no stored value holds it (a minimum or maximum with it is NaN
#: everywhere, a comparison with it false everywhere).
CLAMP_NAN = "{name}: a {type} clamp's bound must be a number, not NaN (no stored value holds it)"


def factor_of(t: FixedPointType, name: str) -> SExpr:
    """Tensor ``name``'s :func:`q_factor` as a tree over its ``<name>_shift`` (for the targets
    that compute it per call: 2**(N - shift) is exact in float64)."""
    return _call("pow", SConst(2.0), _call("sub", SConst(t.fraction_bits), SSym(shift_of(name))))


@attrs.frozen
class Clamp:
    """A unary op whose tree takes only minima, maxima and selections by comparisons (``where``)
    of its input and real bounds (its args, constants): clip, relu6, hard_tanh, relu, step (the
    comparisons' bounds: :func:`clamp`). Each bound becomes a stored value of the input's type
    once a call (``bounds``: per-call name -> the type's :func:`from_real` of the bound, in
    float64, at the input's attributes; the reference library's Clip quantizes its min and max
    so), and ``value`` is the tree on the stored input and those; the output keeps the input's
    attributes. Exact: from_real is monotone and gives each stored value back from its real
    value, so it commutes with minima and maxima (CMSIS-DSP's ``arm_clip_q15`` on the bounds so
    converted), and a comparison of an integer with a real bound is that with the bound rounded
    down (``>``, ``<=``) or up (``<``, ``>=``). A NaN bound is refused (``CLAMP_NAN``)."""

    input: str
    family: str  # the type's: which attributes the bounds read and the output takes
    args: tuple[str, ...]  # the op's args the bounds read, in the op's order
    bounds: tuple[tuple[str, Conversion], ...]
    value: Conversion

    @property
    def per_call(self) -> tuple[tuple[str, Conversion], ...]:
        return self.bounds

    @property
    def attributes(self) -> tuple[str, ...]:
        """The input's attributes, which the bounds read and the output takes."""
        return ((shift_of(self.input),) if self.family == "Q"
                else (f"{self.input}_scale", f"{self.input}_offset"))

    @property
    def selects(self) -> bool:
        """Whether the tree compares (a selection's bound is an int64 one past the type's ends)."""
        return any(rule.storage == "int64" for _, rule in self.bounds)


#: A comparison with its operands swapped.
_FLIPPED = {"gt": "lt", "lt": "gt", "ge": "le", "le": "ge"}


def clamp(tree: SExpr, t: FixedPointType, name: str, args: tuple[str, ...]) -> Clamp | None:
    """The clamp of a unary op whose tree is minima, maxima and selections (``where``) by a
    comparison of its input ``name`` with a real bound, over that input, its ``args`` and number
    constants (:class:`Clamp`: clip, relu6, hard_tanh, relu, step), or None for any other tree.

    A value is converted by the type's from-real rule (``<bound>_stored``); a comparison's bound
    by the rounding that keeps the comparison of integers exact (``x > b`` is ``x > floor(b)``,
    ``x < b`` is ``x < ceil(b)``; ``<bound>_floor``, ``<bound>_ceil``), saturated one past the
    type's ends (so that it stays true or false for every stored value as it is for the real
    ones), in int64. A tree that compares computes in the type's wide integer."""
    values: dict[SExpr, str] = {}
    thresholds: dict[tuple[SExpr, str], str] = {}
    let = _Lets()  # (an inner minimum, maximum or selection, named: a tree would repeat it where read twice)
    x = SSym(name)

    def real(node: SExpr) -> bool:
        return (isinstance(node, SSym) and node.name in args) or (
            isinstance(node, SConst) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool))

    def label(node: SExpr) -> str:
        return node.name if isinstance(node, SSym) else f"bound{len(values) + len(thresholds)}"

    def condition(node: SExpr) -> SExpr | None:
        if not (isinstance(node, SCall) and node.fn in _FLIPPED and len(node.args) == 2):
            return None
        left, right = node.args
        fn = node.fn
        if right == x and real(left):
            left, right, fn = right, left, _FLIPPED[fn]
        if left != x or not real(right):
            return None
        rounding = "floor" if fn in ("gt", "le") else "ceil"
        key = (right, rounding)
        return _call(fn, x, SSym(thresholds.setdefault(key, f"{label(right)}_{rounding}")))

    def stored(node: SExpr, top: bool = False) -> SExpr | None:
        if node == x:
            return node
        if real(node):
            return SSym(values.setdefault(node, f"{label(node)}_stored"))
        if not isinstance(node, SCall):
            return None
        if node.fn in ("minimum", "maximum") and len(node.args) == 2:
            parts = [stored(a) for a in node.args]
        elif node.fn == "where" and len(node.args) == 3:
            parts = [condition(node.args[0]), stored(node.args[1]), stored(node.args[2])]
        else:
            return None
        if None in parts:
            return None
        value = _call(node.fn, *parts)  # type: ignore[arg-type]
        return value if top else let("clamped", value, "wide")

    if not (isinstance(tree, SCall) and tree.fn in ("minimum", "maximum", "where")):
        return None
    value = stored(tree, top=True)
    if value is None or (not values and not thresholds) or name not in symbols(value).union(
            *(symbols(v) for _, _, v in let.bound)):
        return None
    per_input = ({FACTOR: factor_of(t, name)} if t.family == "Q"
                 else {SCALE: SSym(f"{name}_scale"), OFFSET: SSym(f"{name}_offset")})
    rule = substitute(from_real(t).value, per_input)
    per_call = [(n, Conversion(substitute(rule, {"x": bound}), "float64", t.storage)) for bound, n in values.items()]
    # (a bound as a stored value, unrounded: the steps from-real counts, plus a D type's offset)
    steps = substitute(in_steps(t) if t.family == "Q" else _call("add", in_steps(t), SSym(OFFSET)), per_input)
    for (bound, rounding), n in thresholds.items():
        edge = _call(rounding, substitute(steps, {"x": bound}))
        within = _call("minimum", _call("maximum", edge, SConst(float(t.lowest - 1))), SConst(float(t.highest + 1)))
        per_call.append((n, Conversion(within, "float64", "int64")))
    domain = t.storage if not thresholds else ("int64" if t.bits == 32 else "int32")
    lets = tuple((n, domain if d == "wide" else d, v) for n, d, v in let.bound)
    used = tuple(a for a in args if SSym(a) in values or any(SSym(a) == b for b, _ in thresholds))
    return Clamp(name, t.family, used, tuple(per_call),
                 Conversion(value, domain, t.storage if thresholds else None, lets))


# ---------------------------------------- logarithms: the reference library's Log, CMSIS-DSP's arm_vlog

#: ln 2 in Q15 and Q31, truncated: the 1 / log2(e) by which CMSIS-DSP's ``arm_vlog`` turns the
#: binary logarithm it finds into a natural one (a constant of its algorithm, so of the results).
LN2_STORED = {16: 0x58B9, 32: 0x58B90BFB}
#: The shift of ``arm_vlog``'s result: Q4.11 for a Q15 input, Q5.26 for Q31 (room for ln 2**-N).
LOG_SHIFT = {16: 4, 32: 5}
#: The shift the reference library's Log passes ``arm_scale``; its Q15 factor is quantized at the
#: output's shift plus one for it (``shift_corr``), its Q31 factor at the output's.
SCALE_SHIFT = 5
#: The per-call real factor of a log's case (1, or 1 / ln(base)), which its constants read.
LOG_FACTOR = "log_factor"


@attrs.frozen
class Log:
    """A unary op each of whose cases is the natural logarithm of its input times a real factor
    of its args (``log``: ln(x), ln(x) / ln(base)), on Q15 and Q31, computed as the reference
    library's Log unit computes with CMSIS-DSP (``log_cmsis_q15``): ``arm_vlog`` (the logarithm of
    the stored value as a Q value of shift 0, in :data:`LOG_SHIFT`), ``arm_scale`` by the factor
    quantized (``scale_q``) with :data:`SCALE_SHIFT`, ``arm_offset`` by ``shift * ln 2`` times the
    factor quantized (``offset_q``): the input's shift adds its logarithm. Both constants are
    quantized as the reference's Expressions do (``quantize``: rounded half to even, saturated),
    once a call, from the case's factor (``factors``: the args the case takes, and the factor's
    tree over them; ``Elementwise.presence`` says which applies), the input's shift and the
    output's. The output's shift is the reference's ``floor(log2(shift + 8))``, which it leaves
    undefined from shift -8 down: 0 there (``ilog2`` of at least 1). Bit for bit the reference's
    for positive stored values; 0 (ln 0 = -inf) gives the type's lowest value, a negative one 0
    (NaN's conversion), as the real value's conversion would."""

    input: str
    args: tuple[str, ...]  # the args the factors read, in the op's order
    factors: tuple[tuple[tuple[str, ...], SExpr], ...]
    output_shift: SExpr
    constants: tuple[tuple[str, Conversion], ...]
    value: Conversion

    @property
    def per_call(self) -> tuple[tuple[str, Conversion], ...]:
        return self.constants

    @property
    def attributes(self) -> tuple[str, ...]:
        return (shift_of(self.input),)


def _log_factor(tree: SExpr, name: str, args: tuple[str, ...]) -> SExpr | None:
    """The real factor of a tree that is ln(``name``) times or over a real tree of ``args`` and
    numbers (1 for ln itself), or None."""
    log = _call("log", SSym(name))

    def real(node: SExpr) -> bool:
        if isinstance(node, SSym):
            return node.name in args
        if isinstance(node, SConst):
            return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
        return FUNCTIONS.get(node.fn, (0, ""))[1] in ("num", "float") and all(real(a) for a in node.args)

    if tree == log:
        return SConst(1.0)
    if isinstance(tree, SCall) and tree.fn in ("mul", "div") and len(tree.args) == 2:
        a, b = tree.args
        if a == log and real(b):
            return b if tree.fn == "mul" else _call("div", SConst(1.0), b)
        if b == log and real(a) and tree.fn == "mul":
            return a
    return None


def q_log(cases: tuple[tuple[tuple[str, ...], SExpr], ...], t: FixedPointType, name: str,
          args: tuple[str, ...]) -> Log | None:
    """The :class:`Log` of a unary op's cases on Q15 or Q31, or None (another type, or a case that
    is not a logarithm times a real factor)."""
    if t.family != "Q" or t.bits not in LN2_STORED:
        return None
    factors = tuple((tuple(given), _log_factor(tree, name, args)) for given, tree in cases)
    if any(f is None for _, f in factors):
        return None
    n, wide = t.fraction_bits, ("int64" if t.bits == 32 else "int32")
    shift, out = SSym(shift_of(name)), SSym("output_shift")
    output_shift = _call("ilog2", _call("maximum", _call("add", shift, SConst(8)), SConst(1)))
    factor = SSym(LOG_FACTOR)
    correction = 1 if t.bits == 16 else 0  # (the reference's shift_corr)

    def quantized(value: SExpr, at: SExpr) -> Conversion:  # (Imaginet's quantize: value * 2**N / 2**shift)
        steps = _call("mul", value, _call("pow", SConst(2.0), _call("sub", SConst(float(n)), at)))
        return Conversion(_call("round_half_even", steps), "float64", t.storage)

    constants = (("scale_q", quantized(factor, _call("add", out, SConst(correction)) if correction else out)),
                 ("offset_q", quantized(_call("mul", _call("mul", shift, SConst(math.log(2.0))), factor), out)))
    let = _Lets()
    x = SSym(name)
    log = let("log", _call("q_log", x), t.storage)
    product = _call("mul", log, SSym("scale_q"))
    if t.bits == 16:  # (arm_scale_q15: the product shifted right by 15 - shift, saturated)
        scaled = _call("right_shift", product, SConst(n - SCALE_SHIFT))
    else:  # (arm_scale_q31: its top 32 bits, then left by shift + 1, saturated)
        scaled = _call("mul", _call("right_shift", product, SConst(32)), SConst(1 << (SCALE_SHIFT + 1)))
    scaled = let("scaled", _saturated(let("product", scaled, wide), t), wide)
    summed = _saturated(_call("add", scaled, SSym("offset_q")), t)  # (arm_offset: saturating)
    value = _call("where", _call("gt", x, SConst(0)), summed,
                  _call("where", _call("eq", x, SConst(0)), SConst(t.lowest), SConst(0)))
    used = tuple(a for a in args if any(a in symbols(f) for _, f in factors))  # type: ignore[arg-type]
    return Log(name, used, factors, output_shift, constants,  # type: ignore[arg-type]
               Conversion(value, wide, t.storage, tuple(let.bound)))



#: A D16 logarithm reads its input less its offset as a Q31 value, moved left by this (below
#: 2**31), so that arm_vlog_q31 gives its logarithm less 16 ln 2, in Q5.26.
D_LOG_MOVE = 15


@attrs.frozen
class DLog:
    """A logarithm (as :class:`Log`: ln of the input times a real factor per case) on D16: the
    stored value less the input's offset, ``t``, moved left by :data:`D_LOG_MOVE` and read as a
    Q31 value by ``q_log`` (arm_vlog_q31: ln t - 16 ln 2 in Q5.26), plus the per-call ``log_k``,
    16 ln 2 + ln(x_scale) in Q5.26 (rounded half to even): the real value's logarithm in Q5.26,
    saturated to int32; then TensorFlow Lite's rescaling by the case's factor over the output's
    scale times 2**26 (``output_multiplier``, ``output_exponent``), the output's offset added,
    saturated. ``t = 0`` gives the lowest value (ln 0 = -inf), ``t < 0`` the output's offset (NaN's
    conversion: real zero). The output's scale and offset are the caller's, as every D kernel's."""

    input: str
    args: tuple[str, ...]
    factors: tuple[tuple[tuple[str, ...], SExpr], ...]
    constants: tuple[tuple[str, Conversion], ...]  # (log_k, over the input's scale)
    value: Conversion

    @property
    def multipliers(self) -> tuple[tuple[str, SExpr], ...]:
        """The rescaling of a Q5.26 logarithm into output steps, over the factor and the output's scale."""
        return (("output", _call("div", SSym(LOG_FACTOR), _call("mul", SSym("output_scale"),
                                                               SConst(float(1 << (31 - LOG_SHIFT[32])))))),)

    @property
    def offsets(self) -> tuple[str, ...]:
        return (self.input, "output")


def d_log(cases: tuple[tuple[tuple[str, ...], SExpr], ...], t: FixedPointType, name: str,
          args: tuple[str, ...]) -> DLog | None:
    """The :class:`DLog` of a unary op's cases on D16, or None."""
    if t.family != "D" or t.bits != 16:
        return None
    factors = tuple((tuple(given), _log_factor(tree, name, args)) for given, tree in cases)
    if any(f is None for _, f in factors):
        return None
    fraction = 31 - LOG_SHIFT[32]
    moved_bits = 31 - D_LOG_MOVE  # (16 ln 2: t moved left by 15 and read as a Q31 value is t / 2**16)
    log_k = _call("mul", _call("add", SConst(moved_bits * math.log(2.0)), _call("log", SSym(f"{name}_scale"))),
                  SConst(float(1 << fraction)))
    constants = (("log_k", Conversion(_call("round_half_even", log_k), "float64", "int64")),)
    let = _Lets()
    centred = let("centred", _call("sub", SSym(name), SSym(f"{name}_offset")), "int32")
    moved = _call("left_shift", _call("maximum", centred, SConst(1)), SConst(D_LOG_MOVE))
    logged = let("log", _call("q_log", let("moved", moved, "int32")), "int32")
    summed = _call("add", logged, SSym("log_k"))
    real_log = let("real_log", _call("minimum", _call("maximum", summed, SConst(-(2**31))), SConst(2**31 - 1)),
                   "int64")
    raw = _rescaled(let, real_log, "output", "int64")
    value = _call("where", _call("gt", centred, SConst(0)), _saturated(_call("add", raw, SSym("output_offset")), t),
                  _call("where", _call("eq", centred, SConst(0)), SConst(t.lowest), SSym("output_offset")))
    used = tuple(a for a in args if any(a in symbols(f) for _, f in factors))  # type: ignore[arg-type]
    return DLog(name, used, factors, constants,  # type: ignore[arg-type]
                Conversion(value, "int32", t.storage, tuple(let.bound)))


# ------------------------------------------------------------------- what an op derives, or why not

#: Forms that move stored values without computing on them: a fixed-point tensor passes through
#: with its attributes (a tensor list's parts share them).
MOVES = ("layout", "stream", "join", "parts")
Derived = (QKernel | DKernel | Clamp | Log | DLog | Conversion | InterpolatedTable | QReduction | DReduction
           | QContraction | DContraction | QDense | DDense | Softmax)


def _integer_only(tree: SExpr) -> bool:
    """Whether the tree calls a function defined on integers or booleans only (bitwise, logic)."""
    return isinstance(tree, SCall) and (FUNCTIONS[tree.fn][1] in ("int", "bool")
                                        or any(_integer_only(a) for a in tree.args))


def derive(op: object, t: FixedPointType) -> Derived | str:
    """What ``op`` computes on ``t``, derived from its compute form (one of the kernels above,
    or for a form that only moves stored values, the element unchanged), or why it has none:
    the sentence the docs show."""
    form = getattr(op, "compute", None)
    kind = getattr(form, "kind", None)
    types = {getattr(p, "type", None) for p in getattr(op, "inputs", ())}
    if types & {DataType.INT, DataType.LONG, DataType.BOOLEAN} and kind != "layout":
        return "it computes on integers or booleans, which have no fixed-point meaning"
    if kind in MOVES:
        listed = [not p.count.is_single for p in (*getattr(op, "inputs", ()), *getattr(op, "outputs", ()))]
        if any(listed[:len(op.inputs)]) and any(listed[len(op.inputs):]):  # type: ignore[attr-defined]
            return (f"its outputs are a list made of several inputs (meshgrid's), each of which would need its own "
                    f"input's attributes: no {t.system} form yet")
        if any(getattr(a, "type", None) in (DataType.FLOATING_POINT, DataType.NUMERIC) for a in getattr(op, "args", ())):
            return (f"it writes a real-valued arg among the moved values (a pad's constant), which its integer "
                    f"kernels would store as a {t.system} value unconverted: no {t.system} form yet")
        return Conversion(X, t.storage)  # (the stored value itself)
    if kind == "argreduction":
        if getattr(form, "map", None) is None:  # (one type and attributes: the stored order is the real order)
            return Conversion(X, t.storage)
        if t.family == "Q" and form.map == _call("abs", X):  # type: ignore[union-attr]
            return Conversion(X, t.storage)  # (a Q type's zero is stored 0: |stored| orders as |real|)
        return (f"it searches for a predicate of the real values, which the stored {t.system} values do not "
                "order" if form.searches else  # type: ignore[union-attr]
                f"it orders |x|, which a {t.system} offset breaks: no {t.system} form yet")
    if kind == "elementwise":  # (an enum's values as their indices: what every target passes)
        tree = resolve_enums(form.case(()), getattr(op, "enums", {}))  # type: ignore[union-attr]
        if _integer_only(tree):
            return "it is a bit or logic operation, which has no fixed-point meaning"
        inputs = [p.name for p in getattr(op, "inputs", ())]
        args = tuple(a.name for a in getattr(op, "args", ()))
        if len(inputs) == 1:  # (a logarithm's steps, a clamp's bounds: before arithmetic and tables)
            logarithm = q_log if t.family == "Q" else d_log
            cases = form.cases  # type: ignore[union-attr]
            found = logarithm(cases, t, inputs[0], args) or clamp(tree, t, inputs[0], args)
            if found is not None:
                return found
        derived = q_kernel(tree, t) if t.family == "Q" else d_kernel(tree, t)
        read = sorted(set(args) & {n for _, case in form.cases for n in symbols(case)})  # type: ignore[union-attr]
        if not isinstance(derived, str) and read and len(inputs) > 1:
            # (its kernels take the stored inputs and per-call integers; an arg reaches only a table's fill)
            return (f"its arithmetic reads {', '.join(read)}, an arg, which a {t.system} kernel of several inputs "
                    "does not take: no fixed-point form yet")
        if not isinstance(derived, str):
            return derived
        if len(inputs) == 1 and any(getattr(o, "type", None) is DataType.BOOLEAN for o in getattr(op, "outputs", ())):
            # (a table's entries are the output type's stored values)
            return f"its result is a bool, which a {t.system} table does not hold: compare the stored values instead"
        if len(inputs) == 1:
            return lookup_table(tree, t, inputs[0]) or f"a table of a 32-bit type is too large, and {derived}"
        return f"{derived}, and a lookup table takes one input"
    if kind == "reduction":
        return q_reduction(form, t) if t.family == "Q" else d_reduction(form, t)
    if kind == "fragment" and getattr(form, "layout", None) == "dense":
        return dense(tuple(p.name for p in getattr(op, "inputs", ())), t)
    if kind == "fragment" and getattr(form, "layout", None) == "axis":
        return softmax(form, tuple(p.name for p in getattr(op, "inputs", ())), t)
    if kind == "conversion":
        return "it converts between types itself (its variants are the pairs it converts)"
    if kind == "contraction":
        if form.spec.convs:  # type: ignore[union-attr]
            return f"its convolution axes have no {t.system} form yet"
        if form.spec.summed_row:  # type: ignore[union-attr]
            return f"it sums its batch axes, which its {t.system} form does not yet"
        return q_contraction(form, t) if t.family == "Q" else d_contraction(form, t)
    return f"its {kind or 'compute'} form has no {t.system} form yet"


# ------------------------------------------------------------ what a derived kernel promises


@attrs.frozen
class Summary:
    """What the docs say of a derived kernel: how it computes, the output's attributes (a
    tree over the inputs' ``<name>_shift`` and the headroom ``h``, or None where the caller
    chooses them), and its error against the exact result of the real values, in output
    steps (the benchmark measures it: docs/fixed-point.md)."""

    method: str
    output_shift: SExpr | None
    bound: str
    keeps: bool = False  # the output keeps the input's attributes (a move's, a clamp's)


def summary(derived: Derived, t: FixedPointType) -> Summary:
    """The sentence, output attributes and error bound of ``derived`` (from :func:`derive`)."""
    if isinstance(derived, QKernel):
        if derived.kind in COMPARISONS:
            return Summary("the real values compared exactly: the input of the larger shift moved left, in int64",
                           None, "exact")
        if derived.kind in ("add", "sub", "minimum", "maximum"):
            cmsis = {"add": f"arm_add_{t.name}", "sub": f"arm_sub_{t.name}"}.get(derived.kind)
            return Summary(f"{derived.kind} of the inputs moved right to the larger shift"
                           + (f", saturated ({cmsis} at equal shifts)" if cmsis else ""), derived.output_shift,
                           "exact at equal shifts; else within 1 step (the moved input's dropped bits)")
        if derived.kind == "mul":
            return Summary(f"the product's top bits, saturated (arm_mult_{t.name})", derived.output_shift,
                           "within 1 step (truncated toward minus infinity)")
        return Summary(f"saturating (arm_{'negate' if derived.kind == 'neg' else 'abs'}_{t.name})",
                       derived.output_shift, "exact (the lowest value saturates)")
    if isinstance(derived, DKernel):
        if derived.kind in COMPARISONS:
            return Summary("both inputs rescaled as TensorFlow Lite's comparisons do, then compared", None,
                           "exact wherever the real values differ by more than 2^-8 of the larger scale")
        return Summary(f"TensorFlow Lite's integer {derived.kind} (31-bit multipliers, gemmlowp's rounding), "
                       "saturated", None, "within 1 step")
    if isinstance(derived, Clamp):
        selects = derived.selects
        cmsis = f" (CMSIS-DSP's arm_clip_{t.name})" if t.family == "Q" and not selects else ""
        return Summary("each bound converted to the input's stored values once a call (its from-real rule, as the "
                       "reference library's Clip quantizes its bounds"
                       + ("; a compared bound rounded down for > and <=, up for < and >=" if selects else "")
                       + f"), then {'selections' if selects else 'minima and maxima'} of the stored values"
                       f"{cmsis}: the output keeps the input's attributes",
                       SSym(shift_of(derived.input)) if t.family == "Q" else None,
                       "exact: the stored conversion of the clamp of the real values (a bound between two "
                       "steps rounded by the type's from-real rule; a NaN bound is refused)", keeps=True)
    if isinstance(derived, Log):
        return Summary(f"the reference library's Log unit, with CMSIS-DSP: arm_vlog_{t.name} (the log of the stored "
                       f"value in Q{LOG_SHIFT[t.bits]}.{t.fraction_bits - LOG_SHIFT[t.bits]}), arm_scale_{t.name} "
                       "by the case's factor (1, or 1/ln(base)) quantized, arm_offset_"
                       f"{t.name} by shift * ln 2 times it; 0 gives the lowest value, a negative input 0",
                       derived.output_shift, "bit for bit the reference library's Log: " + (
                           "within 2 steps of the exact logarithm (arm_vlog's Q4.11)" if t.bits == 16 else
                           "within 66 steps of the exact logarithm (arm_scale_q31 keeps the product's top 32 bits, "
                           "then shifts them left by 6)"))
    if isinstance(derived, DLog):
        return Summary("the input less its offset read as a Q31 value through arm_vlog_q31's steps (the reference "
                       "library's Log), plus 16 ln 2 + ln(scale) in Q5.26, then TensorFlow Lite's rescaling by the "
                       "case's factor (1, or 1/ln(base)) over the output's scale; an input at the offset gives the "
                       "lowest value, below it the output's offset (real zero)", None,
                       "within 1 step (measured: docs/fixed-point.md)")
    if isinstance(derived, InterpolatedTable):
        return Summary(f"{derived.knots} knots of the float reference, interpolated in int32 (TensorFlow Lite "
                       "Micro's int16 activations), saturated after", None,
                       f"within {TABLE_BOUND} steps of the exact result (rounded to a step) at every input, which "
                       "the fill checks "
                       "(all 65,536): it refuses the attributes and args where the op jumps, has a pole, leaves its "
                       "domain or bends too fast between two knots (floor, sign, log1p near -1). "
                       "Each op's measured maximum is in docs/fixed-point.md")
    if isinstance(derived, Conversion):
        if derived.value == X:
            return Summary("the stored values themselves: the output keeps the input's attributes", SSym(
                shift_of("x")) if t.family == "Q" else None, "exact", keeps=True)
        return Summary(f"a table of the float reference, one entry per stored {t.system} value", None,
                       "within 1 step (the output's conversion of the exact value)")
    if isinstance(derived, Softmax):
        table = (f"from a table of {SOFTMAX_ENTRIES} entries" if derived.combine is None else
                 f"as the product of two tables' entries ({SOFTMAX_ENTRIES} each: m - x's low byte's, its high "
                 "byte's)")
        widened = "" if derived.combine is None else ", widened to 16-bit differences"
        return Summary(f"TensorFlow Lite Micro's int8 softmax{widened}: e^(-(m - x)·step) {table} in "
                       f"2^-{SOFTMAX_BITS} steps (m the row's largest value), the row's sum in int64, each share by "
                       "its reciprocal, one rescaling", derived.output_shift, "within 1 step")
    if isinstance(derived, QDense):
        return Summary("the products of a row of x and a column of the weights summed in int64 (CMSIS-DSP's "
                       f"arm_mat_mult_{t.name}), starting from the bias moved to the sum's fraction bits (CMSIS-NN's "
                       "fully connected layers), requantized once, saturated", derived.output_shift,
                       "within 1 step (truncated toward minus infinity) where the result does not saturate")
    if isinstance(derived, DDense):
        return Summary("TensorFlow Lite's FullyConnected: the operands less their offsets multiplied and summed in "
                       "int64, starting from the bias rescaled to x's scale times the weights' (held in int32, as "
                       "its int32 bias), then rescaled once into the output's scale and offset; weights with a "
                       "scale per column (per-axis scales along their last axis) give a multiplier per column",
                       None,
                       "within 1 step where the bias in those units fits int32 and the result does not saturate")
    if isinstance(derived, (QReduction, DReduction)):
        output = derived.output_shift if isinstance(derived, QReduction) else None
        bound = "exact" if derived.combine in ("max", "min") else "within 1 step"
        return Summary(f"the stored values combined ({derived.combine}) in {derived.domain}, requantized once",
                       output, bound)
    if isinstance(derived, DContraction):
        columns = (f"; {derived.per_column} with a scale per column (per-axis scales along its last axis, ONNX "
                   "QLinearMatMul's 1-D b_scale) gives a multiplier per column" if derived.per_column else "")
        return Summary("ONNX's MatMulInteger: the operands less their offsets multiplied and summed in int64, then "
                       "rescaled once as TensorFlow Lite's integer matmuls do into the output's scale and offset"
                       + columns, None, "within 1 step where the result does not saturate")
    return Summary("the products summed in int64, requantized once", getattr(derived, "output_shift", None),
                   "within 1 step where the result does not saturate")
