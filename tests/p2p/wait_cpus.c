/*
 * wait_cpus.c -- a wait's polling budget (SHMEM_WAIT_SPINS=auto) counts
 * the CPUs the node's PEs may run on, not the CPUs online.
 *
 * Two PEs held to one core (taskset on the launcher, a container's
 * cpuset) each polled the idle budget, 16 384 steps, before letting the
 * other run: a shm barrier took 440 us instead of a few.  PEs bound one
 * to a core each have one CPU apiece, and still a core each.
 *
 * Each PE gathers every PE's CPU set (the first 64 CPUs: the registrations
 * in tests/p2p/meson.build run it on CPUs 0 and 1) and predicts the
 * budget: 64 (load/store only, busy) where the PEs outnumber the CPUs of
 * their union, 16 384 elsewhere.  Run it on shm, on one node, at most
 * 64 PEs, with SHMEM_WAIT_SPINS=auto: under `taskset -c 0`, with each PE
 * bound to a CPU of its own, and as launched.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stdint.h>
#include <unistd.h>

#include "p2p_test.h"
#include <shmemx.h>

#define BUSY_LOCAL 64u
#define IDLE (1u << 14)

static uint64_t mine, masks[64]; /* symmetric: gathered */

int main(void)
{
    shmem_init();
    check_watchdog(60);
    int n = shmem_n_pes();
    REQUIRE(n <= 64, "wait_cpus runs at most 64 PEs, not %d", n);
    cpu_set_t set;
    REQUIRE(sched_getaffinity(0, sizeof set, &set) == 0, "sched_getaffinity failed");
    for (int c = 0; c < 64; c++)
        if (CPU_ISSET(c, &set))
            mine |= (uint64_t)1 << c;
    REQUIRE(CPU_COUNT(&set) == __builtin_popcountll(mine),
            "this PE may run on CPUs past the 64th: the test cannot predict the budget");
    shmem_uint64_fcollect(SHMEM_TEAM_WORLD, masks, &mine, 1);
    uint64_t all = 0;
    for (int i = 0; i < n; i++)
        all |= masks[i];
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    long usable = __builtin_popcountll(all) < online ? __builtin_popcountll(all) : online;
    uint64_t expect = n > usable ? BUSY_LOCAL : IDLE;
    uint64_t got = shmemx_wait_stat(SHMEMX_WAIT_SPINS);
    CHECK_EQ(got, expect, "wait budget with %d PEs on %ld usable CPUs (%ld online)", n, usable,
             online);
    int status = check_done("wait_cpus", "%d PEs on %ld usable CPUs: wait budget %llu", n,
                            usable, (unsigned long long)got);
    shmem_finalize();
    return status;
}
