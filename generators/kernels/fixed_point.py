"""The fixed-point conversions of :mod:`dsl.fixed_point`, rendered for C and for NumPy.

Both go through the scalar renderers every elementwise kernel uses, then cast's rule to
the stored integer (:func:`scalar_c.converted`, ``_k.convert``): no rounding or
saturation is written here.
"""

from __future__ import annotations

from dsl import fixed_point as F
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


#: The NumPy spelling of each per-call value: a scalar of the rule's domain.
_VALUES = {F.FACTOR: "float32", F.SCALE: "float32", F.OFFSET: "float32"}


def _numpy_function(name: str, conversion: Conversion, params: tuple[str, ...]) -> str:
    env = {"x": ("x", conversion.domain),
           **{p: (f"np.{_VALUES.get(p, conversion.domain)}({p})", _VALUES.get(p, conversion.domain)) for p in params}}
    return f"def {name}(x, {', '.join(params)}):\n    return {numpy_expression(conversion, env)}\n"


def numpy_rules_module(head: str) -> str:
    """The generated package's ``_fixed_point_rules``: each type's facts and its conversions as
    functions over arrays (``x`` already in the rule's domain: float32 for real values, the
    storage or, for a shift, the wider integer)."""
    lines = [f"# {head}", '"""The fixed-point rules of ADR 0036, rendered for NumPy (run under np.errstate)."""',
             "", "from typing import NamedTuple", "", "import numpy as np", "", "from opforge import _kernels as _k",
             "", ""]
    types, from_real, to_real, shifted = [], [], [], []
    for t in F.TYPES.values():
        params = (F.FACTOR,) if t.family == "Q" else (F.SCALE, F.OFFSET)
        lines.append(_numpy_function(f"{t.name}_from_real", F.from_real(t), params))
        lines.append(_numpy_function(f"{t.name}_to_real", F.to_real(t), params))
        from_real.append(f"{t.name!r}: {t.name}_from_real")
        to_real.append(f"{t.name!r}: {t.name}_to_real")
        shifts = (t.shifts().start, t.shifts().stop - 1) if t.family == "Q" else None
        fraction = t.fraction_bits if t.family == "Q" else None
        types.append(f"{t.name!r}: Type({t.name!r}, {t.family!r}, {t.storage!r}, {t.bits}, {fraction!r}, {shifts!r}, "
                     f"{t.attributes!r}, {t.lowest}, {t.highest})")
        for to in (u for u in F.TYPES.values() if t.family == u.family == "Q"):
            rule = F.shifted(t, to)
            lines.append(_numpy_function(f"{t.name}_to_{to.name}_shifted", rule, (F.SHIFT_BY,)))
            shifted.append(f"({t.name!r}, {to.name!r}): ({t.name}_to_{to.name}_shifted, {rule.domain!r})")
    lines += ["class Type(NamedTuple):",
              "    name: str", "    family: str", "    storage: str", "    bits: int",
              "    fraction_bits: int | None  # N of a Q type: real = stored / 2**(N - shift)",
              "    shifts: tuple[int, int] | None  # (lowest, highest) of a Q type's shift",
              "    attributes: tuple[str, ...]", "    lowest: int", "    highest: int", "", "",
              f"TYPES = {{{', '.join(types)}}}", f"FROM_REAL = {{{', '.join(from_real)}}}",
              f"TO_REAL = {{{', '.join(to_real)}}}", f"SHIFTED = {{{', '.join(shifted)}}}", "", "",
              "def factor(t: Type, shift: int) -> float:",
              '    """2**(N - shift): real values times it are a Q type\'s stored ones (exact in float32)."""',
              "    return 2.0 ** (t.fraction_bits - shift)", ""]
    return "\n".join(lines)
