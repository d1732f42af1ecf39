/* Waiting, quiet and fence, progress, and the progress thread.
 *
 * UCX serves RMA and atomics on memory it did not allocate by software
 * emulation at the target: nothing completes unless the target calls
 * ucp_worker_progress on the worker the initiator's endpoint reaches (its
 * default worker).  So every wait here also progresses the default
 * worker, and a progress thread serves programs that compute without
 * calling the library. */
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <time.h>

#include "cpu_relax.h"
#include "../common/sleep_fd.h"
#include "ucx.h"

/* Serve incoming traffic once.  If another thread holds the default
 * context it is inside UCX already: skip. */
void ucx_progress_target(void)
{
    if (dflt.locked) {
        if (!pshm_lock_try(&dflt.lock))
            return;
        ucp_worker_progress(dflt.w);
        pshm_unlock(&dflt.lock);
    } else {
        ucp_worker_progress(dflt.w);
    }
}

void ucx_progress(void)
{
    pshm_progress_poke(&g.pt);
    ucx_progress_target();
}

/* ABI 2.6 block: UCX's wake-up protocol on the default worker, which all
 * traffic for this PE reaches (progress until it finds nothing, arm, then
 * sleep on the event descriptor).  An event UCX does not signal (a send
 * it queued and pushes out only on progress, or traffic another thread
 * served first) ends the sleep by max_us: the core's bound. */
int ucx_block(unsigned max_us)
{
    if (dflt.locked && !pshm_lock_try(&dflt.lock)) {
        sched_yield(); /* the progress thread or another thread is in UCX */
        return 1;
    }
    ucs_status_t st = UCS_ERR_BUSY;
    if (!ucp_worker_progress(dflt.w))
        st = ucp_worker_arm(dflt.w);
    if (dflt.locked)
        pshm_unlock(&dflt.lock);
    if (st != UCS_OK)
        return 1; /* served something, or events wait to be: look again */
    return pshm_sleep_on_fd(g.efd, max_us);
}

/* Wait for a request of c (c held by the caller). */
void ucx_wait(struct uctx *c, void *req, const char *what, int pe)
{
    if (UNLIKELY(UCS_PTR_IS_ERR(req)))
        ucx_fail(what, pe, UCS_PTR_STATUS(req));
    unsigned spins = 0;
    ucs_status_t st;
    pshm_progress_poke(&g.pt);
    while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS) {
        /* A progress call that did something may have more to do. */
        if (ucp_worker_progress(c->w))
            continue;
        if (c != &dflt)
            ucx_progress_target();
        pshm_backoff(&spins);
    }
    ucp_request_free(req);
    if (UNLIKELY(st != UCS_OK))
        ucx_fail(what, pe, st);
}

__attribute__((noinline)) void ucx_keep(struct uctx *c, void *req, const char *what, int pe)
{
    if (UNLIKELY(UCS_PTR_IS_ERR(req)))
        ucx_fail(what, pe, UCS_PTR_STATUS(req));
    if (c->npending == c->maxpending) {
        unsigned n = c->maxpending ? 2 * c->maxpending : 64;
        void **p = realloc(c->pending, n * sizeof *p);
        if (!p) { /* no room to keep it: complete it now */
            ucx_wait(c, req, what, pe);
            return;
        }
        c->pending = p;
        c->maxpending = n;
    }
    c->pending[c->npending++] = req;
}

/* Every endpoint that got traffic, flushed at once, then waited for. */
__attribute__((noinline)) static void flush(struct uctx *c)
{
    static const ucp_request_param_t no_param = {.op_attr_mask = 0};
    for (unsigned i = 0; i < c->npending; i++)
        ucx_wait(c, c->pending[i], "a non-blocking get or fetching atomic", -1);
    c->npending = 0;
    int n = c->ndirty;
    if (n == 1) { /* the common case, without the list below */
        int pe = c->dirty[0];
        c->is_dirty[pe] = 0;
        c->ndirty = 0;
        /* On one node with the heap in UCX's memory, by the worker: UCX's
         * endpoint flush walks every lane (284 instructions after an 8-byte
         * put over sm, 119 for the worker's: bench/ucx/icount_ucx.sh).  Not
         * with a network among the resources: there a worker flush waited
         * without end in UCX 1.13 (the tcp suites, even at 1 PE). */
        void *req = g.heap_adopted && g.memory_only ? ucp_worker_flush_nbx(c->w, &no_param)
                                                     : ucp_ep_flush_nbx(c->ep[pe], &no_param);
        if (req)
            ucx_wait(c, req, "ucp_ep_flush_nbx", pe);
        return;
    }
    /* All flushes in flight at once: one wait covers every peer's answer. */
    void *stack[64];
    void **reqs = n <= 64 ? stack : malloc((size_t)n * sizeof *reqs);
    for (int i = 0; i < n; i++) {
        int pe = c->dirty[i];
        c->is_dirty[pe] = 0;
        void *req = ucp_ep_flush_nbx(c->ep[pe], &no_param);
        if (reqs)
            reqs[i] = req;
        else if (req) /* no memory for the list: one at a time */
            ucx_wait(c, req, "ucp_ep_flush_nbx", pe);
    }
    c->ndirty = 0;
    if (!reqs)
        return;
    for (int i = 0; i < n; i++)
        if (reqs[i])
            ucx_wait(c, reqs[i], "ucp_ep_flush_nbx", -1);
    if (reqs != stack)
        free(reqs);
}

void ucx_quiet(pshm_tctx t)
{
    struct uctx *c = CTX(t);
    ENTER(c);
    if (c->ndirty)
        flush(c);
    if (UNLIKELY(c->nbe_pending))
        ucx_nbe_drain(c);
    LEAVE(c);
}

/* With the heap in UCX's memory (ucx_heap.c), shared-memory transports
 * store to it directly while the data segment's operations go the
 * emulated way, and ucp_worker_fence does not order the one after the
 * other (a put to a global, fence, signal on the heap: the signal was seen
 * before the data, measured with UCX 1.13.1): such a fence completes
 * everything outstanding instead. */
void ucx_fence(pshm_tctx t)
{
    struct uctx *c = CTX(t);
    ENTER(c);
    if (c->ndirty && g.heap_adopted) {
        flush(c);
    } else if (c->ndirty) {
        ucs_status_t st = ucp_worker_fence(c->w);
        if (st != UCS_OK)
            ucx_fail("ucp_worker_fence", -1, st);
    }
    LEAVE(c);
}

/* ---- the progress thread ------------------------------------------- */

/* Its back-off is the shared one (../common/progress_thread.h); its
 * round is a burst. */

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* Serve while requests keep coming: a peer's next request usually follows
 * its last answer within microseconds, and waiting for the next wake-up
 * instead would cost it a whole interval per operation.  The lock is let
 * go between polls so that the program never waits long for its context. */
static void serve_burst(void)
{
    double idle_since = now_us();
    while (!__atomic_load_n(&g.pt.poked, __ATOMIC_RELAXED) &&
           !__atomic_load_n(&g.pt.stop, __ATOMIC_ACQUIRE)) {
        pshm_lock(&dflt.lock);
        unsigned did = ucp_worker_progress(dflt.w);
        pshm_unlock(&dflt.lock);
        double t = now_us();
        if (did)
            idle_since = t;
        else if (t - idle_since > (double)g.pt.interval_us / 4)
            return;
        else
            pshm_cpu_relax();
    }
}

int ucx_thread_start(void)
{
    if (g.pt.on)
        return 0;
    dflt.locked = 1;
    g.pt.serve = serve_burst;
    return pshm_progress_start(&g.pt);
}

void ucx_thread_stop(void) { pshm_progress_stop(&g.pt); }
