"""Comparison tests per unit: what the Imaginet reference promises ("generate C and Python
comparison and unit tests to validate that the two implementations yield the same result").

The op's example (``generators.kernels.examples``: small inputs, the args that make it
interesting, the result the NumPy reference gives, the same the docs show) is passed to the
unit's C and to its Python implementation through the unit's own call strings, as Studio
would call them for those inputs: the options and Expressions are evaluated by the checker,
the Implementation is the one its Conditionals choose, the output buffers have the shapes
the unit declares. Each implementation is compared with the same expected arrays, so the two
agree with each other and with the reference.

The tests are test fragments in ``<op>_tests.c`` and ``<op>_tests.py``, associated with the
fragment they test by ``IMAGINET_FRAGMENT_TEST`` (the real library's ``cbuffer_tests.c``),
reporting one ``[PASSED]``/``[FAILED]`` line per check in the format of the library's
``iassert.h``; the checks themselves are ``opforge_tests.h``/``.py`` at the tree's root.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import attrs
import numpy as np

from dsl import compute as C
from dsl.model import Op
from dsl.types import DataType
from generators import abi
from generators.imunit import checker, units
from generators.imunit.expression import VALUE_TYPES, Shape, Tensor, evaluate
from generators.kernels import evaluate as reference, py_names
from generators.kernels.examples import Example
from generators.kernels.scalar_c import C_TYPE, c_array, c_value

#: A float output passes where |actual - expected| <= tolerance * (1 + |expected|), NaN where
#: NaN is expected (both checks, C's and Python's, say so); other types must be equal.
TOLERANCE = {"float32": 1e-5, "float64": 1e-10}
#: The root files holding the checks, and how a unit (``<ns>/<op>/``) names their fragment.
CHECKS_C, CHECKS_PY = "opforge_tests.h", "opforge_tests.py"
CHECKS = "opforge_expect"
#: A System type's NumPy dtype.
DTYPE_OF = {system.removeprefix("System."): dtype for dtype, system in units.VALUE_TYPE.items()}


# ------------------------------------------------------------ an op's values as a unit takes them


def socket_values(op: Op, kwargs: dict[str, Any]) -> dict[str, np.ndarray | None] | None:
    """Each input socket's array (None: unconnected), or None when a list has more tensors
    than the unit has sockets."""
    values: dict[str, np.ndarray | None] = {}
    for i in op.inputs:
        given = kwargs[py_names.py_name(i.name)]
        if i.count.is_single:
            values[i.name] = np.asarray(given)
            continue
        names = units.sockets(i)
        if len(given) > len(names):
            return None
        values |= {s: (np.asarray(given[k]) if k < len(given) else None) for k, s in enumerate(names)}
    return values


def axis_ranks(op: Op, env: dict[str, Any]) -> dict[str, int]:
    """The rank each axis option of the unit counts in, for the tensors in ``env``."""
    hidden, ranks = units.axis_hidden(op)
    scope = dict(env)
    for h in hidden:
        if not h.name.startswith("numpy_"):
            scope[h.name] = evaluate(h.value, scope)
    return {name: evaluate(rank, scope) for name, rank in ranks.items()}


def option_axis(numpy: int, rank: int) -> int:
    """A NumPy axis as a unit's axis option takes it (0 the innermost); one out of range
    stays out of range (rank: too large either way)."""
    if not -rank <= numpy < rank:
        return rank
    return rank - 1 - numpy % rank


def unit_env(op: Op, kwargs: dict[str, Any]) -> dict[str, Any] | None:
    """The unit's inputs and options for the op called with ``kwargs`` (inputs and args by
    Python name), or None where a unit cannot take the call (a list longer than its
    sockets, a reduction over several axes)."""
    env: dict[str, Any] = {}
    sockets = socket_values(op, kwargs)
    if sockets is None:
        return None
    for name, array in sockets.items():
        env[name] = None if array is None else Tensor(VALUE_TYPES[units.VALUE_TYPE[array.dtype.name][7:]],
                                                      Shape(array.shape))
    axes = units.reduction_axes_arg(op)
    axis_options = units.axis_options(op)
    ranks = axis_ranks(op, env)
    for a in op.args:
        value = reference.arg_value(op, kwargs, a.name)
        if a.name in axis_options:  # the unit counts from the innermost axis (Imaginet's convention)
            env[a.name] = option_axis(int(value), ranks[a.name])
            continue
        if units.value(op, a.name) != a.name:  # a computed default: given, or left to the unit
            given = py_names.py_name(a.name) in kwargs
            env[f"use_{a.name}"] = given
            if not given:  # what the option holds is not read: any value of its type
                value = [] if not a.count.is_single else "float64" if a.type is DataType.DATA_TYPE else 0
        if a.name == axes:
            if len(value) != 1:
                return None  # units reduce one axis
            env["axis"] = option_axis(int(value[0]), ranks["axis"])
        elif a.default is None and a.count.is_single:
            env[f"use_{a.name}"] = value is not None
            env[a.name] = value if value is not None else 0.0
        elif not a.count.is_single:
            env[a.name] = Shape(tuple(value))
        else:
            env[a.name] = value
    for cfg in op.configs:
        given = kwargs.get(py_names.config_param(cfg.name))
        for a in cfg.args:
            env[f"{cfg.name}_{a.name}"] = getattr(given, a.name) if given is not None else a.default
    return env


def wanted(op: Op, result: Any, legacy: bool = False) -> tuple[np.ndarray, ...]:
    """The reference's result, an array per output (per tensor of a list output), in the
    unit's element type: an index output's is ``units.INDEX_DTYPE`` (but in the seed's style)."""
    wants = tuple(np.asarray(w) for w in (result if isinstance(result, tuple) else (result,)))
    if units.index_output(op, legacy=legacy):
        if not np.array_equal(wants[0].astype(units.INDEX_DTYPE), wants[0]):
            raise ValueError(f"{op.qualified_name}: an index does not fit {units.INDEX_DTYPE}")
        wants = (wants[0].astype(units.INDEX_DTYPE), *wants[1:])
    return wants


def output_wants(op: Op, result: Any, legacy: bool = False) -> list[tuple[str, np.ndarray | None]]:
    """Each output socket with the array it should receive (``wanted``); None: a socket of a
    list output its tensors do not reach."""
    wants = wanted(op, result, legacy)
    if C.list_output(op.compute) is None:
        return [(o.name, want) for o, want in zip(op.outputs, wants, strict=True)]
    names = units.output_sockets(op.outputs[0])
    return [(name, wants[k] if k < len(wants) else None) for k, name in enumerate(names)]


# ------------------------------------------------------------ the test fragments


@attrs.frozen
class UnitTests:
    """A unit's comparison tests: per language the test file's text, the test's name and the
    fragment it tests (which carries the ``IMAGINET_FRAGMENT_TEST`` line)."""

    c_text: str
    c_fragment: str
    py_text: str
    py_fragment: str
    name: str


#: The name prefix of the buffer a test passes for an output, or for a scratch tensor.
_BUFFER = {"output": "got", "scratch": "scratch"}


@attrs.frozen
class CallValue:
    """A call argument: what it is (an input, an output, a scratch tensor or a value) and its data."""

    role: str
    name: str
    array: np.ndarray | None = attrs.field(default=None, eq=False)
    value: Any = None


def unit_tests(op: Op, unit_xml: str, example: Example | None, header: str, legacy: bool = False) -> UnitTests | None:
    """The comparison tests of the unit ``unit_xml`` of ``op`` on its example, or None where
    there is none: no example (a stream, a composed op), one the op refuses, or one the unit
    cannot take (its Asserts refuse it, or it reduces several axes)."""
    if example is None or example.result is None:
        return None
    kwargs = dict(example.inputs) | dict(example.args)
    env = unit_env(op, kwargs)
    if env is None:
        return None
    unit = next(u for u in ET.fromstring(unit_xml) if isinstance(u.tag, str))
    try:
        picked = checker.chosen_calls(unit, env, env)
    except checker.Refused:
        return None
    if set(picked) != {"C", "Python"}:
        raise ValueError(f"{op.qualified_name}: the example {example.dtype} has no C and Python implementation")
    sockets = socket_values(op, kwargs) or {}
    wants = dict(output_wants(op, example.result, legacy))
    name = f"{abi.function(op)}_test"

    def values(language: str) -> list[CallValue]:
        out = []
        for source, value in picked[language][1]:
            if source in sockets:
                out.append(CallValue("input", source, sockets[source]))
            elif source in wants:
                want = wants[source]
                if want is not None and (value is None or tuple(value.shape_.dims) != want.shape
                                         or DTYPE_OF[value.type_.name] != want.dtype.name):
                    raise ValueError(f"{op.qualified_name}: output {source} is declared {value}, the reference "
                                     f"gives {want.dtype.name}{list(want.shape)}")
                out.append(CallValue("output", source, want))
            elif isinstance(value, Tensor):
                out.append(CallValue("scratch", source, np.empty(value.shape_.dims, DTYPE_OF[value.type_.name])))
            else:
                out.append(CallValue("value", source, value=value))
        return out

    status = unit.find("Implementations").get("returnStatus") == "true"  # type: ignore[union-attr]
    c_impl, py_impl = picked["C"][0], picked["Python"][0]
    what = (f"{op.qualified_name} on its example ({example.dtype}), through the unit's call: the result the NumPy "
            "reference gives")
    c_text = c_test_file(header, op.qualified_name, name, what, c_impl, values("C"), status)
    py_text = py_test_file(header, op.qualified_name, name, what, py_impl, values("Python"))
    return UnitTests(c_text, c_impl.get("fragment", "").split(":")[1], py_text,
                     py_impl.get("fragment", "").split(":")[1], name)


def c_test_file(header: str, subject: str, name: str, what: str, impl: ET.Element, args: list[CallValue],
                status: bool) -> str:
    """The C test fragment ``name`` of the unit ``subject``: ``impl``'s call on ``args``, each output checked."""
    lines, passed, checks = [], [], []
    for a in args:
        if a.role == "value":
            if isinstance(a.value, (str, Shape)):
                raise ValueError(f"{subject}: the C call passes {a.name} = {a.value!r}")
            passed.append(str(int(a.value)) if isinstance(a.value, bool) else
                          str(a.value) if isinstance(a.value, int) else c_value(a.value, "float64"))
        elif a.array is None:  # an unconnected socket, or an output socket no tensor reaches
            passed.append("NULL")
        elif a.role == "input":
            lines.append(c_array(f"in_{a.name}", np.ascontiguousarray(a.array), a.array.dtype.name))
            passed.append(f"in_{a.name}")
        else:
            dtype = a.array.dtype.name
            buffer = f"{_BUFFER[a.role]}_{a.name}"
            lines.append(f"static {C_TYPE[dtype]} {buffer}[{max(1, a.array.size)}];")
            passed.append(buffer)
            if a.role == "output":
                lines.append(c_array(f"want_{a.name}", a.array, dtype))
                checks.append(f"failed += opforge_expect_{'f32' if dtype == 'float32' else 'f64'}(__func__, "
                              f'"{a.name}", want_{a.name}, got_{a.name}, {a.array.size}, {TOLERANCE[dtype]});'
                              if dtype in TOLERANCE else
                              f'failed += opforge_expect_equal(__func__, "{a.name}", want_{a.name}, got_{a.name}, '
                              f"sizeof want_{a.name}[0] * {a.array.size});")
    function = impl.get("call", "").split("(")[0]
    call = f"{function}({', '.join(passed)})"
    run = [f'int failed = opforge_expect_status(__func__, "{function}", 0, {call});'] if status else \
        ["int failed = 0;", f"{call};"]
    return "\n".join([
        f"/* {header} */", f"/* Comparison tests of the unit {subject}: {what}. */",
        "#pragma IMAGINET_INCLUDES_BEGIN", "#include <stddef.h>", "#include <stdint.h>", "#include <stdbool.h>",
        "#include <math.h>", "#pragma IMAGINET_INCLUDES_END", "",
        "/* clang-format off */",  # (a pragma is one line)
        f'#pragma IMAGINET_FRAGMENT_BEGIN "{name}"',
        f'#pragma IMAGINET_FRAGMENT_DEPENDENCY "{impl.get("fragment")}"',
        f'#pragma IMAGINET_FRAGMENT_DEPENDENCY "../../{CHECKS_C}:{CHECKS}"',
        "/* clang-format on */",
        f"int {name}(void);", f"int {name}(void)", "{", *lines, *run, *checks, "return failed;", "}",
        "#pragma IMAGINET_FRAGMENT_END", ""])


def _py_literal(array: np.ndarray) -> str:
    text = repr(array.reshape(-1).tolist()).replace("nan", 'float("nan")').replace("inf", 'float("inf")')
    return f"np.array({text}, dtype={array.dtype.name!r}).reshape({tuple(array.shape)!r})"


def py_test_file(header: str, subject: str, name: str, what: str, impl: ET.Element, args: list[CallValue]) -> str:
    """The Python test fragment ``name`` of the unit ``subject``, as :func:`c_test_file`."""
    lines, passed, checks = [], [], []
    for a in args:
        if a.role == "value":
            passed.append(repr(tuple(a.value.dims)) if isinstance(a.value, Shape) else
                          f'float("{a.value}")' if isinstance(a.value, float) and not np.isfinite(a.value) else
                          repr(a.value))
        elif a.array is None:
            passed.append("None")
        elif a.role == "input":
            lines.append(f"in_{a.name} = {_py_literal(a.array)}")
            passed.append(f"in_{a.name}")
        else:
            buffer = f"{_BUFFER[a.role]}_{a.name}"
            lines.append(f"{buffer} = np.empty({tuple(a.array.shape)!r}, dtype={a.array.dtype.name!r})")
            passed.append(buffer)
            if a.role == "output":
                lines.append(f"want_{a.name} = {_py_literal(a.array)}")
                checks.append(f"failed += {CHECKS}({name!r}, {a.name!r}, want_{a.name}, got_{a.name}, "
                              f"{TOLERANCE.get(a.array.dtype.name, 0.0)})")
    call = f"{impl.get('call', '').split('(')[0]}({', '.join(passed)})"
    return "\n".join([
        f"# {header}", f'"""Comparison tests of the unit {subject}:', f'{what}."""', "",
        "#pragma IMAGINET_INCLUDES_BEGIN", "import numpy as np", "#pragma IMAGINET_INCLUDES_END", "", "",
        f'#pragma IMAGINET_FRAGMENT_BEGIN "{name}"',
        f'#pragma IMAGINET_FRAGMENT_DEPENDENCY "{impl.get("fragment")}"',
        f'#pragma IMAGINET_FRAGMENT_DEPENDENCY "../../{CHECKS_PY}:{CHECKS}"',
        f"def {name}():", f'    """{subject} on its example: the number of checks that fail."""',
        *(f"    {line}" for line in lines), "    with np.errstate(all=\"ignore\"):", f"        {call}",
        "    failed = 0", *(f"    {c}" for c in checks), "    return failed", "", "",
        "#pragma IMAGINET_FRAGMENT_END", ""])


def associate(text: str, fragment: str, test: str) -> str:
    """``text`` (a fragment file) with ``test`` (``file:name``) associated with ``fragment``."""
    begin = f'#pragma IMAGINET_FRAGMENT_BEGIN "{fragment}"\n'
    if text.count(begin) != 1:
        raise ValueError(f"no single fragment {fragment!r} to associate {test} with")
    return text.replace(begin, f'{begin}#pragma IMAGINET_FRAGMENT_TEST "{test}"\n')
