/*
 * msgcount OP CALLS: CALLS calls of one collective on SHMEM_TEAM_WORLD,
 * each checked, and nothing else.  tests/coll/msgcount.py runs it under
 * SHMEM_COUNT_OPS at two call counts over emulated nodes and holds the
 * difference (the messages one call sends between nodes) to what the
 * node-aware algorithm needs.  OP: barrier, bcast, reduce, fcollect.
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Two of each, used in turn: what OpenSHMEM promises a program that does
 * not synchronize between collectives is that no PE runs more than one
 * call ahead, so a buffer may be reused every other call. */
static long srcs[2][1024], dsts[2][1024];

static void fail(const char *op, int call, const char *what, long got, long want)
{
    fprintf(stderr, "msgcount: PE %d, %s call %d: %s is %ld, expected %ld\n", shmem_my_pe(), op,
            call, what, got, want);
    shmem_global_exit(1);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: msgcount barrier|bcast|reduce|fcollect|alltoall CALLS\n");
        return 2;
    }
    const char *op = argv[1];
    int calls = atoi(argv[2]);
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (n > 1024) {
        fprintf(stderr, "msgcount: at most 1024 PEs\n");
        shmem_global_exit(2);
    }
    for (int c = 0; c < calls; c++) {
        long v = 1000L * c + me, *src = srcs[c & 1], *dst = dsts[c & 1];
        if (!strcmp(op, "barrier")) {
            shmem_barrier_all();
        } else if (!strcmp(op, "bcast")) {
            int root = c % n;
            src[0] = 1000L * c + root;
            shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, 1, root);
            if (dst[0] != 1000L * c + root)
                fail(op, c, "dest", dst[0], 1000L * c + root);
        } else if (!strcmp(op, "reduce")) {
            src[0] = v;
            shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 1);
            long want = 1000L * c * n + (long)n * (n - 1) / 2;
            if (dst[0] != want)
                fail(op, c, "sum", dst[0], want);
        } else if (!strcmp(op, "fcollect")) {
            src[0] = v;
            shmem_long_fcollect(SHMEM_TEAM_WORLD, dst, src, 1);
            for (int i = 0; i < n; i++)
                if (dst[i] != 1000L * c + i)
                    fail(op, c, "block", dst[i], 1000L * c + i);
        } else if (!strcmp(op, "alltoall")) {
            for (int j = 0; j < n; j++)
                src[j] = ((long)c * 1024 + me) * 1024 + j;
            shmem_long_alltoall(SHMEM_TEAM_WORLD, dst, src, 1);
            for (int i = 0; i < n; i++)
                if (dst[i] != ((long)c * 1024 + i) * 1024 + me)
                    fail(op, c, "block", dst[i], ((long)c * 1024 + i) * 1024 + me);
        } else {
            fprintf(stderr, "msgcount: unknown operation '%s'\n", op);
            shmem_global_exit(2);
        }
    }
    shmem_finalize();
    return 0;
}
