"""The NumPy lowering of each compute form: the statements of an op's reference
function (``reference.function``), in NumPy over ``_k`` (``numpy_runtime``)."""

from __future__ import annotations

from typing import Callable

from dsl import compute as C
from dsl import dtypes as D
from dsl import expr as E
from dsl.model import Op
from dsl.types import DataType
from generators import abi
from generators.kernels import scalar_numpy
from generators.kernels.py_names import config_param, py_name
from generators.kernels.py_shapes import PyShapeRenderer, Spelling


class _ReferenceSizes(PyShapeRenderer):
    """Sizes of the shapes' language inside a reference function, where an enum arg holds the
    index of its value (as the C API's does)."""

    def __init__(self, op: Op) -> None:
        super().__init__(Spelling(shape=lambda n: f"np.shape({py_name(n)})", arg=py_name,
                                  shapes=lambda n: f"[np.shape(_x) for _x in {py_name(n)}]"), hoist="_size")
        self.enums = op.enums

    def render_compare(self, node: E.Compare) -> str:
        return super().render_compare(E.resolve_enum(node, self.enums))


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
    enums = op.enums
    env = {a: (py_name(a), abi.scalar_dtype(kinds[a])) for a in c.args}
    assert c.map is not None
    per_dtype = []
    for v in variants:
        t, given = _compared(op, c, v)
        per_dtype.append((v.of(c.input), scalar_numpy.render(C.resolve_enums(c.map, enums), t, given | env)[0]))
    return _by_dtype(x, per_dtype, "holds", indent=0)


def _compared(op: Op, c: C.ArgReduction | C.FindAll, v: D.Variant) -> tuple[str, dict[str, tuple[str, str]]]:
    """(the dtype the variant ``v`` compares its input in, the input as a value of it): its own, a
    half's float (ADR 0076)."""
    x, given = py_name(c.input), v.of(c.input)
    t = D.computes_in(op, given)
    return t, {"x": (x if t == given else f"{x}.astype(np.{t})", t)}


def _by_dtype(on: str, per_dtype: list, target: str | None, indent: int) -> list[str]:
    """The code for each dtype of ``on``, chosen by it; once, where it is the same for every dtype
    (the binding has checked the dtype)."""
    pad = "    " * indent
    if len({repr(code) for _, code in per_dtype}) == 1:
        code = per_dtype[0][1]
        return [f"{pad}{line}" for line in code] if isinstance(code, list) else [f"{pad}{target} = {code}"]
    lines = []
    for i, (dtype, code) in enumerate(per_dtype):
        lines.append(f"{pad}{'if' if i == 0 else 'elif'} {on}.dtype == np.{dtype}:")
        if isinstance(code, list):
            lines += [f"{pad}    {line}" for line in code]
        else:
            lines.append(f"{pad}    {target} = {code}")
    lines += [f"{pad}else:", f"{pad}    raise TypeError(f'unsupported dtype {{{on}.dtype}}')"]
    return lines


def _converted_back(op: Op, v: D.Variant, code: str, output: str) -> str:
    """``code``, the result for ``output`` of the variant ``v``, converted back by cast's rule
    where ``v`` is an integer computed through float64 (ADR 0058)."""
    if D.computes_in(op, v.dtype) == v.dtype:
        return code
    return f"_k.convert(np.asarray({code}), np.{v.of(output)})"


def _computed_inputs(op: Op, names: tuple[str, ...], variants: list[D.Variant], listed: bool = False) -> list[str]:
    """Lines rebinding each input of ``names`` (``listed``: each a list of tensors) that a variant
    computes in another dtype as an array of that dtype (a half as float32, ADR 0076): the lines
    after compute as that variant does, and its output takes the result by cast's rule
    (``np.copyto(..., casting='unsafe')``)."""
    lines = []
    for name in names:
        n = py_name(name)
        wider = {v.of(name): D.computes_in(op, v.of(name)) for v in variants}
        for given, computed in wider.items():
            if computed == given:
                continue
            lines += ([f"if {n} and {n}[0].dtype == np.{given}:", f"    {n} = [_x.astype(np.{computed}) for _x in {n}]"]
                      if listed else [f"if {n}.dtype == np.{given}:", f"    {n} = {n}.astype(np.{computed})"])
    return lines


class NumpyLowering:
    """One method per compute form: the statements computing an op into its output
    arrays (inputs already of the variant's dtypes), named after the form as the C
    emitter's are (ADR 0029)."""

    def lines(self, op: Op) -> list[str]:
        c = op.compute
        method = next((getattr(self, n) for n in C.form_class_names(c) if hasattr(self, n)), None)
        if method is None:
            raise ValueError(f"no reference for {type(c).__name__}")
        return method(op, c, py_name(op.outputs[0].name), list(D.variants(op)))

    def elementwise(self, op: Op, c: C.Elementwise, out: str, variants: list[D.Variant]) -> list[str]:
        enums = op.enums
        inputs = [p for p in c.params if any(i.name == p for i in op.inputs)]
        first = D.primary_input(op).name  # type: ignore[attr-defined]  # (its dtype is the computation's)
        args = {a.name: a for a in op.args}
        lines = []
        for k, (given, expr) in enumerate(c.cases):
            expr = C.resolve_enums(expr, enums)
            per_dtype = []
            for v in variants:
                env = {p: (py_name(p), v.of(p)) for p in inputs}
                env |= {p: (py_name(p), abi.scalar_dtype(args[p].type)) for p in c.params if p not in inputs}
                code, _ = scalar_numpy.render(expr, D.computes_in(op, v.of(first)), env)
                per_dtype.append((v.of(first), _converted_back(op, v, code, op.outputs[0].name)))
            cond = " and ".join(f"{py_name(p)} is {'not ' if set_ else ''}None"
                                for p, set_ in c.presence(given))
            if not cond and len(c.cases) == 1:  # (one case, for every call)
                lines += _by_dtype(py_name(first), per_dtype, "result", indent=0)
                continue
            lines.append(f"{'if' if k == 0 else 'elif'} {cond or 'True'}:")
            lines += _by_dtype(py_name(first), per_dtype, "result", indent=1)
        return ["with np.errstate(all='ignore'):", *("    " + line for line in lines),
                f"    np.copyto({out}, result, casting='unsafe')"]

    def reduction(self, op: Op, c: C.Reduction, out: str, variants: list[D.Variant]) -> list[str]:
        x = py_name(c.input)
        kinds = {a.name: a.type for a in op.args}
        enums = op.enums
        lines = [f"axes = _k.norm_axes({py_name(c.axes)}, {x}.ndim)",
                 f"n = _k.reduced_count({x}.shape, axes)", "with np.errstate(all='ignore'):"]
        per_dtype = []
        for v in variants:
            # (an integer through floats, a half: ADR 0058, 0076)
            dt = C.reduction_dtypes(c, v.of(c.input), v.of(op.outputs[0].name), D.computes_in(op, v.of(c.input)))
            a_t, t, final_t = dt.accumulator, dt.elements, dt.finalize
            xs = x if t == v.of(c.input) else f"{x}.astype(np.{t})"
            block = []
            ys = (py_name(c.other) if t == v.of(c.other) else f"{py_name(c.other)}.astype(np.{t})") if c.other else ""
            env = {"x": (xs, t)} | ({"y": (ys, t)} if c.other else {})
            env |= {a: (py_name(a), abi.scalar_dtype(kinds[a])) for a in c.args}
            if c.pre == "max":
                block += [f"m = _k.reduce('max', {xs}, axes, np.{t}, initial=_k.lowest(np.{t}))",
                          "m = np.where(np.isfinite(m), m, 0).astype(m.dtype)" if D.category(t) == "float" else "pass"]
                env["m"] = ("m", t)
            elif c.pre == "mean":
                block += [f"m = (_k.reduce('add', {xs}, axes, np.float64) / n).astype(np.{t})"]
                env["m"] = ("m", t)
            value = scalar_numpy.render(C.resolve_enums(c.map, enums), t, env)[0] if c.map is not None else xs
            as_acc = f".astype(np.{t})" + (f".astype(np.{a_t})" if a_t != t else "")  # (the map's dtype, the sum's)
            block += [f"acc = _k.reduce({c.combine!r}, np.asarray({value}){as_acc}, "
                      f"axes, np.{a_t})"]
            for k, extra in enumerate(c.extra_maps, 1):
                value_k = scalar_numpy.render(C.resolve_enums(extra, enums), t, env)[0]
                block += [f"acc{k} = _k.reduce({c.combine!r}, np.asarray({value_k}){as_acc}, "
                          f"axes, np.{a_t})"]
            fenv = {"acc": ("acc", a_t), "n": ("n", "int64")} | ({"m": ("m", t)} if c.pre else {})
            fenv |= {f"acc{k}": (f"acc{k}", a_t) for k in range(1, len(c.extra_maps) + 1)}
            for k, (o, final) in enumerate(zip(op.outputs, c.finalizers)):  # one result per output
                result = scalar_numpy.render(final, final_t, fenv)[0] if final is not None else "acc"
                block += [f"result{k} = {_converted_back(op, v, result, o.name)}"]
            per_dtype.append((v.of(c.input), block))
        lines += _by_dtype(x, per_dtype, None, indent=1)
        return lines + [f"    np.copyto({py_name(o.name)}, np.reshape(result{k}, {py_name(o.name)}.shape), casting='unsafe')"
                        for k, o in enumerate(op.outputs)]

    def join(self, op: Op, c: C.Join, out: str, variants: list[D.Variant]) -> list[str]:
        join = "np.stack" if c.stack else "np.concatenate"
        return [f"np.copyto({out}, {join}({py_name(c.inputs)}, axis=int({py_name(c.axis)})))"]

    def parts(self, op: Op, c: C.Parts, out: str, variants: list[D.Variant]) -> list[str]:
        # the list output: one array per part, preallocated by the caller
        xs = py_name(c.source) if c.part == "meshgrid" else f"[{py_name(c.source)}]"
        params = ", ".join(f"{role!r}: {py_name(arg)}" for role, arg in c.params)
        return [f"for _to, _part in zip({out}, _k.parts({c.part!r}, {xs}, {{{params}}}), strict=True):",
                "    np.copyto(_to, _part)"]

    def merge(self, op: Op, c: C.Merge, out: str, variants: list[D.Variant]) -> list[str]:
        # (in the dtype the inputs compute in: a half's float32, then rounded once into the output)
        # (an average from float64 straight into the output's dtype)
        xs = py_name(c.inputs)
        dtype = f"{out}.dtype" if c.combine in ("avg", "max_index") else f"{xs}[0].dtype if {xs} else {out}.dtype"
        return [*_computed_inputs(op, (c.inputs,), variants, listed=True),
                f"np.copyto({out}, _k.merge({c.combine!r}, {xs}, {dtype}), casting='unsafe')"]

    def findall(self, op: Op, c: C.FindAll, out: str, variants: list[D.Variant]) -> list[str]:
        # numpy.flatnonzero into the capacity, then the count
        indices, count = (py_name(o.name) for o in op.outputs)
        return [*_predicate(op, c, variants), "found = np.flatnonzero(np.asarray(holds, dtype=bool))",
                f"{indices}[...] = 0", f"{indices}[:found.size] = found", f"{count}[...] = found.size"]

    def argreduction(self, op: Op, c: C.ArgReduction, out: str, variants: list[D.Variant]) -> list[str]:
        if c.searches:
            holds = _predicate(op, c, variants)
            return [*holds, f"result = _k.search(np.asarray(holds, dtype=bool), int({py_name(c.axis)}), "
                            f"{c.which == 'last'}, bool({py_name(c.keep_dims)}))",
                    f"np.copyto({out}, result, casting='unsafe')"]
        x = py_name(c.input)
        if c.map is not None:
            mapped = _by_dtype(x, [(v.of(c.input), scalar_numpy.render(c.map, *_compared(op, c, v))[0])
                                   for v in variants], "values", indent=0)
        else:
            mapped = [f"values = {x}"]
        last = f", bool({py_name(c.last_index)})" if c.last_index is not None else ""
        return [*mapped, f"result = _k.arg_reduce({c.which!r}, values, int({py_name(c.axis)}), "
                         f"bool({py_name(c.keep_dims)}){last})",
                f"np.copyto({out}, result, casting='unsafe')"]

    def tensordot(self, op: Op, c: C.TensorDot, out: str, variants: list[D.Variant]) -> list[str]:
        # the einsum of the axes given, built now
        x, y = (py_name(n) for n in c.inputs)
        given = ", ".join(py_name(n) for n in (*c.axes, *c.transposes))
        return [*_computed_inputs(op, c.inputs, variants),
                f"subscripts = _k.tensordot_subscripts({x}.ndim, {y}.ndim, {given})",
                f"np.copyto({out}, np.einsum(subscripts, {x}, {y}), casting='unsafe')"]

    def contraction(self, op: Op, c: C.Contraction, out: str, variants: list[D.Variant]) -> list[str]:
        # (a convolution axis as two, through a strided view of the operand padded with zeros: its
        # windows, as the form counts them, and its kernel; the sizes the views read, each computed once first)
        sizes = _ReferenceSizes(op)
        size = sizes.render
        widened = _computed_inputs(op, c.inputs, variants)

        def view(name: str, tensor: str | None = None, *fill: str) -> str:
            """Operand ``name`` (or ``tensor``, of its shape) as conv_view gives it, padded with
            ``fill`` (its value, and the one beyond the padding)."""
            axes = [f"({w.axis}, {size(w.windows)}, {size(w.stride)}, {size(w.kernel) if w.kernel else None}, "
                    f"{size(w.dilation)}, {size(w.pad_begin)}, {size(w.pad_end)})"
                    for w in c.windows() if w.operand == name]
            given = tensor or py_name(name)
            return f"_k.conv_view({', '.join([given, '[' + ', '.join(axes) + ']', *fill])})" if axes else given

        if c.combine != "add":  # (a pool: its windows' elements last, then reduced; the padding never the max)
            pooled = self._pool(c, out, lambda *how: view(c.inputs[0], *how))
            return widened + sizes.take() + pooled
        operands = [view(name) for name in c.inputs]
        subscripts = c.spec.numpy_subscripts()
        lines = widened + sizes.take()
        if c.spec.summed_row:  # (the row variable's axes, kept in front by einsum, then summed)
            subscripts = subscripts.replace("->", "->...")
            lines += [f"result = np.einsum({subscripts!r}, {', '.join(operands)})",
                      f"result = result.sum(axis=tuple(range(result.ndim - {len(c.spec.output.named)})))"]
            result = "result"
        else:
            result = f"np.einsum({subscripts!r}, {', '.join(operands)})"
        if c.spec.placeholders:  # (the result's placeholders: axes of size 1)
            result += f".reshape({out}.shape)"
        return lines + [f"np.copyto({out}, {result}, casting='unsafe')"]

    def _pool(self, c: C.Contraction, out: str, view: Callable[..., str]) -> list[str]:
        """A pool's lines: the operand's windows (``view(tensor, *fill)``) with their elements on
        the last axes (einsum's transposed view), reduced there."""
        subscripts, last = c.spec.numpy_subscripts(keep=c.spec.reduced), tuple(range(-len(c.spec.reduced), 0))
        lines = [f"windows = np.einsum({subscripts!r}, {view(None, *(['-np.inf'] if c.combine == 'max' else []))})"]
        if c.combine == "max":
            return lines + [f"np.copyto({out}, windows.max(axis={last}), casting='unsafe')"]
        if c.combine == "lp":  # (a large order overflows to inf, as C's pow does)
            order = py_name(c.p)  # type: ignore[arg-type]
            return lines + ["with np.errstate(over='ignore'):",
                            f"    np.copyto({out}, (np.abs(windows) ** {order}).sum(axis={last}) ** (1 / {order}), "
                            "casting='unsafe')"]
        if not c.padded:  # (every window whole)
            return lines + [f"np.copyto({out}, windows.mean(axis={last}), casting='unsafe')"]
        # (the elements counted: those inside x, or inside x and its padding, never past it; a window
        # all in the padding, not counted, is 0 / 0: NaN, as C's)
        ones = f"np.ones_like({py_name(c.inputs[0])})"
        return lines + [f"inside = np.einsum({subscripts!r}, {view(ones)}).sum(axis={last})",
                        f"padded = np.einsum({subscripts!r}, {view(ones, '1', '0')}).sum(axis={last})",
                        "with np.errstate(invalid='ignore'):",
                        f"    np.copyto({out}, windows.sum(axis={last}) / np.where("
                        f"{py_name(c.count_include_pad)}, padded, inside), casting='unsafe')"]  # type: ignore[arg-type]

    def randomsample(self, op: Op, c: C.RandomSample, out: str, variants: list[D.Variant]) -> list[str]:
        params = ", ".join(f"{k!r}: {py_name(v)}" for k, v in c.params)
        return [f"values = _k.sample({c.distribution!r}, {{{params}}}, {_seed(op, 'seed')}, "
                f"{_seed(op, 'offset')}, {out}.size, {out}.dtype)",
                f"np.copyto({out}, values.reshape({out}.shape))"]

    def generation(self, op: Op, c: C.Generation, out: str, variants: list[D.Variant]) -> list[str]:
        params = ", ".join(f"{role!r}: {py_name(name)}" for role, name in c.params)
        return [f"np.copyto({out}, _k.generate_values({c.generator!r}, {{{params}}}, {out}.dtype, {out}.shape))"]

    def layoutmove(self, op: Op, c: C.LayoutMove, out: str, variants: list[D.Variant]) -> list[str]:
        params = ", ".join(f"{role!r}: {py_name(name)}" for role, name in c.params)
        return [f"np.copyto({out}, _k.layout_apply({c.layout!r}, {py_name(c.input)}, {{{params}}}, {out}.shape))"]

    def shapequery(self, op: Op, c: C.ShapeQuery, out: str, variants: list[D.Variant]) -> list[str]:
        axis = f", {py_name(c.axis)}" if c.axis is not None else ""
        return [f"np.copyto({out}, _k.shape_query({c.query!r}, {py_name(c.input)}.shape{axis}))"]

    def scatterrows(self, op: Op, c: C.ScatterRows, out: str, variants: list[D.Variant]) -> list[str]:
        ind, upd = py_name(c.indices), py_name(c.updates)
        lines = [f"at = _k.scatter_at({ind}, {out}.shape[0], {c.ref is not None}, {c.sorted})",
                 f"rows = {upd}.reshape((at.size,) + {out}.shape[1:])"]
        if c.ref is not None:
            lines.append(f"np.copyto({out}, {py_name(c.ref)})")
        else:
            lines.append(f"{out}[...] = _k.segment_init({c.init!r}, {out}.dtype)")
        per_dtype, scaled = [], []
        divisor = "counts[s]" if c.scale == "mean" else "np.sqrt(np.float64(counts[s]))"
        for v in variants:  # (each fold computed in the dtype the variant computes in, then stored)
            given = v.of(c.updates)
            t = D.computes_in(op, given)
            env = {n: (n if t == given else f"{n}.astype(np.{t})", t) for n in ("acc", "u")}
            per_dtype.append((given, scalar_numpy.render(c.combine, t, env)[0]))
            row = f"{out}[s : s + 1]" if t == given else f"{out}[s : s + 1].astype(np.{t})"  # (a slice: an array)
            scaled.append((given, [f"np.copyto({out}[s : s + 1], {row} / np.{t}({divisor}), casting='unsafe')"]))
        # Row by row in the order of indices, as the C kernel folds (slices keep arrays, never scalars).
        lines += ["with np.errstate(all='ignore'):", "    for k, i in enumerate(at):",
                  f"        acc, u = {out}[i : i + 1], rows[k : k + 1]"]
        lines += _by_dtype(upd, per_dtype, "result", indent=2)
        lines += [f"        np.copyto({out}[i : i + 1], result, casting='unsafe')"]
        if c.scale is not None:
            lines += [f"counts = np.bincount(at, minlength={out}.shape[0])", "for s in np.flatnonzero(counts):",
                      *_by_dtype(upd, scaled, None, indent=1)]
        return lines

    def fragmentkernel(self, op: Op, c: C.FragmentKernel, out: str, variants: list[D.Variant]) -> list[str]:
        # Whole-tensor layouts take every input and output; axis layouts the input, its axis and out.
        kinds, values = {a.name: a.type for a in op.args}, {a.name: tuple(a.possible_values) for a in op.args}
        # (an ENUM arg, its index here as in C, reaches a Python fragment as its name)
        scalars = [f"{values[a]!r}[{py_name(a)}]" if kinds[a] is DataType.ENUM
                   else f"{_FRAGMENT_ARG_PY.get(kinds[a], 'bool')}({py_name(a)})" for a in c.args]
        if isinstance(c, C.ChannelsFragment):  # (and the first axis of its rows)
            args = ([py_name(i.name) for i in op.inputs] + [f"int({py_name(c.axis)})"] + scalars
                    + [py_name(o.name) for o in op.outputs])
        elif not isinstance(c, C.AxisFragment):
            args = [py_name(i.name) for i in op.inputs] + scalars + [py_name(o.name) for o in op.outputs]
        else:
            args = [py_name(op.inputs[0].name), f"int({py_name(c.axis)})"] + scalars + [out]
        return [f"_fragment_{c.python_fragment}({', '.join(args)})"]
