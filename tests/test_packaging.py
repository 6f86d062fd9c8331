"""The tool and the package it generates as the Python ecosystem expects them (issue 21, ADR 0051):
two distributions of distinct names, a non-editable install of the tool that holds every file its
generators read, and a package whose C backend builds portable unless asked otherwise."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

from conftest import ROOT, GeneratedProjects, build_package


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


def test_the_package_builds_with_the_versions_the_tool_pins() -> None:
    """The generated package's build requirements are the versions requirements.lock pins, the
    ones the tests build it with (a second copy in the generator, which ships without the lock)."""
    from generators.python.generator import BUILD_REQUIRES

    pinned = dict(line.split("==") for line in (ROOT / "requirements.lock").read_text().splitlines()
                  if "==" in line and not line.startswith("#"))
    assert BUILD_REQUIRES == {"scikit_build_core": pinned["scikit-build-core"], "cffi": pinned["cffi"],
                              "numpy": pinned["numpy"]}


def _compile_flags(project: Path, build: Path, *defines: str) -> dict[str, str]:
    """The package's CMake project configured (not built) as its build backend configures it:
    each compiled source's name and its compile command."""
    cmake = Path(sys.executable).parent / "cmake"
    configured = subprocess.run([str(cmake), "-S", str(project), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                                 "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", f"-DPython_EXECUTABLE={sys.executable}",
                                 *defines], capture_output=True, text=True)
    assert configured.returncode == 0, configured.stdout[-2000:] + configured.stderr[-2000:]
    commands = json.loads((build / "compile_commands.json").read_text())
    return {Path(c["file"]).name: c["command"] for c in commands}


def test_the_package_builds_portable_unless_asked_for_the_host_s_extensions(generated: GeneratedProjects,
                                                                              tmp_path: Path) -> None:
    """A wheel must run on any CPU of its architecture: the kernels build at -O3 without
    -march=native unless OPFORGE_NATIVE asks for it (the environment variable of the same name,
    which pyproject.toml hands to CMake), and never with contraction (ADR 0025); as the C99 they are."""
    project = generated / "python"
    portable = _compile_flags(project, tmp_path / "portable")
    native = _compile_flags(project, tmp_path / "native", "-DOPFORGE_NATIVE=1")
    kernels = sorted(name for name in portable if name != "_opforge_c.c")
    assert "math_1.c" in kernels and "_opforge_c.c" in portable  # (the module's own source, from cffi)
    for name in kernels:
        assert {"-std=c99", "-O3", "-ffp-contract=off"} <= set(portable[name].split()), portable[name]
        assert "-march=native" not in portable[name] and "-march=native" in native[name], name
    settings = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["scikit-build"]
    assert settings["cmake"]["define"]["OPFORGE_NATIVE"] == {"env": "OPFORGE_NATIVE", "default": "OFF"}


def test_the_package_s_library_leaves_out_what_its_ufuncs_compute(generated: GeneratedProjects,
                                                                    tmp_path: Path) -> None:
    """ADR 0080: the library's sources compile with OPFORGE_OMIT_NUMERIC_<OP> for exactly the ops
    the ufuncs compute (their checked way calls the ufunc too), and with those definitions every
    source passes the strict flags' front end without a diagnostic (an unused variable, ...)."""
    from dsl.loader import load
    from generators import abi
    from generators.kernels.selection import code_ops
    from generators.python import ufuncs

    from conftest import STRICT

    catalogue = load(ROOT / "ops").catalogue
    taken = {abi.omit_numeric(op) for ns in catalogue.namespaces for op in code_ops(ns) if ufuncs.takes(op)}
    assert "OPFORGE_OMIT_NUMERIC_MATH_ADD" in taken and "OPFORGE_OMIT_NUMERIC_MATH_CLIP_BY_VALUE" not in taken
    project = generated / "python"
    commands = _compile_flags(project, tmp_path / "build")
    sources = sorted((project / "c" / "src").glob("*.c"))
    checks = []
    for source in sources:
        defines = [f for f in commands[source.name].split() if f.startswith("-DOPFORGE_OMIT_NUMERIC_")]
        assert {d.removeprefix("-D") for d in defines} == taken, source.name
        checks.append(subprocess.Popen(["gcc", *STRICT, "-fsyntax-only", *defines, f"-I{project / 'c' / 'include'}",
                                        f"-I{project / 'c' / 'src'}", str(source)],
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    for source, check in zip(sources, checks):
        said, _ = check.communicate()
        assert check.returncode == 0 and not said, f"{source.name}: {said[-3000:]}"


def test_the_package_s_sdist_holds_its_c_sources_and_installs(generated: GeneratedProjects, tmp_path: Path) -> None:
    """The generated package's sdist, made by its build backend, holds everything its build
    compiles (the C library's CMake project, the cffi declarations), and pip installs it where
    no out/c lies beside it: its C backend then computes."""
    project = tmp_path / "project"
    shutil.copytree(generated / "python", project)  # (alone: no c project beside it)
    made = subprocess.run([sys.executable, "-c", "import sys; from scikit_build_core.build import build_sdist; "
                           "print(build_sdist(sys.argv[1]))", str(tmp_path / "dist")], cwd=project,
                          capture_output=True, text=True)
    assert made.returncode == 0, made.stderr[-3000:]
    sdist = tmp_path / "dist" / made.stdout.split()[-1]
    with tarfile.open(sdist) as archive:
        held = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    wanted = {str(p.relative_to(generated / "python")) for p in (generated / "python").rglob("*") if p.is_file()}
    assert {"CMakeLists.txt", "opforge_cffi.py", "c/CMakeLists.txt", "c/src/math_1.c",
            "c/include/opforge/opforge.h", "src/opforge/math.py"} <= wanted
    assert wanted - held == set()
    site = tmp_path / "site"
    build_package(sdist, site, tmp_path / "build", build_type="Debug")  # (-O0: quick to build)
    run = subprocess.run([sys.executable, "-c", "import numpy as np, opforge; "
                          "print(opforge.math.add(np.float32([1, 2]), np.float32(0.5), backend='c').tolist(), "
                          "opforge.__version__)"], env={**os.environ, "PYTHONPATH": str(site)},
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-3000:]
    version = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert run.stdout.split() == ["[1.5,", "2.5]", version]
