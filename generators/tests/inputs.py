"""Seeded test inputs and the C-versus-Python comparison.

Copied into the generated test suite as ``_inputs.py``, and imported by the
tests generator to compute golden vectors, so both build the same inputs.
"""

from __future__ import annotations

import re
from typing import Any, Callable

import numpy as np

FLOAT_SPECIALS = (np.inf, -np.inf, np.nan, -0.0, 0.0)


def make_array(rng: np.random.Generator, dtype: str, shape: tuple[int, ...], extreme: bool,
               low: float | None = None, high: float | None = None) -> np.ndarray:
    """Random values of ``dtype``; ``extreme`` mixes in infinities, NaN and integer limits."""
    dt = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64))
    if dt == np.bool_:
        values = rng.integers(0, 2, n).astype(bool)
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        lo = info.min if low is None else max(info.min, int(low))
        hi = info.max if high is None else min(info.max, int(high))
        values = rng.integers(lo, hi, n, dtype=dt, endpoint=True)
        if extreme and n:
            picks = rng.integers(0, n, max(1, n // 8))
            values[picks] = rng.choice(np.array([lo, hi, 0, -1 if lo < 0 else 1], dtype=dt), len(picks))
    else:
        lo = -3.0 if low is None else low
        hi = 3.0 if high is None else high
        values = rng.uniform(lo, hi, n).astype(dt)
        if extreme and n:
            picks = rng.integers(0, n, max(1, n // 8))
            values[picks] = rng.choice(np.array(FLOAT_SPECIALS, dtype=dt), len(picks))
    return values.reshape(shape)


def spd(m: np.ndarray) -> np.ndarray:
    """Symmetric positive definite, well-conditioned matrices from square ones:
    M M^T + n I in the last two axes (what decompositions and solvers need); anything else
    as it is (a spoiled or reshaped case)."""
    if m.ndim < 2 or m.shape[-1] != m.shape[-2]:
        return m
    n = m.shape[-1]
    product = np.matmul(m, np.swapaxes(m, -1, -2), dtype=np.float64) / max(n, 1)
    with np.errstate(invalid="ignore", over="ignore"):  # (a spoiled case: integer matrices)
        return (product + n * np.eye(n)).astype(m.dtype)


def build(spec: dict[str, Any], configs: Callable[[str, dict[str, Any]], Any] | None = None) -> dict[str, Any]:
    """Keyword arguments for a case: ``spec["inputs"]`` name -> {shape, dtype, view,
    extreme, low, high}; ``spec["args"]`` passed as they are, except configs
    (``{"__config__": name, field: value}``), which ``configs`` builds."""
    rng = np.random.default_rng(spec["seed"])
    kwargs: dict[str, Any] = {}
    for name, t in spec["inputs"].items():
        if isinstance(t, list):  # a tensor list
            kwargs[name] = [build({"seed": spec["seed"] + k, "inputs": {name: one}, "args": {}})[name]
                            for k, one in enumerate(t)]
            continue
        shape = tuple(t["shape"])
        if t.get("view") == "strided":
            # A non-contiguous view: every other element of a larger array.
            big = make_array(rng, t["dtype"], tuple(2 * s for s in shape), t["extreme"], t.get("low"), t.get("high"))
            kwargs[name] = big[tuple(slice(None, None, 2) for _ in shape)]
        else:
            kwargs[name] = make_array(rng, t["dtype"], shape, t["extreme"], t.get("low"), t.get("high"))
        if t.get("sorted"):
            kwargs[name] = np.sort(kwargs[name], axis=None).reshape(shape)
        if t.get("whole") and kwargs[name].dtype.kind == "f":  # whole numbers, so that values repeat (set
            kwargs[name] = np.round(kwargs[name])  # differences find matches; np.round makes a bool float16)
        if t.get("matrix") == "spd":
            kwargs[name] = spd(kwargs[name])
        elif t.get("matrix") == "zero":  # singular, and not positive definite
            kwargs[name] = np.zeros_like(kwargs[name])
        if "fixed" in t:  # stored values of a fixed-point type, with its attributes (ADR 0068)
            from opforge.fixed_point import FixedPointArray  # (the suite's package; golden vectors have none)

            fixed = dict(t["fixed"])
            kwargs[name] = FixedPointArray(kwargs[name], fixed.pop("type"), **fixed)
    for name, value in spec["args"].items():
        if isinstance(value, dict) and "__config__" in value:
            fields = {k: v for k, v in value.items() if k != "__config__"}
            value = configs(value["__config__"], fields) if configs else fields
        kwargs[name] = value
    return kwargs


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Units in the last place between floats (NaN vs NaN is 0; NaN vs number is huge)."""
    a = np.asarray(a)
    b = np.asarray(b)
    itype = {np.dtype(np.float16): np.int16, np.dtype(np.float32): np.int32}.get(a.dtype, np.int64)
    ia = a.view(itype).astype(np.int64)
    ib = b.view(itype).astype(np.int64)
    sign = np.int64(np.iinfo(itype).min)
    ia = np.where(ia < 0, sign - ia, ia)
    ib = np.where(ib < 0, sign - ib, ib)
    dist = np.abs(ia - ib).astype(np.float64)
    both_nan = np.isnan(a) & np.isnan(b)
    one_nan = np.isnan(a) ^ np.isnan(b)
    return np.where(both_nan, 0.0, np.where(one_nan, np.inf, dist))


def worst_error(got: np.ndarray, want: np.ndarray, tol: dict[str, float], scale: float) -> tuple[float, bool]:
    """(worst error, within tolerance): exact for bool, integers within ``tol["ulps"]`` of each
    other (0 but for an integer computed through floats); floats within ``tol["ulps"]`` units
    in the last place or ``tol["abs"] * scale``."""
    if got.dtype.kind not in "f":
        if got.dtype.kind in "iu" and tol["ulps"]:
            apart = np.abs(got.astype(np.int64) - want.astype(np.int64))
            return float(apart.max(initial=0)), bool(np.all(apart <= tol["ulps"]))
        bad = got != want
        return float(np.count_nonzero(bad)), not bool(np.any(bad))
    ulps = ulp_distance(got, want)
    both_finite = np.isfinite(got) & np.isfinite(want)
    with np.errstate(invalid="ignore", over="ignore"):
        absolute = np.where(both_finite, np.abs(got.astype(np.float64) - want.astype(np.float64)), 0.0)
    ok = (ulps <= tol["ulps"]) | (both_finite & (absolute <= tol["abs"] * scale))
    worst = float(np.max(ulps)) if ulps.size else 0.0
    return worst, bool(np.all(ok))


def stream_events(make: Callable[..., Any], stream: dict[str, Any], seed: int, backend: str) -> list[Any]:
    """Enqueue the blocks of a stream scenario, dequeue every ready window; what happened, in order."""
    rng = np.random.default_rng(seed)
    queue = make(stream["window"], stream["stride"], tuple(stream["frame_shape"]), stream["dtype"], backend=backend)
    events: list[Any] = []
    for n in stream["blocks"]:
        block = make_array(rng, stream["dtype"], (n, *stream["frame_shape"]), extreme=True)
        try:
            queue.enqueue(block)
            events.append(("enqueue", block, "ok"))
        except ValueError as exc:
            events.append(("enqueue", block, str(exc)))
        while queue.ready():
            events.append(("window", queue.dequeue()))
    return events


#: How every refusal starts: the op that refused (the rule it quotes follows).
REFUSAL = re.compile(r"\w+\.(\w+): ")


def _names_the_op(message: str, op: str) -> bool:
    """The refusal starts with ``op``'s name (as the DSL or Python spells it)."""
    found = REFUSAL.match(message)
    return found is not None and found[1].replace("_", "").lower() == op.split(".")[-1].replace("_", "").lower()


def check_parity(fn: Callable[..., np.ndarray], op: str, dtype: str, spec: dict[str, Any],
                 configs: Callable[[str, dict[str, Any]], Any] | None = None,
                 refusals: tuple[type[Exception], ...] = (ValueError,)) -> Any:
    """Run the C kernels and the NumPy reference on the same inputs and compare: equal
    results, or the same error (of ``refusals``) from both, each naming the op. The
    reference's outcome (a result or the error) is returned."""
    if "stream" in spec:
        c_events = stream_events(fn, spec["stream"], spec["seed"], "c")
        py_events = stream_events(fn, spec["stream"], spec["seed"], "python")
        where = f"{op} {dtype} stream {spec['stream']} seed {spec['seed']}"
        assert [e[0] for e in c_events] == [e[0] for e in py_events], (where, c_events, py_events)
        for a, b in zip(c_events, py_events):
            if a[0] == "window":
                assert a[1].dtype == b[1].dtype and np.array_equal(a[1], b[1], equal_nan=a[1].dtype.kind == "f"), where
            else:
                assert a[2] == b[2], (where, a[2], b[2])
        return None
    results = {}
    for backend in ("c", "python"):
        kwargs = build(spec, configs)
        try:
            results[backend] = fn(**kwargs, backend=backend)
        except refusals as exc:
            results[backend] = exc
    c, py = results["c"], results["python"]
    shapes = {k: [getattr(x, "shape", x) for x in v] if isinstance(v, list) else getattr(v, "shape", v)
              for k, v in build(spec, configs).items()}
    where = f"{op} {dtype} shapes/args {shapes} seed {spec['seed']}"
    if spec.get("defaults"):  # args left to computed defaults: the same as giving their values
        try:
            explicit = fn(**build(spec, configs), **spec["defaults"], backend="python")
        except refusals as exc:
            explicit = exc
        assert type(explicit) is type(py), f"{where}: with {spec['defaults']} given: {explicit!r}, left out: {py!r}"
        if not isinstance(py, Exception):
            assert explicit.dtype == py.dtype and explicit.shape == py.shape and np.array_equal(
                explicit, py, equal_nan=py.dtype.kind == "f"), f"{where}: left out {spec['defaults']} gives " \
                f"{py.dtype}{py.shape}, given {explicit.dtype}{explicit.shape}"
    if isinstance(py, Exception) or isinstance(c, Exception):
        assert type(c) is type(py), f"{where}: C gave {c!r}, Python gave {py!r}"
        assert _names_the_op(str(c), op) and _names_the_op(str(py), op), f"{where}: C gave {c!r}, Python gave {py!r}"
        return py
    assert type(c) is type(py), f"{where}: C gave {type(c).__name__}, Python {type(py).__name__}"
    if hasattr(py, "stored"):  # a FixedPointArray: the same type, attributes and stored values, bit for bit
        same = (c.type, c.shift, c.scale, c.offset) == (py.type, py.shift, py.scale, py.offset)
        assert same and np.array_equal(c.stored, py.stored), f"{where}: C gave {c!r}, Python gave {py!r}"
        return py
    # A list output: as many arrays from each backend.
    assert not isinstance(c, list) or len(c) == len(py), f"{where}: C gave {len(c)} arrays, Python {len(py)}"
    given = [x for v in build(spec, configs).values() for x in (v if isinstance(v, list) else [v])]
    inputs = [v for v in given if isinstance(v, np.ndarray) and v.dtype.kind == "f"]
    finite = [np.max(np.abs(v[np.isfinite(v)]), initial=0.0) for v in inputs]
    # An op with several outputs returns a tuple, one with a list output a list: each array is compared.
    several = isinstance(c, (tuple, list))
    for k, (c_k, py_k) in enumerate(zip(c, py) if several else [(c, py)]):
        at = f"{where} output {k}" if several else where
        assert c_k.shape == py_k.shape and c_k.dtype == py_k.dtype, \
            f"{at}: C {c_k.dtype}{c_k.shape} vs Python {py_k.dtype}{py_k.shape}"
        top = float(np.max(np.abs(py_k[np.isfinite(py_k)]), initial=0.0)) if py_k.dtype.kind == "f" else 1.0
        worst, ok = worst_error(c_k, py_k, spec["tol"], max([1.0, *finite, top]))
        assert ok, f"{at}: worst error {worst} (ulps or mismatches) over tolerance {spec['tol']}"
    return py
