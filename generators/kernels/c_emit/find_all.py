"""FindAll: the flat indices where a predicate holds, and their count."""

from __future__ import annotations

from dsl import compute as C
from dsl import dtypes as D
from generators import abi
from generators.kernels import scalar_c
from generators.kernels.scalar_c import C_TYPE
from generators.kernels.c_emit.base import Emitter, OpCode, PlainKernel, fragment


class FindAllEmitter(Emitter):
    """The flat indices where a predicate holds, in order, zeros after them, and their count."""

    def emit(self) -> OpCode:
        c: C.FindAll = self.op.compute  # type: ignore[assignment]
        kernels = {v.dtype: self.found(c, v, api=True) for v in self.variants}
        x = abi.c_name(c.input)
        lines = [f"const int64_t n = opf_numel({x});"]

        def per_variant(v: D.Variant) -> list[str]:
            k = kernels[v.dtype]
            data = {t.name: f"({'const ' if t.kind == 'input' else ''}{C_TYPE[v.of(t.name)]}*){abi.c_name(t.name)}->data"
                    for t in (*self.op.inputs, *self.op.outputs)}
            return [f"{k.name}({', '.join(data.get(source, abi.c_name(source)) for _, source in k.parameters)});"]

        plain = tuple(self.found(c, v, api=False) for v in self.variants)
        return OpCode(tuple(k.fragment for k in kernels.values()), (), self.api(lines + self.dispatch(per_variant)),
                      plain)

    def found(self, c: C.FindAll, v: D.Variant, api: bool) -> PlainKernel:
        """The flat indices of the ``n`` elements of x where the predicate holds, in order, zeros
        after them, and their count. The API's version counts in int64_t, a unit's (``found``) in int;
        both write the indices and the count as int64_t, the outputs' dtype."""
        kinds = {a.name: a.type for a in self.op.args}
        enums = self.op.enums
        env_args = {a: (abi.c_name(a), abi.scalar_dtype(kinds[a])) for a in c.args}
        given, size = v.of(c.input), "int64_t" if api else "int"
        t = D.computes_in(self.op, given)  # (a half read as its float, ADR 0076)
        indices, count = self.op.outputs
        name = self.kernel_name(v) + ("" if api else "_n")
        x = scalar_c.converted("x[i]", given, t)
        holds, _ = scalar_c.render(C.resolve_enums(c.map, enums), t, {"x": (x, t)} | env_args)
        params = ((f"const {C_TYPE[given]}* restrict x", c.input), ("int64_t* restrict indices", indices.name),
                  ("int64_t* restrict found", count.name), (f"{size} n", "n"),
                  *((f"{abi.scalar_ctype(kinds[a])} {abi.c_name(a)}", a) for a in c.args))
        return PlainKernel(fragment(name, f"""
static inline void {name}({', '.join(d for d, _ in params)})
{{
    {size} count = 0;
    for ({size} i = 0; i < n; i++) {{
        if ({holds}) {{
            indices[count++] = (int64_t)i;
        }}
    }}
    *found = (int64_t)count;
    for ({size} i = count; i < n; i++) {{
        indices[i] = 0;
    }}
}}"""), v, params, "found")


# ---------------------------------------------------------------- contractions
