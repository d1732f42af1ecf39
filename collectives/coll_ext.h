/*
 * The interface between the core and a collectives component built as its
 * own shared object (coll-NAME.so, e.g. coll-mpi.so).  Such a component
 * links a library the core must not (MPI), so it is opened with dlopen
 * when SHMEM_COLLECTIVES names it (or auto picks it), by the loader that
 * opens transports (core/loader.c): the same folders, the same checks and
 * the same versioning rule as <plugshmem/transport.h> (major, minor, size).
 * It sees no core header but that one: a team is a handle it made from
 * the members' world PEs, sizes are bytes or elements, reductions name
 * their type and operator.  Deciding which operation runs where (auto, by
 * the rules the component gives), native fallbacks, the active-set cache
 * and the routine checks stay in the core (collectives/coll_ext.c).
 */
#ifndef PSHM_COLL_EXT_H
#define PSHM_COLL_EXT_H

#include <stddef.h>
#include <stdint.h>

#include "transport.h"

/* 1.0 was {unsigned version = 1, unsigned size}: read as a header, it is
 * major 1, refused by name.  2.0 is the base of this interface; 2.1
 * appended msg_from. */
#define PSHM_CEXT_ABI_MAJOR 2u
#define PSHM_CEXT_ABI_MINOR 1u

/* The operations auto decides on, indexing pshm_cext.auto_rules. */
enum { PSHM_CEXT_OP_BARRIER, PSHM_CEXT_OP_BCAST, PSHM_CEXT_OP_REDUCE, PSHM_CEXT_OP_SCAN,
       PSHM_CEXT_OP_FCOLLECT, PSHM_CEXT_OP_COLLECT, PSHM_CEXT_OP_ALLTOALL,
       PSHM_CEXT_OP_ALLTOALLS, PSHM_CEXT_OP_N };

/* A size no call reaches: "never" in a rule. */
#define PSHM_CEXT_NEVER SIZE_MAX

/* When auto runs one operation on the component rather than natively, by
 * bytes per PE.  Each case is decided the same on every member. */
struct pshm_cext_rule {
    /* Every member mapped (one node, bypass on): the component from this
     * many bytes. */
    size_t mapped_from;
    /* Some member reached through the transport: from this many bytes. */
    size_t unmapped_from;
    /* Over the transport pshm_cext.kin_transport names, which the
     * native algorithms then use for their data: the component in
     * [kin_from, kin_until), native outside. */
    size_t kin_from, kin_until;
};

/* pshm_cext.flags */
/* The component's library waits by spinning: on a mapped team with more
 * PEs on the node than cores auto stays native, and over its kin
 * transport with more PEs than cores on any node it always takes the
 * component (each native step would be a call that spins). */
#define PSHM_CEXT_SPINS (1u << 0)

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

/* Operators in the order of collectives/coll.h's PSHM_OP_*.  Every
 * function is mandatory: the loader refuses a descriptor without one. */
struct pshm_cext {
    pshm_abi_header hdr; /* PSHM_CEXT_HEADER */
    const char *name;    /* must match the file name coll-<name>.so */
    uint32_t flags;      /* PSHM_CEXT_* */
    /* auto's rules, indexed by PSHM_CEXT_OP_*; NULL: auto never picks
     * this component.  auto takes the first component found that has
     * them. */
    const struct pshm_cext_rule *auto_rules;
    /* The transport that runs on the component's own library (NULL if
     * none), for the rules' kin_from/kin_until. */
    const char *kin_transport;
    /* What it hands back to the native algorithms beyond reduction types,
     * one line for shmem_info (NULL: nothing). */
    const char *declines;
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

    /* ---- appended in 2.1 ---- */
    /* auto's rule, by PSHM_CEXT_OP_*, for a team whose native algorithms
     * run on the transport's messages (some member reached through a
     * transport that has them): the component from this many bytes.
     * unmapped_from was measured against native puts and flags, which the
     * messages replace.  NULL, or a 2.0 component: unmapped_from. */
    const size_t *msg_from;
};

/* The symbol a component exports, and its header. */
#define PSHM_CEXT_SYMBOL "plugshmem_collectives"
#define PSHM_CEXT_HEADER                                                                           \
    { PSHM_CEXT_ABI_MAJOR, PSHM_CEXT_ABI_MINOR, (uint32_t)sizeof(struct pshm_cext) }

#endif
