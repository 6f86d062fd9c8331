"""Name mangling shared by every target (ADR 0004).

Op and parameter names are identifiers that never end in ``_`` (the DSL
refuses that). A name that is reserved in a target language (``and`` in
Python and NNEF, ``default`` in C, ...) gets one trailing ``_`` in that
target, so ``and`` becomes ``and_`` and can never collide with another name.
"""

from __future__ import annotations

import keyword
from typing import AbstractSet

#: Python keywords, soft keywords and names a generated module defines.
PYTHON_RESERVED: frozenset[str] = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist)

#: C99 keywords plus the macros of the standard headers generated C includes.
C_RESERVED: frozenset[str] = frozenset(
    """auto break case char const continue default do double else enum extern float for goto if
    inline int long register restrict return short signed sizeof static struct switch typedef union
    unsigned void volatile while _Bool _Complex _Imaginary bool true false NULL int8_t int16_t
    int32_t int64_t uint8_t uint16_t uint32_t uint64_t size_t ptrdiff_t errno assert""".split()
)


def mangle(name: str, reserved: AbstractSet[str]) -> str:
    """``name`` as a target spells it: ``name_`` if reserved there, else ``name``."""
    return name + "_" if name in reserved else name
