/*
 * Progress: PE 0 computes for SECONDS without calling the library while
 * every other PE does fetching AMOs, gets and puts on it.  All of them must
 * be answered while PE 0 is still computing (the transport's progress
 * thread serves them); the test fails if a PE's last answer came after PE 0
 * stopped computing.
 *
 *   ofi_busy [seconds] [amos per PE]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <shmem.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts); /* one clock for the whole node */
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t counter;
static uint64_t words[64];
static double t_end;        /* PE 0: when it stopped computing */
static double t_last[1024]; /* on PE 0: each PE's last answer */

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 3.0;
    long amos = argc > 2 ? atol(argv[2]) : 200;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (n < 2 || n > 1024) {
        shmem_finalize();
        return 77;
    }
    shmem_barrier_all();
    if (me == 0) {
        double t0 = now();
        volatile double x = 1.0;
        while (now() - t0 < seconds) /* no library call in here */
            for (int i = 0; i < 10000; i++)
                x = x * 1.0000001 + 1e-9;
        t_end = now();
    } else {
        double t0 = now(), last = 0;
        for (long i = 0; i < amos; i++) {
            shmem_uint64_atomic_fetch_add(&counter, 1, 0);
            uint64_t w = shmem_uint64_g(&words[me % 64], 0);
            shmem_uint64_p(&words[me % 64], w + 1, 0);
            shmem_quiet();
            last = now();
        }
        printf("PE %d: %ld fetch-adds, gets and puts on the busy PE 0 in %.3f s\n", me, amos,
               last - t0);
        shmem_double_p(&t_last[me], last, 0);
    }
    shmem_barrier_all();
    int rc = 0;
    if (me == 0) {
        uint64_t expect = (uint64_t)amos * (uint64_t)(n - 1);
        if (counter != expect) {
            printf("FAIL: counter %" PRIu64 ", expected %" PRIu64 "\n", counter, expect);
            rc = 1;
        }
        for (int p = 1; p < n; p++)
            if (t_last[p] > t_end) {
                printf("FAIL: PE %d's last answer came %.3f s after PE 0 stopped computing\n", p,
                       t_last[p] - t_end);
                rc = 1;
            }
        if (!rc)
            printf("ok: %d PEs were served while PE 0 computed for %.1f s\n", n - 1, seconds);
    }
    shmem_finalize();
    return rc;
}
