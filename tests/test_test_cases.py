"""The generated test cases themselves: a parity case where C and Python both
refuse the inputs passes as agreement, so every op must keep cases the
reference accepts, in every dtype, or its parity tests would check nothing."""

from __future__ import annotations

from dsl import compute as C
from dsl import loader
from generators.kernels import py_names
from generators.kernels.selection import code_ops
from generators.tests import cases, golden

from conftest import ROOT


def test_every_op_has_a_valid_case_in_every_dtype() -> None:
    catalogue = loader.load(ROOT / "ops").catalogue
    without = []
    for ns in catalogue.namespaces:
        functions = golden.reference_functions(ns)
        for op in code_ops(ns):
            if isinstance(op.compute, C.SlidingWindow):
                continue  # streams compare event logs, not results
            valid: dict[str, bool] = {}
            for dtype, spec in cases.cases(op):
                if valid.get(dtype):
                    continue
                case = golden._Case(op, dtype, spec, functions[py_names.ref_name(op.name)], 0)
                valid[dtype] = case.expected() is not None
            without += [f"{op.qualified_name} {dtype}" for dtype, ok in valid.items() if not ok]
            assert valid, f"{op.qualified_name} has no test case"
    assert without == []
