/* Barriers and the world team's synchronization. */
#ifndef PSHM_SYNC_H
#define PSHM_SYNC_H

#include "pshm.h"
#include "team.h"

/* Stores a 64-bit flag into the symmetric word at addr of PE pe, which
 * this PE does not map, through the transport's default context: after
 * this PE's earlier puts when ordered (a flag announcing data), or
 * unordered (a notice of this PE's own progress).  The collectives' only
 * way to the transport besides RMA and quiet. */
void pshm_flag_put(uint64_t *addr, uint64_t value, int pe, int ordered) PSHM_HIDDEN;

#endif
