"""What the README tells a user to run works after the README's own commands."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata

from packaging.requirements import Requirement

from conftest import ROOT


def _closure(names: set[str]) -> set[str]:
    """Distributions ``names`` install, with everything they require (no extras)."""
    seen: set[str] = set()
    todo = [n.lower() for n in names]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for text in metadata.requires(name) or ():
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name.lower())
    return seen


def _script_owner(script: str) -> str:
    """The distribution (installed here) whose console script ``script`` is."""
    for dist in metadata.distributions():
        if any(ep.group == "console_scripts" and ep.name == script for ep in dist.entry_points):
            return dist.metadata["Name"].lower()
    raise AssertionError(f"no installed distribution provides {script}")


def test_every_venv_command_of_the_readme_is_installed_by_generate_sh() -> None:
    """Issue 17.10: the README's `.venv/bin/mkdocs serve -f out/docs/mkdocs.yml` failed after
    `./generate.sh`, which installs the main dependencies only (mkdocs was a test extra)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = set(re.findall(r"\.venv/bin/([\w-]+)", readme))
    assert "mkdocs" in commands
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    installed = _closure({Requirement(d).name for d in project["dependencies"]})
    for command in sorted(commands - {"python", "pip", "opforge"}):
        assert _script_owner(command) in installed, f".venv/bin/{command} needs a test extra"


def test_the_docs_theme_and_extensions_come_with_the_main_dependencies() -> None:
    """The generated mkdocs.yml names the material theme and pymdownx extensions: `mkdocs serve`
    needs them as much as mkdocs itself."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    installed = _closure({Requirement(d).name for d in project["dependencies"]})
    assert {"mkdocs", "mkdocs-material", "pymdown-extensions", "markdown"} <= installed
