/*
 * Contexts, quiet and fence.  A context has its own RMA windows when the
 * pool created at init has a free pair (so that its quiet waits for its own
 * operations only), and the default context's windows otherwise; its
 * atomics always use the default context's windows (see mpi_plugin.h).
 */
#include <stdlib.h>

#include "mpi_plugin.h"

struct mctx mdflt;

int ctx_setup(struct mctx *c, int solo, MPI_Win rma[PSHM_NSEGS], int slot)
{
    memset(c, 0, sizeof *c);
    c->solo = (unsigned char)solo;
    c->pool_slot = slot;
    c->own_windows = slot >= 0;
    for (int s = 0; s < PSHM_NSEGS; s++) {
        c->win[W_RMA + s] = rma[s];
        c->win[W_AMO + s] = c == &mdflt ? rma[s] : mdflt.win[s];
    }
    /* Only a context used by one thread at a time stages. */
    if (solo && !(c->ring = malloc(RING_BYTES)))
        return -1;
    return 0;
}

void ctx_teardown(struct mctx *c)
{
    free(c->ring);
    c->ring = NULL;
}

/* The ring is full: wait until MPI no longer needs what was staged. */
void ring_drain(struct mctx *c)
{
    for (int i = 0; i < W_N; i++)
        if (c->ring_wins & (1u << i))
            CHECK("MPI_Win_flush_local_all", MPI_Win_flush_local_all(c->win[i]));
    c->ring_wins = 0;
    c->ring_used = 0;
}

/* Takes the flag: nonzero if win[i] had operations to complete. */
static inline int take_dirty(struct mctx *c, int i)
{
    if (LIKELY(c->solo)) {
        int d = c->dirty[i];
        c->dirty[i] = 0;
        return d;
    }
    return __atomic_exchange_n(&c->dirty[i], 0, __ATOMIC_ACQUIRE);
}

__attribute__((noinline)) static void flush(struct mctx *c)
{
    note_progress();
    for (int i = 0; i < W_N; i++)
        if (take_dirty(c, i)) {
            CHECK("MPI_Win_flush_all", MPI_Win_flush_all(c->win[i]));
            /* Memory barrier for the unified model: loads of the window by
             * this process see what the flushed operations wrote. */
            CHECK("MPI_Win_sync", MPI_Win_sync(c->win[i]));
        }
    /* Everything staged is complete (all of it went to flushed windows). */
    c->ring_wins = 0;
    c->ring_used = 0;
}

/* The common case costs a few loads: nothing issued since the last quiet
 * (a put+quiet loop dirties one window of four). */
void mpi_quiet(pshm_tctx t)
{
    struct mctx *c = MCTX(t);
    uint32_t any;
    memcpy(&any, c->dirty, sizeof any);
    if (any)
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
            w[s] = mdflt.win[s];
    int solo = mg.thread_level < THREAD_MULTIPLE || (options & (CTX_PRIVATE | CTX_SERIALIZED));
    if (ctx_setup(c, solo, w, slot)) {
        if (slot >= 0)
            win_pool_give(slot);
        free(c);
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
