"""Value types, counts, languages and doc scopes of the op-definition DSL."""

from __future__ import annotations

import enum

import attrs


class DataType(enum.Enum):
    """The abstract types a parameter may have (ND4J's DataType)."""

    NDARRAY = "NDARRAY"
    FLOATING_POINT = "FLOATING_POINT"
    INT = "INT"
    LONG = "LONG"
    NUMERIC = "NUMERIC"
    BOOLEAN = "BOOLEAN"
    STRING = "STRING"
    DATA_TYPE = "DATA_TYPE"
    ENUM = "ENUM"
    #: Fixed-point element types (ADR 0068): any of Q7..D32, the shifted Q7/Q15/Q31, the scaled D8/D16/D32.
    FIXED_POINT = "FIXED_POINT"
    SHIFTED = "SHIFTED"
    SCALED = "SCALED"

    def __repr__(self) -> str:
        return self.value


NDARRAY = DataType.NDARRAY
FLOATING_POINT = DataType.FLOATING_POINT
INT = DataType.INT
LONG = DataType.LONG
NUMERIC = DataType.NUMERIC
BOOLEAN = DataType.BOOLEAN
STRING = DataType.STRING
DATA_TYPE = DataType.DATA_TYPE
ENUM = DataType.ENUM
FIXED_POINT = DataType.FIXED_POINT
SHIFTED = DataType.SHIFTED
SCALED = DataType.SCALED

#: Types a tensor (Input or Output) may have.
TENSOR_TYPES = frozenset({NDARRAY, FLOATING_POINT, INT, LONG, NUMERIC, BOOLEAN, FIXED_POINT, SHIFTED, SCALED})

#: The fixed-point tensor types: their values carry attributes (a shift, or a scale and offset).
FIXED_POINT_TYPES = frozenset({FIXED_POINT, SHIFTED, SCALED})

#: Concrete element types, the values a DATA_TYPE arg may take.
CONCRETE_DTYPES = (
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
)


class Language(enum.Enum):
    """Which target a Doc section is written for; ANY applies to all."""

    ANY = "ANY"
    MARKDOWN = "MARKDOWN"
    C = "C"
    PYTHON = "PYTHON"
    IMUNIT = "IMUNIT"
    NNEF = "NNEF"


class DocScope(enum.Enum):
    """Where a Doc section appears (ND4J's DocScope)."""

    ALL = "ALL"
    CLASS_DOC_ONLY = "CLASS_DOC_ONLY"
    CONSTRUCTORS_ONLY = "CONSTRUCTORS_ONLY"
    CREATORS_ONLY = "CREATORS_ONLY"


@attrs.frozen
class Count:
    """How many values a parameter takes: ``low..high`` (``high`` None: unbounded)."""

    low: int
    high: int | None

    def accepts(self, n: int) -> bool:
        return n >= self.low and (self.high is None or n <= self.high)

    @property
    def is_single(self) -> bool:
        return self.low == 1 and self.high == 1

    def problem(self) -> str | None:
        """Why this count is invalid, or None."""
        for bound in (self.low, self.high):
            if bound is not None and (not isinstance(bound, int) or isinstance(bound, bool)):
                return f"invalid count {self}: bounds must be integers"
        if self.low < 0 or (self.high is not None and self.high < 0):
            return f"invalid count {self}: bounds must not be negative"
        if self.high is not None and self.low > self.high:
            return f"invalid count {self}: minimum exceeds maximum"
        if self.high == 0:
            return f"invalid count {self}: must allow at least one value"
        return None

    def words(self) -> str:
        """The count as a user reads it: ``at least 1``, ``exactly 2``, ``at most 4``, ``1 to 3``."""
        if self.high is None:
            return f"at least {self.low}"
        if self.low == self.high:
            return f"exactly {self.low}"
        return f"at most {self.high}" if self.low == 0 else f"{self.low} to {self.high}"

    def __str__(self) -> str:
        if self.high is None:
            return f"AtLeast({self.low})"
        if self.low == self.high:
            return f"Exactly({self.low})"
        if self.low == 0:
            return f"AtMost({self.high})"
        return f"Range({self.low}, {self.high})"


def Exactly(n: int) -> Count:
    return Count(n, n)


def AtLeast(n: int) -> Count:
    return Count(n, None)


def AtMost(n: int) -> Count:
    return Count(0, n)


def Range(low: int, high: int) -> Count:
    return Count(low, high)


SINGLE = Exactly(1)
