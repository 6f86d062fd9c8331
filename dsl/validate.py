"""Validation of the frozen graph: every check, every problem, none raised.

Each function returns the problems it finds as :class:`dsl.model.Problem`
(``file:line: context: message``); builders report them, the loader collects
them, the CLI prints them and exits 2.
"""

from __future__ import annotations

import math
import re
import textwrap
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from dsl import defaults, doc_tokens
from dsl.dtypes import CONCRETE
from dsl import expr as E
from dsl import model as M
from dsl.model import NO_DEFAULT, Location, Problem
from dsl.types import CONCRETE_DTYPES, TENSOR_TYPES, Count, DataType, DocScope, Language

#: An ONNX operator name, optionally with its domain (``com.microsoft.Gelu``).
ONNX_NAME = re.compile(r"(?:[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*\.)?[A-Z][A-Za-z0-9]*")


def is_identifier(name: object) -> bool:
    """ASCII identifiers that do not end in ``_`` (the suffix targets use to
    mangle reserved words, so ``and`` and ``and_`` can never collide)."""
    return (
        isinstance(name, str)
        and name.isascii()
        and name.isidentifier()
        and not name.endswith("_")
    )


def trim_indent(text: str) -> str:
    """Kotlin's ``trimIndent``: drop the common indent and blank edge lines."""
    return textwrap.dedent(text).strip("\n").rstrip()


def _name_problem(what: str, name: object) -> str | None:
    if is_identifier(name):
        return None
    if isinstance(name, str) and name.endswith("_") and name[:-1].isidentifier():
        return f"{what} '{name}' must not end with '_' (reserved for mangling target keywords)"
    return f"{what} {name!r} is not an identifier"


# ---------------------------------------------------------------- values

_SCALAR_KINDS = {
    DataType.INT: "int",
    DataType.LONG: "int",
    DataType.FLOATING_POINT: "number",
    DataType.NUMERIC: "number",
    DataType.BOOLEAN: "bool",
    DataType.STRING: "str",
    DataType.ENUM: "str",
    DataType.DATA_TYPE: "dtype",
}


def _literal_fits(type_: DataType, value: object, possible_values: tuple[str, ...]) -> bool:
    if type_ in (DataType.INT, DataType.LONG):
        return isinstance(value, int) and not isinstance(value, bool)
    if type_ in (DataType.FLOATING_POINT, DataType.NUMERIC):
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if type_ is DataType.BOOLEAN:
        return isinstance(value, bool)
    if type_ is DataType.STRING:
        return isinstance(value, str)
    if type_ is DataType.ENUM:
        return isinstance(value, str) and value in possible_values
    if type_ is DataType.DATA_TYPE:
        return isinstance(value, str) and value in CONCRETE_DTYPES
    return False


def _show(value: object) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    return repr(value)


def _expected(type_: DataType) -> str:
    if type_ is DataType.DATA_TYPE:
        return "one of " + ", ".join(CONCRETE_DTYPES)
    return f"a {type_.value} value"


Lookup = Callable[[E.ParamRef], object]


def _default_problems(param: M.Input | M.Arg, lookup: Lookup) -> Iterable[str]:
    d = param.default
    what = f"{param.kind} '{param.name}'"
    if d is NO_DEFAULT or d is None:
        return
    if isinstance(d, E.ParamRef):
        target = lookup(d)
        if target is None:
            yield f"default of {what} refers to '{d}', which does not exist"
        elif target is param:
            yield f"default of {what} refers to itself"
        elif getattr(target, "kind", None) != param.kind or target.type is not param.type:  # type: ignore[attr-defined]
            yield (f"default of {what} must be a {param.kind} of type {param.type.value}, "
                   f"but '{d}' is a {target.kind} of type {target.type.value}")  # type: ignore[attr-defined]
        return
    if isinstance(param, M.Input):
        yield f"default of {what} must be another input or None, got {_show(d)}"
        return
    if isinstance(d, E.ShapeOf):
        if param.type not in (DataType.INT, DataType.LONG) or param.count.is_single:
            yield f"default {d.input}.shape() of {what} needs an INT or LONG arg with a count other than Exactly(1)"
        if not isinstance(lookup(d.input), M.Input | M.Output):
            yield f"default of {what} refers to '{d.input}', which is not a tensor of this op"
        return
    if isinstance(d, E.DataTypeOf):
        if param.type is not DataType.DATA_TYPE:
            yield f"default {d.input}.data_type() of {what} needs a DATA_TYPE arg"
        if not isinstance(lookup(d.input), M.Input | M.Output):
            yield f"default of {what} refers to '{d.input}', which is not a tensor of this op"
        return
    if isinstance(d, tuple):
        if param.count.is_single:
            yield f"default {_show(d)} of {what} is a list, but its count is Exactly(1)"
        elif not param.count.accepts(len(d)):
            yield f"default {_show(d)} of {what} has {len(d)} values, but its count is {param.count}"
        values = d
    elif not param.count.is_single:
        yield f"default {_show(d)} of {what} is a single value, but its count is {param.count}: use a list"
        values = (d,)
    else:
        values = (d,)
    for v in values:
        if isinstance(v, float) and math.isnan(v):
            yield f"default of {what} is NaN, which no target can compare"
        elif not _literal_fits(param.type, v, param.possible_values):
            if param.type is DataType.ENUM and isinstance(v, str):
                allowed = ", ".join(repr(p) for p in param.possible_values)
                yield f"default {v!r} of {what} is not one of its possible values {allowed}"
            else:
                yield f"default {_show(v)} of {what} is not {_expected(param.type)}"


def param_problems(param: M.Param, context: str, lookup: Lookup) -> Iterable[Problem]:
    def p(message: str) -> Problem:
        return Problem(param.location, context, message)

    what = f"{param.kind} '{param.name}'"
    if (m := _name_problem(f"{param.kind} name", param.name)) is not None:
        yield p(m)
    if not isinstance(param.type, DataType):
        yield p(f"type of {what} must be a DataType such as NUMERIC, got {param.type!r}")
        return
    if param.kind in ("input", "output") and param.type not in TENSOR_TYPES:
        allowed = ", ".join(sorted(t.value for t in TENSOR_TYPES))
        yield p(f"{what} cannot have type {param.type.value} (tensors are {allowed})")
    if param.kind == "arg" and param.type is DataType.NDARRAY:
        yield p(f"{what} cannot have type NDARRAY: use an Input for tensors")
    if not isinstance(param.count, Count):
        yield p(f"count of {what} must be Exactly, AtLeast, AtMost or Range, got {param.count!r}")
    elif (m := param.count.problem()) is not None:
        yield p(f"{what}: {m}")
    if not isinstance(param.description, str):
        yield p(f"description of {what} must be a string, got {param.description!r}")
    if isinstance(param, M.Arg):
        values = param.possible_values
        if param.type is DataType.ENUM:
            if not isinstance(values, tuple) or not values:
                yield p(f"ENUM {what} needs possible_values")
            elif not all(isinstance(v, str) and v for v in values):
                yield p(f"possible_values of {what} must be non-empty strings")
            elif len(set(values)) != len(values):
                dup = next(v for v in values if values.count(v) > 1)
                yield p(f"possible_values of {what} list {dup!r} twice")
            if not (isinstance(param.description, str) and param.description.strip()):
                yield p(f"ENUM {what} needs a description")
        elif values:
            yield p(f"{what} has possible_values, but only ENUM args take them")
    if isinstance(param, (M.Input, M.Arg)) and isinstance(param.count, Count) and param.count.problem() is None:
        for m in _default_problems(param, lookup):
            yield p(m)


# ---------------------------------------------------------------- constraints


class _Checker:
    """Infers the kind of each node of a condition and collects misuse."""

    def __init__(self, lookup: Lookup, owner: str) -> None:
        self.lookup = lookup
        self.owner = owner
        self.errors: list[str] = []

    def kind(self, node: object) -> str:
        if isinstance(node, E.ParamRef):
            target = self.lookup(node)
            if target is None:
                self.errors.append(f"references '{node}', which {self.owner} does not have")
                return "?"
            if isinstance(target, M.Output):
                self.errors.append(f"uses output '{node}': outputs cannot be used in constraints")
                return "?"
            if isinstance(target, M.Input):
                return "tensor"
            if isinstance(target, M.Arg):
                if not isinstance(target.count, Count) or not target.count.is_single:
                    return "array"
                return _SCALAR_KINDS.get(target.type, "?")
            return "?"
        if isinstance(node, E.Literal):
            v = node.value
            if v is None:
                return "none"
            return "bool" if isinstance(v, bool) else "int" if isinstance(v, int) else (
                "number" if isinstance(v, float) else "str")
        if isinstance(node, E.Rank):
            self.tensor(node.input, "rank()")
            return "int"
        if isinstance(node, E.SizeAt):
            self.tensor(node.input, "size_at()")
            if self.kind(node.axis) not in ("int", "?"):
                self.errors.append("size_at() needs an integer axis")
            return "int"
        if isinstance(node, E.Compare):
            return self.compare(node)
        if isinstance(node, E.Arith):
            left, right = self.kind(node.left), self.kind(node.right)
            for k in (left, right):
                if k not in ("int", "number", "?"):
                    self.errors.append(f"arithmetic '{node.op}' needs numbers, got a {k} value")
            return "int" if left == right == "int" else "number"
        if isinstance(node, E.Neg):
            k = self.kind(node.operand)
            if k not in ("int", "number", "?"):
                self.errors.append(f"negation needs a number, got a {k} value")
            return k
        if isinstance(node, (E.AllOf, E.AnyOf)):
            name = "all_of" if isinstance(node, E.AllOf) else "some"
            if not node.terms:
                self.errors.append(f"{name}() needs at least one condition")
            for t in node.terms:
                self.condition(t, name)
            return "bool"
        if isinstance(node, E.Not):
            self.condition(node.term, "not_")
            return "bool"
        if isinstance(node, (E.SameType, E.SameShape, E.BroadcastableShapes)):
            name = {E.SameType: "same_type", E.SameShape: "same_shape",
                    E.BroadcastableShapes: "broadcastable_shapes"}[type(node)]
            if len(node.inputs) < 2:
                self.errors.append(f"{name}() needs at least two inputs")
            for i in node.inputs:
                self.tensor(i, f"{name}()")
            return "bool"
        if isinstance(node, (E.ShapeOf, E.DataTypeOf)):
            fn = "shape" if isinstance(node, E.ShapeOf) else "data_type"
            self.errors.append(f"{node.input}.{fn}() is only a default value; in constraints use same_shape/same_type, rank() or size_at()")
            return "?"
        self.errors.append(f"cannot use {node!r} in a constraint")
        return "?"

    def tensor(self, ref: E.ParamRef, fn: str) -> None:
        if self.kind(ref) not in ("tensor", "?"):
            self.errors.append(f"{fn} needs an input, but '{ref}' is not one")

    def condition(self, node: object, where: str) -> None:
        k = self.kind(node)
        if k not in ("bool", "?"):
            self.errors.append(f"{where}() needs conditions, got a {k} value")

    def compare(self, node: E.Compare) -> str:
        left, right = self.kind(node.left), self.kind(node.right)
        if "?" in (left, right):
            return "bool"
        numeric = {"int", "number"}
        if "none" in (left, right):
            other = node.right if left == "none" else node.left
            target = self.lookup(other) if isinstance(other, E.ParamRef) else None
            if node.op not in ("==", "!=") or not (isinstance(target, M.Arg) and target.default is None):
                self.errors.append("compares with None: only an optional arg (default None) can be, with == or !=")
        elif "tensor" in (left, right) or "array" in (left, right):
            self.errors.append(
                f"cannot compare {left} values with '{node.op}': use same_shape, same_type, rank() or size_at()")
        elif left in numeric and right in numeric:
            pass
        elif node.op in ("==", "!=") and left == right:
            self._enum_literal(node)
        else:
            self.errors.append(f"cannot compare a {left} value with a {right} value using '{node.op}'")
        return "bool"

    def _enum_literal(self, node: E.Compare) -> None:
        for ref, lit in ((node.left, node.right), (node.right, node.left)):
            if isinstance(ref, E.ParamRef) and isinstance(lit, E.Literal):
                target = self.lookup(ref)
                if isinstance(target, M.Arg) and target.type is DataType.ENUM and lit.value not in target.possible_values:
                    self.errors.append(f"compares ENUM '{ref}' with {lit.value!r}, which is not one of its possible values")


def constraint_problems(c: M.Constraint, context: str, owner: str, lookup: Lookup) -> Iterable[Problem]:
    if not isinstance(c.message, str) or not c.message.strip():
        yield Problem(c.location, context, "constraint needs a non-empty message")
    checker = _Checker(lookup, owner)
    kind = checker.kind(c.expr)
    for error in checker.errors:
        yield Problem(c.location, context, f"constraint '{c.message}' {error}")
    if kind not in ("bool", "?"):
        yield Problem(c.location, context, f"constraint '{c.message}' is not a condition (it is a {kind} value)")


# ---------------------------------------------------------------- docs


def _doc_problems(docs: tuple[M.DocSection, ...], context: str) -> Iterable[Problem]:
    for d in docs:
        if not isinstance(d.language, Language):
            yield Problem(d.location, context, f"Doc language must be a Language, got {d.language!r}")
        if not isinstance(d.scope, DocScope):
            yield Problem(d.location, context, f"Doc scope must be a DocScope, got {d.scope!r}")
        if not isinstance(d.text, str):
            yield Problem(d.location, context, f"Doc text must be a string, got {d.text!r}")
            continue
        yield from _token_problems(d.text, d.location, context)


def _token_problems(text: str, location: Location | None, context: str) -> Iterable[Problem]:
    for token in doc_tokens.unknown_tokens(text):
        known = ", ".join(f"%{t}%" for t in sorted(doc_tokens.DOC_TOKENS))
        yield Problem(location, context,
                      f"unknown doc token {token} (known: {known}; write %% for a literal %)")


# ---------------------------------------------------------------- op, config


def _lookup_in(params: tuple[M.Param, ...], configs: tuple[M.Config, ...] = ()) -> Lookup:
    def lookup(ref: E.ParamRef) -> object:
        if ref.kind == "config":
            return next((c for c in configs if c.name == ref.name), None)
        pool = params
        if ref.config is not None:
            cfg = next((c for c in configs if c.name == ref.config), None)
            pool = cfg.params if cfg is not None else ()
        return next((p for p in pool if p.kind == ref.kind and p.name == ref.name), None)

    return lookup


def config_problems(config: M.Config) -> list[Problem]:
    ctx = f"{config.namespace}.{config.name}" if config.namespace else config.name
    problems: list[Problem] = []
    if (m := _name_problem("config name", config.name)) is not None:
        problems.append(Problem(config.location, ctx, m))
    lookup = _lookup_in(config.params)
    own = _lookup_in(config.params)

    def scoped(ref: E.ParamRef) -> object:
        # A config's own constraints see its parameters without the config prefix.
        return own(E.ParamRef(ref.kind, ref.name)) if ref.config == config.name else lookup(ref)

    for p in config.params:
        problems.extend(param_problems(p, ctx, scoped))
    for c in config.constraints:
        problems.extend(constraint_problems(c, ctx, f"config {config.name}", scoped))
    problems.extend(_doc_problems(config.docs, ctx))
    return problems


def config_required(config: M.Config) -> bool:
    """A config must be passed unless every one of its parameters has a default."""
    return any(not p.has_default for p in config.params)


def _signature_problems(op: M.Op, lookup: Lookup) -> Iterable[Problem]:
    ctx = op.qualified_name
    required = [E.ParamRef(p.kind, p.name) for p in (*op.inputs, *op.args) if not p.has_default]
    required += [E.ParamRef("config", c.name) for c in op.configs if config_required(c)]
    for sig in op.signatures:
        if sig.location is None:
            continue
        shown = "(" + ", ".join(str(r) for r in sig.params) + ")"
        seen: list[E.ParamRef] = []
        for ref in sig.params:
            if ref in seen:
                yield Problem(sig.location, ctx, f"signature {shown} lists '{ref}' twice")
            seen.append(ref)
            if ref.config is not None:
                yield Problem(sig.location, ctx,
                              f"signature {shown} names '{ref}' of config {ref.config}: list the config itself")
            elif lookup(ref) is None:
                yield Problem(sig.location, ctx,
                              f"signature {shown} names '{ref}', which {ctx} does not have")
        for ref in required:
            if ref not in sig.params:
                what = "config" if ref.kind == "config" else "parameter"
                yield Problem(sig.location, ctx, f"signature {shown} misses required {what} '{ref}'")
        if sig.doc is not None:
            if not isinstance(sig.doc, str):
                yield Problem(sig.location, ctx, f"signature doc must be a string, got {sig.doc!r}")
            else:
                yield from _token_problems(sig.doc, sig.location, ctx)


def op_problems(op: M.Op, prop_locations: Mapping[str, Location] | None = None) -> list[Problem]:
    ctx = op.qualified_name
    locs = prop_locations or {}
    problems: list[Problem] = []

    def at(key: str) -> Location:
        return locs.get(key, op.location)

    if (m := _name_problem("op name", op.name)) is not None:
        problems.append(Problem(op.location, ctx, m))
    lookup = _lookup_in(op.params, op.configs)
    for p in op.params:
        problems.extend(param_problems(p, ctx, lookup))
    if ring := defaults.cycle(op):
        first = next(a for a in op.args if a.name == ring[0])
        problems.append(Problem(first.location, ctx, "defaults of args " + " -> ".join((*ring, ring[0]))
                                + " name each other in a ring: one of them needs a value of its own"))
    if not op.outputs:
        problems.append(Problem(op.location, ctx, "op has no outputs (declare at least one Output)"))
    if not any(isinstance(d.text, str) and d.text.strip() for d in op.docs):
        problems.append(Problem(op.location, ctx, "op has no documentation (add a Doc)"))
    for config, c in op.all_constraints():
        if config is None:
            problems.extend(constraint_problems(c, ctx, ctx, lookup))
    problems.extend(_signature_problems(op, lookup))
    problems.extend(_doc_problems(op.docs, ctx))
    problems.extend(compute_problems(op))
    if not isinstance(op.abstract, bool):
        problems.append(Problem(at("abstract"), ctx, f"abstract must be True or False, got {op.abstract!r}"))
    if not isinstance(op.display_name, str) or not op.display_name.strip():
        problems.append(Problem(at("display_name"), ctx, f"display_name must be a non-empty string, got {op.display_name!r}"))
    if not isinstance(op.display_path, str) or not op.display_path.startswith("/"):
        problems.append(Problem(at("display_path"), ctx, f"display_path must be a string starting with '/', got {op.display_path!r}"))
    if op.native_name != op.name and (m := _name_problem("native_name", op.native_name)) is not None:
        problems.append(Problem(at("native_name"), ctx, m))
    if op.onnx is not None and not (isinstance(op.onnx, str) and ONNX_NAME.fullmatch(op.onnx)):
        problems.append(Problem(at("onnx"), ctx, f"onnx must name an ONNX operator such as 'Add' or 'ReduceSum', got {op.onnx!r}"))
    return problems


# ---------------------------------------------------------------- namespace, catalogue


def _duplicates(items: Iterable[tuple[str, Location]], what: str, context: Callable[[str], str],
                key: Callable[[str], str] = str) -> Iterable[Problem]:
    first: dict[str, Location] = {}
    for name, location in items:
        k = key(name) if isinstance(name, str) else repr(name)
        if k in first:
            yield Problem(location, context(name), f"duplicate {what} '{name}' (first defined at {first[k]})")
        else:
            first[k] = location


def namespace_problems(ns: M.Namespace) -> list[Problem]:
    problems: list[Problem] = []
    if (m := _name_problem("namespace name", ns.name)) is not None:
        problems.append(Problem(ns.location, ns.name, m))
    problems.extend(_duplicates(((o.name, o.location) for o in ns.ops), "op", lambda n: f"{ns.name}.{n}"))
    problems.extend(_duplicates(((c.name, c.location) for c in ns.configs), "config", lambda n: f"{ns.name}.{n}"))
    for a in ns.aliases:
        if (m := _name_problem("alias name", a.name)) is not None:
            problems.append(Problem(a.location, a.qualified_name, m))
    problems.extend(_duplicates(((a.name, a.location) for a in ns.aliases), "alias", lambda n: f"{ns.name}.{n}"))
    op_names = {o.name: o.location for o in ns.ops}
    for a in ns.aliases:
        if a.name in op_names:
            problems.append(Problem(a.location, a.qualified_name,
                                    f"alias '{a.name}' has the name of an op (defined at {op_names[a.name]})"))
    return problems


def catalogue_problems(cat: M.Catalogue) -> list[Problem]:
    problems: list[Problem] = list(
        _duplicates(((n.name, n.location) for n in sorted(cat.namespaces, key=lambda n: n.location)), "namespace", lambda n: n,
                    key=str.lower)
    )
    for ns in cat.namespaces:
        for a in ns.aliases:
            target_ns = cat.namespace(a.target_namespace)
            if target_ns is None:
                problems.append(Problem(a.location, a.qualified_name,
                                        f"alias target namespace '{a.target_namespace}' does not exist"))
                continue
            if target_ns.op(a.target_op) is None:
                if any(x.name == a.target_op and x is not a for x in target_ns.aliases):
                    problems.append(Problem(a.location, a.qualified_name,
                                            f"alias target {a.target} is itself an alias: name the original op"))
                else:
                    problems.append(Problem(a.location, a.qualified_name,
                                            f"alias target {a.target} does not exist"))
            elif target_ns.op(a.target_op).abstract:  # type: ignore[union-attr]
                problems.append(Problem(a.location, a.qualified_name,
                                        f"alias target {a.target} is abstract"))
    return problems


# ---------------------------------------------------------------- compute


def _scalar_arg(op: M.Op, name: str) -> M.Arg | None:
    arg = next((a for a in op.args if a.name == name), None)
    return arg if arg is not None and arg.count.is_single else None


def compute_problems(op: M.Op) -> list[Problem]:
    """Problems of what an op computes, at the line that declared it."""
    from dsl import compute as C

    c = op.compute
    if c is None:
        return []
    loc = op.compute_location or op.location
    ctx = op.qualified_name
    out: list[str] = []
    inputs = {i.name: i for i in op.inputs}
    args = {a.name: a for a in op.args}
    if isinstance(c, C.Reduction) and len(op.outputs) != len(c.finalizers):
        out.append(f"a reduction gives one output per finalizer: {len(c.finalizers)} finalizer(s), "
                   f"{len(op.outputs)} output(s)")
    elif len(op.outputs) != 1 and not isinstance(c, (C.FragmentKernel, C.Reduction, C.FindAll)):
        out.append(f"{c.kind} ops have exactly one output, {op.name} has {len(op.outputs)}")
    for i in op.inputs:
        if not i.count.is_single and C.list_input(c) != i.name:
            out.append(f"input '{i.name}' is a list (it has a count), which only Join, Merge and "
                       f"Parts('meshgrid') take")
    for o in op.outputs:
        if not o.count.is_single and C.list_output(c) != o.name:
            out.append(f"output '{o.name}' is a list (it has a count), which only Parts gives")

    def need_arg(name: str, types: tuple[Any, ...], array: bool, what: str) -> None:
        arg = args.get(name)
        if arg is None:
            out.append(f"{c.kind} needs an arg '{name}' ({what})")
        elif arg.type not in types or arg.count.is_single == array:
            shape = "a list" if array else "a single value"
            out.append(f"arg '{name}' must be {shape} of type {' or '.join(t.value for t in types)} ({what})")

    def need_input(name: str) -> None:  # (a list input is reported once, below)
        if name not in inputs:
            out.append(f"{c.kind} needs an input '{name}'")

    def check_functions(node: Any, allowed_symbols: set[str], where: str) -> None:
        unknown = C.symbols(node) - allowed_symbols
        if unknown:
            out.append(f"{where} uses unknown names {', '.join(sorted(unknown))}")

    def check_map(node: Any, map_args: tuple[str, ...]) -> None:
        """A traced map or predicate: its args are single-valued and not optional, its names
        and functions known, its enum comparisons resolvable."""
        for name in map_args:
            if _scalar_arg(op, name) is None or args[name].default is None:
                out.append(f"map parameter '{name}' must be x or a single-valued arg that is not optional")
        if node is None:
            return
        check_functions(node, {"x", *map_args}, "map")
        out.extend(C.integer_misuse(node))
        try:
            C.resolve_enums(node, {a.name: a.possible_values for a in op.args if a.type is DataType.ENUM})
        except ValueError as exc:
            out.append(str(exc))

    def need_roles(label: str, kind: str, table: Mapping[str, tuple[tuple[str, str], ...]],
                   params: tuple[tuple[str, str], ...]) -> None:
        """The kind is known, takes the roles given, and each role's arg or input has the right type."""
        roles = table.get(kind)
        if roles is None:
            out.append(f"unknown {label} {kind!r} (known: {', '.join(table)})")
            roles = ()
        known_roles = {r for r, _ in roles}
        for role, _ in params:
            if role not in known_roles:
                out.append(f"{label} {kind} has no role {role!r} (roles: {', '.join(sorted(known_roles)) or 'none'})")
        given = dict(params)
        for role, what in roles:
            name, purpose = given[role], f"{role} of the {kind}"
            if what in ("list", "int"):
                need_arg(name, (DataType.INT, DataType.LONG), what == "list", purpose)
            elif what == "float":
                need_arg(name, (DataType.FLOATING_POINT, DataType.NUMERIC), False, purpose)
            elif what == "bool":
                need_arg(name, (DataType.BOOLEAN,), False, purpose)
            elif what == "any":
                need_input(name)
            elif what == "tensor":
                need_input(name)
                if name in inputs and inputs[name].type is not DataType.LONG:
                    out.append(f"input '{name}' must be LONG ({purpose})")
            elif what == "values":
                need_input(name)
                source = getattr(c, "input", None)
                if name in inputs and source in inputs and inputs[name].type is not inputs[source].type:
                    out.append(f"input '{name}' must have the type of {source} ({purpose})")
            else:
                need_arg(name, (DataType.ENUM,), False, purpose)
                if name in args and tuple(args[name].possible_values) != C.PAD_MODES:
                    out.append(f"arg '{name}' must offer {', '.join(C.PAD_MODES)}, in this order")

    if isinstance(c, C.Elementwise):
        for p in c.params:
            if p in inputs:
                need_input(p)
            elif _scalar_arg(op, p) is None:
                out.append(f"elementwise function parameter '{p}' is neither an input nor a single-valued arg")
        if c.broadcast not in ("numpy", "strict"):
            out.append(f"broadcast must be 'numpy' or 'strict', got {c.broadcast!r}")
        for name in c.optional:
            arg = args.get(name)
            if arg is None or arg.default is not None:
                out.append(f"elementwise parameter '{name}' defaults to None, so it must be an arg with default None")
        float_only = {f for _, e in c.cases for f in C.functions(e) if C.FUNCTIONS[f][1] == "float"}
        for p in c.params:
            if p in inputs and float_only and inputs[p].type not in (DataType.FLOATING_POINT,):
                out.append(f"input '{p}' must be FLOATING_POINT for {', '.join(sorted(float_only))}")
        if not any(p in inputs for p in c.params):
            out.append("an elementwise op needs at least one input")
        first = next((inputs[p] for p in c.params if p in inputs), None)
        if first is not None and "bool" in CONCRETE.get(first.type, ()):  # the function may compute in bool
            bad = dict.fromkeys(f for _, e in c.cases for f in sorted(C.functions(e))
                                if C.FUNCTIONS[f][1] in ("num", "float", "int") and f not in C.BOOL_RESULT)
            if bad:
                out.append(f"input '{first.name}' may be bool ({first.type.value}), and the function computes in "
                           f"its dtype, where {', '.join(bad)} is not defined: compare, use logical functions, or "
                           "declare it NUMERIC")
        for _, e in c.cases:
            out.extend(dict.fromkeys(C.integer_misuse(e)))
        enums = {a.name: a.possible_values for a in op.args if a.type is DataType.ENUM}
        for _, e in c.cases:
            try:
                C.resolve_enums(e, enums)
            except ValueError as exc:
                out.append(str(exc))
    elif isinstance(c, C.Reduction):
        need_input(c.input)
        need_arg(c.axes, (DataType.INT, DataType.LONG), True, "axes to reduce")
        need_arg(c.keep_dims, (DataType.BOOLEAN,), False, "keep reduced axes")
        if c.combine not in C.REDUCE_COMBINES:
            out.append(f"combine must be one of {', '.join(C.REDUCE_COMBINES)}, got {c.combine!r}")
        if c.pre not in (None, "max", "mean"):
            out.append(f"pre must be None, 'max' or 'mean', got {c.pre!r}")
        if c.empty not in ("identity", "nan", "error"):
            out.append(f"empty must be 'identity', 'nan' or 'error', got {c.empty!r}")
        if c.other is not None:
            need_input(c.other)
            if c.map is None:
                out.append(f"a reduction over {c.input} and {c.other} needs a map(x, y) combining them")
        for node in (c.map, *c.finalizers, *c.extra_maps):
            out.extend(C.integer_misuse(node) if node is not None else [])
        for name in c.args:
            if _scalar_arg(op, name) is None or args[name].default is None:
                out.append(f"map parameter '{name}' must be x, y, m or a single-valued arg that is not optional")
        map_symbols = {"x", *c.args} | ({"m"} if c.pre else set()) | ({"y"} if c.other else set())
        for extra in c.extra_maps:
            check_functions(extra, map_symbols, "map")
        if c.map is not None:
            check_functions(c.map, map_symbols, "map")
        enums = {a.name: a.possible_values for a in op.args if a.type is DataType.ENUM}
        for node in (c.map, *c.extra_maps):
            try:
                C.resolve_enums(node, enums) if node is not None else None
            except ValueError as exc:
                out.append(str(exc))
        for final in c.finalizers:
            if final is None:
                continue
            sums = {"acc", *(f"acc{k}" for k in range(1, len(c.extra_maps) + 1))}
            check_functions(final, sums | {"n"} | ({"m"} if c.pre else set()), "finalize")
    elif isinstance(c, C.ArgReduction):
        need_input(c.input)
        need_arg(c.axis, (DataType.INT, DataType.LONG), False, "axis to search")
        need_arg(c.keep_dims, (DataType.BOOLEAN,), False, "keep the searched axis")
        if c.which not in ("max", "min", "first", "last"):
            out.append(f"ArgReduce takes 'max', 'min', 'first' or 'last', got {c.which!r}")
        if op.outputs and op.outputs[0].type is not DataType.LONG:
            out.append("ArgReduce's output must be LONG")
        if c.searches and c.map is None:
            out.append(f"ArgReduce({c.which!r}) needs a predicate: map=lambda x, ...: <a condition>")
        if c.args and not c.searches:
            out.append("only a first/last search reads args in its map")
        check_map(c.map, c.args)
    elif isinstance(c, C.FindAll):
        need_input(c.input)
        if len(op.inputs) != 1:
            out.append("FindAll searches its one input")
        if len(op.outputs) != 2 or any(o.type is not DataType.LONG for o in op.outputs):
            out.append("FindAll gives two LONG outputs: the indices (as many as the input's elements) and their count")
        check_map(c.map, c.args)
    elif isinstance(c, C.Contraction):
        if len(c.inputs) != len(c.spec.inputs):
            out.append(f"einsum spec {c.spec.text!r} takes {len(c.spec.inputs)} operands, "
                       f"the op gives {len(c.inputs)}")
        for name in c.inputs:
            need_input(name)
    elif isinstance(c, C.RandomSample):
        wanted = C.RANDOM_DISTRIBUTIONS.get(c.distribution)
        if wanted is None:
            out.append(f"unknown distribution {c.distribution!r} (known: {', '.join(C.RANDOM_DISTRIBUTIONS)})")
        else:
            given = dict(c.params)
            if sorted(given) != sorted(wanted):
                out.append(f"{c.distribution} takes parameters {', '.join(wanted)}, got {', '.join(sorted(given)) or 'none'}")
            for name in given.values():
                if _scalar_arg(op, name) is None:
                    out.append(f"distribution parameter arg '{name}' must be a single-valued arg")
        need_arg("shape", (DataType.INT, DataType.LONG), True, "shape of the result")
        need_arg("dtype", (DataType.DATA_TYPE,), False, "element type of the result")
        seeds = [p.name for cfg in op.configs for p in cfg.args] + list(args)
        for name in ("seed", "offset"):
            if name not in seeds:
                out.append(f"random ops need a LONG arg '{name}' (directly or from a config)")
    elif isinstance(c, C.SlidingWindow):
        need_input(c.input)
        need_arg(c.window, (DataType.INT, DataType.LONG), False, "frames per window")
        need_arg(c.stride, (DataType.INT, DataType.LONG), False, "frames between windows")
        if op.outputs and op.inputs and op.outputs[0].type is not op.inputs[0].type:
            out.append("a sliding window's output has its input's type")
    elif isinstance(c, C.Generation):
        need_roles("generator", c.generator, C.GENERATE_ROLES, c.params)
        need_arg("dtype", (DataType.DATA_TYPE,), False, "the output's dtype")
        tensor_roles = {name for role, name in c.params
                        if dict(C.GENERATE_ROLES.get(c.generator, ())).get(role) in ("tensor", "any")}
        # An input may also be what an arg's default reads (full_like: the shape and dtype of x).
        read = {defaults.source(a.default).name for a in op.args if defaults.is_computed(a)}  # type: ignore[arg-type]
        for i in op.inputs:
            if i.name not in tensor_roles | read:
                out.append(f"a generated tensor is made from args and its generator's tensor roles: "
                           f"input '{i.name}' is neither, nor read by an arg's default")
    elif isinstance(c, C.LayoutMove):
        need_input(c.input)
        need_roles("layout", c.layout, C.LAYOUT_ROLES, c.params)
        if c.input in inputs and op.outputs and op.outputs[0].type is not inputs[c.input].type:
            out.append(f"a layout's output has the type of its input ({inputs[c.input].type.value})")
    elif isinstance(c, C.ShapeQuery):
        need_input(c.input)
        if c.query not in C.SHAPE_QUERIES:
            out.append(f"unknown shape query {c.query!r} (known: {', '.join(C.SHAPE_QUERIES)})")
        if (c.query == "size_at") != (c.axis is not None):
            out.append("only size_at takes an axis")
        if c.axis is not None:
            need_arg(c.axis, (DataType.INT, DataType.LONG), False, "the axis whose size to give")
        if op.outputs and op.outputs[0].type is not DataType.LONG:
            out.append("a shape query's output is LONG")
    elif isinstance(c, C.ScatterRows):
        need_input(c.indices)
        need_input(c.updates)
        if c.indices in inputs and inputs[c.indices].type is not DataType.LONG:
            out.append(f"input '{c.indices}' must be LONG (the rows to fold into)")
        if (c.ref is None) == (c.rows is None):
            out.append("a scatter starts from a ref input, a segment reduction from a number of rows: exactly one")
        if c.ref is not None:
            need_input(c.ref)
        if c.rows is not None:
            need_arg(c.rows, (DataType.INT, DataType.LONG), False, "rows of the result")
        if c.init not in C.SEGMENT_INITS:
            out.append(f"init must be one of {', '.join(C.SEGMENT_INITS)}, got {c.init!r}")
        if c.updates in inputs and op.outputs and op.outputs[0].type is not inputs[c.updates].type:
            out.append(f"the output has the type of {c.updates} ({inputs[c.updates].type.value})")
        if c.scale is not None and c.scale not in C.SEGMENT_SCALES:
            out.append(f"scale must be None or one of {', '.join(C.SEGMENT_SCALES)}, got {c.scale!r}")
        if c.scale is not None and c.rows is None:
            out.append("only a segment reduction scales its rows")
        if c.scale and c.updates in inputs and inputs[c.updates].type is not DataType.FLOATING_POINT:
            out.append(f"scaling divides: input '{c.updates}' must be FLOATING_POINT")
        check_functions(c.combine, {"acc", "u"}, "combine")
        out.extend(C.integer_misuse(c.combine))
        if len(op.outputs) != 1:
            out.append("a scatter has exactly one output")
    elif isinstance(c, (C.Join, C.Merge)):
        listed = inputs.get(c.inputs)
        if listed is None or listed.count.is_single:
            out.append(f"{c.kind} needs a list input '{c.inputs}' (an Input with a count such as AtLeast(1))")
        elif listed.count.low < 1:
            out.append(f"list input '{c.inputs}' must hold at least one tensor (AtLeast(1) or more)")
        if len(op.inputs) != 1:
            out.append(f"{c.kind} takes its list input and no other input")
        if isinstance(c, C.Join):
            if c.join not in ("concat", "stack"):
                out.append(f"Join takes 'concat' or 'stack', got {c.join!r}")
            need_arg(c.axis, (DataType.INT, DataType.LONG), False, "axis to join along")
        elif c.combine not in C.MERGE_COMBINES:
            out.append(f"Merge takes one of {', '.join(C.MERGE_COMBINES)}, got {c.combine!r}")
        elif c.combine == "max_index" and op.outputs and op.outputs[0].type is not DataType.LONG:
            out.append("Merge('max_index')'s output must be LONG")
        elif c.combine == "avg" and listed is not None and listed.type is not DataType.FLOATING_POINT:
            out.append(f"Merge('avg') divides: input '{c.inputs}' must be FLOATING_POINT")
        for _, k in op.all_constraints():
            if any(r.kind == "input" and r.name == c.inputs for r in E.param_refs(k.expr)):
                out.append(f"constraint '{k.message}' reads the list input '{c.inputs}', which constraints cannot")
    elif isinstance(c, C.TensorDot):
        for name in c.inputs:
            need_input(name)
        if len(op.inputs) != 2:
            out.append("a tensordot takes exactly its two inputs")
        for name in c.axes:
            need_arg(name, (DataType.INT, DataType.LONG), True, "axes to contract")
        for name in c.transposes:
            need_arg(name, (DataType.BOOLEAN,), False, "whether to reverse the axes")
        first = inputs.get(c.inputs[0])
        if first is not None and op.outputs and op.outputs[0].type is not first.type:
            out.append(f"the output has the type of {first.name} ({first.type.value})")
    elif isinstance(c, C.Parts):
        need_roles("Parts kind", c.part, C.PARTS_ROLES, c.params)
        source = inputs.get(c.source)
        listed = c.part == "meshgrid"
        if source is None:
            out.append(f"Parts needs an input '{c.source}' to cut from")
        elif source.count.is_single == listed:
            out.append(f"Parts('{c.part}') cuts from " + ("a list input (an Input with a count such as AtLeast(1))"
                                                         if listed else "a single input, not a list"))
        elif listed and source.count.low < 1:
            out.append(f"list input '{c.source}' must hold at least one tensor (AtLeast(1) or more)")
        if len(op.inputs) != 1:
            out.append("Parts takes the input it cuts from and no other input")
        target = next((o for o in op.outputs if o.name == c.outputs), None)
        if target is None:
            out.append(f"Parts needs an output '{c.outputs}' (an Output with count=AtLeast(0))")
        elif target.count.is_single or target.count.low != 0 or target.count.high is not None:
            out.append(f"output '{c.outputs}' must be a list of count AtLeast(0): the inputs say how many tensors it holds")
        elif source is not None and target.type is not source.type:
            out.append(f"output '{c.outputs}' has the type of {c.source} ({source.type.value}): bytes move, none is computed")
        for _, k in op.all_constraints():
            if listed and any(r.kind == "input" and r.name == c.source for r in E.param_refs(k.expr)):
                out.append(f"constraint '{k.message}' reads the list input '{c.source}', which constraints cannot")
    elif isinstance(c, C.FragmentKernel):
        need_input("x") if "x" in inputs else None
        if c.layout not in ("axis", "flat", "rows", "channels", "select", "dense", "shaped", *C.MATRIX_LAYOUTS):
            out.append(f"fragment layout must be one of axis, flat, rows, channels, select, dense, shaped, "
                       f"{', '.join(C.MATRIX_LAYOUTS)}, got {c.layout!r}")
        if c.layout == "axis":
            need_arg(c.axis, (DataType.INT, DataType.LONG), False, "axis of the fragment")
        elif c.layout == "select":
            if c.length is None or c.length not in c.args:
                out.append("a select fragment names the int arg of its rows' length: length=..., also in args")
            else:
                need_arg(c.length, (DataType.INT, DataType.LONG), False, "length of the outputs' rows")
        elif c.layout == "shaped":
            if len(c.shapes) != len(op.outputs):
                out.append(f"a shaped fragment gives each output its shape: shapes=... holds {len(c.shapes)}, "
                           f"for {len(op.outputs)} output(s)")
            for shape in c.shapes:
                if isinstance(shape, E.ParamRef) and shape.kind != "input":
                    out.append(f"an output takes the shape of an input, not of {shape.kind} '{shape.name}'")
            def is_size(node: Any) -> bool:
                """An integer expression of the inputs' sizes and int args."""
                if isinstance(node, E.Literal):
                    return isinstance(node.value, int) and not isinstance(node.value, bool)
                if isinstance(node, E.ParamRef):
                    return node.kind == "arg" and node.name in args and args[node.name].type in (
                        DataType.INT, DataType.LONG)
                if isinstance(node, E.SizeAt):
                    return node.input.kind == "input" and is_size(node.axis)
                return isinstance(node, E.Arith) and is_size(node.left) and is_size(node.right)

            if not all(is_size(size) for shape in c.shapes if not isinstance(shape, E.ParamRef) for size in shape):
                out.append("an output size must be an integer expression of the inputs' sizes and int args")
        elif c.matrix and len(op.outputs) != len(c.layouts):
            out.append(f"a {c.layout} fragment gives one output per layout: {len(c.layouts)} layout(s) "
                       f"(output_layouts=... for outputs after the first), {len(op.outputs)} output(s)")
        elif not c.matrix and len(op.outputs) != 1:
            out.append(f"a {c.layout} fragment has exactly one output")
        if c.layout == "dense" and len(op.inputs) < 2:
            out.append("a dense fragment takes rows and a matrix of weights (and vectors): 2 inputs or more")
        if c.widen != 1 and not (c.layout == "rows" and isinstance(c.widen, int) and c.widen > 1
                                 and len(op.inputs) == 1):
            out.append("widen (rows that many times as long) takes an int above 1, for a rows fragment of one input")
        if c.shared and not (c.matrix and all(n in inputs for n in c.shared)
                             and op.inputs and op.inputs[0].name not in c.shared):
            out.append("shared=... names inputs of a matrix fragment, after the first, that are one matrix for every batch")
        if c.shapes and c.layout != "shaped":
            out.append("shapes=... gives the outputs of a shaped fragment")
        if c.output_layouts and not (c.matrix and all(lay in C.MATRIX_LAYOUTS for lay in c.output_layouts)):
            out.append(f"output_layouts are matrix layouts ({', '.join(C.MATRIX_LAYOUTS)}) of a matrix fragment")
        if c.failure is not None and not (c.matrix or c.layout == "shaped"):
            out.append("only matrix and shaped fragments can fail (failure=...)")
        if c.workspace is not None:
            if not c.matrix:
                out.append("only matrix fragments take a workspace")
            if not isinstance(c.workspace, (E.Arith, E.SizeAt, E.Literal)) or any(
                    r.kind != "input" for r in E.param_refs(c.workspace)):
                out.append("workspace must be an integer expression of the inputs' sizes")
        for name in c.args:
            if _scalar_arg(op, name) is None:
                out.append(f"fragment arg '{name}' must be a single-valued arg")
        return [Problem(loc, ctx, m) for m in out] + fragment_problems(op, c)
    return [Problem(loc, ctx, m) for m in out]


def fragment_root(op: M.Op) -> tuple[Path, str]:
    """Fragment files live beside the file that declares the Fragment."""
    declared = Path((op.compute_location or op.location).file)
    return declared.parent, declared.parent.as_posix()


def fragment_problems(op: M.Op, c: Any) -> list[Problem]:
    from dsl import fragments

    root, shown = fragment_root(op)
    problems = []
    wanted = [(c.c_file, name) for _, name in c.c_fragments] + [(c.python_file, c.python_fragment)]
    for file, name in wanted:
        try:
            fragments.resolve(root, file, name, shown)
        except fragments.FragmentError as exc:
            problems.append(Problem(exc.location, op.qualified_name, exc.message))
    return problems
