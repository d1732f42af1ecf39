/* The collectives' settings: their one table (shmem_info and the README
 * print it) and their reading at configuration, which the core asks for
 * through the layer's table (collectives/layer.c). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "coll_algos.h"
#include "coll_config.h"

struct pshm_coll_config pshm_coll_cfg;

/* Operation, variable and '|'-separated choices, in the order of each
 * operation's enum in coll_algos.h.  SHMEM_COLLECT_ALGORITHM picks
 * fcollect's algorithm (collect's blocks differ in size: it has one),
 * SHMEM_ALLTOALL_ALGORITHM that of alltoall and alltoalls. */
static const struct {
    int op;
    const char *name, *choices;
} algo_vars[] = {
    {PSHM_CEXT_OP_BARRIER, "SHMEM_BARRIER_ALGORITHM", "auto|dissemination|tree|counter"},
    {PSHM_CEXT_OP_BCAST, "SHMEM_BCAST_ALGORITHM", "auto|binomial|scatter_allgather|eager"},
    {PSHM_CEXT_OP_REDUCE, "SHMEM_REDUCE_ALGORITHM",
     "auto|recursive_doubling|ring|reduce_scatter_allgather"},
    {PSHM_CEXT_OP_FCOLLECT, "SHMEM_COLLECT_ALGORITHM", "auto|ring|recursive_doubling|linear|mailbox"},
    {PSHM_CEXT_OP_ALLTOALL, "SHMEM_ALLTOALL_ALGORITHM", "auto|pairwise|linear|mailbox"},
    {PSHM_CEXT_OP_SCAN, "SHMEM_SCAN_ALGORITHM", "auto|linear|hillis_steele|segmented"},
};
#define NALGO (sizeof algo_vars / sizeof *algo_vars)

static const pshm_setting fixed[] = {
    {"SHMEM_COLLECTIVES", PSHM_SETTING_STRING, "native", NULL,
     "collectives component: native (over RMA/AMO, shared-memory aware), NAME (every "
     "collective on coll-NAME.so; shmem_info lists those found) or auto (native or the first "
     "component with rules for auto, per operation and size; shmem_info shows the choices)"},
    {"SHMEM_COLL_NODE_AWARE", PSHM_SETTING_BOOL, "1", NULL,
     "native collectives on a team spanning nodes: on-node phase, one exchange among one leader "
     "per node, on-node phase (0: every PE in one flat algorithm)"},
    {"SHMEM_COLL_MESSAGES", PSHM_SETTING_BOOL, "1", NULL,
     "native collectives between PEs that reach each other only through the transport (node "
     "leaders, or every PE with the bypass off): by the transport's tagged messages where it has "
     "them (ofi, ucx, mpi), data and arrival in one; 0: by puts, each flag after a fence. The same "
     "on every PE"},
};
#define NFIXED (sizeof fixed / sizeof *fixed)

/* "force the barrier algorithm: auto, dissemination, tree, counter" */
static void algo_help(char *help, size_t len, const char *name, const char *choices)
{
    const char *op = name + strlen("SHMEM_");
    size_t oplen = strlen(op) - strlen("_ALGORITHM"), o;
    o = (size_t)snprintf(help, len, "force the ");
    for (size_t k = 0; k < oplen && o + 1 < len; k++)
        help[o++] = (char)tolower((unsigned char)op[k]);
    o += (size_t)snprintf(help + o, len - o, " algorithm: ");
    if (o < len)
        pshm_choices_list(choices, ", ", help + o, len - o);
}

const pshm_setting *pshm_coll_settings(void)
{
    static pshm_setting table[NFIXED + NALGO + 1];
    static char help[NALGO][256];
    if (table[0].name)
        return table;
    for (size_t i = 0; i < NFIXED; i++)
        table[i] = fixed[i];
    for (size_t i = 0; i < NALGO; i++) {
        algo_help(help[i], sizeof help[i], algo_vars[i].name, algo_vars[i].choices);
        table[NFIXED + i] = (pshm_setting){algo_vars[i].name, PSHM_SETTING_CHOICE, "auto",
                                           algo_vars[i].choices, help[i]};
    }
    return table;
}

int pshm_coll_config_load(char *err, size_t errlen)
{
    const pshm_setting *t = pshm_coll_settings();
    if (pshm_settings_check(t, err, errlen))
        return -1;
    struct pshm_coll_config c = {0};
    /* A component's name is known only once the components are found:
     * the collectives check it at init (collectives/coll_table.c). */
    const char *comp = pshm_setting_get_string("SHMEM_COLLECTIVES");
    c.component = comp && *comp ? comp : "native";
    c.node_aware = pshm_setting_get_bool("SHMEM_COLL_NODE_AWARE", 1);
    c.messages = pshm_setting_get_bool("SHMEM_COLL_MESSAGES", 1);
    for (size_t i = 0; i < NALGO; i++)
        c.algo[algo_vars[i].op] = pshm_setting_choice(&t[NFIXED + i]);
    pshm_coll_cfg = c;
    return 0;
}
