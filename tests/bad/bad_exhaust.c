/* bad_exhaust BYTES: asks for more symmetric memory than there is; the
 * call must return NULL on every PE (reported under SHMEM_DEBUG=1), and
 * the heap must still work afterwards.  Exit 0 if so, 2 otherwise. */
#include <shmem.h>
#include <stdint.h>

#include "bad_common.h"

int main(int argc, char **argv)
{
    announce();
    size_t want = (size_t)strtoull(argc > 1 ? argv[1] : "0", NULL, 0);
    shmem_init();
    int me = shmem_my_pe();
    void *p = shmem_malloc(want);
    void *q = shmem_calloc(SIZE_MAX / 2, 4); /* overflowing count * size */
    void *small = shmem_malloc(64);
    int ok = p == NULL && q == NULL && small != NULL;
    printf("PE %d: shmem_malloc(%zu) = %s, overflowing calloc = %s, then 64 bytes = %s\n", me,
           want, p ? "non-NULL" : "NULL", q ? "non-NULL" : "NULL", small ? "ok" : "NULL");
    fflush(stdout);
    shmem_free(small);
    shmem_finalize();
    return ok ? 0 : 2;
}
