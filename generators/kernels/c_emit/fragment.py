"""Hand-written fragments in their layouts (ADR 0011, 0017, 0020)."""

from __future__ import annotations



from dsl import compute as C
from dsl import dtypes as D
from dsl import fragments
from dsl import validate
from dsl.types import DataType
from generators import abi
from generators.formatting import c_string
from generators.kernels import c_shapes
from generators.kernels.scalar_c import C_TYPE
from generators.kernels.c_emit.base import CFragment, Emitter, OpCode, _tensor_message, fragment, mask


#: The method that writes the API function's body, per fragment class.
_BODIES = {C.AxisFragment: "axis_body", C.FlatFragment: "flat_body", C.RowsFragment: "rows_body",
           C.ChannelsFragment: "rows_body", C.SelectFragment: "select_body", C.DenseFragment: "dense_body",
           C.ShapedFragment: "shaped_body", C.MatrixFragment: "matrix_body"}
_FRAGMENT_ARG_CTYPE = {DataType.INT: "int64_t", DataType.LONG: "int64_t", DataType.FLOATING_POINT: "double",
                       DataType.NUMERIC: "double"}


class FragmentEmitter(Emitter):
    def emit(self) -> OpCode:
        c: C.FragmentKernel = self.op.compute  # type: ignore[assignment]
        root, shown = validate.fragment_root(self.op)
        texts: list[CFragment] = []
        includes: list[str] = []
        for _, name in c.c_fragments:
            order, incs = fragments.resolve(root, c.c_file, name, shown)
            for f in order:
                text = fragment(f.name, f.text)
                if text not in texts:  # dependencies shared by several dtypes go in once
                    texts.append(text)
            includes += [i for i in incs if i not in includes]
        api = self.api(getattr(self, _BODIES[type(c)])(c))
        if isinstance(c, C.MatrixFragment) and c.workspace is not None:
            api = self.workspace_function(c) + "\n" + api
        return OpCode(tuple(texts), tuple(includes), api)

    def axis_body(self, c: C.AxisFragment) -> list[str]:
        """The input around one axis: step (elements after it), size, slot (before it)."""
        x = abi.c_name(self.op.inputs[0].name)
        outn = abi.c_name(self.op.outputs[0].name)
        # (the form's checks above: x has an axis there, the output x's shape)
        lines = [f"int64_t axis_index = {abi.c_name(c.axis)};",
                 "if (axis_index < 0) {", f"axis_index += {x}->rank;", "}",
                 "int64_t step = 1, slot = 1;",
                 f"for (int32_t d = (int32_t)axis_index + 1; d < {x}->rank; d++) {{", f"step *= {x}->shape[d];", "}",
                 "for (int32_t d = 0; d < (int32_t)axis_index; d++) {", f"slot *= {x}->shape[d];", "}",
                 f"const int64_t size = {x}->shape[axis_index];"]
        frags_by_dtype = dict(c.c_fragments)
        extra = self.fragment_args(c)

        def per_variant(v: D.Variant) -> list[str]:
            ct = C_TYPE[v.dtype]
            return [f"{frags_by_dtype[v.dtype]}((const {ct}*){x}->data, step, size, slot, "
                    f"{', '.join(extra + [f'({ct}*){outn}->data'])});"]

        return lines + self.dispatch(per_variant)

    def fragment_args(self, c: C.FragmentKernel) -> list[str]:
        """The scalar args a fragment takes, cast to the C types fragments declare."""
        kinds = {a.name: a.type for a in self.op.args}
        return [f"({_FRAGMENT_ARG_CTYPE.get(kinds[a], 'int')}){abi.c_name(a)}" for a in c.args]

    def rows_body(self, c: C.RowsFragment | C.ChannelsFragment) -> list[str]:
        """Inputs of one shape in rows of their last axis (channels: the first input, the
        others one value per channel); the output has the first input's shape."""
        op = self.op
        names = [abi.c_name(i.name) for i in op.inputs]
        first = names[0]
        out = op.outputs[0]
        # (the form's checks above: the shapes fit, the output's too)
        lines = [f"const int64_t len = {first}->shape[{first}->rank - 1];",
                 f"const int64_t rows = opf_shape_numel({first}->rank - 1, {first}->shape);"]
        frags_by_dtype = dict(c.c_fragments)
        extra = self.fragment_args(c)

        def per_variant(v: D.Variant) -> list[str]:
            ct, ot = C_TYPE[v.dtype], C_TYPE[v.of(out.name)]
            operands = [f"(const {ct}*){n}->data" for n in names] + ["rows", "len", *extra,
                                                                     f"({ot}*){abi.c_name(out.name)}->data"]
            return [f"{frags_by_dtype[v.dtype]}({', '.join(operands)});"]

        return lines + self.dispatch(per_variant)

    def dense_body(self, c: C.DenseFragment) -> list[str]:
        """Rows of the first input's last axis (len) times a len x units matrix, with
        vectors of units; the output has rows of units."""
        op = self.op
        names = [abi.c_name(i.name) for i in op.inputs]
        x, w = names[0], names[1]
        # (the form's checks above: the shapes fit, the output's too)
        lines = [f"const int64_t len = {x}->shape[{x}->rank - 1];",
                 f"const int64_t rows = opf_shape_numel({x}->rank - 1, {x}->shape);"]
        frags_by_dtype = dict(c.c_fragments)
        extra = self.fragment_args(c)
        out = op.outputs[0]

        def per_variant(v: D.Variant) -> list[str]:
            ct = C_TYPE[v.dtype]
            operands = [f"(const {ct}*){x}->data", "rows", "len", f"(const {ct}*){w}->data", f"{w}->shape[1]",
                        *[f"(const {ct}*){n}->data" for n in names[2:]], *extra,
                        f"({C_TYPE[v.of(out.name)]}*){abi.c_name(out.name)}->data"]
            return [f"{frags_by_dtype[v.dtype]}({', '.join(operands)});"]

        return lines + self.dispatch(per_variant)

    def shaped_body(self, c: C.ShapedFragment) -> list[str]:
        """Every input flat (data, element count); each output of its declared shape;
        the kernel returns 0, or not 0 on failure."""
        op = self.op
        lines: list[str] = []  # (the form's checks above: each output of its shape)
        frags_by_dtype = dict(c.c_fragments)
        extra = self.fragment_args(c)
        message = c_string(c.failure or "the kernel failed")

        def per_variant(v: D.Variant) -> list[str]:
            operands = [f"(const {C_TYPE[v.of(i.name)]}*){abi.c_name(i.name)}->data, opf_numel({abi.c_name(i.name)})"
                        for i in op.inputs]
            outs = [f"({C_TYPE[v.of(o.name)]}*){abi.c_name(o.name)}->data" for o in op.outputs]
            call = f"{frags_by_dtype[v.dtype]}({', '.join(operands + extra + outs)})"
            return [f"if ({call} != 0) {{", f"return opf_fail(detail, OPFORGE_ERR_ARG, {message});", "}"]

        return lines + self.dispatch(per_variant)

    def select_body(self, c: C.SelectFragment) -> list[str]:
        """One input in rows of its last axis; every output has rows of `length` (an arg)."""
        op = self.op
        x = abi.c_name(op.inputs[0].name)
        # (the form's checks above: the length fits the last axis, the outputs' shapes)
        lines = [f"const int64_t len = {x}->shape[{x}->rank - 1];",
                 f"const int64_t rows = opf_shape_numel({x}->rank - 1, {x}->shape);"]
        frags_by_dtype = dict(c.c_fragments)
        extra = self.fragment_args(c)

        def per_variant(v: D.Variant) -> list[str]:
            ct = C_TYPE[v.dtype]
            outs = [f"({C_TYPE[v.of(o.name)]}*){abi.c_name(o.name)}->data" for o in op.outputs]
            return [f"{frags_by_dtype[v.dtype]}({', '.join([f'(const {ct}*){x}->data', 'rows', 'len', *extra, *outs])});"]

        return lines + self.dispatch(per_variant)

    def flat_body(self, c: C.FlatFragment) -> list[str]:
        """Every element of the input, in row-major order, into one output value."""
        x = abi.c_name(self.op.inputs[0].name)
        out = self.op.outputs[0]
        frags_by_dtype = dict(c.c_fragments)
        extra = self.fragment_args(c)

        def per_variant(v: D.Variant) -> list[str]:
            ct, ot = C_TYPE[v.dtype], C_TYPE[v.of(out.name)]
            operands = [f"(const {ct}*){x}->data", f"opf_numel({x})", *extra, f"({ot}*){abi.c_name(out.name)}->data"]
            return [f"{frags_by_dtype[v.dtype]}({', '.join(operands)});"]

        return self.dispatch(per_variant)  # (the form's checks above: a scalar output)

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
                      f"return opf_fail(detail, st, {c_string(_tensor_message(t.name, allowed))});", "}", "}"]
        lines += c_shapes.refusal_checks(self.op, inputs_only=True)
        lines += [f"const int64_t doubles = {self.constraints.render(c.workspace)};",
                  "if (doubles < 0 || (uint64_t)doubles > (uint64_t)(SIZE_MAX / sizeof(double))) {",
                  f"return opf_fail(detail, OPFORGE_ERR_SIZE, {c_string('workspace: its size does not fit in size_t')});",
                  "}", "*bytes = (size_t)doubles * sizeof(double);", "return OPFORGE_OK;"]
        return self.linkage + abi.workspace_prototype(self.op) + "\n{\n" + "\n".join(lines) + "\n}\n"

    def matrix_body(self, c: C.MatrixFragment) -> list[str]:
        """Matrices in the last two axes, one batch for all inputs; the kernel says if it failed."""
        op = self.op
        names = [abi.c_name(i.name) for i in op.inputs]
        first = names[0]
        # (the form's checks above: matrices in the last two axes, the outputs' shapes)
        lines = ["int64_t batch = 1;", f"for (int32_t d = 0; d < {first}->rank - 2; d++) {{", f"batch *= {first}->shape[d];", "}"]
        frags_by_dtype = dict(c.c_fragments)
        extra = self.fragment_args(c)
        message = c_string(c.failure or "the kernel failed")
        if c.workspace is not None:
            # The caller's scratch: at least what <fn>_workspace says, aligned for doubles.
            lines += [f"const int64_t doubles = {self.constraints.render(c.workspace)};",
                      "if (doubles > 0 && workspace == NULL) {",
                      f"return opf_fail(detail, OPFORGE_ERR_NULL, {c_string('workspace: NULL')});", "}",
                      "if (doubles < 0 || (uint64_t)doubles > (uint64_t)(workspace_bytes / sizeof(double))) {",
                      f"return opf_fail(detail, OPFORGE_ERR_SIZE, {c_string('workspace: smaller than ' + abi.function(op) + '_workspace gives')});",
                      "}", "if ((uintptr_t)workspace % sizeof(double) != 0) {",
                      f"return opf_fail(detail, OPFORGE_ERR_ARG, {c_string('workspace: not aligned for double')});",
                      "}"]
            for t in (*op.inputs, *op.outputs):  # the scratch is written while every tensor is in use
                lines += [f"if (!opf_bytes_disjoint(workspace, (size_t)doubles * sizeof(double), {abi.c_name(t.name)})) {{",
                          f"return opf_fail(detail, OPFORGE_ERR_OVERLAP, {c_string(f'workspace: overlaps {t.name}')});",
                          "}"]
            extra = extra + ["(double*)workspace"]

        def per_variant(v: D.Variant) -> list[str]:
            ct = C_TYPE[v.dtype]
            operands = [f"(const {ct}*){n}->data, {n}->shape[{n}->rank - 2], {n}->shape[{n}->rank - 1]" for n in names]
            outs = [f"({C_TYPE[v.of(o.name)]}*){abi.c_name(o.name)}->data" for o in op.outputs]
            call = f"{frags_by_dtype[v.dtype]}({', '.join(operands + ['batch'] + extra + outs)})"
            return [f"if ({call} != 0) {{", f"return opf_fail(detail, OPFORGE_ERR_ARG, {message});", "}"]

        return lines + self.dispatch(per_variant)
