/*
 * The collectives component table.
 *
 * One slot per collective operation.  At shmem_init the table is filled
 * from the component SHMEM_COLLECTIVES names ("native" by default); every
 * slot the component leaves NULL falls back to the generic (native)
 * implementation, so a component may implement only what it does better
 * (an MPI component: barrier, broadcast and reductions on a cached
 * communicator per team).  The operations receive validated arguments in
 * team numbering and byte counts; typed entry points, argument checks and
 * the active-set mapping live above the table (coll_api.c, activeset.c)
 * and are shared by all components.
 */
#ifndef PSHM_COLL_H
#define PSHM_COLL_H

#include <stddef.h>

#include "team.h"

/* Reduction operators (the order of the specification's tables). */
enum { PSHM_OP_AND, PSHM_OP_OR, PSHM_OP_XOR, PSHM_OP_MAX, PSHM_OP_MIN, PSHM_OP_SUM, PSHM_OP_PROD,
       PSHM_OP_N };

/* inout[i] = inout[i] OP in[i], i < n */
typedef void (*pshm_red_fn)(void *inout, const void *in, size_t n);

/* What a reduction reduces: the generated code has one per TYPENAME and op. */
struct pshm_red {
    pshm_red_fn fn;
    size_t esize;
    int op;           /* PSHM_OP_* */
    const char *type; /* TYPENAME of the specification, e.g. "int", "complexd" */
};

struct pshm_coll_ops {
    const char *name;
    /* Per-team state: called at team creation (on every member, after the
     * team is usable by the native collectives) and destruction. */
    int (*team_create)(struct pshm_team *t);
    void (*team_destroy)(struct pshm_team *t);
    /* Synchronization only: the caller completes outstanding RMA first
     * when the routine requires it. */
    int (*barrier)(struct pshm_team *t);
    int (*broadcast)(struct pshm_team *t, void *dest, const void *src, size_t nbytes, int root);
    int (*reduce)(struct pshm_team *t, void *dest, const void *src, size_t count,
                  const struct pshm_red *r);
    /* exclusive: 0 inscan, 1 exscan */
    int (*scan)(struct pshm_team *t, void *dest, const void *src, size_t count,
                const struct pshm_red *r, int exclusive);
    int (*collect)(struct pshm_team *t, void *dest, const void *src, size_t nbytes);
    int (*fcollect)(struct pshm_team *t, void *dest, const void *src, size_t nbytes);
    int (*alltoall)(struct pshm_team *t, void *dest, const void *src, size_t nbytes);
    /* Strides in elements of esize bytes, as the API gives them. */
    int (*alltoalls)(struct pshm_team *t, void *dest, const void *src, ptrdiff_t dst,
                     ptrdiff_t sst, size_t nelems, size_t esize);
};

/* The table in use (filled by pshm_coll_init). */
extern struct pshm_coll_ops pshm_coll PSHM_HIDDEN;
/* The native component, also the generic fallback of every slot. */
extern const struct pshm_coll_ops pshm_coll_native PSHM_HIDDEN;

/* A team's life in the collectives layer, for core/team.c.  attach binds
 * the team's slot (t->slot) to its state, zero as every unused slot is.
 * detach runs on every member of a team being destroyed: it completes
 * what is in flight towards the slot, meets the other members, lets the
 * component drop its per-team state and zeroes the slot. */
void pshm_coll_team_attach(struct pshm_team *t) PSHM_HIDDEN;
void pshm_coll_team_detach(struct pshm_team *t) PSHM_HIDDEN;

/* Fills the table; called at the end of pshm_teams_init. */
void pshm_coll_init(void) PSHM_HIDDEN;
void pshm_coll_fini(void) PSHM_HIDDEN;

/* Native algorithms (collectives/native_*.c), selected per call. */
int pshm_native_barrier(struct pshm_team *t) PSHM_HIDDEN;
int pshm_native_barrier_dissemination(struct pshm_team *t) PSHM_HIDDEN;
int pshm_native_barrier_tree(struct pshm_team *t) PSHM_HIDDEN;
int pshm_native_barrier_counter(struct pshm_team *t) PSHM_HIDDEN;
int pshm_native_broadcast(struct pshm_team *t, void *dest, const void *src, size_t nbytes, int root) PSHM_HIDDEN;
int pshm_native_reduce(struct pshm_team *t, void *dest, const void *src, size_t count,
                       const struct pshm_red *r) PSHM_HIDDEN;
int pshm_native_scan(struct pshm_team *t, void *dest, const void *src, size_t count,
                     const struct pshm_red *r, int exclusive) PSHM_HIDDEN;
int pshm_native_collect(struct pshm_team *t, void *dest, const void *src, size_t nbytes) PSHM_HIDDEN;
int pshm_native_fcollect(struct pshm_team *t, void *dest, const void *src, size_t nbytes) PSHM_HIDDEN;
int pshm_native_alltoall(struct pshm_team *t, void *dest, const void *src, size_t nbytes) PSHM_HIDDEN;
int pshm_native_alltoalls(struct pshm_team *t, void *dest, const void *src, ptrdiff_t dst,
                          ptrdiff_t sst, size_t nelems, size_t esize) PSHM_HIDDEN;
/* Largest block the mailbox alltoall takes on t (0: none). */
size_t pshm_native_mailbox_max(const struct pshm_team *t) PSHM_HIDDEN;
int pshm_native_alltoall_mailbox(struct pshm_team *t, void *dest, const void *src, ptrdiff_t dst,
                                 ptrdiff_t sst, size_t nelems, size_t esize) PSHM_HIDDEN;

/* Entry points used by the generated and hand-written API (coll_api.c):
 * they check the team and arguments, name the routine in errors, and call
 * the table. */
int pshm_coll_sync(const char *routine, shmem_team_t team) PSHM_HIDDEN;
int pshm_coll_broadcast(const char *routine, shmem_team_t team, void *dest, const void *src,
                        size_t nbytes, int root) PSHM_HIDDEN;
int pshm_coll_reduce(const char *routine, shmem_team_t team, void *dest, const void *src,
                     size_t count, const struct pshm_red *r) PSHM_HIDDEN;
int pshm_coll_scan(const char *routine, shmem_team_t team, void *dest, const void *src,
                   size_t count, const struct pshm_red *r, int exclusive) PSHM_HIDDEN;
int pshm_coll_collect(const char *routine, shmem_team_t team, void *dest, const void *src,
                      size_t nbytes, int fixed) PSHM_HIDDEN;
int pshm_coll_alltoall(const char *routine, shmem_team_t team, void *dest, const void *src,
                       size_t nbytes) PSHM_HIDDEN;
int pshm_coll_alltoalls(const char *routine, shmem_team_t team, void *dest, const void *src,
                        ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t esize) PSHM_HIDDEN;

/* Deprecated active-set forms (activeset.c).  An active set equal to the
 * world team runs the team algorithms; any other uses pSync, which it
 * leaves holding SHMEM_SYNC_VALUE. */
void pshm_as_barrier(const char *routine, int start, int logstride, int size, long *pSync,
                     int quiet) PSHM_HIDDEN;
void pshm_as_broadcast(const char *routine, void *dest, const void *src, size_t nbytes, int root,
                       int start, int logstride, int size, long *pSync) PSHM_HIDDEN;
void pshm_as_collect(const char *routine, void *dest, const void *src, size_t nbytes, int fixed,
                     int start, int logstride, int size, long *pSync) PSHM_HIDDEN;
void pshm_as_alltoalls(const char *routine, void *dest, const void *src, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems, size_t esize, int start, int logstride,
                       int size, long *pSync) PSHM_HIDDEN;
void pshm_as_reduce(const char *routine, void *dest, const void *src, int count,
                    const struct pshm_red *r, int start, int logstride, int size,
                    long *pSync) PSHM_HIDDEN;

/* Internal allreduce of 64-bit words with OR over a team (team creation). */
int pshm_coll_or_u64(struct pshm_team *t, uint64_t *v, size_t n) PSHM_HIDDEN;
/* A barrier over all PEs without completing outstanding operations. */
void pshm_barrier_world(void) PSHM_HIDDEN;
/* In a collective's wait: ends the job if a PE of the team left without
 * entering this collective (core/coll_layer.h). */
void pshm_coll_departed_check(void) PSHM_HIDDEN;
/* A team about to be destroyed is no longer this thread's latest
 * collective team (pshm_coll_departed_check reads it). */
void pshm_coll_forget_team(struct pshm_team *t) PSHM_HIDDEN;

#endif
