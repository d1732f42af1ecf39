/*
 * A PMI-1 client: the connection a PMI launcher (MPICH's mpiexec/hydra,
 * Slurm's srun --mpi=pmi2, oshrun) offers each process through PMI_FD, or
 * PMI_PORT and PMI_ID.  Written over the socket, so the core depends on no
 * MPI library.  One connection per process, kept until exit: PMI-1 has no
 * second init after finalize.
 */
#ifndef PSHM_PMI_CLIENT_H
#define PSHM_PMI_CLIENT_H

#include <stddef.h>

struct pmi_job {
    int rank;
    int size;
    int keylen_max; /* including the terminating NUL, as the server counts */
    int vallen_max;
};

/* Connects and initializes once per process (later calls only return the
 * job).  0, or -1 with one line in err naming the launcher, what was
 * expected and what happened.  vallen_max comes back reduced to what fits
 * in a put line. */
int pmi_client_init(struct pmi_job *job, char *err, size_t errlen);
/* After a successful init; each returns 0, or -1 having reported why. */
int pmi_client_put(const char *key, const char *value);
int pmi_client_get(const char *key, char *value, size_t cap);
int pmi_client_barrier(void); /* 0, -1, or 1: the connection closed under it */
/* The launcher closed the connection: an MPICH in this process finalized
 * it (MPI_Finalize sends PMI's finalize on the same descriptor, and hydra
 * then hangs up). */
int pmi_client_closed(void);
/* Asks the launcher to end the job with status, then waits to be ended. */
void pmi_client_abort(int status) __attribute__((noreturn));

#endif
