"""Shared helpers: ops trees in temporary folders and an in-process CLI."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
# Each test session formats into a cache of its own (and every run it starts inherits it).
if "OPFORGE_CACHE" not in os.environ:
    os.environ["OPFORGE_CACHE"] = tempfile.mkdtemp(prefix="opforge-test-cache-")
    atexit.register(shutil.rmtree, os.environ["OPFORGE_CACHE"], True)
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from generators.cli import app  # noqa: E402


def write_ops(root: Path, files: dict[str, str], package: str = "ops") -> Path:
    """Write ``files`` (name -> dedented source) into ``root/package``."""
    ops = root / package
    ops.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (ops / name).write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return ops


class Cli:
    """Runs the opforge CLI in-process and keeps what it printed."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self.runner = CliRunner()

    def __call__(self, *args: str):
        result = self.runner.invoke(app, list(args), catch_exceptions=True)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        return result


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty project folder that is the working directory."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("OPFORGE_HOME", raising=False)
    return tmp_path


@pytest.fixture
def cli(project: Path) -> Cli:
    return Cli(project)


@pytest.fixture
def starter_ops() -> Path:
    return ROOT / "ops"


#: The flags every generated C file compiles under in the tests.
STRICT = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-Wvla", "-ffp-contract=off"]


@pytest.fixture(scope="session")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every project of the starter catalogue, generated once a session by the CLI as a user
    runs it. Tests read it; one that writes into it works on a copy."""
    target = tmp_path_factory.mktemp("generated")
    subprocess.run([sys.executable, "-m", "generators.cli", "all", "-outdir", str(target)],
                   cwd=ROOT, check=True, capture_output=True)
    return target


@pytest.fixture(scope="session")
def c_objects(generated: Path, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The generated C library's sources, each compiled strictly at -O2 (no warning)."""
    build = tmp_path_factory.mktemp("objects")

    def compile_one(source: Path) -> Path:
        obj = build / (source.stem + ".o")
        proc = subprocess.run(["gcc", *STRICT, "-O2", f"-I{generated / 'c' / 'include'}",
                               f"-I{generated / 'c' / 'src'}", "-c", str(source), "-o", str(obj)],
                              capture_output=True, text=True)
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr
        return obj

    with ThreadPoolExecutor(os.cpu_count()) as pool:  # (one gcc per core)
        return list(pool.map(compile_one, sorted((generated / "c" / "src").glob("*.c"))))


#: The modules whose fixtures build the most (the package installed and rebuilt under the
#: sanitizers, the firmware, the hostile-call builds, the units): collected first, so that each
#: worker starts one of them while another runs the many short modules (./test.sh -n auto).
SLOW_FIRST = ("test_generated_code.py", "test_generated_c_library.py", "test_imunit.py", "test_cli.py",
              "test_fixed_point_units.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: k for k, name in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(SLOW_FIRST)))  # (stable: each module's order kept)
