/*
 * Put and get.  Segments are windows with displacement unit 1, so a
 * segment offset is the target displacement.  MPI counts are ints: larger
 * transfers go in pieces of CHUNK bytes.
 */
#include "mpi_plugin.h"

#define CHUNK ((size_t)1 << 30)

static void put_pieces(MPI_Win w, int pe, size_t off, const char *src, size_t len)
{
    while (len) {
        size_t n = len < CHUNK ? len : CHUNK;
        CHECK("MPI_Put", MPI_Put(src, (int)n, MPI_BYTE, pe, (MPI_Aint)off, (int)n, MPI_BYTE, w));
        src += n;
        off += n;
        len -= n;
    }
}

/* Everything but a staged put: issue, then wait until the source may be
 * reused (local completion: the data may still be on its way). */
__attribute__((noinline)) static void put_wait(struct mctx *c, int pe, int seg, size_t off,
                                               const void *src, size_t len)
{
    put_pieces(c->win[seg], pe, off, src, len);
    CHECK("MPI_Win_flush_local", MPI_Win_flush_local(pe, c->win[seg]));
    note_progress();
    mark_dirty(c, seg, pe);
}

/* A small put is copied to the ring and left in flight: no wait here, the
 * next quiet (or a full ring) completes it. */
static inline __attribute__((always_inline)) void put(pshm_tctx t, int pe, int seg, size_t off,
                                                       const void *src, size_t len)
{
    struct mctx *c = MCTX(t);
    void *p;
    if (UNLIKELY(seg >= PSHM_NSEGS)) {
        mpi_space_rma(1, pe, seg, off, (void *)src, len);
        return;
    }
    if (LIKELY(len <= g.stage_max) && LIKELY((p = stage(c, src, len)) != NULL)) {
        CHECK("MPI_Put", MPI_Put(p, (int)len, MPI_BYTE, pe, (MPI_Aint)off, (int)len, MPI_BYTE,
                                 c->win[seg]));
        mark_dirty(c, seg, pe);
        return;
    }
    put_wait(c, pe, seg, off, src, len);
}

void mpi_put(pshm_tctx t, int pe, int seg, size_t off, const void *src, size_t len)
{
    put(t, pe, seg, off, src, len);
}

/* The value is stored here rather than by the core's p routine (ABI 2.4);
 * a put this small is staged, so its source is free on return. */
void mpi_p(pshm_tctx t, int pe, int seg, size_t off, uint64_t value, size_t len)
{
    put(t, pe, seg, off, &value, len);
}

/* The source of a put_nbi may not change before the next quiet: MPI reads
 * it in place. */
void mpi_put_nbi(pshm_tctx t, int pe, int seg, size_t off, const void *src, size_t len)
{
    struct mctx *c = MCTX(t);
    if (UNLIKELY(seg >= PSHM_NSEGS)) {
        mpi_space_rma(1, pe, seg, off, (void *)src, len);
        return;
    }
    put_pieces(c->win[seg], pe, off, src, len);
    mark_dirty(c, seg, pe);
}

static void get_pieces(MPI_Win w, int pe, size_t off, char *dst, size_t len)
{
    while (len) {
        size_t n = len < CHUNK ? len : CHUNK;
        CHECK("MPI_Get", MPI_Get(dst, (int)n, MPI_BYTE, pe, (MPI_Aint)off, (int)n, MPI_BYTE, w));
        dst += n;
        off += n;
        len -= n;
    }
}

/* Local completion of a get means the data has arrived: no remote flush. */
void mpi_get(pshm_tctx t, int pe, int seg, size_t off, void *dst, size_t len)
{
    struct mctx *c = MCTX(t);
    if (UNLIKELY(seg >= PSHM_NSEGS)) {
        mpi_space_rma(0, pe, seg, off, dst, len);
        return;
    }
    get_pieces(c->win[seg], pe, off, dst, len);
    CHECK("MPI_Win_flush_local", MPI_Win_flush_local(pe, c->win[seg]));
    note_progress();
}

void mpi_get_nbi(pshm_tctx t, int pe, int seg, size_t off, void *dst, size_t len)
{
    struct mctx *c = MCTX(t);
    if (UNLIKELY(seg >= PSHM_NSEGS)) {
        mpi_space_rma(0, pe, seg, off, dst, len);
        return;
    }
    get_pieces(c->win[seg], pe, off, dst, len);
    mark_dirty(c, seg, pe);
}
