/* Above the component table: team and argument checks shared by every
 * component, the routine name for error messages, and the team forms of
 * barrier and sync. */
#include "coll.h"
#include "coll_state.h"
#include "error.h"
#include "sync.h"

static int bad_team(const char *routine, shmem_team_t team)
{
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
    check_sym(routine, "dest", dest);
    return pshm_coll.broadcast(team, dest, src, nbytes, root);
}

int pshm_coll_reduce(const char *routine, shmem_team_t team, void *dest, const void *src,
                     size_t count, const struct pshm_red *r)
{
    if (bad_team(routine, team))
        return -1;
    check_sym(routine, "dest", dest);
    check_sym(routine, "source", src);
    return pshm_coll.reduce(team, dest, src, count, r);
}

int pshm_coll_scan(const char *routine, shmem_team_t team, void *dest, const void *src,
                   size_t count, const struct pshm_red *r, int exclusive)
{
    if (bad_team(routine, team))
        return -1;
    check_sym(routine, "dest", dest);
    check_sym(routine, "source", src);
    return pshm_coll.scan(team, dest, src, count, r, exclusive);
}

int pshm_coll_collect(const char *routine, shmem_team_t team, void *dest, const void *src,
                      size_t nbytes, int fixed)
{
    if (bad_team(routine, team))
        return -1;
    check_sym(routine, "dest", dest);
    return fixed ? pshm_coll.fcollect(team, dest, src, nbytes)
                 : pshm_coll.collect(team, dest, src, nbytes);
}

int pshm_coll_alltoall(const char *routine, shmem_team_t team, void *dest, const void *src,
                       size_t nbytes)
{
    if (bad_team(routine, team))
        return -1;
    check_sym(routine, "dest", dest);
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
    pshm_coll.barrier(&pshm_team_world);
}
