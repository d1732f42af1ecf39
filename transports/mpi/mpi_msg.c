/*
 * Tagged messages (ABI 2.5) over MPI point-to-point: the collectives' way
 * between nodes, one message where a put needs a flush and then a flag.
 *
 * The ABI's tags are 64 bits and a receive names no sender; an MPI tag is
 * an int up to MPI_TAG_UB (32767 is all MPI promises).  So the plugin
 * matches by itself: every message begins with a header that carries the
 * whole tag, on a communicator of its own, where progress takes whatever
 * comes (MPI_Improbe, any source, any tag) and hands it to the receive
 * posted for its tag, or keeps it until that receive is posted.
 *  - Up to INLINE_MAX bytes, header and data travel as one message and
 *    are copied on both sides (the collectives' flags, 8-byte reductions,
 *    small blocks).
 *  - Larger, the header goes first and the data follows on a second
 *    communicator, received straight into the posted buffer (or into a
 *    kept one).  MPI matches one sender's messages on one communicator in
 *    the order sent, so the k-th header from a PE announces its k-th data
 *    message, which the receive then names by that PE.
 * Order: a sender's headers reach progress in the order sent, and posted
 * receives and kept messages match first come, first served, so the
 * messages of one sender under one tag match in order, as the ABI asks.
 *
 * Progress probes only while this PE has a receive posted or an
 * operation in flight: waits that are not a collective's pay nothing.  A
 * message that comes meanwhile waits in MPI's own unexpected queue.
 */
#include <stdlib.h>

#include "mpi_plugin.h"
#include "../common/grow.h"

#define INLINE_MAX 8192u
#define T_INLINE 0 /* header and data */
#define T_HEADER 1 /* header only: the data follows on data_comm */

struct hdr {
    uint64_t tag, len;
};

/* A receive posted and not matched yet, or a message kept until its
 * receive is posted (buf ours, then). */
struct entry {
    struct entry *next;
    uint64_t tag;
    size_t len;
    void *buf;
    uint64_t *done;    /* posted, or a kept message claimed before its data arrived */
    void *claimed_buf; /* where a claimed message's data goes */
    int arrived;       /* kept: all its data is in buf */
};

struct fifo {
    struct entry *head, *tail;
};

/* An MPI request in flight and what its completion does. */
struct op {
    uint64_t *done;     /* set to 1 */
    void *bounce;       /* freed */
    struct entry *kept; /* its data has arrived */
};

static MPI_Comm msg_comm = MPI_COMM_NULL, data_comm = MPI_COMM_NULL;
static struct pshm_lock lock;
static struct fifo posted, kept;
static MPI_Request *reqs;
static struct op *ops;
static int n_ops, cap_ops, cap_reqs;
/* Receives posted plus operations in flight: read without the lock, so
 * that progress can skip everything while there are none. */
static int active;
static unsigned char scratch[sizeof(struct hdr) + INLINE_MAX];

int msg_open(void)
{
    if (MPI_Comm_dup(g.comm, &msg_comm) != MPI_SUCCESS ||
        MPI_Comm_dup(g.comm, &data_comm) != MPI_SUCCESS) {
        g.svc->error("mpi transport: MPI_Comm_dup for messages failed");
        return -1;
    }
    return 0;
}

static void drop(struct fifo *f)
{
    while (f->head) {
        struct entry *e = f->head;
        f->head = e->next;
        if (f == &kept)
            free(e->buf);
        free(e);
    }
    f->tail = NULL;
}

static void op_done(struct op *o);

/* After the core's last barrier: every message was matched, and what is
 * left in flight is complete at the latest when MPI says so (a send's
 * request not tested since). */
void msg_close(void)
{
    for (int i = 0; i < n_ops; i++) {
        MPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
        op_done(&ops[i]);
    }
    drop(&posted);
    drop(&kept);
    free(reqs);
    free(ops);
    reqs = NULL, ops = NULL;
    n_ops = cap_ops = cap_reqs = active = 0;
    if (msg_comm != MPI_COMM_NULL)
        MPI_Comm_free(&msg_comm);
    if (data_comm != MPI_COMM_NULL)
        MPI_Comm_free(&data_comm);
}

static void push(struct fifo *f, struct entry *e)
{
    e->next = NULL;
    if (f->tail)
        f->tail->next = e;
    else
        f->head = e;
    f->tail = e;
}

/* The first entry of f with tag, taken out of f; NULL if none. */
static struct entry *take(struct fifo *f, uint64_t tag)
{
    for (struct entry **p = &f->head, *prev = NULL; *p; prev = *p, p = &(*p)->next) {
        struct entry *e = *p;
        if (e->tag != tag)
            continue;
        *p = e->next;
        if (f->tail == e)
            f->tail = prev;
        return e;
    }
    return NULL;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        g.svc->fatal("mpi transport: out of memory for a message of %zu bytes", n);
    return p;
}

static void check_len(size_t got, size_t want)
{
    if (UNLIKELY(got != want))
        g.svc->fatal("mpi transport: a collective's message of %zu bytes came for a receive of "
                     "%zu bytes",
                     got, want);
}

static void release(uint64_t *done) { __atomic_store_n(done, 1, __ATOMIC_RELEASE); }

/* The request in *r, started by the caller, completes as op says. */
static void track(const MPI_Request *r, struct op op)
{
    ops = pshm_grow(ops, n_ops, &cap_ops, sizeof *ops, g.svc, "mpi");
    reqs = pshm_grow(reqs, n_ops, &cap_reqs, sizeof *reqs, g.svc, "mpi");
    reqs[n_ops] = *r;
    ops[n_ops++] = op;
    __atomic_add_fetch(&active, 1, __ATOMIC_RELAXED);
}

static void op_done(struct op *o)
{
    free(o->bounce);
    if (o->done)
        release(o->done);
    struct entry *e = o->kept;
    if (!e)
        return;
    if (!e->done) {
        e->arrived = 1; /* its receive is not posted yet */
        return;
    }
    memcpy(e->claimed_buf, e->buf, e->len);
    release(e->done);
    free(e->buf);
    free(e);
}

static void complete_ops(void)
{
    int k = 0;
    for (int i = 0; i < n_ops; i++) {
        int flag = 0;
        CHECK("MPI_Test", MPI_Test(&reqs[i], &flag, MPI_STATUS_IGNORE));
        if (flag)
            op_done(&ops[i]);
        else
            reqs[k] = reqs[i], ops[k++] = ops[i];
    }
    __atomic_sub_fetch(&active, n_ops - k, __ATOMIC_RELAXED);
    n_ops = k;
}

/* A message's header from src; data: what followed it in the same
 * message, or NULL (it comes on data_comm). */
static void arrived(const struct hdr *h, const void *data, int src)
{
    struct entry *e = take(&posted, h->tag);
    if (e) {
        __atomic_sub_fetch(&active, 1, __ATOMIC_RELAXED);
        check_len(h->len, e->len);
        if (data) {
            memcpy(e->buf, data, h->len);
            release(e->done);
        } else {
            MPI_Request r;
            CHECK("MPI_Irecv", MPI_Irecv(e->buf, (int)h->len, MPI_BYTE, src, 0, data_comm, &r));
            track(&r, (struct op){.done = e->done});
        }
        free(e);
        return;
    }
    e = xmalloc(sizeof *e);
    *e = (struct entry){.tag = h->tag, .len = h->len, .buf = xmalloc(h->len)};
    if (data) {
        memcpy(e->buf, data, h->len);
        e->arrived = 1;
    } else {
        MPI_Request r;
        CHECK("MPI_Irecv", MPI_Irecv(e->buf, (int)h->len, MPI_BYTE, src, 0, data_comm, &r));
        track(&r, (struct op){.kept = e});
    }
    push(&kept, e);
}

static void probe(void)
{
    for (;;) {
        int flag = 0, count = 0;
        MPI_Message m;
        MPI_Status st;
        CHECK("MPI_Improbe", MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, msg_comm, &flag, &m, &st));
        if (!flag)
            return;
        MPI_Get_count(&st, MPI_BYTE, &count);
        if (UNLIKELY(count < (int)sizeof(struct hdr) || (size_t)count > sizeof scratch))
            g.svc->fatal("mpi transport: PE %d sent a message of %d bytes, not one of this "
                         "transport's",
                         st.MPI_SOURCE, count);
        CHECK("MPI_Mrecv", MPI_Mrecv(scratch, count, MPI_BYTE, &m, MPI_STATUS_IGNORE));
        struct hdr h;
        memcpy(&h, scratch, sizeof h);
        const void *data = NULL;
        if (st.MPI_TAG == T_INLINE) {
            check_len((size_t)count - sizeof h, h.len);
            data = scratch + sizeof h;
        }
        arrived(&h, data, st.MPI_SOURCE);
    }
}

void msg_progress(void)
{
    if (!__atomic_load_n(&active, __ATOMIC_RELAXED) || !pshm_lock_try(&lock))
        return;
    complete_ops();
    probe();
    pshm_unlock(&lock);
}

void mpi_msg_send(int pe, uint64_t tag, const void *buf, size_t len, uint64_t *done)
{
    if (UNLIKELY(len > (size_t)INT32_MAX))
        g.svc->fatal("mpi transport: a collective's message of %zu bytes is larger than MPI's "
                     "count allows",
                     len);
    struct hdr h = {tag, len};
    MPI_Request r;
    pshm_lock(&lock);
    if (len <= INLINE_MAX) {
        unsigned char *b = xmalloc(sizeof h + len);
        memcpy(b, &h, sizeof h);
        memcpy(b + sizeof h, buf, len);
        CHECK("MPI_Isend", MPI_Isend(b, (int)(sizeof h + len), MPI_BYTE, pe, T_INLINE, msg_comm, &r));
        track(&r, (struct op){.bounce = b});
        release(done); /* buf was copied: the caller may reuse it now */
    } else {
        struct hdr *b = xmalloc(sizeof h);
        *b = h;
        CHECK("MPI_Isend", MPI_Isend(b, sizeof h, MPI_BYTE, pe, T_HEADER, msg_comm, &r));
        track(&r, (struct op){.bounce = b});
        CHECK("MPI_Isend", MPI_Isend(buf, (int)len, MPI_BYTE, pe, 0, data_comm, &r));
        track(&r, (struct op){.done = done});
    }
    complete_ops(); /* small ones are usually done already */
    pshm_unlock(&lock);
}

void mpi_msg_recv(uint64_t tag, void *buf, size_t len, uint64_t *done)
{
    pshm_lock(&lock);
    struct entry *e = take(&kept, tag);
    if (!e) {
        e = xmalloc(sizeof *e);
        *e = (struct entry){.tag = tag, .len = len, .buf = buf, .done = done};
        push(&posted, e);
        __atomic_add_fetch(&active, 1, __ATOMIC_RELAXED);
    } else {
        check_len(e->len, len);
        if (e->arrived) {
            memcpy(buf, e->buf, len);
            release(done);
            free(e->buf);
            free(e);
        } else { /* its data is on the way: op_done delivers it */
            e->claimed_buf = buf;
            e->done = done;
        }
    }
    pshm_unlock(&lock);
}
