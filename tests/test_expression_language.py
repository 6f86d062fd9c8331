"""Imaginet's expression language: every example of the two reference documents,
parse errors with columns, and DSL constraints rendered into it deciding
exactly as the Python bindings do."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT
from dsl import loader
from dsl.types import DataType
from generators.imunit.expression import (VALUE_TYPES, ExpressionError, Shape, ShapeBroadcast, Tensor, evaluate,
                                          interpolate, parse)
from generators.imunit.render import ImaginetRenderer
from generators.kernels.py_constraints import PyConstraintRenderer

F32 = VALUE_TYPES["Float32"]
ENV = {
    "input": Tensor(F32, Shape((3, 4, 5))),
    "i0": Tensor(F32, Shape((2, 3))), "i1": Tensor(F32, Shape((2, 4))), "i2": None, "i3": None,
    "a": Tensor(VALUE_TYPES["Int8"], Shape((2, 3))), "b": Tensor(F32, Shape((1, 3))),
    "axis": 1, "threshold": 0.5, "divisor": 2, "index": 1, "stride": 6, "input_size": 3, "mode": 0,
    "window_shape": Shape((4, 3)), "cutoff_freq": 10.0, "time_input": None,
    "sampling_rate": 50, "contextual_length_sec": 2.0, "prediction_freq": 10.0, "contextual_size": 100,
    "context_stride": 5, "size0": 3, "size1": 4, "step": 2, "global_tf_api": "tfl", "class_names": "cat,dog",
    "min_value": -3.7, "q": Tensor(VALUE_TYPES["Q15"], Shape((4,)), rate_=1000.0, shift_=1, scale_=0.5, offset_=2),
}

# (expression, expected value) from the custom-unit reference and the authoring guide.
EXAMPLES = [
    ("4*5+6*7", 62),
    ("Math.sin(Math.PI / 2.0)", 1.0),
    ("input.shape() == input.shape", True),
    ("input.shape.flat", 60),
    ("input.shape.count >= 2", True),
    ("axis < input.shape.count", True),
    ("input.shape.size(axis)", 4),
    ("input.shape.step(axis)", 5),
    ("input.shape.slot(axis)", 3),
    ("input.shape.remove(axis)", Shape((3, 5))),
    ("input.shape.size(0) == 3", False),
    ("input.type == System.Float32 || input.type == System.Int8", True),
    ("input.type == System.Float32 || input.type == System.Int8 || input.type == System.UInt8", True),
    ("input.shape.flat * input.type.size", 240),
    ("threshold >= 0 && threshold <= 1", True),
    ("threshold <= 1", True),
    ("divisor != 0", True),
    ("index >= 0 && index < 3", True),
    ("stride % input_size == 0", True),
    ("stride <= window_shape.flat", True),
    ("window_shape.flat % input_size == 0", True),
    ("stride / input_size", 2),
    ("cutoff_freq >= 0", True),
    ("time_input != null", False),
    ("i2 == null && i3 == null", True),
    ("i1 == null ? 0 : i1.shape.size(axis)", 2),
    ("i0.shape.size(axis)", 2),
    ("i0.shape.replace(axis, size0 + size1)", Shape((7, 3))),
    ("i0.shape.remove(axis) == i1.shape.remove(axis)", False),
    ("size0 * step * i0.type.size", 24),
    ("a.type == System.Float32", False),
    ("input.type == System.Float32 && mode == 0", True),
    ("mode == 0", True),
    ("global_tf_api == 'tfl'", True),
    ("'x,y,w,h,' + class_names + ',track_id,confidence'", "x,y,w,h,cat,dog,track_id,confidence"),
    ("Math.round(contextual_length_sec * sampling_rate)", 100),
    ("Math.round(sampling_rate/prediction_freq)", 5),
    ("System.Shape(contextual_size, input.shape.flat)", Shape((100, 60))),
    ("System.Shape(2)", Shape((2,))),
    ("contextual_size >= 1", True),
    ("context_stride <= contextual_size", True),
    ("prediction_freq <= sampling_rate", True),
    ("input.shape.flat * context_stride", 300),
    # shape.broadcast(other): other, the smaller operand, broadcast into shape (guide 12.5.2, Add.imunit)
    ("b.shape.broadcast(a.shape)", None),  # (2,3) does not broadcast into (1,3): checked below
    ("System.Shape(2,3,4,5,6).broadcast(System.Shape(2,1,4,1,6))", ShapeBroadcast(2, 3, 4, 5, 6)),
    ("System.Shape(2,3,4,5).broadcast(System.Shape(2,1,1,5))", ShapeBroadcast(1, 1, 2, 12, 5)),
    ("System.Shape(2,3,4).broadcast(System.Shape(2,3,1))", ShapeBroadcast(1, 1, 6, 4, 1)),
    ("System.Shape(4,3,5).broadcast(System.Shape(1,3,5))", ShapeBroadcast(1, 1, 1, 4, 15)),  # the guide's example
    ("System.Shape(4,3,5).broadcast(System.Shape(1))", ShapeBroadcast(1, 1, 1, 60, 1)),  # b a scalar
    ("a.shape.broadcast(b.shape).right", 3),
    ("Math.max(2, 3) + Math.min(2.5, 1.5) + Math.abs(-2)", 6.5),
    ("Math.floor(2.7) + Math.ceil(2.1) + Math.round(2.5) + Math.sign(-3.0)", 6),
    ("Math.pow(2, 10) + Math.int(3.9) + Math.real(2)", 1029.0),
    ("Math.log(8.0, 2.0)", 3.0),
    ("Math.hann(System.Float32, 5).shape", Shape((5,))),
    ("System.Float64.size + System.Int16.size", 10),
    ("7 / 2 + -7 / 2 + 7 % -3 + -7 % 3", 0),
    ("1 << 4 >> 2", 4),
    ("~5 & 7 | 8 ^ 1", 11),
    ("!true | false", False),
    ("true ? 1 : 2", 1),
    # C#'s precedence and associativity (the guide's table puts & ^ | && || on one level)
    ("true || false && false", True),
    ("1 | 2 & 0", 1),
    ("6 ^ 3 & 1", 7),
    ("1 == 1 & 2 == 2", True),
    ("false ? 1 : true ? 2 : 3", 2),
    ("10 - 2 - 3", 5),
    ("-2.pow(2)", -4),
    # number methods, bare calls, the whole Math library (guide 10.9)
    ("min_value.max(-128).round", -4),
    ("2.pow(3)", 8),
    ("threshold.sqrt.log2.ceil", 0),
    ("ceil(real(7) / 2)", 4),
    ("log2(8.0) + Math.log10(100.0) + inv(4.0) + trunc(-2.5) + factorial(3)", 9.25),
    ("Math.ceilstep(7, 4) + sign(-2) + abs(-3)", 10),
    ("(2.pow(2).log / 2.0.log).quantize(System.Q15, 3)", 8192),
    # types, parseType and tensor attributes (guide 10.3, 10.5, 11)
    ("System.Q7.size + System.Q15.size + System.Q31.size + System.D8.size + System.UInt64.size", 16),
    ("System.parseType('q15') == System.Q15 && System.parseType('f32') == System.Float32", True),
    ("q.shift + q.rate + q.scale + q.offset", 1003.5),
    ("q.isTimeCoded", False),
    ("0.5.quantize(q.type, q.shift)", 8192),
    ("300.0.quantize(System.Int8, 0)", 127),
    ("0.25.quantize(System.Float32, 0)", 0.25),
    # negative axes count from the left (guide 10.7); labels
    ("input.shape.size(-1) + input.shape.size(-3)", 8),
    ("input.shape.slot(-1)", 1),
    ("input.shape.withLabels(1, 'x,y', 1).getLabels(1)", ",x,y,"),
    ("input.shape.withLabels(0, 'a,b,c,d,e').getLabels(0, 1, 2)", "b,c"),
    # strings
    ("'Hello'.toLower().length + 'abc'.indexOf('c')", 7),
    ("'a-b'.replace('-', '+') + 'xyz'.remove(1)", "a+bx"),
]


@pytest.mark.parametrize(("text", "expected"), EXAMPLES, ids=[t for t, _ in EXAMPLES])
def test_reference_examples(text: str, expected: object) -> None:
    if expected is None:
        with pytest.raises(ExpressionError):
            evaluate(text, ENV)
        return
    got = evaluate(text, ENV)
    if isinstance(expected, float):
        assert math.isclose(got, expected)
    else:
        assert got == expected and type(got) is type(expected)


def test_assert_messages_interpolate() -> None:
    env = dict(ENV, sampling_rate=50)
    message = ("Contextual length {contextual_length_sec} seconds is too low. Min is {1.0/sampling_rate} "
               "seconds when sample frequency is {sampling_rate} Hz.")
    assert interpolate(message, env) == ("Contextual length 2.0 seconds is too low. Min is 0.02 seconds when "
                                         "sample frequency is 50 Hz.")


@pytest.mark.parametrize(("text", "message"), [
    ("1 + (2 * 3", "column 11: expected ')', found the end"),
    ("input.shape.", "column 13: expected name, found the end"),
    ("a ? b", "column 6: expected ':', found the end"),
    ("3 $ 4", "column 3: unexpected character '$'"),
    ("(1, 2)", "column 3: expected ')', found ','"),
    ("1 2", "column 3: unexpected '2'"),
])
def test_parse_errors_name_the_column(text: str, message: str) -> None:
    with pytest.raises(ExpressionError) as caught:
        parse(text)
    assert str(caught.value) == message


DTYPE_TYPES = {"float32": "Float32", "float64": "Float64", "int8": "Int8", "int16": "Int16", "int32": "Int32",
               "int64": "Int64", "uint8": "UInt8", "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64",
               "bool": "Bool"}


def _constraints():
    catalogue = loader.load(ROOT / "ops").catalogue
    for ns in catalogue.namespaces:
        for op in ns.ops:
            for cfg, c in op.all_constraints():
                if cfg is None:
                    yield pytest.param(op, c, id=f"{op.qualified_name}: {c.message}")


@st.composite
def _values(draw, op):
    env_py, env_im = {}, {}
    for i in op.inputs:
        rank = draw(st.integers(0, 3))
        shape = tuple(draw(st.lists(st.integers(1, 3), min_size=rank, max_size=rank)))
        dtype = draw(st.sampled_from(["float32", "float64", "int32", "int8"]))
        env_py[i.name] = np.empty(shape, dtype=dtype)
        env_im[i.name] = Tensor(VALUE_TYPES[DTYPE_TYPES[dtype]], Shape(shape))
    for a in op.args:
        if not a.count.is_single:
            value = draw(st.lists(st.integers(-3, 3), max_size=3))
        elif a.type is DataType.ENUM:
            value = draw(st.sampled_from(a.possible_values))
        elif a.type in (DataType.INT, DataType.LONG):
            value = draw(st.integers(-4, 4))
        elif a.type is DataType.BOOLEAN:
            value = draw(st.booleans())
        elif a.type is DataType.DATA_TYPE:
            value = "float32"
        else:
            value = draw(st.one_of(st.floats(-3, 3, allow_nan=False), st.sampled_from([0.0, 1.0])))
        if a.default is None and draw(st.booleans()):
            value = None
        env_py[a.name] = env_im[a.name] = value
    return env_py, env_im


def _python_decides(op, c, env) -> bool:
    def size_at(x, axis):
        return x.shape[axis] if -x.ndim <= axis < x.ndim else -1

    def broadcastable(*arrays):
        try:
            np.broadcast_shapes(*(a.shape for a in arrays))
        except ValueError:
            return False
        return True

    code = PyConstraintRenderer(op).render(c.expr)
    return bool(eval(code, {"_size_at": size_at, "_broadcastable": broadcastable}, dict(env)))  # our own code


@pytest.mark.parametrize(("op", "constraint"), list(_constraints()))
def test_rendered_constraints_decide_like_the_bindings(op, constraint) -> None:
    text = ImaginetRenderer(op).render(constraint.expr)
    parse(text)

    @settings(max_examples=60, deadline=None)
    @given(_values(op))
    def check(envs):
        env_py, env_im = envs
        assert evaluate(text, env_im) == _python_decides(op, constraint, env_py), text

    check()
