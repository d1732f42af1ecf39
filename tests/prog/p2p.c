/*
 * Point-to-point synchronization: wait_until, test and the _all/_any/_some
 * (+_vector) forms for every type (generated p2p_types.c), satisfied by a
 * neighbour's puts and AMOs or already satisfied, status masks and empty
 * sets; and the deprecated waits.
 */
#include "check.h"

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
    CHECK(shmem_short_test(&g_short[0], SHMEM_CMP_LT, -1) == 1, "shmem_short_test -2 < -1");
    CHECK(shmem_short_test(&g_short[0], SHMEM_CMP_GT, -1) == 0, "shmem_short_test -2 > -1");
    shmem_ushort_wait_until(&g_ushort[0], SHMEM_CMP_GT, 1000);
    CHECK(shmem_ushort_test(&g_ushort[0], SHMEM_CMP_GT, 1000) == 1, "shmem_ushort_test 60000 > 1000");
    CHECK(shmem_ushort_test(&g_ushort[0], SHMEM_CMP_EQ, 1000) == 0, "shmem_ushort_test 60000 == 1000");
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
            CHECK(g_dep[0] == 7, "shmem_wait returned with %ld (from PE %d)", g_dep[0], left);
            shmem_long_wait((long *)&g_dep[1], 0);
            CHECK(g_dep[1] == 8, "shmem_long_wait returned with %ld", g_dep[1]);
            shmem_short_wait_until(&g_short[1], SHMEM_CMP_EQ, 3);
            CHECK(g_short[1] == 3, "shmem_short_wait_until");
        }
    }
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    check_watchdog(150);
    int n = p2p_types_run();
    CHECK(n == 12, "the point-to-point table has %d types, the standard 12", n);
    check_stage("deprecated waits");
    deprecated();
    check_summary("p2p");
    shmem_finalize();
    return 0;
}
