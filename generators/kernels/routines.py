"""The fixed-point kernels' routines (:data:`dsl.fixed_point.ROUTINES`), each rendered once per
target from its tree: C's ``static inline`` functions at the end of the runtime's
``opf_scalar.h``, NumPy's functions at the end of the package's ``_kernels`` module. The
kernels' code calls them by name (:func:`scalar_c.render`, :func:`scalar_numpy.render`)."""

from __future__ import annotations

import functools
import sys
import textwrap
import types
from pathlib import Path

from dsl.fixed_point import ROUTINES, Routine
from generators.kernels import lets, numpy_runtime, scalar_c, scalar_numpy

_KERNELS = Path(numpy_runtime.__file__)


def _c_definition(r: Routine) -> str:
    ct = scalar_c.C_TYPE
    steps, env = lets.c_lets(r.body.lets, {n: (n, d) for n, d in r.params})
    lines = [f"/* {r.doc} */",
             f"static inline {ct[r.body.domain]} opf_{r.name}({', '.join(f'{ct[d]} {n}' for n, d in r.params)})",
             "{", *(f"    {step}" for step in steps)]
    return "\n".join([*lines, f"    return {scalar_c.render(r.body.value, r.body.domain, env)[0]};", "}", ""])


def c_definitions() -> str:
    """The routines as C, after the scalar helpers they call."""
    return "\n".join(_c_definition(r) for r in ROUTINES.values())


def _numpy_definition(r: Routine) -> str:
    steps, env = lets.numpy_lets(r.body.lets, {n: (n, d) for n, d in r.params})
    doc = textwrap.fill(r.doc, 96, initial_indent='    """', subsequent_indent="    ") + '"""'
    lines = [f"def {r.name}({', '.join(n for n, _ in r.params)}):", doc, *(f"    {step}" for step in steps)]
    return "\n".join([*lines, f"    return {scalar_numpy.render(r.body.value, r.body.domain, env)[0]}", ""])


def numpy_definitions() -> str:
    """The routines as NumPy functions, to follow the NumPy runtime where ``_k`` names it."""
    return "\n\n".join(_numpy_definition(r) for r in ROUTINES.values())


def numpy_fragment() -> str:
    """The NumPy runtime's code without its module docstring, then the routines: a unit's
    ``opforge_kernels`` fragment, where ``_k`` names the fragment's own scope."""
    return _KERNELS.read_text(encoding="utf-8").split('"""', 2)[2] + "\n\n" + numpy_definitions()


def numpy_source() -> str:
    """The package's ``_kernels`` module: the NumPy runtime, then the routines (which call its
    helpers through ``_k``, as every kernel does)."""
    return (_KERNELS.read_text(encoding="utf-8")
            + "\n\n# The fixed-point kernels' routines, rendered from dsl.fixed_point's trees.\n"
            + "import sys as _sys  # noqa: E402\n\n_k = _sys.modules[__name__]\n\n\n" + numpy_definitions())


@functools.cache
def numpy_kernels() -> types.ModuleType:
    """The package's ``_kernels`` as generation-time code and the tests run it: ``_k``."""
    module = types.ModuleType("opforge_generation_kernels")
    sys.modules[module.__name__] = module  # (the routines find their module there, as in the package)
    exec(compile(numpy_source(), str(_KERNELS), "exec"), module.__dict__)  # our own source and rendering
    return module
