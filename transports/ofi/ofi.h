#ifndef PSHM_OFI_H
#define PSHM_OFI_H

/*
 * The ofi transport: RMA and atomics over libfabric RDM endpoints.
 * Files by concern (the same roles as ../ucx and ../mpi):
 *   ofi_plugin.c    descriptor, query, selection priority, init/fini, settings
 *   ofi_info.c      provider and domain: hints, fi_getinfo's answer, the pick
 *   ofi_ep.c        one endpoint per shmem context, with counter and error CQ
 *   ofi_mem.c       memory regions of the segments, exchange of keys
 *   ofi_rma.c       put/get
 *   ofi_amo.c       atomics
 *   ofi_progress.c  waiting, quiet/fence, progress, the progress thread
 *   ofi_nbe.c       explicit requests (shmemx_*_nbe)
 *   ofi_space.c     memory spaces (seg_register)
 *   ofi_msg.c       tagged messages (msg_send, msg_recv)
 *
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

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>

#include "cpu_relax.h"
#include "../common/backoff.h"
#include "../common/lock.h"
#include "transport.h"
#include "../common/progress_thread.h"
#include "../common/settings_kit.h"

#define OFI_API FI_VERSION(1, 17)

/* Values of shmem.h; a plugin sees transport.h only. */
#define CTX_SERIALIZED (1L << 0)
#define CTX_PRIVATE (1L << 1)
#define THREAD_MULTIPLE 3

#define ADDR_MAX 256

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

struct ofi_globals {
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
    int wakeup;         /* SHMEM_OFI_WAKEUP, with manual progress: waits may block */
    int wait_fd;        /* the default CQ's wait descriptor, with wakeup */
    int rxd;            /* an ofi_rxd stack: see rxd_prime() */
    int thread_level;
    struct pshm_progress_thread pt;
    char prov[64];
};

extern struct ofi_globals g;
extern struct octx dflt; /* the default context; its endpoint is the target endpoint */

#define CTX(t) ((t) ? (struct octx *)(t) : &dflt)
#define ENTER PSHM_ENTER
#define LEAVE PSHM_LEAVE

/* ofi_progress.c */
__attribute__((noreturn, cold)) void ofi_fail(const char *what, ssize_t rc);
__attribute__((noreturn, cold)) void ofi_op_error(struct octx *c);
void ofi_progress_target(void);
void ofi_progress(void);
int ofi_block(unsigned max_us);
void ofi_wait_all(struct octx *c);
void ofi_quiet(pshm_tctx t);
void ofi_fence(pshm_tctx t);
int ofi_thread_start(void);
void ofi_thread_stop(void);

/* ofi_rma.c */
void ofi_write_msg(struct octx *c, int pe, uint64_t raddr, uint64_t key, const void *src,
                   size_t len, uint64_t flags);
void ofi_put(pshm_tctx t, int pe, int seg, size_t off, const void *src, size_t len);
void ofi_p(pshm_tctx t, int pe, int seg, size_t off, uint64_t value, size_t len);
void ofi_put_nbi(pshm_tctx t, int pe, int seg, size_t off, const void *src, size_t len);
void ofi_get(pshm_tctx t, int pe, int seg, size_t off, void *dst, size_t len);
void ofi_get_nbi(pshm_tctx t, int pe, int seg, size_t off, void *dst, size_t len);

/* ofi_amo.c */
extern const enum fi_op amo_fiop[PSHM_AMO_NOPS];
void ofi_amo(pshm_tctx t, int pe, int seg, size_t off, int op, int type, const void *operand,
             const void *compare, void *fetch, int nbi);

/* ofi_nbe.c */
void ofi_put_nbe(pshm_tctx t, int pe, int seg, size_t off, const void *src, size_t len,
                 pshm_treq *req);
void ofi_get_nbe(pshm_tctx t, int pe, int seg, size_t off, void *dst, size_t len,
                 pshm_treq *req);
void ofi_amo_nbe(pshm_tctx t, int pe, int seg, size_t off, int op, int type, const void *operand,
                 const void *compare, void *fetch, pshm_treq *req);
int ofi_req_test(pshm_tctx t, pshm_treq mark);

/* ofi_msg.c */
void ofi_msg_send(int pe, uint64_t tag, const void *buf, size_t len, uint64_t *done);
void ofi_msg_recv(uint64_t tag, void *buf, size_t len, uint64_t *done);
/* Reads the CQ if messages are outstanding; returns whether it did. */
int ofi_msg_poll(void);

/* ofi_ep.c */
int ofi_ctx_open(struct octx *c, char *why, size_t whylen);
void ofi_ctx_close(struct octx *c);
int ofi_ctx_create(long options, pshm_tctx *out);
void ofi_ctx_destroy(pshm_tctx t);
void ofi_rxd_prime(struct octx *c);

/* ofi_info.c */
struct fi_info *ofi_pick(const pshm_core_services *svc, char *why, size_t whylen);
/* How many of the atomic operations OpenSHMEM needs (24: 12 kinds at 32
 * and 64 bits) the domain of provider prov lacks; if any, why says so,
 * naming them ("" otherwise). */
int ofi_atomics_refusal(struct fid_domain *dom, const char *prov, char *why, size_t len);
void ofi_answer_drop(void);
int ofi_max_priority(const pshm_core_services *svc);
int ofi_query(const pshm_core_services *svc, char *why, size_t whylen);

/* ofi_mem.c, ofi_space.c */
int ofi_mr_open(int s, void *base, size_t size, uint64_t *key);
int ofi_register_segments(struct card *mine);
int ofi_seg_register(int s, void *base, size_t size);
void ofi_seg_deregister(int s);

/* Drive an endpoint once and report errors.  Through its counter, not its
 * CQ: on the shm provider, polling the CQ from the progress thread (even
 * serialized by our lock) corrupted atomics in flight (an operand applied at
 * the previous command's address); the counter path did not. */
static inline void poll_ep(struct octx *c)
{
    (void)fi_cntr_read(c->cntr);
    if (UNLIKELY(fi_cntr_readerr(c->cntr)))
        ofi_op_error(c);
}

/* One turn of a wait on c (held by the caller). */
static inline void drive(struct octx *c, unsigned *spins)
{
    poll_ep(c);
    if (c != &dflt)
        ofi_progress_target();
    pshm_backoff(spins);
}

/* Call with retries while the provider's queues are full, running
 * serve(&spins) (which backs off) between tries. */
#define RETRY(what, call, serve)                                                                   \
    do {                                                                                           \
        ssize_t rc_;                                                                               \
        unsigned sp_ = 0;                                                                          \
        while (UNLIKELY((rc_ = (call)) != 0)) {                                                    \
            if (rc_ != -FI_EAGAIN)                                                                 \
                ofi_fail(what, rc_);                                                               \
            serve;                                                                                 \
        }                                                                                          \
    } while (0)

/* Issue an operation counted by c's counter. */
#define ISSUE(c, what, call)                                                                       \
    do {                                                                                           \
        RETRY(what, call, drive(c, &sp_));                                                         \
        (c)->issued++;                                                                             \
    } while (0)

static inline const struct rseg *rseg(int pe, int seg)
{
    return &g.peer[pe * PSHM_MAX_SEGS + seg];
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
            ofi_write_msg(c, pe, raddr, r->key, src, len, FI_INJECT | g.put_flags);
        return 0;
    }
    const char *s = src;
    while (len) {
        size_t n = len < g.max_msg ? len : g.max_msg;
        if (!g.put_flags)
            ISSUE(c, "fi_write", fi_write(c->ep, s, n, NULL, (fi_addr_t)pe, raddr, r->key, NULL));
        else
            ofi_write_msg(c, pe, raddr, r->key, s, n, g.put_flags);
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

#endif
