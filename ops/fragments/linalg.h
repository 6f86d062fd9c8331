/* Hand-written matrix kernels (Imaginet fragments), one per dtype.
 * Matrices are row-major in the last two axes; `batch` matrices follow each
 * other. Sums are kept in double and each result element is rounded to T as
 * it is stored (the Python fragments do the same, in the same order).
 * A kernel returns 0, or 1 when the input has no result (named by the op).
 * No kernel needs memory beyond its output. */
#pragma IMAGINET_INCLUDES_BEGIN
#include <math.h>
#include <stdint.h>
#pragma IMAGINET_INCLUDES_END

#pragma IMAGINET_FRAGMENT_BEGIN "linalg_bodies"
/* Cholesky factor L (lower, the rest 0) with A = L L^T; fails unless A is positive definite. */
#define CHOLESKY(NAME, T)                                                                          \
    static inline int NAME(const T* restrict a, int64_t rows, int64_t cols, int64_t batch,          \
                           T* restrict l)                                                           \
    {                                                                                               \
        const int64_t n = rows;                                                                     \
        (void)cols;                                                                                 \
        for (int64_t b = 0; b < batch; b++, a += n * n, l += n * n) {                               \
            for (int64_t i = 0; i < n * n; i++) {                                                   \
                l[i] = 0;                                                                           \
            }                                                                                       \
            for (int64_t j = 0; j < n; j++) {                                                       \
                double d = (double)a[j * n + j];                                                    \
                for (int64_t k = 0; k < j; k++) {                                                   \
                    d -= (double)l[j * n + k] * (double)l[j * n + k];                               \
                }                                                                                   \
                if (!(d > 0)) {                                                                     \
                    return 1;                                                                       \
                }                                                                                   \
                l[j * n + j] = (T)sqrt(d);                                                          \
                for (int64_t i = j + 1; i < n; i++) {                                               \
                    double s = (double)a[i * n + j];                                                \
                    for (int64_t k = 0; k < j; k++) {                                               \
                        s -= (double)l[i * n + k] * (double)l[j * n + k];                           \
                    }                                                                               \
                    l[i * n + j] = (T)(s / (double)l[j * n + j]);                                   \
                }                                                                                   \
            }                                                                                       \
        }                                                                                           \
        return 0;                                                                                   \
    }

/* Keeps the band lower <= i - j, j - i <= upper (a negative bound keeps that whole triangle). */
#define BAND_PART(NAME, T)                                                                         \
    static inline int NAME(const T* restrict a, int64_t rows, int64_t cols, int64_t batch,          \
                           int64_t lower, int64_t upper, T* restrict out)                           \
    {                                                                                               \
        for (int64_t b = 0; b < batch; b++) {                                                       \
            for (int64_t i = 0; i < rows; i++) {                                                    \
                for (int64_t j = 0; j < cols; j++) {                                                \
                    const int64_t at = (b * rows + i) * cols + j;                                   \
                    const int keep = (lower < 0 || i - j <= lower) && (upper < 0 || j - i <= upper); \
                    out[at] = keep ? a[at] : (T)0;                                                  \
                }                                                                                   \
            }                                                                                       \
        }                                                                                           \
        return 0;                                                                                   \
    }

/* Keeps the elements on and above the k-th diagonal (j - i >= k). */
#define TRIU(NAME, T)                                                                              \
    static inline int NAME(const T* restrict a, int64_t rows, int64_t cols, int64_t batch,          \
                           int64_t k, T* restrict out)                                              \
    {                                                                                               \
        for (int64_t b = 0; b < batch; b++) {                                                       \
            for (int64_t i = 0; i < rows; i++) {                                                    \
                for (int64_t j = 0; j < cols; j++) {                                                \
                    const int64_t at = (b * rows + i) * cols + j;                                   \
                    out[at] = j - i >= k ? a[at] : (T)0;                                            \
                }                                                                                   \
            }                                                                                       \
        }                                                                                           \
        return 0;                                                                                   \
    }

/* Solves op(A) X = B by substitution, A triangular (only its lower or upper
 * triangle is read), op(A) = A^T when adjoint. A zero on the diagonal gives
 * infinities or NaN, as IEEE division does. */
#define TRIANGULAR_SOLVE(NAME, T)                                                                  \
    static inline int NAME(const T* restrict a, int64_t n, int64_t a_cols, const T* restrict rhs,   \
                           int64_t rhs_rows, int64_t k, int64_t batch, int lower, int adjoint,      \
                           T* restrict x)                                                           \
    {                                                                                               \
        (void)a_cols;                                                                               \
        (void)rhs_rows;                                                                             \
        /* Forward substitution for L X = B and U^T X = B, backward for the other two. */           \
        const int forward = lower != adjoint;                                                       \
        for (int64_t b = 0; b < batch; b++, a += n * n, rhs += n * k, x += n * k) {                 \
            for (int64_t step = 0; step < n; step++) {                                              \
                const int64_t i = forward ? step : n - 1 - step;                                    \
                for (int64_t c = 0; c < k; c++) {                                                   \
                    double s = (double)rhs[i * k + c];                                              \
                    for (int64_t q = 0; q < step; q++) {                                            \
                        const int64_t m = forward ? q : n - 1 - q;                                  \
                        const T coef = adjoint ? a[m * n + i] : a[i * n + m];                       \
                        s -= (double)coef * (double)x[m * k + c];                                   \
                    }                                                                               \
                    x[i * k + c] = (T)(s / (double)a[i * n + i]);                                   \
                }                                                                                   \
            }                                                                                       \
        }                                                                                           \
        return 0;                                                                                   \
    }
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cholesky_f32"
#pragma IMAGINET_DEPENDENCY "linalg.h:linalg_bodies"
CHOLESKY(cholesky_f32, float)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "cholesky_f64"
#pragma IMAGINET_DEPENDENCY "linalg.h:linalg_bodies"
CHOLESKY(cholesky_f64, double)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "band_part_f32"
#pragma IMAGINET_DEPENDENCY "linalg.h:linalg_bodies"
BAND_PART(band_part_f32, float)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "band_part_f64"
#pragma IMAGINET_DEPENDENCY "linalg.h:linalg_bodies"
BAND_PART(band_part_f64, double)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "triu_f32"
#pragma IMAGINET_DEPENDENCY "linalg.h:linalg_bodies"
TRIU(triu_f32, float)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "triu_f64"
#pragma IMAGINET_DEPENDENCY "linalg.h:linalg_bodies"
TRIU(triu_f64, double)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "triangular_solve_f32"
#pragma IMAGINET_DEPENDENCY "linalg.h:linalg_bodies"
TRIANGULAR_SOLVE(triangular_solve_f32, float)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "triangular_solve_f64"
#pragma IMAGINET_DEPENDENCY "linalg.h:linalg_bodies"
TRIANGULAR_SOLVE(triangular_solve_f64, double)
#pragma IMAGINET_FRAGMENT_END
