/* Errors of operations, waiting, quiet and fence, progress of the target
 * endpoint, and the progress thread. */
#include <stdio.h>
#include <string.h>

#include "../common/sleep_fd.h"
#include "ofi.h"

__attribute__((noreturn, cold)) void ofi_fail(const char *what, ssize_t rc)
{
    g.svc->fatal("ofi transport (provider %s): %s failed: %s", g.prov, what,
                 fi_strerror((int)-rc));
}

/* An operation completed in error: say what libfabric says and stop. */
__attribute__((noreturn, cold)) void ofi_op_error(struct octx *c)
{
    struct fi_cq_err_entry e;
    memset(&e, 0, sizeof e);
    char buf[300] = "";
    if (fi_cq_readerr(c->cq, &e, 0) == 1)
        snprintf(buf, sizeof buf, ": %s (%s)", fi_strerror(e.err),
                 fi_cq_strerror(c->cq, e.prov_errno, e.err_data, NULL, 0));
    g.svc->fatal("ofi transport (provider %s): a remote memory operation or message failed%s",
                 g.prov, buf);
}

/* Serve incoming traffic on the target endpoint once.  If another thread
 * holds the default context, it is inside libfabric already: skip. */
void ofi_progress_target(void)
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

/* While messages are outstanding, reading the CQ is the progress: a
 * counter read too would double the trips through the sockets per poll
 * (2 PEs over tcp;ofi_rxm, an 8-byte reduction: 27 -> 17 us). */
void ofi_progress(void)
{
    pshm_progress_poke(&g.pt);
    if (!ofi_msg_poll())
        ofi_progress_target();
}

/* ABI 2.6 block: libfabric's wait protocol on the target endpoint's CQ
 * (fi_trywait says whether anything is left to serve; if not, sleep on its
 * descriptor).  What the provider does not signal ends the sleep by
 * max_us: the core's bound. */
int ofi_block(unsigned max_us)
{
    if (dflt.locked && !pshm_lock_try(&dflt.lock)) {
        sched_yield(); /* the progress thread or another thread is in libfabric */
        return 1;
    }
    struct fid *f = &dflt.cq->fid;
    int rc = fi_trywait(g.fabric, &f, 1);
    if (dflt.locked)
        pshm_unlock(&dflt.lock);
    if (rc)
        return 1; /* something to serve first: the core's progress does */
    return pshm_sleep_on_fd(g.wait_fd, max_us);
}

/* Wait until everything c issued has completed.  One counter read per
 * turn: on tcp every read is a trip through the sockets, and a second one
 * per turn delayed seeing the completion by about a microsecond. */
void ofi_wait_all(struct octx *c)
{
    unsigned spins = 0;
    pshm_progress_poke(&g.pt);
    while (fi_cntr_read(c->cntr) < c->issued) {
        /* A failed operation bumps the error count instead: look now and
         * then, so that the loop cannot spin forever on a failure. */
        if (UNLIKELY((spins & 63) == 0) && UNLIKELY(fi_cntr_readerr(c->cntr)))
            ofi_op_error(c);
        if (c != &dflt)
            ofi_progress_target();
        pshm_backoff(&spins);
    }
}

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
    ofi_wait_all(c);
}

/* Nothing issued since the counter was seen to reach the issued count
 * (c->done): nothing to wait for, and no counter read, which over
 * tcp;ofi_rxm is a trip through every socket.  A barrier begins with a
 * quiet, on every PE: 4 PEs on 2 emulated nodes of one core each, where
 * barrier took 26 us against 15 for sync_all (docs/benchmarks.md). */
void ofi_quiet(pshm_tctx t)
{
    struct octx *c = CTX(t);
    ENTER(c);
    if (UNLIKELY(c->ndirty)) {
        flush(c);
    } else if (c->done != c->issued) {
        if (fi_cntr_read(c->cntr) < c->issued)
            ofi_wait_all(c);
        else if (c == &dflt) /* that read served the target endpoint: the thread may rest */
            pshm_progress_poke(&g.pt);
    }
    c->done = c->issued;
    LEAVE(c);
}

/* libfabric orders nothing we can rely on across RMA and atomics on every
 * provider, so a fence completes what is outstanding. */
void ofi_fence(pshm_tctx t) { ofi_quiet(t); }

/* ---- the progress thread ------------------------------------------- */

/* The thread's round: poll the default endpoint under its lock. */
static void serve_default(void)
{
    pshm_lock(&dflt.lock);
    poll_ep(&dflt);
    pshm_unlock(&dflt.lock);
}

int ofi_thread_start(void)
{
    dflt.locked = 1;
    g.pt.serve = serve_default;
    return pshm_progress_start(&g.pt);
}

void ofi_thread_stop(void) { pshm_progress_stop(&g.pt); }
