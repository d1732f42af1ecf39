/* The collective algorithms a user can force, by operation: the one list
 * core/config.c parses SHMEM_<OP>_ALGORITHM against and the native
 * component dispatches on.  Index 0 is always "auto". */
#ifndef PSHM_COLL_ALGOS_H
#define PSHM_COLL_ALGOS_H

enum { PSHM_COP_BARRIER, PSHM_COP_BCAST, PSHM_COP_REDUCE, PSHM_COP_COLLECT, PSHM_COP_ALLTOALL,
       PSHM_COP_SCAN, PSHM_COP_N };

enum { PSHM_ALG_AUTO = 0 };
enum { PSHM_BARRIER_DISSEMINATION = 1, PSHM_BARRIER_TREE, PSHM_BARRIER_COUNTER };
enum { PSHM_BCAST_BINOMIAL = 1, PSHM_BCAST_SCATTER_ALLGATHER, PSHM_BCAST_EAGER };
enum { PSHM_REDUCE_RECURSIVE_DOUBLING = 1, PSHM_REDUCE_RING, PSHM_REDUCE_REDUCE_SCATTER_ALLGATHER };
enum { PSHM_COLLECT_RING = 1, PSHM_COLLECT_RECURSIVE_DOUBLING, PSHM_COLLECT_LINEAR, PSHM_COLLECT_MAILBOX };
enum { PSHM_ALLTOALL_PAIRWISE = 1, PSHM_ALLTOALL_LINEAR, PSHM_ALLTOALL_MAILBOX };
enum { PSHM_SCAN_LINEAR = 1, PSHM_SCAN_HILLIS_STEELE, PSHM_SCAN_SEGMENTED };

/* Variable name and '|'-separated choices, indexed by PSHM_COP_*. */
#define PSHM_COLL_ALGO_VARS                                                                        \
    {                                                                                              \
        {"SHMEM_BARRIER_ALGORITHM", "auto|dissemination|tree|counter"},                            \
        {"SHMEM_BCAST_ALGORITHM", "auto|binomial|scatter_allgather|eager"},                 \
        {"SHMEM_REDUCE_ALGORITHM", "auto|recursive_doubling|ring|reduce_scatter_allgather"},       \
        {"SHMEM_COLLECT_ALGORITHM", "auto|ring|recursive_doubling|linear|mailbox"},                \
        {"SHMEM_ALLTOALL_ALGORITHM", "auto|pairwise|linear|mailbox"},                              \
        {"SHMEM_SCAN_ALGORITHM", "auto|linear|hillis_steele|segmented"},                           \
    }

#endif
