/* Tagged messages (ABI 2.5) on the default endpoint: the collectives' way
 * between nodes.  Their completions are the only entries the endpoint's
 * CQ gets besides errors (everything else is counted): each carries the
 * core's done flag as its context.  The CQ is read by the waits that
 * call progress, never by the progress thread (see poll_ep), and only
 * while messages are outstanding. */
#include <sys/uio.h>

#include "ofi.h"

static uint64_t pending; /* messages posted, not yet reaped; under dflt's lock */

/* Sets the done flags of completed messages (dflt held).  One read
 * unless it filled the array: each is a trip through the sockets. */
static void reap(void)
{
    struct fi_cq_entry e[16];
    ssize_t n;
    do {
        n = fi_cq_read(dflt.cq, e, 16);
        for (ssize_t i = 0; i < n; i++)
            __atomic_store_n((uint64_t *)e[i].op_context, 1, __ATOMIC_RELEASE);
        if (n > 0)
            __atomic_store_n(&pending, pending - (uint64_t)n, __ATOMIC_RELAXED);
    } while (n == 16 && pending);
    if (n == -FI_EAVAIL)
        ofi_op_error(&dflt);
    if (n < 0 && n != -FI_EAGAIN && n != -FI_EAVAIL)
        ofi_fail("fi_cq_read", n);
}

int ofi_msg_poll(void)
{
    if (!__atomic_load_n(&pending, __ATOMIC_RELAXED))
        return 0;
    if (dflt.locked) {
        if (!pshm_lock_try(&dflt.lock))
            return 1; /* another thread is in the endpoint */
        reap();
        pshm_unlock(&dflt.lock);
    } else {
        reap();
    }
    return 1;
}

/* A full queue may wait on completions nobody reads but us. */
static void drive_msgs(unsigned *spins)
{
    poll_ep(&dflt);
    reap();
    pshm_backoff(spins);
}

#define POST(what, call) RETRY(what, call, drive_msgs(&sp_))

void ofi_msg_send(int pe, uint64_t tag, const void *buf, size_t len, uint64_t *done)
{
    /* The program is in the library: the progress thread may rest.  A
     * broadcast's root only sends, and never waits to say so otherwise. */
    pshm_progress_poke(&g.pt);
    ENTER(&dflt);
    if (len <= g.info->tx_attr->inject_size) {
        POST("fi_tinject", fi_tinject(dflt.ep, buf, len, (fi_addr_t)pe, tag));
        __atomic_store_n(done, 1, __ATOMIC_RELEASE);
    } else {
        struct iovec iov = {(void *)buf, len};
        struct fi_msg_tagged m = {
            .msg_iov = &iov, .iov_count = 1, .addr = (fi_addr_t)pe, .tag = tag, .context = done};
        POST("fi_tsendmsg", fi_tsendmsg(dflt.ep, &m, FI_COMPLETION));
        __atomic_store_n(&pending, pending + 1, __ATOMIC_RELAXED);
    }
    LEAVE(&dflt);
}

void ofi_msg_recv(uint64_t tag, void *buf, size_t len, uint64_t *done)
{
    struct iovec iov = {buf, len};
    struct fi_msg_tagged m = {
        .msg_iov = &iov, .iov_count = 1, .addr = FI_ADDR_UNSPEC, .tag = tag, .context = done};
    ENTER(&dflt);
    POST("fi_trecvmsg", fi_trecvmsg(dflt.ep, &m, FI_COMPLETION));
    __atomic_store_n(&pending, pending + 1, __ATOMIC_RELAXED);
    LEAVE(&dflt);
}
