/* The collectives as the core sees them: a layer above it, which hands
 * the core one table of what to call (settings, init, team events), as a
 * transport plugin hands its descriptor.  The core includes no header of
 * collectives/; collectives/layer.c defines the table.  Nothing here is
 * on a hot path: teams are made and destroyed, settings read, once. */
#ifndef PSHM_COLL_LAYER_H
#define PSHM_COLL_LAYER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "transport.h"

struct pshm_team;

struct pshm_coll_layer {
    /* The layer's settings table (shmem_info, the README), and reading it
     * at configuration: 0, or -1 with one line in err. */
    const pshm_setting *(*settings)(void);
    int (*load)(char *err, size_t errlen);
    /* shmem_info's collectives section; config_ok: load succeeded. */
    void (*info)(FILE *out, int config_ok);

    /* At shmem_init once the world and shared teams are attached, and at
     * finalize. */
    void (*init)(void);
    void (*fini)(void);

    /* A team's slot bound to its collective state (every member), and
     * released (every member of a team being destroyed, collectively). */
    void (*team_attach)(struct pshm_team *t);
    void (*team_detach)(struct pshm_team *t);
    /* The component's per-team state after attach: 0, or -1 on this PE.
     * team_state says whether a component keeps any, so that a split
     * agrees on the outcome only when one could differ. */
    int (*team_create)(struct pshm_team *t);
    int (*team_state)(void);
    /* A team about to be destroyed stops being this thread's latest. */
    void (*team_forget)(struct pshm_team *t);
    /* On every member of a new team, with two slots free everywhere: 1 if
     * the team became node-aware (the slots are then its own), 0 if it
     * stays flat; the same on every member.  destroy: collective 1 for a
     * team being destroyed, 0 at finalize. */
    int (*node_aware_create)(struct pshm_team *t, int slot_a, int slot_b);
    void (*node_aware_destroy)(struct pshm_team *t, int collective);

    /* In a collective's wait that has stopped spinning: ends the job if a
     * PE of its team reached shmem_finalize or exit without entering this
     * collective, which then can never complete. */
    void (*departed_check)(void);

    /* The world team's barrier (shmem_sync_all's, without its checks). */
    void (*world_barrier)(void);
    /* A barrier of t by the native algorithm alone, needing no component
     * and no bootstrap (a plugin's barrier once MPI took PMI with it). */
    int (*native_barrier)(struct pshm_team *t);

    /* OR of n 64-bit words over a team (splits agree with it). */
    int (*or_u64)(struct pshm_team *t, uint64_t *v, size_t n);
};

extern const struct pshm_coll_layer pshm_coll_layer __attribute__((visibility("hidden")));

#endif
