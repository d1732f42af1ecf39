/* SHMEM_COUNT_OPS: counts of what the core hands the transport. */
#ifndef PSHM_OPCOUNT_H
#define PSHM_OPCOUNT_H

#include "transport.h"

/* Replaces the ops of the core's copy of the table with counting shims,
 * when SHMEM_COUNT_OPS is set (and zeroes the counts). */
void pshm_opcount_wrap(pshm_transport_ops *ops) PSHM_HIDDEN;
/* Prints this PE's counts to stderr, when SHMEM_COUNT_OPS is set. */
void pshm_opcount_report(void) PSHM_HIDDEN;

#endif
