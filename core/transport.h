/*
 * PlugSHMEM transport plugin ABI, version 2 (minor 6).
 *
 * A transport plugin is a shared object, transport-NAME.so, that exports
 * exactly one symbol, PSHM_TRANSPORT_SYMBOL, a pshm_transport_desc.  This
 * header is everything a plugin sees of the core (it needs only the C
 * library's <stddef.h> and <stdint.h>); it is installed as
 * <plugshmem/transport.h>.  The core hands the plugin a pshm_core_services
 * table at query() and init(), and init() hands back a pshm_transport_ops
 * table.  docs/writing-a-transport.md is the guide; this file is the
 * contract.
 *
 * Versions.  Every table starts with a pshm_abi_header: major, minor, size.
 *  - major: any change that is not an append at the end of a table.  The
 *    core refuses a plugin of another major, at load, naming both versions.
 *  - minor: appends.  ABI 2.0 is the base every ABI 2 plugin has; 2.1
 *    appended the optional ops after "progress" in pshm_transport_ops;
 *    2.2 the explicit non-blocking (nbe) ops after "reserved" (2.1's
 *    "coll") and nbe_completion at the end of the descriptor; 2.3 the
 *    typed setting getters (get_bool ... get_string) at the end of
 *    pshm_core_services; 2.4 the p op; 2.5 the message ops (msg_send,
 *    msg_recv); 2.6 block; 2.7 poll, each at the end of
 *    pshm_transport_ops.
 *  - size: sizeof the table as the plugin was built.  A field exists only
 *    if it lies wholly within size (PSHM_ABI_HAS): the core treats the
 *    fields a shorter table lacks as absent (NULL, 0), and ignores what a
 *    longer one has beyond what it knows.
 * The core checks, per table the plugin gives it (descriptor at load, ops
 * at init): same major; then, for a minor the core knows, size at least
 * that minor's size of the table; for a newer minor, size at least the
 * core's own size of the table (a newer minor only appends).  A plugin
 * that fails is refused with one line naming both versions (and, for a
 * short table, both sizes).
 * The other way round, a plugin built for a newer minor than the core it
 * runs in must test PSHM_ABI_HAS(svc, pshm_core_services, field) before
 * using a services field appended after 2.0.
 *
 * Addresses: a remote location is named by (pe, segment, offset), never by a
 * virtual address, because segments are mapped at different addresses in
 * every PE.  PE numbers are always world ranks: the core translates
 * team-relative numbers before calling a plugin.
 *
 * Errors: ops return nothing.  A plugin that cannot complete an operation
 * calls svc->fatal(), which ends the whole job through the launcher with
 * its message; it never calls abort() or exit(), which would leave the
 * other PEs waiting.  query() explains a refusal in why; init() reports
 * with svc->error() and returns nonzero.
 *
 * C and C++: the header compiles as both, with C linkage for everything
 * it declares.  Define the descriptor with PSHM_TRANSPORT_EXPORT (below)
 * in either language.
 */
#ifndef PSHM_TRANSPORT_H
#define PSHM_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#define PSHM_TRANSPORT_ABI_MAJOR 2u
#define PSHM_TRANSPORT_ABI_MINOR 7u
#define PSHM_TRANSPORT_SYMBOL "plugshmem_transport"

/*
 * The definition of the descriptor:
 *
 *   PSHM_TRANSPORT_EXPORT const pshm_transport_desc plugshmem_transport = {...};
 *
 * The core finds it with dlsym by its plain name, and a plugin is often
 * built with -fvisibility=hidden, so it must be visible whatever the
 * flags.  In C++ two more things would hide it: a const object at
 * namespace scope has internal linkage (GCC then ignores the visibility
 * attribute, with a warning), and its name would be mangled.  extern "C"
 * on the definition itself cures both.
 */
#if defined(__GNUC__) || defined(__clang__)
#define PSHM_TRANSPORT_VISIBLE __attribute__((visibility("default")))
#else
#define PSHM_TRANSPORT_VISIBLE
#endif
#ifdef __cplusplus
#define PSHM_TRANSPORT_EXPORT extern "C" PSHM_TRANSPORT_VISIBLE
#else
#define PSHM_TRANSPORT_EXPORT PSHM_TRANSPORT_VISIBLE
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* First in every table.  An ABI 1 descriptor began with a 32-bit version
 * and a 32-bit size, so on the little-endian machines it was built for it
 * reads as major 1: refused with a message, not misread. */
typedef struct pshm_abi_header {
    uint16_t major;
    uint16_t minor;
    uint32_t size;
} pshm_abi_header;

/* The header of a table of this build: {major, minor, sizeof(type)}. */
#define PSHM_ABI_HEADER(type)                                                                      \
    { PSHM_TRANSPORT_ABI_MAJOR, PSHM_TRANSPORT_ABI_MINOR, (uint32_t)sizeof(type) }

/* Whether table (a pointer) has field: it lies wholly within hdr.size. */
#define PSHM_ABI_HAS(table, type, field)                                                           \
    ((table)->hdr.size >= offsetof(type, field) + sizeof(((type *)0)->field))

/* Symmetric segments every PE has. */
enum pshm_seg {
    PSHM_SEG_HEAP = 0, /* the symmetric heap, internal area included */
    PSHM_SEG_DATA = 1, /* the executable's writable data and bss */
    PSHM_NSEGS = 2
};
/* Segments registered later (seg_register) take indices PSHM_NSEGS to
 * PSHM_MAX_SEGS - 1. */
#define PSHM_MAX_SEGS 16

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

/* One AMO (op, a PSHM_AMO_* code) as a CPU atomic on *p, a uint32_t or
 * uint64_t; the old value.  The core applies on-node AMOs with it; a plugin
 * that applies its peers' AMOs at the target itself (the mpi transport's
 * active messages) uses the same instructions, which is what makes the two
 * atomic with each other and lets it declare PSHM_CAP_AMO_CPU_COHERENT.
 * GNU C (a statement expression, __atomic builtins); where op is a
 * constant at the call site the switch folds to one instruction. */
#define PSHM_CPU_AMO(p, op, v, cmp)                                                                \
    ({                                                                                             \
        __typeof__(*(p)) r_ = 0;                                                                   \
        switch (op) {                                                                              \
        case PSHM_AMO_ADD: r_ = __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); break;                 \
        case PSHM_AMO_AND: r_ = __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); break;                 \
        case PSHM_AMO_OR: r_ = __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); break;                   \
        case PSHM_AMO_XOR: r_ = __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); break;                 \
        case PSHM_AMO_SWAP: r_ = __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); break;               \
        case PSHM_AMO_CSWAP:                                                                       \
            r_ = (cmp);                                                                            \
            __atomic_compare_exchange_n(p, &r_, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);         \
            break;                                                                                 \
        case PSHM_AMO_READ: r_ = __atomic_load_n(p, __ATOMIC_SEQ_CST); break;                      \
        case PSHM_AMO_SET: __atomic_store_n(p, v, __ATOMIC_SEQ_CST); break;                        \
        }                                                                                          \
        r_;                                                                                        \
    })

/* Operand types.  Signedness matters only for ADD overflow, which is
 * two's-complement for both, so 32/64-bit integer types collapse to two. */
enum pshm_amo_type {
    PSHM_T_U32,
    PSHM_T_U64,
    PSHM_T_FLOAT,
    PSHM_T_DOUBLE,
    PSHM_T_NTYPES
};

/* Capability flags in pshm_transport_ops.caps, decided by init() (they may
 * depend on the provider found and on svc->thread_level). */
/* Its AMOs are atomic with respect to CPU atomics on the same word: the
 * core may then mix its own load/store atomics on mapped peers with the
 * plugin's on one word (multi-node jobs). */
#define PSHM_CAP_AMO_CPU_COHERENT (1u << 0)
/* At the svc->thread_level init() was given, ops may be called from several
 * threads at once, on the same shared context or on different ones
 * (SHMEM_THREAD_MULTIPLE; private contexts stay with their thread).  Without
 * it, the
 * core provides at most SHMEM_THREAD_SERIALIZED: calls may still come from
 * different threads, one at a time. */
#define PSHM_CAP_THREAD_SAFE (1u << 1)
/* Every operation, the _nbi forms included, is complete at the target when
 * it returns: fence and quiet have nothing to do and may be NULL. */
#define PSHM_CAP_COMPLETE_ON_RETURN (1u << 2)

/* Flags in pshm_transport_desc.flags, known before init(). */
/* The plugin serves on-node peers through the core's mappings of their
 * segments (svc->peer_base): the core maps on-node peers even when it does
 * not use the mappings itself (SHMEM_BYPASS=0). */
#define PSHM_DESC_USES_PEER_MAPPINGS (1u << 0)

struct pshm_segment_info {
    void *base;
    size_t size;
};

/* A setting (environment variable) a component reads: the core lists it in
 * shmem_info and the README, and checks its value before init() by type,
 * so that a bad value stops shmem_init with one line naming it. */
enum pshm_setting_type {
    PSHM_SETTING_STRING,    /* anything */
    PSHM_SETTING_BOOL,      /* 1/0, yes/no, true/false, on/off */
    PSHM_SETTING_AUTO_BOOL, /* auto, or a boolean */
    PSHM_SETTING_UINT,      /* a decimal integer >= 0 */
    PSHM_SETTING_SIZE,      /* bytes, or a number with K, M, G or T (powers of 1024) */
    PSHM_SETTING_CHOICE     /* one of the '|'-separated words of choices */
};

typedef struct pshm_setting {
    const char *name;    /* e.g. "SHMEM_OFI_PROVIDER"; NULL ends a table */
    int type;            /* enum pshm_setting_type */
    const char *def;     /* the default as a user reads it, e.g. "auto", "(libfabric's first)" */
    const char *choices; /* PSHM_SETTING_CHOICE only, e.g. "auto|0|1" */
    const char *help;    /* one line */
} pshm_setting;

/* What the core offers a plugin.  Valid from query() until fini() returns. */
typedef struct pshm_core_services {
    pshm_abi_header hdr; /* the core's ABI and sizeof this table */
    int my_pe;
    int n_pes;
    int n_local;         /* PEs on this node, this one included */
    const int *local_of; /* local_of[pe]: index on this node, or -1 if off-node */
    /* This PE's segments (from init() on; zero in query()). */
    struct pshm_segment_info seg[PSHM_NSEGS];
    /* Per-PE mapping of peers' segments by the core (NULL where not mapped);
     * from init() on.  A plugin needs them only to serve on-node traffic
     * the core routed to it (see PSHM_DESC_USES_PEER_MAPPINGS). */
    char *const *peer_base[PSHM_NSEGS];
    /* Bootstrap collectives over all PEs: 0 on success.  Usable in init()
     * and fini() (every PE calls those), not in query() or ops. */
    int (*allgather)(const void *mine, void *all, size_t len);
    int (*barrier)(void);
    /* Read a setting: the environment, as the core parsed it. */
    const char *(*getenv)(const char *name);
    /* Report an error: one line, prefixed by the core with the PE number. */
    void (*error)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
    /* Report, then end the whole job (every PE, exit status 1) through the
     * launcher, as the core's own fatal errors do.  Does not return. */
    void (*fatal)(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
    /* Whether SHMEM_DEBUG is on. */
    int debug;
    /* The thread level the program asked for (SHMEM_THREAD_SINGLE ..
     * SHMEM_THREAD_MULTIPLE, the values of shmem.h), so that a plugin locks
     * its shared state only when threads may share it.  0 (SINGLE) in
     * query() and shmem_info. */
    int thread_level;
    /* ABI 2.3: the plugin's settings by type, so that no plugin parses
     * them again.  The core checked the form of each variable set in the
     * plugin's settings[] by its declared type before init(), and the
     * getters read it the same way: they cannot fail.  Unset or empty, and
     * in query() a value of the wrong form, answers dflt.  A range or a
     * meaning beyond the type is the plugin's to check, naming the value
     * (svc->getenv gives its text).  Test PSHM_ABI_HAS(svc,
     * pshm_core_services, get_string) first if the plugin may run in an
     * older core. */
    /* PSHM_SETTING_BOOL or _AUTO_BOOL: 1 or 0, -1 for auto. */
    int (*get_bool)(const char *name, int dflt);
    /* PSHM_SETTING_UINT; ULONG_MAX for a number beyond it, which an upper
     * bound of the plugin's then refuses. */
    unsigned long (*get_uint)(const char *name, unsigned long dflt);
    /* PSHM_SETTING_SIZE, in bytes. */
    size_t (*get_size)(const char *name, size_t dflt);
    /* PSHM_SETTING_CHOICE: the index of the value in words (ended by NULL),
     * compared without case; dflt if it is none of them. */
    int (*get_choice)(const char *name, const char *const *words, int dflt);
    /* PSHM_SETTING_STRING (or any): the text, NULL when unset or empty. */
    const char *(*get_string)(const char *name);
} pshm_core_services;

/* A transport context; NULL is the default context. */
typedef void *pshm_tctx;

/* A plugin's share of one explicit request (shmemx_request_h) on one
 * context: a word whose meaning is the plugin's (a count, a pointer), 0
 * before the request has any operation of the plugin's on that context. */
typedef uintptr_t pshm_treq;

/*
 * The ops.  Mandatory: ctx_create, ctx_destroy, put, get, amo, and fence
 * and quiet unless caps has PSHM_CAP_COMPLETE_ON_RETURN.  The core checks
 * them when init() returns and refuses a table that lacks one, naming the
 * plugin and the op (the job ends with that line).  Every other op is
 * optional: NULL, or absent by size, and the core does without it as each
 * comment says.
 *
 * Threads: without PSHM_CAP_THREAD_SAFE the core never calls two ops at
 * once.  progress may be called from any thread that waits.
 */
typedef struct pshm_transport_ops {
    pshm_abi_header hdr;
    uint32_t caps; /* PSHM_CAP_* */

    /* Contexts.  options are SHMEM_CTX_* bits (SERIALIZED 1, PRIVATE 2,
     * NOSTORE 4).  Returns 0 and a context (which may be NULL: the default
     * one), or nonzero having reported why; ctx_create fails
     * shmem_ctx_create, it does not end the job. */
    int (*ctx_create)(long options, pshm_tctx *ctx);
    void (*ctx_destroy)(pshm_tctx ctx); /* the core quiets the context first */

    /* RMA.  put returns when src may be reused; get when dst is filled.
     * The _nbi forms may return earlier; quiet completes them.  Optional:
     * put_nbi and get_nbi (NULL: the core calls put and get). */
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

    /* Ordering and completion of what this PE issued on the context:
     * fence orders puts and AMOs to each PE (delivered in issue order);
     * quiet completes them all (delivered at their targets) and the _nbi
     * gets. */
    void (*fence)(pshm_tctx);
    void (*quiet)(pshm_tctx);
    /* Serve incoming traffic once.  Optional: NULL if targets never need
     * to call the plugin to serve others; non-NULL, the core calls it in
     * every wait loop and blocking call. */
    void (*progress)(void);

    /* ---- appended in ABI 2.1: all optional ---- */

    /* Put with signal: len bytes to (pe, seg, off), then the 64-bit signal
     * word at (pe, sig_seg, sig_off) set to or increased by signal
     * (sig_op PSHM_AMO_SET or PSHM_AMO_ADD), such that a PE that sees the
     * signal's update sees the data.  nbi == 0: returns when src may be
     * reused; nbi != 0: src must stay unchanged until quiet.  NULL: the
     * core does put, fence, then a non-fetching AMO. */
    void (*put_signal)(pshm_tctx, int pe, int seg, size_t off, const void *src, size_t len,
                       int sig_seg, size_t sig_off, uint64_t signal, int sig_op, int nbi);

    /* Blocking wait on a word of this PE: returns once the width-byte
     * (4 or 8) word at (this PE, seg, off) may no longer hold seen.  It
     * may return early (spuriously); the caller re-checks its condition
     * and calls again.  It must keep serving incoming traffic while it
     * blocks if targets need progress.  Lets a waiting PE sleep in the
     * kernel instead of polling.  NULL: the core polls.  The core never
     * calls it: a wait's words may be written by this node's PEs through
     * the bypass, which no transport sees, and a wait may watch many words
     * of any width.  What a transport can tell is whether traffic arrived:
     * ABI 2.6's block is the core's way to sleep over a network. */
    void (*wait_local)(int seg, size_t off, size_t width, uint64_t seen);

    /* Extra symmetric segments (memory spaces, device memory).  Collective:
     * every PE calls seg_register with the same seg (PSHM_NSEGS <= seg <
     * PSHM_MAX_SEGS) and its own base and size; the plugin registers the
     * memory and exchanges its remote keys (svc->allgather), so that once
     * it returns on every PE, (pe, seg, off) names any PE's copy in every
     * op.  Returns 0, or nonzero having reported why (on every PE).
     * seg_deregister is collective too.  svc->allgather and svc->barrier
     * may be used in both.  NULL: the plugin serves the built-in segments
     * only.  The core calls them for memory spaces (shmemx_space_attach,
     * _detach; core/space.c), after a quiet and a barrier, only when some
     * PE reaches some PE's space through the transport; without
     * seg_register such an attach ends the job with one line naming the
     * transport.  So a plugin built for ABI 2.0 keeps serving everything
     * but spaces it cannot reach by load/store. */
    int (*seg_register)(int seg, void *base, size_t size);
    void (*seg_deregister)(int seg);

    /* Unused: leave it NULL; the core never reads it.  ABI 2.1 named this
     * slot coll, for a collectives table it never defined: collectives
     * are components of their own (coll-NAME.so), loaded as transports
     * are.  The slot stays so that the 2.2 ops keep their offsets. */
    const void *reserved;

    /* ---- appended in ABI 2.2: explicit non-blocking operations ----
     * Optional, all four or none (the core treats a partial set as none).
     * Each starts one operation on the context and folds it into *req, the
     * plugin's word for one request on that context (0 the first time);
     * the core keeps one word per (request, context).  src of put_nbe,
     * dst of get_nbe, and *operand, *compare and *fetch of amo_nbe stay
     * valid and untouched until req_test has said 1: the core keeps the
     * operands in the request.  req_test never blocks: it may drive
     * progress, and returns 1 once every operation folded into req is
     * complete (puts and AMOs applied at their targets, gets and fetches
     * delivered), having released whatever req held; the core then never
     * passes req again.  Until then, quiet on the context must complete
     * these operations too (without releasing req).  NULL: the core uses
     * put_nbi/get_nbi/amo(nbi) and a quiet of the whole context, which
     * completes the request with everything else on that context. */
    void (*put_nbe)(pshm_tctx, int pe, int seg, size_t off, const void *src, size_t len,
                    pshm_treq *req);
    void (*get_nbe)(pshm_tctx, int pe, int seg, size_t off, void *dst, size_t len,
                    pshm_treq *req);
    void (*amo_nbe)(pshm_tctx, int pe, int seg, size_t off, int op, int type, const void *operand,
                    const void *compare, void *fetch, pshm_treq *req);
    int (*req_test)(pshm_tctx, pshm_treq req);

    /* ---- appended in ABI 2.4 ---- */
    /* Optional: the shmem_p routines' put.  The same as put() of the first
     * len (1 to 8) bytes of value as it lies in memory, i.e. put(t, pe,
     * seg, off, &value, len).  The value comes in a register, so the
     * core's p routine passes it on in a tail call and takes the address
     * of nothing.  NULL: the core stores the value and calls put(). */
    void (*p)(pshm_tctx, int pe, int seg, size_t off, uint64_t value, size_t len);

    /* ---- appended in ABI 2.5: messages, for collectives between nodes ----
     * Optional, both or neither, and only with progress (the core treats a
     * partial set, or one without progress, as none).  A message carries
     * its data and its own notice of arrival, where a put needs a fence
     * and a flag after it: over a network whose RMA is emulated by the
     * target (tcp;ofi_rxm, UCX over tcp), that fence is a round trip, and
     * the core's collectives between nodes are made of such pairs.
     *
     * msg_send sends len bytes of buf to pe under tag.  msg_recv posts a
     * receive of a message of exactly len bytes under tag from any PE
     * (the core puts the sender in the tag) into buf.  Each stores 1 into
     * *done, with release semantics, once buf may be reused (send) or
     * holds the message (receive), possibly before it returns; until then
     * buf and *done stay valid and untouched, and the core waits by
     * calling progress.  A message may arrive before its receive is
     * posted: the plugin keeps it.  Messages from one PE under one tag
     * match in the order sent.  They go through the plugin's default
     * context (locked as it is), and order nothing with the RMA and AMOs
     * of any context. */
    void (*msg_send)(int pe, uint64_t tag, const void *buf, size_t len, uint64_t *done);
    void (*msg_recv)(uint64_t tag, void *buf, size_t len, uint64_t *done);

    /* ---- appended in ABI 2.6: sleeping over a network ----
     * Optional, and only with progress (the core drops it otherwise).
     * Blocks the calling thread in the kernel until traffic for this PE
     * arrives (data, an RMA or AMO to serve, a message, a completion) or
     * max_us microseconds pass, whichever is first; it may return earlier.
     * Serves what it finds, as progress does, and returns at once (1) if
     * that did anything.  Returns 1 if traffic ended the block, 0 if the
     * time did.  The core calls it in a wait that has yielded its CPU for
     * a while (SHMEM_WAIT_SPINS, sync.c) instead of polling progress,
     * with max_us growing to SHMEM_WAIT_SLEEP while blocks end by time:
     * writes it cannot see (this node's PEs by load/store, another thread
     * that served the traffic first) end the wait that much later.  NULL:
     * such waits poll progress and yield. */
    int (*block)(unsigned max_us);

    /* ---- appended in ABI 2.7: progress that says it did something ----
     * Optional, and only with progress (the core drops it otherwise).
     * Does what progress does, and returns nonzero if that served another
     * PE's request (an atomic, a get, an acknowledgement it waits for), 0
     * if it found nothing.  The core calls it instead of progress in its
     * waits, and a wait whose poll served keeps polling instead of
     * yielding its CPU: a peer is waiting for this PE's answers, and a
     * sched_yield between them costs each one a system call.  A plugin
     * whose targets serve nothing (one-sided hardware) leaves it NULL. */
    int (*poll)(void);
} pshm_transport_ops;

/* The plugin's one exported symbol. */
typedef struct pshm_transport_desc {
    pshm_abi_header hdr;
    const char *name; /* must match the file name transport-<name>.so */
    const char *description;
    uint32_t flags; /* PSHM_DESC_* */
    /* Returns a priority >= 0 if usable here, or -1 with the reason in
     * why[0..whylen).  Must not start network resources: it is also called
     * by shmem_info, and may be called again after fini().  A refusal
     * caused by one of the plugin's own settings (a value that names
     * nothing here) starts why with NAME='value': the core then ends the
     * job wherever this transport would have been chosen, instead of
     * passing over to the next one. */
    int (*query)(const pshm_core_services *svc, char *why, size_t whylen);
    /* Every PE calls it, collectively.  Returns 0 and the ops table (valid
     * until fini() returns), or nonzero having reported the error: the
     * core then ends the job. */
    int (*init)(const pshm_core_services *svc, const pshm_transport_ops **ops);
    /* Every PE calls it, collectively, at shmem_finalize: after a quiet of
     * every context and a barrier, before the core unmaps the segments and
     * closes the bootstrap (svc->barrier still works).  Releases
     * everything: the plugin may be unloaded, or initialized again. */
    void (*fini)(void);
    /* Optional: the highest priority query() could return for this job,
     * computed without touching the network (only svc's rank, size and
     * locality).  Lets the core skip querying a plugin that cannot beat
     * one already found usable: querying a network plugin means probing
     * its providers, which costs far more than the rest of shmem_init.
     * NULL means "unknown": always query. */
    int (*max_priority)(const pshm_core_services *svc);
    /* Optional: the settings the plugin reads, ended by an entry whose name
     * is NULL; NULL if none. */
    const pshm_setting *settings;

    /* ---- appended in ABI 2.2 ---- */
    /* Optional: one line saying how the plugin completes an explicit
     * request (shmem_info shows it); NULL: by a quiet of the context. */
    const char *nbe_completion;
} pshm_transport_desc;

/* The exported descriptor, for C (and C++20, whose designated initializers
 * must keep the declaration order): the header, name, description and the
 * three mandatory functions, then any optional fields, e.g.
 *
 *   PSHM_TRANSPORT_DEFINE("foo", "Foo's one-line description", foo_query, foo_init, foo_fini,
 *                         .max_priority = foo_max_priority, .settings = foo_settings);
 *
 * Spelling the definition out with PSHM_TRANSPORT_EXPORT is the same. */
#define PSHM_TRANSPORT_DEFINE(name_, description_, query_, init_, fini_, ...)                      \
    PSHM_TRANSPORT_EXPORT const pshm_transport_desc plugshmem_transport = {                        \
        .hdr = PSHM_ABI_HEADER(pshm_transport_desc),                                               \
        .name = (name_),                                                                           \
        .description = (description_),                                                             \
        .query = (query_),                                                                         \
        .init = (init_),                                                                           \
        .fini = (fini_),                                                                           \
        __VA_ARGS__}

#ifdef __cplusplus
}
#endif

#endif
