/* callgrind_marks.h -- callgrind's client requests when valgrind's headers
 * were found at configure time (HAVE_CALLGRIND, bench/meson.build), no-ops
 * otherwise: the benchmarks build on machines without valgrind and only
 * the icount modes lose their region marks. */
#ifndef BENCH_CALLGRIND_MARKS_H
#define BENCH_CALLGRIND_MARKS_H

#ifdef HAVE_CALLGRIND
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_START_INSTRUMENTATION ((void)0)
#define CALLGRIND_STOP_INSTRUMENTATION ((void)0)
#define CALLGRIND_ZERO_STATS ((void)0)
#define CALLGRIND_DUMP_STATS_AT(name) ((void)(name))
#endif

/* One measured region: counts from zero between BEGIN and END, dumped
 * under the region's name (what the icount scripts look for). */
#define BENCH_REGION_BEGIN()                                                                       \
    do {                                                                                           \
        CALLGRIND_ZERO_STATS;                                                                      \
        CALLGRIND_START_INSTRUMENTATION;                                                           \
    } while (0)
#define BENCH_REGION_END(name)                                                                     \
    do {                                                                                           \
        CALLGRIND_STOP_INSTRUMENTATION;                                                            \
        CALLGRIND_DUMP_STATS_AT(name);                                                             \
    } while (0)
/* The "empty_loop" region: n turns of an empty loop, which the scripts
 * subtract from the others; its counter has n's type, as the measured
 * loops' counters do, so that the loop costs the same. */
#define BENCH_EMPTY_LOOP(n)                                                                        \
    do {                                                                                           \
        BENCH_REGION_BEGIN();                                                                      \
        for (__typeof__(n) bench_i_ = 0; bench_i_ < (n); bench_i_++)                              \
            __asm__ __volatile__("" ::: "memory");                                                 \
        BENCH_REGION_END("empty_loop");                                                            \
    } while (0)

#endif
