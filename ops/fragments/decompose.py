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


# pragma IMAGINET_FRAGMENT_BEGIN "svd"
def svd(x, s_out, u_out, v_out):
    """The reduced SVD by one-sided Jacobi rotations (at most 60 sweeps) of the
    columns of x, or of x^T when m < n, as the C kernel: s largest first (NaN
    first, ties by column), a column of norm at most 2^-40 of the largest gives
    a zero column of U."""
    m, n = x.shape[-2], x.shape[-1]
    p, q = max(m, n), min(m, n)
    batch = math.prod(x.shape[:-2])
    a_all = x.reshape(batch, m, n)
    s_all = s_out.reshape(batch, q)
    u_all = u_out.reshape(batch, m, q)
    v_all = v_out.reshape(batch, n, q)
    for s in range(batch):
        a = a_all[s].astype(np.float64)
        w = (a if m >= n else a.T).tolist()
        vv = np.eye(q).tolist()
        for _ in range(60):
            rotated = False
            for i in range(q - 1):
                for j in range(i + 1, q):
                    alpha = beta = gamma = 0.0
                    for r in range(p):
                        alpha += w[r][i] * w[r][i]
                        beta += w[r][j] * w[r][j]
                        gamma += w[r][i] * w[r][j]
                    if not abs(gamma) > 1e-15 * math.sqrt(alpha * beta):
                        continue
                    rotated = True
                    zeta = (beta - alpha) / (2.0 * gamma)
                    t = (1.0 if zeta >= 0 else -1.0) / (
                        abs(zeta) + math.sqrt(1.0 + zeta * zeta)
                    )
                    c = 1.0 / math.sqrt(1.0 + t * t)
                    sn = c * t
                    for rows in (w, vv):
                        for row in rows:
                            ri, rj = row[i], row[j]
                            row[i] = c * ri - sn * rj
                            row[j] = sn * ri + c * rj
            if not rotated:
                break
        norms = []
        for j in range(q):
            norm = 0.0
            for r in range(p):
                norm += w[r][j] * w[r][j]
            norms.append(math.sqrt(norm))
        left, right = (u_all[s], v_all[s]) if m >= n else (v_all[s], u_all[s])
        largest = 0.0
        for at in range(q):
            best = -1
            for j in range(q):
                if norms[j] == -1.0:
                    continue
                if (
                    best < 0
                    or norms[j] > norms[best]
                    or (math.isnan(norms[j]) and not math.isnan(norms[best]))
                ):
                    best = j
            norm = norms[best]
            norms[best] = -1.0
            if at == 0:
                largest = norm
            scale = 1.0 / norm if norm > 2.0**-40 * largest else 0.0
            s_all[s, at] = norm
            for r in range(p):
                left[r, at] = w[r][best] * scale
            for r in range(q):
                right[r, at] = vv[r][best]


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
