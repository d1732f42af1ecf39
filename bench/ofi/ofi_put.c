/*
 * 8-byte put + quiet latency and put_nbi message rate from PE 0 to PE 1,
 * through whatever transport is selected (run with SHMEM_TRANSPORT=ofi,
 * SHMEM_BYPASS=0 and FI_PROVIDER=... to measure the ofi plugin).  PE 1
 * waits in a barrier, which keeps serving.  Compare with raw_ofi_put, the
 * same loops on libfabric alone.
 *
 *   ofi_put [iterations] [window]
 *
 * Under valgrind --tool=callgrind --toggle-collect=put_quiet_loop (or
 * put_nbi_loop) it counts the instructions per put+quiet (or per put_nbi,
 * with a quiet per window): bench/ofi/icount_ofi.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <shmem.h>
#include <shmemx.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

__attribute__((noinline)) void put_quiet_loop(long *dst, long n)
{
    for (long i = 0; i < n; i++) {
        shmem_long_p(dst, i, 1);
        shmem_quiet();
    }
}

__attribute__((noinline)) void put_nbi_loop(long *dst, const long *src, long n, long window)
{
    for (long i = 0; i < n; i += window) {
        for (long j = 0; j < window; j++)
            shmem_putmem_nbi(dst + (j & 63), src, 8, 1);
        shmem_quiet();
    }
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 20000;
    long window = argc > 2 ? atol(argv[2]) : 256;
    shmem_init();
    long *dst = shmem_calloc(64, sizeof(long));
    static long src = 42;
    int me = shmem_my_pe();
    if (shmem_n_pes() < 2) {
        shmem_finalize();
        return 77;
    }
    shmem_barrier_all();
    if (me == 0) {
        put_quiet_loop(dst, iters / 10); /* warm up (connections) */
        double t0 = now();
        put_quiet_loop(dst, iters);
        double lat = (now() - t0) / (double)iters * 1e6;
        put_nbi_loop(dst, &src, window * 4, window);
        t0 = now();
        put_nbi_loop(dst, &src, iters * 4, window);
        double rate = (double)(iters * 4) / (now() - t0) / 1e6;
        printf("%-14s put8+quiet %8.3f us   put_nbi8 %8.3f Mmsg/s\n", shmemx_transport_name(),
               lat, rate);
    }
    shmem_barrier_all();
    shmem_free(dst);
    shmem_finalize();
    return 0;
}
