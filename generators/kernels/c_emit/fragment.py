"""Hand-written fragments in their layouts (ADR 0011, 0017, 0020)."""

from __future__ import annotations

from dsl import compute as C
from dsl import dtypes as D
from dsl import fixed_point as F
from dsl import fragments
from dsl import validate
from dsl.scalar import SSym
from dsl.types import DataType
from generators import abi
from generators.formatting import c_string
from generators.kernels import c_shapes, fixed_point, scalar_c
from generators.kernels.c_emit.fixed_point_api import q_output_shift
from generators.kernels.scalar_c import C_TYPE
from generators.kernels.c_emit.base import (SCALES, CFragment, Emitter, OpCode, PlainKernel, fragment, mask,
                                            tensor_message)


#: Per fragment class, its geometry and the sizes it takes after its inputs (as int, as a unit
#: passes them; the fragment takes int64_t). Matrix, dense and shaped fragments: see ``kernel``.
_LINES = ("lines", (("int rows", "rows"), ("int len", "len")))
_PLAIN = {C.AxisFragment: ("axis", (("int step", "step"), ("int size", "size"), ("int slot", "slot"))),
          C.FlatFragment: ("flat", (("int n", "n"),)), C.RowsFragment: _LINES,
          C.ChannelsFragment: ("trailing", _LINES[1]),
          C.SelectFragment: _LINES}
_FRAGMENT_ARG_CTYPE = {DataType.INT: "int64_t", DataType.LONG: "int64_t", DataType.FLOATING_POINT: "double",
                       DataType.NUMERIC: "double"}


class FragmentEmitter(Emitter):
    """A hand-written fragment per dtype. Its calling convention is written once, as a plain
    kernel's parameters (``kernel``): units call it with sizes from Expressions, the API
    function with the same sizes from the descriptors (``api_value``)."""

    def emit(self) -> OpCode:
        c: C.FragmentKernel = self.op.compute  # type: ignore[assignment]
        root, shown = validate.fragment_root(self.op)
        texts: list[CFragment] = []
        includes: list[str] = []
        needs: dict[str, tuple[str, ...]] = {}  # each dtype's fragment: what it uses, dependencies first
        for _, name in c.c_fragments:
            order, incs = fragments.resolve(root, c.c_file, name, shown)
            for f in order:
                text = fragment(f.name, f.text)
                if text not in texts:  # dependencies shared by several dtypes go in once
                    texts.append(text)
            needs[name] = tuple(f.name for f in order[:-1])
            includes += [i for i in incs if i not in includes]
        by_name, named = {t.name: t for t in texts}, dict(c.c_fragments)
        kernels = {v.dtype: self.kernel(c, v, by_name[named[v.dtype]], needs[named[v.dtype]]) for v in self.variants}
        # (a dense layer's or a softmax's fixed-point types: the API function takes them too)
        dense, softmax = self.fixed_point_dense(), self.fixed_point_softmax()
        tensors = [t.name for t in (*self.op.inputs, *self.op.outputs)]
        self.fixed_variants += [D.Variant(name, tuple((n, name) for n in tensors)) for name in [*dense, *softmax]]

        def fixed_call(v: D.Variant) -> list[str]:
            return self.dense_call(*dense[v.dtype]) if v.dtype in dense else self.softmax_call(*softmax[v.dtype])

        api = self.api(self.prelude(c) + self.dispatch(lambda v: self.invoke(kernels[v.dtype]), fixed=fixed_call))
        if isinstance(c, C.MatrixFragment) and c.workspace is not None:
            api = self.workspace_function(c) + "\n" + api
        fixed = tuple(k for _, k in [*dense.values(), *softmax.values()])
        tables = tuple(k.init for k in fixed if k.init is not None)
        return OpCode((*texts, *tables, *(k.fragment for k in fixed)), tuple(includes), api,
                      (*kernels.values(), *fixed))

    def fixed_point_softmax(self) -> dict[str, tuple[F.Softmax, PlainKernel]]:
        """Each 8- and 16-bit type's softmax along the axis (``fixed_point.api_softmax``, TFLite
        Micro's int8 softmax): a fill of the table of exponentials for the input's step (its shift or
        scale), run once (a unit's Init, into a Handle; the C API's call, on its stack), and the
        kernel in the float fragment's calling convention (x, step, size, slot) that reads it, then
        a D output's scale and offset, then the output."""
        found: dict[str, tuple[F.Softmax, PlainKernel]] = {}
        for name, d in fixed_point.api_softmax(self.op).items():
            t = F.TYPES[name]
            ct, x, o = C_TYPE[t.storage], abi.c_name(d.x), abi.c_name(self.op.outputs[0].name)
            attribute = (f"{'int' if t.family == 'Q' else 'double'} {d.attribute}", d.attribute)
            values = ({f"{d.x}_{F.FACTOR}": (f"(double)opf_q_factor({t.fraction_bits}, {d.attribute})", "float64")}
                      if t.family == "Q" else {d.attribute: (d.attribute, "float64")})
            step, _ = scalar_c.render(d.step, "float64", values)
            fill_name, fn = f"{self.fn}_{t.name}_table", f"{self.fn}_{t.name}_axis"
            parts = [fixed_point.c_statement(d.entry, f"entries[{F.SOFTMAX_ENTRIES * p} + i]" if p else "entries[i]",
                                             {"x": (f"(double)i * {d.part_difference(p)}" if p else "(double)i",
                                                    "float64"), F.STEP: (F.STEP, "float64")})
                     for p in range(d.parts)]  # (part p's entry i: the rule's difference of that part)
            fills = "\n        ".join(parts)
            fill = fragment(fill_name, f"""
static inline int {fill_name}(void* table, {attribute[0]})
{{
    int32_t* entries = (int32_t*)table;
    const double {F.STEP} = {step};
    for (int i = 0; i < {F.SOFTMAX_ENTRIES}; i++) {{
        {fills}
    }}
    return 0;
}}""")
            constant = d.constant_multiplier()
            if constant is None:
                prologue, final = fixed_point.c_multipliers(d.multipliers, ("output",))
                final |= {"output_offset": ("output_offset", "int32")}
                chosen = [("double output_scale", "output_scale"), ("int output_offset", "output_offset")]
            else:
                prologue = (f"const int32_t output_multiplier = {constant[0]};\n"
                            f"const int32_t output_exponent = {constant[1]};")
                final, chosen = {n: (n, "int32") for n in ("output_multiplier", "output_exponent")}, []
            final |= {"acc": ("acc", "int64")}
            share = fixed_point.c_statement(d.share, "acc", {"e": ("e", "int64"),
                                                             "reciprocal": ("reciprocal", "int64")})
            at = f"{x}[first + (int64_t)i * step]"
            if d.combine is None:
                index, _ = scalar_c.render(d.part_index(0), "int32", {"d": (f"largest - {at}", "int32")})
                exponential = f"const int64_t e = entries[{index}];"
            else:  # (a 16-bit difference's two bytes, each part's entry, their product)
                low, high = (scalar_c.render(d.part_index(p), "int32", {"d": ("d", "int32")})[0] for p in (0, 1))
                combined = fixed_point.c_statement(d.combine, "e", {"low": ("low", "int64"), "high": ("high", "int64")})
                exponential = (f"const int32_t d = largest - {at};\n"
                               f"const int64_t low = entries[{low}], high = entries[{high}];\nint64_t e;\n{combined}")
            params = [(f"const {ct}* restrict {x}", d.x), *_PLAIN[C.AxisFragment][1], ("const void* table", "table"),
                      *chosen, (f"{ct}* restrict {o}", self.op.outputs[0].name)]
            text = fragment(fn, f"""
static inline void {fn}({', '.join(p for p, _ in params)})
{{
    const int32_t* entries = (const int32_t*)table;
    {prologue}
    for (int64_t j = 0; j < slot; j++) {{
        for (int64_t k = 0; k < step; k++) {{
            const int64_t first = j * size * step + k;
            int32_t largest = {t.lowest};
            for (int i = 0; i < size; i++) {{
                largest = {at} > largest ? {at} : largest;
            }}
            int64_t total = 0;
            for (int i = 0; i < size; i++) {{
                {exponential}
                total += e;
            }}
            const int64_t reciprocal = total > 0 ? ((int64_t)1 << {F.RECIPROCAL_BITS}) / total : 0;
            for (int i = 0; i < size; i++) {{
                {exponential}
                int64_t acc;
                {share}
                {fixed_point.c_statement(d.finalize, f"{o}[first + (int64_t)i * step]", final)}
            }}
        }}
    }}
}}""")
            v = D.Variant(t.storage, ((d.x, t.storage), (self.op.outputs[0].name, t.storage)))
            found[name] = (d, PlainKernel(
                text, v, tuple(params), "axis", self.op.compute.axis, fixed_point=t.name,  # type: ignore[union-attr]
                per_call=((attribute[1], SSym(attribute[1])),), chosen=() if constant else ("scale", "offset"),
                output_attributes=(("shift", d.output_shift),) if d.output_shift is not None else (),
                init=fill, init_parameters=(("void* table", "table"), attribute),
                table_bytes=4 * F.SOFTMAX_ENTRIES * d.parts))
        return found

    def softmax_call(self, d: F.Softmax, kernel: PlainKernel) -> list[str]:
        """The C API's call of a softmax's kernel (ADR 0049): its table filled on the stack for x's
        attributes, the kernel over the axis sizes of the prelude, a Q output's shift set to 0, a D
        output's scale and offset the caller's."""
        x, out = abi.c_name(d.x), abi.c_name(self.op.outputs[0].name)
        attribute = f"{x}->{d.attribute.rpartition('_')[2]}"
        values = []
        for _, source in kernel.parameters:
            if source == "table":
                values.append("table")
            elif source in ("output_scale", "output_offset"):
                values.append(f"{out}->{source.removeprefix('output_')}")
            else:
                values.append(self.api_value(source, kernel.variant))
        fill = kernel.init.name  # type: ignore[union-attr]
        lines = [f"int32_t table[{kernel.table_bytes // 4}];", f"(void){fill}(table, {attribute});",
                 f"{kernel.name}({', '.join(values)});"]
        return lines + ([f"{out}->shift = 0;"] if d.output_shift is not None else [])

    def fixed_point_dense(self) -> dict[str, tuple[F.QDense | F.DDense, PlainKernel]]:
        """Each fixed-point type's dense layer (``fixed_point.api_dense``): rows of x by the
        weights' columns, each output's sum starting from its bias in the sum's units (the rule's),
        the products added in int64, then one requantization; its parameters the float fragment's
        (x, rows, len, the weights, their columns, the bias), then a Q layer's ``bias_k`` or a D
        layer's scales and offsets (its multipliers from them once a call), then the output."""
        found: dict[str, tuple[F.QDense | F.DDense, PlainKernel]] = {}
        layers = fixed_point.api_dense(self.op)
        if not layers:
            return found
        x, w, b = (i.name for i in self.op.inputs)
        o = self.op.outputs[0].name
        cx, cw, cb, co = (abi.c_name(n) for n in (x, w, b, o))
        for name, d in layers.items():
            t = F.TYPES[name]
            ct = C_TYPE[t.storage]
            params = [(f"const {ct}* restrict {cx}", x), *_LINES[1], (f"const {ct}* restrict {cw}", w),
                      (f"int {cw}_cols", f"cols:{w}"), (f"const {ct}* restrict {cb}", b)]
            env = {x: (f"((int64_t){cx}[r * len + k])", "int64"), w: (f"((int64_t){cw}[k * {cw}_cols + j])", "int64")}
            bias_env: dict[str, scalar_c.Value] = {b: (f"((int64_t){cb}[j])", "int64")}
            final_env: dict[str, scalar_c.Value] = {"acc": ("acc", "int64")}
            prologue, per_call, chosen, shift = "", d.per_call if isinstance(d, F.QDense) else (), (), ()
            columns = ""
            if isinstance(d, F.QDense):
                params.append(("int bias_k", "bias_k"))
                bias_env["bias_k"] = ("bias_k", "int32")
                shift = (("shift", d.output_shift),)
            else:
                tensors = (x, w, b, "output")
                params += [p for n in tensors for p in ((f"double {abi.c_name(n)}_scale", f"{n}_scale"),
                                                         (f"int {abi.c_name(n)}_offset", f"{n}_offset"))]
                prologue, multipliers = fixed_point.c_multipliers(d.multipliers, tensors)
                offsets = {f"{n}_offset": (f"{abi.c_name(n)}_offset", "int32") for n in tensors}
                final_env |= multipliers | offsets
                bias_env |= multipliers | offsets
                env |= offsets
                per_call = tuple((f"{n}_{a}", SSym(f"{n}_{a}")) for n in (x, w, b) for a in ("scale", "offset"))
                chosen = ("scale", "offset")
                column = d.contraction.per_column  # (the weights, whose columns j runs over: ADR 0071)
                if column is not None:  # (its per-axis scales, NULL for one scale (a unit's): a multiplier per j)
                    scales = f"{abi.c_name(column)}_scales"
                    params.append((f"const float* restrict {scales}", f"{SCALES}{column}"))
                    update = fixed_point.c_column_multipliers(d.multipliers, tensors, column, f"{scales}[j]")
                    columns = f"if ({scales} != NULL) {{\n{update}\n}}"
            params.append((f"{ct}* restrict {co}", o))
            term, _ = scalar_c.render(d.contraction.map, "int64", env)
            fn = f"{self.fn}_{t.name}_lines"
            text = fragment(fn, f"""
static inline void {fn}({', '.join(p for p, _ in params)})
{{
    {prologue}
    for (int r = 0; r < rows; r++) {{
        for (int j = 0; j < {cw}_cols; j++) {{
            {columns}
            int64_t acc;
            {fixed_point.c_statement(d.bias, "acc", bias_env)}
            for (int k = 0; k < len; k++) {{
                acc = (int64_t)((uint64_t)acc + (uint64_t)({term}));
            }}
            {fixed_point.c_statement(d.contraction.finalize, f"{co}[r * {cw}_cols + j]", final_env)}
        }}
    }}
}}""")
            v = D.Variant(t.storage, tuple((n, t.storage) for n in (x, w, b, o)))
            found[name] = (d, PlainKernel(text, v, tuple(params), "lines", fixed_point=t.name, per_call=per_call,
                                          output_attributes=shift, chosen=chosen))
        return found

    def dense_call(self, d: F.QDense | F.DDense, kernel: PlainKernel) -> list[str]:
        """The C API's call of a dense layer's kernel (ADR 0040): a Q layer's ``bias_k`` and output
        shift by the rule from the descriptors' shifts (the shift refused where it leaves the type's
        range, set after the call); a D layer's scales and offsets from the descriptors, the output's
        the caller's."""
        t = F.TYPES[kernel.fixed_point]
        out = abi.c_name(self.op.outputs[0].name)
        lines: list[str] = []
        if isinstance(d, F.QDense):
            env = {F.shift_of(i.name): (f"{abi.c_name(i.name)}->shift", "int32") for i in self.op.inputs}
            lines += q_output_shift(self.op.outputs[0].name, t, d.output_shift, env)
            lines.append(f"const int bias_k = (int)({scalar_c.render(d.per_call[0][1], 'int32', env)[0]});")
        values = []
        for _, source in kernel.parameters:
            tensor, _, attribute = source.rpartition("_")
            if source == "bias_k":
                values.append(source)
            elif source.startswith(SCALES):
                values.append(f"{abi.c_name(source.removeprefix(SCALES))}->scales")
            elif attribute in ("scale", "offset") and tensor in (*d.inputs, "output"):
                values.append(f"{out if tensor == 'output' else abi.c_name(tensor)}->{attribute}")
            else:
                values.append(self.api_value(source, kernel.variant))
        lines.append(f"{kernel.name}({', '.join(values)});")
        return lines + ([f"{out}->shift = output_shift;"] if isinstance(d, F.QDense) else [])

    def kernel(self, c: C.FragmentKernel, v: D.Variant, text: CFragment, needs: tuple[str, ...]) -> PlainKernel:
        """The fragment of dtype ``v`` as a plain kernel: its parameters in the order it takes
        them, each with what it is (ADR 0011's layouts)."""
        kinds = {a.name: a.type for a in self.op.args}
        extra = tuple((f"{_FRAGMENT_ARG_CTYPE.get(kinds[a], 'int')} {abi.c_name(a)}", a) for a in c.args)
        ins = tuple((f"const {C_TYPE[v.of(i.name)]}* restrict {abi.c_name(i.name)}", i.name) for i in self.op.inputs)
        outs = tuple((f"{C_TYPE[v.of(o.name)]}* restrict {abi.c_name(o.name)}", o.name) for o in self.op.outputs)
        if isinstance(c, C.MatrixFragment):  # each input with its matrix's sizes, then the batch
            ins = tuple(p for i, t in zip(ins, self.op.inputs)
                        for p in (i, (f"int {abi.c_name(t.name)}_rows", f"rows:{t.name}"),
                                  (f"int {abi.c_name(t.name)}_cols", f"cols:{t.name}")))
            # (the caller's scratch, where the fragment needs some: a unit's Float64 tensor)
            scratch = (("double* restrict workspace", "workspace"),) if c.workspace is not None else ()
            return PlainKernel(text, v, (*ins, ("int batch", "batch"), *extra, *scratch, *outs), "batched",
                               needs=needs, failure=c.failure or "the kernel failed")
        if isinstance(c, C.DenseFragment):  # rows of x, then the weights with their cols, then the rest
            x, w, *rest = ins
            units = (f"int {abi.c_name(self.op.inputs[1].name)}_cols", f"cols:{self.op.inputs[1].name}")
            return PlainKernel(text, v, (x, *_LINES[1], w, units, *rest, *extra, *outs), "lines", needs=needs)
        if isinstance(c, C.ShapedFragment):  # each input flat, with its element count; it may fail
            ins = tuple(p for i, t in zip(ins, self.op.inputs)
                        for p in (i, (f"int {abi.c_name(t.name)}_count", f"count:{t.name}")))
            return PlainKernel(text, v, (*ins, *extra, *outs), "shaped", needs=needs,
                               failure=c.failure or "the kernel failed")
        geometry, sizes = _PLAIN[type(c)]
        return PlainKernel(text, v, (*ins, *sizes, *extra, *outs), geometry, getattr(c, "axis", ""), needs=needs)

    def prelude(self, c: C.FragmentKernel) -> list[str]:
        """The locals the API function's call reads (the form's checks above: the shapes fit)."""
        first = abi.c_name(self.op.inputs[0].name)
        if isinstance(c, C.AxisFragment):
            return self.axis_sizes(first, abi.c_name(c.axis))
        if isinstance(c, C.ChannelsFragment):  # (rows of the axes from the axis arg on; it is in range)
            axis = abi.c_name(c.axis)
            return [f"const int32_t from = (int32_t)({axis} < 0 ? {axis} + {first}->rank : {axis});",
                    f"const int64_t len = opf_shape_numel({first}->rank - from, {first}->shape + from);",
                    f"const int64_t rows = opf_shape_numel(from, {first}->shape);"]
        if isinstance(c, (C.RowsFragment, C.SelectFragment, C.DenseFragment)):
            return [f"const int64_t len = {first}->shape[{first}->rank - 1];",
                    f"const int64_t rows = opf_shape_numel({first}->rank - 1, {first}->shape);"]
        if isinstance(c, C.MatrixFragment):
            return ["int64_t batch = 1;", f"for (int32_t d = 0; d < {first}->rank - 2; d++) {{",
                    f"batch *= {first}->shape[d];", "}", *self.workspace_checks(c)]
        return []

    def api_value(self, source: str, v: D.Variant) -> str:
        """What the API function passes for a kernel parameter that takes ``source``."""
        tensors = {t.name: t for t in (*self.op.inputs, *self.op.outputs)}
        if source in tensors:
            const = "const " if tensors[source].kind == "input" else ""
            return f"({const}{C_TYPE[v.of(source)]}*){abi.c_name(source)}->data"
        kinds = {a.name: a.type for a in self.op.args}
        if source in kinds:
            return f"({_FRAGMENT_ARG_CTYPE.get(kinds[source], 'int')}){abi.c_name(source)}"
        what, _, tensor = source.partition(":")
        t = abi.c_name(tensor)
        sizes = {"rows": f"{t}->shape[{t}->rank - 2]", "cols": f"{t}->shape[{t}->rank - 1]", "count": f"opf_numel({t})"}
        if tensor:
            return sizes[what]
        if source == "n":
            return f"opf_numel({abi.c_name(self.op.inputs[0].name)})"
        return "(double*)workspace" if source == "workspace" else source  # (a local of the prelude)

    def invoke(self, kernel: PlainKernel) -> list[str]:
        """The API function's call of the kernel; a failure in the op's words."""
        call = f"{kernel.name}({', '.join(self.api_value(source, kernel.variant) for _, source in kernel.parameters)})"
        if not kernel.failure:
            return [f"{call};"]
        return [f"if ({call} != 0) {{", f"return opf_fail(detail, OPFORGE_ERR_ARG, {c_string(kernel.failure)});", "}"]

    def workspace_function(self, c: C.MatrixFragment) -> str:
        """``<fn>_workspace``: the inputs checked as the op checks them, then the bytes
        the kernel's scratch needs (a count of doubles, so double-aligned)."""
        lines = ["if (detail != NULL) {", "*detail = NULL;", "}", "if (bytes == NULL) {",
                 f"return opf_fail(detail, OPFORGE_ERR_NULL, {c_string('bytes: NULL')});", "}", "*bytes = 0;"]
        for t in self.op.inputs:
            allowed = {v.of(t.name) for v in self.variants}
            name = abi.c_name(t.name)
            lines += ["{", f"const opforge_status st = opf_check_tensor({name}, {mask(allowed)});",
                      "if (st != OPFORGE_OK) {",
                      f"return opf_fail(detail, st, {c_string(tensor_message(t.name, allowed))});", "}", "}"]
        lines += c_shapes.refusal_checks(self.op, inputs_only=True)
        lines += [f"const int64_t doubles = {self.constraints.render(c.workspace)};",
                  "if (doubles < 0 || (uint64_t)doubles > (uint64_t)(SIZE_MAX / sizeof(double))) {",
                  f"return opf_fail(detail, OPFORGE_ERR_SIZE, {c_string('workspace: its size does not fit in size_t')});",
                  "}", "*bytes = (size_t)doubles * sizeof(double);", "return OPFORGE_OK;"]
        return self.linkage + abi.workspace_prototype(self.op) + "\n{\n" + "\n".join(lines) + "\n}\n"

    def workspace_checks(self, c: C.MatrixFragment) -> list[str]:
        """The caller's scratch: at least what <fn>_workspace says, aligned for doubles, apart
        from every tensor (it is written while they are in use)."""
        if c.workspace is None:
            return []
        op = self.op
        lines = [f"const int64_t doubles = {self.constraints.render(c.workspace)};",
                 "if (doubles > 0 && workspace == NULL) {",
                 f"return opf_fail(detail, OPFORGE_ERR_NULL, {c_string('workspace: NULL')});", "}",
                 "if (doubles < 0 || (uint64_t)doubles > (uint64_t)(workspace_bytes / sizeof(double))) {",
                 f"return opf_fail(detail, OPFORGE_ERR_SIZE, {c_string('workspace: smaller than ' + abi.function(op) + '_workspace gives')});",
                 "}", "if ((uintptr_t)workspace % sizeof(double) != 0) {",
                 f"return opf_fail(detail, OPFORGE_ERR_ARG, {c_string('workspace: not aligned for double')});",
                 "}"]
        for t in (*op.inputs, *op.outputs):
            lines += [f"if (!opf_bytes_disjoint(workspace, (size_t)doubles * sizeof(double), {abi.c_name(t.name)})) {{",
                      f"return opf_fail(detail, OPFORGE_ERR_OVERLAP, {c_string(f'workspace: overlaps {t.name}')});",
                      "}"]
        return lines
