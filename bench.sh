#!/usr/bin/env bash
# Measure opforge side by side with NumPy and write docs/benchmarks.md and docs/benchmarks.png:
#   ./bench.sh [--skip-generation]
# Sets up .venv (the test extras: cffi, matplotlib) on first use, then generates the C
# library and the Python package into a temporary folder, builds the package's C backend
# for the host's vector extensions (OPFORGE_NATIVE=1: -O3 -march=native) and runs benchmarks/
# (a few minutes).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$root/scripts/ensure-venv.sh"
ensure_venv "$root" "test"
cd "$root"
exec "$root/.venv/bin/python" "$root/benchmarks/report.py" "$@"
