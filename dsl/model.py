"""The frozen, validated object graph that op definitions become.

Builders in :mod:`dsl.builders` produce these objects; generators read them.
Everything is immutable (attrs ``frozen``, tuples), so a generator cannot
change what another one sees.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any, Iterator, Union

import attrs

if TYPE_CHECKING:
    from dsl.compute import Compute
from dsl.expr import DataTypeOf, Expr, ParamRef, Scalar, ShapeOf
from dsl.types import Count, DataType, DocScope, Language


@attrs.frozen(order=True)
class Location:
    """Where a builder was called: a file path and a 1-based line."""

    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@attrs.frozen
class Problem:
    """One definition error: ``file:line: context: message``."""

    location: Location | None
    context: str
    message: str

    def __str__(self) -> str:
        where = str(self.location) if self.location else "<unknown>"
        return f"{where}: {self.context or '<unnamed>'}: {self.message}"

    def sort_key(self) -> tuple[str, int, str, str]:
        loc = self.location or Location("", 0)
        return (loc.file, loc.line, self.context, self.message)


class _NoDefault(enum.Enum):
    NO_DEFAULT = "NO_DEFAULT"

    def __repr__(self) -> str:
        return "NO_DEFAULT"


#: Marks a parameter without a default value (``None`` is a valid default).
NO_DEFAULT = _NoDefault.NO_DEFAULT

DefaultValue = Union[_NoDefault, None, Scalar, tuple, ParamRef, ShapeOf, DataTypeOf]


@attrs.frozen
class DocSection:
    language: Language
    scope: DocScope
    text: str
    location: Location


def _in_scope(doc: DocSection, language: Language, scopes: tuple[DocScope, ...]) -> bool:
    return doc.language in (Language.ANY, language) and doc.scope in scopes


@attrs.frozen
class Input:
    """A tensor the op works on."""

    name: str
    type: DataType
    description: str
    count: Count
    default: DefaultValue
    location: Location
    kind = "input"

    @property
    def has_default(self) -> bool:
        return self.default is not NO_DEFAULT


@attrs.frozen
class Arg:
    """A non-tensor argument that modifies how the op works."""

    name: str
    type: DataType
    description: str
    count: Count
    default: DefaultValue
    possible_values: tuple[str, ...]
    location: Location
    kind = "arg"

    @property
    def has_default(self) -> bool:
        return self.default is not NO_DEFAULT


@attrs.frozen
class Output:
    name: str
    type: DataType
    description: str
    count: Count
    location: Location
    kind = "output"
    has_default = False


Param = Union[Input, Arg, Output]


@attrs.frozen
class Constraint:
    """A condition on inputs and args; ``backend`` ones are documented, not checked."""

    message: str
    expr: Expr
    backend: bool
    location: Location


@attrs.frozen
class Signature:
    """One way to call the op: an ordered subset of its parameters."""

    params: tuple[ParamRef, ...]
    doc: str | None
    location: Location | None


@attrs.frozen
class Config:
    """A namespace-level holder of inputs and args that ops take as one parameter."""

    namespace: str
    name: str
    inputs: tuple[Input, ...]
    args: tuple[Arg, ...]
    constraints: tuple[Constraint, ...]
    docs: tuple[DocSection, ...]
    location: Location
    kind = "config"

    @property
    def qualified_name(self) -> str:
        return f"{self.namespace}.{self.name}"

    @property
    def params(self) -> tuple[Input | Arg, ...]:
        return self.inputs + self.args

    def docs_for(self, language: Language, scopes: tuple[DocScope, ...]) -> tuple[DocSection, ...]:
        return tuple(d for d in self.docs if _in_scope(d, language, scopes))


@attrs.frozen(cache_hash=True)  # (ops key many caches, and hashing one walks its whole tree)
class Op:
    namespace: str
    name: str
    inputs: tuple[Input, ...]
    args: tuple[Arg, ...]
    outputs: tuple[Output, ...]
    configs: tuple[Config, ...]
    constraints: tuple[Constraint, ...]
    signatures: tuple[Signature, ...]
    docs: tuple[DocSection, ...]
    mixins: tuple[str, ...]
    display_name: str
    display_path: str
    native_name: str
    abstract: bool
    location: Location
    #: The ONNX operator of the same job (``"Add"``, ``"ReduceSum"``), if any; where it computes
    #: otherwise than ONNX's, ``unlike_onnx`` says how (ADR 0059).
    onnx: str | None = None
    unlike_onnx: str | None = None
    #: The NNEF standard operation of the same job (``"sum_reduce"``), if any (``dsl.counterparts``),
    #: and how the op differs from it beyond what its form says (``unlike_nnef``; ADR 0059).
    nnef: str | None = None
    unlike_nnef: str | None = None
    #: The NumPy function of the same meaning (``"fmod"``, ``"linalg.cholesky"``), if any: the
    #: package's function computes what it computes on the same inputs (ADR 0050).
    numpy: str | None = None
    #: How the op differs from the NumPy function of its name, where it does not compute what
    #: that function computes (``numpy`` is then None): shown to users in the docs and docstring.
    unlike_numpy: str | None = None
    #: Integer dtypes an op over the reals also takes (``("int8", "uint8")``): each computes as
    #: the float64 variant does on its values converted, then converts the results back by
    #: cast's rule (``dsl.dtypes.computes_in``; ADR 0058).
    integers_through_float: tuple[str, ...] = ()
    #: The op's formula in LaTeX, where its form derives none (a fragment's, a layout move's):
    #: one line or a tuple of lines, shown on its docs page as the derived ones are.
    formula: str | tuple[str, ...] | None = None
    #: What the op computes (None: a documentation-only op).
    compute: Compute | None = None
    compute_location: Location | None = None
    #: The steps of a composed op (its ``compute`` is then their fusion).
    composition: Any = None
    #: Derivatives (``dsl.backward``): a derived backward op names the op it is the gradient of;
    #: a forward op names its backward op, or says why it has none.
    gradient_of: str | None = None
    backward: str | None = None
    not_differentiable: str | None = None

    @property
    def qualified_name(self) -> str:
        return f"{self.namespace}.{self.name}"

    @property
    def params(self) -> tuple[Param, ...]:
        """Inputs, args and outputs in declaration order (configs excluded)."""
        return self.inputs + self.args + self.outputs

    @property
    def enums(self) -> dict[str, tuple[str, ...]]:
        """Each enum arg's values, by arg name: every target passes a value as its index here."""
        return {a.name: a.possible_values for a in self.args if a.type is DataType.ENUM}

    def param(self, ref: ParamRef) -> Param | Config | None:
        """The parameter or config ``ref`` names, or None."""
        if ref.kind == "config":
            return next((c for c in self.configs if c.name == ref.name), None)
        if ref.config is not None:
            config = next((c for c in self.configs if c.name == ref.config), None)
            pool: tuple[Param, ...] = config.params if config else ()
        else:
            pool = self.params
        return next((p for p in pool if p.kind == ref.kind and p.name == ref.name), None)

    def docs_for(self, language: Language, scopes: tuple[DocScope, ...]) -> tuple[DocSection, ...]:
        return tuple(d for d in self.docs if _in_scope(d, language, scopes))

    def all_constraints(self) -> Iterator[tuple[Config | None, Constraint]]:
        """The op's constraints, then those of each config it uses."""
        for c in self.constraints:
            yield None, c
        for config in self.configs:
            for c in config.constraints:
                yield config, c


@attrs.frozen
class Alias:
    """A second name for an op of another (or the same) namespace; delegates, never copies."""

    namespace: str
    name: str
    target_namespace: str
    target_op: str
    location: Location

    @property
    def qualified_name(self) -> str:
        return f"{self.namespace}.{self.name}"

    @property
    def target(self) -> str:
        return f"{self.target_namespace}.{self.target_op}"


@attrs.frozen
class Namespace:
    name: str
    ops: tuple[Op, ...]
    configs: tuple[Config, ...]
    aliases: tuple[Alias, ...]
    location: Location

    @property
    def key(self) -> str:
        """Namespace names are case-insensitive."""
        return self.name.lower()

    def op(self, name: str) -> Op | None:
        return next((o for o in self.ops if o.name == name), None)

    @property
    def concrete_ops(self) -> tuple[Op, ...]:
        return tuple(o for o in self.ops if not o.abstract)


@attrs.frozen
class Catalogue:
    """All namespaces of an ops tree, in name order, and the tree's version
    (``MAJOR.MINOR.PATCH``, from its ``VERSION`` file): the version of every
    library and package generated from it."""

    namespaces: tuple[Namespace, ...]
    version: str = "0.0.0"

    def namespace(self, name: str) -> Namespace | None:
        key = name.lower()
        return next((n for n in self.namespaces if n.key == key), None)

    def resolve(self, alias: Alias) -> Op | None:
        ns = self.namespace(alias.target_namespace)
        return ns.op(alias.target_op) if ns else None

    def select(self, names: tuple[str, ...]) -> "Catalogue":
        keys = {n.lower() for n in names}
        return attrs.evolve(self, namespaces=tuple(n for n in self.namespaces if n.key in keys))
