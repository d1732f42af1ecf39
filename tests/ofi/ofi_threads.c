/*
 * SHMEM_THREAD_MULTIPLE over the ofi transport: every thread does puts and
 * AMOs on every PE through a private context of its own, and at the same
 * time through the shared default context; then the totals are checked.
 *
 *   ofi_threads [threads] [iterations]
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <shmem.h>

#define MAXT 16

static uint64_t ctx_sum;              /* AMOs through private contexts */
static uint64_t dflt_sum;             /* AMOs through the default context */
static uint64_t slots[MAXT * 1024];   /* puts: slot [thread*n_pes + from] */
static int iters, me, n;

static void *work(void *arg)
{
    int t = (int)(intptr_t)arg;
    shmem_ctx_t ctx;
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx)) {
        printf("PE %d thread %d: shmem_ctx_create failed\n", me, t);
        exit(1);
    }
    for (int i = 0; i < iters; i++) {
        int pe = (me + i) % n;
        shmem_ctx_uint64_atomic_add(ctx, &ctx_sum, 1, pe);
        shmem_uint64_atomic_add(&dflt_sum, 1, pe);
        uint64_t v = (uint64_t)i + 1;
        shmem_ctx_uint64_put(ctx, &slots[t * n + me], &v, 1, pe);
        if (i % 64 == 0) {
            shmem_ctx_quiet(ctx);
            (void)shmem_ctx_uint64_atomic_fetch(ctx, &ctx_sum, pe);
        }
    }
    shmem_ctx_quiet(ctx);
    shmem_ctx_destroy(ctx);
    return NULL;
}

int main(int argc, char **argv)
{
    int nt = argc > 1 ? atoi(argv[1]) : 4;
    iters = argc > 2 ? atoi(argv[2]) : 2000;
    if (nt > MAXT)
        nt = MAXT;
    int provided;
    if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) || provided != SHMEM_THREAD_MULTIPLE) {
        printf("SHMEM_THREAD_MULTIPLE not provided\n");
        return 1;
    }
    me = shmem_my_pe();
    n = shmem_n_pes();
    if (n > 1024)
        return 77;
    pthread_t th[MAXT];
    for (int t = 0; t < nt; t++)
        pthread_create(&th[t], NULL, work, (void *)(intptr_t)t);
    for (int t = 0; t < nt; t++)
        pthread_join(th[t], NULL);
    shmem_barrier_all();
    /* Each PE receives iters/n-ish AMOs from each thread of each PE:
     * exactly, PE p gets one from (pe', t, i) when (pe' + i) % n == p. */
    uint64_t expect = 0;
    for (int src = 0; src < n; src++)
        for (int i = 0; i < iters; i++)
            if ((src + i) % n == me)
                expect += (uint64_t)nt;
    int rc = 0;
    if (ctx_sum != expect || dflt_sum != expect) {
        printf("FAIL PE %d: private-context sum %" PRIu64 ", default-context sum %" PRIu64
               ", expected %" PRIu64 "\n",
               me, ctx_sum, dflt_sum, expect);
        rc = 1;
    }
    shmem_barrier_all();
    if (me == 0 && !rc)
        printf("ok: %d PEs x %d threads x %d iterations, private contexts and the default one\n",
               n, nt, iters);
    shmem_finalize();
    return rc;
}
