"""add on 1,000,000 float32 values: opforge's C backend against numpy.add, side by side.

Run with the generated package installed:  python benchmarks/bench_add.py
Interleaves the two calls, repeats, and prints medians (no timing is asserted anywhere).
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from opforge import math as opf


def main(n: int = 1_000_000, rounds: int = 50) -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    out_c = np.empty_like(x)
    out_np = np.empty_like(x)
    assert np.array_equal(opf.add(x, y), np.add(x, y))
    times: dict[str, list[float]] = {"opforge c": [], "numpy": [], "opforge c, out=": [], "numpy, out=": []}
    for _ in range(rounds):
        for name, call in (("opforge c", lambda: opf.add(x, y)), ("numpy", lambda: np.add(x, y)),
                           ("opforge c, out=", lambda: opf.add(x, y, out=out_c)),
                           ("numpy, out=", lambda: np.add(x, y, out=out_np))):
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    for name, samples in times.items():
        print(f"{name:18s} median {statistics.median(samples) * 1e3:8.3f} ms")
    ratio = statistics.median(times["opforge c"]) / statistics.median(times["numpy"])
    print(f"ratio opforge/numpy (fresh output): {ratio:.2f}")


if __name__ == "__main__":
    main()
