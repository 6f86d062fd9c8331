"""A unit's Python file: the NumPy runtime as one fragment, the reference, and the unit's wrapper."""

from __future__ import annotations

import functools
import re

from dsl.model import Op
from dsl.types import DataType
from generators.formatting import black_format
from generators.imunit import units
from generators.kernels import py_names, reference, routines

def dependency(fragment_text: str, *names: str) -> str:
    """A fragment with dependencies on fragments of the same file."""
    first, rest = fragment_text.split("\n", 1)
    deps = "".join(f'#pragma IMAGINET_FRAGMENT_DEPENDENCY "{n}"\n' for n in names)
    return f"{first}\n{deps}{rest}"


@functools.lru_cache(maxsize=None)
def numpy_runtime() -> tuple[list[str], str]:
    """The NumPy runtime's imports and the rest of its code, the fixed-point routines last (read
    once): the routines call the runtime through the fragment's ``_k``."""
    runtime = routines.numpy_fragment()
    imports = [line for line in runtime.splitlines()
               if line.startswith(("import ", "from ")) and "__future__" not in line]
    body = "\n".join(line for line in runtime.splitlines() if not line.startswith(("import ", "from ")))
    return imports, body


def python_file(header: str, what: str, includes: list[str], fragments: list[str]) -> str:
    """A unit's Python file: includes, the NumPy runtime as the ``opforge_kernels`` fragment, then ``fragments``.

    The runtime is the same in every unit: black formats it once (cached) and the parts join.
    """
    imports, body = numpy_runtime()
    head = [f"# {header}", f'"""Python fragments of the {what}."""', "", "#pragma IMAGINET_INCLUDES_BEGIN",
            "import types", *dict.fromkeys(imports), *[i for i in includes if i not in imports],
            "#pragma IMAGINET_INCLUDES_END"]
    kernels = ['#pragma IMAGINET_FRAGMENT_BEGIN "opforge_kernels"', body,
               "_k = types.SimpleNamespace(**{n: v for n, v in dict(globals()).items() "
               "if not n.startswith('__') and n != 'types'})",
               "#pragma IMAGINET_FRAGMENT_END"]
    return "\n\n\n".join(black_format("\n".join(part)).strip("\n") for part in (head, kernels, fragments)) + "\n"


def wrapper_name(op: Op) -> str:
    return f"{op.name}_unit"


def wrapper_params(op: Op) -> list[str]:
    names = [s for i in op.inputs for s in units.sockets(i)]
    for o in units.options(op):
        if o.name.startswith("use_") and units.value(op, o.name[4:]) != o.name[4:]:
            continue  # a computed default: the wrapper is given the value it settles on
        reduced = o.name == "axis" and units.reduction_axes_arg(op) is not None
        names.append(units.numpy_axis("axis") if reduced else units.value(op, o.name))
    return names + [s for o in op.outputs for s in units.output_sockets(o)]


def py_file(op: Op, header: str) -> str:
    includes, fragments = reference.fragment_sources(op)
    fn = py_names.ref_name(op.name)

    def local(name: str) -> str:
        """A unit parameter as a Python name: keywords mangled, and a tensor named like the op
        (linalg.lu's output lu) renamed, as it would hide the reference function."""
        return f"{name}_value" if name == fn else py_names.py_name(name)

    args = []
    for i in op.inputs:
        if i.count.is_single:
            args.append(local(i.name))
        else:  # the connected sockets, in order
            args.append(f"[t for t in ({', '.join(local(s) for s in units.sockets(i))},) if t is not None]")
    axes = units.reduction_axes_arg(op)
    for a in op.args:
        if a.name == axes:
            args.append(f"[{units.numpy_axis('axis')}]")
        elif a.type is DataType.ENUM:
            args.append(f"{a.possible_values!r}.index({local(a.name)})")
        elif units.value(op, a.name) != a.name:  # a computed default, settled by the unit
            args.append(f"list({units.value(op, a.name)})" if not a.count.is_single else units.value(op, a.name))
        elif a.default is None and a.count.is_single:
            args.append(f"{local(a.name)} if use_{a.name} else None")
        elif not a.count.is_single:
            args.append(f"list({local(a.name)})")
        else:
            args.append(local(a.name))
    for cfg in op.configs:
        fields = ", ".join(f"{py_names.py_name(a.name)}={cfg.name}_{a.name}" for a in cfg.args)
        args.append(f"types.SimpleNamespace({fields})")
    # (a list output: the sockets there, in order)
    args += [local(o.name) if o.count.is_single else
             f"[t for t in ({', '.join(local(s) for s in units.output_sockets(o))},) if t is not None]"
             for o in op.outputs]
    params = [local(n) for n in wrapper_params(op)]
    lines: list[str] = []

    def calls(text: str) -> list[str]:
        """The hand-written fragments ``text`` calls: its dependencies, so that Studio, which
        assembles a fragment with its dependencies only, has them."""
        return [name for name, body in fragments
                if any(re.search(rf"\b{d}\(", text) for d in re.findall(r"^def (\w+)", body, re.M))]

    lines += [dependency(f'#pragma IMAGINET_FRAGMENT_BEGIN "{name}"\n{text}#pragma IMAGINET_FRAGMENT_END',
                         "opforge_kernels", *(n for n in calls(text) if n != name)) for name, text in fragments]
    function = reference.function(op)
    lines.append(dependency(function, "opforge_kernels", *calls(function)))
    lines += [f'#pragma IMAGINET_FRAGMENT_BEGIN "{wrapper_name(op)}"',
              f'#pragma IMAGINET_FRAGMENT_DEPENDENCY "{op.name}"',
              f"def {wrapper_name(op)}({', '.join(params)}):",
              '    """The unit\'s entry: options as the unit passes them, results into the outputs."""',
              f"    {fn}({', '.join(args)})",
              "#pragma IMAGINET_FRAGMENT_END", ""]
    return python_file(header, f"{op.qualified_name} unit", includes, lines)
