/* Memory regions of the segments and of memory spaces, and the exchange
 * of their keys. */
#include <stdio.h>
#include <stdlib.h>

#include "ofi.h"

/* One memory region: registered, bound to the target endpoint where the
 * provider wants that, its key in *key. */
int ofi_mr_open(int s, void *base, size_t size, uint64_t *key)
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

int ofi_register_segments(struct card *mine)
{
    uint64_t mode = g.info->domain_attr->mr_mode;
    for (int s = 0; s < PSHM_NSEGS; s++) {
        void *base = g.svc->seg[s].base;
        size_t size = g.svc->seg[s].size;
        mine->base[s] = (mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)base : 0;
        if (!base || !size)
            continue;
        if (ofi_mr_open(s, base, size, &mine->key[s]))
            return -1;
    }
    return 0;
}
