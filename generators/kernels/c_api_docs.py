"""The Doxygen comments of the C API's functions (issue 22).

Each function says what it computes (the op's docs), the dtypes each tensor takes, each
output's shape (the form's shape expression, ADR 0029), what may share memory, and every
status it returns and why. The last three are read off the function's emitted body, where
every failure is one ``opf_fail(detail, STATUS, "why")`` with a static message, or a status
of a runtime helper or of another API function that the body passes on: so the header says
what the function does, and cannot drift from it.
"""

from __future__ import annotations

import functools
import re
from typing import Iterable

from dsl import doc_tokens
from dsl.model import Op
from dsl.types import Language
from generators import abi
from generators.formatting import visible_controls
from generators.kernels import c_runtime, shape_text
from generators.kernels.selection import follows

#: The statuses in their enum's order.
STATUSES = tuple(name for name, _ in abi.STATUS)

#: What opf_check_tensor / opf_check_tensor_reading refuse, by status (opf_base.h says the same).
TENSOR_CHECK = {
    "OPFORGE_ERR_NULL": "{names}: a NULL descriptor, or NULL data with elements",
    "OPFORGE_ERR_DTYPE": "{names}: a dtype not listed under Dtypes",
    "OPFORGE_ERR_RANK": "{names}: a rank below 0 or above OPFORGE_MAX_RANK",
    "OPFORGE_ERR_SIZE": "{names}: a negative size, or more bytes than int64_t counts",
    "OPFORGE_ERR_ATTRIBUTE": "{names}: fixed-point attributes outside their type's range, or per-axis scales where "
                             "the function takes none (the conversions take them, and a matmul or dense layer "
                             "along its second operand's last axis)",
}
_CHECKERS = ("opf_check_tensor", "opf_check_tensor_reading", "opf_check_tensor_per_axis", "opf_check_tensor_columns")

_FUNCTION = re.compile(r"^(?:[\w ]+ )?opforge_status (\w+)\(", re.M)
_FAIL = re.compile(r'opf_fail\(detail, (\w+),\s*("(?:[^"\\]|\\.)*")\)')
_ASSIGNED = re.compile(r"\bst = (\w+)\(")
_PASSED_ON = re.compile(r"return (\w+)\(|return st;")
_BARE = re.compile(r"return (OPFORGE_ERR_\w+);")
_CHECKED = re.compile(r"(?:" + "|".join(_CHECKERS) + r")\((\w+)(?:\[\w+\])?,\s*"
                      r"((?:OPF_DTYPE_BIT\(\w+\)[\s|]*)+)")
_BIT = re.compile(r"OPF_DTYPE_BIT\(OPFORGE_(\w+)\)")
_VARIANT = "tensor dtypes do not match: "
FIXED_POINT = {d.upper() for d in abi.FIXED_POINT_DTYPES}


def _unescape(literal: str) -> str:
    """The text of a C string literal as ``c_string`` writes them."""
    return re.sub(r"\\([0-7]{3}|.)", lambda m: chr(int(m[1], 8)) if len(m[1]) == 3 else m[1], literal[1:-1])


def _bodies(text: str) -> dict[str, str]:
    """Each ``opforge_status`` function of a C text, by name: its text up to the next one."""
    starts = list(_FUNCTION.finditer(text))
    return {m[1]: text[m.start():(starts[i + 1].start() if i + 1 < len(starts) else len(text))]
            for i, m in enumerate(starts)}


@functools.lru_cache(maxsize=None)
def _runtime() -> dict[str, str]:
    """The runtime helpers' ``opforge_status`` functions, by name."""
    return {name: body for text in c_runtime.sources().values() for name, body in _bodies(text).items()}


def failures(name: str, bodies: dict[str, str], seen: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    """(status, why) of every failure of the function ``name`` (an API function among
    ``bodies``, or a runtime helper), in the order its body reaches them."""
    body = bodies.get(name) or _runtime().get(name, "")
    out: list[tuple[str, str]] = []
    last_call = ""
    events = sorted([*((m.start(), "fail", m) for m in _FAIL.finditer(body)),
                     *((m.start(), "call", m) for m in _ASSIGNED.finditer(body)),
                     *((m.start(), "pass", m) for m in _PASSED_ON.finditer(body)),
                     *((m.start(), "bare", m) for m in _BARE.finditer(body))], key=lambda e: e[0])
    for _, kind, m in events:
        if kind == "call":
            last_call = m[1]
        elif kind == "bare":
            out.append((m[1], ""))
        elif kind == "fail" and m[1] != "st":
            out.append((m[1], _unescape(m[2])))
        elif kind == "fail" or (kind == "pass" and m[1] is None):  # (a status st holds, passed on)
            callee = last_call
            if callee in _CHECKERS:
                out.append(("check", ""))
            elif callee and callee not in seen:
                out += failures(callee, bodies, seen | {name})
        elif kind == "pass" and m[1] not in seen and (m[1] in bodies or m[1] in _runtime()):
            out += failures(m[1], bodies, seen | {name})
    return out


def _words(items: list[str], conjunction: str = "and") -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} {conjunction} {items[-1]}"


def _dtypes(op: Op, body: str, primary: str) -> list[str]:
    """Lines saying the dtypes each tensor takes: its checked set, and where every variant gives
    it the primary tensor's dtype (``selection.follows``, as the docs say it), that."""
    allowed: dict[str, list[str]] = {}
    for m in _CHECKED.finditer(body):
        allowed.setdefault(m[1], [b.lower() for b in _BIT.findall(m[2])])
    tensors = {abi.c_name(t.name): t.name for t in (*op.inputs, *op.outputs)}
    same = [t for t in allowed
            if t != primary and t in tensors and follows(op, tensors[t], tensors.get(primary, primary))]
    lines = []
    if primary in allowed:
        lines.append(f"{_words([primary, *same])}: {'one dtype, ' if same else ''}{', '.join(allowed[primary])}.")
    for t, dtypes in allowed.items():
        if t != primary and t not in same:
            lines.append(f"{t}: {', '.join(dtypes)}.")
    return lines


def escape(text: str) -> str:
    """Text Doxygen shows as written (no commands, HTML or auto-links), inside a C comment."""
    text = visible_controls(text.replace("*/", "* /").replace("/*", "/ *").replace("??", "? ?"))
    return re.sub(r"[\\@<>&`]|[#$%](?=\w)", lambda m: "\\" + m[0], text)


def _paragraph(title: str, lines: Iterable[str]) -> list[str]:
    lines = list(lines)
    return ["", f"@par {title}", *lines] if lines else []


def _returns(found: list[tuple[str, str]], tensors: list[str], fixed: bool) -> list[str]:
    why: dict[str, list[str]] = {}
    for status, text in found:
        if status == "check":  # (a descriptor check: what opf_check_tensor refuses)
            for s, template in TENSOR_CHECK.items():
                entry = template.format(names=_words(tensors, "or"))
                if (s != "OPFORGE_ERR_ATTRIBUTE" or fixed) and entry not in why.setdefault(s, []):
                    why[s].append(entry)
            continue
        if text.startswith(_VARIANT):
            text = "the tensors' dtypes do not combine as listed under Dtypes"
        elif status == "OPFORGE_ERR_OVERLAP":
            text = "an output overlaps memory other than as Memory allows"
        elif text == "unsupported dtype":  # (the dispatch's default, after the checks above)
            continue
        bucket = why.setdefault(status, [])
        if text and text not in bucket:
            bucket.append(text)
    lines = ["@retval OPFORGE_OK Done."]
    for status in STATUSES[1:]:
        if why.get(status):
            lines.append(f"@retval {status} " + "; ".join(escape(w) for w in _per_type(why[status])) + ".")
    return lines


_TYPE_NAME = re.compile(r"\b(?:q7|q15|q31|d8|d16|d32)\b")


def _per_type(reasons: list[str]) -> list[str]:
    """Reasons that differ only in the fixed-point type they name, said once for all of them."""
    groups: dict[str, list[str]] = {}
    for text in reasons:
        groups.setdefault(_TYPE_NAME.sub("{}", text), []).extend(_TYPE_NAME.findall(text)[:1])
    return [key.replace("{}", _words(list(dict.fromkeys(types)), "or"), 1) if len(types) > 1 else
            key.replace("{}", types[0]) if types else key for key, types in groups.items()]


def _parameters(op: Op, extra: dict[str, str]) -> list[str]:
    lines = []
    params = {p.name: p for p in (*op.inputs, *op.args, *op.outputs, *op.configs)}
    for p in abi.parameters(op):
        if p.role == "detail":
            continue
        what = getattr(params.get(p.source), "description", "") or ""
        direction = "[out]" if p.role in ("output", "output_list") else "[in]"
        if p.role in ("input_count", "output_count", "count"):
            what = f"The number of entries of {abi.c_name(p.source)}."
        elif p.role == "optional":
            what = f"{what} (NULL: none)"
        elif p.role == "config":
            what = f"{what or p.source} (NULL: every default)"
        elif p.role == "arg" and p.source in params and getattr(params[p.source], "possible_values", None):
            arg = params[p.source]
            what = f"{what}: " + ", ".join(abi.enum_constant(op, arg, i) for i in range(len(arg.possible_values)))
        lines.append(f"@param{direction} {p.name} {escape(extra.get(p.name, what) or p.name)}")
    return lines


DETAIL = "@param[out] detail If not NULL: set to NULL on success, else to a static message saying why the call failed."


def function_doc(op: Op, api: str, name: str, prototype: str, brief: str | None = None) -> str:
    """The Doxygen comment of the API function ``name`` (one of the op's ``prototypes``)."""
    bodies = _bodies(api)
    body = bodies.get(name, "")
    texts = doc_tokens.texts(op, Language.C, doc_tokens.FUNCTION_SCOPES, abi.function(op), "opforge_tensor")
    lines = [f"@brief {escape(brief or (texts[0] if texts else op.name))}"]
    for text in ([] if brief else texts[1:]):
        lines += ["", escape(text)]
    primary = _primary(op)
    lines += _paragraph("Dtypes", _dtypes(op, body, primary))
    if name == abi.function(op):
        shapes = [f"{o}: {escape(s)}" for o, s in shape_text.output_shapes(op)]
        lines += _paragraph("Output shape", shapes)
    overlaps = [escape(t) + "." for s, t in failures(name, bodies) if s == "OPFORGE_ERR_OVERLAP"]
    lines += _paragraph("Memory", dict.fromkeys(overlaps))
    described = getattr(op.compute, "output_args", ())
    if described:  # (the args that are the output's type and attributes: its descriptor's fields)
        lines += _paragraph("Output attributes", [f"The op's args {_words(list(described))} are the output "
                                                  "descriptor's fields of those names, which the caller sets "
                                                  "(a Q type reads its shift, a D type its scale and offset)."])
    lines.append("")
    lines += _params_of(op, prototype)
    tensors = ([m[1] for m in _CHECKED.finditer(body)]
               or re.findall(r"opforge_tensor\*(?: const\*)? (\w+)", prototype))
    fixed = any(b in FIXED_POINT for m in _CHECKED.finditer(body) for b in _BIT.findall(m[2]))
    lines += _returns(failures(name, bodies), list(dict.fromkeys(tensors)) or ["a tensor"], fixed)
    flat = [part for line in lines for part in line.split("\n")]
    return "/**\n" + "\n".join(f" * {line}" if line.strip() else " *" for line in flat) + "\n */"


def _primary(op: Op) -> str:
    return op.inputs[0].name if op.inputs else (op.outputs[0].name if op.outputs else "")


def _params_of(op: Op, prototype: str) -> list[str]:
    """@param lines for the parameters of ``prototype``, in its order."""
    described = {line.split()[1]: line for line in _parameters(op, {})}
    extra = {"workspace": "[in] Scratch memory of at least the bytes the _workspace function gives.",
             "workspace_bytes": "[in] The size of workspace in bytes.",
             "bytes": "[out] The bytes of workspace (or state) the call needs.",
             "table": "[in,out] The prepared table.",
             "state": "[in,out] The caller's state memory, aligned to 8 bytes.",
             "state_size": "[in] The bytes of state.",
             "ready": "[out] Whether a window is ready to dequeue.",
             "frame": "[in] A frame's descriptor (its data is not read): the dtype and shape of each one."}
    lines = []
    for param in re.findall(r"(\w+)(?:\[\d+\])?(?=,|\)$)", prototype.split("(", 1)[1]):
        if param == "detail":
            lines.append(DETAIL)
        elif param in described:
            lines.append(described[param])
        elif param in extra:
            direction, text = extra[param].split(" ", 1)
            lines.append(f"@param{direction} {param} {text}")
        else:
            lines.append(f"@param[in] {param} {param}")
    return lines
