/* sum_inscan / sum_exscan of the native component: after a barrier (every
 * source ready) each PE folds the sources of PEs 0..me (or 0..me-1) in
 * rank order, reading them in place when mapped; a second barrier makes
 * sure no PE still reads a source before dest (which may be the source)
 * is written. */
#include <stdlib.h>

#include "coll.h"
#include "coll_state.h"
#include "error.h"

#define SCAN_CHUNK 8192

int pshm_native_scan(struct pshm_team *t, void *dest, const void *src, size_t count,
                     const struct pshm_red *r, int exclusive)
{
    int me = t->my_pe, last = exclusive ? me - 1 : me;
    size_t es = r->esize, bytes = count * es;
    unsigned char *res = bytes ? malloc(bytes) : NULL;
    if (bytes && !res)
        pshm_fatal("%s: out of memory (%zu bytes)", pshm_coll_routine, bytes);
    _Alignas(64) unsigned char in[SCAN_CHUNK];
    size_t cm = SCAN_CHUNK / es;
    coll_enter(t);
    pshm_coll.barrier(t);
    if (last < 0)
        memset(res, 0, bytes); /* all-zero bits are 0 for every SUM type */
    for (size_t off = 0; off < count && last >= 0; off += cm) {
        size_t m = count - off < cm ? count - off : cm, b = m * es;
        const unsigned char *s = (const unsigned char *)src + off * es;
        for (int i = 0; i <= last; i++) {
            int w = coll_wpe(t, i);
            const void *p = w == pshm_g.my_pe ? (const void *)s : pshm_mapped(s, w);
            if (!p) {
                coll_get(in, s, b, w);
                p = in;
            }
            if (i == 0)
                memcpy(res + off * es, p, b);
            else
                r->fn(res + off * es, p, m);
        }
    }
    pshm_coll.barrier(t);
    if (bytes)
        memcpy(dest, res, bytes);
    free(res);
    return 0;
}
