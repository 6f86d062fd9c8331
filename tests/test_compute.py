"""Compute descriptions: the einsum parser, the fragment scanner, compute
validation and the shared NumPy semantics."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT, write_ops
from dsl import compute as C
from dsl import loader
from dsl import shapes as Sh
from dsl.einsum import Conv, EinsumError, parse
from dsl.fragments import FragmentError, resolve
from generators.kernels import numpy_runtime as k
from generators.kernels.py_names import function_name


@pytest.mark.parametrize(("spec", "numpy", "reduced"), [
    # The reference's examples; a spec without a row variable broadcasts to the left (its "...").
    ("ij;jk=>ik", "...ab,...bc->...ac", ("j",)),
    ("...|ik;...|kj=>...|ij", "...ab,...bc->...ac", ("k",)),
    ("bchw=>bhwc", "...abcd->...acdb", ()),
    ("ij=>i", "...ab->...a", ("j",)),
    ("ii=>i", "...aa->...a", ()),
    ("ii=>", "...aa->...", ("i",)),
    ("i;j=>i->j", "...a,...b->...ba", ()),  # input axes come last
    ("batch|rows,cols=>batch|cols", "...abc->...ac", ("rows",)),
    ("i_=>i", "...ab->...a", ("_1",)),
    ("a...b=>ba...", "a...b->ba...", ()),
    ("..v..|ij=>..v..|ji", "...ab->...ba", ()),
    ("ij=>i_j", "...ab->...ab", ()),  # a placeholder of the result: an axis of size 1
    # Convolution axes: two axes of the operand's strided view, windows then kernel.
    ("o+k;k=>o", "...ab,...b->...a", ("k",)),
    ("b,c,2*o+3*k;d,c,k=>b,d,o", "...abcd,...ebd->...aec", ("c", "k")),
    ("2*o=>o", "...a->...a", ()),
    ("h+i,w+j;i,j=>h,w", "...abcd,...bd->...ac", ("i", "j")),
])
def test_einsum_specs_translate_to_numpy(spec: str, numpy: str, reduced: tuple[str, ...]) -> None:
    parsed = parse(spec)
    assert parsed.numpy_subscripts() == numpy
    assert parsed.reduced == reduced


def test_convolution_axes_carry_their_coefficients() -> None:
    (x, _), out = parse("b,2*o+3*k,_;k=>b,o").inputs, parse("b,2*o+3*k,_;k=>b,o").output
    assert x.convs == (Conv(2, "o", 3, "k"),) and x.convs[0].text == "2*o+3*k"
    assert parse("o+k,2*p;k=>o,p").inputs[0].convs == (Conv(1, "o", 1, "k"), Conv(2, "p"))
    assert out.labels == ("...", "b", "o")


@pytest.mark.parametrize(("spec", "message"), [
    ("ij;jk", "column 6: the spec ends where it needs '=>' and the result"),
    ("ij;jk=>iq", "column 9: label 'q' of the result is in no operand"),
    ("ij=>ii", "column 6: label 'i' appears twice in the result"),
    ("i*2+k=>i", "column 2: unexpected '*'"),
    ("a;b;c=>a", "column 5: a spec takes one or two operands"),
    ("ij=>...|i", "column 5: the result's row variable 'batch' is in no operand"),
    ("i$=>i", "column 2: '$' is not a label"),
    ("i...j...=>ij", "column 6: a row may hold only one row variable"),
    ("ij=>i|j|", "column 8: unexpected '|'"),
    ("o+k;k=>o+k", "column 8: a convolution axis cannot stand in the result"),
    ("o+k;k,o=>o", "column 1: 'o' counts the windows of 'o+k', so it labels no other axis (its size is the number "
                   "of windows that fit)"),
    ("x,0*o+k;k=>o", "column 3: a stride or dilation is a positive integer"),
    ("o+o;o=>o", "column 1: a convolution's window and kernel labels differ"),
])
def test_einsum_errors_name_the_column(spec: str, message: str) -> None:
    with pytest.raises(EinsumError) as caught:
        parse(spec)
    assert str(caught.value) == message


def _fragments(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return tmp_path


def test_fragments_resolve_transitively_once_dependencies_first(tmp_path: Path) -> None:
    root = _fragments(tmp_path, {
        "a.h": '''
            #pragma IMAGINET_INCLUDES_BEGIN
            #include <stdint.h>
            #pragma IMAGINET_INCLUDES_END
            #pragma IMAGINET_DEPENDENCY "sub/b.h:shared"
            #pragma IMAGINET_FRAGMENT_BEGIN "top"
            #pragma IMAGINET_FRAGMENT_DEPENDENCY "a.h:mid"
            int top(void) { return mid() + shared(); }
            #pragma IMAGINET_FRAGMENT_END
            #pragma IMAGINET_FRAGMENT_BEGIN "mid"
            int mid(void) { return shared(); }
            #pragma IMAGINET_FRAGMENT_END
        ''',
        "sub/b.h": '''
            #pragma IMAGINET_FRAGMENT_BEGIN "shared"
            #pragma IMAGINET_DEPENDENCY "c.h:leaf"
            int shared(void) { return leaf(); }
            #pragma IMAGINET_FRAGMENT_END
        ''',
        "sub/c.h": '''
            #pragma IMAGINET_FRAGMENT_BEGIN "leaf"
            int leaf(void) { return 1; }
            #pragma IMAGINET_FRAGMENT_END
        ''',
    })
    order, includes = resolve(root, "a.h", "top", "frags")
    assert [f.name for f in order] == ["leaf", "shared", "mid", "top"]
    assert includes == ["#include <stdint.h>"]


def test_a_file_level_dependency_applies_to_the_fragments_below_it(tmp_path: Path) -> None:
    """The authoring guide's fixwin_time.h: the struct, then a file-level dependency on it that
    "all fragments below inherit"; header fragments, code packages and symbol checks are allowed."""
    root = _fragments(tmp_path, {
        "fixwin_time.h": '''
            #pragma IMAGINET_CODEPACKAGE_DEPENDENCY "cmsis-dsp"
            #pragma IMAGINET_FRAGMENT_BEGIN "fixwin_time_t"
            typedef struct { int n; } fixwin_time_t;
            #pragma IMAGINET_FRAGMENT_END
            #pragma IMAGINET_FRAGMENT_DEPENDENCY "fixwin_time_t"
            #pragma IMAGINET_FRAGMENT_BEGIN "fixwin_time_init"
            static int fixwin_time_init(fixwin_time_t* h) { h->n = 0; return 0; }
            #pragma IMAGINET_FRAGMENT_END
            #pragma IMAGINET_FRAGMENT_BEGIN "fixwin_time_body"
            static int fixwin_time_body(fixwin_time_t* h) { return h->n; }
            #pragma IMAGINET_FRAGMENT_END
            #pragma IMAGINET_FRAGMENT_BEGIN_HEADER "model_header"
            #define MODEL 1
            #pragma IMAGINET_FRAGMENT_END_HEADER
        ''',
    })
    for name in ("fixwin_time_init", "fixwin_time_body"):
        order, _ = resolve(root, "fixwin_time.h", name, "frags")
        assert [f.name for f in order] == ["fixwin_time_t", name]
    assert [f.name for f in resolve(root, "fixwin_time.h", "fixwin_time_t", "frags")[0]] == ["fixwin_time_t"]
    assert [f.name for f in resolve(root, "fixwin_time.h", "model_header", "frags")[0]] == ["fixwin_time_t",
                                                                                      "model_header"]


@pytest.mark.parametrize(("files", "message", "line"), [
    ({"a.h": '''
        #pragma IMAGINET_FRAGMENT_BEGIN "top"
        #pragma IMAGINET_DEPENDENCY "a.h:nope"
        #pragma IMAGINET_FRAGMENT_END
      '''}, "fragment 'nope' not found in a.h (has: top)", ("frags/a.h", 2)),
    ({"a.h": '''
        #pragma IMAGINET_FRAGMENT_BEGIN "top"
        #pragma IMAGINET_DEPENDENCY "a.h:other"
        #pragma IMAGINET_FRAGMENT_END
        #pragma IMAGINET_FRAGMENT_BEGIN "other"
        #pragma IMAGINET_FRAGMENT_DEPENDENCY "a.h:top"
        #pragma IMAGINET_FRAGMENT_END
      '''}, "circular fragment dependency a.h:top -> a.h:other -> a.h:top", ("frags/a.h", 5)),
    ({"a.h": '''
        #pragma IMAGINET_FRAGMENT_BEGIN "top"
        #pragma IMAGINET_FRAGMENT_END
        #pragma IMAGINET_FRAGMENT_BEGIN "top"
        #pragma IMAGINET_FRAGMENT_END
      '''}, "fragment 'top' is defined twice in frags/a.h", ("frags/a.h", 3)),
    ({"a.h": '''
        #pragma IMAGINET_FRAGMENT_BEGIN "top"
        #pragma IMAGINET_DEPENDENCY "missing.h:x"
        #pragma IMAGINET_FRAGMENT_END
      '''}, "fragment file missing.h does not exist", ("frags/a.h", 2)),
    ({"a.h": '''
        #pragma IMAGINET_FRAGMENT_BEGIN "top"
        int x;
      '''}, "fragment 'top' has no IMAGINET_FRAGMENT_END", ("frags/a.h", 1)),
    ({"a.h": '''
        #pragma IMAGINET_FRAGMENT_BEGIN "top"
        #pragma IMAGINET_FRAGMENT_TEST \\
            "a_tests.c:top_test"
        #pragma IMAGINET_FRAGMENT_END
      '''}, "an IMAGINET pragma is one line: the word, then its argument in double quotes", ("frags/a.h", 2)),
])
def test_fragment_errors_have_file_and_line(tmp_path: Path, files: dict[str, str], message: str,
                                            line: tuple[str, int]) -> None:
    root = _fragments(tmp_path, files)
    with pytest.raises(FragmentError) as caught:
        resolve(root, "a.h", "top", "frags")
    assert caught.value.message == message
    assert (caught.value.location.file, caught.value.location.line) == line


def test_fragment_problems_are_definition_errors(project: Path, cli) -> None:
    write_ops(project, {"defs.py": '''
        from dsl import *
        with Namespace("m"):
            with Op("f") as op:
                x = Input(NUMERIC, "x", description="x")
                Arg(INT, "axis", default=0, description="axis")
                Output(NUMERIC, "out", description="out")
                Fragment(c="k.h", python="k.py", c_fragments={"float32": "f32"}, python_fragment="f")
                Doc(Language.ANY, DocScope.ALL, "f")
    '''})
    (project / "ops" / "k.py").write_text('#pragma IMAGINET_FRAGMENT_BEGIN "f"\ndef f(): pass\n#pragma IMAGINET_FRAGMENT_END\n')
    run = cli("validate")
    assert run.exit_code == 2
    assert run.stderr.splitlines()[0] == "ops/k.h:1: m.f: fragment file k.h does not exist"


@pytest.mark.parametrize(("body", "message"), [
    ("Elementwise(lambda x, z: x + z)", "elementwise function parameter 'z' is neither an input nor a single-valued arg"),
    ("Elementwise(lambda x: fn.exp(x))", "input 'x' must be FLOATING_POINT for exp"),
    ("Reduce('avg')", "combine must be one of add, mul, max, min, got 'avg'"),
    ("Reduce('add')", "reduction needs an arg 'axes' (axes to reduce)"),
    ("Einsum('ij;jk=>ik')", "einsum spec 'ij;jk=>ik' takes 2 operands, the op gives 1"),
    ("Einsum('ij=>iq')", "einsum spec 'ij=>iq': column 6: label 'q' of the result is in no operand"),
    ("Einsum('..a..|i->..b..j=>..a..|i->..b..j')", "einsum spec '..a..|i->..b..j=>..a..|i->..b..j' uses the row "
                                                   "variables a, b: the targets compute one row variable per spec, "
                                                   "not yet several"),
    ("Einsum('...|o+k=>o', combine='max', kernel_shape='ks')", "einsum spec '...|o+k=>o' pools over its row "
                                                              "variable batch: a pool keeps the row variable's axes "
                                                              "in the result"),
    ("Einsum('ij=>i', pads='x')", "einsum spec 'ij=>i' has no convolution axis for pads"),
    ("Einsum('o+k=>o', combine='max', kernel_shape='ks')", "combine='max' pools floats: its input must be "
                                                          "FLOATING_POINT"),
    ("Einsum('o+k=>o', combine='mean', kernel_shape='ks', pads='ps')",
     "combine='mean' needs count_include_pad=, an arg"),
    ("Einsum('o+k=>o', combine='mean', whole=True, count_include_pad='c')",
     "count_include_pad is for a padded mean: this one reads no padding"),
    ("Einsum('o+k=>o', combine='max', whole=True, strides='s', ceil_mode='c')",
     "whole=True spans each axis with one window: it takes no strides, ceil_mode"),
    ("Einsum('o+k;k=>o', inputs=('x', 'x'), whole=True)",
     "einsum spec 'o+k;k=>o': whole=True spans each axis with its kernel label, which no operand may give"),
    ("Einsum('o+k=>o', combine='min', kernel_shape='ks')", "combine must be one of add, max, mean, lp, got 'min'"),
    ("Einsum('o+k=>o')", "einsum spec 'o+k=>o': the kernel label k of o+k labels no axis of an operand, and the "
                         "op names no kernel_shape arg to give its size"),
    ("Einsum('o+k;k=>o', inputs=('x', 'x'), strides='s')", "contraction needs an arg 's' (the convolution axes' "
                                                           "strides)"),
    ("Random('gamma')", "unknown distribution 'gamma' (known: uniform, normal, bernoulli, binomial, exponential, "
                        "log_normal, truncated_normal)"),
    ("Elementwise(lambda x: fn.where(x == 'a', x, x))", "'x' is not an ENUM arg, so it cannot be compared with 'a'"),
    ("Fragment(c='k.h', python='k.py', c_fragments={}, python_fragment='f', layout='select')",
     "a select fragment names the int arg of its rows' length: length=..., also in args"),
    ("ArgReduce('last', map=lambda x: x > 0)", "ArgReduce's output must be LONG"),
    ("Fragment(c='k.h', python='k.py', c_fragments={}, python_fragment='f', layout='dense')",
     "a dense fragment takes rows and a matrix of weights (and vectors): 2 inputs or more"),
    ("Fragment(c='k.h', python='k.py', c_fragments={}, python_fragment='f', layout='shaped', shapes=((1,), (2,)))",
     "a shaped fragment gives each output its shape: shapes=... holds 2, for 1 output(s)"),
    ("Fragment(c='k.h', python='k.py', c_fragments={}, python_fragment='f', layout='shaped', shapes=((x,),))",
     "an output size must be an integer expression of the inputs' sizes and int args"),
    ("Fragment(c='k.h', python='k.py', c_fragments={}, python_fragment='f', layout='shaped', shapes=((1.5,),))",
     "an output size must be an integer expression of the inputs' sizes and int args"),
    ("Fragment(c='k.h', python='k.py', c_fragments={}, python_fragment='f', layout='matrix', shared=('x',))",
     "shared=... names inputs of a matrix fragment, after the first, that are one matrix for every batch"),
    ("Fragment(c='k.h', python='k.py', c_fragments={}, python_fragment='f', layout='rows', shapes=((1,),))",
     "shapes=... gives the outputs of a shaped fragment"),
    ("FindAll(lambda x: x > 0)",
     "FindAll gives two LONG outputs: the indices (as many as the input's elements) and their count"),
    ("FindAll(lambda x, k: x > k)", "map parameter 'k' must be x or a single-valued arg that is not optional"),
    ("TensorDot()", "tensordot needs an input 'y'"),
    ("TensorDot()", "a tensordot takes exactly its two inputs"),
    ("TensorDot(dimensions_x='x')", "tensordot needs an arg 'x' (axes to contract)"),
    ("TensorDot()", "tensordot needs an arg 'transpose_z' (whether to reverse the axes)"),
    ("Fragment(c='k.h', python='k.py', c_fragments={}, python_fragment='f', layout='channels', widen=2)",
     "widen (rows that many times as long) takes an int above 1, for a rows fragment of one input"),
    ("Fragment(c='k.h', python='k.py', c_fragments={}, python_fragment='f', layout='chanels')",
     "fragment layout must be one of axis, flat, rows, channels, select, dense, shaped, matrix, matrix_reduce, "
     "matrix_solve, matrix_diagonal, matrix_q, matrix_r, matrix_v, matrix_product, got 'chanels' "
     "(did you mean 'channels'?)"),
    ("Fragment(c='k.h', python='k.py', c_fragments={}, python_fragment='f', layout='rows', length='k')",
     "length=... names the int arg of a select fragment's rows"),
    ("Fragment(c='k.h', python='k.py', c_fragments={}, python_fragment='f', layout='flat', axis='dim')",
     "axis=... names the axis arg of an axis fragment"),
    ("Fragment(c='k.h', python='k.py', c_fragments={}, python_fragment='f', workspace=x.size_at(0))",
     "only matrix fragments take a workspace"),
    ("Fragment(c='k.h', python='k.py', c_fragments={}, python_fragment='f', layout='rows', fixed_dtypes={'out': "
     "'uint8'})", "only shaped fragments fix a tensor's dtype (fixed_dtypes=...)"),
    ("Fragment(c='k.h', python='k.py', c_fragments={}, python_fragment='f', layout='shaped', shapes=(x,), "
     "fixed_dtypes={'codes': 'uint8'})", "fixed_dtypes names 'codes', not a tensor of the op"),
    ("Fragment(c='k.h', python='k.py', c_fragments={}, python_fragment='f', layout='shaped', shapes=(x,), "
     "fixed_dtypes={'out': 'q7'})", "fixed_dtypes gives 'out' q7, not a dtype of its type NUMERIC (int8, int16, "
                                     "int32, int64, uint8, uint16, uint32, uint64, float32, float64)"),
])
def test_compute_problems(project: Path, cli, body: str, message: str) -> None:
    write_ops(project, {"defs.py": f'''
        from dsl import *
        with Namespace("m"):
            with Op("f") as op:
                x = Input(NUMERIC, "x", description="x")
                Output(NUMERIC, "out", description="out")
                {body}
                Doc(Language.ANY, DocScope.ALL, "f")
    '''})
    result = loader.load(project / "ops")
    found = [p for p in result.problems if p.message == message]
    assert found, [p.message for p in result.problems]
    assert found[0].location.line == 6


def test_each_fragment_layout_is_a_class_with_only_its_own_fields() -> None:
    """A generator asking a layout for another layout's field fails at once, not silently."""
    files = {"c_file": "k.h", "c_fragments": (), "python_file": "k.py", "python_fragment": "f", "args": ()}
    rows, problems = C.fragment_kernel("rows", files, {"widen": 2})
    assert isinstance(rows, C.RowsFragment) and rows.widen == 2 and not problems
    with pytest.raises(AttributeError):
        rows.shared  # noqa: B018 - a matrix fragment's field
    qr, _ = C.fragment_kernel("matrix_q", files, {"output_layouts": ("matrix_r",)})
    assert isinstance(qr, C.MatrixFragment) and qr.layouts == ("matrix_q", "matrix_r")
    assert {cls.layout for cls in C.FRAGMENT_LAYOUTS.values() if cls is not C.MatrixFragment} == \
        set(C.FRAGMENT_LAYOUTS) - set(C.MATRIX_LAYOUTS)


def test_a_shape_reads_only_the_bindings_no_enclosing_node_makes() -> None:
    """``free_bindings``: an Axis, Value or Each is free until a node that binds it encloses it
    (PerAxis's size and keep, ForAxes, AllValues, EachTensor); a PerAxis's rank is outside it."""
    x, axes = Sh.tensor("x"), Sh.arg("axes")
    assert Sh.free_bindings(Sh.reversed_shape(x)) == frozenset()
    assert Sh.free_bindings(Sh.Item(x, Sh.Axis())) == {"k"}
    assert Sh.free_bindings(Sh.PerAxis(Sh.Axis(), Sh.size(1))) == {"k"}
    assert Sh.free_bindings(Sh.ForAxes(Sh.rank("x"), Sh.compare(Sh.Item(x, Sh.Axis()), "==", Sh.Value()))) == {"v"}
    assert Sh.free_bindings(Sh.AllValues(axes, Sh.compare(Sh.Value(), "<", Sh.Length(Sh.Each())))) == {"e"}
    assert Sh.free_bindings(Sh.EachTensor(Sh.arg("xs"), Sh.compare(Sh.Length(Sh.Each()), "==", 2))) == frozenset()


def test_compute_is_frozen_and_traced_once() -> None:
    params, optional, cases = C.trace_cases(lambda x, base=None: fn_log(x, base))
    assert params == ("x", "base") and optional == ("base",)
    assert [given for given, _ in cases] == [("base",), ()]
    assert cases[1][1] == C.SCall("log", (C.SSym("x"),))


def fn_log(x, base):
    return C.fn.log(x) if base is None else C.fn.log(x) / C.fn.log(base)


def test_symbolic_scalars_refuse_python_logic() -> None:
    with pytest.raises(TypeError, match="not a Python bool"):
        C.trace(lambda x: x if x > 0 else -x)


def test_function_names_are_snake_case_and_mangled() -> None:
    assert function_name("reduceMax") == "reduce_max"
    assert function_name("and") == "and_"
    assert function_name("log_sum_exp") == "log_sum_exp"


def test_numpy_semantics_of_integer_corners() -> None:
    i8 = np.int8
    assert k.div(np.array([7, -7, 7, -128, 5], i8), np.array([2, 2, -2, -1, 0], i8)).tolist() == [3, -3, -3, -128, 0]
    assert k.pow(np.array([2, 2, -1, 1, 3], i8), np.array([7, 8, -3, -5, -1], i8)).tolist() == [-128, 0, -1, 1, 0]
    assert k.left_shift(np.array([1, 1, -1, 1], i8), np.array([7, 8, 1, -1], i8)).tolist() == [-128, 0, -2, 0]
    assert k.right_shift(np.array([-8, -8, 8, 8], i8), np.array([1, 9, 1, -1], i8)).tolist() == [-4, -1, 4, 0]
    assert k.round_half_away(np.array([0.5, -2.5, 0.49999999999999994, 1.4])).tolist() == [1.0, -3.0, 0.0, 1.0]


def test_philox_known_answers_in_numpy() -> None:
    got = k.philox4x32_10(([0x243F6A88], [0x85A308D3], [0x13198A2E], [0x03707344]), (0xA4093822, 0x299F31D0))
    assert [int(w[0]) for w in got] == [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1]


@pytest.mark.parametrize(("body", "message"), [
    ("Compose(lambda x: step('m.nope', x))", "step t0 (m.nope): m.nope does not exist"),
    ("Compose(lambda x: step('m.total', x))", "step t0 (m.total): m.total is not elementwise"),
    ("Compose(lambda x: step('m.twice', x, x))", "step t0 (m.twice): m.twice takes 1 inputs, got 2"),
    ("Compose(lambda x: step('other.twice', x))", "step t0 (other.twice): a composition uses ops of its own "
                                                  "namespace m"),
])
def test_composition_problems(project: Path, body: str, message: str) -> None:
    write_ops(project, {"defs.py": f'''
        from dsl import *
        with Namespace("m"):
            with Op("twice") as op:
                Input(NUMERIC, "x", description="x")
                Output(NUMERIC, "out", description="out")
                Elementwise(lambda x: x + x)
                Doc(Language.ANY, DocScope.ALL, "twice")
            with Op("total") as op:
                Input(NUMERIC, "x", description="x")
                Arg(INT, "axes", count=AtLeast(0), default=[], description="axes")
                Arg(BOOLEAN, "keep_dims", default=False, description="keep")
                Output(NUMERIC, "out", description="out")
                Reduce("add")
                Doc(Language.ANY, DocScope.ALL, "total")
            with Op("f") as op:
                x = Input(NUMERIC, "x", description="x")
                Output(NUMERIC, "out", description="out")
                {body}
                Doc(Language.ANY, DocScope.ALL, "f")
    '''})
    result = loader.load(project / "ops")
    assert [(p.location.line, p.message) for p in result.problems] == [(18, message)]


def test_composition_fuses_into_one_elementwise_expression() -> None:
    catalogue = loader.load(ROOT / "ops").catalogue
    op = catalogue.namespace("math").op("squared_difference")
    assert [s.op for s in op.composition.steps] == ["math.sub", "math.mul"]
    d = C.SCall("sub", (C.SSym("x"), C.SSym("y")))
    assert op.compute == C.Elementwise(("x", "y"), (), (((), C.SCall("mul", (d, d))),), "numpy")


@pytest.mark.parametrize(("output", "body", "message"), [
    ("Output(NUMERIC, 'outputs', description='o')", "Parts('split')",
     "output 'outputs' must be a list of count AtLeast(0): the inputs say how many tensors it holds"),
    ("Output(NUMERIC, 'outputs', count=AtLeast(1), description='o')", "Parts('split')",
     "output 'outputs' must be a list of count AtLeast(0): the inputs say how many tensors it holds"),
    ("Output(LONG, 'outputs', count=AtLeast(0), description='o')", "Parts('split')",
     "output 'outputs' has the type of x (NUMERIC): bytes move, none is computed"),
    ("Output(NUMERIC, 'outputs', count=AtLeast(0), description='o')", "Parts('meshgrid')",
     "Parts('meshgrid') cuts from a list input (an Input with a count such as AtLeast(1))"),
    ("Output(NUMERIC, 'outputs', count=AtLeast(0), description='o')", "Parts('meshgrid', cartesian='axis')",
     "arg 'axis' must be a single value of type BOOLEAN (cartesian of the meshgrid)"),
    ("Output(NUMERIC, 'outputs', count=AtLeast(0), description='o')", "Parts('splat')",
     "unknown Parts kind 'splat' (known: split, unstack, meshgrid)"),
    ("Output(NUMERIC, 'outputs', count=AtLeast(0), description='o')", "Parts('unstack', axis='num2')",
     "parts needs an arg 'num2' (axis of the unstack)"),
    ("Output(NUMERIC, 'outputs', count=AtLeast(0), description='o')", "Elementwise(lambda x: x)",
     "output 'outputs' is a list (it has a count), which only Parts gives"),
])
def test_parts_problems(project: Path, output: str, body: str, message: str) -> None:
    write_ops(project, {"defs.py": f'''
        from dsl import *
        with Namespace("m"):
            with Op("f") as op:
                Input(NUMERIC, "x", description="x")
                Arg(INT, "num", description="n")
                Arg(INT, "axis", default=0, description="a")
                {output}
                {body}
                Doc(Language.ANY, DocScope.ALL, "f")
    '''})
    result = loader.load(project / "ops")
    assert message in [p.message for p in result.problems], [p.message for p in result.problems]
