"""Units of stateful streams (ADR 0014): the C entry points, the Python ones and the unit document."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from dsl import compute as C
from dsl.model import Op
from generators import abi
from generators.imunit import units
from generators.imunit.documents import description, head, serialize, tensor_types
from generators.imunit.python_files import dependency, python_file
from generators.imunit.variants import variants_of
from generators.kernels import reference
from generators.kernels.scalar_c import C_TYPE, SUFFIX


QUEUE_ROLES = ("init", "enqueue", "dequeue")
#: A current unit's optional timestamps, as the real SlidingWindow names them: Float32 values per
#: block in, each window's range [first, last] over its frames out.
TIME_INPUT, TIME_OUTPUT = "time_input", "time_output"


def queue_params(op: Op, role: str) -> list[str]:
    """The unit values each Queue entry point takes, in order."""
    c = op.compute
    x, out = op.inputs[0].name, op.outputs[0].name
    dims = [f"{x}_rank", *(f"{x}_d{k}" for k in range(abi.MAX_RANK))]
    if role == "init":
        return ["state", "state_size", c.window, c.stride, *dims]
    if role == "enqueue":
        return ["state", x, *dims]
    if role == "can_enqueue":  # the frames of one input block
        return ["state", f"{x}_d0"]
    if role == "can_dequeue":
        return ["state"]
    return ["state", out, f"{out}_rank", *(f"{out}_d{k}" for k in range(abi.MAX_RANK))]


def queue_adapters(op: Op, dtype: str) -> str:
    fn = abi.function(op)
    x, out = op.inputs[0].name, op.outputs[0].name
    ct = C_TYPE[dtype]
    enum = abi.DTYPE_ENUM[dtype]
    ints = lambda names: ", ".join(f"int {n}" for n in names)  # noqa: E731
    xdims = [f"{x}_rank", *(f"{x}_d{k}" for k in range(abi.MAX_RANK))]
    odims = [f"{out}_rank", *(f"{out}_d{k}" for k in range(abi.MAX_RANK))]
    frame = ", ".join(f"{x}_d{k}" for k in range(1, abi.MAX_RANK)) + ", 1"
    sfx = SUFFIX[dtype]
    c = op.compute
    return f"""#pragma IMAGINET_FRAGMENT_BEGIN "{fn}_unit_init_{sfx}"
#pragma IMAGINET_FRAGMENT_DEPENDENCY "{fn}"
static inline int {fn}_unit_init_{sfx}(void* state, int state_size, int {c.window}, int {c.stride}, {ints(xdims)})
{{
    opforge_tensor frame = {{.data = NULL, .dtype = {enum}, .rank = {x}_rank - 1, .shape = {{{frame}}}}};
    (void){x}_d0; /* the first block's frame count: not part of the frame */
    return {fn}_init(state, (size_t)state_size, {c.window}, {c.stride}, &frame, NULL) == OPFORGE_OK ? 0 : -2;
}}
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "{fn}_unit_enqueue_{sfx}"
#pragma IMAGINET_FRAGMENT_DEPENDENCY "{fn}"
static inline int {fn}_unit_enqueue_{sfx}(void* state, const {ct}* {x}, {ints(xdims)})
{{
    opforge_tensor t = {{.data = {x}, .dtype = {enum}, .rank = {x}_rank, .shape = {{{", ".join(xdims[1:])}}}}};
    return {fn}_enqueue(state, &t, NULL) == OPFORGE_OK ? 0 : -2;
}}
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "{fn}_unit_dequeue_{sfx}"
#pragma IMAGINET_FRAGMENT_DEPENDENCY "{fn}"
static inline int {fn}_unit_dequeue_{sfx}(void* state, {ct}* {out}, {ints(odims)})
{{
    opforge_tensor t = {{.data = {out}, .dtype = {enum}, .rank = {out}_rank, .shape = {{{", ".join(odims[1:])}}}}};
    const opforge_status st = {fn}_dequeue(state, &t, NULL);
    return st == OPFORGE_OK ? 0 : (st == OPFORGE_ERR_EMPTY ? -1 : -2);
}}
#pragma IMAGINET_FRAGMENT_END
"""


def queue_entries(op: Op, runtime: str) -> str:
    """Init, Enqueue and Dequeue of the current format, for any dtype: bytes, frames and the
    runtime's queue, no descriptors (the unit's Asserts and its static shapes hold what the
    checked API would check). 0 (IPWIN_RET_SUCCESS); -1 (IPWIN_RET_NODATA) from Dequeue when
    no window is complete; -2 (IPWIN_RET_ERROR) for a full queue or a state Init did not set up.
    They need only the runtime (``runtime``, the fragment that holds it)."""
    fn = abi.function(op)
    capacity = C.CAPACITY_WINDOWS
    return f"""#pragma IMAGINET_FRAGMENT_BEGIN "{fn}_unit_init"
#pragma IMAGINET_FRAGMENT_DEPENDENCY "{runtime}"
static inline int {fn}_unit_init(void* state, int state_size, int window, int stride, int frame_bytes, int timed)
{{
    const int64_t times = timed ? (int64_t)OPF_WINDOW_TIME_BYTES({capacity} * window) + (int64_t)sizeof(float) : 0;
    if (state == NULL || ((uintptr_t)state % 8u) != 0 || window < 1 || stride < 1 || frame_bytes < 0 ||
        (int64_t)state_size < (int64_t)OPF_WINDOW_HEADER + (int64_t){capacity} * window * frame_bytes + times) {{
        return -2;
    }}
    opf_window_start((opf_window_state*)state, window, stride, {capacity} * window, frame_bytes);
    if (timed) {{
        opf_window_keep_times((opf_window_state*)state);
    }}
    return 0;
}}
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "{fn}_unit_enqueue"
#pragma IMAGINET_FRAGMENT_DEPENDENCY "{runtime}"
static inline int {fn}_unit_enqueue(void* state, const void* frames, int count)
{{
    opf_window_state* s = NULL;
    if (opf_window_get(state, &s, NULL) != OPFORGE_OK || count < 0) {{
        return -2;
    }}
    return opf_window_push(s, frames, count) ? 0 : -2;
}}
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "{fn}_unit_dequeue"
#pragma IMAGINET_FRAGMENT_DEPENDENCY "{runtime}"
static inline int {fn}_unit_dequeue(void* state, void* window)
{{
    opf_window_state* s = NULL;
    if (opf_window_get(state, &s, NULL) != OPFORGE_OK) {{
        return -2;
    }}
    return opf_window_pop(s, window) ? 0 : -1;
}}
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "{fn}_unit_enqueue_timed"
#pragma IMAGINET_FRAGMENT_DEPENDENCY "{runtime}"
/* Enqueue with the block's timestamps: each frame keeps their range [first, last]. */
static inline int {fn}_unit_enqueue_timed(void* state, const void* frames, int count, const float* time,
                                          int time_count)
{{
    opf_window_state* s = NULL;
    if (opf_window_get(state, &s, NULL) != OPFORGE_OK || count < 0 || time_count < 0 || s->times == 0) {{
        return -2;
    }}
    return opf_window_push_timed(s, frames, count, time, time_count) ? 0 : -2;
}}
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "{fn}_unit_dequeue_timed"
#pragma IMAGINET_FRAGMENT_DEPENDENCY "{runtime}"
/* Dequeue with the window's time range, [first, last] over its frames. */
static inline int {fn}_unit_dequeue_timed(void* state, void* window, float* time)
{{
    opf_window_state* s = NULL;
    if (opf_window_get(state, &s, NULL) != OPFORGE_OK || s->times == 0) {{
        return -2;
    }}
    return opf_window_pop_timed(s, window, time) ? 0 : -1;
}}
#pragma IMAGINET_FRAGMENT_END
"""


def entry_params(op: Op, role: str) -> list[str]:
    """The unit values each lean C entry takes (``queue_entries``), in order."""
    c = op.compute
    x, out = op.inputs[0].name, op.outputs[0].name
    return {"init": ["state", "state_size", c.window, c.stride, "frame_bytes", "timed"],
            "enqueue": ["state", x, f"{x}_d0"], "dequeue": ["state", out],
            "enqueue_timed": ["state", x, f"{x}_d0", TIME_INPUT, "timestamp_count"],
            "dequeue_timed": ["state", out, TIME_OUTPUT]}[role]


def queue_guards(op: Op, runtime: str) -> str:
    """CanEnqueue and CanDequeue, for any dtype: 0 (IPWIN_RET_SUCCESS) if a block of
    ``frames`` frames fits, or a window is complete; -1 (IPWIN_RET_NODATA) if not yet;
    -2 (IPWIN_RET_ERROR) for a state Init did not set up."""
    fn = abi.function(op)
    return f"""#pragma IMAGINET_FRAGMENT_BEGIN "{fn}_unit_can_enqueue"
#pragma IMAGINET_FRAGMENT_DEPENDENCY "{runtime}"
static inline int {fn}_unit_can_enqueue(const void* state, int frames)
{{
    opf_window_state* s = NULL;
    if (opf_window_get(state, &s, NULL) != OPFORGE_OK) {{
        return -2;
    }}
    return opf_window_room(s, frames) ? 0 : -1;
}}
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "{fn}_unit_can_dequeue"
#pragma IMAGINET_FRAGMENT_DEPENDENCY "{runtime}"
static inline int {fn}_unit_can_dequeue(const void* state)
{{
    opf_window_state* s = NULL;
    if (opf_window_get(state, &s, NULL) != OPFORGE_OK) {{
        return -2;
    }}
    return s->count >= s->window ? 0 : -1;
}}
#pragma IMAGINET_FRAGMENT_END
"""


def queue_py(op: Op, header: str, legacy: bool = False) -> str:
    """The Python entries; the current style's take timestamps too (the seed's have none)."""
    c = op.compute
    x, out = op.inputs[0].name, op.outputs[0].name
    frame = f"tuple(d for d in ({', '.join(f'{x}_d{k}' for k in range(1, abi.MAX_RANK))})[:{x}_rank - 1])"
    lines = [dependency(reference.function(op), "opforge_kernels")]
    for role in QUEUE_ROLES:
        name = f"{op.name}_unit_{role}"
        params = queue_params(op, role)
        if role == "init":
            body = (f"    frame_shape = {frame}\n"
                    f"    _k.window_init(state, {c.window}, {c.stride}, frame_shape, np.dtype(dtype)"
                    f"{'' if legacy else ', bool(timed)'})")
            params = [*params, "dtype", *([] if legacy else ["timed"])]
        elif role == "enqueue":
            body = f"    _k.window_enqueue(state, {x})"
        else:
            body = f"    _k.window_dequeue(state, {out})"
        lines += [f'#pragma IMAGINET_FRAGMENT_BEGIN "{name}"', '#pragma IMAGINET_FRAGMENT_DEPENDENCY "opforge_kernels"',
                  f"def {name}({', '.join(params)}):", f'    """The unit\'s {role.capitalize()}."""', body,
                  "#pragma IMAGINET_FRAGMENT_END", ""]
    for role, params, body in () if legacy else (
            ("enqueue_timed", [*queue_params(op, "enqueue"), TIME_INPUT, "timestamp_count"],
             f"    _k.window_enqueue(state, {x}, np.asarray({TIME_INPUT}).reshape(-1)[:timestamp_count])"),
            ("dequeue_timed", [*queue_params(op, "dequeue"), TIME_OUTPUT],
             f"    _k.window_dequeue(state, {out}, {TIME_OUTPUT})")):
        name = f"{op.name}_unit_{role}"
        lines += [f'#pragma IMAGINET_FRAGMENT_BEGIN "{name}"', '#pragma IMAGINET_FRAGMENT_DEPENDENCY "opforge_kernels"',
                  f"def {name}({', '.join(params)}):",
                  f'    """The unit\'s {role.split("_")[0].capitalize()} with timestamps."""', body,
                  "#pragma IMAGINET_FRAGMENT_END", ""]
    for role, params, test in (("can_enqueue", ["state", "frames"], "_k.window_room(state, frames)"),
                               ("can_dequeue", ["state"], "_k.window_ready(state)")):
        name = f"{op.name}_unit_{role}"
        lines += [f'#pragma IMAGINET_FRAGMENT_BEGIN "{name}"', '#pragma IMAGINET_FRAGMENT_DEPENDENCY "opforge_kernels"',
                  f"def {name}({', '.join(params)}):",
                  f'    """The unit\'s {role.title().replace("_", "")}: 0 if it can, -1 (no data) if not yet."""',
                  f"    return 0 if {test} else -1", "#pragma IMAGINET_FRAGMENT_END", ""]
    return python_file(header, f"{op.qualified_name} Queue unit", [], lines)


def queue(op: Op, header: str, legacy: bool) -> str:
    root = ET.Element("Imaginet")
    # The current format's streaming <Unit> (the real SlidingWindow's lifecycle); the seed's <Queue>.
    unit = head(root, op, "Queue" if legacy else "Unit", legacy)
    description(unit, op, f"{op.name}.py:{op.name}")
    _queue_parameters(ET.SubElement(unit, "Parameters"), op, legacy)
    contracts = ET.SubElement(unit, "Contracts")
    for test, error in units.contracts(op, legacy):
        ET.SubElement(contracts, "Assert", {"test": test, "error": error})
    if not legacy:
        ET.SubElement(contracts, "Assert", {"test": f"{TIME_INPUT} == null || {TIME_INPUT}.type == System.Float32",
                                            "error": f"{TIME_INPUT}: timestamps are Float32, not {{{TIME_INPUT}.type}}"})
    sections = [("Init", "init"), ("Enqueue", "enqueue"), ("Dequeue", "dequeue")]
    if not legacy:  # the guards the runtime's poll loop calls, and a reset between sessions
        sections += [("CanEnqueue", "can_enqueue"), ("CanDequeue", "can_dequeue"), ("SoftReset", "init")]
    for tag, role in sections:
        _queue_section(ET.SubElement(unit, tag), op, role, legacy)
    return serialize(root, header)


def _queue_parameters(params: ET.Element, op: Op, legacy: bool) -> None:
    """The queue unit's sockets, options, handle and Expressions."""
    c = op.compute
    x, out = op.inputs[0], op.outputs[0]
    hidden_tag = "Hidden" if legacy else "Expression"
    ET.SubElement(params, "InputSocket", {"name": x.name, "pipe": "data", "description": x.description})
    if not legacy:  # the real SlidingWindow's optional timestamps
        ET.SubElement(params, "InputSocket", {
            "name": TIME_INPUT, "timestamps": "yes", "text": "Time input",
            "description": "Optional Float32 timestamps of each block: each window gets the range [first, last] "
                           "over the timestamps of its frames' blocks."})
        ET.SubElement(params, "Expression", {"name": "timestamp_count",
                                             "value": f"{TIME_INPUT} == null ? 0 : {TIME_INPUT}.shape.flat"})
        ET.SubElement(params, "Expression", {"name": "timed", "value": f"{TIME_INPUT} == null ? 0 : 1"})
    for o in units.options(op):
        ET.SubElement(params, o.element, {k: v for k, v in (("name", o.name), ("description", o.description),
                                                           ("default", o.default), ("min", o.minimum or "1"))
                                          if v is not None})
    ET.SubElement(params, hidden_tag, {"name": "frame_shape", "value": f"{x.name}.shape.remove({x.name}.shape.count - 1)"})
    size = f"256 + {C.CAPACITY_WINDOWS} * {c.window} * frame_shape.flat * {x.name}.type.size"
    if not legacy:  # a [first, last] pair of floats per frame the queue holds
        size += f" + timed * {C.CAPACITY_WINDOWS} * {c.window} * 8"
    ET.SubElement(params, "Handle", {"name": "state", "size": size,
                                     "description": "The queue: a header and room for 2 * window frames"})
    ET.SubElement(params, hidden_tag, {"name": "state_size", "value": size})
    if not legacy:  # what the lean entries take
        ET.SubElement(params, hidden_tag, {"name": "frame_bytes", "value": f"frame_shape.flat * {x.name}.type.size"})
    for h in units.dims(x.name, f"{x.name}.shape"):
        ET.SubElement(params, hidden_tag, {"name": h.name, "value": h.value})
    ET.SubElement(params, hidden_tag, {"name": "output_shape", "value": f"frame_shape.insert(frame_shape.count, {c.window})"})
    socket = {"name": out.name, "type": f"{x.name}.type", "shape": "output_shape", "pipe": "data",
              "description": out.description}
    if not legacy:  # a window per stride frames: blocks of x_d0 frames at x's rate
        socket["rate"] = f"{x.name}.rate * {x.name}_d0 / Math.real({c.stride})"
    ET.SubElement(params, "OutputSocket", socket)
    if not legacy:
        ET.SubElement(params, "OutputSocket", {
            "name": TIME_OUTPUT, "type": "System.Float32", "shape": "System.Shape(2)", "timestamps": "yes",
            "rate": socket["rate"], "conditional": f"{TIME_INPUT} != null",
            "description": "The window's time range [first, last]; only with timestamps in."})
    for h in units.dims(out.name, "output_shape"):
        ET.SubElement(params, hidden_tag, {"name": h.name, "value": h.value})
    ET.SubElement(params, hidden_tag, {"name": "dtype", "value": units.choose(
        [(f"{x.name}.type == {units.VALUE_TYPE[v.dtype]}", f'"{v.dtype}"') for v in variants_of(op)[:-1]],
        f'"{variants_of(op)[-1].dtype}"')})


def _queue_section(section: ET.Element, op: Op, role: str, legacy: bool) -> None:
    """One lifecycle section's implementations: C (lean entries on bytes, or the seed's
    adapters per dtype), then Python."""
    x = op.inputs[0]
    if not legacy and role in ("init", "enqueue", "dequeue"):
        section.set("returnStatus", "true")
    if role.startswith("can_"):  # one C function for every dtype
        name = f"{abi.function(op)}_unit_{role}"
        ET.SubElement(section, "Implementation", {
            "language": "C", "fragment": f"{op.name}.h:{name}",
            "call": f"{name}({', '.join(queue_params(op, role))})"})
    elif not legacy:  # one C function for every dtype the op takes, on bytes (with timestamps, or not)
        timing = [("_timed", f"{TIME_INPUT} != null"), ("", f"{TIME_INPUT} == null")] \
            if role in ("enqueue", "dequeue") else [("", None)]
        for suffix, when in timing:
            name = f"{abi.function(op)}_unit_{role}{suffix}"
            impl = ET.SubElement(section, "Implementation", {
                "language": "C", "fragment": f"{op.name}.h:{name}",
                "call": f"{name}({', '.join(entry_params(op, role + suffix))})"})
            ET.SubElement(impl, "Conditional", {"value": " || ".join(
                f"{x.name}.type == {units.VALUE_TYPE[v.dtype]}" for v in variants_of(op))})
            if when is not None:
                ET.SubElement(impl, "Conditional", {"value": when})
    for v in variants_of(op) if legacy and not role.startswith("can_") else ():
        name = f"{abi.function(op)}_unit_{role}_{SUFFIX[v.dtype]}"
        impl = ET.SubElement(section, "Implementation", {
            "language": "C", "fragment": f"{op.name}.h:{name}",
            "call": f"{name}({', '.join(queue_params(op, role))})"})
        impl.set("conditional", f"{x.name}.type == {units.VALUE_TYPE[v.dtype]}")
        tensor_types(impl, op, v)
    timed_py = {"enqueue": [TIME_INPUT, "timestamp_count"], "dequeue": [TIME_OUTPUT]}
    for suffix, when in ([("_timed", f"{TIME_INPUT} != null"), ("", f"{TIME_INPUT} == null")]
                         if not legacy and role in timed_py else [("", None)]):
        py = f"{op.name}_unit_{role}{suffix}"
        py_params = queue_params(op, role) + (timed_py[role] if suffix else []) + \
            (["dtype"] + ([] if legacy else ["timed"]) if role == "init" else [])
        python = ET.SubElement(section, "Implementation", {"language": "Python", "fragment": f"{op.name}.py:{py}",
                                                           "call": f"{py}({', '.join(py_params)})"})
        if when is not None:
            ET.SubElement(python, "Conditional", {"value": when})
        if legacy:
            tensor_types(python, op, None)
