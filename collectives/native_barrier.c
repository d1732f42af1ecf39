/* Barriers of the native component: dissemination (log2 n rounds, one flag
 * per round) and a radix-4 tree (gather to team PE 0, release down). */
#include "coll.h"
#include "coll_state.h"
#include "config.h"
#include "coll_algos.h"

int pshm_native_barrier_dissemination(struct pshm_team *t)
{
    int n = t->n_pes, me = t->my_pe;
    uint64_t v = PSHM_FLAG(++t->seq, 0);
    uint64_t *f = t->sym->f.diss;
    for (int k = 0, d = 1; d < n; k++, d <<= 1) {
        coll_signal(&f[k], v, coll_wpe(t, (me + d) % n));
        coll_wait(&f[k], v);
    }
    return 0;
}

#define RADIX 4

int pshm_native_barrier_tree(struct pshm_team *t)
{
    int n = t->n_pes, me = t->my_pe;
    uint64_t v = PSHM_FLAG(++t->seq, 0);
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

int pshm_native_barrier(struct pshm_team *t)
{
    switch (pshm_cfg.coll_algo[PSHM_COP_BARRIER]) {
    case PSHM_BARRIER_DISSEMINATION: return pshm_native_barrier_dissemination(t);
    case PSHM_BARRIER_TREE: return pshm_native_barrier_tree(t);
    default: break;
    }
    /* auto: dissemination has the fewest sequential steps; with more PEs
     * than a few and all of them on this node, the tree wakes each PE at
     * most twice, which matters when PEs outnumber cores. */
    if (t->n_pes <= 8 || !t->all_mapped)
        return pshm_native_barrier_dissemination(t);
    return pshm_native_barrier_tree(t);
}
