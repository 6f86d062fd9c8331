"""SlidingWindow: a stateful stream of frames."""

from __future__ import annotations

from typing import Any

import attrs

from dsl import shapes as Sh

from dsl.forms.checks import Check
from dsl.types import DataType

@attrs.frozen
class SlidingWindow:
    """A stateful stream of frames (axis 0 of each block of ``input``).

    The queue holds at most ``CAPACITY_WINDOWS * window`` frames. A complete
    window (the oldest ``window`` frames) can be dequeued; then ``stride``
    frames are dropped, and frames still to come are skipped when ``stride``
    exceeds what the queue holds.
    """

    input: str
    window: str
    stride: str

    kind = "stream"

    def problems(self, op: Any, check: Check) -> None:
        check.need_input(self.input)
        check.need_arg(self.window, (DataType.INT, DataType.LONG), False, "frames per window")
        check.need_arg(self.stride, (DataType.INT, DataType.LONG), False, "frames between windows")
        if op.outputs and op.inputs and op.outputs[0].type is not op.inputs[0].type:
            check.add("a sliding window's output has its input's type")

    def output_shapes(self, op: Any) -> tuple[Any, ...]:
        """A window: ``window`` frames, each a block of the input without its first axis."""
        return (Sh.Concat((Sh.Dims((Sh.arg(self.window),)), Sh.Slice(Sh.tensor(self.input), 1, None))),)

    def refusals(self, op: Any) -> tuple[Sh.Refusal, ...]:
        return (Sh.Refusal(f"{self.input}: a block of frames has rank 1 or more", Sh.compare(Sh.rank(self.input), ">=", 1)),)

    def value_refusals(self, op: Any) -> tuple[str, ...]:
        return ()

CAPACITY_WINDOWS = 2
