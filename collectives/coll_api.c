/* Above the component table: team and argument checks shared by every
 * component, the routine name for error messages, and the team forms of
 * barrier and sync. */
#include <unistd.h>

#include "coll.h"
#include "coll_state.h"
#include "error.h"
#include "sync.h"

static int bad_team(const char *routine, shmem_team_t team)
{
    PSHM_CHECK_INIT(routine);
    if (!team) {
        if (pshm_g.debug)
            pshm_error("%s: team is SHMEM_TEAM_INVALID", routine);
        return 1;
    }
    if (team->my_pe < 0) {
        if (pshm_g.debug)
            pshm_fatal("%s: PE %d is not a member of the team", routine, pshm_g.my_pe);
        return 1;
    }
    pshm_coll_routine = routine;
    pshm_coll_team = team;
    team->sym->l.calls++;
    return 0;
}

static void check_sym(const char *routine, const char *what, const void *p)
{
    size_t off;
    if (pshm_g.debug && pshm_seg_of(p, &off) < 0)
        pshm_fatal("%s: %s %p is not symmetric (neither in the symmetric heap nor in global or "
                   "static data)",
                   routine, what, p);
}

/* A symmetric buffer of n bytes: past the end of its segment the job ends
 * (a collective's copies into mapped peers check nothing after this), and
 * under SHMEM_DEBUG also past the end of its allocation. */
static void check_range(const char *routine, const char *what, const void *p, size_t n)
{
    size_t off;
    if (what[0] == 'd') /* sources may be private where peers never read them */
        check_sym(routine, what, p);
    if (n && pshm_seg_of(p, &off) >= 0)
        pshm_range_or_die(routine, what, p, n, &off);
}

int pshm_coll_sync(const char *routine, shmem_team_t team)
{
    if (bad_team(routine, team))
        return -1;
    return pshm_coll.barrier(team);
}

int pshm_coll_broadcast(const char *routine, shmem_team_t team, void *dest, const void *src,
                        size_t nbytes, int root)
{
    if (bad_team(routine, team))
        return -1;
    if (root < 0 || root >= team->n_pes) {
        if (pshm_g.debug)
            pshm_fatal("%s: PE_root %d is not in the team (0..%d)", routine, root, team->n_pes - 1);
        return -1;
    }
    check_range(routine, "dest", dest, nbytes);
    check_range(routine, "source", src, nbytes);
    return pshm_coll.broadcast(team, dest, src, nbytes, root);
}

int pshm_coll_reduce(const char *routine, shmem_team_t team, void *dest, const void *src,
                     size_t count, const struct pshm_red *r)
{
    if (bad_team(routine, team))
        return -1;
    check_range(routine, "dest", dest, count * r->esize);
    check_range(routine, "source", src, count * r->esize);
    return pshm_coll.reduce(team, dest, src, count, r);
}

int pshm_coll_scan(const char *routine, shmem_team_t team, void *dest, const void *src,
                   size_t count, const struct pshm_red *r, int exclusive)
{
    if (bad_team(routine, team))
        return -1;
    check_range(routine, "dest", dest, count * r->esize);
    check_range(routine, "source", src, count * r->esize);
    return pshm_coll.scan(team, dest, src, count, r, exclusive);
}

int pshm_coll_collect(const char *routine, shmem_team_t team, void *dest, const void *src,
                      size_t nbytes, int fixed)
{
    if (bad_team(routine, team))
        return -1;
    check_range(routine, "dest", dest, fixed ? nbytes * (size_t)team->n_pes : 0);
    check_range(routine, "source", src, nbytes);
    return fixed ? pshm_coll.fcollect(team, dest, src, nbytes)
                 : pshm_coll.collect(team, dest, src, nbytes);
}

int pshm_coll_alltoall(const char *routine, shmem_team_t team, void *dest, const void *src,
                       size_t nbytes)
{
    if (bad_team(routine, team))
        return -1;
    check_range(routine, "dest", dest, nbytes * (size_t)team->n_pes);
    check_range(routine, "source", src, nbytes * (size_t)team->n_pes);
    return pshm_coll.alltoall(team, dest, src, nbytes);
}

int pshm_coll_alltoalls(const char *routine, shmem_team_t team, void *dest, const void *src,
                        ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t esize)
{
    if (bad_team(routine, team))
        return -1;
    if (dst < 1 || sst < 1) {
        if (pshm_g.debug)
            pshm_fatal("%s: strides must be >= 1 (dst %td, sst %td)", routine, dst, sst);
        return -1;
    }
    check_sym(routine, "dest", dest);
    return pshm_coll.alltoalls(team, dest, src, dst, sst, nelems, esize);
}

/* ---- the world barrier, for the core and the API ------------------------ */

void pshm_barrier_world(void)
{
    pshm_coll_routine = "shmem_barrier_all";
    pshm_coll_team = &pshm_team_world;
    pshm_team_world.sym->l.calls++;
    pshm_coll.barrier(&pshm_team_world);
}

/* barrier_all completes this PE's communication first; sync_all does
 * not. */
PSHM_API void pshmem_barrier_all(void)
{
    PSHM_CHECK_INIT("shmem_barrier_all");
    pshm_quiet(&pshm_ctx_default);
    pshm_barrier_world();
}
#pragma weak shmem_barrier_all = pshmem_barrier_all

PSHM_API void pshmem_sync_all(void)
{
    PSHM_CHECK_INIT("shmem_sync_all");
    pshm_barrier_world();
}
#pragma weak shmem_sync_all = pshmem_sync_all

/* The team's collective count on PE x (its own copy, in its slot). */
static uint64_t calls_of(struct pshm_team *t, int x)
{
    uint64_t *mine = &t->sym->l.calls, v = 0;
    const char *b = pshm_mapped(mine, x);
    if (b)
        return __atomic_load_n((const uint64_t *)b, __ATOMIC_ACQUIRE);
    pshm_g.tp->get(pshm_ctx_default.t, x, PSHM_SEG_HEAP, (uintptr_t)mine - pshm_g.heap_lo, &v,
                   sizeof v);
    return v;
}

__attribute__((cold)) static void departed(uint64_t who)
{
    struct pshm_team *t = pshm_coll_team;
    int x = (int)(uint32_t)who - 1, at_exit = (int)(who >> 32);
    /* A PE that reached finalize has finished every collective it entered:
     * one of this team that made fewer calls than this PE will never enter
     * this one.  (A PE still in this call after a peer left is fine.) */
    if (!t || !t->sym || x < 0 || x >= pshm_g.n_pes || pshm_team_index_of(t, x) < 0 ||
        calls_of(t, x) >= t->sym->l.calls)
        return;
    struct pshm_internal *in = pshm_internal();
    int first = pshm_internal_amo(x, &in->fin_verdict, PSHM_AMO_CSWAP,
                                  (uint64_t)pshm_g.my_pe + 1, 0) == 0;
    /* One line for the job: the first PE to find it reports; the others
     * give it time to end the job. */
    if (!first)
        sleep(2);
    if (at_exit)
        pshm_fatal("PE %d exited without calling shmem_finalize, while PE %d waits for it in %s",
                   x, pshm_g.my_pe, pshm_coll_routine);
    pshm_fatal("PE %d called shmem_finalize while PE %d waits for it in %s", x, pshm_g.my_pe,
               pshm_coll_routine);
}

void pshm_coll_departed_check(void)
{
    if (!pshm_g.n_pes)
        return;
    uint64_t who = __atomic_load_n(&pshm_internal()->fin_who, __ATOMIC_ACQUIRE);
    if (PSHM_UNLIKELY(who))
        departed(who);
}

void pshm_coll_forget_team(struct pshm_team *t)
{
    if (pshm_coll_team == t)
        pshm_coll_team = NULL;
}
