"""The values of Imaginet's expression language (authoring guide, sections 10 and 11):
types, shapes and their broadcast decomposition, tensors, and the ``Math`` and
``System`` libraries. Expressions call these objects' methods by name
(``expression._member``), so a method here is a member of the language;
``EXTENSIONS`` lists the ones opforge adds, which real units cannot use."""

from __future__ import annotations

import math
from typing import Any, Callable

import attrs


class ExpressionError(ValueError):
    """A parse or evaluation error; parse errors name the column."""


class ExternalCall(ExpressionError):
    """A .NET call (``System.Load``, a ``<Factory>``): only Studio can evaluate it."""


@attrs.frozen
class ValueType:
    """An element type: its name after ``System.``, byte size and C type; ``bits``
    of a Q type's fraction (7, 15, 31) and integer range, where it has them."""

    name: str
    size_bytes: int
    c_type: str
    kind: str  # float, int, uint, q, d, bool, string
    bits: int = 0

    def size(self) -> int:
        return self.size_bytes

    def limits(self) -> tuple[int, int] | None:
        """The stored integers' range of an integer, Q or D type."""
        if self.kind in ("int", "q", "d"):
            return -(1 << (8 * self.size_bytes - 1)), (1 << (8 * self.size_bytes - 1)) - 1
        if self.kind == "uint":
            return 0, (1 << (8 * self.size_bytes)) - 1
        return None

    def __str__(self) -> str:
        return f"System.{self.name}"


#: The guide's type table (section 11.2), then bool and string (parseType's) and
#: opforge's Float16 extension.
VALUE_TYPES = {t.name: t for t in (
    ValueType("Float32", 4, "float", "float"), ValueType("Float64", 8, "float64_t", "float"),
    ValueType("Int8", 1, "int8_t", "int"), ValueType("Int16", 2, "int16_t", "int"),
    ValueType("Int32", 4, "int32_t", "int"), ValueType("Int64", 8, "long", "int"),
    ValueType("UInt8", 1, "uint8_t", "uint"), ValueType("UInt16", 2, "uint16_t", "uint"),
    ValueType("UInt32", 4, "uint32_t", "uint"), ValueType("UInt64", 8, "unsigned long", "uint"),
    ValueType("Q7", 1, "q7_t", "q", 7), ValueType("Q15", 2, "q15_t", "q", 15), ValueType("Q31", 4, "q31_t", "q", 31),
    ValueType("D8", 1, "int8_t", "d"), ValueType("D16", 2, "int16_t", "d"), ValueType("D32", 4, "int32_t", "d"),
    ValueType("Bool", 1, "bool", "bool"), ValueType("String", 0, "const char*", "string"),
    ValueType("Float16", 2, "_Float16", "float"),
)}

#: ``System.parseType``'s spellings: each type's lower-case name and the aliases the guide names.
TYPE_NAMES = {name.lower(): t for name, t in VALUE_TYPES.items() if name != "Float16"} | {
    "f32": VALUE_TYPES["Float32"], "float": VALUE_TYPES["Float32"], "single": VALUE_TYPES["Float32"],
    "f64": VALUE_TYPES["Float64"], "double": VALUE_TYPES["Float64"],
    "s8": VALUE_TYPES["Int8"], "i8": VALUE_TYPES["Int8"], "s16": VALUE_TYPES["Int16"], "i16": VALUE_TYPES["Int16"],
    "s32": VALUE_TYPES["Int32"], "i32": VALUE_TYPES["Int32"], "int": VALUE_TYPES["Int32"],
    "s64": VALUE_TYPES["Int64"], "i64": VALUE_TYPES["Int64"], "long": VALUE_TYPES["Int64"],
    "u8": VALUE_TYPES["UInt8"], "byte": VALUE_TYPES["UInt8"], "u16": VALUE_TYPES["UInt16"],
    "u32": VALUE_TYPES["UInt32"], "u64": VALUE_TYPES["UInt64"],
}


@attrs.frozen
class ShapeBroadcast:
    """A shape and a smaller one broadcast into it, as five loop counts from the left:
    ``left, group1, middle, group2, right`` (guide 12.5.2)."""

    left_: int
    group1_: int
    middle_: int
    group2_: int
    right_: int

    def left(self) -> int:
        return self.left_

    def group1(self) -> int:
        return self.group1_

    def middle(self) -> int:
        return self.middle_

    def group2(self) -> int:
        return self.group2_

    def right(self) -> int:
        return self.right_


@attrs.frozen
class Shape:
    """Dimensions in NumPy order (as the UI shows them); the methods take Imaginet's
    axes: 0 is the innermost (rightmost) dimension, -1 the outermost. ``labels``
    holds each dimension's comma-separated labels (not part of equality)."""

    dims: tuple[int, ...]
    labels: tuple[str, ...] | None = attrs.field(default=None, eq=False)

    def _index(self, axis: int) -> int:
        """The NumPy index of an Imaginet axis."""
        rank = len(self.dims)
        if not -rank <= axis < rank:
            raise ExpressionError(f"axis {axis} is out of range for a shape of rank {rank}")
        return rank - 1 - (axis % rank)

    def _labels(self) -> list[str]:
        return list(self.labels) if self.labels is not None else [""] * len(self.dims)

    def count(self) -> int:
        return len(self.dims)

    def flat(self) -> int:
        return math.prod(self.dims)

    def size(self, axis: int) -> int:
        """An axis's size; 1 for an axis beyond the rank (a vector is a 1-row matrix,
        as the real DotT reads ``a.shape.size(1)`` of a 1-D input)."""
        if axis >= len(self.dims):
            return 1
        return self.dims[self._index(axis)]

    def step(self, start: int, stop: int | None = None) -> int:
        """step(axis): elements between neighbours along axis; step(start, stop): the product of axes start..stop-1."""
        if stop is None:
            start, stop = 0, (start % len(self.dims) if start < 0 and self.dims else start)
        if not 0 <= start <= stop <= len(self.dims):
            raise ExpressionError(f"step({start}, {stop}) is out of range for a shape of rank {len(self.dims)}")
        return math.prod(self.dims[len(self.dims) - stop:len(self.dims) - start])

    def slot(self, axis: int) -> int:
        return math.prod(self.dims[:self._index(axis)])

    def replace(self, axis: int, size: int) -> "Shape":
        i = self._index(axis)
        labels = self._labels()
        labels[i] = ""
        return Shape(self.dims[:i] + (int(size),) + self.dims[i + 1:], tuple(labels))

    def insert(self, axis: int, size: int) -> "Shape":
        """A new axis of ``size`` at ``axis``; beyond the rank, the axes between are 1s
        (the implied ones of ``size``: DotT inserts axis 1 into a 1-D operand's rank 0)."""
        rank = len(self.dims)
        if axis > rank:
            padded = Shape((1,) * (axis - rank) + self.dims, ("",) * (axis - rank) + tuple(self._labels()))
            return padded.insert(axis, size)
        if not -rank - 1 <= axis:
            raise ExpressionError(f"axis {axis} is out of range for inserting into rank {rank}")
        i = rank - (axis % (rank + 1))
        labels = self._labels()
        labels.insert(i, "")
        return Shape(self.dims[:i] + (int(size),) + self.dims[i:], tuple(labels))

    def remove(self, axis: int) -> "Shape":
        i = self._index(axis)
        labels = self._labels()
        del labels[i]
        return Shape(self.dims[:i] + self.dims[i + 1:], tuple(labels))

    def withLabels(self, axis: int, labels: str, start: int = 0) -> "Shape":  # noqa: N802 - the language's name
        """The labels of ``axis`` from index ``start`` on replaced by the comma-separated ``labels``."""
        i = self._index(axis)
        given = [s.strip() for s in str(labels).split(",")] if labels else []
        old = self._labels()[i].split(",") if self._labels()[i] else []
        size = self.dims[i]
        if not 0 <= start or start + len(given) > size:
            raise ExpressionError(f"{len(given)} labels from {start} do not fit axis {axis} of size {size}")
        merged = (old + [""] * size)[:size]
        merged[start:start + len(given)] = given
        all_labels = self._labels()
        all_labels[i] = ",".join(merged) if any(merged) else ""
        return Shape(self.dims, tuple(all_labels))

    def getLabels(self, axis: int, start: int = 0, count: int | None = None) -> str:  # noqa: N802
        i = self._index(axis)
        text = self._labels()[i]
        labels = (text.split(",") if text else []) + [""] * self.dims[i]
        labels = labels[:self.dims[i]]
        stop = len(labels) if count is None else start + count
        if not 0 <= start <= stop <= len(labels):
            raise ExpressionError(f"labels {start}..{stop - 1} are out of range for axis {axis} of size {len(labels)}")
        return ",".join(labels[start:stop])

    def broadcastable(self, other: "Shape") -> bool:
        """opforge's extension: True if the shapes broadcast together (NumPy rules)."""
        a, b = self.dims[::-1], other.dims[::-1]
        return all(x == y or x == 1 or y == 1 for x, y in zip(a, b))

    def broadcast(self, other: "Shape") -> ShapeBroadcast:
        """``other`` (the smaller operand) broadcast into this shape: its dimensions,
        from the innermost, alternate between equal ones and 1s (or missing ones)
        where this shape is larger, in at most five runs (guide 12.5.2)."""
        if len(other.dims) > len(self.dims):
            raise ExpressionError(f"shape {other} does not broadcast into {self}: it has more axes")
        buckets = dict.fromkeys(("right", "group2", "middle", "group1", "left"), 1)
        order = ["right", "group2", "middle", "group1", "left"]
        phase = 0
        for k in range(len(self.dims)):
            a = self.dims[-1 - k]
            b = other.dims[-1 - k] if k < len(other.dims) else 1
            if b != a and b != 1:
                raise ExpressionError(f"shape {other} does not broadcast into {self}")
            stretched = b != a
            if stretched and order[phase] in ("right", "middle"):
                phase += 1
            elif not stretched and order[phase] in ("group2", "group1"):
                phase += 1
            if phase >= len(order) or (stretched and order[phase] == "left"):
                raise ExpressionError(f"broadcasting {other} into {self} needs more than two groups")
            buckets[order[phase]] *= a
        return ShapeBroadcast(buckets["left"], buckets["group1"], buckets["middle"], buckets["group2"],
                              buckets["right"])

    def __str__(self) -> str:
        return "[" + ",".join(str(d) for d in self.dims) + "]"


@attrs.frozen
class Tensor:
    """A tensor parameter: element type, shape and the stream and quantization
    attributes an input or output socket carries (guide 10.5)."""

    type_: ValueType
    shape_: Shape
    rate_: float = 0.0
    shift_: int = 0
    scale_: float = 1.0
    offset_: int = 0
    time_coded: bool = False

    def type(self) -> ValueType:
        return self.type_

    def shape(self) -> Shape:
        return self.shape_

    def rate(self) -> float:
        return self.rate_

    def shift(self) -> int:
        return self.shift_

    def scale(self) -> float:
        return self.scale_

    def offset(self) -> int:
        return self.offset_

    def isTimeCoded(self) -> bool:  # noqa: N802
        return self.time_coded

    def align(self, n: int) -> "Tensor":
        return self

    def useMlMemory(self) -> "Tensor":  # noqa: N802
        return self


@attrs.frozen
class Array:
    """A constant tensor with its values (``Math.hann``)."""

    type_: ValueType
    shape_: Shape
    values: tuple[float, ...]

    def type(self) -> ValueType:
        return self.type_

    def shape(self) -> Shape:
        return self.shape_


@attrs.frozen
class Identifier:
    """``System.Identifier("name")``: a C identifier passed as it is."""

    name: str

    def __str__(self) -> str:
        return self.name


def quantize(value: float, type_: ValueType, shift: int = 0) -> int | float:
    """A constant in ``type_``'s stored form: a Q type's ``value * 2^N / 2^shift``, an
    integer type's value, rounded to nearest (ties to even, as .NET's Math.Round)
    and saturated to the type's range; a float type keeps the value."""
    if not isinstance(type_, ValueType):
        raise ExpressionError(f"quantize needs a type, got {type_!r}")
    if type_.kind in ("float", "bool", "string") or type_.limits() is None:
        return float(value)
    scaled = value * (1 << type_.bits) / (1 << shift) if type_.kind == "q" else value
    if math.isnan(scaled):
        return 0
    low, high = type_.limits()  # type: ignore[misc]
    return int(min(max(round(scaled) if math.isfinite(scaled) else scaled, low), high))


def _int_result(f: Callable[[float], float]) -> Callable[[float], Any]:
    """A rounding that gives an int; infinities and NaN stay (.NET's Math.Round returns them)."""
    def rounded(x: float) -> Any:
        return int(f(x)) if math.isfinite(x) else x
    return rounded


def _pow(a: Any, b: Any) -> Any:
    return a ** b if isinstance(a, int) and isinstance(b, int) and b >= 0 else math.pow(a, b)


def _log(x: float, base: float | None = None) -> float:
    return math.log(x) if base is None else math.log(x, base)


def _hann(type_: ValueType, size: int) -> Array:
    values = tuple(0.5 - 0.5 * math.cos(2 * math.pi * n / (size - 1)) if size > 1 else 1.0 for n in range(size))
    return Array(type_, Shape((size,)), values)


def _ceilstep(x: float, step: float) -> Any:
    return math.ceil(x / step) * step


#: Functions callable bare (``ceil(x)``), as ``Math.fn(...)`` and as methods of their first argument.
BOTH: dict[str, Callable[..., Any]] = {
    "real": float, "int": lambda x: int(math.trunc(x)), "abs": abs, "max": max, "min": min, "pow": _pow,
    "exp": math.exp, "sqrt": math.sqrt, "log": _log, "log10": math.log10, "inv": lambda x: 1.0 / x,
    "floor": _int_result(math.floor), "ceil": _int_result(math.ceil),
    "round": _int_result(round),  # midpoints to even, as .NET's Math.Round
    "trunc": _int_result(math.trunc), "sign": lambda x: (x > 0) - (x < 0), "factorial": math.factorial,
}
#: Bare only (the guide: "no Math.log2").
BARE_ONLY: dict[str, Callable[..., Any]] = {"log2": math.log2}
#: ``Math.`` only.
MATH_ONLY: dict[str, Callable[..., Any]] = {
    "ceilstep": _ceilstep, "sin": math.sin, "cos": math.cos, "tan": math.tan, "asin": math.asin,
    "acos": math.acos, "atan": math.atan, "sinh": math.sinh, "cosh": math.cosh, "tanh": math.tanh,
    "atan2": math.atan2, "hann": _hann,
}
MATH_CONSTANTS = {"E": math.e, "PI": math.pi, "Epsilon": 5e-324, "NaN": math.nan,
                  "MinValue": -1.7976931348623157e308, "MaxValue": 1.7976931348623157e308}


class _Library:
    """A global of the language (``Math``, ``System``): members by name."""

    def __init__(self, name: str, members: dict[str, Any]) -> None:
        self._name = name
        self._members = members

    def member(self, name: str) -> Any:
        if name not in self._members:
            raise ExpressionError(f"{self._name} has no member {name!r}")
        return self._members[name]


def _shape_of(shape: Any) -> Shape:
    return shape if isinstance(shape, Shape) else Shape((int(shape),))


def _load(assembly: str, class_: str) -> Any:
    raise ExternalCall(f"System.Load({assembly!r}, {class_!r}) is a .NET call")


def _parse_type(text: str) -> ValueType:
    found = TYPE_NAMES.get(str(text).strip().lower())
    if found is None:
        raise ExpressionError(f"System.parseType: unknown type {text!r}")
    return found


MATH = _Library("Math", BOTH | MATH_ONLY | MATH_CONSTANTS)
SYSTEM = _Library("System", {
    name: t for name, t in VALUE_TYPES.items()} | {
    "Shape": lambda *dims: Shape(tuple(int(d) for d in dims)),
    "Tensor": lambda type_, shape, static=False: Tensor(type_, _shape_of(shape)),
    "ArrayBuffer": lambda type_, shape, static=True: Tensor(type_, _shape_of(shape)),
    "parseType": _parse_type, "Load": _load, "Identifier": Identifier,
})

#: Members opforge's own units use that the language does not have (issue 19 removes them).
EXTENSIONS = frozenset({"broadcastable", "Float16", "ArrayBuffer"})

#: String methods (guide 10.10).
STRING_METHODS: dict[str, Callable[..., Any]] = {
    "length": len, "toLower": str.lower, "toUpper": str.upper, "trim": str.strip, "trimStart": str.lstrip,
    "trimEnd": str.rstrip, "contains": lambda s, t: t in s, "startsWith": str.startswith,
    "endsWith": str.endswith, "indexOf": str.find, "lastIndexOf": str.rfind, "replace": str.replace,
    "remove": lambda s, start, count=None: s[:start] + ("" if count is None else s[start + count:]),
    "insert": lambda s, i, t: s[:i] + t + s[i:], "compare": lambda s, t: (s > t) - (s < t),
}
