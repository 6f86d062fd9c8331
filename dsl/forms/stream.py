"""SlidingWindow: a stateful stream of frames."""

from __future__ import annotations

from typing import Any

import attrs

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


CAPACITY_WINDOWS = 2
