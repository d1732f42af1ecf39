#include <stdio.h>

#include "settings_kit.h"

int pshm_kit_ready(const pshm_core_services *svc, char *why, size_t whylen)
{
    if (PSHM_ABI_HAS(svc, pshm_core_services, get_string))
        return 0;
    snprintf(why, whylen,
             "built for transport ABI %u.%u, this library speaks ABI %u.%u, which lacks the "
             "setting getters of 2.3: use the plugins installed with this library",
             PSHM_TRANSPORT_ABI_MAJOR, PSHM_TRANSPORT_ABI_MINOR, svc->hdr.major, svc->hdr.minor);
    return -1;
}

int pshm_kit_progress_thread(const pshm_core_services *svc)
{
    return svc->get_bool("SHMEM_PROGRESS_THREAD", -1);
}

int pshm_kit_progress(const pshm_core_services *svc, int *want_thread, unsigned *interval_us)
{
    *want_thread = pshm_kit_progress_thread(svc);
    unsigned long v = svc->get_uint("SHMEM_PROGRESS_INTERVAL", PSHM_PROGRESS_INTERVAL_DEFAULT);
    if (v < 1 || v > PSHM_PROGRESS_INTERVAL_MAX) {
        svc->error("SHMEM_PROGRESS_INTERVAL='%s' is not an interval; use microseconds from 1 to "
                   "%lu",
                   svc->getenv("SHMEM_PROGRESS_INTERVAL"), PSHM_PROGRESS_INTERVAL_MAX);
        return -1;
    }
    *interval_us = (unsigned)v;
    return 0;
}
