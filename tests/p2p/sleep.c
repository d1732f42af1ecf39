/*
 * sleep.c -- waits that sleep.  At 4 and 8 PEs on this 2-core machine the
 * PEs outnumber the cores, so a PE that waits longer than a short spin and
 * yield goes to sleep in the kernel and must be woken by the writer, or
 * see the write when its nap ends.  Each stage passes a token around the
 * ring of PEs, many rounds, with one way of writing and of waiting; the
 * token holder sometimes computes a while first so that the others are
 * asleep when it writes.  Every value received is checked.  A lost wake-up
 * only costs a nap; a sleep that never ended would hang a stage, which the
 * watchdog reports by name.
 *
 *  1. shmem_long_p + shmem_long_wait_until (a plain store cannot wake: the
 *     nap's bound must end the sleep)
 *  2. shmem_long_atomic_set + wait_until (the AMO wakes the sleeper)
 *  3. shmem_long_atomic_add + wait_until GE (an adding AMO wakes)
 *  4. shmem_long_atomic_fetch_add + wait_until GE (a fetching AMO does not
 *     wake: the nap's bound again)
 *  5. shmem_putmem_signal (SET) + shmem_signal_wait_until, payload checked
 *  6. shmem_signal_add + shmem_signal_wait_until GE
 *  7. wait_until_any over one word per PE on PE 0 (a wait on several
 *     words), answered with atomic_set, then a release by shmem_long_p
 *  8. barrier_all rounds with an atomic_inc on PE 0 before each (the
 *     counter barrier's waiters watch a word of another PE)
 *  9. one long wait: PE 0 computes ~50 ms before a plain shmem_long_p
 *     releases the others (naps grow, and still end)
 * 10. the same with shmem_long_atomic_set, which must wake the sleepers
 *
 * Values alone cannot show that anything slept: a wait that only spins
 * passes stages 1-8 as well.  The library's wait counters
 * (shmemx_wait_stat) can.  Where waits may sleep (SHMEMX_WAIT_CAN_SLEEP:
 * shm, SHMEM_WAIT_SLEEP not 0), every waiting PE of stage 9 must have
 * napped, and in stage 10 every waiter must have had a nap ended by a
 * wake-up and PE 0 must have sent one.  Where they sleep in the transport
 * (CAN_SLEEP 2: ucx or ofi with SHMEM_UCX_WAKEUP or SHMEM_OFI_WAKEUP=1,
 * and some PE not mapped), the transport's traffic is the wake-up: in
 * stage 10 each waiter that PE 0 reaches through the transport must have
 * been woken, and PE 0 sends no futex wake-up.  SLEEP_EXPECT_CAN_SLEEP=N
 * fails a job that chose its way of sleeping if SHMEMX_WAIT_CAN_SLEEP is
 * not N.  A stage that misses is run again with PE 0 computing twice as
 * long (a PE may be descheduled through a whole wait on a loaded
 * machine), at most 5 times (50 to 800 ms).  Stages
 * 1-8 are not held to sleeping: at 2 PEs on 2 idle cores their 300 us
 * pauses end within the spin phase.  Where waits may not sleep (a
 * transport that needs this PE's progress), no PE may have napped at all.
 */
#include <stdlib.h>
#include <time.h>

#include "p2p_test.h"
#include <shmemx.h>

static long gword;     /* global: the data segment's sleep key */
static uint64_t gsig;
static long gpayload;
static long gyes, gcount; /* count_pes's symmetric source and result */

/* How many PEs say yes: the same answer on every PE, so that all agree
 * whether to run a stage again. */
static long count_pes(int yes)
{
    gyes = yes;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &gcount, &gyes, 1);
    return gcount;
}

static uint64_t wait_stat(int which)
{
    uint64_t v = shmemx_wait_stat(which);
    REQUIRE_NE(v, UINT64_MAX, "shmemx_wait_stat(%d) does not know its counter", which);
    return v;
}

static void compute(double us)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) * 1e-3 < us);
}

/* Every 16th round the holder computes 300 us before passing on. */
static void maybe_compute(long r)
{
    if (r % 16 == 0)
        compute(300);
}

enum { BY_P, BY_SET, BY_ADD, BY_FADD, BY_SIGNAL, BY_SIGADD };

static void ring(const char *stage, int how, long *word, int rounds)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int next = (me + 1) % npes;
    check_stage(stage);
    shmem_barrier_all();
    for (long r = 1; r <= rounds; r++) {
        /* PE 0 starts round r; the others pass it on once it reaches them. */
        if (me != 0 || r > 1) {
            long want = me == 0 ? r - 1 : r;
            if (how == BY_SIGNAL || how == BY_SIGADD) {
                uint64_t v = shmem_signal_wait_until(&gsig, SHMEM_CMP_GE, (uint64_t)want);
                REQUIRE_EQ(v, (uint64_t)want, "round %ld: signal is %llu", r,
                           (unsigned long long)v);
                if (how == BY_SIGNAL)
                    REQUIRE_EQ(gpayload, want * 7, "round %ld: payload %ld before its signal", r,
                               gpayload);
            } else {
                shmem_long_wait_until(word, SHMEM_CMP_GE, want);
                long v = shmem_long_atomic_fetch(word, me);
                REQUIRE_EQ(v, want, "round %ld: word is %ld, expected %ld", r, v, want);
            }
        }
        maybe_compute(r);
        long payload = r * 7;
        switch (how) {
        case BY_P: shmem_long_p(word, r, next); break;
        case BY_SET: shmem_long_atomic_set(word, r, next); break;
        case BY_ADD: shmem_long_atomic_add(word, 1, next); break;
        case BY_FADD: (void)shmem_long_atomic_fetch_add(word, 1, next); break;
        case BY_SIGNAL:
            shmem_putmem_signal(&gpayload, &payload, sizeof payload, &gsig, (uint64_t)r,
                                SHMEM_SIGNAL_SET, next);
            break;
        case BY_SIGADD: shmem_signal_add(&gsig, 1, next); break;
        }
    }
    if (me == 0) {
        if (how == BY_SIGNAL || how == BY_SIGADD)
            shmem_signal_wait_until(&gsig, SHMEM_CMP_GE, (uint64_t)rounds);
        else
            shmem_long_wait_until(word, SHMEM_CMP_GE, rounds);
    }
    shmem_barrier_all();
    *word = 0;
    gsig = 0;
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    check_watchdog(150);
    int me = shmem_my_pe(), npes = shmem_n_pes();
    const char *tp = shmemx_transport_name();
    int scale = (tp && strcmp(tp, "shm") == 0) ? 4 : 1; /* fewer over a network */
    int rounds = 100 * scale;

    long *hword = shmem_calloc(1, sizeof(long));
    long *slots = shmem_calloc((size_t)npes, sizeof(long));
    long *release = shmem_calloc(1, sizeof(long));
    long *count = shmem_calloc(1, sizeof(long));
    REQUIRE(hword && slots && release && count, "allocation failed");

    ring("p", BY_P, hword, rounds);
    ring("atomic_set", BY_SET, hword, rounds);
    ring("atomic_add", BY_ADD, &gword, rounds);
    ring("fetch_add", BY_FADD, hword, rounds);
    ring("put_signal", BY_SIGNAL, &gword, rounds);
    ring("signal_add", BY_SIGADD, &gword, rounds);

    /* ---- 7. a wait on several words ------------------------------------ */
    check_stage("wait_until_any");
    for (long r = 1; r <= rounds; r++) {
        if (me == 0) {
            int seen = 1;
            size_t done[64] = {0};
            REQUIRE_LE(npes, 64, "at most 64 PEs");
            int *status = calloc((size_t)npes, sizeof(int));
            status[0] = 1;
            while (seen < npes) {
                size_t i = shmem_long_wait_until_any(slots, (size_t)npes, status, SHMEM_CMP_EQ, r);
                REQUIRE(i < (size_t)npes && !status[i] && !done[i], "round %ld: index %zu", r, i);
                done[i] = 1;
                status[i] = 1;
                seen++;
            }
            free(status);
            maybe_compute(r);
            for (int pe = 1; pe < npes; pe++)
                shmem_long_p(release, r, pe);
        } else {
            if ((r + me) % 16 == 0)
                compute(200);
            shmem_long_atomic_set(&slots[me], r, 0);
            shmem_long_wait_until(release, SHMEM_CMP_EQ, r);
        }
    }
    shmem_barrier_all();

    /* ---- 8. barriers ------------------------------------------------------ */
    check_stage("barrier");
    for (long r = 1; r <= rounds; r++) {
        shmem_long_atomic_inc(count, 0);
        if (me == (int)(r % npes))
            compute(r % 4 == 0 ? 300 : 0);
        shmem_barrier_all();
        if (me == 0)
            REQUIRE_EQ(*count, r * npes, "barrier %ld: count %ld, expected %ld", r, *count,
                       r * npes);
        shmem_barrier_all();
    }

    /* ---- 9 and 10. long waits that must sleep ------------------------- */
    int can_sleep = (int)wait_stat(SHMEMX_WAIT_CAN_SLEEP);
    /* Set by tests that choose a way of sleeping (tests/ofi, tests/ucx). */
    const char *expect = getenv("SLEEP_EXPECT_CAN_SLEEP");
    if (expect && *expect)
        REQUIRE_EQ(can_sleep, atoi(expect), "SHMEMX_WAIT_CAN_SLEEP is not what the job asked for");
    REQUIRE_EQ(count_pes(can_sleep), (long)can_sleep * npes,
               "PEs of one job disagree whether and where waits may sleep");
    long tries[2] = {0, 0};
    for (int stage = 0; stage < 2; stage++) {
        int waking = stage == 1; /* 10: a write that wakes */
        check_stage(waking ? "long wait, woken" : "long wait");
        long missing = 0;
        for (int t = 0; t < 5; t++) {
            tries[stage]++;
            *release = 0;
            shmem_barrier_all();
            /* Read after the barrier, which may nap and wake too: only the
             * wait and the writes below count. */
            uint64_t naps = wait_stat(SHMEMX_WAIT_NAPS), woken = wait_stat(SHMEMX_WAIT_NAPS_WOKEN);
            int ok;
            if (me == 0) {
                compute(50000.0 * (1 << t));
                uint64_t wakes = wait_stat(SHMEMX_WAIT_WAKES);
                for (int pe = 1; pe < npes; pe++) {
                    if (waking)
                        shmem_long_atomic_set(release, t + 1, pe);
                    else
                        shmem_long_p(release, t + 1, pe);
                }
                /* A waking stage passes on PE 0 once it woke somebody. */
                ok = !waking || npes == 1 || can_sleep == 2 ||
                     wait_stat(SHMEMX_WAIT_WAKES) > wakes;
            } else {
                /* A writer by load/store cannot wake a sleep in the
                 * transport: that one ends by its bound. */
                int wakes_me = can_sleep == 1 || !shmem_ptr(release, 0);
                shmem_long_wait_until(release, SHMEM_CMP_EQ, t + 1);
                REQUIRE_EQ(*release, t + 1, "try %d: release is %ld", t, *release);
                ok = wait_stat(SHMEMX_WAIT_NAPS) > naps &&
                     (!waking || !wakes_me || wait_stat(SHMEMX_WAIT_NAPS_WOKEN) > woken);
            }
            missing = npes - count_pes(ok);
            if (!can_sleep || missing == 0)
                break;
        }
        if (can_sleep)
            REQUIRE_EQ(missing, 0,
                       "%ld of %d PEs never %s in 5 waits of 50 to 800 ms (waits may sleep here)",
                       missing, npes,
                       waking ? "had a nap ended by a wake-up, or sent one (PE 0)" : "napped");
        shmem_barrier_all();
    }
    /* Where waits may not sleep, no wait of the whole program did. */
    long napped = count_pes(wait_stat(SHMEMX_WAIT_NAPS) > 0);
    if (!can_sleep)
        REQUIRE_EQ(napped, 0, "%ld PEs slept although this transport's waits may not", napped);
    long naps_total = (long)wait_stat(SHMEMX_WAIT_NAPS);
    long woken_total = (long)wait_stat(SHMEMX_WAIT_NAPS_WOKEN);
    shmem_barrier_all();

    int status;
    if (can_sleep)
        status = check_done("sleep",
                            "%d rounds of each way of waking; PE 0 napped %ld times (%ld "
                            "woken), long waits slept at try %ld and %ld",
                            rounds, naps_total, woken_total, tries[0], tries[1]);
    else
        status = check_done("sleep",
                            "%d rounds of each way of waking; waits may not sleep here, "
                            "and no PE napped",
                            rounds);
    shmem_free(count);
    shmem_free(release);
    shmem_free(slots);
    shmem_free(hword);
    shmem_finalize();
    return status;
}
