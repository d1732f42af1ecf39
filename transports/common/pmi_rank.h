/*
 * Whether MPI, started now, would see this job (compiled into transport-mpi
 * and coll-mpi, which both start MPI beside the core and must refuse the
 * same jobs with the same line).  In-tree only: the SDK does not ship it.
 */
#ifndef PSHM_PMI_RANK_H
#define PSHM_PMI_RANK_H

#include <stddef.h>

/* Reads the launcher's PMI-1 variables (hydra and oshrun set PMI_RANK and
 * PMI_SIZE, or PMI_ID with -pmi-port) without starting MPI.  Returns 1
 * when MPI would be rank my_pe of n_pes, or a singleton for a 1-PE job;
 * else 0 with one line in why. */
int pshm_pmi_rank_matches(int my_pe, int n_pes, char *why, size_t whylen);

#endif
