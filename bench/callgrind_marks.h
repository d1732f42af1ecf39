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

#endif
