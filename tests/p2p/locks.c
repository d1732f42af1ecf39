/*
 * locks.c -- shmem_set_lock / shmem_test_lock / shmem_clear_lock.
 *
 * 1. Mutual exclusion: every PE increments counters on PE 0 and on the last
 *    PE with a get and a put inside the lock, thousands of times in all
 *    (global and heap lock words); the final values must be exact.
 * 2. test_lock: 0 when it acquires a free lock, nonzero while another PE
 *    holds it (and a failed test leaves no trace); a test_lock spin loop
 *    as the only way in must still exclude.
 * 3. Several locks at once: nested locks (global, then heap), an array of
 *    heap locks each guarding its own counter, and independence (PE 0
 *    holds one lock while the others use another).
 * 4. FIFO: inside the critical section each PE appends its number to a
 *    log on PE 0 and yields the CPU, so waiters queue up.  Each PE reads
 *    the log length atomically just before calling shmem_set_lock; at most
 *    npes-1 acquisitions by others may come between that read and its own
 *    (each other PE is in the queue at most once).  Every PE got its count.
 *    (Counting from a PE's previous acquisition instead is not
 *    scheduling-independent: between its release and its next request the
 *    PE is not queued and can be overtaken any number of times.)
 */
#include <sched.h>

#include "p2p_test.h"
#include <shmemx.h>

static long glock, glock2, glock_indep;
static long gcount, gcount2;
#define NLOCKS 8
static long garr_count[NLOCKS];

#define FIFO_ROUNDS 60
static int fifo_log[64 * FIFO_ROUNDS];
static long fifo_before[64 * FIFO_ROUNDS];
static long fifo_late; /* PE 0: acquisitions past the FIFO bound */
static long fifo_len;

int main(void)
{
    shmem_init();
    check_watchdog(150);
    int me = shmem_my_pe(), npes = shmem_n_pes(), last = npes - 1;
    REQUIRE_LE(npes, 64, "at most 64 PEs");

    long *hlock = shmem_calloc(1 + NLOCKS, sizeof(long));
    long *hcount = shmem_calloc(2, sizeof(long));
    REQUIRE(hlock && hcount, "allocation failed");
    long *hlocks = hlock + 1;

    /* ---- 1. mutual exclusion ------------------------------------------ */
    check_stage("mutex");
    const char *tp = shmemx_transport_name();
    int scale = (tp && strcmp(tp, "shm") == 0) ? 10 : 1; /* fewer over a network */
    int iters = 800 * scale / npes; /* 8000 acquisitions of each lock in all on shm */
    for (int i = 0; i < iters; i++) {
        shmem_set_lock(&glock);
        long v = shmem_long_g(&gcount, 0);
        shmem_long_p(&gcount, v + 1, 0);
        shmem_clear_lock(&glock);

        shmem_set_lock(hlock);
        long w = shmem_long_g(&hcount[0], last);
        shmem_long_p(&hcount[0], w + 2, last);
        shmem_clear_lock(hlock);
    }
    shmem_barrier_all();
    if (me == 0)
        REQUIRE_EQ(gcount, (long)iters * npes,
                   "global lock: counter on PE 0 is %ld after %d x %d locked increments", gcount,
                   npes, iters);
    if (me == last)
        REQUIRE_EQ(hcount[0], 2L * iters * npes, "heap lock: counter on PE %d is %ld, expected %ld",
                   last, hcount[0], 2L * iters * npes);
    shmem_barrier_all();

    /* ---- 2. test_lock ---------------------------------------------------- */
    check_stage("test_lock");
    for (int h = 0; h < npes; h++) {
        if (me == h) {
            int rc = shmem_test_lock(&glock2);
            REQUIRE_EQ(rc, 0, "test_lock on a free lock returned %d (holder to be PE %d)", rc, h);
        }
        shmem_barrier_all();
        if (me != h) {
            for (int k = 0; k < 3; k++) {
                int rc = shmem_test_lock(&glock2);
                REQUIRE_NE(rc, 0, "test_lock returned 0 while PE %d holds the lock", h);
            }
        }
        shmem_barrier_all();
        if (me == h)
            shmem_clear_lock(&glock2);
        shmem_barrier_all();
    }
    /* Only test_lock as the way in. */
    int titers = 200 * scale / npes;
    for (int i = 0; i < titers; i++) {
        while (shmem_test_lock(&glock2))
            sched_yield();
        long v = shmem_long_g(&gcount2, last);
        shmem_long_p(&gcount2, v + 1, last);
        shmem_clear_lock(&glock2);
        /* mixed with set_lock on the same lock */
        shmem_set_lock(&glock2);
        v = shmem_long_g(&gcount2, last);
        shmem_long_p(&gcount2, v + 1, last);
        shmem_clear_lock(&glock2);
    }
    shmem_barrier_all();
    if (me == last)
        REQUIRE_EQ(gcount2, 2L * titers * npes, "test_lock/set_lock counter %ld, expected %ld",
                   gcount2, 2L * titers * npes);
    shmem_barrier_all();

    /* ---- 3. several locks --------------------------------------------- */
    check_stage("several");
    int niter = 240 * scale / npes;
    for (int i = 0; i < niter; i++) {
        /* nested: global then heap */
        shmem_set_lock(&glock);
        shmem_set_lock(hlock);
        long a = shmem_long_g(&gcount, 0);
        long b = shmem_long_g(&hcount[1], last);
        shmem_long_p(&gcount, a + 1, 0);
        shmem_long_p(&hcount[1], b + 1, last);
        shmem_clear_lock(hlock);
        shmem_clear_lock(&glock);
        /* an array of heap locks, each guarding a counter on another PE */
        int k = (me + i) % NLOCKS, pe = k % npes;
        shmem_set_lock(&hlocks[k]);
        long c = shmem_long_g(&garr_count[k], pe);
        shmem_long_p(&garr_count[k], c + 1, pe);
        shmem_clear_lock(&hlocks[k]);
    }
    shmem_barrier_all();
    if (me == 0)
        REQUIRE_EQ(gcount, (long)iters * npes + (long)niter * npes,
                   "nested locks: counter on PE 0 is %ld, expected %ld", gcount,
                   (long)iters * npes + (long)niter * npes);
    if (me == last)
        REQUIRE_EQ(hcount[1], (long)niter * npes, "nested locks: heap counter %ld, expected %ld",
                   hcount[1], (long)niter * npes);
    for (int k = 0; k < NLOCKS; k++) {
        if (k % npes != me)
            continue;
        long want = 0;
        for (int p = 0; p < npes; p++)
            for (int i = 0; i < niter; i++)
                want += (p + i) % NLOCKS == k;
        REQUIRE_EQ(garr_count[k], want, "lock array: counter %d is %ld, expected %ld", k,
                   garr_count[k], want);
    }
    /* Independence: PE 0 holds one lock while the others use another. */
    if (me == 0)
        shmem_set_lock(&glock_indep);
    shmem_barrier_all();
    if (me != 0)
        for (int i = 0; i < 50; i++) {
            shmem_set_lock(&glock);
            shmem_clear_lock(&glock);
            REQUIRE_NE(shmem_test_lock(&glock_indep), 0, "test_lock acquired a lock PE 0 holds");
        }
    shmem_barrier_all();
    if (me == 0)
        shmem_clear_lock(&glock_indep);
    shmem_barrier_all();

    /* ---- 4. FIFO ----------------------------------------------------------- */
    check_stage("fifo");
    for (int i = 0; i < FIFO_ROUNDS; i++) {
        /* The log length just before asking: a FIFO lock lets at most
         * npes-1 others in between this read and our acquisition (the
         * read-to-enqueue window is a few instructions).  Counting from our
         * previous acquisition instead would also count the time between
         * our release and our next request, when we are not queued. */
        long before = shmem_long_atomic_fetch(&fifo_len, 0);
        shmem_set_lock(hlock);
        long len = shmem_long_g(&fifo_len, 0);
        shmem_int_p(&fifo_log[len], me, 0);
        shmem_long_p(&fifo_before[len], before, 0);
        shmem_long_p(&fifo_len, len + 1, 0);
        for (int y = 0; y < 4; y++)
            sched_yield();
        shmem_clear_lock(hlock);
    }
    shmem_barrier_all();
    if (me == 0) {
        REQUIRE_EQ(fifo_len, (long)FIFO_ROUNDS * npes, "FIFO log has %ld entries, expected %ld",
                   fifo_len, (long)FIFO_ROUNDS * npes);
        long cnt[64] = {0};
        long late = 0, first_late = -1; /* acquisitions past the bound */
        for (long i = 0; i < fifo_len; i++) {
            int p = fifo_log[i];
            REQUIRE(p >= 0 && p < npes, "FIFO log entry %ld is %d", i, p);
            /* The bound needs our enqueue (an AMO) to take effect when it
             * is issued: true for CPU atomics (shm), not for a transport
             * that applies AMOs when the target next progresses, where
             * only the per-PE counts below are checked. */
            if (strcmp(shmemx_transport_name(), "shm") == 0) {
                long others = i - fifo_before[i];
                /* A FIFO lock lets in the npes - 1 PEs queued ahead of us.
                 * Our read of the log and our enqueue are not one step: a
                 * PE preempted in between (PEs and progress threads
                 * outnumber cores here) lets each other PE in once more,
                 * or, descheduled for long (under qemu-user beside other
                 * jobs: 13 in one acquisition of 120), many times.  So a
                 * few acquisitions may pass the bound; an unfair lock lets
                 * a running releaser re-acquire at will and passes it in
                 * most of them. */
                REQUIRE(others >= 0, "PE %d got the lock at position %ld of the log, before it "
                                     "asked (the log had %ld entries)", p, i, fifo_before[i]);
                if (others > 2 * npes - 1 && !late++)
                    first_late = i;
            }
            cnt[p]++;
        }
        fifo_late = late;
        REQUIRE(late * 20 <= fifo_len,
                "not FIFO: %ld of %ld acquisitions let more than %d others in between; the "
                "first: PE %d asked for the lock when the log had %ld entries and got it at "
                "position %ld",
                late, fifo_len, 2 * npes - 1, first_late >= 0 ? fifo_log[first_late] : -1,
                first_late >= 0 ? fifo_before[first_late] : -1L, first_late);
        for (int p = 0; p < npes; p++)
            REQUIRE_EQ(cnt[p], FIFO_ROUNDS, "PE %d acquired the lock %ld times, expected %d", p,
                       cnt[p], FIFO_ROUNDS);
    }
    shmem_barrier_all();
    shmem_free(hlock);
    shmem_free(hcount);
    int status = check_done(
        "locks",
        "%d locked increments per lock, test_lock, %d locks, FIFO over %d rounds (%ld past the "
        "bound)",
        iters * npes, NLOCKS + 3, FIFO_ROUNDS, fifo_late);
    shmem_finalize();
    return status;
}
