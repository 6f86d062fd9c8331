"""Derivatives from the definitions (issue 24, ADR 0065): the scalar rules against JAX, the
backward ops the loader declares, and the hand-written ``*_derivative`` ops proven equal to
the derived ones. (The generated backward kernels against ``jax.vjp``, on both backends:
test_generated_code.py.)"""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from backward_cases import ARG_VALUES, jax_evaluate, jax_function
from conftest import ROOT, write_ops
from dsl import autodiff
from dsl.loader import load
from dsl.scalar import FUNCTIONS, SCall, SConst, SSym

jax.config.update("jax_enable_x64", True)
CATALOGUE = load(ROOT / "ops").catalogue


def _op(qualified: str):
    ns, name = qualified.split(".")
    found = CATALOGUE.namespace(ns).op(name)
    assert found is not None, qualified
    return found


#: Operands per function where the derivative exists, away from kinks, or at the conventions.
_DOMAIN = {"log": (0.1, 3.0), "sqrt": (0.1, 3.0), "asin": (-0.9, 0.9), "acos": (-0.9, 0.9), "atanh": (-0.9, 0.9),
           "acosh": (1.1, 3.0), "log1p": (-0.9, 3.0), "pow": (0.1, 3.0)}


@pytest.mark.parametrize("name", sorted(autodiff.PARTIALS))
def test_each_partial_derivative_is_jaxs(name: str) -> None:
    """Every rule, for every operand, gives jax.grad of the same function in float64 on seeded values,
    and at the conventions' points: abs at 0, maximum and minimum on a tie, pow's base 0."""
    arity = FUNCTIONS[name][0]
    low, high = _DOMAIN.get(name, (-3.0, 3.0))
    rng = np.random.default_rng(arity * 1000 + len(name))
    points = [tuple(rng.uniform(low, high, arity)) for _ in range(20)]
    points += {"abs": [(0.0,)], "maximum": [(1.5, 1.5)], "minimum": [(-2.0, -2.0)], "pow": [(0.0, 2.0)]}.get(name, [])
    names = ("u", "v")[:arity]
    node = SCall(name, tuple(SSym(n) for n in names))
    for k, wrt in enumerate(names):
        derivative = autodiff.differentiate(node, wrt)
        for point in points:
            env = {n: jnp.float64(v) for n, v in zip(names, point)}
            got = float(jax_evaluate(derivative, env, "float64"))
            want = float(jax.grad(jax_function(name), argnums=k)(*(jnp.float64(v) for v in point)))
            assert np.isclose(got, want, rtol=1e-13, atol=1e-13), (name, wrt, point, got, want)


def test_piecewise_constant_functions_and_comparisons() -> None:
    """Rounding has derivative 0; a comparison used as a number has none, and says so."""
    x = SSym("x")
    for name in sorted(autodiff.PIECEWISE_CONSTANT):
        args = (x,) * FUNCTIONS[name][0]
        assert autodiff.differentiate(SCall(name, args), "x") == autodiff.ZERO
    with pytest.raises(autodiff.NotDifferentiable, match="bitwise_and has no derivative"):
        autodiff.differentiate(SCall("bitwise_and", (x, x)), "x")
    # the condition of a where selects, and has no derivative of its own
    chosen = SCall("where", (SCall("gt", (x, SConst(0.0))), x, SConst(0.0)))
    assert autodiff.differentiate(chosen, "x") == SCall("where", (SCall("gt", (x, SConst(0.0))), SConst(1.0),
                                                                   SConst(0.0)))


def test_simplification_folds_constants_and_identities() -> None:
    x = SSym("x")
    assert autodiff.simplify(SCall("mul", (SConst(0.0), SCall("exp", (x,))))) == autodiff.ZERO
    assert autodiff.simplify(SCall("add", (SConst(0.0), SCall("mul", (SConst(1.0), x))))) == x
    assert autodiff.simplify(SCall("mul", (SConst(2.0), SCall("mul", (SConst(3.0), x))))) == \
        SCall("mul", (SConst(6.0), x))
    assert autodiff.simplify(SCall("neg", (SCall("neg", (x,)),))) == x
    assert autodiff.simplify(SCall("sub", (x, SCall("neg", (x,))))) == SCall("mul", (SConst(2.0), x))
    # like terms, and a constant factor in front: x * (2 * x) + x * x is 3 * (x * x)
    square = SCall("mul", (x, x))
    assert autodiff.simplify(SCall("add", (SCall("mul", (x, SCall("mul", (SConst(2.0), x)))), square))) == \
        SCall("mul", (SConst(3.0), square))


def test_the_loader_declares_a_backward_op_beside_each_differentiable_op() -> None:
    sin_bp = _op("math.sin_bp")
    assert _op("math.sin").backward == "math.sin_bp" and sin_bp.gradient_of == "math.sin"
    assert [i.name for i in sin_bp.inputs] == ["x", "grad"] and [o.name for o in sin_bp.outputs] == ["grad_x"]
    assert sin_bp.location == _op("math.sin").location  # (errors and the generated headers name the definition)
    assert sin_bp.compute.expr == SCall("mul", (SSym("grad"), SCall("cos", (SSym("x"),))))
    relu_bp = _op("nn.relu_bp")
    assert [a.name for a in relu_bp.args] == ["cutoff"] and relu_bp.args[0].default == 0.0
    assert _op("math.floor").not_differentiable == "piecewise constant: its derivative is 0 wherever it exists"
    assert _op("math.equal").not_differentiable == "its result is boolean"
    assert _op("random.normal").not_differentiable == "a random draw"
    assert _op("nn.softmax").not_differentiable == "a hand-written fragment, which declares no derivative"
    # (not derived yet: neither marked; the note and ADR 0065 say which forms wait)
    assert _op("math.add").backward is None and _op("math.add").not_differentiable is None
    assert CATALOGUE.namespace("math").op("floor_bp") is None


def test_a_backward_op_name_already_declared_is_reported(tmp_path: Path) -> None:
    ops = write_ops(tmp_path, {"calc.py": '''
from dsl import *

with Namespace("calc"):
    with Op("twice") as op:
        Input(FLOATING_POINT, "x", description="Input")
        Output(FLOATING_POINT, "output", description="Result")
        Elementwise(lambda x: 2.0 * x)
        Doc(Language.ANY, DocScope.ALL, "Twice x.")

    with Op("twice_bp") as op:
        Input(FLOATING_POINT, "x", description="Input")
        Output(FLOATING_POINT, "output", description="Result")
        Elementwise(lambda x: x)
        Doc(Language.ANY, DocScope.ALL, "Not a gradient.")
'''})
    problems = [str(p) for p in load(ops).problems]
    assert len(problems) == 1 and problems[0].endswith(
        "/calc.py:4: calc.twice: its backward op would be called twice_bp, which the namespace already declares: "
        "rename that op"), problems


def test_a_backward_op_names_the_gradient_what_no_forward_parameter_is_called(tmp_path: Path) -> None:
    ops = write_ops(tmp_path, {"calc.py": '''
from dsl import *

with Namespace("calc"):
    with Op("scaled") as op:
        Input(FLOATING_POINT, "x", description="Input")
        Arg(FLOATING_POINT, "grad", default=2.0, description="A slope, named as gradients are")
        Output(FLOATING_POINT, "output", description="Result")
        Elementwise(lambda x, grad: grad * fn.sin(x))
        Doc(Language.ANY, DocScope.ALL, "A scaled sine.")
'''})
    loaded = load(ops)
    assert loaded.ok, [str(p) for p in loaded.problems]
    backward = loaded.catalogue.namespace("calc").op("scaled_bp")
    assert [i.name for i in backward.inputs] == ["x", "grad_output"] and [a.name for a in backward.args] == ["grad"]
    assert backward.compute.expr == SCall("mul", (SSym("grad_output"), SCall("mul", (SSym("grad"),
                                                                                     SCall("cos", (SSym("x"),))))))


#: The hand-written derivative ops and the derived backward ops they must equal: (derivative op,
#: backward op, the derivative's input that takes the output's gradient, if it has one).
HAND_WRITTEN = [
    ("math.cube_derivative", "math.cube_bp", None),
    ("math.rectified_tanh_derivative", "math.rectified_tanh_bp", None),
    ("math.rational_tanh_derivative", "math.rational_tanh_bp", None),
    ("nn.hard_tanh_derivative", "nn.hard_tanh_bp", None),
    ("nn.leaky_relu_derivative", "nn.leaky_relu_bp", None),
    ("nn.sigmoid_derivative", "math.sigmoid_bp", "wrt"),
    ("nn.softsign_derivative", "nn.softsign_bp", None),
    ("nn.relu6_derivative", "nn.relu6_bp", None),
    ("nn.elu_derivative", "nn.elu_bp", None),
    ("nn.selu_derivative", "nn.selu_bp", None),
    ("nn.hard_sigmoid_derivative", "nn.hard_sigmoid_bp", None),
    ("nn.tanh_derivative", "math.tanh_bp", None),
    ("nn.swish_derivative", "nn.swish_bp", None),
    ("nn.precise_gelu_derivative", "nn.precise_gelu_bp", None),
]


def test_every_hand_written_derivative_op_is_listed() -> None:
    declared = {op.qualified_name for ns in CATALOGUE.namespaces for op in ns.concrete_ops
                if op.name.endswith("_derivative")}
    assert declared == {d for d, _, _ in HAND_WRITTEN}


@pytest.mark.parametrize("derivative, backward, gradient", HAND_WRITTEN)
def test_hand_written_derivatives_equal_the_derived_backward_ops(derivative: str, backward: str,
                                                                   gradient: str | None) -> None:
    """Off the kinks (seeded values over [-7, 7]), ``derivative(x) * grad`` (or the derivative op
    with the gradient given) is the backward op's result, each at its args' defaults."""
    hand, derived = _op(derivative), _op(backward)
    rng = np.random.default_rng(len(derivative))
    x = jnp.asarray(rng.uniform(-7.0, 7.0, 64))
    grad = jnp.asarray(rng.uniform(-2.0, 2.0, 64))
    values = {a.name: jnp.float64(a.default) for a in derived.args}
    want = jax_evaluate(derived.compute.expr, {"x": x, "grad": grad, **values}, "float64")
    hand_args = {a.name: jnp.float64(a.default) for a in hand.args}
    got = jax_evaluate(hand.compute.expr, {"x": x, **({gradient: grad} if gradient else {}), **hand_args}, "float64")
    if gradient is None:
        got = got * grad
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12, atol=1e-12)


#: NNEF's standard operations a backward op's body uses, computed by NumPy as NNEF 1.0.5 defines them.
_NNEF_NUMPY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "pow": np.power,
               "neg": np.negative, "abs": np.abs, "sign": np.sign, "exp": np.exp, "log": np.log, "sqrt": np.sqrt,
               "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
               "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh, "acosh": np.arccosh,
               "atanh": np.arctanh, "sigmoid": lambda x: 1.0 / (1.0 + np.exp(-x)), "min": np.minimum,
               "max": np.maximum, "floor": np.floor, "ceil": np.ceil, "lt": np.less, "gt": np.greater,
               "le": np.less_equal, "ge": np.greater_equal, "eq": np.equal, "ne": np.not_equal,
               "and": np.logical_and, "or": np.logical_or, "not": np.logical_not, "select": np.where,
               "copy": np.copy}


def test_backward_nnef_fragments_lower_to_standard_operations_that_compute_the_op(generated) -> None:
    """A backward op's NNEF fragment is a compound of NNEF's standard operations (ADR 0065): the
    official parser lowers a graph calling it into those operations alone, and they, computed by
    NumPy, give the backward op's values on seeded inputs (to the float32 of NNEF's literals)."""
    import nnef

    from dsl.counterparts import NNEF_OPERATIONS
    from generators.nnef.generator import fragment_name, nnef_name

    lowered = 0
    for ns in CATALOGUE.namespaces:
        document = (generated / "nnef" / f"{ns.key}.nnef").read_text()
        for op in (o for o in ns.concrete_ops if o.gradient_of):
            name = fragment_name(op.namespace, op.name)
            declared = document.split(f"fragment {name}(", 1)[1].split("\nfragment ", 1)[0]
            if "\n{\n" not in declared:
                continue  # (no body: a function without a standard operation, an enum, several cases)
            args = {a.name: ARG_VALUES.get(a.name, [a.default])[0] for a in op.args}
            attributes = "".join(f", {nnef_name(n)} = {v!r}" for n, v in args.items())
            graph = ("graph G( x, g ) -> ( y )\n{\n    x = external<scalar>(shape = [64]);\n"
                     f"    g = external<scalar>(shape = [64]);\n    y = {name}(x, g{attributes});\n}}\n")
            parsed = nnef.parse_string(document + "\n" + graph, lowered=[name])
            rng = np.random.default_rng(len(op.name))
            values = {"x": rng.uniform(-3.0, 3.0, 64), "g": rng.uniform(-2.0, 2.0, 64)}
            for operation in parsed.operations:
                if operation.name == "external":
                    continue
                assert operation.name in NNEF_OPERATIONS, (op.qualified_name, operation.name)
                operands = [values[v] if isinstance(v, str) else v for v in operation.inputs.values()]
                (out,) = operation.outputs.values()
                with np.errstate(all="ignore"):
                    values[out] = _NNEF_NUMPY[operation.name](*operands)
            env = {"x": jnp.asarray(values["x"]), "grad": jnp.asarray(values["g"]),
                   **{n: jnp.float64(v) for n, v in args.items()}}
            want = np.asarray(jax_evaluate(op.compute.expr, env, "float64"))
            # (the official parser keeps a literal as a float32: 2/sqrt(pi) in erf_bp is 1.1283792...;
            # where terms cancel, a few float32 epsilons of the largest value)
            scale = float(np.max(np.abs(want[np.isfinite(want)]), initial=1.0))
            np.testing.assert_allclose(values["y"], want, rtol=2e-7, atol=1e-6 * scale, err_msg=op.qualified_name)
            lowered += 1
    assert lowered >= 45, lowered
