"""The ND4J README's examples, transcribed to opforge's Python names, load
and give the graph that README documents."""

from __future__ import annotations

import attrs
import pytest

from dsl import *
from dsl import expr as E
from dsl.model import NO_DEFAULT, Signature as SignatureModel
from dsl.types import Count
from generators.kernels.readable import READABLE


def refs(*names: str) -> tuple[E.ParamRef, ...]:
    kinds = {"x": "input", "y": "input", "shape": "arg", "z": "output"}
    return tuple(E.ParamRef(kinds[n], n) for n in names)


def test_add_example() -> None:
    with Namespace("math") as ns:
        with Op("add"):
            Input(NUMERIC, "x", description="First input to add")
            Input(NUMERIC, "y", count=AtLeast(1), description="Second input to add")
            Arg(INT, "shape", count=AtLeast(1), description="shape")
            Output(NUMERIC, "z", description="Output (x+y)")
            Doc(Language.ANY, DocScope.ALL, """
                (From AddOp) Add op doc text that will appear everywhere - classes, constructors, op creators
            """)
            Doc(Language.ANY, DocScope.CLASS_DOC_ONLY, "Add op doc text that will appear in all class docs (javadoc etc)")
            Doc(Language.ANY, DocScope.CONSTRUCTORS_ONLY, "Add op doc text for constructors only")
    assert ns.result is not None
    (op,) = ns.result.ops
    assert op.qualified_name == "math.add"
    assert [(i.name, i.type, i.count) for i in op.inputs] == [
        ("x", NUMERIC, Exactly(1)), ("y", NUMERIC, AtLeast(1))]
    assert [(a.name, a.type, a.count, a.default) for a in op.args] == [("shape", INT, AtLeast(1), NO_DEFAULT)]
    assert [(o.name, o.type) for o in op.outputs] == [("z", NUMERIC)]
    assert [(d.scope, d.text) for d in op.docs] == [
        (DocScope.ALL, "(From AddOp) Add op doc text that will appear everywhere - classes, constructors, op creators"),
        (DocScope.CLASS_DOC_ONLY, "Add op doc text that will appear in all class docs (javadoc etc)"),
        (DocScope.CONSTRUCTORS_ONLY, "Add op doc text for constructors only"),
    ]
    # No Signature given: AllParamSignature() and AllDefaultParamSignature(),
    # which coincide here because nothing has a default.
    assert [s.params for s in op.signatures] == [refs("x", "y", "shape", "z")]
    assert str(op.inputs[1].count) == "AtLeast(1)"


def test_issue_snippet_signature_without_required_shape_is_refused() -> None:
    with pytest.raises(DefinitionErrors) as caught:
        with Namespace("math"):
            with Op("add"):
                x = Input(NUMERIC, "x", description="First input to add")
                y = Input(NUMERIC, "y", count=AtLeast(1), description="Second input to add")
                Arg(INT, "shape", count=AtLeast(1), description="shape")
                Output(NUMERIC, "z", description="Output (x+y)")
                Constraint("Must have broadcastable shapes", broadcastable_shapes(x, y))
                Signature(x, y, doc="Add without shape")
                Doc(Language.ANY, DocScope.ALL, """Add op doc text""")
    (problem,) = caught.value.problems
    assert problem.message == "signature (x, y) misses required parameter 'shape'"


def test_binomial_example() -> None:
    with Namespace("random") as ns:
        with Op("binomial"):
            Arg(INT, "nTrials", description="Number of trials parameter for the binomial distribution")
            Arg(FLOATING_POINT, "p", description="Probability of success for each trial")
            Arg(INT, "shape", count=AtLeast(1), description="Shape of the new random SDVariable, as a 1D array")
            Output(NUMERIC, "output", description="new random SDVariable, where values are randomly sampled according to a Binomial distribution")
            Doc(Language.ANY, DocScope.ALL, """
                Generate a new random SDVariable, where values are randomly sampled according to a Binomial distribution,
                with the specified number of trials and probability.
            """)
    (op,) = ns.result.ops
    assert [(a.name, a.type, str(a.count)) for a in op.args] == [
        ("nTrials", INT, "Exactly(1)"), ("p", FLOATING_POINT, "Exactly(1)"), ("shape", INT, "AtLeast(1)")]
    assert op.inputs == ()
    assert op.docs[0].text.splitlines() == [
        "Generate a new random SDVariable, where values are randomly sampled according to a Binomial distribution,",
        "with the specified number of trials and probability.",
    ]
    assert [str(r) for r in op.signatures[0].params] == ["nTrials", "p", "shape", "output"]


def test_and_example_constraints() -> None:
    with Namespace("bitwise") as ns:
        with Op("and"):
            x = Input(INT, "x", description="First input array")
            y = Input(INT, "y", description="Second input array")
            Constraint("Must be same types", same_type(x, y))
            Constraint("Must have broadcastable shapes", broadcastable_shapes(x, y))
            Output(INT, "output", description="Bitwise AND array")
            Doc(Language.ANY, DocScope.ALL, """
                Bitwise AND operation. Supports broadcasting.
            """)
    (op,) = ns.result.ops
    assert op.name == "and"  # a Python keyword is a legal op name
    x, y = E.ParamRef("input", "x"), E.ParamRef("input", "y")
    assert [(c.message, c.expr, c.backend) for c in op.constraints] == [
        ("Must be same types", E.SameType((x, y)), False),
        ("Must have broadcastable shapes", E.BroadcastableShapes((x, y)), False),
    ]


def test_constraint_operators_build_trees() -> None:
    with Namespace("ns") as ns:
        with Op("f"):
            x = Input(INT, "x", description="x")
            y = Input(INT, "y", description="y")
            n = Arg(INT, "n", description="n")
            Output(INT, "out", description="out")
            Constraint("foo bar", (x.size_at(7).eq(7)) & y.is_scalar())
            Constraint("some", some(x.rank().eq(3), x.size_at(2).gte(7), x.size_at(4).lt(5)))
            Constraint("ops", all_of(n > 0, n <= x.rank() - 1, not_(n == 3), ~(n != 4) | (n >= 2)))
            BackendConstraint("backend", n.neq(1) & n.lte(9) & n.gt(-1))
            Doc(Language.ANY, DocScope.ALL, "f")
    op = ns.result.ops[0]
    rendered = [(c.message, READABLE.render(c.expr), c.backend) for c in op.constraints]
    assert rendered == [
        ("foo bar", "x.size_at(7) == 7 and y.rank() == 0", False),
        ("some", "x.rank() == 3 or x.size_at(2) >= 7 or x.size_at(4) < 5", False),
        ("ops", "n > 0 and n <= x.rank() - 1 and not (n == 3) and (not (n != 4) or n >= 2)", False),
        ("backend", "n != 1 and n <= 9 and n > -1", True),
    ]


def _example_mixin() -> Mixin:
    with Mixin("example") as example:
        example.display_path = "/FromMixin"
        Input(INT, "a", description="a from the mixin")
        Doc(Language.ANY, DocScope.ALL, "mixin doc")
    return example


def _op_with(body) -> object:
    with Namespace("ns") as ns:
        with Op("foo") as op:
            body(op)
            Output(NUMERIC, "out", description="out")
            Doc(Language.ANY, DocScope.ALL, "foo")
    return ns.result.ops[0]


def test_mixin_property_first_case_op_wins() -> None:
    example = _example_mixin()

    def body(op):
        use_mixin(example)
        op.display_path = "/FromOp"

    assert _op_with(body).display_path == "/FromOp"


def test_mixin_property_second_case_mixin_wins() -> None:
    example = _example_mixin()

    def body(op):
        op.display_path = "/FromOp"
        use_mixin(example)

    assert _op_with(body).display_path == "/FromMixin"


def test_mixin_input_first_case_op_overwrites() -> None:
    example = _example_mixin()

    def body(op):
        use_mixin(example)
        Input(NUMERIC, "a", description="a from the op")

    (a,) = _op_with(body).inputs
    assert (a.type, a.description) == (NUMERIC, "a from the op")


def test_mixin_input_second_case_mixin_overwrites() -> None:
    example = _example_mixin()

    def body(op):
        Input(NUMERIC, "a", description="a from the op")
        use_mixin(example)

    (a,) = _op_with(body).inputs
    assert (a.type, a.description) == (INT, "a from the mixin")


def test_mixin_definitions_come_after_earlier_ones_and_keep_flags() -> None:
    example = _example_mixin()

    def body(op):
        Input(NUMERIC, "b", description="b")
        use_mixin(example, keep_doc=False)

    op = _op_with(body)
    assert [i.name for i in op.inputs] == ["b", "a"]
    assert [d.text for d in op.docs] == ["foo"]

    def body2(op):
        use_mixin(example, keep_inputs=False)

    op2 = _op_with(body2)
    assert op2.inputs == ()
    assert [d.text for d in op2.docs] == ["mixin doc", "foo"]


def test_op_mixin_parameter_and_nested_mixins() -> None:
    with Mixin("inner") as inner:
        Arg(INT, "k", default=1, description="k")
    with Mixin("outer") as outer:
        use_mixin(inner)
        x = Input(NUMERIC, "x", description="x")
        Constraint("x is a vector", x.rank() == 1)
    with Namespace("ns") as ns:
        with Op("f", outer, keep_constraints=False):
            Output(NUMERIC, "out", description="out")
            Doc(Language.ANY, DocScope.ALL, "f")
        with Op("g", outer):
            Output(NUMERIC, "out", description="out")
            Constraint("k is positive", outer.arg("k") > 0)
            Doc(Language.ANY, DocScope.ALL, "g")
    f, g = ns.result.ops
    assert [p.name for p in f.params] == ["x", "k", "out"]  # inputs, args, outputs
    assert f.constraints == ()
    assert f.mixins == ("inner", "outer")
    assert [c.message for c in g.constraints] == ["x is a vector", "k is positive"]


def test_config_used_in_a_signature() -> None:
    with Namespace("cnn") as ns:
        with Config("Conv2DConfig") as conv:
            kh = Arg(LONG, "kH", description="Kernel height")
            Arg(LONG, "sH", default=1, description="Stride height")
            Constraint("Kernel height must be positive", kh > 0)
            Doc(Language.ANY, DocScope.ALL, "Configuration of a 2D convolution")
        with Op("conv2d"):
            x = Input(NUMERIC, "x", description="Input in NCHW")
            w = Input(NUMERIC, "w", default=None, description="Optional weights")
            cfg = use_config(conv)
            Output(NUMERIC, "output", description="Result")
            Constraint("kernel fits the input", cfg.arg("kH") <= x.size_at(2))
            Signature(x, cfg, doc="With defaults")
            Signature(x, w, cfg)
            AllParamSignature(with_output=False)
            Doc(Language.ANY, DocScope.ALL, "2D convolution")
    (config,) = ns.result.configs
    assert config.qualified_name == "cnn.Conv2DConfig"
    assert [a.name for a in config.args] == ["kH", "sH"]
    (op,) = ns.result.ops
    assert op.configs == (config,)
    cref = E.ParamRef("config", "Conv2DConfig")
    x, w = E.ParamRef("input", "x"), E.ParamRef("input", "w")
    assert [s.params for s in op.signatures] == [(x, cref), (x, w, cref), (x, w, cref)]
    assert op.signatures[0].doc == "With defaults"
    (c,) = op.constraints
    assert READABLE.render(c.expr) == "Conv2DConfig.kH <= x.size_at(2)"
    assert op.inputs[1].default is None  # an optional tensor input
    assert [(cfg, c.message) for cfg, c in op.all_constraints()] == [
        (None, "kernel fits the input"), (config, "Kernel height must be positive")]


def test_config_with_only_defaults_is_optional_in_shorthand_signatures() -> None:
    with Namespace("r") as ns:
        with Config("Rng") as rng:
            Arg(LONG, "seed", default=0, description="seed")
        with Op("u"):
            use_config(rng)
            Arg(LONG, "shape", count=AtLeast(0), description="shape")
            Output(NUMERIC, "output", description="out")
            Doc(Language.ANY, DocScope.ALL, "u")
    (op,) = ns.result.ops
    assert [[str(p) for p in s.params] for s in op.signatures] == [
        ["shape", "output", "Rng"], ["shape", "output"]]


def test_defaults_from_other_parameters() -> None:
    with Namespace("ns") as ns:
        with Op("f"):
            x = Input(NUMERIC, "x", description="x")
            Input(NUMERIC, "y", default=x, description="y defaults to x")
            Arg(LONG, "shape", count=AtLeast(0), default=x.shape(), description="shape")
            Arg(DATA_TYPE, "dtype", default=x.data_type(), description="dtype")
            a = Arg(INT, "a", default=3, description="a")
            Arg(INT, "b", default=a, description="b")
            Arg(FLOATING_POINT, "c", count=Range(1, 3), default=[1, 2.5], description="c")
            Output(NUMERIC, "out", description="out")
            Doc(Language.ANY, DocScope.ALL, "f")
    op = ns.result.ops[0]
    assert [p.default for p in op.params[:7]] == [
        NO_DEFAULT, x.node, E.ShapeOf(x.node), E.DataTypeOf(x.node), 3, E.ParamRef("arg", "a"), (1, 2.5)]


def test_graph_is_frozen() -> None:
    with Namespace("ns") as ns:
        with Op("f"):
            Output(NUMERIC, "out", description="out")
            Doc(Language.ANY, DocScope.ALL, "f")
    op = ns.result.ops[0]
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        op.name = "g"  # type: ignore[misc]
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        ns.result.ops = ()  # type: ignore[misc]
    assert isinstance(op.outputs, tuple) and isinstance(ns.result.ops, tuple)
    with pytest.raises(TypeError):
        op.outputs[0] = None  # type: ignore[index]


def test_count_helpers() -> None:
    assert Exactly(2) == Count(2, 2) and AtMost(3) == Count(0, 3) and Range(1, 4) == Count(1, 4)
    assert AtLeast(1).accepts(5) and not AtLeast(1).accepts(0)
    assert Range(3, 1).problem() == "invalid count Range(3, 1): minimum exceeds maximum"
    assert AtLeast(-1).problem() == "invalid count AtLeast(-1): bounds must not be negative"


def test_signature_model_of_explicit_signature_keeps_location() -> None:
    with Namespace("ns") as ns:
        with Op("f"):
            x = Input(NUMERIC, "x", description="x")
            Output(NUMERIC, "out", description="out")
            Signature(x)
            Doc(Language.ANY, DocScope.ALL, "f")
    (sig,) = ns.result.ops[0].signatures
    assert isinstance(sig, SignatureModel)
    assert sig.location is not None and sig.location.file.endswith("test_reference_examples.py")
