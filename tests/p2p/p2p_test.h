/*
 * p2p_test.h -- what the p2p test programs share.
 *
 *   T_CHECK(cond, fmt, ...)  on failure prints "FAIL PE n file:line: message"
 *                            to stderr and ends the job with
 *                            shmem_global_exit(1) (exit(1) before init).
 *   t_watchdog(s)            a PE still running after s seconds reports a
 *                            hang ("FAIL PE n: watchdog ...") and exits 2,
 *                            so a deadlock fails fast and names its stage.
 *   t_stage(name)            names the current stage (for FAIL and watchdog).
 *   t_done(name, fmt, ...)   barrier; PE 0 prints the one summary line.
 */
#ifndef PLUGSHMEM_P2P_TEST_H
#define PLUGSHMEM_P2P_TEST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <shmem.h>

static const char *volatile t_stage_name = "init";
static int t_me = -1;

static inline void t_stage(const char *name) { t_stage_name = name; }

__attribute__((format(printf, 3, 4), noreturn, unused)) static void
t_fail(const char *file, int line, const char *fmt, ...)
{
    int init = 0;
    shmem_query_initialized(&init);
    const char *base = strrchr(file, '/');
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "FAIL PE %d %s:%d: %s (stage %s)\n", init ? shmem_my_pe() : t_me,
            base ? base + 1 : file, line, msg, t_stage_name);
    fflush(stderr);
    if (init)
        shmem_global_exit(1);
    exit(1);
}

#define T_CHECK(cond, ...)                                                                         \
    do {                                                                                           \
        if (!(cond))                                                                               \
            t_fail(__FILE__, __LINE__, __VA_ARGS__);                                               \
    } while (0)

#define T_FAIL(...) t_fail(__FILE__, __LINE__, __VA_ARGS__)

static void t_alarm(int sig)
{
    (void)sig;
    char buf[256];
    int n = snprintf(buf, sizeof buf, "FAIL PE %d: watchdog: still running (stage %s)\n", t_me,
                     t_stage_name);
    if (n > 0)
        (void)!write(2, buf, (size_t)n);
    _exit(2);
}

__attribute__((unused)) static void t_watchdog(unsigned seconds)
{
    t_me = shmem_my_pe();
    signal(SIGALRM, t_alarm);
    alarm(seconds);
}

__attribute__((format(printf, 2, 3), unused)) static void t_done(const char *name,
                                                                 const char *fmt, ...)
{
    shmem_barrier_all();
    if (shmem_my_pe() == 0) {
        char msg[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        printf("%s: OK on %d PEs: %s\n", name, shmem_n_pes(), msg);
        fflush(stdout);
    }
}

/* splitmix64: the deterministic generator every program draws from. */
static inline uint64_t t_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static inline uint64_t t_rand(uint64_t *state)
{
    *state += 0x9e3779b97f4a7c15ull;
    uint64_t z = *state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#endif
