"""Issue 17.1: every default form of the README works in the Python binding, on both backends:
another arg (ND4J's defaultValue = otherArg), x.shape(), x.data_type(), and an output's
shape given by out=. On 5a768c3 the binding passed None on (TypeError: b must be a
number), refused None as a shape, and made a dtype default float64."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT, build_package, write_ops

OPS = '''
    from dsl import *
    with Namespace("demo"):
        with Op("affine") as op:
            x = Input(NUMERIC, "x", description="x")
            a = Arg(FLOATING_POINT, "a", default=2.0, description="scale")
            Arg(FLOATING_POINT, "b", default=a, description="shift, by default the scale")
            Output(NUMERIC, "out", description="x * a + b")
            Elementwise(lambda x, a, b: x * a + b)
            Doc(Language.ANY, DocScope.ALL, "x * a + b")
        with Op("like") as op:
            x = Input(NDARRAY, "x", description="template")
            Arg(FLOATING_POINT, "value", description="value")
            Arg(DATA_TYPE, "dtype", default=x.data_type(), description="dtype")
            Arg(INT, "shape", count=AtLeast(0), default=x.shape(), description="shape")
            Output(NDARRAY, "output", description="filled")
            Generate("fill")
            Doc(Language.ANY, DocScope.ALL, "full_like")
        with Op("filled") as op:
            out = Output(NUMERIC, "output", description="filled")
            Arg(INT, "shape", count=AtLeast(0), default=out.shape(), description="shape, by default out's")
            Arg(FLOATING_POINT, "value", description="value")
            Arg(DATA_TYPE, "dtype", default="float32", description="dtype")
            Generate("fill")
            Doc(Language.ANY, DocScope.ALL, "fill")
'''

CHECKS = '''
import numpy as np
import pytest
from opforge import demo

x = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int32)
for backend in ("c", "python"):
    got = demo.affine(np.float32([1, 2]), 3.0, backend=backend)
    assert got.tolist() == [6.0, 9.0], got                      # b = a = 3
    assert demo.affine(np.float32([1]), backend=backend).tolist() == [4.0]   # a = 2, b = 2
    y = demo.like(x, 7.0, backend=backend)
    assert y.dtype == np.int32 and y.shape == (2, 3) and (y == 7).all(), y
    z = demo.like(x, 0.5, dtype="float64", shape=[4], backend=backend)
    assert z.dtype == np.float64 and z.tolist() == [0.5] * 4
    buf = np.zeros((2, 2), dtype=np.float32)
    assert demo.filled(value=1.5, out=buf, backend=backend) is buf and (buf == 1.5).all()
    assert demo.filled(shape=[3], value=2.0, backend=backend).tolist() == [2.0] * 3
    with pytest.raises(TypeError, match="demo.filled: shape is required unless out= gives output"):
        demo.filled(value=1.0, backend=backend)
print("ok")
'''


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("defaults")
    ops = write_ops(root, {"demo.py": OPS})
    subprocess.run([sys.executable, "-m", "generators.cli", "all", "-projects", "python", "-opsdir", str(ops),
                    "-outdir", str(root / "out")], cwd=ROOT, check=True, capture_output=True)
    site = root / "site"
    build_package(root / "out" / "python", site, root / "build", build_type="Debug")  # (-O0: quick to build)
    return site


def test_every_default_form_applies_on_both_backends(package: Path, tmp_path: Path) -> None:
    script = tmp_path / "checks.py"
    script.write_text(textwrap.dedent(CHECKS))
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(package)})
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stdout + run.stderr[-3000:]


def test_the_signature_and_docstring_say_what_each_default_is(package: Path) -> None:
    source = (package / "opforge" / "demo.py").read_text()
    assert "b: float | None = None" in source and "b : float, default the value of a" in source
    assert "dtype : data-type, default the dtype of x" in source and "shape : sequence of int (AtLeast(0)), default " \
        "the shape of x" in source
    assert "default the shape of output (required unless that output is given)" in source
