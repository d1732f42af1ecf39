#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "pmi_rank.h"

static int env_long(const char *name, long *out)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return 0;
    char *end;
    errno = 0;
    *out = strtol(v, &end, 10);
    return !errno && !*end;
}

int pshm_pmi_rank_matches(int my_pe, int n_pes, char *why, size_t whylen)
{
    long r = -1, n = -1;
    int has_rank = env_long("PMI_RANK", &r) || env_long("PMI_ID", &r);
    int has_size = env_long("PMI_SIZE", &n);
    if (!has_rank && n_pes == 1)
        return 1;
    if (!has_rank) {
        snprintf(why, whylen,
                 "the job's launcher gave MPI no PMI (PMI_RANK/PMI_SIZE unset): MPI would start "
                 "each of the %d PEs as a singleton; launch with mpiexec or oshrun",
                 n_pes);
        return 0;
    }
    if (r != my_pe || (has_size && n != n_pes)) {
        snprintf(why, whylen,
                 "MPI's launcher says rank %ld of %ld, the job says PE %d of %d: launch with one "
                 "launcher for both",
                 r, has_size ? n : -1L, my_pe, n_pes);
        return 0;
    }
    return 1;
}
