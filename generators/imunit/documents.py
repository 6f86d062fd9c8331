"""What every unit document shares: its name, head and description, the presentation
Studio shows, the conditions an implementation is chosen by, and the serialized text."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from dsl import compute as C
from dsl import doc_tokens
from dsl import dtypes as D
from dsl.model import Op
from dsl.types import Language
from generators.imunit import units


def unit_name(op: Op) -> str:
    camel = "".join(part.capitalize() for part in op.name.split("_"))
    return f"Opforge.{op.namespace.capitalize()}.{camel}"


#: Characters XML 1.0 cannot hold at all, not even escaped.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def xml_safe(root: ET.Element) -> ET.Element:
    """``root`` with every character XML cannot hold written as its Python escape (``\\x1f``)."""
    def spell(text: str | None) -> str | None:
        return None if text is None else _NOT_XML.sub(lambda m: repr(m.group())[1:-1], text)

    for element in root.iter():
        element.text, element.tail = spell(element.text), spell(element.tail)
        for key, value in element.attrib.items():
            element.set(key, spell(value) or "")
    return root


def presentation(root: ET.Element) -> None:
    """What Studio shows of each socket and option, as the real units give it: a ``text``
    (the name in words) and, for numbers, a text box."""
    for element in root.iter():
        if element.tag in ("InputSocket", "OutputSocket") or element.tag.endswith("Option"):
            if "text" not in element.attrib and element.get("name"):
                element.set("text", element.get("name", "").replace("_", " ").strip().capitalize())
            if element.tag in ("Int32Option", "DoubleOption") and "ui" not in element.attrib:
                element.set("ui", "textbox")


def serialize(root: ET.Element, header: str) -> str:
    """A unit's document: what Studio shows filled in, indented, and under the generated header."""
    presentation(root)
    ET.indent(root, space="  ")
    body = ET.tostring(xml_safe(root), encoding="unicode")
    return f'<?xml version="1.0" encoding="utf-8"?>\n<!-- {header.replace("--", "- -")} -->\n{body}\n'


def head(root: ET.Element, op: Op, tag: str, legacy: bool) -> ET.Element:
    unit = ET.SubElement(root, tag, {"unit" if legacy else "name": unit_name(op)})
    display = op.display_name if op.display_name != op.name else unit_name(op).rsplit(".", 1)[1]
    ET.SubElement(unit, "DisplayName").text = display
    ET.SubElement(unit, "DisplayPath").text = op.display_path
    return unit


def description(unit: ET.Element, op: Op, python_fragment: str | None) -> None:
    """The op's docs under a header, and the inlined Python fragment if the unit has one."""
    # A unit is a node one places in a graph: ND4J's constructor docs are its own (ADR 0004).
    texts = doc_tokens.texts(op, Language.IMUNIT, doc_tokens.NODE_SCOPES, unit_name(op), "array")
    description = ET.SubElement(unit, "Description")
    head = ET.SubElement(description, "Header")
    head.text = "Description"
    head.tail = "\n" + "\n\n".join(texts) + "\n"
    if python_fragment is not None:
        ET.SubElement(description, "Header").text = "Python implementation"
        ET.SubElement(description, "Inline", {"fragment": python_fragment, "language": "Python"})


def tensor_types(impl: ET.Element, op: Op, variant: object) -> None:
    """The seed format's ``<TensorType>``: each tensor's element type (none for Python)."""
    for t in (*op.inputs, *op.outputs):
        for name in units.sockets(t) if t.kind == "input" else units.output_sockets(t):
            attrs_ = {"tensor": name}
            if variant is not None and t.name not in C.own_dtype_inputs(op):  # else: any type
                attrs_["type"] = units.VALUE_TYPE[variant.of(t.name)].removeprefix("System.")  # type: ignore[attr-defined]
            ET.SubElement(impl, "TensorType", attrs_)


def conditions(op: Op, variant: D.Variant) -> list[str]:
    """The variant's own condition, then each other input socket's element type
    (an optional socket may also be left unconnected)."""
    conditions = [condition(op, variant.dtype)]
    for i in op.inputs:
        if i.name in C.own_dtype_inputs(op):  # passed with its dtype: any type will do
            continue
        for k, socket in enumerate(units.sockets(i)):
            test = f"{socket}.type == {units.VALUE_TYPE[variant.of(i.name)]}"
            if not i.count.is_single and k >= i.count.low:
                test = f"({socket} == null || {test})"
            if test not in conditions:
                conditions.append(test)
    return conditions


def condition(op: Op, dtype: str) -> str:
    if C.dtype_from_arg(op.compute):
        return f'{units.value(op, "dtype")} == "{dtype}"'
    return f"{units.first_tensor(op)}.type == {units.VALUE_TYPE[dtype]}"
