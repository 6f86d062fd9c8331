"""The tool and the package it generates as the Python ecosystem expects them (issue 21, ADR 0051):
two distributions of distinct names, a non-editable install of the tool that holds every file its
generators read, and a package whose C backend builds portable unless asked otherwise."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

from conftest import ROOT, GeneratedProjects


def _tracked(*folders: str) -> list[str]:
    listed = subprocess.run(["git", "ls-files", *folders], cwd=ROOT, capture_output=True, text=True, check=True)
    return [line for line in listed.stdout.splitlines() if line]


def test_the_tool_s_wheel_holds_every_file_its_generators_read(tmp_path: Path) -> None:
    """A wheel of the tool (what `pip install .` installs) holds every tracked file of dsl/ and
    generators/: templates, the C runtime, the units' test runtime, the package's runtime modules,
    the expression grammar, the Cortex-M files (a missing one was generators.imunit's runtime)."""
    files = _tracked("dsl", "generators")
    source = tmp_path / "source"
    for name in [*files, "pyproject.toml", "README.md"]:
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name)
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                            "--disable-pip-version-check", "-q", "-w", str(tmp_path / "wheel"), str(source)],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = (tmp_path / "wheel").glob("*.whl")
    assert wheel.name.startswith("opforge_generator-"), wheel.name
    held = set(zipfile.ZipFile(wheel).namelist())
    assert [f for f in files if f not in held] == []


def test_the_tool_and_the_package_are_distinct_distributions(generated: GeneratedProjects) -> None:
    """Installing one never removes the other: the tool is opforge-generator, the package it
    generates opforge, whose __version__ is its distribution's version."""
    tool = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    package = tomllib.loads((generated / "python" / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert (tool["name"], package["name"]) == ("opforge-generator", "opforge")
    scope: dict[str, object] = {}
    init = (generated / "python" / "src" / "opforge" / "__init__.py").read_text(encoding="utf-8")
    exec(compile("\n".join(line for line in init.splitlines() if line.startswith("__version__")), "init", "exec"),
         scope)
    assert scope["__version__"] == package["version"]


def test_the_package_builds_portable_unless_asked_for_the_host_s_extensions(generated: GeneratedProjects,
                                                                              tmp_path: Path) -> None:
    """A wheel must run on any CPU of its architecture: no -march=native unless OPFORGE_NATIVE=1."""
    shutil.copy2(generated / "python" / "opforge_build.py", tmp_path / "opforge_build.py")
    c_dir = str(generated / "c")

    def flags(**env: str) -> list[str]:
        run = subprocess.run([sys.executable, "-c", "import opforge_build as b; print(' '.join(b.FLAGS))"],
                             cwd=tmp_path, capture_output=True, text=True,
                             env={"PATH": "/usr/bin:/bin", "OPFORGE_C_DIR": c_dir, **env})
        assert run.returncode == 0, run.stderr[-2000:]
        return run.stdout.split()

    assert "-march=native" not in flags() and "-O3" in flags()
    assert "-march=native" in flags(OPFORGE_NATIVE="1")
