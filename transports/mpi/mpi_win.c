/*
 * Windows: one per segment for the default context, over the memory the
 * core mapped (MPI_Win_create: no copy, no second heap), plus a pool of
 * window pairs made at init for contexts (creating a window is collective,
 * shmem_ctx_create is not).  Every window is locked once for all targets
 * and stays locked until fini.
 */
#include <stdlib.h>

#include "mpi_plugin.h"

/* Hints every window gets.  Atomics go through the default windows only;
 * MPICH keeps accumulates atomic across different operations when told
 * which ones are used (which_accumulate_ops, an MPICH key other MPIs
 * ignore), and OpenSHMEM orders none of them without a fence. */
static MPI_Info make_info(int atomics)
{
    MPI_Info info;
    if (MPI_Info_create(&info) != MPI_SUCCESS)
        return MPI_INFO_NULL;
    MPI_Info_set(info, "same_disp_unit", "true");
    MPI_Info_set(info, "accumulate_ordering", "none");
    MPI_Info_set(info, "accumulate_ops", "same_op_no_op");
    MPI_Info_set(info, "which_accumulate_ops",
                 atomics ? "sum,band,bor,bxor,replace,no_op,cswap" : "none");
    return info;
}

int win_create_over(void *base, size_t size, int atomics, const char *what, MPI_Win *w)
{
    MPI_Info info = make_info(atomics);
    int rc = MPI_Win_create(base, (MPI_Aint)size, 1, info, g.comm, w);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    if (rc != MPI_SUCCESS) {
        char msg[PSHM_MPI_ERROR_LEN];
        g.svc->error("mpi transport: MPI_Win_create over the %s (%zu bytes) failed: %s", what, size,
                     pshm_mpi_error(rc, msg));
        *w = MPI_WIN_NULL;
        return -1;
    }
    /* Errors come back to us, so that we report them in one line. */
    MPI_Win_set_errhandler(*w, MPI_ERRORS_RETURN);
    /* quiet relies on the unified model (no MPI_Win_sync). */
    int *model = NULL, flag = 0;
    MPI_Win_get_attr(*w, MPI_WIN_MODEL, &model, &flag);
    if (!flag || !model || *model != MPI_WIN_UNIFIED) {
        g.svc->error("mpi transport: MPI gives the %s's window the separate memory model; this "
                      "transport needs the unified one",
                      what);
        MPI_Win_free(w);
        *w = MPI_WIN_NULL;
        return -1;
    }
    /* No other process ever takes an exclusive lock: NOCHECK. */
    rc = MPI_Win_lock_all(MPI_MODE_NOCHECK, *w);
    if (rc != MPI_SUCCESS) {
        g.svc->error("mpi transport: MPI_Win_lock_all failed");
        MPI_Win_free(w);
        *w = MPI_WIN_NULL;
        return -1;
    }
    return 0;
}

static int win_open(int seg, int atomics, MPI_Win *w)
{
    const struct pshm_segment_info *si = &g.svc->seg[seg];
    /* An empty segment still needs its window: creation is collective. */
    return win_create_over(si->size ? si->base : NULL, si->size, atomics,
                           seg == PSHM_SEG_HEAP ? "heap segment" : "data segment", w);
}

void win_close(MPI_Win *w)
{
    if (*w == MPI_WIN_NULL)
        return;
    MPI_Win_unlock_all(*w);
    MPI_Win_free(w);
    *w = MPI_WIN_NULL;
}

/* Default windows, then the pool, in the same order on every PE. */
int win_open_all(void)
{
    MPI_Win w[PSHM_NSEGS];
    for (int s = 0; s < PSHM_NSEGS; s++)
        w[s] = MPI_WIN_NULL;
    g.pool = NULL;
    g.pool_used = NULL;
    for (int s = 0; s < PSHM_NSEGS; s++)
        if (win_open(s, 1, &w[s]))
            goto fail;
    if (ctx_setup(&dflt, g.thread_level < THREAD_MULTIPLE, w, -1)) {
        g.svc->error("mpi transport: out of memory");
        goto fail;
    }
    if (g.pool_n) {
        g.pool = calloc((size_t)g.pool_n, sizeof *g.pool);
        g.pool_used = calloc((size_t)g.pool_n, 1);
        if (!g.pool || !g.pool_used) {
            g.svc->error("mpi transport: out of memory");
            goto fail_pool;
        }
        for (int i = 0; i < g.pool_n; i++)
            for (int s = 0; s < PSHM_NSEGS; s++)
                g.pool[i][s] = MPI_WIN_NULL;
        for (int i = 0; i < g.pool_n; i++)
            for (int s = 0; s < PSHM_NSEGS; s++)
                if (win_open(s, 0, &g.pool[i][s]))
                    goto fail_pool;
    }
    return 0;
fail_pool:
    ctx_teardown(&dflt);
    if (g.pool)
        for (int i = 0; i < g.pool_n; i++)
            for (int s = 0; s < PSHM_NSEGS; s++)
                win_close(&g.pool[i][s]);
    free(g.pool);
    free(g.pool_used);
    g.pool = NULL;
    g.pool_used = NULL;
fail:
    for (int s = 0; s < PSHM_NSEGS; s++)
        win_close(&w[s]);
    return -1;
}

void win_close_all(void)
{
    for (int s = 0; s < PSHM_NSEGS; s++)
        win_close(&dflt.win[s]);
    ctx_teardown(&dflt);
    if (g.pool)
        for (int i = 0; i < g.pool_n; i++)
            for (int s = 0; s < PSHM_NSEGS; s++)
                win_close(&g.pool[i][s]);
    free(g.pool);
    free(g.pool_used);
    g.pool = NULL;
    g.pool_used = NULL;
}

/* Contexts may be created by several threads at once. */
int win_pool_take(MPI_Win out[PSHM_NSEGS])
{
    for (int i = 0; i < g.pool_n; i++) {
        unsigned char free_ = 0;
        if (__atomic_compare_exchange_n(&g.pool_used[i], &free_, 1, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED)) {
            for (int s = 0; s < PSHM_NSEGS; s++)
                out[s] = g.pool[i][s];
            return i;
        }
    }
    return -1;
}

void win_pool_give(int slot) { __atomic_store_n(&g.pool_used[slot], 0, __ATOMIC_RELEASE); }
