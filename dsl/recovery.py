"""Going on after a failed statement of an ops file, so that one run reports every problem.

Python stops a module at its first exception. The loader compiles each ops file
with :class:`Resilient`, which wraps every statement at module level (and inside
module-level ``with``, ``for``, ``while``, ``if`` and ``try`` blocks, so inside
every ``Namespace`` and ``Op``) in a handler: the problem is reported with its
line, the names the statement should have bound are bound to :class:`Unbound`,
and the next statement runs. Function bodies are left alone: a helper that fails
fails its caller's statement, once.

What follows from a failure is not reported again: using an :class:`Unbound`
value, or handing one to a builder, raises :class:`Cascade`, which the handler
drops; and the builder block a statement failed in is marked damaged, so its own
validation (which would only find what the failure left out) is skipped.
"""

from __future__ import annotations

import ast
import builtins
import difflib
import functools
import inspect
import re
from typing import Any, Callable, Iterable, TypeVar

#: Names the rewritten module uses (set in its globals by the loader).
RECOVER = "__opforge_recover__"
UNBOUND = "__opforge_unbound__"
_EXC = "__opforge_exc__"


class Cascade(Exception):
    """A consequence of a problem already reported: stops a statement, never reported."""


class DefinitionError(Exception):
    """A definition mistake a builder cannot go on from; its text is the problem's message."""


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest candidates, or nothing when none is close."""
    close = difflib.get_close_matches(word, sorted(set(candidates)), n=3, cutoff=0.6)
    if not close:
        return ""
    return " (did you mean " + " or ".join(repr(c) for c in close) + "?)"


class Unbound:
    """What a name holds when the statement that should have bound it failed."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "_name", name)

    def __repr__(self) -> str:
        return f"<{self._name}: not defined, its statement failed>"

    def _stop(self, *_: Any, **__: Any) -> Any:
        raise Cascade(self._name)

    __getattr__ = __call__ = __getitem__ = __iter__ = __bool__ = __len__ = _stop  # type: ignore[assignment]
    __setattr__ = __setitem__ = __enter__ = __exit__ = _stop  # type: ignore[assignment]
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _stop  # type: ignore[assignment]
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _stop
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _stop
    __pow__ = __rpow__ = __neg__ = __pos__ = __abs__ = __invert__ = _stop
    __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = __lshift__ = __rshift__ = _stop
    __hash__ = None  # type: ignore[assignment]


def _holds_unbound(value: Any, depth: int = 2) -> bool:
    if isinstance(value, Unbound):
        return True
    if depth and isinstance(value, (tuple, list)):
        return any(_holds_unbound(v, depth - 1) for v in value)
    if depth and isinstance(value, dict):
        return any(_holds_unbound(v, depth - 1) for v in value.values())
    return False


F = TypeVar("F", bound=Callable[..., Any])


def guarded(function: F) -> F:
    """A builder that stops (silently) when handed what a failed statement left undefined."""

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        if _holds_unbound(args) or _holds_unbound(kwargs):
            raise Cascade(function.__name__)
        return function(*args, **kwargs)

    return call  # type: ignore[return-value]


# ---------------------------------------------------------------- messages

_KEYWORD = re.compile(r"^(?P<fn>[\w.]+)\(\) got an unexpected keyword argument '(?P<kw>\w+)'$")
_IMPORT = re.compile(r"^cannot import name '(?P<name>\w+)' from '(?P<module>[\w.]+)'")


def _callable_named(qualified: str, scope: dict[str, Any]) -> Any:
    """``Input`` or ``Op.__init__`` (as Python names them in messages), looked up in ``scope``."""
    parts = qualified.split(".")
    value = scope.get(parts[0], getattr(builtins, parts[0], None))
    for part in parts[1:]:
        value = getattr(value, part, None)
    return value


def explain(exc: BaseException, scope: dict[str, Any]) -> str:
    """The problem's message for an exception an ops file raised, with a suggestion where
    one fits (``scope``: the module's globals, where its names come from)."""
    text = str(exc).splitlines()[0] if str(exc) else ""
    if isinstance(exc, DefinitionError):
        return text
    if isinstance(exc, NameError) and not isinstance(exc, UnboundLocalError) and exc.name:
        return f"unknown name '{exc.name}'" + did_you_mean(exc.name, [*scope, *dir(builtins)])
    if isinstance(exc, TypeError) and (m := _KEYWORD.match(text)) is not None:
        target = _callable_named(m["fn"], scope)
        try:
            names = [p for p in inspect.signature(target).parameters if p != "self"] if target else []
        except (TypeError, ValueError):
            names = []
        shown = m["fn"].removesuffix(".__init__")
        return f"{shown}() has no parameter '{m['kw']}'" + did_you_mean(m["kw"], names)
    if isinstance(exc, AttributeError) and "did you mean" in text:
        return text  # the DSL's own message (fn.<name>) already suggests
    if isinstance(exc, AttributeError) and exc.name and exc.obj is not None:
        owner = exc.obj.__name__ if isinstance(exc.obj, type) else type(exc.obj).__name__
        return f"{owner} has no attribute '{exc.name}'" + did_you_mean(exc.name, dir(exc.obj))
    if isinstance(exc, ImportError) and (m := _IMPORT.match(text)) is not None:
        import sys

        module = sys.modules.get(m["module"])
        return f"{m['module']} has no name '{m['name']}'" + did_you_mean(m["name"], dir(module) if module else ())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


# ---------------------------------------------------------------- the rewrite


def _bound_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for element in target.elts for n in _bound_names(element)]
    if isinstance(target, ast.Starred):
        return _bound_names(target.value)
    return []


def bound_by(statement: ast.stmt) -> list[str]:
    """The names ``statement`` binds in its scope (what stays undefined if it fails)."""
    if isinstance(statement, ast.Assign):
        return [n for t in statement.targets for n in _bound_names(t)]
    if isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
        return _bound_names(statement.target)
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [statement.name]
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in statement.names if a.name != "*"]
    if isinstance(statement, ast.With):
        return [n for item in statement.items if item.optional_vars is not None
                for n in _bound_names(item.optional_vars)]
    if isinstance(statement, ast.For):
        return _bound_names(statement.target)
    return []


class Resilient(ast.NodeTransformer):
    """Wraps each statement of a module's top-level blocks in a recovering handler."""

    _BLOCKS = (ast.With, ast.For, ast.While, ast.If, ast.Try)

    def visit_Module(self, node: ast.Module) -> ast.Module:
        node.body = self._body(node.body)
        return node

    def _body(self, statements: list[ast.stmt]) -> list[ast.stmt]:
        return [self._wrap(self._inner(s)) for s in statements]

    def _inner(self, statement: ast.stmt) -> ast.stmt:
        if isinstance(statement, self._BLOCKS):
            for field in ("body", "orelse", "finalbody"):
                if getattr(statement, field, None):
                    setattr(statement, field, self._body(getattr(statement, field)))
            for handler in getattr(statement, "handlers", ()):
                handler.body = self._body(handler.body)
        return statement

    @staticmethod
    def _wrap(statement: ast.stmt) -> ast.stmt:
        if isinstance(statement, (ast.Pass, ast.Expr)) and isinstance(getattr(statement, "value", None), ast.Constant):
            return statement  # a docstring or a constant cannot fail
        if isinstance(statement, (ast.Break, ast.Continue, ast.Return, ast.Global, ast.Nonlocal)):
            return statement
        handler: list[ast.stmt] = [ast.Expr(ast.Call(ast.Name(RECOVER, ast.Load()), [ast.Name(_EXC, ast.Load())], []))]
        handler += [ast.Assign([ast.Name(name, ast.Store())],
                               ast.Call(ast.Name(UNBOUND, ast.Load()), [ast.Constant(name)], []))
                    for name in dict.fromkeys(bound_by(statement))]
        wrapped = ast.Try(body=[statement],
                          handlers=[ast.ExceptHandler(ast.Name("BaseException", ast.Load()), _EXC, handler)],
                          orelse=[], finalbody=[])
        return ast.copy_location(wrapped, statement)


def compile_resilient(source: bytes | str, path: str) -> Any:
    """``source`` compiled with every top-level statement recovering (SyntaxError as usual)."""
    tree = ast.parse(source, filename=path)
    tree = ast.fix_missing_locations(Resilient().visit(tree))
    return compile(tree, path, "exec", dont_inherit=True)
