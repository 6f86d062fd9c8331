"""Turning plain text into Markdown that renders exactly as written.

Doc text, descriptions and messages are plain text, not Markdown: every
character that Python-Markdown (what mkdocs uses) could read as markup is
escaped, so ``*``, ``|``, ``<!--`` or ``{{ }}`` show verbatim.
"""

from __future__ import annotations

import re
import unicodedata

# Characters that are markup anywhere in a line (backslash-escaped) ...
_ANYWHERE = set("\\`*_[]|")
# ... and those that are markup only where a line starts (lists, headings,
# quotes, setext underlines, admonitions).
_LINE_START = set("#>-+=!:~")
# Not backslash-escapable in Python-Markdown: written as entities.
_ENTITIES = {"&": "&amp;", "<": "&lt;", "=": "&#61;", ":": "&#58;", "~": "&#126;"}
_ORDERED = re.compile(r"^(\d+)([.)])")


def _clean(text: str) -> str:
    """Newlines normalised, tabs expanded, control characters shown as ``\\xNN``."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").expandtabs(4)
    return "".join(f"\\x{ord(c):02x}" if c != "\n" and unicodedata.category(c) == "Cc" else c for c in text)


def _escape_char(c: str) -> str:
    if c in _ENTITIES and c not in _LINE_START:
        return _ENTITIES[c]
    return "\\" + c if c in _ANYWHERE else c


def inline(text: str) -> str:
    """One line of plain text (newlines become spaces) as inline Markdown."""
    line = _clean(text).replace("\n", " ").strip()
    if not line:
        return ""
    out = "".join(_escape_char(c) for c in line)
    first = line[0]
    if first in _LINE_START:
        escaped = _ENTITIES.get(first, "\\" + first)
        out = escaped + out[1:]
    elif (m := _ORDERED.match(line)) is not None:
        digits, mark = m.groups()
        out = digits + ("\\." if mark == "." else "\\)") + out[len(digits) + 1:]
    return out


def cell(text: str) -> str:
    """Plain text for a table cell: line breaks kept as ``<br>``."""
    lines = [inline(line) for line in _clean(text).split("\n")]
    return "<br>".join(line for line in lines if line) or "&nbsp;"


def block(text: str) -> str:
    """Plain text as Markdown paragraphs: blank lines separate paragraphs,
    line breaks and indentation are kept."""
    paragraphs = re.split(r"\n[ \t]*\n", _clean(text).strip("\n"))
    rendered = []
    for para in paragraphs:
        lines = []
        for line in para.split("\n"):
            stripped = line.lstrip(" ")
            indent = "&nbsp;" * (len(line) - len(stripped))
            lines.append(indent + inline(stripped))
        rendered.append("<br>\n".join(lines))
    return "\n\n".join(r for r in rendered if r)


def code(text: str) -> str:
    """An inline code span that no backtick in ``text`` can close."""
    text = _clean(text).replace("\n", " ")
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or longest else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def fence_for(text: str) -> str:
    """A code-block fence longer than any backtick run in ``text``."""
    longest = max((len(m) for m in re.findall(r"`{3,}", text)), default=0)
    return "`" * max(3, longest + 1)


def comment(text: str) -> str:
    """An HTML comment that ``text`` cannot end early."""
    return "<!-- " + text.replace("--", "- -").replace(">", "&gt;") + " -->"
