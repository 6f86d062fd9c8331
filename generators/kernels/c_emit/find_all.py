"""FindAll: the flat indices where a predicate holds, and their count."""

from __future__ import annotations



from dsl import compute as C
from dsl import dtypes as D
from dsl.types import DataType
from generators import abi
from generators.kernels import scalar_c
from generators.kernels.scalar_c import C_TYPE
from generators.kernels.c_emit.base import Emitter, OpCode, fragment


class FindAllEmitter(Emitter):
    """The flat indices where a predicate holds, in order, zeros after them, and their count."""

    def emit(self) -> OpCode:
        c: C.FindAll = self.op.compute  # type: ignore[assignment]
        kinds = {a.name: a.type for a in self.op.args}
        enums = {a.name: a.possible_values for a in self.op.args if a.type is DataType.ENUM}
        env_args = {a: (abi.c_name(a), abi.scalar_dtype(kinds[a])) for a in c.args}
        arg_params = "".join(f", {abi.scalar_ctype(kinds[a])} {abi.c_name(a)}" for a in c.args)
        frags = []
        for v in self.variants:
            t = v.of(c.input)
            name = self.kernel_name(v)
            holds, _ = scalar_c.render(C.resolve_enums(c.map, enums), t, {"x": ("x[i]", t)} | env_args)
            frags.append(fragment(name, f"""
static inline int64_t {name}(const {C_TYPE[t]}* restrict x, int64_t n, int64_t* restrict indices{arg_params})
{{
    int64_t count = 0;
    for (int64_t i = 0; i < n; i++) {{
        if ({holds}) {{
            indices[count++] = i;
        }}
    }}
    for (int64_t i = count; i < n; i++) {{
        indices[i] = 0;
    }}
    return count;
}}"""))
        x = abi.c_name(c.input)
        indices, count = self.op.outputs
        lines = [f"const int64_t n = opf_numel({x});"]
        given = "".join(f", {abi.c_name(a)}" for a in c.args)

        def per_variant(v: D.Variant) -> list[str]:
            return [f"*(int64_t*){abi.c_name(count.name)}->data = {self.kernel_name(v)}((const {C_TYPE[v.of(c.input)]}*)"
                    f"{x}->data, n, (int64_t*){abi.c_name(indices.name)}->data{given});"]

        return OpCode(tuple(frags), (), self.api(lines + self.dispatch(per_variant)))


# ---------------------------------------------------------------- contractions
