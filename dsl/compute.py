"""What an op computes: the compute descriptions of the DSL.

An op declares one of these forms inside its ``with Op(...)`` block:

* ``Elementwise(lambda x, y: x + y)``: a scalar function over inputs and
  scalar args, applied with broadcasting;
* ``Reduce("add", ...)``: init/combine/finalize over axes;
* ``ArgReduce("max", ...)``: index of the extreme value along one axis;
* ``Einsum("...|ik;...|kj=>...|ij")``: a contraction in OCANNL notation;
* ``Random("normal", ...)``: sampling from the Philox4x32-10 generator;
* ``Fragment(...)``: hand-written C and Python kernels;
* ``Scatter(lambda acc, u: acc + u)`` / ``Segment(...)``: rows folded into
  the rows that an index tensor picks;
* ``ShapeOf("shape")``: the shape, size, rank or one axis's size of a tensor;
* ``Compose(lambda x, y: step("math.mul", step("math.sub", x, y), ...))``:
  a sequence of other elementwise ops.

This module is the one name generators use for all of it: the scalar IR the
lambdas trace into (``dsl/scalar.py``) and the forms, one module each
(``dsl/forms/``).
"""

from __future__ import annotations

from dsl.forms import *  # noqa: F401,F403 - the forms, one namespace for the generators
from dsl.forms import __all__ as _forms
from dsl.scalar import *  # noqa: F401,F403 - the scalar IR
from dsl.scalar import __all__ as _scalar

__all__ = [*_scalar, *_forms]
