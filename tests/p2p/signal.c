/*
 * signal.c -- put-with-signal and the signal routines.
 *
 * 1. Every row of the generated table (every RMA type, every SIZE, mem),
 *    every form (plain, ctx, C11 generic, generic with ctx), blocking and
 *    nbi, SHMEM_SIGNAL_SET and SHMEM_SIGNAL_ADD: each PE sends one round of
 *    each to its right neighbour, into a slot of its own (heap or global
 *    dest, heap or global signal word).  The receiver waits on the signal
 *    with shmem_signal_wait_until and then checks the data, which must be
 *    visible once the signal is.  ADD rounds send two halves whose signals
 *    must add up.
 * 2. shmem_signal_add/set/fetch (+ctx forms, + C11 generic ctx forms), on
 *    heap and global words, from every PE to every PE; every comparison
 *    operator of shmem_signal_wait_until.
 * 3. All-to-all putmem_signal/put_signal_nbi with ADD into one word.
 * 4. Large transfers (1 MiB heap, 128 KiB global) whose signal must not
 *    overtake the data, with an acknowledgement per iteration.
 */
#include "signal_types.h"

#define SLOT 512 /* bytes per round's destination */
#define MAXROUNDS 1024
#define ADD_A (1ull << 40)

static char gdest[MAXROUNDS / 2 * SLOT] __attribute__((aligned(64)));
static uint64_t gsig[MAXROUNDS];
static uint64_t gsig_cnt;
static char glarge[128 * 1024] __attribute__((aligned(64)));
static uint64_t glarge_sig, glarge_ack;

void sig_fill_bytes(void *buf, size_t n, uint64_t seed)
{
    unsigned char *b = buf;
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)t_mix(seed + i);
}

long sig_check_bytes(const void *buf, size_t n, uint64_t seed)
{
    const unsigned char *b = buf;
    for (size_t i = 0; i < n; i++)
        if (b[i] != (unsigned char)t_mix(seed + i))
            return (long)i;
    return -1;
}

struct round {
    const struct sig_type *t;
    int form, nbi, op;
};

static size_t count_of(const struct sig_type *t, size_t nelems)
{
    return t->fill == sig_fill_bytes ? nelems * t->esize : nelems;
}

static uint64_t seed_of(int src, int r) { return ((uint64_t)src << 32) ^ ((uint64_t)r * 1000003u); }

static const char *form_name(int f)
{
    static const char *n[] = {"plain", "ctx", "generic", "generic-ctx"};
    return n[f];
}

int main(void)
{
    shmem_init();
    check_watchdog(150);
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    shmem_ctx_t ctx;
    REQUIRE_EQ(shmem_ctx_create(0, &ctx), 0, "shmem_ctx_create(0) failed");

    /* ---- 1. the generated table ------------------------------------- */
    check_stage("table");
    static struct round rounds[MAXROUNDS];
    int nr = 0;
    for (size_t k = 0; k < sig_ntypes; k++)
        for (int f = 0; f < sig_types[k].nforms; f++)
            for (int nbi = 0; nbi < 2; nbi++)
                for (int op = 0; op < 2; op++) {
                    REQUIRE_LT(nr, MAXROUNDS, "too many rounds");
                    rounds[nr++] = (struct round){&sig_types[k], f, nbi,
                                                  op ? SHMEM_SIGNAL_ADD : SHMEM_SIGNAL_SET};
                }

    char *hdest = shmem_calloc((size_t)nr, SLOT);
    uint64_t *hsig = shmem_calloc((size_t)nr, sizeof(uint64_t));
    char *srcpool = malloc((size_t)nr * SLOT);
    REQUIRE(hdest && hsig && srcpool, "allocation failed");

    /* Where round r lands: dest alternates heap, heap, global, global;
     * the signal word heap, global. */
    char *dest_of[MAXROUNDS];
    uint64_t *sig_of[MAXROUNDS];
    size_t nel_of[MAXROUNDS];
    for (int r = 0; r < nr; r++) {
        dest_of[r] = (r % 4 < 2) ? hdest + (size_t)r * SLOT : gdest + (size_t)(r / 4 * 2 + r % 4 - 2) * SLOT;
        sig_of[r] = (r % 2 == 0) ? &hsig[r] : &gsig[r];
        nel_of[r] = 2 + (size_t)(r * 7) % 29; /* 2..30 elements, <= 480 bytes */
    }

    for (int r = 0; r < nr; r++) {
        const struct round *R = &rounds[r];
        size_t n = nel_of[r], es = R->t->esize;
        char *src = srcpool + (size_t)r * SLOT;
        R->t->fill(src, count_of(R->t, n), seed_of(me, r));
        if (R->op == SHMEM_SIGNAL_SET) {
            uint64_t v = ((uint64_t)(r + 1) << 20) | (uint64_t)me;
            R->t->put(R->form, ctx, dest_of[r], src, n, sig_of[r], v, R->op, right, R->nbi);
        } else {
            size_t n1 = n / 2;
            R->t->put(R->form, ctx, dest_of[r], src, n1, sig_of[r], ADD_A, R->op, right, R->nbi);
            R->t->put(R->form, ctx, dest_of[r] + n1 * es, src + n1 * es, n - n1, sig_of[r],
                      (uint64_t)r + 1, R->op, right, R->nbi);
        }
    }
    shmem_quiet();
    shmem_ctx_quiet(ctx);

    for (int r = 0; r < nr; r++) {
        const struct round *R = &rounds[r];
        uint64_t want, got;
        if (R->op == SHMEM_SIGNAL_SET) {
            want = ((uint64_t)(r + 1) << 20) | (uint64_t)left;
            got = shmem_signal_wait_until(sig_of[r], SHMEM_CMP_EQ, want);
        } else {
            want = ADD_A + (uint64_t)r + 1;
            got = shmem_signal_wait_until(sig_of[r], SHMEM_CMP_GE, want);
        }
        REQUIRE_EQ(got, want,
                   "%s put_signal%s form %s op %s round %d: signal_wait_until returned %#llx, "
                   "expected %#llx",
                   R->t->name, R->nbi ? "_nbi" : "", form_name(R->form),
                   R->op == SHMEM_SIGNAL_SET ? "SET" : "ADD", r, (unsigned long long)got,
                   (unsigned long long)want);
        long bad = R->t->check(dest_of[r], count_of(R->t, nel_of[r]), seed_of(left, r));
        REQUIRE_LT(bad, 0,
                   "%s put_signal%s form %s op %s round %d (%s dest, %s signal, %zu elems from PE "
                   "%d): element %ld wrong once the signal was visible",
                   R->t->name, R->nbi ? "_nbi" : "", form_name(R->form),
                   R->op == SHMEM_SIGNAL_SET ? "SET" : "ADD", r, r % 4 < 2 ? "heap" : "global",
                   r % 2 ? "global" : "heap", nel_of[r], left, bad);
        REQUIRE_EQ(shmem_signal_fetch(sig_of[r]), want, "%s round %d: signal_fetch %#llx != %#llx",
                   R->t->name, r, (unsigned long long)shmem_signal_fetch(sig_of[r]),
                   (unsigned long long)want);
    }
    shmem_barrier_all();

    /* ---- 2. signal_add / signal_set / signal_fetch ------------------- */
    check_stage("signal_add");
    uint64_t *hcnt = shmem_calloc(1, sizeof(uint64_t));
    uint64_t *hset = shmem_calloc((size_t)npes * 4, sizeof(uint64_t));
    static uint64_t gset[4 * 64];
    REQUIRE(hcnt && hset && npes <= 64, "allocation failed");
    for (int i = 0; i < npes; i++) {
        int pe = (me + i) % npes;
        (shmem_signal_add)(hcnt, (uint64_t)me + 1, pe);          /* the C function */
        shmem_signal_add(hcnt, 1000 * ((uint64_t)me + 1), pe);   /* generic, no ctx */
        shmem_ctx_signal_add(ctx, &gsig_cnt, (uint64_t)me + 1, pe);
        shmem_signal_add(ctx, &gsig_cnt, 1000 * ((uint64_t)me + 1), pe); /* generic ctx */
        (shmem_signal_set)(&hset[4 * me + 0], 11 + (uint64_t)me, pe);
        shmem_signal_set(&hset[4 * me + 1], 22 + (uint64_t)me, pe);
        shmem_ctx_signal_set(ctx, &gset[4 * me + 2], 33 + (uint64_t)me, pe);
        shmem_signal_set(ctx, &gset[4 * me + 3], 44 + (uint64_t)me, pe);
    }
    shmem_ctx_quiet(ctx);
    uint64_t total = 1001 * (uint64_t)npes * ((uint64_t)npes + 1) / 2;
    uint64_t got = shmem_signal_wait_until(hcnt, SHMEM_CMP_EQ, total);
    REQUIRE_EQ(got, total, "heap signal_add total %llu, expected %llu", (unsigned long long)got,
               (unsigned long long)total);
    got = shmem_signal_wait_until(&gsig_cnt, SHMEM_CMP_GE, total);
    REQUIRE_EQ(got, total, "global ctx_signal_add total %llu, expected %llu",
               (unsigned long long)got, (unsigned long long)total);
    for (int p = 0; p < npes; p++) {
        uint64_t *w[4] = {&hset[4 * p], &hset[4 * p + 1], &gset[4 * p + 2], &gset[4 * p + 3]};
        for (int j = 0; j < 4; j++) {
            uint64_t want = 11 * (uint64_t)(j + 1) + (uint64_t)p;
            got = shmem_signal_wait_until(w[j], SHMEM_CMP_NE, 0);
            REQUIRE(got == want && shmem_signal_fetch(w[j]) == want,
                    "signal_set form %d from PE %d: got %llu, expected %llu", j, p,
                    (unsigned long long)got, (unsigned long long)want);
        }
    }
    /* Every comparison operator, each satisfied by the final value. */
    {
        struct {
            int cmp;
            uint64_t v;
        } c[] = {{SHMEM_CMP_EQ, total},     {SHMEM_CMP_NE, total - 1}, {SHMEM_CMP_NE, 0},
                 {SHMEM_CMP_GT, total - 1}, {SHMEM_CMP_GT, 0},         {SHMEM_CMP_GE, total},
                 {SHMEM_CMP_LT, total + 1}, {SHMEM_CMP_LT, UINT64_MAX}, {SHMEM_CMP_LE, total}};
        for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
            got = shmem_signal_wait_until(hcnt, c[i].cmp, c[i].v);
            REQUIRE_EQ(got, total, "signal_wait_until cmp %d value %llu returned %llu", c[i].cmp,
                       (unsigned long long)c[i].v, (unsigned long long)got);
        }
    }
    shmem_barrier_all();

    /* ---- 3. all-to-all put_signal ADD into one word ------------------ */
    check_stage("all-to-all");
    enum { A2A = 96 };
    char *a2a = shmem_calloc((size_t)npes, A2A);
    long *a2al = shmem_calloc((size_t)npes, A2A);
    uint64_t *a2a_sig = shmem_calloc(2, sizeof(uint64_t));
    char *a2a_src = malloc(A2A);
    long a2al_src[A2A / sizeof(long)];
    REQUIRE(a2a && a2al && a2a_sig && a2a_src, "allocation failed");
    sig_fill_bytes(a2a_src, A2A, seed_of(me, 7777));
    for (size_t i = 0; i < A2A / sizeof(long); i++)
        a2al_src[i] = (long)t_mix(seed_of(me, 8888) + i);
    for (int i = 0; i < npes; i++) {
        int pe = (me + i) % npes;
        shmem_putmem_signal(a2a + (size_t)me * A2A, a2a_src, A2A, &a2a_sig[0], 1,
                            SHMEM_SIGNAL_ADD, pe);
        shmem_long_put_signal_nbi(a2al + (size_t)me * (A2A / sizeof(long)), a2al_src,
                                  A2A / sizeof(long), &a2a_sig[1], 3, SHMEM_SIGNAL_ADD, pe);
    }
    shmem_quiet();
    got = shmem_signal_wait_until(&a2a_sig[0], SHMEM_CMP_EQ, (uint64_t)npes);
    REQUIRE_EQ(got, (uint64_t)npes, "all-to-all putmem_signal count %llu", (unsigned long long)got);
    got = shmem_signal_wait_until(&a2a_sig[1], SHMEM_CMP_EQ, 3 * (uint64_t)npes);
    REQUIRE_EQ(got, 3 * (uint64_t)npes, "all-to-all long_put_signal_nbi count %llu",
               (unsigned long long)got);
    for (int p = 0; p < npes; p++) {
        long bad = sig_check_bytes(a2a + (size_t)p * A2A, A2A, seed_of(p, 7777));
        REQUIRE_LT(bad, 0, "all-to-all putmem_signal data from PE %d wrong at byte %ld", p, bad);
        for (size_t i = 0; i < A2A / sizeof(long); i++)
            REQUIRE_EQ(a2al[(size_t)p * (A2A / sizeof(long)) + i],
                       (long)t_mix(seed_of(p, 8888) + i),
                       "all-to-all long_put_signal_nbi data from PE %d wrong at %zu", p, i);
    }
    shmem_barrier_all();

    /* ---- 4. large transfers: the signal must not overtake the data ---- */
    check_stage("large");
    const size_t big = 1 << 20;
    char *hlarge = shmem_malloc(big);
    uint64_t *hls = shmem_calloc(2, sizeof(uint64_t)); /* [0] signal, [1] ack */
    char *lsrc = malloc(big);
    REQUIRE(hlarge && hls && lsrc, "allocation failed");
    shmem_barrier_all();
    for (int it = 0; it < 8; it++) {
        int global = it % 2, nbi = (it / 2) % 2;
        size_t len = global ? sizeof glarge : big;
        char *dst = global ? glarge : hlarge;
        uint64_t *sig = global ? &glarge_sig : &hls[0];
        uint64_t *ack = global ? &glarge_ack : &hls[1];
        uint64_t v = (uint64_t)it / 2 + 1;
        sig_fill_bytes(lsrc, len, seed_of(me, 100 + it));
        if (it % 3 == 2) /* a typed form too */
            (nbi ? shmem_ctx_uint64_put_signal_nbi : shmem_ctx_uint64_put_signal)(
                ctx, (uint64_t *)dst, (const uint64_t *)lsrc, len / 8, sig, v, SHMEM_SIGNAL_SET,
                right);
        else
            (nbi ? shmem_putmem_signal_nbi : shmem_putmem_signal)(dst, lsrc, len, sig, v,
                                                                  SHMEM_SIGNAL_SET, right);
        if (nbi) {
            shmem_quiet();
            shmem_ctx_quiet(ctx);
        }
        got = shmem_signal_wait_until(sig, SHMEM_CMP_EQ, v);
        long bad = sig_check_bytes(dst, len, seed_of(left, 100 + it));
        REQUIRE_LT(bad, 0,
                   "large %s putmem_signal%s iteration %d (%zu bytes from PE %d): byte %ld "
                   "wrong once the signal was visible",
                   global ? "global" : "heap", nbi ? "_nbi" : "", it, len, left, bad);
        shmem_signal_set(ack, v, left);
        shmem_signal_wait_until(ack, SHMEM_CMP_EQ, v); /* right has read ours */
    }

    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    free(srcpool);
    free(a2a_src);
    free(lsrc);
    shmem_free(hdest);
    shmem_free(hsig);
    shmem_free(hcnt);
    shmem_free(hset);
    shmem_free(a2a);
    shmem_free(a2al);
    shmem_free(a2a_sig);
    shmem_free(hlarge);
    shmem_free(hls);
    int status = check_done("signal",
                            "%d put-with-signal rounds over %zu table rows, signal add/set/fetch, "
                            "all-to-all, large",
                            nr, sig_ntypes);
    shmem_finalize();
    return status;
}
