"""The command line and the writer: selection, --check, idempotence, stale
files, determinism and interrupted runs."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from conftest import ROOT, Cli, write_ops
from dsl.loader import load
from generators import registry, writer
from generators.api import GeneratedFile


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def ops_copy(project: Path) -> Path:
    """The starter catalogue, copied so tests may edit it."""
    target = project / "ops"
    shutil.copytree(ROOT / "ops", target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def test_generate_then_check_is_clean(cli: Cli, ops_copy: Path, project: Path) -> None:
    run = cli("generate", "math,random", "-projects", "docs")
    assert run.exit_code == 0, run.output
    docs = project / "out" / "docs"
    assert {"mkdocs.yml", "docs/index.md", "docs/math.md", "docs/random.md"} <= set(tree(docs))
    # math's aliases delegate to bitwise, base and linalg, which come along; nn does not.
    assert {"docs/bitwise.md", "docs/base.md", "docs/linalg.md"} <= set(tree(docs)) and "docs/nn.md" not in tree(docs)
    assert run.stdout.startswith("base, bitwise, linalg, math, random -> docs:")
    check = cli("generate", "math,random", "-projects", "docs", "--check")
    assert (check.exit_code, check.stdout.strip()) == (0, "up to date")


def test_check_lists_what_a_doc_change_would_rewrite_and_writes_nothing(cli: Cli, ops_copy: Path, project: Path) -> None:
    assert cli("generate", "all", "-projects", "docs").exit_code == 0
    before = tree(project / "out")
    math = ops_copy / "math.py"
    math.write_text(math.read_text().replace("Elementwise negation", "Elementwise sign flip"))
    check = cli("generate", "all", "-projects", "docs", "--check")
    assert check.exit_code == 1
    assert check.stdout.splitlines() == [
        "would write out/docs/docs/math.md",
        "would write out/docs/docs/source/ops/math.py.md",
    ]
    assert tree(project / "out") == before
    assert cli("generate", "all", "-projects", "docs").exit_code == 0
    assert "Elementwise sign flip" in (project / "out/docs/docs/math.md").read_text()
    assert cli("generate", "all", "-projects", "docs", "--check").exit_code == 0


def test_rerun_rewrites_nothing(cli: Cli, ops_copy: Path, project: Path) -> None:
    cli("generate", "all", "-projects", "docs")
    stats = {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in (project / "out").rglob("*") if p.is_file()}
    run = cli("generate", "all", "-projects", "docs")
    assert "0 written, 0 removed" in run.stdout
    assert {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in stats} == stats


def test_stale_files_removed_but_never_foreign_ones(cli: Cli, ops_copy: Path, project: Path) -> None:
    cli("generate", "all", "-projects", "docs")
    foreign = project / "out/docs/docs/notes.md"
    foreign.write_text("mine\n")
    run = cli("generate", "RANDOM", "--projects", "docs")
    assert run.exit_code == 0
    files = set(tree(project / "out/docs"))
    assert "docs/math.md" not in files and "docs/source/ops/math.py.md" not in files
    assert "docs/random.md" in files and foreign.read_text() == "mine\n"


def test_outdir_docsdir_opsdir_and_private_catalogue(cli: Cli, project: Path) -> None:
    private = project / "catalogue" / "myops"
    private.mkdir(parents=True)
    (private / "extra.py").write_text(
        "from dsl import *\n"
        "with Namespace('Extra'):\n"
        "    with Op('twice') as op:\n"
        "        Input(NUMERIC, 'x', description='x')\n"
        "        Output(NUMERIC, 'y', description='y')\n"
        "        Doc(Language.ANY, DocScope.ALL, 'Doubles x.')\n")
    run = cli("generate", "extra", "-projects", "docs", "-opsdir", str(private), "-docsdir", "site-src")
    assert run.exit_code == 0, run.output
    assert (project / "site-src/docs/extra.md").is_file()
    assert not (project / "out").exists()


def test_unknown_namespace_and_project_exit_2(cli: Cli, ops_copy: Path) -> None:
    run = cli("generate", "math,nope")
    assert run.exit_code == 2
    known = ", ".join(ns.key for ns in load(ops_copy).catalogue.namespaces)
    assert run.stderr.strip() == f"unknown namespace nope (known: all, {known})"
    run = cli("generate", "math", "-projects", "docs,cobol")
    assert run.exit_code == 2
    assert run.stderr.strip().startswith("unknown project cobol (known: ") and "docs" in run.stderr


def test_list_and_validate(cli: Cli, ops_copy: Path) -> None:
    listing = cli("list").stdout.splitlines()
    catalogue = load(ops_copy).catalogue
    math = catalogue.namespace("math")
    assert f"math ({len(math.concrete_ops)} ops, {len(math.aliases)} aliases)" in listing
    assert "  bit_shift -> bitwise.left_shift" in listing
    assert any(line.startswith("  docs: ") for line in listing)
    total = sum(len(n.ops) for n in catalogue.namespaces)
    assert cli("validate").stdout.strip() == f"ok: {len(catalogue.namespaces)} namespaces, {total} ops"


def _generate_in_subprocess(out: Path, seed: str) -> None:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    subprocess.run([sys.executable, "-m", "generators.cli", "all", "-opsdir", str(ROOT / "ops"),
                    "-outdir", str(out)], cwd=ROOT, env=env, check=True, capture_output=True)


def test_output_is_byte_identical_whatever_the_hash_seed(tmp_path: Path) -> None:
    _generate_in_subprocess(tmp_path / "a", "1")
    _generate_in_subprocess(tmp_path / "b", "4242")
    a, b = tree(tmp_path / "a"), tree(tmp_path / "b")
    assert a and a == b


def test_interrupted_run_leaves_only_whole_files(cli: Cli, ops_copy: Path, project: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    cli("generate", "all", "-projects", "docs")
    old = tree(project / "out")
    math = ops_copy / "math.py"
    math.write_text(math.read_text().replace("Elementwise negation", "Element-wise negation"))
    calls = {"n": 0}
    real_replace = os.replace

    def flaky_replace(src, dst):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        real_replace(src, dst)

    monkeypatch.setattr(writer.os, "replace", flaky_replace)
    interrupted = cli("generate", "all", "-projects", "docs")
    assert interrupted.exit_code == 130 and calls["n"] == 2  # ^C: the shell convention, 128 + SIGINT
    monkeypatch.setattr(writer.os, "replace", real_replace)
    half = tree(project / "out")
    assert not [p for p in half if "opforge-tmp" in p]
    cli("generate", "all", "-projects", "docs")
    new = tree(project / "out")
    for path, data in half.items():
        if not path.endswith(writer.MANIFEST):
            assert data in (old.get(path), new.get(path)), path


KILLER = r"""
import os, signal, sys
sys.path.insert(0, {root!r})
from generators import writer, cli
real = os.replace
count = [0]
def replace(src, dst):
    count[0] += 1
    if count[0] == {at}:
        os.kill(os.getpid(), signal.SIGKILL)
    real(src, dst)
writer.os.replace = replace
cli.main(["all", "-projects", "docs", "-opsdir", {ops!r}, "-outdir", {out!r}])
"""


@pytest.mark.parametrize("at", [1, 2])
def test_sigkill_mid_run_then_next_run_repairs(tmp_path: Path, at: int) -> None:
    ops = tmp_path / "ops"
    shutil.copytree(ROOT / "ops", ops, ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path / "out"
    _generate_in_subprocess(out, "0")
    old = tree(out)
    math = ops / "math.py"
    math.write_text(math.read_text().replace("Elementwise negation", "Element-wise negation"))
    proc = subprocess.run([sys.executable, "-c", KILLER.format(root=str(ROOT), at=at, ops=str(ops), out=str(out))],
                          cwd=tmp_path, capture_output=True)
    assert proc.returncode == -signal.SIGKILL
    reference = tmp_path / "reference"
    subprocess.run([sys.executable, "-m", "generators.cli", "all", "-projects", "docs", "-opsdir", str(ops),
                    "-outdir", str(reference)], cwd=ROOT, check=True, capture_output=True)
    new = tree(reference)
    for path, data in tree(out).items():
        if "opforge-tmp" in path or path.endswith(writer.MANIFEST):
            continue
        assert data in (old.get(path), new.get(path)), path
    subprocess.run([sys.executable, "-m", "generators.cli", "all", "-projects", "docs", "-opsdir", str(ops),
                    "-outdir", str(out)], cwd=ROOT, check=True, capture_output=True)
    assert tree(out / "docs") == tree(reference / "docs")


def test_writer_refuses_paths_outside_the_root() -> None:
    for bad in ("../x.md", "/etc/passwd", "a/../../b", ""):
        with pytest.raises(ValueError):
            GeneratedFile(bad, "x")


def test_writer_ignores_manifest_entries_outside_the_root(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    (root / writer.MANIFEST).write_text('{"files": ["../victim.txt"]}')
    writer.apply(writer.plan(root, [GeneratedFile("a.txt", "a\n")]))
    assert victim.read_text() == "keep"
    assert writer.read_manifest(root) == ("a.txt",)


def test_generate_sh_runs_the_cli() -> None:
    proc = subprocess.run(["./generate.sh", "validate"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("ok: ")
    bad = subprocess.run(["./generate.sh", "nope", "-projects", "docs", "--check"], cwd=ROOT,
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_version_and_h_work_and_the_help_lists_the_projects_and_their_options() -> None:
    """Through generate.sh, as a user types them: --version, -h for the commands and for generate,
    whose help lists every project with its summary and options."""
    version = subprocess.run(["./generate.sh", "--version"], cwd=ROOT, capture_output=True, text=True)
    assert (version.returncode, version.stdout) == (0, f"opforge-generator {metadata.version('opforge-generator')}\n")
    short = subprocess.run(["./generate.sh", "-h"], cwd=ROOT, capture_output=True, text=True,
                           env={**os.environ, "COLUMNS": "120"})
    assert short.returncode == 0 and all(c in short.stdout for c in ("generate", "validate", "unit-check", "--version"))
    helped = subprocess.run(["./generate.sh", "math", "-h"], cwd=ROOT, capture_output=True, text=True,
                            env={**os.environ, "COLUMNS": "200"})
    assert helped.returncode == 0, helped.stderr
    for name, generator in registry.discover().items():
        assert f"{name}: {generator.summary}" in helped.stdout, name
        for key, values in generator.options.items():
            assert f"-{name}-{key} {'|'.join(values)}" in helped.stdout


def test_a_terminal_sees_each_target_progress_as_it_finishes(tmp_path: Path) -> None:
    """On a terminal (here a pseudo-terminal on stderr), one line per target with a tick, the
    run's time, its files and its own time once it is done; stdout keeps its one summary line."""
    master, slave = os.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "generators.cli", "random", "-projects", "nnef,docs",
                             "-outdir", str(tmp_path / "out")], cwd=ROOT, stdout=subprocess.PIPE, stderr=slave,
                            env={**os.environ, "OPFORGE_CACHE": str(tmp_path / "cache"), "COLUMNS": "100"})
    os.close(slave)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # (the terminal's other end closed)
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    stdout = proc.communicate()[0].decode()
    assert proc.returncode == 0
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", shown.decode())
    for target in ("nnef", "docs"):
        assert re.search(rf"✓ {target} +\d+:\d\d:\d\d \d+ files \(\d+\.\d s of its own\)", text), text
    assert stdout.startswith("random -> nnef, docs: ") and stdout.count("\n") == 1


def test_a_hand_edit_defeats_the_fast_path_and_is_repaired(cli: Cli, ops_copy: Path, project: Path) -> None:
    assert cli("generate", "all", "-projects", "docs").exit_code == 0
    page = project / "out/docs/docs/math.md"
    good = page.read_text()
    assert "nothing changed since the last run" in cli("generate", "all", "-projects", "docs").stdout
    page.write_text("edited by hand\n")
    run = cli("generate", "all", "-projects", "docs")
    assert "1 written" in run.stdout and page.read_text() == good
    assert "nothing changed since the last run" in cli("generate", "all", "-projects", "docs").stdout
    # Another argument is another run: no fast path.
    assert "nothing changed" not in cli("generate", "random", "-projects", "docs").stdout


def test_the_formatting_cache_never_changes_a_file(tmp_path: Path) -> None:
    """Cold, warm, with every entry damaged, and with the cache off: the same bytes."""
    cache = tmp_path / "cache"

    def generate(out: str, cache_setting: str) -> dict[str, bytes]:
        env = {**os.environ, "OPFORGE_CACHE": cache_setting}
        subprocess.run([sys.executable, "-m", "generators.cli", "random", "-projects", "c,python,imunit",
                        "-opsdir", str(ROOT / "ops"), "-outdir", str(tmp_path / out)], cwd=ROOT, env=env,
                       check=True, capture_output=True)
        return tree(tmp_path / out)

    cold = generate("cold", str(cache))
    entries = [p for p in (cache / "format").rglob("*") if p.is_file()]
    assert cold and entries
    assert generate("warm", str(cache)) == cold
    for entry in entries:  # the stored hash no longer matches: each is formatted again
        entry.write_bytes(entry.read_bytes() + b"damage")
    assert generate("damaged", str(cache)) == cold
    assert generate("off", "off") == cold


# -- defects of 5a768c3 (issue 17), each failing there


def test_a_target_problem_in_several_projects_is_a_clean_exit_2(project: Path) -> None:
    """Issue 17.2: with several projects the targets run in worker processes; a problem a target
    finds (here: an op without a compute description, which c and nnef need) came back as a
    BrokenProcessPool traceback and exit 1."""
    ops = write_ops(project, {"defs.py": '''
        from dsl import *
        with Namespace("math"):
            with Op("plain") as op:
                Input(NUMERIC, "x", description="x")
                Output(NUMERIC, "out", description="out")
                Doc(Language.ANY, DocScope.ALL, "Documentation only.")
        '''})
    for projects in ("c,nnef", "c,python,nnef,imunit,tests,docs"):
        run = subprocess.run([sys.executable, "-m", "generators.cli", "all", "-projects", projects,
                              "-opsdir", str(ops), "-outdir", str(project / "out")],
                             cwd=project, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True)
        assert run.returncode == 2, (projects, run.stderr)
        assert "Traceback" not in run.stderr
        lines = run.stderr.splitlines()
        assert lines[-1] == f"{len(lines) - 1} definition problem{'s' if len(lines) > 2 else ''}"
        for line in lines[:-1]:
            assert line.startswith("ops/defs.py:3: math.plain: op has no compute description"), line
        # every target that needs the compute says so, each once
        assert {line.rsplit("which the ", 1)[1] for line in lines[:-1]} >= {"c target needs", "nnef target needs"}
        assert not (project / "out").exists()


def test_docsdir_alone_means_docs_only(cli: Cli, ops_copy: Path, project: Path) -> None:
    """Issue 17.4: as in ND4J's README (`./generate.sh all -docsdir ../../docs`), -docsdir without
    -projects generates the docs and nothing else."""
    run = cli("generate", "random", "-docsdir", "site-src")
    assert run.exit_code == 0, run.output
    assert (project / "site-src/docs/random.md").is_file()
    assert not (project / "out").exists()
    assert run.stdout.startswith("random -> docs:")
    # with -projects, -docsdir only moves the docs
    run = cli("generate", "random", "-projects", "docs,nnef", "-docsdir", "site-src")
    assert run.exit_code == 0, run.output
    assert (project / "out/nnef/random.nnef").is_file() and not (project / "out/docs").exists()
