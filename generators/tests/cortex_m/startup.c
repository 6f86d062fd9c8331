/* Start-up of the test firmware for a Cortex-M4 with hard float under QEMU's mps2-an386
 * board: the vector table, the FPU switched on, .data and .bss set up, main run, and its
 * status handed back through semihosting; what printf writes (the units' comparison tests
 * report with it) goes out through semihosting too. Nothing here allocates. */
#include <stddef.h>
#include <stdint.h>

extern uint32_t __stack_top, __data_load, __data_start, __data_end, __bss_start, __bss_end;
extern int main(void);

void opf_reset(void);
void opf_fault(void);
void opf_semihost_say(const char* text);

#define SYS_WRITE0 0x04
#define SYS_EXIT_EXTENDED 0x20
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u

/* An ARM semihosting call: the operation in r0, its argument in r1, the answer in r0. */
static uint32_t semihost(uint32_t operation, const void* argument)
{
    register uint32_t r0 __asm__("r0") = operation;
    register const void* r1 __asm__("r1") = argument;
    __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

void opf_semihost_say(const char* text)
{
    semihost(SYS_WRITE0, text);
}

/* newlib's write: what printf writes, through SYS_WRITE0 a piece at a time. */
int _write(int file, const char* data, int length);
int _write(int file, const char* data, int length)
{
    char piece[65];
    (void)file;
    for (int done = 0; done < length;) {
        const int n = length - done < 64 ? length - done : 64;
        for (int i = 0; i < n; i++) {
            piece[i] = data[done + i];
        }
        piece[n] = 0;
        opf_semihost_say(piece);
        done += n;
    }
    return length;
}

static void opf_exit(int status)
{
    const uint32_t block[2] = {ADP_STOPPED_APPLICATION_EXIT, (uint32_t)status};
    semihost(SYS_EXIT_EXTENDED, block);
    for (;;) {
    }
}

#define HANDLER(f) ((uintptr_t)(f))
__attribute__((section(".vectors"), used)) static const uintptr_t vectors[16] = {
    (uintptr_t)&__stack_top, HANDLER(opf_reset), HANDLER(opf_fault), HANDLER(opf_fault),
    HANDLER(opf_fault),      HANDLER(opf_fault), HANDLER(opf_fault), 0,
    0,                       0,                  0,                  HANDLER(opf_fault),
    HANDLER(opf_fault),      0,                  HANDLER(opf_fault), HANDLER(opf_fault),
};

void opf_reset(void)
{
    volatile uint32_t* const cpacr = (volatile uint32_t*)0xE000ED88u;
    *cpacr |= 0xFu << 20; /* CP10 and CP11 (the FPU), before any float instruction */
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    const uint32_t* from = &__data_load;
    for (uint32_t* to = &__data_start; to < &__data_end;) {
        *to++ = *from++;
    }
    for (uint32_t* to = &__bss_start; to < &__bss_end;) {
        *to++ = 0;
    }
    opf_exit(main());
}

/* A fault (a bad access, an undefined instruction) ends the run with a status of its own. */
void opf_fault(void)
{
    opf_semihost_say("FAULT\n");
    opf_exit(99);
}
