"""A tree's named steps (``Conversion.lets``, a routine's body) as statements, one per step, for
C and for NumPy: each step rendered in its dtype and then named for the steps after it. The
conversions (:mod:`generators.kernels.fixed_point`) and the routines (:mod:`generators.kernels.routines`)
both render theirs here."""

from __future__ import annotations

from dsl.scalar import SExpr
from generators.kernels import scalar_c, scalar_numpy

Let = tuple[str, str, SExpr]  # (name, dtype, tree)


def c_lets(lets: tuple[Let, ...], env: dict[str, scalar_c.Value]) -> tuple[list[str], dict[str, scalar_c.Value]]:
    """(``const T name = ...;`` per step, ``env`` with the steps named)."""
    env, lines = dict(env), []
    for name, dtype, tree in lets:
        lines.append(f"const {scalar_c.C_TYPE[dtype]} {name} = {scalar_c.render(tree, dtype, env)[0]};")
        env[name] = (name, dtype)
    return lines, env


def numpy_lets(lets: tuple[Let, ...], env: dict[str, scalar_numpy.Value]
               ) -> tuple[list[str], dict[str, scalar_numpy.Value]]:
    """(``name = ...`` per step, ``env`` with the steps named)."""
    env, lines = dict(env), []
    for name, dtype, tree in lets:
        lines.append(f"{name} = {scalar_numpy.render(tree, dtype, env)[0]}")
        env[name] = (name, dtype)
    return lines, env
