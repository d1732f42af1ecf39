/* Mailbox alltoall(s) of the native component, for small blocks when every
 * member is mapped.  Each PE has, in every member's slot, a region of its
 * own (mbox[parity] at sender * region): it stores its block for that
 * member after the region's flag word, then the flag.  A block of up to
 * region - 8 bytes and its flag share the sender's cache line(s), which
 * only that sender writes and only the receiver reads: no line is fought
 * over, nobody executes an atomic and nobody waits for a barrier.  The
 * pairwise algorithm's 8-byte blocks land in the same one or two lines of
 * each dest, written by every PE in turn, and then all meet in a barrier.
 *
 * The receiver waits for every sender's flag, so it returns only once
 * every member has entered the call.  Hence, when a PE writes parity p
 * again (two mailbox calls later), it has finished the call in between,
 * every member had entered that one and so had finished reading parity p.
 * Peers' user buffers are never written, so it needs no barrier after a
 * binomial broadcast either (coll_enter). */
#include "coll.h"
#include "coll_state.h"

/* Bytes of a sender's region in a team of n; 0 when it cannot hold a
 * flag and one byte. */
static size_t region(int n)
{
    size_t r = PSHM_MBOX_HALF / (size_t)n;
    return r >= 64 ? r & ~(size_t)63 : r >= 16 ? r & ~(size_t)7 : 0;
}

size_t pshm_native_mailbox_max(const struct pshm_team *t)
{
    size_t r = region(t->n_pes);
    return t->all_mapped && r ? r - 8 : 0;
}

/* alltoall is the case dst = sst = 1; fcollect sst = 0 with one element
 * of nbytes (every member gets the same block).  The caller checked that
 * nelems * es fits (pshm_native_mailbox_max). */
int pshm_native_alltoall_mailbox(struct pshm_team *t, void *dest, const void *src, ptrdiff_t dst,
                                 ptrdiff_t sst, size_t nelems, size_t es)
{
    int n = t->n_pes, me = t->my_pe;
    coll_enter(t);
    size_t r = region(n);
    ptrdiff_t dblock = (ptrdiff_t)nelems * dst * (ptrdiff_t)es;
    ptrdiff_t sblock = (ptrdiff_t)nelems * sst * (ptrdiff_t)es;
    uint64_t v = PSHM_FLAG(++t->sym->l.seq, 0);
    unsigned char *box = t->sym->f.mbox[t->sym->l.mbox_count++ & 1];
    unsigned char *mine = box + (size_t)me * r;
    coll_copy_strided((char *)dest + me * dblock, dst, (const char *)src + me * sblock, sst, nelems, es);
    /* Release stores, one fence, then the looks for sleepers (the order
     * coll_signal keeps with a sequentially consistent store each): x86
     * would otherwise drain its store buffer at every flag, paying the
     * trip to each receiver's line in turn instead of all at once.  Peers
     * in turn from me + 1, wrapping without a division. */
    /* The slot lies in the heap, mapped at every member (all_mapped); the
     * table and the offset are read once, which the compiler cannot do
     * across the stores itself. */
    const struct pshm_peer *peer = pshm_g.peer;
    const int *world = t->world;
    uintptr_t off = (uintptr_t)mine - pshm_g.heap_lo;
    const char *s = src;
    for (int i = 1, pe = me + 1; i < n; i++, pe++) {
        if (pe == n)
            pe = 0;
        char *p = peer[world ? world[pe] : pe].base[PSHM_SEG_HEAP] + off;
        coll_copy_strided(p + 8, 1, s + pe * sblock, sst, nelems, es);
        __atomic_store_n((uint64_t *)p, v, __ATOMIC_RELEASE);
    }
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (int pe = 0; pe < n; pe++)
        if (pe != me)
            pshm_wake_check(coll_wpe(t, pe), mine);
    /* In the order the senders wrote to this PE: the one just below first. */
    for (int i = 1, pe = me - 1; i < n; i++, pe--) {
        if (pe < 0)
            pe = n - 1;
        unsigned char *from = box + (size_t)pe * r;
        coll_wait((const uint64_t *)from, v);
        coll_copy_strided((char *)dest + pe * dblock, dst, (const char *)from + 8, 1, nelems, es);
    }
    return 0;
}
