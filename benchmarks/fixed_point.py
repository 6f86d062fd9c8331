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
from dsl.model import NO_DEFAULT  # noqa: E402
from dsl.scalar import resolve_enums, symbols  # noqa: E402
from generators.kernels import c_runtime, routines, scalar_c, scalar_numpy  # noqa: E402
from generators.kernels import fixed_point as R  # noqa: E402
from generators.kernels.scalar_c import C_TYPE  # noqa: E402
from generators.kernels.selection import code_ops  # noqa: E402

FLAGS = ["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16", "-std=c99", "-Os",
         "-ffunction-sections", "-fdata-sections", "-w"]
CATALOGUE = loader.load(ROOT / "ops").catalogue
SEED, COUNT = 20, 4096
KERNELS = routines.numpy_kernels()  # (the package's _kernels: the NumPy runtime and the routines)


def _op(qualified: str) -> Any:
    ns, _, name = qualified.partition(".")
    return CATALOGUE.namespace(ns).op(name)


def _eval(code: str, values: dict[str, Any]) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.asarray(eval(code, {"np": np, "_k": KERNELS, **values}))  # our own rendering


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
    ct, entry = C_TYPE[t.storage], C_TYPE[R.table_storage(derived, t)]
    fill = (f"int fill({entry}* restrict table, {', '.join(f'double {k}' for k in values)})\n{{\n"
            f"{R.c_table_fill(derived, t, 'table', {k: (k, 'float64') for k in values})}\nreturn 0;\n}}\n")
    lookup = _loop([f"const {entry}* restrict table", f"const {ct}* restrict x", f"{ct}* restrict output", "int n"],
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


def _float_kernel(tree: F.SExpr, names: list[str], args: tuple[str, ...] = ()) -> str:
    env = {n: (f"{n}[i]", "float32") for n in names} | {a: (a, "float32") for a in args}
    params = [*(f"const float* restrict {n}" for n in names), "float* restrict output", "int n",
              *(f"float {a}" for a in args)]
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
    """The float32 reduction the op's form describes (sum, mean, max, min, dot, norm): its map per
    element, its combine and its finalize, rendered as the float kernels render them, in a loop."""
    value = "x[i]" if form.map is None else scalar_c.render(form.map, "float32",
                                                            {n: (f"{n}[i]", "float32") for n in names})[0]
    step = {"add": "acc += v;", "max": "if (v > acc) acc = v;", "min": "if (v < acc) acc = v;"}[form.combine]
    first = "0.0f" if form.combine == "add" else "x[0]"
    result = "acc" if form.finalize is None else scalar_c.render(
        form.finalize, "float32", {"acc": ("acc", "float32"), "n": ("(float)n", "float32")})[0]
    params = ", ".join([*(f"const float* restrict {n}" for n in names), "float* restrict output", "int n"])
    return (f"void kernel({params})\n{{\n    float acc = {first};\n    for (int i = 0; i < n; i++) {{\n"
            f"        const float v = {value};\n        {step}\n    }}\n    *output = {result};\n}}\n")


# ------------------------------------------------------------------------------- rows


#: A value for each numeric arg a table reads that has no default (clip's bounds).
ARG_VALUES = {"clip_value_min": -0.5, "clip_value_max": 0.75}
#: Each type's attributes for a table's input and output: 8-bit within [-4, 4) or about [-2, 2);
#: 16-bit the same ranges, finer.
TABLE_ATTRIBUTES = {"q7": ({"shift": 2}, {"shift": 2}), "d8": ({"scale": 0.05, "offset": -3}, {"scale": 1 / 64, "offset": 0}),
                    "q15": ({"shift": 2}, {"shift": 2}),
                    "d16": ({"scale": 1 / 4096, "offset": 0}, {"scale": 1 / 4096, "offset": 0})}
Row = tuple[str, str, float | None, int, int]  # (None: the fill refuses)


def _ops() -> list[Any]:
    return [op for ns in CATALOGUE.namespaces for op in code_ops(ns)]


def _tree(op: Any) -> Any:
    """The op's tree, an enum's values as their indices (what every target passes)."""
    return resolve_enums(op.compute.case(()), op.enums)


def _args(op: Any) -> dict[str, float]:
    """The args the op's tree reads: their defaults (an enum's index), or ARG_VALUES."""
    used = symbols(op.compute.case(()))
    value = {a.name: a.default if a.default not in (None, NO_DEFAULT) else ARG_VALUES[a.name] for a in op.args
             if a.name in used}
    return {a: float(op.enums[a].index(v) if a in op.enums else v) for a, v in value.items()}


def rows(folder: Path) -> list[Row]:
    """(op, type, largest error in LSBs, fixed-point .text, float32 .text) of every kernel, table,
    reduction and contraction the rules derive for the catalogue's ops (the C API's and the
    package's, ``kernels.fixed_point``)."""
    out: list[Row] = []
    for op in _ops():
        if R.api_kernels(op):
            out += _elementwise_rows(op, folder)
    for op in _ops():
        for name, r in R.api_reductions(op).items():
            t = F.TYPES[name]
            if isinstance(r, F.QReduction):
                out.append(_q_reduction_row(op, r, t, folder))
            elif isinstance(r, F.DReduction):
                out.append(_d_reduction_row(op.qualified_name, op.compute, t, folder))
            else:
                out.append(_matmul_row(t, folder))
    for op in _ops():
        out += [_dense_row(op, F.TYPES[name], d, folder) for name, d in R.api_dense(op).items()]
        out += [_softmax_row(op, F.TYPES[name], d, folder) for name, d in R.api_softmax(op).items()]
    for op in _ops():
        tables = R.api_tables(op)
        if tables:
            float_text = _text(_float_kernel(_tree(op), ["x"], tuple(_args(op))), folder)
            out += [_table_row(op, F.TYPES[name], derived, float_text, folder) for name, derived in tables.items()]
    return out


def _elementwise_rows(op: Any, folder: Path) -> list[Row]:
    """Each Q and D kernel of an elementwise op on seeded inputs: Q at equal shifts and at 1 and 3,
    D at scales 0.02 and 0.07 into 0.09 (D8 offsets 10, -20 and -5); a comparison's error is a
    wrong truth (1)."""
    tree, names = _tree(op), [i.name for i in op.inputs]
    float_text = _text(_float_kernel(tree, names, tuple(_args(op))), folder)  # (a clamp's bounds: its args)
    out = []
    for name, kernel in R.api_kernels(op).items():
        t = F.TYPES[name]
        stored = {n: _stored(t, SEED + i) for i, n in enumerate(names)}
        if isinstance(kernel, F.Clamp):
            out.append(_clamp_row(op, t, kernel, stored[names[0]], float_text, folder))
            continue
        if isinstance(kernel, F.Log):
            out.append(_log_row(op, t, kernel, stored[names[0]], float_text, folder))
            continue
        if isinstance(kernel, F.DLog):
            out.append(_d_log_row(op, t, kernel, stored[names[0]], float_text, folder))
            continue
        if isinstance(kernel, F.QKernel):
            worst = 0.0
            for shifts in ({n: 2 for n in names}, dict(zip(names, (1, 3)))):
                values = {F.shift_of(n): s for n, s in shifts.items()}
                env = {k: (k, "int64") for k in values}
                wide = {k: np.int64(v) for k, v in values.items()}
                per_call = {p: int(_eval(scalar_numpy.render(e, "int64", env)[0], wide)) for p, e in kernel.per_call}
                ours = _numpy(kernel.value, {n: a.astype(kernel.value.domain) for n, a in stored.items()}, per_call)
                exact = _exact(tree, {n: _real(t, stored[n], {"shift": shifts[n]}) for n in names})
                if kernel.output_shift is None:  # (a comparison: a truth)
                    worst = max(worst, _error(ours, exact.astype(np.float64)))
                    continue
                made = {"shift": int(_eval(scalar_numpy.render(kernel.output_shift, "int64", env)[0], wide))}
                worst = max(worst, _error(ours, _ideal(t, exact, made)))
            per_call_names = [p for p, _ in kernel.per_call]
        else:
            attributes = {names[0]: (0.02, 10 if t.bits == 8 else 0), names[-1]: (0.07, -20 if t.bits == 8 else 0),
                          "output": (0.09, -5 if t.bits == 8 else 0)}
            attributes = {n: (float(np.float32(s)), o) for n, (s, o) in attributes.items()}
            values = kernel.per_call({n: s for n, (s, _) in attributes.items()}, {n: o for n, (_, o) in attributes.items()})
            ours = _numpy(kernel.value, {n: a.astype("int64") for n, a in stored.items()}, values)
            exact = _exact(tree, {n: _real(t, stored[n], {"scale": attributes[n][0], "offset": attributes[n][1]})
                                  for n in names})
            worst = _error(ours, exact.astype(np.float64) if kernel.kind in F.COMPARISONS else
                           _ideal(t, exact, {"scale": attributes["output"][0], "offset": attributes["output"][1]}))
            per_call_names = list(values)
        text = _text(_fixed_kernel(kernel.value, {n: t.storage for n in dict.fromkeys(names)}, per_call_names), folder)
        out.append((op.qualified_name, t.system, worst, text, float_text))
    return out


def _clamp_row(op: Any, t: F.FixedPointType, clamp: F.Clamp, stored: np.ndarray, float_text: int,
               folder: Path) -> Row:
    """A clamp at Q shift 2 or D scale 0.02 (D8 offset 10), its args at their defaults (or
    ARG_VALUES): the bounds converted by their rules, then the stored values clamped, against the
    exact result of the real values (a bound between two steps: its conversion's rounding)."""
    attributes = {"shift": 2} if t.family == "Q" else {"scale": 0.02, "offset": 10 if t.bits == 8 else 0}
    args = _args(op)
    env = {**{a: (a, "float64") for a in args},
           **{f"{clamp.input}_{a}": (f"np.float64({clamp.input}_{a})", "float64") for a in attributes}}
    values = {**args, **{f"{clamp.input}_{a}": v for a, v in attributes.items()}}
    bounds = {n: int(R.numpy_run(b, env, values)) for n, b in clamp.bounds}  # type: ignore[call-overload]
    ours = _numpy(clamp.value, {clamp.input: stored}, bounds)
    exact = _exact(op.compute.case(()), {clamp.input: _real(t, stored, attributes)} | args)
    text = _text(_fixed_kernel(clamp.value, {clamp.input: t.storage}, list(bounds)), folder)
    return (op.qualified_name, t.system, _error(ours, _ideal(t, exact, attributes)), text, float_text)


def _log_row(op: Any, t: F.FixedPointType, log: F.Log, stored: np.ndarray, float_text: int, folder: Path) -> Row:
    """A logarithm (the reference library's Log) at Q shift 8, natural, on the positive stored
    values: its constants by their rules, then arm_vlog's steps, against the exact logarithm at the
    output's shift."""
    x, shift = log.input, 8
    positive = np.abs(stored.astype(np.int64)).clip(1).astype(t.storage)
    lines = R.numpy_log_lines(log, op, {a: "None" for a in log.args})
    space: dict[str, Any] = {"np": np, "_k": KERNELS, F.shift_of(x): shift}
    exec("\n".join(lines), space)  # (the package's own rendering of the constants' rules)
    constants = {n: space[n] for n, _ in log.constants}
    ours = _numpy(log.value, {x: positive.astype(log.value.domain)}, constants)
    exact = _exact(op.compute.case(()), {x: _real(t, positive, {"shift": shift})})
    ideal = _ideal(t, exact, {"shift": space["output_shift"]})
    text = _text(_fixed_kernel(log.value, {x: t.storage}, list(constants)), folder)
    return (op.qualified_name, t.system, _error(ours, ideal), text, float_text)


def _d_log_row(op: Any, t: F.FixedPointType, log: F.DLog, stored: np.ndarray, float_text: int,
               folder: Path) -> Row:
    """A D16 logarithm, natural, of the values above the input's offset (scale 1/4096, offset 0)
    into scale 1/2048, against the exact logarithm."""
    x, attributes = log.input, {"x_scale": 1 / 4096, "x_offset": 0, "output_scale": 1 / 2048, "output_offset": 0}
    positive = np.abs(stored.astype(np.int64)).clip(1).astype(t.storage)
    lines = R.numpy_elementwise_lines(log, [x], [*attributes, F.LOG_FACTOR])
    space: dict[str, Any] = {"np": np, "_k": KERNELS, "quantize_multiplier": F.quantize_multiplier, x: positive,
                             F.LOG_FACTOR: 1.0, **attributes}
    exec("\n".join(lines), space)  # (the package's own rendering)
    exact = _exact(op.compute.case(()), {x: _real(t, positive, {"scale": 1 / 4096, "offset": 0})})
    ideal = _ideal(t, exact, {"scale": 1 / 2048, "offset": 0})
    params = [*(f"double {n}" if n.endswith("_scale") else f"int32_t {n}" for n in attributes),
              f"double {F.LOG_FACTOR}"]
    multipliers, env = R.c_multipliers(log.multipliers, (x, "output"), (F.LOG_FACTOR,))
    env |= {n: (n, "int32") for n in attributes if n.endswith("_offset")} | {"log_k": ("log_k", "int64")}
    env |= {x: (f"((int32_t){x}[i])", "int32")}
    k_line = R.c_statement(log.constants[0][1], "log_k", {"x_scale": ("x_scale", "float64")})
    body = R.c_statement(log.value, "output[i]", env)
    source = (f"void kernel(const int16_t* restrict {x}, int16_t* restrict output, int n, {', '.join(params)})\n{{\n"
              f"{multipliers}\nint64_t log_k;\n{k_line}\nfor (int i = 0; i < n; i++) {{\n{body}\n}}\n}}\n")
    return (op.qualified_name, t.system, _error(np.asarray(space["result"]), ideal), _text(source, folder), float_text)


def _dense_row(op: Any, t: F.FixedPointType, d: F.QDense | F.DDense, folder: Path) -> Row:
    """A dense layer of 32 rows of 4 features into 8 units (Q shifts 0, 0 and 1; D8 scales 0.02,
    0.01 and 0.001 into 0.01, offsets 10, -3, 4 and -5; D16 2**-12 each into 2**-10), against the
    exact x @ weights + bias, and the kernel's .text next to the float32 fragment's (made extern:
    a static inline function has no .text of its own)."""
    x, w, b = d.inputs
    stored = {x: _stored(t, SEED)[:128].reshape(32, 4), w: _stored(t, SEED + 1)[:32].reshape(4, 8),
              b: _stored(t, SEED + 2)[:8]}
    if isinstance(d, F.QDense):
        shifts = {x: 0, w: 0, b: 1}
        space: dict[str, Any] = {"bias_k": t.fraction_bits - (14 if t.bits == 32 else 0) + 1}
        reals = {n: _real(t, a, {"shift": shifts[n]}) for n, a in stored.items()}
        made = {"shift": 0}
    else:
        attributes = ({x: (0.02, 10), w: (0.01, -3), b: (0.001, 4), "output": (0.01, -5)} if t.bits == 8 else
                      {x: (2**-12, 0), w: (2**-12, 0), b: (2**-12, 0), "output": (2**-10, 0)})
        space = {f"{n}_{a}": v for n, (s, o) in attributes.items() for a, v in (("scale", s), ("offset", o))}
        reals = {n: _real(t, a, {"scale": attributes[n][0], "offset": attributes[n][1]}) for n, a in stored.items()}
        made = {"scale": attributes["output"][0], "offset": attributes["output"][1]}
    space |= {"np": np, "_k": KERNELS, "quantize_multiplier": F.quantize_multiplier, **stored}
    exec("\n".join(R.numpy_dense_lines(d)), space)  # (the package's own rendering)
    ideal = _ideal(t, reals[x] @ reals[w] + reals[b], made)
    from generators.kernels.c_emit.fragment import FragmentEmitter
    code = FragmentEmitter(op).emit()
    texts = {f.name: f.text for f in code.fragments}
    fixed = next(k for k in code.plain if k.fixed_point == t.name)
    single = next(k for k in code.plain if not k.fixed_point and k.variant.dtype == "float32")
    source = fixed.fragment.text.replace("static inline ", "")
    floats = ("".join(texts[n] for n in single.needs) + single.fragment.text).replace("static inline ", "")
    return (op.qualified_name, t.system, _error(np.asarray(space["result"]), ideal), _text(source, folder),
            _text(floats, folder))


def _softmax_row(op: Any, t: F.FixedPointType, d: F.Softmax, folder: Path) -> Row:
    """A softmax over 128 rows of 32 values (Q shift 2; D8 scale 0.05, offset 3 into TFLite's int8
    output, 1/256 and -128; D16 scale 0.001, offset 3 into its int16 output, 2^-15 and 0), against
    the exact softmax of the real values, and the kernel's and its table fill's .text next to the
    float32 fragment's (made extern: a static inline function has no .text)."""
    stored = _stored(t, SEED)[:4096].reshape(128, 32)
    if t.family == "Q":
        given, space, made = {"shift": 2}, {"x_shift": 2}, {"shift": 0}
    else:
        scale, out_scale, out_offset = (0.05, 1 / 256, -128) if t.bits == 8 else (0.001, 2.0 ** -15, 0)
        given, made = {"scale": scale, "offset": 3}, {"scale": out_scale, "offset": out_offset}
        space = {"x_scale": scale, "output_scale": out_scale, "output_offset": out_offset}
    space |= {"np": np, "_k": KERNELS, "quantize_multiplier": F.quantize_multiplier, d.x: stored}
    exec("\n".join(R.numpy_softmax_lines(d, t, "-1")), space)  # (the package's own rendering)
    real = _real(t, stored, given)
    p = np.exp(real - real.max(axis=-1, keepdims=True))
    ideal = _ideal(t, p / p.sum(axis=-1, keepdims=True), made)
    from generators.kernels.c_emit.fragment import FragmentEmitter
    code = FragmentEmitter(op).emit()
    texts = {f.name: f.text for f in code.fragments}
    fixed = next(k for k in code.plain if k.fixed_point == t.name)
    single = next(k for k in code.plain if not k.fixed_point and k.variant.dtype == "float32")
    source = (fixed.init.text + fixed.fragment.text).replace("static inline ", "")  # type: ignore[union-attr]
    floats = ("".join(texts[n] for n in single.needs) + single.fragment.text).replace("static inline ", "")
    return (op.qualified_name, t.system, _error(np.asarray(space["result"]), ideal), _text(source, folder),
            _text(floats, folder))


def _q_reduction_row(op: Any, r: F.QReduction, t: F.FixedPointType, folder: Path) -> Row:
    """A Q reduction of 64 elements at shifts 3 (x) and 1 (y), against the form's reduction of
    the real values (its map, its combine, its finalize), exactly."""
    form = op.compute
    names = ["x", "y"] if form.other else ["x"]
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
    out_shift = int(_eval(scalar_numpy.render(r.output_shift, "int64", {k: (k, "int64") for k in values})[0], values))
    exact = _exact_reduction(form, {name: _real(t, stored[name], {"shift": shifts[name]}) for name in names})
    ideal = _ideal(t, np.asarray([exact]), {"shift": out_shift})
    return (op.qualified_name, t.system, _error(np.asarray([ours]), ideal), _text(_fixed_reduction(r, names, t), folder),
            _text(_float_reduction(form, names), folder))


def _exact_reduction(form: Any, reals: dict[str, np.ndarray]) -> float:
    """The form's reduction of real values in float64: its map, its combine, its finalize."""
    mapped = reals["x"] if form.map is None else _exact(form.map, reals)
    acc = {"add": np.sum, "max": np.max, "min": np.min}[form.combine](mapped)
    if form.finalize is None:
        return float(acc)
    return float(_exact(form.finalize, {"acc": np.float64(acc), "n": np.float64(mapped.size)}))


def _table_row(op: Any, t: F.FixedPointType, derived: F.Conversion | F.InterpolatedTable, float_text: int,
               folder: Path) -> Row:
    """A unary op's table: every stored input of an 8-bit type through its entry, every 16-bit
    one through the 513 knots and the interpolation (TABLE_ATTRIBUTES in and out; the op's args
    at their defaults); a NaN of the float reference is the rule's real zero."""
    tree, args = _tree(op), _args(op)
    given, made = TABLE_ATTRIBUTES[t.name]
    given = {k: float(np.float32(v)) if k == "scale" else v for k, v in given.items()}
    made = {k: float(np.float32(v)) if k == "scale" else v for k, v in made.items()}
    if t.family == "Q":
        values = {"x_factor": F.q_factor(t, given["shift"]), "output_factor": F.q_factor(t, made["shift"])}
    else:
        values = {f"x_{k}": float(v) for k, v in given.items()} | {f"output_{k}": float(v) for k, v in made.items()}
    values |= args
    stored = np.arange(t.lowest, t.highest + 1)
    if isinstance(derived, F.InterpolatedTable):  # (the package's own lines: the fill, its check, the lookup)
        lines = R.numpy_table(derived, t, "x_stored", {k: (f"np.float64({k})", "float64") for k in values})
        space = {"np": np, "_k": KERNELS, "x_stored": stored.astype(t.storage), **values}
        label = f"{op.qualified_name} (513 knots)"
        with np.errstate(all="ignore"):
            try:
                exec("\n".join(lines), space)
            except ValueError:  # (refused at these attributes: no error to measure)
                fill, lookup = _table_kernels(derived, t, list(values))
                return (label, t.system, None, _text(fill + lookup, folder), float_text)
        ours = np.asarray(space["result"])
    else:
        ours = np.broadcast_to(_numpy(derived, {"x": stored.astype(np.float64)}, values), stored.shape)
        label = f"{op.qualified_name} (table)"
    exact = _exact(tree, {"x": _real(t, stored, given), **{k: np.float64(v) for k, v in args.items()}})
    exact = np.broadcast_to(exact, stored.shape)
    ideal = _ideal(t, np.where(np.isnan(exact), 0.0, exact), made)  # (NaN: the rule's real zero)
    fill, lookup = _table_kernels(derived, t, list(values))
    return (label, t.system, _error(ours, ideal), _text(fill + lookup, folder), float_text)


def _d_reduction_row(qualified: str, form: Any, t: F.FixedPointType, folder: Path) -> Row:
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
    exact = _exact_reduction(form, {"x": real})
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


def _matmul_row(t: F.FixedPointType, folder: Path) -> Row:
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


def main(argv: list[str]) -> int:
    target = Path(argv[1]) if len(argv) > 1 else ROOT / "docs" / "fixed-point.md"
    with tempfile.TemporaryDirectory() as tmp:
        found = rows(Path(tmp))
    lines = ["# Fixed-point accuracy and size", "",
             "Measured by `benchmarks/fixed_point.py` (issue 20, ADR 0036): for every op and type whose fixed-point",
             "kernel, table, reduction or matrix product the rules derive (what the C API, the package and the units",
             "compute; the ops that only move stored values are exact and not listed), the largest error over",
             "seeded random inputs (every stored value, for a table), in steps of the output type (LSBs), against",
             "the exact result of the op's float reference on the same real values; and the Cortex-M4 `-Os` .text",
             "(bytes) of the kernel the rules render to, next to the float32 kernel of the op (newlib and libgcc",
             "calls not counted). Q results truncate as CMSIS-DSP does, so their error approaches one step (a Q31",
             "product, whose lowest bit CMSIS-DSP drops, two); D results round, within half a step and the",
             "rescaling's error. A table's size is its fill (run once per call's attributes) and its lookup loop;",
             "a reduction's is its loop over 64 elements and the one requantization at the end. A 16-bit op",
             "interpolates 513 int32 knots (its fill, then the lookup loop), and the fill checks every input",
             "(ADR 0041): \"refused\" where the op jumps (floor, sign, a step's derivative), has a pole, leaves",
             f"its domain or bends too fast between two knots, missing by more than {F.TABLE_BOUND} steps somewhere,",
             "as the C API, the package and the units refuse such a call; a comparison's error is a",
             "wrong truth (1). A clamp (clip, relu6, hard_tanh, relu, step: ADR 0044) converts its bounds to",
             "stored values by the type's from-real rule and clamps or selects the stored values, in every type:",
             "its only error is that rounding of a bound between two steps. Tables read input and output",
             "attributes of [-4, 4)",
             "(Q: shift 2) or about [-2, 2)",
             "(D8: scale 0.05, offset -3 in, 1/64 out; D16: 1/4096 both), and the op's args at their defaults.", "",
             "| op | type | largest error (LSB) | fixed-point .text | float32 .text |",
             "| --- | --- | ---: | ---: | ---: |"]
    lines += [f"| {op} | {t} | {'refused' if err is None else f'{err:.3f}'} | {fixed} | {flt} |"
              for op, t, err, fixed, flt in found]
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{target}: {len(found)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
