/*
 * What the API entry points (hand-written and generated) are built from:
 * the public header, the core state, and inline helpers for the typed
 * families.  Everything here inlines into the entry points so that the
 * on-node path of a put or an AMO is straight-line code.
 */
#ifndef PSHM_API_H
#define PSHM_API_H

#include <stdint.h>
#include <string.h>

#include "shmem.h"
#include "shmemx.h"
#include "pshmem.h"
#include "pshm.h"

#define PSHM_API __attribute__((visibility("default")))

/* Team-relative PE of a context -> world PE. */
int pshm_ctx_pe_check(struct pshm_ctx *c, const char *routine, int pe) PSHM_HIDDEN;
/* A world PE is checked where it is used (the fast path's unsigned
 * compare); a team PE here, before it indexes the team's table. */
#define PSHM_CTX_PE(ctx, routine, pe)                                                              \
    (PSHM_UNLIKELY(pshm_g.debug) ? pshm_ctx_pe_check((ctx), (routine), (pe))                       \
     : !(ctx)->pe_world          ? (pe)                                                            \
     : PSHM_LIKELY((unsigned)(pe) < (unsigned)(ctx)->team_n_pes) ? (ctx)->pe_world[pe]             \
                                                                 : pshm_ctx_pe_check((ctx), (routine), (pe)))

PSHM_INLINE void pshm_put_nbi(const char *routine, struct pshm_ctx *c, void *dst, const void *src, size_t n, int pe)
{
    pshm_rma(routine, c, dst, src, n, pe, 1, 1);
}

PSHM_INLINE void pshm_get_nbi(const char *routine, struct pshm_ctx *c, void *dst, const void *src, size_t n, int pe)
{
    pshm_rma(routine, c, dst, src, n, pe, 0, 1);
}

/* iput/iget/ibput/ibget: nblocks blocks of bsize elements; block i is at
 * element i*dst of dest and i*sst of source. */
void pshm_strided(const char *routine, struct pshm_ctx *c, int is_put, void *dest, const void *source, ptrdiff_t dst,
                  ptrdiff_t sst, size_t bsize, size_t nblocks, size_t esize, int pe) PSHM_HIDDEN;

/* ---- AMOs ----------------------------------------------------------- */

PSHM_INLINE uint32_t pshm_bits32(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
PSHM_INLINE uint64_t pshm_bits64(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}
static inline float pshm_from_bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static inline double pshm_from_bits_double(uint64_t u)
{
    double d;
    memcpy(&d, &u, 8);
    return d;
}

/* Fetching (f), non-fetching (n) and non-blocking fetching (nbi) AMOs.
 * Only n wakes a sleeping target: set, add, inc and the bitwise ops are
 * what signals a waiter, while fetching ones (counters, swaps, users'
 * locks) keep their short path and are seen within SHMEM_WAIT_SLEEP. */
#define PSHM_DEFINE_AMO(W, TCODE)                                                                  \
    PSHM_INLINE uint##W##_t pshm_amo_f##W(const char *routine, struct pshm_ctx *c, void *dest,    \
                                          int pe, int op, uint##W##_t v, uint##W##_t cmp)          \
    {                                                                                              \
        uint##W##_t *p = (uint##W##_t *)pshm_amo_addr(dest, pe);                                   \
        if (PSHM_LIKELY(p != NULL))                                                                \
            return PSHM_CPU_AMO(p, op, v, cmp);                                                    \
        uint##W##_t old = 0;                                                                       \
        pshm_amo_far(routine, c, dest, pe, op, TCODE, &v, &cmp, &old, 0);                          \
        return old;                                                                                \
    }                                                                                              \
    PSHM_INLINE void pshm_amo_n##W(const char *routine, struct pshm_ctx *c, void *dest, int pe,    \
                                   int op, uint##W##_t v)                                          \
    {                                                                                              \
        uint##W##_t *p = (uint##W##_t *)pshm_amo_addr(dest, pe);                                   \
        if (PSHM_LIKELY(p != NULL)) {                                                              \
            (void)PSHM_CPU_AMO(p, op, v, 0);                                                       \
            pshm_wake_check(pe, dest);                                                             \
            return;                                                                                \
        }                                                                                          \
        pshm_amo_far(routine, c, dest, pe, op, TCODE, &v, NULL, NULL, 0);                          \
    }                                                                                              \
    PSHM_INLINE void pshm_amo_nbi##W(const char *routine, struct pshm_ctx *c, void *fetch,         \
                                     void *dest, int pe, int op, uint##W##_t v, uint##W##_t cmp)   \
    {                                                                                              \
        uint##W##_t *p = (uint##W##_t *)pshm_amo_addr(dest, pe);                                   \
        if (PSHM_LIKELY(p != NULL)) {                                                              \
            uint##W##_t r = PSHM_CPU_AMO(p, op, v, cmp);                                           \
            memcpy(fetch, &r, sizeof r);                                                           \
            return;                                                                                \
        }                                                                                          \
        pshm_amo_far(routine, c, dest, pe, op, TCODE, &v, &cmp, fetch, 1);                         \
    }

PSHM_DEFINE_AMO(32, PSHM_T_U32)
PSHM_DEFINE_AMO(64, PSHM_T_U64)

/* ---- put with signal ------------------------------------------------- */

void pshm_put_signal_slow(const char *routine, struct pshm_ctx *c, void *dst, const void *src,
                          size_t n, uint64_t *sig, uint64_t signal, int sig_op, int pe,
                          int nbi) PSHM_HIDDEN;

/* On-node: the data, then the signal (ordered after the data), then the
 * wake check, which the signal's sequential consistency orders after it. */
PSHM_INLINE void pshm_put_signal(const char *routine, struct pshm_ctx *c, void *dst,
                                 const void *src, size_t n, uint64_t *sig, uint64_t signal,
                                 int sig_op, int pe, int nbi)
{
    uintptr_t off = (uintptr_t)dst - pshm_g.heap_lo;
    char *b;
    uint64_t *s;
    /* pshm_amo_addr first: it checks the PE before anything is indexed. */
    if (PSHM_LIKELY((s = (uint64_t *)pshm_amo_addr(sig, pe)) && off + n <= pshm_g.heap_fast_len &&
                    (b = pshm_g.peer[pe].base[PSHM_SEG_HEAP]))) {
        pshm_copy(b + off, src, n);
        if (sig_op == SHMEM_SIGNAL_SET) {
            __atomic_store_n(s, signal, __ATOMIC_SEQ_CST);
            pshm_wake_check(pe, sig);
            return;
        }
        if (sig_op == SHMEM_SIGNAL_ADD) {
            __atomic_fetch_add(s, signal, __ATOMIC_SEQ_CST);
            pshm_wake_check(pe, sig);
            return;
        }
    }
    pshm_put_signal_slow(routine, c, dst, src, n, sig, signal, sig_op, pe, nbi);
}

/* ---- point-to-point synchronization -------------------------------- */

void pshm_bad_cmp(const char *routine, int cmp) PSHM_HIDDEN __attribute__((noreturn));

#define PSHM_CMP(routine, a, cmp, b)                                                               \
    ({                                                                                             \
        int t_;                                                                                    \
        switch (cmp) {                                                                             \
        case SHMEM_CMP_EQ: t_ = (a) == (b); break;                                                 \
        case SHMEM_CMP_NE: t_ = (a) != (b); break;                                                 \
        case SHMEM_CMP_GT: t_ = (a) > (b); break;                                                  \
        case SHMEM_CMP_GE: t_ = (a) >= (b); break;                                                 \
        case SHMEM_CMP_LT: t_ = (a) < (b); break;                                                  \
        case SHMEM_CMP_LE: t_ = (a) <= (b); break;                                                 \
        default: pshm_bad_cmp(routine, cmp);                                                       \
        }                                                                                          \
        t_;                                                                                        \
    })

#define PSHM_LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)

#define PSHM_WAIT_UNTIL(T, routine, ivar, cmp, value)                                              \
    do {                                                                                           \
        struct pshm_wait w_ = {0};                                                                 \
        PSHM_CHECK_INIT(routine);                                                                  \
        while (!PSHM_CMP(routine, PSHM_LOAD((T *)(ivar)), cmp, (T)(value)))                        \
            pshm_wait_step(&w_, (ivar), 1);                                                        \
        pshm_wait_end(&w_);                                                                        \
    } while (0)

/* Before shmem_init and after shmem_finalize tp_progress is set (the
 * table then is pshm_tp_uninit's), so the check costs nothing where no
 * progress is needed. */
#define PSHM_PROGRESS(routine)                                                                     \
    do {                                                                                           \
        if (pshm_g.tp_progress) {                                                                  \
            if (PSHM_UNLIKELY(!pshm_g.n_pes))                                                      \
                pshm_not_init(routine);                                                            \
            pshm_g.tp->progress();                                                                 \
        }                                                                                          \
    } while (0)

#define PSHM_TEST(T, routine, ivar, cmp, value)                                                    \
    ({                                                                                             \
        PSHM_PROGRESS(routine);                                                                    \
        PSHM_CMP(routine, PSHM_LOAD((T *)(ivar)), cmp, (T)(value));                                \
    })

enum { PSHM_SET_ALL, PSHM_SET_ANY, PSHM_SET_SOME };

/* Where an _any scan starts: a per-thread pseudo-random index, so every
 * satisfied element is returned eventually whatever pattern of calls (a
 * round-robin start can lock onto one element when calls interleave). */
size_t pshm_any_start(size_t nelems) PSHM_HIDDEN;

/* The _all/_any/_some (and _vector) waits and tests.  Returns for ALL:
 * 1 if all active elements hold (always, when waiting); ANY: an index or
 * SIZE_MAX; SOME: how many indices were written. */
#define PSHM_WAIT_SET(T, routine, kind, block, ivars, nelems, indices, status, cmp, values, vec)   \
    ({                                                                                             \
        const T *vals_ = (values);                                                                 \
        size_t res_ = 0, active_ = 0;                                                              \
        size_t start_ = kind == PSHM_SET_ANY ? pshm_any_start(nelems) : 0;                         \
        struct pshm_wait w_ = {0};                                                                 \
        for (size_t i_ = 0; i_ < (nelems); i_++)                                                   \
            active_ += !(status) || !(status)[i_];                                                 \
        if (kind == PSHM_SET_ANY)                                                                  \
            res_ = SIZE_MAX;                                                                       \
        if (kind == PSHM_SET_ALL)                                                                  \
            res_ = 1;                                                                              \
        for (;;) {                                                                                 \
            size_t hit_ = 0;                                                                       \
            if (!active_)                                                                          \
                break;                                                                             \
            PSHM_PROGRESS(routine);                                                                \
            for (size_t k_ = 0; k_ < (nelems); k_++) {                                             \
                size_t i_ = kind == PSHM_SET_ANY ? (k_ + start_) % (nelems) : k_;                   \
                if ((status) && (status)[i_])                                                      \
                    continue;                                                                      \
                T v_ = PSHM_LOAD(&(ivars)[i_]);                                                    \
                if (PSHM_CMP(routine, v_, cmp, vals_[(vec) ? i_ : 0])) {                           \
                    if (kind == PSHM_SET_ANY) {                                                    \
                        res_ = i_;                                                                 \
                        hit_ = 1;                                                                  \
                        break;                                                                     \
                    }                                                                              \
                    if (kind == PSHM_SET_SOME)                                                     \
                        ((size_t *)(indices))[hit_] = i_;                                                    \
                    hit_++;                                                                        \
                }                                                                                  \
            }                                                                                      \
            if (kind == PSHM_SET_ALL && hit_ == active_)                                           \
                break;                                                                             \
            if (kind != PSHM_SET_ALL && hit_) {                                                    \
                if (kind == PSHM_SET_SOME)                                                         \
                    res_ = hit_;                                                                   \
                break;                                                                             \
            }                                                                                      \
            if (!(block)) {                                                                        \
                if (kind == PSHM_SET_ALL)                                                          \
                    res_ = 0;                                                                      \
                break;                                                                             \
            }                                                                                      \
            pshm_wait_step(&w_, (ivars), (nelems));                                                \
        }                                                                                          \
        pshm_wait_end(&w_);                                                                        \
        atomic_thread_fence(memory_order_acquire);                                                 \
        res_;                                                                                      \
    })

#endif
