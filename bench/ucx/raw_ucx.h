/* What raw_ucx_put and raw_ucx_msg share: errors, and the wait for a
 * request as the ucx plugin waits. */
#ifndef PSHM_BENCH_RAW_UCX_H
#define PSHM_BENCH_RAW_UCX_H

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include <ucp/api/ucp.h>

#include "../raw_pair.h"

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        ucs_status_t st_ = (x);                                                                    \
        if (st_ != UCS_OK) {                                                                       \
            fprintf(stderr, "%s: %s\n", #x, ucs_status_string(st_));                               \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static ucp_worker_h worker;

/* Whether req is a request to wait for (NULL: done at once); exits on an
 * error. */
static inline int req_pending(void *req)
{
    if (req == NULL)
        return 0;
    if (UCS_PTR_IS_ERR(req)) {
        fprintf(stderr, "request: %s\n", ucs_status_string(UCS_PTR_STATUS(req)));
        exit(1);
    }
    return 1;
}

/* The plugin's wait: a poll that found work polls again at once, then 200
 * pauses, then sched_yield (which also lets UCX's async thread run: over
 * tcp a loop that never yields waited milliseconds here). */
static inline void wait_req(void *req)
{
    if (!req_pending(req))
        return;
    unsigned spins = 0;
    while (ucp_request_check_status(req) == UCS_INPROGRESS) {
        if (ucp_worker_progress(worker))
            continue;
        if (++spins > 200)
            sched_yield();
        else
            __builtin_ia32_pause();
    }
    ucp_request_free(req);
}

/* A context with the plugin's features (and extra ones), and the worker,
 * serialized as the plugin's default one is. */
static inline ucp_context_h raw_ucx_open(uint64_t extra_features)
{
    ucp_config_t *cfg;
    CHECK(ucp_config_read(NULL, NULL, &cfg));
    ucp_params_t p = {.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED,
                      .features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 |
                                  extra_features,
                      .mt_workers_shared = 1};
    ucp_context_h ctx;
    CHECK(ucp_init(&p, cfg, &ctx));
    ucp_config_release(cfg);
    ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                              .thread_mode = UCS_THREAD_MODE_SERIALIZED};
    CHECK(ucp_worker_create(ctx, &wp, &worker));
    return ctx;
}

#endif
