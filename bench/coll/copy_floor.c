/*
 * The floor under a large on-node alltoall or fcollect: one process does
 * alone the copies one PE of an n-PE alltoall must do (its n blocks of
 * BYTES from its source into n destinations: its own dest and n - 1
 * peers'), with everything warm in the caches and nobody else touching
 * the lines.  No OpenSHMEM; what memcpy costs on this machine.
 *
 *   copy_floor [bytes] [npes] [iterations]      (default 32768 2 20000)
 *
 * Prints the best of five runs, in microseconds per alltoall's worth.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    size_t b = argc > 1 ? strtoul(argv[1], NULL, 0) : 32768;
    int n = argc > 2 ? atoi(argv[2]) : 2;
    long iters = argc > 3 ? atol(argv[3]) : 20000;
    if (b == 0 || n < 1 || iters < 1) {
        fprintf(stderr, "usage: copy_floor [bytes > 0] [npes > 0] [iterations > 0]\n");
        return 2;
    }
    char *src = aligned_alloc(64, (b * (size_t)n + 63) & ~(size_t)63);
    char **dst = malloc(sizeof *dst * (size_t)n);
    if (!src || !dst)
        return 1;
    memset(src, 1, b * (size_t)n);
    for (int p = 0; p < n; p++) {
        dst[p] = aligned_alloc(64, (b * (size_t)n + 63) & ~(size_t)63);
        if (!dst[p])
            return 1;
        memset(dst[p], 0, b * (size_t)n);
    }
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
        double t0 = now();
        for (long i = 0; i < iters; i++) {
            /* block p of this PE (PE 0) goes to slot 0 of PE p's dest */
            for (int p = 0; p < n; p++)
                memcpy(dst[p], src + (size_t)p * b, b);
            __asm__ __volatile__("" : : "r"(dst) : "memory");
        }
        double t = (now() - t0) / (double)iters * 1e6;
        if (t < best)
            best = t;
    }
    printf("copies of one PE of a %d-PE alltoall of %zu-byte blocks: %.3f us\n", n, b, best);
    return 0;
}
