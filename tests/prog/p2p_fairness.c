/*
 * Fairness of the _any waits and tests (spec 1.5+, "Point-to-point
 * synchronization"): when several elements keep satisfying the condition,
 * repeated calls must eventually return each of them, not always the
 * first.  Local words only; every PE checks its own.
 */
#include "../common/check.h"

#define N 4
#define CALLS 256

static int g_int[N];

static void fair(int *iv, const char *where)
{
    int me = shmem_my_pe();
    for (int i = 0; i < N; i++)
        shmem_int_atomic_set(&iv[i], i + 1, me);
    shmem_quiet(); /* a non-fetching AMO is complete only after quiet */
    static const int v[N] = {1, 1, 1, 1};
    int hit[4][N];
    memset(hit, 0, sizeof hit);
    for (int c = 0; c < CALLS; c++) {
        size_t r[4];
        r[0] = shmem_int_test_any(iv, N, NULL, SHMEM_CMP_GE, 1);
        r[1] = shmem_int_wait_until_any(iv, N, NULL, SHMEM_CMP_GE, 1);
        r[2] = shmem_int_test_any_vector(iv, N, NULL, SHMEM_CMP_GE, v);
        r[3] = shmem_int_wait_until_any_vector(iv, N, NULL, SHMEM_CMP_GE, v);
        for (int k = 0; k < 4; k++) {
            REQUIRE_LT(r[k], N, "call %d of form %d returned %zu", c, k, r[k]);
            hit[k][r[k]] = 1;
        }
    }
    static const char *names[4] = {"test_any", "wait_until_any", "test_any_vector",
                                   "wait_until_any_vector"};
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < N; i++)
            REQUIRE(hit[k][i],
                    "shmem_int_%s (%s): %d calls with all %d elements satisfied never returned "
                    "index %d (returned only %s%s%s%s)",
                    names[k], where, CALLS, N, i, hit[k][0] ? "0 " : "", hit[k][1] ? "1 " : "",
                    hit[k][2] ? "2 " : "", hit[k][3] ? "3" : "");
}

int main(void)
{
    shmem_init();
    check_watchdog(60);
    int *h = shmem_malloc(N * sizeof(int));
    REQUIRE_NE(h, NULL, "shmem_malloc");
    fair(h, "heap");
    fair(g_int, "global");
    shmem_free(h);
    int status = check_done("p2p_fairness");
    shmem_finalize();
    return status;
}
