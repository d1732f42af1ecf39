/* Endpoints: one per shmem context, with its counter and error CQ. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ofi.h"

void ofi_ctx_close(struct octx *c)
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
int ofi_ctx_open(struct octx *c, char *why, size_t whylen)
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
    /* The target endpoint's CQ is where traffic for this PE shows: a
     * descriptor there lets a wait sleep (ofi_block).  Each completion
     * then signals it, which costs every operation: asked for. */
    if (c == &dflt && g.wakeup)
        cqa.wait_obj = FI_WAIT_FD;
    if ((rc = fi_cq_open(g.domain, &cqa, &c->cq, NULL))) {
        c->cq = NULL;
        what = cqa.wait_obj == FI_WAIT_FD ? "fi_cq_open with a wait descriptor (SHMEM_OFI_WAKEUP=1)"
                                          : "fi_cq_open";
        goto out;
    }
    if (cqa.wait_obj == FI_WAIT_FD && (rc = fi_control(&c->cq->fid, FI_GETWAIT, &g.wait_fd))) {
        what = "fi_control(FI_GETWAIT) (SHMEM_OFI_WAKEUP=1)";
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
        ofi_ctx_close(c);
        return -1;
    }
    return 0;
}

int ofi_ctx_create(long options, pshm_tctx *out)
{
    char why[256];
    struct octx *c = aligned_alloc(64, (sizeof *c + 63) & ~(size_t)63);
    if (!c)
        return -1;
    if (ofi_ctx_open(c, why, sizeof why)) {
        g.svc->error("ofi transport (provider %s): cannot create a context: %s", g.prov, why);
        free(c);
        return -1;
    }
    c->locked = g.thread_level == THREAD_MULTIPLE && !(options & (CTX_PRIVATE | CTX_SERIALIZED));
    if (g.rxd)
        ofi_rxd_prime(c);
    *out = c;
    return 0;
}

void ofi_ctx_destroy(pshm_tctx t)
{
    struct octx *c = t;
    if (!c)
        return;
    ofi_quiet(c);
    ofi_ctx_close(c);
    free(c);
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
void ofi_rxd_prime(struct octx *c)
{
    const struct rseg *r = rseg(g.svc->my_pe, PSHM_SEG_HEAP);
    size_t n = 0;
    for (;;) {
        ssize_t rc = fi_read(c->ep, &c->scratch, sizeof c->scratch, NULL,
                             (fi_addr_t)g.svc->my_pe, r->addr, r->key, NULL);
        if (rc == -FI_EAGAIN)
            break;
        if (rc)
            ofi_fail("fi_read", rc);
        c->issued++;
        if (++n >= 65536) /* the pool's limit: cannot be reached */
            break;
    }
    ofi_wait_all(c);
    if (g.svc->get_string("SHMEM_OFI_VERBOSE") && g.svc->my_pe == 0)
        fprintf(stderr, "ofi transport: primed %zu tx entries of an rxd endpoint\n", n);
}
