"""A corpus of malformed definitions: each gives its exact one-line error,
with the file and the line of the offending builder call (marked ``# <``),
and the CLI exits 2 without a traceback."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from conftest import write_ops
from dsl import loader

GOOD_OP = '''
            with Op("ok") as op:
                Input(NUMERIC, "x", description="x")
                Output(NUMERIC, "out", description="out")
                Doc(Language.ANY, DocScope.ALL, "A valid op.")
'''

# name -> (ops file text, expected message after "file:line: ")
CASES: dict[str, tuple[str, str]] = {
    "duplicate op": ('''
        with Namespace("math"):
            with Op("f") as op:
                Output(NUMERIC, "out", description="out")
                Doc(Language.ANY, DocScope.ALL, "f")
            with Op("f") as op:  # <
                Output(NUMERIC, "out", description="out")
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: duplicate op 'f' (first defined at ops/defs.py:2)"),
    "duplicate config": ('''
        with Namespace("math"):
            with Config("Cfg") as c1:
                Arg(INT, "a", description="a")
            with Config("Cfg") as c2:  # <
                Arg(INT, "a", description="a")
            with Op("f") as op:
                use_config(c1)
                use_config(c2)
                Output(NUMERIC, "out", description="out")
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.Cfg: duplicate config 'Cfg' (first defined at ops/defs.py:2)"),
    "duplicate parameter": ('''
        with Namespace("math"):
            with Op("f") as op:
                Input(NUMERIC, "x", description="x")
                Input(NUMERIC, "x", description="again")  # <
                Output(NUMERIC, "out", description="out")
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: duplicate parameter 'x' (first defined at ops/defs.py:3)"),
    "same name for an input and an arg": ('''
        with Namespace("math"):
            with Op("f") as op:
                Input(NUMERIC, "x", description="x")
                Arg(INT, "x", description="x")  # <
                Output(NUMERIC, "out", description="out")
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: duplicate parameter 'x' (input at ops/defs.py:3)"),
    "signature misses a required parameter": ('''
        with Namespace("math"):
            with Op("f") as op:
                x = Input(NUMERIC, "x", description="x")
                y = Input(NUMERIC, "y", description="y")
                Output(NUMERIC, "out", description="out")
                Signature(x)  # <
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: signature (x) misses required parameter 'y'"),
    "signature repeats a parameter": ('''
        with Namespace("math"):
            with Op("f") as op:
                x = Input(NUMERIC, "x", description="x")
                Output(NUMERIC, "out", description="out")
                Signature(x, x)  # <
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: signature (x, x) lists 'x' twice"),
    "signature names another op's parameter": ('''
        with Namespace("math"):
            with Op("g") as op:
                z = Input(NUMERIC, "z", description="z")
                Output(NUMERIC, "out", description="out")
                Doc(Language.ANY, DocScope.ALL, "g")
            with Op("f") as op:
                x = Input(NUMERIC, "x", description="x")
                Output(NUMERIC, "out", description="out")
                Signature(x, z)  # <
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: signature references input 'z' of math.g"),
    "signature names a config the op does not use": ('''
        with Namespace("math"):
            with Config("Cfg") as cfg:
                Arg(INT, "a", description="a")
            with Mixin("m") as m:
                ref = use_config(cfg)
            with Op("g", m) as op:
                Output(NUMERIC, "out", description="out")
                Doc(Language.ANY, DocScope.ALL, "g")
            with Op("f") as op:
                x = Input(NUMERIC, "x", description="x")
                Output(NUMERIC, "out", description="out")
                Signature(x, ref)  # <
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: signature names config 'Cfg', which math.f does not use"),
    "default of the wrong type": ('''
        with Namespace("math"):
            with Op("f") as op:
                Arg(INT, "n", default=1.5, description="n")  # <
                Output(NUMERIC, "out", description="out")
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: default 1.5 of arg 'n' is not a INT value"),
    "default with too few values": ('''
        with Namespace("math"):
            with Op("f") as op:
                Arg(INT, "shape", count=AtLeast(2), default=[1], description="s")  # <
                Output(NUMERIC, "out", description="out")
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: default [1] of arg 'shape' has 1 values, but its count is AtLeast(2)"),
    "ENUM default outside its values": ('''
        with Namespace("math"):
            with Op("f") as op:
                Arg(ENUM, "mode", possible_values=["a", "b"], default="c", description="m")  # <
                Output(NUMERIC, "out", description="out")
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: default 'c' of arg 'mode' is not one of its possible values 'a', 'b'"),
    "ENUM without values": ('''
        with Namespace("math"):
            with Op("f") as op:
                Arg(ENUM, "mode", description="m")  # <
                Output(NUMERIC, "out", description="out")
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: ENUM arg 'mode' needs possible_values"),
    "ENUM without description": ('''
        with Namespace("math"):
            with Op("f") as op:
                Arg(ENUM, "mode", possible_values=["a"])  # <
                Output(NUMERIC, "out", description="out")
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: ENUM arg 'mode' needs a description"),
    "possible values on a non-ENUM arg": ('''
        with Namespace("math"):
            with Op("f") as op:
                Arg(INT, "n", possible_values=["a"], description="n")  # <
                Output(NUMERIC, "out", description="out")
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: arg 'n' has possible_values, but only ENUM args take them"),
    "unused config": ('''
        with Namespace("math"):
            with Config("Lonely") as cfg:  # <
                Arg(INT, "a", description="a")
        ''' + GOOD_OP, "math.Lonely: config 'Lonely' is not used by any op"),
    "constraint on another op's parameter": ('''
        with Namespace("math"):
            with Op("g") as op:
                z = Input(NUMERIC, "z", description="z")
                Output(NUMERIC, "out", description="out")
                Doc(Language.ANY, DocScope.ALL, "g")
            with Op("f") as op:
                Input(NUMERIC, "x", description="x")
                Output(NUMERIC, "out", description="out")
                Constraint("z is a matrix", z.rank() == 2)  # <
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: constraint 'z is a matrix' references input 'z' of math.g"),
    "invalid count": ('''
        with Namespace("math"):
            with Op("f") as op:
                Input(NUMERIC, "x", count=Range(3, 1), description="x")  # <
                Output(NUMERIC, "out", description="out")
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: input 'x': invalid count Range(3, 1): minimum exceeds maximum"),
    "op without outputs": ('''
        with Namespace("math"):
            with Op("f") as op:  # <
                Input(NUMERIC, "x", description="x")
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: op has no outputs (declare at least one Output)"),
    "op without documentation": ('''
        with Namespace("math"):
            with Op("f") as op:  # <
                Output(NUMERIC, "out", description="out")
        ''', "math.f: op has no documentation (add a Doc)"),
    "unknown doc token": ('''
        with Namespace("math"):
            with Op("f") as op:
                Output(NUMERIC, "out", description="out")
                Doc(Language.ANY, DocScope.ALL, "The %OPNAME% op, see %LIBND4J_OPNAME%.")  # <
        ''', "math.f: unknown doc token %LIBND4J_OPNAME% (known: %INPUT_TYPE%, %NATIVE_OPNAME%, "
             "%OPNAME%; write %% for a literal %)"),
    "op name not an identifier": ('''
        with Namespace("math"):
            with Op("2add") as op:  # <
                Output(NUMERIC, "out", description="out")
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.2add: op name '2add' is not an identifier"),
    "parameter name not an identifier": ('''
        with Namespace("math"):
            with Op("f") as op:
                Input(NUMERIC, "my-x", description="x")  # <
                Output(NUMERIC, "out", description="out")
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: input name 'my-x' is not an identifier"),
    "name with the mangling suffix": ('''
        with Namespace("math"):
            with Op("f") as op:
                Input(NUMERIC, "and_", description="x")  # <
                Output(NUMERIC, "out", description="out")
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: input name 'and_' must not end with '_' (reserved for mangling target keywords)"),
    "tensor of a non-tensor type": ('''
        with Namespace("math"):
            with Op("f") as op:
                Input(STRING, "x", description="x")  # <
                Output(NUMERIC, "out", description="out")
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: input 'x' cannot have type STRING (tensors are BOOLEAN, FIXED_POINT, FLOATING_POINT, "
             "INT, LONG, NDARRAY, NUMERIC, SCALED, SHIFTED)"),
    "conversion of the wrong tensor types": ('''
        with Namespace("math"):
            with Op("f") as op:
                Input(FLOATING_POINT, "x", description="x")
                Output(FLOATING_POINT, "out", description="out")
                Convert("dequantize")  # <
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: dequantize's input x is FIXED_POINT, not FLOATING_POINT"),
    "conversion without its args": ('''
        with Namespace("math"):
            with Op("f") as op:
                Input(FLOATING_POINT, "x", description="x")
                Arg(DATA_TYPE, "dtype", default="q15", description="d")
                Arg(FLOATING_POINT, "scale", default=1.0, description="s")
                Arg(INT, "offset", default=0, description="o")
                Output(FIXED_POINT, "out", description="out")
                Convert("quantize")  # <
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: conversion needs an arg 'shift' (a Q output's shift)"),
    "conversion to a plain dtype": ('''
        with Namespace("math"):
            with Op("f") as op:
                Input(FLOATING_POINT, "x", description="x")
                Arg(DATA_TYPE, "dtype", default="int8", description="d")
                Arg(INT, "shift", default=0, description="s")
                Arg(FLOATING_POINT, "scale", default=1.0, description="s")
                Arg(INT, "offset", default=0, description="o")
                Output(FIXED_POINT, "out", description="out")
                Convert("quantize")  # <
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: arg 'dtype' defaults to 'int8', which is not a fixed-point type (q7, q15, q31, d8, d16, d32)"),
    "fixed-point tensor on an elementwise op": ('''
        with Namespace("math"):
            with Op("f") as op:
                Input(SHIFTED, "x", description="x")
                Output(SHIFTED, "out", description="out")
                Elementwise(lambda x: x + 1.0)  # <
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: x (SHIFTED), out (SHIFTED): only a conversion (Convert) takes or gives a "
             "fixed-point tensor; elementwise ops declare plain tensors and get their fixed-point kernels derived"),
    "generated fixed-point dtype": ('''
        with Namespace("math"):
            with Op("f") as op:
                Arg(INT, "shape", count=AtLeast(0), description="s")
                Arg(FLOATING_POINT, "value", description="v")
                Arg(DATA_TYPE, "dtype", default="q15", description="d")
                Output(NUMERIC, "out", description="out")
                Generate("fill")  # <
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: arg 'dtype' defaults to 'q15', a fixed-point type, which generation does not make "
             "(a conversion, math.quantize, does)"),
    "type that is not a DataType": ('''
        with Namespace("math"):
            with Op("f") as op:
                Input("float", "x", description="x")  # <
                Output(NUMERIC, "out", description="out")
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: type of input 'x' must be a DataType such as NUMERIC, got 'float'"),
    "Python error in an ops file": ('''
        with Namespace("math"):
            with Op("f") as op:
                Input(NUMERIC, "x", descripton="typo")  # <
        ''', "math.f: Input() has no parameter 'descripton' (did you mean 'description'?)"),
    "undefined name": ('''
        with Namespace("math"):
            with Op("f") as op:
                Input(NUMERIC, "x", description="x")
                Output(NUMERIC, "out", description="out")
                Constraint("bad", y.rank() == 2)  # <
        ''', "math.f: unknown name 'y'"),
    "syntax error": ('''
        with Namespace("math"):
            with Op("f") as op:
                Input(NUMERIC, "x" description="x")  # <
        ''', "file defs.py: SyntaxError: invalid syntax. Perhaps you forgot a comma?"),
    "Input outside an op": ('''
        with Namespace("math"):
            Input(NUMERIC, "x", description="x")  # <
        ''' + GOOD_OP, "math: Input 'x' must be called inside an Op or a Mixin or a Config"),
    "Op outside a namespace": ('''
        with Op("f") as op:  # <
            Output(NUMERIC, "out", description="out")
            Doc(Language.ANY, DocScope.ALL, "f")
        ''', "f: Op cannot be defined outside a Namespace"),
    "constraint that is not a condition": ('''
        with Namespace("math"):
            with Op("f") as op:
                x = Input(NUMERIC, "x", description="x")
                Output(NUMERIC, "out", description="out")
                Constraint("rank", x.rank())  # <
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: constraint 'rank' is not a condition (it is a int value)"),
    "constraint comparing tensors": ('''
        with Namespace("math"):
            with Op("f") as op:
                x = Input(NUMERIC, "x", description="x")
                y = Input(NUMERIC, "y", description="y")
                Output(NUMERIC, "out", description="out")
                Constraint("equal", x == y)  # <
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: constraint 'equal' cannot compare tensor values with '==': use same_shape, "
             "same_type, rank() or size_at()"),
    "Python 'and' in a constraint": ('''
        with Namespace("math"):
            with Op("f") as op:
                x = Input(NUMERIC, "x", description="x")
                Output(NUMERIC, "out", description="out")
                Constraint("matrix", x.rank() >= 1 and x.rank() <= 2)  # <
        ''', "math.f: TypeError: a constraint expression is not a Python bool: use &, |, ~ "
             "(or all_of, some, not_) instead of and, or, not, and do not chain comparisons"),
    "constraint on an output": ('''
        with Namespace("math"):
            with Op("f") as op:
                out = Output(NUMERIC, "out", description="out")
                Constraint("rank", out.rank() == 1)  # <
        ''', "math.f: output 'out' cannot appear in a constraint: constraints check what the op is given (its inputs and args)"),
    "alias of a missing op": ('''
        with Namespace("math"):
            Alias("math", "nope")  # <
        ''' + GOOD_OP, "math.nope: alias target math.nope does not exist"),
    "unknown op property": ('''
        with Namespace("math"):
            with Op("f") as op:
                op.java_package = "org.example"  # <
                Output(NUMERIC, "out", description="out")
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: unknown op property 'java_package' (known: display_name, display_path, "
             "native_name, abstract, onnx, unlike_onnx, nnef, unlike_nnef, numpy, unlike_numpy, integers_through_float, "
             "formula)"),
    "an NNEF counterpart misspelt": ('''
        with Namespace("math"):
            with Op("f") as op:
                op.nnef = "sum_reduction"  # <
                Input(FLOATING_POINT, "x", description="x")
                Output(FLOATING_POINT, "out", description="out")
                Elementwise(lambda x: x)
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: nnef must name one of NNEF's standard operations such as 'add' or 'sum_reduce', got "
             "'sum_reduction' (did you mean 'sum_reduce' or 'min_reduce' or 'max_reduce'?)"),
    "a difference from an ONNX counterpart the op does not name": ('''
        with Namespace("math"):
            with Op("f") as op:
                op.unlike_onnx = "keeps its axes"  # <
                Input(FLOATING_POINT, "x", description="x")
                Output(FLOATING_POINT, "out", description="out")
                Elementwise(lambda x: x)
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: unlike_onnx says how the op differs from an onnx counterpart it does not name: set op.onnx "
             "too"),
    "integers through floats, misspelled": ('''
        with Namespace("math"):
            with Op("f") as op:
                op.integers_through_float = ("int8", "unit8")  # <
                Input(FLOATING_POINT, "x", description="x")
                Output(FLOATING_POINT, "out", description="out")
                Elementwise(lambda x: x)
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: integers_through_float: 'unit8' is not an integer dtype (did you mean 'uint8' or 'int8'?)"),
    "integers through floats of an op over numbers": ('''
        with Namespace("math"):
            with Op("f") as op:
                op.integers_through_float = ("int8",)  # <
                Input(NUMERIC, "x", description="x")
                Output(NUMERIC, "out", description="out")
                Elementwise(lambda x: x)
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: integers_through_float is for ops over floats (FLOATING_POINT tensors); this op's NUMERIC "
             "tensors take integers already"),
    "a formula that is not text": ('''
        with Namespace("math"):
            with Op("f") as op:
                op.formula = ("y = x", 2)  # <
                Input(FLOATING_POINT, "x", description="x")
                Output(FLOATING_POINT, "out", description="out")
                Elementwise(lambda x: x)
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: formula must be LaTeX: a string or a tuple of strings, none empty, got ('y = x', 2)"),
    "bitwise and of comparisons": ('''
        from dsl.compute import fn
        with Namespace("math"):
            with Op("f") as op:
                Input(FLOATING_POINT, "x", description="x")
                Output(FLOATING_POINT, "out", description="out")
                Elementwise(lambda x: fn.where((x > -1.0) & (x < 1.0), 1.0, 0.0))  # <
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: & takes integers, not the result of a comparison: use fn.logical_and"),
    "onnx that names no ONNX operator": ('''
        with Namespace("math"):
            with Op("f") as op:
                op.onnx = "reduce sum"  # <
                Output(NUMERIC, "out", description="out")
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: onnx must name an ONNX operator such as 'Add' or 'ReduceSum', got 'reduce sum'"),
    "default from an arg of another type": ('''
        with Namespace("math"):
            with Op("f") as op:
                a = Arg(INT, "a", description="a")
                Arg(FLOATING_POINT, "b", default=a, description="b")  # <
                Output(NUMERIC, "out", description="out")
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: default of arg 'b' must be a arg of type FLOATING_POINT, but 'a' is a arg of type INT"),
    "mixin constraint on an input the op dropped": ('''
        with Mixin("m") as m:
            x = Input(NUMERIC, "x", description="x")
            Constraint("x is a matrix", x.rank() == 2)  # <
        with Namespace("math"):
            with Op("f", m, keep_inputs=False) as op:
                Output(NUMERIC, "out", description="out")
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: constraint 'x is a matrix' references 'x', which math.f does not have"),
    "ENUM compared with a value it cannot take": ('''
        with Namespace("math"):
            with Op("f") as op:
                mode = Arg(ENUM, "mode", possible_values=["a", "b"], description="m")
                Output(NUMERIC, "out", description="out")
                Constraint("never", mode != "c")  # <
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: constraint 'never' compares ENUM 'mode' with 'c', which is not one of its possible values"),
    "search without a predicate": ('''
        with Namespace("math"):
            with Op("f") as op:
                Input(FLOATING_POINT, "x", description="x")
                Arg(INT, "axis", default=-1, description="a")
                Arg(BOOLEAN, "keep_dims", default=False, description="k")
                Output(LONG, "out", description="out")
                ArgReduce("first")  # <
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: ArgReduce('first') needs a predicate: map=lambda x, ...: <a condition>"),
    "search predicate reading an optional arg": ('''
        with Namespace("math"):
            with Op("f") as op:
                Input(FLOATING_POINT, "x", description="x")
                Arg(INT, "axis", default=-1, description="a")
                Arg(BOOLEAN, "keep_dims", default=False, description="k")
                Arg(FLOATING_POINT, "v", default=None, description="v")
                Output(LONG, "out", description="out")
                ArgReduce("last", map=lambda x, v: x > v)  # <
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: map parameter 'v' must be x or a single-valued arg that is not optional"),
    "tensor list outside Join and Merge": ('''
        with Namespace("math"):
            with Op("f") as op:
                Input(NUMERIC, "xs", count=AtLeast(1), description="x")
                Output(NUMERIC, "out", description="out")
                Elementwise(lambda xs: xs)  # <
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: input 'xs' is a list (it has a count), which only Join, Merge and Parts('meshgrid') take"),
    "join of a single tensor": ('''
        with Namespace("base"):
            with Op("f") as op:
                Input(NUMERIC, "inputs", description="x")
                Arg(INT, "axis", default=0, description="a")
                Output(NUMERIC, "out", description="out")
                Join("concat")  # <
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "base.f: join needs a list input 'inputs' (an Input with a count such as AtLeast(1))"),
    "merge of a list that may be empty": ('''
        with Namespace("math"):
            with Op("f") as op:
                Input(NUMERIC, "inputs", count=AtLeast(0), description="x")
                Output(NUMERIC, "out", description="out")
                Merge("add")  # <
                Doc(Language.ANY, DocScope.ALL, "f")
        ''', "math.f: list input 'inputs' must hold at least one tensor (AtLeast(1) or more)"),
}


def _case(text: str) -> tuple[str, int]:
    source = "from dsl import *\n" + textwrap.dedent(text).lstrip("\n")
    line = next(i for i, l in enumerate(source.splitlines(), 1) if l.rstrip().endswith("# <"))
    return source, line


def _shift(message: str) -> str:
    """Lines named in CASES count from the case's first line; the import prelude adds one."""
    head, _, rest = message.partition("ops/defs.py:")
    number = "".join(c for c in rest if c.isdigit())
    return head + "ops/defs.py:" + str(int(number) + 1) + rest[len(number):]


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_malformed_definition_gives_its_exact_error(name: str, project: Path, cli) -> None:
    text, message = CASES[name]
    source, line = _case(text)
    ops = project / "ops"
    ops.mkdir()
    (ops / "defs.py").write_text(source, encoding="utf-8")
    if "ops/defs.py:" in message:
        message = _shift(message)
    expected = f"ops/defs.py:{line}: {message}"

    result = loader.load(ops)
    assert [str(p) for p in result.problems] == [expected]

    run = cli("validate")
    assert run.exit_code == 2
    assert run.stderr.splitlines() == [expected, "1 definition problem"]
    assert "Traceback" not in run.output + run.stderr


def test_corpus_is_large_enough() -> None:
    assert len(CASES) >= 25


def test_duplicate_namespace_across_files(project: Path, cli) -> None:
    body = '''
        from dsl import *
        with Namespace("{name}"):
            with Op("f") as op:
                Output(NUMERIC, "out", description="out")
                Doc(Language.ANY, DocScope.ALL, "f")
    '''
    write_ops(project, {"a.py": body.format(name="math"), "b.py": body.format(name="Math")})
    run = cli("validate")
    assert run.exit_code == 2
    assert run.stderr.splitlines()[0] == "ops/b.py:2: Math: duplicate namespace 'Math' (first defined at ops/a.py:2)"


@pytest.mark.parametrize("text", ["1.2", "v1.2.3", "1.02.3", "1.2.3-rc1"])
def test_a_malformed_catalogue_version_is_a_problem_of_its_file(project: Path, cli, text: str) -> None:
    ops = write_ops(project, {"a.py": 'from dsl import *\nwith Namespace("math"):\n    pass\n'})
    (ops / "VERSION").write_text(text + "\n")
    expected = f"ops/VERSION:1: catalogue: version must be MAJOR.MINOR.PATCH (e.g. 1.2.0), got {text!r}"
    assert [str(p) for p in loader.load(ops).problems] == [expected]
    run = cli("validate")
    assert run.exit_code == 2 and run.stderr.splitlines() == [expected, "1 definition problem"]


def test_the_catalogue_version_comes_from_the_version_file(project: Path) -> None:
    ops = write_ops(project, {"a.py": 'from dsl import *\nwith Namespace("math"):\n    pass\n'})
    assert loader.load(ops).catalogue.version == "0.0.0"  # (none declared)
    (ops / "VERSION").write_text("2.10.0\n")
    assert loader.load(ops).catalogue.version == "2.10.0"
    assert loader.load(ops).catalogue.select(("math",)).version == "2.10.0"


def test_all_problems_are_reported_not_only_the_first(project: Path, cli) -> None:
    write_ops(project, {"a.py": '''
        from dsl import *
        with Namespace("math"):
            with Op("f") as op:
                Arg(INT, "n", default="one", description="n")
                Output(NUMERIC, "out", description="out")
            with Op("g") as op:
                Output(NUMERIC, "out", description="out")
                Doc(Language.ANY, DocScope.ALL, "%BAD%")
    ''', "b.py": '''
        from dsl import *
        with Namespace("random"):
            with Op("h") as op:
                Doc(Language.ANY, DocScope.ALL, "h")
    '''})
    run = cli("validate")
    assert run.exit_code == 2
    assert run.stderr.splitlines() == [
        "ops/a.py:3: math.f: op has no documentation (add a Doc)",
        "ops/a.py:4: math.f: default 'one' of arg 'n' is not a INT value",
        "ops/a.py:8: math.g: unknown doc token %BAD% (known: %INPUT_TYPE%, %NATIVE_OPNAME%, %OPNAME%; "
        "write %% for a literal %)",
        "ops/b.py:3: random.h: op has no outputs (declare at least one Output)",
        "4 definition problems",
    ]


def test_one_failed_statement_hides_nothing_else(project: Path, cli) -> None:
    """Issue 17.3: an exception (an unknown name, keyword, fn. function or attribute, an output in
    a constraint) stopped the loading of its file, so later problems appeared only once it was
    fixed. Now every problem of every file comes out in one run, each once (what follows from a
    failure is not reported again), with a suggestion where one fits."""
    write_ops(project, {"mixins.py": '''
        from dsl import *
        with Mixin("transform") as transform:
            x = Input(NUMERIC, "x", description="x")
            Output(NUMERIC, "out", description="out")
        with Mixin("broken") as broken:
            Input(NUMERIC, "x", descripton="x")
    ''', "math.py": '''
        from dsl import *
        from ops.mixins import transfrom, broken
        with Namespace("math"):
            with Op("a") as op:
                x = Input(NUMERC, "x", description="x")
                Output(NUMERIC, "out", description="out")
                Constraint("x is a matrix", x.rank() == 2)
                Elementwise(lambda x: x)
                Doc(Language.ANY, DocScope.ALL, "a")
            with Op("b") as op:
                x = Input(NUMERIC, "x", description="x")
                Output(NUMERIC, "out", description="out")
                Elementwise(lambda x: fn.exq(x))
                Doc(Language.ANY, DocScope.AL, "b")
            with Op("c", transfrom) as op:
                Elementwise(lambda x: -x)
            with Op("d", broken) as op:
                Elementwise(lambda x: -x)
            with Op("e") as op:
                x = Input(NUMERIC, "x", description="x")
                out = Output(NUMERIC, "out", description="out")
                Constraint("rank", out.rank() == 1)
                Elementwise(lambda x: x)
                Doc(Language.ANY, DocScope.ALL, "e")
            with Op("a") as op:
                Input(NUMERIC, "x", description="x")
                Output(NUMERIC, "out", description="out")
                Elementwise(lambda x: x)
                Doc(Language.ANY, DocScope.ALL, "again")
            with Op("f") as op:
                Output(NUMERIC, "out", description="out")
    '''})
    run = cli("validate")
    assert run.exit_code == 2
    assert run.stderr.splitlines() == [
        "ops/math.py:2: file math.py: ops.mixins has no name 'transfrom' (did you mean 'transform'?)",
        "ops/math.py:5: math.a: unknown name 'NUMERC' (did you mean 'NUMERIC' or 'ENUM'?)",
        "ops/math.py:13: math.b: fn has no function 'exq' (did you mean 'eq' or 'exp'?)",
        "ops/math.py:14: math.b: DocScope has no attribute 'AL' (did you mean 'ALL'?)",
        "ops/math.py:22: math.e: output 'out' cannot appear in a constraint: constraints check what the op "
        "is given (its inputs and args)",
        "ops/math.py:25: math.a: duplicate op 'a' (first defined at ops/math.py:4)",
        "ops/math.py:30: math.f: op has no documentation (add a Doc)",
        "ops/mixins.py:6: mixin broken: Input() has no parameter 'descripton' (did you mean 'description'?)",
        "8 definition problems",
    ]


@pytest.mark.parametrize("folder", ["my-ops", "ops.v2", "team ops", "a b/c-d.e/our ops", "catalogue", "ops"])
def test_any_folder_name_loads(project: Path, cli, folder: str) -> None:
    """Issue 17.5: -opsdir refused a folder whose name is not a Python identifier (the loader
    imported the files as a package of that name). Any folder loads; its files share mixins as
    `ops.<file>` (and, when the name is an identifier, as `<name>.<file>`), and problems carry
    the folder's own file:line."""
    files = {"mixins.py": '''
        from dsl import *
        with Mixin("unary") as unary:
            Input(NUMERIC, "x", description="x")
            Output(NUMERIC, "out", description="out")
    ''', "math.py": '''
        from dsl import *
        from ops.mixins import unary
        with Namespace("math"):
            with Op("neg", unary) as op:
                Elementwise(lambda x: -x)
                Doc(Language.ANY, DocScope.ALL, "Negation.")
    '''}
    if folder == "catalogue":
        files["math.py"] = files["math.py"].replace("from ops.mixins", "from catalogue.mixins")
    ops = write_ops(project, files, package=folder)
    result = loader.load(ops)
    assert result.ok, [str(p) for p in result.problems]
    # (and the backward op the loader derives from it: ADR 0065)
    assert [o.name for o in result.catalogue.namespace("math").ops] == ["neg", "neg_bp"]
    run = cli("generate", "all", "-projects", "c", "-opsdir", str(ops))
    assert run.exit_code == 0, run.output
    # a problem inside it names its own file and line
    (ops / "math.py").write_text((ops / "math.py").read_text().replace("-x", "fn.nag(x)"))
    run = cli("validate", "-opsdir", str(ops))
    assert run.exit_code == 2
    assert run.stderr.splitlines()[0] == f"{folder}/math.py:5: math.neg: fn has no function 'nag' (did you mean 'neg'?)"
