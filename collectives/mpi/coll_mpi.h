/*
 * coll-mpi.so: every OpenSHMEM collective on MPI (collectives/coll_ext.h
 * is its interface with the core).  MPI is reached through an MPI-4
 * session of the component's own, never through MPI_Init: the program
 * may then call MPI_Init and MPI_Finalize before or after shmem_init and
 * shmem_finalize, in any order, and the mpi transport's world-model MPI is
 * a separate user of the same library (docs/mpi.md, "Programs that use
 * MPI too").
 *
 * Files: coll_mpi_init.c (session, query, init, teams), coll_mpi_ops.c
 * (the operations), coll_mpi_types.c (reduction types and operators),
 * coll_mpi_rules.c (when auto takes MPI).
 */
#ifndef PSHM_COLL_MPI_H
#define PSHM_COLL_MPI_H

#include <mpi.h>

#include "coll_ext.h"
#include "../../transports/common/mpi_error.h"

struct cm_team {
    MPI_Comm comm;
    int n, me;
};

extern const struct pshm_cext_svc *cm_svc;
extern const struct pshm_cext_rule cm_auto_rules[PSHM_CEXT_OP_N];
extern const size_t cm_msg_from[PSHM_CEXT_OP_N];

/* Ends the job naming the MPI call that failed and MPI's message. */
__attribute__((noreturn)) void cm_fail(const char *what, int rc);

/* The MPI datatype and operator of an OpenSHMEM reduction, or -1 when
 * MPI has none (the core then runs the native one); mpi_up: MPI is
 * started, so the type's size can be checked too. */
int cm_reduction(const char *type, int op, MPI_Datatype *dt, MPI_Op *mop, int mpi_up);

#endif
