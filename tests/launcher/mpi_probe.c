/*
 * mpi_probe: an MPI program (MPICH) for the launcher tests, alone or
 * beside PlugSHMEM.
 *
 *   mpi_probe [mpi|mpi-shmem|shmem-mpi [ANY...]]
 *
 * mpi: MPI_Init, check MPI_Allreduce of the ranks, print
 *   "mpi rank R of N sum S"
 * mpi-shmem / shmem-mpi: both libraries, initialized in that order; also
 * checks that MPI_COMM_WORLD and the PEs agree, and prints
 *   "mpi rank R of N pe P of M"
 * Exit 3 on a mismatch. Extra arguments are markers for the tests.
 */
#include <mpi.h>
#include <shmem.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "mpi";
    int shmem = strcmp(mode, "mpi") != 0;
    if (strcmp(mode, "shmem-mpi") == 0)
        shmem_init();
    MPI_Init(&argc, &argv);
    if (strcmp(mode, "mpi-shmem") == 0)
        shmem_init();
    int rank, size;
    long sum = 0, mine;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mine = rank;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    int ok = sum == (long)size * (size - 1) / 2;
    if (shmem) {
        int pe = shmem_my_pe(), npes = shmem_n_pes();
        ok = ok && pe == rank && npes == size;
        printf("mpi rank %d of %d pe %d of %d%s\n", rank, size, pe, npes, ok ? "" : " MISMATCH");
        shmem_finalize();
    } else {
        printf("mpi rank %d of %d sum %ld%s\n", rank, size, sum, ok ? "" : " MISMATCH");
    }
    fflush(stdout);
    MPI_Finalize();
    return ok ? 0 : 3;
}
