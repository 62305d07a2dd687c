/* Reads float32 bit patterns (hex, one per line) and prints the half and bfloat16 bit patterns
 * runtime/cuda_bench.h makes of them (test/oracle/half_check.py holds them against numpy and
 * ml_dtypes). Built and run by the cuda test group. */
#define _GNU_SOURCE
#include "../runtime/harness.h"
#include "../runtime/cuda_bench.h"

int main(void)
{
    unsigned bits;
    while (scanf("%x", &bits) == 1) {
        float f;
        memcpy(&f, &bits, 4);
        printf("%08x %04x %04x\n", bits, bc_f2h(f), bc_f2bf(f));
    }
    return 0;
}
