/* Philox4x32-10 (Salmon et al., SC'11), inline so a sampling loop can run it for
 * several elements at once (ADR 0027). Included by the core and the random helpers. */
#ifndef OPF_PHILOX_H
#define OPF_PHILOX_H

#include <stdint.h>

static inline void opf_philox_round(uint32_t ctr[4], const uint32_t key[2])
{
    const uint64_t p0 = (uint64_t)0xD2511F53u * ctr[0];
    const uint64_t p1 = (uint64_t)0xCD9E8D57u * ctr[2];
    const uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
    const uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
    const uint32_t c1 = ctr[1], c3 = ctr[3];
    ctr[0] = hi1 ^ c1 ^ key[0];
    ctr[1] = lo1;
    ctr[2] = hi0 ^ c3 ^ key[1];
    ctr[3] = lo0;
}

static inline void opf_philox(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4])
{
    uint32_t ctr[4] = {counter[0], counter[1], counter[2], counter[3]};
    uint32_t k[2] = {key[0], key[1]};
    for (int round = 0; round < 10; round++) {
        if (round > 0) {
            k[0] += 0x9E3779B9u;
            k[1] += 0xBB67AE85u;
        }
        opf_philox_round(ctr, k);
    }
    out[0] = ctr[0];
    out[1] = ctr[1];
    out[2] = ctr[2];
    out[3] = ctr[3];
}
#endif
