/*
 * Core-internal state shared by the API entry points.  Nothing here is
 * visible to plugins (they see core/transport.h only) or to applications.
 */
#ifndef PSHM_CORE_H
#define PSHM_CORE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cpu_relax.h"
#include "transport.h"

#define PSHM_LIKELY(x) __builtin_expect(!!(x), 1)
#define PSHM_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define PSHM_HIDDEN __attribute__((visibility("hidden")))

/* How the core reaches one peer PE: its segments mapped here for
 * load/store (NULL if not), and the same pointer again in amo[] only if
 * atomics on that segment may be done with CPU atomics.  The built-in
 * segments only: 32 bytes a peer, so the hot heap fields of neighbouring
 * peers share cache lines.  A memory space is reached where the heap is
 * (pshm_route_base/amo below). */
struct pshm_peer {
    char *base[PSHM_NSEGS];
    char *amo[PSHM_NSEGS];
};

/* A communication context (shmem_ctx_t points at one). */
struct pshm_ctx {
    pshm_tctx t;         /* the transport's context */
    const int *pe_world; /* team PE -> world PE, NULL for world-team contexts */
    int team_n_pes;      /* the bound of pe_world */
    struct pshm_team *team;
    long options;
    struct pshm_ctx *next; /* every created context, for shmem_team_destroy */
    struct pshm_space *space; /* the memory space it was made for, if any */
};

/* Destroys the shareable (not SHMEM_CTX_PRIVATE) contexts of a team. */
void pshm_ctx_destroy_team(struct pshm_team *team) PSHM_HIDDEN;

/* The hot fields come first so that put/get/AMO touch one cache line.
 * The fast paths test the *_fast_len fields, which are 0 under SHMEM_DEBUG:
 * then every call takes the slow path, which checks its arguments, and the
 * fast path pays nothing for the debug mode existing. */
struct pshm_global {
    uintptr_t heap_lo; /* this PE's heap segment */
    size_t heap_fast_len; /* its user part (the internal area is the library's) */
    struct pshm_peer *peer; /* indexed by world PE */
    const pshm_transport_ops *tp;
    uintptr_t data_lo; /* this PE's data segment */
    size_t data_fast_len;
    /* n_pes, as wide as an index: the fast paths compare the PE,
     * sign-extended as indexing needs it anyway, as unsigned, so that a
     * negative PE fails too.  0 before shmem_init and after shmem_finalize,
     * when every call then takes a slow path, which says so. */
    size_t pe_limit;
    /* peer[pe].base[PSHM_SEG_HEAP] again, 8 bytes a PE: indexing it needs
     * no shift, which pays for the PE compare on the put/get fast path. */
    char **heap_route;
    char **amo_route[PSHM_NSEGS]; /* peer[pe].amo[s] again, for the same reason */
    int n_pes; /* 0 when pe_limit is */
    int debug;
    size_t heap_len;  /* user part and internal area */
    size_t heap_user_len;
    size_t data_len;
    int my_pe;
    int finalized; /* shmem_finalize ran, and no shmem_init since */
    int tp_quiet; /* the transport has a quiet to call */
    int oversubscribed; /* more PEs on this node than cores */
    int oversubscribed_any; /* on some node of the job: the same on every PE */
    unsigned wait_hot;      /* polls of a wait without a pause (core/sync.c) */
    unsigned wait_yield_every; /* polls per yield of a wait that never sleeps (core/sync.c) */
    int tp_progress;
    struct pshm_sleep **sleep_at; /* by world PE: its sleep word, if mapped here */
    int nspaces; /* memory spaces attached (core/space.c) */
};

extern struct pshm_global pshm_g PSHM_HIDDEN;
extern struct pshm_ctx pshm_ctx_default;

/* PE pe is in the job (and the library initialized). */
#define PSHM_PE_OK(pe) ((size_t)(ptrdiff_t)(pe) < pshm_g.pe_limit)

/* Slow paths and checks (core/rma.c, core/amo.c, core/error.c). */
#define PSHM_INLINE static inline __attribute__((always_inline))

void pshm_put_slow(const char *routine, struct pshm_ctx *c, void *dst, const void *src, size_t n,
                   int pe, int nbi) PSHM_HIDDEN;
void pshm_get_slow(const char *routine, struct pshm_ctx *c, void *dst, const void *src, size_t n,
                   int pe, int nbi) PSHM_HIDDEN;
/* The p routines' slow path, and their transport op for plugins without
 * one (ABI 2.4 p): both store the value and go on as a put. */
void pshm_p_slow(const char *routine, struct pshm_ctx *c, void *dst, uint64_t v, size_t n,
                 int pe) PSHM_HIDDEN;
void pshm_p_by_put(pshm_tctx t, int pe, int seg, size_t off, uint64_t v, size_t n) PSHM_HIDDEN;
/* What the inline AMOs call when they did not map the word: straight to
 * the transport for a word of the heap or the global data, else the
 * general checks and routes (core/amo.c). */
void pshm_amo_far(const char *routine, struct pshm_ctx *c, void *dst, int pe, int op, int type,
                  const void *operand, const void *compare, void *fetch, int nbi) PSHM_HIDDEN;
/* The job ends naming routine: called before shmem_init or after
 * shmem_finalize; a PE outside the job.  Out of line and cold, so that
 * the checks that lead to them cost a compare and a branch. */
void pshm_not_init(const char *routine) PSHM_HIDDEN __attribute__((cold, noreturn));
void pshm_bad_pe(const char *routine, int pe) PSHM_HIDDEN __attribute__((cold, noreturn));
static inline void pshm_check_pe(const char *routine, int pe)
{
    if (PSHM_UNLIKELY(!PSHM_PE_OK(pe)))
        pshm_bad_pe(routine, pe);
}
/* Before shmem_init and after shmem_finalize, where no other test would
 * catch it: one load and a branch on paths that are not the hot ones. */
#define PSHM_CHECK_INIT(routine)                                                                   \
    do {                                                                                           \
        if (PSHM_UNLIKELY(!pshm_g.n_pes))                                                          \
            pshm_not_init(routine);                                                                \
    } while (0)

/* The library's own transfer to or from PE pe: into its internal area
 * through the transport directly (user calls may not address it), else as
 * a put or get (core/rma.c). */
void pshm_internal_xfer(void *dst, const void *src, size_t n, int pe, int put) PSHM_HIDDEN;

/* The segment of an attached memory space holding addr, and the offset;
 * -1 if none (core/space.c). */
int pshm_space_seg_of(const void *addr, size_t *off) PSHM_HIDDEN;
/* Which segment holds addr, as pshm_seg_of; ends the job naming routine
 * when addr is not symmetric (core/rma.c). */
int pshm_seg_or_die(const char *routine, const void *addr, size_t *off) PSHM_HIDDEN;
/* As pshm_seg_or_die for the n bytes at addr (what names the argument):
 * the job ends if they run past the end of their segment, or under
 * SHMEM_DEBUG past the end of their allocation (core/rma.c). */
int pshm_range_or_die(const char *routine, const char *what, const void *addr, size_t n,
                      size_t *off) PSHM_HIDDEN;
/* The length of an attached memory space's segment s (core/space.c). */
size_t pshm_space_seg_len(int s) PSHM_HIDDEN;
/* The live allocation of the symmetric heap holding offset off: 0 and
 * its offset and length, or -1 (core/memory.c). */
int pshm_memory_block_of(size_t off, size_t *start, size_t *len) PSHM_HIDDEN;

/* [seg]: an attached memory space's parts, by PE, mapped here (NULL for a
 * PE not mapped); NULL for built-in or unattached segments. */
extern char **pshm_space_parts[PSHM_MAX_SEGS] PSHM_HIDDEN;

/* PE pe's segment s for load/store here, or NULL (any segment). */
static inline char *pshm_route_base(int pe, int s)
{
    if (s < PSHM_NSEGS)
        return pshm_g.peer[pe].base[s];
    char **parts = pshm_space_parts[s];
    return parts && pshm_g.peer[pe].base[PSHM_SEG_HEAP] ? parts[pe] : NULL;
}

/* PE pe's segment s for CPU atomics here, or NULL (any segment). */
static inline char *pshm_route_amo(int pe, int s)
{
    if (s < PSHM_NSEGS)
        return pshm_g.peer[pe].amo[s];
    char **parts = pshm_space_parts[s];
    return parts && pshm_g.peer[pe].amo[PSHM_SEG_HEAP] ? parts[pe] : NULL;
}

/* ---- the on-node fast path: one branch and a memcpy ---------------- */

/* Copies of 8 to 16 bytes (the common size of flags and small puts) are
 * two loads and two stores inline, saving the call into memcpy; exactly 8
 * (a long, a double, a flag: the most common) one of each, which is 3
 * instructions fewer and costs the other sizes a compare. */
PSHM_INLINE void pshm_copy(void *d, const void *s, size_t n)
{
    if (!__builtin_constant_p(n) && n == 8) {
        memcpy(d, s, 8);
        return;
    }
    if (!__builtin_constant_p(n) && n - 8 <= 8) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, (const char *)s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy((char *)d + n - 8, &b, 8);
        return;
    }
    memcpy(d, s, n);
}

/* Put (put=1) or get, blocking or not (nbi=1; both constants at every call
 * site).  A heap address of a mapped PE is a copy; of an unmapped one (on
 * another node, or with the bypass off) a direct call into the transport;
 * anything else (global data, SHMEM_DEBUG, bad addresses) the slow path. */
PSHM_INLINE void pshm_rma(const char *routine, struct pshm_ctx *c, void *dst, const void *src,
                          size_t n, int pe, int put, int nbi)
{
    ptrdiff_t ipe = pe; /* widened once, for the compare and the index */
    uintptr_t off = (uintptr_t)(put ? dst : src) - pshm_g.heap_lo;
    /* The range's end, not its start: a copy that begins in the user's
     * heap must not run into the internal area or past the mapping.  A
     * constant size of at most 8 (the p routines) is a typed element,
     * aligned to its size, and the user part's length is a multiple of
     * the page: its start is enough. */
    int in_heap = __builtin_constant_p(n) && n <= 8 ? off < pshm_g.heap_fast_len
                                                    : off + n <= pshm_g.heap_fast_len;
    if (PSHM_LIKELY(PSHM_PE_OK(ipe) && in_heap)) {
        char *b = pshm_g.heap_route[ipe];
        if (PSHM_LIKELY(b != NULL))
            pshm_copy(put ? b + off : dst, put ? src : b + off, n);
        else if (n && put)
            (nbi ? pshm_g.tp->put_nbi : pshm_g.tp->put)(c->t, pe, PSHM_SEG_HEAP, off, src, n);
        else if (n)
            (nbi ? pshm_g.tp->get_nbi : pshm_g.tp->get)(c->t, pe, PSHM_SEG_HEAP, off, dst, n);
        return;
    }
    (put ? pshm_put_slow : pshm_get_slow)(routine, c, dst, src, n, pe, nbi);
}

PSHM_INLINE void pshm_put(const char *routine, struct pshm_ctx *c, void *dst, const void *src,
                          size_t n, int pe)
{
    pshm_rma(routine, c, dst, src, n, pe, 1, 0);
}

PSHM_INLINE void pshm_get(const char *routine, struct pshm_ctx *c, void *dst, const void *src,
                          size_t n, int pe)
{
    pshm_rma(routine, c, dst, src, n, pe, 0, 0);
}

/* A value of n <= 8 bytes as the first n bytes of a uint64_t's memory. */
PSHM_INLINE uint64_t pshm_bits(const void *p, size_t n)
{
    uint64_t b = 0;
    memcpy(&b, p, n);
    return b;
}

/* shmem_p of a value of n (1 to 8, a constant) bytes, given as its bits:
 * nothing on the way takes its address, so it stays in a register, stored
 * once on a mapped PE and passed on in a tail call to the transport's p
 * otherwise (the same checks as pshm_rma's). */
PSHM_INLINE void pshm_p(const char *routine, struct pshm_ctx *c, void *dst, uint64_t v, size_t n,
                        int pe)
{
    ptrdiff_t ipe = pe;
    uintptr_t off = (uintptr_t)dst - pshm_g.heap_lo;
    if (PSHM_LIKELY(PSHM_PE_OK(ipe) && off < pshm_g.heap_fast_len)) {
        char *b = pshm_g.heap_route[ipe];
        if (PSHM_LIKELY(b != NULL))
            memcpy(b + off, &v, n);
        else
            pshm_g.tp->p(c->t, pe, PSHM_SEG_HEAP, off, v, n);
        return;
    }
    pshm_p_slow(routine, c, dst, v, n, pe);
}

/* Where a symmetric address lives in PE pe's memory, if mapped here;
 * NULL otherwise.  Also used by shmem_ptr. */
static inline char *pshm_mapped(const void *addr, int pe)
{
    uintptr_t off = (uintptr_t)addr - pshm_g.heap_lo;
    if (off < pshm_g.heap_len) {
        char *b = pshm_g.peer[pe].base[PSHM_SEG_HEAP];
        return b ? b + off : NULL;
    }
    off = (uintptr_t)addr - pshm_g.data_lo;
    if (off < pshm_g.data_len) {
        char *b = pshm_g.peer[pe].base[PSHM_SEG_DATA];
        return b ? b + off : NULL;
    }
    if (PSHM_UNLIKELY(pshm_g.nspaces)) {
        int s = pshm_space_seg_of(addr, &off);
        char *b = s >= 0 ? pshm_route_base(pe, s) : NULL;
        return b ? b + off : NULL;
    }
    return NULL;
}

/* Address for a CPU atomic on PE pe on the fast path, or NULL. */
PSHM_INLINE void *pshm_amo_addr(const void *addr, int pe)
{
    uintptr_t off = (uintptr_t)addr - pshm_g.heap_lo;
    char *b;
    /* The start alone is compared: the user part's length is a multiple of
     * the page, so an aligned word that starts in it ends in it (the slow
     * path checks alignment under SHMEM_DEBUG). */
    if (PSHM_UNLIKELY(!PSHM_PE_OK(pe)))
        return NULL;
    if (PSHM_LIKELY(off < pshm_g.heap_fast_len && (b = pshm_g.amo_route[PSHM_SEG_HEAP][pe])))
        return b + off;
    off = (uintptr_t)addr - pshm_g.data_lo;
    if (off < pshm_g.data_fast_len && (b = pshm_g.amo_route[PSHM_SEG_DATA][pe]))
        return b + off;
    return NULL;
}

/* Which segment holds addr; -1 if none (not symmetric). */
static inline int pshm_seg_of(const void *addr, size_t *off)
{
    uintptr_t o = (uintptr_t)addr - pshm_g.heap_lo;
    if (o < pshm_g.heap_len) {
        *off = o;
        return PSHM_SEG_HEAP;
    }
    o = (uintptr_t)addr - pshm_g.data_lo;
    if (o < pshm_g.data_len) {
        *off = o;
        return PSHM_SEG_DATA;
    }
    if (PSHM_UNLIKELY(pshm_g.nspaces))
        return pshm_space_seg_of(addr, off);
    return -1;
}

/* Completion of everything this PE issued on ctx c. */
PSHM_INLINE void pshm_quiet(struct pshm_ctx *c)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (pshm_g.tp_quiet)
        pshm_g.tp->quiet(c->t);
}

/* ---- waiting and waking (core/sync.c) ------------------------------- */

/* Every PE's internal area holds one of these.  A waiter that stops
 * spinning counts itself in state, with the word it watches, and sleeps on
 * seq (a futex in shared memory); a writer that changed a word a PE may
 * wait on looks at that PE's state and, only if someone sleeps there
 * watching that word, bumps seq and wakes them.  So a syscall only when it
 * matters: an AMO stream into a PE asleep in a barrier stays cheap.  One
 * futex per PE rather than the watched word itself: a wait may watch
 * several words, or 64-bit ones. */
struct pshm_sleep {
    uint64_t state; /* sleepers << 32 | the key they watch, or PSHM_WATCH_ANY */
    uint32_t seq;
};
#define PSHM_WATCH_ANY UINT32_MAX

/* One wait in progress: zero it, call pshm_wait_step on every turn the
 * condition fails, and pshm_wait_end once it holds. */
struct pshm_wait {
    unsigned spins;
    int timed_out;            /* the last nap ended by its time bound */
    unsigned nap_us;          /* the next nap's bound */
    uint32_t seq;             /* sleep->seq when last looked at */
    uint64_t yield_until;     /* CLOCK_MONOTONIC ns: yield until then, then sleep */
    struct pshm_sleep *sleep; /* set while counted as a sleeper */
    int coll;                 /* a collective's wait: look for PEs that left */
    int on_node;              /* the word is stored by a PE of this node */
};

/* One AMO on this PE's or PE pe's internal area, by CPU or transport,
 * whatever the routes (core/amo.c). */
uint64_t pshm_internal_amo(int pe, uint64_t *addr, int op, uint64_t v, uint64_t cmp) PSHM_HIDDEN;

/* Serves incoming traffic, spins, then sleeps.  The wait watches n words
 * from addr (n > 1: any word of this PE may end it). */
void pshm_wait_step(struct pshm_wait *w, const void *addr, size_t n) PSHM_HIDDEN;
void pshm_wait_leave(struct pshm_wait *w) PSHM_HIDDEN;

/* The polls a wait makes before it lets the core go (core/wait_budget.c):
 * set at init from the PEs on this node (n_local, before emulated nodes)
 * and the cores, again once the transport is known, and again whenever a
 * thread first waits (pshm_wait_thread_note, SHMEM_THREAD_MULTIPLE). */
void pshm_wait_budget_init(int n_local) PSHM_HIDDEN;
void pshm_wait_budget_update(void) PSHM_HIDDEN;
/* The CPUs this process may run on (sched_getaffinity), as a bit set of
 * PSHM_CPU_WORDS words; all zero if unknown.  Once the PEs of this node
 * have swapped theirs: the budget counts the cores of their union. */
#define PSHM_CPU_WORDS 16
void pshm_cpus_mine(uint64_t mask[PSHM_CPU_WORDS]) PSHM_HIDDEN;
/* ORs from into into; whether from was known (not all zero). */
int pshm_cpus_or(uint64_t into[PSHM_CPU_WORDS], const uint64_t from[PSHM_CPU_WORDS]) PSHM_HIDDEN;
void pshm_wait_budget_cpus(const uint64_t node_mask[PSHM_CPU_WORDS], int node_pes) PSHM_HIDDEN;
void pshm_wait_thread_note(void) PSHM_HIDDEN;
static inline void pshm_wait_end(struct pshm_wait *w)
{
    if (PSHM_UNLIKELY(w->sleep != NULL))
        pshm_wait_leave(w);
}

/* Fills pshm_g.sleep_at once the routes are known; frees it. */
void pshm_sleep_init(void) PSHM_HIDDEN;
void pshm_sleep_fini(void) PSHM_HIDDEN;

/* Wakes whoever sleeps on PE pe watching the symmetric word addr; st: the
 * sleep word's state, read after the write (what the sleepers watch). */
void pshm_wake(int pe, const void *addr, uint64_t st) PSHM_HIDDEN;

/* After a sequentially consistent store or read-modify-write of the
 * symmetric word addr of PE pe (the order that puts the store before this
 * load, against the waiter's count-then-look): one load and a branch when
 * nobody sleeps there.  Only where the writer knows it wrote a flag others
 * may wait on.  A PE not mapped here has a sleep word nobody uses. */
PSHM_INLINE void pshm_wake_check(int pe, const void *addr)
{
    uint64_t st = __atomic_load_n(&pshm_g.sleep_at[pe]->state, __ATOMIC_SEQ_CST);
    if (PSHM_UNLIKELY(st))
        pshm_wake(pe, addr, st);
}

#endif
