/*
 * What the plugins that run on MPI (transport-mpi, coll-mpi) share to
 * report a failed MPI call: both end the job through the core with one
 * line naming the call and MPI's reason.  In-tree only, like pmi_rank.h:
 * the SDK does not ship it.
 */
#ifndef PSHM_MPI_ERROR_H
#define PSHM_MPI_ERROR_H

#include <mpi.h>
#include <stdio.h>

#define PSHM_MPI_ERROR_LEN (MPI_MAX_ERROR_STRING + 1)

/* MPI's text for rc in buf (PSHM_MPI_ERROR_LEN bytes), on one line: the
 * core's report is one line, and MPICH's error stacks span several. */
static inline const char *pshm_mpi_error(int rc, char *buf)
{
    int len = 0;
    if (MPI_Error_string(rc, buf, &len) != MPI_SUCCESS)
        len = snprintf(buf, PSHM_MPI_ERROR_LEN, "error %d", rc);
    buf[len < 0 ? 0 : len > MPI_MAX_ERROR_STRING ? MPI_MAX_ERROR_STRING : len] = '\0';
    for (char *p = buf; *p; p++)
        if (*p == '\n')
            *p = ' ';
    return buf;
}

/* Calls fail(what, rc), which does not return, when call does not return
 * MPI_SUCCESS. */
#define PSHM_MPI_CHECK(fail, what, call)                                                           \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (__builtin_expect(rc_ != MPI_SUCCESS, 0))                                               \
            fail(what, rc_);                                                                       \
    } while (0)

#endif
