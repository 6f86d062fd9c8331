"""The generated Python package, installed and run: `pip install out/python` works in a
fresh virtual env, the generated parity suite passes, C and NumPy agree on random cases
under the sanitizers, and the bindings refuse bad input with clear errors (the C library
alone: tests/test_generated_c_library.py)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import venv
from pathlib import Path

import pytest

from conftest import ROOT, GeneratedProjects, build_package
from dsl import counterparts
from dsl.loader import load
from generators.kernels.numpy_keywords import api_variants
from generators.kernels.selection import variants_of

NAMESPACES = [ns.key for ns in load(ROOT / "ops").catalogue.namespaces]


@pytest.fixture(scope="module")
def out(generated: GeneratedProjects) -> GeneratedProjects:
    return generated


def test_bindings_never_call_a_builtin_an_op_shadows(out: GeneratedProjects) -> None:
    """A module with ops named all, any, sum, max, range, ... must not call those builtins by
    name: the call would reach the op (it did once: base.replace_where called base.all)."""
    import ast
    import builtins

    for module in sorted((out / "python" / "src" / "opforge").rglob("*.py")):
        tree = ast.parse(module.read_text())
        defined = {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
        shadowed = defined & set(dir(builtins))
        calls = {node.func.id for node in ast.walk(tree)
                 if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
        assert not calls & shadowed, f"{module.name} calls {sorted(calls & shadowed)}, which its ops shadow"


@pytest.fixture(scope="module")
def installed(out: GeneratedProjects, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual env with `pip install out/python` (and pytest for the suite)."""
    env_dir = tmp_path_factory.mktemp("venv")
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    lock = ROOT / "requirements.lock"
    proc = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                           "-c", str(lock), str(out / "python"), "pytest", "mypy", "onnx", "ml_dtypes"],
                          capture_output=True, text=True, cwd=env_dir)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return python


def test_generated_parity_suite_passes(installed: Path, out: GeneratedProjects) -> None:
    proc = subprocess.run([str(installed), "-m", "pytest", "-q", "-p", "no:cacheprovider", str(out / "tests")],
                          capture_output=True, text=True, cwd=out / "tests")
    tail = proc.stdout.strip().splitlines()[-1]
    assert proc.returncode == 0, proc.stdout[-5000:]
    assert re.search(r"\d{3,} passed", tail), tail


#: AddressSanitizer and UndefinedBehaviorSanitizer, float-to-int overflow included (not part of "undefined").
SANITIZERS = "-fsanitize=address,undefined,float-cast-overflow"
RANDOM_CASES_PER_PAIR = 200


@pytest.fixture(scope="module")
def sanitized(installed: Path, out: GeneratedProjects, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The installed package with its C backend rebuilt under the sanitizers: the environment
    that runs it (the package first on the path, the ASan runtime preloaded into Python)."""
    folder = tmp_path_factory.mktemp("sanitized")
    flags = {"LDFLAGS": SANITIZERS,
             "CFLAGS": f"-O1 -ffp-contract=off -fno-omit-frame-pointer {SANITIZERS} -fno-sanitize-recover=all"}
    # (a Debug build: no optimisation flag of its own, so CFLAGS's -O1 holds; -g1, line tables for a
    # report's backtrace, at half the compile time of -g)
    build_package(out / "python", folder / "site", folder / "build", build_type="Debug", env=flags,
                  defines={"CMAKE_C_FLAGS_DEBUG": "-g1"})
    asan = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True, text=True, check=True)
    env = {**os.environ, "PYTHONPATH": str(folder / "site"), "LD_PRELOAD": asan.stdout.strip(),
           "ASAN_OPTIONS": "detect_leaks=0"}  # (CPython keeps its objects at exit)
    # The backend the runs below load is this instrumented build.
    loaded = subprocess.run([str(installed), "-c", "import opforge._opforge_c as m; print(m.__file__)"], env=env,
                            capture_output=True, text=True, check=True).stdout.strip()
    linked = subprocess.run(["ldd", loaded], capture_output=True, text=True, check=True).stdout
    assert Path(loaded).parent == folder / "site" / "opforge" and "libasan" in linked and "libubsan" in linked, linked
    return env


@pytest.mark.parametrize("key", NAMESPACES)
def test_random_cases_agree_under_sanitizers(installed: Path, out: GeneratedProjects, sanitized: dict[str, str], key: str) -> None:
    """200 seeded random cases per op and dtype (the parity cases in turn, fresh values with
    NaN, infinities and integer limits, half of them resized: empty axes, broadcast 1s): C and
    the NumPy reference agree or both refuse, and no sanitizer reports anything."""
    run = subprocess.run([str(installed), "random_cases.py", "--per", str(RANDOM_CASES_PER_PAIR), key],
                         cwd=out / "tests", env=sanitized, capture_output=True, text=True)
    said = run.stdout.strip().splitlines()
    counted = re.fullmatch(rf"{key}: (\d+) random cases over (\d+) op/dtype pairs, (\d+) failed", said[-1] if said else "")
    assert run.returncode == 0 and counted and counted[3] == "0", run.stdout[-4000:] + run.stderr[-4000:]
    assert int(counted[1]) == RANDOM_CASES_PER_PAIR * int(counted[2]) > 0
    assert "Sanitizer" not in run.stderr and "runtime error" not in run.stderr, run.stderr[-4000:]


BINDING_CHECKS = r'''
import numpy as np
from opforge import base, bitwise, cnn, linalg, math, nn, random

def fails(kind, message, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except kind as exc:
        assert str(exc) == message, (str(exc), message)
    else:
        raise AssertionError(f"no {kind.__name__}: {message}")

x = np.arange(6, dtype=np.float32).reshape(2, 3)
# out= of an elementwise op may overlap its inputs as a ufunc's may: the result is as if the
# inputs were read first (ADR 0073); any other op's out= overlaps no input (ADR 0006)
for backend in ("c", "python"):
    x1 = x.copy()
    assert math.add(x1, np.ones(3, np.float32), out=x1, backend=backend) is x1 and (x1 == x + 1).all()
    x2, x3 = x1.copy(), x1.copy()
    np.add(x2[:, :2], np.ones(2, np.float32), out=x2[:, 1:])
    assert math.add(x3[:, :2], np.ones(2, np.float32), out=x3[:, 1:], backend=backend).base is x3
    assert x3.tolist() == x2.tolist(), (x3, x2)
    x2, x3 = x1.copy(), x1.copy()  # (an input in out's place, from the first row on: no fast way)
    np.add(x2[:, ::-1], x2[::-1, ::-1], out=x2)
    assert math.add(x3[:, ::-1], x3[::-1, ::-1], out=x3, backend=backend) is x3 and x3.tolist() == x2.tolist()
    fails(ValueError, "math.matrix_transpose: out must not overlap x", math.matrix_transpose, x1, out=x1.reshape(3, 2),
          backend=backend)
    fails(ValueError, "math.sum: out must not overlap x", math.sum, x1, [1], out=x1[0, :2], backend=backend)
# dtypes promote as NumPy's do (ADR 0053): arrays by their dtype, Python scalars weakly, ufuncs by NumPy's loops
for backend in ("c", "python"):
    assert math.add(x, np.ones(3), backend=backend).dtype == np.float64
    assert math.add(x, 0.1, backend=backend).dtype == np.float32 and math.add(x, 0.1)[0, 0] == np.float32(0.1)
    assert math.add(np.int8([1]), np.uint8([200]), backend=backend).tolist() == [201]  # (int16)
    assert math.atan2(np.int8([1]), np.uint16([1]), backend=backend).dtype == np.float32  # (NumPy's loop)
    assert math.exp(np.ones(2, np.int32), backend=backend).dtype == np.float64
    assert math.mean(np.int8([1, 2]), backend=backend).dtype == np.float64  # (as NumPy's mean)
    assert base.not_(np.float32([0.0, np.nan, 2.0]), backend=backend).tolist() == [True, False, False]  # (truths)
    assert math.add(np.float32([1]), np.float64(2), backend=backend).dtype == np.float64  # (a NumPy scalar: strong)
    # matmul takes vectors as numpy.matmul does (ADR 0052): a row on the left, a column on the right
    assert math.matmul(np.ones(3), np.ones(3), backend=backend).shape == ()
    into = np.empty((2, 4))
    assert math.matmul(np.ones((2, 4, 3)), np.ones(3), out=into, backend=backend).tolist() == [[3.0] * 4] * 2
fails(ValueError, "math.add: x and y must have broadcastable shapes (x has shape (2, 3), y has shape (4,))",
      math.add, x, np.ones(4, np.float32))
fails(ValueError, "math.add: y = 300 is out of range for int8", math.add, np.int8([1]), 300)
fails(TypeError, "math.add: x must hold booleans or numbers, got <U1", math.add, "a", x)
# (NumPy's exp of int8 computes in float16, and so does opforge's: ADR 0075)
two = np.int8([1, 2])
assert math.exp(two).dtype == np.float16 and math.exp(two).tobytes() == np.exp(two).tobytes()
fails(TypeError, "math.add: NumPy's add computes x bool, y bool in bool, bool, which this op has no kernel for (it "
      "computes in int8 or int16 or int32 or int64 or uint8 or uint16 or uint32 or uint64 or float16 or float32 or "
      "float64)",
      math.add, np.ones(2, bool), True)
fails(TypeError, "math.sigmoid: x must have dtype float16 or float32 or float64, got bool", nn.sigmoid,
      np.ones(2, bool))
fails(TypeError, "base.gather: indices must have dtype int64, got float32", base.gather, x, np.float32([0]))
fails(ValueError, "math.round: mode must be one of half_to_even, half_away_from_zero, got 'up'", math.round, x, "up")
fails(ValueError, "math.log: base must be positive and not 1", math.log, x, 1.0)
fails(ValueError, "math.matmul: the inner dimensions of a and b must agree (a has shape (2, 3), b has shape (2, 3))",
      math.matmul, x, x)
# a refusal of the op's form names what it looked at (ADR 0029)
fails(ValueError, "math.max: cannot reduce no elements (x has shape (0, 3), axis = (0,))",
      math.max, np.zeros((0, 3), np.float32), [0])
fails(ValueError, "math.sum: axis: an axis is out of range for the rank of x (axis = (2,), x has shape (2, 3))",
      math.sum, x, [2])  # (the form's axes, under NumPy's keyword: ADR 0052)
fails(ValueError, "base.reshape: shape: does not hold the elements of x (shape = (4, -1), x has shape (2, 3))",
      base.reshape, x, [4, -1])
fails(ValueError, "random.bernoulli: p must be a probability", random.bernoulli, 1.5, shape=[2])
fails(ValueError, "random.uniform: dtype must be one of float32, float64, got int32", random.uniform, shape=[2], dtype="int32")
fails(TypeError, "random.uniform: random_config must be a RandomConfig, got dict", random.uniform, shape=[2], random_config={})
fails(ValueError, "base.gt: x and y must have the same shape, or one of them must be a scalar "
      "(x has shape (2, 3), y has shape (3,))", math.gt, x, x[0])
fails(ValueError, "math.add: out has shape (3,), the result has shape (2, 3)", math.add, x, x, out=np.zeros(3, np.float32))
fails(ValueError, "math.add: backend must be 'c' or 'python', got 'gpu'", math.add, x, x, backend="gpu")
# out= takes any dtype the result casts to by NumPy's same_kind rule, as a ufunc's out does
ints = np.arange(4, dtype=np.int32)
for wider in (np.float64, np.int16):
    into = np.zeros(4, wider)
    assert math.add(ints, ints, out=into) is into and into.tolist() == np.add(ints, ints, dtype=wider).tolist()
fails(TypeError, "math.add: out has dtype int32, which the result's float32 does not cast to by NumPy's same_kind "
      "rule", math.add, x, x, out=np.zeros((2, 3), np.int32))
# out= keeps its shape: the result is broadcast into it, also when it aliases an input
big = np.zeros((4, 2, 3), np.float32)
assert math.add(x, x, out=big) is big and np.array_equal(big[3], 2 * x)
y = x.copy()
math.add(y, y, out=y)
assert np.array_equal(y, 2 * x)
# non-contiguous inputs and outputs
z = np.zeros((2, 6), np.float32)[:, ::2]
assert np.array_equal(math.add(x, x, out=z), 2 * x) and np.array_equal(z, 2 * x)
# tensor lists (ADR 0018) and several outputs (ADR 0019)
fails(TypeError, "base.concat: inputs must be a list or tuple of arrays, got ndarray", base.concat, x)
fails(ValueError, "base.concat: inputs must hold at least 1 tensor(s), got 0", base.concat, [])
assert base.concat([x, x.astype(np.float64)]).dtype == np.float64  # (promoted as NumPy's concatenate: ADR 0053)
assert base.concat([np.int8([1]), np.uint8([200]), [True]]).tolist() == [1, 200, 1]  # (int16)
fails(TypeError, "base.concat: inputs[1] must hold booleans or numbers, got <U1", base.concat, [x, np.array(["a"])])
fails(ValueError, "base.stack: inputs: must all have the same shape (inputs have shapes [(2, 3), (3, 2)])",
      base.stack, [x, x.T])
assert base.concat([x, [[7, 8, 9]]]).tolist() == [[0, 1, 2], [3, 4, 5], [7, 8, 9]]
mean, variance = math.moments(x, axis=1)
assert math.moments(x, axis=1).mean.tolist() == mean.tolist() == [1.0, 4.0]
buffer = np.empty(2, np.float32)
fails(ValueError, "math.moments: the arrays of out must not overlap", math.moments, x, [1], out=(buffer, buffer))
fails(TypeError, "math.moments: out must be None or a tuple of 2 arrays (None for any to allocate), got ndarray",
      math.moments, x, [1], out=buffer)
assert math.moments(x, [1], out=(buffer, None)).mean is buffer
# cast: every conversion defined, the same on both backends
for backend in ("c", "python"):
    def cast(values, dtype, source=None):
        return base.cast(np.array(values, source), dtype, backend=backend).tolist()
    assert cast([-1.75, 2.5, 300.0, -300.0, np.nan, np.inf, -np.inf], "int8") == [-1, 2, 127, -128, 0, 127, -128]
    assert cast([1e19, -1e19, 2.0**63], "int64") == [2**63 - 1, -2**63, 2**63 - 1]
    assert cast([-0.5, 255.9, 256.0], "uint8") == [0, 255, 255]
    assert cast([200, 256, -129], "int8", np.int32) == [-56, 0, 127]
    assert cast([np.nan, 0.0, -0.0, 0.25], "bool") == [True, False, False, True]
    assert cast([1e300, -1e300], "float32") == [np.inf, -np.inf]
    assert cast([2**62 + 1], "float32", np.int64) == [2.0**62]
    assert cast([True, False], "float64") == [1.0, 0.0]
# big-endian arrays in and out: the same values as native ones
swapped = np.arange(6, dtype=">f4").reshape(2, 3)
for backend in ("c", "python"):
    into = np.zeros((2, 3), ">f4")
    assert math.add(swapped, swapped, backend=backend).tolist() == (2 * x).tolist()
    assert math.add(x, x, out=into, backend=backend) is into and into.tolist() == (2 * x).tolist()
# integer edge cases: each defined, documented on the op's page, the same on both backends
i32 = np.iinfo(np.int32)
low, minus_one = np.int32([i32.min]), np.int32([-1])
for backend in ("c", "python"):
    assert math.div(low, minus_one, backend=backend).tolist() == [i32.min]  # wraps to itself
    assert math.floor_div(low, minus_one, backend=backend).tolist() == [i32.min]
    assert math.mod(low, minus_one, backend=backend).tolist() == [0]
    assert math.fmod(low, minus_one, backend=backend).tolist() == [0]
    # (NumPy's mod floors, with y's sign; fmod truncates, with x's: ADR 0050)
    assert math.mod(np.int32([-7, 7]), np.int32([3, -3]), backend=backend).tolist() == [2, -2]
    assert math.fmod(np.int32([-7, 7]), np.int32([3, -3]), backend=backend).tolist() == [-1, 1]
    assert math.remainder is math.mod and math.floor_mod is math.mod
    assert math.div(np.int32([7, -7]), np.int32([0, 0]), backend=backend).tolist() == [0, 0]  # x / 0 is 0
    assert math.abs(low, backend=backend).tolist() == [i32.min] and math.neg(low, backend=backend).tolist() == [i32.min]
    amounts = np.int32([31, 32, 33, 100, -1])
    assert bitwise.left_shift(np.int32([1] * 5), amounts, backend=backend).tolist() == [i32.min, 0, 0, 0, 0]
    assert bitwise.right_shift(np.int32([-8] * 5), amounts, backend=backend).tolist() == [-1] * 5
    assert bitwise.right_shift(np.int32([8] * 5), amounts, backend=backend).tolist() == [0] * 5
    assert bitwise.left_shift(np.uint8([1, 1]), np.uint8([7, 8]), backend=backend).tolist() == [128, 0]
# data-dependent lengths: a buffer as long as x, then the count (list_diff); a failing shaped kernel
for backend in ("c", "python"):
    values, indices, count = math.list_diff(np.array([1.0, np.nan, 2.0, 3.0]), np.array([2.0, np.nan]), backend=backend)
    assert np.array_equal(values, [1.0, np.nan, 3.0, 0.0], equal_nan=True) and indices.tolist() == [0, 1, 3, 0]
    assert count == 3
    assert math.confusion_matrix([0, 2, 2], [0, 1, 2], 3, backend=backend).tolist() == [[1, 0, 0], [0, 0, 0], [0, 1, 1]]
    fails(ValueError, "math.confusion_matrix: a label or prediction lies outside 0..num_classes-1",
          math.confusion_matrix, [0, 5], [0, 1], 3, backend=backend)
# random numbers as NumPy's generators draw them (ADR 0054): unseeded draws differ, a Generator's draws
# continue one stream (the same as one draw of them all), the same seed replays them
assert not np.array_equal(random.uniform(shape=[8]), random.uniform(shape=[8]))
for backend in ("c", "python"):
    rng = random.default_rng(11)
    first, second = rng.uniform(shape=[3], backend=backend), rng.normal(shape=[2, 2], backend=backend)
    assert (rng.seed, rng.offset) == (11, 7) and repr(rng) == "Generator(seed=11, offset=7)"
    assert np.array_equal(first, random.uniform(shape=[3], random_config=random.RandomConfig(seed=11)))
    assert np.array_equal(second, random.normal(shape=[2, 2], random_config=random.RandomConfig(seed=11, offset=3)))
    assert np.array_equal(random.Generator(11).uniform(shape=[3], backend=backend), first)
    assert random.Generator(5, offset=2**63 - 1).uniform(shape=[2]).shape == (2,)  # (the counter wraps)
assert random.default_rng().seed != random.default_rng().seed
# dropout's own stream args: its seed left out is fresh entropy too; a Generator gives it the next elements
assert not np.array_equal(nn.dropout(np.ones(64)), nn.dropout(np.ones(64)))
rng = random.Generator(7, offset=3)
assert np.array_equal(rng.dropout(np.ones(10), 0.25), nn.dropout(np.ones(10), 0.25, seed=7, offset=3))
assert rng.offset == 13 and np.array_equal(rng.uniform(shape=[2]), random.uniform(
    shape=[2], random_config=random.RandomConfig(seed=7, offset=13)))
fails(TypeError, "Generator: seed must be an integer, got float", random.Generator, 1.5)
# dropout drops where random.uniform's float64 stream (same seed and offset) is below p
ones = np.ones(1000)
u = random.uniform(shape=[1000], dtype="float64", random_config=random.RandomConfig(seed=7, offset=3))
for backend in ("c", "python"):
    dropped = nn.dropout(ones, p=0.25, seed=7, offset=3, backend=backend)
    assert np.array_equal(dropped == 0, u < 0.25) and set(np.unique(dropped)) == {0.0, 1 / 0.75}
    # (outside training, x itself: ONNX's Dropout at inference)
    assert np.array_equal(nn.dropout(u, p=0.5, training=False, backend=backend), u)
    # top_k: the largest first, NaN before every number; or the smallest first, NaN after; ties by index
    row = np.array([[3.0, np.nan, 1.0, 1.0, -2.0, np.nan]])
    values, indices = nn.top_k(row, 3, backend=backend)
    assert np.isnan(values[0, :2]).all() and values[0, 2] == 3.0 and indices.tolist() == [[1, 5, 0]]
    values, indices = nn.top_k(row, 5, largest=False, backend=backend)
    assert values[0, :4].tolist() == [-2.0, 1.0, 1.0, 3.0] and indices.tolist() == [[4, 2, 3, 0, 1]]
    mean, variance = math.normalize_moments(np.array([4.0, 6.0]), np.array([10.0, 20.0]), counts=2.0, backend=backend)
    assert mean.tolist() == [2.0, 3.0] and variance.tolist() == [1.0, 1.0]
rng = np.random.default_rng(0)
# svd: x = U diag(s) V^T with orthonormal columns, both orientations, both backends
for shape in ((2, 5, 3), (3, 4)):
    x = rng.standard_normal(shape)
    for backend in ("c", "python"):
        s, u, v = linalg.svd(x, backend=backend)
        assert np.allclose(u * s[..., None, :] @ np.swapaxes(v, -1, -2), x)
        assert np.allclose(s, np.linalg.svd(x, compute_uv=False))
        assert np.allclose(np.swapaxes(u, -1, -2) @ u, np.eye(min(shape[-2:])))
        assert np.allclose(np.swapaxes(v, -1, -2) @ v, np.eye(min(shape[-2:])))
# attention against its formula, softmax(Q K^T / sqrt(d)) V, on both backends
q, k, v = (rng.standard_normal(s) for s in ((2, 3, 4), (2, 5, 4), (2, 5, 2)))
def attend(q, k, v, mask, scale=None, softcap=0.0):
    s = q @ np.swapaxes(k, -1, -2) * (1 / np.sqrt(q.shape[-1]) if scale is None else scale)
    s = np.where(mask, softcap * np.tanh(s / softcap) if softcap else s, -np.inf)
    w = np.exp(s - s.max(-1, keepdims=True))
    return (w / w.sum(-1, keepdims=True)) @ v
for backend in ("c", "python"):
    assert np.allclose(nn.dot_product_attention(q, k, v, backend=backend), attend(q, k, v, True))
    assert np.allclose(nn.dot_product_attention(q, k, v, causal=True, backend=backend),
                       attend(q, k, v, np.tri(3, 5) > 0))
    # ONNX's scale (in place of 1 / sqrt(d)) and softcap (after the scale, before the mask)
    assert np.allclose(nn.dot_product_attention(3 * q, k, v, scaled=False, scale=0.7, softcap=1.5, causal=True,
                                                backend=backend), attend(3 * q, k, v, np.tri(3, 5) > 0, 0.7, 1.5))
fails(ValueError, "nn.dot_product_attention: softcap must not be negative", nn.dot_product_attention,
      q, k, v, softcap=-1.0)
# the keys a query sees: query i stands at position i + offset; causal and the window count from there
# (offset 2 = Lk - Lq: the bottom-right causal mask of a cache); a query that sees no key gives zeros
at = np.arange(3)[:, None] + 2 - np.arange(5)[None, :]  # (position minus key)
mask = rng.standard_normal((2, 3, 5))
mask[0, 1, :] = -np.inf  # (a query whose every key is masked)
mask[1, 0, 2] = -np.inf
hidden = np.where(np.isinf(mask), -np.inf, mask)
for backend in ("c", "python"):
    assert np.allclose(nn.dot_product_attention(q, k, v, causal=True, offset=2, backend=backend),
                       attend(q, k, v, at >= 0))
    assert np.allclose(nn.dot_product_attention(q, k, v, offset=2, left_window=1, right_window=0, backend=backend),
                       attend(q, k, v, (at >= 0) & (at <= 1)))
    assert not nn.dot_product_attention(q, k, v, causal=True, offset=-1, backend=backend)[:, 0].any()
    masked = nn.masked_dot_product_attention(q, k, v, mask, causal=True, offset=2, backend=backend)
    s = q @ np.swapaxes(k, -1, -2) / 2 + hidden
    s = np.where(at >= 0, s, -np.inf)
    with np.errstate(all="ignore"):
        w = np.exp(s - s.max(-1, keepdims=True))
        want = np.nan_to_num((w / w.sum(-1, keepdims=True)) @ v)
    assert np.allclose(masked, want) and not masked[0, 1].any(), (masked, want)
    # the scores at ONNX's four stages: the products, capped, masked (-inf where unseen), the weights
    raw = q @ np.swapaxes(k, -1, -2) / 2
    scores = {stage: nn.attention_scores(q, k, mask, causal=True, offset=2, softcap=1.5, stage=stage, backend=backend)
              for stage in ("product", "capped", "masked", "softmax")}
    assert np.allclose(scores["product"], raw) and np.allclose(scores["capped"], 1.5 * np.tanh(raw / 1.5))
    assert np.array_equal(np.isinf(scores["masked"]), np.isinf(hidden) | (at < 0))
    weights = scores["softmax"]
    assert np.allclose(weights.sum(-1), [[1, 0, 1], [1, 1, 1]]) and not weights[np.isinf(scores["masked"])].any()
    assert nn.attention_scores(q.astype(np.float16), k.astype(np.float16), mask.astype(np.float16),
                               backend=backend).dtype == np.float16
fails(ValueError, "nn.masked_dot_product_attention: mask must have a row per query and a column per key (mask has "
      "shape (2, 5, 3), queries has shape (2, 3, 4), keys has shape (2, 5, 4))", nn.masked_dot_product_attention,
      q, k, v, np.swapaxes(mask, -1, -2))
# (a query's position and its window's ends must fit in int64: offset and the windows within 2^60)
for backend in ("c", "python"):
    for bound in ({"offset": -(1 << 61)}, {"left_window": 1 << 61}, {"right_window": (1 << 60) + 1}):
        fails(ValueError, "nn.dot_product_attention: offset, left_window and right_window must be at most 2^60 from 0",
              nn.dot_product_attention, q, k, v, backend=backend, **bound)
    assert nn.dot_product_attention(q, k, v, offset=1 << 60, left_window=1 << 60, backend=backend).shape == (2, 3, 2)
# depthwise: each channel with its own filter, as conv2d of that channel alone (ONNX's group = channels)
xd, wd = rng.standard_normal((2, 3, 6, 5)).astype(np.float32), rng.standard_normal((3, 1, 3, 2)).astype(np.float32)
for backend in ("c", "python"):
    options = {"strides": [2, 1], "dilations": [1, 2], "pads": [1, 0, 1, 1], "backend": backend}
    got = cnn.depthwise_conv2d(xd, wd[:, 0], **options)
    assert np.allclose(got, np.concatenate([cnn.conv2d(xd[:, c:c + 1], wd[c:c + 1], **options) for c in range(3)],
                                           axis=1), atol=1e-5)
# ONNX's linear quantization, per tensor: float32 quotients rounded half to even, saturated, NaN the zero point
x = np.array([0.5, 1.5, 2.5, -0.5, 300.0, -300.0, np.nan, 7.0], np.float32)
for backend in ("c", "python"):
    got = math.quantize_linear(x, np.float32(1.0), np.uint8(3), backend=backend)
    assert got.dtype == np.uint8 and got.tolist() == [3, 5, 5, 3, 255, 0, 3, 10], got
    got = math.quantize_linear(x, np.float32(2.0), np.array([-1], np.int16), backend=backend)
    assert got.dtype == np.int16 and got.tolist() == [-1, 0, 0, -1, 149, -151, -1, 3], got
    got = math.dequantize_linear(np.array([0, 3, 255], np.uint8), np.float32(0.5), np.uint8(3), backend=backend)
    assert got.dtype == np.float32 and got.tolist() == [-1.5, 0.0, 126.0], got
fails(ValueError, "math.quantize_linear: scale and zero_point must each hold one value (per-tensor quantization; "
      "per-axis and blocked scales are not taken)", math.quantize_linear, x, np.ones(2, np.float32), np.uint8(0))
# multi-head: project, attend per head on column blocks, join, project
wq, wk, wv, wo = (rng.standard_normal(s) for s in ((4, 6), (4, 6), (2, 4), (4, 3)))
qp, kp, vp = q @ wq, k @ wk, v @ wv
joined = np.concatenate([attend(qp[..., 3 * h:3 * h + 3], kp[..., 3 * h:3 * h + 3], vp[..., 2 * h:2 * h + 2],
                                np.tri(3, 5) > 0) for h in range(2)], axis=-1)
for backend in ("c", "python"):
    assert np.allclose(nn.multi_head_dot_product_attention(q, k, v, wq, wk, wv, wo, num_heads=2, causal=True,
                                                           backend=backend), joined @ wo)
assert np.allclose(nn.linear(q, k[0].T, v[0, :, 0]), q @ k[0].T + v[0, :, 0])
fails(ValueError, "nn.dot_product_attention: values must have as many rows as keys (values has shape (2, 4, 2), "
      "keys has shape (2, 5, 4))", nn.dot_product_attention, q, k, v[:, :4])
# list outputs: split, unstack and meshgrid give numpy's arrays, into out= arrays when given
t = np.arange(24, dtype=np.int16).reshape(2, 6, 2)
for backend in ("c", "python"):
    parts = base.split(t, 3, axis=1, backend=backend)
    assert isinstance(parts, list) and all(np.array_equal(a, b) for a, b in zip(parts, np.split(t, 3, axis=1)))
    rows = base.unstack(t, axis=-1, backend=backend)
    assert len(rows) == 2 and all(np.array_equal(rows[j], t[..., j]) for j in range(2))
    assert base.unstack(np.zeros((0, 3)), backend=backend) == []
    grids = math.meshgrid([np.arange(3.0), np.arange(4.0), np.arange(2.0)], backend=backend)
    assert all(np.array_equal(a, b) for a, b in zip(grids, np.meshgrid(np.arange(3.0), np.arange(4.0),
                                                                        np.arange(2.0)), strict=True))
    grids = math.meshgrid([np.arange(3), np.arange(4).reshape(2, 2)], cartesian=False, backend=backend)
    assert all(np.array_equal(a, b) for a, b in zip(grids, np.meshgrid(np.arange(3), np.arange(4), indexing="ij"),
                                                    strict=True))
    given = [np.empty((2, 2, 2), np.int16) for _ in range(3)]
    assert all(a is b for a, b in zip(base.split(t, 3, axis=1, out=given, backend=backend), given))
    fails(ValueError, "base.split: x: the size of the axis is not a multiple of num (x has shape (2, 6, 2), axis = 1, "
          "num = 4)", base.split, t, 4, axis=1,
          backend=backend)
    fails(TypeError, "base.split: out must be None or a list of 3 arrays (None for any to allocate), got list of 2",
          base.split, t, 3, axis=1, out=given[:2], backend=backend)
    fails(ValueError, "math.meshgrid: inputs: at most 8 tensors (one grid axis each) (inputs have shapes "
          f"{[(1,)] * 9})", math.meshgrid, [np.ones(1)] * 9, backend=backend)
# tensor_mmul: numpy.tensordot, with ND4J's transposes reversing axes
a3, b3 = rng.standard_normal((3, 2, 4)), rng.standard_normal((4, 5, 3))
for backend in ("c", "python"):
    assert np.allclose(base.tensor_mmul(a3, b3, [0, 2], [2, 0], backend=backend), np.tensordot(a3, b3, ([0, 2], [2, 0])))
    assert np.allclose(base.tensor_mmul(a3, b3, [2, 0], [0, 2], transpose_x=True, transpose_y=True, transpose_z=True,
                                        backend=backend), np.tensordot(a3.T, b3.T, ([2, 0], [0, 2])).T)
    assert np.array_equal(base.tensor_mmul(np.int8([[100, 100]]), np.int8([[2], [1]]), [1], [0], backend=backend),
                          np.int8([[44]]))  # 300 wraps to 44
    fails(ValueError, "base.tensor_mmul: dimensions_x, dimensions_y: must name as many axes each "
          "(dimensions_x = (0,), dimensions_y = ())",
          base.tensor_mmul, a3, b3, [0], [], backend=backend)
# integers through floats (ADR 0058): clip_by_value (no NumPy name) clips int8 in int8, truncating the real
# result; mean and sin keep NumPy's meaning in Python (float64; NumPy's float16 loop, ADR 0075)
small = np.int8([-128, -3, 0, 2, 3, 7, 8, 127])
for backend in ("c", "python"):
    clipped = math.clip_by_value(small, 2.5, 7.5, backend=backend)
    assert clipped.dtype == np.int8 and clipped.tolist() == [2, 2, 2, 2, 3, 7, 7, 7]
    assert math.clip_by_value(np.int16([-300, 5, 300]), -200.0, 200.0, backend=backend).tolist() == [-200, 5, 200]
    assert math.mean(small, backend=backend).dtype == np.float64 and math.mean(small, backend=backend) == np.mean(small)
    assert math.sin(small, backend=backend).tobytes() == np.sin(small).tobytes()  # (float16, as NumPy's)
# matmul in register tiles (ADR 0027): every element still sums its products in order of k, so the C kernel
# equals a sum taken one k at a time in the dtype, to the bit: full 8 x 32 tiles, edge tiles, a broadcast batch,
# an empty reduction, wrapping integers, and a tensordot plan whose operands swap roles
def in_order(a, b):
    acc = np.zeros(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1]), a.dtype)
    for k in range(a.shape[-1]):
        acc = acc + a[..., :, k:k + 1] * b[..., k:k + 1, :]
    return acc
for dtype in ("float32", "float64", "int32"):
    for sa, sb in (((2, 19, 70), (70, 45)), ((1, 8, 33), (3, 33, 64)), ((5, 0), (0, 3)), ((1, 9), (9, 1))):
        a = (rng.standard_normal(sa) * 1e5).astype(dtype)
        b = (rng.standard_normal(sb) * 1e5).astype(dtype)
        with np.errstate(over="ignore"):
            want = in_order(a, b)
        assert np.array_equal(math.matmul(a, b), want), (dtype, sa, sb)
        assert np.allclose(math.matmul(a, b, backend="python"), want, rtol=1e-4) or dtype == "int32"
xs, ys = rng.standard_normal((40, 37)).astype(np.float32), rng.standard_normal((21, 40)).astype(np.float32)
assert np.array_equal(base.tensor_mmul(xs, ys, [0], [1], transpose_z=True), in_order(ys, xs))
# reductions over leading axes run a row of outputs per pass, contiguous arg reductions by lanes then a scan
# (ADR 0027): the same results, to the bit, as the one-output loops the transposed array takes
m = (rng.standard_normal((300, 70)) * 1e3).astype(np.float32)
m[3, 5] = m[7, 5] = m.max() + 1  # a tie: the first is the index
m[:, 9], m[40, 11], m[41:, 12] = -0.0, np.nan, 0.0  # signed zeros, one NaN, zeros after a finite run
t = np.ascontiguousarray(m.T)
for name in ("sum", "mean", "prod", "max", "min", "norm2", "variance"):
    fn = getattr(math, name)
    with np.errstate(all="ignore"):
        assert np.array_equal(fn(m, [0]), fn(t, [1]), equal_nan=True), name
assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(math.moments(m, [0]), math.moments(t, [1])))
for name in ("argmax", "argmin"):
    fn = getattr(math, name)
    assert np.array_equal(fn(t, -1), fn(m, 0)) and np.array_equal(fn(m, -1), fn(t, 0)), name
    assert np.array_equal(fn(t, -1), getattr(np, name)(t, -1)), name
# match_condition_indices: numpy.flatnonzero of the match, in a capacity of every element, and the count
m = np.array([[0.5, np.nan, 3.0], [-4.0, 2.5, np.inf]], np.float32)
for backend in ("c", "python"):
    found, count = base.match_condition_indices(m, "abs_gt", 1.0, backend=backend)
    assert found.tolist() == [2, 3, 4, 5, 0, 0] and count.shape == () and int(count) == 4
    found, count = base.match_condition_indices(m, "is_nan", backend=backend)
    assert found.tolist() == [1, 0, 0, 0, 0, 0] and int(count) == 1
    assert int(base.match_condition_indices(np.zeros((0, 3)), "eq", backend=backend).count) == 0
# keywords of every signature
assert math.log(np.float32([8.0]), base=2.0)[0] == 3.0
assert random.uniform(shape=[3], random_config=random.RandomConfig(seed=5)).shape == (3,)
assert bitwise.and_ is not None if hasattr(bitwise, "and_") else True
# the fixed-point arrays ship with the package (their rules: tests/test_fixed_point.py)
import opforge
from opforge import fixed_point
assert "fixed_point" in opforge.__all__ and fixed_point.quantize([0.5, -2.0], "q7").stored.tolist() == [64, -128]
print("bindings ok")
'''


SPOILED_BINDING_CALLS = r'''
import inspect
import numpy as np
import opforge

# Every op's first tensor given a string, a list of mixed types, or an object, on both
# backends (every other required parameter valid-looking): each call must raise TypeError.
calls, wrong = 0, []
for module in (getattr(opforge, name) for name in opforge.__all__):
    for name, fn in vars(module).items():
        if name.startswith("_") or inspect.isclass(fn) or not callable(fn) or fn.__module__ != module.__name__:
            continue
        signature = inspect.signature(fn)
        required = [p for p in signature.parameters.values() if p.default is p.empty and p.kind is p.POSITIONAL_OR_KEYWORD]
        if "backend" not in signature.parameters or not required or "ArrayLike" not in str(required[0].annotation):
            continue
        listed = str(required[0].annotation).startswith("Sequence")
        for backend in ("c", "python"):
            for spoiled in ("abc", ["a", 1.5], object()):
                kwargs = {p.name: (([np.ones((2, 2), np.float32)] if str(p.annotation).startswith("Sequence")
                                    else np.ones((2, 2), np.float32)) if "ArrayLike" in str(p.annotation) else 1)
                          for p in required}
                kwargs[required[0].name] = [spoiled] if listed else spoiled
                calls += 1
                try:
                    fn(**kwargs, backend=backend)
                except TypeError:
                    continue
                except Exception as exc:
                    wrong.append(f"{module.__name__}.{name} {backend} {spoiled!r}: {type(exc).__name__}: {exc}")
                else:
                    wrong.append(f"{module.__name__}.{name} {backend} {spoiled!r}: no error")
assert not wrong, "\n".join(wrong[:20])
print(calls)
'''


def test_bindings_refuse_spoiled_tensors_with_type_errors(installed: Path, tmp_path: Path) -> None:
    script = tmp_path / "spoiled.py"
    script.write_text(SPOILED_BINDING_CALLS)
    proc = subprocess.run([str(installed), str(script)], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert int(proc.stdout) >= 1000


def test_bindings_raise_clear_errors(installed: Path, tmp_path: Path) -> None:
    script = tmp_path / "checks.py"
    script.write_text(BINDING_CHECKS)
    proc = subprocess.run([str(installed), str(script)], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.strip() == "bindings ok", proc.stderr[-3000:]


NARROW_CHECKS = r'''
import ml_dtypes
import numpy as np
from onnx.numpy_helper import to_float8e8m0
from opforge import base

# Inputs: float32 bit patterns across the whole range, the edges of the formats, and float64
# values the float32 ones cannot hold (a float64 rounds once, as ml_dtypes' astype).
f32 = np.arange(0, 2**32, 40009, dtype=np.uint64).astype(np.uint32).view(np.float32)
edges = [0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 448, 464, 470, 480, 240, 248, 57344, 61440, 65536, 6, 5,
         0.25, 0.75, 2.0**-10, 2.0**-9 * 1.5, 2.0**-17, 1e-7, -1e-7, 1e6, -1e6, -9, 300, -300]
f32 = np.concatenate([f32, np.array(edges, np.float32)])
rng = np.random.default_rng(0)
f64 = rng.standard_normal(20000) * np.exp2(rng.uniform(-140, 140, 20000))
with np.errstate(all="ignore"):
    for backend in ("c", "python"):
        for x in (f32, f64):
            for name in ("float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz"):
                t = getattr(ml_dtypes, name)
                got = base.encode_narrow(x, name, saturate=False, backend=backend)
                assert got.dtype == np.uint8 and np.array_equal(got, x.astype(t).view(np.uint8)), (name, backend)
                # ONNX's saturate: the finite range's ends for overflows and infinities, NaN kept
                info = ml_dtypes.finfo(t)
                clipped = np.where(np.isnan(x), x, np.clip(x, float(info.min), float(info.max)))
                got = base.encode_narrow(x, name, backend=backend)
                assert np.array_equal(got, clipped.astype(t).view(np.uint8)), (name, backend, "saturate")
            numbers = ~np.isnan(x)  # (float4 has no NaN: NaN is 0 here, ml_dtypes' is a zero too)
            got = base.encode_narrow(x, "float4_e2m1fn", backend=backend)
            assert np.array_equal(got[numbers], x[numbers].astype(ml_dtypes.float4_e2m1fn).view(np.uint8))
            assert (got[~numbers] == 0).all()
            small = np.where(np.abs(x) < 2.0**31, x, 0.0)  # (beyond int32 ml_dtypes' C++ cast is undefined)
            for name in ("int4", "uint4", "int2", "uint2"):
                got = base.encode_narrow(small, name, backend=backend)
                assert np.array_equal(got, small.astype(getattr(ml_dtypes, name)).view(np.uint8)), (name, backend)
            got = base.encode_bfloat16(x, backend=backend)
            assert got.dtype == np.uint16 and np.array_equal(got, x.astype(ml_dtypes.bfloat16).view(np.uint16))
        for saturate in (True, False):
            for mode in ("nearest", "up", "down"):
                got = base.encode_narrow(f32, "float8_e8m0fnu", saturate=saturate, round_mode=mode, backend=backend)
                assert np.array_equal(got, to_float8e8m0(f32, saturate, mode).view(np.uint8)), (saturate, mode)
        # decoding: every code, exactly as ml_dtypes reads it (NaN where it reads NaN, zeros' signs)
        for name in ("float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
                     "float4_e2m1fn", "int4", "uint4", "int2", "uint2"):
            t = getattr(ml_dtypes, name)
            count = 2 ** {"int4": 4, "uint4": 4, "float4_e2m1fn": 4, "int2": 2, "uint2": 2}.get(name, 8)
            codes = np.arange(count, dtype=np.uint8)
            got, theirs = base.decode_narrow(codes, name, backend=backend), codes.view(t).astype(np.float32)
            assert got.dtype == np.float32 and np.array_equal(got, theirs, equal_nan=True), (name, backend)
            assert np.array_equal(np.signbit(got[~np.isnan(got)]), np.signbit(theirs[~np.isnan(theirs)]))
            if count < 256:
                try:
                    base.decode_narrow(np.array([count], np.uint8), name, backend=backend)
                except ValueError as exc:
                    assert "a code lies outside the format's codes" in str(exc), exc
                else:
                    raise AssertionError(f"decode_narrow took code {count} of {name}")
        codes = np.arange(2**16, dtype=np.uint16)
        got = base.decode_bfloat16(codes, backend=backend)
        assert np.array_equal(got, codes.view(ml_dtypes.bfloat16).astype(np.float32), equal_nan=True)
        try:
            base.encode_narrow(f32, "float8_e4m3fn", round_mode="up", backend=backend)
        except ValueError as exc:
            assert "round_mode up or down is float8_e8m0fnu's only" in str(exc), exc
        else:
            raise AssertionError("encode_narrow took round_mode up for float8_e4m3fn")
print("narrow ok")
'''


def test_narrow_formats_encode_and_decode_as_ml_dtypes_and_onnx(installed: Path, tmp_path: Path) -> None:
    """bfloat16, the float8, float4 and 4- and 2-bit integer codes of encode_narrow, decode_narrow and
    the bfloat16 pair equal ml_dtypes' (which ONNX's reference uses), and e8m0's ONNX's own rule,
    on both backends."""
    script = tmp_path / "narrow.py"
    script.write_text(NARROW_CHECKS)
    proc = subprocess.run([str(installed), str(script)], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.strip() == "narrow ok", proc.stderr[-3000:]


UFUNC_CHECKS = r'''
import json, sys
import numpy as np
import opforge
from opforge import _opforge_ufuncs as ufuncs

ops = json.loads(sys.argv[1])  # (the ops the generator made ufuncs of: module, function, ufunc)


class Checked(np.ndarray):
    pass


NUMPY_ORDER = [t[0] for t in np.add.types]


rng = np.random.default_rng(5)
checked = 0
for module, function, name in ops:
    fn = getattr(getattr(opforge, module), function)
    u = getattr(ufuncs, name)
    assert isinstance(u, np.ufunc) and u.nin == u.nargs - 1, name
    # (NumPy's loop order, as its own add lists them, float16 before float32: so a ufunc runs the
    # loop NumPy's promotion would)
    firsts = [NUMPY_ORDER.index(t[0]) for t in u.types]
    assert firsts == sorted(firsts), (name, u.types)
    for types in u.types:
        dtype = np.dtype(types[0])
        def draw(shape):
            if dtype.kind == "b":
                return rng.random(shape) < 0.5
            if dtype.kind == "f":
                return (rng.standard_normal(shape) * 3).astype(dtype)
            info = np.iinfo(dtype)
            return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
        # Every way the block loop takes its operands: contiguous over several blocks, a broadcast
        # (step 0), a strided view, a reversed one, and a strided out=.
        big = [draw((1300,)) for _ in range(u.nin)]
        cases = [(big, None), ([a[::3] for a in big], None), ([a[::-1] for a in big], None),
                 ([big[0][:5], *[a[:1].reshape(()) for a in big[1:]]], None),
                 ([draw((4, 1)), *[draw((1, 700)) for _ in big[1:]]][:u.nin], None)]
        cases.append((big, np.empty(2600, np.dtype(types[-1]))[::2]))
        for arrays, out in cases:
            # (the checked way's C call: an ndarray subclass is not the fast path's)
            want = fn(*[a.view(Checked) for a in arrays])
            got = fn(*arrays) if out is None else fn(*arrays, out=out)
            direct = u(*arrays)
            assert type(want) is np.ndarray and (out is None or got is out), (name, types)
            assert got.dtype == want.dtype and got.shape == want.shape, (name, types, got.dtype, want.dtype)
            same = np.array_equal(got, want, equal_nan=dtype.kind == "f")
            assert same and np.array_equal(direct, want, equal_nan=dtype.kind == "f"), (name, types)
            checked += 1
        if u.nin == 2 and dtype.kind in "iu" and types[-1] == types[0]:  # (a reduction: one element at a time)
            folded = big[0][0]
            for v in big[0][1:100]:
                folded = u(folded, v)
            assert u.reduce(big[0][:100], dtype=dtype) == folded, (name, types)  # (add: no upcast)
# Python numbers beside arrays (NEP 50's weak scalars) take the ufunc too, as the checked way makes
# them: the same result, or the same refusal in the same words, and the same warnings.
import warnings
numbers = (True, 3, -1, 300, 2**70, 0.5, -2.5, 1e300)


def outcome(fn, args):
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        try:
            result = fn(*args)
        except (TypeError, ValueError) as exc:
            result = (type(exc), str(exc))
    return result, sorted(str(w.message) for w in said)


weak = 0
for module, function, name in ops:
    fn = getattr(getattr(opforge, module), function)
    u = getattr(ufuncs, name)
    for types in u.types:
        dtype = np.dtype(types[0])
        arrays = [(rng.random(6) < 0.5) if dtype.kind == "b" else (rng.standard_normal(6) * 3).astype(dtype)
                  if dtype.kind == "f" else rng.integers(0 if dtype.kind == "u" else -9, 9, 6, dtype=dtype)
                  for _ in range(u.nin)]
        for k in range(u.nin):
            for number in numbers:
                args = [number if j == k else a for j, a in enumerate(arrays)]
                got, got_said = outcome(fn, args)
                want, want_said = outcome(fn, [a.view(Checked) if isinstance(a, np.ndarray) else a for a in args])
                assert got_said == want_said, (name, types, k, number, got_said, want_said)
                if isinstance(want, tuple):
                    assert got == want, (name, types, k, number, got, want)
                    continue
                assert type(got) is np.ndarray and got.dtype == want.dtype and got.shape == want.shape, \
                    (name, types, k, number, got, want)
                assert np.array_equal(got, want, equal_nan=got.dtype.kind == "f"), (name, types, k, number)
                weak += 1
assert weak > 1000, weak
# (and they do run the ufunc, which the binding calls by its module-level name; an int8 array with a
# Python float computes in float64, as NumPy's does: the checked way, which casts the array)
calls = []
real = opforge.math._add_ufunc
opforge.math._add_ufunc = lambda *a, **k: calls.append(a) or real(*a, **k)
try:
    assert opforge.math.add(np.float32([1, 2]), 2).tolist() == [3, 4] and len(calls) == 1
    # (the checked way, which casts the array, ends in the ufunc too: ADR 0080)
    assert opforge.math.add(np.int8([1, 2]), 2.5).dtype == np.float64 and len(calls) == 2
    assert all(np.asarray(a).dtype == np.float64 for a in calls[1])
finally:
    opforge.math._add_ufunc = real
# The fast path leaves no warning and takes nothing the checks refuse.
from opforge import math
with warnings.catch_warnings():
    warnings.simplefilter("error")
    assert np.isinf(math.div(np.float32([1]), np.float32([0]))[0])
# A NumPy scalar of the arrays' dtype takes the fast way too; NumPy scalars alone give a 0-d array.
x = np.linspace(-2, 2, 7, dtype=np.float32)
assert math.sub(x, np.float32(0.5)).tolist() == math.sub(x.view(Checked), np.float32(0.5)).tolist()
both = math.mul(np.float32(3), np.float32(2))
assert type(both) is np.ndarray and both.shape == () and both.dtype == np.float32 and both == 6
for bad, kind in (((np.ones((1,) * 9, np.float32), np.ones(1, np.float32)), ValueError),
                  ((np.ones(3, np.float32), np.ones(2, np.float32)), ValueError)):
    try:
        math.add(*bad)
    except kind as exc:
        assert str(exc).startswith("math.add: "), exc
    else:
        raise AssertionError(bad)
print(f"ufuncs ok {len(ops)} {checked} {weak}")
'''


def test_the_elementwise_ufuncs_compute_what_the_reference_does(installed: Path, tmp_path: Path) -> None:
    """The ufuncs the package makes of elementwise ops (ADR 0073): NumPy's loop order, and every
    loop on every way a ufunc hands it operands (contiguous over several blocks, broadcast,
    strided, reversed, a strided out=) gives the checked way's result, bit for bit, through
    the binding's fast path and called directly. The checked way runs the same ufunc over the
    converted, contiguous operands (ADR 0080). The parity suite holds both to the NumPy
    reference, and the C tests cover the library's own kernels of these types. No
    floating-point warning, and the checks' refusals stay the op's."""
    from generators.kernels import py_names
    from generators.kernels.selection import code_ops
    from generators.python import ufuncs

    ops = [(py_names.module_name(ns.key), py_names.function_name(op.name), ufuncs.attribute(op))
           for ns in load(ROOT / "ops").catalogue.namespaces for op in code_ops(ns) if ufuncs.takes(op)]
    assert len(ops) >= 80  # (89 today)
    script = tmp_path / "ufuncs.py"
    script.write_text(UFUNC_CHECKS)
    proc = subprocess.run([str(installed), str(script), json.dumps(ops)], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.strip().startswith(f"ufuncs ok {len(ops)} "), proc.stderr[-3000:]


FIXED_POINT_OPS = r'''
import importlib
import inspect
import numpy as np
from opforge import fixed_point as fp, _fixed_point_rules as rules

def fails(kind, words, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except kind as exc:
        assert words in str(exc), (words, str(exc))
        return
    raise AssertionError(f"no {kind.__name__}: {words}")

rng = np.random.default_rng(20)
checked, compared = set(), set()
# (where a 16-bit table jumps, has a pole or leaves its domain within the attributes' ranges, its fill
# refuses every call, on both backends: these ops, and nothing else, are never compared)
JUMPS = {"math.sqrt", "math.tan", "math.asin", "math.acos", "math.log1p", "math.reciprocal", "math.rsqrt",
         "math.floor", "math.ceil", "math.sign", "math.log", "math.acosh", "math.atanh",
         "math.rectified_tanh_derivative", "nn.selu_derivative", "math.round"}
# (an enum arg's other value: a table is filled for its index)
OTHER_VALUES = {"nn.gelu": {"approximate": "tanh"}, "math.round": {"mode": "half_away_from_zero"}}
for (qualified, name), kernel in rules.KERNELS.items():
    if kernel.moved is not None:  # (a move runs the op's own kernels: below)
        continue
    namespace, op = qualified.split(".")
    module = importlib.import_module(f"opforge.{namespace}")
    fn = getattr(module, op, None) or getattr(module, op + "_")
    t = rules.TYPES[name]
    # (D16 within about [-8, 8), as TFLite's int16 activations hold their inputs: its tables compute there)
    attributes = ([{"shift": 1}, {"shift": -3}, {"shift": 2}] if t.family == "Q" else
                  [{"scale": 0.02, "offset": 3}, {"scale": 0.05, "offset": -2}, {"scale": 0.01, "offset": 1}]
                  if t.bits == 8 else
                  [{"scale": 1 / 4096, "offset": 0}, {"scale": 1 / 2048, "offset": 0},
                   {"scale": 1 / 1024, "offset": 0}])
    # (an arg without a default, clip's bounds: a value inside the types' ranges)
    required = {p.name: 0.5 for p in list(inspect.signature(fn).parameters.values())[len(kernel.inputs):]
                if p.default is inspect.Parameter.empty and p.kind is not p.VAR_KEYWORD}
    # (a reduction over its default axes, one, two kept, none (NumPy's axis=()); matmul's batches broadcast)
    keywords = ([{}, {"axis": 1}, {"axis": (0, -1), "keepdims": True}, {"axis": ()}] if kernel.axes else [{}])
    if kernel.args and not kernel.table:  # (a clamp's, a logarithm's optional args given too: log's base;
        # a softmax's axis: the first)
        keywords.append({a: 0 if a == "axis" else 2.0 for a in kernel.args if a not in required})
    keywords += [OTHER_VALUES[qualified]] if qualified in OTHER_VALUES else []
    # (a dense layer's rows, weights and bias; the others' pairs, broadcast or not)
    geometries = (([(2, 3, 4), (4, 5), (5,)], [(3, 4), (4, 2), (2,)]) if len(kernel.inputs) == 3 else
                  ([(2, 3, 4), (3, 1)], [(3, 4), (4,)], [(3, 4), (3, 4)], [(2, 3, 4), (1, 4, 5)]))
    for shapes, more in [(s, k) for s in geometries for k in keywords]:
        args = [fp.FixedPointArray(rng.integers(t.lowest, t.highest, s, endpoint=True).astype(t.storage), name, **a)
                for s, a in zip(shapes, attributes[:len(kernel.inputs)])]
        try:
            from_c = fn(*args, **required, **more)
        except ValueError:  # (a geometry the op's constraints refuse, or attributes a 16-bit table's
            # fill refuses: so do both backends)
            fails(ValueError, qualified, fn, *args, **required, **more, backend="python")
            checked.add((qualified, name))
            continue
        from_python = fn(*args, **required, **more, backend="python")
        if kernel.result == "bool":
            assert isinstance(from_c, np.ndarray) and np.array_equal(from_c, from_python), (qualified, name)
        else:
            assert isinstance(from_c, fp.FixedPointArray) and from_c.type == name, (qualified, name)
            assert np.array_equal(from_c.stored, from_python.stored), (qualified, name, shapes)
            assert (from_c.shift, from_c.scale, from_c.offset) == (from_python.shift, from_python.scale,
                                                                    from_python.offset), (qualified, name)
        checked.add((qualified, name))
        compared.add((qualified, name))
computing = {key for key, kernel in rules.KERNELS.items() if kernel.moved is None}
assert checked == computing, computing - checked
# (but log's Q15 and D16: arm_vlog's steps, no table)
refused_everywhere = {(q, n) for q in JUMPS for n in ("q15", "d16") if rules.KERNELS[(q, n)].table}
assert computing - compared == refused_everywhere, sorted((computing - compared) ^ refused_everywhere)
from opforge import math, base, nn
# moves: the op's own kernels on the stored values, the result carrying the first input's attributes
moves = {qualified for (qualified, _), kernel in rules.KERNELS.items() if kernel.moved is not None}
assert {"base.concat", "base.split", "base.gather", "base.transpose", "math.argmax", "base.reshape"} <= moves, moves
assert "nn.pad" not in moves  # (its constant is a real value)
m = fp.quantize(np.arange(6).reshape(2, 3) / 8 - 0.25, "q15", shift=2)
n = fp.quantize([[1.0, -1.0, 0.5]], "q15", shift=2)
w = fp.quantize([[0.5, -2.0, 1.5], [0.25, 3.0, -1.0]], "d8", scale=0.05, offset=-3)
for backend in ("c", "python"):
    moved = base.transpose(m, backend=backend)
    assert moved.shift == 2 and np.array_equal(moved.stored, m.stored.T)
    joined = base.concat([m, n], 0, backend=backend)
    assert joined.shift == 2 and np.array_equal(joined.stored, np.concatenate([m.stored, n.stored]))
    fails(ValueError, "every tensor must have the first one's fixed-point attributes (the same q15 shift)",
          base.concat, [m, fp.requantize(n, shift=3)], 0, backend=backend)
    parts = base.split(w, 3, 1, backend=backend)
    assert [(p.scale, p.offset, p.stored.tolist()) for p in parts] == \
        [(w.scale, w.offset, w.stored[:, [k]].tolist()) for k in range(3)]
    assert np.array_equal(math.argmax(w, 1, backend=backend), np.argmax(w.stored, axis=1))
    picked = base.gather(w, np.array([2, 0]), 1, backend=backend)
    assert (picked.scale, picked.offset) == (w.scale, w.offset) and np.array_equal(picked.stored, w.stored[:, [2, 0]])
    fails(TypeError, "takes plain values", base.gather, w, fp.quantize([1.0], "d8", scale=1.0), 1, backend=backend)
    # out=: a move writes the stored values into it and gives it the input's attributes
    target = fp.empty((3, 2), "q15", shift=7)
    assert base.transpose(m, out=target, backend=backend) is target and target.shift == 2
    assert np.array_equal(target.stored, m.stored.T)
    fails(TypeError, "out must be a q15 FixedPointArray", base.transpose, m, out=np.empty((3, 2), np.int16),
          backend=backend)
    fails(ValueError, "out is read-only", base.transpose, m, out=fp.quantize(np.zeros((3, 2)), "q15"), backend=backend)
    indices = np.empty(2, np.int64)
    assert math.argmax(w, 1, out=indices, backend=backend) is indices and indices.tolist() == np.argmax(w.stored, 1).tolist()
empty = fp.FixedPointArray(np.zeros((0, 3), np.int16), "q15")
for backend in ("c", "python"):  # (a mean of no elements: refused alike; a sum of none is 0)
    fails(ValueError, rules.EMPTY_MEAN, math.mean, empty, axis=0, backend=backend)
    assert math.sum(empty, axis=0, backend=backend).stored.tolist() == [0, 0, 0]
    # Q15 at shifts 1 and 2: sums grow their shift by the headroom (4 elements: 2), products add the shifts
    x = fp.quantize([[0.5, 0.25], [-0.5, 1.0]], "q15", shift=1)
    assert math.sum(x, backend=backend).shift == 3 and float(np.asarray(math.sum(x, backend=backend))) == 1.25
    assert np.asarray(math.mean(x, axis=1, backend=backend)).tolist() == [0.375, 0.25]
    assert math.matmul(x, x, backend=backend).shift == 2
    assert np.allclose(np.asarray(math.matmul(x, x, backend=backend)), np.asarray(x) @ np.asarray(x), atol=2 ** -13)
    assert base.dot(x, x, backend=backend).shift == 4
q = fp.quantize([-2.0, 0.0, 0.5, 3.0], "q7", shift=2)
assert np.abs(np.asarray(math.sigmoid(q)) - 1 / (1 + np.exp(-np.asarray(q)))).max() <= 2.0 ** -5  # (one step)
assert math.sigmoid(q).shift == 2 and math.sigmoid(q).type == "q7"
x, y = fp.quantize([0.5, -0.25], "q15", shift=0), fp.quantize([0.25, 0.5], "q15", shift=1)
assert math.add(x, y).shift == 1 and math.mul(x, y).shift == 1 and math.add(x, y).stored.tolist() == [12288, 4096]
for backend in ("c", "python"):
    fails(TypeError, "y must be a q15 FixedPointArray", math.add, x, np.ones(2, np.float32), backend=backend)
    fails(TypeError, "one fixed-point type", math.add, x, fp.quantize([1, 2], "q7"), backend=backend)
    big = fp.quantize([0.5], "q15", shift=100)
    fails(ValueError, "outside q15's -112..127", math.mul, big, big, backend=backend)
# out=: a writable FixedPointArray (fixed_point.empty) chooses the result's attributes where the form does not
d = fp.quantize([0.5, -0.25, 1.0], "d8", scale=0.01, offset=3)
e = fp.quantize([0.25, 0.5, -1.0], "d8", scale=0.02, offset=-1)
q = fp.quantize([-2.0, 0.0, 0.5, 3.0], "q7", shift=2)
written = {}
for backend in ("c", "python"):
    out = fp.empty(3, "d8", scale=0.05, offset=2)
    assert math.add(d, e, out=out, backend=backend) is out and (out.scale, out.offset) == (float(np.float32(0.05)), 2)
    assert np.allclose(np.asarray(out), [0.75, 0.25, 0.0], atol=0.05), np.asarray(out)
    table = fp.empty(4, "q7", shift=3)
    assert math.sigmoid(q, out=table, backend=backend).shift == 3
    assert np.abs(np.asarray(table) - 1 / (1 + np.exp(-np.asarray(q)))).max() <= 2.0 ** -4
    summed = fp.empty(2, "q15", shift=9)  # (the form's shift, as the C API sets it)
    assert math.add(x, y, out=summed, backend=backend).shift == 1 and summed.stored.tolist() == [12288, 4096]
    truth = np.empty(2, bool)
    assert base.lt(x, y, out=truth, backend=backend) is truth and truth.tolist() == [False, True]
    written[backend] = (out.stored.tolist(), table.stored.tolist())
    fails(TypeError, "out must be a q15 FixedPointArray", math.add, x, y, out=np.empty(2, np.int16), backend=backend)
    fails(ValueError, "out is read-only", math.add, x, y, out=x, backend=backend)
    fails(ValueError, "out has shape (3,)", math.add, x, y, out=fp.empty(3, "q15"), backend=backend)
assert written["c"] == written["python"], written
# per-axis scales (ADR 0069): the conversion ops take them on both backends alike; every other op refuses them
weights = fp.quantize(np.arange(12).reshape(3, 4) / 4 - 1.5, "d8", scale=[0.01, 0.02, 0.05, 0.1], axis=1, offset=1)
for backend in ("c", "python"):
    assert np.array_equal(math.dequantize(weights, backend=backend), np.asarray(weights)), backend
    one = math.requantize(weights, dtype="d16", shift=0, scale=0.001, offset=0, backend=backend)
    assert one.axis is None and np.array_equal(one.stored, fp.requantize(weights, "d16", scale=0.001, offset=0).stored)
    q7 = math.requantize(weights, dtype="q7", shift=2, scale=1.0, offset=0, backend=backend)
    assert q7.shift == 2 and np.array_equal(q7.stored, fp.quantize(np.asarray(weights), "q7", shift=2).stored)
    fails(ValueError, "math.add: x has per-axis scales, which only quantize, dequantize and requantize take, and "
          "matmul's b and linear's weights along their last axis (requantize it to one scale)", math.add, weights,
          weights, backend=backend)
# ... and matmul's and linear's second operand along its last axis, a multiplier per column (ADR 0071): the C
# backend as the reference, each column as the same product over that column's scale alone
rows = fp.quantize(np.linspace(-1.0, 1.0, 6).reshape(2, 3), "d8", scale=0.01, offset=-2)
bias = fp.quantize([0.1, -0.2, 0.3, 0.0], "d8", scale=0.002, offset=1)
per_column = {}
for backend in ("c", "python"):
    product = math.matmul(rows, weights, out=fp.empty((2, 4), "d8", scale=0.05, offset=3), backend=backend)
    layer = nn.linear(rows, weights, bias, out=fp.empty((2, 4), "d8", scale=0.05, offset=3), backend=backend)
    for j in range(4):
        column = fp.FixedPointArray(weights.stored[:, j:j + 1], "d8", scale=weights.scale[j], offset=1)
        alone = math.matmul(rows, column, out=fp.empty((2, 1), "d8", scale=0.05, offset=3), backend=backend)
        assert product.stored[:, j].tolist() == alone.stored[:, 0].tolist(), (backend, j)
        one_bias = fp.FixedPointArray(bias.stored[j:j + 1], "d8", scale=bias.scale, offset=1)
        alone = nn.linear(rows, column, one_bias, out=fp.empty((2, 1), "d8", scale=0.05, offset=3), backend=backend)
        assert layer.stored[:, j].tolist() == alone.stored[:, 0].tolist(), (backend, j)
    per_column[backend] = (product.stored.tolist(), layer.stored.tolist())
    assert np.abs(np.asarray(product) - np.asarray(rows) @ np.asarray(weights)).max() <= 0.05
    across = fp.quantize(np.ones((2, 3)), "d8", scale=[0.1, 0.2], axis=0)
    fails(ValueError, "math.matmul: a has per-axis scales, which math.matmul takes in b alone", math.matmul, across,
          weights, backend=backend)
    down = fp.quantize(np.ones((3, 4)), "d8", scale=[0.1, 0.2, 0.3], axis=0)
    fails(ValueError, "math.matmul: b has per-axis scales along axis 0 of 2; math.matmul takes them along its last "
          "axis alone", math.matmul, rows, down, backend=backend)
    fails(ValueError, "math.matmul: out has per-axis scales; the result takes one scale", math.matmul, rows,
          weights, out=fp.quantize(np.zeros((2, 4)), "d8", scale=[0.1, 0.2, 0.3, 0.4], axis=1), backend=backend)
assert per_column["c"] == per_column["python"], per_column
# an op of several cases (log, with a base or without) fills the table of the case its args choose
positive = fp.quantize([0.5, 1.0, 2.0, 3.0], "q7", shift=2)
logs = {}
for backend in ("c", "python"):
    for base, exact in ((None, np.log), (2.0, np.log2)):
        got = math.log(positive, base, backend=backend)
        assert np.abs(np.asarray(got) - exact(np.asarray(positive))).max() <= 2.0 ** -5, (base, np.asarray(got))
        logs[backend, base] = got.stored.tolist()
assert logs["c", None] == logs["python", None] and logs["c", 2.0] == logs["python", 2.0], logs
# the bits a Q value uses, its sign bit included (the FixedPoint library's BitUtilization)
used = fp.FixedPointArray(np.array([0, -1, 1, -2, 32767, -32768, 255, 256], np.int16), "q15")
assert fp.bit_utilization(used).tolist() == [1, 1, 2, 2, 16, 16, 9, 10] and fp.bit_utilization(used).dtype == np.int8
fails(TypeError, "q must be q7, q15 or q31", fp.bit_utilization, fp.quantize([1.0], "d8", scale=1.0))
# a 16-bit table checks its interpolation when it fills: refused where the op jumps between two knots (floor),
# alike; where it bends smoothly (tanh) within its bound, alike
steps = fp.quantize(np.linspace(-3.0, 3.0, 13), "q15", shift=2)
smooth = {}
for backend in ("c", "python"):
    fails(ValueError, "math.floor: x: a q15 table's interpolation misses the float reference by more than",
          math.floor, steps, backend=backend)
    smooth[backend] = math.tanh(steps, backend=backend).stored.tolist()
    assert np.abs(np.asarray(math.tanh(steps, backend=backend)) - np.tanh(np.asarray(steps))).max() <= 9 * 2.0 ** -13
assert smooth["c"] == smooth["python"], smooth
# a stream of fixed-point frames: each window takes the frames' attributes; other attributes are refused
from opforge import signal
frames = fp.quantize(np.arange(8).reshape(4, 2) / 4 - 1, "q15", shift=3)
for backend in ("c", "python"):
    queue = signal.sliding_window(3, 1, (2,), "q15", shift=3, backend=backend)
    queue.enqueue(frames)
    first = queue.dequeue()
    assert (first.type, first.shift) == ("q15", 3) and np.array_equal(first.stored, frames.stored[:3]), first
    assert np.array_equal(queue.dequeue().stored, frames.stored[1:])
    fails(ValueError, "x: must have the frames' fixed-point attributes (the same q15 shift)", queue.enqueue,
          fp.requantize(frames, shift=2))
    fails(TypeError, "x must be a q15 FixedPointArray", queue.enqueue, frames.stored)
    fails(TypeError, "shift, scale and offset belong to a fixed-point dtype", signal.sliding_window, 3, 1, (2,),
          "float32", shift=3, backend=backend)
print("fixed point ok", len(checked))
'''


def test_fixed_point_arrays_go_through_the_ops_on_both_backends(installed: Path, tmp_path: Path) -> None:
    """Every op with an elementwise Q or D kernel takes FixedPointArrays (ADR 0040): the C
    backend (the C API with the attributes in the descriptors) and the NumPy reference of the
    same rule agree bit for bit, with the same result attributes, in every geometry the op's
    constraints allow; mixed types and floats are TypeErrors, a shift out of range a ValueError."""
    script = tmp_path / "fixed_point_ops.py"
    script.write_text(FIXED_POINT_OPS)
    proc = subprocess.run([str(installed), str(script)], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.startswith("fixed point ok"), proc.stdout + proc.stderr[-3000:]
    assert int(proc.stdout.split()[-1]) >= 300


NUMPY_TABLE = r'''
import importlib, json, sys
import numpy as np

cases = json.load(open(sys.argv[1]))
PROMOTIONS = sys.argv[2:] == ["promotions"]  # (mixed dtypes: a refused bool is tallied, not wrong)
rng = np.random.default_rng(21)
SHAPES = [(3, 4), (4,), (3, 1)]  # (broadcast against each other, as NumPy broadcasts them)
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 0.5, -0.5, 1.0, -1.0, 2.5, -2.5, 1e-30]


PYTHON_SCALARS = {"py:bool": True, "py:int": 3, "py:float": -2.5}  # (NumPy's "weak" scalars)


def values(dtype, shape):
    if dtype in PYTHON_SCALARS:
        return PYTHON_SCALARS[dtype]
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.startswith("float"):
        v = rng.uniform(-4, 4, shape).astype(dtype)
        v.reshape(-1)[:min(v.size, len(SPECIAL))] = SPECIAL[:v.size]
        return v
    info = np.iinfo(dtype)
    v = rng.integers(max(info.min, -40), min(info.max, 40), shape, endpoint=True).astype(dtype)
    v.reshape(-1)[:2] = [info.min, info.max][:v.size]
    return v


def same(ours, theirs, scale=None):
    """None if ours is NumPy's result: dtype, shape, integers equal, floats within 4 ulps, or for a
    sum of products (whose order is each implementation's) within a few eps of ``scale``, the
    largest finite term."""
    if ours.dtype != theirs.dtype or ours.shape != theirs.shape:
        return f"dtype/shape {ours.dtype}{ours.shape}, NumPy {theirs.dtype}{theirs.shape}"
    if ours.dtype.kind != "f":
        return None if np.array_equal(ours, theirs) else f"values differ at {np.argwhere(ours != theirs)[:3].tolist()}"
    nan = np.isnan(ours) | np.isnan(theirs)
    if not np.array_equal(np.isnan(ours), np.isnan(theirs)):
        return "NaN in different places"
    a, b = ours[~nan], theirs[~nan]
    close = np.abs(a.astype(np.float64) - b) <= 16 * np.finfo(a.dtype).eps * (scale or 0.0)
    if scale is not None and np.all((a == b) | close):
        return None
    ulps = np.abs(a.view(f"int{a.itemsize * 8}").astype(np.int64) - b.view(f"int{b.itemsize * 8}").astype(np.int64))
    ulps = np.where(np.signbit(a) != np.signbit(b), np.where((a == 0) & (b == 0), 0, 1 << 60), ulps)
    return None if ulps.size == 0 or ulps.max() <= 4 else f"{int(ulps.max())} ulps apart at {a[ulps.argmax()]!r} vs {b[ulps.argmax()]!r}"


def scale(arrays):
    """How large a sum of products' terms get: the two operands' largest finite magnitudes (at
    least 1), times the length of the sum."""
    sizes = []
    for a in arrays[:2]:
        v = np.asarray(a, np.float64)
        sizes.append(max(float(np.abs(v[np.isfinite(v)]).max(initial=0.0)), 1.0))
    return sizes[0] * sizes[-1] * max(np.asarray(arrays[0]).shape[-1:] or (1,))


wrong, compared, refused = [], 0, []
with np.errstate(all="ignore"):
    for case in cases:
        fn = getattr(importlib.import_module(f"opforge.{case['module']}"), case["function"])
        theirs_fn = np.linalg if case["numpy"].startswith("linalg.") else np
        theirs_fn = getattr(theirs_fn, case["numpy"].rpartition(".")[2])
        for dtypes, keywords in [(d, k) for d in case["dtypes"] for k in case["keywords"]]:
            arrays = [values(d, tuple(case.get("shape") or SHAPES[k % len(SHAPES)])) for k, d in enumerate(dtypes)]
            if case.get("listed"):  # (one list of tensors of one shape, as concatenate and stack take)
                arrays = [[values(d, SHAPES[0]) for d in dtypes]]
            keywords = {k: tuple(v) if isinstance(v, list) else v for k, v in keywords.items()}  # (JSON's lists)
            try:
                theirs = np.asarray(theirs_fn(*arrays, **keywords))
            except (TypeError, ValueError) as exc:  # (then ours must refuse the same way)
                theirs = exc
            for backend in ("c", "python"):
                try:
                    ours = np.asarray(fn(*arrays, **keywords, backend=backend))
                except (TypeError, ValueError) as exc:
                    # (NumPy's own errors subclass TypeError and ValueError: _UFuncNoLoopError, AxisError)
                    alike = isinstance(theirs, Exception) and (isinstance(exc, TypeError)
                                                               == isinstance(theirs, TypeError))
                    problem = None if alike else f"{type(exc).__name__}: {exc}"
                    if problem and PROMOTIONS and isinstance(exc, TypeError) and isinstance(theirs, np.ndarray):
                        refused.append([case["op"], dtypes])  # (no kernel for NumPy's loop: tallied)
                        problem = None
                else:
                    problem = (same(ours, theirs, scale(arrays) if case.get("sums") else None)
                               if isinstance(theirs, np.ndarray) else
                               f"no error where NumPy raises {type(theirs).__name__}: {theirs}")
                if problem:
                    wrong.append(f"{case['op']} ({case['numpy']}) {dtypes} {keywords} {backend}: {problem}")
                compared += 1
print(json.dumps({"wrong": wrong, "compared": compared, "refused": refused}))
'''


def test_ops_of_numpy_s_names_compute_what_numpy_computes(installed: Path, tmp_path: Path) -> None:
    """The NumPy table (issue 21, ADR 0050), generated from the definitions: every op that declares
    a NumPy function (all of them take tensors and args with defaults) is called with the same arrays
    as that function, for every dtype variant it has, broadcasting, and special values (signed zeros,
    infinities, NaN, the integer types' limits) among them; a reduction also with NumPy's keywords
    (ADR 0052: an axis, a tuple, none, keepdims); on both backends it gives NumPy's dtype and shape,
    integers equal, floats within 4 ulps (libm's and NumPy's transcendental functions differ in the
    last bits); the variants the Python API runs (``api_variants``)."""
    cases = [dict(case, dtypes=[[v.of(i.name) for i in op.inputs] * (3 if case["listed"] else 1)
                                for v in api_variants(op)]) for op, case in _numpy_table_cases()]
    assert len(cases) >= 52, len(cases)
    said = _run_numpy_table(installed, tmp_path, cases)
    assert said["wrong"] == [], "\n".join(said["wrong"])
    assert said["compared"] >= 1600, said["compared"]


#: The dtypes a mixed call gives an op's inputs of one type: NumPy's, and its "weak" Python scalars.
MIXED = ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "float16", "float32", "float64")


def test_mixed_dtypes_promote_as_numpy_promotes(installed: Path, tmp_path: Path) -> None:
    """Promotion (issue 21, ADR 0053), generated from the definitions: every op of the NumPy table
    is called with each pair of dtypes for its first two inputs of one type (the others keep
    their first variant's) or for a list of two tensors, or each dtype and Python's bool, int
    and float for an op with one input of the type,
    on both backends: NumPy's result dtype, shape and values, or its kind of error. Excepted
    and counted: a TypeError where NumPy runs a loop opforge has no kernel for (a bool as a
    number, or PROMOTION_REFUSALS). Every op of the table takes float16 where it takes float32
    (ADR 0075, 0076), so a float16 result is NumPy's dtype too."""
    from dsl.dtypes import shared_type_inputs, takes_half

    cases = []
    for op, case in _numpy_table_cases():
        shared = [k for k, i in enumerate(op.inputs) if i.name in shared_type_inputs(op)]
        first = [api_variants(op)[0].of(i.name) for i in op.inputs]
        pairs = ([(a, b) for a in MIXED for b in MIXED] if len(shared) >= 2 or case["listed"] else
                 [(a, b) for a in MIXED for b in ("py:bool", "py:int", "py:float")] if op.inputs else [])
        combos = []
        for a, b in pairs:
            dtypes = list(first)
            if case["listed"]:  # (a list of two tensors of these dtypes)
                dtypes = [a, b]
            elif len(shared) >= 2:
                dtypes[shared[0]], dtypes[shared[1]] = a, b
            elif shared:  # (one input of the type: it, and a Python scalar added to nothing: alone)
                dtypes[shared[0]] = a
            combos.append(dtypes)
        cases.append(dict(case, dtypes=[list(c) for c in dict.fromkeys(map(tuple, combos))],
                          keywords=case["keywords"][:1]))
    said = _run_numpy_table(installed, tmp_path, cases, "promotions")
    assert said["wrong"] == [], "\n".join(said["wrong"][:60]) + f"\n({len(said['wrong'])} in all)"
    assert said["compared"] >= 4200, said["compared"]
    # (a refusal is a kernel opforge lacks, never another answer: each op's listed, with why, but
    # NumPy's float16 loop of an op with no float16 variant, ADR 0075: none of the table's, today)
    half = {op.qualified_name for ns in load(ROOT / "ops").catalogue.namespaces for op in ns.ops if takes_half(op)}
    unlisted = {op for op, dtypes in said["refused"]
                if "bool" not in dtypes and ("float16" not in dtypes or op in half)} - set(PROMOTION_REFUSALS)
    assert unlisted == set(), sorted(unlisted)
    assert {op for op, _ in said["refused"]} >= set(PROMOTION_REFUSALS)


#: Ops that refuse (TypeError) mixed dtypes NumPy computes, besides a bool NumPy adds or compares as a
#: number (opforge's bool is no number: no op of a number type takes one): NumPy has a loop for them
#: that opforge has no kernel for, and the ops say so rather than compute something else.
PROMOTION_REFUSALS = {
    "math.is_nan": "NumPy's isnan has integer loops (all False); opforge's takes floats only",
    "math.is_infinite": "NumPy's isinf has integer loops (all False); opforge's takes floats only",
    "math.is_finite": "NumPy's isfinite has integer loops (all True); opforge's takes floats only",
    "math.reciprocal": "NumPy's reciprocal of an integer is an integer (1 // x); opforge's takes floats only",
}


def _numpy_table_cases() -> list[tuple[object, dict]]:
    """(op, case) for every op that declares a NumPy function: the function, where the package
    has it, and the keywords to call it with (a reduction's NumPy keywords: ADR 0052)."""
    from dsl import compute as C
    from dsl.model import NO_DEFAULT
    from generators.kernels import numpy_keywords, py_names

    def keywords(op) -> list[dict]:
        named = {k.name for k in numpy_keywords.keywords(op).values()}
        tuples = [{"axis": (0, 1)}, {"axis": ()}, {"axis": (-1, 0), "keepdims": True}]
        if isinstance(op.compute, C.Join):  # (an axis of the result, 0 by default)
            return [{}, {"axis": 1}, {"axis": -1}, {"axis": 2}]
        if isinstance(op.compute, C.LayoutMove) and op.compute.layout in LAYOUT_CALLS:  # (an x of shape (1, 3, 1))
            return LAYOUT_CALLS[op.compute.layout]
        return ([{}] if not named else
                [{}, {"axis": 0}, {"axis": -1, "keepdims": True}, {"keepdims": True}, {"axis": 1}]
                + (tuples if isinstance(op.compute, C.Reduction) else []))

    found = []
    for ns in load(ROOT / "ops").catalogue.namespaces:
        for op in ns.ops:
            if op.numpy:
                # (a declaration this table cannot call would go unchecked: none may exist; a tensor list
                # is an op's one input)
                listed = not all(i.count.is_single for i in op.inputs)
                named = numpy_keywords.keywords(op)
                required = {named[a.name].name if a.name in named else a.name for a in op.args
                            if (named[a.name].required if a.name in named else a.default is NO_DEFAULT)}
                assert (len(op.inputs) == 1 or not listed) and all(
                    required <= set(k) for k in keywords(op)), op.qualified_name
                layout = isinstance(op.compute, C.LayoutMove) and op.compute.layout in LAYOUT_CALLS
                found.append((op, {"op": op.qualified_name, "numpy": op.numpy, "module": py_names.module_name(ns.key),
                                   "function": py_names.function_name(op.name), "keywords": keywords(op),
                                   "listed": listed, "shape": [1, 3, 1] if layout else None,
                                   "sums": isinstance(op.compute, C.Contraction)}))
    return found


#: NumPy's calls of the layouts that take NumPy's axes, shape or reps (ADR 0052), on an x of shape (1, 3, 1).
LAYOUT_CALLS = {
    "squeeze": [{}, {"axis": 0}, {"axis": (0, 2)}, {"axis": -1}, {"axis": ()}, {"axis": 1}, {"axis": (0, 0)}],
    "expand_dims": [{"axis": 0}, {"axis": -1}, {"axis": (0, 2)}, {"axis": (-1, 1)}, {"axis": (0, 9)}],
    "tile": [{"reps": 2}, {"reps": (2, 1)}, {"reps": (1, 2, 3, 1)}, {"reps": ()}, {"reps": (2, 0, 1)}],
    "reshape": [{"shape": 3}, {"shape": (3, 1)}, {"shape": (-1,)}, {"shape": (1, -1, 1, 1)}, {"shape": (2, -1)},
                {"shape": ()}],
}


def _run_numpy_table(installed: Path, tmp_path: Path, cases: list[dict], *flags: str) -> dict:
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    (tmp_path / "numpy_table.py").write_text(NUMPY_TABLE)
    proc = subprocess.run([str(installed), "numpy_table.py", "cases.json", *flags], capture_output=True, text=True,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.splitlines()[-1])


#: How many of ONNX's single-node test cases for the operators the ops declare pass through the C
#: backend (of 929 in onnx 1.23.2): a floor that only rises. Issue 21 asks for 95 %; the rest fail
#: for kernels and attributes opforge lacks (the note lists each), never silently.
ONNX_NODE_CASES_PASSING = 884


def test_onnx_s_own_node_tests_through_the_c_backend(installed: Path, tmp_path: Path) -> None:
    """ONNX's backend node test cases (the onnx package's own, each an operator with its inputs,
    attributes and expected outputs) for every operator an op declares (``op.onnx``), called
    through the package's C backend by ONNX's calling convention (tests/onnx_node_cases.py):
    the expected dtype, shape and values within the case's tolerance. A case the op cannot take
    must say why (an attribute or form it lacks, or its binding's TypeError or ValueError)."""
    from generators.kernels import py_names

    declared: dict[str, list[str]] = {}
    for ns in load(ROOT / "ops").catalogue.namespaces:
        for op in ns.ops:
            if op.onnx:
                function = f"{py_names.module_name(ns.key)}.{py_names.function_name(op.name)}"
                declared.setdefault(op.onnx, []).append(function)
    (tmp_path / "ops.json").write_text(json.dumps(declared))
    proc = subprocess.run([str(installed), str(ROOT / "tests" / "onnx_node_cases.py"), "ops.json"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    said = json.loads(proc.stdout)
    passed = [name for name, (_, outcome) in said.items() if outcome == "pass"]
    errors = [f"{name}: {outcome}" for name, (_, outcome) in said.items() if outcome.startswith("error:")]
    assert errors == [], errors  # (every other failure says what opforge lacks or refuses)
    # (ONNX has no node cases of its random operators, nor of GlobalLpPool: test_convolution_axes
    # checks cnn.global_lp_pooling against ONNX's reference LpPool over the whole window)
    assert len(said) >= 800 and {op for op, _ in said.values()} >= set(declared) - {"RandomNormal", "RandomUniform",
                                                                                   "GlobalLpPool"}
    assert len(passed) >= ONNX_NODE_CASES_PASSING, (len(passed), sorted(
        f"{name}: {outcome}" for name, (_, outcome) in said.items() if outcome != "pass")[:80])
    # An operator whose cases meet something the op lacks (an attribute, a form of an input) is
    # one its op differs from, and the op's docs page says how (ADR 0059).
    lacking = {op_type for op_type, outcome in said.values() if outcome.startswith("lacks:")}
    silent = sorted(f"{op.qualified_name} ({op.onnx})" for ns in load(ROOT / "ops").catalogue.namespaces
                    for op in ns.ops if op.onnx in lacking and not counterparts.differences(op, "onnx"))
    assert silent == [], silent


def _run_corpus(installed: Path, tmp_path: Path, out: GeneratedProjects, cases: list, script: str) -> dict:
    """Run ``script`` in the installed package's Python over the shape corpus ``cases`` (as
    JSON) with the generated tests folder; what it reports, as JSON on stdout."""
    (tmp_path / "corpus.json").write_text(json.dumps(cases))
    path = tmp_path / "corpus_script.py"
    path.write_text(script)
    proc = subprocess.run([str(installed), str(path), str(tmp_path / "corpus.json"), str(out / "tests")],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


CROSS_TARGET = r'''
import importlib, json, sys
sys.path.insert(0, sys.argv[2])  # the generated tests' _inputs, which builds a case's arguments
from _inputs import build

cases = json.loads(open(sys.argv[1]).read())
wrong = []
for module_name, function, spec, want in cases:
    module = importlib.import_module(f"opforge.{module_name}")
    for backend in ("c", "python"):
        kwargs = build(spec, lambda name, fields: getattr(module, name)(**fields))
        try:
            got = getattr(module, function)(**kwargs, backend=backend)
        except ValueError:
            got = None
        shapes = None if got is None else (
            [list(g.shape) for g in got] if isinstance(got, (tuple, list)) else [list(got.shape)])
        if shapes != want:
            wrong.append([module_name, function, backend, {k: v["shape"] if isinstance(v, dict) else "list"
                                                           for k, v in spec["inputs"].items()}, spec["args"],
                          shapes, want])
print(json.dumps({"cases": len(cases), "wrong": wrong[:10], "count": len(wrong)}))
'''


def test_the_c_api_and_the_bindings_declare_the_references_shapes(installed: Path, out: GeneratedProjects, tmp_path: Path) -> None:
    """Issue 18's cross-target shape test, through the package: the corpus hypothesis draws for
    every op (tests/shape_corpus.py), on both backends (the C API's status and its output's
    shape, the NumPy reference's): each refuses what the reference refuses, else gives its
    shapes. test_shapes_across_targets.py holds units and NNEF to the same corpus. A layout taking
    NumPy's calls in Python (squeeze, expand_dims, reshape, tile: ADR 0052) gives NumPy's shape
    there, which takes more (tile's repeats of any length) within opforge's rank 8."""
    import shape_corpus as SC
    from dsl import compute as C
    from generators.kernels import numpy_keywords, py_names
    from generators.tests.cases import call_spec

    import numpy as np

    def numpy_shapes(op, spec: dict) -> list | None:
        arrays = [np.empty(t["shape"]) for t in spec["inputs"].values()]
        x = arrays[0]
        kwargs = call_spec(op, spec)["args"]
        # (three NumPy leniencies opforge does not share: tile never repeats an empty x, so takes a negative
        # count there, squeeze takes axis 0 of a 0-d x, and reshape takes any negative size as the one it
        # infers; opforge refuses them, as the catalogue does)
        if (any(r < 0 for r in np.ravel(kwargs.get("reps", []))) or (op.numpy == "squeeze" and x.ndim == 0)
                or (op.numpy == "reshape" and any(s < -1 for s in np.ravel(kwargs.get("shape", []))))):
            return None
        try:
            shape = getattr(np, op.numpy)(*arrays, **kwargs).shape
        except (TypeError, ValueError):
            return None
        return [list(shape)] if len(shape) <= 8 else None

    cases = []
    for ns, op in SC.OPS:
        # (a layout of NumPy's keywords, and an op that takes vectors as NumPy's does: NumPy's shapes)
        numpy_calls = ((isinstance(op.compute, C.LayoutMove) and bool(numpy_keywords.keywords(op)))
                       or numpy_keywords.takes_vectors(op))
        for dtype, spec in SC.corpus(op.qualified_name):
            _, result = SC.expected(ns, op, dtype, spec)
            want = None if result is None else [list(s) for s in SC.shapes_of(result)]
            if numpy_calls:
                want = numpy_shapes(op, spec)
            cases.append([py_names.module_name(ns.key), py_names.function_name(op.name), call_spec(op, spec), want])
    said = _run_corpus(installed, tmp_path, out, cases, CROSS_TARGET)
    assert said["cases"] >= 10 * len(SC.OPS) and said["count"] == 0, said


C_CORPUS = r"""
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[2])  # the generated tests' _inputs, which builds a case's arguments
from _inputs import build
import opforge._native as N
from opforge._native import ffi, lib

def contiguous(a):
    a = np.asarray(a)  # (np.ascontiguousarray would make a 0-d array 1-d)
    return a if a.flags.c_contiguous else a.copy(order="C")

def scalar(p, value):
    if "values" in p:
        return p["values"].index(value)
    return N.dtype(value) if p.get("dtype") else value

def run(function, params, kwargs, args_given, outputs):
    keep, args = [], []
    for p in params:
        role = p["role"]
        value = args_given[p["name"]] if p["name"] in args_given else kwargs.get(p["name"])
        if role == "input":
            a = contiguous(value)
            keep.append(a); args.append(N.tensor(a))
        elif role in ("input_list", "output_list"):
            arrays = [contiguous(a) for a in (value if role == "input_list" else outputs[p["name"]])]
            pointers, descriptors = N.tensors(arrays)
            keep += [arrays, descriptors]; args.append(pointers)
        elif role in ("input_count", "output_count"):
            args.append(len(value if role == "input_count" else outputs[p["name"]]))
        elif role == "arg":
            args.append(scalar(p, value))
        elif role == "optional":
            args.append(ffi.NULL if value is None else ffi.new(p["ctype"] + "*", scalar(p, value)))
        elif role == "array":
            args.append(ffi.new(p["ctype"] + "[]", [scalar(p, v) for v in value] or 1))
        elif role == "count":
            args.append(len(value))
        elif role == "config":
            args.append(ffi.NULL)  # every default: configs change values, never shapes
        elif role == "output":
            a = outputs[p["name"]]
            keep.append(a); args.append(N.tensor(a))
        elif role == "workspace":
            size = ffi.new("size_t*")
            query = getattr(lib, function + "_workspace")
            status = query(*args[:p["inputs"]], size, ffi.new("const char**"))
            buffer = np.zeros(max(int(size[0]) if status == 0 else 0, 8) // 8 + 1, np.float64)
            keep.append(buffer); args.append(N.pointer(buffer))
        elif role == "workspace_bytes":
            args.append(keep[-1].nbytes)
    detail = ffi.new("const char**")
    status = getattr(lib, function)(*args, detail)
    return status, ffi.string(detail[0]).decode() if detail[0] != ffi.NULL else ""

def arrays(outputs, shapes):
    made = {}
    for (name, dtype, listed), shape in zip(outputs, shapes):
        made[name] = [np.zeros(s, dtype) for s in shape] if listed else np.zeros(shape, dtype)
    return made

def wrong_shape(shape, into):
    # a shape the result's does not fit: an axis of 2 or more one larger, else (not for an output
    # the result may broadcast into) one more axis
    for k, n in enumerate(shape):
        if n >= 2:
            return shape[:k] + [n + 1] + shape[k + 1:]
    return None if into or len(shape) >= 8 else shape + [2]

cases = json.loads(open(sys.argv[1]).read())
wrong, calls = [], 0
for function, params, outputs, into, spec, args_given, want, guesses in cases:
    kwargs = build(spec, lambda name, fields: None)
    kwargs = {k: v for k, v in kwargs.items() if v is not None}
    tensors = [v for v in kwargs.values() if isinstance(v, np.ndarray)]
    tensors += [a for v in kwargs.values() if isinstance(v, list) for a in v if isinstance(a, np.ndarray)]
    if any(t.ndim > 8 for t in tensors):
        continue  # a descriptor holds no more axes (opf_check_tensor's own refusal)
    if want is not None:
        tries = [(want, True)]  # (the outputs' shapes, whether the call must succeed)
        bad = None if outputs[0][2] else wrong_shape(want[0], into)
        if bad is not None:
            tries.append(([bad, *want[1:]], False))
    else:
        tries = [([[g] if listed else g for _, _, listed in outputs], False) for g in guesses]
    for shapes, succeeds in tries:
        status, detail = run(function, params, kwargs, args_given, arrays(outputs, shapes))
        calls += 1
        # (the package's library leaves out the types its ufuncs compute, ADR 0080: that refusal
        # comes after every check, so the checks accepted the call)
        if (status == 0 or "(OPFORGE_OMIT_NUMERIC_" in detail) != succeeds:
            wrong.append([function, {k: list(np.shape(v)) for k, v in kwargs.items() if hasattr(v, "shape")},
                          args_given, shapes, int(status), detail, want])
print(json.dumps({"calls": calls, "wrong": wrong[:10], "count": len(wrong)}))
"""


def _plain(value):
    """An arg's value as JSON holds it (a dtype by its name)."""
    import numpy as np

    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, np.dtype) or isinstance(value, type):
        return np.dtype(value).name
    return value.item() if isinstance(value, np.generic) else value


def _c_parameters(op) -> list[dict]:
    """How the C corpus script passes each parameter of an op's API function."""
    from generators import abi
    from generators.kernels import py_names
    from dsl.types import DataType

    params = []
    for p in abi.parameters(op):
        if p.role == "detail":
            continue
        entry: dict = {"role": p.role, "name": py_names.py_name(p.source), "ctype": p.ctype.replace("const ", "").rstrip("*")}
        arg = next((a for a in op.args if a.name == p.source), None)
        if arg is not None:
            if arg.type is DataType.ENUM:
                entry["values"] = list(arg.possible_values)
            entry["dtype"] = arg.type is DataType.DATA_TYPE
        if p.role == "workspace":
            entry["inputs"] = len(op.inputs)
        params.append(entry)
    return params


def test_the_c_api_refuses_and_accepts_as_the_forms_say(installed: Path, out: GeneratedProjects, tmp_path: Path) -> None:
    """Issue 18's cross-target shape test, straight through the C API (no binding in front):
    for the corpus hypothesis draws for every op, the function returns OK given outputs of
    the NumPy reference's shapes and refuses an output of another shape; where the reference
    refuses, it refuses whatever outputs it is given."""
    import shape_corpus as SC
    from dsl import compute as C
    from generators import abi
    from generators.kernels import evaluate, py_names

    cases = []
    for ns, op in SC.OPS:
        params = _c_parameters(op)
        into = getattr(op.compute, "broadcasts_into_output", False)
        for dtype, spec in SC.corpus(op.qualified_name):
            case, result = SC.expected(ns, op, dtype, spec)
            args_given = {py_names.py_name(a.name): _plain(evaluate.arg_value(op, case.kwargs, a.name)) for a in op.args}
            variant = next(v for v in variants_of(op) if v.dtype == dtype)
            outputs = [(py_names.py_name(o.name), variant.of(o.name), not o.count.is_single) for o in op.outputs]
            want = None if result is None else [
                [list(t) for t in s] if isinstance(s, list) else list(s) for s in SC.shapes_of(result)]
            if want is not None and C.list_output(op.compute) is not None:
                want = [[list(t) for t in SC.shapes_of(result)]]
            guesses = [[1], *({tuple(v["shape"]) for v in spec["inputs"].values() if isinstance(v, dict)})]
            cases.append([abi.function(op), params, outputs, into, spec, args_given, want,
                          [list(g) for g in guesses]])
    said = _run_corpus(installed, tmp_path, out, cases, C_CORPUS)
    assert said["calls"] >= 10 * len(SC.OPS) and said["count"] == 0, said


TYPED_USE = '''
"""A user's typed script over every namespace: mypy --strict must accept it as it is."""
import numpy as np
import numpy.typing as npt

import opforge
from opforge import base, bitwise, fixed_point, linalg, math, nn, random, signal

x: npt.NDArray[np.float32] = np.ones((3, 4), dtype=np.float32)
total = math.sum(math.mod(math.add(x, x), x), axis=0, keepdims=True)
chosen = base.where(base.gt(x, 0.5 * x), x, math.matrix_transpose(x.T))
drawn = random.uniform(shape=[3], dtype=np.float64, random_config=random.RandomConfig(seed=3, offset=1))
rng: random.Generator = random.default_rng(3)
more: npt.NDArray[np.float64] = rng.normal(0.0, 2.0, shape=[2], dtype=np.float64) + rng.dropout(np.ones(2))
shifted = bitwise.left_shift(np.array([1], dtype=np.int32), np.array([2], dtype=np.int32))
solved = linalg.solve(np.eye(3), np.ones((3, 1)))
activated = nn.relu(x)
quantized = fixed_point.quantize(x, "q15", shift=1)
window = signal.sliding_window
version: str = opforge.__version__
print(total, chosen, drawn, more, shifted, solved, activated, quantized, window, version)
'''


def test_the_stubs_match_the_installed_package_by_stubtest(installed: Path, tmp_path: Path) -> None:
    """mypy's stubtest over the installed package (issue 21): every stub says what its module
    defines at run time (functions, their parameters and defaults, classes, __all__), and the
    package's own sources type-check."""
    checked = subprocess.run([str(installed), "-m", "mypy.stubtest", "opforge"], capture_output=True, text=True,
                             cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout[-4000:] + checked.stderr[-2000:]
    assert "Success: no issues found" in checked.stdout, checked.stdout[-2000:]


def test_a_typed_script_over_every_namespace_passes_mypy_strict(installed: Path, tmp_path: Path) -> None:
    """The stubs accept correct code (issue 21): a dtype given as NumPy's type, a config by keyword
    (a frozen dataclass, as at run time), __version__; and the script runs."""
    script = tmp_path / "typed_use.py"
    script.write_text(TYPED_USE)
    checked = subprocess.run([str(installed), "-m", "mypy", "--strict", "--no-incremental", str(script)],
                             capture_output=True, text=True, cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout[-3000:]
    ran = subprocess.run([str(installed), str(script)], capture_output=True, text=True, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr[-2000:]


def test_the_installed_package_says_its_version(installed: Path) -> None:
    """opforge.__version__ is the version pip installed (its distribution's, ADR 0051)."""
    proc = subprocess.run([str(installed), "-c", "import importlib.metadata as m, opforge; "
                           "print(opforge.__version__, m.version('opforge'))"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    ours, theirs = proc.stdout.split()
    assert ours == theirs == "0.1.0"


def test_reserved_op_names_are_mangled(installed: Path, tmp_path: Path) -> None:
    proc = subprocess.run([str(installed), "-c",
                           "import numpy as np; from opforge import bitwise; "
                           "a = np.array([12], np.int32); print(int(bitwise.and_(a, np.array([10], np.int32))[0]))"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.stdout.strip() == "8", proc.stderr


DOC_EXAMPLE_CHECK = r'''
import re, sys
from pathlib import Path
import numpy as np

blocks = []
for page in sorted(Path(sys.argv[1]).glob("*.md")):
    text = page.read_text()
    blocks += re.findall(r"\*\*Example\*\* \(computed by the NumPy reference\)\n\n```python\n(.*?)```", text, re.S)
checked = 0
for block in blocks:
    lines = block.rstrip("\n").split("\n")
    code = [l for l in lines if not l.startswith("#")]
    shown = "\n".join(l[2:] for l in lines if l.startswith("# "))
    *setup, call = code
    for backend in ("c", "python"):
        scope = {}
        exec("\n".join(setup), scope)
        if shown.startswith("raises ValueError"):
            try:
                eval(call[:-1] + f", backend={backend!r})", scope)
            except ValueError:
                continue
            raise AssertionError(f"{call}: no ValueError")
        got = eval(call[:-1] + f", backend={backend!r})", scope)
        with np.printoptions(precision=4, suppress=True, floatmode="maxprec"):
            if isinstance(got, tuple):  # several outputs, shown by name
                text = "\n".join(f"{name}: {np.array_repr(v)}" for name, v in zip(got._fields, got))
            elif isinstance(got, list):  # a list output, shown by place
                name = re.match(r"# (\w+)\[0\]: ", "# " + shown).group(1) if got else ""
                text = "\n".join(f"{name}[{k}]: {np.array_repr(v)}" for k, v in enumerate(got)) or "[]"
            else:
                text = np.array_repr(got)
        assert text == shown, (backend, call, text, shown)
    checked += 1
print(checked)
'''


def test_every_docs_example_is_what_the_package_computes(installed: Path, out: GeneratedProjects, tmp_path: Path) -> None:
    """The examples on the docs pages, run against the installed package on both backends."""
    script = tmp_path / "examples.py"
    script.write_text(DOC_EXAMPLE_CHECK)
    proc = subprocess.run([str(installed), str(script), str(out / "docs" / "docs")],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert int(proc.stdout) >= 70


def _fenced(page: str, language: str) -> list[str]:
    """The code blocks of a Markdown page in one language."""
    return re.findall(rf"^```{language}\n(.*?)^```$", page, re.M | re.S)


def test_the_getting_started_python_call_prints_what_its_page_says(installed: Path, out: GeneratedProjects,
                                                                    tmp_path: Path) -> None:
    """The first Python call of the docs site, run: it prints the lines its page shows; the
    refused call raises the error its page quotes."""
    page = (out / "docs" / "docs" / "getting-started" / "python.md").read_text()
    first, refused = _fenced(page, "python")
    (tmp_path / "first.py").write_text(first)
    run = subprocess.run([str(installed), "first.py"], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    shown = [line[2:] for line in first.splitlines() if line.startswith("# ")]
    assert run.stdout.splitlines() == shown
    code, said = refused.splitlines()[0], refused.splitlines()[1].removeprefix("# ")
    (tmp_path / "refused.py").write_text(f"import numpy as np\nimport opforge\n{code}\n")
    run = subprocess.run([str(installed), "refused.py"], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode != 0 and run.stderr.strip().splitlines()[-1] == said, run.stderr


def test_backward_ops_agree_with_jax_vjp_and_central_differences(installed: Path, out: GeneratedProjects,
                                                                 tmp_path: Path) -> None:
    """Issue 24: every derived backward op, on both backends and in float32 and float64, gives
    ``jax.vjp`` of its forward op's computation (written in jax.numpy from the same traced
    expression) within twice a composed formula's budget (JAX's rules are other formulas), and in
    float64 the central differences of the forward op: seeded values over [-3, 3], where some ops
    are NaN on both sides. (A gradient of another shape than x's is refused on both backends, as the
    parity cases of the "equal" rule check.)"""
    import itertools
    import zlib

    import jax
    import jax.numpy as jnp
    import numpy as np

    from backward_cases import ARG_VALUES, jax_evaluate
    from dsl import scalar
    from generators.kernels import py_names
    from generators.tests.cases import _tol
    from generators.tests.inputs import worst_error

    jax.config.update("jax_enable_x64", True)
    catalogue = load(ROOT / "ops").catalogue
    cases: dict[str, dict] = {}
    inputs: dict[str, np.ndarray] = {}
    want: dict[str, np.ndarray] = {}
    for ns in catalogue.namespaces:
        for op in (o for o in ns.concrete_ops if o.gradient_of):
            fwd_ns, fwd_name = op.gradient_of.split(".")
            forward = catalogue.namespace(fwd_ns).op(fwd_name)
            c = forward.compute
            (x_name,) = c.tensors(forward)
            choices = [ARG_VALUES.get(a.name, [a.default]) for a in forward.args]
            for k, values in enumerate(itertools.product(*choices)):
                args = {a.name: v for a, v in zip(forward.args, values) if v is not None}
                expr = scalar.resolve_enums(c.case(tuple(n for n in c.optional if n in args)), forward.enums)
                for dtype in ("float32", "float64"):
                    key = f"{op.qualified_name}/{dtype}/{k}"
                    rng = np.random.default_rng(zlib.crc32(key.encode()))
                    x = rng.uniform(-3.0, 3.0, (4, 6)).astype(dtype)
                    grad = rng.uniform(-2.0, 2.0, (4, 6)).astype(dtype)
                    env = {n: (forward.enums[n].index(v) if n in forward.enums else jnp.asarray(v, dtype=dtype))
                           for n, v in args.items()}
                    _, vjp = jax.vjp(lambda value: jax_evaluate(expr, {**env, x_name: value}, dtype), jnp.asarray(x))
                    want[key] = np.asarray(vjp(jnp.asarray(grad))[0])
                    inputs[f"{key}/x"], inputs[f"{key}/grad"] = x, grad
                    cases[key] = {"module": py_names.module_name(ns.key), "function": py_names.function_name(op.name),
                                  "args": {py_names.py_name(n): v for n, v in args.items()}}
                    if dtype == "float64":
                        cases[key]["forward"] = py_names.function_name(forward.name)
                        inputs[f"{key}/step"] = 1e-6 * np.maximum(1.0, np.abs(x))
    np.savez(tmp_path / "inputs.npz", **inputs)
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    run = subprocess.run([str(installed), str(ROOT / "tests" / "backward_cases.py"), str(tmp_path / "cases.json"),
                          str(tmp_path / "inputs.npz"), str(tmp_path / "results.npz")], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-3000:]
    results = np.load(tmp_path / "results.npz")
    wrong = []
    for key, case in cases.items():
        qualified, dtype, _ = key.split("/")
        ns_name, name = qualified.split(".")
        op = catalogue.namespace(ns_name).op(name)
        # (JAX's rules compute the same derivative by other formulas, each rounding in its own way: twice
        # the budget of one composed formula, 4 eps of the largest gradient, where the op's own is tighter)
        own, eps = _tol(op, op.compute, dtype), float(np.finfo(dtype).eps)
        tol = {"ulps": max(own["ulps"], 8), "abs": max(own["abs"], 8 * eps)}
        scale = float(np.max(np.abs(want[key][np.isfinite(want[key])]), initial=1.0))
        for backend in ("c", "python"):
            got = results[f"{key}/{backend}"]
            worst, ok = worst_error(got, want[key].astype(dtype), tol, scale)
            if not ok or got.dtype != np.dtype(dtype):
                wrong.append(f"{key} {backend}: {worst:g} ulps from jax.vjp")
        if "forward" in case:  # central differences of the forward op, where it is finite
            above, below = results[f"{key}/above"], results[f"{key}/below"]
            step = inputs[f"{key}/step"]
            differences = (above - below) / (2 * step) * inputs[f"{key}/grad"]
            got = results[f"{key}/c"]
            where = np.isfinite(above) & np.isfinite(below) & np.isfinite(got)
            if not np.allclose(got[where], differences[where], rtol=1e-5, atol=1e-6):
                wrong.append(f"{key}: {np.max(np.abs(got[where] - differences[where]))} from central differences")
    assert len(cases) >= 100 and not wrong, "\n".join(wrong)


def test_the_training_page_runs_on_the_c_kernels_as_it_says(installed: Path, out: GeneratedProjects,
                                                             tmp_path: Path) -> None:
    """Issue 24's worked example: the script the page shows, run by the installed package (its C
    kernels), prints the losses the page lists (computed at generation by the NumPy reference),
    and they fall at every step; the page shows the plot made of them."""
    page = (out / "docs" / "docs" / "getting-started" / "training.md").read_text()
    script = page.split("```python\n", 1)[1].split("```", 1)[0]
    (tmp_path / "training.py").write_text(script)
    run = subprocess.run([str(installed), "training.py"], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    printed = [float(line.rsplit(" ", 1)[1]) for line in run.stdout.splitlines()]
    listed = {int(step): float(loss) for step, loss in re.findall(r"^\| (\d+) \| ([\d.]+) \|$", page, re.M)}
    assert len(printed) == 60 and len(listed) >= 6
    assert all(abs(printed[step] - loss) <= 2e-6 for step, loss in listed.items()), (printed, listed)
    assert all(b < a for a, b in zip(printed, printed[1:])) and printed[-1] < 0.5 * printed[0], printed
    assert "![The loss at each step, falling](training-loss.png)" in page
    plot = (out / "docs" / "docs" / "getting-started" / "training-loss.png").read_bytes()
    assert plot.startswith(b"\x89PNG\r\n\x1a\n") and len(plot) > 5000
    assert "  - Training with backward ops: getting-started/training.md" in (out / "docs" / "mkdocs.yml").read_text()
