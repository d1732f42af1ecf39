/* UCP context, workers (one per shmem context) and endpoints. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ucx.h"

/* Also called by query(), maybe while a job runs: touches no global. */
int ucx_context_open(const pshm_core_services *svc, ucp_context_h *out, char *tls_out,
                     size_t tlslen, int wakeup, char *why, size_t whylen)
{
    if (pshm_kit_ready(svc, why, whylen))
        return -1;
    ucp_config_t *cfg;
    ucs_status_t st = ucp_config_read(NULL, NULL, &cfg);
    if (st != UCS_OK) {
        snprintf(why, whylen, "ucp_config_read: %s", ucs_status_string(st));
        return -1;
    }
    /* SHMEM_UCX_TLS beats UCX_TLS, which UCX reads by itself. */
    const char *tls = svc->get_string("SHMEM_UCX_TLS");
    if (tls && (st = ucp_config_modify(cfg, "TLS", tls)) != UCS_OK) {
        snprintf(why, whylen, "SHMEM_UCX_TLS='%s' is not accepted by UCX: %s", tls,
                 ucs_status_string(st));
        ucp_config_release(cfg);
        return -1;
    }
    const char *u = getenv("UCX_TLS");
    snprintf(tls_out, tlslen, "%s", tls ? tls : u && *u ? u : "all");
    /* The collectives' messages: over tcp a rendezvous has no remote
     * access to gain, it only adds a round trip before the data (and over
     * this machine's shared memory too).  2 processes exchanging 32 KiB
     * over tcp took 31-38 us by rendezvous, 16-21 eager; 256 KiB 121
     * against 104; 1 MiB alike; over sm 32 KiB 10.0 against 6.4
     * (bench/ucx/raw_ucx_coll, docs/ucx.md).  UCX_RNDV_THRESH wins. */
    const char *eager = ucx_msg_eager(tls_out, NULL);
    if (eager && (st = ucp_config_modify(cfg, "RNDV_THRESH", eager)) != UCS_OK) {
        snprintf(why, whylen, "UCX does not accept RNDV_THRESH=%s: %s", eager,
                 ucs_status_string(st));
        ucp_config_release(cfg);
        return -1;
    }
    ucp_params_t p = {
        .field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED |
                      UCP_PARAM_FIELD_ESTIMATED_NUM_EPS | UCP_PARAM_FIELD_NAME,
        .features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_TAG |
                    /* Costs every operation over tcp (docs/ucx.md): asked for. */
                    (wakeup ? UCP_FEATURE_WAKEUP : 0),
        /* The progress thread drives the default worker while the program
         * uses another context's worker, so workers run concurrently. */
        .mt_workers_shared = 1,
        .estimated_num_eps = (size_t)svc->n_pes,
        .name = "plugshmem",
    };
    st = ucp_init(&p, cfg, out);
    ucp_config_release(cfg);
    if (st != UCS_OK) {
        *out = NULL;
        snprintf(why, whylen, "ucp_init with UCX_TLS=%s: %s", tls_out, ucs_status_string(st));
        return -1;
    }
    return 0;
}

int ucx_worker_open(struct uctx *c, ucs_thread_mode_t mode, char *why, size_t whylen)
{
    int n = g.svc->n_pes;
    memset(c, 0, sizeof *c);
    c->ep = calloc((size_t)n, sizeof *c->ep);
    c->rkey = calloc((size_t)n * NREGIONS, sizeof *c->rkey);
    c->is_dirty = calloc((size_t)n, 1);
    c->dirty = calloc((size_t)n, sizeof *c->dirty);
    if (!c->ep || !c->rkey || !c->is_dirty || !c->dirty) {
        snprintf(why, whylen, "out of memory for %d PEs", n);
        goto fail;
    }
    ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                              .thread_mode = mode};
    ucs_status_t st = ucp_worker_create(g.ctx, &wp, &c->w);
    if (st != UCS_OK) {
        c->w = NULL;
        snprintf(why, whylen, "ucp_worker_create: %s", ucs_status_string(st));
        goto fail;
    }
    return 0;
fail:
    free(c->ep);
    free(c->rkey);
    free(c->is_dirty);
    free(c->dirty);
    c->ep = NULL;
    c->rkey = NULL;
    c->is_dirty = NULL;
    c->dirty = NULL;
    return -1;
}

/* Closes every endpoint of c, flushing: the caller made sure that the
 * peers are progressing (a flush over emulated RMA needs their answers). */
void ucx_close_endpoints(struct uctx *c)
{
    if (!c->ep)
        return;
    for (int pe = 0; pe < g.svc->n_pes; pe++) {
        for (int r = 0; r < NREGIONS; r++)
            if (c->rkey[pe * NREGIONS + r]) {
                ucp_rkey_destroy(c->rkey[pe * NREGIONS + r]);
                c->rkey[pe * NREGIONS + r] = NULL;
            }
        if (!c->ep[pe])
            continue;
        ucp_request_param_t rp = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = 0};
        void *req = ucp_ep_close_nbx(c->ep[pe], &rp);
        c->ep[pe] = NULL;
        if (req == NULL || UCS_PTR_IS_ERR(req))
            continue; /* an endpoint that cannot flush is released anyway */
        while (ucp_request_check_status(req) == UCS_INPROGRESS) {
            ucp_worker_progress(c->w);
            if (c != &dflt)
                ucx_progress_target();
        }
        ucp_request_free(req);
    }
}

void ucx_worker_close(struct uctx *c)
{
    ucx_close_endpoints(c);
    if (c->w)
        ucp_worker_destroy(c->w);
    free(c->ep);
    free(c->rkey);
    free(c->pending);
    free(c->is_dirty);
    free(c->dirty);
    c->is_dirty = NULL;
    c->dirty = NULL;
    c->pending = NULL;
    c->npending = c->maxpending = 0;
    c->w = NULL;
    c->ep = NULL;
    c->rkey = NULL;
}

/* Without an error mode UCX ends the process itself when a peer dies
 * ("Fatal: unexpected error: Endpoint timeout" and a backtrace, or a
 * SIGABRT), which reads as if this PE had failed. With it, the failure
 * comes here, and this PE leaves with the library's one line while oshrun
 * names the PE that died. Only where the transports allow it
 * (g.peer_errors, ucx_plugin.c). */
static void peer_failed(void *arg, ucp_ep_h ep, ucs_status_t st)
{
    (void)ep;
    g.svc->fatal("ucx transport (UCX_TLS=%s): lost the connection to PE %d: %s", g.tls,
                 (int)(intptr_t)arg, ucs_status_string(st));
}

/* Endpoint to pe's default worker, and pe's rkeys unpacked for it.  Out of
 * line: the hot path only tests that the endpoint exists. */
ucp_ep_h ucx_connect(struct uctx *c, int pe)
{
    ucp_ep_params_t ep = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
                          .address = (const ucp_address_t *)(g.addrs + (size_t)pe * g.addr_stride)};
    if (g.peer_errors) {
        ep.field_mask |= UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
        ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
        ep.err_handler = (ucp_err_handler_t){.cb = peer_failed, .arg = (void *)(intptr_t)pe};
    }
    ucp_ep_h e;
    ucs_status_t st = ucp_ep_create(c->w, &ep, &e);
    if (st != UCS_OK)
        ucx_fail("ucp_ep_create", pe, st);
    c->ep[pe] = e;
    if ((st = ucx_unpack_rkeys(c, pe)) != UCS_OK)
        ucx_fail("ucp_ep_rkey_unpack", pe, st);
    return e;
}

int ucx_connect_all(struct uctx *c)
{
    for (int i = 0; i < g.svc->n_pes; i++) {
        /* Start with the next PE, so that not every PE dials PE 0 first. */
        int pe = (g.svc->my_pe + i) % g.svc->n_pes;
        if (!c->ep[pe])
            ucx_connect(c, pe);
    }
    return 0;
}

/* A context's worker serves only its own requests (peers send to the
 * default worker), so it needs no lock unless threads share the context. */
int ucx_ctx_create(long options, pshm_tctx *out)
{
    char why[256];
    struct uctx *c = aligned_alloc(64, (sizeof *c + 63) & ~(size_t)63);
    if (!c)
        return -1;
    int shared = g.thread_level == THREAD_MULTIPLE && !(options & (CTX_PRIVATE | CTX_SERIALIZED));
    ucs_thread_mode_t mode = (options & CTX_PRIVATE) || g.thread_level < THREAD_MULTIPLE
                                 ? UCS_THREAD_MODE_SINGLE
                                 : UCS_THREAD_MODE_SERIALIZED;
    if (ucx_worker_open(c, mode, why, sizeof why)) {
        g.svc->error("ucx transport (UCX_TLS=%s): cannot create a context: %s", g.tls, why);
        free(c);
        return -1;
    }
    c->locked = shared;
    c->next = g.ctxs;
    g.ctxs = c;
    if (g.eager)
        ucx_connect_all(c);
    *out = c;
    return 0;
}

void ucx_ctx_destroy(pshm_tctx t)
{
    struct uctx *c = t;
    if (!c)
        return;
    ucx_quiet(c);
    for (struct uctx **p = &g.ctxs; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            break;
        }
    ucx_worker_close(c);
    free(c);
}
