/*
 * Misuse of shmemx requests and spaces, run by shmemx_misuse.sh (requests
 * under SHMEM_DEBUG=1): each case must end the job with one line naming
 * the routine and the mistake.
 *   wait-twice    a copy of a handle waited for after the original was
 *   test-freed    a copy tested after shmemx_request_free
 *   merge-null    shmemx_request_merge given SHMEMX_REQUEST_NULL
 *   null-req      an nbe call given req == NULL (checked without SHMEM_DEBUG too)
 *   alloc-active  shmemx_request_alloc over an active request
 *   space-cuda    a SHMEMX_SPACE_CUDA space on a build without accelerators
 *   space-destroy destroying an attached space
 *   space-size    PEs creating a space with different sizes
 */
#include <stdio.h>
#include <string.h>

#include <shmem.h>
#include <shmemx.h>

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    shmem_init();
    long *x = shmem_calloc(4, sizeof(long));
    long v = 1;
    int right = (shmem_my_pe() + 1) % shmem_n_pes(), flag;
    shmemx_request_h r = SHMEMX_REQUEST_NULL, copy;
    shmem_barrier_all();
    if (!strcmp(what, "wait-twice")) {
        shmemx_long_put_nbe(x, &v, 1, right, &r);
        copy = r;
        shmemx_request_wait(&r);
        shmemx_request_wait(&copy);
    } else if (!strcmp(what, "test-freed")) {
        shmemx_request_alloc(0, &r);
        copy = r;
        shmemx_request_free(&r);
        shmemx_request_test(&copy, &flag);
    } else if (!strcmp(what, "merge-null")) {
        shmemx_request_h *list[1] = {&r};
        shmemx_request_h m = SHMEMX_REQUEST_NULL;
        shmemx_request_merge(1, list, &m);
    } else if (!strcmp(what, "null-req")) {
        shmemx_long_put_nbe(x, &v, 1, right, NULL);
    } else if (!strcmp(what, "alloc-active")) {
        shmemx_long_get_nbe(&v, x, 1, right, &r);
        shmemx_request_alloc(0, &r);
    } else if (!strncmp(what, "space-", 6)) {
        shmemx_space_config_t cfg = {.sheap_size = 1 << 16, .num_contexts = 0,
                                     .memkind = SHMEMX_SPACE_HOST};
        shmemx_space_t sp;
        if (!strcmp(what, "space-cuda"))
            cfg.memkind = SHMEMX_SPACE_CUDA;
        if (!strcmp(what, "space-size"))
            cfg.sheap_size += (size_t)shmem_my_pe() << 16;
        shmemx_space_create(cfg, &sp);
        shmemx_space_attach(sp);
        shmemx_space_destroy(sp);
    } else {
        fprintf(stderr, "shmemx_misuse: unknown case '%s'\n", what);
        return 2;
    }
    shmem_barrier_all();
    shmem_free(x);
    shmem_finalize();
    printf("shmemx_misuse %s: no error\n", what);
    return 0;
}
