/*
 * The least an atomic built from MPI messages can cost on this MPI: rank 0
 * sends 8 bytes and receives 8 back (MPI_Isend + MPI_Recv + MPI_Wait),
 * rank 1 answers, as a target applying an active-message fetch-add would.
 * OSHMPI's default atomics are such messages; the mpi transport's issue
 * asked for half of OSHMPI's instructions per fetch-add, and this loop
 * alone is the floor under any message-based design.
 *
 *   raw_mpi_pingpong [iterations] [single|multiple]     latency, microseconds
 *   raw_mpi_pingpong icount N [single|multiple]         callgrind region "pingpong"
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callgrind_marks.h"

__attribute__((noinline)) static void pingpong(int me, long n)
{
    long a = 1, b = 0;
    for (long i = 0; i < n; i++) {
        if (me == 0) {
            MPI_Request r;
            MPI_Isend(&a, 1, MPI_LONG, 1, 0, MPI_COMM_WORLD, &r);
            MPI_Recv(&b, 1, MPI_LONG, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&b, 1, MPI_LONG, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&b, 1, MPI_LONG, 0, 0, MPI_COMM_WORLD);
        }
    }
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
    if (n != 2) {
        if (me == 0)
            fprintf(stderr, "raw_mpi_pingpong: needs 2 ranks (mpiexec -n 2)\n");
        MPI_Finalize();
        return 2;
    }
    pingpong(me, iters / 10 + 100); /* warm up */
    MPI_Barrier(MPI_COMM_WORLD);
    if (icount) {
        if (me == 0) {
            BENCH_REGION_BEGIN();
        }
        pingpong(me, iters);
        if (me == 0) {
            BENCH_REGION_END("pingpong");
            BENCH_EMPTY_LOOP(iters);
        }
    } else {
        double t0 = MPI_Wtime();
        pingpong(me, iters);
        if (me == 0)
            printf("raw MPI (%s) pingpong 8 B %8.3f us round trip\n", level,
                   (MPI_Wtime() - t0) / (double)iters * 1e6);
    }
    MPI_Finalize();
    return 0;
}
