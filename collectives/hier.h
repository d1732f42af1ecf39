/* Node-aware collectives (hier.c): the team's sub-teams and the
 * operations that run as on-node, leaders, on-node phases. */
#ifndef PSHM_HIER_H
#define PSHM_HIER_H

#include <stddef.h>
#include <stdio.h>

#include "coll.h"
#include "team.h"

/* Called on every member of a new team t (its flat collectives usable)
 * with two slots free on every member: makes t node-aware when it spans
 * nodes and some node holds more than one of its members.  Returns 1 if
 * it did (the slots are then t's until pshm_hier_destroy), 0 if t stays
 * flat.  The same answer on every member. */
int pshm_hier_create(struct pshm_team *t, int node_slot, int lead_slot) PSHM_HIDDEN;
/* On every member of a node-aware team being destroyed (collective: the
 * sub-teams' slots are emptied for reuse), or at finalize (collective 0:
 * memory only). */
void pshm_hier_destroy(struct pshm_team *t, int collective) PSHM_HIDDEN;
/* Nodes of a node-aware team; 0 for a flat one. */
int pshm_hier_nodes(const struct pshm_team *t) PSHM_HIDDEN;

/* shmem_info's section: the rule, and the world team's phases. */
void pshm_hier_info(FILE *out) PSHM_HIDDEN;

int pshm_hier_barrier(struct pshm_team *t) PSHM_HIDDEN;
int pshm_hier_broadcast(struct pshm_team *t, void *dest, const void *src, size_t nbytes,
                        int root) PSHM_HIDDEN;
int pshm_hier_reduce(struct pshm_team *t, void *dest, const void *src, size_t count,
                     const struct pshm_red *r) PSHM_HIDDEN;
int pshm_hier_fcollect(struct pshm_team *t, void *dest, const void *src, size_t nbytes) PSHM_HIDDEN;
/* Only where pshm_coll_msg_usable(t). */
int pshm_hier_alltoalls(struct pshm_team *t, void *dest, const void *src, ptrdiff_t dst,
                        ptrdiff_t sst, size_t nelems, size_t esize) PSHM_HIDDEN;

/* Recursive doubling into a dest that need not be symmetric. */
int pshm_native_reduce_private(struct pshm_team *t, void *dest, const void *src, size_t count,
                               const struct pshm_red *r) PSHM_HIDDEN;

#endif
