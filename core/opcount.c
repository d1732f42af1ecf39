/*
 * SHMEM_COUNT_OPS=1: every operation the core hands the transport is
 * counted, and each PE prints its counts at shmem_finalize.  With the
 * bypass on, that is exactly what crosses the network, so a test can hold
 * an algorithm to the messages it should send (tests/coll/msgcount.sh).
 * The counting shims replace the plugin's entries in the core's own copy
 * of its table: nothing is added to the path when the setting is off.
 */
#include <stdio.h>

#include "api.h"
#include "config.h"
#include "opcount.h"

static pshm_transport_ops real;
static unsigned long n_put, n_get, n_amo, n_signal, n_msg;

static void c_put(pshm_tctx c, int pe, int seg, size_t off, const void *src, size_t len)
{
    __atomic_fetch_add(&n_put, 1, __ATOMIC_RELAXED);
    real.put(c, pe, seg, off, src, len);
}

static void c_p(pshm_tctx c, int pe, int seg, size_t off, uint64_t v, size_t len)
{
    __atomic_fetch_add(&n_put, 1, __ATOMIC_RELAXED);
    real.p(c, pe, seg, off, v, len);
}

static void c_put_nbi(pshm_tctx c, int pe, int seg, size_t off, const void *src, size_t len)
{
    __atomic_fetch_add(&n_put, 1, __ATOMIC_RELAXED);
    real.put_nbi(c, pe, seg, off, src, len);
}

static void c_get(pshm_tctx c, int pe, int seg, size_t off, void *dst, size_t len)
{
    __atomic_fetch_add(&n_get, 1, __ATOMIC_RELAXED);
    real.get(c, pe, seg, off, dst, len);
}

static void c_get_nbi(pshm_tctx c, int pe, int seg, size_t off, void *dst, size_t len)
{
    __atomic_fetch_add(&n_get, 1, __ATOMIC_RELAXED);
    real.get_nbi(c, pe, seg, off, dst, len);
}

static void c_amo(pshm_tctx c, int pe, int seg, size_t off, int op, int type, const void *operand,
                  const void *compare, void *fetch, int nbi)
{
    __atomic_fetch_add(&n_amo, 1, __ATOMIC_RELAXED);
    real.amo(c, pe, seg, off, op, type, operand, compare, fetch, nbi);
}

static void c_put_signal(pshm_tctx c, int pe, int seg, size_t off, const void *src, size_t len,
                         int sig_seg, size_t sig_off, uint64_t signal, int sig_op, int nbi)
{
    __atomic_fetch_add(&n_signal, 1, __ATOMIC_RELAXED);
    real.put_signal(c, pe, seg, off, src, len, sig_seg, sig_off, signal, sig_op, nbi);
}

static void c_put_nbe(pshm_tctx c, int pe, int seg, size_t off, const void *src, size_t len,
                      pshm_treq *req)
{
    __atomic_fetch_add(&n_put, 1, __ATOMIC_RELAXED);
    real.put_nbe(c, pe, seg, off, src, len, req);
}

static void c_get_nbe(pshm_tctx c, int pe, int seg, size_t off, void *dst, size_t len,
                      pshm_treq *req)
{
    __atomic_fetch_add(&n_get, 1, __ATOMIC_RELAXED);
    real.get_nbe(c, pe, seg, off, dst, len, req);
}

static void c_amo_nbe(pshm_tctx c, int pe, int seg, size_t off, int op, int type,
                      const void *operand, const void *compare, void *fetch, pshm_treq *req)
{
    __atomic_fetch_add(&n_amo, 1, __ATOMIC_RELAXED);
    real.amo_nbe(c, pe, seg, off, op, type, operand, compare, fetch, req);
}

/* A message counts once, at its sender. */
static void c_msg_send(int pe, uint64_t tag, const void *buf, size_t len, uint64_t *done)
{
    __atomic_fetch_add(&n_msg, 1, __ATOMIC_RELAXED);
    real.msg_send(pe, tag, buf, len, done);
}

#define WRAP(op)                                                                                   \
    if (ops->op)                                                                                   \
    ops->op = c_##op

void pshm_opcount_wrap(pshm_transport_ops *ops)
{
    n_put = n_get = n_amo = n_signal = n_msg = 0;
    if (!pshm_cfg.count_ops)
        return;
    real = *ops;
    WRAP(put);
    WRAP(p);
    WRAP(put_nbi);
    WRAP(get);
    WRAP(get_nbi);
    WRAP(amo);
    WRAP(put_signal);
    WRAP(put_nbe);
    WRAP(get_nbe);
    WRAP(amo_nbe);
    WRAP(msg_send);
}

void pshm_opcount_report(void)
{
    if (!pshm_cfg.count_ops)
        return;
    fprintf(stderr,
            "plugshmem (PE %d): transport operations: put %lu get %lu amo %lu signal %lu msg %lu\n",
            pshm_g.my_pe, n_put, n_get, n_amo, n_signal, n_msg);
}
