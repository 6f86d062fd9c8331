"""NumPy reference implementations generated from compute descriptions.

Each op becomes ``def <op>(<inputs>, <args>, <configs>, <outputs>)`` writing
into preallocated outputs (like Imaginet's Python fragments), annotated with
``#pragma IMAGINET_FRAGMENT_BEGIN``. The python generator writes these into
the package; the tests generator executes them to compute golden vectors.
"""

from __future__ import annotations

import re

from dsl import compute as C
from dsl import fragments, validate
from dsl.model import Namespace, Op
from generators.kernels.numpy_lowering import NumpyLowering
from generators.kernels.py_names import class_name, parameters, ref_name


def fragment_sources(op: Op) -> tuple[list[str], list[tuple[str, str]]]:
    """(includes, (name, text) per fragment) of a fragment op's Python side; the
    functions are renamed ``_fragment_<name>`` so they cannot shadow generated ones."""
    c = op.compute
    if not isinstance(c, C.FragmentKernel):
        return [], []
    root, shown = validate.fragment_root(op)
    order, includes = fragments.resolve(root, c.python_file, c.python_fragment, shown)
    # Definitions and calls alike, so fragments can call the fragments they depend on.
    calls = re.compile(r"(?<![\w.])(" + "|".join(re.escape(f.name) for f in order) + r")\(")
    renamed = [(f"_fragment_{f.name}", calls.sub(r"_fragment_\1(", f.text)) for f in order]
    return includes, renamed


def stream_class(op: Op) -> str:
    """A stateful op's reference: a class over a byte state buffer (``_k.window_*``)."""
    return f"""#pragma IMAGINET_FRAGMENT_BEGIN "{op.name}"
class {class_name(op)}:
    \"\"\"NumPy reference of {op.qualified_name}: a queue of frames in a byte state buffer.\"\"\"

    def __init__(self, window, stride, frame_shape, dtype, state=None):
        size = _k.window_state_size(window, frame_shape, dtype)
        self.state = np.zeros(size, dtype=np.uint8) if state is None else state
        _k.window_init(self.state, window, stride, frame_shape, dtype)

    def enqueue(self, x):
        _k.window_enqueue(self.state, x)

    def ready(self):
        return _k.window_ready(self.state)

    def dequeue(self, output):
        _k.window_dequeue(self.state, output)
#pragma IMAGINET_FRAGMENT_END
"""


def function(op: Op) -> str:
    if isinstance(op.compute, C.SlidingWindow):
        return stream_class(op)
    lines = [f'#pragma IMAGINET_FRAGMENT_BEGIN "{op.name}"',
             f"def {ref_name(op.name)}({', '.join(parameters(op))}):",
             f'    """NumPy reference of {op.qualified_name}: computes into the output arrays."""']
    lines += ["    " + line for line in NumpyLowering().lines(op)]
    lines.append("#pragma IMAGINET_FRAGMENT_END")
    return "\n".join(lines) + "\n"


def module(ns: Namespace, header: str) -> str:
    """The reference module of a namespace (a fixed-point conversion's reference is the package's
    ``fixed_point`` module, over FixedPointArrays: ADR 0068)."""
    ops = [o for o in ns.ops if not o.abstract and o.compute is not None
           and not isinstance(o.compute, C.FixedPointConversion)]
    includes: list[str] = []
    texts: list[str] = []
    for op in ops:
        inc, frag = fragment_sources(op)
        includes += [i for i in inc if i not in includes]
        texts += [t for _, t in frag if t not in texts]
    head = [f"# {header}", f'"""NumPy reference implementation of the {ns.name} namespace."""', "",
            "#pragma IMAGINET_INCLUDES_BEGIN", "import numpy as np", *[i for i in includes if i != "import numpy as np"],
            "from opforge import _kernels as _k", "#pragma IMAGINET_INCLUDES_END", ""]
    return "\n".join(head + texts + [function(op) for op in ops])
