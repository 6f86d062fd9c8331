# Hand-written matrix references (Imaginet Python fragments): the C kernels'
# algorithms in the same order, sums in float64, each result rounded to the
# input's dtype as it is stored, so both give the same numbers.
# pragma IMAGINET_INCLUDES_BEGIN
import numpy as np

# pragma IMAGINET_INCLUDES_END


# pragma IMAGINET_FRAGMENT_BEGIN "cholesky"
def cholesky(x, output):
    """Lower Cholesky factor of each matrix; ValueError unless positive definite."""
    n = x.shape[-1]
    a = x.astype(np.float64)
    low = np.zeros(x.shape, dtype=x.dtype)
    for j in range(n):
        d = a[..., j, j].copy()
        for k in range(j):
            d -= low[..., j, k].astype(np.float64) * low[..., j, k].astype(np.float64)
        if not np.all(d > 0):
            raise ValueError("x is not positive definite")
        low[..., j, j] = np.sqrt(d).astype(x.dtype)
        ljj = low[..., j, j].astype(np.float64)
        for i in range(j + 1, n):
            s = a[..., i, j].copy()
            for k in range(j):
                s -= low[..., i, k].astype(np.float64) * low[..., j, k].astype(
                    np.float64
                )
            low[..., i, j] = (s / ljj).astype(x.dtype)
    np.copyto(output, low)


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "band_part"
def band_part(x, num_lower, num_upper, output):
    """Keeps num_lower diagonals below the main one and num_upper above (negative: all)."""
    i = np.arange(x.shape[-2])[:, None]
    j = np.arange(x.shape[-1])[None, :]
    keep = ((num_lower < 0) | (i - j <= num_lower)) & (
        (num_upper < 0) | (j - i <= num_upper)
    )
    np.copyto(output, np.where(keep, x, np.zeros((), dtype=x.dtype)))


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "triu"
def triu(x, k, output):
    """Keeps the elements on and above the k-th diagonal."""
    i = np.arange(x.shape[-2])[:, None]
    j = np.arange(x.shape[-1])[None, :]
    np.copyto(output, np.where(j - i >= k, x, np.zeros((), dtype=x.dtype)))


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "triangular_solve"
def triangular_solve(matrix, rhs, lower, adjoint, output):
    """Solves op(A) X = B by substitution over the lower or upper triangle of A."""
    n = matrix.shape[-1]
    forward = lower != adjoint
    x = np.zeros(rhs.shape, dtype=rhs.dtype)
    with np.errstate(all="ignore"):
        for step in range(n):
            i = step if forward else n - 1 - step
            s = rhs[..., i, :].astype(np.float64)
            for q in range(step):
                m = q if forward else n - 1 - q
                coef = matrix[..., m, i] if adjoint else matrix[..., i, m]
                s = s - coef.astype(np.float64)[..., None] * x[..., m, :].astype(
                    np.float64
                )
            x[..., i, :] = (s / matrix[..., i, i].astype(np.float64)[..., None]).astype(
                rhs.dtype
            )
    np.copyto(output, x)


# pragma IMAGINET_FRAGMENT_END
