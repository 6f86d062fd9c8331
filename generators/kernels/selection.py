"""Which ops a code target generates, and in which dtype variants."""

from __future__ import annotations

from typing import Sequence

from dsl import compute as C
from dsl import dtypes as D
from dsl.model import Namespace, Op, Problem
from generators.api import GenerationError

FLOAT_ONLY_DISTRIBUTIONS = ("uniform", "normal", "log_normal", "truncated_normal", "exponential")


def code_ops(ns: Namespace) -> list[Op]:
    """The ops that get code: every op that is not abstract."""
    return [o for o in ns.ops if not o.abstract]


def missing_compute(namespaces: Sequence[Namespace], target: str) -> list[Problem]:
    return [Problem(o.location, o.qualified_name,
                    f"op has no compute description (Elementwise, Reduce, ...), which the {target} target needs")
            for ns in namespaces for o in code_ops(ns) if o.compute is None]


def require_compute(namespaces: Sequence[Namespace], target: str) -> None:
    """Code targets need every op to say what it computes."""
    problems = missing_compute(namespaces, target)
    if problems:
        raise GenerationError(problems)


def variants_of(op: Op) -> list[D.Variant]:
    """The dtype variants kernels exist for (float-only distributions, a fragment's dtypes)."""
    c = op.compute
    if isinstance(c, C.RandomSample) and c.distribution in FLOAT_ONLY_DISTRIBUTIONS:
        allowed = [d for d in D.CONCRETE[op.outputs[0].type] if d in D.FLOATS]
        return list(D.variants(op, tuple(allowed)))
    if isinstance(c, C.FragmentKernel):
        return [v for v in D.variants(op) if v.dtype in dict(c.c_fragments)]
    return list(D.variants(op))


def follows(op: Op, name: str, primary: str) -> bool:
    """Whether tensor ``name`` has the dtype of tensor ``primary`` in every variant (the docs' and
    the headers' "x and y: one dtype"); an input of its own dtype (cast's x) never does."""
    if {name, primary} & set(C.own_dtype_inputs(op)):
        return False
    variants = variants_of(op)
    return bool(variants) and all(v.of(name) == v.of(primary) for v in variants)
