/*
 * shmemx explicit non-blocking operations and requests: every typed and
 * sized nbe routine (generated nbe_types.c, default and ctx forms);
 * completion (a put waited for is at the target before a later flag that
 * no quiet or fence orders; a fetch is delivered); joining and merging;
 * test until done; wait and test on SHMEMX_REQUEST_NULL; alloc and free;
 * many operations on one request; global (static) targets; a private
 * context's request; and the C11 generic names.
 */
#include "../common/check.h"
#include <shmemx.h>

#define M 64
#define ROUNDS 10

int nbe_types_run(shmem_ctx_t ctx, int right);

static long g_data[M];
static long g_flag;

/* Data on a request, wait, then a flag by an AMO that nothing orders
 * after the data but the wait: the receiver checks the data on seeing
 * the flag, without a barrier in between. */
static void visible_after_wait(long *data, long *flag, shmem_ctx_t ctx, const char *where)
{
    int me = shmem_my_pe(), right = check_right(), left = check_left();
    long src[M];
    *flag = 0;
    shmem_barrier_all();
    for (long round = 1; round <= ROUNDS; round++) {
        for (int i = 0; i < M; i++)
            src[i] = round * 1000 + me * 100 + i;
        shmemx_request_h r = SHMEMX_REQUEST_NULL;
        /* two joined puts, the second on the same request */
        shmemx_ctx_long_put_nbe(ctx, data, src, M / 2, right, &r);
        shmemx_ctx_long_put_nbe(ctx, data + M / 2, src + M / 2, M / 2, right, &r);
        shmemx_request_wait(&r);
        REQUIRE_EQ(r, SHMEMX_REQUEST_NULL, "wait did not reset the handle");
        shmem_atomic_set(flag, round, right);
        shmem_long_wait_until(flag, SHMEM_CMP_GE, round);
        for (int i = 0; i < M; i++)
            REQUIRE_EQ(data[i], round * 1000 + left * 100 + i,
                       "%s round %ld: data[%d]=%ld seen after the flag, expected %ld", where, round,
                       i, data[i], round * 1000 + left * 100 + i);
        /* the left PE may not overwrite data before we have read it */
        shmem_barrier_all();
    }
}

static void fetch_delivered(long *ctr)
{
    int me = shmem_my_pe(), np = shmem_n_pes();
    *ctr = 0;
    shmem_barrier_all();
    long got[8];
    shmemx_request_h r = SHMEMX_REQUEST_NULL;
    for (int i = 0; i < 8; i++)
        shmemx_atomic_fetch_add_nbe(&got[i], ctr, 1L, 0, &r); /* the generic name */
    shmemx_request_wait(&r);
    /* The network may apply them in any order, but each fetched a value of
     * its own. */
    for (int i = 0; i < 8; i++) {
        REQUIRE(got[i] >= 0 && got[i] < 8L * np, "fetched %ld from a counter that reaches %d",
                got[i], 8 * np);
        for (int j = 0; j < i; j++)
            REQUIRE_NE(got[i], got[j], "two fetch_adds fetched %ld", got[i]);
    }
    shmem_barrier_all();
    if (me == 0)
        REQUIRE_EQ(*ctr, 8L * np, "counter %ld, expected %ld", *ctr, 8L * np);
    shmem_barrier_all();
}

/* Requests to every PE, merged three ways: into NULL, into an active
 * request, and a request merged with itself. */
static void merging(long *slots)
{
    int me = shmem_my_pe(), np = shmem_n_pes();
    for (int i = 0; i < np; i++)
        slots[i] = -1;
    shmem_barrier_all();
    shmemx_request_h r[3] = {SHMEMX_REQUEST_NULL, SHMEMX_REQUEST_NULL, SHMEMX_REQUEST_NULL};
    long v = me;
    for (int pe = 0; pe < np; pe++)
        shmemx_long_put_nbe(&slots[me], &v, 1, pe, &r[pe % 2]);
    shmemx_request_h *two[2] = {&r[0], &r[1]};
    shmemx_request_h m = SHMEMX_REQUEST_NULL;
    shmemx_request_merge(np > 1 ? 2 : 1, two, &m);
    REQUIRE(r[0] == SHMEMX_REQUEST_NULL && r[1] == SHMEMX_REQUEST_NULL,
            "merge left a merged handle set");
    REQUIRE_NE(m, SHMEMX_REQUEST_NULL, "merge of active requests gave SHMEMX_REQUEST_NULL");
    long got = -2;
    shmemx_long_get_nbe(&got, &slots[me], 1, me, &r[2]);
    shmemx_request_h *one[2] = {&r[2], &m};
    shmemx_request_merge(2, one, &m); /* into an active one, itself among them */
    REQUIRE(r[2] == SHMEMX_REQUEST_NULL && m != SHMEMX_REQUEST_NULL,
            "merge into an active request");
    shmemx_request_wait(&m);
    REQUIRE_EQ(m, SHMEMX_REQUEST_NULL, "wait on a merged request");
    shmem_barrier_all();
    for (int pe = 0; pe < np; pe++)
        REQUIRE_EQ(slots[pe], pe, "slot %d holds %ld after the merged request", pe, slots[pe]);
    shmem_barrier_all();
}

static void test_loop(long *buf)
{
    int right = check_right();
    long src[M], back[M];
    for (int i = 0; i < M; i++)
        src[i] = i * 3 + 1;
    shmem_barrier_all();
    shmemx_request_h r = SHMEMX_REQUEST_NULL;
    shmemx_put_nbe(buf, src, M, right, &r); /* the generic names, plain and ctx */
    int flag = -1;
    long tests = 0;
    do {
        REQUIRE_EQ(shmemx_request_test(&r, &flag), 0, "shmemx_request_test failed");
        tests++;
    } while (!flag);
    REQUIRE(flag == 1 && r == SHMEMX_REQUEST_NULL, "test said done but left the handle");
    shmemx_get_nbe(SHMEM_CTX_DEFAULT, back, buf, M, right, &r);
    shmemx_request_wait(&r);
    for (int i = 0; i < M; i++)
        REQUIRE_EQ(back[i], src[i], "get after a tested put: %ld at %d", back[i], i);
    shmem_barrier_all();
}

static void null_and_alloc(long *buf)
{
    int right = check_right(), flag = 0;
    shmemx_request_h r = SHMEMX_REQUEST_NULL;
    REQUIRE(shmemx_request_wait(&r) == 0 && r == SHMEMX_REQUEST_NULL, "wait on NULL");
    REQUIRE(shmemx_request_test(&r, &flag) == 0 && flag == 1, "test on NULL");
    REQUIRE_EQ(shmemx_request_free(&r), 0, "free of NULL");
    /* an allocated request is empty: waiting completes at once */
    REQUIRE(shmemx_request_alloc(0, &r) == 0 && r != SHMEMX_REQUEST_NULL, "alloc");
    REQUIRE(shmemx_request_wait(&r) == 0 && r == SHMEMX_REQUEST_NULL, "wait on an empty request");
    /* operations join an allocated request; free completes them */
    long v = 4242;
    shmem_barrier_all();
    shmemx_request_alloc(0, &r);
    shmemx_long_put_nbe(buf, &v, 1, right, &r);
    REQUIRE(shmemx_request_free(&r) == 0 && r == SHMEMX_REQUEST_NULL, "free of an active request");
    shmem_barrier_all();
    REQUIRE_EQ(*buf, 4242, "a put on a freed request: %ld", *buf);
    shmem_barrier_all();
}

/* Many operations of several kinds on one request. */
static void many(long *buf)
{
    int me = shmem_my_pe(), np = shmem_n_pes(), right = check_right();
    enum { K = 500 };
    long *src = malloc(K * sizeof(long)), *back = malloc(K * sizeof(long));
    REQUIRE(src && back, "malloc");
    for (int i = 0; i < K; i++)
        src[i] = me * 100000 + i;
    shmem_barrier_all();
    shmemx_request_h r = SHMEMX_REQUEST_NULL;
    for (int i = 0; i < K; i++)
        shmemx_long_put_nbe(&buf[i], &src[i], 1, right, &r);
    shmemx_request_wait(&r);
    shmem_barrier_all();
    int left = check_left();
    for (int i = 0; i < K; i++)
        REQUIRE_EQ(buf[i], left * 100000 + i, "put %d of %d: %ld", i, K, buf[i]);
    for (int i = 0; i < K; i += 50)
        shmemx_getmem_nbe(&back[i], &buf[i], 50 * sizeof(long), right, &r);
    shmemx_request_wait(&r);
    for (int i = 0; i < K; i++)
        REQUIRE_EQ(back[i], me * 100000 + i, "get %d: %ld", i, back[i]);
    (void)np;
    free(src);
    free(back);
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    check_watchdog(240);
    REQUIRE_LE(shmem_n_pes(), 64, "this test handles up to 64 PEs");
    long *heap = shmem_calloc(1024, sizeof(long));
    REQUIRE_NE(heap, NULL, "shmem_calloc");
    shmem_ctx_t priv;
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &priv))
        priv = SHMEM_CTX_DEFAULT;

    check_stage("visible after wait");
    visible_after_wait(heap, heap + M, SHMEM_CTX_DEFAULT, "heap");
    visible_after_wait(g_data, &g_flag, SHMEM_CTX_DEFAULT, "global");
    visible_after_wait(heap, heap + M, priv, "heap, private context");
    check_stage("fetch delivered");
    fetch_delivered(heap);
    check_stage("merge");
    merging(heap);
    check_stage("test");
    test_loop(heap);
    check_stage("NULL, alloc, free");
    null_and_alloc(heap);
    check_stage("many");
    many(heap);
    check_stage("every typed routine");
    int n = nbe_types_run(priv, check_right());
    REQUIRE_GT(n, 0, "no typed routine ran");

    if (priv != SHMEM_CTX_DEFAULT)
        shmem_ctx_destroy(priv);
    shmem_free(heap);
    int status = check_done("nbe");
    shmem_finalize();
    return status;
}
