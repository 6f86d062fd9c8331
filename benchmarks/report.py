"""Runs the benchmarks and writes docs/benchmarks.md and docs/benchmarks.png (what bench.sh runs).

    python benchmarks/report.py [--skip-generation]

The package is generated into a temporary folder and its C backend built with the default
host flags of the generated build script; the kernels run in a child process with one
BLAS thread. Nothing is asserted: every target of issue 7 is reported as met or not, with
the measured ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import generation  # noqa: E402


def build_package(folder: Path) -> tuple[Path, str]:
    """The generated package installed as ``OPFORGE_NATIVE=1 pip install`` builds it (its
    backend, scikit-build-core, running its CMake project: ADR 0064), for the building machine's
    vector extensions: (folder to put on sys.path, the compile flags of the kernels)."""
    out, site, build = folder / "out", folder / "site", folder / "build"
    subprocess.run([sys.executable, "-m", "generators.cli", "all", "-projects", "python", "-outdir", str(out)],
                   cwd=ROOT, check=True, capture_output=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
                    "--no-build-isolation", "--target", str(site), f"-Cbuild-dir={build}",
                    "-Ccmake.define.CMAKE_EXPORT_COMPILE_COMMANDS=ON", str(out / "python")],
                   check=True, capture_output=True, env={**os.environ, "OPFORGE_NATIVE": "1"})  # (on request)
    commands = json.loads((build / "compile_commands.json").read_text())
    command = next(c["command"] for c in commands if Path(c["file"]).name == "math_1.c")
    flags = [f for f in command.split() if f.startswith(("-O", "-m", "-ffp", "-std"))]
    return site, " ".join(flags)


def install_seconds(project: Path, site: Path) -> float:
    """The wall time of ``pip install ./out/python`` as a user runs it (the build backend in an
    isolated environment, portable flags, every source compiled afresh), into an empty folder."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
                    "--target", str(site), str(project)], check=True, capture_output=True)
    return time.perf_counter() - start


def machine(flags: str) -> dict[str, str]:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    config = np.show_config(mode="dicts")
    blas = config.get("Build Dependencies", {}).get("blas", {})
    gcc = subprocess.run(["gcc", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    return {"CPU": cpu, "cores": str(len(os.sched_getaffinity(0))), "Python": platform.python_version(),
            "NumPy": f"{np.__version__}, BLAS {blas.get('name', '?')} {blas.get('version', '')}".strip(),
            "compiler": gcc, "opforge host flags": flags}


def kernels(site: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(site), "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    run = subprocess.run([sys.executable, str(HERE / "kernels.py")], env=env, capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"benchmarks/kernels.py failed:\n{run.stderr[-3000:]}")
    return json.loads(run.stdout)


def _met(ok: bool) -> str:
    return "met" if ok else "**not met**"


def _seconds(s: float) -> str:
    return f"{s * 1e3:.3f} ms" if s < 1 else f"{s:.2f} s"


def page(facts: dict[str, str], gen: dict[str, Any] | None, k: dict[str, Any], install_s: float) -> str:
    lines = ["# Benchmarks", "",
             "Written by `./bench.sh` (`benchmarks/report.py`). Every comparison runs opforge and NumPy "
             "side by side in one process on the same inputs, interleaved and repeated; the times are medians "
             "and the ratio is opforge's time over NumPy's (below 1: opforge is faster). Nothing here is "
             "asserted by the tests.", "", "| machine | |", "| --- | --- |"]
    lines += [f"| {key} | `{value}` |" for key, value in facts.items()]
    if gen is not None:
        lines += ["", "## Generation", "",
                  f"`generate all` for the whole catalogue ({gen['ops']} ops), each run a new process, "
                  f"median of {gen['rounds']}:", "", "| run | wall time | target | |", "| --- | ---: | ---: | --- |",
                  f"| first run, empty formatting cache | {gen['cold_s']:.2f} s | - | |",
                  f"| new process, cache warm, empty output folder | {gen['new_process_s']:.2f} s | 3 s | "
                  f"{_met(gen['new_process_s'] <= 3)} |",
                  f"| re-run, nothing changed ({gen['rerun_files_rewritten']} files rewritten) | "
                  f"{gen['rerun_s']:.2f} s | 1 s | {_met(gen['rerun_s'] <= 1 and gen['rerun_files_rewritten'] == 0)} |",
                  "", "Per target (one target per run, cache warm, start-up and loading included):", "",
                  "| target | ms per op |", "| --- | ---: |"]
        lines += [f"| {name} | {ms:.2f} |" for name, ms in gen["ms_per_op"].items()]
    lines += ["", "## Installing the package", "",
              f"`pip install ./out/python` (scikit-build-core building the C backend with CMake and Ninja on every "
              f"core, ADR 0064) takes {install_s:.1f} s (target 60 s: {_met(install_s <= 60)})."]
    lines += ["", "## Kernels against NumPy", "", "![throughput against size](benchmarks.png)", "",
              "Target: a ratio of at most 1.0 from 1e5 elements up. The 2-D cases have rows of 1,000.", "",
              "| kernel | dtype | elements | opforge | NumPy | ratio | target |", "| --- | --- | ---: | ---: | ---: | ---: | --- |"]
    for r in k["elementwise"]:
        target = _met(r["ratio"] <= 1.0) if r["n"] >= 100_000 else "-"
        lines.append(f"| {r['kind']} | {r['dtype']} | {r['n']:,} | {_seconds(r['opforge_s'])} | "
                     f"{_seconds(r['numpy_s'])} | {r['ratio']:.2f} | {target} |")
    b = k["bandwidth"]
    lines += ["", "## Memory bandwidth", "",
              f"A STREAM copy gives {b['copy_bytes_per_s'] / 1e9:.2f} GB/s and a triad {b['triad_bytes_per_s'] / 1e9:.2f} "
              f"GB/s (`benchmarks/stream.py`, plain C). At the triad's rate, adding 1e7 float32 (12 bytes an element) "
              f"takes {_seconds(b['add_implied_s'])}; opforge takes {_seconds(b['add_1e7_s'])}, "
              f"{b['add_over_limit']:.2f}x that (target 1.25x: {_met(b['add_over_limit'] <= 1.25)})."]
    lines += ["", "## Contractions", "", "matmul, float32, against `numpy.matmul` with one BLAS thread; target "
              "at least 0.3x NumPy's GFLOP/s at 256 and 1024.", "",
              "| size | opforge GFLOP/s | NumPy GFLOP/s | share | target |", "| ---: | ---: | ---: | ---: | --- |"]
    for r in k["contractions"]:
        share = r["opforge_gflops"] / r["numpy_gflops"]
        target = _met(share >= 0.3) if r["n"] >= 256 else "-"
        lines.append(f"| {r['n']} | {r['opforge_gflops']:.2f} | {r['numpy_gflops']:.2f} | {share:.2f} | {target} |")
    lines += ["", "## Convolutions", "", "float32, batch 1, against onnxruntime's Conv on one thread (its CPU "
              "provider, MLAS); target: within 2x its time.", "",
              "| case | opforge | onnxruntime | ratio | target |", "| --- | ---: | ---: | ---: | --- |"]
    for r in k["convolutions"]:
        lines.append(f"| {r['kind']} | {_seconds(r['opforge_s'])} | {_seconds(r['numpy_s'])} | {r['ratio']:.2f} | "
                     f"{_met(r['ratio'] <= r['limit'])} ({r['limit']}x) |")
    lines += ["", "## Random numbers and calls", "", "| case | opforge | NumPy | ratio | target |",
              "| --- | ---: | ---: | ---: | --- |"]
    for r in k["random"]:
        lines.append(f"| {r['kind']} float32, 1e7 (NumPy: Generator(Philox)) | {_seconds(r['opforge_s'])} | "
                     f"{_seconds(r['numpy_s'])} | {r['ratio']:.2f} | {_met(r['ratio'] <= 1.0)} |")
    for r in k["binding"]:  # (issue 21's targets; the out= row's second column is opforge allocating)
        lines.append(f"| {r['kind']}, {r['n']:,} elements | {r['opforge_s'] * 1e6:.2f} us | "
                     f"{r['numpy_s'] * 1e6:.2f} us{'' if r['against'] == 'NumPy' else ' (opforge)'} | "
                     f"{r['ratio']:.2f} | "
                     + ("- |" if r["limit"] is None else f"{_met(r['ratio'] <= r['limit'])} ({r['limit']}x) |"))
    return "\n".join(lines) + "\n"


def plot(k: dict[str, Any], target: Path) -> None:
    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    for ax, kind in zip(axes[:2], ("binary add", "sum, last axis")):
        rows = [r for r in k["elementwise"] if r["kind"] == kind and r["dtype"] == "float32"]
        sizes = [r["n"] for r in rows]
        ax.plot(sizes, [n / r["opforge_s"] / 1e9 for n, r in zip(sizes, rows)], "o-", label="opforge")
        ax.plot(sizes, [n / r["numpy_s"] / 1e9 for n, r in zip(sizes, rows)], "s--", label="NumPy")
        ax.set(xscale="log", xlabel="elements", ylabel="G elements / s", title=f"{kind}, float32")
        ax.legend()
    rows = k["contractions"]
    axes[2].plot([r["n"] for r in rows], [r["opforge_gflops"] for r in rows], "o-", label="opforge")
    axes[2].plot([r["n"] for r in rows], [r["numpy_gflops"] for r in rows], "s--", label="NumPy, 1 thread")
    axes[2].set(xscale="log", xlabel="n (n x n matrices)", ylabel="GFLOP/s", title="matmul, float32")
    axes[2].legend()
    fig.tight_layout()
    fig.savefig(target, dpi=100, metadata={"Software": None})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-generation", action="store_true", help="leave out the generation timings")
    options = parser.parse_args()
    gen = None if options.skip_generation else generation.measure()
    with tempfile.TemporaryDirectory() as tmp:
        site, flags = build_package(Path(tmp))
        install_s = install_seconds(Path(tmp) / "out" / "python", Path(tmp) / "user-site")
        measured = kernels(site)
    docs = ROOT / "docs"
    (docs / "benchmarks.md").write_text(page(machine(flags), gen, measured, install_s), encoding="utf-8")
    plot(measured, docs / "benchmarks.png")
    print(f"wrote {docs / 'benchmarks.md'} and {docs / 'benchmarks.png'}")


if __name__ == "__main__":
    main()
