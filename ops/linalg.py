"""Linear algebra on matrices in the last two axes (batches before them)."""

from dsl import *
from ops.mixins import FLOAT_DTYPES, fragment_names

with Namespace("linalg"):
    with Op("cholesky") as op:
        op.formula = (
            r"x_{\ldots} = L_{\ldots} L_{\ldots}^{\top}, \quad \mathrm{output}_{\ldots} = "
            r"L_{\ldots}",
            r"\text{$L$ lower triangular with a positive diagonal, for each matrix}",
        )
        op.unlike_numpy = (
            "not yet compared with numpy.linalg.cholesky"
        )
        op.display_path = "/Linalg/Decompositions"
        x = Input(
            FLOATING_POINT,
            "x",
            description="Symmetric positive definite matrices in the last two axes",
        )
        Output(
            FLOATING_POINT,
            "output",
            description="The lower triangular factors, with the shape of x",
        )
        Constraint("x must hold square matrices", x.size_at(-1) == x.size_at(-2))
        Fragment(
            c="fragments/linalg.h",
            python="fragments/linalg.py",
            c_fragments=fragment_names("cholesky", FLOAT_DTYPES),
            python_fragment="cholesky",
            layout="matrix",
            failure="x is not positive definite",
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Cholesky decomposition: the lower triangular L with positive diagonal
            and x = L L^T, for each matrix (numpy.linalg.cholesky). Only the lower
            triangle of x is read; an input that is not positive definite is an error.
            """,
        )

    with Op("lu") as op:
        op.display_path = "/Linalg/Decompositions"
        op.formula = (
            r"P x_{\ldots} = L U, \quad \mathrm{lu} = L + U - I",
            r"\text{$L$ unit lower triangular, $U$ upper triangular, $P$ the row permutation perm}",
        )
        x = Input(
            FLOATING_POINT, "x", description="Square matrices in the last two axes"
        )
        Output(
            FLOATING_POINT,
            "lu",
            description="L below the diagonal (its unit diagonal implied) and U on and above it, with the shape of x",
        )
        Output(
            LONG,
            "perm",
            description="The row of x each row of L U comes from: x[..., perm, :] = L U",
        )
        Constraint("x must hold square matrices", x.size_at(-1) == x.size_at(-2))
        Fragment(
            c="fragments/factor.h",
            python="fragments/factor.py",
            c_fragments=fragment_names("lu", FLOAT_DTYPES),
            python_fragment="lu",
            layout="matrix",
            output_layouts=("matrix_diagonal",),
            workspace=x.size_at(-1) * x.size_at(-1),
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            LU decomposition with partial pivoting, for each matrix: x[perm] = L U,
            with L unit lower triangular and U upper triangular, packed into one
            matrix (as LAPACK getrf and tf.linalg.lu). The pivot of a column is its
            first largest absolute value; computed in double precision. A column
            without a non-zero pivot is left as it is, so singular matrices factor too.
            """,
        )

    with Op("qr") as op:
        op.formula = (
            r"x_{\ldots} = Q R, \quad Q^{\top} Q = I",
            r"\text{$R$ upper triangular with a diagonal never negative, for each matrix}",
        )
        op.unlike_numpy = (
            "returns ND4J's results; numpy.linalg.qr takes mode="
        )
        op.display_path = "/Linalg/Decompositions"
        x = Input(FLOATING_POINT, "x", description="Matrices in the last two axes")
        Output(
            FLOATING_POINT,
            "q",
            description="rows x k factors with orthonormal columns, k = min(rows, cols)",
        )
        Output(
            FLOATING_POINT,
            "r",
            description="k x cols upper triangular factors with a non-negative diagonal",
        )
        Fragment(
            c="fragments/decompose.h",
            python="fragments/decompose.py",
            c_fragments=fragment_names("qr", FLOAT_DTYPES),
            python_fragment="qr",
            layout="matrix_q",
            output_layouts=("matrix_r",),
            workspace=x.size_at(-1) * x.size_at(-2),
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            The reduced QR decomposition of each matrix, x = Q R (numpy.linalg.qr
            with mode "reduced", up to the signs of R's rows: here R's diagonal is
            never negative), by modified Gram-Schmidt in double precision. A column
            whose remainder is at most 2^-40 of its length depends on the columns
            before it: it gives a zero column of Q and a zero on R's diagonal.
            """,
        )

    with Op("matrix_band_part") as op:
        op.display_path = "/Linalg/Structure"
        op.formula = (
            r"\mathrm{output}_{\ldots i j} = \begin{cases} x_{\ldots i j} & \left(l < 0 \vee i - j"
            r" \leq l\right) \wedge \left(u < 0 \vee j - i \leq u\right) \\ 0 & \text{otherwise} "
            r"\end{cases}",
            r"l = \mathrm{min\_lower}, \quad u = \mathrm{max\_upper}",
        )
        x = Input(FLOATING_POINT, "x", description="Matrices in the last two axes")
        Arg(
            INT,
            "min_lower",
            default=-1,
            description="Diagonals kept below the main one; negative keeps them all",
        )
        Arg(
            INT,
            "max_upper",
            default=-1,
            description="Diagonals kept above the main one; negative keeps them all",
        )
        Output(
            FLOATING_POINT,
            "output",
            description="The band, with the shape of x; 0 elsewhere",
        )
        Fragment(
            c="fragments/linalg.h",
            python="fragments/linalg.py",
            c_fragments=fragment_names("band_part", FLOAT_DTYPES),
            python_fragment="band_part",
            layout="matrix",
            args=("min_lower", "max_upper"),
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Keeps a band of each matrix: element (i, j) stays where
            (min_lower < 0 or i - j <= min_lower) and (max_upper < 0 or j - i <= max_upper),
            else it is 0 (TensorFlow's matrix_band_part).
            """,
        )

    with Op("triu") as op:
        op.formula = (
            r"\mathrm{output}_{\ldots i j} = \begin{cases} x_{\ldots i j} & j - i \geq "
            r"\mathrm{diag} \\ 0 & \text{otherwise} \end{cases}",
        )
        op.unlike_numpy = (
            "takes its diagonal as ND4J's arg; NumPy's triu takes k="
        )
        op.display_path = "/Linalg/Structure"
        x = Input(FLOATING_POINT, "x", description="Matrices in the last two axes")
        Arg(
            INT,
            "diag",
            default=0,
            description="The lowest diagonal kept: 0 the main one, 1 the one above, -1 below",
        )
        Output(
            FLOATING_POINT,
            "output",
            description="The upper triangles, with the shape of x; 0 below",
        )
        Fragment(
            c="fragments/linalg.h",
            python="fragments/linalg.py",
            c_fragments=fragment_names("triu", FLOAT_DTYPES),
            python_fragment="triu",
            layout="matrix",
            args=("diag",),
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            "The upper triangle of each matrix: elements with j - i >= diag stay, the rest become 0 (numpy.triu).",
        )

    with Op("triangular_solve") as op:
        op.display_path = "/Linalg/Solvers"
        op.formula = (
            r"A \, \mathrm{output} = B \quad \left(A^{\top} \, \mathrm{output} = B \text{ when "
            r"adjoint}\right)",
            r"\text{$A$: matrix, triangular (lower or upper), $B$: rhs, for each pair of matrices}",
        )
        matrix = Input(
            FLOATING_POINT,
            "matrix",
            description="Triangular matrices A (n x n) in the last two axes",
        )
        rhs = Input(
            FLOATING_POINT,
            "rhs",
            description="Right-hand sides B (n x k), with the batch axes of matrix",
        )
        Arg(
            BOOLEAN,
            "lower",
            default=True,
            description="A is lower triangular (else upper); the other triangle is not read",
        )
        Arg(
            BOOLEAN,
            "adjoint",
            default=False,
            description="Solve with the transpose of A",
        )
        Output(
            FLOATING_POINT,
            "output",
            description="The solutions X, with the shape of rhs",
        )
        Constraint("matrix and rhs must have the same type", same_type(matrix, rhs))
        Constraint(
            "matrix must hold square matrices", matrix.size_at(-1) == matrix.size_at(-2)
        )
        Constraint(
            "rhs must have as many rows as matrix",
            rhs.size_at(-2) == matrix.size_at(-1),
        )
        Fragment(
            c="fragments/linalg.h",
            python="fragments/linalg.py",
            c_fragments=fragment_names("triangular_solve", FLOAT_DTYPES),
            python_fragment="triangular_solve",
            layout="matrix",
            args=("lower", "adjoint"),
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Solves A X = B (or A^T X = B when adjoint) for triangular A by
            substitution (TensorFlow's triangular_solve). A zero on the diagonal
            of A gives infinities or NaN rather than an error.
            """,
        )

    with Op("solve") as op:
        op.formula = (
            r"A \, \mathrm{output} = B",
            r"\text{$A$: matrix, $B$: rhs, for each pair of matrices}",
        )
        op.unlike_numpy = (
            "not yet compared with numpy.linalg.solve"
        )
        op.display_path = "/Linalg/Solvers"
        matrix = Input(
            FLOATING_POINT,
            "matrix",
            description="Square matrices A (n x n) in the last two axes",
        )
        rhs = Input(
            FLOATING_POINT,
            "rhs",
            description="Right-hand sides B (n x k), with the batch axes of matrix",
        )
        Output(
            FLOATING_POINT,
            "output",
            description="The solutions X, with the shape of rhs",
        )
        Constraint("matrix and rhs must have the same type", same_type(matrix, rhs))
        Constraint(
            "matrix must hold square matrices", matrix.size_at(-1) == matrix.size_at(-2)
        )
        Constraint(
            "rhs must have as many rows as matrix",
            rhs.size_at(-2) == matrix.size_at(-1),
        )
        Fragment(
            c="fragments/factor.h",
            python="fragments/factor.py",
            c_fragments=fragment_names("solve", FLOAT_DTYPES),
            python_fragment="solve",
            layout="matrix",
            failure="matrix is singular",
            workspace=matrix.size_at(-1) * matrix.size_at(-1)
            + rhs.size_at(-2) * rhs.size_at(-1),
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Solves A X = B for square A (numpy.linalg.solve): Gaussian elimination
            with partial pivoting in double, then back substitution. A singular A
            (a column without a non-zero pivot) is an error.
            """,
        )

    with Op("logdet") as op:
        op.display_path = "/Linalg/Decompositions"
        op.formula = (
            r"\mathrm{output}_{\ldots} = \ln \det x_{\ldots} = 2 \sum_{j} \ln L_{j j}",
            r"\text{$L$ the Cholesky factor of each matrix}",
        )
        x = Input(
            FLOATING_POINT,
            "x",
            description="Symmetric positive definite matrices in the last two axes",
        )
        Output(
            FLOATING_POINT,
            "output",
            description="log(det x) of each matrix, with x's batch axes",
        )
        Constraint("x must hold square matrices", x.size_at(-1) == x.size_at(-2))
        Fragment(
            c="fragments/factor.h",
            python="fragments/factor.py",
            c_fragments=fragment_names("logdet", FLOAT_DTYPES),
            python_fragment="logdet",
            layout="matrix_reduce",
            failure="x is not positive definite",
            workspace=x.size_at(-1) * x.size_at(-1),
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            The natural logarithm of the determinant of each symmetric positive
            definite matrix, 2 * sum(log(L_jj)) over its Cholesky factor L, in
            double (TensorFlow's logdet). Only the lower triangle of x is read; an
            input that is not positive definite is an error.
            """,
        )

    with Op("lstsq") as op:
        op.formula = (
            r"\mathrm{output} = \operatorname*{arg\,min}_{X} \lVert A X - B \rVert^{2} + \lambda "
            r"\lVert X \rVert^{2} = \left(A^{\top} A + \lambda I\right)^{-1} A^{\top} B",
            r"\text{$A$: matrix, $B$: rhs, $\lambda$: l2\_regularizer}",
        )
        op.unlike_numpy = (
            "returns the solution only; numpy.linalg.lstsq returns four results and "
            "takes rcond="
        )
        op.display_path = "/Linalg/Solvers"
        matrix = Input(
            FLOATING_POINT,
            "matrix",
            description="Matrices A (m x n) in the last two axes",
        )
        rhs = Input(
            FLOATING_POINT,
            "rhs",
            description="Right-hand sides B (m x k), with the batch axes of matrix",
        )
        l2 = Arg(
            FLOATING_POINT,
            "l2_regularizer",
            default=0.0,
            description="The weight l2 of the ridge term l2 ||X||^2; 0 for plain least squares",
        )
        Output(
            FLOATING_POINT,
            "output",
            description="The solutions X (n x k), with the batch axes of matrix",
        )
        Constraint("matrix and rhs must have the same type", same_type(matrix, rhs))
        Constraint(
            "rhs must have as many rows as matrix",
            rhs.size_at(-2) == matrix.size_at(-2),
        )
        Constraint("l2_regularizer must not be negative", l2 >= 0)
        Fragment(
            c="fragments/decompose.h",
            python="fragments/decompose.py",
            c_fragments=fragment_names("lstsq", FLOAT_DTYPES),
            python_fragment="lstsq",
            layout="matrix_solve",
            args=("l2_regularizer",),
            failure="matrix does not have full column rank (give l2_regularizer > 0)",
            workspace=matrix.size_at(-1) * matrix.size_at(-1)
            + matrix.size_at(-1) * rhs.size_at(-1),
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            Least squares with an optional ridge term: the X minimizing
            ||A X - B||^2 + l2 ||X||^2, from the normal equations
            (A^T A + l2 I) X = A^T B solved by Cholesky in double (ND4J's fast
            lstsq). This squares A's condition number; A without full column
            rank needs l2_regularizer > 0, else it is an error.
            """,
        )

    with Op("svd") as op:
        op.formula = (
            r"x_{\ldots} = U \operatorname{diag}(s) \, V^{\top}",
            r"\text{$s$ largest first, $U$ and $V$ with orthonormal columns, for each matrix}",
        )
        op.unlike_numpy = (
            "returns ND4J's results; numpy.linalg.svd takes full_matrices= and "
            "compute_uv="
        )
        op.display_path = "/Linalg/Decompositions"
        x = Input(
            FLOATING_POINT, "x", description="Matrices (m x n) in the last two axes"
        )
        Output(
            FLOATING_POINT,
            "s",
            description="The k = min(m, n) singular values of each matrix, largest first",
        )
        Output(
            FLOATING_POINT,
            "u",
            description="m x k left singular vectors, in the columns",
        )
        Output(
            FLOATING_POINT,
            "v",
            description="n x k right singular vectors, in the columns (V, not V^T)",
        )
        Fragment(
            c="fragments/decompose.h",
            python="fragments/decompose.py",
            c_fragments=fragment_names("svd", FLOAT_DTYPES),
            python_fragment="svd",
            layout="matrix_diagonal",
            output_layouts=("matrix_q", "matrix_v"),
            workspace=2 * x.size_at(-2) * x.size_at(-1) + x.size_at(-2) + x.size_at(-1),
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            The reduced singular value decomposition x = U diag(s) V^T of each
            matrix (ND4J and TensorFlow svd with full_matrices false, which give s,
            u, v in this order; numpy.linalg.svd gives V^T), by one-sided Jacobi
            rotations in double, at most 60 sweeps. s comes largest first; each
            pair of singular vectors is unique up to its sign. A singular value at
            most 2^-40 of the largest gives a zero column of U (numpy completes it
            to an orthonormal basis instead).
            """,
        )

    with Op("cross") as op:
        op.formula = (
            r"\mathrm{output}_{\ldots} = \left(a_{1} b_{2} - a_{2} b_{1}, \; a_{2} b_{0} - a_{0} "
            r"b_{2}, \; a_{0} b_{1} - a_{1} b_{0}\right)",
            r"\text{for each pair of vectors of 3 in the last axis}",
        )
        op.unlike_numpy = (
            "takes ND4J's arguments; NumPy's cross takes axisa=, axisb=, axisc=, "
            "axis="
        )
        op.display_path = "/Linalg/Products"
        a = Input(FLOATING_POINT, "a", description="Vectors of 3 in the last axis")
        b = Input(FLOATING_POINT, "b", description="Vectors of 3, with the shape of a")
        Output(FLOATING_POINT, "output", description="a x b, with the shape of a")
        Constraint("a and b must have the same type", same_type(a, b))
        Constraint("a and b must have the same shape", same_shape(a, b))
        Constraint("the last axis must have size 3", a.size_at(-1) == 3)
        Fragment(
            c="fragments/rows.h",
            python="fragments/rows.py",
            c_fragments=fragment_names("cross", FLOAT_DTYPES),
            python_fragment="cross",
            layout="rows",
        )
        Doc(
            Language.ANY,
            DocScope.ALL,
            """
            The cross product of each pair of vectors of 3 in the last axis
            (numpy.cross): (a1 b2 - a2 b1, a2 b0 - a0 b2, a0 b1 - a1 b0), each
            product rounded to the dtype before the difference.
            """,
        )

    with Op("tri") as op:
        op.unlike_numpy = (
            "takes rows, cols and diagonal as ND4J; NumPy's tri takes N, M, k="
        )
        op.display_path = "/Linalg/Structure"
        Arg(INT, "rows", description="Rows of the result")
        Arg(INT, "cols", description="Columns of the result")
        Arg(
            INT,
            "diag",
            default=0,
            description="The highest diagonal of ones: 0 the main one, 1 the one above, -1 below",
        )
        Arg(
            DATA_TYPE, "dtype", default="float32", description="The dtype of the result"
        )
        Output(NUMERIC, "output", description="The rows x cols lower triangle of ones")
        Generate("tri")
        Doc(
            Language.ANY,
            DocScope.ALL,
            "A rows x cols matrix with ones at and below the diag-th diagonal (j - i <= diag) and zeros elsewhere (numpy.tri).",
        )

    Alias("math", "matmul", name="matmul")
    Alias("math", "matmul", name="mmul")
    Alias("math", "diag_part", name="diag_part")
    Alias("math", "diag", name="diag")
