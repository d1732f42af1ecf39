/*
 * Atomics by active message (SHMEM_MPI_AMO=am).  The origin sends the
 * operation to the target PE as one small MPI message; the target applies
 * it with a CPU atomic and, when asked, answers with the old value.  The
 * target serves in its own library calls (every wait calls progress), in
 * the progress thread while it computes, and in this file's waits.
 *
 * Why beside MPI_Fetch_and_op: MPICH 4.0.2 applies accumulates in the
 * target's progress engine with ordinary loads and stores, so on-node
 * peers could not use CPU atomics on a word MPI also updates, and its
 * fetch-and-op + flush costs more instructions than a ping-pong
 * (docs/mpi.md, "Atomics").  Here every update of a word is a CPU atomic,
 * so the plugin declares PSHM_CAP_AMO_CPU_COHERENT and on-node AMOs stay
 * load/store.
 *
 * Order and completion rest on MPI's non-overtaking rule: messages from one
 * process to another on one communicator match in the order sent, and the
 * target serves them in that order.  So a quiet completes every message a
 * context sent to a PE by asking that PE for an empty answer, and answers
 * to several requests of one tag would still match in order; tags differ
 * anyway, because threads may post and send in different orders.
 */
#include <sched.h>
#include <stdlib.h>

#include "mpi_plugin.h"
#include "../common/grow.h"

/* The op of a message that only asks for an answer. */
#define AM_ANSWER PSHM_AMO_NOPS
#define REQ_TAG 0
/* Answers a quiet asks for at once, and non-fetching messages a context
 * sends before it waits for its targets to apply them: a target that
 * computes without a progress thread holds them in MPI's unexpected
 * queue, which this bounds. */
#define FLUSH_BATCH 32
#define UNANSWERED_MAX 4096u
/* A wait for an answer polls this many times, then also yields: PEs may
 * outnumber cores, and the PE that answers may need ours. */
#define SPINS_BEFORE_YIELD 64u

struct am_msg {
    uint64_t off, operand, compare;
    int32_t tag;   /* the answer's tag; REQ_TAG: no answer */
    uint8_t op;    /* PSHM_AMO_*, or AM_ANSWER */
    uint8_t width; /* of the word: 4 or 8 */
    uint8_t seg;
    uint8_t fetch; /* the answer carries the old value */
};

static struct am_msg inbox;
static MPI_Request inbox_req = MPI_REQUEST_NULL;
static int serving;  /* one thread tests inbox_req at a time */
static int tag_next; /* answer tags, 2 .. tag_mask + 2 */
static int tag_mask;
/* The answer to a blocking fetch: one persistent receive, taken by one
 * thread at a time (MPI_Start costs less than MPI_Irecv). */
#define ONE_TAG 1
static MPI_Request one_req = MPI_REQUEST_NULL;
static uint64_t one_answer;
static int one_busy;

static inline int next_tag(void)
{
    return 2 + (__atomic_add_fetch(&tag_next, 1, __ATOMIC_RELAXED) & tag_mask);
}

int am_open(void)
{
    int *ub = NULL, flag = 0;
    if (MPI_Comm_dup(g.comm, &g.am_comm) != MPI_SUCCESS) {
        g.svc->error("mpi transport: MPI_Comm_dup for atomics failed");
        return -1;
    }
    MPI_Comm_get_attr(g.am_comm, MPI_TAG_UB, &ub, &flag);
    int top = flag && ub ? *ub : 32767; /* MPI guarantees at least this */
    tag_mask = 1;
    while (tag_mask * 2 + 1 <= top / 2)
        tag_mask = tag_mask * 2 + 1;
    for (int s = 0; s < PSHM_NSEGS; s++)
        g.seg_base[s] = g.svc->seg[s].base;
    CHECK("MPI_Irecv", MPI_Irecv(&inbox, sizeof inbox, MPI_BYTE, MPI_ANY_SOURCE, REQ_TAG,
                                 g.am_comm, &inbox_req));
    CHECK("MPI_Recv_init", MPI_Recv_init(&one_answer, 8, MPI_BYTE, MPI_ANY_SOURCE, ONE_TAG,
                                         g.am_comm, &one_req));
    return 0;
}

/* After the core's last barrier: every PE has completed its messages. */
void am_close(void)
{
    if (inbox_req != MPI_REQUEST_NULL) {
        MPI_Cancel(&inbox_req);
        MPI_Wait(&inbox_req, MPI_STATUS_IGNORE);
    }
    if (one_req != MPI_REQUEST_NULL)
        MPI_Request_free(&one_req);
    MPI_Comm_free(&g.am_comm);
}

static void apply(const struct am_msg *m, int src)
{
    uint64_t old = 0;
    uint32_t old32 = 0;
    const void *answer = &old;
    if (m->op != AM_ANSWER) {
        if (UNLIKELY(m->seg >= PSHM_MAX_SEGS || !g.seg_base[m->seg] || m->op > AM_ANSWER))
            g.svc->fatal("mpi transport: PE %d sent an atomic for segment %d, which this PE "
                         "does not have",
                         src, m->seg);
        char *p = g.seg_base[m->seg] + m->off;
        if (m->width == 4) {
            old32 = PSHM_CPU_AMO((uint32_t *)p, m->op, (uint32_t)m->operand, (uint32_t)m->compare);
            answer = &old32;
        } else {
            old = PSHM_CPU_AMO((uint64_t *)p, m->op, m->operand, m->compare);
        }
    }
    if (m->tag != REQ_TAG)
        CHECK("MPI_Send", MPI_Send(answer, m->fetch ? m->width : 0, MPI_BYTE, src, m->tag,
                                   g.am_comm));
}

/* Receives one message for this PE (inbox_req completed with st) and
 * serves it; the caller holds serving. */
static void serve_one(const MPI_Status *st)
{
    /* Answered before the receive is posted again: the origin waits for
     * the answer, and posting costs it that much latency. */
    apply(&inbox, st->MPI_SOURCE);
    CHECK("MPI_Irecv", MPI_Irecv(&inbox, sizeof inbox, MPI_BYTE, MPI_ANY_SOURCE, REQ_TAG,
                                 g.am_comm, &inbox_req));
}

int am_serve_thread(void)
{
    if (__atomic_exchange_n(&serving, 1, __ATOMIC_ACQUIRE))
        return 0; /* another thread serves */
    int served = 0;
    for (;; served++) {
        int flag = 0;
        MPI_Status st;
        CHECK("MPI_Test", MPI_Test(&inbox_req, &flag, &st));
        if (!flag)
            break;
        serve_one(&st);
    }
    __atomic_store_n(&serving, 0, __ATOMIC_RELEASE);
    return served;
}

void am_serve(void)
{
    pshm_progress_poke(&mpi_pt); /* the program serves: the thread may rest */
    (void)am_serve_thread();
}

/* Waits for one answer, serving meanwhile (the PE that answers may itself
 * be waiting for one of ours); inlined into the blocking fetch, the hot
 * path. */
static inline void wait_one(MPI_Request *r)
{
    for (unsigned spins = 0;; spins++) {
        int flag;
        CHECK("MPI_Test", MPI_Test(r, &flag, MPI_STATUS_IGNORE));
        if (flag)
            return;
        /* Every fourth miss: the answer is usually a poll or two away, and
         * serving costs a poll of its own.  Serving at all: the PE that
         * answers may itself be waiting for one of ours. */
        if ((spins & 3) == 3)
            am_serve();
        if (UNLIKELY(spins > SPINS_BEFORE_YIELD))
            sched_yield();
    }
}

/* The same for n answers in flight at once. */
static void wait_answers(MPI_Request *r, int n)
{
    for (int k = 0; k < n; k++)
        wait_one(&r[k]);
}

/* The message for one AMO; its tag and fetch are the caller's. */
static inline void fill(struct am_msg *m, int seg, size_t off, int op, int type,
                        const void *operand, const void *compare)
{
    m->off = off;
    m->operand = 0;
    m->compare = 0;
    if (type == PSHM_T_U64 || type == PSHM_T_DOUBLE) {
        m->width = 8;
        if (op != PSHM_AMO_READ)
            m->operand = *(const uint64_t *)operand;
        if (op == PSHM_AMO_CSWAP)
            m->compare = *(const uint64_t *)compare;
    } else {
        m->width = 4;
        if (op != PSHM_AMO_READ)
            m->operand = *(const uint32_t *)operand;
        if (op == PSHM_AMO_CSWAP)
            m->compare = *(const uint32_t *)compare;
    }
    m->op = (uint8_t)op;
    m->seg = (uint8_t)seg;
}

void am_post(int pe, int seg, size_t off, int op, int type, const void *operand,
             const void *compare, void *fetch, MPI_Request *r)
{
    struct am_msg m;
    fill(&m, seg, off, op, type, operand, compare);
    m.tag = next_tag();
    m.fetch = fetch != NULL;
    CHECK("MPI_Irecv", MPI_Irecv(fetch, fetch ? m.width : 0, MPI_BYTE, pe, m.tag, g.am_comm, r));
    CHECK("MPI_Send", MPI_Send(&m, sizeof m, MPI_BYTE, pe, REQ_TAG, g.am_comm));
}

void am_flush_pes(const int *pe, int n)
{
    MPI_Request r[FLUSH_BATCH];
    struct am_msg m;
    memset(&m, 0, sizeof m);
    m.op = AM_ANSWER;
    while (n > 0) {
        int k = n < FLUSH_BATCH ? n : FLUSH_BATCH;
        for (int i = 0; i < k; i++) {
            m.tag = next_tag();
            CHECK("MPI_Irecv", MPI_Irecv(NULL, 0, MPI_BYTE, pe[i], m.tag, g.am_comm, &r[i]));
            CHECK("MPI_Send", MPI_Send(&m, sizeof m, MPI_BYTE, pe[i], REQ_TAG, g.am_comm));
        }
        wait_answers(r, k);
        pe += k;
        n -= k;
    }
}

/* The fetching _nbi answers of a context used by one thread at a time. */
void am_complete(struct mctx *c)
{
    if (c->am_n) {
        wait_answers(c->am_wait, c->am_n);
        c->am_n = 0;
    }
}

/* A non-fetching AMO: sent, and completed by the next quiet. */
__attribute__((noinline)) static void am_send(struct mctx *c, int pe, int seg, size_t off, int op,
                                              int type, const void *operand)
{
    struct am_msg m;
    fill(&m, seg, off, op, type, operand, NULL);
    m.tag = REQ_TAG;
    m.fetch = 0;
    CHECK("MPI_Send", MPI_Send(&m, sizeof m, MPI_BYTE, pe, REQ_TAG, g.am_comm));
    mark_dirty(c, W_AM, pe);
    if (UNLIKELY(++c->am_unanswered >= UNANSWERED_MAX))
        mpi_quiet(c);
}

/* A fetching AMO whose answer another receive than one_req takes: a
 * fetching _nbi, answered by the next quiet (its request waits in the
 * context, one used by one thread at a time), or one made while another
 * thread holds one_req. */
__attribute__((noinline)) static void am_fetch_other(struct mctx *c, int pe, int seg, size_t off,
                                                     int op, int type, const void *operand,
                                                     const void *compare, void *fetch, int nbi)
{
    if (nbi && fetch && c->solo) {
        c->am_wait = pshm_grow(c->am_wait, c->am_n, &c->am_cap, sizeof *c->am_wait, g.svc, "mpi");
        am_post(pe, seg, off, op, type, operand, compare, fetch, &c->am_wait[c->am_n++]);
        c->dirty[W_AM] = 1;
        return;
    }
    uint64_t tmp;
    MPI_Request r;
    am_post(pe, seg, off, op, type, operand, compare, fetch ? fetch : &tmp, &r);
    wait_answers(&r, 1);
}

/* A shared context's fetching _nbi waits at once, which the standard
 * allows. */
void am_amo(pshm_tctx t, int pe, int seg, size_t off, int op, int type, const void *operand,
            const void *compare, void *fetch, int nbi)
{
    if (!fetch && op != PSHM_AMO_CSWAP) {
        if (LIKELY(op != PSHM_AMO_READ))
            am_send(MCTX(t), pe, seg, off, op, type, operand);
        return;
    }
    if (UNLIKELY(nbi) || __atomic_exchange_n(&one_busy, 1, __ATOMIC_ACQUIRE)) {
        am_fetch_other(MCTX(t), pe, seg, off, op, type, operand, compare, fetch, nbi);
        return;
    }
    struct am_msg m;
    fill(&m, seg, off, op, type, operand, compare);
    m.tag = ONE_TAG;
    m.fetch = 1;
    /* The receive after the send: posting it (about 440 instructions)
     * then overlaps the request's flight.  An answer that comes first waits
     * in MPI's unexpected queue; only the holder of one_busy expects
     * ONE_TAG, so it can be no one else's. */
    CHECK("MPI_Send", MPI_Send(&m, sizeof m, MPI_BYTE, pe, REQ_TAG, g.am_comm));
    CHECK("MPI_Start", MPI_Start(&one_req));
    wait_one(&one_req);
    if (fetch) {
        if (m.width == 8)
            *(uint64_t *)fetch = one_answer;
        else
            *(uint32_t *)fetch = (uint32_t)one_answer;
    }
    __atomic_store_n(&one_busy, 0, __ATOMIC_RELEASE);
}
