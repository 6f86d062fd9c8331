"""Random sampling from the Philox4x32-10 stream (ADR 0010)."""

from __future__ import annotations

from dsl import compute as C
from dsl import dtypes as D
from dsl.model import Op
from generators import abi
from generators.formatting import c_string
from generators.kernels.scalar_c import C_TYPE
from generators.kernels.c_emit.base import CFragment, Emitter, OpCode, PlainKernel, fragment


def _seed_ref(op: Op, name: str) -> str:
    for cfg in op.configs:
        if any(a.name == name for a in cfg.args):
            return f"cfg_{cfg.name}.{abi.c_name(name)}"
    return abi.c_name(name)


_SAMPLE = {
    "uniform": ("{low} + ({high} - {low}) * u", "u"),
    "normal": ("{mean} + {stddev} * z", "z"),
    "log_normal": ("exp({mean} + {stddev} * z)", "z"),
    "exponential": ("-log(1.0 - u) / {rate}", "u"),
    "bernoulli": ("(u < {p}) ? 1.0 : 0.0", "u"),
}


class RandomEmitter(Emitter):
    """Each element drawn from its own Philox block (counter: offset plus its index), so any
    slice of the output is reproducible alone; a method per distribution draws one."""

    def emit(self) -> OpCode:
        c: C.RandomSample = self.op.compute  # type: ignore[assignment]
        out = self.op.outputs[0]
        params = dict(c.params)
        frags = [fragment(self.kernel_name(v), self.kernel(c, v)) for v in self.variants]
        outn = abi.c_name(out.name)
        if c.distribution == "binomial":
            vals = [abi.c_name(params["n"]), abi.c_name(params["p"])]
        else:
            vals = [abi.c_name(params[k]) for k in params]

        def per_variant(v: D.Variant) -> list[str]:
            return [f"{self.kernel_name(v)}(({C_TYPE[v.of(out.name)]}*){outn}->data, n, {', '.join(vals)}, seed, offset);"]

        return OpCode(tuple(frags), (), self.api(self.dtype_and_stream() + self.dispatch(per_variant, on=f"{outn}->dtype")),
                      tuple(self.plain(c, v, frag) for v, frag in zip(self.variants, frags)))

    def plain(self, c: C.RandomSample, v: D.Variant, text: CFragment) -> PlainKernel:
        """The kernel itself, for units (``drawn``: the output's count; the stream's seed and
        offset are the config's args, as the unit's options name them)."""
        out, params = self.op.outputs[0], dict(c.params)
        if c.distribution == "binomial":
            values = (("int64_t n_trials", params["n"]), ("double p", params["p"]))
        else:
            values = tuple((f"double {role}", arg) for role, arg in params.items())
        return PlainKernel(text, v, ((f"{C_TYPE[v.of(out.name)]}* restrict output", out.name), ("int n", "n"), *values,
                                     ("int64_t seed", "seed"), ("int64_t offset", "offset")), "drawn")

    def dtype_and_stream(self) -> list[str]:
        """The output's dtype against the dtype arg (its shape is the form's), then the stream's position."""
        out = self.op.outputs[0]
        outn = abi.c_name(out.name)
        dtype = abi.c_name("dtype")
        return [f"if ({outn}->dtype != {dtype}) {{",
                f"return opf_fail(detail, OPFORGE_ERR_DTYPE, {c_string(out.name + ': dtype must equal the dtype arg')});",
                "}",
                f"const int64_t n = opf_numel({outn});",
                f"const int64_t seed = {_seed_ref(self.op, 'seed')};",
                f"const int64_t offset = {_seed_ref(self.op, 'offset')};"]

    def kernel(self, c: C.RandomSample, v: D.Variant) -> str:
        ct = C_TYPE[v.of(self.op.outputs[0].name)]
        if c.distribution == "binomial":
            args, body = "int64_t n_trials, double p", self.binomial(ct)
        else:
            args = ", ".join(f"double {p}" for p in dict(c.params))
            body = self.truncated_normal(ct) if c.distribution == "truncated_normal" else self.closed_form(c, v)
        return f"""
static inline void {self.kernel_name(v)}({ct}* restrict output, int64_t n, {args}, int64_t seed, int64_t offset)
{{
    for (int64_t j = 0; j < n; j++) {{
        const uint64_t e = (uint64_t)offset + (uint64_t)j;
        uint32_t w[4];
        {body.strip()}
    }}
}}"""

    def truncated_normal(self, ct: str) -> str:
        """Box-Muller draws from successive blocks until one falls within two deviations."""
        return """
        double z = 0.0;
        for (uint32_t b = 0; b < 64u; b++) {
            opf_random_block(seed, e, b, w);
            const double u1 = 1.0 - opf_unit53(w[0], w[1]);
            const double u2 = opf_unit53(w[2], w[3]);
            const double t = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
            if (fabs(t) <= 2.0) {
                z = t;
                break;
            }
        }
        output[j] = (TYPE)(mean + stddev * z);""".replace("TYPE", ct)

    def binomial(self, ct: str) -> str:
        """One 32-bit word per trial, four trials per block after the first."""
        return """
        int64_t count = 0;
        for (int64_t t = 0; t < n_trials; t++) {
            if ((t & 3) == 0) {
                opf_random_block(seed, e, (uint32_t)(t >> 2) + 1u, w);
            }
            count += ((double)w[t & 3] * (1.0 / 4294967296.0)) < p;
        }
        output[j] = (TYPE)count;""".replace("TYPE", ct)

    def closed_form(self, c: C.RandomSample, v: D.Variant) -> str:
        """One block: a uniform (24 bits for float32, else 53) or a Box-Muller normal, transformed."""
        t = v.of(self.op.outputs[0].name)
        formula, needs = _SAMPLE[c.distribution]
        unit = "opf_unit24(w[0])" if t == "float32" else "opf_unit53(w[0], w[1])"
        if needs == "z":
            prelude = ("const double u1 = 1.0 - opf_unit53(w[0], w[1]);\n"
                       "const double u2 = opf_unit53(w[2], w[3]);\n"
                       "const double z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);")
        else:
            prelude = f"const double u = {unit};" if c.distribution != "bernoulli" else \
                "const double u = opf_unit53(w[0], w[1]);"
        return f"""
        opf_random_block(seed, e, 0u, w);
        {prelude}
        output[j] = ({C_TYPE[t]})({formula.format(**{k: k for k in dict(c.params)})});"""


# ---------------------------------------------------------------- fragments
