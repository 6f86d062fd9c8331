#!/usr/bin/env bash
# Generate targets from the op definitions, e.g.
#   ./generate.sh math,random -projects c
#   ./generate.sh all -docsdir site
#   ./generate.sh list | validate
# Sets up .venv on first use.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$root/scripts/ensure-venv.sh"
ensure_venv "$root" ""
export OPFORGE_HOME="$root"
exec "$root/.venv/bin/opforge" "$@"
