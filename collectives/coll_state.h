/*
 * The per-team symmetric state of the native collectives, and the few
 * primitives every algorithm is written with.
 *
 * A slot holds flags and scratch.  Flags carry values that only grow
 * (instance << 20 | step), so they are never reset while the team lives,
 * and each flag is written by exactly one sender PE (the arrays are named
 * after the sender's position relative to the receiver): a value at least
 * v then proves the sender's message of instance v arrived, because the
 * sender orders its data before its flag and its flags among themselves.
 * A slot is zeroed by its members when the team is destroyed (after a
 * barrier, so nothing is in flight towards it), hence a new team starts
 * from zero flags.
 */
#ifndef PSHM_COLL_STATE_H
#define PSHM_COLL_STATE_H

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "api.h"
#include "segment.h"
#include "sync.h"
#include "coll.h"
#include "team.h"

#define PSHM_COLL_ROUNDS 32 /* log2 of the largest team */
#define PSHM_TREE_RADIX_MAX 8
#define PSHM_COLL_SLOT_SIZE (PSHM_INTERNAL_SIZE / PSHM_TEAM_SLOTS)
#define PSHM_MBOX_HALF 1024 /* 16 PEs: a cache line per sender */
/* A flag and up to 112 bytes of data in two cache lines (up to 48 bytes
 * in the flag's own line), so that a receiver that sees the flag needs no
 * other line for the data: the eager broadcast's slots and the rounds of
 * a small recursive doubling.  The data starts 16-byte aligned, since a
 * reduction folds it in place (long double and its complex type). */
#define PSHM_INLINE_MAX 112

struct pshm_inline {
    uint64_t flag;
    _Alignas(16) unsigned char data[PSHM_INLINE_MAX];
};

/* Eager broadcast (native_bcast.c): a slot per call, PSHM_EAGER_DEPTH
 * calls deep, from the PE 2^k below for k < PSHM_INLINE_ROUNDS (teams of
 * up to 256 PEs).  Depth 8 rather than 4 halves the 8-byte broadcast's
 * time at 2 PEs: the root reads the child's entry notice (a line
 * transfer) once every few calls instead of nearly every call; 16 gains
 * nothing more (docs/benchmarks.md).  Small recursive doublings
 * (native_reduce.c) use a slot per parity and round, for up to 256 PEs
 * too. */
#define PSHM_INLINE_ROUNDS 8
#define PSHM_EAGER_DEPTH 8

struct pshm_coll_flags {
    _Alignas(64) uint64_t diss[PSHM_COLL_ROUNDS]; /* from me - 2^k: dissemination barrier */
    _Alignas(64) uint64_t bino[PSHM_COLL_ROUNDS]; /* from me - 2^k: binomial broadcast/scatter */
    _Alignas(64) uint64_t bino_rdy[PSHM_COLL_ROUNDS]; /* from me + 2^k: entered that broadcast */
    _Alignas(64) uint64_t rd[PSHM_COLL_ROUNDS];   /* from me ^ 2^k: recursive doubling */
    _Alignas(64) uint64_t scan[PSHM_COLL_ROUNDS]; /* from me - 2^k: scan of one value */
    uint64_t scan_val[PSHM_COLL_ROUNDS];          /* its payload */
    _Alignas(64) uint64_t arrive[PSHM_TREE_RADIX_MAX]; /* tree barrier: from child j */
    _Alignas(64) uint64_t release;                     /* tree barrier: from the parent */
    _Alignas(64) uint64_t ring;                        /* from me - 1 */
    _Alignas(64) uint64_t ring_ack;                    /* from me + 1: scratch step consumed */
    _Alignas(64) uint64_t fold_in;                     /* from me + p (RD, n not a power of 2) */
    _Alignas(64) uint64_t fold_out;                    /* from me - p */
    _Alignas(64) uint64_t ctr_count;   /* counter barrier, on member 0: arrivals so far */
    _Alignas(64) uint64_t ctr_release; /* counter barrier, on member 0: instances released */
    /* Mailbox alltoall: [parity][region of sender s], each region a flag
     * word (from s) then its payload, so that a small message and its flag
     * travel in one cache line.  Not scratch: other algorithms' data there
     * could look like a later flag. */
    _Alignas(64) unsigned char mbox[2][PSHM_MBOX_HALF];
    /* Eager broadcast: [k][instance % depth], written only by me - 2^k. */
    _Alignas(64) struct pshm_inline eager[PSHM_INLINE_ROUNDS][PSHM_EAGER_DEPTH];
    /* Recursive doubling of up to PSHM_INLINE_MAX bytes: [parity][k],
     * written only by me ^ 2^k. */
    _Alignas(64) struct pshm_inline rdl[2][PSHM_INLINE_ROUNDS];
};

/* This PE's own bookkeeping of the team's native collectives: never read
 * by peers, kept in the slot so that the core's team knows nothing of it
 * and a new team in the slot starts from zero like its flags. */
struct pshm_native_local {
    uint64_t seq;          /* collective instances so far (same on all members) */
    /* Collective calls of the API so far: read by a peer only when this PE
     * reached shmem_finalize or exit (pshm_coll_departed_check). */
    uint64_t calls;
    uint64_t rd_count;     /* recursive-doubling chunks so far (scratch parity) */
    uint64_t ring_count;   /* ring reduce-scatter steps so far (scratch parity, credits) */
    uint64_t ctr_count;    /* counter barriers so far */
    uint64_t gather_count; /* gather reductions so far (scratch parity) */
    uint64_t mbox_count;   /* mailbox alltoalls so far (mailbox parity) */
    uint64_t scan_count;   /* Hillis-Steele scan chunks so far (scratch parity) */
    int scratch_user;      /* the algorithm that used the scratch last (coll_scratch) */
    /* The previous collective was a binomial or eager broadcast
     * (coll_enter): its root, the flag value of that call, and the
     * instance that began the run of broadcasts with that root. */
    int bcast_open, bcast_root;
    uint64_t bcast_v, bcast_run;
    /* The latest entry notice read from the child 2^k above (bino_rdy[k],
     * whose sender is that PE whatever the root): read again only when a
     * later one is needed, so the line stays with the child. */
    uint64_t rdy_seen[PSHM_INLINE_ROUNDS];
};

struct pshm_coll_head {
    struct pshm_coll_flags f;
    _Alignas(64) struct pshm_native_local l;
};

#define PSHM_COLL_SCRATCH_SIZE (PSHM_COLL_SLOT_SIZE - sizeof(struct pshm_coll_head))

struct pshm_coll_slot {
    struct pshm_coll_flags f;
    _Alignas(64) struct pshm_native_local l;
    _Alignas(64) unsigned char scratch[PSHM_COLL_SCRATCH_SIZE];
};

_Static_assert(sizeof(struct pshm_coll_slot) == PSHM_COLL_SLOT_SIZE, "slot size");
_Static_assert(sizeof(struct pshm_coll_slot) * PSHM_TEAM_SLOTS <= PSHM_INTERNAL_SIZE,
               "team slots exceed the internal area");

static inline struct pshm_coll_slot *pshm_coll_slot_at(int slot)
{
    return (struct pshm_coll_slot *)(pshm_internal()->coll + (size_t)slot * PSHM_COLL_SLOT_SIZE);
}

/* Set when a transfer went through the transport: a flag stored by the
 * CPU must then wait for its completion. */
extern _Thread_local int pshm_coll_pending __attribute__((tls_model("initial-exec"))) PSHM_HIDDEN;
extern _Thread_local const char *pshm_coll_routine __attribute__((tls_model("initial-exec"))) PSHM_HIDDEN;
/* The team of the API's latest collective call on this thread. */
extern _Thread_local struct pshm_team *pshm_coll_team __attribute__((tls_model("initial-exec"))) PSHM_HIDDEN;

#define PSHM_FLAG(e, step) (((uint64_t)(e) << 20) + (uint64_t)(step))

/* Copy n bytes to the symmetric dst of world PE wpe. */
static inline void coll_put(void *dst, const void *src, size_t n, int wpe)
{
    if (!n)
        return;
    char *p = wpe == pshm_g.my_pe ? (char *)dst : pshm_mapped(dst, wpe);
    if (p) {
        memmove(p, src, n);
        return;
    }
    if ((uintptr_t)dst - pshm_g.heap_lo - pshm_g.heap_user_len <
        pshm_g.heap_len - pshm_g.heap_user_len)
        pshm_internal_xfer(dst, src, n, wpe, 1);
    else
        pshm_rma(pshm_coll_routine, &pshm_ctx_default, dst, src, n, wpe, 1, 0);
    pshm_coll_pending = 1;
}

/* Copy n bytes from the symmetric src of world PE wpe. */
static inline void coll_get(void *dst, const void *src, size_t n, int wpe)
{
    if (!n)
        return;
    const char *p = wpe == pshm_g.my_pe ? (const char *)src : pshm_mapped(src, wpe);
    if (p) {
        memmove(dst, p, n);
        return;
    }
    if ((uintptr_t)src - pshm_g.heap_lo - pshm_g.heap_user_len <
        pshm_g.heap_len - pshm_g.heap_user_len)
        pshm_internal_xfer(dst, src, n, wpe, 0);
    else
        pshm_rma(pshm_coll_routine, &pshm_ctx_default, dst, src, n, wpe, 0, 0);
}

/*
 * The store of a flag into a mapped peer's memory, then the look for a
 * sleeping receiver.  With a core per PE, a release store: a
 * sequentially consistent store drains the store buffer, so this PE
 * could not look at its next flag (the barrier's other half, the next
 * eager broadcast's slot) before its own store had crossed to the other
 * core (with the unpaused first polls of core/sync.c, a 2-PE barrier
 * 0.19 -> 0.15 us; alone, the 8-byte eager broadcast 0.086 -> 0.074 us).
 * The look for sleepers may then come before the store is seen: a
 * receiver that starts to sleep just then is not woken, and wakes from
 * its first nap (100 us); it sleeps only after 100 us of yielding, rare
 * when the PE it waits for has a core.  When PEs
 * outnumber cores, sleeping is common and the store sequentially
 * consistent.  On x86 an sfence first: memcpy's non-temporal stores (large
 * copies) are not ordered by a plain store, and it does not stall later
 * loads the way a fence or locked store does.
 */
static inline void coll_store(uint64_t *p, uint64_t v, int wpe, const uint64_t *flag)
{
    if (PSHM_LIKELY(!pshm_g.oversubscribed)) {
#if defined(__x86_64__)
        __builtin_ia32_sfence();
#endif
        __atomic_store_n(p, v, __ATOMIC_RELEASE);
    } else {
        __atomic_store_n(p, v, __ATOMIC_SEQ_CST);
    }
    pshm_wake_check(wpe, flag);
}

/* Stores v into world PE wpe's copy of the flag, after everything this PE
 * sent before. */
static inline void coll_signal(uint64_t *flag, uint64_t v, int wpe)
{
    char *p = wpe == pshm_g.my_pe ? (char *)flag : pshm_mapped(flag, wpe);
    if (p) {
        if (PSHM_UNLIKELY(pshm_coll_pending)) {
            pshm_quiet(&pshm_ctx_default);
            pshm_coll_pending = 0;
        }
        coll_store((uint64_t *)p, v, wpe, flag);
        return;
    }
    pshm_flag_put(flag, v, wpe, 1);
    pshm_coll_pending = 1;
}

/* Stores v into world PE wpe's copy of the flag, ordered after nothing:
 * for a notice about this PE's own progress, which no transfer of its
 * precedes. */
static inline void coll_notify(uint64_t *flag, uint64_t v, int wpe)
{
    char *p = wpe == pshm_g.my_pe ? (char *)flag : pshm_mapped(flag, wpe);
    if (p) {
        coll_store((uint64_t *)p, v, wpe, flag);
        return;
    }
    pshm_flag_put(flag, v, wpe, 0);
    pshm_coll_pending = 1;
}

/* Set by a node-aware collective (hier.c) while this thread runs one of
 * its on-node phases, whose flags only the node's PEs store. */
extern _Thread_local int pshm_coll_on_node;

/* Waits until this PE's flag reaches v. */
static inline void coll_wait(const uint64_t *flag, uint64_t v)
{
    if (__atomic_load_n(flag, __ATOMIC_ACQUIRE) >= v)
        return;
    struct pshm_wait w = {.coll = 1, .on_node = pshm_coll_on_node};
    do
        pshm_wait_step(&w, flag, 1);
    while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) < v);
    pshm_wait_end(&w);
}

/* Completes this PE's transfers (before a barrier that announces them). */
static inline void coll_complete(void)
{
    if (pshm_coll_pending) {
        pshm_quiet(&pshm_ctx_default);
        pshm_coll_pending = 0;
    }
}

/*
 * How far a PE may run ahead.  Programs reuse a collective's buffers (and
 * pSync) every other call without synchronizing: what OpenSHMEM promises
 * them is that no PE is more than one collective ahead of another on the
 * same team, so data of call j never lands in a buffer a PE still reads
 * after call j-2.  Every native algorithm but the binomial broadcast
 * returns only once every member has entered the call (its result, or its
 * last flag, depends on all of them), which keeps the promise for the next
 * call.  The binomial broadcast lets the root return at once; it keeps the
 * promise itself through its children's entry notices (native_bcast.c) and
 * leaves the team "open": the next collective that writes into peers'
 * buffers before hearing from them runs a barrier first.
 *
 * Returns whether the previous collective on t was such a broadcast, and
 * closes the team.
 */
static inline int coll_enter(struct pshm_team *t)
{
    int open = t->sym->l.bcast_open;
    t->sym->l.bcast_open = 0;
    return open;
}

/* A barrier inside a native algorithm: the component's on the API's
 * teams, the native one on a node-aware team's sub-teams, which no
 * component knows. */
static inline int coll_barrier(struct pshm_team *t)
{
    return PSHM_UNLIKELY(t->sub) ? pshm_native_barrier(t) : pshm_coll.barrier(t);
}

/* For algorithms that write into peers' buffers before hearing from them. */
static inline void coll_enter_writing(struct pshm_team *t)
{
    if (PSHM_UNLIKELY(coll_enter(t)))
        coll_barrier(t);
}

/*
 * Each algorithm that passes data through the peers' scratch protects its
 * own reuse of it (parities, credits), but not another algorithm's: a PE
 * that returned from a gather reduction may write recursive-doubling data
 * into the scratch of a peer still folding its gather slots.  So when the
 * scratch changes hands (the same sequence on every member), all meet
 * first: then every PE has left the previous collective.  Loops of one
 * algorithm pay nothing.
 */
enum { COLL_SCRATCH_RD = 1, COLL_SCRATCH_RING, COLL_SCRATCH_GATHER, COLL_SCRATCH_SCAN };

static inline void coll_scratch(struct pshm_team *t, int user)
{
    if (PSHM_UNLIKELY(t->sym->l.scratch_user != user)) {
        if (t->sym->l.scratch_user)
            coll_barrier(t);
        t->sym->l.scratch_user = user;
    }
}

/* Copies nelems elements of es bytes, strides in elements (one element
 * is contiguous whatever they are).  Blocks of up to 16 bytes, the usual
 * case, without a call. */
static inline void coll_copy_strided(char *d, ptrdiff_t dst, const char *s, ptrdiff_t sst,
                                size_t nelems, size_t es)
{
    if ((dst == 1 && sst == 1) || nelems == 1) {
        size_t b = nelems * es;
        if (b == 0) {
            /* nothing: the pointers may be null */
        } else if (b == 8) {
            memcpy(d, s, 8);
        } else if (b > 8 && b <= 16) { /* two overlapping words */
            uint64_t x, y;
            memcpy(&x, s, 8);
            memcpy(&y, s + b - 8, 8);
            memcpy(d, &x, 8);
            memcpy(d + b - 8, &y, 8);
        } else {
            memmove(d, s, b); /* an in-place fcollect copies a block onto itself */
        }
        return;
    }
    for (size_t j = 0; j < nelems; j++)
        memcpy(d + (ptrdiff_t)j * dst * (ptrdiff_t)es, s + (ptrdiff_t)j * sst * (ptrdiff_t)es, es);
}

static inline int coll_wpe(const struct pshm_team *t, int pe) { return pshm_team_world_pe(t, pe); }

/* x mod n for x in [-n, 2n): a rank offset by at most n either way.  A
 * division costs more than the rest of a small call's bookkeeping. */
static inline int coll_mod(int x, int n) { return x < 0 ? x + n : x >= n ? x - n : x; }

/* log2 of x's lowest set bit (x > 0): a binomial tree's level. */
static inline int coll_lowbit_log(int x) { return __builtin_ctz((unsigned)x); }

static inline int coll_log2_floor(int n)
{
    int k = 0;
    while ((2 << k) <= n)
        k++;
    return k;
}

#endif
