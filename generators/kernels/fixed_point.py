"""The fixed-point conversions of :mod:`dsl.fixed_point`, rendered for C and for NumPy.

Both go through the scalar renderers every elementwise kernel uses, then cast's rule to
the stored integer (:func:`scalar_c.converted`, ``_k.convert``): no rounding or
saturation is written here.
"""

from __future__ import annotations

from dsl.fixed_point import Conversion
from generators.kernels import scalar_c, scalar_numpy


def c_statement(conversion: Conversion, target: str, env: dict[str, scalar_c.Value]) -> str:
    """C statements that store the converted element in ``target``; ``env`` gives the code
    and dtype of ``x`` and of the per-call values (``factor``, ``scale``, ``offset``, ``k``)."""
    code, _ = scalar_c.render(conversion.value, conversion.domain, env)
    if conversion.storage is None:
        return f"{target} = {code};"
    # (cast's rule reads its operand more than once: a local first)
    return (f"{{ const {scalar_c.C_TYPE[conversion.domain]} v = {code}; "
            f"{target} = {scalar_c.converted('v', conversion.domain, conversion.storage)}; }}")


def numpy_expression(conversion: Conversion, env: dict[str, scalar_numpy.Value]) -> str:
    """A NumPy expression (over the generated package's ``_k`` helpers) for the converted
    array; ``env`` as for :func:`c_statement`, with NumPy code. Run it as the reference kernels
    run theirs, under ``np.errstate(all='ignore')``: a value scaled beyond float32 is an
    infinity, which then saturates."""
    code, _ = scalar_numpy.render(conversion.value, conversion.domain, env)
    if conversion.storage is None:
        return code
    return f"_k.convert(np.asarray({code}), np.{conversion.storage})"
