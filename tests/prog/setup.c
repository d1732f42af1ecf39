/*
 * Setup, exit and query: shmem_init/finalize (nested pairs, and init again
 * after a full finalize), shmem_init_thread at every level, the queries,
 * accessibility, shmem_ptr, the information routines, and the shared-memory
 * objects of the job being unlinked once shmem_init returns.
 *
 * Usage: setup [N]   N: the number of PEs the job was started with.
 */
#include <glob.h>
#include <string.h>
#include <limits.h>

#include "../common/check.h"

#define MAXPE 64

int g_init = 42;          /* initialized data */
long g_bss[MAXPE];        /* bss */
static long g_static[MAXPE]; /* static, bss */

static void no_shm_objects(void)
{
    const char *tag = getenv("PLUGSHMEM_JOB_TAG");
    if (!tag || !*tag)
        return;
    char pat[256];
    snprintf(pat, sizeof pat, "/dev/shm/psm-%s-*", tag);
    glob_t g;
    int rc = glob(pat, 0, NULL, &g);
    /* libfabric's shm provider keeps its endpoints' objects (psm-TAG-PE-ofi-N)
     * for the life of the job; the library's own must all be gone. */
    size_t ours = 0;
    const char *example = "";
    for (size_t i = 0; rc == 0 && i < g.gl_pathc; i++)
        if (!strstr(g.gl_pathv[i], "-ofi-")) {
            ours++;
            example = g.gl_pathv[i];
        }
    REQUIRE(ours == 0 && (rc == 0 || rc == GLOB_NOMATCH),
            "after shmem_init, %zu shared-memory object(s) of this job remain, e.g. %s", ours,
            example);
    if (rc == 0)
        globfree(&g);
}

/* A round of communication on whatever initialization is current. */
static void ring_check(const char *when)
{
    int me = shmem_my_pe(), np = shmem_n_pes(), right = check_right(), left = check_left();
    long *h = shmem_malloc(2 * sizeof(long));
    REQUIRE_NE(h, NULL, "shmem_malloc (%s)", when);
    h[0] = -1;
    h[1] = 1000 + me;
    shmem_barrier_all();
    shmem_long_p(&h[0], 100 + me, right);
    shmem_barrier_all();
    REQUIRE_EQ(h[0], 100 + left, "%s: put from PE %d holds %ld", when, left, h[0]);
    REQUIRE_EQ(shmem_long_g(&h[1], left), 1000 + left, "%s: get from PE %d", when, left);
    /* global data of the left neighbour, as it set it before any finalize */
    REQUIRE_EQ(shmem_int_g(&g_init, left), 7000 + left, "%s: global of PE %d reads %d", when, left,
               shmem_int_g(&g_init, left));
    (void)np;
    shmem_free(h);
}

static void init_finalize_cycles(int me, int np)
{
    int flag = -1;

    /* nested pairs: only the last finalize ends the library */
    check_stage("nested init");
    shmem_init();
    shmem_query_initialized(&flag);
    REQUIRE_EQ(flag, 1, "query_initialized after a second shmem_init: %d", flag);
    REQUIRE(shmem_my_pe() == me && shmem_n_pes() == np, "PE %d of %d after a second shmem_init",
            shmem_my_pe(), shmem_n_pes());
    shmem_finalize();
    shmem_query_initialized(&flag);
    REQUIRE_EQ(flag, 1, "query_initialized after the inner shmem_finalize: %d", flag);
    ring_check("after the inner finalize");
    shmem_finalize();
    shmem_query_initialized(&flag);
    REQUIRE_EQ(flag, 0, "query_initialized after the last shmem_finalize: %d", flag);
    /* globals stay readable after shmem_finalize */
    REQUIRE_EQ(g_init, 7000 + me, "global after shmem_finalize: %d", g_init);
    shmem_finalize(); /* an extra one does nothing */
    shmem_query_initialized(&flag);
    REQUIRE_EQ(flag, 0, "query_initialized after an extra shmem_finalize: %d", flag);

    /* init again, at every thread level */
    static const int levels[] = {SHMEM_THREAD_SINGLE, SHMEM_THREAD_FUNNELED,
                                 SHMEM_THREAD_SERIALIZED, SHMEM_THREAD_MULTIPLE};
    for (int l = 0; l < 4; l++) {
        check_stage("init_thread");
        int prov = -99, q = -99;
        int rc = shmem_init_thread(levels[l], &prov);
        REQUIRE_EQ(rc, 0, "shmem_init_thread(%d) returned %d", levels[l], rc);
        REQUIRE(prov >= SHMEM_THREAD_SINGLE && prov <= SHMEM_THREAD_MULTIPLE,
                "shmem_init_thread(%d) provided %d", levels[l], prov);
        shmem_query_thread(&q);
        REQUIRE_EQ(q, prov, "shmem_query_thread gives %d, shmem_init_thread provided %d", q, prov);
        shmem_query_initialized(&flag);
        REQUIRE_EQ(flag, 1, "query_initialized after shmem_init_thread: %d", flag);
        REQUIRE(shmem_my_pe() == me && shmem_n_pes() == np, "PE %d of %d after re-initialization",
                shmem_my_pe(), shmem_n_pes());
        no_shm_objects();
        ring_check("after re-initialization");
        /* a nested shmem_init_thread keeps the level */
        int prov2 = -99;
        REQUIRE_EQ(shmem_init_thread(SHMEM_THREAD_SINGLE, &prov2), 0, "nested shmem_init_thread");
        REQUIRE_EQ(prov2, prov, "nested shmem_init_thread provided %d, the library runs at %d",
                   prov2, prov);
        shmem_finalize();
        shmem_finalize();
        shmem_query_initialized(&flag);
        REQUIRE_EQ(flag, 0, "query_initialized after finalize: %d", flag);
    }
    check_stage("final init");
    shmem_init();
}

int main(int argc, char **argv)
{
    int expect = argc > 1 ? atoi(argv[1]) : 0;
    int flag = -1, prov = -99;
    shmem_query_initialized(&flag);
    REQUIRE_EQ(flag, 0, "shmem_query_initialized before shmem_init: %d", flag);
    shmem_query_thread(&prov); /* callable at any time */
    REQUIRE(SHMEM_THREAD_SINGLE < SHMEM_THREAD_FUNNELED &&
                SHMEM_THREAD_FUNNELED < SHMEM_THREAD_SERIALIZED &&
                SHMEM_THREAD_SERIALIZED < SHMEM_THREAD_MULTIPLE,
            "thread levels must increase");

    shmem_init();
    check_watchdog(120);
    no_shm_objects();
    shmem_query_initialized(&flag);
    REQUIRE_EQ(flag, 1, "shmem_query_initialized after shmem_init: %d", flag);
    int me = shmem_my_pe(), np = shmem_n_pes();
    REQUIRE(np >= 1 && np <= MAXPE, "shmem_n_pes() = %d", np);
    if (expect)
        REQUIRE_EQ(np, expect, "shmem_n_pes() = %d, the job has %d", np, expect);
    REQUIRE(me >= 0 && me < np, "shmem_my_pe() = %d of %d", me, np);
    REQUIRE(_my_pe() == me && _num_pes() == np, "_my_pe/_num_pes give %d/%d", _my_pe(), _num_pes());
    shmem_query_thread(&prov);
    REQUIRE(prov >= SHMEM_THREAD_SINGLE && prov <= SHMEM_THREAD_MULTIPLE, "shmem_query_thread: %d",
            prov);

    /* every PE number is taken exactly once */
    check_stage("pe numbers");
    int *seen = shmem_calloc(MAXPE, sizeof(int));
    REQUIRE_NE(seen, NULL, "shmem_calloc");
    shmem_int_atomic_inc(&seen[me], 0);
    shmem_barrier_all();
    if (me == 0)
        for (int q = 0; q < np; q++)
            REQUIRE_EQ(seen[q], 1, "PE number %d taken %d times", q, seen[q]);
    shmem_free(seen);

    /* information */
    check_stage("info");
    int major = -1, minor = -1;
    shmem_info_get_version(&major, &minor);
    REQUIRE(major == SHMEM_MAJOR_VERSION && minor == SHMEM_MINOR_VERSION,
            "shmem_info_get_version gives %d.%d, the header %d.%d", major, minor,
            SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
    REQUIRE(major == 1 && minor == 6, "OpenSHMEM %d.%d, expected 1.6", major, minor);
    char name[SHMEM_MAX_NAME_LEN + 64];
    memset(name, 'Z', sizeof name);
    shmem_info_get_name(name);
    REQUIRE_NE(memchr(name, '\0', SHMEM_MAX_NAME_LEN), NULL,
               "shmem_info_get_name: no NUL in %d bytes", SHMEM_MAX_NAME_LEN);
    REQUIRE_GT(strlen(name), 0, "shmem_info_get_name gives an empty name");
    REQUIRE_STR_EQ(name, SHMEM_VENDOR_STRING, "shmem_info_get_name gives '%s', the header '%s'",
                   name, SHMEM_VENDOR_STRING);
    for (size_t i = SHMEM_MAX_NAME_LEN; i < sizeof name; i++)
        REQUIRE(name[i] == 'Z', "shmem_info_get_name wrote past SHMEM_MAX_NAME_LEN (byte %zu)", i);

    /* accessibility */
    check_stage("accessible");
    static int s_local;
    int stack_var = 0;
    long *h = shmem_malloc(MAXPE * sizeof(long));
    long *priv = malloc(sizeof(long));
    REQUIRE(h && priv, "allocation");
    for (int q = 0; q < np; q++) {
        REQUIRE_EQ(shmem_pe_accessible(q), 1, "shmem_pe_accessible(%d)", q);
        REQUIRE_EQ(shmem_addr_accessible(h, q), 1, "shmem_addr_accessible(heap, %d)", q);
        REQUIRE_EQ(shmem_addr_accessible(&h[MAXPE - 1], q), 1,
                   "shmem_addr_accessible(heap end, %d)", q);
        REQUIRE_EQ(shmem_addr_accessible(&g_init, q), 1,
                   "shmem_addr_accessible(initialized global, %d)", q);
        REQUIRE_EQ(shmem_addr_accessible(&g_bss[3], q), 1, "shmem_addr_accessible(bss global, %d)",
                   q);
        REQUIRE_EQ(shmem_addr_accessible(&g_static[1], q), 1,
                   "shmem_addr_accessible(static global, %d)", q);
        REQUIRE_EQ(shmem_addr_accessible(&s_local, q), 1,
                   "shmem_addr_accessible(function static, %d)", q);
        REQUIRE_EQ(shmem_addr_accessible(&stack_var, q), 0, "shmem_addr_accessible(stack, %d)", q);
        REQUIRE_EQ(shmem_addr_accessible(NULL, q), 0, "shmem_addr_accessible(NULL, %d)", q);
        REQUIRE_EQ(shmem_addr_accessible(priv, q), 0, "shmem_addr_accessible(malloc, %d)", q);
    }
    const int bad[] = {-1, np, np + 1, 1000000, INT_MAX, INT_MIN};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        REQUIRE_EQ(shmem_pe_accessible(bad[i]), 0, "shmem_pe_accessible(%d)", bad[i]);
        REQUIRE_EQ(shmem_addr_accessible(h, bad[i]), 0, "shmem_addr_accessible(heap, %d)", bad[i]);
        REQUIRE_EQ(shmem_ptr(h, bad[i]), NULL, "shmem_ptr(heap, %d)", bad[i]);
    }

    /* shmem_ptr: every PE of the job is on this node, in one of
     * SHMEM_EMULATE_NODES emulated nodes (PE number modulo the count), or
     * on one of PSHM_TEST_NODES real hosts the launcher filled round-robin
     * (tests/portability/multihost.sh). */
    check_stage("shmem_ptr");
    const char *en = getenv("PSHM_TEST_NODES");
    if (!en)
        en = getenv("SHMEM_EMULATE_NODES");
    int nodes = en && atoi(en) > 1 ? atoi(en) : 1;
    int bypass = getenv("SHMEM_BYPASS") == NULL || strcmp(getenv("SHMEM_BYPASS"), "0") != 0;
    for (int q = 0; q < MAXPE; q++)
        h[q] = g_bss[q] = g_static[q] = -1;
    shmem_barrier_all();
    for (int q = 0; q < np; q++) {
        long *ph = shmem_ptr(h, q), *pg = shmem_ptr(g_bss, q), *ps = shmem_ptr(g_static, q);
        /* Load/store must work for exactly the PEs of SHMEM_TEAM_SHARED: all
         * of this (emulated) node, or only this PE when SHMEM_BYPASS=0. */
        int shared = shmem_team_translate_pe(SHMEM_TEAM_WORLD, q, SHMEM_TEAM_SHARED) >= 0;
        REQUIRE(q == me || shared == (bypass && q % nodes == me % nodes),
                "PE %d %s SHMEM_TEAM_SHARED", q, shared ? "is in" : "is not in");
        if (!shared) {
            REQUIRE_EQ(ph, NULL,
                       "shmem_ptr(heap, %d) is not NULL for a PE outside SHMEM_TEAM_SHARED", q);
            continue;
        }
        REQUIRE_NE(ph, NULL, "shmem_ptr(heap, %d) is NULL on one node", q);
        REQUIRE(pg != NULL && ps != NULL, "shmem_ptr(global, %d) is NULL on one node", q);
        if (q == me)
            REQUIRE(ph == h && pg == g_bss && ps == g_static,
                    "shmem_ptr to this PE is not the address");
        REQUIRE_EQ(shmem_team_ptr(SHMEM_TEAM_WORLD, h, q), ph,
                   "shmem_team_ptr(WORLD) != shmem_ptr");
        REQUIRE_EQ(shmem_ptr(&stack_var, q), NULL, "shmem_ptr(stack, %d) is not NULL", q);
        REQUIRE_EQ(shmem_ptr(priv, q), NULL, "shmem_ptr(malloc, %d) is not NULL", q);
        REQUIRE_EQ(shmem_ptr(NULL, q), NULL, "shmem_ptr(NULL, %d) is not NULL", q);
        ph[me] = me * 100 + q;
        pg[me] = me * 100 + q + 1;
        ps[me] = me * 100 + q + 2;
    }
    shmem_barrier_all();
    for (int q = 0; q < np; q++) {
        if (shmem_team_translate_pe(SHMEM_TEAM_WORLD, q, SHMEM_TEAM_SHARED) < 0)
            continue; /* q had no load/store access to this PE */
        REQUIRE_EQ(h[q], q * 100 + me, "store through shmem_ptr(heap) by PE %d: %ld", q, h[q]);
        REQUIRE_EQ(g_bss[q], q * 100 + me + 1, "store through shmem_ptr(global) by PE %d: %ld", q,
                   g_bss[q]);
        REQUIRE_EQ(g_static[q], q * 100 + me + 2, "store through shmem_ptr(static) by PE %d: %ld",
                   q, g_static[q]);
    }
    /* and the owner's stores are read through the pointer */
    h[MAXPE - 1] = 5000 + me;
    shmem_barrier_all();
    for (int q = 0; q < np; q++) {
        long *ph = shmem_ptr(h, q);
        if (!ph)
            continue; /* outside SHMEM_TEAM_SHARED, checked above */
        REQUIRE_EQ(ph[MAXPE - 1], 5000 + q, "load through shmem_ptr from PE %d: %ld", q,
                   ph[MAXPE - 1]);
    }
    shmem_barrier_all();
    shmem_free(h);
    free(priv);

    g_init = 7000 + me;
    shmem_barrier_all();
    init_finalize_cycles(me, np);

    shmem_query_initialized(&flag);
    REQUIRE_EQ(flag, 1, "query_initialized after the final shmem_init: %d", flag);
    ring_check("final");
    int status = check_done("setup");
    shmem_finalize();
    return status;
}
