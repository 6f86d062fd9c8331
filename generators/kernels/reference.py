"""NumPy reference implementations generated from compute descriptions.

Each op becomes ``def <op>(<inputs>, <args>, <configs>, <outputs>)`` writing
into preallocated outputs (like Imaginet's Python fragments), annotated with
``#pragma IMAGINET_FRAGMENT_BEGIN``. The python generator writes these into
the package; the tests generator executes them to compute golden vectors.
"""

from __future__ import annotations

import builtins
import re

from dsl import compute as C
from dsl import dtypes as D
from dsl import fragments, validate
from dsl.model import Namespace, Op
from dsl.types import DataType
from generators import abi
from generators.kernels import scalar_numpy
from generators.naming import PYTHON_RESERVED, mangle


def py_name(name: str) -> str:
    return mangle(name, PYTHON_RESERVED)


def module_name(key: str) -> str:
    """A namespace's Python module (``for`` -> ``for_``: a keyword cannot be imported)."""
    return py_name(key)


def function_name(name: str) -> str:
    """An op's Python function name: snake_case (``reduceMax`` -> ``reduce_max``), mangled."""
    return py_name(re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower())


def ref_name(name: str) -> str:
    """An op's function in the reference module: its Python name, with a trailing
    underscore where that is a builtin (``slice``, ``all``), which the module's
    own code and fragments still need."""
    public = function_name(name)
    return public + "_" if public in dir(builtins) else public


def config_param(name: str) -> str:
    """A config's parameter name: ``RandomConfig`` -> ``random_config``."""
    return py_name(re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower())


def parameters(op: Op) -> list[str]:
    return ([py_name(i.name) for i in op.inputs] + [py_name(a.name) for a in op.args]
            + [config_param(c.name) for c in op.configs] + [py_name(o.name) for o in op.outputs])


def _seed(op: Op, name: str) -> str:
    for cfg in op.configs:
        if any(a.name == name for a in cfg.args):
            return f"{config_param(cfg.name)}.{py_name(name)}"
    return py_name(name)


#: How a Python fragment receives each kind of scalar arg (booleans as bool).
_FRAGMENT_ARG_PY = {DataType.INT: "int", DataType.LONG: "int", DataType.FLOATING_POINT: "float",
                    DataType.NUMERIC: "float"}


def _predicate(op: Op, c: C.ArgReduction | C.FindAll, variants: list[D.Variant]) -> list[str]:
    """``holds = <the predicate c.map on the input>``, chosen by the input's dtype."""
    x = py_name(c.input)
    kinds = {a.name: a.type for a in op.args}
    enums = {a.name: a.possible_values for a in op.args if a.type is DataType.ENUM}
    env = {a: (py_name(a), abi.scalar_dtype(kinds[a])) for a in c.args}
    assert c.map is not None
    return _by_dtype(x, [(v.of(c.input), scalar_numpy.render(C.resolve_enums(c.map, enums), v.of(c.input),
                                                              {"x": (x, v.of(c.input))} | env)[0])
                         for v in variants], "holds", indent=0)


def body(op: Op) -> list[str]:
    """Statements computing the op into its output arrays (inputs already of the variant's dtypes)."""
    c = op.compute
    out = py_name(op.outputs[0].name)
    variants = list(D.variants(op))
    if isinstance(c, C.Elementwise):
        enums = {a.name: a.possible_values for a in op.args if a.type is DataType.ENUM}
        inputs = [p for p in c.params if any(i.name == p for i in op.inputs)]
        args = {a.name: a for a in op.args}
        lines = []
        for k, (given, expr) in enumerate(c.cases):
            expr = C.resolve_enums(expr, enums)
            per_dtype = []
            for v in variants:
                env = {p: (py_name(p), v.of(p)) for p in inputs}
                env |= {p: (py_name(p), abi.scalar_dtype(args[p].type)) for p in c.params if p not in inputs}
                code, _ = scalar_numpy.render(expr, v.of(inputs[0]), env)
                per_dtype.append((v.of(inputs[0]), code))
            cond = " and ".join([f"{py_name(p)} is not None" for p in given] +
                                [f"{py_name(p)} is None" for p in c.optional if p not in given]) or "True"
            lines.append(f"{'if' if k == 0 else 'elif'} {cond}:")
            lines += _by_dtype(py_name(inputs[0]), per_dtype, "result", indent=1)
        return ["with np.errstate(all='ignore'):", *("    " + line for line in lines),
                f"    np.copyto({out}, result, casting='unsafe')"]
    if isinstance(c, C.Reduction):
        x = py_name(c.input)
        kinds = {a.name: a.type for a in op.args}
        enums = {a.name: a.possible_values for a in op.args if a.type is DataType.ENUM}
        lines = [f"axes = _k.norm_axes({py_name(c.axes)}, {x}.ndim)",
                 f"n = _k.reduced_count({x}.shape, axes)", "with np.errstate(all='ignore'):"]
        per_dtype = []
        for v in variants:
            t = v.of(c.input)
            block = []
            env = {"x": (x, t)} | ({"y": (py_name(c.other), t)} if c.other else {})
            env |= {a: (py_name(a), abi.scalar_dtype(kinds[a])) for a in c.args}
            if c.pre == "max":
                block += [f"m = _k.reduce('max', {x}, axes, np.{t}, initial=_k.lowest(np.{t}))",
                          "m = np.where(np.isfinite(m), m, 0).astype(m.dtype)" if D.category(t) == "float" else "pass"]
                env["m"] = ("m", t)
            elif c.pre == "mean":
                block += [f"m = (_k.reduce('add', {x}, axes, np.float64) / n).astype(np.{t})"]
                env["m"] = ("m", t)
            value = scalar_numpy.render(C.resolve_enums(c.map, enums), t, env)[0] if c.map is not None else x
            a_t = C.accumulator_dtype(c, t, v.of(op.outputs[0].name))
            block += [f"acc = _k.reduce({c.combine!r}, np.asarray({value}).astype(np.{t}).astype(np.{a_t}), "
                      f"axes, np.{a_t})"]
            for k, extra in enumerate(c.extra_maps, 1):
                value_k = scalar_numpy.render(C.resolve_enums(extra, enums), t, env)[0]
                block += [f"acc{k} = _k.reduce({c.combine!r}, np.asarray({value_k}).astype(np.{t}).astype(np.{a_t}), "
                          f"axes, np.{a_t})"]
            fenv = {"acc": ("acc", a_t), "n": ("n", "int64")} | ({"m": ("m", t)} if c.pre else {})
            fenv |= {f"acc{k}": (f"acc{k}", a_t) for k in range(1, len(c.extra_maps) + 1)}
            for k, final in enumerate(c.finalizers):  # one result per output
                block += [f"result{k} = {scalar_numpy.render(final, t, fenv)[0] if final is not None else 'acc'}"]
            per_dtype.append((t, block))
        lines += _by_dtype(x, per_dtype, None, indent=1)
        return lines + [f"    np.copyto({py_name(o.name)}, np.reshape(result{k}, {py_name(o.name)}.shape), casting='unsafe')"
                        for k, o in enumerate(op.outputs)]
    if isinstance(c, C.Join):
        join = "np.stack" if c.stack else "np.concatenate"
        return [f"np.copyto({out}, {join}({py_name(c.inputs)}, axis=int({py_name(c.axis)})))"]
    if isinstance(c, C.Parts):  # the list output: one array per part, preallocated by the caller
        xs = py_name(c.source) if c.part == "meshgrid" else f"[{py_name(c.source)}]"
        params = ", ".join(f"{role!r}: {py_name(arg)}" for role, arg in c.params)
        return [f"for _to, _part in zip({out}, _k.parts({c.part!r}, {xs}, {{{params}}}), strict=True):",
                "    np.copyto(_to, _part)"]
    if isinstance(c, C.Merge):
        return [f"np.copyto({out}, _k.merge({c.combine!r}, {py_name(c.inputs)}, {out}.dtype), casting='unsafe')"]
    if isinstance(c, C.FindAll):  # numpy.flatnonzero into the capacity, then the count
        indices, count = (py_name(o.name) for o in op.outputs)
        return [*_predicate(op, c, variants), "found = np.flatnonzero(np.asarray(holds, dtype=bool))",
                f"{indices}[...] = 0", f"{indices}[:found.size] = found", f"{count}[...] = found.size"]
    if isinstance(c, C.ArgReduction) and c.searches:
        holds = _predicate(op, c, variants)
        return [*holds, f"result = _k.search(np.asarray(holds, dtype=bool), int({py_name(c.axis)}), "
                        f"{c.which == 'last'}, bool({py_name(c.keep_dims)}))",
                f"np.copyto({out}, result, casting='unsafe')"]
    if isinstance(c, C.ArgReduction):
        x = py_name(c.input)
        if c.map is not None:
            mapped = _by_dtype(x, [(v.of(c.input), scalar_numpy.render(c.map, v.of(c.input), {"x": (x, v.of(c.input))})[0])
                                   for v in variants], "values", indent=0)
        else:
            mapped = [f"values = {x}"]
        return [*mapped, f"result = _k.arg_reduce({c.which!r}, values, int({py_name(c.axis)}), "
                         f"bool({py_name(c.keep_dims)}))",
                f"np.copyto({out}, result, casting='unsafe')"]
    if isinstance(c, C.TensorDot):  # the einsum of the axes given, built now
        x, y = (py_name(n) for n in c.inputs)
        given = ", ".join(py_name(n) for n in (*c.axes, *c.transposes))
        return [f"subscripts = _k.tensordot_subscripts({x}.ndim, {y}.ndim, {given})",
                f"np.copyto({out}, np.einsum(subscripts, {x}, {y}), casting='unsafe')"]
    if isinstance(c, C.Contraction):
        operands = ", ".join(py_name(n) for n in c.inputs)
        return [f"np.copyto({out}, np.einsum({c.spec.numpy_subscripts()!r}, {operands}), casting='unsafe')"]
    if isinstance(c, C.RandomSample):
        params = ", ".join(f"{k!r}: {py_name(v)}" for k, v in c.params)
        return [f"values = _k.sample({c.distribution!r}, {{{params}}}, {_seed(op, 'seed')}, "
                f"{_seed(op, 'offset')}, {out}.size, {out}.dtype)",
                f"np.copyto({out}, values.reshape({out}.shape))"]
    if isinstance(c, C.Generation):
        params = ", ".join(f"{role!r}: {py_name(name)}" for role, name in c.params)
        return [f"np.copyto({out}, _k.generate_values({c.generator!r}, {{{params}}}, {out}.dtype, {out}.shape))"]
    if isinstance(c, C.LayoutMove):
        params = ", ".join(f"{role!r}: {py_name(name)}" for role, name in c.params)
        return [f"np.copyto({out}, _k.layout_apply({c.layout!r}, {py_name(c.input)}, {{{params}}}, {out}.shape))"]
    if isinstance(c, C.ShapeQuery):
        axis = f", {py_name(c.axis)}" if c.axis is not None else ""
        return [f"np.copyto({out}, _k.shape_query({c.query!r}, {py_name(c.input)}.shape{axis}))"]
    if isinstance(c, C.ScatterRows):
        ind, upd = py_name(c.indices), py_name(c.updates)
        lines = [f"at = _k.scatter_at({ind}, {out}.shape[0], {c.ref is not None}, {c.sorted})",
                 f"rows = {upd}.reshape((at.size,) + {out}.shape[1:])"]
        if c.ref is not None:
            lines.append(f"np.copyto({out}, {py_name(c.ref)})")
        else:
            lines.append(f"{out}[...] = _k.segment_init({c.init!r}, {out}.dtype)")
        per_dtype = []
        for v in variants:
            t = v.of(c.updates)
            code, _ = scalar_numpy.render(c.combine, t, {"acc": ("acc", t), "u": ("u", t)})
            per_dtype.append((t, code))
        # Row by row in the order of indices, as the C kernel folds (slices keep arrays, never scalars).
        lines += ["with np.errstate(all='ignore'):", "    for k, i in enumerate(at):",
                  f"        acc, u = {out}[i : i + 1], rows[k : k + 1]"]
        lines += _by_dtype(upd, per_dtype, "result", indent=2)
        lines += [f"        np.copyto({out}[i : i + 1], result, casting='unsafe')"]
        if c.scale is not None:
            divisor = "counts[s]" if c.scale == "mean" else "np.sqrt(np.float64(counts[s]))"
            lines += [f"counts = np.bincount(at, minlength={out}.shape[0])", "for s in np.flatnonzero(counts):",
                      f"    {out}[s] = {out}[s] / {out}.dtype.type({divisor})"]
        return lines
    if isinstance(c, C.FragmentKernel) and (c.matrix or c.layout in ("flat", "rows", "channels", "select", "dense", "shaped")):
        kinds = {a.name: a.type for a in op.args}
        args = ", ".join([py_name(i.name) for i in op.inputs] +
                         [f"{_FRAGMENT_ARG_PY.get(kinds[a], 'bool')}({py_name(a)})" for a in c.args] +
                         [py_name(o.name) for o in op.outputs])
        return [f"_fragment_{c.python_fragment}({args})"]
    if isinstance(c, C.FragmentKernel):
        kinds = {a.name: a.type for a in op.args}
        args = ", ".join([py_name(op.inputs[0].name), f"int({py_name(c.axis)})"] +
                         [f"{_FRAGMENT_ARG_PY.get(kinds[a], 'bool')}({py_name(a)})" for a in c.args] + [out])
        return [f"_fragment_{c.python_fragment}({args})"]
    raise ValueError(f"no reference for {type(c).__name__}")


def _by_dtype(on: str, per_dtype: list, target: str | None, indent: int) -> list[str]:
    pad = "    " * indent
    lines = []
    for i, (dtype, code) in enumerate(per_dtype):
        lines.append(f"{pad}{'if' if i == 0 else 'elif'} {on}.dtype == np.{dtype}:")
        if isinstance(code, list):
            lines += [f"{pad}    {line}" for line in code]
        else:
            lines.append(f"{pad}    {target} = {code}")
    lines += [f"{pad}else:", f"{pad}    raise TypeError(f'unsupported dtype {{{on}.dtype}}')"]
    return lines


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


def class_name(op: Op) -> str:
    return "".join(part.capitalize() for part in op.name.split("_"))


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
    lines += ["    " + line for line in body(op)]
    lines.append("#pragma IMAGINET_FRAGMENT_END")
    return "\n".join(lines) + "\n"


def module(ns: Namespace, header: str) -> str:
    """The reference module of a namespace."""
    ops = [o for o in ns.ops if not o.abstract and o.compute is not None]
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
