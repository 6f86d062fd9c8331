"""TensorDot: numpy.tensordot over axes given as int-list args."""

from __future__ import annotations

from typing import Any

import attrs

@attrs.frozen
class TensorDot:
    """numpy.tensordot of the two ``inputs`` over the axes that the int-list
    args ``axes`` (of the first, of the second) name in pairs: ND4J's
    tensorMmul. The boolean args ``transposes`` reverse the axes of the first
    and the second input before (the axes name axes of the reversed tensors)
    and of the result after, as ND4J's transpose of an N-d array does. The
    result holds the free axes of the first, then those of the second; the
    einsum labels are built at run time."""

    inputs: tuple[str, str]
    axes: tuple[str, str]
    transposes: tuple[str, str, str]

    kind = "tensordot"
