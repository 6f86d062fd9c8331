# Python twins of factor.h: the same operations in float64, in the same order,
# one matrix at a time, each result rounded to the input's dtype as it is stored.
# pragma IMAGINET_INCLUDES_BEGIN
import math

import numpy as np

# pragma IMAGINET_INCLUDES_END


# pragma IMAGINET_FRAGMENT_BEGIN "factor_steps"
def factor_eliminate(m, r):
    """Partial-pivoting elimination of m (n x n) alongside r (n x k), in place;
    (ok, determinant) with the C kernel's pivot choice (first largest |value|, never NaN).
    """
    n = m.shape[0]
    det = 1.0
    for c in range(n):
        column = np.abs(m[c:, c])
        column = np.where(np.isnan(column), -1.0, column)
        p = c + int(np.argmax(column))
        best = float(column[p - c])
        if not best > 0:
            return False, (0.0 if best == 0 else math.nan)
        if p != c:
            m[[c, p]] = m[[p, c]]
            r[[c, p]] = r[[p, c]]
            det = -det
        pivot = m[c, c]
        det *= float(pivot)
        for i in range(c + 1, n):
            f = m[i, c] / pivot
            m[i, c + 1 :] -= f * m[c, c + 1 :]
            r[i] -= f * r[c]
    return True, det


def factor_back_substitute(m, r):
    """Solves U X = R in place of r for the upper triangle U of m."""
    n = m.shape[0]
    for i in range(n - 1, -1, -1):
        s = r[i].copy()
        for q in range(i + 1, n):
            s -= m[i, q] * r[q]
        r[i] = s / m[i, i]


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "solve"
# pragma IMAGINET_DEPENDENCY "factor_steps"
def solve(matrix, rhs, output):
    """A X = B by elimination with partial pivoting; ValueError when A is singular."""
    n, k = rhs.shape[-2], rhs.shape[-1]
    a = matrix.reshape(math.prod(matrix.shape[:-2]), n, n)
    b = rhs.reshape(math.prod(rhs.shape[:-2]), n, k)
    x = output.reshape(math.prod(output.shape[:-2]), n, k)
    for s in range(a.shape[0]):
        m = a[s].astype(np.float64)
        r = b[s].astype(np.float64)
        ok, _ = factor_eliminate(m, r)
        if not ok:
            raise ValueError("matrix is singular")
        factor_back_substitute(m, r)
        x[s] = r.astype(output.dtype)


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "inverse"
# pragma IMAGINET_DEPENDENCY "factor_steps"
def inverse(x, output):
    """The inverse by elimination with partial pivoting; ValueError when x is singular."""
    n = x.shape[-1]
    a = x.reshape(math.prod(x.shape[:-2]), n, n)
    out = output.reshape(math.prod(output.shape[:-2]), n, n)
    for s in range(a.shape[0]):
        m = a[s].astype(np.float64)
        r = np.eye(n, dtype=np.float64)
        ok, _ = factor_eliminate(m, r)
        if not ok:
            raise ValueError("x is singular")
        factor_back_substitute(m, r)
        out[s] = r.astype(output.dtype)


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "determinant"
# pragma IMAGINET_DEPENDENCY "factor_steps"
def determinant(x, output):
    """The determinant of each matrix: the product of its pivots, signed by its row swaps."""
    n = x.shape[-1]
    a = x.reshape(math.prod(x.shape[:-2]), n, n)
    out = output.reshape(-1)
    for s in range(a.shape[0]):
        _, det = factor_eliminate(a[s].astype(np.float64), np.zeros((n, 0)))
        out[s] = np.float64(det).astype(output.dtype)


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "logdet"
def logdet(x, output):
    """log(det x) of symmetric positive definite x from its Cholesky factor; ValueError otherwise."""
    n = x.shape[-1]
    a = x.reshape(math.prod(x.shape[:-2]), n, n)
    out = output.reshape(-1)
    for s in range(a.shape[0]):
        low = np.zeros((n, n), dtype=np.float64)
        logs = 0.0
        for j in range(n):
            d = float(a[s, j, j])
            for q in range(j):
                d -= low[j, q] * low[j, q]
            if not d > 0:
                raise ValueError("x is not positive definite")
            low[j, j] = math.sqrt(d)
            for i in range(j + 1, n):
                t = float(a[s, i, j])
                for q in range(j):
                    t -= low[i, q] * low[j, q]
                low[i, j] = t / low[j, j]
            logs += math.log(low[j, j])
        out[s] = np.float64(2.0 * logs).astype(output.dtype)


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "lu"
def lu(x, lu_out, perm_out):
    """x[perm] = L U by elimination with partial pivoting (factor_eliminate's pivot
    choice), L's multipliers below the diagonal; a column without a non-zero pivot
    is left as it is."""
    n = x.shape[-1]
    a = x.reshape(math.prod(x.shape[:-2]), n, n)
    out = lu_out.reshape(math.prod(lu_out.shape[:-2]), n, n)
    perms = perm_out.reshape(math.prod(perm_out.shape[:-1]), n)
    for s in range(a.shape[0]):
        m = a[s].astype(np.float64)
        perm = np.arange(n, dtype=np.int64)
        for c in range(n):
            column = np.abs(m[c:, c])
            column = np.where(np.isnan(column), -1.0, column)
            p = c + int(np.argmax(column))
            best = float(column[p - c])
            if p != c:
                m[[c, p]] = m[[p, c]]
                perm[[c, p]] = perm[[p, c]]
            if not best > 0:
                continue
            pivot = m[c, c]
            for i in range(c + 1, n):
                f = m[i, c] / pivot
                m[i, c] = f
                m[i, c + 1 :] -= f * m[c, c + 1 :]
        out[s] = m.astype(lu_out.dtype)
        perms[s] = perm


# pragma IMAGINET_FRAGMENT_END
