#!/usr/bin/env bash
# Set up everything the tests need, then run them: ./test.sh [pytest args]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$root/scripts/ensure-venv.sh"
ensure_venv "$root" "test"
cd "$root"
# The Cortex-M tests need the ARM tool chain and QEMU, the C library's tests pkg-config and doxygen,
# the docs site's browser tests Debian's chromium:
# install what is missing, as root.
packages=""
if ! command -v arm-none-eabi-gcc >/dev/null 2>&1 || ! command -v qemu-system-arm >/dev/null 2>&1 \
    || [ ! -e /usr/lib/arm-none-eabi/lib/libc.a ]; then
    packages=" gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm"
fi
command -v pkg-config >/dev/null 2>&1 || packages="$packages pkg-config"
command -v doxygen >/dev/null 2>&1 || packages="$packages doxygen"
command -v chromium >/dev/null 2>&1 || packages="$packages chromium"
if [ -n "$packages" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing$packages (one time)..." >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $packages >/dev/null \
            || { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive \
                 apt-get install -y -qq --no-install-recommends $packages >/dev/null; }
    else
        echo "note: missing$packages; the tests that need them will fail or skip" >&2
    fi
fi
# One worker per core, each test module on one worker (its generated files and builds are made once).
exec "$root/.venv/bin/python" -m pytest -n auto --dist loadfile "$@"
