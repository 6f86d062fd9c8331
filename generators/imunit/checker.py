"""``unit-check``: a unit evaluated as DEEPCRAFT Studio evaluates it when it is
placed in a graph, without Studio.

For each ``.imunit`` file: the options take their defaults, the input sockets the
tensors given (``NAME=TYPE[d0,d1,...]``, dimensions as the UI shows them) or
``DEFAULT_INPUT``; Expressions, output sockets (type, shape, rate, shift, scale,
offset) and Handles are evaluated by name, on demand, as the tool does; the
Asserts decide; then in every lifecycle section the first C implementation whose
Conditionals hold is resolved: its fragment and every fragment it depends on
(same file, relative path), and its call against the C function's parameters. A
``<Compound>`` is evaluated node by node along its connections, each unit node
through the unit it names. Only the documented expression language is accepted
(``evaluate(strict=True)``).
"""

from __future__ import annotations

import functools
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import attrs

from dsl import fragments
from generators.imunit.expression import (VALUE_TYPES, Call, ExpressionError, ExternalCall, Name, Shape,
                                          Tensor, evaluate, interpolate, parse)

#: An input socket no ``--input`` names: rank 3 with distinct power-of-two sizes, so
#: axis options, FFTs and windows all have something to work on; 100 Hz.
DEFAULT_INPUT = Tensor(VALUE_TYPES["Float32"], Shape((4, 8, 16)), rate_=100.0)

#: The sections that hold implementations, in the order the tool runs them.
SECTIONS = ("Init", "Implementations", "Enqueue", "Dequeue", "CanEnqueue", "CanDequeue", "SoftReset", "Destructor")


class Refused(Exception):
    """An Assert failed, or no implementation applies: the unit refuses these inputs."""


class Unresolved(Exception):
    """A fragment, dependency or call that does not resolve."""


@attrs.frozen
class Verdict:
    path: Path
    kind: str  # "ok", "refused" or "error"
    text: str

    def line(self) -> str:
        return f"{self.path}: {self.kind}{' ' if self.kind == 'ok' else ': '}{self.text}"


#: A fixed-point tensor's attributes (guide 11.3, 11.4), as an input spec gives them.
_ATTRIBUTES = {"shift": int, "scale": float, "offset": int}


def parse_input(spec: str) -> tuple[str, Tensor | None]:
    """``NAME=TYPE[d0,d1,...]`` (``x=Int8[3,4]``; ``TYPE`` as after ``System.``), then any of
    a fixed-point tensor's attributes (``x=Q15[8] shift=2``, ``x=D8[8] scale=0.05 offset=-3``),
    or ``NAME=null``: an optional input left unconnected."""
    if re.fullmatch(r"\s*\w+\s*=\s*null\s*", spec):
        return spec.split("=")[0].strip(), None
    m = re.fullmatch(r"\s*(\w+)\s*=\s*(\w+)\s*\[([\d\s,]*)\]((?:\s+\w+=\S+)*)\s*", spec)
    if m is None:
        raise ValueError(f"--input {spec!r}: expected NAME=TYPE[d0,d1,...] [shift=S | scale=S offset=O], "
                         "e.g. x=Float32[3,4]")
    name, type_name, dims, given = m.groups()
    if type_name not in VALUE_TYPES:
        raise ValueError(f"--input {spec!r}: unknown type {type_name!r} (known: {', '.join(VALUE_TYPES)})")
    attributes: dict[str, Any] = {}
    for item in given.split():
        key, _, value = item.partition("=")
        if key not in _ATTRIBUTES:
            raise ValueError(f"--input {spec!r}: unknown attribute {key!r} (known: {', '.join(_ATTRIBUTES)})")
        try:
            attributes[f"{key}_"] = _ATTRIBUTES[key](value)
        except ValueError:
            raise ValueError(f"--input {spec!r}: {key} must be {_ATTRIBUTES[key].__name__}, got {value!r}") from None
    shape = tuple(int(d) for d in dims.split(",") if d.strip())
    return name, Tensor(VALUE_TYPES[type_name], Shape(shape), rate_=DEFAULT_INPUT.rate_, **attributes)


def parse_option(spec: str) -> tuple[str, Any]:
    """``NAME=VALUE``, the value an expression (``axis=2``, ``mode='same'``, ``shape=System.Shape(3,4)``)."""
    name, sep, value = spec.partition("=")
    if not sep or not name.strip().isidentifier():
        raise ValueError(f"--option {spec!r}: expected NAME=VALUE")
    try:
        return name.strip(), evaluate(value, {}, strict=True)
    except ExpressionError as exc:
        raise ValueError(f"--option {spec!r}: {exc}") from None


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Tensor):
        extra = [f"{k}={v:g}" for k, v, default in (("rate", value.rate_, 0.0), ("shift", value.shift_, 0),
                                                   ("scale", value.scale_, 1.0), ("offset", value.offset_, 0))
                 if v != default]
        return f"{value.type_.name}{value.shape_}" + (f" ({', '.join(extra)})" if extra else "")
    return "null" if value is None else str(value)


class _Scope(Mapping[str, Any]):
    """A unit's parameters by name, each evaluated when first asked for (the tool
    evaluates in dependency order, not document order)."""

    def __init__(self, definitions: dict[str, Any]) -> None:
        self._definitions = definitions  # name -> a value, or a thunk (callable)
        self._values: dict[str, Any] = {}
        self._busy: list[str] = []

    def __getitem__(self, name: str) -> Any:
        if name in self._values:
            return self._values[name]
        if name not in self._definitions:
            raise KeyError(name)
        if name in self._busy:
            raise ExpressionError(f"{' -> '.join(self._busy[self._busy.index(name):] + [name])}: a cycle")
        definition = self._definitions[name]
        self._busy.append(name)
        try:
            value = definition(self) if callable(definition) else definition
        finally:
            self._busy.pop()
        self._values[name] = value
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self._definitions)

    def __len__(self) -> int:
        return len(self._definitions)


def _expression(text: str, what: str) -> Any:
    def thunk(scope: _Scope) -> Any:
        try:
            return evaluate(text, scope, strict=True)
        except ExpressionError as exc:
            raise type(exc)(f"{what} {text!r}: {exc}") from None
    return thunk


def _conditional(element: ET.Element, thunk: Any, what: str) -> Any:
    condition = element.get("conditional")
    if condition is None:
        return thunk

    def guarded(scope: _Scope) -> Any:
        holds = _expression(condition, f"{what} conditional")(scope)
        if not isinstance(holds, bool):
            raise ExpressionError(f"{what} conditional {condition!r} is {_text(holds)}, not a bool")
        return thunk(scope) if holds else None
    return guarded


def option_value(element: ET.Element, given: Mapping[str, Any]) -> Any:
    """An option's value: given, else its default (else its first choice, else the type's zero)."""
    name = element.get("name", "")
    if name in given:
        return given[name]
    default = element.get("default", element.get("value"))
    first = element.find("OneOf/Item")
    if default is None and first is not None:  # a choice without a default: its first item
        default = (first.text or "").strip()
    kind = element.tag
    if default is None:  # "if not specified, 0 is assumed" (the custom-unit reference)
        default = {"StringOption": "", "ShapeOption": "[]", "BoolOption": "false", "BooleanOption": "false"}.get(kind,
                                                                                                             "0")
    try:
        if kind == "Int32Option":
            return int(float(default))
        if kind == "DoubleOption":
            return float(default)
        if kind in ("BoolOption", "BooleanOption"):  # BooleanOption: the seed format's name
            return default.strip().lower() == "true"
        if kind == "ShapeOption":
            return Shape(tuple(int(d) for d in re.findall(r"-?\d+", default)))
    except ValueError:
        raise ExpressionError(f"option {name}: default {default!r} is not a {kind[:-6].lower()}") from None
    return default


def _output(element: ET.Element, first_input: Any) -> Any:
    name = element.get("name", "")

    def attribute(scope: _Scope, key: str, fallback: Any) -> Any:
        text = element.get(key)
        return fallback if text is None else _expression(text, f"output {name} {key}")(scope)

    def thunk(scope: _Scope) -> Tensor:
        type_ = attribute(scope, "type", None)
        shape = attribute(scope, "shape", None)
        if not hasattr(type_, "kind"):
            raise ExpressionError(f"output {name}: type is {_text(type_)}, not a type")
        if not isinstance(shape, Shape):
            raise ExpressionError(f"output {name}: shape is {_text(shape)}, not a shape")
        source = first_input(scope)
        rate = attribute(scope, "rate", source.rate_ if source is not None else 0.0)
        return Tensor(type_, shape, rate_=float(rate), shift_=attribute(scope, "shift", 0),
                      scale_=attribute(scope, "scale", 1.0), offset_=attribute(scope, "offset", 0),
                      time_coded=element.get("timestamps") == "yes")
    return _conditional(element, thunk, f"output {name}")


def _handle(size: str, what: str) -> Any:
    """A Handle: the unit's state, a byte buffer of the size given."""
    def thunk(scope: _Scope) -> Tensor:
        count = _expression(size, what)(scope)
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise ExpressionError(f"{what} {size!r} is {_text(count)}, not a byte count")
        return Tensor(VALUE_TYPES["UInt8"], Shape((count,)))
    return thunk


def _definitions(parameters: ET.Element, inputs: Mapping[str, Tensor], options: Mapping[str, Any]) -> dict:
    definitions: dict[str, Any] = {}
    socket_names: list[str] = []

    def first_input(scope: _Scope) -> Any:
        return next((scope[n] for n in socket_names if scope[n] is not None), None)

    for element in parameters:
        if not isinstance(element.tag, str):
            continue
        name = element.get("name")
        if name is None:
            continue
        if element.tag == "InputSocket":
            socket_names.append(name)
            if inputs.get(name, DEFAULT_INPUT) is None and element.get("optional", "").lower() not in ("true", "yes") \
                    and element.get("timestamps") != "yes":
                raise Refused(f"input {name} must be connected (it is not optional)")
            definitions[name] = inputs.get(name, DEFAULT_INPUT)
        elif element.tag.endswith("Option"):
            definitions[name] = option_value(element, options)
        elif element.tag in ("Expression", "Hidden"):  # Hidden: the seed format's name
            value = element.get("value", (element.text or "").strip())  # the value attribute, or the text
            definitions[name] = _conditional(element, _expression(value, f"expression {name}"),
                                             f"expression {name}")
        elif element.tag == "OutputSocket":
            definitions[name] = _output(element, first_input)
        elif element.tag == "Handle":
            definitions[name] = _handle(element.get("size", "0"), f"handle {name} size")
        else:  # a ReturnSocket (a .NET factory fills it), a Stream, ...: nothing to evaluate
            definitions[name] = None
    return definitions


# ---------------------------------------------------------------- fragments

@functools.lru_cache(maxsize=256)
def _scan(path: Path, stamp: tuple[int, int]) -> fragments.FragmentFile:
    """A fragment file, scanned by the rules opforge's own fragments follow (``dsl.fragments``),
    cached per version of the file (files may change between checks)."""
    return fragments.scan(path, str(path))


def _fragment_file(path: Path) -> fragments.FragmentFile:
    stat = path.stat()
    try:
        return _scan(path, (stat.st_mtime_ns, stat.st_size))
    except fragments.FragmentError as exc:
        raise Unresolved(f"{exc.location.file}:{exc.location.line}: {exc.message}") from None


@attrs.frozen
class Fragment:
    """A fragment of a fragment file: where it is, its name and its text."""

    path: Path
    name: str
    text: str


@attrs.frozen
class Chosen:
    """The implementation a lifecycle section runs: its fragments, dependencies first,
    the function it calls with the values of the call's arguments, and the function's
    return type and parameters."""

    section: str
    language: str
    fragments: tuple[Fragment, ...]
    function: str
    arguments: tuple[Any, ...]
    returns: str
    parameters: tuple[str, ...]


def _find(folder: Path, reference: str) -> tuple[Path, fragments.Fragment]:
    """The file ``file:name`` (relative to ``folder``) names, and its fragment ``name``."""
    file_part, _, name = reference.rpartition(":")
    if not file_part:
        raise Unresolved(f"fragment {reference!r} names no file")
    if file_part.startswith("["):
        raise Unresolved(f"fragment {reference!r} is in another assembly's code package")
    path = (folder / file_part).resolve()
    if not path.is_file():
        raise Unresolved(f"fragment {reference!r}: no file {path}")
    found = next((f for f in _fragment_file(path).fragments if f.name == name), None)
    if found is None:
        raise Unresolved(f"fragment {reference!r}: {path.name} has no fragment {name!r}")
    return path, found


def _resolve(folder: Path, reference: str, seen: dict[tuple[Path, str], Fragment]) -> Fragment:
    """``file:name`` (relative to ``folder``) and, recursively, its dependencies, added to
    ``seen`` dependencies first."""
    path, found = _find(folder, reference)
    name = found.name
    fragment = Fragment(path, name, found.text)
    if (path, name) not in seen:
        seen[(path, name)] = fragment  # first: a dependency cycle ends here
        for dep_file, dep_name, _ in found.dependencies:  # (a short name is in the same file)
            _resolve(path.parent, f"{dep_file}:{dep_name}", seen)
        del seen[(path, name)]  # then after its dependencies
        seen[(path, name)] = fragment
    return fragment


def _signature(text: str, function: str) -> tuple[str, list[str]] | None:
    """The return type and parameters of ``function`` defined in a C fragment (None if it defines none)."""
    m = re.search(rf"([\w \t*]*?)\b{re.escape(function)}\s*\(([^()]*)\)\s*\{{", text)
    if m is None:
        return None
    params = [p.strip() for p in m.group(2).split(",") if p.strip()]
    returns = re.sub(r"\b(static|inline|extern)\b", "", m.group(1)).strip()
    return returns, [] if params == ["void"] else params


def _check_call(element: ET.Element, folder: Path, scope: _Scope, section: str, status: bool) -> Chosen:
    fragment, call = element.get("fragment", ""), element.get("call", "")
    seen: dict[tuple[Path, str], Fragment] = {}
    text = _resolve(folder, fragment, seen).text
    language = element.get("language", "")
    if language != "C":  # a Python fragment's function may have any name
        return Chosen(section, language, tuple(seen.values()), "", (), "", ())
    try:
        node = parse(call)
    except ExpressionError as exc:
        raise Unresolved(f"{section}: call {call!r}: {exc}") from None
    if not isinstance(node, Call):
        raise Unresolved(f"{section}: call {call!r} is not a function call")
    signature = _signature(text, node.name)
    if signature is None:
        raise Unresolved(f"{section}: fragment {fragment} defines no function {node.name}")
    returns, params = signature
    if status and returns == "void":
        raise Unresolved(f"{section} has returnStatus, but {node.name} returns void")
    if len(params) != len(node.args):
        raise Unresolved(f"{section}: {node.name} takes {len(params)} arguments, the call passes {len(node.args)}")
    values = []
    for param, arg in zip(params, node.args):
        value = evaluate(arg, scope, strict=True)
        pointer = "*" in param or "[" in param
        if isinstance(value, Tensor) and not pointer:
            raise Unresolved(f"{section}: {node.name}: a tensor passed for {param!r}")
        if isinstance(value, (int, float)) and pointer:
            raise Unresolved(f"{section}: {node.name}: a number passed for the pointer {param!r}")
        values.append(value)
    return Chosen(section, language, tuple(seen.values()), node.name, tuple(values), returns, tuple(params))


def _check_sections(unit: ET.Element, folder: Path, scope: _Scope) -> list[Chosen]:
    chosen_all = []
    for section in SECTIONS:
        holder = unit.find(section)
        if holder is None:
            continue
        factory = holder.find("Factory")
        if factory is not None:
            raise ExternalCall(f".NET factory {factory.get('class')}.{factory.get('call', '').split('(')[0]}")
        for language in ("C", "Python"):
            candidates = [i for i in holder.findall("Implementation") if i.get("language") == language]
            chosen = next((i for i in candidates if _holds(i, scope)), None)
            if chosen is not None:
                chosen_all.append(_check_call(chosen, folder, scope, section, holder.get("returnStatus") == "true"))
            elif candidates and language == "C" and section == "Implementations":
                raise Refused(f"no C implementation of {section} applies")
    return chosen_all


def _conditions(implementation: ET.Element) -> Iterator[tuple[str, str | None]]:
    """An implementation's Conditionals (their value, or their text); in the seed
    format also its ``conditional`` attribute and its TensorTypes, with the tensor whose
    type they test (the condition holds where that tensor is not connected)."""
    if implementation.get("conditional"):
        yield implementation.get("conditional", ""), None
    for conditional in implementation.findall("Conditional"):
        yield conditional.get("value", (conditional.text or "").strip()), None
    for typed in implementation.findall("TensorType"):
        if typed.get("type") is None:  # any type
            continue
        tensor = typed.get("tensor")
        # (an optional socket left unconnected has no type to match)
        yield f"{tensor}.type == System.{typed.get('type')}", tensor


def _holds(implementation: ET.Element, scope: _Scope) -> bool:
    for text, tensor in _conditions(implementation):
        if tensor is not None and scope.get(tensor, 0) is None:
            continue
        value = _expression(text, "conditional")(scope)
        if not isinstance(value, bool):
            raise ExpressionError(f"conditional {text!r} is {_text(value)}, not a bool")
        if not value:
            return False
    return True


# ---------------------------------------------------------------- units


def _asserts(unit: ET.Element, scope: _Scope) -> None:
    for check in unit.findall("Contracts/Assert"):
        test = check.get("test", "")
        holds = _expression(test, "assert")(scope)
        if not isinstance(holds, bool):
            raise ExpressionError(f"assert {test!r} is {_text(holds)}, not a bool")
        if not holds:
            raise Refused(interpolate(check.get("error", test), scope, strict=True))


def _evaluate_unit(unit: ET.Element, folder: Path, inputs: Mapping[str, Tensor], options: Mapping[str, Any],
                   chosen: list[Chosen] | None = None) -> dict[str, Any]:
    """The unit's output sockets, after its Asserts and implementations check out
    (the implementations chosen are added to ``chosen``)."""
    parameters = unit.find("Parameters")
    scope = _Scope(_definitions(parameters if parameters is not None else ET.Element("Parameters"), inputs, options))
    _asserts(unit, scope)
    for name in scope:  # every parameter evaluates, used or not, as in the tool
        scope[name]
    picked = _check_sections(unit, folder, scope)
    if chosen is not None:
        chosen += picked
    outputs = [e.get("name", "") for e in (parameters if parameters is not None else [])
               if e.tag in ("OutputSocket", "ReturnSocket")]
    return {name: scope[name] for name in outputs}


def implementations(path: Path, inputs: Mapping[str, Tensor] | None = None,
                    options: Mapping[str, Any] | None = None) -> list[Chosen]:
    """What each lifecycle section of a ``<Unit>`` (or the seed's Function or Queue) runs
    for these inputs; raises ``Refused``, ``ExpressionError`` or ``Unresolved`` as a check would."""
    unit = next(u for u in ET.parse(path).getroot() if isinstance(u.tag, str))
    chosen: list[Chosen] = []
    _evaluate_unit(unit, path.parent, inputs or {}, options or {}, chosen)
    return chosen


def chosen_calls(unit: ET.Element, inputs: Mapping[str, Tensor],
                 options: Mapping[str, Any]) -> dict[str, tuple[ET.Element, tuple[tuple[str, Any], ...]]]:
    """Per language, the Implementation of the Implementations section Studio picks for these
    inputs and options, and its call's arguments (each as written, and its value: a socket's
    Tensor, a number, a bool, a shape); raises ``Refused`` when an Assert fails. Unlike
    ``implementations``, it reads no fragment file: it works on a unit being generated."""
    parameters = unit.find("Parameters")
    scope = _Scope(_definitions(parameters if parameters is not None else ET.Element("Parameters"), inputs, options))
    _asserts(unit, scope)
    picked: dict[str, tuple[ET.Element, tuple[tuple[str, Any], ...]]] = {}
    for implementation in unit.findall("Implementations/Implementation"):
        language = implementation.get("language", "")
        if language in picked or not _holds(implementation, scope):
            continue
        node = parse(implementation.get("call", ""))
        if not isinstance(node, Call):
            raise Unresolved(f"call {implementation.get('call')!r} is not a function call")
        picked[language] = (implementation, tuple((_source(a), evaluate(a, scope, strict=True)) for a in node.args))
    return picked


def _source(node: Any) -> str:
    """A call argument as a name a test can declare (a bare name), or its expression's kind."""
    return node.name if isinstance(node, Name) else type(node).__name__.lower()


#: What a firmware's model file includes before any fragment: real fragments rely on it
#: (the library's Argmax uses int16_t and includes only <float.h>).
FIRMWARE_PREAMBLE = ("#include <stddef.h>", "#include <stdint.h>", "#include <stdbool.h>",
                     # the runtime's status codes (guide 9.1)
                     "#define IPWIN_RET_SUCCESS 0", "#define IPWIN_RET_NODATA -1", "#define IPWIN_RET_ERROR -2",
                     "#define IPWIN_RET_STREAMEND -3")

def entries(chosen: list[Chosen]) -> str:
    """One external C function per chosen C implementation, calling it with its own
    parameters: what makes a compiler keep (and a size measure count) what a firmware runs."""
    out = []
    for k, c in enumerate(c for c in chosen if c.language == "C"):
        names = [re.findall(r"(\w+)\s*(?:\[[^\]]*\])?\s*$", p)[-1] for p in c.parameters]
        call = f"{c.function}({', '.join(names)})"
        body = f"return (int){call};" if c.returns != "void" else f"{call};\n    return 0;"
        out.append(f"int unit_entry_{k}({', '.join(c.parameters) or 'void'});\n"
                   f"int unit_entry_{k}({', '.join(c.parameters) or 'void'})\n{{\n    {body}\n}}\n")
    return "\n".join(out)


def fragments_of(folder: Path, reference: str) -> list[Fragment]:
    """``file:name`` (relative to ``folder``, as an Implementation names it) and every
    fragment it depends on, dependencies first."""
    seen: dict[tuple[Path, str], Fragment] = {}
    _resolve(folder, reference, seen)
    return list(seen.values())


def tests_of(folder: Path, reference: str) -> list[tuple[Path, str]]:
    """The test fragments (file, name) associated with ``file:name`` (relative to ``folder``)
    by ``IMAGINET_FRAGMENT_TEST``."""
    path, found = _find(folder, reference)
    return [((path.parent / file).resolve(), test) for file, test, _ in found.tests]


def assemble(chosen: list[Chosen]) -> str:
    """One C file as Imaginet assembles a firmware of the C implementations chosen."""
    return assemble_fragments([f for c in chosen if c.language == "C" for f in c.fragments])


def assemble_fragments(fragment_list: list[Fragment], language: str = "C") -> str:
    """One file as Imaginet assembles a firmware (``language`` C) or a Python model: the
    include lines of every fragment file used, once each, then every fragment, dependencies
    first, once each."""
    chosen_fragments = {(f.path, f.name): f for f in fragment_list}
    includes: dict[str, None] = dict.fromkeys(FIRMWARE_PREAMBLE if language == "C" else ())
    for path in dict.fromkeys(f.path for f in chosen_fragments.values()):
        includes |= dict.fromkeys(_fragment_file(path).includes)
    label = "/* {} */" if language == "C" else "# {}"
    body = [f"{label.format(f'{f.path.name}: {f.name}')}\n{f.text.strip()}\n" for f in chosen_fragments.values()]
    return "\n".join([*includes, "", *body])


class Library:
    """The units that compounds name, found by their ``name`` under the roots given,
    else under the folders above the unit that names them (a library's namespaces
    sit two or three levels up: ``Imaginet.Units.Math/Multifold/Add``)."""

    LEVELS_UP = 3

    def __init__(self, roots: list[Path]) -> None:
        self._roots = roots
        self._near: dict[Path, dict[str, Path]] = {}

    def find(self, name: str, near: Path) -> Path | None:
        if name in self.units:
            return self.units[name]
        for folder in [near, *near.parents][:self.LEVELS_UP + 1]:
            if folder not in self._near:
                self._near[folder] = self._index([folder])
            if name in self._near[folder]:
                return self._near[folder][name]
        return None

    @functools.cached_property
    def units(self) -> dict[str, Path]:
        return self._index(self._roots)

    @staticmethod
    def _index(roots: list[Path]) -> dict[str, Path]:
        found: dict[str, Path] = {}
        for root in roots:
            for path in sorted(root.rglob("*.imunit")):
                try:
                    element = ET.parse(path).getroot()
                except ET.ParseError:
                    continue
                for unit in element:
                    if unit.get("name"):
                        found.setdefault(unit.get("name"), path)
                    if unit.get("unit"):
                        found.setdefault(unit.get("unit"), path)
        return found


def _library_unit(library: Library, name: str, near: Path) -> tuple[ET.Element, Path]:
    path = library.find(name, near)
    if path is None:
        raise Unresolved(f"no unit {name} found")
    return next(u for u in ET.parse(path).getroot() if name in (u.get("name"), u.get("unit"))), path


def _evaluate_composite(composite: ET.Element, folder: Path, inputs: Mapping[str, Tensor],
                        options: Mapping[str, Any], library: Library) -> dict[str, Any]:
    """The seed's ``<Composite>``: its own parameters and Asserts, then each stacked
    unit with its Arguments evaluated in the composite's scope; what a stacked unit
    gives for an Argument naming one of the composite's outputs must be what that
    output declares."""
    parameters = composite.find("Parameters")
    scope = _Scope(_definitions(parameters if parameters is not None else ET.Element("Parameters"), inputs, options))
    _asserts(composite, scope)
    produced: dict[str, Any] = {}
    outputs = [e.get("name", "") for e in (parameters if parameters is not None else []) if e.tag == "OutputSocket"]
    for stacked in composite.findall("Stacked/Unit"):
        name = stacked.get("id", "")
        unit, path = _library_unit(library, name, folder)
        sub_parameters = unit.find("Parameters")
        sub_outputs = {e.get("name") for e in (sub_parameters if sub_parameters is not None else [])
                       if e.tag == "OutputSocket"}
        given, results = {}, {}
        for argument in stacked.findall("Argument"):
            param, text = argument.get("param", ""), (argument.text or "").strip()
            if param in sub_outputs:
                results[param] = text
                continue
            given[param] = produced[text] if text in produced else _expression(text, f"{name} argument {param}")(scope)
        values = _evaluate_unit(unit, path.parent, {k: v for k, v in given.items() if isinstance(v, Tensor)},
                                {k: v for k, v in given.items() if not isinstance(v, Tensor)})
        for param, target in results.items():
            produced[target] = values[param]
    for name in outputs:
        declared = scope[name]
        if name not in produced:
            raise Unresolved(f"no stacked unit writes the output {name}")
        got = produced[name]
        if declared is not None and (got is None or (got.type_, got.shape_) != (declared.type_, declared.shape_)):
            raise Unresolved(f"output {name} is declared {_text(declared)}, its stacked unit gives {_text(got)}")
    return {name: scope[name] for name in outputs}


def _evaluate_compound(compound: ET.Element, path: Path, inputs: Mapping[str, Tensor],
                       options: Mapping[str, Any], library: Library) -> dict[str, Any]:
    nodes = {n.get("id", ""): n for n in compound.findall("Nodes/*")}
    feeds: dict[tuple[str, str], tuple[str, str]] = {}
    for c in compound.findall("Connections/Connection"):
        source, target = c.find("Source"), c.find("Target")
        if source is None or target is None:
            raise Unresolved("a connection without its source or target")
        feeds[(target.get("node", ""), target.get("param", ""))] = (source.get("node", ""), source.get("param", ""))
    values: dict[str, dict[str, Any]] = {}

    def fed(node_id: str, param: str) -> Any:
        if (node_id, param) not in feeds:
            raise Unresolved(f"node {node_id}: nothing connected to {param}")
        source, source_param = feeds[(node_id, param)]
        return outputs_of(source)[source_param]

    def outputs_of(node_id: str) -> dict[str, Any]:
        if node_id in values:
            return values[node_id]
        if node_id not in nodes:
            raise Unresolved(f"no node {node_id}")
        node = nodes[node_id]
        param = node.get("param", "")
        if node.tag == "TensorInputNode":
            result = {"value": inputs.get(param, DEFAULT_INPUT)}
        elif node.tag.endswith("OptionNode"):
            default = node.findtext("DefaultValue", "0").strip()
            result = {"value": options[param] if param in options else evaluate(default, {}, strict=True)}
        elif node.tag == "ExpressionNode":
            env = {i.get("param", ""): fed(node_id, i.get("param", "")) for i in node.iter("Input")}
            expression = node.find("Expression")
            assert expression is not None
            result = {expression.get("output", "output").lower(): evaluate((expression.text or "").strip(), env,
                                                                            strict=True)}
            result["output"] = next(iter(result.values()))
        elif node.tag == "UnitNode":
            unit, unit_path = _library_unit(library, node.get("unit", ""), path.parent)
            arguments = {a.get("param", ""): evaluate((a.text or "").strip(), {}, strict=True)
                         if a.tag != "ShapeArgument" else option_value(ET.Element("ShapeOption", default=a.text or ""), {})
                         for a in node if a.tag.endswith("Argument")}
            sub_inputs = {}
            for (target, target_param) in feeds:
                if target == node_id:
                    value = fed(node_id, target_param)
                    (sub_inputs if isinstance(value, Tensor) else arguments)[target_param] = value
            result = _evaluate_unit(unit, unit_path.parent, sub_inputs, arguments)
        elif node.tag == "TensorOutputNode":
            result = {"value": fed(node_id, "value")}
        elif node.tag == "AssertNode":
            env = {i.get("param", ""): fed(node_id, i.get("param", "")) for i in node.iter("Input")}
            for test in node.findall("Tests/Test"):  # a test that holds is the failure it names
                if evaluate(test.get("assert", "false"), env, strict=True):
                    raise Refused(interpolate(test.get("error", ""), env, strict=True))
            result = {}
        else:
            raise Unresolved(f"node {node_id}: unknown node type {node.tag}")
        values[node_id] = result
        return result

    for node_id, node in nodes.items():
        if node.get("enabled", "true") == "true":
            outputs_of(node_id)
    return {nodes[i].get("param", i): outputs_of(i)["value"] for i in nodes if nodes[i].tag == "TensorOutputNode"}


def outputs(path: Path, inputs: Mapping[str, Tensor] | None = None, options: Mapping[str, Any] | None = None,
            library: Library | None = None) -> dict[str, Any]:
    """A unit's output sockets for these inputs and options; raises ``Refused`` when it
    refuses them, ``ExpressionError`` or ``Unresolved`` for a problem of the unit."""
    unit = next(u for u in ET.parse(path).getroot() if isinstance(u.tag, str))
    inputs, options, library = inputs or {}, options or {}, library or Library([])
    if unit.tag == "Compound":
        return _evaluate_compound(unit, path, inputs, options, library)
    if unit.tag == "Composite":
        return _evaluate_composite(unit, path.parent, inputs, options, library)
    return _evaluate_unit(unit, path.parent, inputs, options)


def check_unit(path: Path, inputs: Mapping[str, Tensor] | None = None, options: Mapping[str, Any] | None = None,
               library: Library | None = None) -> Verdict:
    """One unit file's verdict."""
    inputs, options = inputs or {}, options or {}
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        return Verdict(path, "error", f"not well-formed XML: {exc}")
    units = [u for u in root if isinstance(u.tag, str)]
    if root.tag != "Imaginet" or len(units) != 1:
        return Verdict(path, "error", "expected one <Unit> or <Compound> in an <Imaginet> root")
    unit = units[0]
    if unit.tag not in ("Unit", "Compound", "Function", "Queue", "Composite"):  # the last three: the seed's
        return Verdict(path, "error", f"<{unit.tag}> is not a unit element (expected <Unit> or <Compound>, "
                                      "or the seed's <Function>, <Queue> or <Composite>)")
    try:
        given = outputs(path, inputs, options, library)
    except Refused as exc:
        return Verdict(path, "refused", str(exc))
    except ExternalCall as exc:
        return Verdict(path, "error", f"external: {exc}")
    except (ExpressionError, Unresolved) as exc:
        return Verdict(path, "error", str(exc))
    return Verdict(path, "ok", "; ".join(f"{n}: {_text(v)}" for n, v in given.items()) or "(no outputs)")


def unit_files(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for p in paths:
        files += sorted(p.rglob("*.imunit")) if p.is_dir() else [p]
    return files


def check(paths: list[Path], inputs: Mapping[str, Tensor] | None = None,
          options: Mapping[str, Any] | None = None) -> list[Verdict]:
    """Every unit under ``paths`` (files, or folders searched for ``*.imunit``)."""
    library = Library([p if p.is_dir() else p.parent for p in paths])
    return [check_unit(f, inputs, options, library) for f in unit_files(paths)]
