/*
 * shmemx memory spaces: create, attach, malloc/calloc/align, RMA, AMOs
 * and nbe operations on space memory through the default context and a
 * space context (its quiet completes the space's puts before a later flag
 * that nothing else orders), shmem_free of space memory, two spaces at
 * once, detach and destroy, and a second cycle reusing the segment.
 * A transport without seg_register (the plugins here all have it) serves
 * spaces only where every PE is mapped: elsewhere the family says it
 * skipped.
 */
#include "../common/check.h"
#include <shmemx.h>

#define M 256
#define ROUNDS 5

static int spaces_usable(void)
{
    const char *tp = shmemx_transport_name(), *bypass = getenv("SHMEM_BYPASS");
    if (!strcmp(tp, "ofi") || !strcmp(tp, "mpi") || !strcmp(tp, "ucx") || !strcmp(tp, "shm"))
        return 1;
    if (bypass && !strcmp(bypass, "0")) /* even this PE's own memory goes through the transport */
        return 0;
    long *probe = shmem_malloc(sizeof(long));
    int all = 1;
    for (int pe = 0; pe < shmem_n_pes(); pe++)
        all &= shmem_ptr(probe, pe) != NULL;
    shmem_free(probe);
    return all;
}

static void traffic(shmemx_space_t sp, shmem_ctx_t sctx, const char *where)
{
    int me = shmem_my_pe(), np = shmem_n_pes(), right = check_right(), left = check_left();
    long *data = shmemx_space_malloc(sp, M * sizeof(long));
    long *flag = shmemx_space_calloc(sp, 4, sizeof(long));
    long *al = shmemx_space_align(sp, 4096, 100);
    REQUIRE(data && flag && al, "%s: space allocations", where);
    REQUIRE_EQ(((uintptr_t)al & 4095), 0, "%s: shmemx_space_align gave %p", where, (void *)al);
    long src[M];
    for (int round = 1; round <= ROUNDS; round++) {
        for (int i = 0; i < M; i++)
            src[i] = round * 10000 + me * 100 + i;
        /* the space context's quiet completes its puts before the flag */
        shmem_ctx_long_put_nbi(sctx, data, src, M, right);
        shmem_ctx_quiet(sctx);
        shmem_atomic_set(&flag[0], (long)round, right);
        shmem_long_wait_until(&flag[0], SHMEM_CMP_GE, round);
        for (int i = 0; i < M; i++)
            REQUIRE_EQ(data[i], round * 10000 + left * 100 + i, "%s round %d: data[%d]=%ld", where,
                       round, i, data[i]);
        shmem_barrier_all();
    }
    /* gets, both contexts */
    long back[M];
    shmem_long_get(back, data, M, right);
    for (int i = 0; i < M; i++)
        REQUIRE_EQ(back[i], ROUNDS * 10000 + me * 100 + i, "%s: get[%d]=%ld", where, i, back[i]);
    long one = shmem_ctx_long_g(sctx, &data[3], right);
    REQUIRE_EQ(one, ROUNDS * 10000 + me * 100 + 3, "%s: ctx g %ld", where, one);
    /* AMOs from every PE on PE 0's word, both contexts */
    shmem_barrier_all();
    shmem_long_atomic_add(&flag[1], me + 1, 0);
    long f = shmem_ctx_long_atomic_fetch_add(sctx, &flag[2], 1, 0);
    REQUIRE(f >= 0 && f < np, "%s: fetch_add fetched %ld", where, f);
    shmem_barrier_all();
    if (me == 0)
        REQUIRE(flag[1] == (long)np * (np + 1) / 2 && flag[2] == np, "%s: AMO sums %ld %ld", where,
                flag[1], flag[2]);
    /* explicit requests on space memory */
    shmemx_request_h r = SHMEMX_REQUEST_NULL;
    long got = -1;
    shmemx_ctx_long_put_nbe(sctx, &al[0], &src[0], 1, right, &r);
    shmemx_long_atomic_fetch_inc_nbe(&got, &flag[3], right, &r);
    shmemx_request_wait(&r);
    REQUIRE_EQ(got, 0, "%s: fetch_inc_nbe fetched %ld", where, got);
    shmem_barrier_all();
    REQUIRE(al[0] == ROUNDS * 10000 + left * 100 && flag[3] == 1, "%s: nbe on space memory", where);
    shmem_barrier_all();
    shmem_free(al);
    shmem_free(flag);
    shmem_free(data);
}

int main(void)
{
    shmem_init();
    check_watchdog(200);
    if (!spaces_usable()) {
        if (shmem_my_pe() == 0)
            printf("space: skipped: transport %s has no seg_register and not every PE is "
                   "mapped\n",
                   shmemx_transport_name());
        shmem_finalize();
        return 0;
    }
    for (int cycle = 0; cycle < 2; cycle++) {
        check_stage(cycle ? "second cycle" : "first cycle");
        shmemx_space_config_t cfg = {.sheap_size = 1 << 20, .num_contexts = 1,
                                     .memkind = SHMEMX_SPACE_HOST};
        shmemx_space_t a, b;
        shmemx_space_create(cfg, &a);
        cfg.sheap_size = 3 << 19;
        shmemx_space_create(cfg, &b);
        shmemx_space_attach(a);
        shmemx_space_attach(b);
        shmem_ctx_t actx, bctx, extra;
        REQUIRE_EQ(shmemx_space_create_ctx(a, 0, &actx), 0, "space ctx");
        REQUIRE_EQ(shmemx_space_create_ctx(b, SHMEM_CTX_PRIVATE, &bctx), 0, "private space ctx");
        REQUIRE(shmemx_space_create_ctx(a, 0, &extra) != 0 && extra == SHMEM_CTX_INVALID,
                "a space's contexts beyond num_contexts");
        traffic(a, actx, "space a");
        traffic(b, bctx, "space b");
        traffic(b, SHMEM_CTX_DEFAULT, "space b, default context");
        if (cycle) { /* contexts destroyed by hand are the space's no more */
            shmem_ctx_destroy(actx);
            REQUIRE_EQ(shmemx_space_create_ctx(a, 0, &actx), 0,
                       "a space context again after shmem_ctx_destroy freed the only one");
            traffic(a, actx, "space a, new context");
            shmem_ctx_destroy(bctx);
        }
        shmemx_space_detach(b);
        shmemx_space_detach(a);
        shmemx_space_destroy(b);
        shmemx_space_destroy(a);
    }
    int status = check_done("space");
    shmem_finalize();
    return status;
}
