/* Teams: the world team, the shared (node) team, and split teams.
 *
 * Every team owns one slot of per-team symmetric state in the internal
 * area of the heap (collectives/coll_state.h).  The slot index is the same
 * on every member; it is agreed on at split time by an OR-reduction over
 * the parent team of each member's bitmap of slots in use, so creating a
 * team involves the parent's members only.  PEs of disjoint teams may use
 * the same slot index: a slot is per PE. */
#ifndef PSHM_TEAM_H
#define PSHM_TEAM_H

#include <stdint.h>

#include "api.h"

#define PSHM_TEAM_SLOTS 64
#define PSHM_TEAM_SLOT_WORLD 0
#define PSHM_TEAM_SLOT_SHARED 1

struct pshm_coll_slot;

struct pshm_team {
    int my_pe;  /* -1 if this PE is not a member */
    int n_pes;
    int *world; /* member -> world PE; NULL for the world team */
    /* World PE of member i is start + i * stride when strided (always for
     * split_strided teams; for the others when their members happen to be). */
    int start, stride, strided;
    int slot;                    /* index of the symmetric state, same on all members */
    /* That state in this PE's heap, owned by the collectives layer
     * (collectives/coll_state.h), with its own bookkeeping of the team. */
    struct pshm_coll_slot *sym;
    int all_mapped;              /* every member's heap is mapped here */
    /* The native collectives run on the transport's messages
     * (collectives/native_msg.c): the same on every member. */
    int msg;
    int predefined;              /* world or shared: never destroyed */
    long config_mask;
    shmem_team_config_t config;
    void *component;             /* per-team state of the collectives component */
    /* Node-aware collectives (collectives/hier.c): the sub-teams of a team
     * spanning nodes, NULL when flat; sub marks such a sub-team, which
     * only the native algorithms run on. */
    struct pshm_hier *hier;
    int sub;
    uint64_t sub_slots;          /* the slots the sub-teams hold (bits) */
};


void pshm_teams_init(void) PSHM_HIDDEN;
/* Fills the derived fields of a team whose my_pe, n_pes, world and slot
 * are set (and binds its slot). */
void pshm_team_finish(struct pshm_team *t) PSHM_HIDDEN;
void pshm_teams_fini(void) PSHM_HIDDEN;

/* Whether world PE w's heap is mapped here (w is this PE, or on its node
 * with the bypass on). */
int pshm_team_mapped(int w) PSHM_HIDDEN;

/* World PE of team member pe (no checks). */
static inline int pshm_team_world_pe(const struct pshm_team *t, int pe)
{
    return t->world ? t->world[pe] : pe;
}

/* Team index of world PE w, or -1 if w is not a member. */
int pshm_team_index_of(const struct pshm_team *t, int w) PSHM_HIDDEN;

#endif
