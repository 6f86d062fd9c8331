"""The C runtime is real C: each helper header compiles on its own, and its unit tests pass."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from generators.kernels import c_runtime

STRICT = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-Wvla", "-Wshadow", "-Wconversion",
          "-Wno-sign-conversion"]
HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("runtime")
    for path, text in c_runtime.library_files("runtime under test").items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def _gcc(library: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["gcc", *STRICT, f"-I{library / 'include'}", f"-I{library / 'src'}", *args],
                          capture_output=True, text=True)


@pytest.mark.parametrize("header", sorted(c_runtime.sources()))
def test_each_runtime_header_compiles_on_its_own(library: Path, header: str, tmp_path: Path) -> None:
    unit = tmp_path / "unit.c"
    unit.write_text(f'#include "{header}"\n')
    proc = _gcc(library, "-O2", "-c", str(unit), "-o", str(tmp_path / "unit.o"))
    assert proc.returncode == 0, proc.stderr


def test_the_runtime_sources_hold_no_template_syntax() -> None:
    for name, text in c_runtime.sources().items():
        assert "{{" not in text and "{%" not in text, name


def test_runtime_unit_tests_pass_under_sanitizers(library: Path, tmp_path: Path) -> None:
    binary = tmp_path / "test_runtime"
    proc = _gcc(library, "-O1", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
                str(HERE / "runtime" / "test_runtime.c"), str(library / "src" / "opforge_core.c"), "-lm",
                "-o", str(binary))
    assert proc.returncode == 0, proc.stderr
    run = subprocess.run([str(binary)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "all runtime checks passed" in run.stdout


def test_the_standalone_block_inlines_every_runtime_file_once() -> None:
    block = c_runtime.standalone("standalone under test")
    assert '#include "' not in block
    assert block.count("#define OPF_BASE_H") == 1 and block.count("static inline void opf_philox_round") == 1


def test_amalgamation_refuses_an_unknown_local_include() -> None:
    with pytest.raises(KeyError, match="missing.h"):
        c_runtime.amalgamate('#include "a.h"\n', {"a.h": '#include "missing.h"\n'})
