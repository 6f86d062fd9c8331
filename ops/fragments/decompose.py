# Python twins of decompose.h: the same double operations in the same order,
# one matrix at a time, each result rounded to the output's dtype as stored.
# pragma IMAGINET_INCLUDES_BEGIN
import math

import numpy as np

# pragma IMAGINET_INCLUDES_END


# pragma IMAGINET_FRAGMENT_BEGIN "lstsq"
def lstsq(matrix, rhs, l2, output):
    """Normal equations (A^T A + l2 I) X = A^T B by Cholesky; ValueError unless positive definite."""
    m, n, k = matrix.shape[-2], matrix.shape[-1], rhs.shape[-1]
    a_all = matrix.reshape(math.prod(matrix.shape[:-2]), m, n)
    b_all = rhs.reshape(math.prod(rhs.shape[:-2]), m, k)
    x_all = output.reshape(math.prod(output.shape[:-2]), n, k)
    for s in range(a_all.shape[0]):
        a = a_all[s].astype(np.float64).tolist()
        b = b_all[s].astype(np.float64).tolist()
        g = [[0.0] * n for _ in range(n)]
        r = [[0.0] * k for _ in range(n)]
        for i in range(n):
            for j in range(n):
                t = 0.0
                for q in range(m):
                    t += a[q][i] * a[q][j]
                g[i][j] = t + l2 if i == j else t
            for c in range(k):
                t = 0.0
                for q in range(m):
                    t += a[q][i] * b[q][c]
                r[i][c] = t
        for j in range(n):
            d = g[j][j]
            for q in range(j):
                d -= g[j][q] * g[j][q]
            if not d > 0:
                raise ValueError(
                    "matrix does not have full column rank (give l2_regularizer > 0)"
                )
            g[j][j] = math.sqrt(d)
            for i in range(j + 1, n):
                t = g[i][j]
                for q in range(j):
                    t -= g[i][q] * g[j][q]
                g[i][j] = t / g[j][j]
        for i in range(n):
            for c in range(k):
                t = r[i][c]
                for q in range(i):
                    t -= g[i][q] * r[q][c]
                r[i][c] = t / g[i][i]
        for i in range(n - 1, -1, -1):
            for c in range(k):
                t = r[i][c]
                for q in range(i + 1, n):
                    t -= g[q][i] * r[q][c]
                r[i][c] = t / g[i][i]
        x_all[s] = np.array(r, dtype=np.float64).reshape(n, k).astype(output.dtype)


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "singular_values"
def singular_values(x, output):
    """Singular values, largest first, by one-sided Jacobi rotations (at most 60 sweeps)."""
    m, n = x.shape[-2], x.shape[-1]
    p, q = max(m, n), min(m, n)
    a_all = x.reshape(math.prod(x.shape[:-2]), m, n)
    out_all = output.reshape(math.prod(output.shape[:-1]), q)
    for s in range(a_all.shape[0]):
        a = a_all[s].astype(np.float64)
        u = (a if m >= n else a.T).tolist()
        for _ in range(60):
            rotated = False
            for i in range(q - 1):
                for j in range(i + 1, q):
                    alpha = beta = gamma = 0.0
                    for r in range(p):
                        alpha += u[r][i] * u[r][i]
                        beta += u[r][j] * u[r][j]
                        gamma += u[r][i] * u[r][j]
                    if not abs(gamma) > 1e-15 * math.sqrt(alpha * beta):
                        continue
                    rotated = True
                    zeta = (beta - alpha) / (2.0 * gamma)
                    t = (1.0 if zeta >= 0 else -1.0) / (
                        abs(zeta) + math.sqrt(1.0 + zeta * zeta)
                    )
                    c = 1.0 / math.sqrt(1.0 + t * t)
                    sn = c * t
                    for r in range(p):
                        ui, uj = u[r][i], u[r][j]
                        u[r][i] = c * ui - sn * uj
                        u[r][j] = sn * ui + c * uj
            if not rotated:
                break
        out = out_all[s]
        for j in range(q):
            norm = 0.0
            for r in range(p):
                norm += u[r][j] * u[r][j]
            norm = math.sqrt(norm)
            at = j
            while at > 0 and float(out[at - 1]) < norm:
                out[at] = out[at - 1]
                at -= 1
            out[at] = np.float64(norm).astype(output.dtype)


# pragma IMAGINET_FRAGMENT_END


# pragma IMAGINET_FRAGMENT_BEGIN "qr"
def qr(x, q_out, r_out):
    """A = Q R by modified Gram-Schmidt (reduced: k = min(m, n) columns of Q), sums in
    double in order, as the C kernel; a column whose remainder is at most 2^-40 of
    its length in A gives a zero column of Q and a zero on R's diagonal."""
    m, n = x.shape[-2], x.shape[-1]
    k = min(m, n)
    a_all = x.reshape(math.prod(x.shape[:-2]), m, n)
    q_all = q_out.reshape(math.prod(q_out.shape[:-2]), m, k)
    r_all = r_out.reshape(math.prod(r_out.shape[:-2]), k, n)
    for s in range(a_all.shape[0]):
        v = a_all[s].astype(np.float64).tolist()
        given_a = a_all[s].astype(np.float64).tolist()
        r = [[0.0] * n for _ in range(k)]
        for i in range(k):
            squares = given = 0.0
            for t in range(m):
                squares += v[t][i] * v[t][i]
                given += given_a[t][i] * given_a[t][i]
            norm = (
                math.sqrt(squares)
                if math.sqrt(squares) > 2.0**-40 * math.sqrt(given)
                else 0.0
            )
            r[i][i] = norm
            for t in range(m):
                v[t][i] = v[t][i] / norm if norm > 0 else 0.0
            for j in range(i + 1, n):
                d = 0.0
                for t in range(m):
                    d += v[t][i] * v[t][j]
                r[i][j] = d
                for t in range(m):
                    v[t][j] -= d * v[t][i]
        q_all[s] = (
            np.array([row[:k] for row in v], dtype=np.float64)
            .reshape(m, k)
            .astype(q_out.dtype)
        )
        r_all[s] = np.array(r, dtype=np.float64).reshape(k, n).astype(r_out.dtype)


# pragma IMAGINET_FRAGMENT_END
