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
 * exponentiated. Returns their sum: 0 when every score is -inf (no key to see). */
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

#pragma IMAGINET_FRAGMENT_BEGIN "attention_keys"
/* The first key query i sees; *end: one past its last. The query stands at position
 * p = i + offset among the keys: causal hides the keys after p, left >= 0 those more than
 * left before p, right >= 0 those more than right after p. */
static inline int64_t attention_keys(int64_t i, int64_t lk, int causal, int64_t offset, int64_t left,
                                     int64_t right, int64_t* end)
{
    const int64_t p = i + offset;
    int64_t first = 0, last = lk;
    if (causal && p + 1 < last) {
        last = p + 1;
    }
    if (right >= 0 && p + right + 1 < last) {
        last = p + right + 1;
    }
    if (left >= 0 && p - left > first) {
        first = p - left;
    }
    *end = last > first ? last : first;
    return first;
}
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "attention_scale"
/* The factor of every score: 1 / sqrt(d) when scaled (and d > 0), times scale_by. */
static inline double attention_scale(int64_t d, int scaled, double scale_by)
{
    return (scaled && d > 0 ? 1.0 / sqrt((double)d) : 1.0) * scale_by;
}
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "attention_body"
#pragma IMAGINET_DEPENDENCY "attention.h:attention_softmax"
#pragma IMAGINET_DEPENDENCY "attention.h:attention_keys"
#pragma IMAGINET_DEPENDENCY "attention.h:attention_scale"
/* Query i attends to the keys attention_keys gives it, with the weights of attention_softmax;
 * a query with no key to see gives zeros. Each score is q.k times 1/sqrt(d) when scaled, times
 * scale_by, then capped at +-softcap by softcap tanh(score / softcap) where softcap > 0, then
 * (mask not NULL: lq x lk matrices after each other) plus the mask, where a -inf leaves the
 * score unread (ONNX's scale, softcap and order). */
#define ATTENTION(NAME, T, LOAD, STORE)                                                             \
    /* One score: q.k (d values each) times scale, capped where softcap > 0. */                     \
    static inline double NAME##_score(const T* restrict q, const T* restrict k, int64_t d, double scale, \
                                      double softcap)                                               \
    {                                                                                               \
        double t = 0.0;                                                                             \
        for (int64_t c = 0; c < d; c++) {                                                           \
            t += LOAD(q[c]) * LOAD(k[c]);                                                           \
        }                                                                                           \
        t *= scale;                                                                                 \
        return softcap > 0.0 ? softcap * tanh(t / softcap) : t;                                     \
    }                                                                                               \
    static inline int NAME##_masked(const T* restrict q, int64_t lq, int64_t d, const T* restrict k, \
                                    int64_t lk, const T* restrict v, int64_t dv, const T* restrict mask, \
                                    int64_t batch, int scaled, int causal, double scale_by,         \
                                    double softcap, int64_t offset, int64_t left, int64_t right,    \
                                    double* restrict work, T* restrict out)                         \
    {                                                                                               \
        const double scale = attention_scale(d, scaled, scale_by);                                  \
        for (int64_t s = 0; s < batch; s++, q += lq * d, k += lk * d, v += lk * dv, out += lq * dv) { \
            for (int64_t i = 0; i < lq; i++) {                                                      \
                int64_t end;                                                                        \
                const int64_t first = attention_keys(i, lk, causal, offset, left, right, &end);     \
                const T* row = mask != NULL ? mask + (s * lq + i) * lk : NULL;                      \
                for (int64_t j = first; j < end; j++) {                                             \
                    const double bias = row != NULL ? LOAD(row[j]) : 0.0;                           \
                    if (bias == -INFINITY) {                                                        \
                        work[j - first] = -INFINITY;                                                \
                        continue;                                                                   \
                    }                                                                               \
                    work[j - first] = NAME##_score(q + i * d, k + j * d, d, scale, softcap) + bias;  \
                }                                                                                   \
                const double sum = attention_softmax(work, end - first);                            \
                for (int64_t c = 0; c < dv; c++) {                                                  \
                    double t = 0.0;                                                                 \
                    for (int64_t j = first; j < end; j++) {                                         \
                        t += work[j - first] * LOAD(v[j * dv + c]);                                 \
                    }                                                                               \
                    out[i * dv + c] = STORE(sum != 0.0 ? t / sum : 0.0);                            \
                }                                                                                   \
            }                                                                                       \
        }                                                                                           \
        return 0;                                                                                   \
    }                                                                                               \
    static inline int NAME(const T* restrict q, int64_t lq, int64_t d, const T* restrict k,         \
                           int64_t lk, int64_t k_cols, const T* restrict v, int64_t v_rows,         \
                           int64_t dv, int64_t batch, int scaled, int causal, double scale_by,      \
                           double softcap, int64_t offset, int64_t left, int64_t right,             \
                           double* restrict work, T* restrict out)                                  \
    {                                                                                               \
        (void)k_cols;                                                                               \
        (void)v_rows;                                                                               \
        return NAME##_masked(q, lq, d, k, lk, v, dv, NULL, batch, scaled, causal, scale_by, softcap, \
                             offset, left, right, work, out);                                       \
    }
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "attention_f32"
#pragma IMAGINET_DEPENDENCY "attention.h:attention_body"
#define ATTENTION_LOAD(x) ((double)(x))
#define ATTENTION_STORE_F32(x) ((float)(x))
ATTENTION(attention_f32, float, ATTENTION_LOAD, ATTENTION_STORE_F32)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "attention_f64"
#pragma IMAGINET_DEPENDENCY "attention.h:attention_body"
#define ATTENTION_IDENTITY(x) (x)
ATTENTION(attention_f64, double, ATTENTION_IDENTITY, ATTENTION_IDENTITY)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "attention_f16"
#pragma IMAGINET_DEPENDENCY "attention.h:attention_body"
/* Halves (their bits, ADR 0075) read as their floats, each result rounded to a half once. */
#define ATTENTION_LOAD_F16(x) ((double)opf_f16_to_f32(x))
ATTENTION(attention_f16, uint16_t, ATTENTION_LOAD_F16, opf_f64_to_f16)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "masked_attention_body"
#pragma IMAGINET_DEPENDENCY "attention.h:attention_body"
/* attention with an additive mask (lq x lk per batch, after the values). */
#define MASKED_ATTENTION(NAME, BASE, T)                                                             \
    static inline int NAME(const T* restrict q, int64_t lq, int64_t d, const T* restrict k,         \
                           int64_t lk, int64_t k_cols, const T* restrict v, int64_t v_rows,         \
                           int64_t dv, const T* restrict mask, int64_t mask_rows,                   \
                           int64_t mask_cols, int64_t batch, int scaled, int causal,                \
                           double scale_by, double softcap, int64_t offset, int64_t left,           \
                           int64_t right, double* restrict work, T* restrict out)                   \
    {                                                                                               \
        (void)k_cols;                                                                               \
        (void)v_rows;                                                                               \
        (void)mask_rows;                                                                            \
        (void)mask_cols;                                                                            \
        return BASE##_masked(q, lq, d, k, lk, v, dv, mask, batch, scaled, causal, scale_by, softcap, \
                             offset, left, right, work, out);                                       \
    }
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "masked_attention_f32"
#pragma IMAGINET_DEPENDENCY "attention.h:masked_attention_body"
#pragma IMAGINET_DEPENDENCY "attention.h:attention_f32"
MASKED_ATTENTION(masked_attention_f32, attention_f32, float)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "masked_attention_f64"
#pragma IMAGINET_DEPENDENCY "attention.h:masked_attention_body"
#pragma IMAGINET_DEPENDENCY "attention.h:attention_f64"
MASKED_ATTENTION(masked_attention_f64, attention_f64, double)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "masked_attention_f16"
#pragma IMAGINET_DEPENDENCY "attention.h:masked_attention_body"
#pragma IMAGINET_DEPENDENCY "attention.h:attention_f16"
MASKED_ATTENTION(masked_attention_f16, attention_f16, uint16_t)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "multi_head_body"
#pragma IMAGINET_DEPENDENCY "attention.h:attention_softmax"
#pragma IMAGINET_DEPENDENCY "attention.h:attention_scale"
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
        const double scale = attention_scale(dk, scaled, 1.0);                                      \
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
                        joined[i * hdv + h * dv + c] = sum != 0.0 ? t / sum : 0.0;                 \
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

#pragma IMAGINET_FRAGMENT_BEGIN "attention_scores_body"
#pragma IMAGINET_DEPENDENCY "attention.h:attention_body"
/* The lq x lk scores of masked attention at a stage (ONNX's qk_matmul_output modes): 0, the
 * attention's score (BASE's) uncapped; 1, capped as attention caps them; 2, then
 * plus the mask where the query sees the key (attention_keys), else -inf; 3, their softmax,
 * as attention weighs the values: a key masked by -inf weighs 0 (its score unread), a query
 * that sees no key weighs every key 0. work: lk doubles. */
#define ATTENTION_SCORES(NAME, BASE, T, LOAD, STORE)                                                \
    static inline int NAME(const T* restrict q, int64_t lq, int64_t d, const T* restrict k,         \
                           int64_t lk, int64_t k_cols, const T* restrict mask, int64_t mask_rows,   \
                           int64_t mask_cols, int64_t batch, int scaled, int causal,                \
                           double scale_by, double softcap, int64_t offset, int64_t left,           \
                           int64_t right, int stage, double* restrict work, T* restrict out)        \
    {                                                                                               \
        (void)k_cols;                                                                               \
        (void)mask_rows;                                                                            \
        (void)mask_cols;                                                                            \
        const double scale = attention_scale(d, scaled, scale_by);                                  \
        for (int64_t s = 0; s < batch; s++, q += lq * d, k += lk * d, mask += lq * lk, out += lq * lk) { \
            for (int64_t i = 0; i < lq; i++) {                                                      \
                int64_t end;                                                                        \
                const int64_t first = attention_keys(i, lk, causal, offset, left, right, &end);     \
                for (int64_t j = 0; j < lk; j++) {                                                  \
                    const double bias = LOAD(mask[i * lk + j]);                                     \
                    const int seen = j >= first && j < end;                                         \
                    if (stage == 3 && (!seen || bias == -INFINITY)) {                               \
                        work[j] = -INFINITY;                                                        \
                        continue;                                                                   \
                    }                                                                               \
                    const double cap = stage >= 1 ? softcap : 0.0;                                  \
                    const double t = BASE##_score(q + i * d, k + j * d, d, scale, cap);             \
                    work[j] = stage < 2 ? t : seen ? t + bias : -INFINITY;                          \
                }                                                                                   \
                const double sum = stage == 3 ? attention_softmax(work, lk) : 1.0;                  \
                for (int64_t j = 0; j < lk; j++) {                                                  \
                    out[i * lk + j] = STORE(stage < 3 ? work[j] : sum != 0.0 ? work[j] / sum : 0.0); \
                }                                                                                   \
            }                                                                                       \
        }                                                                                           \
        return 0;                                                                                   \
    }
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "attention_scores_f32"
#pragma IMAGINET_DEPENDENCY "attention.h:attention_scores_body"
#pragma IMAGINET_DEPENDENCY "attention.h:attention_f32"
ATTENTION_SCORES(attention_scores_f32, attention_f32, float, ATTENTION_LOAD, ATTENTION_STORE_F32)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "attention_scores_f64"
#pragma IMAGINET_DEPENDENCY "attention.h:attention_scores_body"
#pragma IMAGINET_DEPENDENCY "attention.h:attention_f64"
ATTENTION_SCORES(attention_scores_f64, attention_f64, double, ATTENTION_IDENTITY, ATTENTION_IDENTITY)
#pragma IMAGINET_FRAGMENT_END

#pragma IMAGINET_FRAGMENT_BEGIN "attention_scores_f16"
#pragma IMAGINET_DEPENDENCY "attention.h:attention_scores_body"
#pragma IMAGINET_DEPENDENCY "attention.h:attention_f16"
ATTENTION_SCORES(attention_scores_f16, attention_f16, uint16_t, ATTENTION_LOAD_F16, opf_f64_to_f16)
#pragma IMAGINET_FRAGMENT_END
