"""Code size and stack of every op on a Cortex-M4 with hard float, at -Os.

Run on demand (it needs Debian's gcc-arm-none-eabi, which ./test.sh installs as root):

    .venv/bin/python benchmarks/cortex_m_resources.py [docs/cortex-m-resources.md]

It generates the C library, compiles each namespace with arm-none-eabi-gcc -Os
-ffunction-sections -fcallgraph-info=su, and writes a Markdown table: per op, the
bytes of .text of its functions (API function, workspace query and the kernels not
inlined into it), the worst-case stack of a call (its deepest chain of frames in
GCC's call graph; calls into newlib and libgcc, named in the table, are not counted), and its
workspace as a formula of the shapes.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dsl import fixed_point as F  # noqa: E402
from dsl import loader  # noqa: E402
from generators import abi  # noqa: E402
from generators.kernels.readable import READABLE  # noqa: E402
from generators.kernels.scalar_c import SUFFIX  # noqa: E402
from generators.kernels.selection import code_ops  # noqa: E402

FLAGS = ["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16", "-std=c99", "-Os",
         "-ffunction-sections", "-fdata-sections", "-ffp-contract=off"]
ROLES = ("workspace", "state_size", "init", "enqueue", "ready", "dequeue", "table", "lookup")  # (an op's entry points)
_NODE = re.compile(r'node: \{ title: "([^"]+)" label: "([^"\\]+)\\n[^"]*?(?:\\n(\d+) bytes \((\w+)\))?" \}')
_EDGE = re.compile(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"')


def build(out: Path) -> tuple[dict[str, int], dict[str, tuple[str, int | None]], dict[str, list[str]]]:
    """(.text bytes by symbol, (name, frame bytes) by call-graph node, callees by node)."""
    sizes: dict[str, int] = {}
    nodes: dict[str, tuple[str, int | None]] = {}
    edges: dict[str, list[str]] = {}
    for source in sorted((out / "c" / "src").glob("*.c")):
        obj = out / f"{source.stem}.o"
        subprocess.run(["arm-none-eabi-gcc", *FLAGS, f"-I{out / 'c' / 'include'}", f"-I{out / 'c' / 'src'}",
                        "-fcallgraph-info=su", "-c", str(source), "-o", str(obj)], check=True, cwd=out)
        listed = subprocess.run(["arm-none-eabi-nm", "-S", "-t", "d", str(obj)], capture_output=True, text=True,
                                check=True).stdout
        for line in listed.splitlines():
            parts = line.split()
            if len(parts) == 4 and parts[2] in "tT":
                sizes[parts[3]] = sizes.get(parts[3], 0) + int(parts[1])
        graph = (out / f"{source.stem}.ci").read_text(encoding="utf-8")
        for title, name, frame, _ in _NODE.findall(graph):
            nodes[title] = (name, int(frame) if frame else None)
        for source_node, target in _EDGE.findall(graph):
            edges.setdefault(source_node, []).append(target)
    return sizes, nodes, edges


def worst_stack(title: str, nodes: dict, edges: dict, seen: tuple[str, ...] = ()) -> tuple[int, set[str]]:
    """The deepest chain of frames from ``title`` and the outside functions it calls."""
    name, frame = nodes.get(title, (title.rpartition(":")[2], None))
    if frame is None:  # ours without a node of its own: inlined into the caller's frame
        return 0, set() if name.startswith(("opforge_", "opf_")) else {name}
    deepest, outside = 0, set()
    for callee in edges.get(title, []):
        if callee in seen:
            continue  # (no generated function recurses; a cycle would be cut here)
        depth, names = worst_stack(callee, nodes, edges, (*seen, title))
        deepest, outside = max(deepest, depth), outside | names
    return frame + deepest, outside


def main(target: Path) -> None:
    catalogue = loader.load(ROOT / "ops").catalogue
    version = subprocess.run(["arm-none-eabi-gcc", "--version"], capture_output=True, text=True,
                             check=True).stdout.splitlines()[0]
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        subprocess.run([sys.executable, "-m", "generators.cli", "all", "-projects", "c", "-outdir", str(out)],
                       cwd=ROOT, check=True, capture_output=True)
        sizes, nodes, edges = build(out)
    titles = {name: title for title, (name, _) in nodes.items()}
    suffixes = "|".join([*SUFFIX.values(), *F.TYPES])  # (a kernel of a dtype or of a fixed-point type)
    rows, total = [], 0
    for ns in catalogue.namespaces:
        for op in code_ops(ns):
            fn = abi.function(op)
            own = re.compile(rf"{re.escape(fn)}(_({'|'.join(ROLES)}))?$|{re.escape(fn)}_({suffixes})(_\w+)?$")
            symbols = [s for s in sizes if own.match(s)]
            text = sum(sizes[s] for s in symbols)
            total += text
            entries = [s for s in symbols if s == fn or s.removeprefix(fn + "_") in ROLES]
            stacks = [worst_stack(titles[s], nodes, edges) for s in entries if s in titles]
            stack = max((depth for depth, _ in stacks), default=0)
            outside = sorted(set().union(*(names for _, names in stacks)) - {"__builtin_unreachable"})
            node = getattr(op.compute, "workspace", None)
            workspace = f"`8 * ({READABLE.render(node)})`" if node is not None else "0"
            rows.append(f"| `{op.qualified_name}` | {text} | {stack} | {', '.join(outside) or '-'} | {workspace} |")
    lines = ["# Cortex-M4 resources", "",
             f"Measured by `benchmarks/cortex_m_resources.py` with {version}, flags `{' '.join(FLAGS)}`.",
             "", f"{len(rows)} ops, {total} bytes of .text in their own functions, and "
                 f"{sum(sizes.values()) - total} bytes in shared runtime functions that are not inlined "
                 "(the library: Philox, the einsum and reduction planners, ...).",
             "Stack: the deepest chain of frames of one call, as GCC's call graph (`-fcallgraph-info=su`) gives it;",
             "the newlib and libgcc functions named in the fourth column add their own frames.", "",
             "| op | .text bytes | worst-case stack bytes | newlib and libgcc calls | workspace bytes |",
             "| --- | ---: | ---: | --- | --- |", *rows, ""]
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("\n".join(lines), encoding="utf-8")
    print(f"{target}: {len(rows)} ops, {total} bytes of .text, largest stack "
          f"{max(int(r.split('|')[3]) for r in rows)} bytes")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "cortex-m-resources.md")
