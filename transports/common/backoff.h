/*
 * One turn of a plugin's wait for its own operations to complete: a short
 * spin, then the CPU goes to the others, since on an oversubscribed node
 * the PE that must answer may be waiting for this core.  Shared by the
 * network plugins' wait loops; inline, so a wait costs what it did when
 * each plugin spelt it out.
 */
#ifndef PSHM_BACKOFF_H
#define PSHM_BACKOFF_H

#include <sched.h>

#include "cpu_relax.h"

static inline void pshm_backoff(unsigned *spins)
{
    if (++*spins > 200)
        sched_yield();
    else
        pshm_cpu_relax();
}

#endif
