"""Assembles ``out/tests``: pytest parity suites, case data, and pure-C golden tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

from dsl.types import Language
from generators.api import GeneratedFile, GenerationContext
from generators.kernels.selection import code_ops, require_compute
from generators.formatting import black_format, c_comment, clang_format
from generators.kernels.reference import function_name
from generators.tests import cases, golden

_INPUTS = Path(__file__).resolve().parent / "inputs.py"


class TestsGenerator:
    name = "tests"
    summary = "pytest suites comparing the C kernels with the NumPy reference, and pure-C golden tests"
    language = Language.PYTHON
    options: dict[str, tuple[str, ...]] = {}

    def generate(self, context: GenerationContext) -> Sequence[GeneratedFile]:
        require_compute(context.namespaces, self.name)
        head = context.header(self.name)
        py = {
            "_inputs.py": f"# {head}\n" + _INPUTS.read_text(encoding="utf-8"),
            "conftest.py": f"# {head}\n" + CONFTEST,
            "test_philox.py": f"# {head}\n" + PHILOX_TEST.format(kat=golden.PHILOX_KAT),
        }
        c_sources = {"c/test_core.c": golden.philox_c_test(c_comment(head))}
        data: dict[str, str] = {}
        for ns in context.namespaces:
            h = context.header(self.name, [ns])
            all_cases = [(op, dtype, spec) for op in code_ops(ns) for dtype, spec in cases.cases(op)]
            rows = [json.dumps([function_name(op.name), dtype, spec], sort_keys=True) for op, dtype, spec in all_cases]
            data[f"cases_{ns.key}.json"] = "[\n" + ",\n".join(rows) + "\n]\n"
            py[f"test_{ns.key}.py"] = f"# {h}\n" + PARITY_TEST.format(ns=ns.key, name=ns.name)
            c_sources[f"c/test_{ns.key}.c"] = golden.c_test(ns, all_cases, c_comment(h))[0]
        tests = ["test_core"] + [f"test_{ns.key}" for ns in context.namespaces]
        files = [GeneratedFile(path, black_format(text)) for path, text in sorted(py.items())]
        files += [GeneratedFile(path, text) for path, text in sorted(data.items())]
        files += [GeneratedFile(path, text) for path, text in sorted(clang_format(c_sources).items())]
        files.append(GeneratedFile("c/Makefile", MAKEFILE.format(head=head, tests=" ".join(tests))))
        return files


CONFTEST = '''"""Makes the generated helpers importable; the tests need the installed opforge package."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
'''

PARITY_TEST = '''"""The C kernels of the {name} namespace against the NumPy reference, case by case."""

import json
from pathlib import Path

import pytest

from opforge import {ns} as ns
from _inputs import check_parity

CASES = json.loads((Path(__file__).resolve().parent / "cases_{ns}.json").read_text())


def _config(name, fields):
    return getattr(ns, name)(**fields)


@pytest.mark.parametrize(
    ("op", "dtype", "spec"), CASES, ids=[f"{{op}}-{{dtype}}-{{i}}" for i, (op, dtype, _) in enumerate(CASES)]
)
def test_c_matches_reference(op, dtype, spec):
    check_parity(getattr(ns, op), "{name}." + op, dtype, spec, _config)
'''

PHILOX_TEST = '''"""Philox4x32-10 known-answer vectors (Random123) in the C library and the NumPy reference."""

import numpy as np
import pytest

from opforge import _kernels, _native

KAT = {kat!r}


@pytest.mark.parametrize(("counter", "key", "want"), KAT)
def test_numpy_philox_matches_random123(counter, key, want):
    got = _kernels.philox4x32_10(tuple(np.array([c], dtype=np.uint32) for c in counter), key)
    assert tuple(int(w[0]) for w in got) == want


@pytest.mark.parametrize(("counter", "key", "want"), KAT)
def test_c_philox_matches_random123(counter, key, want):
    ffi, lib = _native.ffi, _native.lib
    out = ffi.new("uint32_t[4]")
    lib.opforge_philox4x32_10(ffi.new("uint32_t[4]", list(counter)), ffi.new("uint32_t[2]", list(key)), out)
    assert tuple(out) == want


def test_streams_are_bit_identical():
    ffi, lib = _native.ffi, _native.lib
    rng = np.random.default_rng(7)
    for _ in range(200):
        counter = [int(v) for v in rng.integers(0, 2**32, 4)]
        key = [int(v) for v in rng.integers(0, 2**32, 2)]
        out = ffi.new("uint32_t[4]")
        lib.opforge_philox4x32_10(ffi.new("uint32_t[4]", counter), ffi.new("uint32_t[2]", key), out)
        got = _kernels.philox4x32_10(tuple(np.array([c], dtype=np.uint32) for c in counter), key)
        assert tuple(out) == tuple(int(w[0]) for w in got)
'''

MAKEFILE = """# {head}
# Pure-C golden tests: `make check` builds and runs them (no Python needed).
CC ?= gcc
CFLAGS ?= -std=c99 -Wall -Wextra -Werror -pedantic -O2 -ffp-contract=off
C_DIR ?= ../../c
SRCS := $(wildcard $(C_DIR)/src/*.c)
TESTS := {tests}

all: $(TESTS)

test_%: test_%.c $(SRCS)
\t$(CC) $(CFLAGS) -I$(C_DIR)/include -I$(C_DIR)/src $^ -lm -o $@

check: all
\tfor t in $(TESTS); do ./$$t || exit 1; done

.PHONY: all check
"""
