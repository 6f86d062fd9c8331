/* Scaled dot-product attention (Imaginet fragments), one per dtype. Queries
 * (lq x d), keys (lk x d) and values (lk x dv) are row-major matrices in the
 * last two axes; `batch` triples follow each other. Scores, their softmax and
 * the weighted sums are in double, in a fixed order that the Python fragments
 * repeat up to rounding; `work` holds the lk scores of one query (and, for
 * several heads, the projections). */
#pragma IMAGINET_INCLUDES_BEGIN
#include <math.h>
#include <stdint.h>
#pragma IMAGINET_INCLUDES_END

#pragma IMAGINET_FRAGMENT_BEGIN "attention_softmax"
/* The softmax weights of one query, in place: scores[0..keys) shifted by the largest
 * (0 when that is infinite, as softmax does; a NaN score makes them all NaN) and
 * exponentiated. Returns their sum. */
static inline double attention_softmax(double* scores, int64_t keys)
{
    double m = -INFINITY;
    for (int64_t j = 0; j < keys; j++) {
        if (scores[j] > m || isnan(scores[j])) {
            m = scores[j];
        }
    }
    if (isinf(m)) {
        m = 0.0;
    }
    double sum = 0.0;
    for (int64_t j = 0; j < keys; j++) {
        scores[j] = exp(scores[j] - m);
        sum += scores[j];
    }
    return sum;
}
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "attention_body"
#pragma IMAGINET_DEPENDENCY "attention.h:attention_softmax"
/* Query i attends to keys 0..lk-1, or to keys 0..i when causal, with the weights of
 * attention_softmax; a query with no key gives zeros. Each score is q.k times 1/sqrt(d) when
 * scaled, times scale_by, then capped at +-softcap by softcap tanh(score / softcap) where
 * softcap > 0 (ONNX's scale and softcap). */
#define ATTENTION(NAME, T)                                                                          \
    static inline int NAME(const T* restrict q, int64_t lq, int64_t d, const T* restrict k,         \
                           int64_t lk, int64_t k_cols, const T* restrict v, int64_t v_rows,         \
                           int64_t dv, int64_t batch, int scaled, int causal, double scale_by,      \
                           double softcap, double* restrict work, T* restrict out)                  \
    {                                                                                               \
        (void)k_cols;                                                                               \
        (void)v_rows;                                                                               \
        const double scale = (scaled && d > 0 ? 1.0 / sqrt((double)d) : 1.0) * scale_by;            \
        for (int64_t s = 0; s < batch; s++, q += lq * d, k += lk * d, v += lk * dv, out += lq * dv) { \
            for (int64_t i = 0; i < lq; i++) {                                                      \
                const int64_t keys = causal && i + 1 < lk ? i + 1 : lk;                             \
                for (int64_t j = 0; j < keys; j++) {                                                \
                    double t = 0.0;                                                                 \
                    for (int64_t c = 0; c < d; c++) {                                               \
                        t += (double)q[i * d + c] * (double)k[j * d + c];                           \
                    }                                                                               \
                    work[j] = softcap > 0.0 ? softcap * tanh(t * scale / softcap) : t * scale;      \
                }                                                                                   \
                const double sum = attention_softmax(work, keys);                                   \
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

#pragma IMAGINET_FRAGMENT_BEGIN "multi_head_body"
#pragma IMAGINET_DEPENDENCY "attention.h:attention_softmax"
/* Per batch: qp = q wq (lq x hdk), kp = k wk (lk x hdk), vp = v wv (lk x hdv); head h
 * attends with columns h dk.. of qp and kp (dk = hdk / heads) to columns h dv.. of vp,
 * with the weights of attention_softmax, into columns h dv.. of joined (lq x hdv); out = joined wo. work
 * holds qp, kp, vp, joined and lk scores: (lq + lk) hdk + (lk + lq) hdv + lk doubles. */
#define MULTI_HEAD(NAME, T)                                                                         \
    /* out (rows x width) = x (rows x cols) w (cols x width), summed in double in order. */         \
    static inline void NAME##_project(const T* restrict x, int64_t rows, int64_t cols,              \
                                      const T* restrict w, int64_t width, double* restrict out)     \
    {                                                                                               \
        for (int64_t r = 0; r < rows; r++) {                                                        \
            for (int64_t c = 0; c < width; c++) {                                                   \
                double t = 0.0;                                                                     \
                for (int64_t e = 0; e < cols; e++) {                                                \
                    t += (double)x[r * cols + e] * (double)w[e * width + c];                        \
                }                                                                                   \
                out[r * width + c] = t;                                                             \
            }                                                                                       \
        }                                                                                           \
    }                                                                                               \
    static inline int NAME(const T* restrict q, int64_t lq, int64_t dm, const T* restrict k,        \
                           int64_t lk, int64_t k_cols, const T* restrict v, int64_t v_rows,         \
                           int64_t dmv, const T* restrict wq, int64_t wq_rows, int64_t hdk,         \
                           const T* restrict wk, int64_t wk_rows, int64_t wk_cols,                  \
                           const T* restrict wv, int64_t wv_rows, int64_t hdv,                      \
                           const T* restrict wo, int64_t wo_rows, int64_t dout, int64_t batch,      \
                           int64_t heads, int scaled, int causal, double* restrict work,            \
                           T* restrict out)                                                         \
    {                                                                                               \
        (void)k_cols;                                                                               \
        (void)v_rows;                                                                               \
        (void)wq_rows;                                                                              \
        (void)wk_rows;                                                                              \
        (void)wk_cols;                                                                              \
        (void)wv_rows;                                                                              \
        (void)wo_rows;                                                                              \
        const int64_t dk = hdk / heads, dv = hdv / heads;                                           \
        const double scale = scaled && dk > 0 ? 1.0 / sqrt((double)dk) : 1.0;                       \
        double* qp = work;                                                                          \
        double* kp = qp + lq * hdk;                                                                 \
        double* vp = kp + lk * hdk;                                                                 \
        double* joined = vp + lk * hdv;                                                             \
        double* scores = joined + lq * hdv;                                                         \
        for (int64_t s = 0; s < batch; s++, q += lq * dm, k += lk * dm, v += lk * dmv, out += lq * dout) { \
            NAME##_project(q, lq, dm, wq, hdk, qp);                                                 \
            NAME##_project(k, lk, dm, wk, hdk, kp);                                                 \
            NAME##_project(v, lk, dmv, wv, hdv, vp);                                                \
            for (int64_t h = 0; h < heads; h++) {                                                   \
                for (int64_t i = 0; i < lq; i++) {                                                  \
                    const int64_t keys = causal && i + 1 < lk ? i + 1 : lk;                         \
                    for (int64_t j = 0; j < keys; j++) {                                            \
                        double t = 0.0;                                                             \
                        for (int64_t c = 0; c < dk; c++) {                                          \
                            t += qp[i * hdk + h * dk + c] * kp[j * hdk + h * dk + c];               \
                        }                                                                           \
                        scores[j] = t * scale;                                                      \
                    }                                                                               \
                    const double sum = attention_softmax(scores, keys);                             \
                    for (int64_t c = 0; c < dv; c++) {                                              \
                        double t = 0.0;                                                             \
                        for (int64_t j = 0; j < keys; j++) {                                        \
                            t += scores[j] * vp[j * hdv + h * dv + c];                              \
                        }                                                                           \
                        joined[i * hdv + h * dv + c] = keys > 0 ? t / sum : 0.0;                    \
                    }                                                                               \
                }                                                                                   \
            }                                                                                       \
            for (int64_t i = 0; i < lq; i++) {                                                      \
                for (int64_t o = 0; o < dout; o++) {                                                \
                    double t = 0.0;                                                                 \
                    for (int64_t c = 0; c < hdv; c++) {                                             \
                        t += joined[i * hdv + c] * (double)wo[c * dout + o];                        \
                    }                                                                               \
                    out[i * dout + o] = (T)t;                                                       \
                }                                                                                   \
            }                                                                                       \
        }                                                                                           \
        return 0;                                                                                   \
    }
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "multi_head_f32"
#pragma IMAGINET_DEPENDENCY "attention.h:multi_head_body"
MULTI_HEAD(multi_head_f32, float)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "multi_head_f64"
#pragma IMAGINET_DEPENDENCY "attention.h:multi_head_body"
MULTI_HEAD(multi_head_f64, double)
#pragma IMAGINET_FRAGMENT_END
