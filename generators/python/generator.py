"""Assembles ``out/python``: package sources, stubs, and the CMake build of its C backend."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import jinja2

from dsl import compute as C
from dsl.model import Namespace, Op, Problem
from dsl.types import Language
from generators import abi
from generators.api import GeneratedFile, GenerationContext, GenerationError
from generators.kernels.selection import code_ops, require_compute
from generators.formatting import black_format, clang_format
from generators.kernels import c_library, fixed_point, numpy_keywords, py_names, py_signature, reference, routines
from generators.python import bindings, ufuncs

# The generated package is the distribution ``opforge`` (what users import), versioned as the
# catalogue is (ops/VERSION); the tool that generates it is ``opforge-generator``, so
# installing one never removes the other.

_HERE = Path(__file__).resolve().parent
_TEMPLATES = jinja2.Environment(loader=jinja2.PackageLoader("generators.python", "templates"),
                                undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
#: What the package's build backend needs (the versions the tool's own tests build it with).
BUILD_REQUIRES = {"scikit_build_core": "1.1.2", "cffi": "2.1.1", "numpy": "2.4.6"}
_RUNTIME = _HERE / "runtime"
#: The package's public module besides the namespaces': fixed-point arrays (ADR 0037).
RUNTIME_MODULE = "fixed_point"


class PythonGenerator:
    name = "python"
    summary = "installable opforge package: NumPy reference kernels and cffi bindings to the C kernels"
    language = Language.PYTHON
    options: dict[str, tuple[str, ...]] = {}

    def generate(self, context: GenerationContext) -> Sequence[GeneratedFile]:
        require_compute(context.namespaces, self.name)
        head = context.header(self.name)
        py: dict[str, str] = {}
        names = [py_names.module_name(ns.key) for ns in context.namespaces]
        taken = [Problem(ns.location, ns.name, f"the Python package has a module {RUNTIME_MODULE} of its own: "
                         "rename the namespace") for ns in context.namespaces
                 if py_names.module_name(ns.key) == RUNTIME_MODULE]
        if taken:
            raise GenerationError(taken)
        py["src/opforge/__init__.py"] = (
            f"# {head}\n" + '"""opforge: generated tensor ops, with C kernels and a NumPy reference."""\n\n'
            + "".join(f"from opforge import {n}\n" for n in [*names, RUNTIME_MODULE])
            + f"\n__version__ = {context.catalogue.version!r}\n"
            + f"\n__all__ = {[*names, RUNTIME_MODULE]!r}\n")
        py["src/opforge/_kernels.py"] = f"# {head}\n" + routines.numpy_source()
        py["src/opforge/_fixed_point_rules.py"] = fixed_point.numpy_rules_module(
            head, [op for ns in context.namespaces for op in code_ops(ns)])
        for runtime in ("_runtime.py", "_native.py", f"{RUNTIME_MODULE}.py"):
            py[f"src/opforge/{runtime}"] = f"# {head}\n" + (_RUNTIME / runtime).read_text(encoding="utf-8")
        py["src/opforge/_reference/__init__.py"] = f"# {head}\n" + '"""NumPy reference implementations."""\n'
        stubs: dict[str, str] = {}
        for ns in context.namespaces:
            h = context.header(self.name, [ns])
            module = py_names.module_name(ns.key)
            py[f"src/opforge/_reference/{module}.py"] = reference.module(ns, h)
            py[f"src/opforge/{module}.py"] = self._module(ns, h, context.namespaces)
            stubs[f"src/opforge/{module}.pyi"] = self._stub(ns, h, context.namespaces)
        py["opforge_cffi.py"] = _TEMPLATES.get_template("opforge_cffi.py.j2").render(header=head,
                                                                                   cdef=repr(self._cdef(context)))
        files = [GeneratedFile(path, black_format(text)) for path, text in sorted(py.items())]
        files += [GeneratedFile(path, black_format(text)) for path, text in sorted(stubs.items())]
        files.append(GeneratedFile("src/opforge/py.typed", ""))
        # The build (ADR 0064): scikit-build-core runs the package's CMake project, which builds the
        # C library's own project, copied into c/ so that an sdist holds everything it compiles.
        files += [GeneratedFile(f"c/{f.path}", f.text) for f in c_library.project(context)]
        # The ufuncs' extension module (ADR 0073): its source and the real C of its loop.
        taken = [op for ns in context.namespaces for op in code_ops(ns) if ufuncs.takes(op)]
        files += [GeneratedFile(path, text) for path, text in sorted(clang_format({
            f"ufuncs/{ufuncs.MODULE}.c": ufuncs.c_source(taken, head),
            "ufuncs/opf_ufunc_loop.h": f"/* {head} */\n" + ufuncs.LOOP_HEADER.read_text(encoding="utf-8")}).items())]
        # (the library leaves out what the ufuncs compute: both ways of a call run them, ADR 0080)
        omitted = sorted(abi.omit_numeric(op) for op in taken)
        for name in ("pyproject.toml", "CMakeLists.txt"):
            files.append(GeneratedFile(name, _TEMPLATES.get_template(f"{name}.j2").render(
                header=head, version=context.catalogue.version, omitted=omitted, **BUILD_REQUIRES)))
        return files

    def _module(self, ns: Namespace, head: str, namespaces: Sequence[Namespace]) -> str:
        ops = code_ops(ns)
        # What the module defines: a rendered shape spells a builtin it shadows from builtins.
        defined = frozenset([py_names.function_name(o.name) for o in ops]
                            + [py_names.function_name(a.name) for a in ns.aliases])
        imports = bindings.module_imports(ops, defined)
        parts = [f"# {head}", f'"""The {ns.name} namespace of opforge."""', "",
                 "from __future__ import annotations", "", *sorted(["import dataclasses", *imports]),
                 "from typing import Literal, NamedTuple, Sequence", "", "import numpy as np",
                 "from numpy.typing import ArrayLike, DTypeLike", "",
                 "from opforge import _kernels as _k", "from opforge import _native",
                 *([f"from opforge import {RUNTIME_MODULE} as _fp"]
                   if any(fixed_point.api_takes(op) for op in ops) else []),
                 "from opforge import _runtime as _rt", f"from opforge._reference import {py_names.module_name(ns.key)} as _ref", "",
                 "",
                 *(["# (what a ufunc's fast path takes, by exact type: ADR 0073)",
                    "_nd = np.ndarray", "_scalars = _rt.SCALAR_TYPES", "", ""]
                   if any(ufuncs.takes(op) for op in ops) else []),
                 "def _size_at(x: np.ndarray, axis: int) -> int:",
                 "    return x.shape[axis] if -x.ndim <= axis < x.ndim else -1", "", "",
                 "def _broadcastable(*arrays: np.ndarray) -> bool:",
                 "    # (no builtins here: an op of the module may be named all, any, len, ...)",
                 "    return _k.shapes_fit([a.shape for a in arrays], False)", ""]
        module = py_names.module_name(ns.key)
        drawn = self._drawn(ns, namespaces)
        streams = {id(numpy_keywords.random_stream(op)) for _, op in numpy_keywords.generator_ops([ns])}
        for cfg in ns.configs:
            parts.append(bindings.config_class(cfg, fresh=id(cfg) in streams))
        for op in ops:
            parts += ["", bindings.binding(op, defined)]
        if drawn:  # (NumPy's Generator and default_rng: ADR 0054)
            parts += ["", bindings.generator_class(module, drawn)]
        aliases = [a for a in ns.aliases]
        for a in aliases:
            target = f"{a.target_namespace.lower()}"
            parts += ["", f"from opforge.{target} import {py_names.function_name(a.target_op)} as {py_names.function_name(a.name)}  # alias of {a.target}"]
        parts += ["", f"__all__ = {self._exported(ns, namespaces)!r}", ""]
        return "\n".join(parts)

    def _exported(self, ns: Namespace, namespaces: Sequence[Namespace]) -> list[str]:
        """The module's ``__all__`` (its stub's too): functions, aliases, classes, configs."""
        ops = code_ops(ns)
        return ([py_names.function_name(o.name) for o in ops] + [py_names.function_name(a.name) for a in ns.aliases]
                + [py_names.class_name(o) for o in ops if abi.is_stream(o)]
                + [f"{py_names.class_name(o)}Result" for o in ops if len(o.outputs) > 1]
                + [c.name for c in ns.configs] + (["Generator", "default_rng"] if self._drawn(ns, namespaces) else []))

    @staticmethod
    def _drawn(ns: Namespace, namespaces: Sequence[Namespace]) -> list[tuple[Namespace, Op]]:
        """The ops the Generator of ``ns``'s module draws: every generated op of a random stream, if
        ``ns`` is the first namespace with random ops of a stream config (ADR 0054); else none."""
        drawn = numpy_keywords.generator_ops(namespaces)
        hosts = [n for n, op in drawn if numpy_keywords.random_stream(op) is not None]
        return drawn if hosts and hosts[0] is ns else []

    def _stub(self, ns: Namespace, head: str, namespaces: Sequence[Namespace]) -> str:
        parts = [f"# {head}", "import dataclasses", "from typing import Literal, NamedTuple, Sequence", "",
                 "import numpy as np", "from numpy.typing import ArrayLike, DTypeLike", ""]
        for cfg in ns.configs:  # (a frozen dataclass, as the module's: RandomConfig(seed=3) type-checks)
            fields = "\n".join(f"    {py_names.py_name(a.name)}: {py_signature.PY_TYPE.get(a.type, 'object')} = ..."
                               for a in cfg.args)
            parts += ["@dataclasses.dataclass(frozen=True)", f"class {cfg.name}:", fields or "    ...", ""]
        if any(fixed_point.api_takes(op) or isinstance(op.compute, C.FixedPointConversion) for op in code_ops(ns)):
            parts.insert(parts.index("from numpy.typing import ArrayLike, DTypeLike") + 1,
                         f"from opforge import {RUNTIME_MODULE} as _fp")
        parts += [py_signature.stub(op) for op in code_ops(ns)]
        drawn = self._drawn(ns, namespaces)
        if drawn:
            parts.append(bindings.generator_stub(py_names.module_name(ns.key), drawn))
        for a in ns.aliases:
            parts.append(f"from opforge.{a.target_namespace.lower()} import {py_names.function_name(a.target_op)} as "
                         f"{py_names.function_name(a.name)}")
        parts.append(f"__all__ = {self._exported(ns, namespaces)!r}")
        return "\n".join(parts) + "\n"

    def _cdef(self, context: GenerationContext) -> str:
        lines = [
            "typedef enum { " + ", ".join(f"{abi.DTYPE_ENUM[d]} = {i}" for i, d in enumerate(abi.ALL_DTYPES))
            + " } opforge_dtype;",
            f"typedef struct {{ const void* data; opforge_dtype dtype; int32_t rank; int64_t shape[{abi.MAX_RANK}]; "
            "int32_t shift; int32_t offset; double scale; const float* scales; int32_t axis; } opforge_tensor;",
            "typedef enum { " + ", ".join(f"{n} = {i}" for i, (n, _) in enumerate(abi.STATUS)) + " } opforge_status;",
            "const char* opforge_status_message(opforge_status status);",
            "void opforge_philox4x32_10(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]);",
        ]
        for ns in context.namespaces:
            for cfg in ns.configs:
                fields = " ".join(f"{abi.scalar_ctype(a.type)} {abi.c_name(a.name)};" for a in cfg.args)
                lines.append(f"typedef struct {{ {fields} }} {abi.config_struct(cfg)};")
            for op in code_ops(ns):
                lines += [p + ";" for p in abi.prototypes(op)]
        return "\n".join(lines) + "\n"
