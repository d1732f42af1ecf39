/*
 * The interface between the core and a collectives component built as its
 * own shared object (coll-NAME.so, today only coll-mpi.so).  Such a
 * component links a library the core must not (MPI), so it is opened with
 * dlopen when SHMEM_COLLECTIVES names it, like a transport.  It sees no
 * core header: a team is a handle it made from the members' world PEs,
 * sizes are bytes or elements, reductions name their type and operator.
 * Deciding which operation runs where (auto), native fallbacks, the
 * active-set cache and the routine checks stay in the core
 * (collectives/coll_ext.c).  Built with the core, never by third parties:
 * the version only catches a stale file.
 */
#ifndef PSHM_COLL_EXT_H
#define PSHM_COLL_EXT_H

#include <stddef.h>

#define PSHM_CEXT_VERSION 1

/* Returned by an operation it does not serve (e.g. a reduction type MPI
 * lacks, a count past MPI's int): the core runs the native one instead.
 * Every member returns it for the same call. */
#define PSHM_CEXT_NATIVE 1

struct pshm_cext_svc {
    int my_pe, n_pes;
    int thread_multiple; /* the program asked SHMEM_THREAD_MULTIPLE */
    const char *(*getenv)(const char *name);
    /* One line, prefixed and printed as the core's errors are. */
    void (*error)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
    /* Ends the job through the launcher. */
    __attribute__((noreturn)) void (*fatal)(const char *fmt, ...)
        __attribute__((format(printf, 1, 2)));
};

/* Operators in the order of collectives/coll.h's PSHM_OP_*. */
struct pshm_cext {
    unsigned version;
    unsigned size; /* sizeof(struct pshm_cext) */
    const char *name;
    /* Whether init could succeed, without starting anything (shmem_info):
     * 0, or -1 with one line in why. */
    int (*query)(const struct pshm_cext_svc *svc, char *why, size_t whylen);
    int (*init)(const struct pshm_cext_svc *svc, char *why, size_t whylen);
    void (*fini)(void);
    /* The library and how it was started, for shmem_info; after init. */
    const char *(*describe)(void);
    /* Whether the component reduces TYPENAME with op (PSHM_OP_*). */
    int (*has_reduction)(const char *type, int op);

    /* A team of n members, this PE being member me, member i being world
     * PE world[i]; called by the members only, in the same order on each.
     * NULL on failure (one line said why). */
    void *(*team_create)(int n, int me, const int *world);
    void (*team_destroy)(void *team);

    /* 0, PSHM_CEXT_NATIVE, or -1. */
    int (*barrier)(void *team);
    /* root_writes: the root's dest receives the data too (team form). */
    int (*broadcast)(void *team, void *dest, const void *src, size_t nbytes, int root,
                     int root_writes);
    int (*reduce)(void *team, void *dest, const void *src, size_t count, size_t esize,
                  const char *type, int op);
    int (*scan)(void *team, void *dest, const void *src, size_t count, size_t esize,
                const char *type, int op, int exclusive);
    int (*fcollect)(void *team, void *dest, const void *src, size_t nbytes);
    int (*collect)(void *team, void *dest, const void *src, size_t nbytes);
    int (*alltoall)(void *team, void *dest, const void *src, size_t nbytes);
    /* Strides in elements of esize bytes, both >= 1. */
    int (*alltoalls)(void *team, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                     size_t nelems, size_t esize);
};

/* The symbol a component exports. */
#define PSHM_CEXT_SYMBOL "plugshmem_collectives"

#endif
