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
            if isinstance(op.compute, C.FixedPointConversion):
                continue  # (FixedPointArrays, the package's: test_conversion_cases_draw_every_pair)
            valid: dict[str, bool] = {}
            for dtype, spec in cases.cases(op):
                if valid.get(dtype):
                    continue
                case = golden._Case(op, dtype, spec, functions[py_names.ref_name(op.name)], 0)
                valid[dtype] = case.expected() is not None
            without += [f"{op.qualified_name} {dtype}" for dtype, ok in valid.items() if not ok]
            assert valid, f"{op.qualified_name} has no test case"
    assert without == []


def test_conversion_cases_draw_every_pair() -> None:
    """A fixed-point conversion (ADR 0068) has cases of every pair of types it converts, its
    fixed-point input given as stored values with attributes in the type's range, and the args
    choosing the output's; the parity suite runs them on both backends."""
    from dsl import fixed_point as F

    catalogue = loader.load(ROOT / "ops").catalogue
    ops = [op for ns in catalogue.namespaces for op in code_ops(ns) if isinstance(op.compute, C.FixedPointConversion)]
    assert {op.name for op in ops} == {"quantize", "dequantize", "requantize", "q_shift", "bit_utilization"}
    for op in ops:
        drawn = list(cases.cases(op))
        pairs = {(spec["inputs"]["x"].get("fixed", {}).get("type", "float32"), spec["args"].get("dtype"))
                 for _, spec in drawn}
        assert len(pairs) == len(op.compute.pairs()) or not op.compute.chooses_type, (op.name, pairs)
        for _, spec in drawn:
            fixed = spec["inputs"]["x"].get("fixed")
            if fixed is None:
                continue
            t = F.TYPES[fixed["type"]]
            assert spec["inputs"]["x"]["dtype"] == t.storage
            if t.family == "Q":
                assert fixed["shift"] in t.shifts()
                if op.name == "q_shift":
                    assert fixed["shift"] + spec["args"]["shift"] in t.shifts()
            else:
                assert fixed["scale"] > 0 and t.lowest <= fixed["offset"] <= t.highest
