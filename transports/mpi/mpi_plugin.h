/*
 * The mpi transport: state shared by its files.  RMA and atomics are MPI-3
 * one-sided operations on windows created over the segments the core maps,
 * each locked once for the whole job (MPI_Win_lock_all), so no operation
 * opens or closes an epoch.
 *
 * Files: mpi_init.c (MPI itself, query, init, fini), mpi_win.c (windows and
 * their pool), mpi_ctx.c (contexts, quiet, fence), mpi_rma.c (put, get),
 * mpi_amo.c (atomics), mpi_am.c (atomics by active message), mpi_nbe.c
 * (explicit requests), mpi_space.c (memory spaces), mpi_msg.c (tagged
 * messages for the collectives), mpi_progress.c (progress and its
 * thread).
 */
#ifndef PSHM_MPI_PLUGIN_H
#define PSHM_MPI_PLUGIN_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "transport.h"
#include "../common/lock.h"
#include "../common/mpi_error.h"
#include "../common/pmi_rank.h"
#include "../common/progress_thread.h"
#include "../common/settings_kit.h"

/* Values of shmem.h; a plugin sees transport.h only. */
#define CTX_SERIALIZED (1L << 0)
#define CTX_PRIVATE (1L << 1)
#define THREAD_SERIALIZED 2
#define THREAD_MULTIPLE 3

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#define HIDDEN __attribute__((visibility("hidden")))

/* Bytes of the staging ring of a context, and the largest put copied into
 * it (see stage()). */
#define RING_BYTES (64u * 1024u)
#define STAGE_MAX_DEFAULT 256u

/* Windows a context issues on: its own for RMA (rma[]), and for atomics
 * always the default context's (amo[]): MPI makes accumulates atomic only
 * among operations on one window, so every AMO on a word must go through
 * the same one whatever the context. */
enum { W_RMA = 0, W_AMO = PSHM_NSEGS, W_N = 2 * PSHM_NSEGS };
/* The dirty set of atomics sent by active message (SHMEM_MPI_AMO=am): the
 * PEs a quiet must ask for an answer (mpi_am.c).  It follows the windows'
 * sets, so that one loop and one word of flags cover all of them. */
enum { W_AM = W_N, W_SETS = W_N + 1 };

/* The PEs a context sent operations to on one window since its last
 * quiet, which quiet then flushes one by one.  Not MPI_Win_flush_all:
 * with MPICH 4.0.2 (ch4:ucx), while another thread polled MPI (our
 * progress thread), it returned before a 4 MiB get had arrived in 9 to 15
 * of 40 tries; MPI_Win_flush per target never did (see docs/mpi.md). */
struct dset {
    int n;
    int *pe;            /* n PEs, in the order first used */
    unsigned char *has; /* has[pe]: pe is in the list */
};

struct mctx {
    MPI_Win win[W_N];
    /* dirty[i]: ds[i] is not empty (one load tells quiet whether there is
     * anything to do: the flags are read as one word). */
    unsigned char dirty[8];
    /* This context is never used by two threads at once: it may stage
     * operands in its ring instead of waiting for local completion, and
     * its dirty sets need no lock. */
    unsigned char solo;
    unsigned char own_windows; /* rma[] came from the pool */
    struct pshm_lock lock;     /* the dirty sets of a shared context */
    int pool_slot;
    struct dset ds[W_SETS];
    /* Active messages: fetching _nbi answers a quiet waits for, and the
     * messages sent since the last answer (a bound on what a target that
     * does not serve holds for us). */
    int am_n, am_cap;
    MPI_Request *am_wait;
    unsigned am_unanswered;
    /* Staging ring: small put sources and AMO operands are copied here so
     * that an operation returns without waiting for its local completion;
     * the ring is reused after a quiet, which a full ring forces. */
    size_t ring_used;
    unsigned char *ring;
};

struct mpi_state {
    const pshm_core_services *svc;
    MPI_Comm comm;      /* a dup of MPI_COMM_WORLD: our ranks are PEs */
    int we_initialized; /* MPI_Init was ours: MPI_Finalize at exit is ours too */
    int mpi_level;      /* what MPI provides */
    int thread_level;   /* what the program asked of OpenSHMEM */
    size_t stage_max;   /* put sizes staged in the ring */
    int pool_n;         /* window pairs created for contexts */
    MPI_Win (*pool)[PSHM_NSEGS];
    unsigned char *pool_used;
    int verbose;
    /* SHMEM_MPI_AMO: atomics by active message on am_comm, applied at the
     * target with CPU atomics at seg_base[seg] + offset. */
    int amo_am;
    MPI_Comm am_comm;
    char *seg_base[PSHM_MAX_SEGS];
};

extern struct mpi_state g HIDDEN;
extern struct mctx dflt HIDDEN;

#define MCTX(t) ((t) ? (struct mctx *)(t) : &dflt)

/* An MPI call failed: one line naming it and MPI's reason, then the job
 * ends (svc->fatal). */
__attribute__((noreturn, cold)) void mpi_fail(const char *what, int rc) HIDDEN;

#define CHECK(what, call) PSHM_MPI_CHECK(mpi_fail, what, call)

/* mpi_win.c */
int win_create_over(void *base, size_t size, int atomics, const char *what, MPI_Win *w) HIDDEN;
void win_close(MPI_Win *w) HIDDEN;
int win_open_all(void) HIDDEN;
void win_close_all(void) HIDDEN;
int win_pool_take(MPI_Win out[PSHM_NSEGS]) HIDDEN;
void win_pool_give(int slot) HIDDEN;

/* mpi_ctx.c */
int ctx_setup(struct mctx *c, int solo, MPI_Win rma[PSHM_NSEGS], int slot) HIDDEN;
void ctx_teardown(struct mctx *c) HIDDEN;
void ring_drain(struct mctx *c) HIDDEN;
void mpi_quiet(pshm_tctx t) HIDDEN;
void mpi_fence(pshm_tctx t) HIDDEN;
int mpi_ctx_create(long options, pshm_tctx *out) HIDDEN;
void mpi_ctx_destroy(pshm_tctx t) HIDDEN;

/* mpi_rma.c, mpi_amo.c */
void mpi_put(pshm_tctx, int pe, int seg, size_t off, const void *src, size_t len) HIDDEN;
void mpi_p(pshm_tctx, int pe, int seg, size_t off, uint64_t value, size_t len) HIDDEN;
void mpi_put_nbi(pshm_tctx, int pe, int seg, size_t off, const void *src, size_t len) HIDDEN;
void mpi_get(pshm_tctx, int pe, int seg, size_t off, void *dst, size_t len) HIDDEN;
void mpi_get_nbi(pshm_tctx, int pe, int seg, size_t off, void *dst, size_t len) HIDDEN;
/* The accumulate op of each PSHM_AMO_*, and one AMO issued on window w
 * (compare-and-swap, fetching or not), without completion: every AMO
 * path of the plugin goes through these, so all stay one datatype and one
 * kind of call per word (MPI's atomicity rule). */
extern const MPI_Op mpi_amo_op[PSHM_AMO_NOPS];
void mpi_amo_issue(MPI_Win w, int pe, size_t off, int op, MPI_Datatype dt, const void *operand,
                   const void *compare, void *fetch);
void mpi_amo(pshm_tctx, int pe, int seg, size_t off, int op, int type, const void *operand,
             const void *compare, void *fetch, int nbi) HIDDEN;

/* mpi_am.c: atomics by active message.  am_amo is ops.amo on that path
 * (a fetching AMO or a compare-and-swap waits for its answer; _nbi
 * fetches are answered by the next quiet); am_post sends one whose answer completes *r (the old
 * value into fetch, or an empty answer once applied); am_flush_pes asks
 * each PE for an answer, which comes after every message sent to it
 * before; am_serve applies what arrived for this PE (am_serve_thread: the
 * same from the progress thread, which must not count it as the
 * program's; it returns how many messages it served). */
int am_open(void) HIDDEN;
void am_close(void) HIDDEN;
void am_amo(pshm_tctx, int pe, int seg, size_t off, int op, int type, const void *operand,
            const void *compare, void *fetch, int nbi) HIDDEN;
void am_post(int pe, int seg, size_t off, int op, int type, const void *operand,
             const void *compare, void *fetch, MPI_Request *r) HIDDEN;
void am_flush_pes(const int *pe, int n) HIDDEN;
void am_complete(struct mctx *c) HIDDEN;
void am_serve(void) HIDDEN;
int am_serve_thread(void) HIDDEN;

/* mpi_space.c: memory spaces, segments PSHM_NSEGS and up.  Every
 * operation on them completes in the call (see the file). */
int mpi_seg_register(int seg, void *base, size_t size) HIDDEN;
void mpi_seg_deregister(int seg) HIDDEN;
void mpi_space_rma(int put, int pe, int seg, size_t off, void *buf, size_t len) HIDDEN;
void mpi_space_amo(int pe, int seg, size_t off, int op, int type, const void *operand,
                   const void *compare, void *fetch) HIDDEN;
void mpi_spaces_close(void) HIDDEN;

/* mpi_nbe.c */
void mpi_put_nbe(pshm_tctx, int pe, int seg, size_t off, const void *src, size_t len,
                 pshm_treq *req) HIDDEN;
void mpi_get_nbe(pshm_tctx, int pe, int seg, size_t off, void *dst, size_t len,
                 pshm_treq *req) HIDDEN;
void mpi_amo_nbe(pshm_tctx, int pe, int seg, size_t off, int op, int type, const void *operand,
                 const void *compare, void *fetch, pshm_treq *req) HIDDEN;
int mpi_req_test(pshm_tctx, pshm_treq req) HIDDEN;

/* mpi_msg.c: tagged messages (ABI 2.5) on communicators of their own;
 * msg_progress matches what arrived, called by every progress call. */
int msg_open(void) HIDDEN;
void msg_close(void) HIDDEN;
void msg_progress(void) HIDDEN;
void mpi_msg_send(int pe, uint64_t tag, const void *buf, size_t len, uint64_t *done) HIDDEN;
void mpi_msg_recv(uint64_t tag, void *buf, size_t len, uint64_t *done) HIDDEN;

/* mpi_progress.c */
void mpi_progress(void) HIDDEN;
int mpi_poll(void) HIDDEN;
int progress_start(unsigned interval_us) HIDDEN;
void progress_stop(void) HIDDEN;
int progress_running(void) HIDDEN;

/* The progress thread (mpi_progress.c), told when the program entered MPI,
 * which then progresses: the thread may rest.  Not with atomics by active
 * message, which MPI does not serve: there only the program's own serving
 * (am_serve) rests the thread, or a PE that only puts and quiets would
 * keep it from ever answering its peers. */
extern struct pshm_progress_thread mpi_pt;
static inline void note_progress(void)
{
    if (!g.amo_am)
        pshm_progress_poke(&mpi_pt);
}

void dirty_add_locked(struct mctx *c, int i, int pe) HIDDEN;

/* Records that win[i] holds operations to pe that a quiet must complete.
 * Called after the operation is issued: a quiet of another thread that
 * takes the set first flushes what was issued before it. */
static inline void mark_dirty(struct mctx *c, int i, int pe)
{
    struct dset *d = &c->ds[i];
    if (LIKELY(c->solo)) {
        if (LIKELY(d->has[pe]))
            return;
        d->has[pe] = 1;
        d->pe[d->n++] = pe;
        c->dirty[i] = 1;
        return;
    }
    dirty_add_locked(c, i, pe);
}

/* A copy of len bytes of src in c's ring, to be the origin of an
 * operation; NULL if c cannot stage (shared by threads).  A full ring is
 * emptied by a quiet first. */
static inline void *stage(struct mctx *c, const void *src, size_t len)
{
    if (UNLIKELY(!c->solo))
        return NULL;
    size_t need = (len + 7) & ~(size_t)7;
    if (UNLIKELY(c->ring_used + need > RING_BYTES))
        ring_drain(c);
    unsigned char *p = c->ring + c->ring_used;
    c->ring_used += need;
    if (len == 8) { /* the common size, without a call into memcpy */
        uint64_t v;
        memcpy(&v, src, 8);
        memcpy(p, &v, 8);
    } else {
        memcpy(p, src, len);
    }
    return p;
}

#endif
