/* Least squares and singular values (Imaginet fragments), one per dtype, on
 * copies in scratch memory the caller provides (`work`, in doubles). Matrices
 * are row-major in the last two axes; `batch` matrices follow each other.
 * All arithmetic is in double, in a fixed order that the Python fragments
 * repeat; each result is rounded to T as it is stored. */
#pragma IMAGINET_INCLUDES_BEGIN
#include <math.h>
#include <stdint.h>
#pragma IMAGINET_INCLUDES_END

#pragma IMAGINET_FRAGMENT_BEGIN "decompose_bodies"
/* min ||A X - B||^2 + l2 ||X||^2 for A (m x n), B (m x k) by the normal equations
 * (A^T A + l2 I) X = A^T B, solved by Cholesky: work holds n*n + n*k doubles.
 * Fails when A^T A + l2 I is not positive definite (A without full column rank
 * and l2 = 0). */
#define LSTSQ(NAME, T)                                                                             \
    static inline int NAME(const T* restrict a, int64_t m, int64_t n, const T* restrict b,          \
                           int64_t b_rows, int64_t k, int64_t batch, double l2,                     \
                           double* restrict work, T* restrict x)                                    \
    {                                                                                               \
        (void)b_rows;                                                                               \
        double* g = work;                                                                           \
        double* r = work + n * n;                                                                   \
        for (int64_t s = 0; s < batch; s++, a += m * n, b += m * k, x += n * k) {                   \
            for (int64_t i = 0; i < n; i++) {                                                       \
                for (int64_t j = 0; j < n; j++) {                                                   \
                    double t = 0.0;                                                                 \
                    for (int64_t q = 0; q < m; q++) {                                               \
                        t += (double)a[q * n + i] * (double)a[q * n + j];                           \
                    }                                                                               \
                    g[i * n + j] = i == j ? t + l2 : t;                                             \
                }                                                                                   \
                for (int64_t c = 0; c < k; c++) {                                                   \
                    double t = 0.0;                                                                 \
                    for (int64_t q = 0; q < m; q++) {                                               \
                        t += (double)a[q * n + i] * (double)b[q * k + c];                           \
                    }                                                                               \
                    r[i * k + c] = t;                                                               \
                }                                                                                   \
            }                                                                                       \
            for (int64_t j = 0; j < n; j++) { /* Cholesky, in the lower triangle of g */            \
                double d = g[j * n + j];                                                            \
                for (int64_t q = 0; q < j; q++) {                                                   \
                    d -= g[j * n + q] * g[j * n + q];                                               \
                }                                                                                   \
                if (!(d > 0)) {                                                                     \
                    return 1;                                                                       \
                }                                                                                   \
                g[j * n + j] = sqrt(d);                                                             \
                for (int64_t i = j + 1; i < n; i++) {                                               \
                    double t = g[i * n + j];                                                        \
                    for (int64_t q = 0; q < j; q++) {                                               \
                        t -= g[i * n + q] * g[j * n + q];                                           \
                    }                                                                               \
                    g[i * n + j] = t / g[j * n + j];                                                \
                }                                                                                   \
            }                                                                                       \
            for (int64_t i = 0; i < n; i++) { /* L Y = A^T B */                                     \
                for (int64_t c = 0; c < k; c++) {                                                   \
                    double t = r[i * k + c];                                                        \
                    for (int64_t q = 0; q < i; q++) {                                               \
                        t -= g[i * n + q] * r[q * k + c];                                           \
                    }                                                                               \
                    r[i * k + c] = t / g[i * n + i];                                                \
                }                                                                                   \
            }                                                                                       \
            for (int64_t i = n - 1; i >= 0; i--) { /* L^T X = Y */                                  \
                for (int64_t c = 0; c < k; c++) {                                                   \
                    double t = r[i * k + c];                                                        \
                    for (int64_t q = i + 1; q < n; q++) {                                           \
                        t -= g[q * n + i] * r[q * k + c];                                           \
                    }                                                                               \
                    r[i * k + c] = t / g[i * n + i];                                                \
                }                                                                                   \
            }                                                                                       \
            for (int64_t i = 0; i < n * k; i++) {                                                   \
                x[i] = (T)r[i];                                                                     \
            }                                                                                       \
        }                                                                                           \
        return 0;                                                                                   \
    }

/* The reduced QR factorization of m x n A by modified Gram-Schmidt, k = min(m, n):
 * A = Q R with Q m x k (orthonormal columns where R's diagonal is not 0) and R
 * k x n upper triangular with a non-negative diagonal. A column whose remainder
 * is at most 2^-40 of its length in A depends on the ones before: its column of
 * Q and its diagonal of R are 0. Sums in double, in order; work holds m*n doubles. */
#define QR(NAME, T)                                                                                \
    static inline int NAME(const T* restrict a, int64_t m, int64_t n, int64_t batch,                \
                           double* restrict work, T* restrict q, T* restrict r)                     \
    {                                                                                               \
        const int64_t k = m < n ? m : n;                                                            \
        for (int64_t s = 0; s < batch; s++, a += m * n, q += m * k, r += k * n) {                   \
            for (int64_t i = 0; i < m * n; i++) {                                                   \
                work[i] = (double)a[i];                                                             \
            }                                                                                       \
            for (int64_t i = 0; i < k * n; i++) {                                                   \
                r[i] = (T)0;                                                                        \
            }                                                                                       \
            for (int64_t i = 0; i < k; i++) {                                                       \
                double squares = 0.0, given = 0.0;                                                  \
                for (int64_t t = 0; t < m; t++) {                                                   \
                    squares += work[t * n + i] * work[t * n + i];                                   \
                    given += (double)a[t * n + i] * (double)a[t * n + i];                           \
                }                                                                                   \
                const double norm = sqrt(squares) > 0x1p-40 * sqrt(given) ? sqrt(squares) : 0.0;    \
                r[i * n + i] = (T)norm;                                                             \
                for (int64_t t = 0; t < m; t++) {                                                   \
                    const double e = norm > 0 ? work[t * n + i] / norm : 0.0;                       \
                    work[t * n + i] = e;                                                            \
                    q[t * k + i] = (T)e;                                                            \
                }                                                                                   \
                for (int64_t j = i + 1; j < n; j++) {                                               \
                    double d = 0.0;                                                                 \
                    for (int64_t t = 0; t < m; t++) {                                               \
                        d += work[t * n + i] * work[t * n + j];                                     \
                    }                                                                               \
                    r[i * n + j] = (T)d;                                                            \
                    for (int64_t t = 0; t < m; t++) {                                               \
                        work[t * n + j] -= d * work[t * n + i];                                     \
                    }                                                                               \
                }                                                                                   \
            }                                                                                       \
        }                                                                                           \
        return 0;                                                                                   \
    }

/* The reduced SVD A = U diag(s) V^T of A (m x n), k = min(m, n), by one-sided
 * Jacobi rotations (Hestenes) of the columns of A, or of A^T when m < n, which
 * swaps the roles of U and V. At most 60 sweeps; a pair is rotated while its
 * columns' inner product exceeds 1e-15 times the product of their norms. s
 * comes largest first (NaN first, ties by column); a column whose norm is at
 * most 2^-40 of the largest gives a zero column of U. work holds 2 m n + m + n
 * doubles: the rotated columns (p x q), V (q x q) and the norms (q). */
#define SVD(NAME, T)                                                                               \
    static inline int NAME(const T* restrict a, int64_t m, int64_t n, int64_t batch,                \
                           double* restrict work, T* restrict s_out, T* restrict u_out,             \
                           T* restrict v_out)                                                       \
    {                                                                                               \
        const int64_t p = m >= n ? m : n, q = m >= n ? n : m;                                       \
        double* w = work;                                                                           \
        double* vv = work + p * q;                                                                  \
        double* norms = vv + q * q;                                                                 \
        for (int64_t s = 0; s < batch;                                                              \
             s++, a += m * n, s_out += q, u_out += m * q, v_out += n * q) {                         \
            for (int64_t i = 0; i < m; i++) { /* w is p x q: A, or A^T */                           \
                for (int64_t j = 0; j < n; j++) {                                                   \
                    w[m >= n ? i * n + j : j * m + i] = (double)a[i * n + j];                       \
                }                                                                                   \
            }                                                                                       \
            for (int64_t i = 0; i < q * q; i++) {                                                   \
                vv[i] = i % (q + 1) == 0 ? 1.0 : 0.0;                                               \
            }                                                                                       \
            for (int sweep = 0; sweep < 60; sweep++) {                                              \
                int rotated = 0;                                                                    \
                for (int64_t i = 0; i + 1 < q; i++) {                                               \
                    for (int64_t j = i + 1; j < q; j++) {                                           \
                        double alpha = 0.0, beta = 0.0, gamma = 0.0;                                \
                        for (int64_t r = 0; r < p; r++) {                                           \
                            alpha += w[r * q + i] * w[r * q + i];                                   \
                            beta += w[r * q + j] * w[r * q + j];                                    \
                            gamma += w[r * q + i] * w[r * q + j];                                   \
                        }                                                                           \
                        if (!(fabs(gamma) > 1e-15 * sqrt(alpha * beta))) {                          \
                            continue;                                                               \
                        }                                                                           \
                        rotated = 1;                                                                \
                        const double zeta = (beta - alpha) / (2.0 * gamma);                         \
                        const double t = (zeta >= 0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1.0 + zeta * zeta)); \
                        const double c = 1.0 / sqrt(1.0 + t * t), sn = c * t;                       \
                        for (int64_t r = 0; r < p; r++) {                                           \
                            const double ui = w[r * q + i], uj = w[r * q + j];                      \
                            w[r * q + i] = c * ui - sn * uj;                                        \
                            w[r * q + j] = sn * ui + c * uj;                                        \
                        }                                                                           \
                        for (int64_t r = 0; r < q; r++) {                                           \
                            const double vi = vv[r * q + i], vj = vv[r * q + j];                    \
                            vv[r * q + i] = c * vi - sn * vj;                                       \
                            vv[r * q + j] = sn * vi + c * vj;                                       \
                        }                                                                           \
                    }                                                                               \
                }                                                                                   \
                if (!rotated) {                                                                     \
                    break;                                                                          \
                }                                                                                   \
            }                                                                                       \
            for (int64_t j = 0; j < q; j++) {                                                       \
                double norm = 0.0;                                                                  \
                for (int64_t r = 0; r < p; r++) {                                                   \
                    norm += w[r * q + j] * w[r * q + j];                                            \
                }                                                                                   \
                norms[j] = sqrt(norm);                                                              \
            }                                                                                       \
            double largest = 0.0;                                                                   \
            for (int64_t at = 0; at < q; at++) { /* the largest left (NaN first), then the next */  \
                int64_t best = -1;                                                                  \
                for (int64_t j = 0; j < q; j++) {                                                   \
                    if (norms[j] == -1.0) {                                                         \
                        continue;                                                                   \
                    }                                                                               \
                    if (best < 0 || norms[j] > norms[best] || (isnan(norms[j]) && !isnan(norms[best]))) { \
                        best = j;                                                                   \
                    }                                                                               \
                }                                                                                   \
                const double norm = norms[best];                                                    \
                norms[best] = -1.0;                                                                 \
                if (at == 0) {                                                                      \
                    largest = norm;                                                                 \
                }                                                                                   \
                const double scale = norm > 0x1p-40 * largest ? 1.0 / norm : 0.0;                   \
                s_out[at] = (T)norm;                                                                \
                T* left = m >= n ? u_out : v_out;   /* the normalized columns of w */               \
                T* right = m >= n ? v_out : u_out;  /* the columns of vv */                         \
                for (int64_t r = 0; r < p; r++) {                                                   \
                    left[r * q + at] = (T)(w[r * q + best] * scale);                                \
                }                                                                                   \
                for (int64_t r = 0; r < q; r++) {                                                   \
                    right[r * q + at] = (T)vv[r * q + best];                                        \
                }                                                                               \
            }                                                                                       \
        }                                                                                           \
        return 0;                                                                                   \
    }
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "lstsq_f32"
#pragma IMAGINET_DEPENDENCY "decompose.h:decompose_bodies"
LSTSQ(lstsq_f32, float)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "lstsq_f64"
#pragma IMAGINET_DEPENDENCY "decompose.h:decompose_bodies"
LSTSQ(lstsq_f64, double)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "svd_f32"
#pragma IMAGINET_DEPENDENCY "decompose.h:decompose_bodies"
SVD(svd_f32, float)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "svd_f64"
#pragma IMAGINET_DEPENDENCY "decompose.h:decompose_bodies"
SVD(svd_f64, double)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "qr_f32"
#pragma IMAGINET_DEPENDENCY "decompose.h:decompose_bodies"
QR(qr_f32, float)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "qr_f64"
#pragma IMAGINET_DEPENDENCY "decompose.h:decompose_bodies"
QR(qr_f64, double)
#pragma IMAGINET_FRAGMENT_END
