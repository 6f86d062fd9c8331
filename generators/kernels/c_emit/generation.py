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

        # The runtime writes the output, whose shape the form's checks (above) have found right;
        # it returns a status where it checks values, and nothing where there are none to check.
        call = {
            "fill": lambda: f"return opf_generate_fill({arg('value')}, {outn}, detail);",
            "range": lambda: f"return opf_generate_range({arg('start')}, {arg('delta')}, {outn}, detail);",
            "linspace": lambda: f"return opf_generate_linspace({arg('start')}, {arg('stop')}, {outn}, detail);",
            "eye": lambda: f"opf_generate_diagonals(0, 0, {outn});",
            "tri": lambda: f"opf_generate_diagonals(INT64_MIN, {arg('diag')}, {outn});",
            "one_hot": lambda: (f"return opf_generate_one_hot({arg('indices')}, {arg('depth')}, {arg('axis')}, "
                                f"{arg('on')}, {arg('off')}, {outn}, detail);"),
            "sequence_mask": lambda: f"opf_generate_sequence_mask({arg('lengths')}, {arg('maxlen')}, {outn});",
            "cast": lambda: f"return opf_cast({arg('input')}, {outn});",
        }[c.generator]
        lines = [f"if ({outn}->dtype != {abi.c_name('dtype')}) {{",
                 f"return opf_fail(detail, OPFORGE_ERR_DTYPE, {c_string(out.name + ': dtype must equal the dtype arg')});",
                 "}", call()]
        if not lines[-1].startswith("return "):
            lines.append("return OPFORGE_OK;")
        return OpCode((), (), self.api_returning(lines))
