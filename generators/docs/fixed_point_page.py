"""The docs page of the fixed-point types and their conversions (issue 20, ADR 0048): each type's
storage, attributes and their ranges, and each conversion's formula, rendered from the rules of
:mod:`dsl.fixed_point` (the ones every target renders), with the rounding and saturation that
store the result and the library that owns the rule."""

from __future__ import annotations

from dsl import fixed_point as F
from dsl.scalar import SCall, SConst, SSym, substitute
from generators.docs import markdown as md
from generators.docs.compute_text import scalar_text

PAGE = "fixed-point-types.md"
#: How a conversion to stored values stores its result (cast's rule, ADR 0036).
STORED = "then truncated toward zero and saturated to the type's range (NaN gives 0)"


def _formula(conversion: F.Conversion, t: F.FixedPointType) -> str:
    """The rule's value as a formula, a Q factor written out as the power of two it is."""
    factor = SCall("pow", (SConst(2), SCall("sub", (SConst(t.fraction_bits), SSym("shift"))))) \
        if t.family == "Q" else SSym(F.FACTOR)
    return scalar_text(substitute(conversion.value, {F.FACTOR: factor}))


def type_rows() -> list[dict[str, str]]:
    rows = []
    for t in F.TYPES.values():
        if t.family == "Q":
            low, high = t.shifts().start, t.shifts().stop - 1
            real, attributes = f"stored / 2^({t.fraction_bits} - shift)", f"shift, an integer in {low}..{high}"
        else:
            real = "(stored - offset) * scale"
            attributes = (f"scale > 0 (finite as a float32), or per-axis scales, one per index of an axis (ADR 0069: "
                          f"quantize, dequantize and requantize take them along any axis, matmul's b and linear's "
                          f"weights along their last, a multiplier per column of the result, ADR 0071); offset, an "
                          f"integer in {t.lowest}..{t.highest}")
        rows.append({"type": t.system, "storage": f"`{t.c_type}`", "real": md.code(real),
                     "attributes": attributes})
    return rows


def conversion_rows() -> list[dict[str, str]]:
    rows = []
    for t in F.TYPES.values():
        owner = ("CMSIS-DSP's `arm_float_to_q%d`" % t.fraction_bits if t.family == "Q" else
                 "ONNX's QuantizeLinear (NaN: the offset)")
        rows.append({"what": f"real to {t.system}", "formula": md.code(_formula(F.from_real(t), t)),
                     "stored": STORED, "owner": owner})
    for t in F.TYPES.values():
        owner = ("CMSIS-DSP's `arm_q%d_to_float`" % t.fraction_bits if t.family == "Q" else
                 "ONNX's DequantizeLinear")
        rows.append({"what": f"{t.system} to real", "formula": md.code(_formula(F.to_real(t), t)),
                     "stored": "float32", "owner": owner})
    for t in (u for u in F.TYPES.values() if u.family == "Q"):
        rows.append({"what": f"{t.system} shift raised by k", "formula": md.code(scalar_text(F.shifted(t).value)),
                     "stored": "saturated (x >> k rounds toward minus infinity)",
                     "owner": "CMSIS-DSP's `arm_shift_q%d` by -k" % t.fraction_bits})
    rows.append({"what": "Q to another Q type", "formula": md.inline("the shift rule, with k = N - N' + shift' - shift"),
                 "stored": "saturated", "owner": "CMSIS-DSP's `arm_q15_to_q7` (at one shift)"})
    rows.append({"what": "any other pair", "formula": md.inline("to real, then from real"),
                 "stored": "as those two", "owner": "DequantizeLinear, then QuantizeLinear"})
    rows.append({"what": "bits a Q value uses", "formula": md.code("bit_length(x < 0 ? ~x : x) + 1"), "stored": "int8",
                 "owner": "the FixedPoint library's BitUtilization (`32 - __builtin_clrsb(x)`)"})
    return rows
