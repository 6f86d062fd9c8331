"""The C runtime every generated kernel relies on: types, statuses, Philox and helpers.

The helpers are real C, ``runtime/*.h``, shipped as they are beside the kernels;
templates render only what expands per dtype or status (``opforge.h``,
``opforge_core.c``, ``opf_scalar.h``). For self-contained fragment files the
whole runtime is also given as one standalone block with static linkage, its
local includes inlined once each (an amalgamation, as SQLite ships).
"""

from __future__ import annotations

import functools
import importlib.resources
import re
from pathlib import Path

import jinja2

from dsl import dtypes as D
from dsl import fixed_point as F
from generators import abi
from generators.kernels import routines
from generators.kernels.scalar_c import C_TYPE, SUFFIX, WIDE_UNSIGNED, converted

ENV = jinja2.Environment(loader=jinja2.PackageLoader("generators.kernels", "templates"),
                         undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                         trim_blocks=True, lstrip_blocks=True, autoescape=False)

# Rendered files, by library path; the order is the standalone block's.
TEMPLATES = {"include/opforge/opforge.h": "opforge.h.j2", "src/opforge_core.c": "opforge_core.c.j2",
             "src/opf_scalar.h": "opf_scalar.h.j2"}
PUBLIC_HEADER = "opforge/opforge.h"
# The helpers' entry point: kernels and API functions include only this.
INTERNAL_HEADER = "opforge_internal.h"
_LOCAL_INCLUDE = re.compile(r'^#include "([^"]+)"\n', re.MULTILINE)


def _values(header: str, standalone: bool) -> dict:
    ints = [{"ctype": C_TYPE[d], "sfx": SUFFIX[d], "wide": WIDE_UNSIGNED[d], "bits": D.BITS[d],
             "exact": f"uint{D.BITS[d]}_t", "signed": D.category(d) == "signed",
             # (b modulo the width, as an int64_t: an unsigned b is reduced before it could exceed one)
             "residue": f"(int64_t)b % {D.BITS[d]}" if D.category(d) == "signed" else f"(int64_t)(b % {D.BITS[d]}u)"}
            for d in D.INTEGERS]
    floats = [{"ctype": C_TYPE[d], "sfx": SUFFIX[d]} for d in D.FLOATS]
    return {
        "header": header,
        "standalone": standalone,
        "linkage": "static inline " if standalone else "",
        "max_rank": abi.MAX_RANK,
        "dtypes": [{"enum": abi.DTYPE_ENUM[d], "ctype": C_TYPE[F.storage_of(d)],
                    "store": converted("v", "float64", d) if d == D.HALF else f"({C_TYPE[F.storage_of(d)]})v",
                    "held": ": an IEEE half's bits" if d == D.HALF else ""}
                   for d in abi.ALL_DTYPES],
        # (each fixed-point type's attributes: the shifts a Q type allows, a D type's offsets)
        "fixed_point": [{"enum": abi.DTYPE_ENUM[t.name], "name": t.name, "family": t.family,
                         "shifts": (t.shifts()[0], t.shifts()[-1]) if t.family == "Q" else None,
                         "lowest": t.lowest, "highest": t.highest} for t in F.TYPES.values()],
        "statuses": [{"name": n, "message": m} for n, m in abi.STATUS],
        # (a table's entries: an 8-bit type's 256 bytes, or a 16-bit type's int32 knots)
        "table_words": max((1 << 16) // F.KNOT_STEP + 1, 256 // 4),
        "ints": ints,
        "floats": floats,
        "routines": routines.c_definitions(),
    }


@functools.lru_cache(maxsize=None)
def sources() -> dict[str, str]:
    """The runtime's real C headers, by file name."""
    folder = importlib.resources.files("generators.kernels") / "runtime"
    return {f.name: f.read_text() for f in sorted(folder.iterdir(), key=lambda f: f.name) if f.name.endswith(".h")}


def _rendered(header: str, standalone: bool) -> dict[str, str]:
    values = _values(header, standalone)
    return {path: ENV.get_template(template).render(**values) for path, template in TEMPLATES.items()}


def library_files(header: str) -> dict[str, str]:
    """The runtime files of the C library, by path: the rendered ones and the helpers under the header."""
    files = _rendered(header, False)
    files.update({f"src/{name}": f"/* {header} */\n{text}" for name, text in sources().items()})
    return files


def write_library(root: Path, header: str) -> Path:
    """The runtime alone as a folder (``include/``, ``src/``) under ``root``, for builds outside
    a generated library (the tests and benchmarks of the runtime and of the fixed-point rules)."""
    for path, text in library_files(header).items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def amalgamate(text: str, files: dict[str, str]) -> str:
    """`text` with each `#include "name"` of `files` replaced by that file, inlined once; refuses others."""
    seen: set[str] = set()

    def inline(match: re.Match) -> str:
        name = match.group(1)
        if name not in files:
            raise KeyError(f"#include \"{name}\" is not a runtime file")
        if name in seen:
            return ""
        seen.add(name)
        return _LOCAL_INCLUDE.sub(inline, files[name])

    return _LOCAL_INCLUDE.sub(inline, text)


@functools.lru_cache(maxsize=None)
def standalone(header: str) -> str:
    """Types, core functions (static) and helpers as one block of C (rendered once per header)."""
    rendered = _rendered(header, True)
    files = {**sources(), "opf_scalar.h": rendered.pop("src/opf_scalar.h"), PUBLIC_HEADER: ""}
    block = "\n".join([*rendered.values(), f'#include "{INTERNAL_HEADER}"\n'])
    return amalgamate(block, files)
