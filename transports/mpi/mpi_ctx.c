/*
 * Contexts, quiet and fence.  A context has its own RMA windows when the
 * pool created at init has a free pair (so that its quiet waits for its own
 * operations only), and the default context's windows otherwise; its
 * atomics always use the default context's windows (see mpi_plugin.h).
 */
#include <stdlib.h>

#include "mpi_plugin.h"

struct mctx dflt;

static void sets_free(struct mctx *c)
{
    free(c->am_wait);
    c->am_wait = NULL;
    for (int i = 0; i < W_SETS; i++) {
        free(c->ds[i].pe);
        free(c->ds[i].has);
        c->ds[i].pe = NULL;
        c->ds[i].has = NULL;
    }
    free(c->ring);
    c->ring = NULL;
}

int ctx_setup(struct mctx *c, int solo, MPI_Win rma[PSHM_NSEGS], int slot)
{
    int n = g.svc->n_pes;
    memset(c, 0, sizeof *c);
    c->solo = (unsigned char)solo;
    c->pool_slot = slot;
    c->own_windows = slot >= 0;
    for (int s = 0; s < PSHM_NSEGS; s++) {
        c->win[W_RMA + s] = rma[s];
        c->win[W_AMO + s] = c == &dflt ? rma[s] : dflt.win[s];
    }
    for (int i = 0; i < W_SETS; i++) {
        c->ds[i].pe = malloc(sizeof(int) * (size_t)n);
        c->ds[i].has = calloc((size_t)n, 1);
        if (!c->ds[i].pe || !c->ds[i].has)
            goto fail;
    }
    /* Only a context used by one thread at a time stages. */
    if (solo && !(c->ring = malloc(RING_BYTES)))
        goto fail;
    return 0;
fail:
    sets_free(c);
    return -1;
}

void ctx_teardown(struct mctx *c) { sets_free(c); }

void dirty_add_locked(struct mctx *c, int i, int pe)
{
    struct dset *d = &c->ds[i];
    if (__atomic_load_n(&d->has[pe], __ATOMIC_RELAXED))
        return;
    pshm_lock(&c->lock);
    if (!d->has[pe]) {
        d->has[pe] = 1;
        d->pe[d->n++] = pe;
        __atomic_store_n(&c->dirty[i], 1, __ATOMIC_RELAXED);
    }
    pshm_unlock(&c->lock);
}

/* Completes at the n PEs of pe what set i sent them. */
static void complete_at(struct mctx *c, int i, const int *pe, int n)
{
    if (i == W_AM) {
        c->am_unanswered = 0;
        am_flush_pes(pe, n);
        return;
    }
    for (int k = 0; k < n; k++)
        CHECK("MPI_Win_flush", MPI_Win_flush(pe[k], c->win[i]));
}

/* Completes at their targets the operations of the PEs in ds[i]. */
static void flush_solo(struct mctx *c, int i)
{
    struct dset *d = &c->ds[i];
    complete_at(c, i, d->pe, d->n);
    for (int k = 0; k < d->n; k++)
        d->has[d->pe[k]] = 0;
    d->n = 0;
    c->dirty[i] = 0;
    if (i == W_AM)
        am_complete(c);
}

/* The same on a context threads share.  The set is emptied first, so that
 * an operation issued meanwhile by another thread is recorded anew, and
 * the lock is held until the flushes return, so that another thread's
 * quiet, which may find the set empty, returns only after the operations
 * it issued before are complete. */
__attribute__((noinline)) static void flush_shared(struct mctx *c, int i)
{
    struct dset *d = &c->ds[i];
    int copy[64], *list = copy;
    pshm_lock(&c->lock);
    int n = d->n;
    if (n > (int)(sizeof copy / sizeof *copy) && !(list = malloc(sizeof(int) * (size_t)n))) {
        pshm_unlock(&c->lock);
        g.svc->fatal("mpi transport: out of memory in quiet");
    }
    for (int k = 0; k < n; k++) {
        list[k] = d->pe[k];
        __atomic_store_n(&d->has[d->pe[k]], 0, __ATOMIC_RELAXED);
    }
    d->n = 0;
    __atomic_store_n(&c->dirty[i], 0, __ATOMIC_RELAXED);
    complete_at(c, i, list, n);
    pshm_unlock(&c->lock);
    if (list != copy)
        free(list);
}

/* No MPI_Win_sync after the flushes: windows over ordinary memory use
 * MPI's unified model (checked at creation), where it is only a memory
 * barrier, and the core's quiet issues a full fence before calling us. */
__attribute__((noinline)) static void flush(struct mctx *c)
{
    note_progress();
    int sets = g.amo_am ? W_SETS : W_N;
    for (int i = 0; i < sets; i++) {
        if (LIKELY(c->solo)) {
            if (c->dirty[i])
                flush_solo(c, i);
        } else {
            flush_shared(c, i);
        }
    }
    /* Everything staged went to a flushed window: the ring is free. */
    c->ring_used = 0;
}

/* The ring is full: complete everything, which frees it. */
void ring_drain(struct mctx *c) { flush(c); }

/* The common case costs a few loads: nothing issued since the last quiet
 * (a put+quiet loop dirties one window of four). */
_Static_assert(W_SETS <= sizeof(uint64_t), "quiet reads the dirty flags as one word");

void mpi_quiet(pshm_tctx t)
{
    struct mctx *c = MCTX(t);
    uint64_t any;
    memcpy(&any, c->dirty, sizeof any);
    /* A shared context flushes even when its set looks empty: another
     * thread may be flushing operations of ours (flush_shared). */
    if (any || UNLIKELY(!c->solo))
        flush(c);
}

/* MPI orders no two RMA operations (and we ask accumulates to be unordered
 * too: accumulate_ordering=none), so ordering means completing. */
void mpi_fence(pshm_tctx t) { mpi_quiet(t); }

int mpi_ctx_create(long options, pshm_tctx *out)
{
    struct mctx *c = aligned_alloc(64, (sizeof *c + 63) & ~(size_t)63);
    if (!c)
        return -1;
    MPI_Win w[PSHM_NSEGS];
    int slot = win_pool_take(w);
    if (slot < 0)
        for (int s = 0; s < PSHM_NSEGS; s++)
            w[s] = dflt.win[s];
    int solo = g.thread_level < THREAD_MULTIPLE || (options & (CTX_PRIVATE | CTX_SERIALIZED));
    if (ctx_setup(c, solo, w, slot)) {
        if (slot >= 0)
            win_pool_give(slot);
        free(c);
        g.svc->error("mpi transport: out of memory for a context");
        return -1;
    }
    *out = c;
    return 0;
}

void mpi_ctx_destroy(pshm_tctx t)
{
    struct mctx *c = t;
    if (!c)
        return;
    mpi_quiet(c);
    if (c->pool_slot >= 0)
        win_pool_give(c->pool_slot);
    ctx_teardown(c);
    free(c);
}
