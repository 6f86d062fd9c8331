/* Scaled dot-product attention (Imaginet fragments), one per dtype. Queries
 * (lq x d), keys (lk x d) and values (lk x dv) are row-major matrices in the
 * last two axes; `batch` triples follow each other. Scores, their softmax and
 * the weighted sums are in double, in a fixed order that the Python fragment
 * repeats; `work` holds the lk scores of one query. */
#pragma IMAGINET_INCLUDES_BEGIN
#include <math.h>
#include <stdint.h>
#pragma IMAGINET_INCLUDES_END

#pragma IMAGINET_FRAGMENT_BEGIN "attention_body"
/* Query i attends to keys 0..lk-1, or to keys 0..i when causal. The softmax is
 * shifted by the largest score (0 when that is infinite, as softmax does); a
 * NaN score makes the row NaN; a query with no key gives zeros. */
#define ATTENTION(NAME, T)                                                                         \
    static inline int NAME(const T* restrict q, int64_t lq, int64_t d, const T* restrict k,         \
                           int64_t lk, int64_t k_cols, const T* restrict v, int64_t v_rows,         \
                           int64_t dv, int64_t batch, int scaled, int causal,                       \
                           double* restrict work, T* restrict out)                                  \
    {                                                                                               \
        (void)k_cols;                                                                               \
        (void)v_rows;                                                                               \
        const double scale = scaled && d > 0 ? 1.0 / sqrt((double)d) : 1.0;                         \
        for (int64_t s = 0; s < batch; s++, q += lq * d, k += lk * d, v += lk * dv, out += lq * dv) { \
            for (int64_t i = 0; i < lq; i++) {                                                      \
                const int64_t keys = causal && i + 1 < lk ? i + 1 : lk;                             \
                double m = -INFINITY;                                                               \
                for (int64_t j = 0; j < keys; j++) {                                                \
                    double t = 0.0;                                                                 \
                    for (int64_t c = 0; c < d; c++) {                                               \
                        t += (double)q[i * d + c] * (double)k[j * d + c];                           \
                    }                                                                               \
                    work[j] = t * scale;                                                            \
                    if (work[j] > m || isnan(work[j])) {                                            \
                        m = work[j];                                                                \
                    }                                                                               \
                }                                                                                   \
                if (isinf(m)) {                                                                     \
                    m = 0.0;                                                                        \
                }                                                                                   \
                double sum = 0.0;                                                                   \
                for (int64_t j = 0; j < keys; j++) {                                                \
                    work[j] = exp(work[j] - m);                                                     \
                    sum += work[j];                                                                 \
                }                                                                                   \
                for (int64_t c = 0; c < dv; c++) {                                                  \
                    double t = 0.0;                                                                 \
                    for (int64_t j = 0; j < keys; j++) {                                            \
                        t += work[j] * (double)v[j * dv + c];                                       \
                    }                                                                               \
                    out[i * dv + c] = (T)(keys > 0 ? t / sum : 0.0);                                \
                }                                                                                   \
            }                                                                                       \
        }                                                                                           \
        return 0;                                                                                   \
    }
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "attention_f32"
#pragma IMAGINET_DEPENDENCY "attention.h:attention_body"
ATTENTION(attention_f32, float)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "attention_f64"
#pragma IMAGINET_DEPENDENCY "attention.h:attention_body"
ATTENTION(attention_f64, double)
#pragma IMAGINET_FRAGMENT_END
