/* The symmetric heap's allocation routines (shmem_malloc and friends). */
#ifndef PSHM_MEMORY_H
#define PSHM_MEMORY_H

#include <stddef.h>

#include "pshm.h"

void pshm_memory_init(size_t user_size) PSHM_HIDDEN;
void pshm_memory_fini(void) PSHM_HIDDEN;

#endif
