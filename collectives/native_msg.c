/*
 * Native collectives by messages (transport ABI 2.5: msg_send, msg_recv),
 * for teams whose members reach each other only through the transport:
 * the leaders of a node-aware team (one per node), and every team when
 * the bypass is off.  A put needs a fence and then a flag before its
 * receiver may read it, and over a network whose RMA the target emulates
 * (tcp;ofi_rxm, UCX over tcp) that fence is a round trip; a message
 * carries its data and its arrival at once, so each step below costs
 * one-way latency.  Receives are posted into the caller's own buffers
 * (or a private one), never into a peer's, so nothing here needs the
 * one-call-ahead rule of the put-based algorithms (coll_state.h), and a
 * message that arrives before its receive waits in the transport.
 *
 *   barrier    up to 8 members, one step: every member sends every other
 *              an empty message; else dissemination, log2 n rounds
 *   broadcast  binomial tree from the root, pipelined in chunks
 *   reduce     up to 8 members and 4 KiB, one step: every member sends its
 *              vector to every other, and each folds them all; else
 *              recursive doubling (extra PEs fold in first, out last)
 *   fcollect   every PE sends each peer its block at once: one step;
 *              recursive doubling for a power of two members where PEs
 *              outnumber cores (as the reduction), or when asked
 *   collect, alltoall(s)
 *              every PE sends each peer its block at once: one step
 *
 * A tag names the sender (world PE), the team's slot, the call and the
 * step within it: different teams, calls and senders never match each
 * other's messages (sub-teams of different nodes share a slot, but never
 * a member).  Messages of one sender under one tag match in order, which
 * lets a broadcast's chunks share a tag.
 */
#include <stdlib.h>

#include "coll.h"
#include "coll_algos.h"
#include "coll_state.h"
#include "coll_config.h"
#include "error.h"
#include "init.h"
#include "native_msg.h"

#define TAG_PE_BITS 20
#define TAG_SLOT_BITS 6
#define TAG_CALL_BITS 30
#define TAG_STEP_BITS 8
_Static_assert(TAG_PE_BITS + TAG_SLOT_BITS + TAG_CALL_BITS + TAG_STEP_BITS == 64, "tag bits");
_Static_assert(PSHM_TEAM_SLOTS <= 1 << TAG_SLOT_BITS, "team slots in a tag");

/* The steps of a reduction's extra PEs, beyond any round's. */
enum { STEP_FOLD_IN = 254, STEP_FOLD_OUT = 255 };

/* Up to this many members, a barrier or a small reduction is one step:
 * every member sends to every other at once (n - 1 messages each instead
 * of log2 n rounds of one).  A step costs a network latency, or, where
 * PEs outnumber cores, a turn of every PE through the scheduler; n - 1
 * sends cost less than a step while n is small. */
#define DIRECT_MAX 8
#define DIRECT_BYTES ((size_t)4096)

/* The one-step form, unless SHMEM_<OP>_ALGORITHM names a tree or rounds,
 * or PEs outnumber cores somewhere in the job and the rounds are exact
 * (a power of two members).  There every message costs its sender and
 * its receiver system calls on cores that others wait for, and the time
 * follows the messages more than the steps: 4 PEs on 2 cores over ucx
 * tcp, an 8-byte reduction took 38-43 us in log2 n rounds against 47-54
 * in one step (Open MPI 36-37), a barrier 42-44 against 47-52.
 * oversubscribed_any is the same on every PE, so is the choice. */
static int pow2_rounds(int n) { return n > 2 && !(n & (n - 1)); }

static int crowded_rounds(const struct pshm_team *t)
{
    return pshm_g.oversubscribed_any && pow2_rounds(t->n_pes);
}

static int direct(const struct pshm_team *t, int op, size_t bytes)
{
    return !crowded_rounds(t) && t->n_pes <= DIRECT_MAX && bytes <= DIRECT_BYTES &&
           pshm_coll_cfg.algo[op] == PSHM_ALG_AUTO;
}

const char *pshm_msg_shape(const struct pshm_team *t)
{
    if (crowded_rounds(t))
        return "log2 n rounds (PEs outnumber cores, a power of two members)";
    if (t->n_pes <= DIRECT_MAX)
        return "one step, every member to every other (reductions up to 4 KiB)";
    return "dissemination, recursive doubling";
}

/* A broadcast forwards data in chunks of this size, so that a child
 * passes a chunk on while its parent sends the next. */
#define CHUNK ((size_t)64 << 10)

int pshm_coll_msg_usable(const struct pshm_team *t)
{
    return pshm_g.tp->msg_send && pshm_coll_cfg.messages && t->my_pe >= 0 && t->n_pes > 1 &&
           !t->all_mapped && pshm_g.n_pes <= 1 << TAG_PE_BITS;
}

/* Completions to wait for: a flag per operation, given to the transport,
 * so it must not move while any is pending. */
struct mq {
    uint64_t *done;
    int n, cap;
    uint64_t small[16];
};

static void mq_init(struct mq *q, int cap)
{
    q->n = 0;
    q->cap = cap;
    q->done = q->small;
    if (cap > (int)(sizeof q->small / sizeof *q->small) &&
        !(q->done = malloc((size_t)cap * sizeof *q->done)))
        pshm_fatal("%s: out of memory for %d messages", pshm_coll_routine, cap);
}

static uint64_t *mq_slot(struct mq *q)
{
    if (q->n == q->cap)
        pshm_fatal("internal error: %s posted more than its %d messages", pshm_coll_routine, q->cap);
    uint64_t *d = &q->done[q->n++];
    *d = 0;
    return d;
}

/* Waits for every operation posted since the last wait. */
static void mq_wait(struct mq *q)
{
    for (int i = 0; i < q->n; i++)
        coll_wait(&q->done[i], 1);
    q->n = 0;
}

static void mq_free(struct mq *q)
{
    if (q->done != q->small)
        free(q->done);
}

static inline uint64_t tag(const struct pshm_team *t, int from_world, uint64_t call, unsigned step)
{
    return (uint64_t)from_world << (64 - TAG_PE_BITS) |
           (uint64_t)t->slot << (TAG_CALL_BITS + TAG_STEP_BITS) |
           (call & ((1u << TAG_CALL_BITS) - 1)) << TAG_STEP_BITS | step;
}

static void msend(struct mq *q, const struct pshm_team *t, int to, uint64_t call, unsigned step,
                  const void *buf, size_t len)
{
    pshm_g.tp->msg_send(coll_wpe(t, to), tag(t, pshm_g.my_pe, call, step), buf, len, mq_slot(q));
}

static void mrecv(struct mq *q, const struct pshm_team *t, int from, uint64_t call, unsigned step,
                  void *buf, size_t len)
{
    pshm_g.tp->msg_recv(tag(t, coll_wpe(t, from), call, step), buf, len, mq_slot(q));
}

int pshm_msg_barrier(struct pshm_team *t)
{
    int n = t->n_pes, me = t->my_pe;
    coll_enter(t);
    uint64_t call = ++t->sym->l.seq;
    char none = 0; /* one byte: no provider's corner of empty messages */
    struct mq q;
    if (direct(t, PSHM_CEXT_OP_BARRIER, 0)) {
        mq_init(&q, 2 * (n - 1));
        for (int i = 1; i < n; i++)
            mrecv(&q, t, coll_mod(me - i, n), call, 0, &none, 1);
        for (int i = 1; i < n; i++)
            msend(&q, t, coll_mod(me + i, n), call, 0, &none, 1);
        mq_wait(&q);
        mq_free(&q);
        return 0;
    }
    mq_init(&q, 2);
    for (unsigned k = 0, d = 1; (int)d < n; k++, d <<= 1) {
        mrecv(&q, t, coll_mod(me - (int)d, n), call, k, &none, 1);
        msend(&q, t, coll_mod(me + (int)d, n), call, k, &none, 1);
        mq_wait(&q);
    }
    return 0;
}

/* The root's dest is written too (OpenSHMEM 1.5).  A PE passes each chunk
 * to its children as soon as it has it.  The root may return before the
 * others have the data, and the team is left open, as after a put-based
 * broadcast, for the put-based algorithms that may follow (coll_state.h). */
int pshm_msg_broadcast(struct pshm_team *t, void *dest, const void *src, size_t nbytes, int root)
{
    int n = t->n_pes, me = t->my_pe, vr = coll_mod(me - root, n);
    coll_enter(t);
    uint64_t call = ++t->sym->l.seq;
    /* In virtual ranks (the root 0): vr gets from vr - lowbit(vr) and
     * sends to vr + m for each power of two m below lowbit(vr) (below n
     * for the root).  Not flat even for a few members: in a loop of
     * broadcasts the root's sends set the pace, n - 1 of them flat and
     * log2 n binomial (4 PEs on 2 cores over UCX tcp, alternating rounds:
     * no better flat). */
    int top = 1;
    if (vr)
        top = 1 << coll_lowbit_log(vr);
    else
        while (top < n)
            top <<= 1;
    int parent = vr - top, children = 0;
    for (int m = top >> 1; m >= 1; m >>= 1)
        children += vr + m < n;
    size_t chunks = nbytes ? (nbytes + CHUNK - 1) / CHUNK : 1;
    struct mq q;
    mq_init(&q, (int)(chunks < 32 ? chunks : 32) * (children + 1));
    const char *from = vr ? dest : src;
    if (!vr && dest != src && nbytes)
        memmove(dest, src, nbytes);
    for (size_t c = 0; c < chunks; c++) {
        size_t lo = c * CHUNK, len = nbytes - lo < CHUNK ? nbytes - lo : CHUNK;
        if (vr) {
            uint64_t *got = mq_slot(&q);
            pshm_g.tp->msg_recv(tag(t, coll_wpe(t, coll_mod(parent + root, n)), call, 0),
                                (char *)dest + lo, len, got);
            coll_wait(got, 1);
        }
        for (int m = top >> 1; m >= 1; m >>= 1)
            if (vr + m < n)
                msend(&q, t, coll_mod(me + m, n), call, 0, from + lo, len);
        /* Bounded: each chunk's sends stay posted until the next ones. */
        if (q.n + children + 1 > q.cap)
            mq_wait(&q);
    }
    mq_wait(&q);
    mq_free(&q);
    t->sym->l.bcast_open = 1;
    return 0;
}

/* Member i's block to every member, at dest + off[i] with len[i] bytes,
 * or (off NULL) at dest + i * nbytes with nbytes; this PE's own from src
 * (which may already be there). */
static void exchange_blocks(struct pshm_team *t, uint64_t call, char *dest, const void *src,
                            const size_t *off, const size_t *len, size_t nbytes)
{
    int n = t->n_pes, me = t->my_pe;
    size_t mylen = off ? len[me] : nbytes;
    char *mine = dest + (off ? off[me] : (size_t)me * nbytes);
    if (mylen && mine != (const char *)src)
        memmove(mine, src, mylen);
    struct mq q;
    mq_init(&q, 2 * (n - 1));
    for (int i = 1; i < n; i++) {
        int j = coll_mod(me - i, n);
        mrecv(&q, t, j, call, 0, dest + (off ? off[j] : (size_t)j * nbytes), off ? len[j] : nbytes);
    }
    for (int i = 1; i < n; i++)
        msend(&q, t, coll_mod(me + i, n), call, 0, mine, mylen);
    mq_wait(&q);
    mq_free(&q);
}

/* Every member sends its vector to every other, and each folds all of
 * them in team order: the same operations in the same order everywhere,
 * so the same bits. */
static int reduce_direct(struct pshm_team *t, uint64_t call, void *dest, const void *src,
                         size_t count, const struct pshm_red *r)
{
    int n = t->n_pes;
    size_t bytes = count * r->esize;
    unsigned char small[1024] __attribute__((aligned(16)));
    unsigned char *all = (size_t)n * bytes <= sizeof small ? small : malloc((size_t)n * bytes);
    if (!all)
        pshm_fatal("%s: out of memory for %zu bytes of a reduction", pshm_coll_routine,
                   (size_t)n * bytes);
    exchange_blocks(t, call, (char *)all, src, NULL, NULL, bytes);
    memcpy(dest, all, bytes);
    for (int i = 1; i < n; i++)
        r->fn(dest, all + (size_t)i * bytes, count);
    if (all != small)
        free(all);
    return 0;
}

/* Every PE gets a result identical to the bit: in each round both
 * partners combine the same two operands, and the operators commute. */
int pshm_msg_reduce(struct pshm_team *t, void *dest, const void *src, size_t count,
                    const struct pshm_red *r)
{
    int n = t->n_pes, me = t->my_pe, rounds = coll_log2_floor(n), p = 1 << rounds;
    size_t bytes = count * r->esize;
    coll_enter(t);
    uint64_t call = ++t->sym->l.seq;
    if (direct(t, PSHM_CEXT_OP_REDUCE, bytes))
        return reduce_direct(t, call, dest, src, count, r);
    if (dest != src && bytes)
        memmove(dest, src, bytes);
    struct mq q;
    mq_init(&q, 2);
    if (me >= p) { /* extra PE: hand in, get the result back */
        msend(&q, t, me - p, call, STEP_FOLD_IN, dest, bytes);
        mq_wait(&q);
        mrecv(&q, t, me - p, call, STEP_FOLD_OUT, dest, bytes);
        mq_wait(&q);
        return 0;
    }
    unsigned char small[256] __attribute__((aligned(16)));
    unsigned char *tmp = bytes <= sizeof small ? small : malloc(bytes);
    if (!tmp)
        pshm_fatal("%s: out of memory for %zu bytes of a reduction", pshm_coll_routine, bytes);
    if (me < n - p) {
        mrecv(&q, t, me + p, call, STEP_FOLD_IN, tmp, bytes);
        mq_wait(&q);
        r->fn(dest, tmp, count);
    }
    for (int k = 0; k < rounds; k++) {
        int partner = me ^ (1 << k);
        mrecv(&q, t, partner, call, (unsigned)k, tmp, bytes);
        msend(&q, t, partner, call, (unsigned)k, dest, bytes);
        mq_wait(&q); /* dest is being sent until then */
        r->fn(dest, tmp, count);
    }
    if (me < n - p) {
        msend(&q, t, me + p, call, STEP_FOLD_OUT, dest, bytes);
        mq_wait(&q);
    }
    if (tmp != small)
        free(tmp);
    return 0;
}

void pshm_msg_fcollectv(struct pshm_team *t, void *buf, const size_t *off, const size_t *len)
{
    coll_enter(t);
    uint64_t call = ++t->sym->l.seq;
    exchange_blocks(t, call, buf, (char *)buf + off[t->my_pe], off, len, 0);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        pshm_fatal("%s: out of memory for %zu bytes", pshm_coll_routine, n);
    return p;
}

/* Recursive doubling for a power of two members: in round k a PE holds
 * the 2^k blocks of its group, contiguous in dest, and swaps them with the
 * partner group's (n - 1 blocks in log2 n messages instead of n - 1). */
static void fcollect_rounds(struct pshm_team *t, uint64_t call, char *dest, const void *src,
                            size_t nbytes)
{
    int n = t->n_pes, me = t->my_pe;
    if (nbytes && dest + (size_t)me * nbytes != (const char *)src)
        memmove(dest + (size_t)me * nbytes, src, nbytes);
    struct mq q;
    mq_init(&q, 2);
    for (unsigned k = 0; (1 << k) < n; k++) {
        int partner = me ^ (1 << k), mine = me >> k << k, theirs = partner >> k << k;
        size_t len = ((size_t)1 << k) * nbytes;
        mrecv(&q, t, partner, call, k, dest + (size_t)theirs * nbytes, len);
        msend(&q, t, partner, call, k, dest + (size_t)mine * nbytes, len);
        mq_wait(&q);
    }
}

int pshm_msg_fcollect(struct pshm_team *t, void *dest, const void *src, size_t nbytes)
{
    coll_enter(t);
    uint64_t call = ++t->sym->l.seq;
    int algo = pshm_coll_cfg.algo[PSHM_CEXT_OP_FCOLLECT];
    if ((algo == PSHM_ALG_AUTO && crowded_rounds(t)) ||
        (algo == PSHM_COLLECT_RECURSIVE_DOUBLING && pow2_rounds(t->n_pes)))
        fcollect_rounds(t, call, dest, src, nbytes);
    else
        exchange_blocks(t, call, dest, src, NULL, NULL, nbytes);
    return 0;
}

/* The sizes first (a private exchange of one word each), then the blocks
 * at their offsets. */
int pshm_msg_collect(struct pshm_team *t, void *dest, const void *src, size_t nbytes)
{
    int n = t->n_pes, me = t->my_pe;
    coll_enter(t);
    uint64_t call = ++t->sym->l.seq;
    size_t *off = xmalloc(3 * (size_t)n * sizeof *off), *len = off + n, *word = len + n;
    word[me] = nbytes;
    exchange_blocks(t, call, (char *)word, &word[me], NULL, NULL, sizeof *word);
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        off[i] = at;
        len[i] = word[i];
        at += word[i];
    }
    exchange_blocks(t, ++t->sym->l.seq, dest, src, off, len, 0);
    free(off);
    return 0;
}

/* Block j of member i's src goes to member j's dest at block i.  Strided
 * blocks travel packed: one message per pair whatever the stride.  With
 * direct, blocks for members mapped here are stored into their dest
 * instead: the caller has entered for writing and closes with a barrier
 * of those members (hier.c). */
static void alltoalls(struct pshm_team *t, void *dest, const void *src, ptrdiff_t dst,
                      ptrdiff_t sst, size_t nelems, size_t es, int direct)
{
    int n = t->n_pes, me = t->my_pe;
    uint64_t call = ++t->sym->l.seq;
    size_t blk = nelems * es;
    ptrdiff_t dblock = (ptrdiff_t)nelems * dst * (ptrdiff_t)es;
    ptrdiff_t sblock = (ptrdiff_t)nelems * sst * (ptrdiff_t)es;
    int packed = !(dst == 1 && sst == 1);
    char *out = packed ? xmalloc(2 * (size_t)n * blk) : NULL, *in = packed ? out + n * blk : NULL;
    struct mq q;
    mq_init(&q, 2 * (n - 1));
    for (int i = 1; i < n; i++) {
        int from = coll_mod(me - i, n);
        /* Mapping is mutual: from stores here iff its dest is mapped there. */
        if (direct && pshm_mapped(dest, coll_wpe(t, from)))
            continue;
        mrecv(&q, t, from, call, 0, packed ? in + (size_t)from * blk : (char *)dest + from * dblock,
              blk);
    }
    for (int i = 1; i < n; i++) {
        int to = coll_mod(me + i, n);
        const char *s = (const char *)src + to * sblock;
        char *peer = direct ? pshm_mapped((char *)dest + me * dblock, coll_wpe(t, to)) : NULL;
        if (peer) {
            coll_copy_strided(peer, dst, s, sst, nelems, es);
            continue;
        }
        if (packed) {
            coll_copy_strided(out + (size_t)to * blk, 1, s, sst, nelems, es);
            s = out + (size_t)to * blk;
        }
        msend(&q, t, to, call, 0, s, blk);
    }
    coll_copy_strided((char *)dest + me * dblock, dst, (const char *)src + me * sblock, sst, nelems, es);
    mq_wait(&q);
    mq_free(&q);
    if (packed) {
        for (int i = 0; i < n; i++)
            if (i != me && !(direct && pshm_mapped(dest, coll_wpe(t, i))))
                coll_copy_strided((char *)dest + i * dblock, dst, in + (size_t)i * blk, 1, nelems, es);
        free(out);
    }
}

int pshm_msg_alltoalls(struct pshm_team *t, void *dest, const void *src, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems, size_t es)
{
    coll_enter(t);
    alltoalls(t, dest, src, dst, sst, nelems, es, 0);
    return 0;
}

void pshm_msg_alltoalls_direct(struct pshm_team *t, void *dest, const void *src, ptrdiff_t dst,
                               ptrdiff_t sst, size_t nelems, size_t es)
{
    alltoalls(t, dest, src, dst, sst, nelems, es, 1);
}
