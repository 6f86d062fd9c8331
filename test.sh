#!/usr/bin/env bash
# Set up everything the tests need, then run them: ./test.sh [pytest args]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$root/scripts/ensure-venv.sh"
ensure_venv "$root" "test"
cd "$root"
exec "$root/.venv/bin/python" -m pytest "$@"
