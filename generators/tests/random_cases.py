"""Seeded random cases: C against the NumPy reference, many draws per op and dtype.

Run ``python random_cases.py [--per N] [--seed S] [namespace ...]`` beside the case
files. Every (op, dtype) of a namespace gets N cases: its parity cases taken in turn
(rank 0, empty axes, the maximum rank, broadcast edges, refused shapes and args), each
with fresh values from its own seed (NaN, infinities and integer limits mixed in where
the case allows). With the package built under sanitizers (CFLAGS and LDFLAGS of its
CMake build), any out-of-bounds access or undefined behaviour ends the run.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import zlib
from pathlib import Path
from typing import Any, Iterator

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _inputs import check_parity  # noqa: E402

#: Namespace key -> its module in the opforge package (the tests generator writes the table).
MODULES: dict[str, str] = {}


def draws(cases: list[Any], per: int, seed: int) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """``per`` cases for every (op, dtype) in ``cases``, in the order they first appear."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for op, dtype, spec in cases:
        groups.setdefault((op, dtype), []).append(spec)
    for (op, dtype), specs in groups.items():
        for k in range(per):
            template = specs[k % len(specs)]
            fresh = zlib.crc32(repr((seed, template["seed"], k)).encode()) & 0x7FFFFFFF
            spec = dict(template, seed=fresh)
            if k >= len(specs) and fresh % 2:  # every case once as it is, then half of the draws reshaped
                spec["inputs"] = _resized(spec["inputs"], fresh)
                spec.pop("defaults", None)  # (resolved for the case's shapes, not these)
            yield op, dtype, spec


#: The sizes a resized axis takes: empty, a broadcast 1, and small ones.
SIZES = (0, 1, 1, 2, 3, 5)


def _resized(inputs: dict[str, Any], seed: int) -> dict[str, Any]:
    """The case's tensors with axis j (from the left) of every tensor that has one set to one
    size: same-shaped inputs stay alike, others may no longer fit (then both sides must refuse)."""
    axis, size = (seed >> 1) % 8, SIZES[(seed >> 4) % len(SIZES)]

    def one(t: dict[str, Any]) -> dict[str, Any]:
        shape = list(t["shape"])
        if axis < len(shape) and "matrix" not in t:  # (a matrix made positive definite stays square)
            shape[axis] = size
        return dict(t, shape=shape)

    return {name: [one(t) for t in t_or_list] if isinstance(t_or_list, list) else one(t_or_list)
            for name, t_or_list in inputs.items()}


def run(key: str, per: int, seed: int) -> tuple[int, int, list[str]]:
    """(groups, cases run, failures) for one namespace."""
    cases = json.loads((HERE / f"cases_{key}.json").read_text())
    module = importlib.import_module(f"opforge.{MODULES[key]}")

    def config(name: str, fields: dict[str, Any]) -> Any:
        return getattr(module, name)(**fields)

    failures: list[str] = []
    count = 0
    for op, dtype, spec in draws(cases, per, seed):
        count += 1
        try:
            check_parity(getattr(module, op), f"{key}.{op}", dtype, spec, config)
        except AssertionError as exc:
            failures.append(str(exc))
    return len({(op, dtype) for op, dtype, _ in cases}), count, failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("namespaces", nargs="*", help=f"of {', '.join(sorted(MODULES))} (default: all)")
    parser.add_argument("--per", type=int, default=200, help="cases per op and dtype (default 200)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the draws (default 0)")
    options = parser.parse_args(argv)
    keys = options.namespaces or sorted(MODULES)
    unknown = sorted(set(keys) - set(MODULES))
    if unknown:
        parser.error(f"no namespace {', '.join(unknown)}")
    failed = False
    for key in keys:
        groups, count, failures = run(key, options.per, options.seed)
        for failure in failures[:20]:
            print(f"FAIL {failure}")
        print(f"{key}: {count} random cases over {groups} op/dtype pairs, {len(failures)} failed")
        failed = failed or bool(failures)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
