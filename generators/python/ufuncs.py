"""NumPy ufuncs over the C kernels, for the calls NumPy's own machinery can make (ADR 0073).

An elementwise op whose call is NumPy's ufunc call (its inputs are single tensors that meet in
one dtype, no args, one output, broadcasting as NumPy does, no check a ufunc cannot make) gets a
ufunc in the extension module ``opforge._opforge_ufuncs``: a loop per variant of the Python API,
in NumPy's loop order, that runs the op's own contiguous C kernel (the C target's, rendered
once by ``c_emit``) on blocks. The binding calls it first when the call is one the ufunc
computes as the binding would (arrays of one variant's dtype, or with Python numbers among
them converted as the checked way converts them); anything else, and any error, goes the
checked way.
"""

from __future__ import annotations

from pathlib import Path

import jinja2
import numpy as np

from dsl import compute as C
from dsl import dtypes as D
from dsl import expr as E
from dsl.model import Op
from generators import abi
from generators.formatting import c_string
from generators.kernels import c_emit, numpy_keywords, py_names
from generators.kernels.py_value_checks import PyValueChecks
from generators.kernels.scalar_c import C_TYPE, SUFFIX

MODULE = "_opforge_ufuncs"
#: The real C of the ufuncs' inner loop, shipped beside the generated module source.
LOOP_HEADER = Path(__file__).resolve().parent / "runtime" / "opf_ufunc_loop.h"
_TEMPLATES = jinja2.Environment(loader=jinja2.PackageLoader("generators.python", "templates"),
                                undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                                trim_blocks=True, lstrip_blocks=True)


def takes(op: Op) -> bool:
    """Whether NumPy's ufunc machinery makes the op's call: an elementwise op of one case and no
    args, single inputs of the one shared type that broadcast as NumPy's do, one output, and no
    rule a ufunc cannot check (its constraints are same-type and broadcast rules only)."""
    c = op.compute
    if not isinstance(c, C.Elementwise) or len(c.cases) != 1 or op.args or op.configs or len(op.outputs) != 1:
        return False
    if c.broadcast == "equal" or not numpy_keywords.promotes(op) or len(op.inputs) > 3:
        return False
    if set(D.shared_type_inputs(op)) != {i.name for i in op.inputs}:
        return False
    terms = [t for k in op.constraints for t in (k.expr.terms if isinstance(k.expr, E.AllOf) else (k.expr,))]
    return (all(isinstance(t, (E.SameType, E.BroadcastableShapes)) for t in terms)
            and not PyValueChecks().lines(op) and bool(numpy_keywords.api_variants(op)))


def attribute(op: Op) -> str:
    """The ufunc's name in the extension module: ``math_add``."""
    return abi.function(op).removeprefix("opforge_")


#: NumPy's order of its types' characters, as its own add lists its loops (float16's 'e' first).
_LOOP_ORDER = "".join(types[0] for types in np.add.types)


def _variants(op: Op) -> list[D.Variant]:
    """The Python API's variants in NumPy's loop order (its type characters' order, float16's 'e'
    before float32's 'f': the first loop the inputs cast to safely is the one a ufunc runs)."""
    first = op.inputs[0].name
    return sorted(numpy_keywords.api_variants(op), key=lambda v: _LOOP_ORDER.index(np.dtype(v.of(first)).char))


def c_source(ops: list[Op], header: str) -> str:
    """The extension module's C: each op's contiguous kernels (the C target's own), a loop per
    variant over blocks, and the ufuncs."""
    ufuncs = []
    for op in ops:
        code = c_emit.emit(op)
        fragments = {f.name: f.body for f in code.fragments}
        tensors = [t.name for t in (*op.inputs, *op.outputs)]
        loops = []
        for v in _variants(op):
            kernel = f"{abi.function(op)}_{SUFFIX[v.dtype]}"
            casts = [f"({'' if k == len(tensors) - 1 else 'const '}{C_TYPE[v.of(t)]}*)p[{k}]"
                     for k, t in enumerate(tensors)]
            loops.append({"name": f"{attribute(op)}_{SUFFIX[v.dtype]}", "kernel": kernel, "body": fragments[kernel],
                          "casts": ", ".join(casts), "sizes": ", ".join(f"(int)sizeof({C_TYPE[v.of(t)]})"
                                                                         for t in tensors),
                          # (NumPy's C API names each dtype's type number as opforge names it: NPY_FLOAT32)
                          "types": ", ".join(f"NPY_{v.of(t).upper()}" for t in tensors)})
        ufuncs.append({"name": attribute(op), "function": py_names.function_name(op.name), "loops": loops,
                       "nin": len(op.inputs),
                       "doc": c_string(f"{op.qualified_name} as a NumPy ufunc over its C kernels (no checks)")})
    return _TEMPLATES.get_template("_opforge_ufuncs.c.j2").render(header=header, module=MODULE, ufuncs=ufuncs)


def prefix(op: Op) -> str:
    """The binding module's prefix of the names it keeps for the op's ufunc: ``_add`` (``_add_ufunc``,
    ``_add_fast``, ``_add_weak``)."""
    return "_" + py_names.function_name(op.name).rstrip("_")


def fast_path(op: Op, promotion: str) -> tuple[list[str], list[str]]:
    """(module-level lines, the function's first lines): the ufunc call for the calls it makes as
    the checked way would; its errors fall through to the checks, which say them in the op's words.
    Arrays of one variant's dtype call it as they are; with Python numbers among them, each number
    becomes what the checked way makes of it first (``_rt.weak_operands``, given ``promotion``: the
    binding's arguments of ``_rt.promoted``)."""
    name = prefix(op)[1:]
    ins = [py_names.py_name(i.name) for i in op.inputs]
    module = [f"_{name}_ufunc = getattr(_native.ufuncs, {attribute(op)!r}, None)\n"
              "#: The dtypes whose arrays run the ufunc: a variant's, every input of it (ADR 0073)\n"
              f"_{name}_fast = frozenset() if _{name}_ufunc is None else frozenset("
              f"np.dtype(d) for d in {tuple(v.dtype for v in _variants(op))!r})\n"
              "#: The dtypes of the ufunc's operands, by the types of a call's, where Python numbers are among them\n"
              f"_{name}_weak: dict = {{}}"]
    same = "".join(f" and {n}.dtype is {ins[0]}.dtype" for n in ins[1:])
    # (out may overlap the inputs, as a ufunc's may: the checked way computes such a call apart too)
    # (ranks above the C API's: refused the checked way; a result's rank is its out's or its inputs' largest)
    fits = f"(out is None or type(out) is _nd and out.ndim <= {abi.MAX_RANK})"
    # (a NumPy scalar promotes as a 0-d array of its dtype does, unlike a Python number)
    typed = " and ".join(f"(type({n}) is _nd or type({n}) in _scalars)" for n in ins)
    known = " and ".join(f"(type({n}) is _nd or type({n}) in _scalars or type({n}) in _rt.WEAK_TYPES)" for n in ins)
    weak = " or ".join(f"type({n}) in _rt.WEAK_TYPES" for n in ins)
    operands = f"_rt.weak_operands({op.qualified_name!r}, _{name}_weak, {promotion})"
    call = ", ".join(ins)
    lines = [f"if backend == \"c\" and {typed} and {ins[0]}.dtype in _{name}_fast{same} and {fits}:",
             "    try:",
             f"        _r = _{name}_ufunc({call}) if out is None else _{name}_ufunc({call}, out=out)",
             "    except (TypeError, ValueError):",
             "        pass  # (the checks below say what is wrong, in the op's words)",
             "    else:",
             "        # (a 0-d result is a NumPy scalar: the checked way gives an array)",
             f"        if type(_r) is _nd and _r.ndim <= {abi.MAX_RANK}:",
             "            return _r",
             f"elif backend == \"c\" and ({weak}) and {known} and {fits}:",
             "    try:",
             f"        _w = {operands}",
             f"        _r = None if _w is None else _{name}_ufunc(*_w) if out is None else _{name}_ufunc(*_w, out=out)",
             "    except (TypeError, ValueError):",
             "        _r = None  # (the checks below say what is wrong, in the op's words)",
             f"    if type(_r) is _nd and _r.ndim <= {abi.MAX_RANK}:",
             "        return _r"]
    return module, lines
