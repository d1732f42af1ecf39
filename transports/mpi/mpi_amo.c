/*
 * Atomics as MPI accumulate operations, every one of them (fetch and set
 * included) on the default context's window of the segment: MPI makes
 * accumulates atomic only among those on one window with one datatype.
 * Operand types collapse to two unsigned integers (the core's 32/64-bit
 * classes; float and double only need fetch, set and swap, which are bit
 * copies), so all AMOs on a word use one datatype.
 */
#include "mpi_plugin.h"

const MPI_Op mpi_amo_op[PSHM_AMO_NOPS] = {
    [PSHM_AMO_ADD] = MPI_SUM,      [PSHM_AMO_AND] = MPI_BAND,   [PSHM_AMO_OR] = MPI_BOR,
    [PSHM_AMO_XOR] = MPI_BXOR,     [PSHM_AMO_SWAP] = MPI_REPLACE, [PSHM_AMO_CSWAP] = MPI_OP_NULL,
    [PSHM_AMO_READ] = MPI_NO_OP,   [PSHM_AMO_SET] = MPI_REPLACE,
};

void mpi_amo_issue(MPI_Win w, int pe, size_t off, int op, MPI_Datatype dt, const void *operand,
                   const void *compare, void *fetch)
{
    uint64_t tmp;
    if (op == PSHM_AMO_CSWAP)
        CHECK("MPI_Compare_and_swap", MPI_Compare_and_swap(operand, compare, fetch ? fetch : &tmp,
                                                           dt, pe, (MPI_Aint)off, w));
    else if (fetch)
        CHECK("MPI_Fetch_and_op",
              MPI_Fetch_and_op(operand, fetch, dt, pe, (MPI_Aint)off, mpi_amo_op[op], w));
    else
        CHECK("MPI_Accumulate",
              MPI_Accumulate(operand, 1, dt, pe, (MPI_Aint)off, 1, dt, mpi_amo_op[op], w));
}

/* Fetching forms, compare-and-swap, and anything on a context shared by
 * threads: wait for the answer (local completion means the result is
 * here; the operand was read). */
__attribute__((noinline)) static void amo_wait(struct mctx *c, int i, int pe, size_t off, int op,
                                               MPI_Datatype dt, const void *operand,
                                               const void *compare, void *fetch)
{
    MPI_Win w = c->win[i];
    mpi_amo_issue(w, pe, off, op, dt, operand, compare, fetch);
    CHECK("MPI_Win_flush_local", MPI_Win_flush_local(pe, w));
    note_progress();
    if (!fetch)
        mark_dirty(c, i, pe); /* applied at the target only after a flush */
}

void mpi_amo(pshm_tctx t, int pe, int seg, size_t off, int op, int type, const void *operand,
             const void *compare, void *fetch, int nbi)
{
    struct mctx *c = MCTX(t);
    if (UNLIKELY(seg >= PSHM_NSEGS)) {
        mpi_space_amo(pe, seg, off, op, type, operand, compare, fetch);
        return;
    }
    int wide = type == PSHM_T_U64 || type == PSHM_T_DOUBLE;
    MPI_Datatype dt = wide ? MPI_UINT64_T : MPI_UINT32_T;
    int i = c->own_windows ? W_AMO + seg : seg;
    uint64_t zero = 0;
    if (op == PSHM_AMO_READ) {
        if (!fetch)
            return;
        operand = &zero; /* MPI_NO_OP ignores it */
    }
    /* Non-fetching: stage the operand and leave the operation in flight. */
    void *p;
    if (!fetch && op != PSHM_AMO_CSWAP &&
        LIKELY((p = stage(c, operand, wide ? 8 : 4)) != NULL)) {
        CHECK("MPI_Accumulate",
              MPI_Accumulate(p, 1, dt, pe, (MPI_Aint)off, 1, dt, mpi_amo_op[op], c->win[i]));
        mark_dirty(c, i, pe);
        return;
    }
    /* A fetching _nbi completes at the next quiet: stage its operands. */
    if (nbi && fetch && c->solo) {
        /* One staging for both: a ring drained between two would reuse
         * the first's bytes. */
        size_t w = wide ? 8 : 4;
        unsigned char both[16];
        memcpy(both, operand, w);
        if (compare)
            memcpy(both + w, compare, w);
        unsigned char *o = stage(c, both, 2 * w);
        if (op == PSHM_AMO_CSWAP)
            CHECK("MPI_Compare_and_swap",
                  MPI_Compare_and_swap(o, o + w, fetch, dt, pe, (MPI_Aint)off, c->win[i]));
        else
            CHECK("MPI_Fetch_and_op",
                  MPI_Fetch_and_op(o, fetch, dt, pe, (MPI_Aint)off, mpi_amo_op[op], c->win[i]));
        mark_dirty(c, i, pe);
        return;
    }
    amo_wait(c, i, pe, off, op, dt, operand, compare, fetch);
}
