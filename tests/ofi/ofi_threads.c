/*
 * SHMEM_THREAD_MULTIPLE over the ofi transport: every thread does puts and
 * AMOs on every PE through a private context of its own, and at the same
 * time through the shared default context; then the AMO totals and every
 * word the puts wrote are checked.
 *
 * Each put has a word of its own, holding a value that names its sender,
 * thread and iteration: two puts to one address would leave the check
 * depending on their order, which puts do not guarantee, and a put that
 * went to a neighbour's word, or never arrived, shows as such.
 *
 *   ofi_threads [threads] [iterations]
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <shmem.h>

#include "../common/check.h"

#define MAXT 16

static uint64_t ctx_sum;  /* AMOs through private contexts */
static uint64_t dflt_sum; /* AMOs through the default context */
/* Puts through the private contexts and through the default one: at
 * [(thread * n_pes + from) * per + i / n_pes], per = ceil(iters / n_pes),
 * since a sender's iterations i that reach one PE differ by multiples of
 * n_pes.  On the heap: the size depends on the arguments. */
static uint64_t *ctx_slots, *dflt_slots;
static int iters, me, n, per;

static size_t slot(int t, int from, int i)
{
    return ((size_t)t * (size_t)n + (size_t)from) * (size_t)per + (size_t)(i / n);
}

/* Never 0 (the heap starts zeroed), and different for every put. */
static uint64_t stamp(int from, int t, int i, int dflt)
{
    return ((uint64_t)(from + 1) << 40) | ((uint64_t)t << 32) | ((uint64_t)dflt << 31) |
           (uint64_t)(i + 1);
}

static void *work(void *arg)
{
    int t = (int)(intptr_t)arg;
    shmem_ctx_t ctx;
    REQUIRE_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx), 0, "thread %d", t);
    for (int i = 0; i < iters; i++) {
        int pe = (me + i) % n;
        shmem_ctx_uint64_atomic_add(ctx, &ctx_sum, 1, pe);
        shmem_uint64_atomic_add(&dflt_sum, 1, pe);
        uint64_t v = stamp(me, t, i, 0), w = stamp(me, t, i, 1);
        shmem_ctx_uint64_put(ctx, &ctx_slots[slot(t, me, i)], &v, 1, pe);
        shmem_uint64_put(&dflt_slots[slot(t, me, i)], &w, 1, pe);
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
    REQUIRE_EQ(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided), 0);
    REQUIRE_EQ(provided, SHMEM_THREAD_MULTIPLE);
    me = shmem_my_pe();
    n = shmem_n_pes();
    REQUIRE(n <= 1024 && iters >= 1 && iters < (1 << 30), "at most 1024 PEs and 2^30 iterations");
    per = (iters + n - 1) / n;
    size_t words = (size_t)nt * (size_t)n * (size_t)per;
    ctx_slots = shmem_calloc(words, sizeof *ctx_slots);
    dflt_slots = shmem_calloc(words, sizeof *dflt_slots);
    REQUIRE(ctx_slots && dflt_slots, "no symmetric memory for %zu words", 2 * words);
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
    CHECK_EQ(ctx_sum, expect, "AMOs through the private contexts");
    CHECK_EQ(dflt_sum, expect, "AMOs through the default context");
    /* The threads quieted their contexts before destroying them, and the
     * barrier completed the default context's puts: every word is here. */
    long checked = 0;
    for (int src = 0; src < n; src++)
        for (int t = 0; t < nt; t++)
            for (int i = 0; i < iters; i++) {
                if ((src + i) % n != me)
                    continue;
                size_t k = slot(t, src, i);
                for (int d = 0; d < 2; d++) {
                    uint64_t got = d ? dflt_slots[k] : ctx_slots[k], want = stamp(src, t, i, d);
                    checked++;
                    CHECK_EQ(got, want,
                             "put of PE %d thread %d iteration %d through the %s context", src, t,
                             i, d ? "default" : "private");
                }
            }
    /* And no word that no put was meant for was written. */
    size_t words_here = (size_t)nt * (size_t)n * (size_t)per;
    for (size_t k = 0; k < words_here; k++) {
        int src = (int)(k / (size_t)per % (size_t)n), i = (int)(k % (size_t)per) * n;
        i += ((me - src - i) % n + n) % n; /* the iteration of this slot that targets me */
        if (i >= iters)
            CHECK(!ctx_slots[k] && !dflt_slots[k], "word %zu was written, but no put targets it",
                  k);
    }
    int rc = check_done("ofi_threads",
                        "%d threads x %d iterations, private contexts and the "
                        "default one: AMO sums and all %ld put words on PE 0 right",
                        nt, iters, checked);
    shmem_free(dflt_slots);
    shmem_free(ctx_slots);
    shmem_finalize();
    return rc;
}
