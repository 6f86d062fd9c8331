"""Fixed-point accuracy and Cortex-M4 size of the rules of ADR 0036 (issue 20).

    .venv/bin/python benchmarks/fixed_point.py [docs/fixed-point.md]

Per op and type, on seeded random stored inputs (every value of an 8-bit type for the lookup
tables): the largest error, in steps of the output type (LSBs), of the fixed-point result the
rules give (their NumPy rendering, which the tests hold to C bit for bit) against the exact
result of the op's float tree on the same real inputs (float64), saturated like the result.
Next to it, the Cortex-M4 ``-Os`` .text of the kernel the rules render to (the C statement of
the rule in a loop over plain pointers, as the C target emits its kernels) and of the float32
kernel of the op's own tree. Calls into newlib and libgcc (soft double arithmetic of a table's
fill) are outside both counts. Needs Debian's gcc-arm-none-eabi (./test.sh installs it as root).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dsl import fixed_point as F  # noqa: E402
from dsl import loader  # noqa: E402
from generators.kernels import c_runtime, numpy_runtime, scalar_c, scalar_numpy  # noqa: E402
from generators.kernels import fixed_point as R  # noqa: E402
from generators.kernels.scalar_c import C_TYPE  # noqa: E402

FLAGS = ["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16", "-std=c99", "-Os",
         "-ffunction-sections", "-fdata-sections", "-w"]
CATALOGUE = loader.load(ROOT / "ops").catalogue
SEED, COUNT = 20, 4096


def _op(qualified: str) -> Any:
    ns, _, name = qualified.partition(".")
    return CATALOGUE.namespace(ns).op(name)


def _tree(qualified: str) -> F.SExpr:
    return _op(qualified).compute.case(())


def _eval(code: str, values: dict[str, Any]) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.asarray(eval(code, {"np": np, "_k": numpy_runtime, **values}))  # our own rendering


def _numpy(conversion: F.Conversion, inputs: dict[str, np.ndarray], values: dict[str, Any]) -> np.ndarray:
    """The rule's NumPy rendering over ``inputs``; a per-call value is a float64 scalar when it is
    a float (scales, factors), else a scalar of the rule's domain."""
    kinds = {n: "float64" if isinstance(v, float) else conversion.domain for n, v in values.items()}
    env = {**{n: (n, str(a.dtype)) for n, a in inputs.items()}, **{n: (f"np.{d}({n})", d) for n, d in kinds.items()}}
    return np.asarray(R.numpy_run(conversion, env, {**inputs, **values}))


def _stored(t: F.FixedPointType, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(t.lowest, t.highest, COUNT, endpoint=True).astype(t.storage)


def _real(t: F.FixedPointType, stored: np.ndarray, attributes: dict[str, float]) -> np.ndarray:
    """The exact real values of stored ones (float64)."""
    if t.family == "Q":
        return stored.astype(np.float64) / F.q_factor(t, int(attributes["shift"]))
    return (stored.astype(np.float64) - attributes["offset"]) * attributes["scale"]


def _ideal(t: F.FixedPointType, real: np.ndarray, attributes: dict[str, float]) -> np.ndarray:
    """The exact stored value of real results (not rounded), saturated."""
    if t.family == "Q":
        value = real * F.q_factor(t, int(attributes["shift"]))
    else:
        value = real / attributes["scale"] + attributes["offset"]
    return np.clip(value, t.lowest, t.highest)


def _exact(tree: F.SExpr, reals: dict[str, np.ndarray]) -> np.ndarray:
    env = {n: (n, "float64") for n in reals}
    return _eval(scalar_numpy.render(tree, "float64", env)[0], reals)


def _error(ours: np.ndarray, ideal: np.ndarray) -> float:
    return float(np.max(np.abs(ours.astype(np.float64) - ideal)))


# ------------------------------------------------------------------------------- sizes


def _text(source: str, folder: Path) -> int:
    runtime = folder / "runtime"
    if not runtime.exists():
        c_runtime.write_library(runtime, "fixed-point benchmark")
    unit = folder / "kernel.c"
    unit.write_text('#include <stdint.h>\n#include "opforge_internal.h"\n' + source)
    obj = folder / "kernel.o"
    subprocess.run(["arm-none-eabi-gcc", *FLAGS, f"-I{runtime / 'src'}", f"-I{runtime / 'include'}", "-c", str(unit),
                    "-o", str(obj)], check=True, capture_output=True)
    sizes = subprocess.run(["arm-none-eabi-size", "-A", str(obj)], check=True, capture_output=True, text=True).stdout
    return sum(int(line.split()[1]) for line in sizes.splitlines() if line.startswith(".text"))


def _loop(params: list[str], body: str) -> str:
    return f"void kernel({', '.join(params)})\n{{\n    for (int i = 0; i < n; i++) {{\n        {body}\n    }}\n}}\n"


def _table_kernels(derived: F.Conversion | F.InterpolatedTable, t: F.FixedPointType,
                   values: list[str]) -> tuple[str, str]:
    """A table's fill (from the per-call ``values``, doubles) and its lookup loop, as units render them."""
    ct = C_TYPE[t.storage]
    fill = (f"void fill({ct}* restrict table, {', '.join(f'double {k}' for k in values)})\n{{\n"
            f"{R.c_table_fill(derived, t, 'table', {k: (k, 'float64') for k in values})}\n}}\n")
    lookup = _loop([f"const {ct}* restrict table", f"const {ct}* restrict x", f"{ct}* restrict output", "int n"],
                   R.c_table_lookup(derived, t, "table", "x[i]", "output[i]"))
    return fill, lookup


def _fixed_kernel(conversion: F.Conversion, inputs: dict[str, str], per_call: list[str]) -> str:
    """The rule per element: inputs (name -> storage dtype) and per-call int32 values."""
    env = {**{n: (f"(({C_TYPE[conversion.domain]}){n}[i])", conversion.domain) for n in inputs},
           **{n: (n, "int32") for n in per_call}}
    out = conversion.storage or conversion.domain
    params = [*(f"const {C_TYPE[d]}* restrict {n}" for n, d in inputs.items()), f"{C_TYPE[out]}* restrict output",
              "int n", *(f"int32_t {n}" for n in per_call)]
    return _loop(params, R.c_statement(conversion, "output[i]", env))


def _float_kernel(tree: F.SExpr, names: list[str]) -> str:
    env = {n: (f"{n}[i]", "float32") for n in names}
    params = [*(f"const float* restrict {n}" for n in names), "float* restrict output", "int n"]
    return _loop(params, f"output[i] = {scalar_c.render(tree, 'float32', env)[0]};")


def _fixed_reduction(r: F.QReduction, names: list[str], t: F.FixedPointType) -> str:
    """A reduction of ``n`` elements: the map per element, the combine, the finalize."""
    ct = C_TYPE[r.domain]
    mapped = scalar_c.render(r.map, r.domain, {n: (f"(({ct}){n}[i])", r.domain) for n in names})[0]
    step = {"add": "acc += v;", "max": "if (v > acc) acc = v;", "min": "if (v < acc) acc = v;"}[r.combine]
    first = "0" if r.combine == "add" else f"(({ct})x[0])"
    finalize = R.c_statement(r.finalize, "*output", {"acc": ("acc", r.domain), "n": ("n", "int32"),
                                                     F.HEADROOM: ("h", "int32")})
    params = ", ".join([*(f"const {C_TYPE[t.storage]}* restrict {n}" for n in names),
                        f"{C_TYPE[t.storage]}* restrict output", "int n", "int32_t h"])
    return (f"void kernel({params})\n{{\n    {ct} acc = {first};\n    for (int i = 0; i < n; i++) {{\n"
            f"        const {ct} v = {mapped};\n        {step}\n    }}\n    (void)h;\n    {finalize}\n}}\n")


def _float_reduction(form: Any, names: list[str]) -> str:
    """The float32 reduction the op's form describes (sum, mean, max, min, dot), in a loop."""
    value = "x[i] * y[i]" if form.other else "x[i]"
    step = {"add": "acc += v;", "max": "if (v > acc) acc = v;", "min": "if (v < acc) acc = v;"}[form.combine]
    first = "0.0f" if form.combine == "add" else "x[0]"
    result = "acc / (float)n" if form.finalize is not None else "acc"
    params = ", ".join([*(f"const float* restrict {n}" for n in names), "float* restrict output", "int n"])
    return (f"void kernel({params})\n{{\n    float acc = {first};\n    for (int i = 0; i < n; i++) {{\n"
            f"        const float v = {value};\n        {step}\n    }}\n    *output = {result};\n}}\n")


# ------------------------------------------------------------------------------- rows


def rows(folder: Path) -> list[tuple[str, str, float, int, int]]:
    """(op, type, largest error in LSBs, fixed-point .text, float32 .text)"""
    out = []
    for qualified in ("math.add", "math.sub", "math.mul", "math.neg", "math.abs", "math.minimum", "math.maximum"):
        tree = _tree(qualified)
        names = [a.name for a in tree.args]
        float_text = _text(_float_kernel(tree, names), folder)
        for t in (F.Q7, F.Q15, F.Q31):
            kernel = F.q_kernel(tree, t)
            assert isinstance(kernel, F.QKernel)
            worst = 0.0
            for shifts in ({n: 2 for n in names}, dict(zip(names, (1, 3)))):
                stored = {n: _stored(t, SEED + i) for i, n in enumerate(names)}
                values = {F.shift_of(n): s for n, s in shifts.items()}
                per_call = {name: int(_eval(scalar_numpy.render(e, "int64", {k: (k, "int64") for k in values})[0],
                                            {k: np.int64(v) for k, v in values.items()}))
                            for name, e in kernel.per_call}
                out_shift = int(_eval(scalar_numpy.render(kernel.output_shift, "int64",
                                                          {k: (k, "int64") for k in values})[0],
                                      {k: np.int64(v) for k, v in values.items()}))
                wide = {n: a.astype(kernel.value.domain) for n, a in stored.items()}
                ours = _numpy(kernel.value, wide, per_call)
                reals = {n: _real(t, stored[n], {"shift": shifts[n]}) for n in names}
                worst = max(worst, _error(ours, _ideal(t, _exact(tree, reals), {"shift": out_shift})))
            text = _text(_fixed_kernel(kernel.value, {n: t.storage for n in names}, [n for n, _ in kernel.per_call]),
                         folder)
            out.append((qualified, t.system, worst, text, float_text))
        for t in (F.D8, F.D16):
            kernel = F.d_kernel(tree, t)
            if not isinstance(kernel, F.DKernel):
                continue
            attributes = {"x": (0.02, 10 if t.bits == 8 else 0), "y": (0.07, -20 if t.bits == 8 else 0),
                          "output": (0.09, -5 if t.bits == 8 else 0)}
            attributes = {n: (float(np.float32(s)), o) for n, (s, o) in attributes.items()}
            per_call = kernel.per_call({n: s for n, (s, _) in attributes.items()},
                                       {n: o for n, (_, o) in attributes.items()})
            stored = {n: _stored(t, SEED + i) for i, n in enumerate(names)}
            ours = _numpy(kernel.value, {n: a.astype("int64") for n, a in stored.items()}, per_call)
            reals = {n: _real(t, stored[n], {"scale": attributes[n][0], "offset": attributes[n][1]}) for n in names}
            ideal = _ideal(t, _exact(tree, reals), {"scale": attributes["output"][0], "offset": attributes["output"][1]})
            text = _text(_fixed_kernel(kernel.value, {n: t.storage for n in names}, list(per_call)), folder)
            out.append((qualified, t.system, _error(ours, ideal), text, float_text))
    for qualified in ("math.sum", "math.mean", "math.max", "math.min", "base.dot"):
        form = _op(qualified).compute
        names = ["x", "y"] if form.other else ["x"]
        float_text = _text(_float_reduction(form, names), folder)
        for t in (F.Q7, F.Q15, F.Q31):
            r = F.q_reduction(form, t)
            assert isinstance(r, F.QReduction), r
            n, shifts = 64, {"x": 3, "y": 1}
            stored = {name: _stored(t, SEED + i)[:n] for i, name in enumerate(names)}
            h = F.headroom(n)
            wide = {name: a.astype(r.domain) for name, a in stored.items()}
            mapped = np.asarray(_eval(scalar_numpy.render(r.map, r.domain, {k: (k, r.domain) for k in wide})[0], wide),
                                dtype=r.domain)
            acc = {"add": np.add, "max": np.maximum, "min": np.minimum}[r.combine].reduce(mapped)
            ours = R.numpy_run(r.finalize, {"acc": ("acc", r.domain), "n": ("n", "int64"), F.HEADROOM: ("h", "int64")},
                               {"acc": acc, "n": np.int64(n), "h": np.int64(h)})
            values = {F.shift_of(k): np.int64(v) for k, v in shifts.items()} | {F.HEADROOM: np.int64(h)}
            out_shift = int(_eval(scalar_numpy.render(r.output_shift, "int64", {k: (k, "int64") for k in values})[0],
                                  values))
            reals = [_real(t, stored[name], {"shift": shifts[name]}) for name in names]
            exact = {"math.sum": np.sum, "math.mean": np.mean, "math.max": np.max, "math.min": np.min}.get(
                qualified, lambda v: float(np.dot(v, reals[1])))(reals[0])
            ideal = _ideal(t, np.asarray([exact]), {"shift": out_shift})
            out.append((qualified, t.system, _error(np.asarray([ours]), ideal),
                        _text(_fixed_reduction(r, names, t), folder), float_text))
    for qualified in ("math.exp", "math.tanh", "math.sigmoid", "math.sin", "nn.swish", "nn.softsign"):
        tree = _tree(qualified)
        float_text = _text(_float_kernel(tree, ["x"]), folder)
        for t, given, made in ((F.Q7, {"shift": 2}, {"shift": 2}), (F.D8, {"scale": 0.05, "offset": -3},
                                                                      {"scale": 1 / 64, "offset": 0})):
            entry = F.table_entry(tree, t, t)
            values = {f"x_{k}": float(np.float32(v)) if k == "scale" else v for k, v in given.items()}
            values |= {f"output_{k}": float(np.float32(v)) if k == "scale" else v for k, v in made.items()}
            if t.family == "Q":
                values = {"x_factor": F.q_factor(t, given["shift"]), "output_factor": F.q_factor(t, made["shift"])}
            stored = np.arange(t.lowest, t.highest + 1)
            ours = _numpy(entry, {"x": stored.astype(np.float64)}, {k: float(v) for k, v in values.items()})
            ideal = _ideal(t, _exact(tree, {"x": _real(t, stored, given)}), made)
            if t.family == "D":
                ideal = np.where(np.isnan(ideal), made["offset"], ideal)
            fill, lookup = _table_kernels(entry, t, list(values))
            out.append((qualified + " (table)", t.system, _error(ours, ideal), _text(fill + lookup, folder), float_text))
    for qualified in ("math.sum", "math.mean", "math.max", "math.min"):
        form = _op(qualified).compute
        for t in (F.D8, F.D16):
            out.append(_d_reduction_row(qualified, form, t, folder))
    for t in (F.Q7, F.Q15, F.Q31, F.D8, F.D16):
        out.append(_matmul_row(t, folder))
    for qualified in ("math.exp", "math.tanh", "math.sigmoid", "math.sin", "nn.softsign"):
        out.append(_interpolated_row(qualified, folder))
    return out


def _d_reduction_row(qualified: str, form: Any, t: F.FixedPointType, folder: Path) -> tuple[str, str, float, int, int]:
    """A D reduction of 64 elements (scale 0.02, offset 7 in; 0.3, -9 out; D16 offsets 0)."""
    r = F.d_reduction(form, t)
    assert isinstance(r, F.DReduction), r
    scales = {"x": float(np.float32(0.02)), "output": float(np.float32(0.3))}
    offsets = {"x": 7, "output": -9} if t.bits == 8 else {"x": 0, "output": 0}
    per_call = {k: np.int64(v) for k, v in r.per_call(scales, offsets).items()}
    x = _stored(t, SEED)[:64]
    env = {"x": ("x", r.domain), **{k: (k, "int64") for k in per_call}}
    mapped = np.asarray(_eval(scalar_numpy.render(r.map, r.domain, env)[0], {"x": x.astype(r.domain), **per_call}),
                        dtype=r.domain)
    acc = {"add": np.add, "max": np.maximum, "min": np.minimum}[r.combine].reduce(mapped)
    ours = R.numpy_run(r.finalize, {"acc": ("acc", r.domain), "n": ("n", "int64"), **{k: (k, "int64") for k in per_call}},
                       {"acc": acc, "n": np.int64(64), **per_call})
    real = _real(t, x, {"scale": scales["x"], "offset": offsets["x"]})
    exact = {"math.sum": np.sum, "math.mean": np.mean, "math.max": np.max, "math.min": np.min}[qualified](real)
    ideal = _ideal(t, np.asarray([exact]), {"scale": scales["output"], "offset": offsets["output"]})
    ct = C_TYPE[r.domain]
    names = list(per_call)
    mapped_c = scalar_c.render(r.map, r.domain, {"x": (f"(({ct})x[i])", r.domain), **{k: (k, "int32") for k in names}})[0]
    step = {"add": "acc += v;", "max": "if (v > acc) acc = v;", "min": "if (v < acc) acc = v;"}[r.combine]
    finalize = R.c_statement(r.finalize, "*output", {"acc": ("acc", r.domain), "n": ("n", "int32"),
                                                     **{k: (k, "int32") for k in names}})
    params = ", ".join([f"const {C_TYPE[t.storage]}* restrict x", f"{C_TYPE[t.storage]}* restrict output", "int n",
                        *(f"int32_t {k}" for k in names)])
    first = "0" if r.combine == "add" else f"(({ct})x[0])"
    source = (f"void kernel({params})\n{{\n    {ct} acc = {first};\n    for (int i = 0; i < n; i++) {{\n"
              f"        const {ct} v = {mapped_c};\n        {step}\n    }}\n    {finalize}\n}}\n")
    return (qualified, t.system, _error(np.asarray([ours]), ideal), _text(source, folder),
            _text(_float_reduction(form, ["x"]), folder))


def _matmul_row(t: F.FixedPointType, folder: Path) -> tuple[str, str, float, int, int]:
    """math.matmul of (8, 16) by (16, 8): Q at shifts 1 and 2 (the output's 3), D8 at scales 0.02
    and 0.01 (offsets 3 and -5) into 0.4 (offset -2), D16 at 1e-4 into 0.01."""
    form = _op("math.matmul").compute
    rng = np.random.default_rng(SEED)
    low, high = (-(2**28), 2**28) if t.bits == 32 else (t.lowest, t.highest)
    a = rng.integers(low, high, (8, 16), endpoint=True).astype(t.storage)
    b = rng.integers(low, high, (16, 8), endpoint=True).astype(t.storage)
    if t.family == "Q":
        c = F.q_contraction(form, t)
        per_call: dict[str, int] = {}
        given = {"a": {"shift": 1}, "b": {"shift": 2}}
        made = {"shift": 3}
    else:
        c = F.d_contraction(form, t)
        eight = t.bits == 8  # (scales that keep most results inside the output's range)
        given = {"a": {"scale": float(np.float32(0.02 if eight else 1e-4)), "offset": 3 if eight else 0},
                 "b": {"scale": float(np.float32(0.01 if eight else 1e-4)), "offset": -5 if eight else 0}}
        made = {"scale": float(np.float32(0.4 if eight else 0.01)), "offset": -2 if eight else 0}
        per_call = c.per_call({"a": given["a"]["scale"], "b": given["b"]["scale"], "output": made["scale"]},
                              {"a": given["a"]["offset"], "b": given["b"]["offset"], "output": made["offset"]})
    assert not isinstance(c, str), c
    values = {k: np.int64(v) for k, v in per_call.items()}
    env = {"a": ("a", "int64"), "b": ("b", "int64"), **{k: (k, "int64") for k in values}}
    terms = np.asarray(R.numpy_run(F.Conversion(c.map, "int64"), env,
                                   {"a": a.astype(np.int64)[:, :, None], "b": b.astype(np.int64)[None, :, :], **values}))
    ours = np.asarray(R.numpy_run(c.finalize, {"acc": ("acc", "int64"), **{k: (k, "int64") for k in values}},
                                  {"acc": terms.sum(axis=1), **values}))
    exact = _real(t, a, given["a"]) @ _real(t, b, given["b"])
    ideal = _ideal(t, exact, made)
    ct = C_TYPE[t.storage]
    names = list(per_call)
    term = scalar_c.render(c.map, "int64", {"a": ("(int64_t)a[i * k + p]", "int64"), "b": ("(int64_t)b[p * n + j]", "int64"),
                                            **{v: (v, "int32") for v in names}})[0]
    finalize = R.c_statement(c.finalize, "out[i * n + j]", {"acc": ("acc", "int64"), **{v: (v, "int32") for v in names}})
    params = ", ".join([f"const {ct}* restrict a", f"const {ct}* restrict b", f"{ct}* restrict out", "int m", "int k",
                        "int n", *(f"int32_t {v}" for v in names)])
    loops = ("    for (int i = 0; i < m; i++) {\n        for (int j = 0; j < n; j++) {\n            int64_t acc = 0;\n"
             f"            for (int p = 0; p < k; p++) acc += {term};\n            {finalize}\n        }}\n    }}\n")
    float_loops = ("void kernel(const float* restrict a, const float* restrict b, float* restrict out, int m, int k, int n)\n"
                   "{\n    for (int i = 0; i < m; i++) {\n        for (int j = 0; j < n; j++) {\n"
                   "            float acc = 0.0f;\n            for (int p = 0; p < k; p++) acc += a[i * k + p] * b[p * n + j];\n"
                   "            out[i * n + j] = acc;\n        }\n    }\n}\n")
    return ("math.matmul", t.system, _error(ours, ideal), _text(f"void kernel({params})\n{{\n{loops}}}\n", folder),
            _text(float_loops, folder))


def _interpolated_row(qualified: str, folder: Path) -> tuple[str, str, float, int, int]:
    """A Q15 op as 513 knots (shift 2 in, 0 out; exp 1 in, 3 out) and integer interpolation."""
    t, tree = F.Q15, _tree(qualified)
    shift_in, shift_out = (1, 3) if qualified == "math.exp" else (2, 0)
    table = F.interpolated_table(tree, t, t)
    values = {"x_factor": F.q_factor(t, shift_in), "output_factor": F.q_factor(t, shift_out)}
    knots = (t.lowest + F.KNOT_STEP * np.arange(table.knots)).astype(np.float64)
    entries = _numpy(table.entry, {"x": knots}, values)
    stored = np.arange(t.lowest, t.highest + 1).astype(np.int32)
    index = _numpy(F.Conversion(table.index, "int32"), {"x": stored}, {})
    fraction = _numpy(F.Conversion(table.fraction, "int32"), {"x": stored}, {})
    ours = _numpy(table.value, {"base": entries[index].astype(np.int32), "next": entries[index + 1].astype(np.int32),
                                "fraction": fraction}, {})
    ideal = _ideal(t, _exact(tree, {"x": _real(t, stored, {"shift": shift_in})}), {"shift": shift_out})
    fill, lookup = _table_kernels(table, t, list(values))
    return (qualified + " (513 knots)", t.system, _error(ours, ideal), _text(fill + lookup, folder),
            _text(_float_kernel(tree, ["x"]), folder))


def main(argv: list[str]) -> int:
    target = Path(argv[1]) if len(argv) > 1 else ROOT / "docs" / "fixed-point.md"
    with tempfile.TemporaryDirectory() as tmp:
        found = rows(Path(tmp))
    lines = ["# Fixed-point accuracy and size", "",
             "Measured by `benchmarks/fixed_point.py` (issue 20, ADR 0036): for each op whose fixed-point form the",
             "rules derive, the largest error over seeded random inputs, in steps of the output type (LSBs), against",
             "the exact result of the op's float reference on the same real values; and the Cortex-M4 `-Os` .text",
             "(bytes) of the kernel the rules render to, next to the float32 kernel of the op (newlib and libgcc",
             "calls not counted). Q results truncate as CMSIS-DSP does, so their error approaches one step (a Q31",
             "product, whose lowest bit CMSIS-DSP drops, two); D results round, within half a step and the",
             "rescaling's error. A table's size is its fill (run once per call's attributes) and its lookup loop;",
             "a reduction's is its loop over 64 elements and the one requantization at the end. A Q15 op",
             "interpolates 513 knots (its fill, then the lookup loop), within a step or three of exact.", "",
             "| op | type | largest error (LSB) | fixed-point .text | float32 .text |",
             "| --- | --- | ---: | ---: | ---: |"]
    lines += [f"| {op} | {t} | {err:.3f} | {fixed} | {flt} |" for op, t, err, fixed, flt in found]
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{target}: {len(found)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
