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

static int single_init(struct pshm_boot *b, char *err, size_t errlen)
{
    static int self = 0;
    (void)err;
    (void)errlen;
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

static const char *single_detect(void) { return "no launcher's variables are set"; }

const struct pshm_boot_component pshm_boot_singleton = {
    .name = "singleton",
    .launcher = "programs started without a launcher",
    .detect = single_detect,
    .init = single_init,
};
