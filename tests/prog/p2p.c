/*
 * Point-to-point synchronization: wait_until, test and the _all/_any/_some
 * (+_vector) forms for every type (generated p2p_types.c), satisfied by a
 * neighbour's puts and AMOs or already satisfied, status masks and empty
 * sets; the deprecated waits; and the short and unsigned short sets of
 * shmemx.h (typed names and the C11 generics).
 */
#include "../common/check.h"

#include <shmemx.h>

int p2p_types_run(void);

static long g_dep[4];
static short g_short[2];
static unsigned short g_ushort[2];

static void deprecated(void)
{
    int me = shmem_my_pe(), right = check_right(), left = check_left();
    for (int i = 0; i < 4; i++)
        g_dep[i] = 0;
    g_short[0] = -2;
    g_ushort[0] = 60000;
    shmem_barrier_all();
    /* already satisfied */
    shmem_short_wait_until(&g_short[0], SHMEM_CMP_LT, 0);
    REQUIRE_EQ(shmem_short_test(&g_short[0], SHMEM_CMP_LT, -1), 1, "shmem_short_test -2 < -1");
    REQUIRE_EQ(shmem_short_test(&g_short[0], SHMEM_CMP_GT, -1), 0, "shmem_short_test -2 > -1");
    shmem_ushort_wait_until(&g_ushort[0], SHMEM_CMP_GT, 1000);
    REQUIRE_EQ(shmem_ushort_test(&g_ushort[0], SHMEM_CMP_GT, 1000), 1,
               "shmem_ushort_test 60000 > 1000");
    REQUIRE_EQ(shmem_ushort_test(&g_ushort[0], SHMEM_CMP_EQ, 1000), 0,
               "shmem_ushort_test 60000 == 1000");
    shmem_short_wait(&g_short[0], 5);
    shmem_wait(&g_dep[3], 1);
    shmem_int_wait((int *)&g_dep[2], 1);
    shmem_longlong_wait((long long *)&g_dep[1], 1);
    shmem_wait_until(&g_dep[3], SHMEM_CMP_EQ, 0L); /* the C11 generic */

    /* satisfied by the left neighbour */
    for (int round = 0; round < 2; round++) {
        if ((me % 2 == 0) == (round == 0)) {
            shmem_long_atomic_set(&g_dep[0], 7, right);
            shmem_long_atomic_set(&g_dep[1], 8, right);
            shmem_short_p(&g_short[1], 3, right);
            shmem_quiet();
        } else {
            shmem_wait(&g_dep[0], 0);
            REQUIRE_EQ(g_dep[0], 7, "shmem_wait returned with %ld (from PE %d)", g_dep[0], left);
            shmem_long_wait((long *)&g_dep[1], 0);
            REQUIRE_EQ(g_dep[1], 8, "shmem_long_wait returned with %ld", g_dep[1]);
            shmem_short_wait_until(&g_short[1], SHMEM_CMP_EQ, 3);
            REQUIRE_EQ(g_short[1], 3, "shmem_short_wait_until");
        }
    }
    shmem_barrier_all();
}

/* The sets of T (short or unsigned short, no AMOs): local tests and waits
 * that already hold, then waits that a neighbour's puts satisfy.  BIG does
 * not fit a signed short, so an unsigned compare shows in the results. */
#define SHORT_SETS(N, T, BIG)                                                                      \
    static T g_set_##N[8];                                                                         \
    static void short_sets_##N(void)                                                               \
    {                                                                                              \
        T *w = g_set_##N;                                                                          \
        int right = check_right();                                                                 \
        static const int st0[4] = {1, 0, 0, 0};                                                    \
        static const T va[4] = {1, 2, 3, 4}, vb[4] = {1, 2, 3, 5}, vd[4] = {1, 0, 3, 0};           \
        size_t idx[4];                                                                             \
        for (int i = 0; i < 4; i++)                                                                \
            w[i] = (T)(i + 1); /* 1 2 3 4 */                                                       \
        w[4] = w[5] = w[6] = w[7] = 0;                                                             \
        REQUIRE_EQ(shmem_##N##_test_all(w, 4, NULL, SHMEM_CMP_GE, 1), 1, #N " test_all GE 1");     \
        REQUIRE_EQ(shmem_##N##_test_all(w, 4, NULL, SHMEM_CMP_GE, 2), 0, #N " test_all GE 2");     \
        REQUIRE_EQ(shmem_##N##_test_all(w, 4, st0, SHMEM_CMP_GE, 2), 1, #N " test_all, 0 masked"); \
        REQUIRE_EQ(shmem_##N##_test_any(w, 4, NULL, SHMEM_CMP_EQ, 3), 2, #N " test_any EQ 3");     \
        REQUIRE_EQ(shmem_##N##_test_any(w, 4, NULL, SHMEM_CMP_EQ, 9), SIZE_MAX,                    \
                   #N " test_any EQ 9");                                                           \
        size_t n = shmem_##N##_test_some(w, 4, idx, NULL, SHMEM_CMP_GE, 3);                        \
        REQUIRE(n == 2 && idx[0] + idx[1] == 5 && (idx[0] == 2 || idx[0] == 3),                    \
                #N " test_some GE 3 gave %zu indices", n);                                         \
        REQUIRE_EQ(shmem_##N##_test_all_vector(w, 4, NULL, SHMEM_CMP_EQ, va), 1,                   \
                   #N " test_all_vector");                                                         \
        REQUIRE_EQ(shmem_##N##_test_all_vector(w, 4, NULL, SHMEM_CMP_EQ, vb), 0,                   \
                   #N " test_all_vector, one differs");                                            \
        REQUIRE_EQ(shmem_##N##_test_any_vector(w, 4, NULL, SHMEM_CMP_GT, va), SIZE_MAX,            \
                   #N " test_any_vector GT");                                                      \
        n = shmem_##N##_test_some_vector(w, 4, idx, NULL, SHMEM_CMP_EQ, vd);                       \
        REQUIRE(n == 2 && idx[0] + idx[1] == 2 && idx[0] != 1, #N " test_some_vector gave %zu",    \
                n);                                                                                \
        shmem_##N##_wait_until_all(w, 4, NULL, SHMEM_CMP_LE, 4);                                   \
        shmem_##N##_wait_until_all_vector(w, 4, NULL, SHMEM_CMP_EQ, va);                           \
        n = shmem_##N##_wait_until_any(w, 4, st0, SHMEM_CMP_LT, 3);                                \
        REQUIRE_EQ(n, 1, #N " wait_until_any LT 3, 0 masked, returned %zu", n);                    \
        n = shmem_##N##_wait_until_any_vector(w, 4, NULL, SHMEM_CMP_EQ, vb);                       \
        REQUIRE_LE(n, 2, #N " wait_until_any_vector returned %zu", n);                             \
        n = shmem_##N##_wait_until_some(w, 4, idx, NULL, SHMEM_CMP_EQ, 4);                         \
        REQUIRE(n == 1 && idx[0] == 3, #N " wait_until_some EQ 4 returned %zu", n);                \
        n = shmem_##N##_wait_until_some_vector(w, 4, idx, NULL, SHMEM_CMP_NE, vd);                 \
        REQUIRE(n == 2 && idx[0] + idx[1] == 4, #N " wait_until_some_vector returned %zu", n);     \
        /* the C11 generics of shmemx.h choose these routines */                                   \
        REQUIRE_EQ(shmem_test_any(w, 4, NULL, SHMEM_CMP_EQ, (T)4), 3, #N " generic test_any");     \
        REQUIRE_EQ(shmem_test_all_vector(w, 4, NULL, SHMEM_CMP_EQ, va), 1,                         \
                   #N " generic test_all_vector");                                                 \
        w[1] = (T)(BIG);                                                                           \
        n = shmem_##N##_test_any(w, 4, NULL, SHMEM_CMP_GT, 100);                                   \
        REQUIRE_EQ(n, ((T)(BIG) > 100 ? (size_t)1 : SIZE_MAX),                                     \
                   #N " test_any GT 100 with element 1 = %d returned %zu", (int)w[1], n);          \
        shmem_barrier_all();                                                                       \
        /* w[4..7] from the left neighbour: two words for _all, then one for _any */               \
        shmem_##N##_p(&w[5], 7, right);                                                            \
        shmem_##N##_p(&w[4], 6, right);                                                            \
        shmem_fence();                                                                             \
        shmem_##N##_p(&w[7], (T)(BIG), right);                                                     \
        shmem_quiet();                                                                             \
        shmem_wait_until_all(&w[4], 2, NULL, SHMEM_CMP_NE, (T)0);                                  \
        REQUIRE(w[4] == 6 && w[5] == 7, #N " wait_until_all (generic) returned with %d %d",        \
                (int)w[4], (int)w[5]);                                                             \
        n = shmem_wait_until_any(&w[6], 2, NULL, SHMEM_CMP_EQ, (T)(BIG));                          \
        REQUIRE(n == 1 && w[7] == (T)(BIG), #N " wait_until_any (generic) returned %zu", n);       \
        shmem_barrier_all();                                                                       \
    }

SHORT_SETS(short, short, -5)
SHORT_SETS(ushort, unsigned short, 60000)

int main(void)
{
    shmem_init();
    check_watchdog(150);
    int n = p2p_types_run();
    REQUIRE_EQ(n, 12, "the point-to-point table has %d types, the standard 12", n);
    check_stage("deprecated waits");
    deprecated();
    check_stage("short sets");
    short_sets_short();
    short_sets_ushort();
    int status = check_done("p2p");
    shmem_finalize();
    return status;
}
