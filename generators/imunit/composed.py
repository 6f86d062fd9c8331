"""Units of composed ops: the seed format's ``<Composite>`` and the current ``<Compound>`` graph."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from dsl.model import Namespace, Op, Problem
from generators.api import GenerationError
from generators.imunit import units
from generators.imunit.documents import description, head, serialize, unit_name
from generators.imunit.shapes import UnitShapeRenderer


def composite(ns: Namespace, op: Op, header: str, legacy: bool) -> str:
    """A Composite unit: the steps' units stacked, intermediates in static buffers."""
    root = ET.Element("Imaginet")
    unit = head(root, op, "Composite", legacy)
    description(unit, op, None)
    params = ET.SubElement(unit, "Parameters")
    for i in op.inputs:
        ET.SubElement(params, "InputSocket", {"name": i.name, "pipe": "data", "description": i.description})
    hidden_tag = "Hidden" if legacy else "Expression"
    shape_of: dict[str, str] = {i.name: f"{i.name}.shape" for i in op.inputs}
    out = op.outputs[0]
    steps = op.composition.steps
    for s in steps:
        # Each step's result, as the step op's form says, its inputs bound to the composite's
        # tensors and to the steps before it (ADR 0029).
        component = ns.op(s.op.rpartition(".")[2])
        assert component is not None  # checked when the catalogue loaded
        bound = {i.name: shape_of[v] for i, v in zip(component.inputs, s.inputs) if isinstance(v, str)}
        bound |= {i.name: "System.Shape()" for i, v in zip(component.inputs, s.inputs) if not isinstance(v, str)}
        render = UnitShapeRenderer(component, f"{s.name}_shape", value=lambda n: n, tensor=bound.__getitem__)
        name = f"{s.name}_shape" if s is not steps[-1] else "output_shape"
        shape = render.shape(component.compute.output_shapes(component)[0])
        for h_name, h_value in render.hidden:
            ET.SubElement(params, hidden_tag, {"name": h_name, "value": h_value})
        ET.SubElement(params, hidden_tag, {"name": name, "value": shape})
        shape_of[s.name] = name
        if s is not steps[-1]:
            # A static buffer for the intermediate result.
            ET.SubElement(params, hidden_tag, {"name": s.name,
                                               "value": f"System.ArrayBuffer({op.inputs[0].name}.type, {name})"})
    ET.SubElement(params, "OutputSocket", {"name": out.name, "type": units.output_type(op),
                                           "shape": "output_shape", "pipe": "data",
                                           "description": out.description})
    contracts = ET.SubElement(unit, "Contracts")
    for test, error in units.contracts(op):
        ET.SubElement(contracts, "Assert", {"test": test, "error": error})
    stacked = ET.SubElement(unit, "Stacked")
    for s in steps:
        component = ns.op(s.op.rpartition(".")[2])
        assert component is not None  # checked when the catalogue loaded
        element = ET.SubElement(stacked, "Unit", {"id": unit_name(component)})
        for tensor, value in zip(component.inputs, s.inputs):
            ET.SubElement(element, "Argument", {"param": tensor.name}).text = str(value)
        for key, value in s.args:
            text = f'"{value}"' if isinstance(value, str) else repr(value)
            ET.SubElement(element, "Argument", {"param": key}).text = text
        target = out.name if s is steps[-1] else s.name
        ET.SubElement(element, "Argument", {"param": component.outputs[0].name}).text = target
    return serialize(root, header)


def compound(ns: Namespace, op: Op, header: str) -> str:
    """A ``<Compound>`` (the real library's ContextualWindow): a graph of the steps' units,
    each fed by the op's inputs or by the steps before it, its Asserts in an AssertNode
    (whose tests name failures), and the last step's output as the op's. Output shapes
    come from the steps' own units: the graph declares none."""
    root = ET.Element("Imaginet")
    unit = ET.SubElement(root, "Compound", {"unit": unit_name(op)})
    display = op.display_name if op.display_name != op.name else unit_name(op).rsplit(".", 1)[1]
    ET.SubElement(unit, "DisplayName").text = display
    ET.SubElement(unit, "DisplayPath").text = op.display_path
    description(unit, op, None)
    nodes = ET.SubElement(unit, "Nodes")
    connections = ET.SubElement(unit, "Connections")
    steps = op.composition.steps
    # Where each tensor comes from: (node, param).
    source = {i.name: (f"node_{i.name}", "value") for i in op.inputs}

    def node(tag: str, node_id: str, column: int, row: int, **attributes: str) -> ET.Element:
        return ET.SubElement(nodes, tag, {"id": node_id, "x": str(300 * column), "y": str(150 * row),
                                          "enabled": "true", **attributes})

    def connect(origin: tuple[str, str], target: str, param: str) -> None:
        link = ET.SubElement(connections, "Connection")
        ET.SubElement(link, "Source", {"node": origin[0], "param": origin[1]})
        ET.SubElement(link, "Target", {"node": target, "param": param})

    for row, i in enumerate(op.inputs):
        ET.SubElement(node("TensorInputNode", f"node_{i.name}", 0, row, name=i.name, param=i.name),
                      "Description").text = i.description
    contracts = units.contracts(op)
    if contracts:  # an AssertNode's test is the failure it names
        check = node("AssertNode", "node_contracts", 1, len(op.inputs), name="Contracts")
        inputs = ET.SubElement(check, "Inputs")
        tests = ET.SubElement(check, "Tests")
        for i in op.inputs:
            ET.SubElement(inputs, "Input", {"param": i.name, "type": "Tensor"})
            connect(source[i.name], "node_contracts", i.name)
        for test, error in contracts:
            ET.SubElement(tests, "Test", {"assert": f"!({test})", "error": error})
    problems = []
    for column, s in enumerate(steps, 1):
        component = ns.op(s.op.rpartition(".")[2])
        assert component is not None  # checked when the catalogue loaded
        step = node("UnitNode", f"node_{s.name}", column, 0, unit=unit_name(component))
        for key, value in s.args:
            kind = ("Bool" if isinstance(value, bool) else "Int32" if isinstance(value, int)
                    else "Double" if isinstance(value, float) else "String")
            ET.SubElement(step, f"{kind}Argument", {"param": key}).text = (
                str(value).lower() if isinstance(value, bool) else str(value))
        for tensor, value in zip(component.inputs, s.inputs):
            if not isinstance(value, str):
                problems.append(Problem(op.location, op.qualified_name,
                                        f"step {s.name}: the constant {value!r} for {tensor.name} has no node in a "
                                        "<Compound> (generate -imunit-style legacy, or pass it as a tensor)"))
                continue
            connect(source[value], f"node_{s.name}", tensor.name)
        source[s.name] = (f"node_{s.name}", component.outputs[0].name)
    if problems:
        raise GenerationError(problems)
    out = op.outputs[0]
    ET.SubElement(node("TensorOutputNode", f"node_{out.name}", len(steps) + 1, 0, name=out.name, param=out.name),
                  "Description").text = out.description
    connect(source[steps[-1].name], f"node_{out.name}", "value")
    return serialize(root, header)
