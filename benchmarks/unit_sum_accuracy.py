"""Accuracy of the float32 sums in opforge's units, next to NumPy and the real DEEPCRAFT units.

Run on demand (it needs gcc and the reference unit library, ../shared/reference/deepcraft-unit-library
or $OPFORGE_UNIT_LIBRARY):

    .venv/bin/python benchmarks/unit_sum_accuracy.py [docs/unit-sum-accuracy.md]

A unit's float32 sums accumulate in float32 in blocks (ADR 0032), not in double: on a Cortex-M4
a double add is a library call. This measures what that costs in accuracy, the way
``unit_sizes.py`` measures the code: each unit's C implementation for a float32 input of one row
is chosen by ``unit-check``'s evaluation, assembled from its fragments as a firmware is, compiled
for this host (``-O2``, no fast-math) and called through ctypes on random inputs; the real units
of the same job are measured the same way, and NumPy's float32 result beside them. The error of
a result is its distance from the exact one (``math.fsum`` of the float32 terms, in double),
in float32 epsilons times the sum of the terms' magnitudes (the scale a float sum's rounding
errors are bounded by; for a norm, whose terms are squares, the norm itself).
"""

from __future__ import annotations

import ctypes
import math
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.unit_sizes import library, source  # noqa: E402
from generators.imunit import checker  # noqa: E402

SIZES = (64, 512, 4096, 32768)
TRIALS = 50
EPS = float(np.finfo(np.float32).eps)

#: (what is computed, opforge unit and its input, real unit and its input, the scale of the
#: error (in float32 epsilons), the exact result (in double), NumPy's float32 result).
CASES: list[tuple[str, str, str, str, str, Callable[[np.ndarray], float], Callable[[np.ndarray], float],
                  Callable[[np.ndarray], float]]] = [
    ("sum of x in [-1, 1)", "math/sum", "x", "Imaginet.Units.Math/Single/Sum", "input",
     lambda x: math.fsum(np.abs(x.astype(np.float64))), math.fsum, lambda x: float(np.sum(x))),
    ("norm of x in [-1, 1)", "math/norm2", "x", "Imaginet.Units.Math/Single/Norm", "input",
     lambda x: float(np.sqrt(math.fsum(x.astype(np.float64) ** 2))),
     lambda x: math.sqrt(math.fsum(x.astype(np.float64) ** 2)), lambda x: float(np.linalg.norm(x))),
]


def compiled(path: Path, socket: str, n: int, folder: Path, name: str) -> Callable[[np.ndarray], float]:
    """The unit's C implementation for a float32 input of one row of ``n`` elements, as a function of x."""
    chosen = [c for c in checker.implementations(path, dict([checker.parse_input(f"{socket}=Float32[1,{n}]")]))
              if c.language == "C"]
    c_file, library_file = folder / f"{name}.c", folder / f"{name}.so"
    c_file.write_text(source(chosen), encoding="utf-8")
    subprocess.run(["gcc", "-std=c99", "-O2", "-fPIC", "-shared", "-w", str(c_file), "-o", str(library_file),
                    "-lm"], check=True, capture_output=True, text=True)
    entry = ctypes.CDLL(str(library_file)).unit_entry_0
    arguments = chosen[0].arguments

    def run(x: np.ndarray) -> float:
        out = np.zeros(1, np.float32)
        buffers = iter((x, out))
        given = [next(buffers).ctypes.data_as(ctypes.c_void_p) if isinstance(a, checker.Tensor) else ctypes.c_int(a)
                 for a in arguments]
        entry(*given)
        return float(out[0])
    return run


def main(target: Path) -> None:
    reference = library()
    rng = np.random.default_rng(2026)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        subprocess.run([sys.executable, "-m", "generators.cli", "generate", "math", "-projects", "imunit",
                        "-outdir", str(folder)], cwd=ROOT, check=True, capture_output=True)
        for what, unit, socket, real, real_socket, magnitude, exact, numpy_result in CASES:
            for n in SIZES:
                # (one file name per library: the loader hands back a library already loaded)
                tag = f"{unit.replace('/', '_')}_{n}"
                ours = compiled(folder / "imunit" / unit / f"{unit.rsplit('/', 1)[1]}.imunit", socket, n, folder,
                                f"ours_{tag}")
                theirs = compiled(next((reference / real).glob("*.imunit")), real_socket, n, folder, f"real_{tag}")
                worst = {"opforge": 0.0, "real": 0.0, "numpy": 0.0}
                for _ in range(TRIALS):
                    x = rng.uniform(-1, 1, n).astype(np.float32)
                    want, scale = exact(x), magnitude(x) * EPS
                    for key, got in (("opforge", ours(x)), ("real", theirs(x)), ("numpy", numpy_result(x))):
                        worst[key] = max(worst[key], abs(got - want) / scale)
                rows.append(f"| {what} | {n} | {worst['opforge']:.2f} | {worst['real']:.2f} | {worst['numpy']:.2f} |")
    lines = ["# Accuracy of the units' float32 sums", "",
             "Measured by `benchmarks/unit_sum_accuracy.py`: the worst error over "
             f"{TRIALS} random inputs, in float32 epsilons times the sum of the terms' magnitudes,",
             "of the float32 implementation of each opforge unit (a sum in blocks of 16 elements, ADR 0032),",
             "of the real DEEPCRAFT unit of the same job (one running float32 sum) and of NumPy (pairwise).",
             "", "| computed | elements | opforge unit | real unit | NumPy |", "| --- | ---: | ---: | ---: | ---: |",
             *rows, ""]
    target.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "unit-sum-accuracy.md")
