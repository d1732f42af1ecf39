/*
 * Memory spaces (ABI 2.1 seg_register): one window per space, over the
 * memory the core made, shared by every context and used for its RMA and
 * its atomics alike.  A context's quiet flushes its dirty sets, one word
 * of flags for its four windows (mpi_ctx.c); rather than grow that for
 * spaces, every operation on a space completes in the call
 * (MPI_Win_flush to its target), so quiet has nothing of theirs to do.
 * Correct for every op, _nbi and nbe forms included (they may complete
 * early); slower than the heap's path: per-context space windows are
 * left for later.
 */
#include "mpi_plugin.h"

#define CHUNK ((size_t)1 << 30)

static MPI_Win space_win[PSHM_MAX_SEGS];

int mpi_seg_register(int seg, void *base, size_t size)
{
    /* collective, as MPI_Win_create is: every PE calls it for seg */
    g.seg_base[seg] = base; /* where active messages apply atomics */
    return win_create_over(base, size, 1, "memory space", &space_win[seg]);
}

void mpi_seg_deregister(int seg)
{
    if (space_win[seg] != MPI_WIN_NULL && space_win[seg] != 0)
        win_close(&space_win[seg]);
    space_win[seg] = MPI_WIN_NULL;
    g.seg_base[seg] = NULL;
}

void mpi_spaces_close(void)
{
    for (int s = PSHM_NSEGS; s < PSHM_MAX_SEGS; s++)
        mpi_seg_deregister(s);
}

void mpi_space_rma(int put, int pe, int seg, size_t off, void *buf, size_t len)
{
    MPI_Win w = space_win[seg];
    char *b = buf;
    while (len) {
        size_t n = len < CHUNK ? len : CHUNK;
        if (put)
            CHECK("MPI_Put", MPI_Put(b, (int)n, MPI_BYTE, pe, (MPI_Aint)off, (int)n, MPI_BYTE, w));
        else
            CHECK("MPI_Get", MPI_Get(b, (int)n, MPI_BYTE, pe, (MPI_Aint)off, (int)n, MPI_BYTE, w));
        b += n;
        off += n;
        len -= n;
    }
    CHECK("MPI_Win_flush", MPI_Win_flush(pe, w));
    note_progress();
}

void mpi_space_amo(int pe, int seg, size_t off, int op, int type, const void *operand,
                   const void *compare, void *fetch)
{
    MPI_Win w = space_win[seg];
    MPI_Datatype dt = type == PSHM_T_U64 || type == PSHM_T_DOUBLE ? MPI_UINT64_T : MPI_UINT32_T;
    uint64_t zero = 0;
    if (op == PSHM_AMO_READ) {
        if (!fetch)
            return;
        operand = &zero;
    }
    mpi_amo_issue(w, pe, off, op, dt, operand, compare, fetch);
    CHECK("MPI_Win_flush", MPI_Win_flush(pe, w));
    note_progress();
}
