"""The docs site's worked example of the backward ops (issue 24, ADR 0065): a logistic regression
trained by gradient descent with opforge's forward ops and a derived backward op only.

The page shows :data:`SCRIPT`, and the loss curve it prints is computed now, at generation time,
by running that very script against the NumPy reference of the ops it calls; its plot is made by
matplotlib. The tests run the same script against the installed package's C kernels and hold it
to the page's numbers."""

from __future__ import annotations

import io
import types
from typing import Any, Callable, Sequence

import numpy as np

from dsl.model import Namespace, Op
from generators.kernels import evaluate, py_names

PAGE = "getting-started/training.md"
TITLE = "Training with backward ops"
PLOT = "getting-started/training-loss.png"
#: The namespaces whose ops the script calls: without them the page is not generated.
NEEDS = ("math", "nn")

SCRIPT = '''import numpy as np
import opforge
from opforge import math, nn

# 200 points in the plane, labelled by a noisy line (the data: NumPy, not the model)
rng = np.random.default_rng(7)
x = rng.normal(size=(200, 2))
y = (x @ [[1.5], [-2.0]] + 0.5 + 0.5 * rng.normal(size=(200, 1)) > 0).astype(np.float64)

# a logistic regression: weights w, bias b, trained by gradient descent with opforge's ops
w, b, rate = np.zeros((2, 1)), np.zeros(()), np.float64(2.0)
share = np.full((200, 1), 1.0 / 200)  # d mean / d element
for step in range(60):
    z = math.add(math.matmul(x, w), b)  # the logits
    # binary cross-entropy of sigmoid(z): mean(softplus(z) - y * z)
    loss = math.mean(math.sub(nn.softplus(z), math.mul(y, z)))
    print(f"step {step:2d}  loss {float(loss):.6f}")
    # backward: d loss / d z through the derived backward op of softplus, then the product's rule
    dz = math.sub(nn.softplus_bp(z, share), math.mul(y, share))
    dw = math.matmul(math.matrix_transpose(x), dz)
    db = math.sum(dz)
    w = math.sub(w, math.mul(rate, dw))
    b = math.sub(b, math.mul(rate, db))
'''


def _module(ns: Namespace, functions: dict[str, Any]) -> types.SimpleNamespace:
    """The namespace's ops called with their tensors in order (as the script calls them), each
    computed by the NumPy reference in float64."""
    def call(op: Op) -> Callable[..., Any]:
        def run(*tensors: Any) -> Any:
            kwargs = {py_names.py_name(i.name): np.asarray(t, dtype=np.float64) for i, t in zip(op.inputs, tensors)}
            result = evaluate.run(op, functions[py_names.ref_name(op.name)], kwargs, "float64")
            if result is None:
                raise ValueError(f"{op.qualified_name} refused the worked example's inputs")
            return result
        return run

    return types.SimpleNamespace(**{py_names.function_name(op.name): call(op) for op in ns.concrete_ops})


def shown(namespaces: Sequence[Namespace]) -> bool:
    """Whether the page is generated: the namespaces the script calls are."""
    return all(any(ns.key == k for ns in namespaces) for k in NEEDS)


def losses(namespaces: Sequence[Namespace]) -> list[float] | None:
    """The loss at each step of :data:`SCRIPT`, run now against the NumPy reference, or None where
    the namespaces it calls are not all generated."""
    if not shown(namespaces):
        return None
    found = {ns.key: ns for ns in namespaces}
    modules = {k: _module(found[k], evaluate.reference_functions(found[k])) for k in NEEDS}
    printed: list[str] = []
    opforge = types.SimpleNamespace(**modules)
    scope = {"print": printed.append, "__name__": "training"}
    code = SCRIPT.replace("import opforge\nfrom opforge import math, nn\n", "")
    exec(compile(code, "<training example>", "exec"), {**scope, "np": np, "opforge": opforge, **modules})  # our own
    return [float(line.rsplit(" ", 1)[1]) for line in printed]


def plot(values: Sequence[float]) -> bytes:
    """The loss curve as a PNG (matplotlib's Agg, no timestamp: the same bytes each time). A Figure
    of its own, not pyplot's: no backend or figure is left behind in the generator's process."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(6, 3.2), dpi=100)
    axes = figure.subplots()
    axes.plot(range(len(values)), values, marker=".", color="#3f51b5")
    axes.set_xlabel("step")
    axes.set_ylabel("loss (binary cross-entropy)")
    axes.set_title("Logistic regression trained with opforge's ops")
    axes.grid(alpha=0.3)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()


def values(namespaces: Sequence[Namespace]) -> dict[str, Any] | None:
    """What the page's template is rendered with (None: the page is not generated), and the plot."""
    found = losses(namespaces)
    if found is None:
        return None
    rows = [{"step": k, "loss": f"{v:.6f}"} for k, v in enumerate(found) if k % 10 == 0 or k == len(found) - 1]
    return {"script": SCRIPT, "rows": rows, "first": f"{found[0]:.6f}", "last": f"{found[-1]:.6f}",
            "steps": len(found), "plot": PLOT.rsplit("/", 1)[1], "png": plot(found)}
