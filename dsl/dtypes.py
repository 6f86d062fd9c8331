"""Concrete element types of abstract DataTypes, and the dtype variants of an op.

An op is instantiated once per concrete dtype of its *primary* type (the
type of its first input, else of its first output). Every tensor declared
with the primary type takes that dtype; BOOLEAN tensors are bool, LONG are
int64, INT (when not primary) int64 and FLOATING_POINT (when not primary)
the variant's dtype if it is a float, else float64.
"""

from __future__ import annotations

from typing import Any, Iterator

import attrs

from dsl.fixed_point import TYPES as FIXED_POINT_TYPES
from dsl.types import DataType

FLOATS = ("float32", "float64")
#: IEEE binary16: stored as half, computed in float32 (ADR 0075); a variant of the forms that
#: take it (``takes_half``), not of every float op.
HALF = "float16"
SIGNED = ("int8", "int16", "int32", "int64")
UNSIGNED = ("uint8", "uint16", "uint32", "uint64")
INTEGERS = SIGNED + UNSIGNED
#: Every plain dtype, in NumPy's order of types (float16 before float32).
PLAIN = ("bool", *INTEGERS, HALF, *FLOATS)

CONCRETE: dict[DataType, tuple[str, ...]] = {
    DataType.NDARRAY: ("bool", *INTEGERS, *FLOATS),
    DataType.NUMERIC: (*INTEGERS, *FLOATS),
    DataType.FLOATING_POINT: FLOATS,
    DataType.INT: INTEGERS,
    DataType.LONG: ("int64",),
    DataType.BOOLEAN: ("bool",),
    DataType.FIXED_POINT: tuple(FIXED_POINT_TYPES),
    DataType.SHIFTED: tuple(n for n, t in FIXED_POINT_TYPES.items() if t.family == "Q"),
    DataType.SCALED: tuple(n for n, t in FIXED_POINT_TYPES.items() if t.family == "D"),
}

#: Each dtype's name in DEEPCRAFT's System type table (imunit authoring guide, 11.2): the
#: element type a unit's socket declares and its conditions test (``System.Float32``); the
#: fixed-point types' are theirs (``FixedPointType.system``). float16 has none: the table lists no
#: Float16, so no unit takes it (ADR 0075).
SYSTEM_TYPE = {"bool": "Bool", "int8": "Int8", "int16": "Int16", "int32": "Int32", "int64": "Int64", "uint8": "UInt8",
               "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64", "float32": "Float32", "float64": "Float64"}
BITS = {"bool": 8, "int8": 8, "int16": 16, "int32": 32, "int64": 64, "uint8": 8, "uint16": 16, "uint32": 32,
        "uint64": 64, "float16": 16, "float32": 32, "float64": 64}


def in_units(dtype: str) -> bool:
    """Whether a DEEPCRAFT unit can take ``dtype``: every dtype with a System type (``SYSTEM_TYPE``),
    and the fixed-point types."""
    return dtype in SYSTEM_TYPE or dtype in FIXED_POINT_TYPES


def category(dtype: str) -> str:
    """"float", "signed", "unsigned" or "bool"."""
    if dtype in FLOATS or dtype == HALF:
        return "float"
    if dtype in SIGNED:
        return "signed"
    if dtype in UNSIGNED:
        return "unsigned"
    return "bool"


def resolve(type_: DataType, primary: DataType, dtype: str) -> str:
    """The dtype a tensor of ``type_`` has in the variant ``dtype`` of ``primary``."""
    if type_ is primary:
        return dtype
    if type_ is DataType.BOOLEAN:
        return "bool"
    if type_ in (DataType.LONG, DataType.INT):
        return "int64"
    if type_ is DataType.FLOATING_POINT:
        return dtype if category(dtype) == "float" else "float64"
    return dtype if dtype in CONCRETE[type_] else CONCRETE[type_][-1]


@attrs.frozen
class Variant:
    """One instantiation of an op: a dtype for every tensor parameter."""

    dtype: str
    tensors: tuple[tuple[str, str], ...]

    def of(self, name: str) -> str:
        return dict(self.tensors)[name]


def primary_type(op: object) -> DataType:
    """The type whose dtypes make the variants: the first tensor's that is not BOOLEAN (a
    condition that comes first, as NumPy's where's does, does not choose them), else the first
    tensor's; or the output's when the output's dtype comes from a ``dtype`` arg (one_hot's
    indices are LONG)."""
    from dsl.compute import dtype_from_arg

    if dtype_from_arg(getattr(op, "compute", None)) and op.outputs:  # type: ignore[attr-defined]
        return op.outputs[0].type  # type: ignore[attr-defined]
    tensors = _choosers((*op.inputs, *op.outputs), op)  # type: ignore[attr-defined]
    chosen = next((t for t in tensors if t.type is not DataType.BOOLEAN), tensors[0] if tensors else None)
    return chosen.type if chosen is not None else DataType.NUMERIC


def _choosers(tensors: tuple[Any, ...], op: object) -> tuple[Any, ...]:
    """The tensors that may choose the variant: those the form does not fix to one dtype
    (a quantization's float32 x chooses nothing: its zero point does); all where it fixes each one."""
    fixed = dict(getattr(getattr(op, "compute", None), "fixed_dtypes", ()))
    return tuple(t for t in tensors if t.name not in fixed) or tensors


def primary_input(op: object) -> object:
    """The input whose dtype chooses the variant (by :func:`primary_type`'s rule): the first input
    that is not BOOLEAN, else the first."""
    inputs = _choosers(op.inputs, op)  # type: ignore[attr-defined]
    return next((i for i in inputs if i.type is not DataType.BOOLEAN), inputs[0])


def through_float(op: object) -> tuple[str, ...]:
    """The integer dtypes an op over the reals also takes (``Op.integers_through_float``), in
    NumPy's order of types."""
    given = getattr(op, "integers_through_float", ())
    return tuple(d for d in INTEGERS if d in given)


def computes_in(op: object, dtype: str) -> str:
    """The dtype the variant ``dtype`` of ``op`` computes in: its own, but float64 for an integer
    an op over the reals takes through floats, whose results then convert back by cast's rule
    (truncated toward zero, saturated, NaN 0; ADR 0058), and float32 for float16, whose results
    round back to the nearest half once (ADR 0075). The rule of every target."""
    return "float64" if dtype in through_float(op) else own_computes_in(dtype)


def own_computes_in(dtype: str) -> str:
    """The dtype ``dtype`` computes in by itself, before any op takes integers through floats:
    its own, but float32 for a half (ADR 0075). ``computes_in``'s rule for the forms with no
    integers through floats (contractions)."""
    return "float32" if dtype == HALF else dtype


def takes_half(op: object) -> bool:
    """Whether ``op`` has a float16 variant (ADR 0075): its form takes one (the form's ``takes_half``:
    elementwise, cast, layouts, joins and parts, so far) and its primary type takes float32."""
    return (getattr(getattr(op, "compute", None), "takes_half", False)
            and "float32" in CONCRETE.get(primary_type(op), ()))


def concrete(op: object) -> tuple[str, ...]:
    """The dtypes of the op's primary type it has a variant of, float16 (where it takes it) before
    float32 as in NumPy's order of types."""
    own = CONCRETE[primary_type(op)]
    if not takes_half(op):
        return own
    at = own.index("float32")
    return (*own[:at], HALF, *own[at:])


def variants(op: object, dtypes: tuple[str, ...] | None = None) -> Iterator[Variant]:
    """The op's variants: one per concrete dtype of its primary type, and one per integer it takes
    through floats, first (NumPy's loop order: integers before floats); a form that pairs its
    tensors' dtypes itself (a fixed-point conversion's) gives its own."""
    own = getattr(getattr(op, "compute", None), "variants", None)
    if own is not None:
        yield from (v for v in own(op) if dtypes is None or v.dtype in dtypes)
        return
    primary = primary_type(op)
    # (a tensor a form fixes has its dtype in every variant; fixing the input that chooses the
    # variant leaves one variant, of its dtype: a decoder of uint8 codes)
    fixed = dict(getattr(getattr(op, "compute", None), "fixed_dtypes", ()))
    chooser = fixed.get(primary_input(op).name) if op.inputs else None  # type: ignore[attr-defined]
    for dtype in dtypes if dtypes is not None else (*through_float(op), *concrete(op)):
        if chooser is not None and dtype != chooser:
            continue
        yield Variant(dtype, tuple((p.name, fixed.get(p.name) or resolve(p.type, primary, dtype))
                                   for p in (*op.inputs, *op.outputs)))  # type: ignore[attr-defined]


def shared_type_inputs(op: object) -> tuple[str, ...]:
    """The single tensors among the op's inputs of its primary type: in every variant they have the
    variant's dtype, so the dtypes a call gives them meet in one (a Python API promotes them
    together, as NumPy does); none (an empty tuple) where a ``dtype`` arg chooses the variant."""
    from dsl.compute import dtype_from_arg

    if dtype_from_arg(getattr(op, "compute", None)):
        return ()
    primary = primary_type(op)
    return tuple(i.name for i in op.inputs  # type: ignore[attr-defined]
                 if i.type is primary and i.count.is_single)
