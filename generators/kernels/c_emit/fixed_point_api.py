"""What a C API function does around its fixed-point kernel, whatever its form (ADR 0040): a Q
output's shift, the form's rule over the inputs' shifts, computed before the call and refused
where it leaves the type's range; and a tensor refused where its attributes are not another's."""

from __future__ import annotations

from dsl import fixed_point as F
from dsl.scalar import SCall, SExpr, SSym
from generators.formatting import c_string
from generators.kernels import scalar_c


def one_of_the_shifts(tree: SExpr) -> bool:
    """Whether an output's shift is always one of the inputs' (an input's, or the larger of
    them), so that it is in the type's range wherever theirs are."""
    if isinstance(tree, SSym):
        return True
    return isinstance(tree, SCall) and tree.fn in ("maximum", "minimum") and all(map(one_of_the_shifts, tree.args))


def q_output_shift(output: str, t: F.FixedPointType, tree: SExpr, env: dict[str, scalar_c.Value]) -> list[str]:
    """C lines declaring ``output_shift``, the rule's ``tree`` (``env`` names the inputs' shifts
    and any per-call value it reads), and returning OPFORGE_ERR_ATTRIBUTE where it leaves
    ``t``'s range; the caller stores it in the output's descriptor after the kernel."""
    lines = [f"const int32_t output_shift = {scalar_c.render(tree, 'int32', env)[0]};"]
    if not one_of_the_shifts(tree):
        low, high = t.shifts()[0], t.shifts()[-1]
        message = f"{output}: its shift (the rule's, from the inputs') is outside {t.name}'s {low} to {high}"
        lines += [f"if (output_shift < {low} || output_shift > {high}) {{",
                  f"return opf_fail(detail, OPFORGE_ERR_ATTRIBUTE, {c_string(message)});", "}"]
    return lines


def same_attributes(t: F.FixedPointType, tensor: str, reference: str, name: str, whose: str) -> list[str]:
    """C lines returning OPFORGE_ERR_ATTRIBUTE (``SAME_ATTRIBUTES``'s words for ``name`` and
    ``whose``) where the descriptor ``tensor`` does not hold the attributes of ``t`` that
    ``reference`` holds (a join's tensors, a stream's frames)."""
    message = c_string(F.SAME_ATTRIBUTES.format(name=name, whose=whose, type=t.name,
                                                attributes=" and ".join(t.attributes)))
    differ = " || ".join(f"{tensor}->{a} != {reference}->{a}" for a in t.attributes)
    return [f"if ({differ}) {{", f"return opf_fail(detail, OPFORGE_ERR_ATTRIBUTE, {message});", "}"]
