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
from dsl import fixed_point as F
from dsl import expr as E
from dsl import model as M
from dsl.counterparts import NNEF_OPERATIONS
from dsl.model import NO_DEFAULT, Location, Problem
from dsl.recovery import did_you_mean
from dsl.types import CONCRETE_DTYPES, FIXED_POINT_TYPES, TENSOR_TYPES, Count, DataType, DocScope, Language

#: An ONNX operator name, optionally with its domain (``com.microsoft.Gelu``).
ONNX_NAME = re.compile(r"(?:[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*\.)?[A-Z][A-Za-z0-9]*")
#: A NumPy function's name, optionally in a submodule (``fmod``, ``linalg.cholesky``).
NUMPY_NAME = re.compile(r"(?:[a-z]+\.)?[a-z_][a-z0-9_]*")


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

#: The values a DATA_TYPE arg may take: the plain dtypes and the fixed-point types (ADR 0068).
DTYPE_VALUES = (*CONCRETE_DTYPES, *F.TYPES)

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
        return isinstance(value, str) and value in DTYPE_VALUES
    return False


def _show(value: object) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    return repr(value)


def _expected(type_: DataType) -> str:
    if type_ is DataType.DATA_TYPE:
        return "one of " + ", ".join(DTYPE_VALUES)
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
    if op.numpy is not None and (m := numpy_name_problem(op.numpy)) is not None:
        problems.append(Problem(at("numpy"), ctx, m))
    if op.nnef is not None and (m := nnef_name_problem(op.nnef)) is not None:
        problems.append(Problem(at("nnef"), ctx, m))
    for field, standard in (("unlike_onnx", "onnx"), ("unlike_nnef", "nnef")):
        words, named = getattr(op, field), getattr(op, standard)
        if words is not None and not (isinstance(words, str) and words.strip()):
            problems.append(Problem(at(field), ctx, f"{field} must say how the op differs from its {standard} "
                                                    f"counterpart, got {words!r}"))
        elif words is not None and named is None:
            problems.append(Problem(at(field), ctx, f"{field} says how the op differs from an {standard} counterpart "
                                                    f"it does not name: set op.{standard} too"))
    if op.unlike_numpy is not None and not (isinstance(op.unlike_numpy, str) and op.unlike_numpy.strip()):
        problems.append(Problem(at("unlike_numpy"), ctx, f"unlike_numpy must say how the op differs from NumPy's "
                                                         f"function of its name, got {op.unlike_numpy!r}"))
    elif op.unlike_numpy is not None and op.numpy is not None:
        problems.append(Problem(at("unlike_numpy"), ctx, f"unlike_numpy contradicts numpy={op.numpy!r}: an op "
                                                         "computes what its NumPy function computes, or says how it "
                                                         "differs"))
    problems.extend(Problem(at("integers_through_float"), ctx, m) for m in _through_float_problems(op))
    lines = (op.formula,) if isinstance(op.formula, str) else op.formula
    if lines is not None and not (isinstance(lines, tuple) and lines
                                  and all(isinstance(x, str) and x.strip() for x in lines)):
        problems.append(Problem(at("formula"), ctx, "formula must be LaTeX: a string or a tuple of strings, "
                                                    f"none empty, got {op.formula!r}"))
    return problems


def _through_float_problems(op: M.Op) -> list[str]:
    """What is wrong with ``op.integers_through_float`` (ADR 0058): integer dtype names, on an op
    over floats whose form computes each element or reduction from its values."""
    from dsl import compute as C
    from dsl import dtypes as D
    from dsl.types import DataType

    given = op.integers_through_float
    if given == ():
        return []
    if not isinstance(given, tuple) or not all(isinstance(d, str) for d in given):
        return [f"integers_through_float must be a tuple of integer dtype names such as ('int8', 'uint8'), "
                f"got {given!r}"]
    out = [f"integers_through_float: {d!r} is not an integer dtype{did_you_mean(d, D.INTEGERS)}"
           for d in given if d not in D.INTEGERS]
    out += [f"integers_through_float names {d!r} twice" for d in sorted({d for d in given if given.count(d) > 1})]
    if D.primary_type(op) is not DataType.FLOATING_POINT:
        out.append("integers_through_float is for ops over floats (FLOATING_POINT tensors); this op's "
                   f"{D.primary_type(op).name} tensors take integers already")
    if op.compute is not None and not isinstance(op.compute, (C.Elementwise, C.Reduction)):
        out.append(f"integers_through_float is for elementwise and reduction forms, not {op.compute.kind}")
    return out


def numpy_owner(name: str) -> object | None:
    """The NumPy module a declared name (``"fmod"``, ``"linalg.cholesky"``) is looked up in:
    numpy, or numpy.linalg; None for any other."""
    import numpy  # (here: loading ops that declare no NumPy name needs none)

    module = name.rpartition(".")[0]
    return numpy.linalg if module == "linalg" else numpy if not module else None


def numpy_function(name: str) -> object | None:
    """The NumPy function a declared name names (``op.numpy``), or None."""
    owner = numpy_owner(name)
    found = getattr(owner, name.rpartition(".")[2], None) if owner is not None else None
    return found if callable(found) else None


def nnef_name_problem(name: object) -> str | None:
    """Why ``name`` is not one of NNEF's standard operations, or None."""
    if isinstance(name, str) and name in NNEF_OPERATIONS:
        return None
    return (f"nnef must name one of NNEF's standard operations such as 'add' or 'sum_reduce', got {name!r}"
            + (did_you_mean(name, NNEF_OPERATIONS) if isinstance(name, str) else ""))


def numpy_name_problem(name: object) -> str | None:
    """Why ``name`` is not a NumPy function (``"fmod"``, ``"linalg.cholesky"``), or None."""
    if not (isinstance(name, str) and NUMPY_NAME.fullmatch(name)):
        return f"numpy must name a NumPy function such as 'fmod' or 'linalg.cholesky', got {name!r}"
    module, _, function = name.rpartition(".")
    owner = numpy_owner(name)
    if owner is None:
        return f"numpy: {module!r} is not a NumPy module opforge knows (numpy or numpy.linalg), in {name!r}"
    if numpy_function(name) is None:
        public = [n for n in dir(owner) if not n.startswith("_") and callable(getattr(owner, n))]
        where = f"numpy.{module}" if module else "numpy"
        return f"numpy: {where} has no function {function!r}{did_you_mean(function, public)}"
    return None


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


def compute_problems(op: M.Op) -> list[Problem]:
    """Problems of what an op computes, at the line that declared it: what every form
    requires of its outputs and list parameters, then what the form itself says."""
    from dsl import compute as C
    from dsl.forms.checks import Check

    c = op.compute
    if c is None:
        return []
    loc = op.compute_location or op.location
    check = Check(op, c.kind)
    if isinstance(c, C.Reduction) and len(op.outputs) != len(c.finalizers):
        check.add(f"a reduction gives one output per finalizer: {len(c.finalizers)} finalizer(s), "
                  f"{len(op.outputs)} output(s)")
    elif len(op.outputs) != 1 and not isinstance(c, (C.FragmentKernel, C.Reduction, C.FindAll)):
        check.add(f"{c.kind} ops have exactly one output, {op.name} has {len(op.outputs)}")
    for i in op.inputs:
        if not i.count.is_single and C.list_input(c) != i.name:
            check.add(f"input '{i.name}' is a list (it has a count), which only Join, Merge and "
                      f"Parts('meshgrid') take")
    for o in op.outputs:
        if not o.count.is_single and C.list_output(c) != o.name:
            check.add(f"output '{o.name}' is a list (it has a count), which only Parts gives")
    fixed = [f"{t.name} ({t.type.value})" for t in (*op.inputs, *op.outputs) if t.type in FIXED_POINT_TYPES]
    if fixed and not isinstance(c, C.FixedPointConversion):  # (ADR 0068: the others derive theirs from plain types)
        check.add(f"{', '.join(fixed)}: only a conversion (Convert) takes or gives a fixed-point tensor; "
                  f"{c.kind} ops declare plain tensors and get their fixed-point kernels derived")
    c.problems(op, check)
    problems = [Problem(loc, op.qualified_name, m) for m in check.out]
    if isinstance(c, C.FragmentKernel):
        problems += fragment_problems(op, c)
    return problems


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
