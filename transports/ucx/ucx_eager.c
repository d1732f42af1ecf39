/* Which rendezvous threshold the collectives' messages get: over tcp a
 * rendezvous has no remote access to gain, it only adds a round trip
 * before the data (docs/ucx.md, "The collectives' messages"). */
#include <stdlib.h>
#include <string.h>

#include <uct/api/uct.h>

#include "ucx.h"

/* Whether the comma-separated list names tcp and otherwise only
 * transports within a node. */
static int tcp_without_rdma(const char *tls)
{
    static const char *const allowed[] = {"tcp", "self", "sm", "shm", "posix", "sysv",
                                          "cma", "knem", "xpmem"};
    int tcp = 0;
    for (const char *p = tls; *p;) {
        size_t n = strcspn(p, ",");
        int ok = 0;
        for (size_t i = 0; i < sizeof allowed / sizeof *allowed; i++)
            ok |= strlen(allowed[i]) == n && !strncmp(p, allowed[i], n);
        if (!ok)
            return 0;
        tcp |= n == 3 && !strncmp(p, "tcp", 3);
        p += n + (p[n] == ',');
    }
    return tcp;
}

/* Whether UCX finds a device it could reach other nodes through other
 * than by tcp (InfiniBand, RoCE, ...): a component outside tcp, shared
 * memory and accelerator copies with a memory domain.  The ib and rdmacm
 * components are there wherever UCX was built with them, with no memory
 * domain where there is no device.  If UCX cannot say, assume there is. */
static int remote_access_found(void)
{
    static const char *const local[] = {"self",     "tcp",      "sysv",     "posix",
                                        "cma",      "knem",     "xpmem",    "cuda_cpy",
                                        "cuda_ipc", "gdr_copy", "rocm_cpy", "rocm_ipc",
                                        "rocm_gdr", "ze_copy",  "ze_ipc"};
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
        if (uct_component_query(comps[i], &a) != UCS_OK) {
            any = 1;
            break;
        }
        int is_local = 0;
        for (size_t j = 0; j < sizeof local / sizeof *local; j++)
            is_local |= !strcmp(a.name, local[j]);
        any = !is_local && a.md_resource_count > 0;
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
    else if (!strcmp(tls, "all") && !remote_access_found())
        eager = UCX_MSG_EAGER_MAX, rule = "UCX_TLS=all and no device with remote access";
    else if (!strcmp(tls, "all"))
        rule = "UCX's choice: UCX_TLS=all and a device with remote access";
    if (why)
        *why = rule;
    return eager;
}
