/*
 * The team routines: numbering, translation, configuration, results on
 * SHMEM_TEAM_INVALID, the shapes of strided and 2-D splits, return codes
 * that agree on every PE, splits of split teams, team contexts, and
 * thousands of create/destroy cycles (none may leak a team slot).
 */
#include "../common/check.h"

static int all_rc[256]; /* symmetric */

/* Every PE's rc must be the same: gather them on every PE. */
static void same_rc(int rc, const char *what)
{
    int np = shmem_n_pes();
    shmem_barrier_all();
    for (int p = 0; p < np; p++)
        shmem_int_p(&all_rc[shmem_my_pe()], rc, p);
    shmem_barrier_all();
    for (int p = 0; p < np; p++)
        REQUIRE_EQ(all_rc[p], rc, "%s: rc %d here, %d on PE %d", what, rc, all_rc[p], p);
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    check_watchdog(600);
    int np = shmem_n_pes(), me = shmem_my_pe();
    shmem_team_t t, x, y;
    shmem_team_config_t cfg = {0};

    check_stage("predefined");
    REQUIRE_EQ(shmem_team_my_pe(SHMEM_TEAM_WORLD), me, "world my_pe");
    REQUIRE_EQ(shmem_team_n_pes(SHMEM_TEAM_WORLD), np, "world n_pes");
    int sn = shmem_team_n_pes(SHMEM_TEAM_SHARED), sme = shmem_team_my_pe(SHMEM_TEAM_SHARED);
    REQUIRE(sn >= 1 && sn <= np && sme >= 0 && sme < sn, "shared team %d of %d", sme, sn);
    /* SHMEM_TEAM_SHARED: exactly the PEs shmem_ptr reaches. */
    for (int p = 0; p < np; p++) {
        int in = shmem_team_translate_pe(SHMEM_TEAM_WORLD, p, SHMEM_TEAM_SHARED) >= 0;
        REQUIRE_EQ(in, (shmem_ptr(&all_rc[0], p) != NULL || p == me),
                   "shared team vs shmem_ptr for PE %d", p);
    }
    REQUIRE_EQ(shmem_team_translate_pe(SHMEM_TEAM_SHARED, sme, SHMEM_TEAM_WORLD), me,
               "shared -> world");

    check_stage("invalid");
    REQUIRE_EQ(shmem_team_my_pe(SHMEM_TEAM_INVALID), -1, "my_pe(INVALID)");
    REQUIRE_EQ(shmem_team_n_pes(SHMEM_TEAM_INVALID), -1, "n_pes(INVALID)");
    REQUIRE_EQ(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD), -1,
               "translate from INVALID");
    REQUIRE_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, SHMEM_TEAM_INVALID), -1,
               "translate to INVALID");
    REQUIRE_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, np, SHMEM_TEAM_WORLD), -1,
               "translate out of range");
    REQUIRE_NE(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &cfg), 0,
               "get_config(INVALID)");
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    REQUIRE(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &ctx) != 0 && ctx == SHMEM_CTX_INVALID,
            "create_ctx(INVALID)");
    REQUIRE_EQ(shmem_team_ptr(SHMEM_TEAM_INVALID, &all_rc[0], 0), NULL, "team_ptr(INVALID)");
    shmem_team_destroy(SHMEM_TEAM_INVALID);
    t = SHMEM_TEAM_WORLD;
    int rc = shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &t);
    REQUIRE(rc != 0 && t == SHMEM_TEAM_INVALID, "split of INVALID: rc %d", rc);

    check_stage("bad arguments");
    rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, np + 1, NULL, 0, &t);
    REQUIRE(rc != 0 && t == SHMEM_TEAM_INVALID, "size n+1: rc %d", rc);
    same_rc(rc, "size n+1");
    rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 0, 2, NULL, 0, &t);
    REQUIRE(rc != 0 && t == SHMEM_TEAM_INVALID, "stride 0 size 2: rc %d", rc);
    rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 0, NULL, 0, &t);
    REQUIRE(rc != 0 && t == SHMEM_TEAM_INVALID, "size 0: rc %d", rc);

    check_stage("strided shapes");
    /* (start, stride, size) over the world. */
    int shapes[][3] = {{0, 1, np}, {np - 1, -1, np}, {0, 2, (np + 1) / 2}, {np - 1, 0, 1},
                       {np / 2, 1, np - np / 2}, {np - 1, -2, (np + 1) / 2}, {0, 3, (np + 2) / 3}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        int st = shapes[s][0], sd = shapes[s][1], sz = shapes[s][2];
        cfg.num_contexts = (int)s;
        rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, st, sd, sz, &cfg, SHMEM_TEAM_NUM_CONTEXTS, &t);
        REQUIRE_EQ(rc, 0, "split (%d,%d,%d): rc %d", st, sd, sz, rc);
        same_rc(rc, "split");
        int idx = -1;
        for (int i = 0; i < sz; i++)
            if (st + i * sd == me)
                idx = i;
        REQUIRE_EQ(shmem_team_my_pe(t), idx, "(%d,%d,%d): my_pe %d, expected %d", st, sd, sz,
                   shmem_team_my_pe(t), idx);
        if (idx < 0) {
            REQUIRE_EQ(t, SHMEM_TEAM_INVALID, "non-member got a team");
        } else {
            REQUIRE_EQ(shmem_team_n_pes(t), sz, "n_pes");
            for (int i = 0; i < sz; i++) {
                REQUIRE_EQ(shmem_team_translate_pe(t, i, SHMEM_TEAM_WORLD), st + i * sd,
                           "translate %d", i);
                REQUIRE_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, st + i * sd, t), i,
                           "translate back %d", i);
            }
            shmem_team_config_t got = {-1};
            REQUIRE(shmem_team_get_config(t, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0 &&
                        got.num_contexts == (int)s,
                    "get_config: %d", got.num_contexts);
            REQUIRE_EQ(shmem_team_get_config(t, 0, NULL), 0, "get_config mask 0");
            /* A team context speaks team numbering. */
            shmem_ctx_t c;
            REQUIRE_EQ(shmem_team_create_ctx(t, 0, &c), 0, "team_create_ctx");
            shmem_team_t back;
            REQUIRE(shmem_ctx_get_team(c, &back) == 0 && back == t, "ctx_get_team");
            int peer = (idx + 1) % sz;
            shmem_ctx_int_p(c, &all_rc[idx], 1000 + idx, peer);
            shmem_ctx_quiet(c);
            REQUIRE_EQ(shmem_team_sync(t), 0, "team_sync");
            int from = (idx - 1 + sz) % sz;
            REQUIRE_EQ(all_rc[from], 1000 + from, "team ctx put: got %d from team PE %d",
                       all_rc[from], from);
            REQUIRE_EQ(shmem_team_sync(t), 0, "team_sync");
            shmem_ctx_destroy(c);
            /* team_ptr in team numbering */
            void *pp = shmem_team_ptr(t, &all_rc[0], peer);
            REQUIRE_EQ(pp, shmem_ptr(&all_rc[0], st + peer * sd), "team_ptr");
        }
        shmem_team_destroy(t);
        shmem_barrier_all();
    }

    check_stage("split of a split");
    rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, np - 1, -1, np, NULL, 0, &t); /* reversed */
    REQUIRE_EQ(rc, 0, "reverse split");
    shmem_team_t u;
    rc = shmem_team_split_strided(t, 1 % np, 2, np > 1 ? np / 2 : 1, NULL, 0, &u); /* odd of reversed */
    REQUIRE_EQ(rc, 0, "split of split rc %d", rc);
    int ridx = np - 1 - me, expect = (np > 1 && ridx % 2 == 1) ? ridx / 2 : (np == 1 ? 0 : -1);
    REQUIRE_EQ(shmem_team_my_pe(u), expect, "split of split my_pe %d expected %d",
               shmem_team_my_pe(u), expect);
    if (u != SHMEM_TEAM_INVALID) {
        int un = shmem_team_n_pes(u);
        for (int i = 0; i < un; i++)
            REQUIRE_EQ(shmem_team_translate_pe(u, i, SHMEM_TEAM_WORLD), np - 1 - (1 % np + 2 * i),
                       "split of split translate %d", i);
        REQUIRE_EQ(shmem_team_translate_pe(u, 0, t), 1 % np, "translate to parent");
        REQUIRE_EQ(shmem_team_sync(u), 0, "sync u");
    }
    shmem_team_destroy(u);
    shmem_team_destroy(t);

    check_stage("2d");
    for (int xr = 1; xr <= np + 1; xr++) {
        rc = shmem_team_split_2d(SHMEM_TEAM_WORLD, xr, NULL, 0, &x, NULL, 0, &y);
        REQUIRE_EQ(rc, 0, "split_2d(%d) rc %d", xr, rc);
        same_rc(rc, "split_2d");
        int xe = xr > np ? np : xr;
        int xi = me % xe, yi = me / xe;
        int xn = (yi + 1) * xe <= np ? xe : np - yi * xe;
        int yn = (np - 1 - xi) / xe + 1;
        REQUIRE(shmem_team_my_pe(x) == xi && shmem_team_n_pes(x) == xn,
                "2d(%d) x: %d of %d, expected %d of %d", xr, shmem_team_my_pe(x),
                shmem_team_n_pes(x), xi, xn);
        REQUIRE(shmem_team_my_pe(y) == yi && shmem_team_n_pes(y) == yn,
                "2d(%d) y: %d of %d, expected %d of %d", xr, shmem_team_my_pe(y),
                shmem_team_n_pes(y), yi, yn);
        for (int i = 0; i < xn; i++)
            REQUIRE_EQ(shmem_team_translate_pe(x, i, SHMEM_TEAM_WORLD), yi * xe + i,
                       "2d x translate");
        for (int i = 0; i < yn; i++)
            REQUIRE_EQ(shmem_team_translate_pe(y, i, SHMEM_TEAM_WORLD), xi + i * xe,
                       "2d y translate");
        REQUIRE(shmem_team_sync(x) == 0 && shmem_team_sync(y) == 0, "2d sync");
        shmem_team_destroy(x);
        shmem_team_destroy(y);
    }

    check_stage("create/destroy loop");
    /* Thousands of cycles: a leaked slot would exhaust the pool. */
    long sum = 0;
    static long one = 1, got = 0;
    /* COLL_TEAM_CYCLES: fewer where each team costs an MPI communicator
     * (SHMEM_COLLECTIVES=mpi, tests/collmpi). */
    int cycles = getenv("COLL_TEAM_CYCLES") ? atoi(getenv("COLL_TEAM_CYCLES")) : 3000;
    for (int i = 0; i < cycles; i++) {
        rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, i % np, 1, np - i % np, NULL, 0, &t);
        REQUIRE_EQ(rc, 0, "cycle %d: rc %d", i, rc);
        if (t != SHMEM_TEAM_INVALID && i % 100 == 0) {
            REQUIRE_EQ(shmem_long_sum_reduce(t, &got, &one, 1), 0, "reduce on cycle team");
            REQUIRE_EQ(got, shmem_team_n_pes(t), "cycle %d: sum %ld on %d PEs", i, got,
                       shmem_team_n_pes(t));
            sum += got;
        }
        shmem_team_destroy(t);
    }
    check_stage("many live teams");
    /* Many live at once, then all destroyed: creation fails cleanly (the
     * same everywhere) when the pool is exhausted, and recovers. */
    shmem_team_t live[80];
    int nlive = 0, failed = 0;
    for (int i = 0; i < 80; i++) {
        rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, np, NULL, 0, &live[nlive]);
        same_rc(rc, "live split");
        if (rc) {
            REQUIRE_EQ(live[nlive], SHMEM_TEAM_INVALID, "failed split gave a team");
            failed++;
        } else {
            nlive++;
        }
    }
    REQUIRE_GE(nlive, 32, "only %d live teams", nlive);
    for (int i = 0; i < nlive; i++)
        REQUIRE_EQ(shmem_team_sync(live[i]), 0, "sync live %d", i);
    for (int i = nlive - 1; i >= 0; i--)
        shmem_team_destroy(live[i]);
    rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, np, NULL, 0, &t);
    REQUIRE_EQ(rc, 0, "split after releasing all");
    shmem_team_destroy(t);

    shmem_barrier_all();
    if (me == 0)
        printf("coll_teams: %d PEs, %ld checks passed (%d live teams, %d refused)\n", np,
               check_count(), nlive, failed);
    shmem_finalize();
    return 0;
}
