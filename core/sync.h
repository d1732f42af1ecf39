/* Barriers and the world team's synchronization. */
#ifndef PSHM_SYNC_H
#define PSHM_SYNC_H

#include "pshm.h"
#include "team.h"

/* A barrier over all PEs without completing outstanding operations. */
void pshm_barrier_world(void) PSHM_HIDDEN;
/* Stores a 64-bit flag into PE pe's copy of the symmetric word at addr. */
void pshm_flag_put(uint64_t *addr, uint64_t value, int pe) PSHM_HIDDEN;

#endif
