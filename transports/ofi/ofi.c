/*
 * The ofi transport: RMA and atomics over libfabric RDM endpoints.
 *
 * Resources.  One fabric, one domain, one address vector (FI_AV_TABLE: the
 * fi_addr_t of a PE is its rank), one memory region per segment (heap,
 * data).  Every context owns an endpoint with one completion counter bound
 * to FI_READ|FI_WRITE and a CQ that receives error entries only
 * (FI_SELECTIVE_COMPLETION).  The default context's endpoint is also the
 * target endpoint: its address is the one peers insert in their AV, so all
 * incoming traffic arrives there and "progress" means polling it.
 *
 * Completion.  A context counts what it issued; quiet waits until the
 * counter catches up, polling the context's own endpoint and the target
 * endpoint, so that two PEs waiting on each other both keep serving.
 * Whether a local completion also means the data is at the target depends
 * on the provider (choose_completion()); where it does not, operations
 * carry FI_DELIVERY_COMPLETE.
 *
 * Threads.  The default context, and shared contexts under
 * SHMEM_THREAD_MULTIPLE, are protected by a lock; the progress thread takes
 * the default context's lock.  Private and serialized contexts take none.
 */

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include "cpu_relax.h"
#include "../common/lock.h"
#include "transport.h"
#include "../common/progress_thread.h"

#define OFI_API FI_VERSION(1, 17)

/* Values of shmem.h; a plugin sees transport.h only. */
#define CTX_SERIALIZED (1L << 0)
#define CTX_PRIVATE (1L << 1)
#define THREAD_MULTIPLE 3

#define ADDR_MAX 256
#define DEFAULT_INTERVAL_US 100

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

struct octx {
    struct fid_ep *ep;
    struct fid_cntr *cntr; /* completions of everything this endpoint issued */
    uint64_t issued;       /* operations issued that will bump cntr */
    uint64_t done;         /* an issued count the counter was seen to reach */
    int locked;            /* take lock around every call */
    struct pshm_lock lock;
    struct fid_cq *cq; /* error entries only */
    /* Completion by flush (g.amo_flush): PEs that got non-fetching atomics
     * since the last quiet. */
    int ndirty;
    int *dirty;
    unsigned char *is_dirty;
    uint64_t scratch;
};

/* A PE's segment as RMA calls name it: the address (its base under
 * FI_MR_VIRT_ADDR, 0 otherwise) and the key. */
struct rseg {
    uint64_t addr;
    uint64_t key;
};

struct card {
    uint64_t base[PSHM_NSEGS];
    uint64_t key[PSHM_NSEGS];
    uint64_t addrlen;
    unsigned char addr[ADDR_MAX];
};

static struct {
    const pshm_core_services *svc;
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_mr *mr[PSHM_MAX_SEGS]; /* the built-in segments, then seg_register's */
    struct rseg *peer;  /* [pe * PSHM_MAX_SEGS + seg] */
    size_t inject;      /* fi_inject_write up to this size */
    size_t inject_fast; /* ... and with no completion flags needed: inject, else 0 */
    size_t max_msg;     /* one fi_write/fi_read moves at most this */
    uint64_t put_flags; /* FI_DELIVERY_COMPLETE where puts need it */
    uint64_t amo_flags; /* the same for non-fetching atomics */
    int amo_flush;      /* instead, quiet reads back from each PE atomics went to */
    int manual;         /* the provider progresses only when called */
    int rxd;            /* an ofi_rxd stack: see rxd_prime() */
    int thread_level;
    struct pshm_progress_thread pt;
    char prov[64];
} g;

static struct octx dflt;
static pshm_transport_ops ops;

/* ---- helpers -------------------------------------------------------- */

#define CTX(t) ((t) ? (struct octx *)(t) : &dflt)
#define ENTER PSHM_ENTER
#define LEAVE PSHM_LEAVE

static const char *env(const pshm_core_services *svc, const char *name)
{
    const char *v = svc->getenv(name);
    return v && *v ? v : NULL;
}

__attribute__((noreturn, cold)) static void fail(const char *what, ssize_t rc)
{
    g.svc->fatal("ofi transport (provider %s): %s failed: %s", g.prov, what,
                 fi_strerror((int)-rc));
}

/* An operation completed in error: say what libfabric says and stop. */
__attribute__((noreturn, cold)) static void op_error(struct octx *c)
{
    struct fi_cq_err_entry e;
    memset(&e, 0, sizeof e);
    char buf[300] = "";
    if (fi_cq_readerr(c->cq, &e, 0) == 1)
        snprintf(buf, sizeof buf, ": %s (%s)", fi_strerror(e.err),
                 fi_cq_strerror(c->cq, e.prov_errno, e.err_data, NULL, 0));
    g.svc->fatal("ofi transport (provider %s): a remote memory operation failed%s", g.prov, buf);
}

/* Drive an endpoint once and report errors.  Through its counter, not its
 * CQ: on the shm provider, polling the CQ from the progress thread (even
 * serialized by our lock) corrupted atomics in flight (an operand applied at
 * the previous command's address); the counter path did not. */
static inline void poll_ep(struct octx *c)
{
    (void)fi_cntr_read(c->cntr);
    if (UNLIKELY(fi_cntr_readerr(c->cntr)))
        op_error(c);
}

/* Serve incoming traffic on the target endpoint once.  If another thread
 * holds the default context, it is inside libfabric already: skip. */
static void progress_target(void)
{
    if (dflt.locked) {
        if (!pshm_lock_try(&dflt.lock))
            return;
        poll_ep(&dflt);
        pshm_unlock(&dflt.lock);
    } else {
        poll_ep(&dflt);
    }
}

static void ofi_progress(void)
{
    pshm_progress_poke(&g.pt);
    progress_target();
}

/* One turn of a wait on c (held by the caller). */
static inline void drive(struct octx *c, unsigned *spins)
{
    poll_ep(c);
    if (c != &dflt)
        progress_target();
    if (++*spins > 200)
        sched_yield();
    else
        pshm_cpu_relax();
}

/* Wait until everything c issued has completed.  One counter read per
 * turn: on tcp every read is a trip through the sockets, and a second one
 * per turn delayed seeing the completion by about a microsecond. */
static void wait_all(struct octx *c)
{
    unsigned spins = 0;
    pshm_progress_poke(&g.pt);
    while (fi_cntr_read(c->cntr) < c->issued) {
        /* A failed operation bumps the error count instead: look now and
         * then, so that the loop cannot spin forever on a failure. */
        if (UNLIKELY((spins & 63) == 0) && UNLIKELY(fi_cntr_readerr(c->cntr)))
            op_error(c);
        if (c != &dflt)
            progress_target();
        if (++spins > 200)
            sched_yield();
        else
            pshm_cpu_relax();
    }
}

/* Issue with retries while the provider's queues are full. */
#define ISSUE(c, what, call)                                                                       \
    do {                                                                                           \
        ssize_t rc_;                                                                               \
        unsigned sp_ = 0;                                                                          \
        while (UNLIKELY((rc_ = (call)) != 0)) {                                                    \
            if (rc_ != -FI_EAGAIN)                                                                 \
                fail(what, rc_);                                                                   \
            drive(c, &sp_);                                                                        \
        }                                                                                          \
        (c)->issued++;                                                                             \
    } while (0)

static inline const struct rseg *rseg(int pe, int seg)
{
    return &g.peer[pe * PSHM_MAX_SEGS + seg];
}

/* ---- RMA ------------------------------------------------------------ */

static void write_msg(struct octx *c, int pe, uint64_t raddr, uint64_t key, const void *src,
                      size_t len, uint64_t flags)
{
    struct iovec iov = {(void *)src, len};
    struct fi_rma_iov riov = {raddr, len, key};
    struct fi_msg_rma m = {.msg_iov = &iov, .desc = NULL, .iov_count = 1, .addr = (fi_addr_t)pe,
                           .rma_iov = &riov, .rma_iov_count = 1, .context = NULL, .data = 0};
    ISSUE(c, "fi_writemsg", fi_writemsg(c->ep, &m, flags));
}

/* Issue a put; returns whether it must be waited for before src is
 * reused. */
static inline int put_issue(struct octx *c, int pe, int seg, size_t off, const void *src,
                            size_t len)
{
    const struct rseg *r = rseg(pe, seg);
    uint64_t raddr = r->addr + off;
    if (LIKELY(len <= g.inject)) {
        if (LIKELY(!g.put_flags))
            ISSUE(c, "fi_inject_write",
                  fi_inject_write(c->ep, src, len, (fi_addr_t)pe, raddr, r->key));
        else
            write_msg(c, pe, raddr, r->key, src, len, FI_INJECT | g.put_flags);
        return 0;
    }
    const char *s = src;
    while (len) {
        size_t n = len < g.max_msg ? len : g.max_msg;
        if (!g.put_flags)
            ISSUE(c, "fi_write", fi_write(c->ep, s, n, NULL, (fi_addr_t)pe, raddr, r->key, NULL));
        else
            write_msg(c, pe, raddr, r->key, s, n, g.put_flags);
        s += n;
        raddr += n;
        len -= n;
    }
    return 1;
}

/* The common case kept short: a small put the provider takes at once, with
 * nothing to wait for.  Returns 0 if put_issue must do it. */
static inline int put_inject(struct octx *c, int pe, int seg, size_t off, const void *src,
                             size_t len)
{
    const struct rseg *r = rseg(pe, seg);
    if (UNLIKELY(len > g.inject_fast) ||
        UNLIKELY(fi_inject_write(c->ep, src, len, (fi_addr_t)pe, r->addr + off, r->key)))
        return 0;
    c->issued++;
    return 1;
}

__attribute__((noinline)) static void put_rest(struct octx *c, int pe, int seg, size_t off,
                                               const void *src, size_t len)
{
    if (put_issue(c, pe, seg, off, src, len))
        wait_all(c);
}

static void ofi_put(pshm_tctx t, int pe, int seg, size_t off, const void *src, size_t len)
{
    struct octx *c = CTX(t);
    ENTER(c);
    if (UNLIKELY(!put_inject(c, pe, seg, off, src, len)))
        put_rest(c, pe, seg, off, src, len);
    LEAVE(c);
}

/* The source of a put_nbi may not be changed before the next quiet, so a
 * large one is left in flight. */
static void ofi_put_nbi(pshm_tctx t, int pe, int seg, size_t off, const void *src, size_t len)
{
    struct octx *c = CTX(t);
    ENTER(c);
    if (UNLIKELY(!put_inject(c, pe, seg, off, src, len)))
        put_issue(c, pe, seg, off, src, len);
    LEAVE(c);
}

static inline void get_issue(struct octx *c, int pe, int seg, size_t off, void *dst, size_t len)
{
    const struct rseg *r = rseg(pe, seg);
    uint64_t raddr = r->addr + off;
    char *d = dst;
    while (len) {
        size_t n = len < g.max_msg ? len : g.max_msg;
        ISSUE(c, "fi_read", fi_read(c->ep, d, n, NULL, (fi_addr_t)pe, raddr, r->key, NULL));
        d += n;
        raddr += n;
        len -= n;
    }
}

static void ofi_get(pshm_tctx t, int pe, int seg, size_t off, void *dst, size_t len)
{
    struct octx *c = CTX(t);
    ENTER(c);
    get_issue(c, pe, seg, off, dst, len);
    wait_all(c);
    LEAVE(c);
}

static void ofi_get_nbi(pshm_tctx t, int pe, int seg, size_t off, void *dst, size_t len)
{
    struct octx *c = CTX(t);
    ENTER(c);
    get_issue(c, pe, seg, off, dst, len);
    LEAVE(c);
}

/* ofi_rxd (libfabric 1.17 at least) sends a fetching or compare atomic
 * with a "segment count" it never sets: the one left in its tx entry by
 * the previous operation that used that entry, 0 in a fresh one.  The
 * target takes any count but 1 for a multi-packet transfer and links its
 * reply entry into a second list while it is still on the peer's tx list;
 * the next walk of that list follows freed memory (segfault in
 * rxd_start_xfer, or a reply completed twice).  Every other operation sets
 * the count, to 1 when it fits in one packet.  So: on rxd, no RMA call
 * moves more than inject_size bytes (g.max_msg), which keeps every count
 * at 1, and each new endpoint has all its tx entries used once by such a
 * call before any atomic: as many 8-byte reads as it accepts at once
 * (tx entries come from an indexed pool, lowest free index first, and the
 * provider refuses with -FI_EAGAIN when all are in use), from this PE's
 * own heap so that no other PE has to be progressing. */
static void rxd_prime(struct octx *c)
{
    const struct rseg *r = rseg(g.svc->my_pe, PSHM_SEG_HEAP);
    size_t n = 0;
    for (;;) {
        ssize_t rc = fi_read(c->ep, &c->scratch, sizeof c->scratch, NULL,
                             (fi_addr_t)g.svc->my_pe, r->addr, r->key, NULL);
        if (rc == -FI_EAGAIN)
            break;
        if (rc)
            fail("fi_read", rc);
        c->issued++;
        if (++n >= 65536) /* the pool's limit: cannot be reached */
            break;
    }
    wait_all(c);
    if (env(g.svc, "SHMEM_OFI_VERBOSE") && g.svc->my_pe == 0)
        fprintf(stderr, "ofi transport: primed %zu tx entries of an rxd endpoint\n", n);
}

/* ---- AMO ------------------------------------------------------------ */

static const enum fi_op amo_fiop[PSHM_AMO_NOPS] = {
    [PSHM_AMO_ADD] = FI_SUM,          [PSHM_AMO_AND] = FI_BAND,
    [PSHM_AMO_OR] = FI_BOR,           [PSHM_AMO_XOR] = FI_BXOR,
    [PSHM_AMO_SWAP] = FI_ATOMIC_WRITE, [PSHM_AMO_CSWAP] = FI_CSWAP,
    [PSHM_AMO_READ] = FI_ATOMIC_READ, [PSHM_AMO_SET] = FI_ATOMIC_WRITE,
};

static void ofi_amo(pshm_tctx t, int pe, int seg, size_t off, int op, int type,
                    const void *operand, const void *compare, void *fetch, int nbi)
{
    (void)nbi; /* fetching AMOs always wait: their operand is on the caller's stack */
    struct octx *c = CTX(t);
    enum fi_datatype dt = (type == PSHM_T_U32 || type == PSHM_T_FLOAT) ? FI_UINT32 : FI_UINT64;
    const struct rseg *r = rseg(pe, seg);
    uint64_t raddr = r->addr + off;
    enum fi_op fop = amo_fiop[op];
    uint64_t tmp = 0, zero = 0;

    if (op == PSHM_AMO_READ && !fetch)
        return;
    if (!operand)
        operand = &zero;
    ENTER(c);
    if (op == PSHM_AMO_CSWAP) {
        ISSUE(c, "fi_compare_atomic",
              fi_compare_atomic(c->ep, operand, 1, NULL, compare, NULL, fetch ? fetch : &tmp, NULL,
                                (fi_addr_t)pe, raddr, r->key, dt, FI_CSWAP, NULL));
        wait_all(c);
    } else if (fetch) {
        ISSUE(c, "fi_fetch_atomic",
              fi_fetch_atomic(c->ep, operand, 1, NULL, fetch, NULL, (fi_addr_t)pe, raddr, r->key,
                              dt, fop, NULL));
        wait_all(c);
    } else if (LIKELY(!g.amo_flags)) {
        ISSUE(c, "fi_inject_atomic",
              fi_inject_atomic(c->ep, operand, 1, (fi_addr_t)pe, raddr, r->key, dt, fop));
        if (g.amo_flush && !c->is_dirty[pe]) {
            c->is_dirty[pe] = 1;
            c->dirty[c->ndirty++] = pe;
        }
    } else {
        struct fi_ioc ioc = {(void *)operand, 1};
        struct fi_rma_ioc rioc = {raddr, 1, r->key};
        struct fi_msg_atomic m = {.msg_iov = &ioc, .desc = NULL, .iov_count = 1,
                                  .addr = (fi_addr_t)pe, .rma_iov = &rioc, .rma_iov_count = 1,
                                  .datatype = dt, .op = fop, .context = NULL, .data = 0};
        ISSUE(c, "fi_atomicmsg", fi_atomicmsg(c->ep, &m, FI_INJECT | g.amo_flags));
    }
    LEAVE(c);
}

/* ---- ordering and completion ---------------------------------------- */

/* A fetching atomic read from each PE that got non-fetching atomics: the
 * target serves its queue in order, so the answer means they are applied. */
__attribute__((noinline)) static void flush(struct octx *c)
{
    for (int i = 0; i < c->ndirty; i++) {
        int pe = c->dirty[i];
        const struct rseg *r = rseg(pe, PSHM_SEG_HEAP);
        ISSUE(c, "fi_fetch_atomic",
              fi_fetch_atomic(c->ep, &c->scratch, 1, NULL, &c->scratch, NULL, (fi_addr_t)pe,
                              r->addr, r->key, FI_UINT64, FI_ATOMIC_READ, NULL));
        c->is_dirty[pe] = 0;
    }
    c->ndirty = 0;
    wait_all(c);
}

static void ofi_quiet(pshm_tctx t)
{
    struct octx *c = CTX(t);
    ENTER(c);
    if (UNLIKELY(c->ndirty))
        flush(c);
    else if (fi_cntr_read(c->cntr) < c->issued)
        wait_all(c);
    else if (c == &dflt) /* that read served the target endpoint: the thread may rest */
        pshm_progress_poke(&g.pt);
    LEAVE(c);
}

/* libfabric orders nothing we can rely on across RMA and atomics on every
 * provider, so a fence completes what is outstanding. */
static void ofi_fence(pshm_tctx t) { ofi_quiet(t); }

/* ---- explicit requests (nbe) ----------------------------------------
 * One counter per endpoint counts completions in any order, so a count
 * of the request's own operations cannot be told apart from later ones.
 * A request's word is instead its context's issued count after its last
 * operation (a mark); it is complete once the counter has been seen to
 * reach the issued count at some moment after that mark (c->done): then
 * everything issued up to that moment is complete, the request's
 * operations among it.  On a private context this waits only for the
 * thread's own operations; one more fi_cntr_read per test, no extra
 * resources.  Per-operation completions (FI_COMPLETION and a CQ entry per
 * operation) would be exact, but the CQ path corrupted atomics on the shm
 * provider (see poll_ep). */

static void ofi_put_nbe(pshm_tctx t, int pe, int seg, size_t off, const void *src, size_t len,
                        pshm_treq *req)
{
    struct octx *c = CTX(t);
    ENTER(c);
    if (UNLIKELY(!put_inject(c, pe, seg, off, src, len)))
        put_issue(c, pe, seg, off, src, len);
    *req = (pshm_treq)c->issued;
    LEAVE(c);
}

static void ofi_get_nbe(pshm_tctx t, int pe, int seg, size_t off, void *dst, size_t len,
                        pshm_treq *req)
{
    struct octx *c = CTX(t);
    ENTER(c);
    get_issue(c, pe, seg, off, dst, len);
    *req = (pshm_treq)c->issued;
    LEAVE(c);
}

/* Every nbe AMO fetches; the core keeps operand and compare alive until
 * the request completes, so nothing is waited for here. */
static void ofi_amo_nbe(pshm_tctx t, int pe, int seg, size_t off, int op, int type,
                        const void *operand, const void *compare, void *fetch, pshm_treq *req)
{
    struct octx *c = CTX(t);
    enum fi_datatype dt = (type == PSHM_T_U32 || type == PSHM_T_FLOAT) ? FI_UINT32 : FI_UINT64;
    const struct rseg *r = rseg(pe, seg);
    uint64_t raddr = r->addr + off;
    ENTER(c);
    if (op == PSHM_AMO_CSWAP)
        ISSUE(c, "fi_compare_atomic",
              fi_compare_atomic(c->ep, operand, 1, NULL, compare, NULL, fetch, NULL, (fi_addr_t)pe,
                                raddr, r->key, dt, FI_CSWAP, NULL));
    else
        ISSUE(c, "fi_fetch_atomic",
              fi_fetch_atomic(c->ep, operand, 1, NULL, fetch, NULL, (fi_addr_t)pe, raddr, r->key,
                              dt, amo_fiop[op], NULL));
    *req = (pshm_treq)c->issued;
    LEAVE(c);
}

static int ofi_req_test(pshm_tctx t, pshm_treq mark)
{
    struct octx *c = CTX(t);
    int ok = 0;
    ENTER(c);
    if (c->done >= (uint64_t)mark) {
        ok = 1;
    } else {
        uint64_t issued = c->issued;
        if (fi_cntr_read(c->cntr) >= issued) {
            c->done = issued;
            ok = 1;
        } else {
            if (UNLIKELY(fi_cntr_readerr(c->cntr)))
                op_error(c);
            if (c != &dflt)
                progress_target();
        }
    }
    LEAVE(c);
    return ok;
}

/* ---- endpoints and contexts ----------------------------------------- */

static void ctx_close(struct octx *c)
{
    if (c->ep)
        fi_close(&c->ep->fid);
    if (c->cntr)
        fi_close(&c->cntr->fid);
    if (c->cq)
        fi_close(&c->cq->fid);
    free(c->dirty);
    free(c->is_dirty);
    c->dirty = NULL;
    c->is_dirty = NULL;
    c->ep = NULL;
    c->cntr = NULL;
    c->cq = NULL;
}

/* Endpoint, counter and CQ, bound and enabled.  The endpoint is enabled
 * before anything can fail after its creation: closing a domain with an
 * endpoint that was never enabled crashes some providers (tcp;ofi_rxm,
 * net). */
static int ctx_open(struct octx *c, char *why, size_t whylen)
{
    struct fi_cq_attr cqa = {.size = 0, .format = FI_CQ_FORMAT_CONTEXT, .wait_obj = FI_WAIT_NONE};
    struct fi_cntr_attr ca = {.events = FI_CNTR_EVENTS_COMP, .wait_obj = FI_WAIT_NONE};
    const char *what;
    int rc;
    memset(c, 0, sizeof *c);
    c->dirty = calloc((size_t)g.svc->n_pes, sizeof *c->dirty);
    c->is_dirty = calloc((size_t)g.svc->n_pes, 1);
    if (!c->dirty || !c->is_dirty) {
        free(c->dirty);
        free(c->is_dirty);
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    if ((rc = fi_endpoint(g.domain, g.info, &c->ep, NULL))) {
        c->ep = NULL;
        what = "fi_endpoint";
        goto out;
    }
    if ((rc = fi_cq_open(g.domain, &cqa, &c->cq, NULL))) {
        c->cq = NULL;
        what = "fi_cq_open";
        goto out;
    }
    if ((rc = fi_cntr_open(g.domain, &ca, &c->cntr, NULL))) {
        ca.wait_obj = FI_WAIT_UNSPEC;
        if ((rc = fi_cntr_open(g.domain, &ca, &c->cntr, NULL))) {
            c->cntr = NULL;
            what = "fi_cntr_open";
            goto out;
        }
    }
    /* Name shm endpoints after the job (oshrun removes /dev/shm/psm-TAG-*
     * after a crash; the provider's own names would be left behind).  The
     * names differ between shmem_init calls of a process: libfabric stays
     * loaded across them (keep_libfabric_loaded()), and its shm provider
     * crashed in fi_av_insert when an earlier init's names came back.
     * This plugin is loaded afresh by every init, so the stamp of its load
     * tells them apart where a static counter would restart at 0. */
    const char *tag = g.svc->getenv("PLUGSHMEM_JOB_TAG");
    if (!strcmp(g.prov, "shm") && tag && *tag) {
        static unsigned seq;
        static unsigned long long load_stamp;
        if (!load_stamp) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            load_stamp = (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned)ts.tv_nsec;
        }
        char name[80];
        snprintf(name, sizeof name, "psm-%.20s-%d-ofi-%llx-%u", tag, g.svc->my_pe, load_stamp,
                 __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
        fi_setname(&c->ep->fid, name, strlen(name) + 1); /* best effort */
    }
    what = "binding the endpoint";
    if ((rc = fi_ep_bind(c->ep, &g.av->fid, 0)) ||
        (rc = fi_ep_bind(c->ep, &c->cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION)) ||
        (rc = fi_ep_bind(c->ep, &c->cntr->fid, FI_READ | FI_WRITE)))
        goto out;
    what = "fi_enable";
    rc = fi_enable(c->ep);
out:
    if (rc) {
        snprintf(why, whylen, "%s: %s", what, fi_strerror(-rc));
        if (c->ep && strcmp(what, "fi_enable")) {
            /* Enable it anyway (see above) before it is closed. */
            if (!c->cq)
                fi_cq_open(g.domain, &cqa, &c->cq, NULL);
            if (c->cq)
                fi_ep_bind(c->ep, &c->cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION);
            fi_ep_bind(c->ep, &g.av->fid, 0);
            fi_enable(c->ep);
        }
        ctx_close(c);
        return -1;
    }
    return 0;
}

static int ofi_ctx_create(long options, pshm_tctx *out)
{
    char why[256];
    struct octx *c = aligned_alloc(64, (sizeof *c + 63) & ~(size_t)63);
    if (!c)
        return -1;
    if (ctx_open(c, why, sizeof why)) {
        g.svc->error("ofi transport (provider %s): cannot create a context: %s", g.prov, why);
        free(c);
        return -1;
    }
    c->locked = g.thread_level == THREAD_MULTIPLE && !(options & (CTX_PRIVATE | CTX_SERIALIZED));
    if (g.rxd)
        rxd_prime(c);
    *out = c;
    return 0;
}

static void ofi_ctx_destroy(pshm_tctx t)
{
    struct octx *c = t;
    if (!c)
        return;
    ofi_quiet(c);
    ctx_close(c);
    free(c);
}

/* ---- progress thread ------------------------------------------------ */

/* The thread's round: poll the default endpoint under its lock. */
static void serve_default(void)
{
    pshm_lock(&dflt.lock);
    poll_ep(&dflt);
    pshm_unlock(&dflt.lock);
}

static int start_thread(void)
{
    dflt.locked = 1;
    g.pt.serve = serve_default;
    return pshm_progress_start(&g.pt);
}

static void stop_thread(void) { pshm_progress_stop(&g.pt); }

/* ---- provider selection --------------------------------------------- */

/* Providers that only reach PEs on this node. */
static int node_local(const char *prov) { return !strcmp(prov, "shm") || !strcmp(prov, "sm2"); }

static struct fi_info *make_hints(const pshm_core_services *svc)
{
    struct fi_info *h = fi_allocinfo();
    if (!h)
        return NULL;
    h->caps = FI_RMA | FI_ATOMIC;
    h->mode = 0;
    h->ep_attr->type = FI_EP_RDM;
    /* What we can handle; the provider keeps what it needs.  Not
     * FI_MR_LOCAL: user buffers are not registered. */
    h->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_PROV_KEY | FI_MR_ALLOCATED | FI_MR_ENDPOINT;
    /* FI_THREAD_SAFE although we serialize each endpoint ourselves: with
     * FI_THREAD_COMPLETION, udp;ofi_rxd crashed inside its progress when
     * the progress thread and the program took turns on the endpoint. */
    h->domain_attr->threading = FI_THREAD_SAFE;
    h->domain_attr->resource_mgmt = FI_RM_ENABLED;
    h->tx_attr->msg_order = 0; /* on shm, asking for RMA ordering disables CMA writes */
    const char *p = env(svc, "SHMEM_OFI_PROVIDER");
    if (p)
        h->fabric_attr->prov_name = strdup(p);
    /* SHMEM_OFI_DOMAIN is no hint: tcp;ofi_rxm answered a domain that does
     * not exist with eth0's.  pick() matches it against every domain. */
    return h;
}

/* ofi_rxd (libfabric 1.17) sends up to FI_OFI_RXD_MAX_UNACKED (default
 * 128) packets of up to ~1.3 KB to each peer before waiting for an ack.
 * With 7 peers sending at once that overflows a receiving UDP socket's
 * default buffer (net.core.rmem_default 212992: measured ~36000 drops in
 * 40 s, 8 PEs), and rxd does not always recover from the losses: a
 * write is never acknowledged (the sender's counter stays short for good:
 * hang) or an older write's data is left in place of a newer one's after
 * quiet (wrong data).  A window that keeps all peers' packets within the
 * buffer (~96 in all) avoids the drops.  Set before the first fi_getinfo,
 * which is when rxd reads it; a user's setting wins.  Only rxd reads it. */
static void rxd_window(const pshm_core_services *svc)
{
    if (getenv("FI_OFI_RXD_MAX_UNACKED"))
        return;
    int peers = svc->n_pes > 1 ? svc->n_pes - 1 : 1;
    int w = 96 / peers;
    w = w < 8 ? 8 : w > 64 ? 64 : w;
    char v[16];
    snprintf(v, sizeof v, "%d", w);
    setenv("FI_OFI_RXD_MAX_UNACKED", v, 0);
}

/* ---- fi_getinfo, asked once ---------------------------------------- */

/* Debian's libfabric links libpsm_infinipath and libpsm2, whose
 * constructors each calibrate a clock for 0.1 s pinned to CPU 0, and its
 * first fi_getinfo reads /proc/kallsyms twice (efa provider): about 0.3 s
 * each time a process loads libfabric.  The core unloads this plugin at
 * shmem_finalize, which unloaded libfabric too, so every later shmem_init
 * of the process (a suite driver runs one per family) paid it again.
 * Keeping libfabric loaded makes it once per process; libfabric then reads
 * its FI_ variables once per process, as in a program linked with it. */
static void keep_libfabric_loaded(void)
{
    static int done;
    Dl_info di;
    if (done)
        return;
    done = 1;
    if (dladdr((void *)fi_getinfo, &di) && di.dli_fname)
        (void)dlopen(di.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

/* fi_getinfo's answer, shared by query() and init() (and shmem_info's
 * queries of a running job): the first one of this plugin's load is kept
 * until fini, or until the plugin is unloaded without init, and reused
 * while the inputs of the hints and libfabric's FI_PROVIDER are unchanged.
 * Failures are not kept: a plugin whose query failed is not initialized. */
static struct {
    struct fi_info *all;
    char *prov, *domain, *fi_provider; /* the inputs it answered (NULL: unset) */
} answer;

static int same(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

static void answer_drop(void)
{
    fi_freeinfo(answer.all);
    free(answer.prov);
    free(answer.domain);
    free(answer.fi_provider);
    memset(&answer, 0, sizeof answer);
}

__attribute__((destructor)) static void answer_unload(void) { answer_drop(); }

/* Every RDM entry with RMA and atomics (owned by the cache), or NULL with
 * the reason in why. */
static struct fi_info *getinfo(const pshm_core_services *svc, char *why, size_t whylen)
{
    const char *p = env(svc, "SHMEM_OFI_PROVIDER");
    const char *d = env(svc, "SHMEM_OFI_DOMAIN");
    const char *fp = getenv("FI_PROVIDER");
    if (answer.all && same(p, answer.prov) && same(d, answer.domain) &&
        same(fp, answer.fi_provider))
        return answer.all;
    answer_drop();
    keep_libfabric_loaded();
    struct fi_info *h = make_hints(svc);
    if (!h) {
        snprintf(why, whylen, "out of memory");
        return NULL;
    }
    rxd_window(svc);
    struct fi_info *all = NULL;
    int rc = fi_getinfo(OFI_API, NULL, NULL, 0, h, &all);
    fi_freeinfo(h);
    if (rc) {
        snprintf(why, whylen,
                 "libfabric %s offers no RDM endpoint with RMA and atomics%s%s%s (fi_getinfo: %s)",
                 fi_tostr(&(uint32_t){fi_version()}, FI_TYPE_VERSION),
                 p || fp ? " from provider '" : "", p ? p : fp ? fp : "", p || fp ? "'" : "",
                 fi_strerror(-rc));
        return NULL;
    }
    answer.all = all;
    answer.prov = dup_or_null(p);
    answer.domain = dup_or_null(d);
    answer.fi_provider = dup_or_null(fp);
    if ((p && !answer.prov) || (d && !answer.domain) || (fp && !answer.fi_provider)) {
        answer_drop();
        snprintf(why, whylen, "out of memory");
        return NULL;
    }
    return all;
}

/* SHMEM_OFI_DOMAIN named none of the domains offered: say which are.  The
 * refusal starts with the setting, so the core ends the job with it. */
static void no_such_domain(const pshm_core_services *svc, struct fi_info *all, const char *d,
                           int multi, char *why, size_t whylen)
{
    const char *p = env(svc, "SHMEM_OFI_PROVIDER");
    const char *fp = getenv("FI_PROVIDER");
    size_t u = (size_t)snprintf(why, whylen, "SHMEM_OFI_DOMAIN='%s' is not a domain of %s%s%s; use ",
                                d, p || fp ? "provider '" : "the providers offered",
                                p ? p : fp ? fp : "", p || fp ? "'" : "");
    int n = 0;
    for (struct fi_info *i = all; i && u < whylen; i = i->next) {
        const char *name = i->domain_attr->name;
        int dup = 0;
        if (!name || (multi && node_local(i->fabric_attr->prov_name)))
            continue;
        for (struct fi_info *k = all; k != i && !dup; k = k->next)
            dup = k->domain_attr->name && !strcmp(k->domain_attr->name, name) &&
                  !(multi && node_local(k->fabric_attr->prov_name));
        if (!dup)
            u += (size_t)snprintf(why + u, whylen - u, "%s%s", n++ ? ", " : "one of ", name);
    }
    if (!n && u < whylen)
        snprintf(why + u, whylen - u, "another provider: this one offers no domain");
}

/* Picks the first usable entry (owned by the cache) or NULL. */
static struct fi_info *pick(const pshm_core_services *svc, char *why, size_t whylen)
{
    struct fi_info *all = getinfo(svc, why, whylen);
    if (!all)
        return NULL;
    int multi = svc->n_local != svc->n_pes;
    const char *d = env(svc, "SHMEM_OFI_DOMAIN");
    for (struct fi_info *i = all; i; i = i->next) {
        if (multi && node_local(i->fabric_attr->prov_name))
            continue;
        if (d && (!i->domain_attr->name || strcmp(i->domain_attr->name, d) != 0))
            continue;
        return i;
    }
    if (d) {
        no_such_domain(svc, all, d, multi, why, whylen);
        return NULL;
    }
    snprintf(why, whylen, "the job spans nodes and the only providers offered (%s) serve one node",
             all->fabric_attr->prov_name);
    return NULL;
}

/* On one node the shm plugin (10) is the better default. */
static int ofi_max_priority(const pshm_core_services *svc)
{
    return svc->n_local == svc->n_pes ? 5 : 20;
}

static int ofi_query(const pshm_core_services *svc, char *why, size_t whylen)
{
    return pick(svc, why, whylen) ? ofi_max_priority(svc) : -1;
}

/* ---- settings ------------------------------------------------------- */

/* auto, or a boolean; -1 for auto. */
static int tri(const char *name, int *out)
{
    const char *s = env(g.svc, name);
    *out = -1;
    if (!s || !strcasecmp(s, "auto"))
        return 0;
    if (!strcmp(s, "1") || !strcasecmp(s, "yes") || !strcasecmp(s, "on") || !strcasecmp(s, "true"))
        return *out = 1, 0;
    if (!strcmp(s, "0") || !strcasecmp(s, "no") || !strcasecmp(s, "off") || !strcasecmp(s, "false"))
        return *out = 0, 0;
    g.svc->error("%s='%s' is not known; use auto, 1 or 0", name, s);
    return -1;
}

/* Whether the kernel lets a process write into a sibling's memory, which
 * the shm provider's direct (CMA) RMA needs. */
static int cma_usable(void)
{
    const char *d = getenv("FI_SHM_DISABLE_CMA");
    if (d && (*d == '1' || !strcasecmp(d, "yes") || !strcasecmp(d, "true")))
        return 0;
    FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
    if (!f)
        return 1;
    int v = 1;
    if (fscanf(f, "%d", &v) != 1)
        v = 1;
    fclose(f);
    return v == 0;
}

/* How a completion (what quiet waits for) comes to mean that the target
 * memory holds the result:
 *  - shm with FI_MR_VIRT_ADDR and no RMA ordering writes and reads by
 *    process_vm_writev/readv from the initiator: a completed put is in
 *    place.  Its non-fetching atomics complete when queued, before the
 *    target applied them (measured); with FI_DELIVERY_COMPLETE they are
 *    acknowledged, but that path corrupted atomics here under preemption
 *    (an operand applied at the previous command's address, libfabric
 *    1.17).  So they go inline, and quiet flushes: one fetching read to
 *    each PE they went to, which the target serves after them (its queue
 *    is in order).  Without CMA, shm puts are queued too and need
 *    FI_DELIVERY_COMPLETE.
 *  - any other provider: FI_DELIVERY_COMPLETE on puts and atomics. */
static int choose_completion(void)
{
    int force;
    if (tri("SHMEM_OFI_DELIVERY_COMPLETE", &force))
        return -1;
    if (force >= 0) {
        g.put_flags = g.amo_flags = force ? FI_DELIVERY_COMPLETE : 0;
        g.amo_flush = 0;
        return 0;
    }
    g.amo_flags = FI_DELIVERY_COMPLETE;
    g.put_flags = FI_DELIVERY_COMPLETE;
    if (!strcmp(g.prov, "shm")) {
        g.amo_flags = 0;
        g.amo_flush = 1;
        if ((g.info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) && cma_usable())
            g.put_flags = 0;
    }
    return 0;
}

/* Providers whose atomics are applied in the target process by libfabric's
 * shared atomic handlers, which use the CPU's atomic instructions: a word
 * updated by them and by CPU atomics of an on-node peer stays atomic. */
static int amo_cpu_coherent(void)
{
    int v;
    if (tri("SHMEM_OFI_AMO_CPU_COHERENT", &v))
        return -1;
    if (v >= 0)
        return v;
    return !strcmp(g.prov, "shm") || !strcmp(g.prov, "tcp;ofi_rxm") ||
           !strcmp(g.prov, "udp;ofi_rxd") || !strcmp(g.prov, "tcp");
}

/* ---- atomics check -------------------------------------------------- */

static int check_atomics(void)
{
    static const struct {
        const char *name;
        int kind; /* 0 plain, 1 fetching, 2 compare */
        enum fi_op op;
    } need[] = {
        {"add", 0, FI_SUM},          {"and", 0, FI_BAND},          {"or", 0, FI_BOR},
        {"xor", 0, FI_BXOR},         {"set", 0, FI_ATOMIC_WRITE},  {"fetch-add", 1, FI_SUM},
        {"fetch-and", 1, FI_BAND},   {"fetch-or", 1, FI_BOR},      {"fetch-xor", 1, FI_BXOR},
        {"swap", 1, FI_ATOMIC_WRITE}, {"fetch", 1, FI_ATOMIC_READ}, {"compare-swap", 2, FI_CSWAP},
    };
    static const struct {
        const char *name;
        enum fi_datatype dt;
    } types[] = {{"32-bit", FI_UINT32}, {"64-bit", FI_UINT64}};
    char missing[1024] = "";
    size_t len = 0;
    int n = 0;
    for (size_t i = 0; i < sizeof need / sizeof *need; i++)
        for (size_t t = 0; t < 2; t++) {
            size_t count = 0;
            int rc = need[i].kind == 0   ? fi_atomicvalid(dflt.ep, types[t].dt, need[i].op, &count)
                     : need[i].kind == 1 ? fi_fetch_atomicvalid(dflt.ep, types[t].dt, need[i].op,
                                                                &count)
                                         : fi_compare_atomicvalid(dflt.ep, types[t].dt, need[i].op,
                                                                  &count);
            if (rc == 0 && count >= 1)
                continue;
            n++;
            if (len < sizeof missing - 64)
                len += (size_t)snprintf(missing + len, sizeof missing - len, "%s%s %s",
                                        n > 1 ? ", " : "", need[i].name, types[t].name);
        }
    if (!n)
        return 0;
    g.svc->error("ofi transport: libfabric provider '%s' lacks %d of the 24 atomic operations "
                 "OpenSHMEM needs (%s); choose another provider with FI_PROVIDER or "
                 "SHMEM_OFI_PROVIDER (e.g. shm, tcp;ofi_rxm, udp;ofi_rxd)",
                 g.prov, n, missing);
    return -1;
}

/* ---- init / fini ---------------------------------------------------- */

static void teardown(void)
{
    stop_thread();
    ctx_close(&dflt);
    for (int s = 0; s < PSHM_MAX_SEGS; s++)
        if (g.mr[s]) {
            fi_close(&g.mr[s]->fid);
            g.mr[s] = NULL;
        }
    if (g.av)
        fi_close(&g.av->fid);
    if (g.domain)
        fi_close(&g.domain->fid);
    if (g.fabric)
        fi_close(&g.fabric->fid);
    if (g.info)
        fi_freeinfo(g.info);
    free(g.peer);
    g.av = NULL;
    g.domain = NULL;
    g.fabric = NULL;
    g.info = NULL;
    g.peer = NULL;
}

/* One memory region: registered, bound to the target endpoint where the
 * provider wants that, its key in *key. */
static int mr_open(int s, void *base, size_t size, uint64_t *key)
{
    int rc = fi_mr_reg(g.domain, base, size, FI_REMOTE_READ | FI_REMOTE_WRITE, 0,
                       (uint64_t)s + 1, 0, &g.mr[s], NULL);
    if (rc) {
        g.mr[s] = NULL;
        g.svc->error("ofi transport (provider %s): cannot register %s (%zu bytes at %p): %s",
                     g.prov,
                     s == PSHM_SEG_HEAP   ? "the heap segment"
                     : s == PSHM_SEG_DATA ? "the data segment"
                                          : "a memory space",
                     size, base, fi_strerror(-rc));
        return -1;
    }
    if ((g.info->domain_attr->mr_mode & FI_MR_ENDPOINT) &&
        ((rc = fi_mr_bind(g.mr[s], &dflt.ep->fid, 0)) || (rc = fi_mr_enable(g.mr[s])))) {
        g.svc->error("ofi transport (provider %s): cannot enable a memory region: %s", g.prov,
                     fi_strerror(-rc));
        return -1;
    }
    *key = fi_mr_key(g.mr[s]);
    return 0;
}

/* A memory space (ABI 2.1 seg_register): its region, and every PE's
 * address and key of it, as for the built-in segments at init. */
static int ofi_seg_register(int s, void *base, size_t size)
{
    struct rseg mine = {0, 0};
    int n = g.svc->n_pes, rc = mr_open(s, base, size, &mine.key);
    if (g.info->domain_attr->mr_mode & FI_MR_VIRT_ADDR)
        mine.addr = (uint64_t)(uintptr_t)base;
    struct rseg *all = calloc((size_t)n, sizeof *all);
    int *oks = calloc((size_t)n, sizeof *oks), ok = rc == 0;
    /* The peers are in the exchange already: a PE that skipped it would
     * leave them waiting, so running out of memory here ends the job. */
    if (!all || !oks)
        g.svc->fatal("ofi transport: out of memory registering a memory space (%d peers)", n);
    /* every PE learns whether all registered, so that all agree */
    if (g.svc->allgather(&ok, oks, sizeof ok) || g.svc->allgather(&mine, all, sizeof mine)) {
        g.svc->error("ofi transport: bootstrap exchange of a memory space's keys failed");
        rc = -1;
    }
    for (int pe = 0; rc == 0 && pe < n; pe++) {
        if (!oks[pe]) {
            rc = -1;
            break;
        }
        g.peer[pe * PSHM_MAX_SEGS + s] = all[pe];
    }
    free(all);
    free(oks);
    if (rc && g.mr[s]) {
        fi_close(&g.mr[s]->fid);
        g.mr[s] = NULL;
    }
    return rc;
}

static void ofi_seg_deregister(int s)
{
    if (g.mr[s]) {
        fi_close(&g.mr[s]->fid);
        g.mr[s] = NULL;
    }
    for (int pe = 0; pe < g.svc->n_pes; pe++)
        g.peer[pe * PSHM_MAX_SEGS + s] = (struct rseg){0, 0};
}

static int register_segments(struct card *mine)
{
    uint64_t mode = g.info->domain_attr->mr_mode;
    for (int s = 0; s < PSHM_NSEGS; s++) {
        void *base = g.svc->seg[s].base;
        size_t size = g.svc->seg[s].size;
        mine->base[s] = (mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)base : 0;
        if (!base || !size)
            continue;
        if (mr_open(s, base, size, &mine->key[s]))
            return -1;
    }
    return 0;
}

static int ofi_init(const pshm_core_services *svc, const pshm_transport_ops **out)
{
    char why[512];
    memset(&g, 0, sizeof g);
    memset(&dflt, 0, sizeof dflt);
    g.svc = svc;
    g.thread_level = svc->thread_level;
    snprintf(g.prov, sizeof g.prov, "?");

    struct fi_info *i = pick(svc, why, sizeof why);
    if (!i) {
        svc->error("ofi transport: %s", why);
        return -1;
    }
    g.info = fi_dupinfo(i);
    if (!g.info) {
        svc->error("ofi transport: out of memory");
        return -1;
    }
    snprintf(g.prov, sizeof g.prov, "%s", g.info->fabric_attr->prov_name);
    g.inject = g.info->tx_attr->inject_size;
    g.max_msg = g.info->ep_attr->max_msg_size ? g.info->ep_attr->max_msg_size : SIZE_MAX;
    if (g.max_msg > ((size_t)1 << 30))
        g.max_msg = (size_t)1 << 30;
    g.rxd = strstr(g.prov, "ofi_rxd") != NULL;
    if (g.rxd && g.inject >= sizeof(uint64_t) && g.max_msg > g.inject)
        g.max_msg = g.inject; /* see rxd_prime() */
    g.manual = g.info->domain_attr->data_progress == FI_PROGRESS_MANUAL ||
               g.info->domain_attr->control_progress == FI_PROGRESS_MANUAL;

    int coherent = 0, want_thread;
    if (choose_completion() || (coherent = amo_cpu_coherent()) < 0 ||
        tri("SHMEM_PROGRESS_THREAD", &want_thread))
        goto fail;
    g.pt.interval_us = DEFAULT_INTERVAL_US;
    const char *iv = env(svc, "SHMEM_PROGRESS_INTERVAL");
    if (iv) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(iv, &end, 10);
        if (errno || *end || *iv == '-' || v < 1 || v > 10000000ul) {
            svc->error("SHMEM_PROGRESS_INTERVAL='%s' is not an interval; use microseconds from 1 "
                       "to 10000000",
                       iv);
            goto fail;
        }
        g.pt.interval_us = (unsigned)v;
    }
    /* The endpoint's default completion level for fi_write/fi_read. */
    g.info->tx_attr->op_flags = g.put_flags;
    g.inject_fast = g.put_flags ? 0 : g.inject;

    int rc;
    const char *what;
    if ((rc = fi_fabric(g.info->fabric_attr, &g.fabric, NULL))) {
        what = "fi_fabric";
        goto fail_rc;
    }
    if ((rc = fi_domain(g.fabric, g.info, &g.domain, NULL))) {
        what = "fi_domain";
        goto fail_rc;
    }
    struct fi_av_attr ava = {.type = FI_AV_TABLE, .count = (size_t)svc->n_pes};
    if ((rc = fi_av_open(g.domain, &ava, &g.av, NULL))) {
        what = "fi_av_open";
        goto fail_rc;
    }
    if (ctx_open(&dflt, why, sizeof why)) {
        svc->error("ofi transport (provider %s): cannot open an endpoint: %s", g.prov, why);
        goto fail;
    }
    if (check_atomics())
        goto fail;

    struct card mine;
    memset(&mine, 0, sizeof mine);
    if (register_segments(&mine))
        goto fail;
    size_t alen = sizeof mine.addr;
    if ((rc = fi_getname(&dflt.ep->fid, mine.addr, &alen))) {
        what = "fi_getname";
        goto fail_rc;
    }
    mine.addrlen = alen;
    struct card *cards = calloc((size_t)svc->n_pes, sizeof *cards);
    g.peer = calloc((size_t)svc->n_pes * PSHM_MAX_SEGS, sizeof *g.peer);
    if (!cards || !g.peer) {
        free(cards);
        svc->error("ofi transport: out of memory for %d PEs", svc->n_pes);
        goto fail;
    }
    if (svc->allgather(&mine, cards, sizeof mine)) {
        free(cards);
        svc->error("ofi transport: bootstrap exchange of addresses failed");
        goto fail;
    }
    for (int pe = 0; pe < svc->n_pes; pe++) {
        for (int s = 0; s < PSHM_NSEGS; s++) {
            g.peer[pe * PSHM_MAX_SEGS + s].addr = cards[pe].base[s];
            g.peer[pe * PSHM_MAX_SEGS + s].key = cards[pe].key[s];
        }
        fi_addr_t fa = FI_ADDR_NOTAVAIL;
        rc = fi_av_insert(g.av, cards[pe].addr, 1, &fa, 0, NULL);
        if (rc != 1 || fa != (fi_addr_t)pe) {
            free(cards);
            svc->error("ofi transport (provider %s): cannot insert PE %d's address (rc %d, fi_addr "
                       "%" PRIu64 ")",
                       g.prov, pe, rc, (uint64_t)fa);
            goto fail;
        }
    }
    free(cards);
    if (g.rxd)
        rxd_prime(&dflt);

    dflt.locked = g.thread_level == THREAD_MULTIPLE;
    int thread = want_thread >= 0 ? want_thread : g.manual;
    if (thread && start_thread()) {
        svc->error("ofi transport: cannot start the progress thread");
        goto fail;
    }

    memset(&ops, 0, sizeof ops);
    ops.hdr = (pshm_abi_header)PSHM_ABI_HEADER(pshm_transport_ops);
    ops.caps = (coherent ? PSHM_CAP_AMO_CPU_COHERENT : 0) |
               /* shared contexts take their lock at this level */
               (g.thread_level == THREAD_MULTIPLE ? PSHM_CAP_THREAD_SAFE : 0);
    ops.ctx_create = ofi_ctx_create;
    ops.ctx_destroy = ofi_ctx_destroy;
    ops.put = ofi_put;
    ops.get = ofi_get;
    ops.put_nbi = ofi_put_nbi;
    ops.get_nbi = ofi_get_nbi;
    ops.amo = ofi_amo;
    ops.fence = ofi_fence;
    ops.quiet = ofi_quiet;
    ops.progress = g.manual ? ofi_progress : NULL;
    ops.seg_register = ofi_seg_register;
    ops.seg_deregister = ofi_seg_deregister;
    ops.put_nbe = ofi_put_nbe;
    ops.get_nbe = ofi_get_nbe;
    ops.amo_nbe = ofi_amo_nbe;
    ops.req_test = ofi_req_test;
    /* put_signal stays NULL: ordering the signal after the data without
     * waiting needs FI_FENCE or write-after-write ordering, and none of the
     * providers used here (shm, tcp;ofi_rxm, udp;ofi_rxd) offers FI_FENCE,
     * while asking shm for RMA ordering turns off its CMA writes.  Done
     * here it would be put, quiet, atomic: what the core does already. */
    if (env(svc, "SHMEM_OFI_VERBOSE") && svc->my_pe == 0)
        fprintf(stderr,
                "ofi transport: provider %s, domain %s, mr_mode %s, inject %zu, progress %s%s, "
                "delivery-complete puts %s atomics %s%s, CPU-coherent atomics %s\n",
                g.prov, g.info->domain_attr->name,
                fi_tostr(&g.info->domain_attr->mr_mode, FI_TYPE_MR_MODE), g.inject,
                g.manual ? "manual" : "auto", g.pt.on ? " + thread" : "",
                g.put_flags ? "yes" : "no", g.amo_flags ? "yes" : "no",
                g.amo_flush ? " (flushed at quiet)" : "", coherent ? "yes" : "no");
    *out = &ops;
    return 0;

fail_rc:
    svc->error("ofi transport (provider %s): %s failed: %s", g.prov, what, fi_strerror(-rc));
fail:
    teardown();
    return -1;
}

static void ofi_fini(void)
{
    if (!g.svc)
        return;
    /* Complete what this PE issued, then keep serving peers until every PE
     * got here: a peer may still wait for this PE to progress its last
     * operations (target-driven providers), and closing first would strand
     * it. */
    ofi_quiet(NULL);
    if (!g.pt.on && g.manual)
        start_thread();
    g.svc->barrier();
    teardown();
    answer_drop();
    g.svc = NULL;
}

/* Listed by shmem_info and the README; the core checks their form before
 * init, the ranges are checked here. */
static const pshm_setting settings[] = {
    {"SHMEM_OFI_PROVIDER", PSHM_SETTING_STRING, "(FI_PROVIDER, else libfabric's first)", NULL,
     "ofi transport: libfabric provider, e.g. shm, tcp;ofi_rxm, udp;ofi_rxd"},
    {"SHMEM_OFI_DOMAIN", PSHM_SETTING_STRING, "(provider's first)", NULL,
     "ofi transport: libfabric domain (NIC), e.g. eth0; one that no provider offers is an error"},
    {"SHMEM_PROGRESS_THREAD", PSHM_SETTING_AUTO_BOOL, "auto", NULL,
     "ofi transport: progress thread serving peers while the program computes (auto: on for "
     "providers with manual progress; 1 or 0)"},
    {"SHMEM_PROGRESS_INTERVAL", PSHM_SETTING_UINT, "100", NULL,
     "ofi transport: microseconds between progress-thread polls"},
    {"SHMEM_OFI_DELIVERY_COMPLETE", PSHM_SETTING_AUTO_BOOL, "auto", NULL,
     "ofi transport: FI_DELIVERY_COMPLETE on puts and atomics (auto: where the provider needs it; "
     "0 is unsafe, for measurements)"},
    {"SHMEM_OFI_AMO_CPU_COHERENT", PSHM_SETTING_AUTO_BOOL, "auto", NULL,
     "ofi transport: whether the provider's atomics mix with CPU atomics on-node (auto: per "
     "provider)"},
    {"SHMEM_OFI_VERBOSE", PSHM_SETTING_STRING, "(unset)", NULL,
     "ofi transport: when set, PE 0 prints the provider and modes chosen"},
    {NULL, 0, NULL, NULL, NULL},
};

PSHM_TRANSPORT_EXPORT const pshm_transport_desc plugshmem_transport = {
    .hdr = PSHM_ABI_HEADER(pshm_transport_desc),
    .name = "ofi",
    .description = "libfabric RDM endpoints (FI_PROVIDER / SHMEM_OFI_PROVIDER picks the provider)",
    .query = ofi_query,
    .init = ofi_init,
    .fini = ofi_fini,
    .max_priority = ofi_max_priority,
    .settings = settings,
    .nbe_completion = "a snapshot of the context's completion counter: everything issued on the "
                      "request's context up to the test (on a private context, the thread's own "
                      "operations)",
};
