"""The machine's memory bandwidth, as STREAM measures it: a copy (c = a) and a triad
(a = b + s * c) over float32 arrays far larger than the caches, in plain C built here with
cffi at -O3 and the host's vector extensions. No opforge code is involved."""

from __future__ import annotations

import importlib
import statistics
import sys
import tempfile
import time

import numpy as np
from cffi import FFI

SOURCE = """
#include <stdint.h>
void bench_copy(const float* restrict a, float* restrict c, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        c[i] = a[i];
    }
}
void bench_triad(float* restrict a, const float* restrict b, const float* restrict c, float s, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        a[i] = b[i] + s * c[i];
    }
}
"""
CDEF = """
void bench_copy(const float* a, float* c, int64_t n);
void bench_triad(float* a, const float* b, const float* c, float s, int64_t n);
"""


def _build(folder: str):
    ffi = FFI()
    ffi.cdef(CDEF)
    ffi.set_source("_opforge_stream", SOURCE, extra_compile_args=["-std=c99", "-O3", "-march=native"])
    ffi.compile(tmpdir=folder, verbose=False)
    sys.path.insert(0, folder)
    return importlib.import_module("_opforge_stream")


def bandwidth(n: int = 10_000_000, rounds: int = 20) -> dict[str, float]:
    """Bytes per second of the copy (8 per element) and of the triad (12 per element)."""
    with tempfile.TemporaryDirectory() as folder:
        module = _build(folder)
        ffi, lib = module.ffi, module.lib
        a, b, c = (np.full(n, v, np.float32) for v in (1.0, 2.0, 0.5))
        pa, pb, pc = (ffi.cast("float*", ffi.from_buffer(v)) for v in (a, b, c))
        copies, triads = [], []
        for _ in range(rounds):
            start = time.perf_counter()
            lib.bench_copy(pa, pc, n)
            copies.append(time.perf_counter() - start)
            start = time.perf_counter()
            lib.bench_triad(pa, pb, pc, 3.0, n)
            triads.append(time.perf_counter() - start)
            if len(triads) == 1:
                assert c[0] == 1.0 and a[0] == 2.0 + 3.0 * 1.0  # (the kernels ran)
            a.fill(1.0)
    return {"copy_bytes_per_s": 8 * n / statistics.median(copies), "triad_bytes_per_s": 12 * n / statistics.median(triads)}


if __name__ == "__main__":
    limit = bandwidth()
    print({k: f"{v / 1e9:.2f} GB/s" for k, v in limit.items()})
