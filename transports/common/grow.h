/* The plugins' growable arrays (a request's MPI requests, the PEs or
 * windows it must flush): room for one more element, doubling from 4.
 * Running out of memory ends the job: the request would lose operations. */
#ifndef PSHM_PLUGIN_GROW_H
#define PSHM_PLUGIN_GROW_H

#include <stdlib.h>

#include "transport.h"

/* Returns the array (moved, perhaps) with room for element n of *cap. */
static inline void *pshm_grow(void *a, int n, int *cap, size_t elem, const pshm_core_services *svc,
                              const char *transport)
{
    if (n < *cap)
        return a;
    int c = *cap ? 2 * *cap : 4;
    void *b = realloc(a, (size_t)c * elem);
    if (!b)
        svc->fatal("%s transport: out of memory for a request", transport);
    *cap = c;
    return b;
}

#endif
