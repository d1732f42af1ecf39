/*
 * One OpenSHMEM atomic as a CPU atomic instruction, on an operation code of
 * the plugin ABI (PSHM_AMO_*).  Shared by the core (atomics on mapped
 * memory) and by plugins that apply atomics for their peers at the target
 * (the mpi transport's active messages), so that both sides of a word use
 * the same instructions: that is what makes them atomic with each other.
 * In-tree only, not part of the installed SDK.
 */
#ifndef PSHM_CPU_AMO_H
#define PSHM_CPU_AMO_H

#include "transport.h"

/* One CPU atomic on *p; where op is a constant at the call site the switch
 * folds to one instruction. */
#define PSHM_CPU_AMO(p, op, v, cmp)                                                                \
    ({                                                                                             \
        __typeof__(*(p)) r_ = 0;                                                                   \
        switch (op) {                                                                              \
        case PSHM_AMO_ADD: r_ = __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); break;                 \
        case PSHM_AMO_AND: r_ = __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); break;                 \
        case PSHM_AMO_OR: r_ = __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); break;                   \
        case PSHM_AMO_XOR: r_ = __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); break;                 \
        case PSHM_AMO_SWAP: r_ = __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); break;               \
        case PSHM_AMO_CSWAP:                                                                       \
            r_ = (cmp);                                                                            \
            __atomic_compare_exchange_n(p, &r_, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);         \
            break;                                                                                 \
        case PSHM_AMO_READ: r_ = __atomic_load_n(p, __ATOMIC_SEQ_CST); break;                      \
        case PSHM_AMO_SET: __atomic_store_n(p, v, __ATOMIC_SEQ_CST); break;                        \
        }                                                                                          \
        r_;                                                                                        \
    })

#endif
