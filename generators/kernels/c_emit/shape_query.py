"""Shape queries: the form's values, rendered (they are facts of a shape, no element is read)."""

from __future__ import annotations

from dsl import compute as C
from dsl import dtypes as D
from dsl import shapes as S
from generators import abi
from generators.kernels.c_emit.base import Emitter, OpCode, PlainKernel, fragment
from generators.kernels.c_shapes import CShapeRenderer


class ShapeQueryEmitter(Emitter):
    """The values the form says (``ShapeQuery.values``) stored into the int64 output."""

    def emit(self) -> OpCode:
        c: C.ShapeQuery = self.op.compute  # type: ignore[assignment]
        out = f"((int64_t*){abi.c_name(self.op.outputs[0].name)}->data)"
        render = CShapeRenderer(self.op, prefix="value_")  # (the checks' renderer names its own locals)
        values = c.values()
        if c.query == "shape":  # (a vector: one value per axis of the input)
            render.bound["k"].append("d")
            with render.block() as body:
                value = render.render(S.Item(values, S.Axis()))
            lines = [*render.take(), f"for (int64_t d = 0; d < {abi.c_name(c.input)}->rank; d++) {{", *body,
                     f"{out}[d] = {value};", "}"]
        else:
            value = render.render(values)
            lines = [*render.take(), f"{out}[0] = {value};"]
        plain = tuple(self.plain(c, v) for v in self.variants)
        return OpCode((), (), self.api(lines), plain)

    def plain(self, c: C.ShapeQuery, v: D.Variant) -> PlainKernel:
        """The values as a plain kernel (units, which compute them from the shape with
        Expressions): ``v0`` (a scalar), or the first ``n`` of ``v0..v7`` (the shape)."""
        name = self.kernel_name(v, "_values")
        out = self.op.outputs[0].name
        if c.query != "shape":
            params = (("int64_t* restrict output", out), ("int v0", "value:0"))
            body = "output[0] = v0;"
        else:
            params = (("int64_t* restrict output", out), ("int n", "n"),
                      *((f"int v{k}", f"value:{k}") for k in range(abi.MAX_RANK)))
            listed = ", ".join(f"v{k}" for k in range(abi.MAX_RANK))
            body = f"const int v[{abi.MAX_RANK}] = {{{listed}}};\nfor (int i = 0; i < n; i++) {{\noutput[i] = v[i];\n}}"
        return PlainKernel(fragment(name, f"""
static inline void {name}({', '.join(d for d, _ in params)})
{{
    {body}
}}"""), v, params, "valued")
