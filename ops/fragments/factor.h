/* Matrix kernels that factor a copy of their input in scratch memory the
 * caller provides (`work`, in doubles: the op's workspace formula). Matrices
 * are row-major in the last two axes; `batch` matrices follow each other.
 * All arithmetic is in double, each result rounded to T as it is stored; the
 * Python fragments do the same operations in the same order.
 * A kernel returns 0, or 1 when the input has no result (named by the op). */
#pragma IMAGINET_INCLUDES_BEGIN
#include <math.h>
#include <stdint.h>
#pragma IMAGINET_INCLUDES_END

#pragma IMAGINET_FRAGMENT_BEGIN "factor_steps"
/* Gaussian elimination with partial pivoting of the n x n `m`, applied alongside
 * to the n x k `r`: the pivot of a column is its first largest |value| (NaN is
 * never chosen) and its row is swapped up. `m` becomes upper triangular and
 * *det the determinant. Returns 1 when a column has no non-zero pivot; *det
 * is then 0 (NaN when the column held only NaN). */
static inline int factor_eliminate(double* m, double* r, int64_t n, int64_t k, double* det)
{
    *det = 1.0;
    for (int64_t c = 0; c < n; c++) {
        double best = -1.0;
        int64_t p = c;
        for (int64_t i = c; i < n; i++) {
            const double v = fabs(m[i * n + c]);
            if (v > best) {
                best = v;
                p = i;
            }
        }
        if (!(best > 0)) {
            *det = best == 0 ? 0.0 : NAN;
            return 1;
        }
        if (p != c) {
            for (int64_t j = 0; j < n; j++) {
                const double t = m[c * n + j];
                m[c * n + j] = m[p * n + j];
                m[p * n + j] = t;
            }
            for (int64_t j = 0; j < k; j++) {
                const double t = r[c * k + j];
                r[c * k + j] = r[p * k + j];
                r[p * k + j] = t;
            }
            *det = -*det;
        }
        const double pivot = m[c * n + c];
        *det *= pivot;
        for (int64_t i = c + 1; i < n; i++) {
            const double f = m[i * n + c] / pivot;
            for (int64_t j = c + 1; j < n; j++) {
                m[i * n + j] -= f * m[c * n + j];
            }
            for (int64_t j = 0; j < k; j++) {
                r[i * k + j] -= f * r[c * k + j];
            }
        }
    }
    return 0;
}

/* Solves U X = R in place of R for the upper triangle U of `m` (back substitution). */
static inline void factor_back_substitute(const double* m, double* r, int64_t n, int64_t k)
{
    for (int64_t i = n - 1; i >= 0; i--) {
        for (int64_t j = 0; j < k; j++) {
            double s = r[i * k + j];
            for (int64_t q = i + 1; q < n; q++) {
                s -= m[i * n + q] * r[q * k + j];
            }
            r[i * k + j] = s / m[i * n + i];
        }
    }
}

/* A X = B for square A: work holds n*n + n*k doubles. */
#define SOLVE(NAME, T)                                                                             \
    static inline int NAME(const T* restrict a, int64_t n, int64_t a_cols, const T* restrict b,     \
                           int64_t b_rows, int64_t k, int64_t batch, double* restrict work,         \
                           T* restrict x)                                                           \
    {                                                                                               \
        (void)a_cols;                                                                               \
        (void)b_rows;                                                                               \
        double* m = work;                                                                           \
        double* r = work + n * n;                                                                   \
        for (int64_t s = 0; s < batch; s++, a += n * n, b += n * k, x += n * k) {                   \
            double det;                                                                             \
            for (int64_t i = 0; i < n * n; i++) {                                                   \
                m[i] = (double)a[i];                                                                \
            }                                                                                       \
            for (int64_t i = 0; i < n * k; i++) {                                                   \
                r[i] = (double)b[i];                                                                \
            }                                                                                       \
            if (factor_eliminate(m, r, n, k, &det) != 0) {                                          \
                return 1;                                                                           \
            }                                                                                       \
            factor_back_substitute(m, r, n, k);                                                     \
            for (int64_t i = 0; i < n * k; i++) {                                                   \
                x[i] = (T)r[i];                                                                     \
            }                                                                                       \
        }                                                                                           \
        return 0;                                                                                   \
    }

/* The inverse of square A (A X = I): work holds 2*n*n doubles. */
#define INVERSE(NAME, T)                                                                           \
    static inline int NAME(const T* restrict a, int64_t n, int64_t a_cols, int64_t batch,           \
                           double* restrict work, T* restrict x)                                    \
    {                                                                                               \
        (void)a_cols;                                                                               \
        double* m = work;                                                                           \
        double* r = work + n * n;                                                                   \
        for (int64_t s = 0; s < batch; s++, a += n * n, x += n * n) {                               \
            double det;                                                                             \
            for (int64_t i = 0; i < n * n; i++) {                                                   \
                m[i] = (double)a[i];                                                                \
                r[i] = i / n == i % n ? 1.0 : 0.0;                                                  \
            }                                                                                       \
            if (factor_eliminate(m, r, n, n, &det) != 0) {                                          \
                return 1;                                                                           \
            }                                                                                       \
            factor_back_substitute(m, r, n, n);                                                     \
            for (int64_t i = 0; i < n * n; i++) {                                                   \
                x[i] = (T)r[i];                                                                     \
            }                                                                                       \
        }                                                                                           \
        return 0;                                                                                   \
    }

/* The determinant of square A, one per matrix; a singular matrix gives 0: work holds n*n doubles. */
#define DETERMINANT(NAME, T)                                                                       \
    static inline int NAME(const T* restrict a, int64_t n, int64_t a_cols, int64_t batch,           \
                           double* restrict work, T* restrict out)                                  \
    {                                                                                               \
        (void)a_cols;                                                                               \
        for (int64_t s = 0; s < batch; s++, a += n * n) {                                           \
            double det;                                                                             \
            for (int64_t i = 0; i < n * n; i++) {                                                   \
                work[i] = (double)a[i];                                                             \
            }                                                                                       \
            (void)factor_eliminate(work, NULL, n, 0, &det);                                         \
            out[s] = (T)det;                                                                        \
        }                                                                                           \
        return 0;                                                                                   \
    }

/* The LU factorization with partial pivoting of square A (the pivot choice of
 * factor_eliminate): A[perm] = L U, with L unit lower triangular (its multipliers
 * stored below the diagonal of lu) and U upper triangular (on and above it). A
 * column without a non-zero pivot is left as it is. work holds n*n doubles. */
#define LU(NAME, T)                                                                                \
    static inline int NAME(const T* restrict a, int64_t n, int64_t a_cols, int64_t batch,           \
                           double* restrict work, T* restrict lu, int64_t* restrict perm)           \
    {                                                                                               \
        (void)a_cols;                                                                               \
        for (int64_t s = 0; s < batch; s++, a += n * n, lu += n * n, perm += n) {                   \
            for (int64_t i = 0; i < n * n; i++) {                                                   \
                work[i] = (double)a[i];                                                             \
            }                                                                                       \
            for (int64_t i = 0; i < n; i++) {                                                       \
                perm[i] = i;                                                                        \
            }                                                                                       \
            for (int64_t c = 0; c < n; c++) {                                                       \
                double best = -1.0;                                                                 \
                int64_t p = c;                                                                      \
                for (int64_t i = c; i < n; i++) {                                                   \
                    const double v = fabs(work[i * n + c]);                                         \
                    if (v > best) {                                                                 \
                        best = v;                                                                   \
                        p = i;                                                                      \
                    }                                                                               \
                }                                                                                   \
                if (p != c) {                                                                       \
                    for (int64_t j = 0; j < n; j++) {                                               \
                        const double t = work[c * n + j];                                           \
                        work[c * n + j] = work[p * n + j];                                          \
                        work[p * n + j] = t;                                                        \
                    }                                                                               \
                    const int64_t t = perm[c];                                                      \
                    perm[c] = perm[p];                                                              \
                    perm[p] = t;                                                                    \
                }                                                                                   \
                if (!(best > 0)) {                                                                  \
                    continue;                                                                       \
                }                                                                                   \
                const double pivot = work[c * n + c];                                               \
                for (int64_t i = c + 1; i < n; i++) {                                               \
                    const double f = work[i * n + c] / pivot;                                       \
                    work[i * n + c] = f;                                                            \
                    for (int64_t j = c + 1; j < n; j++) {                                           \
                        work[i * n + j] -= f * work[c * n + j];                                     \
                    }                                                                               \
                }                                                                                   \
            }                                                                                       \
            for (int64_t i = 0; i < n * n; i++) {                                                   \
                lu[i] = (T)work[i];                                                                 \
            }                                                                                       \
        }                                                                                           \
        return 0;                                                                                   \
    }

/* log(det A) of symmetric positive definite A, as 2 * sum(log(L_jj)) of its
 * Cholesky factor L (lower triangle of A read); work holds n*n doubles. */
#define LOGDET(NAME, T)                                                                            \
    static inline int NAME(const T* restrict a, int64_t n, int64_t a_cols, int64_t batch,           \
                           double* restrict work, T* restrict out)                                  \
    {                                                                                               \
        (void)a_cols;                                                                               \
        for (int64_t s = 0; s < batch; s++, a += n * n) {                                           \
            double logs = 0.0;                                                                      \
            for (int64_t j = 0; j < n; j++) {                                                       \
                double d = (double)a[j * n + j];                                                    \
                for (int64_t q = 0; q < j; q++) {                                                   \
                    d -= work[j * n + q] * work[j * n + q];                                         \
                }                                                                                   \
                if (!(d > 0)) {                                                                     \
                    return 1;                                                                       \
                }                                                                                   \
                work[j * n + j] = sqrt(d);                                                          \
                for (int64_t i = j + 1; i < n; i++) {                                               \
                    double t = (double)a[i * n + j];                                                \
                    for (int64_t q = 0; q < j; q++) {                                               \
                        t -= work[i * n + q] * work[j * n + q];                                     \
                    }                                                                               \
                    work[i * n + j] = t / work[j * n + j];                                          \
                }                                                                                   \
                logs += log(work[j * n + j]);                                                       \
            }                                                                                       \
            out[s] = (T)(2.0 * logs);                                                               \
        }                                                                                           \
        return 0;                                                                                   \
    }
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "solve_f32"
#pragma IMAGINET_DEPENDENCY "factor.h:factor_steps"
SOLVE(solve_f32, float)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "solve_f64"
#pragma IMAGINET_DEPENDENCY "factor.h:factor_steps"
SOLVE(solve_f64, double)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "inverse_f32"
#pragma IMAGINET_DEPENDENCY "factor.h:factor_steps"
INVERSE(inverse_f32, float)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "inverse_f64"
#pragma IMAGINET_DEPENDENCY "factor.h:factor_steps"
INVERSE(inverse_f64, double)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "determinant_f32"
#pragma IMAGINET_DEPENDENCY "factor.h:factor_steps"
DETERMINANT(determinant_f32, float)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "determinant_f64"
#pragma IMAGINET_DEPENDENCY "factor.h:factor_steps"
DETERMINANT(determinant_f64, double)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "logdet_f32"
#pragma IMAGINET_DEPENDENCY "factor.h:factor_steps"
LOGDET(logdet_f32, float)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "logdet_f64"
#pragma IMAGINET_DEPENDENCY "factor.h:factor_steps"
LOGDET(logdet_f64, double)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "lu_f32"
#pragma IMAGINET_DEPENDENCY "factor.h:factor_steps"
LU(lu_f32, float)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "lu_f64"
#pragma IMAGINET_DEPENDENCY "factor.h:factor_steps"
LU(lu_f64, double)
#pragma IMAGINET_FRAGMENT_END
