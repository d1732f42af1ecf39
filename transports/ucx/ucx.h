/*
 * The ucx transport's shared state.  Files by concern:
 *   ucx_plugin.c    descriptor, query, selection priority, init/fini, settings
 *   ucx_worker.c    UCP context, one worker per shmem context, endpoints
 *   ucx_mem.c       segment mapping, rkey packing, exchange and unpacking
 *   ucx_rma.c       put/get
 *   ucx_amo.c       atomics, the fetching-bitwise self-test and its detour
 *   ucx_progress.c  waiting, quiet/fence, progress, the progress thread
 *   ucx_nbe.c       explicit requests (shmemx_*_nbe)
 *   ucx_space.c     memory spaces (seg_register)
 *   ucx_msg.c       tagged messages (msg_send, msg_recv)
 */
#ifndef PSHM_UCX_H
#define PSHM_UCX_H

#include <stddef.h>
#include <stdint.h>

#include <ucp/api/ucp.h>

#include "../common/backoff.h"
#include "../common/lock.h"
#include "../common/progress_thread.h"
#include "../common/settings_kit.h"

#include "transport.h"

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Values of shmem.h; a plugin sees transport.h only. */
#define CTX_SERIALIZED (1L << 0)
#define CTX_PRIVATE (1L << 1)
#define THREAD_MULTIPLE 3


/* One shmem context: a worker and, per PE, an endpoint and the PE's rkeys
 * unpacked for that endpoint (rkeys belong to an endpoint in UCP). */
struct uctx {
    ucp_worker_h w;
    ucp_ep_h *ep;      /* [pe]; NULL until first use (lazy connection) */
    ucp_rkey_h *rkey;  /* [pe * PSHM_NSEGS + seg] */
    /* PEs that got traffic since the last quiet: their endpoints are what
     * quiet flushes (never the whole worker: ucp_worker_flush_nbx hung for
     * good here, 5 PEs over tcp, every peer progressing). */
    unsigned char *is_dirty; /* [pe] */
    int *dirty;              /* the PEs marked, ndirty of them */
    int ndirty;
    int locked;        /* take lock around every call */
    struct pshm_lock lock;
    uint64_t scratch;  /* reply buffer of non-fetching swaps (set) */
    /* Requests that write local memory when done (get_nbi, fetching nbi
     * AMOs): a flush does not wait for their data (measured: a 4 MiB
     * get_nbi over sm was still empty after the flush), quiet does. */
    void **pending;
    unsigned npending, maxpending;
    unsigned nbe_pending; /* operations of explicit requests not yet called back */
    struct uctx *next; /* contexts the program created, to close at fini */
};

/* Which memory a bitwise self-test probes. */
enum probe_kind { PROBE_REGISTERED, PROBE_UCX_ALLOCATED, PROBE_NKINDS };

struct ucx_global {
    const pshm_core_services *svc;
    ucp_context_h ctx;
    struct uctx *ctxs;
    ucp_mem_h seg_mh[PSHM_NSEGS];
    int heap_adopted; /* the heap is UCX's allocation (ucx_heap.c) */
    int shares_memory; /* UCX has a shared-memory transport here */
    int memory_only;   /* ... and no other (no network) */
    ucp_mem_h probe_mh[PROBE_NKINDS];
    /* memory spaces: mapping, and every PE's packed rkey at a stride */
    ucp_mem_h space_mh[PSHM_MAX_SEGS];
    unsigned char *space_keys[PSHM_MAX_SEGS];
    size_t space_stride[PSHM_MAX_SEGS];
    void *probe_buf[PROBE_NKINDS];  /* 64 bytes each, the self-test's targets */
    uint64_t *rbase;                /* [pe * NREGIONS + r]: remote base addresses */
    unsigned char *rkeys;           /* packed rkeys of every PE, fixed stride */
    size_t rkey_stride;             /* bytes per packed rkey slot */
    ucp_address_t *my_addr;         /* the default worker's: the one peers connect to */
    size_t my_addr_len;
    unsigned char *addrs;           /* worker addresses of every PE, fixed stride */
    size_t addr_stride;
    int eager;                      /* connect to every PE at init */
    int thread_level;
    int bitwise_mode;               /* SHMEM_UCX_FETCH_BITWISE: -1 auto, 0 native, 1 cas */
    int fetch_bitwise_cas;          /* route fetching AND/OR/XOR through compare-swap */
    int bug_seen[PROBE_NKINDS];     /* the self-test's findings, for verbose and docs */
    int coherent;
    int verbose;
    /* progress thread */
    struct pshm_progress_thread pt;
    char tls[128]; /* the transports UCX was told to use, for messages */
    int peer_errors; /* endpoints report a peer's death (ucx_connect) */
    int wakeup;      /* SHMEM_UCX_WAKEUP: waits may block on the default worker */
    int efd;         /* the default worker's event descriptor, with wakeup */
};

/* Regions with rkeys, as the ops index them: the segments (the built-in
 * ones, then memory spaces, registered later: ucx_space.c), then the
 * probes.  A segment's region is its index, so that every op finds its
 * rkey alike; init exchanges only the built-in segments' and the probes'
 * (ucx_mem.c, NEXCH). */
#define NREGIONS (PSHM_MAX_SEGS + PROBE_NKINDS)
#define REGION_PROBE(k) (PSHM_MAX_SEGS + (k))

extern struct ucx_global g;
extern struct uctx dflt;

/* ucx_plugin.c */
__attribute__((noreturn, cold)) void ucx_fail(const char *what, int pe, ucs_status_t st);
/* Whether transport (or UCT component) tl is served by a CPU: self, tcp
 * and the shared-memory ones, no device with remote access. */
int ucx_cpu_served_tl(const char *tl);

/* ucx_eager.c */
/* UCX_RNDV_THRESH set for the collectives' messages over tls (unless the
 * user set it): UCX_MSG_EAGER_MAX, or NULL where UCX chooses; *why (if
 * why is not NULL) says which rule decided. */
#define UCX_MSG_EAGER_MAX "1m"
const char *ucx_msg_eager(const char *tls, const char **why);

/* ucx_worker.c */
int ucx_context_open(const pshm_core_services *svc, ucp_context_h *out, char *tls_out,
                     size_t tlslen, int wakeup, char *why, size_t whylen);
int ucx_worker_open(struct uctx *c, ucs_thread_mode_t mode, char *why, size_t whylen);
void ucx_worker_close(struct uctx *c);
int ucx_connect_all(struct uctx *c);
__attribute__((noinline)) ucp_ep_h ucx_connect(struct uctx *c, int pe);
int ucx_ctx_create(long options, pshm_tctx *out);
void ucx_ctx_destroy(pshm_tctx t);
void ucx_close_endpoints(struct uctx *c);

/* ucx_mem.c */
int ucx_map_regions(void);
int ucx_exchange_cards(void);
ucs_status_t ucx_unpack_rkeys(struct uctx *c, int pe);
void ucx_unmap_regions(void);
/* ucx_heap.c: the heap moved into memory UCX allocates, where no peer maps
 * it (SHMEM_UCX_HEAP).  adopt: 0 moved, 1 not (the core's heap stays, to be
 * registered), -1 error. */
int ucx_heap_wanted(void);
int ucx_heap_adopt(char *base, size_t len, ucp_mem_h *mh);
void ucx_heap_return(char *base, size_t len, ucp_mem_h mh);

/* ucx_rma.c */
void ucx_put(pshm_tctx, int pe, int seg, size_t off, const void *src, size_t len);
void ucx_p(pshm_tctx, int pe, int seg, size_t off, uint64_t value, size_t len);
void ucx_put_nbi(pshm_tctx, int pe, int seg, size_t off, const void *src, size_t len);
void ucx_get(pshm_tctx, int pe, int seg, size_t off, void *dst, size_t len);
void ucx_get_nbi(pshm_tctx, int pe, int seg, size_t off, void *dst, size_t len);

/* ucx_amo.c */
void ucx_amo(pshm_tctx, int pe, int seg, size_t off, int op, int type, const void *operand,
             const void *compare, void *fetch, int nbi);
int ucx_bitwise_selftest(void);
void ucx_probe_fill(void);

/* ucx_space.c */
int ucx_seg_register(int seg, void *base, size_t size);
void ucx_seg_deregister(int seg);

/* ucx_msg.c */
void ucx_msg_send(int pe, uint64_t tag, const void *buf, size_t len, uint64_t *done);
void ucx_msg_recv(uint64_t tag, void *buf, size_t len, uint64_t *done);

/* ucx_nbe.c */
void ucx_put_nbe(pshm_tctx, int pe, int seg, size_t off, const void *src, size_t len,
                 pshm_treq *req);
void ucx_get_nbe(pshm_tctx, int pe, int seg, size_t off, void *dst, size_t len, pshm_treq *req);
void ucx_amo_nbe(pshm_tctx, int pe, int seg, size_t off, int op, int type, const void *operand,
                 const void *compare, void *fetch, pshm_treq *req);
int ucx_req_test(pshm_tctx, pshm_treq req);
void ucx_nbe_drain(struct uctx *c);

/* ucx_progress.c */
void ucx_keep(struct uctx *c, void *req, const char *what, int pe);
void ucx_wait(struct uctx *c, void *req, const char *what, int pe);
void ucx_quiet(pshm_tctx t);
void ucx_fence(pshm_tctx t);
void ucx_progress(void);
int ucx_block(unsigned max_us);
void ucx_progress_target(void);
int ucx_thread_start(void);
void ucx_thread_stop(void);
#define CTX(t) ((t) ? (struct uctx *)(t) : &dflt)
#define ENTER PSHM_ENTER
#define LEAVE PSHM_LEAVE

/* The endpoint to pe, connecting on first use. */
static inline ucp_ep_h ucx_ep(struct uctx *c, int pe)
{
    ucp_ep_h e = c->ep[pe];
    return LIKELY(e != NULL) ? e : ucx_connect(c, pe);
}

/* Remember that pe got traffic a quiet must flush. */
static inline void ucx_mark(struct uctx *c, int pe)
{
    if (UNLIKELY(!c->is_dirty[pe])) {
        c->is_dirty[pe] = 1;
        c->dirty[c->ndirty++] = pe;
    }
}

/* A request UCP returned for an operation nobody waits for: completion is
 * the next flush's business. */
static inline void ucx_release(void *req, const char *what, int pe)
{
    if (LIKELY(req == NULL))
        return;
    if (UNLIKELY(UCS_PTR_IS_ERR(req)))
        ucx_fail(what, pe, UCS_PTR_STATUS(req));
    ucp_request_free(req);
}

#endif
