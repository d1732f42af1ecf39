/*
 * Explicit requests (nbe).  Gets are MPI_Rget and fetching atomics
 * MPI_Rget_accumulate: their MPI requests complete when the data is here,
 * which is the request's completion.  MPI has no request form of
 * compare-and-swap, and an MPI_Rput request completes when its source may
 * be reused, not at the target; so puts (MPI_Put) and compare-and-swaps
 * are completed by MPI_Win_flush to each (window, PE) the request sent
 * them to, once its MPI requests are done.  A request therefore waits for
 * its own gets and fetches and for what its context sent to its puts'
 * targets.  Every operation is also in the context's dirty sets, so quiet
 * completes it as before.
 */
#include <stdlib.h>

#include "mpi_plugin.h"
#include "../common/grow.h"

#define CHUNK ((size_t)1 << 30)

struct mreq {
    int n, cap;
    MPI_Request *r;
    int nf, fcap;
    struct flushee {
        int win, pe;
    } *f;
};

static struct mreq *mreq_of(pshm_treq *req)
{
    struct mreq *m = (struct mreq *)*req;
    if (LIKELY(m != NULL))
        return m;
    if (!(m = calloc(1, sizeof *m)))
        g.svc->fatal("mpi transport: out of memory for a request");
    *req = (pshm_treq)m;
    return m;
}

static MPI_Request *new_request(struct mreq *m)
{
    m->r = pshm_grow(m->r, m->n, &m->cap, sizeof *m->r, g.svc, "mpi");
    return &m->r[m->n++];
}

static void to_flush(struct mreq *m, int win, int pe)
{
    for (int i = 0; i < m->nf; i++)
        if (m->f[i].win == win && m->f[i].pe == pe)
            return;
    m->f = pshm_grow(m->f, m->nf, &m->fcap, sizeof *m->f, g.svc, "mpi");
    m->f[m->nf].win = win;
    m->f[m->nf].pe = pe;
    m->nf++;
}

void mpi_put_nbe(pshm_tctx t, int pe, int seg, size_t off, const void *src, size_t len,
                 pshm_treq *req)
{
    if (UNLIKELY(seg >= PSHM_NSEGS)) { /* complete in the call: nothing joins req */
        mpi_space_rma(1, pe, seg, off, (void *)src, len);
        return;
    }
    struct mctx *c = MCTX(t);
    struct mreq *m = mreq_of(req);
    const char *s = src;
    while (len) {
        size_t n = len < CHUNK ? len : CHUNK;
        CHECK("MPI_Put", MPI_Put(s, (int)n, MPI_BYTE, pe, (MPI_Aint)off, (int)n, MPI_BYTE,
                                 c->win[W_RMA + seg]));
        s += n;
        off += n;
        len -= n;
    }
    mark_dirty(c, W_RMA + seg, pe);
    to_flush(m, W_RMA + seg, pe);
}

void mpi_get_nbe(pshm_tctx t, int pe, int seg, size_t off, void *dst, size_t len,
                 pshm_treq *req)
{
    if (UNLIKELY(seg >= PSHM_NSEGS)) {
        mpi_space_rma(0, pe, seg, off, dst, len);
        return;
    }
    struct mctx *c = MCTX(t);
    struct mreq *m = mreq_of(req);
    char *d = dst;
    while (len) {
        size_t n = len < CHUNK ? len : CHUNK;
        CHECK("MPI_Rget", MPI_Rget(d, (int)n, MPI_BYTE, pe, (MPI_Aint)off, (int)n, MPI_BYTE,
                                   c->win[W_RMA + seg], new_request(m)));
        d += n;
        off += n;
        len -= n;
    }
    mark_dirty(c, W_RMA + seg, pe);
}

void mpi_amo_nbe(pshm_tctx t, int pe, int seg, size_t off, int op, int type, const void *operand,
                 const void *compare, void *fetch, pshm_treq *req)
{
    if (g.amo_am) { /* answered once applied, with the old value or empty */
        if (op == PSHM_AMO_READ && !fetch)
            return;
        am_post(pe, seg, off, op, type, operand, compare, fetch, new_request(mreq_of(req)));
        return;
    }
    if (UNLIKELY(seg >= PSHM_NSEGS)) {
        mpi_space_amo(pe, seg, off, op, type, operand, compare, fetch);
        return;
    }
    struct mctx *c = MCTX(t);
    struct mreq *m = mreq_of(req);
    int wide = type == PSHM_T_U64 || type == PSHM_T_DOUBLE;
    MPI_Datatype dt = wide ? MPI_UINT64_T : MPI_UINT32_T;
    /* the same window as every other AMO on the word (mpi_amo.c) */
    int i = c->own_windows ? W_AMO + seg : seg;
    if (op == PSHM_AMO_CSWAP) {
        CHECK("MPI_Compare_and_swap",
              MPI_Compare_and_swap(operand, compare, fetch, dt, pe, (MPI_Aint)off, c->win[i]));
        to_flush(m, i, pe);
    } else {
        CHECK("MPI_Rget_accumulate",
              MPI_Rget_accumulate(operand, 1, dt, fetch, 1, dt, pe, (MPI_Aint)off, 1, dt,
                                  mpi_amo_op[op], c->win[i], new_request(m)));
    }
    mark_dirty(c, i, pe);
}

int mpi_req_test(pshm_tctx t, pshm_treq req)
{
    struct mctx *c = MCTX(t);
    struct mreq *m = (struct mreq *)req;
    /* The program waits here: it serves its peers' atomics (one of them
     * may be this request's own, to this PE). */
    if (g.amo_am)
        am_serve();
    /* From the first every time: a completed request became
     * MPI_REQUEST_NULL, which MPI_Test passes over at once. */
    for (int k = 0; k < m->n; k++) {
        int flag = 1;
        MPI_Status st;
        CHECK("MPI_Test", MPI_Test(&m->r[k], &flag, &st));
        if (!flag) {
            note_progress();
            return 0;
        }
    }
    note_progress();
    for (int k = 0; k < m->nf; k++)
        CHECK("MPI_Win_flush", MPI_Win_flush(m->f[k].pe, c->win[m->f[k].win]));
    free(m->r);
    free(m->f);
    free(m);
    return 1;
}
