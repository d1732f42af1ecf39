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

int main(void)
{
    int mpi_level, provided;
    MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &mpi_level);
    if (mpi_level >= MPI_THREAD_MULTIPLE) {
        printf("skip: MPI gave MPI_THREAD_MULTIPLE when asked for less\n");
        MPI_Finalize();
        return 77;
    }
    if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided)) {
        printf("FAIL: shmem_init_thread(SHMEM_THREAD_MULTIPLE) failed\n");
        return 1;
    }
    int me = shmem_my_pe(), n = shmem_n_pes(), status = 0;
    if (provided != SHMEM_THREAD_SERIALIZED) {
        printf("FAIL PE %d: provided %d, expected SHMEM_THREAD_SERIALIZED (%d)\n", me, provided,
               SHMEM_THREAD_SERIALIZED);
        status = 1;
    }
    long *x = shmem_malloc(sizeof *x);
    *x = 0;
    shmem_barrier_all();
    for (int pe = 0; pe < n; pe++)
        shmem_long_atomic_inc(x, pe);
    shmem_barrier_all();
    if (*x != n) {
        printf("FAIL PE %d: counter %ld, expected %d\n", me, *x, n);
        status = 1;
    }
    if (me == 0 && !status)
        printf("ok: SHMEM_THREAD_MULTIPLE on MPI_THREAD_SERIALIZED gave SERIALIZED, atomics ok\n");
    shmem_free(x);
    shmem_finalize();
    MPI_Finalize();
    return status;
}
