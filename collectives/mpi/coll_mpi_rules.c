/* When SHMEM_COLLECTIVES=auto takes MPI over the native algorithms: the
 * component's auto_rules (collectives/coll_ext.h), measured here rather
 * than written into the core, so the core's auto knows no component. */
#include "coll_mpi.h"

#define NEVER PSHM_CEXT_NEVER

/* Measured on 2 cores (docs/collectives.md, "auto"): with every member
 * mapped the native algorithms (loads and stores) beat MPICH at every
 * size (the 32 KiB sum reduction at 2 PEs: native 1.08 us, MPI 43 us and
 * more), by 1.3x to 6x when the cores were free and by orders of
 * magnitude when PEs waited for a core, since MPICH spins where native
 * waits yield (PSHM_CEXT_SPINS); with a member reached through a
 * transport (bypass off, other nodes) MPICH's own shared memory beat the
 * native algorithms over the transport at every size, by 10x or more.
 * Over the mpi transport, where the native algorithms move data by
 * MPICH's RMA (2 PEs, bypass off, an idle machine, five runs, then nine
 * interleaved rounds): the native scans beat MPICH's at every size
 * (1.1-10x), the native broadcast, fcollect and alltoall from 32 KiB
 * (1.1-2.8x), MPI's reductions from 4 KiB; below those MPI wins.  The
 * barrier is level (0.87-1.0 us either way) and stays native: an MPI
 * barrier between native collectives left them 5-15% slower than in a
 * job of native collectives only (the PEs leave MPICH's barrier further
 * apart than the native one's).  alltoalls follows alltoall. */
const struct pshm_cext_rule cm_auto_rules[PSHM_CEXT_OP_N] = {
    /* {mapped_from, unmapped_from, kin_from, kin_until} */
    [PSHM_CEXT_OP_BARRIER] = {NEVER, 0, NEVER, NEVER},
    [PSHM_CEXT_OP_BCAST] = {NEVER, 0, 0, 32768},
    [PSHM_CEXT_OP_REDUCE] = {NEVER, 0, 0, NEVER},
    [PSHM_CEXT_OP_SCAN] = {NEVER, 0, NEVER, NEVER},
    [PSHM_CEXT_OP_FCOLLECT] = {NEVER, 0, 0, 32768},
    [PSHM_CEXT_OP_COLLECT] = {NEVER, 0, 0, NEVER},
    [PSHM_CEXT_OP_ALLTOALL] = {NEVER, 0, 0, 32768},
    [PSHM_CEXT_OP_ALLTOALLS] = {NEVER, 0, 0, 32768},
};

/* Where the native algorithms run on the transport's messages (ucx and
 * ofi, a member on another node or the bypass off), measured with MPICH
 * kept off its shared memory (MPIR_CVAR_NOLOCAL=1, UCX_TLS=tcp), so that
 * both sides cross the network (docs/benchmarks.md, "auto across a
 * network"): over ucx tcp native beat MPICH in every cell at 2 PEs
 * (1.5-10x), and at 4 PEs on 2 cores, where MPICH spins, by 4-60x; over 2
 * emulated nodes likewise.  Over ofi tcp;ofi_rxm at 2 PEs MPICH (on UCX)
 * won the small barrier, reduction and fcollect by up to 1.9x, the
 * difference between libfabric's tcp floor and UCX's, and lost the large
 * ones and every alltoall: native everywhere. */
const size_t cm_msg_from[PSHM_CEXT_OP_N] = {
    [PSHM_CEXT_OP_BARRIER] = NEVER,  [PSHM_CEXT_OP_BCAST] = NEVER,
    [PSHM_CEXT_OP_REDUCE] = NEVER,   [PSHM_CEXT_OP_SCAN] = NEVER,
    [PSHM_CEXT_OP_FCOLLECT] = NEVER, [PSHM_CEXT_OP_COLLECT] = NEVER,
    [PSHM_CEXT_OP_ALLTOALL] = NEVER, [PSHM_CEXT_OP_ALLTOALLS] = NEVER,
};
