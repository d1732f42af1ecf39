/*
 * Explicit non-blocking operations (shmemx_*_nbe) and their requests.
 * A request holds one part per context it has operations on: the
 * transport's word for that (request, context) (pshm_treq), or a mark
 * that completing it takes a quiet of the context (transports without the
 * nbe ops).  Operations on mapped peers complete before the call returns
 * and leave no trace.
 */
#ifndef PSHM_REQUEST_H
#define PSHM_REQUEST_H

#include "api.h"

void pshm_nbe_rma_slow(const char *routine, struct pshm_ctx *c, void *dst, const void *src,
                       size_t n, int pe, int put, shmemx_request_h *req) PSHM_HIDDEN;

/* The on-node heap case inline, as pshm_rma's: a copy, once the request
 * exists (heap_fast_len is 0 under SHMEM_DEBUG, which checks everything
 * on the slow path). */
PSHM_INLINE void pshm_nbe_rma(const char *routine, struct pshm_ctx *c, void *dst, const void *src,
                              size_t n, int pe, int put, shmemx_request_h *req)
{
    uintptr_t off = (uintptr_t)(put ? dst : src) - pshm_g.heap_lo;
    char *b;
    if (PSHM_LIKELY(req != NULL && *req != NULL && off + n <= pshm_g.heap_fast_len &&
                    PSHM_PE_OK(pe) && (b = pshm_g.peer[pe].base[PSHM_SEG_HEAP]) != NULL)) {
        pshm_copy(put ? b + off : dst, put ? src : b + off, n);
        return;
    }
    pshm_nbe_rma_slow(routine, c, dst, src, n, pe, put, req);
}
/* op and type as in transport.h; v and cmp hold the operand's bits. */
void pshm_nbe_amo(const char *routine, struct pshm_ctx *c, void *fetch, void *dst, int pe, int op,
                  int type, uint64_t v, uint64_t cmp, shmemx_request_h *req) PSHM_HIDDEN;

/* At shmem_finalize: frees what requests keep for later (SHMEM_DEBUG's
 * record of freed requests, this thread's spare ones). */
void pshm_requests_fini(void) PSHM_HIDDEN;

#endif
