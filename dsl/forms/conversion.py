"""Convert: a fixed-point conversion, element by element (ADR 0068).

The conversions between real and fixed-point tensors (ADR 0036's rules, ``dsl.fixed_point``)
as catalogue ops: quantize, dequantize, requantize, a Q shift and bit utilization. The form
holds what every target renders: which types go in and out (its variants), the rules each pair
applies in order, and the output's attributes as trees over the op's args and the input's
attributes, as an output shape is a tree over the inputs' sizes.
"""

from __future__ import annotations

from typing import Any

import attrs

from dsl import dtypes as D
from dsl import fixed_point as F
from dsl import shapes as Sh
from dsl.forms.checks import Check
from dsl.scalar import SCall, SConst, SExpr, SSym
from dsl.types import DataType

#: The conversions, and the tensor types each takes and gives.
CONVERSIONS: dict[str, tuple[DataType, DataType]] = {
    "quantize": (DataType.FLOATING_POINT, DataType.FIXED_POINT),
    "dequantize": (DataType.FIXED_POINT, DataType.FLOATING_POINT),
    "requantize": (DataType.FIXED_POINT, DataType.FIXED_POINT),
    "shift": (DataType.SHIFTED, DataType.SHIFTED),
    "bit_utilization": (DataType.SHIFTED, DataType.INT),
}
#: The args a conversion to a chosen type reads: its type, and the attributes of either family.
TARGET_ARGS = (("dtype", (DataType.DATA_TYPE,), "the fixed-point type of the output"),
               ("shift", (DataType.INT,), "a Q output's shift"),
               ("scale", (DataType.FLOATING_POINT,), "a D output's scale"),
               ("offset", (DataType.INT,), "a D output's offset"))
#: A shift's arg: how much the output's shift exceeds the input's.
SHIFT_ARG = "shift"


@attrs.frozen
class FixedPointConversion:
    """``output = rule(input)`` element by element, the shape kept: ``rule`` is one of
    :data:`CONVERSIONS`; a conversion to a chosen type reads the args of :data:`TARGET_ARGS`."""

    rule: str
    input: str = "x"

    kind = "conversion"

    #: A D tensor it takes or gives may carry per-axis scales (ADR 0069): a conversion reads each
    #: element's scale as it goes; the kernels derived from other forms take one scale per tensor.
    takes_per_axis_scales = True

    @property
    def chooses_type(self) -> bool:
        """Whether the output's type and attributes are the op's args (quantize, requantize)."""
        return self.rule in ("quantize", "requantize")

    @property
    def output_args(self) -> tuple[str, ...]:
        """The args that are the output's type and attributes, where the op chooses them."""
        return tuple(name for name, _, _ in TARGET_ARGS) if self.chooses_type else ()

    def problems(self, op: Any, check: Check) -> None:
        if self.rule not in CONVERSIONS:
            check.add(f"unknown conversion {self.rule!r} (known: {', '.join(CONVERSIONS)})")
            return
        check.need_input(self.input)
        given, made = CONVERSIONS[self.rule]
        x = check.inputs.get(self.input)
        if x is not None and x.type is not given:
            check.add(f"{self.rule}'s input {self.input} is {given.value}, not {x.type.value}")
        if len(op.inputs) != 1 or len(op.outputs) != 1:
            check.add(f"{self.rule} takes one input and gives one output")
        elif op.outputs[0].type is not made:
            check.add(f"{self.rule}'s output is {made.value}, not {op.outputs[0].type.value}")
        if self.chooses_type:
            for name, types, what in TARGET_ARGS:
                check.need_arg(name, types, False, what)
            dtype = check.args.get("dtype")
            if dtype is not None and dtype.has_default and dtype.default not in F.TYPES:
                check.add(f"arg 'dtype' defaults to {dtype.default!r}, which is not a fixed-point type "
                          f"({', '.join(F.TYPES)})")
        if self.rule == "shift":
            check.need_arg(SHIFT_ARG, (DataType.INT,), False, "how much the output's shift exceeds the input's")

    def output_shapes(self, op: Any) -> tuple[Any, ...]:
        return (Sh.tensor(self.input),)

    def refusals(self, op: Any) -> tuple[Sh.Refusal, ...]:
        return ()

    def value_refusals(self, op: Any) -> tuple[str, ...]:
        return ()

    # ---------------------------------------------------------------- what the targets render

    def pairs(self) -> tuple[tuple[str, str], ...]:
        """Each (input dtype, output dtype) the op converts: its variants."""
        given, made = CONVERSIONS[self.rule]
        sources = ("float32",) if given is DataType.FLOATING_POINT else D.CONCRETE[given]
        if made is DataType.FLOATING_POINT:
            return tuple((s, "float32") for s in sources)
        if made is DataType.INT:
            return tuple((s, "int8") for s in sources)
        if self.rule == "shift":
            return tuple((s, s) for s in sources)
        return tuple((s, t) for s in sources for t in D.CONCRETE[made])

    def variants(self, op: Any) -> tuple[D.Variant, ...]:
        output = op.outputs[0].name
        return tuple(D.Variant(source, ((self.input, source), (output, target))) for source, target in self.pairs())

    def steps(self, source: str, target: str) -> tuple[F.Conversion, ...]:
        """The rules the pair applies to each element, in order: one, or two through the real
        value (float32) where a requantization changes family or leaves the Q types."""
        given, made = F.TYPES.get(source), F.TYPES.get(target)
        if self.rule == "quantize":
            return (F.from_real(made),)  # type: ignore[arg-type]
        if self.rule == "dequantize":
            return (F.to_real(given),)  # type: ignore[arg-type]
        if self.rule == "shift":
            return (F.shifted(given),)  # type: ignore[arg-type]
        if self.rule == "bit_utilization":
            return (F.bit_utilization(given),)  # type: ignore[arg-type]
        if given.family == made.family == "Q":  # type: ignore[union-attr]
            return (F.shifted(given, made),)  # type: ignore[arg-type]  # (exact: CMSIS-DSP's arm_q15_to_q7)
        return (F.to_real(given), F.from_real(made))  # type: ignore[arg-type]

    def shift_by(self, source: str, target: str) -> SExpr | None:
        """``k`` of a shift step, over the input's shift (``x_shift``) and the op's ``shift`` arg:
        the change of the shift plus the fraction bits the type loses; None without a shift step."""
        given, made = F.TYPES.get(source), F.TYPES.get(target)
        if self.rule == "shift":
            return SSym(SHIFT_ARG)
        if self.rule == "requantize" and given is not None and made is not None and given.family == made.family == "Q":
            lost = given.fraction_bits - made.fraction_bits
            change = SCall("sub", (SSym("shift"), SSym(F.shift_of(self.input))))
            return SCall("add", (SConst(lost), change)) if lost else change
        return None

    def output_attributes(self, target: str) -> dict[str, SExpr]:
        """The output's attributes, by name, as trees over the op's args and the input's
        (``x_shift``): a chosen type's are the args; a shift's is the input's plus the arg."""
        made = F.TYPES.get(target)
        if made is None:
            return {}
        if self.rule == "shift":
            return {"shift": SCall("add", (SSym(F.shift_of(self.input)), SSym(SHIFT_ARG)))}
        return {name: SSym(name) for name in made.attributes}

