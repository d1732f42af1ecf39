/*
 * threads.c -- SHMEM_THREAD_MULTIPLE with private contexts.
 *
 * shmem_init_thread(SHMEM_THREAD_MULTIPLE) must provide MULTIPLE.  Four
 * threads per PE run at once; each creates its own SHMEM_CTX_PRIVATE
 * context and, through it, puts to a per-thread region on every PE and
 * fetch_adds on counters shared by everyone, while also doing atomic adds
 * on the same counters through the default context.  After join and a
 * barrier every word of every region and every counter is checked against
 * the exact expected value; the fetched values each thread saw must grow
 * by at least its own increments.
 */
#include <pthread.h>

#include "p2p_test.h"
#include <shmemx.h>

#define NT 4
#define ITER_SHM 2000 /* iterations per thread on shm */
#define ITER_NET 300  /* ... on a network transport */
static int ITER = ITER_SHM;
#define W 8  /* longs per put */
#define NC 4 /* shared counters */

static int me, npes, kslots; /* kslots: slots per (source PE, thread) on one target */
static long *region;         /* [npes][NT][kslots][W] */
static long *cnt;            /* [NC] */
static pthread_barrier_t start;

static long val(int p, int t, int i, int w)
{
    return (long)t_mix(((uint64_t)p << 48) ^ ((uint64_t)t << 40) ^ ((uint64_t)i << 8) ^ (uint64_t)w);
}

static int target_of(int p, int t, int i) { return (p + t + i) % npes; }

static size_t slot_index(int p, int t, int i)
{
    return (((size_t)p * NT + (size_t)t) * (size_t)kslots + (size_t)(i / npes)) * W;
}

struct targ {
    int t;
    char err[256];
};

static void *worker(void *arg)
{
    struct targ *a = arg;
    int t = a->t;
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0 || ctx == SHMEM_CTX_INVALID) {
        snprintf(a->err, sizeof a->err, "thread %d: shmem_ctx_create(PRIVATE) failed", t);
        pthread_barrier_wait(&start);
        return NULL;
    }
    pthread_barrier_wait(&start);
    static __thread long lastf[64][NC];
    for (int q = 0; q < 64; q++)
        for (int c = 0; c < NC; c++)
            lastf[q][c] = -1;
    for (int i = 0; i < ITER; i++) {
        int q = target_of(me, t, i);
        long buf[W];
        for (int w = 0; w < W; w++)
            buf[w] = val(me, t, i, w);
        shmem_ctx_long_put(ctx, &region[slot_index(me, t, i)], buf, W, q);
        long inc = (long)me * NT + t + 1;
        long f = shmem_ctx_long_atomic_fetch_add(ctx, &cnt[i % NC], inc, q);
        if (lastf[q][i % NC] >= 0 && f < lastf[q][i % NC] + inc && !a->err[0])
            snprintf(a->err, sizeof a->err,
                     "thread %d iteration %d: fetch_add on counter %d of PE %d returned %ld, "
                     "less than %ld (previous fetch plus own increment)",
                     t, i, i % NC, q, f, lastf[q][i % NC] + inc);
        lastf[q][i % NC] = f;
        shmem_long_atomic_add(&cnt[(i + t) % NC], 1000, q); /* default context */
        if (i % 64 == 63)
            shmem_ctx_quiet(ctx);
    }
    shmem_ctx_quiet(ctx);
    /* read back the last put through the private context */
    int i = ITER - 1, q = target_of(me, t, i);
    long back[W];
    shmem_ctx_long_get(ctx, back, &region[slot_index(me, t, i)], W, q);
    for (int w = 0; w < W; w++)
        if (back[w] != val(me, t, i, w) && !a->err[0])
            snprintf(a->err, sizeof a->err, "thread %d: ctx get of its last put from PE %d: "
                     "word %d is %ld", t, q, w, back[w]);
    shmem_ctx_destroy(ctx);
    shmem_quiet();
    return NULL;
}

int main(void)
{
    int provided = -1;
    int rc = shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    REQUIRE_EQ(rc, 0, "shmem_init_thread(SHMEM_THREAD_MULTIPLE) returned %d", rc);
    check_watchdog(150);
    REQUIRE_EQ(provided, SHMEM_THREAD_MULTIPLE, "shmem_init_thread provided %d, not MULTIPLE (%d)",
               provided, SHMEM_THREAD_MULTIPLE);
    int q = -1;
    shmem_query_thread(&q);
    REQUIRE_EQ(q, SHMEM_THREAD_MULTIPLE, "shmem_query_thread says %d", q);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    const char *tp = shmemx_transport_name();
    if (!tp || strcmp(tp, "shm") != 0)
        ITER = ITER_NET;
    REQUIRE_LE(npes, 64, "at most 64 PEs");
    kslots = (ITER + npes - 1) / npes;
    size_t rwords = (size_t)npes * NT * (size_t)kslots * W;
    region = shmem_calloc(rwords, sizeof(long));
    cnt = shmem_calloc(NC, sizeof(long));
    REQUIRE(region && cnt, "allocation failed");

    check_stage("threads");
    pthread_barrier_init(&start, NULL, NT);
    pthread_t th[NT];
    struct targ args[NT];
    for (int t = 0; t < NT; t++) {
        args[t].t = t;
        args[t].err[0] = 0;
        REQUIRE_EQ(pthread_create(&th[t], NULL, worker, &args[t]), 0, "pthread_create failed");
    }
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < NT; t++)
        REQUIRE(!args[t].err[0], "%s", args[t].err);
    shmem_barrier_all();

    check_stage("check");
    /* Every slot: written exactly once (by the iteration that targets this
     * PE) or never (still zero). */
    static char written[1 << 20];
    REQUIRE_LE(rwords / W, sizeof written, "too many slots");
    memset(written, 0, rwords / W);
    long want[NC] = {0};
    for (int p = 0; p < npes; p++)
        for (int t = 0; t < NT; t++)
            for (int i = 0; i < ITER; i++) {
                if (target_of(p, t, i) != me)
                    continue;
                size_t s = slot_index(p, t, i);
                written[s / W] = 1;
                for (int w = 0; w < W; w++)
                    REQUIRE_EQ(region[s + (size_t)w], val(p, t, i, w),
                               "slot of PE %d thread %d iteration %d word %d is %ld, expected %ld",
                               p, t, i, w, region[s + (size_t)w], val(p, t, i, w));
                want[i % NC] += (long)p * NT + t + 1;
                want[(i + t) % NC] += 1000;
            }
    for (size_t s = 0; s < rwords / W; s++)
        if (!written[s])
            for (int w = 0; w < W; w++)
                REQUIRE_EQ(region[s * W + (size_t)w], 0,
                           "slot %zu was never a target but holds %ld", s,
                           region[s * W + (size_t)w]);
    for (int c = 0; c < NC; c++)
        REQUIRE_EQ(cnt[c], want[c],
                   "counter %d is %ld, expected %ld (ctx fetch_adds + default "
                   "context adds from %d threads on %d PEs)",
                   c, cnt[c], want[c], NT, npes);
    shmem_barrier_all();
    shmem_free(region);
    shmem_free(cnt);
    int status = check_done("threads",
                            "%d threads x %d iterations per PE, private contexts + default context",
                            NT, ITER);
    shmem_finalize();
    return status;
}
