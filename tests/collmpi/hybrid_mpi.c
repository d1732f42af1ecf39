/* A program using MPI and OpenSHMEM together (the specification's
 * interoperability chapter): hybrid_mpi INIT FINI, INIT = mpi-first or
 * shmem-first (which of MPI_Init and shmem_init comes first), FINI =
 * mpi-first or shmem-first (which finalize comes first).  Checks that the
 * PE number is the MPI_COMM_WORLD rank, then interleaves the two models'
 * traffic: SHMEM puts around a ring beside MPI_Sendrecv, a SHMEM
 * reduction against MPI_Allreduce of the same values, a broadcast of
 * each, a SHMEM team and an MPI communicator split alike.  Prints
 * "hybrid: ok" on PE 0. */
#include <mpi.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/check.h"

#define ROUNDS 20

static long ring[ROUNDS], sum_src, sum_dst, bc[4];
static int rank = -1;

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "mpi-first") && strcmp(argv[1], "shmem-first")) ||
        (strcmp(argv[2], "mpi-first") && strcmp(argv[2], "shmem-first"))) {
        fprintf(stderr, "usage: hybrid_mpi mpi-first|shmem-first mpi-first|shmem-first\n");
        return 2;
    }
    int mpi_init_first = !strcmp(argv[1], "mpi-first");
    int mpi_fini_first = !strcmp(argv[2], "mpi-first");
    if (mpi_init_first) {
        MPI_Init(&argc, &argv);
        shmem_init();
    } else {
        shmem_init();
        int up = 1;
        MPI_Initialized(&up);
        /* The library's own use of MPI (sessions) is its business: the
         * program's world model is not started by shmem_init. */
        REQUIRE(!up, "MPI_Initialized says %d after shmem_init alone", up);
        MPI_Init(&argc, &argv);
    }
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    check_set_pe(rank); /* names it once shmem_finalize has run (fini order mpi-first or not) */
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int me = shmem_my_pe(), n = shmem_n_pes();
    REQUIRE(rank == me && size == n, "MPI rank %d of %d, PE %d of %d", rank, size, me, n);

    int right = (me + 1) % n, left = (me + n - 1) % n;
    for (int r = 0; r < ROUNDS; r++) {
        shmem_long_p(&ring[r], 1000L * me + r, right);
        long got = -1, out = 7L * me + r;
        MPI_Sendrecv(&out, 1, MPI_LONG, right, r, &got, 1, MPI_LONG, left, r, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        REQUIRE_EQ(got, 7L * left + r, "round %d: MPI got %ld from %d", r, got, left);
        shmem_barrier_all();
        REQUIRE_EQ(ring[r], 1000L * left + r, "round %d: SHMEM got %ld from %d", r, ring[r], left);

        sum_src = me * 3 + r;
        long mpi_sum = 0;
        MPI_Allreduce(&sum_src, &mpi_sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &sum_dst, &sum_src, 1);
        REQUIRE_EQ(sum_dst, mpi_sum, "round %d: SHMEM sum %ld, MPI sum %ld", r, sum_dst, mpi_sum);

        int root = r % n;
        long v = me == root ? 42 + r : -1;
        MPI_Bcast(&v, 1, MPI_LONG, root, MPI_COMM_WORLD);
        bc[0] = me == root ? 4242 + r : -1;
        shmem_long_broadcast(SHMEM_TEAM_WORLD, &bc[1], &bc[0], 1, root);
        REQUIRE(v == 42 + r && bc[1] == 4242 + r, "round %d: broadcasts gave %ld and %ld", r, v,
                bc[1]);
    }

    /* Even PEs: a SHMEM team and an MPI communicator of the same members,
     * numbered alike. */
    shmem_team_t even;
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &even);
    REQUIRE_EQ(rc, 0, "split_strided returned %d", rc);
    MPI_Comm ce;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2 ? MPI_UNDEFINED : 0, me, &ce);
    if (me % 2 == 0) {
        int cr;
        MPI_Comm_rank(ce, &cr);
        REQUIRE_EQ(cr, shmem_team_my_pe(even), "MPI rank %d in the even communicator, team PE %d",
                   cr, shmem_team_my_pe(even));
        MPI_Comm_free(&ce);
    } else {
        REQUIRE_EQ(even, SHMEM_TEAM_INVALID, "an odd PE got the even team");
    }
    shmem_team_destroy(even);

    if (mpi_fini_first) {
        MPI_Finalize();
        shmem_barrier_all(); /* SHMEM still works once MPI is finalized */
        shmem_finalize();
    } else {
        shmem_finalize();
        MPI_Barrier(MPI_COMM_WORLD); /* and MPI once SHMEM is */
        MPI_Finalize();
    }
    if (rank == 0)
        printf("hybrid: ok (%s init first, %s finalize first, %d PEs)\n",
               mpi_init_first ? "MPI" : "SHMEM", mpi_fini_first ? "MPI" : "SHMEM", n);
    return 0;
}
