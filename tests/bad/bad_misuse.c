/* bad_misuse CASE [ARG]: one misuse, by PE 0 (the others wait in a
 * barrier), that must end the job with one line:
 *   before:ROUTINE   ROUTINE before shmem_init (barrier_all, quiet, fence,
 *                    set_lock, wait_until, broadcast, malloc, ctx_create,
 *                    team_split_strided, putmem)
 *   after:ROUTINE    the same after shmem_finalize (every PE)
 *   pe PE            shmem_long_p to PE ("npes": shmem_n_pes())
 *   get PE, amo PE, ctx_put PE   the same for a get, an AMO, a context put
 *   past_alloc       1 MiB put into shmem_malloc(16)
 *   past_heap OFF    64 bytes put at a shmem_malloc(16) block + OFF
 *   coll_past_alloc  a broadcast of 4 KiB into shmem_malloc(16) */
#include <shmem.h>
#include <string.h>

#include "bad_common.h"

static long word;
static char big[1 << 20];

static void routine(const char *r)
{
    static long lock;
    shmem_team_t t;
    shmem_ctx_t c;
    if (!strcmp(r, "barrier_all"))
        shmem_barrier_all();
    else if (!strcmp(r, "quiet"))
        shmem_quiet();
    else if (!strcmp(r, "fence"))
        shmem_fence();
    else if (!strcmp(r, "set_lock"))
        shmem_set_lock(&lock);
    else if (!strcmp(r, "wait_until"))
        shmem_long_wait_until(&word, SHMEM_CMP_EQ, 1);
    else if (!strcmp(r, "broadcast"))
        shmem_long_broadcast(SHMEM_TEAM_WORLD, &word, &word, 1, 0);
    else if (!strcmp(r, "malloc"))
        (void)shmem_malloc(64);
    else if (!strcmp(r, "ctx_create"))
        (void)shmem_ctx_create(0, &c);
    else if (!strcmp(r, "team_split_strided"))
        (void)shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, NULL, 0, &t);
    else if (!strcmp(r, "putmem"))
        shmem_putmem(&word, big, 8, 0);
    printf("%s returned\n", r);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    announce();
    if (!strncmp(what, "before:", 7)) {
        routine(what + 7);
        return 0;
    }
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (!strncmp(what, "after:", 6)) {
        shmem_finalize();
        routine(what + 6);
        return 0;
    }
    char *p = shmem_malloc(16);
    int pe = argc > 2 && !strcmp(argv[2], "npes") ? n : (int)arg_long(argc, argv, 2, 0);
    shmem_barrier_all();
    if (me == 0) {
        long v = 0;
        shmem_ctx_t c;
        if (!strcmp(what, "pe"))
            shmem_long_p(&word, 1, pe);
        else if (!strcmp(what, "get"))
            v = shmem_long_g(&word, pe);
        else if (!strcmp(what, "amo"))
            v = shmem_long_atomic_fetch_add(&word, 1, pe);
        else if (!strcmp(what, "ctx_put") && shmem_ctx_create(0, &c) == 0)
            shmem_ctx_long_put(c, &word, &v, 1, pe);
        else if (!strcmp(what, "past_alloc"))
            shmem_putmem(p, big, sizeof big, 1 % n);
        else if (!strcmp(what, "past_heap"))
            shmem_putmem(p + arg_long(argc, argv, 2, 0), big, 64, 1 % n);
        printf("PE 0: not stopped (%ld)\n", v);
    }
    if (!strcmp(what, "coll_past_alloc"))
        shmem_broadcastmem(SHMEM_TEAM_WORLD, p, big, 4096, 0);
    shmem_barrier_all();
    printf("PE %d: not stopped\n", me);
    shmem_finalize();
    return 0;
}
