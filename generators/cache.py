"""Where opforge keeps what it can make again: formatted texts and run stamps (ADR 0024)."""

from __future__ import annotations

import os
import time
from pathlib import Path


def cache_dir() -> Path | None:
    """OPFORGE_CACHE (``off``: no cache), else $XDG_CACHE_HOME/opforge, else ~/.cache/opforge."""
    chosen = os.environ.get("OPFORGE_CACHE")
    if chosen == "off":
        return None
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "opforge"


#: How much the cache may hold before the least recently used entries go.
LIMIT_BYTES = 1 << 30
#: Pruning walks the cache: at most once per this many seconds.
PRUNE_EVERY = 24 * 3600


def prune(limit: int = LIMIT_BYTES) -> None:
    """Once a day at most: drop the least recently used files (by mtime, which a cache
    hit refreshes) until the cache holds at most three quarters of ``limit``."""
    folder = cache_dir()
    if folder is None or not folder.is_dir():
        return
    marker = folder / "last-prune"
    try:
        if time.time() - marker.stat().st_mtime < PRUNE_EVERY:
            return
    except FileNotFoundError:
        pass
    try:
        marker.touch()
        entries = [(p.stat().st_mtime, p.stat().st_size, p) for p in folder.rglob("*")
                   if p.is_file() and p != marker]
        total = sum(size for _, size, _ in entries)
        for _, size, path in sorted(entries):
            if total <= limit * 3 // 4:
                break
            path.unlink(missing_ok=True)
            total -= size
    except OSError:
        pass  # (a cache that cannot be pruned is only larger)
