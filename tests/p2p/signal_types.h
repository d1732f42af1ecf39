/* The table tests/p2p/gen_signal.py generates: one row per put-with-signal
 * family member of the library's type tables. */
#ifndef PLUGSHMEM_P2P_SIGNAL_TYPES_H
#define PLUGSHMEM_P2P_SIGNAL_TYPES_H

#include "p2p_test.h"

struct sig_type {
    const char *name;
    size_t esize; /* bytes per element */
    int nforms;   /* 4: plain, ctx, generic, generic+ctx; 2: plain, ctx */
    /* form as above; nbi selects the _nbi routine */
    void (*put)(int form, shmem_ctx_t ctx, void *dest, const void *src, size_t nelems,
                uint64_t *sig, uint64_t signal, int sig_op, int pe, int nbi);
    /* fill: elements of a pattern given by seed; check: index of the first
     * element that differs from the pattern, or -1 */
    void (*fill)(void *buf, size_t nbytes_or_elems, uint64_t seed);
    long (*check)(const void *buf, size_t nbytes_or_elems, uint64_t seed);
};

extern const struct sig_type sig_types[];
extern const size_t sig_ntypes;

/* For the SIZE and mem rows fill/check take a byte count. */
void sig_fill_bytes(void *buf, size_t n, uint64_t seed);
long sig_check_bytes(const void *buf, size_t n, uint64_t seed);

#endif
