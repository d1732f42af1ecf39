/*
 * A PE waiting in a node-aware collective's on-node phase still serves the
 * transport.  Those waits poll it only now and then (core/sync.c): their
 * flags are stored by the node's PEs.  But a PE of another node may be
 * stuck before the collective on a transfer into the waiter that needs the
 * waiter's progress (over tcp;ofi_rxm and UCX's tcp, with no progress
 * thread), and the collective cannot end before that PE joins it.
 *
 * Run it on two emulated nodes with SHMEM_PROGRESS_THREAD=0.  Each round,
 * every PE puts a block larger than any eager size into its right-hand
 * neighbour (on the other node, for an even number of PEs split by
 * parity; members that are not their node's leader among them) and enters
 * the barrier, whose quiet waits for the puts; then each checks what it
 * got.  Without polls in the on-node phases it hangs, and the test's
 * timeout fails it.
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#define WORDS (256 * 1024 / 8)
#define ROUNDS 20

static long block[WORDS];
static int bad, all; /* symmetric: reduced */

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *src = malloc(sizeof block);
    if (!src) {
        fprintf(stderr, "node_serve: out of memory\n");
        shmem_global_exit(1);
    }
    int right = (me + 1) % n, left = (me + n - 1) % n;
    for (int r = 0; r < ROUNDS && !bad; r++) {
        for (int i = 0; i < WORDS; i++)
            src[i] = (long)r << 40 | (long)me << 24 | i;
        shmem_long_put(block, src, WORDS, right);
        shmem_barrier_all();
        for (int i = 0; i < WORDS; i++)
            if (block[i] != ((long)r << 40 | (long)left << 24 | i)) {
                fprintf(stderr, "node_serve: PE %d round %d word %d: %#lx, expected %#lx\n", me,
                        r, i, block[i], (long)r << 40 | (long)left << 24 | i);
                bad = 1;
                break;
            }
        shmem_barrier_all(); /* block is read before the next round's puts */
    }
    free(src);
    if (shmem_int_max_reduce(SHMEM_TEAM_WORLD, &all, &bad, 1))
        all = 1;
    if (me == 0 && !all)
        printf("node_serve: %d PEs, %d rounds of %zu-byte puts across nodes: ok\n", n, ROUNDS,
               sizeof block);
    shmem_finalize();
    return all;
}
