/* The collectives component table: SHMEM_COLLECTIVES picks a component at
 * init; every operation it leaves NULL falls back to the native one.
 * NAME and auto load a coll-NAME.so (coll_ext.c), whose shims choose per
 * call between it and the native algorithms. */
#include <string.h>
#include <strings.h>

#include "coll.h"
#include "coll_ext_int.h"
#include "coll_state.h"
#include "coll_config.h"
#include "config.h"
#include "error.h"
#include "native_msg.h"
#include "init.h"

const struct pshm_coll_ops pshm_coll_native = {
    .name = "native",
    .barrier = pshm_native_barrier,
    .broadcast = pshm_native_broadcast,
    .reduce = pshm_native_reduce,
    .scan = pshm_native_scan,
    .collect = pshm_native_collect,
    .fcollect = pshm_native_fcollect,
    .alltoall = pshm_native_alltoall,
    .alltoalls = pshm_native_alltoalls,
};

struct pshm_coll_ops pshm_coll;
_Thread_local int pshm_coll_pending __attribute__((tls_model("initial-exec")));
_Thread_local const char *pshm_coll_routine __attribute__((tls_model("initial-exec"))) = "collective";
_Thread_local struct pshm_team *pshm_coll_team __attribute__((tls_model("initial-exec")));

/* The component behind SHMEM_COLLECTIVES=NAME|auto, loaded and started, or
 * the job ends with one line saying why not. */
static void start_ext(const char *want)
{
    char why[1024], line[1200];
    struct pshm_cext_svc svc;
    pshm_cext_fill_svc(&svc, pshm_g.my_pe, pshm_g.n_pes,
                       pshm_thread_level == SHMEM_THREAD_MULTIPLE);
    if (pshm_cext_load(want, why, sizeof why)) {
        pshm_config_fail(pshm_g.my_pe, why, 1);
        return;
    }
    static struct pshm_cext_svc kept; /* the component keeps the pointer */
    kept = svc;
    const struct pshm_cext *x = pshm_cext_loaded(NULL);
    if (x->init(&kept, why, sizeof why) == 0)
        return;
    snprintf(line, sizeof line,
             "SHMEM_COLLECTIVES=%s: collectives component '%s' cannot serve the collectives: %s",
             want, x->name, why);
    pshm_config_fail(pshm_g.my_pe, line, 1);
}

#define FILL(op)                                                                                   \
    if (!pshm_coll.op)                                                                             \
    pshm_coll.op = pshm_coll_native.op

void pshm_coll_init(void)
{
    const char *want = pshm_coll_cfg.component ? pshm_coll_cfg.component : "native";
    const struct pshm_coll_ops *c = &pshm_coll_native;
    pshm_cext_mode = PSHM_CEXT_MODE_NATIVE;
    if (strcasecmp(want, "native")) {
        start_ext(want);
        pshm_cext_mode = strcasecmp(want, "auto") ? PSHM_CEXT_MODE_ALL : PSHM_CEXT_MODE_AUTO;
        c = &pshm_coll_ext_ops;
    }
    pshm_coll = *c;
    if (c == &pshm_coll_ext_ops)
        pshm_coll.name = pshm_cext_loaded(NULL)->name;
    FILL(barrier);
    FILL(broadcast);
    FILL(reduce);
    FILL(scan);
    FILL(collect);
    FILL(fcollect);
    FILL(alltoall);
    FILL(alltoalls);
    pshm_coll_pending = 0;
    if (pshm_coll.team_create) {
        pshm_coll.team_create(&pshm_team_world);
        pshm_coll.team_create(&pshm_team_shared);
    }
}

void pshm_coll_fini(void)
{
    if (pshm_coll.team_destroy) {
        pshm_coll.team_destroy(&pshm_team_shared);
        pshm_coll.team_destroy(&pshm_team_world);
    }
    if (pshm_cext_mode != PSHM_CEXT_MODE_NATIVE) {
        pshm_cext_loaded(NULL)->fini();
        pshm_cext_unload();
        pshm_cext_mode = PSHM_CEXT_MODE_NATIVE;
    }
}

/* Messages where every member reaches every other through the transport
 * alone, which all members can tell alike: the bypass off (nothing is
 * mapped), or two members on two nodes.  hier.c adds the leaders of a
 * node-aware team and the teams whose every member is on a node of its
 * own. */
void pshm_coll_team_attach(struct pshm_team *t)
{
    t->sym = pshm_coll_slot_at(t->slot);
    t->msg = pshm_coll_msg_usable(t) && (!pshm_cfg.bypass || t->n_pes == 2);
}

void pshm_coll_team_detach(struct pshm_team *t)
{
    /* Nothing may still be on its way to the slot when it is zeroed: every
     * member completes its transfers, then all meet.  The dissemination
     * barrier needs no state but the flags it leaves behind. */
    coll_complete();
    pshm_quiet(&pshm_ctx_default);
    pshm_native_barrier_dissemination(t);
    if (pshm_coll.team_destroy && !t->sub) /* no component knows a sub-team */
        pshm_coll.team_destroy(t);
    memset(t->sym, 0, sizeof *t->sym);
}
