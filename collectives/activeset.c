/* The deprecated active-set collectives.  An active set equal to the world
 * team runs the team algorithms (and leaves pSync untouched, so it still
 * holds SHMEM_SYNC_VALUE).  Any other active set synchronizes through its
 * pSync: a dissemination barrier whose round k counter, pSync[k], the
 * sender increments and the receiver decrements with atomics, so pSync is
 * back at SHMEM_SYNC_VALUE when the call returns, and a PE already in the
 * next call on the same pSync only leaves a count behind.  Data moves by
 * pushes into dest, completed before the closing barrier.  Under
 * SHMEM_COLLECTIVES=NAME a set runs on a cached team of the component instead
 * (coll_ext.c), with pSync untouched. */
#include <stdlib.h>

#include "coll.h"
#include "coll_ext_int.h"
#include "coll_state.h"
#include "error.h"

#define AS_SIZE_WORD 40 /* pSync word that briefly holds a PE's collect size */

static int is_world(int start, int logstride, int size)
{
    return start == 0 && size == pshm_g.n_pes && (logstride == 0 || size == 1);
}

static inline int as_pe(int start, int logstride, int i) { return start + (i << logstride); }

/* This PE's index in the active set, or -1 if it is not a member: the
 * call is then erroneous, but programs make it (a PE skipping an active
 * set it is not in by calling anyway), and other implementations return
 * without effect, so this one does too, saying so once under SHMEM_DEBUG. */
static int as_index(const char *routine, int start, int logstride, int size)
{
    if (logstride < 0 || logstride > 30 || size < 1 || start < 0 ||
        as_pe(start, logstride, size - 1) >= pshm_g.n_pes)
        pshm_fatal("%s: the active set (PE_start %d, logPE_stride %d, PE_size %d) is not within "
                   "PEs 0..%d",
                   routine, start, logstride, size, pshm_g.n_pes - 1);
    int d = pshm_g.my_pe - start;
    if (d < 0 || d & ((1 << logstride) - 1) || (d >> logstride) >= size) {
        static int said;
        if (pshm_g.debug && !said++)
            pshm_error("%s: PE %d is not in the active set (PE_start %d, logPE_stride %d, "
                       "PE_size %d); the call has no effect (reported once)",
                       routine, pshm_g.my_pe, start, logstride, size);
        return -1;
    }
    return d >> logstride;
}

static void sync_set(const char *routine, int me, int start, int logstride, int size, long *pSync)
{
    for (int k = 0, d = 1; d < size; k++, d <<= 1) {
        int to = as_pe(start, logstride, (me + d) % size);
        pshm_amo_n64(routine, &pshm_ctx_default, &pSync[k], to, PSHM_AMO_ADD, 1);
        struct pshm_wait w = {0};
        while (__atomic_load_n(&pSync[k], __ATOMIC_ACQUIRE) < SHMEM_SYNC_VALUE + 1)
            pshm_wait_step(&w, &pSync[k], 1);
        pshm_wait_end(&w);
        /* Fetching, so that it is complete (pSync restored) on return. */
        (void)pshm_amo_f64(routine, &pshm_ctx_default, &pSync[k], pshm_g.my_pe, PSHM_AMO_ADD,
                           (uint64_t)-1, 0);
    }
}

void pshm_as_barrier(const char *routine, int start, int logstride, int size, long *pSync, int quiet)
{
    PSHM_CHECK_INIT(routine);
    pshm_coll_routine = routine;
    if (quiet)
        pshm_quiet(&pshm_ctx_default);
    coll_complete();
    if (is_world(start, logstride, size)) {
        pshm_coll.barrier(&pshm_team_world);
        return;
    }
    int me = as_index(routine, start, logstride, size);
    if (me < 0)
        return;
    void *h;
    const struct pshm_cext *x = pshm_cext_as(start, logstride, size, me, &h);
    if (x && x->barrier(h) == 0)
        return;
    sync_set(routine, me, start, logstride, size, pSync);
}

void pshm_as_broadcast(const char *routine, void *dest, const void *src, size_t nbytes, int root,
                       int start, int logstride, int size, long *pSync)
{
    PSHM_CHECK_INIT(routine);
    pshm_coll_routine = routine;
    if (root < 0 || root >= size)
        pshm_fatal("%s: PE_root %d is not an index of the active set (0..%d)", routine, root,
                   size - 1);
    if (is_world(start, logstride, size)) {
        /* The active-set form leaves the root's dest alone. */
        void *save = NULL;
        if (pshm_g.my_pe == root && dest != src && nbytes) {
            save = malloc(nbytes);
            if (!save)
                pshm_fatal("%s: out of memory (%zu bytes)", routine, nbytes);
            memcpy(save, dest, nbytes);
        }
        pshm_coll.broadcast(&pshm_team_world, dest, src, nbytes, root);
        if (save) {
            memcpy(dest, save, nbytes);
            free(save);
        }
        return;
    }
    int me = as_index(routine, start, logstride, size);
    if (me < 0)
        return;
    void *h;
    const struct pshm_cext *x = pshm_cext_as(start, logstride, size, me, &h);
    if (x && x->broadcast(h, dest, src, nbytes, root, 0) == 0)
        return;
    if (me == root)
        for (int i = 1; i < size; i++)
            coll_put(dest, src, nbytes, as_pe(start, logstride, (me + i) % size));
    coll_complete();
    sync_set(routine, me, start, logstride, size, pSync);
}

void pshm_as_collect(const char *routine, void *dest, const void *src, size_t nbytes, int fixed,
                     int start, int logstride, int size, long *pSync)
{
    PSHM_CHECK_INIT(routine);
    pshm_coll_routine = routine;
    if (is_world(start, logstride, size)) {
        if (fixed)
            pshm_coll.fcollect(&pshm_team_world, dest, src, nbytes);
        else
            pshm_coll.collect(&pshm_team_world, dest, src, nbytes);
        return;
    }
    int me = as_index(routine, start, logstride, size);
    if (me < 0)
        return;
    void *h;
    const struct pshm_cext *x = pshm_cext_as(start, logstride, size, me, &h);
    if (x && (fixed ? x->fcollect(h, dest, src, nbytes) : x->collect(h, dest, src, nbytes)) == 0)
        return;
    size_t off = (size_t)me * nbytes;
    if (!fixed) {
        /* Sizes travel through one pSync word, restored before returning. */
        __atomic_store_n(&pSync[AS_SIZE_WORD], (long)nbytes, __ATOMIC_RELEASE);
        coll_complete();
        sync_set(routine, me, start, logstride, size, pSync);
        off = 0;
        for (int i = 0; i < me; i++) {
            long v;
            coll_get(&v, &pSync[AS_SIZE_WORD], sizeof v, as_pe(start, logstride, i));
            off += (size_t)v;
        }
    }
    for (int i = 0; i < size; i++)
        coll_put((char *)dest + off, src, nbytes, as_pe(start, logstride, (me + i) % size));
    coll_complete();
    sync_set(routine, me, start, logstride, size, pSync);
    if (!fixed)
        __atomic_store_n(&pSync[AS_SIZE_WORD], SHMEM_SYNC_VALUE, __ATOMIC_RELEASE);
}

void pshm_as_alltoalls(const char *routine, void *dest, const void *src, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems, size_t esize, int start, int logstride,
                       int size, long *pSync)
{
    PSHM_CHECK_INIT(routine);
    pshm_coll_routine = routine;
    if (dst < 1 || sst < 1)
        pshm_fatal("%s: strides must be >= 1 (dst %td, sst %td)", routine, dst, sst);
    if (is_world(start, logstride, size)) {
        if (dst == 1 && sst == 1)
            pshm_coll.alltoall(&pshm_team_world, dest, src, nelems * esize);
        else
            pshm_coll.alltoalls(&pshm_team_world, dest, src, dst, sst, nelems, esize);
        return;
    }
    int me = as_index(routine, start, logstride, size);
    if (me < 0)
        return;
    void *h;
    const struct pshm_cext *x = pshm_cext_as(start, logstride, size, me, &h);
    if (x && (dst == 1 && sst == 1 ? x->alltoall(h, dest, src, nelems * esize)
                                   : x->alltoalls(h, dest, src, dst, sst, nelems, esize)) == 0)
        return;
    for (int i = 0; i < size; i++) {
        int j = (me + i) % size, w = as_pe(start, logstride, j);
        char *d = (char *)dest + (ptrdiff_t)((size_t)me * nelems) * dst * (ptrdiff_t)esize;
        const char *s = (const char *)src + (ptrdiff_t)((size_t)j * nelems) * sst * (ptrdiff_t)esize;
        if (dst == 1 && sst == 1)
            coll_put(d, s, nelems * esize, w);
        else
            for (size_t k = 0; k < nelems; k++)
                coll_put(d + (ptrdiff_t)k * dst * (ptrdiff_t)esize,
                         s + (ptrdiff_t)k * sst * (ptrdiff_t)esize, esize, w);
    }
    coll_complete();
    sync_set(routine, me, start, logstride, size, pSync);
}

#define AS_CHUNK 8192

void pshm_as_reduce(const char *routine, void *dest, const void *src, int count,
                    const struct pshm_red *r, int start, int logstride, int size, long *pSync)
{
    PSHM_CHECK_INIT(routine);
    pshm_coll_routine = routine;
    if (count < 0)
        pshm_fatal("%s: nreduce %d is negative", routine, count);
    if (is_world(start, logstride, size)) {
        pshm_coll.reduce(&pshm_team_world, dest, src, (size_t)count, r);
        return;
    }
    int me = as_index(routine, start, logstride, size);
    if (me < 0)
        return;
    void *h;
    const struct pshm_cext *x = pshm_cext_as(start, logstride, size, me, &h);
    if (x && x->reduce(h, dest, src, (size_t)count, r->esize, r->type, r->op) == 0)
        return;
    size_t es = r->esize, bytes = (size_t)count * es;
    unsigned char *res = bytes ? malloc(bytes) : NULL;
    if (bytes && !res)
        pshm_fatal("%s: out of memory (%zu bytes)", routine, bytes);
    _Alignas(64) unsigned char in[AS_CHUNK];
    size_t cm = AS_CHUNK / es;
    sync_set(routine, me, start, logstride, size, pSync); /* every source is ready */
    for (size_t off = 0; off < (size_t)count; off += cm) {
        size_t m = (size_t)count - off < cm ? (size_t)count - off : cm, b = m * es;
        const unsigned char *s = (const unsigned char *)src + off * es;
        for (int i = 0; i < size; i++) {
            coll_get(in, s, b, as_pe(start, logstride, i));
            if (i == 0)
                memcpy(res + off * es, in, b);
            else
                r->fn(res + off * es, in, m);
        }
    }
    sync_set(routine, me, start, logstride, size, pSync); /* no source is read any more */
    if (bytes)
        memcpy(dest, res, bytes);
    free(res);
}
