/* Barriers of the native component: dissemination (log2 n rounds, one flag
 * per round) and a radix-4 tree (gather to team PE 0, release down). */
#include "coll.h"
#include "coll_state.h"
#include "coll_config.h"
#include "coll_algos.h"
#include "hier.h"
#include "native_msg.h"

int pshm_native_barrier_dissemination(struct pshm_team *t)
{
    int n = t->n_pes, me = t->my_pe;
    uint64_t v = PSHM_FLAG(++t->sym->l.seq, 0);
    uint64_t *f = t->sym->f.diss;
    for (int k = 0, d = 1; d < n; k++, d <<= 1) {
        coll_signal(&f[k], v, coll_wpe(t, coll_mod(me + d, n)));
        coll_wait(&f[k], v);
    }
    return 0;
}

#define RADIX 4

int pshm_native_barrier_tree(struct pshm_team *t)
{
    int n = t->n_pes, me = t->my_pe;
    uint64_t v = PSHM_FLAG(++t->sym->l.seq, 0);
    struct pshm_coll_flags *f = &t->sym->f;
    int first = me * RADIX + 1;
    for (int j = 0; j < RADIX && first + j < n; j++)
        coll_wait(&f->arrive[j], v);
    if (me) {
        int parent = (me - 1) / RADIX;
        coll_signal(&f->arrive[(me - 1) % RADIX], v, coll_wpe(t, parent));
        coll_wait(&f->release, v);
    }
    for (int j = 0; j < RADIX && first + j < n; j++)
        coll_signal(&f->release, v, coll_wpe(t, first + j));
    return 0;
}

/* All members mapped: every PE adds one to a counter on member 0 and the
 * last to arrive releases the others through one word they all watch.
 * Each PE runs twice at most (arrive, leave), which is what counts when
 * PEs outnumber cores: a dissemination barrier needs log2(n) partners to
 * be scheduled in turn. */
int pshm_native_barrier_counter(struct pshm_team *t)
{
    struct pshm_coll_flags *f0 = &t->sym->f;
    int root = coll_wpe(t, 0);
    uint64_t *count = (uint64_t *)pshm_mapped(&f0->ctr_count, root);
    uint64_t *release = (uint64_t *)pshm_mapped(&f0->ctr_release, root);
    if (root == pshm_g.my_pe) {
        count = &f0->ctr_count;
        release = &f0->ctr_release;
    }
    uint64_t k = ++t->sym->l.ctr_count;
    coll_complete();
    uint64_t arrived = __atomic_add_fetch(count, 1, __ATOMIC_ACQ_REL);
    if (arrived == k * (uint64_t)t->n_pes) {
        /* Sequentially consistent: the look for sleepers must follow it. */
        __atomic_store_n(release, k, __ATOMIC_SEQ_CST);
        pshm_wake_check(root, &f0->ctr_release);
        return 0;
    }
    coll_wait(release, k);
    return 0;
}

int pshm_native_barrier(struct pshm_team *t)
{
    if (t->hier)
        return pshm_hier_barrier(t);
    if (t->msg)
        return pshm_msg_barrier(t);
    coll_enter(t);
    switch (pshm_coll_cfg.algo[PSHM_CEXT_OP_BARRIER]) {
    case PSHM_BARRIER_DISSEMINATION: return pshm_native_barrier_dissemination(t);
    case PSHM_BARRIER_TREE: return pshm_native_barrier_tree(t);
    case PSHM_BARRIER_COUNTER:
        if (t->all_mapped)
            return pshm_native_barrier_counter(t);
        break;
    default: break;
    }
    if (t->all_mapped && t->n_pes > 2)
        return pshm_native_barrier_counter(t);
    /* auto: dissemination has the fewest sequential steps; with more PEs
     * than a few and all of them on this node, the tree wakes each PE at
     * most twice, which matters when PEs outnumber cores. */
    if (t->n_pes <= 8 || !t->all_mapped)
        return pshm_native_barrier_dissemination(t);
    return pshm_native_barrier_tree(t);
}
