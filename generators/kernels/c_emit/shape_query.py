"""Shape queries."""

from __future__ import annotations



from dsl import compute as C
from generators import abi
from generators.kernels.c_emit.base import Emitter, OpCode


class ShapeQueryEmitter(Emitter):
    """Facts of a shape: one runtime function for every dtype (no kernels)."""

    def emit(self) -> OpCode:
        c: C.ShapeQuery = self.op.compute  # type: ignore[assignment]
        axis = abi.c_name(c.axis) if c.axis is not None else "0"
        call = (f"opf_shape_query({C.SHAPE_QUERIES.index(c.query)}, {abi.c_name(c.input)}, {axis}, "
                f"{abi.c_name(self.op.outputs[0].name)});")
        return OpCode((), (), self.api([call]))
