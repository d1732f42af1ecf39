/*
 * Bootstrap: how the core learns its rank, the job size, which PEs share its
 * node, and exchanges small blobs before any transport exists.  PMIx is the
 * default; a singleton serves programs started without a launcher; an MPI
 * bootstrap can be added as one more pshm_boot.
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
    int (*barrier)(void);
    /* Ends the whole job with status; msg may be NULL. Does not return. */
    void (*abort)(int status, const char *msg) __attribute__((noreturn));
    void (*fini)(void);
};

/* Picks PMIx if the process was started by a PMIx launcher, else singleton.
 * Returns 0, or nonzero having printed why. */
int pshm_boot_init(struct pshm_boot *b);
int pshm_boot_pmix_init(struct pshm_boot *b);
int pshm_boot_single_init(struct pshm_boot *b);

#endif
