"""Compositions: checking their steps against the catalogue and fusing them.

A composed op's steps are elementwise ops of its namespace. Once the
catalogue is complete, each composition is checked and fused into one
elementwise expression (the steps' expressions substituted into each other),
which code targets compile like any elementwise op; the steps stay on the op
(``Op.composition``) for targets that show them (NNEF bodies, Composite units).
"""

from __future__ import annotations

from typing import Any

import attrs

from dsl import compute as C
from dsl import dtypes as D
from dsl.model import NO_DEFAULT, Catalogue, Namespace, Op, Problem
from dsl.scalar import substitute
from dsl.types import DataType


def problems(op: Op, ns: Namespace) -> list[Problem]:
    c = op.compute
    assert isinstance(c, C.Composition)
    where = op.compute_location or op.location
    out: list[str] = []
    inputs = {i.name for i in op.inputs}
    for p in c.params:
        if p not in inputs:
            out.append(f"composition parameter '{p}' is not an input of {op.qualified_name}")
    for s in c.steps:
        target_ns, _, name = s.op.rpartition(".")
        label = f"step {s.name} ({s.op})"
        if target_ns.lower() != ns.key:
            out.append(f"{label}: a composition uses ops of its own namespace {ns.name}")
            continue
        component = ns.op(name)
        if component is None:
            out.append(f"{label}: {s.op} does not exist")
            continue
        if not isinstance(component.compute, C.Elementwise):
            out.append(f"{label}: {s.op} is not elementwise")
            continue
        if len(s.inputs) != len(component.inputs):
            out.append(f"{label}: {s.op} takes {len(component.inputs)} inputs, got {len(s.inputs)}")
        args = {a.name: a for a in component.args}
        for key, _ in s.args:
            if key not in args:
                out.append(f"{label}: {s.op} has no arg '{key}'")
        for a in component.args:
            if a.name not in dict(s.args) and a.default is NO_DEFAULT:
                out.append(f"{label}: {s.op} needs arg '{a.name}'")
        mine = set(D.CONCRETE[D.primary_type(op)])
        theirs = set(D.CONCRETE[D.primary_type(component)])
        if not mine <= theirs:
            out.append(f"{label}: {s.op} takes {D.primary_type(component).value}, "
                       f"but {op.qualified_name} is {D.primary_type(op).value}")
        if component.outputs and component.outputs[0].type is DataType.BOOLEAN and s is not c.steps[-1]:
            out.append(f"{label}: {s.op} gives booleans; only the last step may")
    return [Problem(where, op.qualified_name, m) for m in out]


def fuse(op: Op, ns: Namespace) -> C.Elementwise:
    """The composition as one elementwise expression."""
    c = op.compute
    assert isinstance(c, C.Composition)
    env: dict[str, C.SExpr] = {p: C.SSym(p) for p in c.params}
    strict = False
    for s in c.steps:
        component = ns.op(s.op.rpartition(".")[2])
        assert component is not None and isinstance(component.compute, C.Elementwise)
        e = component.compute
        given: dict[str, Any] = dict(s.args)
        values = {a.name: given.get(a.name, a.default) for a in component.args}
        present = tuple(p for p in e.optional if values.get(p) is not None)
        enums = component.enums
        expr = C.resolve_enums(e.case(present), enums)
        mapping: dict[str, C.SExpr] = {}
        for tensor, value in zip(component.inputs, s.inputs):
            mapping[tensor.name] = env[value] if isinstance(value, str) else C.SConst(value)
        for a in component.args:
            value = values[a.name]
            if a.type is DataType.ENUM and isinstance(value, str):
                value = a.possible_values.index(value)
            if value is not None:
                mapping[a.name] = C.SConst(value)
        env[s.name] = substitute(expr, mapping)
        strict = strict or e.broadcast == "strict"
    return C.Elementwise(c.params, (), (((), env[c.result]),), "strict" if strict else "numpy")


def resolve(catalogue: Catalogue) -> tuple[Catalogue, list[Problem]]:
    """Check every composition; fuse those that are sound."""
    found: list[Problem] = []
    namespaces = []
    for ns in catalogue.namespaces:
        ops = []
        for op in ns.ops:
            if isinstance(op.compute, C.Composition):
                issues = problems(op, ns)
                found += issues
                if not issues:
                    op = attrs.evolve(op, compute=fuse(op, ns), composition=op.compute)
            ops.append(op)
        namespaces.append(attrs.evolve(ns, ops=tuple(ops)))
    return attrs.evolve(catalogue, namespaces=tuple(namespaces)), found
