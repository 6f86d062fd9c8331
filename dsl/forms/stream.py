"""SlidingWindow: a stateful stream of frames."""

from __future__ import annotations

from typing import Any

import attrs

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

CAPACITY_WINDOWS = 2
