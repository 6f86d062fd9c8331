"""Python spellings of opforge's names: parameters, functions, modules, classes."""

from __future__ import annotations

import builtins
import re

from dsl.model import Op
from generators.naming import PYTHON_RESERVED, mangle


def py_name(name: str) -> str:
    return mangle(name, PYTHON_RESERVED)


def module_name(key: str) -> str:
    """A namespace's Python module (``for`` -> ``for_``: a keyword cannot be imported)."""
    return py_name(key)


def function_name(name: str) -> str:
    """An op's Python function name: snake_case (``reduceMax`` -> ``reduce_max``), mangled."""
    return py_name(re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower())


def ref_name(name: str) -> str:
    """An op's function in the reference module: its Python name, with a trailing
    underscore where that is a builtin (``slice``, ``all``), which the module's
    own code and fragments still need."""
    public = function_name(name)
    return public + "_" if public in dir(builtins) else public


def config_param(name: str) -> str:
    """A config's parameter name: ``RandomConfig`` -> ``random_config``."""
    return py_name(re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower())


def parameters(op: Op) -> list[str]:
    return ([py_name(i.name) for i in op.inputs] + [py_name(a.name) for a in op.args]
            + [config_param(c.name) for c in op.configs] + [py_name(o.name) for o in op.outputs])


def class_name(op: Op) -> str:
    return "".join(part.capitalize() for part in op.name.split("_"))
