/* Ordering, completion, waiting, and the world barrier. */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "coll_layer.h"
#include "config.h"
#include "error.h"
#include "init.h"
#include "segment.h"
#include "sync.h"

/* Not FUTEX_PRIVATE: waiter and waker are different processes sharing
 * the mapping. */
static long futex(uint32_t *word, int op, uint32_t val, const struct timespec *timeout)
{
    return syscall(SYS_futex, word, op, val, timeout, NULL, 0);
}

/* What a waiter and a writer agree to call a word: its offset in its
 * segment, in 8-byte units, so that both halves of a 64-bit word match.
 * Aliases (offsets 32 GiB apart) only cost a needless wake. */
static uint32_t watch_key(int seg, uintptr_t off)
{
    return (uint32_t)(off >> 3) ^ (seg == PSHM_SEG_DATA ? 0x80000000u : 0);
}

/* What this process's waits did, for shmemx_wait_stat: a test can then
 * tell a wait that slept from one that only spun, which its results alone
 * cannot show.  Counted beside system calls, so the counting is free. */
static uint64_t stat_naps, stat_naps_woken, stat_wakes;

static void wake_all(struct pshm_sleep *s)
{
    __atomic_fetch_add(&s->seq, 1, __ATOMIC_SEQ_CST);
    futex(&s->seq, FUTEX_WAKE, INT_MAX, NULL);
    __atomic_fetch_add(&stat_wakes, 1, __ATOMIC_RELAXED);
}

/* The inline check saw sleepers at pe: wake them only if one may watch
 * addr, so that a PE asleep on another word is neither woken nor costs
 * the writer a system call. */
__attribute__((noinline, cold)) void pshm_wake(int pe, const void *addr, uint64_t st)
{
    size_t off = 0;
    int seg = pshm_seg_of(addr, &off);
    if ((uint32_t)st != PSHM_WATCH_ANY && (seg < 0 || (uint32_t)st != watch_key(seg, off)))
        return;
    wake_all(pshm_g.sleep_at[pe]);
}

/* Where writers look for PEs not mapped here: nobody ever sleeps on it. */
static struct pshm_sleep nobody;

void pshm_sleep_init(void)
{
    struct pshm_sleep *own = &pshm_internal()->sleep;
    size_t off = (uintptr_t)own - pshm_g.heap_lo;
    pshm_g.sleep_at = malloc(sizeof *pshm_g.sleep_at * (size_t)pshm_g.n_pes);
    if (!pshm_g.sleep_at)
        pshm_fatal("out of memory for %d PEs", pshm_g.n_pes);
    for (int r = 0; r < pshm_g.n_pes; r++) {
        char *h = pshm_g.peer[r].base[PSHM_SEG_HEAP];
        pshm_g.sleep_at[r] = r == pshm_g.my_pe ? own : h ? (struct pshm_sleep *)(h + off) : &nobody;
    }
}

void pshm_sleep_fini(void)
{
    free(pshm_g.sleep_at);
    pshm_g.sleep_at = NULL;
}

/* Where a waiter on addr sleeps: the sleep word of the PE whose memory
 * holds addr (mostly this PE; the counter barrier watches a word of a
 * mapped peer), and the key a writer of addr will use.  Private memory
 * gets this PE's and PSHM_WATCH_ANY: only the time bound ends that sleep
 * unless something else wakes this PE. */
static struct pshm_sleep *sleep_of(const void *addr, uint32_t *key)
{
    uintptr_t a = (uintptr_t)addr;
    struct pshm_sleep *own = pshm_g.sleep_at[pshm_g.my_pe];
    if (a - pshm_g.heap_lo < pshm_g.heap_len) {
        *key = watch_key(PSHM_SEG_HEAP, a - pshm_g.heap_lo);
        return own;
    }
    if (a - pshm_g.data_lo < pshm_g.data_len) {
        *key = watch_key(PSHM_SEG_DATA, a - pshm_g.data_lo);
        return own;
    }
    for (int i = 0; i < pshm_boot.n_local; i++) {
        int r = pshm_boot.local_ranks[i];
        uintptr_t h = (uintptr_t)pshm_g.peer[r].base[PSHM_SEG_HEAP];
        uintptr_t d = (uintptr_t)pshm_g.peer[r].base[PSHM_SEG_DATA];
        if (!h)
            continue;
        if (a - h < pshm_g.heap_len)
            *key = watch_key(PSHM_SEG_HEAP, a - h);
        else if (d && a - d < pshm_g.data_len)
            *key = watch_key(PSHM_SEG_DATA, a - d);
        else
            continue;
        return pshm_g.sleep_at[r];
    }
    *key = PSHM_WATCH_ANY;
    return own;
}

/* Counts this waiter in s->state.  Sleepers who all watch one word keep
 * its key; a second word makes it PSHM_WATCH_ANY until all have left. */
static void announce(struct pshm_sleep *s, uint32_t key)
{
    uint64_t o = __atomic_load_n(&s->state, __ATOMIC_RELAXED), n;
    do {
        uint32_t count = (uint32_t)(o >> 32), k = (uint32_t)o;
        n = ((uint64_t)(count + 1) << 32) | (count == 0 || k == key ? key : PSHM_WATCH_ANY);
    } while (!__atomic_compare_exchange_n(&s->state, &o, n, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
}

/* Uncounts this waiter; returns how many still sleep there. */
static uint32_t retire(struct pshm_sleep *s)
{
    uint64_t o = __atomic_load_n(&s->state, __ATOMIC_RELAXED), n;
    do {
        uint32_t count = (uint32_t)(o >> 32) - 1;
        n = count ? ((uint64_t)count << 32) | (uint32_t)o : 0;
    } while (!__atomic_compare_exchange_n(&s->state, &o, n, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    return (uint32_t)(n >> 32);
}

/* A wait yields the CPU this long before it sleeps.  A sleep costs the
 * writer a wake-up, and delivering one to a core gone idle is slow here
 * (two processes ping-ponging through a futex on two cores: 60 us per
 * round trip, against 2-5 us by yielding), so short waits stay runnable;
 * a barrier loop at 16 PEs on 2 cores was fastest and cheapest at about
 * this value (docs/benchmarks.md). */
#define YIELD_NS 100000u
/* The first nap; each one that ends by its bound doubles the next, up to
 * SHMEM_WAIT_SLEEP, so that a long wait costs few wake-ups. */
#define FIRST_NAP_US 100u

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* A nap in the transport: it ends on traffic for this PE, or by its
 * bound, which grows while naps end by it. */
static void block(struct pshm_wait *w)
{
    if (!w->nap_us)
        w->nap_us = FIRST_NAP_US < pshm_cfg.wait_sleep_us ? FIRST_NAP_US : pshm_cfg.wait_sleep_us;
    int woken = pshm_g.tp->block(w->nap_us);
    __atomic_fetch_add(&stat_naps, 1, __ATOMIC_RELAXED);
    if (woken) {
        __atomic_fetch_add(&stat_naps_woken, 1, __ATOMIC_RELAXED);
    } else {
        w->nap_us *= 2;
        if (w->nap_us > pshm_cfg.wait_sleep_us)
            w->nap_us = pshm_cfg.wait_sleep_us;
    }
}

/* A wait for a store by a PE of this node polls the transport on one
 * step in so many.  Its word needs no poll; a poll only serves others
 * (a transfer into this PE may need its progress), and in the on-node
 * phases of a node-aware collective it is what took the core from the
 * node's leader, which waits for the network: 4 PEs on 2 emulated nodes
 * of one core each, polled at every step against one in 32, barrier
 * 18 -> 14.5 us over ucx tcp, 28 -> 18 us over ofi tcp (docs/benchmarks.md).
 */
#define ON_NODE_POLL_EVERY 32u
/* Counted across waits: the on-node phases' waits are mostly shorter than
 * 32 steps, and a PE that never polls slowed ucx (31-39 us) as well. */
static _Thread_local unsigned on_node_steps;

void pshm_wait_step(struct pshm_wait *w, const void *addr, size_t n)
{
    if (pshm_g.tp_progress && (!w->on_node || ++on_node_steps % ON_NODE_POLL_EVERY == 0)) {
        /* A poll that served another PE (ABI 2.7) starts the budget again
         * where a core is spare: that PE waits for our answers, and a
         * yield between them costs each a system call (the mpi transport's
         * atomics by message: 1.58 against 0.96 us a fetch-add).  Where
         * cores are shared, the PE we serve may need ours: yield as
         * before. */
        if (!pshm_g.tp->poll)
            pshm_g.tp->progress();
        else if (pshm_g.tp->poll() && __atomic_load_n(&pshm_g.wait_hot, __ATOMIC_RELAXED)) {
            w->spins = 1;
            w->yield_until = 0;
        }
    }
    /* Another thread may lower the budget when it starts waiting. */
    if (w->spins < __atomic_load_n(&pshm_cfg.wait_spins, __ATOMIC_RELAXED)) {
        if (PSHM_UNLIKELY(!w->spins) && pshm_thread_level == SHMEM_THREAD_MULTIPLE)
            pshm_wait_thread_note();
        /* The first polls go back to the word at once: a pause lasts about
         * 140 cycles on recent x86, and a wait that ends during one ends
         * that much later (a 2-PE barrier: 0.18 -> 0.15 us). */
        if (++w->spins > __atomic_load_n(&pshm_g.wait_hot, __ATOMIC_RELAXED))
            pshm_cpu_relax();
        return;
    }
    if (PSHM_UNLIKELY(w->coll))
        pshm_coll_layer.departed_check();
    if (!w->sleep) {
        /* PEs may outnumber cores: let the PE we wait for run, and sleep
         * only once that has lasted YIELD_NS. */
        /* A transport that needs this PE's progress (ofi, ucx, mpi) must
         * be polled, and nothing would wake a futex for its traffic: the
         * PE keeps yielding, or blocks in the transport if it can (ABI
         * 2.6 block).  Sleeping outside the transport took udp;ofi_rxd
         * into a hang (a peer's quiet waiting for acknowledgements of
         * this PE's naps). */
        int in_tp = pshm_g.tp_progress;
        if (!pshm_cfg.wait_sleep_us || !pshm_g.sleep_at || (in_tp && !pshm_g.tp->block)) {
            /* A wait that never sleeps yields once in wait_yield_every
             * polls (core/wait_budget.c).  Where a core is spare a yield
             * buys only its system call, which delays what the PE serves
             * (the mpi transport's RMA needs the target's progress: put +
             * quiet 0.98-3.4 us yielding at every poll, 0.61 polling); one
             * poll in 64 still lets a thread that shares the core in. */
            unsigned every = __atomic_load_n(&pshm_g.wait_yield_every, __ATOMIC_RELAXED);
            if (every > 1 && ++w->spins % every) {
                if (__atomic_load_n(&pshm_g.wait_hot, __ATOMIC_RELAXED))
                    pshm_cpu_relax();
                return;
            }
            sched_yield();
            return;
        }
        uint64_t t = now_ns();
        if (!w->yield_until)
            w->yield_until = t + YIELD_NS;
        if (t < w->yield_until) {
            sched_yield();
            return;
        }
        if (in_tp) {
            block(w);
            return;
        }
        uint32_t key = PSHM_WATCH_ANY;
        struct pshm_sleep *s = sleep_of(addr, &key);
        /* Counted before the caller looks at its word again, so that a
         * writer either sees us counted or we see its store. */
        announce(s, n == 1 ? key : PSHM_WATCH_ANY);
        atomic_thread_fence(memory_order_seq_cst);
        w->seq = __atomic_load_n(&s->seq, __ATOMIC_SEQ_CST);
        w->sleep = s;
        w->nap_us = FIRST_NAP_US < pshm_cfg.wait_sleep_us ? FIRST_NAP_US : pshm_cfg.wait_sleep_us;
        return;
    }
    /* Bounded: writes that cannot wake us (plain puts, fetching AMOs,
     * other nodes, transfers through the transport) must still be seen. */
    unsigned us = w->nap_us;
    struct timespec ts = {.tv_sec = us / 1000000u, .tv_nsec = (long)(us % 1000000u) * 1000};
    long rc = futex(&w->sleep->seq, FUTEX_WAIT, w->seq, &ts);
    w->timed_out = rc != 0 && errno == ETIMEDOUT;
    __atomic_fetch_add(&stat_naps, 1, __ATOMIC_RELAXED);
    /* EAGAIN: a writer bumped seq between our read of it and the call. */
    if (rc == 0 || errno == EAGAIN)
        __atomic_fetch_add(&stat_naps_woken, 1, __ATOMIC_RELAXED);
    w->seq = __atomic_load_n(&w->sleep->seq, __ATOMIC_SEQ_CST);
    /* Naps grow while nothing happens. */
    if (w->timed_out) {
        w->nap_us *= 2;
        if (w->nap_us > pshm_cfg.wait_sleep_us)
            w->nap_us = pshm_cfg.wait_sleep_us;
    }
}

PSHM_API uint64_t pshmemx_wait_stat(int which)
{
    switch (which) {
    case SHMEMX_WAIT_CAN_SLEEP:
        /* The condition pshm_wait_step tests before it would sleep: 1 by
         * a futex, 2 in the transport. */
        if (!pshm_is_initialized() || !pshm_cfg.wait_sleep_us || !pshm_g.sleep_at)
            return 0;
        return !pshm_g.tp_progress ? 1 : pshm_g.tp->block ? 2 : 0;
    case SHMEMX_WAIT_NAPS: return __atomic_load_n(&stat_naps, __ATOMIC_RELAXED);
    case SHMEMX_WAIT_NAPS_WOKEN: return __atomic_load_n(&stat_naps_woken, __ATOMIC_RELAXED);
    case SHMEMX_WAIT_WAKES: return __atomic_load_n(&stat_wakes, __ATOMIC_RELAXED);
    case SHMEMX_WAIT_SPINS: return __atomic_load_n(&pshm_cfg.wait_spins, __ATOMIC_RELAXED);
    default: return UINT64_MAX;
    }
}
#pragma weak shmemx_wait_stat = pshmemx_wait_stat

void pshm_wait_leave(struct pshm_wait *w)
{
    struct pshm_sleep *s = w->sleep;
    w->sleep = NULL;
    /* Our word changed and nobody woke us: its writer could not.  Others
     * asleep on the same PE's memory may watch the same word (the
     * counter barrier's release): wake them rather than let each wait
     * out its own bound. */
    if (retire(s) && w->timed_out)
        wake_all(s);
}

void pshm_flag_put(uint64_t *addr, uint64_t value, int pe, int ordered)
{
    if (ordered && pshm_g.tp->fence)
        pshm_g.tp->fence(pshm_ctx_default.t);
    size_t off = 0;
    int s = pshm_seg_of(addr, &off);
    pshm_g.tp->put(pshm_ctx_default.t, pe, s, off, &value, sizeof value);
}

PSHM_API void pshmem_quiet(void) { pshm_quiet(&pshm_ctx_default); }
#pragma weak shmem_quiet = pshmem_quiet

PSHM_API void pshmem_ctx_quiet(shmem_ctx_t ctx)
{
    PSHM_CHECK_INIT("shmem_ctx_quiet");
    if (ctx)
        pshm_quiet(ctx);
}
#pragma weak shmem_ctx_quiet = pshmem_ctx_quiet

static inline void fence(struct pshm_ctx *c)
{
    atomic_thread_fence(memory_order_release);
    if (pshm_g.tp->fence)
        pshm_g.tp->fence(c->t);
}

PSHM_API void pshmem_fence(void) { fence(&pshm_ctx_default); }
#pragma weak shmem_fence = pshmem_fence

PSHM_API void pshmem_ctx_fence(shmem_ctx_t ctx)
{
    PSHM_CHECK_INIT("shmem_ctx_fence");
    if (ctx)
        fence(ctx);
}
#pragma weak shmem_ctx_fence = pshmem_ctx_fence

/* Completing everything also completes what went to the named PEs. */
PSHM_API void pshmem_pe_quiet(const int *target_pes, size_t npes)
{
    PSHM_CHECK_INIT("shmem_pe_quiet");
    (void)target_pes;
    (void)npes;
    pshm_quiet(&pshm_ctx_default);
}
#pragma weak shmem_pe_quiet = pshmem_pe_quiet

PSHM_API void pshmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes)
{
    PSHM_CHECK_INIT("shmem_ctx_pe_quiet");
    (void)target_pes;
    (void)npes;
    if (ctx)
        pshm_quiet(ctx);
}
#pragma weak shmem_ctx_pe_quiet = pshmem_ctx_pe_quiet
