# Sourced by generate.sh and test.sh: make sure .venv holds this project with
# the given extras, pinned by requirements.lock. Installs only when
# pyproject.toml, the lock or the extras changed, so later runs start at once.
# usage: ensure_venv ROOT EXTRAS   (EXTRAS: "" or "test")
ensure_venv() {
    local root="$1" extras="$2"
    local venv="$root/.venv"
    local stamp="$venv/.opforge-stamp"
    local want
    want="$(cat "$root/pyproject.toml" "$root/requirements.lock" | sha256sum | cut -d' ' -f1) extras=$extras"
    if [ -x "$venv/bin/python" ] && [ -f "$stamp" ]; then
        # A venv made for the tests also serves generate.sh.
        if [ "$(cat "$stamp")" = "$want" ] || { [ -z "$extras" ] && grep -q "^${want% extras=*} extras=test$" "$stamp"; }; then
            return 0
        fi
    fi
    local python="${PYTHON:-}"
    if [ -z "$python" ]; then
        for candidate in python3.11 python3; do
            if command -v "$candidate" >/dev/null 2>&1; then python="$candidate"; break; fi
        done
    fi
    if [ -z "$python" ]; then
        echo "opforge needs Python 3.11 (python3.11 or python3 on PATH)" >&2
        return 1
    fi
    echo "setting up $venv (one time)..." >&2
    [ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
    local spec="$root"
    [ -n "$extras" ] && spec="$root[$extras]"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -c "$root/requirements.lock" -e "$spec" >&2
    echo "$want" >"$stamp"
}
