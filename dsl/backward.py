"""Backward ops derived from the forward definitions (ADR 0065).

For a forward op ``f`` this declares ``f_bp`` in f's namespace: given f's inputs and
``grad``, the gradient of the loss with respect to f's output, it gives the gradient with
respect to each differentiable input (the vector-Jacobian product), named and documented
as ND4J names its backprop ops. The derived op is an ordinary op of an ordinary form, so
every target renders it as it renders any other, and it is validated like any other.

A forward op gets ``backward`` (its backward op's name), or ``not_differentiable`` (why it
has none), or neither: a form whose derivative is not derived yet.
"""

from __future__ import annotations

import attrs

from dsl import autodiff, builders
from dsl import compute as C
from dsl import expr as E
from dsl import model as M
from dsl import validate
from dsl.model import NO_DEFAULT, Catalogue, Op, Problem
from dsl.types import DataType, DocScope, Exactly, Language

#: The suffix of a backward op's name, as ND4J names its backprop ops.
SUFFIX = "_bp"
#: The input carrying the gradient of the loss with respect to the forward op's output: the first
#: of these names that no parameter of the forward op has.
GRADIENTS = ("grad", "grad_output", "upstream_grad")

#: Why ops of a form have no derivative, by form.
_FORM_REASONS: dict[type, str] = {
    C.RandomSample: "a random draw",
    C.ArgReduction: "an index: piecewise constant",
    C.ShapeQuery: "it reads only shapes",
    C.FindAll: "it gives indices",
    C.Generation: "its values come from its args, not from a tensor",
    C.FixedPointConversion: "a conversion of stored fixed-point values: piecewise constant, or exact",
    # (the rule: a fragment is differentiable where it declares its derivative; none can yet)
    C.FragmentKernel: "a hand-written fragment, which declares no derivative",
}

_REAL = (DataType.FLOATING_POINT, DataType.NUMERIC, DataType.NDARRAY)


def _reason(op: Op) -> str | None:
    """Why ``op`` has no derivative, whatever its form, or None."""
    if any(o.type is DataType.BOOLEAN for o in op.outputs):
        return "its result is boolean"
    if all(o.type in (DataType.INT, DataType.DATA_TYPE) for o in op.outputs) and op.outputs:
        return "its result is an integer"
    for form, reason in _FORM_REASONS.items():
        if isinstance(op.compute, form):
            return reason
    return None


def _names(op: Op, x: str) -> tuple[str, str] | None:
    """(the gradient input's name, the output's: ``grad_<x>``): names no input or arg of the forward
    op has, which the backward op takes too; None where they are all taken."""
    taken = {p.name for p in (*op.inputs, *op.args)}
    output = f"grad_{x}"
    free = [g for g in GRADIENTS if g not in taken and g != output]
    return (free[0], output) if free and output not in taken else None


def _elementwise_backward(op: Op) -> tuple[Op | None, str | None]:
    """The backward op of an elementwise op of one tensor input, or why it has none."""
    c = op.compute
    assert isinstance(c, C.Elementwise)
    tensors = c.tensors(op)
    if len(tensors) != 1:
        return None, None  # several inputs: the broadcast is reduced back per input (not derived yet)
    (x_name,) = tensors
    x = next(i for i in op.inputs if i.name == x_name)
    if x.type not in _REAL or op.outputs[0].type not in _REAL:
        return None, "it computes on integers"
    names = _names(op, x_name)
    if names is None:
        return None, None  # (its parameters take every name the backward op's would: none is derived)
    gradient, out_name = names
    cases = []
    for given, expr in c.cases:
        try:
            derivative = autodiff.differentiate(expr, x_name)
        except autodiff.NotDifferentiable as exc:
            return None, str(exc)
        cases.append((given, autodiff.simplify(C.SCall("mul", (C.SSym(gradient), derivative)))))
    if all(e == autodiff.ZERO for _, e in cases):
        return None, "piecewise constant: its derivative is 0 wherever it exists"
    name = op.name + SUFFIX
    at = op.location
    x_ref, g_ref = E.ParamRef("input", x_name), E.ParamRef("input", gradient)
    inputs = (
        attrs.evolve(x, type=DataType.FLOATING_POINT, default=NO_DEFAULT),
        M.Input(gradient, DataType.FLOATING_POINT, f"Gradient of the loss with respect to {op.name}'s output",
                Exactly(1), NO_DEFAULT, at),
    )
    output = M.Output(out_name, DataType.FLOATING_POINT,
                      f"Gradient of the loss with respect to {x_name}, with the shape and type of {x_name}",
                      Exactly(1), at)
    # (the form's "equal" broadcast refuses a gradient of another shape than the input's)
    constraints = (
        M.Constraint(f"{x_name} and {gradient} must have the same type", E.SameType((x_ref, g_ref)), False, at),
    )
    signatures = builders.implicit_signatures(inputs, op.args, (output,))
    doc = (f"The backward op of {op.qualified_name}, derived from its definition: the gradient of the loss "
           f"with respect to {x_name}, {gradient} times the derivative of {op.name} at {x_name} "
           f"(its vector-Jacobian product).")
    backward = Op(
        namespace=op.namespace, name=name, inputs=inputs, args=op.args, outputs=(output,), configs=(),
        constraints=constraints, signatures=signatures,
        docs=(M.DocSection(Language.ANY, DocScope.ALL, doc, at),), mixins=(),
        display_name=name, display_path=f"{op.display_path.rstrip('/')}/Backward", native_name=name,
        abstract=False, location=at, gradient_of=op.qualified_name,
        compute=C.Elementwise((x_name, gradient, *(p for p in c.params if p != x_name)), c.optional,
                              tuple(cases), "equal"),
        compute_location=op.compute_location,
    )
    return backward, None


def derive(catalogue: Catalogue, broken: frozenset[str] = frozenset()) -> tuple[Catalogue, list[Problem]]:
    """The catalogue with every backward op that can be derived declared beside its forward op,
    and each forward op marked with its backward op or why it has none. Ops named in ``broken``
    (qualified names with problems of their own) get none: their problems are reported already."""
    found: list[Problem] = []
    namespaces = []
    for ns in catalogue.namespaces:
        taken = {o.name for o in ns.ops} | {a.name for a in ns.aliases}
        ops: list[Op] = []
        for op in ns.ops:
            if op.abstract or op.compute is None or op.qualified_name in broken:
                ops.append(op)
                continue
            backward, reason = None, _reason(op)
            if reason is None and isinstance(op.compute, C.Elementwise):
                backward, reason = _elementwise_backward(op)
            if backward is not None and backward.name in taken:
                found.append(Problem(op.location, op.qualified_name,
                                     f"its backward op would be called {backward.name}, which the namespace "
                                     "already declares: rename that op"))
                backward = None
            if backward is not None:
                problems = validate.op_problems(backward) + validate.compute_problems(backward)
                found += problems
                if problems:
                    backward = None
            ops.append(attrs.evolve(op, backward=backward.qualified_name if backward else None,
                                    not_differentiable=reason))
            if backward is not None:
                ops.append(backward)
        namespaces.append(attrs.evolve(ns, ops=tuple(ops)))
    return attrs.evolve(catalogue, namespaces=tuple(namespaces)), found


__all__ = ["GRADIENTS", "SUFFIX", "derive"]
