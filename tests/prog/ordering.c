/*
 * Ordering and completion: shmem_fence (data then flag to one PE arrive in
 * order), shmem_quiet / shmem_pe_quiet (nonblocking puts complete before a
 * later flag), shmem_barrier_all (1000 times, with AMO counters and puts
 * checked after every one), shmem_sync_all (local stores, and quieted
 * puts, visible after it).
 */
#include "../common/check.h"

#define ROUNDS 300
#define M 512 /* longs per message */

struct box {
    long data[M];
    long flag, ack;
};
static struct box g_box;

/* Every PE sends to its right neighbour and receives from its left: data,
 * then an ordering call, then the flag.  The receiver checks the data once
 * the flag shows the round, then acks to the sender. */
static void msg_rounds(struct box *b, int use_quiet, const char *where)
{
    int me = shmem_my_pe(), right = check_right(), left = check_left();
    long *src = malloc(M * sizeof(long));
    REQUIRE_NE(src, NULL, "malloc");
    memset(b, 0, sizeof *b);
    shmem_barrier_all();
    for (long r = 1; r <= ROUNDS; r++) {
        /* send round r: the right neighbour has consumed round r-1 */
        shmem_long_wait_until(&b->ack, SHMEM_CMP_GE, r - 1);
        for (int i = 0; i < M; i++)
            src[i] = r * 100000 + me * 1000 + i;
        switch (r % 4) {
        case 0: shmem_long_put(b->data, src, M, right); break;
        case 1: shmem_putmem_nbi(b->data, src, M * sizeof(long), right); break;
        case 2:
            for (int i = 0; i < M; i += 64)
                shmem_long_put_nbi(&b->data[i], &src[i], 64, right);
            break;
        default:
            for (int i = 0; i < M; i++)
                shmem_long_p(&b->data[i], src[i], right);
            break;
        }
        if (use_quiet) {
            switch (r % 3) {
            case 0: shmem_quiet(); break;
            case 1: shmem_ctx_quiet(SHMEM_CTX_DEFAULT); break;
            default: shmem_pe_quiet(&right, 1); break;
            }
        } else {
            if (r % 2)
                shmem_fence();
            else
                shmem_ctx_fence(SHMEM_CTX_DEFAULT);
        }
        if (r % 2)
            shmem_long_atomic_set(&b->flag, r, right);
        else
            shmem_long_p(&b->flag, r, right);
        /* the nbi source must not change before completion */
        if (!use_quiet)
            shmem_quiet();

        /* receive round r */
        shmem_long_wait_until(&b->flag, SHMEM_CMP_GE, r);
        REQUIRE_EQ(b->flag, r, "%s (%s): flag from PE %d is %ld in round %ld",
                   use_quiet ? "quiet" : "fence", where, left, b->flag, r);
        for (int i = 0; i < M; i++)
            REQUIRE_EQ(b->data[i], r * 100000 + left * 1000 + i,
                       "%s (%s): round %ld, flag seen but data[%d] from PE %d is %ld, expected %ld",
                       use_quiet ? "quiet" : "fence", where, r, i, left, b->data[i],
                       r * 100000 + left * 1000 + i);
        shmem_long_atomic_set(&b->ack, r, left);
    }
    shmem_long_wait_until(&b->ack, SHMEM_CMP_GE, ROUNDS);
    shmem_pe_quiet(NULL, 0);
    shmem_ctx_pe_quiet(SHMEM_CTX_DEFAULT, &left, 1);
    shmem_barrier_all();
    free(src);
}

#define NBAR 1000
static long g_cnt[2], g_slot[64];

static void barriers(long *cnt, long *slot)
{
    int me = shmem_my_pe(), np = shmem_n_pes();
    cnt[0] = cnt[1] = 0;
    for (int i = 0; i < np; i++)
        slot[i] = -1;
    shmem_barrier_all();
    for (long i = 0; i < NBAR; i++) {
        for (int k = 0; k < np; k++)
            shmem_long_atomic_inc(&cnt[i & 1], (me + k) % np);
        shmem_long_p(&slot[me], i, (int)((me + i) % np));
        shmem_barrier_all();
        long want = np * (i / 2 + 1);
        REQUIRE_EQ(cnt[i & 1], want, "after barrier %ld the counter is %ld, expected %ld", i,
                   cnt[i & 1], want);
        int from = (int)(((me - i) % np + np) % np);
        REQUIRE_EQ(slot[from], i, "after barrier %ld the put from PE %d holds %ld", i, from,
                   slot[from]);
    }
    shmem_barrier_all();
}

#define NSYNC 300
static long g_word[2], g_recv[2];

static void syncs(long *word, long *recv)
{
    int me = shmem_my_pe(), right = check_right(), left = check_left();
    word[0] = word[1] = recv[0] = recv[1] = -1;
    shmem_barrier_all();
    for (long i = 0; i < NSYNC; i++) {
        word[i & 1] = i * 10 + me; /* a local store */
        shmem_long_put(&recv[i & 1], &word[i & 1], 1, right);
        shmem_quiet();
        shmem_sync_all();
        long got = shmem_long_g(&word[i & 1], right);
        REQUIRE_EQ(got, i * 10 + right, "sync_all %ld: PE %d's local store reads as %ld", i, right,
                   got);
        REQUIRE_EQ(recv[i & 1], i * 10 + left, "sync_all %ld: quieted put from PE %d holds %ld", i,
                   left, recv[i & 1]);
    }
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    check_watchdog(150);
    REQUIRE_LE(shmem_n_pes(), 64, "this test handles up to 64 PEs");

    check_stage("fence");
    struct box *hb = shmem_malloc(sizeof *hb);
    REQUIRE_NE(hb, NULL, "shmem_malloc");
    msg_rounds(hb, 0, "heap");
    msg_rounds(&g_box, 0, "global");
    check_stage("quiet");
    msg_rounds(hb, 1, "heap");
    msg_rounds(&g_box, 1, "global");
    shmem_free(hb);

    check_stage("barrier_all");
    long *hc = shmem_malloc(66 * sizeof(long));
    REQUIRE_NE(hc, NULL, "shmem_malloc");
    barriers(hc, hc + 2);
    barriers(g_cnt, g_slot);
    check_stage("sync_all");
    syncs(hc, hc + 2);
    syncs(g_word, g_recv);
    shmem_free(hc);

    int status = check_done("ordering");
    shmem_finalize();
    return status;
}
