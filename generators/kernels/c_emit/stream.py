"""Stateful streams: the sliding window's state functions (ADR 0014)."""

from __future__ import annotations

from dsl import compute as C
from dsl import expr as E
from generators import abi
from generators.formatting import c_string
from generators.kernels import c_shapes, fixed_point
from generators.kernels.c_emit.base import Emitter, OpCode, mask
from generators.kernels.c_emit.fixed_point_api import same_attributes

_CLEAR = "if (detail != NULL) {\n*detail = NULL;\n}"


class StreamEmitter(Emitter):
    """A sliding window: state size, init, enqueue, ready and dequeue over a caller-owned buffer.
    Its frames may be of a fixed-point type (ADR 0040): the state keeps the first frame's
    attributes, every frame enqueued must hold them, every window dequeued takes them."""

    def allowed(self) -> str:
        """The frames' dtypes: the op's, and the fixed-point types whose stored values it moves."""
        return mask({v.dtype for v in self.variants} | {t.name for t in fixed_point.moves(self.op)})

    def same_attributes(self) -> list[str]:
        """x, enqueued, must hold the frames' attributes (a fixed-point type's only)."""
        lines = ["switch (s->dtype) {"]
        for t in fixed_point.moves(self.op):
            lines += [f"case {abi.DTYPE_ENUM[t.name]}:", *same_attributes(t, "x", "s", "x", "must have the frames'"),
                      "break;"]
        return [*lines, "default:", "break;", "}"]

    def emit(self) -> OpCode:
        op = self.op
        c: C.SlidingWindow = op.compute  # type: ignore[assignment]
        protos = {
            role: self.linkage + proto
            for role, proto in abi.stream_prototypes(op).items()
        }
        texts = (
            self.state_size(protos["state_size"], c),
            self.init(protos["init"], c),
            self.enqueue(protos["enqueue"]),
            self.ready(protos["ready"]),
            self.dequeue(protos["dequeue"]),
        )
        return OpCode((), (), "\n" + "\n\n".join(texts) + "\n")

    def _checks(self) -> str:
        """The op's constraints on args alone: the state size refuses what the window cannot be."""
        checks = []
        for _, con in self.op.all_constraints():
            refs = {r.kind for r in E.param_refs(con.expr)}
            if con.backend or "input" in refs:
                continue
            checks += [
                f"if (!{self.constraints.render(con.expr)}) {{",
                f"return opf_fail(detail, OPFORGE_ERR_CONSTRAINT, {c_string(con.message)});",
                "}",
            ]
        return "\n".join(checks)

    def state_size(self, proto: str, c: C.SlidingWindow) -> str:
        """Bytes of state for a window over frames of this shape and dtype."""
        window, stride = abi.c_name(c.window), abi.c_name(c.stride)
        allowed = self.allowed()
        checks = self._checks()
        return f"""{proto}
{{
    {_CLEAR}
    {checks}
    int64_t frame_bytes = 0;
    const opforge_status st = opf_window_frame(frame, {allowed}, &frame_bytes, detail);
    if (st != OPFORGE_OK) {{
        return st;
    }}
    if (!opforge_attributes_valid(frame) || opf_per_axis(frame)) {{
        return opf_fail(detail, OPFORGE_ERR_ATTRIBUTE,
                        "frame: its fixed-point attributes are out of its type's range, or per axis");
    }}
    if (bytes == NULL) {{
        return opf_fail(detail, OPFORGE_ERR_NULL, "bytes: NULL");
    }}
    if ({stride} > (int64_t)PTRDIFF_MAX) {{
        return opf_fail(detail, OPFORGE_ERR_SIZE, "stride: too large for this core's address space");
    }}
    return opf_window_size({window}, frame_bytes, bytes, detail);
}}"""

    def init(self, proto: str, c: C.SlidingWindow) -> str:
        """Lay out an empty queue in the caller's buffer."""
        fn = abi.function(self.op)
        window, stride = abi.c_name(c.window), abi.c_name(c.stride)
        allowed = self.allowed()
        return f"""{proto}
{{
    size_t needed = 0;
    const opforge_status st = {fn}_state_size({window}, {stride}, frame, &needed, detail);
    if (st != OPFORGE_OK) {{
        return st;
    }}
    if (state == NULL) {{
        return opf_fail(detail, OPFORGE_ERR_NULL, "state: NULL");
    }}
    if (((uintptr_t)state % 8u) != 0 || state_size < needed) {{
        return opf_fail(detail, OPFORGE_ERR_SIZE, "state: misaligned or smaller than the state size");
    }}
    opf_window_state* s = (opf_window_state*)state;
    int64_t frame_bytes = 0;
    opf_window_frame(frame, {allowed}, &frame_bytes, detail);
    /* (the state size has checked that these fit a ptrdiff_t) */
    opf_window_start(s, (ptrdiff_t){window}, (ptrdiff_t){stride}, (ptrdiff_t){C.CAPACITY_WINDOWS} * (ptrdiff_t){window},
                     (ptrdiff_t)frame_bytes);
    s->dtype = frame->dtype;
    s->shift = frame->shift;
    s->scale = frame->scale;
    s->offset = frame->offset;
    s->frame_rank = frame->rank;
    for (int32_t d = 0; d < OPFORGE_MAX_RANK; d++) {{
        s->frame_shape[d] = d < frame->rank ? frame->shape[d] : 1;
    }}
    return OPFORGE_OK;
}}"""

    def enqueue(self, proto: str) -> str:
        """Append frames, first dropping those a stride longer than the window skips."""
        full = c_string("queue is full: dequeue first")
        same = "\n".join(self.same_attributes())
        return f"""{proto}
{{
    {_CLEAR}
    opf_window_state* s = NULL;
    opforge_status st = opf_window_get(state, &s, detail);
    if (st != OPFORGE_OK) {{
        return st;
    }}
    st = opf_check_tensor_reading(x, OPF_DTYPE_BIT(s->dtype), 0u);
    if (st != OPFORGE_OK) {{
        return opf_fail(detail, st, "x: NULL, a dtype other than the frames', or a bad size");
    }}
    {same}
    if (x->rank != s->frame_rank + 1) {{
        return opf_fail(detail, OPFORGE_ERR_RANK, "x: rank must be the frame rank plus one");
    }}
    for (int32_t d = 0; d < s->frame_rank; d++) {{
        if (x->shape[d + 1] != s->frame_shape[d]) {{
            return opf_fail(detail, OPFORGE_ERR_SHAPE, "x: frames must have the frame shape");
        }}
    }}
    if (x->shape[0] > (int64_t)PTRDIFF_MAX || !opf_window_push(s, x->data, (ptrdiff_t)x->shape[0])) {{
        return opf_fail(detail, OPFORGE_ERR_SIZE, {full});
    }}
    return OPFORGE_OK;
}}"""

    def ready(self, proto: str) -> str:
        """Whether a full window is queued."""
        return f"""{proto}
{{
    {_CLEAR}
    opf_window_state* s = NULL;
    const opforge_status st = opf_window_get(state, &s, detail);
    if (st != OPFORGE_OK) {{
        return st;
    }}
    if (ready == NULL) {{
        return opf_fail(detail, OPFORGE_ERR_NULL, "ready: NULL");
    }}
    *ready = s->count >= s->window;
    return OPFORGE_OK;
}}"""

    def dequeue(self, proto: str) -> str:
        """Copy out the oldest window and advance by the stride; the output's shape is the
        form's, for a block of frames of the queued frame shape and the window the state holds."""
        empty = c_string("no complete window yet")
        c = self.op.compute
        x, window = abi.c_name(c.input), abi.c_name(c.window)
        shape = "\n".join([
            "opforge_tensor frames = {.data = NULL, .dtype = s->dtype, .rank = s->frame_rank + 1, .shape = {1}};",
            "for (int32_t d = 0; d < s->frame_rank; d++) {", "frames.shape[d + 1] = s->frame_shape[d];", "}",
            f"const opforge_tensor* {x} = &frames;", f"const int64_t {window} = s->window;",
            *c_shapes.output_checks(self.op)])
        return f"""{proto}
{{
    {_CLEAR}
    opf_window_state* s = NULL;
    opforge_status st = opf_window_get(state, &s, detail);
    if (st != OPFORGE_OK) {{
        return st;
    }}
    st = opf_check_tensor_reading(output, OPF_DTYPE_BIT(s->dtype), 0u); /* (its attributes: the frames') */
    if (st != OPFORGE_OK) {{
        return opf_fail(detail, st, "output: NULL, a dtype other than the frames', or a bad size");
    }}
    {shape}
    if (!opf_window_pop(s, opf_out_data(output))) {{
        return opf_fail(detail, OPFORGE_ERR_EMPTY, {empty});
    }}
    output->shift = s->shift;
    output->scale = s->scale;
    output->offset = s->offset;
    return OPFORGE_OK;
}}"""
