"""The Python API's signatures, as the generated package's stubs declare them: the binding,
its stub and the docs site's op pages all render them from here (ADR 0052 for NumPy's keywords)."""

from __future__ import annotations

from dsl import compute as C
from dsl import defaults
from dsl.model import Arg, Op
from dsl import fixed_point as F
from dsl.types import FIXED_POINT_TYPES, DataType
from generators import abi
from generators.kernels import fixed_point, numpy_keywords
from generators.kernels.py_names import class_name, config_param, function_name, py_name

PY_TYPE = {DataType.INT: "int", DataType.LONG: "int", DataType.FLOATING_POINT: "float", DataType.NUMERIC: "float",
           DataType.BOOLEAN: "bool", DataType.ENUM: "str", DataType.DATA_TYPE: "DTypeLike", DataType.STRING: "str"}


def default_text(arg: Arg) -> str:
    d = arg.default
    if isinstance(d, tuple):
        return repr(tuple(d)) if d else "()"
    if d is None or isinstance(d, (bool, int, float, str)):
        return repr(d)
    return "None"  # defaults computed from other parameters are filled in the body


def signature(op: Op, annotated: bool = True, without: frozenset[str] = frozenset()) -> str:
    """The function's parameters, less the args and configs named in ``without``."""
    parts = []
    converts = isinstance(op.compute, C.FixedPointConversion)  # (ADR 0068: no out=; FixedPointArrays)
    for i in op.inputs:
        hint = ": ArrayLike" if i.count.is_single else ": Sequence[ArrayLike]"
        hint = ": _fp.FixedPointArray" if i.type in FIXED_POINT_TYPES else hint
        parts.append(f"{py_name(i.name)}" + (hint if annotated else "")
                     + (" = None" if i.has_default else ""))
    named = numpy_keywords.keywords(op)
    only = set()  # (what must come after a "*")
    for a in op.args:
        if a.name in without:
            continue
        if a.name in named:  # (NumPy's keyword for the arg: ADR 0052)
            k = named[a.name]
            parts.append(f"{k.name}" + (f": {k.hint}" if annotated else "") + ("" if k.required else f" = {k.default}"))
            if k.keyword_only:
                only.add(parts[-1])
            continue
        parts.append(f"{py_name(a.name)}{arg_hint(a) if annotated else ''}"
                     + (f" = {default_text(a)}" if a.has_default else ""))
    for c in op.configs:
        if c.name not in without:
            parts.append(f"{config_param(c.name)}" + (f": {c.name} | None" if annotated else "") + " = None")
    # Python wants defaults last: a required parameter after a defaulted one
    # becomes keyword-only, so every DSL signature stays one valid call.
    keyword_only = False
    ordered = []
    for part in parts:
        if not keyword_only and (part in only or "=" not in part and any("=" in p for p in ordered)):
            ordered.append("*")
            keyword_only = True
        ordered.append(part)
    parts = ordered
    if not keyword_only:
        parts.append("*")
    several = len(op.outputs) > 1
    hint = (": list[np.ndarray | None] | None" if listed(op) else
            ": tuple[np.ndarray | None, ...] | None" if several else ": np.ndarray | None")
    if not converts:
        parts.append("out" + (hint if annotated else "") + " = None")
    parts.append("backend" + (': Literal["c", "python"]' if annotated else "") + ' = "c"')
    return ", ".join(parts)


def listed(op: Op) -> bool:
    """Whether the op gives a list output (as many arrays as its inputs say)."""
    return C.list_output(op.compute) is not None


def arg_hint(a: Arg) -> str:
    base = PY_TYPE.get(a.type, "object")
    if a.type is DataType.DATA_TYPE and a.default in F.TYPES:  # (a fixed-point type's name: ADR 0068)
        base = "str"
    if not a.count.is_single:
        base = f"Sequence[{base}]"
    if a.default is None or defaults.is_computed(a):
        base += " | None"
    return f": {base}"


def returns(op: Op) -> str:
    """The return annotation: an array, or the op's result tuple."""
    if listed(op):
        return "list[np.ndarray] | list[_fp.FixedPointArray]" if fixed_point.api_moves(op) else "list[np.ndarray]"
    if isinstance(op.compute, C.FixedPointConversion):  # (ADR 0068)
        return "_fp.FixedPointArray" if op.outputs[0].type in FIXED_POINT_TYPES else "np.ndarray"
    if fixed_point.api_takes(op):  # (FixedPointArrays in, one out: ADR 0040)
        return "np.ndarray | _fp.FixedPointArray"
    return f"{class_name(op)}Result" if len(op.outputs) > 1 else "np.ndarray"


def replaces_tuple_method(field: str) -> str:
    """A result field named as a tuple method (count, index) replaces it, which mypy asks to be told."""
    return "  # type: ignore[assignment]" if field in ("count", "index") else ""


def stream_parameters(op: Op) -> str:
    """A stream's constructor's parameters (and its creating function's): the window, the
    stride, the frames' shape and dtype, a fixed-point frame's attributes (ADR 0040)."""
    c = op.compute
    fixed = bool(fixed_point.moves(op))
    attributes = "shift: int | None = None, scale: float | None = None, offset: int | None = None, " if fixed else ""
    return (f"{c.window}: int, {c.stride}: int, frame_shape: Sequence[int] = (), "  # type: ignore[union-attr]
            f'dtype: str = "float32", *, {attributes}backend: Literal["c", "python"] = "c"')


def stub(op: Op) -> str:
    if abi.is_stream(op):
        cls = class_name(op)
        fixed = bool(fixed_point.moves(op))  # (frames of a fixed-point type: ADR 0040)
        window = "np.ndarray | _fp.FixedPointArray" if fixed else "np.ndarray"
        params = stream_parameters(op)
        return (f"class {cls}:\n    frame_shape: tuple[int, ...]\n    dtype: str\n    window: int\n"
                f"    def __init__(self, {params}) -> None: ...\n"
                f"    def enqueue(self, x: ArrayLike) -> None: ...\n    def ready(self) -> bool: ...\n"
                f"    def dequeue(self, *, out: np.ndarray | None = ...) -> {window}: ...\n\n"
                f"def {function_name(op.name)}({params}) -> {cls}: ...\n")
    if len(op.outputs) > 1:
        fields = "".join(f"    {py_name(o.name)}: np.ndarray" + replaces_tuple_method(py_name(o.name)) + "\n"
                         for o in op.outputs)
        return (f"class {class_name(op)}Result(NamedTuple):\n{fields}\n"
                f"def {function_name(op.name)}({signature(op)}) -> {returns(op)}: ...\n")
    return f"def {function_name(op.name)}({signature(op)}) -> {returns(op)}: ...\n"
