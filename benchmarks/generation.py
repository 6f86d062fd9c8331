"""How long ``generate.sh`` takes: the whole catalogue, each run in a new process.

    python benchmarks/generation.py        (prints JSON; bench.sh puts it on docs/benchmarks.md)

* cold: an empty formatting cache and an empty output folder (a fresh clone's first run);
* new process: the formatting cache warm, the output folder empty (after an edit, every
  text that did not change is formatted already);
* re-run: nothing changed since the last run (no file may be rewritten);
* per target: one project at a time (warm cache, empty folder), in milliseconds per op.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dsl.loader import load  # noqa: E402
from generators import registry  # noqa: E402


def _run(out: Path, cache: Path, *extra: str) -> float:
    """Wall seconds of one ``opforge generate all`` in a new process."""
    env = {**os.environ, "OPFORGE_CACHE": str(cache)}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "generators.cli", "all", "-outdir", str(out), *extra], cwd=ROOT, env=env,
                   check=True, capture_output=True)
    return time.perf_counter() - start


def _mtimes(folder: Path) -> dict[str, int]:
    return {str(p): p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}


def measure(rounds: int = 3) -> dict[str, object]:
    ops = sum(len(ns.concrete_ops) for ns in load(ROOT / "ops").catalogue.namespaces)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        cold = [_run(base / "cold", base / "cache")]  # (one: it is some 40 s)
        cache = base / "cache"
        fresh = [_run(base / f"fresh{k}", cache) for k in range(rounds)]
        out = base / "fresh0"
        before = _mtimes(out)
        rerun = [_run(out, cache) for _ in range(rounds)]
        rewritten = sum(1 for path, stamp in _mtimes(out).items() if before.get(path) != stamp)
        targets = {}
        for name in registry.discover():
            seconds = [_run(base / f"{name}{k}", cache, "-projects", name) for k in range(rounds)]
            targets[name] = statistics.median(seconds) * 1000 / ops
    return {"ops": ops, "rounds": rounds, "cold_s": cold[0], "new_process_s": statistics.median(fresh),
            "rerun_s": statistics.median(rerun), "rerun_files_rewritten": rewritten, "ms_per_op": targets}


if __name__ == "__main__":
    print(json.dumps(measure(), indent=1))
