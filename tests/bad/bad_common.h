/* Shared by the bad-input test programs. */
#ifndef BAD_COMMON_H
#define BAD_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Before shmem_init: one stdout line naming the job, so that run_bad.sh can
 * tell this run's /dev/shm/psm-<tag>-* objects from other jobs'. */
static inline void announce(void)
{
    const char *tag = getenv("PLUGSHMEM_JOB_TAG");
    const char *rank = getenv("PMIX_RANK");
    printf("jobtag=%s rank=%s pid=%d\n", tag ? tag : "none", rank ? rank : "none",
           (int)getpid());
    fflush(stdout);
}

static inline long arg_long(int argc, char **argv, int i, long def)
{
    return argc > i ? strtol(argv[i], NULL, 0) : def;
}

#endif
