/*
 * Progress: PE 0 computes without calling the library while every other
 * PE does fetching AMOs, gets and puts on it, and then, its operations all
 * complete, adds one to PE 0's `done`.  PE 0 computes until `done` shows
 * every other PE finished (it reads its own memory, no library call), or
 * for at most SECONDS: only the transport's progress can have served them.
 * Reaching the bound fails the test.  A bound rather than a fixed time, so
 * that a loaded machine, which slows the other PEs, cannot fail it.
 *
 *   ofi_busy [seconds] [amos per PE]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <shmem.h>

#include "../common/check.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts); /* one clock for the whole node */
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t counter;
static uint64_t words[64];
static uint64_t done; /* PEs whose operations all completed */

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 60.0;
    long amos = argc > 2 ? atol(argv[2]) : 200;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (n < 2 || n > 1024) {
        shmem_finalize();
        return 77;
    }
    shmem_barrier_all();
    double busy = 0;
    uint64_t finished = 0;
    if (me == 0) {
        double t0 = now();
        volatile double x = 1.0;
        /* no library call in here */
        while ((finished = __atomic_load_n(&done, __ATOMIC_ACQUIRE)) < (uint64_t)(n - 1) &&
               now() - t0 < seconds)
            for (int i = 0; i < 10000; i++)
                x = x * 1.0000001 + 1e-9;
        busy = now() - t0;
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
        shmem_uint64_atomic_inc(&done, 0);
    }
    shmem_barrier_all();
    if (me == 0) {
        CHECK_EQ(counter, (uint64_t)amos * (uint64_t)(n - 1), "fetch-adds on PE 0");
        CHECK_EQ(finished, (uint64_t)(n - 1), "PEs served after %.1f s of computing on PE 0", busy);
    }
    int rc = check_done("ofi_busy", "%d PEs were served while PE 0 computed (%.2f s)", n - 1, busy);
    shmem_finalize();
    return rc;
}
