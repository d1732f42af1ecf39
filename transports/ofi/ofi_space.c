/* Memory spaces (ABI 2.1 seg_register): a region per space and every
 * PE's address and key of it. */
#include <stdlib.h>

#include "ofi.h"

/* A memory space (ABI 2.1 seg_register): its region, and every PE's
 * address and key of it, as for the built-in segments at init. */
int ofi_seg_register(int s, void *base, size_t size)
{
    struct rseg mine = {0, 0};
    int n = g.svc->n_pes, rc = ofi_mr_open(s, base, size, &mine.key);
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

void ofi_seg_deregister(int s)
{
    if (g.mr[s]) {
        fi_close(&g.mr[s]->fid);
        g.mr[s] = NULL;
    }
    for (int pe = 0; pe < g.svc->n_pes; pe++)
        g.peer[pe * PSHM_MAX_SEGS + s] = (struct rseg){0, 0};
}
