"""Input shapes drawn by hypothesis for every op, valid and invalid, and what the NumPy
reference makes of them: the corpus the cross-target shape tests hold every target to
(tests/test_shapes_across_targets.py in-process, test_generated_code.py through the C API
and the installed bindings).

Each draw starts from one of the op's parity cases and changes each input's shape one
way: kept, some axes set to 1 (two-sided broadcasting), batch axes put in front, rank 0,
an axis emptied, an axis dropped, or padded to the maximum rank with 1s. Values keep the
case's ranges, so that what the reference refuses is refused for its shapes and args.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from conftest import ROOT
from dsl import compute as C
from dsl import dtypes as D
from dsl import loader
from generators.kernels import py_names
from generators.kernels.selection import code_ops
from generators.tests import cases, golden, inputs

CATALOGUE = loader.load(ROOT / "ops").catalogue
#: Every op with a NumPy reference of plain arrays: not a stream (events, not shapes) nor a fixed-point
#: conversion (FixedPointArrays in or out, the package's: its parity cases hold C to it, ADR 0068).
OPS = [(ns, op) for ns in CATALOGUE.namespaces for op in code_ops(ns)
       if not isinstance(op.compute, (C.SlidingWindow, C.FixedPointConversion))]
DRAWS_PER_OP = 12
MAX_RANK = 8


def _shapes(shape: tuple[int, ...]) -> st.SearchStrategy[tuple[int, ...]]:
    """Ways to change one input's shape."""
    rank = len(shape)
    ones = st.lists(st.booleans(), min_size=rank, max_size=rank).map(
        lambda mask: tuple(1 if m else s for m, s in zip(mask, shape)))
    batch = st.lists(st.integers(1, 3), min_size=1, max_size=max(1, MAX_RANK - rank)).map(
        lambda front: tuple(front) + shape) if rank < MAX_RANK else st.just(shape)
    choices = [st.just(shape), ones, batch, st.just(()),
               st.just((1,) * (MAX_RANK - rank) + shape)]
    if rank:
        choices += [st.integers(0, rank - 1).map(lambda k: shape[:k] + (0,) + shape[k + 1:]),
                    st.integers(0, rank - 1).map(lambda k: shape[:k] + shape[k + 1:])]
    return st.one_of(*choices)


@st.composite
def drawn_case(draw: st.DrawFn, op: Any, templates: tuple[tuple[str, Any], ...]) -> tuple[str, dict[str, Any]]:
    dtype, spec = draw(st.sampled_from(templates))
    spec = dict(spec, inputs=dict(spec["inputs"]))
    for name, t in spec["inputs"].items():
        if isinstance(t, list):  # a list input: each tensor changed alike
            shape = draw(_shapes(tuple(t[0]["shape"])))
            spec["inputs"][name] = [dict(one, shape=list(shape)) for one in t]
        else:
            spec["inputs"][name] = dict(t, shape=list(draw(_shapes(tuple(t["shape"])))), view=None)
    spec.pop("defaults", None)
    return dtype, spec


@functools.lru_cache(maxsize=None)
def corpus(qualified: str) -> tuple[tuple[str, dict[str, Any]], ...]:
    """The drawn cases of one op (deterministic: hypothesis derandomized, no database)."""
    op = next(op for _, op in OPS if op.qualified_name == qualified)
    # (an integer through floats has its float variant's shapes, and NNEF's fragments take reals; a
    # float16 variant has its float32 variant's shapes, and no unit takes it: ADR 0075)
    templates = tuple((d, spec) for d, spec in cases.cases(op) if d not in D.through_float(op) and D.in_units(d))
    drawn: list[tuple[str, dict[str, Any]]] = []

    @settings(max_examples=DRAWS_PER_OP, derandomize=True, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), deadline=None)
    @given(drawn_case(op, templates))
    def collect(case: tuple[str, dict[str, Any]]) -> None:
        drawn.append(case)

    collect()
    unique = {repr(c): c for c in drawn}  # (hypothesis may draw one case twice)
    return tuple(unique.values())


@functools.lru_cache(maxsize=None)
def _functions(key: str) -> dict[str, Any]:
    return golden.reference_functions(CATALOGUE.namespace(key))


def expected(ns: Any, op: Any, dtype: str, spec: dict[str, Any]) -> tuple[Any, Any]:
    """(the golden case, the reference's result: None where it refuses)."""
    fn = _functions(ns.key)[py_names.ref_name(op.name)]
    case = golden._Case(op, dtype, spec, fn, 0)
    return case, case.expected()


def kwargs_of(spec: dict[str, Any]) -> dict[str, Any]:
    return inputs.build(spec, lambda name, fields: __import__("types").SimpleNamespace(**fields))


def shapes_of(result: Any) -> list[Any]:
    """The shapes a result has: one per output, a list of them for a list output."""
    if result is None:
        return []
    if isinstance(result, tuple):
        return [tuple(r.shape) for r in result]
    return [tuple(np.shape(result))]
