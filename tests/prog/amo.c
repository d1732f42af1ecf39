/*
 * AMO: every routine of the standard, extended and bitwise tables for every
 * type (generated amo_types.c: scripts with every fetched value checked,
 * then all PEs hammering words on PE 0), on heap and global targets; and
 * the deprecated names, which call the same code.
 */
#include "../common/check.h"

int amo_types_run(void);

static long g_dep[5];

static void deprecated(long *w)
{
    int me = shmem_my_pe(), np = shmem_n_pes(), right = check_right();
    int *wi = (int *)w;
    long long *wll = (long long *)&w[1];
    double *wd = (double *)&w[2];
    float *wf = (float *)&w[3];
    /* each PE uses only its right neighbour's words, which only it touches */
    shmem_barrier_all();
    shmem_int_set(wi, 5, right);
    REQUIRE_EQ(shmem_int_fetch(wi, right), 5, "shmem_int_fetch");
    REQUIRE_EQ(shmem_int_cswap(wi, 4, 9, right), 5, "shmem_int_cswap (failing)");
    REQUIRE_EQ(shmem_int_cswap(wi, 5, 9, right), 5, "shmem_int_cswap");
    REQUIRE_EQ(shmem_int_fadd(wi, 3, right), 9, "shmem_int_fadd");
    REQUIRE_EQ(shmem_int_finc(wi, right), 12, "shmem_int_finc");
    shmem_int_inc(wi, right);
    shmem_int_add(wi, 10, right);
    REQUIRE_EQ(shmem_int_swap(wi, -1, right), 24, "shmem_int_swap");
    shmem_longlong_set(wll, 1LL << 40, right);
    shmem_longlong_add(wll, 1, right);
    shmem_longlong_inc(wll, right);
    REQUIRE_EQ(shmem_longlong_fadd(wll, 2, right), (1LL << 40) + 2, "shmem_longlong_fadd");
    REQUIRE_EQ(shmem_longlong_finc(wll, right), (1LL << 40) + 4, "shmem_longlong_finc");
    REQUIRE_EQ(shmem_longlong_cswap(wll, (1LL << 40) + 5, 7, right), (1LL << 40) + 5,
               "shmem_longlong_cswap");
    REQUIRE_EQ(shmem_longlong_swap(wll, 8, right), 7, "shmem_longlong_swap");
    REQUIRE_EQ(shmem_longlong_fetch(wll, right), 8, "shmem_longlong_fetch");
    shmem_double_set(wd, 2.5, right);
    REQUIRE_EQ(shmem_double_swap(wd, -0.75, right), 2.5, "shmem_double_swap");
    REQUIRE_EQ(shmem_double_fetch(wd, right), -0.75, "shmem_double_fetch");
    shmem_float_set(wf, 1.25f, right);
    REQUIRE_EQ(shmem_float_swap(wf, 3.5f, right), 1.25f, "shmem_float_swap");
    REQUIRE_EQ(shmem_float_fetch(wf, right), 3.5f, "shmem_float_fetch");
    REQUIRE_EQ(shmem_int_fetch(wi, right), -1, "shmem_int_fetch after swap");
    shmem_barrier_all();
    shmem_long_add(&w[4], me + 1, 0);
    shmem_barrier_all();
    long sum = 0;
    for (int q = 0; q < np; q++)
        sum += q + 1;
    if (me == 0)
        REQUIRE_EQ(w[4], sum, "shmem_long_add from every PE gave %ld, expected %ld", w[4], sum);
    REQUIRE(*wi == -1 && *wll == 8 && *wd == -0.75 && *wf == 3.5f,
            "own words after the left neighbour's AMOs: %d %lld %g %g", *wi, *wll, *wd,
            (double)*wf);
    shmem_barrier_all();
    if (me == 0)
        w[4] = 0;
}

int main(void)
{
    shmem_init();
    check_watchdog(150);
    int n = amo_types_run();
    REQUIRE_EQ(n, 14, "the extended AMO table has %d types, the standard 14", n);

    check_stage("deprecated AMOs");
    long *h = shmem_calloc(5, sizeof(long));
    REQUIRE_NE(h, NULL, "shmem_calloc");
    deprecated(h);
    shmem_free(h);
    deprecated(g_dep);

    int status = check_done("amo");
    shmem_finalize();
    return status;
}
