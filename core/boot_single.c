/* The bootstrap of a program started without a launcher: one PE. */
#include <stdlib.h>
#include <string.h>

#include "bootstrap.h"

static int single_allgather(const void *mine, void *all, size_t len)
{
    memmove(all, mine, len);
    return 0;
}

static int single_barrier(void) { return 0; }

__attribute__((noreturn)) static void single_abort(int status, const char *msg)
{
    (void)msg;
    exit(status);
}

static void single_fini(void) {}

int pshm_boot_single_init(struct pshm_boot *b)
{
    static int self = 0;
    b->name = "singleton";
    b->rank = 0;
    b->size = 1;
    b->n_local = 1;
    b->local_ranks = &self;
    b->allgather = single_allgather;
    b->barrier = single_barrier;
    b->abort = single_abort;
    b->fini = single_fini;
    return 0;
}

int pshm_boot_init(struct pshm_boot *b)
{
    /* A PMIx launcher always sets the namespace; without it there is no
     * server to talk to and PMIx_Init would only cost time. */
    if (getenv("PMIX_NAMESPACE") && getenv("PMIX_RANK"))
        return pshm_boot_pmix_init(b);
    return pshm_boot_single_init(b);
}
