"""Per-op C code: kernels (Imaginet fragments) and the checked API function (ADR 0005).

:class:`CEmitter` is the C lowering of every compute form, one method per form (named as
the form's ``kind``), each in the module of that form; a variant target (a CMSIS-flavoured
C) subclasses it and overrides only the forms it lowers otherwise. Each method returns an
:class:`OpCode`: the kernel fragments and the API function's text.
"""

from __future__ import annotations

from dsl.model import Op
from generators.kernels.c_emit.arg_reduction import ArgReductionEmitter
from generators.kernels.c_emit.base import PLAIN_SIZES, SCALES, CFragment, OpCode, PlainKernel, config_typedef
from generators.kernels.c_emit.contraction import ContractionEmitter, TensorDotEmitter
from generators.kernels.c_emit.conversion import ConversionEmitter
from generators.kernels.c_emit.elementwise import ElementwiseEmitter
from generators.kernels.c_emit.find_all import FindAllEmitter
from generators.kernels.c_emit.fragment import FragmentEmitter
from generators.kernels.c_emit.generation import GenerationEmitter
from generators.kernels.c_emit.layout import LayoutEmitter
from generators.kernels.c_emit.reduction import ReductionEmitter
from generators.kernels.c_emit.sampling import RandomEmitter
from generators.kernels.c_emit.scatter import ScatterEmitter
from generators.kernels.c_emit.shape_query import ShapeQueryEmitter
from generators.kernels.c_emit.stream import StreamEmitter
from generators.kernels.c_emit.tensor_lists import JoinEmitter, MergeEmitter, PartsEmitter

# (``c_emit.fragment`` is the module of the fragment form; CFragment builds a fragment)
__all__ = ["CEmitter", "CFragment", "OpCode", "PLAIN_SIZES", "PlainKernel", "SCALES", "config_typedef", "emit"]


class CEmitter:
    """The C lowering: ``lower(op)`` calls the method named after the op's form. ``linkage``
    goes before each API function's definition (the units' headers define them ``static
    inline``, so each unit's copy is its own)."""

    def __init__(self, linkage: str = "", plain_index: str = "int64") -> None:
        self.linkage = linkage
        self.plain_index = plain_index  # the dtype plain kernels write indices in

    def lower(self, op: Op) -> OpCode:
        return getattr(self, op.compute.kind)(op)

    def elementwise(self, op: Op) -> OpCode:
        return ElementwiseEmitter(op, self.linkage).emit()

    def reduction(self, op: Op) -> OpCode:
        return ReductionEmitter(op, self.linkage).emit()

    def argreduction(self, op: Op) -> OpCode:
        return ArgReductionEmitter(op, self.linkage, self.plain_index).emit()

    def find_all(self, op: Op) -> OpCode:
        return FindAllEmitter(op, self.linkage).emit()

    def contraction(self, op: Op) -> OpCode:
        return ContractionEmitter(op, self.linkage).emit()

    def tensordot(self, op: Op) -> OpCode:
        return TensorDotEmitter(op, self.linkage).emit()

    def random(self, op: Op) -> OpCode:
        return RandomEmitter(op, self.linkage).emit()

    def fragment(self, op: Op) -> OpCode:
        return FragmentEmitter(op, self.linkage).emit()

    def stream(self, op: Op) -> OpCode:
        return StreamEmitter(op, self.linkage).emit()

    def layout(self, op: Op) -> OpCode:
        return LayoutEmitter(op, self.linkage).emit()

    def generation(self, op: Op) -> OpCode:
        return GenerationEmitter(op, self.linkage).emit()

    def scatter(self, op: Op) -> OpCode:
        return ScatterEmitter(op, self.linkage).emit()

    def conversion(self, op: Op) -> OpCode:
        return ConversionEmitter(op, self.linkage).emit()

    def shape_query(self, op: Op) -> OpCode:
        return ShapeQueryEmitter(op, self.linkage).emit()

    def join(self, op: Op) -> OpCode:
        return JoinEmitter(op, self.linkage).emit()

    def merge(self, op: Op) -> OpCode:
        return MergeEmitter(op, self.linkage).emit()

    def parts(self, op: Op) -> OpCode:
        return PartsEmitter(op, self.linkage).emit()


def emit(op: Op, linkage: str = "", plain_index: str = "int64") -> OpCode:
    """The op's C code, as the C target lowers it (``linkage``: see :class:`CEmitter`;
    ``plain_index``: the dtype of the indices its plain kernels give)."""
    return CEmitter(linkage, plain_index).lower(op)
