/*
 * The mpi transport's atomics under threads: every PE runs THREADS threads
 * at SHMEM_THREAD_MULTIPLE, each updating one counter on every PE through
 * the default context (shared by the threads) with a blocking add,
 * fetch-add, compare-and-swap increment, fetch-inc _nbi (completed by a
 * quiet) and fetch-add _nbe (completed by its request).  Meanwhile one
 * thread per PE sends FLOOD adds to the next PE on a private context before
 * its first quiet, more than a context may leave unanswered by active
 * message.  At the end each counter must hold exactly every increment, and
 * every fetched value must have been below it.
 *
 * On the active-message path this exercises threads competing for the
 * persistent answer receive, answers matched by tag across threads, a
 * shared context's quiet, fetching _nbi and nbe answers, and the bound on
 * unanswered messages; on the rma path the same program checks MPI's
 * accumulates.
 *
 *   mpi_amo_threads [rounds]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <shmem.h>
#include <shmemx.h>

#include "../common/check.h"

#define THREADS 3
#define FLOOD 5000
#define OPS_PER_ROUND 5 /* increments per target per round per thread */

static long counter;
static long flood;
static long rounds;

static void *worker(void *arg)
{
    int id = (int)(long)arg;
    int me = shmem_my_pe(), n = shmem_n_pes();
    long got[16];
    for (long r = 0; r < rounds; r++) {
        for (int i = 0; i < n; i++) {
            int t = (me + id + i) % n;
            shmem_long_atomic_add(&counter, 1, t);
            long old = shmem_long_atomic_fetch_add(&counter, 1, t);
            long seen = shmem_long_atomic_fetch(&counter, t), prev;
            while ((prev = shmem_long_atomic_compare_swap(&counter, seen, seen + 1, t)) != seen)
                seen = prev;
            shmem_long_atomic_fetch_inc_nbi(&got[i % 16], &counter, t);
            shmemx_request_h req = SHMEMX_REQUEST_NULL;
            long viae = -1;
            shmemx_long_atomic_fetch_add_nbe(&viae, &counter, 1, t, &req);
            shmemx_request_wait(&req);
            shmem_quiet();
            CHECK_GE(old, 0, "fetch-add on PE %d", t);
            CHECK_GE(got[i % 16], 0, "fetch-inc _nbi on PE %d", t);
            CHECK_GE(viae, 0, "fetch-add _nbe on PE %d", t);
        }
    }
    if (id == 0) {
        /* a private context: its quiet is this thread's alone */
        shmem_ctx_t ctx;
        if (CHECK_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx), 0)) {
            for (int k = 0; k < FLOOD; k++)
                shmem_ctx_long_atomic_add(ctx, &flood, 1, (me + 1) % n);
            shmem_ctx_quiet(ctx);
            shmem_ctx_destroy(ctx);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    rounds = argc > 1 ? atol(argv[1]) : 20;
    int provided;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    if (provided != SHMEM_THREAD_MULTIPLE) {
        if (shmem_my_pe() == 0)
            printf("mpi_amo_threads: SHMEM_THREAD_MULTIPLE not provided; skipped\n");
        shmem_finalize();
        return 77;
    }
    int n = shmem_n_pes();
    pthread_t th[THREADS];
    for (long i = 0; i < THREADS; i++)
        REQUIRE_EQ(pthread_create(&th[i], NULL, worker, (void *)i), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    shmem_barrier_all();
    CHECK_EQ(counter, (long)n * THREADS * rounds * OPS_PER_ROUND);
    CHECK_EQ(flood, (long)FLOOD);
    int rc = check_done("mpi_amo_threads", "%d threads x %ld rounds of atomics to every PE",
                        THREADS, rounds);
    shmem_finalize();
    return rc;
}
