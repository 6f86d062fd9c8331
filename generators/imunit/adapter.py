"""A unit's C adapter for one dtype: Imaginet-style parameters (pointers and integers) in,
the op's descriptors rebuilt and its checked API function called. A method per parameter
role of the C API says what the adapter declares for it and what it passes on."""

from __future__ import annotations

from dsl import compute as C
from dsl.model import Op
from dsl.types import DataType
from generators import abi
from generators.imunit import units
from generators.imunit.variants import variants_of
from generators.kernels.scalar_c import C_TYPE, SUFFIX


def adapter_name(op: Op, dtype: str) -> str:
    return f"{abi.function(op)}_unit_{SUFFIX[dtype]}"


def socket_array(name: str, sockets: list[str], dtype: str, shape_of: dict[str, str], const: bool,
                 count: str) -> list[str]:
    """An adapter's descriptors of a tensor list's sockets (socket ``s`` takes the rank and
    dims named ``shape_of[s]``), the array of them, and a refusal of a count beyond them."""
    q = "const " if const else ""
    lines = []
    for s in sockets:
        dims = ", ".join(f"{shape_of[s]}_d{k}" for k in range(abi.MAX_RANK))
        lines.append(f"{q}opforge_tensor t_{s} = {{.data = {abi.c_name(s)}, .dtype = {dtype}, .rank = {shape_of[s]}_rank, .shape = {{{dims}}}}};")
    lines.append(f"{q}opforge_tensor* const t_{name}[{len(sockets)}] = {{{', '.join(f'&t_{s}' for s in sockets)}}};")
    return lines + [f"if ({count} < 0 || {count} > {len(sockets)}) {{", "return (int)OPFORGE_ERR_ARG;", "}"]


def _shape_params(name: str, count: int = abi.MAX_RANK) -> list[tuple[str, str]]:
    """A tensor's rank and dims, as the unit passes them."""
    return [(f"int {name}_rank", f"{name}_rank"), *((f"int {name}_d{k}", f"{name}_d{k}") for k in range(count))]


class UnitAdapter:
    """The adapter of ``op`` for ``dtype``: ``params()`` are its (C declaration, unit value)
    pairs in call order, ``fragment()`` its C text."""

    def __init__(self, op: Op, dtype: str) -> None:
        self.op, self.dtype = op, dtype
        self.variant = next(v for v in variants_of(op) if v.dtype == dtype)
        self.axes = units.reduction_axes_arg(op)
        self.name = adapter_name(op, dtype)

    # ------------------------------------------------------------ parameters

    def params(self) -> list[tuple[str, str]]:
        return [pair for p in abi.parameters(self.op) for pair in getattr(self, f"declare_{p.role}")(p)]

    def _tensor(self, name: str, const: bool) -> list[tuple[str, str]]:
        if name in C.own_dtype_inputs(self.op):  # any dtype: untyped data and the dtype's number
            data = [(f"const void* {abi.c_name(name)}", name), (f"int {name}_dtype_index", f"{name}_dtype_index")]
        else:
            data = [(f"{'const ' if const else ''}{C_TYPE[self.variant.of(name)]}* {abi.c_name(name)}", name)]
        return data + _shape_params(name)

    def declare_input(self, p: abi.CParam) -> list[tuple[str, str]]:
        return self._tensor(p.source, True)

    def declare_output(self, p: abi.CParam) -> list[tuple[str, str]]:
        return self._tensor(p.source, False)

    def declare_input_list(self, p: abi.CParam) -> list[tuple[str, str]]:
        """Every socket, typed as the list's dtype."""
        ct = C_TYPE[self.variant.of(p.source)]
        return [pair for s in units.sockets(next(i for i in self.op.inputs if i.name == p.source))
                for pair in [(f"const {ct}* {abi.c_name(s)}", s), *_shape_params(s)]]

    def declare_input_count(self, p: abi.CParam) -> list[tuple[str, str]]:
        return [(f"int {p.source}_count", f"{p.source}_count")]

    def declare_output_list(self, p: abi.CParam) -> list[tuple[str, str]]:
        """Every socket (all of one shape), then that shape once."""
        ct = C_TYPE[self.variant.of(p.source)]
        sockets = units.output_sockets(next(o for o in self.op.outputs if o.name == p.source))
        return [(f"{ct}* {abi.c_name(s)}", s) for s in sockets] + _shape_params(p.source)

    def declare_output_count(self, p: abi.CParam) -> list[tuple[str, str]]:
        return [(f"int {units.PART_COUNT}", units.PART_COUNT)]

    def declare_array(self, p: abi.CParam) -> list[tuple[str, str]]:
        if p.source == self.axes:  # a reduction's one axis
            return [("int axis", units.numpy_axis("axis"))]
        return _shape_params(p.source, units.list_length(self.op, next(a for a in self.op.args if a.name == p.source)))

    def declare_count(self, p: abi.CParam) -> list[tuple[str, str]]:
        return []

    def declare_optional(self, p: abi.CParam) -> list[tuple[str, str]]:
        return [(f"int use_{p.source}", f"use_{p.source}"), (f"double {p.name}", p.source)]

    def declare_arg(self, p: abi.CParam) -> list[tuple[str, str]]:
        arg = next(a for a in self.op.args if a.name == p.source)
        if arg.type in (DataType.ENUM, DataType.DATA_TYPE):
            return [(f"int {p.name}_index", f"{p.source}_index")]
        if arg.type in (DataType.BOOLEAN, DataType.INT, DataType.LONG):
            return [(f"int {p.name}", units.value(self.op, p.source))]
        return [(f"double {p.name}", units.value(self.op, p.source))]

    def declare_config(self, p: abi.CParam) -> list[tuple[str, str]]:
        cfg = next(c for c in self.op.configs if c.name == p.source)
        return [(f"int {cfg.name}_{a.name}", f"{cfg.name}_{a.name}") for a in cfg.args]

    def declare_workspace(self, p: abi.CParam) -> list[tuple[str, str]]:
        return [("double* workspace", "workspace")]  # a scratch tensor of the unit (System.Tensor)

    def declare_workspace_bytes(self, p: abi.CParam) -> list[tuple[str, str]]:
        return [("int workspace_count", "workspace_count")]

    def declare_detail(self, p: abi.CParam) -> list[tuple[str, str]]:
        return []

    # ------------------------------------------------------------ the call

    def fragment(self) -> str:
        body: list[str] = []
        call: list[str] = []
        for p in abi.parameters(self.op):
            lines, passed = getattr(self, f"pass_{p.role}")(p)
            body += lines
            call.append(passed)
        fn = abi.function(self.op)
        decl = ", ".join(d for d, _ in self.params())
        return (f'#pragma IMAGINET_FRAGMENT_BEGIN "{self.name}"\n'
                f'#pragma IMAGINET_FRAGMENT_DEPENDENCY "{fn}"\n'
                f"/* Imaginet-style entry: rebuilds the descriptors and runs the checked op; returns\n"
                f" * Imaginet's status: 0 (IPWIN_RET_SUCCESS) or -2 (IPWIN_RET_ERROR). */\n"
                f"static inline int {self.name}({decl})\n{{\n" + "\n".join(body) +
                f"\nreturn {fn}({', '.join(call)}) == OPFORGE_OK ? 0 : -2;\n}}\n"
                f"#pragma IMAGINET_FRAGMENT_END\n")

    def _descriptor(self, name: str) -> tuple[list[str], str]:
        dims = ", ".join(f"{name}_d{k}" for k in range(abi.MAX_RANK))
        dtype = f"(opforge_dtype){name}_dtype_index" if name in C.own_dtype_inputs(self.op) else \
            abi.DTYPE_ENUM[self.variant.of(name)]
        return [f"opforge_tensor t_{name} = {{.data = {abi.c_name(name)}, .dtype = {dtype}, .rank = {name}_rank, .shape = {{{dims}}}}};"], \
            f"&t_{name}"

    def pass_input(self, p: abi.CParam) -> tuple[list[str], str]:
        return self._descriptor(p.source)

    def pass_output(self, p: abi.CParam) -> tuple[list[str], str]:
        return self._descriptor(p.source)

    def pass_input_list(self, p: abi.CParam) -> tuple[list[str], str]:
        """The connected sockets come first (the contracts say so)."""
        names = units.sockets(next(i for i in self.op.inputs if i.name == p.source))
        return socket_array(p.name, names, abi.DTYPE_ENUM[self.variant.of(p.source)], {s: s for s in names},
                            True, f"{p.source}_count"), f"t_{p.name}"

    def pass_input_count(self, p: abi.CParam) -> tuple[list[str], str]:
        return [], f"{p.source}_count"

    def pass_output_list(self, p: abi.CParam) -> tuple[list[str], str]:
        """The sockets there come first: as many as part_count, of one shape."""
        names = units.output_sockets(next(o for o in self.op.outputs if o.name == p.source))
        return socket_array(p.name, names, abi.DTYPE_ENUM[self.variant.of(p.source)],
                            {s: p.source for s in names}, False, units.PART_COUNT), f"t_{p.name}"

    def pass_output_count(self, p: abi.CParam) -> tuple[list[str], str]:
        return [], units.PART_COUNT

    def pass_array(self, p: abi.CParam) -> tuple[list[str], str]:
        if p.source == self.axes:
            return ["const int64_t axes_value[1] = {axis};"], "axes_value"
        # The unit passes at most `length` values: a longer list is an error, not a read past them.
        length = units.list_length(self.op, next(a for a in self.op.args if a.name == p.source))
        values = ", ".join(f"{p.source}_d{k}" for k in range(length))
        return [f"if ({p.source}_rank > {length}) {{", "return -2; /* IPWIN_RET_ERROR */", "}",
                f"const int64_t {p.name}_values[{length}] = {{{values}}};"], f"{p.name}_values"

    def pass_count(self, p: abi.CParam) -> tuple[list[str], str]:
        return [], "1" if p.source == self.axes else f"{p.source}_rank"

    def pass_optional(self, p: abi.CParam) -> tuple[list[str], str]:
        return [f"const double {p.name}_value = {p.name};"], f"use_{p.source} ? &{p.name}_value : NULL"

    def pass_arg(self, p: abi.CParam) -> tuple[list[str], str]:
        arg = next(a for a in self.op.args if a.name == p.source)
        if arg.type is DataType.ENUM:
            return [], f"{p.name}_index"
        if arg.type is DataType.DATA_TYPE:
            return [], f"(opforge_dtype){p.name}_index"
        if arg.type is DataType.BOOLEAN:
            return [], f"{p.name} != 0"
        return [], p.name

    def pass_config(self, p: abi.CParam) -> tuple[list[str], str]:
        cfg = next(c for c in self.op.configs if c.name == p.source)
        fields = ", ".join(f"{cfg.name}_{a.name}" for a in cfg.args)
        return [f"const {abi.config_struct(cfg)} cfg_{cfg.name} = {{{fields}}};"], f"&cfg_{cfg.name}"

    def pass_workspace(self, p: abi.CParam) -> tuple[list[str], str]:
        return [], "workspace"

    def pass_workspace_bytes(self, p: abi.CParam) -> tuple[list[str], str]:
        return [], "(size_t)workspace_count * sizeof(double)"

    def pass_detail(self, p: abi.CParam) -> tuple[list[str], str]:
        return [], "NULL"
