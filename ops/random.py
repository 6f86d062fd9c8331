"""Random tensors from a counter-based generator: reproducible on every target."""

from dsl import *

with Namespace("random"):
    with Config("RandomConfig") as rng:
        Arg(LONG, "seed", default=0, description="Key of the Philox4x32-10 generator")
        Arg(
            LONG,
            "offset",
            default=0,
            description="Counter of the first sample: the same seed and offset give the same numbers",
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Where the random numbers come from: a counter-based generator keyed by (seed, offset).",
        )

    with Mixin("random") as random:
        rng_ref = use_config(rng)
        Arg(
            LONG,
            "shape",
            count=AtLeast(0),
            description="Shape of the new random tensor",
        )
        Arg(
            DATA_TYPE,
            "dtype",
            default="float32",
            description="Element type of the new random tensor",
        )
        Output(
            NUMERIC,
            "output",
            description="A new tensor of the given shape with random values",
        )

    with Op("uniform") as op:
        op.display_path = "/Random"
        op.onnx = "RandomUniform"
        low = Arg(
            FLOATING_POINT, "min", default=0.0, description="Lower bound (inclusive)"
        )
        high = Arg(
            FLOATING_POINT, "max", default=1.0, description="Upper bound (exclusive)"
        )
        use_mixin(random)
        Constraint("min must be less than max", low < high)
        Random("uniform", low="min", high="max")
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Generate a new random tensor, where values are randomly sampled according to a uniform distribution on [min, max).",
        )

    with Op("normal") as op:
        op.display_path = "/Random"
        op.onnx = "RandomNormal"
        Arg(FLOATING_POINT, "mean", default=0.0, description="Mean of the distribution")
        stddev = Arg(
            FLOATING_POINT,
            "stddev",
            default=1.0,
            description="Standard deviation of the distribution",
        )
        use_mixin(random)
        Constraint("stddev must not be negative", stddev >= 0)
        Random("normal", mean="mean", stddev="stddev")
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Generate a new random tensor, where values are randomly sampled according to a Gaussian (normal) distribution, N(mean, stddev^2).",
        )

    with Op("bernoulli") as op:
        op.display_path = "/Random"
        op.onnx = "Bernoulli"
        op.unlike_onnx = (
            "ONNX's Bernoulli draws one value per element of its input of probabilities, "
            "by a generator it leaves to the implementation; this op draws a tensor of the "
            "shape it is given, of one probability p, by Philox (the same numbers in every "
            "target)"
        )
        p = Arg(FLOATING_POINT, "p", description="Probability of value 1")
        use_mixin(random)
        Constraint("p must be a probability", (p >= 0) & (p <= 1))
        Random("bernoulli", p="p")
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Generate a new random tensor, where values are randomly sampled according to a Bernoulli distribution: 1 with probability p, else 0.",
        )

    with Op("binomial") as op:
        op.display_path = "/Random"
        n_trials = Arg(
            INT,
            "n_trials",
            description="Number of trials parameter for the binomial distribution",
        )
        p = Arg(
            FLOATING_POINT, "p", description="Probability of success for each trial"
        )
        use_mixin(random)
        shape = op.arg("shape")
        Constraint("n_trials must not be negative", n_trials >= 0)
        Random("binomial", n="n_trials", p="p")
        Constraint("p must be a probability", (p >= 0) & (p <= 1))
        Signature(n_trials, p, shape, doc="Default generator settings and element type")
        Signature(n_trials, p, shape, op.arg("dtype"), random.config("RandomConfig"))
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Generate a new random tensor, where values are randomly sampled according to a Binomial distribution,
            with the specified number of trials and probability.
            """,
        )

    with Op("exponential") as op:
        op.display_path = "/Random"
        rate = Arg(
            FLOATING_POINT,
            "rate",
            default=1.0,
            description="Rate (inverse scale) of the distribution",
        )
        use_mixin(random)
        Constraint("rate must be positive", rate > 0)
        Random("exponential", rate="rate")
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Generate a new random tensor, where values are randomly sampled according to an exponential distribution with the given rate.",
        )

    with Op("log_normal") as op:
        op.display_path = "/Random"
        Arg(
            FLOATING_POINT,
            "mean",
            default=0.0,
            description="Mean of the underlying normal distribution",
        )
        stddev = Arg(
            FLOATING_POINT,
            "stddev",
            default=1.0,
            description="Standard deviation of the underlying normal distribution",
        )
        use_mixin(random)
        Constraint("stddev must not be negative", stddev >= 0)
        Random("log_normal", mean="mean", stddev="stddev")
        Doc(
            Language.ANY,
            DocScope.ALL,
            "Generate a new random tensor, where values are e raised to samples of a normal distribution N(mean, stddev^2).",
        )

    with Op("normal_truncated") as op:
        op.display_path = "/Random"
        Arg(FLOATING_POINT, "mean", default=0.0, description="Mean of the distribution")
        stddev = Arg(
            FLOATING_POINT,
            "stddev",
            default=1.0,
            description="Standard deviation before truncation",
        )
        use_mixin(random)
        Constraint("stddev must not be negative", stddev >= 0)
        Random("truncated_normal", mean="mean", stddev="stddev")
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Generate a new random tensor from a normal distribution N(mean, stddev^2) truncated
            to two standard deviations around the mean: samples further out are drawn again.
            """,
        )
