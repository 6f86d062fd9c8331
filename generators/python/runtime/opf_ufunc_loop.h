/* The inner loop of the package's NumPy ufuncs (ADR 0073): a ufunc hands its loop n elements of
 * each operand, each with its own step in bytes. opforge's kernels take contiguous arrays, so the
 * loop runs the kernel on the operands where they are contiguous and, where not (a broadcast
 * operand's step is 0, a view's is larger), on a copy in a block on the stack. */
#ifndef OPF_UFUNC_LOOP_H
#define OPF_UFUNC_LOOP_H

#include <fenv.h>
#include <stdint.h>
#include <string.h>

/* A block's kernel in a clone per vector extension where GCC dispatches at run time (an ifunc,
 * resolved once at load): the wheel stays portable, the loop as wide as the CPU it runs on. The
 * library and the clones add no fused multiply-add (-ffp-contract=off; AVX2 is not FMA), so each
 * clone gives the same bits. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define OPF_UFUNC_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define OPF_UFUNC_CLONES
#endif

/* Elements a block holds: 16 KB of float64 at most over four operands. */
#define OPF_UFUNC_BLOCK 512
#define OPF_UFUNC_MAX_OPERANDS 4

/* A kernel over n contiguous elements of each operand (inputs, then the output). */
typedef void (*opf_ufunc_kernel)(char* const* operands, int64_t n);

/* Copies m elements of `size` bytes from `step` bytes apart to `step_to` bytes apart, each copy
 * of a constant size (a move the compiler inlines, not a call per element). */
static void opf_ufunc_copy(char* to, intptr_t step_to, const char* from, intptr_t step, int64_t m, int size)
{
#define OPF_UFUNC_COPY(BYTES)                                                                     \
    for (int64_t i = 0; i < m; i++) {                                                             \
        memcpy(to + i * (int64_t)step_to, from + i * (int64_t)step, BYTES);                       \
    }
    switch (size) {
    case 1:
        OPF_UFUNC_COPY(1)
        break;
    case 2:
        OPF_UFUNC_COPY(2)
        break;
    case 4:
        OPF_UFUNC_COPY(4)
        break;
    default:
        OPF_UFUNC_COPY(8)
        break;
    }
#undef OPF_UFUNC_COPY
}

/* Fills m elements of `size` bytes with the one at `from`, doubling what is filled. */
static void opf_ufunc_fill(char* to, const char* from, int64_t m, int size)
{
    const int64_t bytes = m * size;
    memcpy(to, from, (size_t)size);
    for (int64_t filled = size; filled < bytes; filled *= 2) {
        memcpy(to + filled, to, (size_t)(filled < bytes - filled ? filled : bytes - filled));
    }
}

static void opf_ufunc_loop(char** args, int64_t n, const intptr_t* steps, int count, const int* sizes,
                           opf_ufunc_kernel kernel)
{
    const int last = count - 1;
    char* at[OPF_UFUNC_MAX_OPERANDS];
    int contiguous = 1;
    for (int k = 0; k < count; k++) {
        contiguous &= steps[k] == sizes[k];
    }
    if (contiguous) {
        kernel(args, n);
    } else if (steps[last] == 0) {
        /* An output of step 0 is a reduction's (ufunc.reduce): its first input is that output, each
         * element read after the last one's result is written, so one element at a time. */
        for (int64_t i = 0; i < n; i++) {
            for (int k = 0; k < count; k++) {
                at[k] = args[k] + i * (int64_t)steps[k];
            }
            kernel(at, 1);
        }
    } else {
        /* 16-byte aligned blocks, one per operand that is not contiguous. */
        double blocks[OPF_UFUNC_MAX_OPERANDS][OPF_UFUNC_BLOCK];
        for (int64_t done = 0; done < n; done += OPF_UFUNC_BLOCK) {
            const int64_t m = n - done < OPF_UFUNC_BLOCK ? n - done : OPF_UFUNC_BLOCK;
            for (int k = 0; k < count; k++) {
                char* first = args[k] + done * (int64_t)steps[k];
                if (steps[k] == sizes[k]) {
                    at[k] = first;
                    continue;
                }
                at[k] = (char*)blocks[k];
                if (k == last) {
                    continue;
                }
                if (steps[k] == 0) { /* a broadcast input: one value, filled once (the kernel only reads it) */
                    if (done == 0) {
                        opf_ufunc_fill(at[k], first, n < OPF_UFUNC_BLOCK ? n : OPF_UFUNC_BLOCK, sizes[k]);
                    }
                } else { /* a strided one: gathered */
                    opf_ufunc_copy(at[k], sizes[k], first, steps[k], m, sizes[k]);
                }
            }
            kernel(at, m);
            if (steps[last] != sizes[last]) { /* the output: scattered */
                opf_ufunc_copy(args[last] + done * (int64_t)steps[last], steps[last], at[last], sizes[last], m,
                               sizes[last]);
            }
        }
    }
    /* The C API raises no floating-point warning (x / 0 is inf there, quietly); NumPy reads the
     * flags after a loop, so the loop leaves none. */
    feclearexcept(FE_ALL_EXCEPT);
}

#endif
