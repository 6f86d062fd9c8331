"""Assembles ``out/tests``: pytest parity suites, case data, and pure-C golden tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

from dsl import compute as C
from dsl.types import Language
from generators.api import GeneratedFile, GenerationContext
from generators.kernels.selection import code_ops, require_compute
from generators.formatting import black_format, c_comment, clang_format
from generators.kernels.py_names import function_name, module_name
from generators.tests import cases, golden

_INPUTS = Path(__file__).resolve().parent / "inputs.py"
_RANDOM_CASES = Path(__file__).resolve().parent / "random_cases.py"
#: The firmware harness of the golden tests: start-up code and the board's memory map.
_CORTEX_M = Path(__file__).resolve().parent / "cortex_m"


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
            runs = {op.name: cases.python_dtypes(op) for op in code_ops(ns)}  # (the package's variants, once an op)
            rows = [json.dumps([function_name(op.name), dtype, cases.call_spec(op, spec)], sort_keys=True)
                    for op, dtype, spec in all_cases if dtype in runs[op.name]]
            data[f"cases_{ns.key}.json"] = "[\n" + ",\n".join(rows) + "\n]\n"
            spoiled = [json.dumps([function_name(op.name), *case], sort_keys=True)
                       for op in code_ops(ns) for case in cases.spoiled_cases(op)]
            data[f"spoiled_{ns.key}.json"] = "[\n" + ",\n".join(spoiled) + "\n]\n"
            py[f"test_{ns.key}.py"] = f"# {h}\n" + PARITY_TEST.format(module=module_name(ns.key), key=ns.key, name=ns.name)
            book = golden.CaseBook(ns)
            # (a conversion's operands are FixedPointArrays, whose golden values the package's rules give:
            # the parity cases above hold its C to them, bit for bit; ADR 0068)
            plain = [case for case in all_cases if not isinstance(case[0].compute, C.FixedPointConversion)]
            c_sources[f"c/test_{ns.key}.c"] = golden.c_test(ns, plain, c_comment(h), book)[0]
            hostile_text, hostile_count = golden.hostile_c_test(ns, plain, c_comment(h), book)
            if hostile_count:  # (a namespace of stream ops only has none)
                c_sources[f"c/hostile_{ns.key}.c"] = hostile_text
        modules = {ns.key: module_name(ns.key) for ns in context.namespaces}
        empty = "MODULES: dict[str, str] = {}\n"
        driver = _RANDOM_CASES.read_text(encoding="utf-8")
        assert driver.count(empty) == 1
        py["random_cases.py"] = f"# {head}\n" + driver.replace(empty, f"MODULES: dict[str, str] = {modules!r}\n")
        tests = ["test_core"] + [f"test_{ns.key}" for ns in context.namespaces]
        files = [GeneratedFile(path, black_format(text)) for path, text in sorted(py.items())]
        files += [GeneratedFile(path, text) for path, text in sorted(data.items())]
        files += [GeneratedFile(path, text) for path, text in sorted(clang_format(c_sources).items())]
        hostile = " ".join(path[2:-2] for path in c_sources if path.startswith("c/hostile_"))
        files.append(GeneratedFile("c/Makefile", MAKEFILE.format(head=head, tests=" ".join(tests), hostile=hostile)))
        files += [GeneratedFile(f"c/cortex_m/{p.name}", f"/* {c_comment(head)} */\n" + p.read_text(encoding="utf-8"))
                  for p in sorted(_CORTEX_M.iterdir()) if p.suffix in (".c", ".ld")]
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

from opforge import {module} as ns
from _inputs import check_parity

CASES = json.loads((Path(__file__).resolve().parent / "cases_{key}.json").read_text())


def _config(name, fields):
    return getattr(ns, name)(**fields)


@pytest.mark.parametrize(
    ("op", "dtype", "spec"), CASES, ids=[f"{{op}}-{{dtype}}-{{i}}" for i, (op, dtype, _) in enumerate(CASES)]
)
def test_c_matches_reference(op, dtype, spec):
    check_parity(getattr(ns, op), "{name}." + op, dtype, spec, _config)


SPOILED = json.loads((Path(__file__).resolve().parent / "spoiled_{key}.json").read_text())


@pytest.mark.parametrize(
    ("op", "dtype", "what", "expect", "spec"), SPOILED, ids=[f"{{s[0]}}-{{s[2]}}" for s in SPOILED]
)
def test_bindings_refuse_bad_arguments(op, dtype, what, expect, spec):
    """One parameter spoiled: the error the binding must raise, naming the parameter (or,
    for values an op may take, the same outcome on both backends)."""
    outcome = check_parity(getattr(ns, op), "{name}." + op, dtype, spec, _config, (TypeError, ValueError))
    if expect != "agree":
        assert type(outcome).__name__ == expect, f"{name}.{{op}} with {{what}}: {{outcome!r}}, not a {{expect}}"
        assert what.split()[0] in str(outcome), f"{name}.{{op}} with {{what}}: {{outcome}} does not name it"
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

# Hostile calls: every op with a spoiled descriptor must return an error status, under
# AddressSanitizer and UndefinedBehaviorSanitizer (any report ends the run). -g1: line tables,
# enough for a report's file:line backtrace, at half the compile time and size of -g.
SAN_FLAGS ?= -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all -g1 -O1
HOSTILE := {hostile}

hostile: $(HOSTILE)

sanitized/%.o: $(C_DIR)/src/%.c
\t@mkdir -p $(@D)
\t$(CC) $(CFLAGS) $(SAN_FLAGS) -I$(C_DIR)/include -I$(C_DIR)/src -c $< -o $@

hostile_%: hostile_%.c $(patsubst $(C_DIR)/src/%.c,sanitized/%.o,$(SRCS))
\t$(CC) $(CFLAGS) $(SAN_FLAGS) -I$(C_DIR)/include -I$(C_DIR)/src $< $(filter %.o,$^) -lm -o $@

hostile-check: hostile
\tfor t in $(HOSTILE); do ./$$t || exit 1; done

# Firmware: each test linked for a Cortex-M4 with hard float (newlib's libc and libm, no
# start files, no printf: text goes out through semihosting), at -Os and at -O2, to run
# under `qemu-system-arm -M mps2-an386 -semihosting-config enable=on,target=native`.
# The library is compiled once per level; -fstack-usage leaves each function's frame in a .su file.
ARM_CC ?= arm-none-eabi-gcc
ARM_CFLAGS ?= -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -std=c99 -Wall -Wextra -Werror \\
\t-Wvla -pedantic -ffp-contract=off -ffunction-sections -fdata-sections
ARM_LDFLAGS ?= -nostartfiles --specs=nosys.specs -Wl,--gc-sections -T cortex_m/mps2.ld
FIRMWARE := $(foreach o,Os O2,$(foreach t,$(TESTS),cortex-m-$(o)/$(t).elf))

firmware: $(FIRMWARE)

define FIRMWARE_RULES
cortex-m-$(1)/lib/%.o: $$(C_DIR)/src/%.c
\t@mkdir -p $$(@D)
\t$$(ARM_CC) $$(ARM_CFLAGS) -$(1) -fstack-usage -I$$(C_DIR)/include -I$$(C_DIR)/src -c $$< -o $$@

cortex-m-$(1)/%.elf: %.c $$(patsubst $$(C_DIR)/src/%.c,cortex-m-$(1)/lib/%.o,$$(SRCS)) cortex_m/startup.c cortex_m/mps2.ld
\t$$(ARM_CC) $$(ARM_CFLAGS) -$(1) -DOPF_TEST_SAY=opf_semihost_say -I$$(C_DIR)/include -I$$(C_DIR)/src \\
\t\tcortex_m/startup.c $$< $$(filter %.o,$$^) $$(ARM_LDFLAGS) -lm -o $$@
endef
$(foreach o,Os O2,$(eval $(call FIRMWARE_RULES,$(o))))

.SECONDARY:
.PHONY: all check firmware hostile hostile-check
"""
