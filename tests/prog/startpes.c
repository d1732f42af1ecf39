/*
 * start_pes: initializes once (further calls do nothing), and needs no
 * shmem_finalize: the library finalizes at exit, completing what is still
 * in flight.  A handler registered before start_pes runs after the
 * library's own one and checks both.
 */
#include "../common/check.h"

static long g_flag = -1, g_ring = -1;
static int g_me = -1, g_left = -1, g_np = 0;

static void after_library_exit(void)
{
    int flag = -1;
    shmem_query_initialized(&flag);
    if (flag != 0) {
        fprintf(stderr, "FAIL PE %d startpes.c: still initialized after exit (%d)\n", g_me, flag);
        _exit(1);
    }
    /* globals stay readable after finalization */
    if (g_flag != 1000 + g_left) {
        fprintf(stderr, "FAIL PE %d startpes.c: the put PE %d issued just before returning from main "
                "holds %ld, expected %d: the implicit finalization did not complete it\n",
                g_me, g_left, g_flag, 1000 + g_left);
        _exit(1);
    }
    if (g_me == 0) {
        printf("startpes: OK on %d PE%s\n", g_np, g_np == 1 ? "" : "s");
        fflush(stdout);
    }
}

int main(void)
{
    atexit(after_library_exit);
    start_pes(0);
    check_watchdog(60);
    int flag = -1;
    shmem_query_initialized(&flag);
    REQUIRE_EQ(flag, 1, "shmem_query_initialized after start_pes: %d", flag);
    int me = _my_pe(), np = _num_pes();
    REQUIRE(me == shmem_my_pe() && np == shmem_n_pes(),
            "_my_pe/_num_pes %d/%d, shmem_my_pe/n_pes %d/%d", me, np, shmem_my_pe(), shmem_n_pes());
    REQUIRE(me >= 0 && me < np, "PE %d of %d", me, np);
    g_me = me;
    g_np = np;
    g_left = check_left();

    long *h = shmem_malloc(sizeof(long));
    REQUIRE_NE(h, NULL, "shmem_malloc");
    *h = 77 + me;
    start_pes(np + 3); /* does nothing: same job, same heap */
    REQUIRE(_my_pe() == me && _num_pes() == np,
            "a second start_pes changed PE %d of %d to %d of %d", me, np, _my_pe(), _num_pes());
    shmem_barrier_all();
    REQUIRE_EQ(*h, 77 + me, "the heap changed across a second start_pes");
    REQUIRE_EQ(shmem_long_g(h, check_right()), 77 + check_right(), "get after a second start_pes");
    shmem_long_p(&g_ring, me, check_right());
    shmem_barrier_all();
    REQUIRE_EQ(g_ring, g_left, "ring put: %ld, expected %d", g_ring, g_left);
    shmem_free(h);

    /* no shmem_finalize and no barrier: exit must complete this */
    static long v; /* an nbi source must outlive main */
    v = 1000 + me;
    shmem_long_put_nbi(&g_flag, &v, 1, check_right());
    return 0;
}
