/*
 * The program started MPI at MPI_THREAD_SERIALIZED, then asks OpenSHMEM
 * for SHMEM_THREAD_MULTIPLE.  The mpi plugin cannot take concurrent calls
 * on that MPI, so it leaves PSHM_CAP_THREAD_SAFE out and the core must
 * provide SHMEM_THREAD_SERIALIZED (plugin ABI 2), rather than fail
 * shmem_init_thread; then atomics through MPI still work.
 */
#include <mpi.h>
#include <shmem.h>
#include <stdio.h>

#include "../common/check.h"

int main(void)
{
    int mpi_level, provided;
    MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &mpi_level);
    if (mpi_level >= MPI_THREAD_MULTIPLE) {
        printf("skip: MPI gave MPI_THREAD_MULTIPLE when asked for less\n");
        MPI_Finalize();
        return 77;
    }
    REQUIRE_EQ(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided), 0);
    int n = shmem_n_pes();
    CHECK_EQ(provided, SHMEM_THREAD_SERIALIZED);
    long *x = shmem_malloc(sizeof *x);
    *x = 0;
    shmem_barrier_all();
    for (int pe = 0; pe < n; pe++)
        shmem_long_atomic_inc(x, pe);
    shmem_barrier_all();
    CHECK_EQ(*x, n, "the counter every PE incremented");
    int status =
        check_done("mpi_thread_cap",
                   "SHMEM_THREAD_MULTIPLE on MPI_THREAD_SERIALIZED gave SERIALIZED, atomics ok");
    shmem_free(x);
    shmem_finalize();
    MPI_Finalize();
    return status;
}
