/*
 * Requests of the explicit non-blocking operations: creation, joining,
 * merging, test and wait.  The rules are in docs/extensions.md; the
 * transport side is the ABI 2.2 nbe ops of core/transport.h.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "error.h"
#include "request.h"

#define REQ_LIVE 0x4c514552u  /* "REQL" */
#define REQ_FREED 0x45455246u /* "FREE" */

/* One context's share of a request.  Empty (t == 0, !quiet) once tested
 * complete, so that later operations on that context may reuse it. */
struct req_part {
    struct pshm_ctx *ctx;
    pshm_treq t;       /* the transport's word (nbe ops) */
    unsigned char quiet; /* issued as _nbi: complete by a quiet of ctx */
};

/* AMO operands, which the transport may read until completion: blocks
 * that never move, so pointers into them stay valid. */
struct operands {
    struct operands *next;
    unsigned used;
    uint64_t v[62];
};

struct pshm_request {
    uint32_t magic;
    unsigned n, cap;
    struct req_part *parts; /* one[] until it outgrows it */
    struct req_part one[2];
    struct operands *opnd;
    struct pshm_request *next; /* spare list, or SHMEM_DEBUG's freed list */
};

/* Spare requests of this thread, so that a request per batch costs no
 * malloc; a pthread key frees them when the thread ends. */
#define SPARE_MAX 16
/* initial-exec: the library is linked, not dlopened, and the default
 * model made each access a call to __tls_get_addr. */
#define TLS_IE __attribute__((tls_model("initial-exec")))
static _Thread_local struct pshm_request *spare TLS_IE;
static _Thread_local unsigned nspare TLS_IE;
static pthread_key_t spare_key;
static pthread_once_t spare_once = PTHREAD_ONCE_INIT;

/* Under SHMEM_DEBUG freed requests are kept, marked, until finalize: a
 * stale copy of a handle then meets REQ_FREED rather than a reused one. */
static struct pshm_request *freed;
static pthread_mutex_t freed_lock = PTHREAD_MUTEX_INITIALIZER;

static void spare_drop(void *unused)
{
    (void)unused;
    while (spare) {
        struct pshm_request *r = spare;
        spare = r->next;
        free(r);
    }
    nspare = 0;
}

static void spare_key_make(void) { (void)pthread_key_create(&spare_key, spare_drop); }

static struct pshm_request *req_new(const char *routine)
{
    struct pshm_request *r = spare;
    if (r) {
        spare = r->next;
        nspare--;
    } else if (!(r = malloc(sizeof *r))) {
        pshm_fatal("%s: out of memory for a request", routine);
    }
    r->magic = REQ_LIVE;
    r->n = 0;
    r->cap = 2;
    r->parts = r->one;
    r->opnd = NULL;
    r->next = NULL;
    return r;
}

static void req_release(struct pshm_request *r)
{
    while (r->opnd) {
        struct operands *o = r->opnd;
        r->opnd = o->next;
        free(o);
    }
    if (r->parts != r->one)
        free(r->parts);
    if (PSHM_UNLIKELY(pshm_g.debug)) {
        r->magic = REQ_FREED;
        pthread_mutex_lock(&freed_lock);
        r->next = freed;
        freed = r;
        pthread_mutex_unlock(&freed_lock);
        return;
    }
    r->magic = 0;
    if (nspare >= SPARE_MAX) {
        free(r);
        return;
    }
    if (!spare) {
        pthread_once(&spare_once, spare_key_make);
        (void)pthread_setspecific(spare_key, (void *)1); /* so the destructor runs */
    }
    r->next = spare;
    spare = r;
    nspare++;
}

void pshm_requests_fini(void)
{
    pthread_mutex_lock(&freed_lock);
    while (freed) {
        struct pshm_request *r = freed;
        freed = r->next;
        free(r);
    }
    pthread_mutex_unlock(&freed_lock);
    spare_drop(NULL);
}

/* SHMEM_DEBUG: a handle must be a live request. */
static void check_live(const char *routine, const char *what, struct pshm_request *r)
{
    if (r->magic == REQ_FREED)
        pshm_fatal("%s: %s was already completed or freed (a copy of a handle that "
                   "shmemx_request_wait, _test, _free or _merge released)",
                   routine, what);
    if (r->magic != REQ_LIVE)
        pshm_fatal("%s: %s (%p) is not a request of this library", routine, what, (void *)r);
}

/* The request an nbe call joins, made if *req is SHMEMX_REQUEST_NULL. */
static struct pshm_request *join(const char *routine, shmemx_request_h *req)
{
    if (PSHM_UNLIKELY(!req))
        pshm_fatal("%s: req is NULL; pass the address of a shmemx_request_h (SHMEMX_REQUEST_NULL "
                   "starts a new request)",
                   routine);
    struct pshm_request *r = *req;
    if (!r)
        return *req = req_new(routine);
    if (PSHM_UNLIKELY(pshm_g.debug))
        check_live(routine, "*req", r);
    return r;
}

static struct req_part *part_append(const char *routine, struct pshm_request *r,
                                    struct pshm_ctx *c)
{
    if (r->n == r->cap) {
        struct req_part *p = malloc(2 * r->cap * sizeof *p);
        if (!p)
            pshm_fatal("%s: out of memory for a request", routine);
        memcpy(p, r->parts, r->n * sizeof *p);
        if (r->parts != r->one)
            free(r->parts);
        r->parts = p;
        r->cap *= 2;
    }
    struct req_part *p = &r->parts[r->n++];
    p->ctx = c;
    p->t = 0;
    p->quiet = 0;
    return p;
}

static struct req_part *part_for(const char *routine, struct pshm_request *r, struct pshm_ctx *c)
{
    if (PSHM_LIKELY(r->n) && PSHM_LIKELY(r->parts[r->n - 1].ctx == c))
        return &r->parts[r->n - 1];
    for (unsigned i = 0; i < r->n; i++)
        if (r->parts[i].ctx == c)
            return &r->parts[i];
    return part_append(routine, r, c);
}

static uint64_t *operand_cells(const char *routine, struct pshm_request *r)
{
    struct operands *o = r->opnd;
    if (!o || o->used + 2 > sizeof o->v / sizeof o->v[0]) {
        if (!(o = malloc(sizeof *o)))
            pshm_fatal("%s: out of memory for a request", routine);
        o->used = 0;
        o->next = r->opnd;
        r->opnd = o;
    }
    uint64_t *c = &o->v[o->used];
    o->used += 2;
    return c;
}

void pshm_nbe_rma_slow(const char *routine, struct pshm_ctx *c, void *dst, const void *src,
                       size_t n, int pe, int put, shmemx_request_h *req)
{
    pshm_check_pe(routine, pe);
    struct pshm_request *r = join(routine, req);
    if (!n)
        return;
    size_t off;
    int s = pshm_range_or_die(routine, put ? "dest" : "source", put ? dst : src, n, &off);
    char *b = pshm_route_base(pe, s);
    if (b) { /* on-node: complete now */
        memcpy(put ? b + off : dst, put ? src : b + off, n);
        return;
    }
    struct req_part *p = part_for(routine, r, c);
    const pshm_transport_ops *tp = pshm_g.tp;
    if (tp->put_nbe) {
        if (put)
            tp->put_nbe(c->t, pe, s, off, src, n, &p->t);
        else
            tp->get_nbe(c->t, pe, s, off, dst, n, &p->t);
        return;
    }
    if (put)
        tp->put_nbi(c->t, pe, s, off, src, n);
    else
        tp->get_nbi(c->t, pe, s, off, dst, n);
    p->quiet = 1;
}

void pshm_nbe_amo(const char *routine, struct pshm_ctx *c, void *fetch, void *dst, int pe, int op,
                  int type, uint64_t v, uint64_t cmp, shmemx_request_h *req)
{
    pshm_check_pe(routine, pe);
    struct pshm_request *r = join(routine, req);
    size_t w = type == PSHM_T_U32 ? 4 : 8;
    if (PSHM_UNLIKELY(pshm_g.debug) && !fetch)
        pshm_fatal("%s: fetch is NULL", routine);
    size_t off;
    int s = pshm_range_or_die(routine, "dest", dst, w, &off);
    if (PSHM_UNLIKELY(pshm_g.debug) && (off & (w - 1)))
        pshm_fatal("%s: address %p is not aligned to its %zu-byte type", routine, dst, w);
    char *b = pshm_route_amo(pe, s);
    if (b) { /* on-node: complete now */
        if (w == 4) {
            uint32_t old = PSHM_CPU_AMO((uint32_t *)(b + off), op, (uint32_t)v, (uint32_t)cmp);
            memcpy(fetch, &old, 4);
        } else {
            uint64_t old = PSHM_CPU_AMO((uint64_t *)(b + off), op, v, cmp);
            memcpy(fetch, &old, 8);
        }
        return;
    }
    struct req_part *p = part_for(routine, r, c);
    uint64_t *o = operand_cells(routine, r);
    if (w == 4) { /* the 4-byte operand at the cell's address */
        uint32_t v4 = (uint32_t)v, c4 = (uint32_t)cmp;
        memcpy(&o[0], &v4, 4);
        memcpy(&o[1], &c4, 4);
    } else {
        o[0] = v;
        o[1] = cmp;
    }
    const void *compare = op == PSHM_AMO_CSWAP ? &o[1] : NULL;
    if (pshm_g.tp->amo_nbe) {
        pshm_g.tp->amo_nbe(c->t, pe, s, off, op, type, &o[0], compare, fetch, &p->t);
        return;
    }
    pshm_g.tp->amo(c->t, pe, s, off, op, type, &o[0], compare, fetch, 1);
    p->quiet = 1;
}

/* Whether every part is complete; completes parts that need a quiet. */
static int req_done(struct pshm_request *r)
{
    int all = 1;
    for (unsigned i = 0; i < r->n; i++) {
        struct req_part *p = &r->parts[i];
        if (p->quiet) {
            pshm_quiet(p->ctx);
            p->quiet = 0;
            p->t = 0; /* the quiet completed the transport's share too */
        }
        if (p->t) {
            if (!pshm_g.tp->req_test(p->ctx->t, p->t)) {
                all = 0;
                continue;
            }
            p->t = 0;
        }
    }
    /* On-node operations were stores: make them visible before saying so. */
    atomic_thread_fence(memory_order_seq_cst);
    return all;
}

static struct pshm_request *handle(const char *routine, shmemx_request_h *req)
{
    if (PSHM_UNLIKELY(!req))
        pshm_fatal("%s: req is NULL; pass the address of a shmemx_request_h", routine);
    struct pshm_request *r = *req;
    if (r && PSHM_UNLIKELY(pshm_g.debug))
        check_live(routine, "*req", r);
    return r;
}

static void wait_done(struct pshm_request *r)
{
    unsigned spins = 0;
    while (!req_done(r)) {
        if (++spins > 64)
            sched_yield(); /* the transport's req_test drives progress */
        else
            pshm_cpu_relax();
    }
}

/* Completes the request's operations, releases it and nulls the handle:
 * what wait does, and free too (the operations may read or write the
 * program's buffers until they complete). */
static int finish(const char *routine, shmemx_request_h *req)
{
    struct pshm_request *r = handle(routine, req);
    if (!r)
        return 0;
    wait_done(r);
    req_release(r);
    *req = SHMEMX_REQUEST_NULL;
    return 0;
}

PSHM_API int pshmemx_request_wait(shmemx_request_h *req)
{
    PSHM_CHECK_INIT("shmemx_request_wait");
    return finish("shmemx_request_wait", req);
}
#pragma weak shmemx_request_wait = pshmemx_request_wait

PSHM_API int pshmemx_request_test(shmemx_request_h *req, int *flag)
{
    PSHM_CHECK_INIT("shmemx_request_test");
    struct pshm_request *r = handle("shmemx_request_test", req);
    if (PSHM_UNLIKELY(!flag))
        pshm_fatal("shmemx_request_test: flag is NULL");
    if (r) {
        if (!req_done(r)) {
            if (pshm_g.tp_progress)
                pshm_g.tp->progress();
            *flag = 0;
            return 0;
        }
        req_release(r);
        *req = SHMEMX_REQUEST_NULL;
    }
    *flag = 1;
    return 0;
}
#pragma weak shmemx_request_test = pshmemx_request_test

PSHM_API int pshmemx_request_alloc(long hints, shmemx_request_h *req)
{
    PSHM_CHECK_INIT("shmemx_request_alloc");
    (void)hints; /* none defined yet */
    if (PSHM_UNLIKELY(!req))
        pshm_fatal("shmemx_request_alloc: req is NULL");
    if (PSHM_UNLIKELY(pshm_g.debug) && *req) {
        check_live("shmemx_request_alloc", "*req", *req);
        pshm_fatal("shmemx_request_alloc: *req is an active request; wait for or free it first "
                   "(its operations would be lost)");
    }
    *req = req_new("shmemx_request_alloc");
    return 0;
}
#pragma weak shmemx_request_alloc = pshmemx_request_alloc

PSHM_API int pshmemx_request_free(shmemx_request_h *req)
{
    PSHM_CHECK_INIT("shmemx_request_free");
    return finish("shmemx_request_free", req);
}
#pragma weak shmemx_request_free = pshmemx_request_free

/* Moves src's parts and operands into dst; frees src. */
static void absorb(struct pshm_request *dst, struct pshm_request *src)
{
    for (unsigned i = 0; i < src->n; i++) {
        struct req_part *s = &src->parts[i];
        if (!s->t && !s->quiet)
            continue;
        /* Two parts of one context stay apart: each transport word is
         * whole, and is tested on its own. */
        struct req_part *d = part_append("shmemx_request_merge", dst, s->ctx);
        d->t = s->t;
        d->quiet = s->quiet;
    }
    struct operands **tail = &dst->opnd;
    while (*tail)
        tail = &(*tail)->next;
    *tail = src->opnd;
    src->opnd = NULL;
    src->n = 0;
    req_release(src);
}

PSHM_API int pshmemx_request_merge(size_t count, shmemx_request_h **reqs, shmemx_request_h *merged)
{
    PSHM_CHECK_INIT("shmemx_request_merge");
    const char *routine = "shmemx_request_merge";
    if (PSHM_UNLIKELY(!merged))
        pshm_fatal("%s: merged is NULL", routine);
    if (PSHM_UNLIKELY(count && !reqs))
        pshm_fatal("%s: reqs is NULL with count=%zu", routine, count);
    struct pshm_request *m = handle(routine, merged);
    for (size_t i = 0; i < count; i++) {
        if (!reqs[i] || !*reqs[i]) {
            if (PSHM_UNLIKELY(pshm_g.debug))
                pshm_fatal("%s: reqs[%zu] %s; merge takes active requests", routine, i,
                           !reqs[i] ? "is NULL" : "points to SHMEMX_REQUEST_NULL");
            continue;
        }
        struct pshm_request *r = *reqs[i];
        if (PSHM_UNLIKELY(pshm_g.debug)) {
            char what[32];
            snprintf(what, sizeof what, "*reqs[%zu]", i);
            check_live(routine, what, r);
        }
        if (r == m)
            continue;
        if (!m) {
            m = r; /* the first becomes the merged one */
        } else {
            absorb(m, r);
        }
        *reqs[i] = SHMEMX_REQUEST_NULL;
    }
    if (!m)
        m = req_new(routine);
    *merged = m;
    return 0;
}
#pragma weak shmemx_request_merge = pshmemx_request_merge
