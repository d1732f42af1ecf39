/*
 * How long a wait polls before it lets the core go (SHMEM_WAIT_SPINS=auto).
 *
 * Polling pays when whoever we wait for has a core of its own, and costs
 * when it needs ours: then every poll is time taken from it.  PEs per core
 * is known at init; threads are not.  At SHMEM_THREAD_MULTIPLE each thread
 * that waits is counted (once, until it exits), and the node counts as
 * busy once PEs x waiting threads outnumber its cores.
 *
 * Why threads count: bench/threads/turns, 2 PEs of two threads taking
 * turns over ofi tcp on 2 cores, took 1-2 ms a turn while each waiter
 * polled its 16 384 turns (a poll over a network transport is a trip
 * through the sockets, about 1.5 us): the thread whose turn it was waited
 * for a core.  With the waiter polling twice, 80-100 us a turn.
 *
 * Over a transport whose waits poll it (ofi, ucx, mpi), a busy node's
 * budget is 2 polls: measured in that benchmark, each further poll cost a
 * turn 2.5 us (64 polls: 240 us a turn).  With load/store only, 64 short
 * pauses (a few microseconds) before the wait yields, then sleeps.
 */
#include <pthread.h>
#include <unistd.h>

#include "config.h"
#include "pshm.h"

#define SPINS_IDLE (1u << 14) /* a core to spare: poll a while */
#define SPINS_BUSY_LOCAL 64u  /* cores shared, load/store: a few us */
#define SPINS_BUSY_POLLED 2u  /* cores shared, each poll a transport call */
#define HOT_IDLE 1024u        /* polls without a pause when a core is spare */

static int automatic;         /* SHMEM_WAIT_SPINS was auto */
static unsigned long cores, local_pes;
static unsigned waiting;      /* threads that have waited, alive */
static pthread_key_t counted; /* non-NULL in a thread counted in waiting */
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void set_budget(unsigned threads)
{
    if (!automatic)
        return;
    unsigned long demand = local_pes * (threads ? threads : 1u);
    int busy = pshm_g.oversubscribed || demand > cores;
    unsigned spins = !busy ? SPINS_IDLE : pshm_g.tp_progress ? SPINS_BUSY_POLLED : SPINS_BUSY_LOCAL;
    /* Read by waiting threads without a lock: a stale value only makes
     * one wait poll longer or shorter. */
    __atomic_store_n(&pshm_cfg.wait_spins, spins, __ATOMIC_RELAXED);
    __atomic_store_n(&pshm_g.wait_hot, busy ? 0u : HOT_IDLE, __ATOMIC_RELAXED);
}

static void thread_gone(void *unused)
{
    (void)unused;
    set_budget(__atomic_sub_fetch(&waiting, 1u, __ATOMIC_RELAXED));
}

static void make_key(void) { pthread_key_create(&counted, thread_gone); }

void pshm_wait_budget_init(int n_local)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    cores = n > 0 ? (unsigned long)n : 1u;
    local_pes = n_local > 0 ? (unsigned long)n_local : 1u;
    pshm_g.oversubscribed = local_pes > cores;
    automatic = pshm_cfg.wait_spins == PSHM_WAIT_SPINS_AUTO;
    pshm_g.wait_hot = pshm_g.oversubscribed ? 0 : HOT_IDLE;
    if (automatic)
        pthread_once(&key_once, make_key);
    pshm_wait_budget_update();
}

void pshm_wait_budget_update(void) { set_budget(__atomic_load_n(&waiting, __ATOMIC_RELAXED)); }

void pshm_wait_thread_note(void)
{
    if (!automatic || pthread_getspecific(counted))
        return;
    pthread_setspecific(counted, &counted);
    set_budget(__atomic_add_fetch(&waiting, 1u, __ATOMIC_RELAXED));
}
