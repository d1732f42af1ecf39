/*
 * The shm transport: every PE on one node.  The core already does put, get
 * and AMOs by load/store into peers' mapped segments; this plugin serves
 * what is not mapped (global data under SHMEM_GLOBALS=cma, everything under
 * SHMEM_BYPASS=0) by cross-memory attach, and AMOs there under a lock
 * table in a small shared segment so they are atomic among themselves.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cpu_relax.h"
#include "transport.h"

#define NLOCKS 4096

struct card {
    pid_t pid;
    uintptr_t base[PSHM_MAX_SEGS]; /* the built-in segments, then memory spaces */
    char locks_name[64];
};

static const pshm_core_services *svc;
static struct card *cards;
static unsigned *locks; /* NLOCKS locks shared by every PE */

static int shm_max_priority(const pshm_core_services *s)
{
    return s->n_local == s->n_pes ? 10 : -1;
}

static int shm_query(const pshm_core_services *s, char *why, size_t whylen)
{
    if (s->n_local != s->n_pes) {
        snprintf(why, whylen, "the job spans several nodes (%d of %d PEs on this one); shm serves "
                 "single-node jobs", s->n_local, s->n_pes);
        return -1;
    }
    return 10;
}

__attribute__((noreturn)) static void die(const char *what, int pe, int err)
{
    svc->fatal("shm transport: %s PE %d failed: %s", what, pe, strerror(err));
}

static void xfer(int is_write, int pe, int seg, size_t off, void *local, size_t len)
{
    uintptr_t remote = cards[pe].base[seg] + off;
    while (len) {
        struct iovec l = {local, len}, r = {(void *)remote, len};
        ssize_t n = is_write ? process_vm_writev(cards[pe].pid, &l, 1, &r, 1, 0)
                             : process_vm_readv(cards[pe].pid, &l, 1, &r, 1, 0);
        if (n <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            die(is_write ? "writing to" : "reading from", pe, n < 0 ? errno : EIO);
        }
        local = (char *)local + n;
        remote += (uintptr_t)n;
        len -= (size_t)n;
    }
}

static void shm_put(pshm_tctx c, int pe, int seg, size_t off, const void *src, size_t len)
{
    (void)c;
    xfer(1, pe, seg, off, (void *)src, len);
}

static void shm_get(pshm_tctx c, int pe, int seg, size_t off, void *dst, size_t len)
{
    (void)c;
    xfer(0, pe, seg, off, dst, len);
}

static unsigned *lock_for(int pe, int seg, size_t off)
{
    uint64_t h = ((uint64_t)pe * 0x9E3779B97F4A7C15ull) ^ ((off >> 3) * 0xC2B2AE3D27D4EB4Full) ^
                 (uint64_t)seg;
    return &locks[(h >> 20) % NLOCKS];
}

static long futex(unsigned *l, int op, unsigned val)
{
    return syscall(SYS_futex, l, op, val, NULL, NULL, 0);
}

/* A lock word is 0 (free), 1 (held) or 2 (held, and someone may sleep on
 * it).  The holder may be preempted when PEs outnumber cores, so waiters
 * sleep on the word (a futex in the shared segment) instead of yielding
 * in a loop; the holder makes a system call to wake only when the word
 * says 2. */
static void lock(unsigned *l)
{
    for (int spins = 0; spins < 100; spins++) {
        unsigned free_ = 0;
        if (__atomic_compare_exchange_n(l, &free_, 1u, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return;
        pshm_cpu_relax();
    }
    while (__atomic_exchange_n(l, 2u, __ATOMIC_ACQUIRE) != 0)
        futex(l, FUTEX_WAIT, 2u);
}

static void unlock(unsigned *l)
{
    if (__atomic_exchange_n(l, 0u, __ATOMIC_RELEASE) == 2u)
        futex(l, FUTEX_WAKE, 1u);
}

#define APPLY(T)                                                                                   \
    do {                                                                                           \
        T o, v, n;                                                                                 \
        memcpy(&o, old, sizeof o);                                                                 \
        memcpy(&v, operand, sizeof v);                                                             \
        switch (op) {                                                                              \
        case PSHM_AMO_ADD: n = o + v; break;                                                       \
        case PSHM_AMO_AND: n = o & v; break;                                                       \
        case PSHM_AMO_OR: n = o | v; break;                                                        \
        case PSHM_AMO_XOR: n = o ^ v; break;                                                       \
        case PSHM_AMO_SWAP:                                                                        \
        case PSHM_AMO_SET: n = v; break;                                                           \
        case PSHM_AMO_CSWAP: {                                                                     \
            T cmp;                                                                                 \
            memcpy(&cmp, compare, sizeof cmp);                                                     \
            n = o == cmp ? v : o;                                                                  \
            break;                                                                                 \
        }                                                                                          \
        default: n = o; break;                                                                     \
        }                                                                                          \
        memcpy(new, &n, sizeof n);                                                                 \
    } while (0)

static void shm_amo(pshm_tctx c, int pe, int seg, size_t off, int op, int type,
                    const void *operand, const void *compare, void *fetch, int nbi)
{
    (void)c;
    (void)nbi;
    size_t w = (type == PSHM_T_U32 || type == PSHM_T_FLOAT) ? 4 : 8;
    unsigned char old[8], new[8];
    unsigned *l = lock_for(pe, seg, off);
    lock(l);
    xfer(0, pe, seg, off, old, w);
    if (w == 4)
        APPLY(uint32_t);
    else
        APPLY(uint64_t);
    if (op != PSHM_AMO_READ)
        xfer(1, pe, seg, off, new, w);
    unlock(l);
    if (fetch)
        memcpy(fetch, old, w);
}

/* A memory space (ABI 2.1 seg_register): cross-memory attach needs only
 * every PE's address of it. */
static int shm_seg_register(int seg, void *base, size_t size)
{
    (void)size;
    uintptr_t mine = (uintptr_t)base, *all = calloc((size_t)svc->n_pes, sizeof *all);
    /* The peers are in the exchange: skipping it would leave them waiting. */
    if (!all)
        svc->fatal("shm transport: out of memory registering a memory space (%d peers)",
                    svc->n_pes);
    if (svc->allgather(&mine, all, sizeof mine)) {
        free(all);
        svc->error("shm transport: bootstrap exchange of a memory space's addresses failed");
        return -1;
    }
    for (int pe = 0; pe < svc->n_pes; pe++)
        cards[pe].base[seg] = all[pe];
    free(all);
    return 0;
}

static void shm_seg_deregister(int seg)
{
    for (int pe = 0; pe < svc->n_pes; pe++)
        cards[pe].base[seg] = 0;
}

static int shm_ctx_create(long options, pshm_tctx *ctx)
{
    (void)options;
    *ctx = NULL; /* every operation completes before it returns */
    return 0;
}

static void shm_ctx_destroy(pshm_tctx ctx) { (void)ctx; }

/* Every operation is done when it returns: no fence, quiet or _nbi forms. */
static const pshm_transport_ops ops = {
    .hdr = PSHM_ABI_HEADER(pshm_transport_ops),
    .caps = PSHM_CAP_THREAD_SAFE | PSHM_CAP_COMPLETE_ON_RETURN,
    .ctx_create = shm_ctx_create,
    .ctx_destroy = shm_ctx_destroy,
    .put = shm_put,
    .get = shm_get,
    .amo = shm_amo,
    .seg_register = shm_seg_register,
    .seg_deregister = shm_seg_deregister,
};

static int shm_init(const pshm_core_services *s, const pshm_transport_ops **out)
{
    svc = s;
    struct card mine;
    memset(&mine, 0, sizeof mine);
    mine.pid = getpid();
    for (int i = 0; i < PSHM_NSEGS; i++)
        mine.base[i] = (uintptr_t)s->seg[i].base;
    int leader = s->my_pe == 0;
    int fd = -1;
    if (leader && s->n_pes > 1) {
        unsigned char r[8];
        if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
            memset(r, 0x5a ^ (int)getpid(), sizeof r);
        const char *tag = s->getenv("PLUGSHMEM_JOB_TAG");
        snprintf(mine.locks_name, sizeof mine.locks_name, "/psm-%.20s-locks-%02x%02x%02x%02x%02x%02x",
                 tag && *tag ? tag : "x", r[0], r[1], r[2], r[3], r[4], r[5]);
        fd = shm_open(mine.locks_name, O_CREAT | O_EXCL | O_RDWR, 0600);
        if (fd < 0 || ftruncate(fd, NLOCKS * sizeof(unsigned))) {
            s->error("shm transport: cannot create %s: %s", mine.locks_name, strerror(errno));
            if (fd >= 0)
                shm_unlink(mine.locks_name);
            return -1;
        }
    }
    cards = calloc((size_t)s->n_pes, sizeof *cards);
    if (!cards || s->allgather(&mine, cards, sizeof mine))
        return -1;
    if (s->n_pes > 1 && fd < 0)
        fd = shm_open(cards[0].locks_name, O_RDWR, 0);
    if (s->n_pes > 1 && fd < 0) {
        s->error("shm transport: cannot open %s: %s", cards[0].locks_name, strerror(errno));
        return -1;
    }
    locks = fd >= 0 ? mmap(NULL, NLOCKS * sizeof(unsigned), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                    : mmap(NULL, NLOCKS * sizeof(unsigned), PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (fd >= 0)
        close(fd);
    int rc = s->barrier();
    if (leader && mine.locks_name[0])
        shm_unlink(mine.locks_name);
    if (locks == MAP_FAILED || rc)
        return -1;
    *out = &ops;
    return 0;
}

static void shm_fini(void)
{
    munmap(locks, NLOCKS * sizeof(unsigned));
    free(cards);
    cards = NULL;
}

/* Every op is complete on return (PSHM_CAP_COMPLETE_ON_RETURN): the core's
 * quiet fallback has nothing to wait for. */
PSHM_TRANSPORT_DEFINE("shm",
                      "single node: load/store into mapped heaps, cross-memory attach otherwise",
                      shm_query, shm_init, shm_fini, .max_priority = shm_max_priority,
                      .nbe_completion = "the call itself: every operation of this transport is "
                                        "complete when it returns");
