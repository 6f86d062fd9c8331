"""Shape expressions (``dsl/shapes.py``) and refusals as C statements of an API function.

The C API checks what the op's form says, as the bindings, the units and NNEF do (ADR
0029, 0033): each refusal, then each output's shape. C has no tuples and no
comprehensions, so a shape becomes a local ``opf_dims`` (the runtime's ``opf_dims.h``)
and a quantifier a loop; both are statements, which :class:`CShapeRenderer` collects
before the expression that reads them. Every read is guarded by the runtime, so the
statements are safe for inputs an earlier refusal has not yet turned away.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Callable, Iterator

from dsl import expr as E
from dsl import shapes as S
from dsl.model import Op
from generators import abi
from generators.formatting import c_string
from generators.kernels.c_constraints import CConstraintRenderer

#: Built shapes are written through these, where C needs statements.
_SHAPE_NODES = (E.ShapeOf, S.ArgShape, S.FirstShape, S.Dims, S.Concat, S.Slice, S.PerAxis, S.Broadcast,
                S.Numels, S.Each)


class CShapeRenderer(CConstraintRenderer):
    """Renders one op's sizes, conditions and shapes; :meth:`take` hands over the
    statements the rendered expressions read (locals named ``opf_<kind><n>``)."""

    def __init__(self, op: Op, prefix: str = "") -> None:
        super().__init__(op)
        self.prefix = prefix  # (in its locals' names: a second renderer in one function)
        self.blocks: list[list[str]] = [[]]
        self.memo: list[dict[Any, str]] = [{}]
        self.bound: dict[str, list[str]] = {"k": [], "v": [], "e": []}
        self.count = 0

    # -- statements
    def fresh(self, kind: str) -> str:
        self.count += 1
        return f"opf_{self.prefix}{kind}{self.count}"

    def emit(self, *lines: str) -> None:
        self.blocks[-1].extend(lines)

    def take(self) -> list[str]:
        """The statements rendered so far at the function's level, once."""
        lines, self.blocks[0] = self.blocks[0], []
        return lines

    @contextmanager
    def block(self) -> Iterator[list[str]]:
        """A nested block (a loop's or a branch's body): its statements, its own memo."""
        self.blocks.append([])
        self.memo.append({})
        try:
            yield self.blocks[-1]
        finally:
            self.blocks.pop()
            self.memo.pop()

    def loop(self, kind: str, head: Callable[[str], str], body: Callable[[str], list[str]],
             first: Callable[[str], list[str]] = lambda var: []) -> None:
        """``head(var) { first(var) ...statements... body(var) }``, ``var`` bound for the
        body as :class:`S.Axis` (``k``), :class:`S.Value` (``v``) or :class:`S.Each` (``e``)."""
        var = self.fresh(kind)
        self.bound[kind].append(var)
        try:
            with self.block() as inner:
                tail = body(var)
            self.emit(head(var) + " {", *first(var), *inner, *tail, "}")
        finally:
            self.bound[kind].pop()

    # -- parameters
    def render_paramref(self, node: E.ParamRef) -> str:
        arg = self._arg(node) if node.config is None else None
        if arg is not None and arg.default is None and arg.count.is_single:
            # an optional arg not given reads as 0: statements built ahead of a condition that
            # asks whether it was given never dereference NULL
            name = abi.c_name(node.name)
            return f"({name} != NULL ? *{name} : 0)"
        return super().render_paramref(node)

    def array(self, ref: E.ParamRef) -> tuple[str, str]:
        """An int-list arg (or a list input): its C pointer and its count."""
        name = abi.c_name(ref.name)
        return name, f"{name}_count"

    def is_list_arg(self, node: Any) -> bool:
        return isinstance(node, E.ParamRef) and node.kind == "arg"

    # -- shapes: a local opf_dims, by name
    def shape(self, node: Any) -> str:
        """The name of a local ``opf_dims`` holding shape ``node``."""
        if isinstance(node, E.ParamRef) and node.kind == "input":
            node = E.ShapeOf(node)
        if isinstance(node, S.Each):
            return self.bound["e"][-1]
        for memo in reversed(self.memo):
            if node in memo:
                return memo[node]
        name = self.fresh("d")
        # A shape that reads no loop variable is built once, before the outermost statement.
        depth = 0 if _free(node) else len(self.blocks) - 1
        inner, self.blocks = self.blocks[depth + 1:], self.blocks[:depth + 1]
        memos, self.memo = self.memo[depth + 1:], self.memo[:depth + 1]
        try:
            getattr(self, "build_" + type(node).__name__.lower())(node, name)
        finally:
            self.blocks += inner
            self.memo += memos
        self.memo[depth][node] = name
        return name

    def build_shapeof(self, node: E.ShapeOf, name: str) -> None:
        self.emit(f"const opf_dims {name} = opf_dims_of({abi.c_name(node.input.name)});")

    def build_argshape(self, node: S.ArgShape, name: str) -> None:
        values, count = self.array(node.arg)
        self.emit(f"const opf_dims {name} = opf_dims_from({values}, {count});")

    def build_firstshape(self, node: S.FirstShape, name: str) -> None:
        tensors, count = self.array(node.inputs)
        self.emit(f"const opf_dims {name} = {count} > 0 ? opf_dims_of({tensors}[0]) : opf_dims_from(NULL, 0);")

    def start(self, name: str) -> None:
        self.emit(f"opf_dims {name} = {{0, {{0}}}};")

    def build_dims(self, node: S.Dims, name: str) -> None:
        sizes = [self.render(S.size(s)) for s in node.sizes]
        self.start(name)
        self.emit(*(f"opf_dims_push(&{name}, {s});" for s in sizes))

    def build_concat(self, node: S.Concat, name: str) -> None:
        parts = [self.shape(p) for p in node.parts]
        self.start(name)
        self.emit(*(f"opf_dims_append(&{name}, &{p});" for p in parts))

    def build_slice(self, node: S.Slice, name: str) -> None:
        of = self.shape(node.of)
        bounds = []
        for bound in (node.start, node.stop):
            bounds += ["false", "0"] if bound is None else ["true", self.render(S.size(bound))]
        self.emit(f"const opf_dims {name} = opf_dims_slice(&{of}, {', '.join(bounds)});")

    def build_peraxis(self, node: S.PerAxis, name: str) -> None:
        rank = self.render(node.rank)
        self.start(name)

        def body(k: str) -> list[str]:
            size = self.render(node.size)
            if node.keep is None:
                return [f"opf_dims_push(&{name}, {size});"]
            return [f"if ({self.render(node.keep)}) {{", f"opf_dims_push(&{name}, {size});", "}"]
        self.loop("k", lambda k: f"for (int64_t {k} = 0; {k} < {rank} && {k} <= OPF_DIMS_ROOM; {k}++)", body)

    def build_broadcast(self, node: S.Broadcast, name: str) -> None:
        shapes = [self.shape(s) for s in node.shapes]
        self.emit(f"opf_dims {name} = {shapes[0]};",
                  *(f"(void)opf_dims_fit(&{name}, &{s}, {_bool(node.strict)});" for s in shapes[1:]))

    def build_numels(self, node: S.Numels, name: str) -> None:
        tensors, count = self.array(node.inputs)
        self.start(name)
        self.loop("e", lambda e: f"for (int32_t {e} = 0; {e} < {count}; {e}++)",
                  lambda e: [f"opf_dims_push(&{name}, opf_numel({tensors}[{e}]));"])

    def build_where(self, node: S.Where, name: str) -> None:
        condition = self.render(node.condition)
        self.emit(f"opf_dims {name} = {{0, {{0}}}};")
        branches = []
        for shape in (node.then, node.otherwise):
            with self.block() as inner:
                value = self.shape(shape)
            branches.append([*inner, f"{name} = {value};"])
        self.emit(f"if ({condition}) {{", *branches[0], "} else {", *branches[1], "}")

    def render_shapeof(self, node: E.ShapeOf) -> str:
        return self.shape(node)

    # -- sizes
    def render_axis(self, node: S.Axis) -> str:
        return self.bound["k"][-1]

    def render_value(self, node: S.Value) -> str:
        return self.bound["v"][-1]

    def render_item(self, node: S.Item) -> str:
        index = self.render(S.size(node.index))
        if self.is_list_arg(node.of):
            values, count = self.array(node.of)
            return f"opf_values_at({values}, {count}, {index})"
        return f"opf_dims_at(&{self.shape(node.of)}, {index})"

    def render_length(self, node: S.Length) -> str:
        if isinstance(node.of, E.ParamRef):  # a list input's tensors, an int-list arg's values
            return f"((int64_t){self.array(node.of)[1]})"
        return f"((int64_t){self.shape(node.of)}.rank)"

    def render_numel(self, node: S.Numel) -> str:
        if self.is_list_arg(node.of):
            return f"opf_values_numel({', '.join(self.array(node.of))})"
        return f"opf_dims_numel(&{self.shape(node.of)})"

    def size(self, node: Any, text: Callable[[], str]) -> str:
        """A local ``const int64_t`` holding size ``node`` (``text()`` renders it), computed
        once, before the outermost statement, where it reads no loop variable: a window's
        count or padding is read by several checks and the output's shape."""
        if not _free(node) or self.real(node):
            return text()
        for memo in reversed(self.memo):
            if node in memo:
                return memo[node]
        inner, self.blocks = self.blocks[1:], self.blocks[:1]
        memos, self.memo = self.memo[1:], self.memo[:1]
        try:
            value = text()
            name = self.fresh("s")
            self.emit(f"const int64_t {name} = {value};")
        finally:
            self.blocks += inner
            self.memo += memos
        self.memo[0][node] = name
        return name

    def render_where(self, node: S.Where) -> str:
        if _is_shape(node):
            return self.shape(node)
        return self.size(node, lambda: f"({self.render(node.condition)} ? {self.render(node.then)} : "
                                       f"{self.render(node.otherwise)})")

    def render_max(self, node: S.Max) -> str:
        return self.size(node, lambda: self.fold("opf_max_i64", node.terms))

    def render_min(self, node: S.Min) -> str:
        return self.size(node, lambda: self.fold("opf_min_i64", node.terms))

    def fold(self, function: str, terms: tuple[Any, ...]) -> str:
        text = self.render(S.size(terms[0]))
        for term in terms[1:]:
            text = f"{function}({text}, {self.render(S.size(term))})"
        return text

    def render_ceil(self, node: S.Ceil) -> str:
        return f"opf_ceil_size({self.render(node.value)})"

    def render_arith(self, node: E.Arith) -> str:
        a, b = self.render(node.left), self.render(node.right)
        function = {"//": "opf_floordiv", "%": "opf_floormod", "+": "opf_size_add", "-": "opf_size_sub",
                    "*": "opf_size_mul"}.get(node.op)
        if node.op == "/":  # the one real quotient (range's length)
            return f"((double)({a}) / (double)({b}))"
        if self.real(node.left) or self.real(node.right):
            return f"({a} {node.op} {b})"
        if node.op == "//":
            return self.size(node, lambda: f"{function}({a}, {b})")
        return f"{function}({a}, {b})"

    def real(self, node: Any) -> bool:
        """Whether a size node is a real number (a float arg or literal, or a real quotient)."""
        if isinstance(node, E.Literal):
            return isinstance(node.value, float)
        if isinstance(node, E.ParamRef) and node.kind == "arg":
            found = self._arg(node)
            return found is not None and abi.scalar_ctype(found.type) == "double"
        if isinstance(node, E.Arith):
            return node.op == "/" or self.real(node.left) or self.real(node.right)
        if isinstance(node, E.Neg):
            return self.real(node.operand)
        if isinstance(node, S.Where):
            return self.real(node.then) or self.real(node.otherwise)
        return False

    def render_total(self, node: S.Total) -> str:
        tensors, count = self.array(node.inputs)
        axis = self.render(node.axis)
        total = self.fresh("n")
        self.emit(f"int64_t {total} = 0;")
        self.loop("e", lambda e: f"for (int32_t {e} = 0; {e} < {count}; {e}++)",
                  lambda e: [f"{total} = opf_size_add({total}, opf_size_at({tensors}[{e}], {axis}));"])
        return total

    # -- conditions
    def every(self, kind: str, head: Callable[[str, str], str], condition: Any,
              first: Callable[[str], list[str]] = lambda var: []) -> str:
        """Whether ``condition`` holds in every turn of a loop, which stops at the first miss
        (``head(ok, var)`` is the loop's head)."""
        ok = self.fresh("ok")
        self.emit(f"bool {ok} = true;")
        self.loop(kind, lambda var: head(ok, var), lambda var: [f"{ok} = {self.render(condition)};"], first)
        return ok

    def render_foraxes(self, node: S.ForAxes) -> str:
        rank = self.render(node.rank)
        return self.every("k", lambda ok, k: f"for (int64_t {k} = 0; {ok} && {k} < {rank} && {k} <= OPF_DIMS_ROOM; {k}++)",
                          node.condition)

    def render_allvalues(self, node: S.AllValues) -> str:
        values, count = self.array(node.arg)
        index = self.fresh("i")
        return self.every("v", lambda ok, v: f"for (int32_t {index} = 0; {ok} && {index} < {count}; {index}++)",
                          node.condition, lambda v: [f"const int64_t {v} = {values}[{index}];"])

    def render_eachtensor(self, node: S.EachTensor) -> str:
        tensors, count = self.array(node.inputs)
        index = self.fresh("i")
        return self.every("e", lambda ok, e: f"for (int32_t {index} = 0; {ok} && {index} < {count}; {index}++)",
                          node.condition, lambda e: [f"const opf_dims {e} = opf_dims_of({tensors}[{index}]);"])

    def render_each(self, node: S.Each) -> str:
        return self.bound["e"][-1]

    def render_fits(self, node: S.Fits) -> str:
        shapes = [self.shape(s) for s in node.shapes]
        acc, ok = self.fresh("d"), self.fresh("ok")
        self.emit(f"opf_dims {acc} = {shapes[0]};", f"bool {ok} = true;",
                  *(f"{ok} = opf_dims_fit(&{acc}, &{s}, {_bool(node.strict)}) && {ok};" for s in shapes[1:]))
        return ok

    def render_shapesequal(self, node: S.ShapesEqual) -> str:
        return f"opf_dims_equal(&{self.shape(node.left)}, &{self.shape(node.right)})"

    def render_names(self, node: S.Names) -> str:
        values, count = self.array(node.axes)
        return (f"opf_names_axis({values}, {count}, {self.render(node.axis)}, {self.render(node.rank)}, "
                f"{_bool(node.all_when_empty)})")

    def render_distinct(self, node: S.Distinct) -> str:
        values, count = self.array(node.arg)
        return f"opf_distinct_axes({values}, {count}, {self.render(node.rank)})"

    def render_finite(self, node: S.Finite) -> str:
        return f"isfinite({self.render(node.value)})"


def _free(node: Any) -> bool:
    """Whether a node reads no loop variable (an axis, a value or a tensor being looked at)."""
    return not isinstance(node, (S.Axis, S.Value, S.Each)) and all(_free(c) for c in S.children(node))


def _is_shape(node: Any) -> bool:
    if isinstance(node, S.Where):
        return _is_shape(node.then) or _is_shape(node.otherwise)
    return isinstance(node, _SHAPE_NODES)


def _bool(value: bool) -> str:
    return "true" if value else "false"


def refusal_checks(op: Op, render: CShapeRenderer | None = None, inputs_only: bool = False) -> list[str]:
    """Each refusal of the op's form, a status naming the rule (``inputs_only``: those that
    read no arg, for a query that takes only the inputs, such as ``<fn>_workspace``)."""
    render = render or CShapeRenderer(op)
    lines: list[str] = []
    for refusal in op.compute.refusals(op):
        reads_arg = any(r.kind == "arg" for r in S.refs(refusal.condition))
        if inputs_only and reads_arg:
            continue
        condition = render.render(refusal.condition)
        status = "OPFORGE_ERR_EMPTY" if refusal.kind == "empty" else "OPFORGE_ERR_ARG" if reads_arg else "OPFORGE_ERR_SHAPE"
        lines += [*render.take(), f"if (!{condition}) {{",
                  f"return opf_fail(detail, {status}, {c_string(refusal.message)});", "}"]
    return lines


def output_checks(op: Op, render: CShapeRenderer | None = None, into: bool = False) -> list[str]:
    """Each output has the shape the op's form gives it (``into``: the result need only
    broadcast into the output)."""
    render = render or CShapeRenderer(op)
    lines: list[str] = []
    for output, shape in zip(op.outputs, op.compute.output_shapes(op)):
        name = abi.c_name(output.name)
        message = c_string(f"{output.name}: shape does not match the result")
        if isinstance(shape, S.Tensors):  # a list output: as many tensors as the form says, each of its shape
            count, each = render.render(shape.count), render.shape(shape.shape)
            lines += [*render.take(), f"if ((int64_t){name}_count != {count}) {{",
                      f"return opf_fail(detail, OPFORGE_ERR_SHAPE, {c_string(output.name + ': count does not match the result')});",
                      "}", f"for (int32_t k = 0; k < {name}_count; k++) {{",
                      f"if (!opf_dims_match({name}[k], &{each})) {{",
                      f"return opf_fail(detail, OPFORGE_ERR_SHAPE, {message});", "}", "}"]
            continue
        result = render.shape(shape)
        test = "opf_dims_assignable" if into else "opf_dims_match"
        if into:
            message = c_string(f"{output.name}: the result does not broadcast to its shape")
        lines += [*render.take(), f"if (!{test}({name}, &{result})) {{",
                  f"return opf_fail(detail, OPFORGE_ERR_SHAPE, {message});", "}"]
    return lines
