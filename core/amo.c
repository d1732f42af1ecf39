/* AMOs the core cannot do with a CPU atomic go to the transport. */
#include "api.h"
#include "error.h"

void pshm_amo_slow(struct pshm_ctx *c, void *dst, int pe, int op, int type, const void *operand,
                   const void *compare, void *fetch, int nbi)
{
    size_t off;
    int s = pshm_seg_of(dst, &off);
    if (PSHM_UNLIKELY(s < 0)) {
        if (!pshm_g.heap_len)
            pshm_fatal("atomic operation called before shmem_init");
        pshm_fatal("atomic operation on %p, which is not symmetric (neither in the symmetric heap "
                   "nor in global or static data)",
                   dst);
    }
    pshm_g.tp->amo(c->t, pe, s, off, op, type, operand, compare, fetch, nbi);
}
