"""Doc tokens: ``%OPNAME%``-style placeholders that each target fills in.

``%%`` is a literal percent sign, so ``%%OPNAME%%`` shows as ``%OPNAME%``.
Any other ``%UPPER_CASE%`` word is an unknown token and a definition error.
"""

from __future__ import annotations

import re
from typing import Mapping

#: The op's name as the target spells it.
OPNAME = "OPNAME"
#: The name of the native (C) implementation.
NATIVE_OPNAME = "NATIVE_OPNAME"
#: The target's tensor type (``numpy.ndarray`` in Python, ...).
INPUT_TYPE = "INPUT_TYPE"

DOC_TOKENS = (OPNAME, NATIVE_OPNAME, INPUT_TYPE)

_TOKEN = re.compile(r"%%|%([A-Z][A-Z0-9_]*)%")


def unknown_tokens(text: str) -> list[str]:
    """The unknown ``%TOKEN%`` words in ``text``, in order of appearance."""
    return [
        m.group(0)
        for m in _TOKEN.finditer(text)
        if m.group(1) is not None and m.group(1) not in DOC_TOKENS
    ]


def expand(text: str, values: Mapping[str, str]) -> str:
    """Replace every token by its value and ``%%`` by ``%``.

    ``values`` must give every token in :data:`DOC_TOKENS`; definitions are
    validated before generation, so an unknown token here is a bug.
    """

    def replace(m: re.Match[str]) -> str:
        token = m.group(1)
        return "%" if token is None else values[token]

    return _TOKEN.sub(replace, text)
