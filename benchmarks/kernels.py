"""opforge's C kernels against NumPy, side by side in one process on the same inputs.

    python benchmarks/kernels.py   (with the generated package importable; prints JSON)

Every comparison interleaves the two calls (opforge, NumPy, opforge, ...), repeats them
and keeps the medians; both write into preallocated outputs where both can, so the
kernels are compared, not the allocators. Nothing here asserts a time.
Run it with OPENBLAS_NUM_THREADS=1 (bench.sh does): matmul is compared with one thread.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from opforge import cnn, math, nn, random  # noqa: E402
from stream import bandwidth  # noqa: E402

SIZES = (1_000, 100_000, 10_000_000)
ROW = 1_000  # the last axis of the 2-D cases


def _budget(n: int) -> int:
    """Repetitions: enough for a stable median, about a second of work per comparison."""
    return max(5, min(200, int(2e8 // max(n, 1))))


def side_by_side(ours: Callable[[], Any], theirs: Callable[[], Any], rounds: int) -> tuple[float, float]:
    """Median seconds of each, the two calls interleaved (after one warm-up call each)."""
    ours(), theirs()
    a, b = [], []
    for _ in range(rounds):
        start = time.perf_counter()
        ours()
        a.append(time.perf_counter() - start)
        start = time.perf_counter()
        theirs()
        b.append(time.perf_counter() - start)
    return statistics.median(a), statistics.median(b)


def _row(kind: str, dtype: str, n: int, ours: Callable[[], Any], theirs: Callable[[], Any],
         check: Callable[[], bool] | None = None, work: float | None = None) -> dict[str, Any]:
    """One comparison; ``work`` (elements, or flops) sets the repetitions, ``n`` by default."""
    if check is not None:
        assert check(), f"{kind} {dtype} {n}: opforge and NumPy disagree"
    t_ours, t_np = side_by_side(ours, theirs, _budget(int(work if work is not None else n)))
    return {"kind": kind, "dtype": dtype, "n": n, "opforge_s": t_ours, "numpy_s": t_np, "ratio": t_ours / t_np}


def elementwise(rng: np.random.Generator) -> list[dict[str, Any]]:
    rows = []
    for dtype in ("float32", "int32"):
        for n in SIZES:
            x = (rng.standard_normal(n) * 100).astype(dtype)
            y = (rng.standard_normal(n) * 100).astype(dtype)
            out, ref = np.empty_like(x), np.empty_like(x)
            rows.append(_row("unary abs", dtype, n, lambda: math.abs(x, out=out), lambda: np.abs(x, out=ref),
                             lambda: np.array_equal(math.abs(x), np.abs(x))))
            rows.append(_row("binary add", dtype, n, lambda: math.add(x, y, out=out), lambda: np.add(x, y, out=ref),
                             lambda: np.array_equal(math.add(x, y), np.add(x, y))))
            m = x.reshape(-1, ROW) if n >= ROW else x.reshape(1, -1)
            row, col = y[: m.shape[1]], y[: m.shape[0]].reshape(-1, 1)
            out2, ref2 = np.empty_like(m), np.empty_like(m)
            rows.append(_row("add a row", dtype, n, lambda: math.add(m, row, out=out2), lambda: np.add(m, row, out=ref2)))
            rows.append(_row("add a column", dtype, n, lambda: math.add(m, col, out=out2),
                             lambda: np.add(m, col, out=ref2)))
            last, first = np.empty(m.shape[0], dtype), np.empty(m.shape[1], dtype)
            rows.append(_row("sum, last axis", dtype, n, lambda: math.sum(m, [1], out=last),
                             lambda: np.sum(m, axis=1, out=last)))
            rows.append(_row("sum, first axis", dtype, n, lambda: math.sum(m, [0], out=first),
                             lambda: np.sum(m, axis=0, out=first)))
            rows.append(_row("argmax, last axis", dtype, n, lambda: math.argmax(m, -1), lambda: np.argmax(m, axis=-1),
                             lambda: np.array_equal(math.argmax(m, -1), np.argmax(m, axis=-1))))
            if dtype == "float32":
                def np_softmax(v: np.ndarray = m) -> np.ndarray:
                    e = np.exp(v - v.max(axis=-1, keepdims=True))
                    return e / e.sum(axis=-1, keepdims=True)
                rows.append(_row("softmax, last axis", dtype, n, lambda: nn.softmax(m, -1, out=out2), np_softmax,
                                 lambda: np.allclose(nn.softmax(m, -1), np_softmax(), rtol=1e-5, atol=1e-7)))
    return rows


def contractions(rng: np.random.Generator) -> list[dict[str, Any]]:
    rows = []
    for size in (64, 256, 1024):
        a = rng.standard_normal((size, size)).astype(np.float32)
        b = rng.standard_normal((size, size)).astype(np.float32)
        out, ref = np.empty_like(a), np.empty_like(a)
        flops = 2.0 * size**3
        row = _row("matmul", "float32", size, lambda: math.matmul(a, b, out=out), lambda: np.matmul(a, b, out=ref),
                   lambda: np.allclose(math.matmul(a, b), a @ b, rtol=1e-3, atol=1e-3), work=flops / 10)
        row |= {"opforge_gflops": flops / row["opforge_s"] / 1e9, "numpy_gflops": flops / row["numpy_s"] / 1e9}
        rows.append(row)
    return rows


def sampling() -> list[dict[str, Any]]:
    n = 10_000_000
    generator = np.random.Generator(np.random.Philox(7))
    out, ref = np.empty(n, np.float32), np.empty(n, np.float32)
    config = random.RandomConfig(seed=7)
    return [
        _row("normal", "float32", n, lambda: random.normal(shape=[n], random_config=config, out=out),
             lambda: generator.standard_normal(n, dtype=np.float32, out=ref)),
        _row("uniform", "float32", n, lambda: random.uniform(shape=[n], random_config=config, out=out),
             lambda: generator.random(n, dtype=np.float32, out=ref)),
    ]


def _onnx_conv(x: np.ndarray, w: np.ndarray, **attributes: Any) -> Callable[[], Any]:
    """onnxruntime running one ONNX Conv node on one thread (its CPU provider: MLAS)."""
    import onnxruntime as ort
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node("Conv", ["x", "w"], ["y"], **attributes)], "conv",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape),
                               helper.make_tensor_value_info("w", TensorProto.FLOAT, w.shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    feed = {"x": x, "w": w}
    return lambda: session.run(None, feed)[0]


def convolutions(rng: np.random.Generator) -> list[dict[str, Any]]:
    """Issue 23's cases against onnxruntime on one thread (target: within 2x its time), float32:
    conv2d and depthwise_conv2d of 64 channels at 56x56 with 3x3 filters (padded to keep the
    size), conv1d of 32 to 64 channels over 1,000 steps with a kernel of 5."""
    x2 = rng.standard_normal((1, 64, 56, 56), dtype=np.float32)
    w2 = rng.standard_normal((64, 64, 3, 3), dtype=np.float32)
    wd = rng.standard_normal((64, 1, 3, 3), dtype=np.float32)
    x1 = rng.standard_normal((1, 32, 1000), dtype=np.float32)
    w1 = rng.standard_normal((64, 32, 5), dtype=np.float32)
    cases = [("conv2d, 64 to 64 channels, 56x56, 3x3", lambda: cnn.conv2d(x2, w2, pads=(1, 1, 1, 1)),
              _onnx_conv(x2, w2, pads=[1, 1, 1, 1]), 2.0 * 64 * 64 * 9 * 56 * 56),
             ("depthwise_conv2d, 64 channels, 56x56, 3x3", lambda: cnn.depthwise_conv2d(x2, wd[:, 0], pads=(1, 1, 1, 1)),
              _onnx_conv(x2, wd, pads=[1, 1, 1, 1], group=64), 2.0 * 64 * 9 * 56 * 56),
             ("conv1d, 32 to 64 channels, length 1,000, kernel 5", lambda: cnn.conv1d(x1, w1),
              _onnx_conv(x1, w1), 2.0 * 64 * 32 * 5 * 996)]
    rows = []
    for kind, ours, theirs, flops in cases:
        row = _row(kind, "float32", int(flops), ours, theirs,
                   lambda: np.allclose(ours(), theirs(), rtol=1e-3, atol=1e-3), work=flops)
        rows.append(row | {"against": "onnxruntime", "limit": 2.0})
    return rows


def binding() -> list[dict[str, Any]]:
    """Issue 21's call targets: a small add within 2x NumPy's, a large one allocating its result
    within 1.1x, and out= no slower than allocating (``against`` says what the row compares with)."""
    x = np.arange(16, dtype=np.float32)
    big = np.random.default_rng(1).standard_normal(100_000).astype(np.float32)
    out = np.empty_like(big)
    return [_row("binding call, add", "float32", 16, lambda: math.add(x, x), lambda: np.add(x, x))
            | {"against": "NumPy", "limit": 2.0},
            # (no target: a Python number is converted in Python first, as the checked way converts it)
            _row("binding call, add a Python number (x + 2)", "float32", 16, lambda: math.add(x, 2),
                 lambda: np.add(x, 2)) | {"against": "NumPy", "limit": None},
            _row("add, a new result", "float32", 100_000, lambda: math.add(big, big), lambda: np.add(big, big))
            | {"against": "NumPy", "limit": 1.1},
            _row("add, out= (against opforge allocating)", "float32", 100_000, lambda: math.add(big, big, out=out),
                 lambda: math.add(big, big)) | {"against": "opforge", "limit": 1.0}]


def measure() -> dict[str, Any]:
    rng = np.random.default_rng(0)
    rows = elementwise(rng)
    limit = bandwidth(10_000_000)
    add = next(r for r in rows if r["kind"] == "binary add" and r["dtype"] == "float32" and r["n"] == 10_000_000)
    # add reads two arrays and writes one: 12 bytes per element of float32 at the triad's rate
    implied = 12 * add["n"] / limit["triad_bytes_per_s"]
    return {"elementwise": rows, "bandwidth": limit | {"add_1e7_s": add["opforge_s"], "add_implied_s": implied,
                                                       "add_over_limit": add["opforge_s"] / implied},
            "contractions": contractions(rng), "convolutions": convolutions(rng), "random": sampling(),
            "binding": binding()}


if __name__ == "__main__":
    print(json.dumps(measure(), indent=1))
