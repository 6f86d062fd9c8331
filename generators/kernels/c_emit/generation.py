"""Generated tensors: fill, range, linspace, eye, one_hot, sequence_mask, cast."""

from __future__ import annotations



from dsl import compute as C
from generators import abi
from generators.formatting import c_string
from generators.kernels.c_emit.base import Emitter, OpCode


class GenerationEmitter(Emitter):
    """Tensors from args: one runtime function per kind, storing through the output's dtype."""

    def emit(self) -> OpCode:
        c: C.Generation = self.op.compute  # type: ignore[assignment]
        out = self.op.outputs[0]
        outn = abi.c_name(out.name)

        def arg(role: str) -> str:
            return abi.c_name(c.arg(role))

        call = {
            "fill": lambda: f"opf_generate_fill({arg('shape')}, {arg('shape')}_count, {arg('value')}, {outn}, detail)",
            "range": lambda: f"opf_generate_range({arg('start')}, {arg('limit')}, {arg('delta')}, {outn}, detail)",
            "linspace": lambda: f"opf_generate_linspace({arg('start')}, {arg('stop')}, {arg('num')}, {outn}, detail)",
            "eye": lambda: f"opf_generate_diagonals({arg('rows')}, {arg('cols')}, 0, 0, {outn}, detail)",
            "tri": lambda: f"opf_generate_diagonals({arg('rows')}, {arg('cols')}, INT64_MIN, {arg('diag')}, {outn}, detail)",
            "one_hot": lambda: (f"opf_generate_one_hot({arg('indices')}, {arg('depth')}, {arg('axis')}, {arg('on')}, "
                                f"{arg('off')}, {outn}, detail)"),
            "sequence_mask": lambda: f"opf_generate_sequence_mask({arg('lengths')}, {arg('maxlen')}, {outn}, detail)",
            "cast": lambda: f"opf_cast({arg('input')}, {outn})",
        }[c.generator]
        lines = [f"if ({outn}->dtype != {abi.c_name('dtype')}) {{",
                 f"return opf_fail(detail, OPFORGE_ERR_DTYPE, {c_string(out.name + ': dtype must equal the dtype arg')});",
                 "}"]
        if c.generator == "cast":  # the values of x, in x's shape
            lines += self.output_check(f"{arg('input')}->rank", f"{arg('input')}->shape")
        lines += [f"return {call()};"]
        return OpCode((), (), self.api_returning(lines))
