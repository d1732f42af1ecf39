/*
 * pmi_allgather: the PMI bootstrap alone, with exchanges larger than one
 * PMI value (the library's own stay below one), run under a PMI launcher.
 *
 * Every rank allgathers blobs of 0, 1, 511, 512, 2000 and 70000 bytes (a
 * pattern of rank and offset), checks every byte of every rank's, and
 * prints "allgather ok: rank R of N, local L". Exit 3 on a wrong byte, 1 if
 * the bootstrap fails.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bootstrap.h"

/* The bootstrap's errors end the job through here in the library. */
void pshm_job_abort(int status);
void pshm_job_abort(int status) { exit(status); }

static unsigned char pattern(int rank, size_t i)
{
    return (unsigned char)(rank * 31 + i * 7 + (i >> 8));
}

int main(void)
{
    static const size_t sizes[] = {0, 1, 511, 512, 2000, 70000};
    struct pshm_boot b = {0};
    char err[1024];
    if (pshm_boot_pmi.init(&b, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t len = sizes[s];
        unsigned char *mine = malloc(len + 1), *all = malloc(len * (size_t)b.size + 1);
        for (size_t i = 0; i < len; i++)
            mine[i] = pattern(b.rank, i);
        if (b.allgather(mine, all, len))
            return 1;
        for (int r = 0; r < b.size; r++)
            for (size_t i = 0; i < len; i++)
                if (all[(size_t)r * len + i] != pattern(r, i)) {
                    printf("rank %d: byte %zu of rank %d's %zu-byte blob is wrong\n", b.rank, i, r,
                           len);
                    return 3;
                }
        free(mine);
        free(all);
    }
    if (b.barrier())
        return 1;
    printf("allgather ok: rank %d of %d, local %d\n", b.rank, b.size, b.n_local);
    b.fini();
    return 0;
}
