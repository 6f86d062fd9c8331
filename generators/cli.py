"""The ``opforge`` command line (what ``generate.sh`` runs).

    generate NAMESPACES [-projects P,Q] [-docsdir DIR] [-outdir DIR] [-opsdir DIR] [--check]
             [-<target>-<option> VALUE ...]   e.g. -imunit-style legacy
    list     [-opsdir DIR]
    validate [-opsdir DIR]

``generate`` may be left out: ``generate.sh math,random -projects c``.
Exit codes: 0 done, 1 ``--check`` found files that would change,
2 bad definitions or bad usage.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from importlib import metadata
from pathlib import Path
from typing import Annotated, NoReturn, Optional, Sequence

import typer
from typer.core import TyperCommand
from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from dsl import loader
from dsl.model import Catalogue, Problem
from generators import cache, registry, stamp, writer
from generators.api import GeneratedFile, GenerationContext, GenerationError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  context_settings={"help_option_names": ["-h", "--help"]},
                  help="opforge: one op definition, every target.")

EXIT_CHANGES = 1  # also: unit-check found a unit with an error, unit-test one that failed
EXIT_DEFINITION = 2


def _home(sub: str) -> Path:
    """Defaults live beside generate.sh (OPFORGE_HOME), else in the working directory."""
    home = os.environ.get("OPFORGE_HOME")
    return Path(home) / sub if home else Path(sub)


def _fail(message: str) -> typer.Exit:
    typer.echo(message, err=True)
    return typer.Exit(EXIT_DEFINITION)


def _report(problems: Sequence[Problem]) -> NoReturn:
    """One line per problem, a count, and exit 2."""
    for problem in problems:
        typer.echo(str(problem), err=True)
    count = len(problems)
    typer.echo(f"{count} definition problem{'s' if count != 1 else ''}", err=True)
    raise typer.Exit(EXIT_DEFINITION)


def _load(opsdir: Path) -> loader.LoadResult:
    result = loader.load(opsdir)
    if result.problems:
        _report(result.problems)
    return result


def _split(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def _select_namespaces(catalogue: Catalogue, names: str) -> tuple:
    known = [n.name for n in catalogue.namespaces]
    wanted = _split(names)
    if not wanted:
        raise _fail(f"no namespace given (known: all, {', '.join(known)})")
    if any(w.lower() == "all" for w in wanted):
        return catalogue.namespaces
    unknown = [w for w in wanted if catalogue.namespace(w) is None]
    if unknown:
        raise _fail(f"unknown namespace{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} "
                    f"(known: all, {', '.join(known)})")
    keys = {w.lower() for w in wanted}
    # An alias delegates to its target: the target's namespace comes along, so the
    # generated C and Python never name a function that was not generated.
    grown = True
    while grown:
        needed = {a.target_namespace.lower() for n in catalogue.namespaces if n.key in keys for a in n.aliases}
        grown = not needed <= keys
        keys |= needed
    return tuple(n for n in catalogue.namespaces if n.key in keys)


OpsDir = Annotated[Optional[Path], typer.Option("--opsdir", "-opsdir", help="The ops tree to load (default: ops).")]


def _target_options(extra: Sequence[str], targets: Sequence[str]) -> dict[str, dict[str, str]]:
    """``-<target>-<key> VALUE`` (or ``--<target>-<key>=VALUE``) options for the targets."""
    options: dict[str, dict[str, str]] = {}
    items = list(extra)
    while items:
        word = items.pop(0)
        name, _, value = word.lstrip("-").partition("=")
        target = next((t for t in targets if name.startswith(t + "-")), None)
        if not word.startswith("-") or target is None:
            raise _fail(f"unexpected argument {word!r} (target options look like -imunit-style legacy)")
        if not value:
            if not items:
                raise _fail(f"{word} needs a value")
            value = items.pop(0)
        options.setdefault(target, {})[name[len(target) + 1:]] = value
    return options


#: Targets by how long they take, longest first: the order they are handed to the workers.
_SLOWEST_FIRST = ("tests", "imunit", "docs", "c", "python", "nnef")


Outcome = Sequence[GeneratedFile] | tuple[Problem, ...]


def _run_target(name: str, context: GenerationContext) -> tuple[Outcome, float]:
    """A target's files, or the definition problems it found (plain data, so that
    they cross back from a worker process whatever the target raised them as), and the
    seconds it took (its own: not its wait for a worker)."""
    start = time.perf_counter()
    try:
        outcome: Outcome = registry.discover()[name].generate(context)
    except GenerationError as exc:
        outcome = exc.problems
    return outcome, time.perf_counter() - start


class _Progress:
    """One line per target on a terminal's stderr, each with a spinner and the run's time until it
    is done, then its files (or that it failed) and its own time (a target waits for a worker);
    nothing elsewhere, so piped output stays as it was."""

    def __init__(self, names: Sequence[str]) -> None:
        console = Console(stderr=True)
        self.bar: Progress | None = None
        if console.is_terminal:
            self.bar = Progress(SpinnerColumn(finished_text="[green]✓"), TextColumn("{task.description:<8}"),
                                TimeElapsedColumn(), TextColumn("{task.fields[result]}"), console=console)
            self.tasks = {name: self.bar.add_task(name, total=1, result="") for name in names}

    def __enter__(self) -> "_Progress":
        if self.bar is not None:
            self.bar.start()
        return self

    def done(self, name: str, outcome: Outcome, seconds: float) -> None:
        if self.bar is not None:
            result = (f"{len(outcome)} problem{'s' if len(outcome) != 1 else ''}" if isinstance(outcome, tuple)
                      else f"{len(outcome)} files")
            self.bar.update(self.tasks[name], completed=1, result=f"{result} ({seconds:.1f} s of its own)")

    def __exit__(self, *_: object) -> None:
        if self.bar is not None:
            self.bar.stop()


def _generate_targets(names: Sequence[str], context: GenerationContext) -> dict[str, Outcome]:
    """Each target's files, or the error it raised. Targets share nothing, so they run in
    worker processes, one per core, when there are several of each (ADR 0024)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    order = sorted(names, key=lambda n: _SLOWEST_FIRST.index(n) if n in _SLOWEST_FIRST else -1)
    done: dict[str, Outcome] = {}
    with _Progress(order) as progress:
        if cores < 2 or len(names) < 2 or "fork" not in multiprocessing.get_all_start_methods():
            for name in order:
                done[name], seconds = _run_target(name, context)
                progress.done(name, done[name], seconds)
        else:
            with ProcessPoolExecutor(min(cores, len(names)), mp_context=multiprocessing.get_context("fork")) as pool:
                futures = {pool.submit(_run_target, name, context): name for name in order}
                for future in as_completed(futures):
                    done[futures[future]], seconds = future.result()
                    progress.done(futures[future], done[futures[future]], seconds)
    return {name: done[name] for name in names}


def _projects(projects: str | None, docsdir: Path | None, available: dict) -> list[str]:
    """The projects asked for, each once; as in ND4J's generator, -docsdir without -projects
    means the docs alone."""
    names = _split(projects) if projects else (["docs"] if docsdir is not None else list(available))
    unknown = [n for n in names if n not in available]
    if unknown or not names:
        raise _fail(f"unknown project{'s' if len(unknown) > 1 else ''} {', '.join(unknown) or '(none given)'} "
                    f"(known: {', '.join(available)})")
    return list(dict.fromkeys(names))


def _options(args: list[str], available: dict) -> dict[str, dict[str, str]]:
    """The -<target>-<key> <value> options, each checked against what its target knows."""
    options = _target_options(args, list(available))
    for target, given in options.items():
        known = available[target].options
        for key, value in given.items():
            if key not in known:
                listed = ", ".join(f"-{target}-{k}" for k in known) or "none"
                raise _fail(f"unknown option -{target}-{key} (options of {target}: {listed})")
            if value not in known[key]:
                raise _fail(f"-{target}-{key} must be one of {', '.join(known[key])}, got {value!r}")
    return options


def _roots(names: list[str], out: Path, docsdir: Path | None) -> dict[Path, tuple[str, Path]]:
    """Where each project writes, by resolved path (-> the project, the path as given);
    two projects never share a folder."""
    roots: dict[Path, tuple[str, Path]] = {}
    for name in names:
        root = (docsdir if name == "docs" and docsdir is not None else out / name)
        if root.resolve() in roots:
            raise _fail(f"projects {roots[root.resolve()][0]} and {name} would both write {root}")
        roots[root.resolve()] = (name, root)
    return roots


def _report_changes(changes: list) -> None:
    """-check: list what would change, and exit 1 if anything would."""
    for c in changes:
        typer.echo(f"would {c.action} {c.path}")
    if changes:
        typer.echo(f"{len(changes)} file{'s' if len(changes) != 1 else ''} would change", err=True)
        raise typer.Exit(EXIT_CHANGES)
    typer.echo("up to date")


def _tool_version() -> str:
    try:
        return metadata.version("opforge-generator")
    except metadata.PackageNotFoundError:  # (run from a checkout that was never installed)
        return "unknown"


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"opforge-generator {_tool_version()}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", "-V", callback=_print_version, is_eager=True,
                                          help="Print the tool's version and exit.")] = False,
) -> None:
    """opforge: one op definition, every target. A first word that is not a command means generate."""


def _projects_help() -> str:
    """The projects and their options, for generate's help."""
    lines = ["Projects (-projects, default all):"]
    for name, generator in registry.discover().items():
        lines.append(f"  {name}: {generator.summary}")
        for key, values in generator.options.items():
            lines.append(f"    -{name}-{key} {'|'.join(values)} (default {values[0]})")
    return "\n\n".join(lines)


class _GenerateCommand(TyperCommand):
    """generate's help ends with the projects, found when the help is shown: discovering the
    generators imports them all, which no other run of the command line needs up front (the
    no-change fast path returns before it)."""

    @property  # type: ignore[override]
    def epilog(self) -> str:
        return _projects_help()

    @epilog.setter
    def epilog(self, value: str | None) -> None:
        pass  # (click's constructor sets it; the property stands instead)


@app.command(cls=_GenerateCommand, context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def generate(
    ctx: typer.Context,
    namespaces: Annotated[str, typer.Argument(help="Comma-separated namespaces, or 'all'.")],
    projects: Annotated[Optional[str], typer.Option("--projects", "-projects",
                                                    help="Comma-separated generators (default: all).")] = None,
    docsdir: Annotated[Optional[Path], typer.Option("--docsdir", "-docsdir",
                                                    help="Where the docs project goes (default: OUTDIR/docs); "
                                                         "without -projects, generate the docs only.")] = None,
    outdir: Annotated[Optional[Path], typer.Option("--outdir", "-outdir",
                                                   help="Output root; each project writes OUTDIR/<project> (default: out).")] = None,
    opsdir: OpsDir = None,
    source_url: Annotated[Optional[str], typer.Option("--source-url", "-source-url",
                                                      help="Base URL of the repository's files, for source links.")] = None,
    check: Annotated[bool, typer.Option("--check", "-check",
                                        help="Write nothing; exit 1 listing every file that would change.")] = False,
) -> None:
    """Generate the given namespaces for the given projects."""
    ops = opsdir or _home("ops")
    out = outdir or _home("out")
    arguments = {"ops": str(ops.resolve()), "namespaces": namespaces, "projects": projects,
                 "docsdir": str(docsdir.resolve()) if docsdir else None, "source_url": source_url,
                 "options": list(ctx.args)}
    inputs = stamp.inputs(ops, arguments)
    unchanged = stamp.up_to_date(out, inputs)
    if unchanged is not None:  # the last complete run had these inputs, and its files are intact
        typer.echo("up to date" if check else
                   f"nothing changed since the last run: 0 written, 0 removed, {unchanged} unchanged")
        return
    result = _load(ops)
    selected = _select_namespaces(result.catalogue, namespaces)
    available = registry.discover()
    names = _projects(projects, docsdir, available)
    options = _options(ctx.args, available)
    context = GenerationContext(result.catalogue, selected, ops.resolve().parent, source_url, options)
    roots = _roots(names, out, docsdir)
    generated = _generate_targets(names, context)
    # Every target's problems, all at once (a problem two targets share, once).
    problems = sorted({p for files in generated.values() if isinstance(files, tuple) for p in files},
                      key=Problem.sort_key)
    if problems:
        _report(problems)
    plans = [writer.plan(root, generated[name]) for name, root in roots.values()]
    changes = [c for p in plans for c in p.changes]
    if check:
        _report_changes(changes)
        return
    stamp.forget(out)
    for p in plans:
        writer.apply(p)
    left = {p.root / f.path: f.content for p in plans for f in p.files}
    manifests = [p.root / writer.MANIFEST for p in plans]
    stamp.record(out, inputs, left | {m: m.read_bytes() for m in manifests if m.is_file()})
    cache.prune()
    written = sum(1 for c in changes if c.action == "write")
    removed = len(changes) - written
    unchanged = sum(p.unchanged for p in plans)
    typer.echo(f"{', '.join(n.name for n in selected)} -> {', '.join(names)}: "
               f"{written} written, {removed} removed, {unchanged} unchanged")


@app.command("list")
def list_(opsdir: OpsDir = None) -> None:
    """List namespaces, their ops and aliases, and the generators."""
    result = _load(opsdir or _home("ops"))
    for ns in result.catalogue.namespaces:
        aliases = f", {len(ns.aliases)} alias{'es' if len(ns.aliases) != 1 else ''}" if ns.aliases else ""
        typer.echo(f"{ns.name} ({len(ns.concrete_ops)} ops{aliases})")
        for op in ns.ops:
            marks = " (abstract)" if op.abstract else ""
            typer.echo(f"  {op.name}{marks}")
        for alias in ns.aliases:
            typer.echo(f"  {alias.name} -> {alias.target}")
    typer.echo("generators:")
    for name, generator in registry.discover().items():
        typer.echo(f"  {name}: {generator.summary}")


@app.command()
def validate(opsdir: OpsDir = None) -> None:
    """Load and validate the definitions; exit 2 listing every problem."""
    result = _load(opsdir or _home("ops"))
    ops = sum(len(n.ops) for n in result.catalogue.namespaces)
    typer.echo(f"ok: {len(result.catalogue.namespaces)} namespaces, {ops} ops")


@app.command("unit-check")
def unit_check(
    paths: Annotated[list[Path], typer.Argument(help="Unit files, or folders searched for *.imunit.")],
    input_: Annotated[Optional[list[str]], typer.Option(
        "--input", "-input", help="NAME=TYPE[d0,d1,...] (dimensions as the UI shows them), or NAME=null for an "
                                  "optional input left unconnected; other inputs are Float32[4,8,16] at 100 Hz.")] = None,
    option: Annotated[Optional[list[str]], typer.Option(
        "--option", "-option", help="NAME=VALUE, the value an expression: an option's value instead of its default.")]
        = None,
) -> None:
    """Evaluate units as DEEPCRAFT Studio does: one line per unit, ok (its outputs), refused (an Assert
    failed) or error (a parse, evaluation or resolution problem); exit 1 if any unit has an error."""
    from generators.imunit import checker  # only this command needs the unit machinery

    try:
        inputs = dict(checker.parse_input(spec) for spec in input_ or [])
        options = dict(checker.parse_option(spec) for spec in option or [])
    except ValueError as exc:
        raise _fail(str(exc)) from None
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise _fail(f"no such file or folder: {', '.join(missing)}")
    verdicts = checker.check(paths, inputs, options)
    for verdict in verdicts:
        typer.echo(verdict.line())
    if not verdicts:
        raise _fail("no .imunit files found")
    if any(v.kind == "error" for v in verdicts):
        raise typer.Exit(EXIT_CHANGES)


@app.command("unit-test")
def unit_test(
    paths: Annotated[list[Path], typer.Argument(help="Unit files, or folders searched for *.imunit.")],
    cc: Annotated[str, typer.Option("--cc", "-cc", help="The C compiler the C tests are built with.")] = "gcc",
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Every check's line, not only the units'.")]
        = False,
) -> None:
    """Run the tests associated with the units' fragments (IMAGINET_FRAGMENT_TEST), as Studio's test
    runner does: the C tests of all units in one program built warning-free, the Python tests per unit.
    One line per unit: passed, failed (the first failed check), none (no test) or error; exit 1 if
    any unit failed or had an error."""
    from generators.imunit import testing  # only this command needs the unit machinery

    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise _fail(f"no such file or folder: {', '.join(missing)}")
    outcomes = testing.run(paths, cc)
    if not outcomes:
        raise _fail("no .imunit files found")
    for outcome in outcomes:
        typer.echo(outcome.line())
        if verbose:
            for line in outcome.lines:
                typer.echo(f"    {line}")
    if any(o.kind in ("failed", "error") for o in outcomes):
        raise typer.Exit(EXIT_CHANGES)


_COMMANDS = {"generate", "list", "validate", "unit-check", "unit-test"}


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point; a first word that is not a command means ``generate``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] not in _COMMANDS and args[0] not in ("--help", "-h", "--version", "-V"):
        args.insert(0, "generate")
    app(args=args, prog_name="generate.sh")


if __name__ == "__main__":
    main()
