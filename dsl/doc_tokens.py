"""Doc tokens: ``%OPNAME%``-style placeholders that each target fills in.

``%%`` is a literal percent sign, so ``%%OPNAME%%`` shows as ``%OPNAME%``.
Any other ``%UPPER_CASE%`` word is an unknown token and a definition error.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from dsl.types import DocScope, Language

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


#: Which Doc scopes each place an op is documented shows (ND4J's DocScope; ADR 0004):
#: the op described as a whole (a docs page's description),
DESCRIPTION_SCOPES = (DocScope.ALL, DocScope.CLASS_DOC_ONLY)
#: a function one calls, ND4J's op creators (a C function, a Python binding),
FUNCTION_SCOPES = (DocScope.ALL, DocScope.CLASS_DOC_ONLY, DocScope.CREATORS_ONLY)
#: a node one constructs in a graph, ND4J's op class constructors (an NNEF fragment, a unit).
NODE_SCOPES = (DocScope.ALL, DocScope.CLASS_DOC_ONLY, DocScope.CONSTRUCTORS_ONLY)


def texts(owner: Any, language: Language, scopes: tuple[DocScope, ...], opname: str, input_type: str) -> list[str]:
    """The doc texts of an op (or config) that a target of ``language`` shows in a place
    taking ``scopes``, tokens expanded: ``%OPNAME%`` as the target calls the op, ``%NATIVE_OPNAME%``
    the op's native name (its ``native_name``), ``%INPUT_TYPE%`` the target's tensor type."""
    native = getattr(owner, "native_name", owner.name)
    values = {OPNAME: opname, NATIVE_OPNAME: native, INPUT_TYPE: input_type}
    return [expand(d.text, values) for d in owner.docs_for(language, scopes)]
