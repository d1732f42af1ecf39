/*
 * deprecated.c -- the deprecated routines a 1.6 library still provides.
 *
 *   AMO: shmem_{int,long,longlong}_{add,cswap,fadd,finc,inc} and
 *        shmem_{float,double,int,long,longlong}_{swap,fetch,set}, applied
 *        to the right neighbour's words with exact results;
 *   p2p: shmem_wait(long *, long), shmem_{short,int,long,longlong}_wait,
 *        shmem_{short,ushort}_wait_until, shmem_{short,ushort}_test, and
 *        the long-typed C function shmem_wait_until(long *, int, long)
 *        called through its address and as (shmem_wait_until)(...).
 * (The program starts with shmem_init, not start_pes.)
 */
#include "p2p_test.h"

static int dint;
static long dlong;
static long long dll;
static float dflt;
static double ddbl;

static long wl, wl2, wl3;
static short ws, ws2;
static unsigned short wus;
static int wi;
static long long wll;

#define AMO_SEQ(TN, T, var)                                                                        \
    do {                                                                                           \
        shmem_##TN##_set(&var, (T)10, right);                                                      \
        shmem_quiet();                                                                             \
        REQUIRE_EQ(shmem_##TN##_fetch(&var, right), (T)10, #TN "_set/fetch");                      \
        shmem_##TN##_add(&var, (T)5, right);                                                       \
        shmem_quiet();                                                                             \
        REQUIRE_EQ(shmem_##TN##_fetch(&var, right), (T)15, #TN "_add: %lld",                       \
                   (long long)shmem_##TN##_fetch(&var, right));                                    \
        shmem_##TN##_inc(&var, right);                                                             \
        shmem_quiet();                                                                             \
        REQUIRE_EQ(shmem_##TN##_fadd(&var, (T)3, right), (T)16, #TN "_inc then _fadd");            \
        REQUIRE_EQ(shmem_##TN##_finc(&var, right), (T)19, #TN "_finc");                            \
        REQUIRE_EQ(shmem_##TN##_cswap(&var, (T)20, (T)7, right), (T)20, #TN "_cswap (match)");     \
        REQUIRE_EQ(shmem_##TN##_cswap(&var, (T)99, (T)1, right), (T)7, #TN "_cswap (no match)");   \
        REQUIRE_EQ(shmem_##TN##_swap(&var, (T)42, right), (T)7, #TN "_swap");                      \
        REQUIRE_EQ(shmem_##TN##_fetch(&var, right), (T)42, #TN "_fetch after swap");               \
    } while (0)

int main(void)
{
    shmem_init();
    check_watchdog(120);
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    check_stage("deprecated AMOs");
    AMO_SEQ(int, int, dint);
    AMO_SEQ(long, long, dlong);
    AMO_SEQ(longlong, long long, dll);
    shmem_float_set(&dflt, 1.5f, right);
    shmem_quiet();
    REQUIRE_EQ(shmem_float_fetch(&dflt, right), 1.5f, "float_set/fetch");
    REQUIRE_EQ(shmem_float_swap(&dflt, -2.25f, right), 1.5f, "float_swap");
    REQUIRE_EQ(shmem_float_fetch(&dflt, right), -2.25f, "float_fetch after swap");
    shmem_double_set(&ddbl, 1e300, right);
    shmem_quiet();
    REQUIRE_EQ(shmem_double_fetch(&ddbl, right), 1e300, "double_set/fetch");
    REQUIRE_EQ(shmem_double_swap(&ddbl, -0.125, right), 1e300, "double_swap");
    REQUIRE_EQ(shmem_double_fetch(&ddbl, right), -0.125, "double_fetch after swap");
    shmem_barrier_all();
    REQUIRE(dint == 42 && dlong == 42 && dll == 42 && dflt == -2.25f && ddbl == -0.125,
            "final values from PE %d: %d %ld %lld %g %g", left, dint, dlong, dll, (double)dflt,
            ddbl);
    shmem_barrier_all();

    check_stage("deprecated waits");
    /* Each PE releases its right neighbour in turn through every wait. */
    shmem_long_atomic_set(&wl, 5, right);
    shmem_wait(&wl, 0); /* until != 0 */
    REQUIRE_EQ(wl, 5, "shmem_wait returned with %ld", wl);
    shmem_int_atomic_set(&wi, 6, right);
    shmem_int_wait(&wi, 0);
    REQUIRE_EQ(wi, 6, "shmem_int_wait returned with %d", wi);
    shmem_long_atomic_set(&wl2, 7, right);
    shmem_long_wait(&wl2, 0);
    REQUIRE_EQ(wl2, 7, "shmem_long_wait returned with %ld", wl2);
    shmem_longlong_atomic_set(&wll, 8, right);
    shmem_longlong_wait(&wll, 0);
    REQUIRE_EQ(wll, 8, "shmem_longlong_wait returned with %lld", wll);
    shmem_short_p(&ws, 9, right);
    shmem_short_wait(&ws, 0);
    REQUIRE_EQ(ws, 9, "shmem_short_wait returned with %d", ws);
    shmem_short_p(&ws2, -3, right);
    shmem_short_wait_until(&ws2, SHMEM_CMP_LT, 0);
    REQUIRE_EQ(ws2, -3, "shmem_short_wait_until(LT 0) returned with %d", ws2);
    REQUIRE_EQ(shmem_short_test(&ws2, SHMEM_CMP_EQ, -3), 1, "shmem_short_test(EQ) false");
    REQUIRE_EQ(shmem_short_test(&ws2, SHMEM_CMP_GT, 0), 0, "shmem_short_test(GT 0) true");
    shmem_ushort_p(&wus, 60000, right);
    shmem_ushort_wait_until(&wus, SHMEM_CMP_GT, 32768);
    REQUIRE_EQ(wus, 60000, "shmem_ushort_wait_until (unsigned compare) returned with %u", wus);
    REQUIRE_EQ(shmem_ushort_test(&wus, SHMEM_CMP_GE, 60000), 1, "shmem_ushort_test(GE) false");
    REQUIRE_EQ(shmem_ushort_test(&wus, SHMEM_CMP_LT, 1), 0, "shmem_ushort_test(LT 1) true");

    /* The long-typed C function, through its address and by name. */
    void (*wu)(long *, int, long) = shmem_wait_until;
    shmem_long_atomic_set(&wl3, 11, right);
    wu(&wl3, SHMEM_CMP_EQ, 11);
    REQUIRE_EQ(wl3, 11, "shmem_wait_until through a pointer returned with %ld", wl3);
    shmem_barrier_all();
    shmem_long_atomic_add(&wl3, 1, right);
    (shmem_wait_until)(&wl3, SHMEM_CMP_GE, 12);
    REQUIRE_EQ(wl3, 12, "(shmem_wait_until)(...) returned with %ld", wl3);
    /* and the generic of the same name on a long still works */
    shmem_wait_until(&wl3, SHMEM_CMP_EQ, 12);

    int status = check_done("deprecated", "30 deprecated AMO names, 10 deprecated waits/tests");
    shmem_finalize();
    return status;
}
