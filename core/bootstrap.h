/*
 * Bootstrap: how the core learns its rank, the job size, which PEs share its
 * node, and exchanges small blobs before any transport exists.
 *
 * Each way a job can be started is a component: PMIx (oshrun, Slurm
 * srun --mpi=pmix, Open MPI's mpirun), PMI-1 (MPICH's mpiexec/hydra, Slurm
 * srun --mpi=pmi2, oshrun) and the singleton.  The first component whose
 * launcher left its variables in the environment is used; the singleton
 * only when no launcher did.  A component that is detected but cannot
 * talk to its launcher is an error, never a silent fallback: otherwise N
 * processes of one job would run as N 1-PE jobs.
 */
#ifndef PSHM_BOOTSTRAP_H
#define PSHM_BOOTSTRAP_H

#include <stddef.h>

struct pshm_boot {
    const char *name;
    int rank;
    int size;
    int n_local;
    int *local_ranks; /* n_local world ranks on this node, ascending, self included */
    /* Everyone contributes len bytes; all[] receives size*len bytes in rank order. */
    int (*allgather)(const void *mine, void *all, size_t len);
    int (*barrier)(void); /* 0, -1, or PSHM_BOOT_CLOSED */
    /* Ends the whole job with status; msg may be NULL. Does not return. */
    void (*abort)(int status, const char *msg) __attribute__((noreturn));
    void (*fini)(void);
};

struct pshm_boot_component {
    const char *name;     /* as in SHMEM_BOOTSTRAP */
    const char *launcher; /* who speaks it, for shmem_info and messages */
    /* Why this process was started by such a launcher ("PMI_FD is set"),
     * or NULL if it was not. */
    const char *(*detect)(void);
    /* Fills b; or writes one line (the launcher, what was expected, what
     * happened) into err and returns -1. */
    int (*init)(struct pshm_boot *b, char *err, size_t errlen);
};

extern const struct pshm_boot_component pshm_boot_pmix;
extern const struct pshm_boot_component pshm_boot_pmi;
extern const struct pshm_boot_component pshm_boot_singleton;

/* The component for this process: the one named by forced (SHMEM_BOOTSTRAP;
 * NULL or "auto": the first detected), and in *why the reason. */
const struct pshm_boot_component *pshm_boot_choose(const char *forced, const char **why);
/* Initializes the chosen component: 0, or -1 with one line in err. */
int pshm_boot_init(struct pshm_boot *b, const char *forced, char *err, size_t errlen);
/* The names of every component, '|'-separated after "auto", for settings. */
#define PSHM_BOOT_CHOICES "auto|pmix|pmi|singleton"

/* A barrier's answer when the launcher's connection is gone (PMI-1 after
 * the program's MPI_Finalize): not an error, the core has other ways. */
#define PSHM_BOOT_CLOSED 1

#endif
