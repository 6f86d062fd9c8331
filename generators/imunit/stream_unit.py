"""Units of stateful streams (ADR 0014): the C entry points, the Python ones and the unit document."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from dsl import compute as C
from dsl.model import Op
from generators import abi
from generators.imunit import units
from generators.imunit.documents import description, head, serialize, tensor_types
from generators.imunit.python_files import dependency, python_file
from generators.kernels import reference
from generators.kernels.scalar_c import C_TYPE, SUFFIX
from generators.kernels.selection import variants_of


QUEUE_ROLES = ("init", "enqueue", "dequeue")


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
    opforge_tensor frame = {{NULL, {enum}, {x}_rank - 1, {{{frame}}}}};
    (void){x}_d0; /* the first block's frame count: not part of the frame */
    return {fn}_init(state, (size_t)state_size, {c.window}, {c.stride}, &frame, NULL) == OPFORGE_OK ? 0 : -2;
}}
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "{fn}_unit_enqueue_{sfx}"
#pragma IMAGINET_FRAGMENT_DEPENDENCY "{fn}"
static inline int {fn}_unit_enqueue_{sfx}(void* state, const {ct}* {x}, {ints(xdims)})
{{
    opforge_tensor t = {{(void*){x}, {enum}, {x}_rank, {{{", ".join(xdims[1:])}}}}};
    return {fn}_enqueue(state, &t, NULL) == OPFORGE_OK ? 0 : -2;
}}
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "{fn}_unit_dequeue_{sfx}"
#pragma IMAGINET_FRAGMENT_DEPENDENCY "{fn}"
static inline int {fn}_unit_dequeue_{sfx}(void* state, {ct}* {out}, {ints(odims)})
{{
    opforge_tensor t = {{(void*){out}, {enum}, {out}_rank, {{{", ".join(odims[1:])}}}}};
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
static inline int {fn}_unit_init(void* state, int state_size, int window, int stride, int frame_bytes)
{{
    if (state == NULL || ((uintptr_t)state % 8u) != 0 || window < 1 || stride < 1 || frame_bytes < 0 ||
        (int64_t)state_size < (int64_t)OPF_WINDOW_HEADER + (int64_t){capacity} * window * frame_bytes) {{
        return -2;
    }}
    opf_window_start((opf_window_state*)state, window, stride, (int64_t){capacity} * window, frame_bytes);
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
"""


def entry_params(op: Op, role: str) -> list[str]:
    """The unit values each lean C entry takes (``queue_entries``), in order."""
    c = op.compute
    x, out = op.inputs[0].name, op.outputs[0].name
    return {"init": ["state", "state_size", c.window, c.stride, "frame_bytes"], "enqueue": ["state", x, f"{x}_d0"],
            "dequeue": ["state", out]}[role]


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


def queue_py(op: Op, header: str) -> str:
    c = op.compute
    x, out = op.inputs[0].name, op.outputs[0].name
    frame = f"tuple(d for d in ({', '.join(f'{x}_d{k}' for k in range(1, abi.MAX_RANK))})[:{x}_rank - 1])"
    lines = [dependency(reference.function(op), "opforge_kernels")]
    for role in QUEUE_ROLES:
        name = f"{op.name}_unit_{role}"
        params = queue_params(op, role)
        if role == "init":
            body = (f"    frame_shape = {frame}\n"
                    f"    _k.window_init(state, {c.window}, {c.stride}, frame_shape, np.dtype(dtype))")
            params = [*params, "dtype"]
        elif role == "enqueue":
            body = f"    _k.window_enqueue(state, {x})"
        else:
            body = f"    _k.window_dequeue(state, {out})"
        lines += [f'#pragma IMAGINET_FRAGMENT_BEGIN "{name}"', '#pragma IMAGINET_FRAGMENT_DEPENDENCY "opforge_kernels"',
                  f"def {name}({', '.join(params)}):", f'    """The unit\'s {role.capitalize()}."""', body,
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
    c = op.compute
    root = ET.Element("Imaginet")
    # The current format's streaming <Unit> (the real SlidingWindow's lifecycle); the seed's <Queue>.
    unit = head(root, op, "Queue" if legacy else "Unit", legacy)
    description(unit, op, f"{op.name}.py:{op.name}")
    x, out = op.inputs[0], op.outputs[0]
    params = ET.SubElement(unit, "Parameters")
    hidden_tag = "Hidden" if legacy else "Expression"
    ET.SubElement(params, "InputSocket", {"name": x.name, "pipe": "data", "description": x.description})
    for o in units.options(op):
        ET.SubElement(params, o.element, {k: v for k, v in (("name", o.name), ("description", o.description),
                                                           ("default", o.default), ("min", o.minimum or "1"))
                                          if v is not None})
    ET.SubElement(params, hidden_tag, {"name": "frame_shape", "value": f"{x.name}.shape.remove({x.name}.shape.count - 1)"})
    size = f"256 + {C.CAPACITY_WINDOWS} * {c.window} * frame_shape.flat * {x.name}.type.size"
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
    for h in units.dims(out.name, "output_shape"):
        ET.SubElement(params, hidden_tag, {"name": h.name, "value": h.value})
    ET.SubElement(params, hidden_tag, {"name": "dtype", "value": units.choose(
        [(f"{x.name}.type == {units.VALUE_TYPE[v.dtype]}", f'"{v.dtype}"') for v in variants_of(op)[:-1]],
        f'"{variants_of(op)[-1].dtype}"')})
    contracts = ET.SubElement(unit, "Contracts")
    for test, error in units.contracts(op):
        ET.SubElement(contracts, "Assert", {"test": test, "error": error})
    sections = [("Init", "init"), ("Enqueue", "enqueue"), ("Dequeue", "dequeue")]
    if not legacy:  # the guards the runtime's poll loop calls, and a reset between sessions
        sections += [("CanEnqueue", "can_enqueue"), ("CanDequeue", "can_dequeue"), ("SoftReset", "init")]
    for tag, role in sections:
        section = ET.SubElement(unit, tag)
        if not legacy and role in ("init", "enqueue", "dequeue"):
            section.set("returnStatus", "true")
        if role.startswith("can_"):  # one C function for every dtype
            name = f"{abi.function(op)}_unit_{role}"
            ET.SubElement(section, "Implementation", {
                "language": "C", "fragment": f"{op.name}.h:{name}",
                "call": f"{name}({', '.join(queue_params(op, role))})"})
        elif not legacy:  # one C function for every dtype the op takes, on bytes
            name = f"{abi.function(op)}_unit_{role}"
            impl = ET.SubElement(section, "Implementation", {
                "language": "C", "fragment": f"{op.name}.h:{name}",
                "call": f"{name}({', '.join(entry_params(op, role))})"})
            ET.SubElement(impl, "Conditional", {"value": " || ".join(
                f"{x.name}.type == {units.VALUE_TYPE[v.dtype]}" for v in variants_of(op))})
        for v in variants_of(op) if legacy and not role.startswith("can_") else ():
            name = f"{abi.function(op)}_unit_{role}_{SUFFIX[v.dtype]}"
            impl = ET.SubElement(section, "Implementation", {
                "language": "C", "fragment": f"{op.name}.h:{name}",
                "call": f"{name}({', '.join(queue_params(op, role))})"})
            impl.set("conditional", f"{x.name}.type == {units.VALUE_TYPE[v.dtype]}")
            tensor_types(impl, op, v)
        py = f"{op.name}_unit_{role}"
        py_params = queue_params(op, role) + (["dtype"] if role == "init" else [])
        python = ET.SubElement(section, "Implementation", {"language": "Python", "fragment": f"{op.name}.py:{py}",
                                                           "call": f"{py}({', '.join(py_params)})"})
        if legacy:
            tensor_types(python, op, None)
    return serialize(root, header)
