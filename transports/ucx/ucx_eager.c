/* Which rendezvous threshold the collectives' messages get: over tcp a
 * rendezvous has no remote access to gain, it only adds a round trip
 * before the data (docs/ucx.md, "The collectives' messages"). */
#include <stdlib.h>
#include <string.h>

#include <uct/api/uct.h>

#include "ucx.h"

/* Whether the comma-separated list names tcp and otherwise only
 * transports served by a CPU ("sm" and "shm" name UCX's shared-memory
 * group). */
static int tcp_without_rdma(const char *tls)
{
    int tcp = 0;
    for (const char *p = tls; *p;) {
        size_t n = strcspn(p, ",");
        char tl[16];
        if (n >= sizeof tl)
            return 0;
        memcpy(tl, p, n);
        tl[n] = 0;
        if (!ucx_cpu_served_tl(tl) && strcmp(tl, "sm") && strcmp(tl, "shm"))
            return 0;
        tcp |= !strcmp(tl, "tcp");
        p += n + (p[n] == ',');
    }
    return tcp;
}

/* Whether UCX finds a device it could reach other nodes through other
 * than by tcp (InfiniBand, RoCE, a GPU's copies...): a component not
 * served by a CPU with a memory domain.  The ib and rdmacm components are
 * there wherever UCX was built with them, with no memory domain where
 * there is no device.  If UCX cannot say, assume there is one. */
static int remote_access_found(void)
{
    static int found = -1; /* the devices do not change while a process runs */
    if (found >= 0)
        return found;
    uct_component_h *comps;
    unsigned n;
    if (uct_query_components(&comps, &n) != UCS_OK)
        return found = 1;
    int any = 0;
    for (unsigned i = 0; i < n && !any; i++) {
        uct_component_attr_t a = {.field_mask = UCT_COMPONENT_ATTR_FIELD_NAME |
                                                UCT_COMPONENT_ATTR_FIELD_MD_RESOURCE_COUNT};
        any = uct_component_query(comps[i], &a) != UCS_OK ||
              (!ucx_cpu_served_tl(a.name) && a.md_resource_count > 0);
    }
    uct_release_component_list(comps);
    return found = any;
}

const char *ucx_msg_eager(const char *tls, const char **why)
{
    const char *user = getenv("UCX_RNDV_THRESH");
    const char *eager = NULL, *rule = "UCX's choice";
    if (user && *user)
        rule = "UCX_RNDV_THRESH";
    else if (tcp_without_rdma(tls))
        eager = UCX_MSG_EAGER_MAX, rule = "tcp has no remote access";
    else if (!strcmp(tls, "all") && remote_access_found())
        rule = "UCX's choice: UCX_TLS=all and a device with remote access";
    else if (!strcmp(tls, "all"))
        eager = UCX_MSG_EAGER_MAX, rule = "UCX_TLS=all and no device with remote access";
    if (why)
        *why = rule;
    return eager;
}
