/* The collectives component table: SHMEM_COLLECTIVES picks a component at
 * init; every operation it leaves NULL falls back to the native one. */
#include <string.h>

#include "coll.h"
#include "coll_state.h"
#include "config.h"
#include "error.h"

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

/* Components compiled in; an "mpi" entry joins this list with the MPI
 * transport. */
static const struct pshm_coll_ops *const components[] = {&pshm_coll_native};

#define FILL(op)                                                                                   \
    if (!pshm_coll.op)                                                                             \
    pshm_coll.op = pshm_coll_native.op

void pshm_coll_init(void)
{
    const char *want = pshm_cfg.collectives ? pshm_cfg.collectives : "native";
    const struct pshm_coll_ops *c = NULL;
    for (size_t i = 0; i < sizeof components / sizeof *components; i++)
        if (strcmp(components[i]->name, want) == 0)
            c = components[i];
    if (!c)
        pshm_fatal("SHMEM_COLLECTIVES='%s': this component is not built in", want);
    pshm_coll = *c;
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
}

void pshm_coll_team_attach(struct pshm_team *t) { t->sym = pshm_coll_slot_at(t->slot); }

void pshm_coll_team_detach(struct pshm_team *t)
{
    /* Nothing may still be on its way to the slot when it is zeroed: every
     * member completes its transfers, then all meet.  The dissemination
     * barrier needs no state but the flags it leaves behind. */
    coll_complete();
    pshm_quiet(&pshm_ctx_default);
    pshm_native_barrier_dissemination(t);
    if (pshm_coll.team_destroy)
        pshm_coll.team_destroy(t);
    memset(t->sym, 0, sizeof *t->sym);
}
