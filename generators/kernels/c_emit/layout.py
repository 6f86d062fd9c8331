"""Layouts: elements moved by a plan, or by data (gather, ...)."""

from __future__ import annotations



from dsl import compute as C
from generators import abi
from generators.formatting import c_string
from generators.kernels.c_emit.base import Emitter, OpCode


class LayoutEmitter(Emitter):
    """Moves without arithmetic: one runtime plan builder per layout kind, then a
    byte copy shared by every dtype (so no per-dtype kernels)."""

    def emit(self) -> OpCode:
        c: C.LayoutMove = self.op.compute  # type: ignore[assignment]
        x = abi.c_name(c.input)
        out = abi.c_name(self.op.outputs[0].name)
        if c.layout in C.DATA_LAYOUTS:  # not a plan: the indices are data
            given = [abi.c_name(name) for _, name in c.params]
            if c.layout == "gather":
                given = [abi.c_name(c.arg("indices")), abi.c_name(c.arg("axis"))]
            elif c.layout == "reverse_sequence":
                given = [abi.c_name(c.arg(r)) for r in ("seq_lengths", "seq_axis", "batch_axis")]
            call = f"opf_{c.layout}({', '.join([x, *given, out, 'detail'])})"
            return OpCode((), (), self.api_returning([f"return {call};"]))

        def arg(role: str) -> str:
            return abi.c_name(c.arg(role))

        def array(role: str) -> str:
            return f"{arg(role)}, {arg(role)}_count"

        build = {
            "reshape": lambda: f"opf_layout_reshape({x}, {array('shape')}, &plan, detail)",
            "permute": lambda: f"opf_layout_permute({x}, {array('perm')}, &plan, detail)",
            "transpose": lambda: f"opf_layout_permute({x}, NULL, 0, &plan, detail)",
            "squeeze": lambda: f"opf_layout_squeeze({x}, {arg('axis')}, &plan, detail)",
            "expand_dims": lambda: f"opf_layout_expand_dims({x}, {arg('axis')}, &plan, detail)",
            "narrow": lambda: f"opf_layout_narrow({x}, &plan)",
            "reverse": lambda: f"opf_layout_reverse({x}, {array('axes')}, &plan, detail)",
            "tile": lambda: f"opf_layout_tile({x}, {array('repeats')}, &plan, detail)",
            "slice": lambda: f"opf_layout_slice({x}, {array('begin')}, {array('size')}, &plan, detail)",
            "strided_slice": lambda: (f"opf_layout_strided_slice({x}, {array('begin')}, {array('end')}, "
                                      f"{array('strides')}, &plan, detail)"),
            "pad": lambda: f"opf_layout_pad({x}, {array('paddings')}, (int){arg('mode')}, &plan, detail)",
        }[c.layout]
        lines = ["opf_layout_plan plan;", "{", f"const opforge_status st = {build()};",
                 "if (st != OPFORGE_OK) {", "return st;", "}", "}",
                 *self.output_check("plan.rank", "plan.shape"),
                 "unsigned char fill[8] = {0};"]
        if c.layout == "pad":
            lines += [f"if ({arg('mode')} == 0 && !opf_fill_value({x}->dtype, {arg('value')}, fill)) {{",
                      f"return opf_fail(detail, OPFORGE_ERR_ARG, {c_string(c.arg('value') + ': does not convert exactly to the dtype of ' + c.input)});",
                      "}"]
        lines += [f"opf_layout_run(&plan, (const unsigned char*){x}->data, opforge_dtype_size({x}->dtype), fill, "
                  f"(unsigned char*){out}->data);"]
        return OpCode((), (), self.api(lines))
