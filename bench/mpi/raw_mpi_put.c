/*
 * The floor under the mpi transport: the same operations on MPI alone.
 * Rank 0, on a long of rank 1: puts 8 bytes and waits for remote
 * completion (MPI_Put + MPI_Win_flush), gets them (MPI_Get +
 * MPI_Win_flush_local), fetch-adds (MPI_Fetch_and_op + MPI_Win_flush_local),
 * adds (MPI_Accumulate, one MPI_Win_flush after all) and compare-swaps
 * (MPI_Compare_and_swap + MPI_Win_flush_local); rank 1 waits in a barrier,
 * as a PE does in shmem_barrier_all.  The window is created and locked as
 * the plugin does it.
 *
 *   raw_mpi_put [iterations] [single|multiple]       latency, microseconds,
 *                                                    one line per operation
 *                                                    as p2p_bench ops prints
 *   raw_mpi_put icount N [single|multiple]           callgrind regions
 *
 * "multiple" (the default) initializes MPI at MPI_THREAD_MULTIPLE like the
 * plugin with its progress thread; "single" at MPI_THREAD_SINGLE.
 * RAW_MPI_WIN=allocate takes the window's memory from MPI_Win_allocate
 * instead of MPI_Win_create over memory of our own (MPICH could then use
 * its shared memory; here it made no difference).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callgrind_marks.h"

static MPI_Win win;
static long word;

__attribute__((noinline)) static void put_flush(long n)
{
    for (long i = 0; i < n; i++) {
        MPI_Put(&i, 8, MPI_BYTE, 1, 0, 8, MPI_BYTE, win);
        MPI_Win_flush(1, win);
    }
}

__attribute__((noinline)) static long fetch_add(long n)
{
    long one = 1, old = 0, sum = 0;
    for (long i = 0; i < n; i++) {
        MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 1, 8, MPI_SUM, win);
        MPI_Win_flush_local(1, win);
        sum += old;
    }
    return sum;
}

__attribute__((noinline)) static void get_flush(long n)
{
    long v;
    for (long i = 0; i < n; i++) {
        MPI_Get(&v, 8, MPI_BYTE, 1, 0, 8, MPI_BYTE, win);
        MPI_Win_flush_local(1, win);
    }
}

__attribute__((noinline)) static void add(long n)
{
    long one = 1;
    for (long i = 0; i < n; i++)
        MPI_Accumulate(&one, 1, MPI_INT64_T, 1, 8, 1, MPI_INT64_T, MPI_SUM, win);
    MPI_Win_flush(1, win);
}

__attribute__((noinline)) static long compare_swap(long n)
{
    long old = 0, w = 0;
    MPI_Fetch_and_op(&w, &w, MPI_INT64_T, 1, 8, MPI_NO_OP, win);
    MPI_Win_flush_local(1, win);
    for (long i = 0; i < n; i++) {
        long next = w + 1;
        MPI_Compare_and_swap(&next, &w, &old, MPI_INT64_T, 1, 8, win);
        MPI_Win_flush_local(1, win);
        w = old + 1;
    }
    return w;
}

int main(int argc, char **argv)
{
    int icount = argc > 1 && !strcmp(argv[1], "icount");
    long iters = argc > 1 + icount ? atol(argv[1 + icount]) : 20000;
    const char *level = argc > 2 + icount ? argv[2 + icount] : "multiple";
    int provided, me, n;
    MPI_Init_thread(&argc, &argv, strcmp(level, "single") ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE,
                    &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (n < 2) {
        if (me == 0)
            fprintf(stderr, "raw_mpi_put: needs 2 ranks (mpiexec -n 2)\n");
        MPI_Finalize();
        return 2;
    }
    const char *kind = getenv("RAW_MPI_WIN");
    int allocate = kind && !strcmp(kind, "allocate");
    long *base = allocate ? NULL : calloc(64, sizeof(long));
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "same_disp_unit", "true");
    MPI_Info_set(info, "accumulate_ordering", "none");
    MPI_Info_set(info, "which_accumulate_ops", "sum,band,bor,bxor,replace,no_op,cswap");
    if (allocate)
        MPI_Win_allocate(64 * sizeof(long), 1, info, MPI_COMM_WORLD, &base, &win);
    else
        MPI_Win_create(base, 64 * sizeof(long), 1, info, MPI_COMM_WORLD, &win);
    MPI_Info_free(&info);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        put_flush(iters / 10 + 100); /* warm up */
        word += fetch_add(100);
        if (icount) {
            BENCH_REGION_BEGIN();
            put_flush(iters);
            BENCH_REGION_END("put8+flush");
            BENCH_REGION_BEGIN();
            word += fetch_add(iters);
            BENCH_REGION_END("fetch_and_op+flush_local");
            BENCH_REGION_BEGIN();
            get_flush(iters);
            BENCH_REGION_END("get8+flush_local");
            BENCH_REGION_BEGIN();
            add(iters);
            BENCH_REGION_END("accumulate+flush");
            BENCH_REGION_BEGIN();
            word += compare_swap(iters);
            BENCH_REGION_END("compare_and_swap+flush_local");
            BENCH_EMPTY_LOOP(iters);
        } else {
            double t0 = MPI_Wtime();
            put_flush(iters);
            printf("put8+quiet %10.3f\n", (MPI_Wtime() - t0) / (double)iters * 1e6);
            t0 = MPI_Wtime();
            get_flush(iters);
            printf("get8 %10.3f\n", (MPI_Wtime() - t0) / (double)iters * 1e6);
            t0 = MPI_Wtime();
            word += fetch_add(iters);
            printf("fetch_add %10.3f\n", (MPI_Wtime() - t0) / (double)iters * 1e6);
            t0 = MPI_Wtime();
            add(iters);
            printf("add %10.3f\n", (MPI_Wtime() - t0) / (double)iters * 1e6);
            t0 = MPI_Wtime();
            word += compare_swap(iters);
            printf("compare_swap %10.3f\n", (MPI_Wtime() - t0) / (double)iters * 1e6);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    if (!allocate)
        free(base);
    MPI_Finalize();
    return word == 42;
}
