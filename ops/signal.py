"""Streaming signal processing: stateful ops over a stream of frames."""

from dsl import *

with Namespace("signal"):
    with Op("sliding_window") as op:
        op.display_path = "/Signal"
        op.formula = (
            r"\mathrm{output}^{(w)}_{t \ldots} = x_{w \, \mathrm{stride} + t, \ldots}, \quad 0 "
            r"\leq t < \mathrm{window}",
            r"\text{the $w$-th window dequeued, of the frames $x$ enqueued in order}",
        )
        x = Input(
            NUMERIC,
            "x",
            description="A block of new frames: axis 0 counts frames (rank 1 or more)",
        )
        window = Arg(INT, "window", description="Frames per window")
        stride = Arg(
            INT,
            "stride",
            description="Frames from the start of one window to the start of the next",
        )
        Output(NUMERIC, "output", description="One window: window frames, oldest first")
        Constraint("window must be positive", window > 0)
        Constraint("stride must be positive", stride > 0)
        Constraint("x must have rank 1 or more", x.rank() >= 1)
        SlidingWindow()
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            A sliding window over a stream of frames. Blocks of frames are enqueued; once
            window frames are queued, a window (the oldest window frames) can be dequeued,
            after which stride frames are dropped (frames not yet received are skipped
            as they arrive when stride is larger than the queue).

            The queue holds at most 2 * window frames: enqueueing more is an error, so
            dequeue every complete window first.
            """,
        )
