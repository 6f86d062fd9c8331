"""Join, Merge and Parts: forms over a list input or giving a list output."""

from __future__ import annotations

from typing import Any

import attrs

@attrs.frozen
class Join:
    """The tensors of the list input ``inputs`` (one dtype) joined along the axis
    arg ``axis``: concatenated (``join`` "concat": shapes agree but along the
    axis) or stacked along a new axis (``join`` "stack": equal shapes)."""

    join: str
    inputs: str
    axis: str

    kind = "join"

    @property
    def stack(self) -> bool:
        return self.join == "stack"


@attrs.frozen
class Merge:
    """Element by element over the equal-shape tensors of the list input
    ``inputs``, in list order: ``add`` (wrapping for integers), ``avg`` (summed
    in double), ``max`` (NaN propagates) or ``max_index`` (the position in the
    list of the first largest; the first NaN counts as largest)."""

    inputs: str
    combine: str

    kind = "merge"


MERGE_COMBINES = ("add", "avg", "max", "max_index")


@attrs.frozen
class Parts:
    """The tensors of the list output ``outputs`` cut from ``source`` (bytes
    move, none is computed; one dtype throughout):

    - ``split``: ``num`` equal parts of the input along ``axis``;
    - ``unstack``: one tensor per entry along ``axis``, which it drops;
    - ``meshgrid``: for each tensor of the list input ``source``, its elements
      spread along its own axis of a grid of every tensor's size (``cartesian``
      swaps the first two axes: numpy.meshgrid's "xy" indexing).

    ``params`` binds each role of the kind (``PARTS_ROLES``) to an arg.
    """

    part: str
    source: str
    outputs: str
    params: tuple[tuple[str, str], ...]

    kind = "parts"

    def arg(self, role: str) -> str:
        return dict(self.params)[role]


PARTS_ROLES: dict[str, tuple[tuple[str, str], ...]] = {
    "split": (("axis", "int"), ("num", "int")),
    "unstack": (("axis", "int"),),
    "meshgrid": (("cartesian", "bool"),),
}
