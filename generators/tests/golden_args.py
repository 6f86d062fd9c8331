"""A golden case's C arguments: per parameter of the C API, its declarations and what the call passes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dsl import compute as C
from dsl.types import DataType
from generators import abi
from generators.kernels import evaluate, py_names
from generators.kernels.scalar_c import C_TYPE, c_array

if TYPE_CHECKING:
    from generators.tests.golden import _Case


def _tensor(name: str, data: str, arr: np.ndarray, dtype: str) -> str:
    """A descriptor over ``data`` with ``arr``'s shape."""
    dims = ", ".join(str(s) for s in arr.shape) or "0"
    return f"opforge_tensor {name} = {{.data = (void*){data}, .dtype = {abi.DTYPE_ENUM[dtype]}, .rank = {arr.ndim}, .shape = {{{dims}}}}};"


class CArguments:
    """Walks the C API's parameters (``abi.parameters``): a method per parameter role adds the
    declarations it needs to ``lines`` and what the call passes to ``call``. ``wants`` are the
    expected outputs (None where the op must refuse); with ``in_place``, the output is that input."""

    def __init__(self, case: _Case, wants: tuple[np.ndarray, ...] | None, in_place: str | None) -> None:
        self.case, self.op, self.wants, self.in_place = case, case.op, wants, in_place
        self.lines: list[str] = []
        self.call: list[str] = []

    def _given(self, name: str) -> Any:
        return self.case.kwargs[py_names.py_name(name)]

    def input(self, p: abi.CParam) -> None:
        arr = np.array(self._given(p.source), order="C")
        self.lines.append(c_array(f"data_{p.name}", arr, arr.dtype.name, const=p.source != self.in_place))
        self.lines.append(_tensor(f"t_{p.name}", f"data_{p.name}", arr, arr.dtype.name))
        self.call.append(f"&t_{p.name}")

    def input_list(self, p: abi.CParam) -> None:
        names = []
        for k, value in enumerate(self._given(p.source)):
            arr = np.array(value, order="C")
            self.lines.append(c_array(f"data_{p.name}_{k}", arr, arr.dtype.name))
            self.lines.append(_tensor(f"t_{p.name}_{k}", f"data_{p.name}_{k}", arr, arr.dtype.name))
            names.append(f"&t_{p.name}_{k}")
        self.lines.append(f"const opforge_tensor* const t_{p.name}[{max(1, len(names))}] = "
                          f"{{{', '.join(names) or 'NULL'}}};")
        self.call.append(f"t_{p.name}")

    def input_count(self, p: abi.CParam) -> None:
        self.call.append(str(len(self._given(p.source))))

    def array(self, p: abi.CParam) -> None:
        values = [int(v) for v in self.case.arg(p.source)]
        self.lines.append(f"static const int64_t arg_{p.name}[{max(1, len(values))}] = "
                          f"{{{', '.join(f'INT64_C({v})' for v in values) or '0'}}};")
        self.call.append(f"arg_{p.name}")

    def count(self, p: abi.CParam) -> None:
        self.call.append(str(len(self.case.arg(p.source))))

    def optional(self, p: abi.CParam) -> None:
        value = self.case.arg(p.source)
        if value is None:
            self.call.append("NULL")
            return
        self.lines.append(f"static const double arg_{p.name} = {float(value)!r};")
        self.call.append(f"&arg_{p.name}")

    def arg(self, p: abi.CParam) -> None:
        a = next(x for x in self.op.args if x.name == p.source)
        value = self.case.arg(p.source)
        if a.type is DataType.ENUM:
            self.call.append(str(a.possible_values.index(value)))
        elif a.type is DataType.DATA_TYPE:
            self.call.append(abi.DTYPE_ENUM[value])
        elif a.type is DataType.BOOLEAN:
            self.call.append("true" if value else "false")
        elif a.type in (DataType.INT, DataType.LONG):
            self.call.append(f"INT64_C({int(value)})")
        else:
            self.call.append(repr(float(value)))

    def workspace(self, p: abi.CParam) -> None:
        # Sized at generation time; <fn>_workspace must not ask for more.
        doubles = max(1, evaluate.workspace_doubles(self.op, self.case.kwargs))
        inputs_ = ", ".join(f"&t_{abi.c_name(i.name)}" for i in self.op.inputs)
        self.lines += [f"static double workspace[{doubles}];", "size_t workspace_need = 0;",
                       f"const opforge_status st_workspace = {abi.function(self.op)}_workspace({inputs_}, "
                       "&workspace_need, NULL);"]
        self.call.append("workspace")

    def workspace_bytes(self, p: abi.CParam) -> None:
        self.call.append("sizeof workspace")

    def config(self, p: abi.CParam) -> None:
        cfg = next(x for x in self.op.configs if x.name == p.source)
        given = self.case.kwargs.get(py_names.config_param(cfg.name))
        if given is None:
            self.call.append("NULL")
            return
        fields = ", ".join(f"INT64_C({int(getattr(given, a.name))})" for a in cfg.args)
        self.lines.append(f"const {abi.config_struct(cfg)} cfg = {{{fields}}};")
        self.call.append("&cfg")

    def output(self, p: abi.CParam) -> None:
        k = [o.name for o in self.op.outputs].index(p.source)
        tag = str(k) if k else ""  # data_out, data_out1, ...
        if self.wants is None:
            dt = "float64" if C.dtype_from_arg(self.op.compute) else self.case.variant_dtype(p.source)
            self.lines.append(f"static {C_TYPE[dt]} data_out{tag}[1];")
            self.lines.append(f"opforge_tensor t_out{tag} = {{.data = (void*)data_out{tag}, .dtype = {abi.DTYPE_ENUM[dt]}, .rank = 1, .shape = {{1}}}};")
        elif self.in_place:  # the result goes over the input: its data is what is compared
            self.lines.append(c_array(f"want{tag}", self.wants[k], self.wants[k].dtype.name))
            self.call.append(f"&t_{abi.c_name(self.in_place)}")
            return
        else:
            want = self.wants[k]
            dt = want.dtype.name
            self.lines.append(f"static {C_TYPE[dt]} data_out{tag}[{max(1, want.size)}];")
            self.lines.append(c_array(f"want{tag}", want, dt))
            self.lines.append(_tensor(f"t_out{tag}", f"data_out{tag}", want, dt))
        self.call.append(f"&t_out{tag}")

    def output_list(self, p: abi.CParam) -> None:
        """One descriptor per expected array (one of size 1 if refused)."""
        dt = self.case.variant_dtype(p.source)
        names = []
        for k, want in enumerate(self.wants if self.wants is not None else [np.zeros(1, dtype=dt)]):
            tag = str(k) if k else ""  # named as several outputs are: data_out, data_out1, ...
            self.lines.append(f"static {C_TYPE[dt]} data_out{tag}[{max(1, want.size)}];")
            if self.wants is not None:
                self.lines.append(c_array(f"want{tag}", want, dt))
            self.lines.append(_tensor(f"t_out{tag}", f"data_out{tag}", want, dt))
            names.append(f"&t_out{tag}")
        self.lines.append(f"opforge_tensor* const t_{p.name}[{max(1, len(names))}] = "
                          f"{{{', '.join(names) or 'NULL'}}};")
        self.call.append(f"t_{p.name}")

    def output_count(self, p: abi.CParam) -> None:
        self.call.append(str(len(self.wants) if self.wants is not None else 1))

    def detail(self, p: abi.CParam) -> None:
        """The call passes the detail pointer last, after every other parameter."""
