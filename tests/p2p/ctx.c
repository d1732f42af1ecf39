/*
 * ctx.c -- communication contexts.
 *
 *   shmem_ctx_create with 0, PRIVATE, SERIALIZED, NOSTORE (and combined),
 *   and with an unknown option bit (nonzero, *ctx = SHMEM_CTX_INVALID);
 *   shmem_team_create_ctx on SHMEM_TEAM_WORLD; RMA and AMO through each,
 *   then shmem_ctx_fence / shmem_ctx_quiet; shmem_ctx_get_team; fence,
 *   quiet, pe_quiet, session start/stop and destroy on SHMEM_CTX_INVALID
 *   are no-ops; shmem_pe_quiet / shmem_ctx_pe_quiet (npes 0 too);
 *   sessions around traffic; several contexts used at once; destroy
 *   implies quiet; shmem_pcontrol.
 */
#include "p2p_test.h"

#define NW 512 /* longs per region */
#define NCTX 6

static long gdata[64][NW];
static long gcnt;

static long val(int src, int k, int i) { return (long)t_mix(((uint64_t)src << 40) ^ ((uint64_t)k << 20) ^ (uint64_t)i); }

int main(void)
{
    shmem_init();
    check_watchdog(150);
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    REQUIRE_LE(npes, 64, "at most 64 PEs");
    shmem_pcontrol(1);
    shmem_pcontrol(0, "ignored", 3);

    /* ---- creation ----------------------------------------------------- */
    check_stage("create");
    long opts[NCTX] = {0,
                       SHMEM_CTX_PRIVATE,
                       SHMEM_CTX_SERIALIZED,
                       SHMEM_CTX_NOSTORE,
                       SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE,
                       -1 /* team_create_ctx(WORLD, 0) */};
    shmem_ctx_t ctx[NCTX];
    for (int i = 0; i < NCTX; i++) {
        ctx[i] = SHMEM_CTX_INVALID;
        int rc = opts[i] >= 0 ? shmem_ctx_create(opts[i], &ctx[i])
                              : shmem_team_create_ctx(SHMEM_TEAM_WORLD, 0, &ctx[i]);
        REQUIRE(rc == 0 && ctx[i] != SHMEM_CTX_INVALID,
                "context %d (options %#lx) creation returned %d", i, opts[i], rc);
        shmem_team_t team = SHMEM_TEAM_INVALID;
        rc = shmem_ctx_get_team(ctx[i], &team);
        REQUIRE(rc == 0 && team == SHMEM_TEAM_WORLD,
                "shmem_ctx_get_team(context %d) returned %d and a team other than WORLD", i, rc);
    }
    for (int b = 3; b < 63; b += 7) {
        shmem_ctx_t bad = SHMEM_CTX_DEFAULT;
        int rc = shmem_ctx_create(1L << b, &bad);
        REQUIRE_NE(rc, 0, "shmem_ctx_create(1 << %d) (an unknown option) returned 0", b);
        REQUIRE_EQ(bad, SHMEM_CTX_INVALID,
                   "shmem_ctx_create(1 << %d) failed but left *ctx != SHMEM_CTX_INVALID", b);
    }
    {
        shmem_ctx_t bad = SHMEM_CTX_DEFAULT;
        int rc = shmem_ctx_create(SHMEM_CTX_PRIVATE | (1L << 20), &bad);
        REQUIRE(rc != 0 && bad == SHMEM_CTX_INVALID, "PRIVATE plus an unknown bit: rc %d, ctx %s",
                rc, bad == SHMEM_CTX_INVALID ? "INVALID" : "valid");
    }
    {
        shmem_team_t team = SHMEM_TEAM_INVALID;
        int rc = shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &team);
        REQUIRE(rc == 0 && team == SHMEM_TEAM_WORLD, "get_team(DEFAULT): rc %d", rc);
        team = SHMEM_TEAM_WORLD;
        rc = shmem_ctx_get_team(SHMEM_CTX_INVALID, &team);
        REQUIRE_NE(rc, 0, "shmem_ctx_get_team(SHMEM_CTX_INVALID) returned 0");
        REQUIRE_EQ(team, SHMEM_TEAM_INVALID,
                   "shmem_ctx_get_team(SHMEM_CTX_INVALID) did not set SHMEM_TEAM_INVALID");
    }

    /* ---- no-ops on SHMEM_CTX_INVALID ------------------------------------ */
    check_stage("invalid");
    shmem_ctx_fence(SHMEM_CTX_INVALID);
    shmem_ctx_quiet(SHMEM_CTX_INVALID);
    shmem_ctx_pe_quiet(SHMEM_CTX_INVALID, &right, 1);
    shmem_ctx_session_start(SHMEM_CTX_INVALID, SHMEM_CTX_SESSION_BATCH, NULL, 0);
    shmem_ctx_session_stop(SHMEM_CTX_INVALID);
    shmem_ctx_destroy(SHMEM_CTX_INVALID);
    shmem_pe_quiet(NULL, 0);
    shmem_ctx_pe_quiet(ctx[0], NULL, 0);

    long *hdata = shmem_calloc((size_t)npes * NW, sizeof(long));
    long *hcnt = shmem_calloc(5, sizeof(long));
    long *src = malloc(sizeof(long) * NW * 8);
    REQUIRE(hdata && hcnt && src, "allocation failed");

    /* ---- RMA and AMO through each context -------------------------------- */
    for (int i = 0; i < NCTX; i++) {
        check_stage("each context");
        shmem_ctx_t c = ctx[i];
        for (int j = 0; j < NW; j++)
            src[j] = val(me, i, j);
        /* blocking put of the first half, nbi put of the second, p of one */
        shmem_ctx_long_put(c, &hdata[(size_t)me * NW], src, NW / 2, right);
        shmem_ctx_long_put_nbi(c, &gdata[me][NW / 2], src + NW / 2, NW / 2, right);
        shmem_ctx_fence(c);
        shmem_ctx_long_p(c, &hdata[(size_t)me * NW + NW / 2], -(long)i - 1, right);
        shmem_ctx_long_atomic_add(c, &hcnt[0], i + 1, right);
        long old = shmem_ctx_long_atomic_fetch_add(c, &gcnt, 10, right);
        (void)old;
        shmem_ctx_quiet(c);
        /* read back our own writes through the same context */
        long back[NW];
        shmem_ctx_long_get(c, back, &hdata[(size_t)me * NW], NW / 2 + 1, right);
        for (int j = 0; j < NW / 2; j++)
            REQUIRE_EQ(back[j], src[j], "ctx %d: get after quiet: word %d is %ld, expected %ld", i,
                       j, back[j], src[j]);
        REQUIRE_EQ(back[NW / 2], -(long)i - 1, "ctx %d: p after fence: %ld", i, back[NW / 2]);
        shmem_ctx_long_get_nbi(c, back, &gdata[me][NW / 2], NW / 2, right);
        shmem_ctx_quiet(c);
        for (int j = 0; j < NW / 2; j++)
            REQUIRE_EQ(back[j], src[NW / 2 + j], "ctx %d: get_nbi: word %d is %ld, expected %ld", i,
                       j, back[j], src[NW / 2 + j]);
        REQUIRE_GE(shmem_ctx_long_g(c, &hcnt[0], right), (long)(i + 1) * (i + 2) / 2,
                   "ctx %d: atomic_add not visible after quiet", i);
        shmem_barrier_all();
        /* the left neighbour's data arrived here */
        for (int j = 0; j < NW / 2; j++) {
            REQUIRE_EQ(hdata[(size_t)left * NW + j], val(left, i, j),
                       "ctx %d: word %d from PE %d is %ld", i, j, left,
                       hdata[(size_t)left * NW + j]);
            REQUIRE_EQ(gdata[left][NW / 2 + j], val(left, i, NW / 2 + j),
                       "ctx %d: nbi word %d from PE %d wrong", i, j, left);
        }
        long wantc = (long)(i + 1) * (i + 2) / 2, wantg = 10L * (i + 1);
        REQUIRE(hcnt[0] == wantc && gcnt == wantg,
                "ctx %d: AMO counters %ld and %ld, expected %ld and %ld", i, hcnt[0], gcnt, wantc,
                wantg);
        shmem_barrier_all();
    }

    /* ---- pe_quiet -------------------------------------------------------- */
    check_stage("pe_quiet");
    {
        int targets[2] = {right, left};
        for (int j = 0; j < NW; j++)
            src[j] = val(me, 100, j);
        shmem_long_put_nbi(&hdata[(size_t)me * NW], src, NW, right);
        shmem_pe_quiet(targets, 1);
        shmem_ctx_long_put_nbi(ctx[1], &gdata[me][0], src, NW, left);
        shmem_ctx_pe_quiet(ctx[1], targets + 1, 1);
        shmem_sync_all(); /* completes nothing: pe_quiet must have */
        for (int j = 0; j < NW; j++) {
            REQUIRE_EQ(hdata[(size_t)left * NW + j], val(left, 100, j),
                       "pe_quiet: word %d from PE %d not delivered", j, left);
            REQUIRE_EQ(gdata[right][j], val(right, 100, j),
                       "ctx_pe_quiet: word %d from PE %d not delivered", j, right);
        }
        shmem_barrier_all();
    }

    /* ---- sessions ------------------------------------------------------------ */
    check_stage("session");
    {
        shmem_ctx_session_config_t cfg = {.total_ops = 4 * NW};
        shmem_ctx_session_start(ctx[1], SHMEM_CTX_SESSION_BATCH, &cfg,
                                SHMEM_CTX_SESSION_TOTAL_OPS);
        shmem_ctx_session_start(ctx[2], 0, NULL, 0);
        for (int j = 0; j < NW; j++) {
            shmem_ctx_long_p(ctx[1], &hdata[(size_t)me * NW + j], val(me, 200, j), right);
            shmem_ctx_long_atomic_inc(ctx[2], &hcnt[1], right);
        }
        shmem_ctx_session_stop(ctx[1]);
        shmem_ctx_session_stop(ctx[2]);
        shmem_ctx_quiet(ctx[1]);
        shmem_ctx_quiet(ctx[2]);
        shmem_barrier_all();
        for (int j = 0; j < NW; j++)
            REQUIRE_EQ(hdata[(size_t)left * NW + j], val(left, 200, j),
                       "session: word %d from PE %d wrong", j, left);
        REQUIRE_EQ(hcnt[1], NW, "session: %ld incs, expected %d", hcnt[1], NW);
        shmem_barrier_all();
    }

    /* ---- several contexts at once ---------------------------------------- */
    check_stage("overlap");
    {
        /* Each PE writes its region on every PE, words spread round robin
         * over the contexts, all nbi, then AMOs on one counter through all. */
        for (int j = 0; j < NW; j++)
            src[j] = val(me, 300, j);
        for (int j = 0; j < NW; j++)
            for (int t = 0; t < npes; t++) {
                int pe = (me + t) % npes;
                shmem_ctx_long_put_nbi(ctx[(j + t) % NCTX], &hdata[(size_t)me * NW + j], &src[j],
                                       1, pe);
                if (j % 8 == 0)
                    shmem_ctx_long_atomic_add(ctx[(j / 8 + t) % NCTX], &hcnt[2], 1, pe);
            }
        for (int i = 0; i < NCTX; i++)
            shmem_ctx_quiet(ctx[i]);
        shmem_barrier_all();
        for (int p = 0; p < npes; p++)
            for (int j = 0; j < NW; j++)
                REQUIRE_EQ(hdata[(size_t)p * NW + j], val(p, 300, j),
                           "several contexts: word %d from PE %d wrong", j, p);
        REQUIRE_EQ(hcnt[2], (long)npes * (NW / 8), "several contexts: counter %ld, expected %ld",
                   hcnt[2], (long)npes * (NW / 8));
        shmem_barrier_all();
    }

    /* ---- destroy implies quiet --------------------------------------------- */
    check_stage("destroy");
    long *dsrc = malloc(sizeof(long) * NW * NCTX);
    REQUIRE_NE(dsrc, NULL, "allocation failed");
    for (int i = 0; i < NCTX; i++) {
        for (int j = 0; j < NW; j++)
            dsrc[(size_t)i * NW + j] = val(me, 400 + i, j);
        long *dst = (i % 2) ? &gdata[me][0] : &hdata[(size_t)me * NW];
        /* nbi puts of distinct chunks, then destroy without quiet */
        int chunk = NW / NCTX;
        shmem_ctx_long_put_nbi(ctx[i], dst + i * chunk, &dsrc[(size_t)i * NW + i * chunk],
                               (size_t)chunk, right);
        shmem_ctx_long_atomic_add(ctx[i], &hcnt[3], 1L << i, right);
    }
    for (int i = 0; i < NCTX; i++)
        shmem_ctx_destroy(ctx[i]);
    shmem_barrier_all();
    {
        int chunk = NW / NCTX;
        for (int i = 0; i < NCTX; i++) {
            long *dst = (i % 2) ? &gdata[left][0] : &hdata[(size_t)left * NW];
            for (int j = i * chunk; j < (i + 1) * chunk; j++)
                REQUIRE_EQ(dst[j], val(left, 400 + i, j),
                           "destroy of context %d did not complete its nbi put: word %d", i, j);
        }
        REQUIRE_EQ(hcnt[3], (1L << NCTX) - 1, "destroy did not complete AMOs: %#lx", hcnt[3]);
    }
    /* A team's shareable contexts die with the team (the library destroys
     * them, completing their operations); a private one is ours to destroy
     * first.  Team-relative PE numbers: the team is every PE in reverse. */
    {
        shmem_team_t rev;
        int n = shmem_n_pes(), me = shmem_my_pe();
        REQUIRE_EQ(
            shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, n > 1 ? -1 : 1, n, NULL, 0, &rev), 0,
            "reversed split failed");
        shmem_ctx_t shared_ctx, private_ctx;
        REQUIRE_EQ(shmem_team_create_ctx(rev, 0, &shared_ctx), 0, "team ctx failed");
        REQUIRE_EQ(shmem_team_create_ctx(rev, SHMEM_CTX_PRIVATE, &private_ctx), 0,
                   "private team ctx failed");
        shmem_team_t got;
        REQUIRE(shmem_ctx_get_team(shared_ctx, &got) == 0 && got == rev,
                "ctx_get_team of team ctx");
        /* Team PE 0 is world PE n-1: each PE puts its number there. */
        long mine = me;
        shmem_ctx_long_put_nbi(shared_ctx, &gdata[0][me], &mine, 1, 0);
        shmem_ctx_long_atomic_add(private_ctx, &hcnt[4], 1, shmem_team_n_pes(rev) - 1);
        shmem_ctx_destroy(private_ctx);
        shmem_team_destroy(rev); /* also destroys shared_ctx, completing its put */
        shmem_barrier_all();
        if (me == n - 1)
            for (int p = 0; p < n; p++)
                REQUIRE_EQ(gdata[0][p], p, "team ctx put from PE %d landed wrong: %ld", p,
                           gdata[0][p]);
        if (me == 0)
            REQUIRE_EQ(hcnt[4], n, "team-relative AMO count %ld, expected %d", hcnt[4], n);
    }
    free(dsrc);
    free(src);
    shmem_barrier_all();
    shmem_free(hdata);
    shmem_free(hcnt);
    int status = check_done(
        "ctx", "%d contexts, invalid-context no-ops, pe_quiet, sessions, overlap, destroy", NCTX);
    shmem_finalize();
    return status;
}
