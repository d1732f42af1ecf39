/*
 * PlugSHMEM transport plugin ABI.
 *
 * A transport plugin is a shared object that exports exactly one symbol,
 * PSHM_TRANSPORT_SYMBOL, a pshm_transport_desc.  This header is everything a
 * plugin sees of the core: the core hands it a pshm_core_services table at
 * init, and the plugin hands back a pshm_transport_ops table.  Any change to
 * a structure below that is not an append at the end bumps
 * PSHM_TRANSPORT_ABI_VERSION.
 *
 * Addresses: a remote location is named by (pe, segment, offset), never by a
 * virtual address, because segments are mapped at different addresses in
 * every PE.  PE numbers are always world ranks: the core translates
 * team-relative numbers before calling a plugin.
 */
#ifndef PSHM_TRANSPORT_H
#define PSHM_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#define PSHM_TRANSPORT_ABI_VERSION 1u
#define PSHM_TRANSPORT_SYMBOL "plugshmem_transport"

/* Symmetric segments every PE has. */
enum pshm_seg {
    PSHM_SEG_HEAP = 0, /* the symmetric heap, internal area included */
    PSHM_SEG_DATA = 1, /* the executable's writable data and bss */
    PSHM_NSEGS = 2
};

/* Atomic operations.  Non-fetching forms pass fetch == NULL. */
enum pshm_amo_op {
    PSHM_AMO_ADD,
    PSHM_AMO_AND,
    PSHM_AMO_OR,
    PSHM_AMO_XOR,
    PSHM_AMO_SWAP,  /* fetch old, store operand */
    PSHM_AMO_CSWAP, /* compare with *compare, store operand if equal, fetch old */
    PSHM_AMO_READ,  /* fetch */
    PSHM_AMO_SET,   /* store operand */
    PSHM_AMO_NOPS
};

/* Operand types.  Signedness matters only for ADD overflow, which is
 * two's-complement for both, so 32/64-bit integer types collapse to two. */
enum pshm_amo_type {
    PSHM_T_U32,
    PSHM_T_U64,
    PSHM_T_FLOAT,
    PSHM_T_DOUBLE,
    PSHM_T_NTYPES
};

/* Capability flags in pshm_transport_ops.caps */
#define PSHM_CAP_AMO_CPU_COHERENT (1u << 0) /* its AMOs are atomic w.r.t. CPU atomics */
#define PSHM_CAP_NEEDS_PROGRESS (1u << 1)   /* targets must call progress() to serve ops */
#define PSHM_CAP_THREAD_SAFE (1u << 2)      /* ops may be called concurrently on one ctx */

struct pshm_segment_info {
    void *base;
    size_t size;
};

/* What the core offers a plugin.  Valid from query() until fini() returns. */
typedef struct pshm_core_services {
    uint32_t abi_version; /* PSHM_TRANSPORT_ABI_VERSION of the core */
    int my_pe;
    int n_pes;
    int n_local;         /* PEs on this node, this one included */
    const int *local_of; /* local_of[pe]: index on this node, or -1 if off-node */
    struct pshm_segment_info seg[PSHM_NSEGS]; /* this PE's segments */
    /* Per-PE mapping of peers' segments by the core (NULL where not mapped);
     * a plugin needs them only to serve on-node traffic the core routed to
     * it. */
    char *const *peer_base[PSHM_NSEGS];
    /* Bootstrap collectives over all PEs: 0 on success. */
    int (*allgather)(const void *mine, void *all, size_t len);
    int (*barrier)(void);
    /* Read a setting: the environment, as the core parsed it. */
    const char *(*getenv)(const char *name);
    /* Report an error: one line, prefixed by the core with the PE number. */
    void (*error)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
    /* Whether SHMEM_DEBUG is on. */
    int debug;
    /* Appended: the thread level the program asked for at initialization
     * (SHMEM_THREAD_SINGLE .. SHMEM_THREAD_MULTIPLE, the values of shmem.h),
     * so that a plugin locks its shared state only when threads may share
     * it.  0 (SINGLE) in query() and shmem_info. */
    int thread_level;
} pshm_core_services;

/* A transport context; NULL is the default context. */
typedef void *pshm_tctx;

typedef struct pshm_transport_ops {
    uint32_t caps;
    size_t max_inject; /* puts up to this size complete locally at once */

    /* Contexts.  options are SHMEM_CTX_* bits.  Returns 0 and a context. */
    int (*ctx_create)(long options, pshm_tctx *ctx);
    void (*ctx_destroy)(pshm_tctx ctx);

    /* RMA.  put returns when src may be reused; get when dst is filled.
     * The _nbi forms may return earlier; quiet completes them. */
    void (*put)(pshm_tctx, int pe, int seg, size_t off, const void *src, size_t len);
    void (*get)(pshm_tctx, int pe, int seg, size_t off, void *dst, size_t len);
    void (*put_nbi)(pshm_tctx, int pe, int seg, size_t off, const void *src, size_t len);
    void (*get_nbi)(pshm_tctx, int pe, int seg, size_t off, void *dst, size_t len);

    /* AMO: *fetch receives the old value (NULL for non-fetching ops).
     * nbi != 0 lets a fetching op complete at the next quiet; *operand and
     * *compare are read before amo() returns in every case (the core may
     * pass values on its stack). */
    void (*amo)(pshm_tctx, int pe, int seg, size_t off, int op, int type, const void *operand,
                const void *compare, void *fetch, int nbi);

    /* Ordering and completion. */
    void (*fence)(pshm_tctx);
    void (*quiet)(pshm_tctx);
    /* Serve incoming traffic once; NULL if the transport never needs it. */
    void (*progress)(void);
} pshm_transport_ops;

/* Why query() failed goes to why[0..whylen). */
typedef struct pshm_transport_desc {
    uint32_t abi_version; /* PSHM_TRANSPORT_ABI_VERSION the plugin was built for */
    uint32_t size;        /* sizeof(pshm_transport_desc) */
    const char *name;     /* must match the file name transport-<name>.so */
    const char *description;
    /* Returns a priority >= 0 if usable here, or -1 with the reason in why.
     * Must not start network resources: it is also called by shmem_info. */
    int (*query)(const pshm_core_services *svc, char *why, size_t whylen);
    /* Returns 0 and the ops table, or nonzero having reported the error. */
    int (*init)(const pshm_core_services *svc, const pshm_transport_ops **ops);
    void (*fini)(void);
    /* Appended, optional (check size): the highest priority query() could
     * return for this job, computed without touching the network (only
     * svc's rank, size and locality).  Lets the core skip querying a
     * plugin that cannot beat one already found usable: querying a network
     * plugin means probing its providers, which costs far more than the
     * rest of shmem_init.  NULL means "unknown": always query. */
    int (*max_priority)(const pshm_core_services *svc);
} pshm_transport_desc;

#endif
