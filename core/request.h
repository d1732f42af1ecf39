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

void pshm_nbe_rma(const char *routine, struct pshm_ctx *c, void *dst, const void *src, size_t n,
                  int pe, int put, shmemx_request_h *req) PSHM_HIDDEN;
/* op and type as in transport.h; v and cmp hold the operand's bits. */
void pshm_nbe_amo(const char *routine, struct pshm_ctx *c, void *fetch, void *dst, int pe, int op,
                  int type, uint64_t v, uint64_t cmp, shmemx_request_h *req) PSHM_HIDDEN;

/* At shmem_finalize: frees what requests keep for later (SHMEM_DEBUG's
 * record of freed requests, this thread's spare ones). */
void pshm_requests_fini(void) PSHM_HIDDEN;

#endif
