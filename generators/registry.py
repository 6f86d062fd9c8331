"""Finds generator plug-ins: every sub-package of ``generators`` with a ``GENERATOR``."""

from __future__ import annotations

import importlib
import pkgutil

import generators
from generators.api import Generator


def discover() -> dict[str, Generator]:
    """All generators by name, in name order. Adding a target adds a folder."""
    found: dict[str, Generator] = {}
    for info in sorted(pkgutil.iter_modules(generators.__path__), key=lambda i: i.name):
        if not info.ispkg:
            continue
        module = importlib.import_module(f"generators.{info.name}")
        generator = getattr(module, "GENERATOR", None)
        if generator is None:
            continue
        if generator.name in found:
            raise RuntimeError(f"two generators are named {generator.name!r}")
        found[generator.name] = generator
    return dict(sorted(found.items()))
