/* The collectives' settings, read once at configuration
 * (collectives/coll_config.c). */
#ifndef PSHM_COLL_CONFIG_H
#define PSHM_COLL_CONFIG_H

#include <stddef.h>

#include "coll_ext.h"
#include "settings.h"

struct pshm_coll_config {
    const char *component; /* SHMEM_COLLECTIVES: "native", "auto" or a component's name */
    int node_aware;        /* SHMEM_COLL_NODE_AWARE (hier.c) */
    int messages;          /* SHMEM_COLL_MESSAGES (native_msg.c) */
    /* PSHM_CEXT_OP_* -> forced algorithm (coll_algos.h), 0 auto; fcollect's
     * is SHMEM_COLLECT_ALGORITHM, alltoall's also alltoalls'. */
    int algo[PSHM_CEXT_OP_N];
};

extern struct pshm_coll_config pshm_coll_cfg __attribute__((visibility("hidden")));

const pshm_setting *pshm_coll_settings(void) __attribute__((visibility("hidden")));
int pshm_coll_config_load(char *err, size_t errlen) __attribute__((visibility("hidden")));

#endif
