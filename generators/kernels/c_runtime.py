"""The C runtime every generated kernel relies on: types, statuses, Philox and helpers.

Rendered as the library's ``opforge.h``, ``opforge_core.c`` and
``opforge_internal.h``, or as one standalone block with static linkage for
self-contained fragment files.
"""

from __future__ import annotations

import functools

import jinja2

from dsl import dtypes as D
from generators import abi
from generators.kernels.scalar_c import C_TYPE, SUFFIX, WIDE_UNSIGNED

ENV = jinja2.Environment(loader=jinja2.PackageLoader("generators.kernels", "templates"),
                         undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                         trim_blocks=True, lstrip_blocks=True, autoescape=False)

FILES = {"include/opforge/opforge.h": "opforge.h.j2", "src/opforge_core.c": "opforge_core.c.j2",
         "src/opforge_internal.h": "opforge_internal.h.j2"}


def _values(header: str, standalone: bool) -> dict:
    ints = [{"ctype": C_TYPE[d], "sfx": SUFFIX[d], "wide": WIDE_UNSIGNED[d], "bits": D.BITS[d],
             "exact": f"uint{D.BITS[d]}_t", "signed": D.category(d) == "signed"} for d in D.INTEGERS]
    floats = [{"ctype": C_TYPE[d], "sfx": SUFFIX[d]} for d in D.FLOATS]
    return {
        "header": header,
        "standalone": standalone,
        "linkage": "static inline " if standalone else "",
        "max_rank": abi.MAX_RANK,
        "dtypes": [{"enum": abi.DTYPE_ENUM[d], "ctype": C_TYPE[d]} for d in abi.DTYPES],
        "statuses": [{"name": n, "message": m} for n, m in abi.STATUS],
        "ints": ints,
        "floats": floats,
    }


def library_files(header: str) -> dict[str, str]:
    """The runtime files of the C library, by path."""
    values = _values(header, False)
    return {path: ENV.get_template(template).render(**values) for path, template in FILES.items()}


@functools.lru_cache(maxsize=None)
def standalone(header: str) -> str:
    """Types, core functions (static) and helpers as one block of C (rendered once per header)."""
    values = _values(header, True)
    return "\n".join(ENV.get_template(t).render(**values) for t in FILES.values())
