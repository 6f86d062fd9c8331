"""Context-manager builders: the Python port of ND4J's ``OpBuilder.kt``.

Builders record calls on a stack (the DSL's only global mutable state) and
freeze into :mod:`dsl.model` objects when their ``with`` block ends. Problems
are collected, never raised one by one: under :func:`session` (what the loader
uses) they accumulate for the whole ops tree; outside it, the outermost
builder raises :class:`DefinitionErrors` with all of them when it ends.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from dsl import model as M
from dsl import validate
from dsl.expr import ParamRef
from dsl.model import NO_DEFAULT, Location, Problem
from dsl.recovery import Cascade, Unbound, guarded
from dsl.terms import ArgHandle, InputHandle, OutputHandle, ParamHandle, Term
from dsl.types import SINGLE, Count, DataType, DocScope, Language

_DSL_DIR = os.path.dirname(os.path.abspath(__file__))


class DefinitionErrors(Exception):
    """Raised outside a loader session when definitions have problems."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = sorted(set(problems), key=Problem.sort_key)
        super().__init__("\n".join(str(p) for p in self.problems))


def display_path(filename: str) -> str:
    """``filename`` relative to the working directory when below it."""
    path = os.path.abspath(filename)
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def caller_location() -> Location:
    """The first stack frame outside the dsl package: the builder call."""
    frame = sys._getframe(1)
    while frame is not None and os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == _DSL_DIR:
        frame = frame.f_back
    if frame is None:
        return Location("<unknown>", 0)
    return Location(display_path(frame.f_code.co_filename), frame.f_lineno)


# ---------------------------------------------------------------- the stack

_STACK: list["_Frame"] = []


class _Frame:
    kind = "frame"
    context = "?"

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def _push(self) -> None:
        _STACK.append(self)

    def _pop(self) -> None:
        # Tolerate a stack a failed import left behind: drop down to self.
        while _STACK and _STACK[-1] is not self:
            _STACK.pop()
        if _STACK:
            _STACK.pop()


def _as_tuple(value: Any) -> Any:
    """A list (of dtype names, of a formula's lines) as a tuple, as the frozen op holds it;
    anything else as given, for validation to report."""
    return tuple(value) if isinstance(value, list) else value


def _report(location: Location | None, context: str, message: str) -> None:
    problem = Problem(location, context, message)
    if not _STACK:
        raise DefinitionErrors([problem])
    if isinstance(_STACK[0], _Session) and _STACK[0].muted:
        return  # what a damaged block's validation finds follows from a problem already reported
    _STACK[0].problems.append(problem)


def _finish_root(frame: _Frame) -> None:
    """A builder that was outermost raises its problems when it ends."""
    if not _STACK and frame.problems:
        raise DefinitionErrors(frame.problems)


def _tag(exc: BaseException | None, context: str) -> None:
    """Remember the innermost definition an exception escaped from."""
    if exc is not None and not hasattr(exc, "opforge_context"):
        try:
            exc.opforge_context = context  # type: ignore[attr-defined]
        except AttributeError:
            pass


class _Session(_Frame):
    kind = "session"
    context = "ops"

    def __init__(self) -> None:
        super().__init__()
        self.namespaces: list[M.Namespace] = []
        #: Above 0 while a damaged block validates itself: its findings are not reported.
        self.muted = 0


class session:
    """Collects the namespaces and problems of everything defined inside it."""

    def __enter__(self) -> _Session:
        self.frame = _Session()
        self.frame._push()
        return self.frame

    def __exit__(self, *exc: Any) -> None:
        self.frame._pop()


def _top() -> _Frame | None:
    return _STACK[-1] if _STACK else None


def current_context() -> str | None:
    """The definition a statement runs in (``math.add``, ``math``), or None at file level."""
    top = _top()
    return None if top is None or isinstance(top, _Session) else top.context


def damage() -> None:
    """A statement of the innermost open op, mixin or config failed (and was reported): the
    block still ends and registers, but what its validation would find is not reported."""
    block = next((f for f in reversed(_STACK) if isinstance(f, _Block)), None)
    if block is not None:
        block.damaged = True


def _namespace_frame() -> "Namespace | None":
    return next((f for f in reversed(_STACK) if isinstance(f, Namespace)), None)


# ---------------------------------------------------------------- records


class _ParamRec:
    """A parameter as declared, with who declared it."""

    __slots__ = ("kind", "name", "type", "description", "count", "default", "possible_values",
                 "location", "origin", "handle")

    def __init__(self, **kw: Any) -> None:
        for k, v in kw.items():
            setattr(self, k, v)


class _SignatureRec:
    __slots__ = ("items", "doc", "location", "origin", "all_params", "with_output")

    def __init__(self, **kw: Any) -> None:
        for k, v in kw.items():
            setattr(self, k, v)


class ConfigRef:
    """What ``use_config`` returns: the config as a signature item, and its handles."""

    def __init__(self, config: "Config") -> None:
        self._config = config

    @property
    def name(self) -> str:
        return self._config.name

    def input(self, name: str) -> InputHandle:
        return self._config.input(name)

    def arg(self, name: str) -> ArgHandle:
        return self._config.arg(name)


# ---------------------------------------------------------------- blocks

_PROPERTIES = {
    "op": ("display_name", "display_path", "native_name", "abstract", "onnx", "unlike_onnx", "nnef", "unlike_nnef",
           "numpy", "unlike_numpy", "integers_through_float", "formula"),
    "mixin": ("display_path", "abstract"),
    "config": (),
}


class _Block(_Frame):
    """Shared body of Op, Mixin and Config: parameters, constraints, docs."""

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "_ready", False)  # properties are set inside ``with``
        super().__init__()
        self.name = name
        self.location = caller_location()
        ns = _namespace_frame()
        self.namespace_name = ns.name if ns is not None else None
        self.params: list[_ParamRec] = []
        self.constraints: list[tuple[M.Constraint, tuple[ParamHandle, ...]]] = []
        self.signatures: list[_SignatureRec] = []
        self.docs: list[M.DocSection] = []
        self.configs: list[tuple["Config", Location]] = []
        self.mixins: list["Mixin"] = []
        self.props: dict[str, tuple[Any, Location]] = {}
        self.compute: tuple[Any, Location, _Block] | None = None  # (form, where, declared by)
        self.closed = False
        #: A statement inside failed (recovery.py); set by :func:`damage`.
        self.damaged = False

    # Op properties are plain attribute assignments: ``op.display_path = "/Math"``.
    def __setattr__(self, key: str, value: Any) -> None:
        if not self._ready or key in self.__dict__:
            object.__setattr__(self, key, value)
            return
        if isinstance(value, Unbound):
            raise Cascade(key)
        allowed = _PROPERTIES[self.kind]
        if key not in allowed:
            known = ", ".join(allowed) or "none"
            _report(caller_location(), self.context,
                    f"unknown {self.kind} property '{key}' (known: {known})")
            return
        self.props[key] = (value, caller_location())

    def __getattr__(self, key: str) -> Any:
        props = self.__dict__.get("props", {})
        if key in props:
            return props[key][0]
        raise AttributeError(key)

    def _parent_ok(self, top: _Frame | None) -> bool:
        return isinstance(top, Namespace)

    def __enter__(self) -> Any:
        top = _top()
        if not self._parent_ok(top):
            nested = top is not None and not isinstance(top, _Session)
            where = f"inside {top.kind} {top.context}" if nested else "outside a Namespace"
            _report(self.location, self.context, f"{type(self).__name__} cannot be defined {where}")
        self._push()
        object.__setattr__(self, "_ready", True)
        return self

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> bool:
        self._pop()
        self.closed = True
        if exc is not None:
            _tag(exc, self.context)
            return False
        session = _STACK[0] if _STACK and isinstance(_STACK[0], _Session) else None
        if self.damaged and session is not None:
            session.muted += 1
            try:
                self._finish()
            finally:
                session.muted -= 1
        else:
            self._finish()
        _finish_root(self)
        return False

    def _finish(self) -> None:
        pass

    # -- handles of this block's parameters (``mixin.input("x")``)
    def _handle(self, kind: str, name: str) -> Any:
        rec = next((p for p in self.params if p.kind == kind and p.name == name), None)
        if rec is None:
            have = ", ".join(p.name for p in self.params if p.kind == kind) or "none"
            raise LookupError(f"{self.context} has no {kind} '{name}' (has: {have})")
        return rec.handle

    def input(self, name: str) -> InputHandle:
        return self._handle("input", name)

    def arg(self, name: str) -> ArgHandle:
        return self._handle("arg", name)

    def output(self, name: str) -> OutputHandle:
        return self._handle("output", name)

    def config(self, name: str) -> ConfigRef:
        for cfg, _ in self.configs:
            if cfg.name == name:
                return ConfigRef(cfg)
        have = ", ".join(c.name for c, _ in self.configs) or "none"
        raise LookupError(f"{self.context} uses no config '{name}' (uses: {have})")

    # -- recording
    def _add_param(self, rec: _ParamRec) -> None:
        """Add, or replace a same-named parameter (last definition wins)."""
        for i, old in enumerate(self.params):
            if old.name != rec.name:
                continue
            if old is rec:
                return
            if old.origin is rec.origin or old.kind != rec.kind:
                what = f"{old.kind} at {old.location}" if old.kind != rec.kind else f"first defined at {old.location}"
                _report(rec.location, self.context, f"duplicate parameter '{rec.name}' ({what})")
                return
            self.params[i] = rec
            return
        self.params.append(rec)

    def _use_config(self, cfg: "Config", location: Location) -> None:
        self.damaged = self.damaged or cfg.damaged
        for i, (old, _) in enumerate(self.configs):
            if old is cfg:
                self.configs[i] = (cfg, location)
                return
        self.configs.append((cfg, location))

    def _apply_mixin(self, mixin: "Mixin", keep: dict[str, bool]) -> None:
        self.damaged = self.damaged or mixin.damaged
        if keep["keep_inputs"] or keep["keep_args"] or keep["keep_outputs"]:
            for rec in mixin.params:
                if keep[f"keep_{rec.kind}s"]:
                    self._add_param(rec)
        if keep["keep_configs"]:
            for cfg, loc in mixin.configs:
                self._use_config(cfg, loc)
        if keep["keep_constraints"]:
            self.constraints.extend(mixin.constraints)
        if keep["keep_signatures"]:
            self.signatures.extend(mixin.signatures)
        if keep["keep_doc"]:
            self.docs.extend(mixin.docs)
        for key, value in mixin.props.items():
            if key in _PROPERTIES[self.kind]:
                self.props[key] = value
        if mixin.compute is not None:
            self.compute = mixin.compute
        for m in (*mixin.mixins, mixin):
            if m not in self.mixins:
                self.mixins.append(m)

    # -- freezing
    def _scope(self) -> set[int]:
        """Ids of the blocks whose handles this block may reference."""
        return {id(self), *(id(m) for m in self.mixins), *(id(c) for c, _ in self.configs)}

    def _check_handles(self, handles: tuple[ParamHandle, ...], location: Location, what: str) -> bool:
        scope = self._scope()
        ok = True
        for h in handles:
            if id(h.owner) not in scope:
                _report(location, self.context,
                        f"{what} references {h.kind} '{h.name}' of {getattr(h.owner, 'context', 'another definition')}")
                ok = False
        return ok

    def _frozen_default(self, rec: _ParamRec) -> Any:
        default = rec.default
        if isinstance(default, Term):
            if not self._check_handles(default.handles, rec.location, f"default of {rec.kind} '{rec.name}'"):
                return NO_DEFAULT
            return default.node
        return default

    def _frozen_params(self) -> tuple[tuple[M.Input, ...], tuple[M.Arg, ...], tuple[M.Output, ...]]:
        inputs, args, outputs = [], [], []
        for rec in self.params:
            if rec.kind == "input":
                inputs.append(M.Input(rec.name, rec.type, rec.description, rec.count,
                                      self._frozen_default(rec), rec.location))
            elif rec.kind == "arg":
                args.append(M.Arg(rec.name, rec.type, rec.description, rec.count,
                                  self._frozen_default(rec), rec.possible_values, rec.location))
            else:
                outputs.append(M.Output(rec.name, rec.type, rec.description, rec.count, rec.location))
        return tuple(inputs), tuple(args), tuple(outputs)

    def _frozen_constraints(self) -> tuple[M.Constraint, ...]:
        return tuple(c for c, handles in self.constraints
                     if self._check_handles(handles, c.location, f"constraint '{c.message}'"))


class Mixin(_Block):
    """Shared definitions, applied in place by ``Op(name, mixin)`` or ``use_mixin``."""

    kind = "mixin"

    @guarded
    def __init__(self, name: str) -> None:
        super().__init__(name)

    def _parent_ok(self, top: _Frame | None) -> bool:
        return top is None or isinstance(top, (_Session, Namespace))

    @property
    def context(self) -> str:  # type: ignore[override]
        return f"mixin {self.name}"

    def _finish(self) -> None:
        if not validate.is_identifier(self.name):
            _report(self.location, self.context, f"mixin name '{self.name}' is not an identifier")


class Config(_Block):
    """A namespace-level holder of inputs and args, used by ops via ``use_config``."""

    kind = "config"

    @guarded
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.result: M.Config | None = None
        self.used = False

    @property
    def context(self) -> str:  # type: ignore[override]
        return f"{self.namespace_name}.{self.name}" if self.namespace_name else self.name

    def _finish(self) -> None:
        inputs, args, outputs = self._frozen_params()
        self.result = M.Config(
            namespace=self.namespace_name or "",
            name=self.name,
            inputs=inputs,
            args=args,
            constraints=self._frozen_constraints(),
            docs=tuple(self.docs),
            location=self.location,
        )
        for problem in validate.config_problems(self.result):
            _report(problem.location, problem.context, problem.message)
        ns = _namespace_frame()
        if ns is not None:
            ns.configs.append(self)


_KEEP_DEFAULTS = dict(keep_inputs=True, keep_args=True, keep_configs=True, keep_outputs=True,
                      keep_signatures=True, keep_doc=True, keep_constraints=True)


class Op(_Block):
    """An op of the enclosing namespace: ``with Op("add", mixin) as op: ...``."""

    kind = "op"

    @guarded
    def __init__(self, name: str, mixin: "Mixin | None" = None, *, keep_inputs: bool = True,
                 keep_args: bool = True, keep_configs: bool = True, keep_outputs: bool = True,
                 keep_signatures: bool = True, keep_doc: bool = True,
                 keep_constraints: bool = True) -> None:
        super().__init__(name)
        self._initial_mixin = mixin
        self._keep = dict(keep_inputs=keep_inputs, keep_args=keep_args, keep_configs=keep_configs,
                          keep_outputs=keep_outputs, keep_signatures=keep_signatures,
                          keep_doc=keep_doc, keep_constraints=keep_constraints)
        self.result: M.Op | None = None

    @property
    def context(self) -> str:  # type: ignore[override]
        return f"{self.namespace_name}.{self.name}" if self.namespace_name else self.name

    def __enter__(self) -> "Op":
        super().__enter__()
        if self._initial_mixin is not None:
            _use_mixin_in(self, self._initial_mixin, self._keep, self.location)
        return self

    def _finish(self) -> None:
        inputs, args, outputs = self._frozen_params()
        configs = []
        for cfg, loc in self.configs:
            if cfg.result is None:
                continue
            if cfg.namespace_name != self.namespace_name:
                _report(loc, self.context,
                        f"uses config {cfg.context} of another namespace")
            cfg.used = True
            configs.append(cfg.result)
        signatures = self._frozen_signatures(inputs, args, outputs, tuple(configs))
        props = {k: v for k, (v, _) in self.props.items()}
        self.result = M.Op(
            namespace=self.namespace_name or "",
            name=self.name,
            inputs=inputs,
            args=args,
            outputs=outputs,
            configs=tuple(configs),
            constraints=self._frozen_constraints(),
            signatures=signatures,
            docs=tuple(self.docs),
            mixins=tuple(m.name for m in self.mixins),
            display_name=props.get("display_name", self.name),
            display_path=props.get("display_path", f"/{self.namespace_name or ''}"),
            native_name=props.get("native_name", self.name),
            abstract=props.get("abstract", False),
            onnx=props.get("onnx"),
            unlike_onnx=props.get("unlike_onnx"),
            nnef=props.get("nnef"),
            unlike_nnef=props.get("unlike_nnef"),
            numpy=props.get("numpy"),
            unlike_numpy=props.get("unlike_numpy"),
            integers_through_float=_as_tuple(props.get("integers_through_float", ())),
            formula=_as_tuple(props.get("formula")),
            location=self.location,
            compute=self.compute[0] if self.compute else None,
            compute_location=self.compute[1] if self.compute else None,
        )
        prop_locations = {k: loc for k, (_, loc) in self.props.items()}
        for problem in validate.op_problems(self.result, prop_locations):
            _report(problem.location, problem.context, problem.message)
        ns = _namespace_frame()
        if ns is not None:
            ns.ops.append(self)

    def _frozen_signatures(self, inputs: tuple[M.Input, ...], args: tuple[M.Arg, ...],
                           outputs: tuple[M.Output, ...],
                           configs: tuple[M.Config, ...]) -> tuple[M.Signature, ...]:
        def shorthand(defaults: bool, with_output: bool, location: Location | None,
                      doc: str | None = None) -> M.Signature:
            return shorthand_signature(inputs, args, outputs, configs, defaults, with_output, location, doc)

        result: list[M.Signature] = []
        for rec in self.signatures:
            if rec.all_params is not None:
                result.append(shorthand(rec.all_params == "defaults", rec.with_output, rec.location, rec.doc))
                continue
            refs = []
            for item in rec.items:
                # Foreign items are reported here and left out, so that the
                # signature checks do not report them a second time.
                if isinstance(item, ConfigRef):
                    if id(item._config) not in self._scope():
                        _report(rec.location, self.context,
                                f"signature names config '{item.name}', which {self.context} does not use")
                    else:
                        refs.append(ParamRef("config", item.name))
                elif isinstance(item, ParamHandle):
                    if self._check_handles((item,), rec.location, "signature"):
                        refs.append(item.node)
                else:
                    _report(rec.location, self.context,
                            f"signature item {item!r} is not a parameter or config reference")
            result.append(M.Signature(tuple(refs), rec.doc, rec.location))
        if not self.signatures:
            return implicit_signatures(inputs, args, outputs, configs)
        return _unique(result)


def shorthand_signature(inputs: tuple[M.Input, ...], args: tuple[M.Arg, ...], outputs: tuple[M.Output, ...],
                        configs: tuple[M.Config, ...], defaults: bool, with_output: bool,
                        location: Location | None = None, doc: str | None = None) -> M.Signature:
    """``Signature(all_params=...)``: every input and arg (``defaults``: those without a default),
    then the outputs if ``with_output``, then the configs (``defaults``: the required ones)."""
    params = [ParamRef(p.kind, p.name) for p in (*inputs, *args) if not (defaults and p.has_default)]
    if with_output:
        params += [ParamRef("output", o.name) for o in outputs]
    params += [ParamRef("config", c.name) for c in configs if not defaults or validate.config_required(c)]
    return M.Signature(tuple(params), doc, location)


def implicit_signatures(inputs: tuple[M.Input, ...], args: tuple[M.Arg, ...], outputs: tuple[M.Output, ...],
                        configs: tuple[M.Config, ...] = ()) -> tuple[M.Signature, ...]:
    """The signatures of an op that declares none: all its parameters, then those without a
    default (once, where they are the same)."""
    return _unique([shorthand_signature(inputs, args, outputs, configs, defaults, True)
                    for defaults in (False, True)])


def _unique(signatures: list[M.Signature]) -> tuple[M.Signature, ...]:
    """The signatures with each implicit one (no location) that repeats another's params left out."""
    unique: list[M.Signature] = []
    for s in signatures:
        if s.location is None and any(u.params == s.params for u in unique):
            continue
        unique.append(s)
    return tuple(unique)


class Namespace(_Frame):
    """The top-level container: ``with Namespace("math"): ...``."""

    kind = "namespace"

    @guarded
    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.location = caller_location()
        self.ops: list[Op] = []
        self.configs: list[Config] = []
        self.aliases: list[M.Alias] = []
        self.result: M.Namespace | None = None

    @property
    def context(self) -> str:  # type: ignore[override]
        return self.name

    def __enter__(self) -> "Namespace":
        top = _top()
        if top is not None and not isinstance(top, _Session):
            _report(self.location, self.name, f"Namespace cannot be defined inside {top.kind} {top.context}")
        self._push()
        return self

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> bool:
        self._pop()
        if exc is not None:
            _tag(exc, self.context)
            return False
        for cfg in self.configs:
            if not cfg.used:
                _report(cfg.location, cfg.context, f"config '{cfg.name}' is not used by any op")
        self.result = M.Namespace(
            name=self.name,
            ops=tuple(o.result for o in self.ops if o.result is not None),
            configs=tuple(c.result for c in self.configs if c.result is not None),
            aliases=tuple(self.aliases),
            location=self.location,
        )
        for problem in validate.namespace_problems(self.result):
            _report(problem.location, problem.context, problem.message)
        top = _top()
        if isinstance(top, _Session):
            top.namespaces.append(self.result)
        _finish_root(self)
        return False


# ---------------------------------------------------------------- calls


def _block(what: str, kinds: tuple[str, ...]) -> _Block | None:
    """The block a builder call goes into, or None (problem reported)."""
    top = _top()
    if isinstance(top, _Block) and top.kind in kinds:
        return top
    where = {"op": "an Op", "mixin": "a Mixin", "config": "a Config"}
    allowed = " or ".join(where[k] for k in kinds)
    context = top.context if top is not None else "ops"
    _report(caller_location(), context, f"{what} must be called inside {allowed}")
    return None


def _param(kind: str, handle_cls: type, kinds: tuple[str, ...], type_: Any, name: str,
           description: str, count: Count, default: Any, possible_values: Any) -> Any:
    block = _block(f"{kind.capitalize()} '{name}'", kinds)
    config = block.name if block is not None and block.kind == "config" else None
    handle = handle_cls(block, kind, name, config)
    if block is None:
        return handle
    rec = _ParamRec(kind=kind, name=name, type=type_, description=description, count=count,
                    default=default, possible_values=possible_values, location=caller_location(),
                    origin=block, handle=handle)
    block._add_param(rec)
    return handle


@guarded
def Input(type: DataType, name: str, *, description: str = "", count: Count = SINGLE,
          default: Any = NO_DEFAULT) -> InputHandle:
    """A tensor input. ``default`` may be another input of the same type, or
    ``None`` for an optional input."""
    return _param("input", InputHandle, ("op", "mixin", "config"), type, name, description,
                  count, default, ())


@guarded
def Arg(type: DataType, name: str, *, description: str = "", count: Count = SINGLE,
        default: Any = NO_DEFAULT, possible_values: Any = ()) -> ArgHandle:
    """A non-tensor argument. ``possible_values`` lists the values of an ENUM."""
    values = tuple(possible_values) if isinstance(possible_values, (list, tuple)) else possible_values
    if isinstance(default, list):
        default = tuple(default)
    return _param("arg", ArgHandle, ("op", "mixin", "config"), type, name, description,
                  count, default, values)


@guarded
def Output(type: DataType, name: str, *, description: str = "", count: Count = SINGLE) -> OutputHandle:
    return _param("output", OutputHandle, ("op", "mixin"), type, name, description, count,
                  NO_DEFAULT, ())


@guarded
def Doc(language: Language, scope: DocScope, text: str) -> None:
    """Documentation; several Docs add up. Text is dedented like Kotlin's trimIndent."""
    block = _block("Doc", ("op", "mixin", "config"))
    if block is not None:
        block.docs.append(M.DocSection(language, scope, validate.trim_indent(text)
                                       if isinstance(text, str) else text, caller_location()))


def _constraint(message: str, condition: Any, backend: bool) -> None:
    block = _block("BackendConstraint" if backend else "Constraint", ("op", "mixin", "config"))
    if block is None:
        return
    location = caller_location()
    if not isinstance(condition, Term):
        _report(location, block.context,
                f"constraint '{message}' is not a condition: got {condition!r}")
        return
    block.constraints.append((M.Constraint(message, condition.node, backend, location), condition.handles))


@guarded
def Constraint(message: str, condition: Any) -> None:
    """A condition checked by every target; ``message`` is its error text."""
    _constraint(message, condition, False)


@guarded
def BackendConstraint(message: str, condition: Any) -> None:
    """A condition the backend enforces; targets only document it."""
    _constraint(message, condition, True)


@guarded
def Signature(*params: Any, doc: str | None = None) -> None:
    block = _block("Signature", ("op", "mixin"))
    if block is not None:
        block.signatures.append(_SignatureRec(items=params, doc=doc, location=caller_location(),
                                              origin=block, all_params=None, with_output=False))


@guarded
def AllParamSignature(with_output: bool = True, *, doc: str | None = None) -> None:
    """Shorthand for a signature of all parameters (configs last)."""
    block = _block("AllParamSignature", ("op", "mixin"))
    if block is not None:
        block.signatures.append(_SignatureRec(items=(), doc=doc, location=caller_location(),
                                              origin=block, all_params="all", with_output=with_output))


@guarded
def AllDefaultParamSignature(with_output: bool = True, *, doc: str | None = None) -> None:
    """Shorthand for a signature of the parameters without defaults."""
    block = _block("AllDefaultParamSignature", ("op", "mixin"))
    if block is not None:
        block.signatures.append(_SignatureRec(items=(), doc=doc, location=caller_location(),
                                              origin=block, all_params="defaults",
                                              with_output=with_output))


def _use_mixin_in(block: _Block, mixin: Any, keep: dict[str, bool], location: Location) -> None:
    if not isinstance(mixin, Mixin):
        _report(location, block.context, f"use_mixin needs a Mixin, got {mixin!r}")
    elif not mixin.closed:
        _report(location, block.context, f"mixin {mixin.name} cannot be used inside its own definition")
    else:
        block._apply_mixin(mixin, keep)


@guarded
def use_mixin(mixin: Mixin, keep_inputs: bool = True, keep_args: bool = True,
              keep_configs: bool = True, keep_outputs: bool = True, keep_signatures: bool = True,
              keep_doc: bool = True, keep_constraints: bool = True) -> None:
    """Apply ``mixin`` here, as if its body were written at this point."""
    block = _block("use_mixin", ("op", "mixin"))
    if block is not None:
        keep = dict(keep_inputs=keep_inputs, keep_args=keep_args, keep_configs=keep_configs,
                    keep_outputs=keep_outputs, keep_signatures=keep_signatures,
                    keep_doc=keep_doc, keep_constraints=keep_constraints)
        _use_mixin_in(block, mixin, keep, caller_location())


@guarded
def use_config(config: Config) -> ConfigRef:
    """Make the op take ``config``; the returned reference can go in a Signature."""
    if not isinstance(config, Config):
        raise TypeError(f"use_config needs a Config, got {config!r}")
    block = _block("use_config", ("op", "mixin"))
    if block is not None:
        block._use_config(config, caller_location())
    return ConfigRef(config)


@guarded
def Alias(namespace: Any, op: str, *, name: str | None = None) -> None:
    """Give ``namespace.op`` a second name in the enclosing namespace."""
    location = caller_location()
    top = _top()
    if not isinstance(top, Namespace):
        _report(location, top.context if top is not None else "ops", "Alias must be called inside a Namespace")
        return
    if isinstance(namespace, (Namespace, M.Namespace)):
        target = namespace.name
    elif isinstance(namespace, str):
        target = namespace
    else:
        _report(location, top.name, f"Alias needs a namespace or its name, got {namespace!r}")
        return
    top.aliases.append(M.Alias(top.name, name if name is not None else op, target, op, location))


def unwind(session_frame: _Session) -> None:
    """Close the builders a failed import left open above ``session_frame``."""
    while _STACK and _STACK[-1] is not session_frame:
        _STACK.pop()
