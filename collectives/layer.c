/* What the core calls of the collectives (core/coll_layer.h): this layer
 * registers its settings, init and team events here, once, as a
 * transport plugin does through its descriptor. */
#include "coll.h"
#include "coll_config.h"
#include "coll_ext_int.h"
#include "coll_layer.h"
#include "hier.h"

static void info(FILE *out, int config_ok)
{
    pshm_cext_info(out, config_ok ? pshm_coll_cfg.component : "native");
    pshm_hier_info(out);
}

static int team_create(struct pshm_team *t)
{
    return pshm_coll.team_create ? pshm_coll.team_create(t) : 0;
}

static int team_state(void) { return pshm_coll.team_create != NULL; }

const struct pshm_coll_layer pshm_coll_layer = {
    .settings = pshm_coll_settings,
    .load = pshm_coll_config_load,
    .info = info,
    .init = pshm_coll_init,
    .fini = pshm_coll_fini,
    .team_attach = pshm_coll_team_attach,
    .team_detach = pshm_coll_team_detach,
    .team_create = team_create,
    .team_state = team_state,
    .team_forget = pshm_coll_forget_team,
    .node_aware_create = pshm_hier_create,
    .node_aware_destroy = pshm_hier_destroy,
    .departed_check = pshm_coll_departed_check,
    .world_barrier = pshm_barrier_world,
    .native_barrier = pshm_native_barrier_dissemination,
    .or_u64 = pshm_coll_or_u64,
};
