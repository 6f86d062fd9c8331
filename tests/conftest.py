"""Shared helpers: ops trees in temporary folders and an in-process CLI."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
import textwrap
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
