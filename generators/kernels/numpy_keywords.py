"""NumPy's calling conventions in the Python API: keywords for the axis args of reductions
(issue 21, ADR 0052), which ops promote their inputs' dtypes as NumPy does (ADR 0053), and which
ops draw random numbers as NumPy's generators do (ADR 0054).

A reduction's form names the args it reads as its axes and its keep-dims flag; the C API, units
and NNEF take them as the catalogue declares them (``axes``, empty for every axis, and
``keep_dims``). A NumPy user writes ``axis=`` (an int, a tuple, or None for every axis; ``()``
for none) and ``keepdims=``, and an arg reduction's ``axis=None`` (its default) searches the
flattened array. This module says, once for the package's functions, the generated tests and the
docs' examples, which parameter stands for which arg, how it is typed and described, and how a
catalogue value reads as a keyword; the runtime's ``numpy_reduction`` and ``numpy_search`` turn a
call's keywords back into the form's args (and reshape the inputs where NumPy's meaning needs it).
"""

from __future__ import annotations

from typing import Any, Sequence

import attrs
import numpy as np

from dsl import compute as C
from dsl import dtypes as D
from dsl.model import Config, Namespace, Op
from dsl.validate import numpy_function
from generators.kernels.py_names import py_name
from generators.kernels.selection import variants_of


@attrs.frozen
class Keyword:
    """A public parameter standing for one of the form's args."""

    arg: str
    name: str
    hint: str
    default: str
    kind: str
    description: str
    #: Only by keyword (NumPy's keepdims comes after out=, the Array API's after a ``*``).
    keyword_only: bool = False
    #: Values a binding must refuse, and how (the generated tests' spoiled calls).
    bad: tuple[tuple[Any, str], ...] = ()

    @property
    def required(self) -> bool:
        """No default: the parameter must be given (a Python default "" is none)."""
        return self.default == ""


_KEEPDIMS_BAD = (("yes", "TypeError"), (1, "TypeError"))


def keywords(op: Op) -> dict[str, Keyword]:
    """The op's NumPy keywords by the arg each stands for: a reduction's axis and keepdims, an arg
    reduction's, squeeze's and expand_dims' axis, reshape's shape, tile's reps, a stream's seed; none
    for others."""
    c = op.compute
    if isinstance(c, C.Reduction):
        return {c.axes: Keyword(c.axes, "axis", "int | Sequence[int] | None", "None",
                                "None or int or tuple of ints",
                                "Axis or axes along which to reduce: None (the default) reduces every axis, () none; "
                                "negative axes count from the last one",
                                bad=(("a", "TypeError"), (1.5, "TypeError"), ([2**70], "ValueError"),
                                     ([0, 0], "ValueError"), (99, "ValueError"), ([], "agree"))),
                c.keep_dims: Keyword(c.keep_dims, "keepdims", "bool", "False", "bool",
                                     "If True, the reduced axes are left in the result with size one",
                                     keyword_only=True, bad=_KEEPDIMS_BAD)}
    if isinstance(c, C.LayoutMove) and c.layout in _LAYOUT_KEYWORDS:
        return {c.arg(role): keyword for role, keyword in _LAYOUT_KEYWORDS[c.layout].items()}
    if stream_args(op):  # (a stream of its own args: seed None, fresh entropy, as default_rng(None))
        seed = next(a for a in op.args if a.name == "seed")
        return {"seed": Keyword("seed", "seed", "int | None", "None", "int or None",
                                f"{seed.description}; None (the default): fresh entropy from the operating system",
                                bad=(("3", "TypeError"), (1.5, "TypeError"), (True, "TypeError"),
                                     (2**70, "ValueError"), (99, "agree"), (-99, "agree")))}
    if isinstance(c, C.ArgReduction):
        return {c.axis: Keyword(c.axis, "axis", "int | None", "None", "int",
                                "By default (None) the index is into the flattened array, else along the given axis; "
                                "a negative axis counts from the last one",
                                bad=(("a", "TypeError"), (1.5, "TypeError"), (True, "TypeError"),
                                     (2**70, "ValueError"), (99, "ValueError"))),
                c.keep_dims: Keyword(c.keep_dims, "keepdims", "bool", "False", "bool",
                                     "If True, the searched axis is left in the result with size one",
                                     keyword_only=True, bad=_KEEPDIMS_BAD)}
    return {}


#: NumPy's keywords of the layouts whose NumPy functions take more than one axis (ADR 0052); the
#: runtime's numpy_squeeze, numpy_expand_dims, numpy_shape and numpy_tile read them.
_LAYOUT_KEYWORDS = {
    "squeeze": {"axis": Keyword("axis", "axis", "int | Sequence[int] | None", "None", "None or int or tuple of ints",
                                "The axes of size one to remove: None (the default) every one; negative axes count "
                                "from the last", bad=(("a", "TypeError"), (1.5, "TypeError"), (99, "ValueError")))},
    "expand_dims": {"axis": Keyword("axis", "axis", "int | Sequence[int]", "", "int or tuple of ints",
                                    "Where the new axes of size one stand in the result; negative axes count from "
                                    "its last", bad=(("a", "TypeError"), (1.5, "TypeError"), (99, "ValueError")))},
    "reshape": {"shape": Keyword("shape", "shape", "int | Sequence[int]", "", "int or sequence of ints",
                                 "The new shape; one size may be -1, inferred from the rest",
                                 bad=(("a", "TypeError"), (1.5, "TypeError"), ([7, 7], "ValueError")))},
    "tile": {"repeats": Keyword("repeats", "reps", "int | Sequence[int]", "", "int or sequence of ints",
                                "Copies along each axis: fewer than x has axes repeat the last ones, more give x "
                                "leading axes of size one (NumPy's tile)",
                                bad=(("a", "TypeError"), (1.5, "TypeError"), ([-1], "ValueError")))},
}


def call_value(op: Op, arg: str, value: Any) -> Any:
    """A catalogue value of ``arg`` as its keyword takes it: a reduction's axes as one int or a
    tuple, the empty one (every axis) as None; anything else as it is."""
    c = op.compute
    if isinstance(c, C.Reduction) and arg == c.axes:
        axes = tuple(value)
        return None if not axes else axes[0] if len(axes) == 1 else axes
    return value


def call_kwargs(op: Op, given: dict[str, Any]) -> dict[str, Any]:
    """Keyword arguments for the package's function from ``given``, keyed by the args' Python names:
    each arg standing for a keyword under the keyword's name, as it takes the value; the rest as they are."""
    named = {py_name(arg): k for arg, k in keywords(op).items()}
    return {(named[k].name if k in named else k): (call_value(op, named[k].arg, v) if k in named else v)
            for k, v in given.items()}


def promotes(op: Op) -> bool:
    """Whether a call's dtypes choose the op's variant as NumPy's promotion does (ADR 0053): the op
    takes single tensors only, and they choose its variant (no ``dtype`` arg does); its inputs of
    the primary type (``dtypes.shared_type_inputs``) meet in one dtype."""
    return bool(op.inputs) and all(i.count.is_single for i in op.inputs) and not C.dtype_from_arg(op.compute)


def api_variants(op: Op) -> list[D.Variant]:
    """The variants the Python API runs: every variant, but none of an integer computed through
    floats where the op has a NumPy function's meaning (NumPy computes integers there in floats:
    mean's float64, sin's float16 loop), ADR 0058; the units and the C API keep them."""
    through = D.through_float(op) if op.numpy else ()
    return [v for v in variants_of(op) if v.dtype not in through]


def ufunc(op: Op) -> str | None:
    """The NumPy ufunc the op declares (``op.numpy``), taking its inputs in order: its loops, as
    ``ufunc.resolve_dtypes`` finds them, choose the op's variant in the Python API (ADR 0053)."""
    found = numpy_function(op.numpy) if op.numpy else None
    return op.numpy if isinstance(found, np.ufunc) and found.nin == len(op.inputs) else None


#: The args of a random stream, the random namespace's (ADR 0054): element i of a draw takes the
#: Philox4x32-10 counter ``offset + i`` under the key ``seed`` (what the random ops' form requires).
STREAM = ("seed", "offset")


def random_stream(op: Op) -> Config | None:
    """The config holding a random op's stream (its ``seed`` and ``offset``, ADR 0054): left out of a
    call, the stream takes a fresh seed (NumPy's ``default_rng()``); a ``Generator`` gives it the
    next elements of its own."""
    if not isinstance(op.compute, C.RandomSample):
        return None
    return next((cfg for cfg in op.configs if {a.name for a in cfg.args} >= set(STREAM)), None)


def stream_args(op: Op) -> bool:
    """Whether the op draws from a random stream given as args of its own (``seed`` and ``offset``,
    as dropout's), not by a config: its seed, left out, is fresh entropy too."""
    return random_stream(op) is None and {a.name for a in op.args} >= set(STREAM)


def generator_ops(namespaces: Sequence[Namespace]) -> list[tuple[Namespace, Op]]:
    """The ops a ``Generator`` draws, with their namespaces: every random op of a stream config,
    and every op of stream args (ADR 0054)."""
    return [(ns, op) for ns in namespaces for op in ns.ops
            if not op.abstract and (random_stream(op) is not None or stream_args(op))]


def takes_vectors(op: Op) -> bool:
    """Whether the op takes 1-D operands as NumPy's matmul does (a row on the left, a column on
    the right, their added axes gone from the result): an op declaring numpy.matmul, whose form
    takes matrices (ADR 0052)."""
    return op.numpy == "matmul" and len(op.inputs) == 2
