"""The C ABI of generated ops: names and parameter lists (ADR 0006).

The ``c`` generator defines these functions and the ``python`` generator
calls them through cffi; both take the names from here, so neither needs to
know the other.
"""

from __future__ import annotations

import re

import attrs

from dsl import fixed_point as F
from dsl.model import Arg, Config, Op
from dsl.types import DataType
from generators.naming import C_RESERVED, mangle

MAX_RANK = 8
#: The plain dtypes, each numbered as ``ALL_DTYPES`` does.
DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "float32", "float64", "uint16", "uint32", "uint64",
          "float16")
#: The fixed-point types (ADR 0036, 0040), numbered after the plain dtypes of their time: a
#: descriptor of one carries its attributes (a Q type's shift, a D type's scale and offset).
FIXED_POINT_DTYPES = tuple(F.TYPES)
#: Every dtype in the order of its enum value. A dtype added later takes the next value, so the
#: values of the others stay (uint64 after the fixed-point types, ADR 0072; float16 after it, ADR 0075).
ALL_DTYPES = (*DTYPES[:-2], *FIXED_POINT_DTYPES, *DTYPES[-2:])
DTYPE_ENUM = {d: f"OPFORGE_{d.upper()}" for d in ALL_DTYPES}
DTYPE_VALUE = {d: k for k, d in enumerate(ALL_DTYPES)}
STATUS = (
    ("OPFORGE_OK", "ok"),
    ("OPFORGE_ERR_NULL", "a required pointer is NULL"),
    ("OPFORGE_ERR_DTYPE", "a tensor has the wrong element type"),
    ("OPFORGE_ERR_RANK", "a tensor has the wrong rank"),
    ("OPFORGE_ERR_SHAPE", "tensor shapes do not fit together"),
    ("OPFORGE_ERR_CONSTRAINT", "a constraint of the op does not hold"),
    ("OPFORGE_ERR_ARG", "an argument is out of range"),
    ("OPFORGE_ERR_EMPTY", "the op is not defined for no elements"),
    ("OPFORGE_ERR_SIZE", "a size is negative or too large"),
    ("OPFORGE_ERR_OVERLAP", "an output overlaps an input, another output or the workspace"),
    ("OPFORGE_ERR_ATTRIBUTE", "a fixed-point tensor's shift, scale or offset is outside its type's range"),
)


def c_name(name: str) -> str:
    return mangle(name, C_RESERVED)


def function(op: Op) -> str:
    return f"opforge_{op.namespace.lower()}_{op.name}"


def omit_numeric(op: Op) -> str:
    """The macro that, defined where the C library compiles, leaves out an elementwise function's
    integer, float and bool kernels (its fixed-point ones stay; the others are refused): a build
    whose caller computes those types itself, as the Python package's ufuncs do (ADR 0080)."""
    return "OPFORGE_OMIT_NUMERIC_" + function(op).removeprefix("opforge_").upper()


def config_struct(config: Config) -> str:
    return f"opforge_{config.namespace.lower()}_{config.name}"


def enum_constant(op: Op, arg: Arg, value_index: int) -> str:
    """The C name of an enum arg's value: the function's name in capitals and the value's
    (``OPFORGE_MATH_ROUND_HALF_TO_EVEN``), with the arg's between when the op has more than one
    enum arg. A value is spelled in capitals, digits and ``_``; one that spells as nothing, or as
    another value of the arg does, is named by its index instead (``..._VALUE_2``)."""
    enums = [a for a in op.args if a.type is DataType.ENUM]
    middle = f"{arg.name.upper()}_" if len(enums) > 1 else ""
    spelled = [re.sub(r"[^A-Z0-9]+", "_", str(v).upper()).strip("_") for v in arg.possible_values]
    value = spelled[value_index]
    if not value or spelled.count(value) > 1:
        value = f"VALUE_{value_index}"
    return f"{function(op).upper()}_{middle}{value}"


def scalar_ctype(type_: DataType) -> str:
    return {
        DataType.INT: "int64_t", DataType.LONG: "int64_t", DataType.FLOATING_POINT: "double",
        DataType.NUMERIC: "double", DataType.BOOLEAN: "bool", DataType.ENUM: "int32_t",
        DataType.DATA_TYPE: "opforge_dtype", DataType.STRING: "const char*",
    }[type_]


def scalar_dtype(type_: DataType) -> str:
    """The dtype a scalar arg has inside compute expressions."""
    return {DataType.INT: "int64", DataType.LONG: "int64", DataType.FLOATING_POINT: "float64",
            DataType.NUMERIC: "float64", DataType.BOOLEAN: "bool", DataType.ENUM: "int32"}.get(type_, "int64")


@attrs.frozen
class CParam:
    """One C parameter: ``role`` is input, input_list, input_count, arg, array, count, optional,
    config, output, output_list, output_count or detail."""

    ctype: str
    name: str
    role: str
    source: str  # the DSL name it comes from


def parameters(op: Op) -> list[CParam]:
    """The API function's parameters, in order: inputs, args, configs, outputs, detail."""
    params: list[CParam] = []
    for i in op.inputs:
        if not i.count.is_single:  # a tensor list: descriptors and their count
            params.append(CParam("const opforge_tensor* const*", c_name(i.name), "input_list", i.name))
            params.append(CParam("int32_t", f"{c_name(i.name)}_count", "input_count", i.name))
            continue
        params.append(CParam("const opforge_tensor*", c_name(i.name), "input", i.name))
    described = set(getattr(op.compute, "output_args", ()))  # (the output descriptor's dtype and attributes)
    for a in op.args:
        if a.name not in described:
            params.extend(arg_parameters(a))
    for c in op.configs:
        params.append(CParam(f"const {config_struct(c)}*", c_name(c.name), "config", c.name))
    for o in op.outputs:
        if not o.count.is_single:  # a tensor list the caller provides, as many as the inputs give
            params.append(CParam("opforge_tensor* const*", c_name(o.name), "output_list", o.name))
            params.append(CParam("int32_t", f"{c_name(o.name)}_count", "output_count", o.name))
            continue
        params.append(CParam("opforge_tensor*", c_name(o.name), "output", o.name))
    if has_workspace(op):
        params.append(CParam("void*", "workspace", "workspace", "workspace"))
        params.append(CParam("size_t", "workspace_bytes", "workspace_bytes", "workspace"))
    params.append(CParam("const char**", "detail", "detail", "detail"))
    return params


def has_workspace(op: Op) -> bool:
    """Whether the op's kernel needs scratch memory, which the caller provides (ADR 0017)."""
    return getattr(op.compute, "workspace", None) is not None


def workspace_prototype(op: Op) -> str:
    """``<fn>_workspace``: the bytes of workspace the op needs for these inputs."""
    inputs = ", ".join(f"const opforge_tensor* {c_name(i.name)}" for i in op.inputs)
    return f"opforge_status {function(op)}_workspace({inputs}, size_t* bytes, const char** detail)"


def arg_parameters(a: Arg) -> list[CParam]:
    ctype = scalar_ctype(a.type)
    name = c_name(a.name)
    if not a.count.is_single:
        return [CParam(f"const {ctype}*", name, "array", a.name),
                CParam("int32_t", f"{name}_count", "count", a.name)]
    if a.default is None:
        return [CParam(f"const {ctype}*", name, "optional", a.name)]
    return [CParam(ctype, name, "arg", a.name)]


def prototype(op: Op) -> str:
    params = ", ".join(f"{p.ctype} {p.name}" for p in parameters(op))
    return f"opforge_status {function(op)}({params})"


def is_stream(op: Op) -> bool:
    from dsl.compute import SlidingWindow

    return isinstance(op.compute, SlidingWindow)


def stream_prototypes(op: Op) -> dict[str, str]:
    """The functions of a stateful stream op (ADR 0014), by role."""
    fn = function(op)
    window, stride = c_name(op.compute.window), c_name(op.compute.stride)  # type: ignore[union-attr]
    return {
        "state_size": f"opforge_status {fn}_state_size(int64_t {window}, int64_t {stride}, "
                      f"const opforge_tensor* frame, size_t* bytes, const char** detail)",
        "init": f"opforge_status {fn}_init(void* state, size_t state_size, int64_t {window}, int64_t {stride}, "
                f"const opforge_tensor* frame, const char** detail)",
        "enqueue": f"opforge_status {fn}_enqueue(void* state, const opforge_tensor* x, const char** detail)",
        "ready": f"opforge_status {fn}_ready(const void* state, bool* ready, const char** detail)",
        "dequeue": f"opforge_status {fn}_dequeue(void* state, opforge_tensor* output, const char** detail)",
    }


def table_prototypes(op: Op) -> dict[str, str]:
    """A table op's prepared-table functions (ADR 0043): ``table`` fills an ``opforge_table``
    for x's dtype and attributes, the output's and the op's args (its parameters the op's, the
    output const, the table before ``detail``); ``lookup`` reads it."""
    fn = function(op)
    params = [f"{'const opforge_tensor*' if p.role == 'output' else p.ctype} {p.name}" for p in parameters(op)
              if p.role != "detail"]  # (the output's dtype and attributes are read, never its data)
    x, out = c_name(op.inputs[0].name), c_name(op.outputs[0].name)
    return {"table": f"opforge_status {fn}_table({', '.join(params)}, opforge_table* table, const char** detail)",
            "lookup": f"opforge_status {fn}_lookup(const opforge_tensor* {x}, const opforge_table* table, "
                      f"opforge_tensor* {out}, const char** detail)"}


def prototypes(op: Op) -> list[str]:
    """Every API function of an op."""
    if is_stream(op):
        return list(stream_prototypes(op).values())
    return [workspace_prototype(op), prototype(op)] if has_workspace(op) else [prototype(op)]
