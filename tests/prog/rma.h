/* Shared between rma.c and the generated rma_types.c. */
#ifndef PLUGSHMEM_TEST_RMA_H
#define PLUGSHMEM_TEST_RMA_H

#include <stddef.h>

#include <shmem.h>

/* The fixed-size routines of one SIZE, from the library's SIZES table. */
struct rma_sized_ops {
    int bits; /* 0 ends the table */
    void (*put)(void *, const void *, size_t, int);
    void (*ctx_put)(shmem_ctx_t, void *, const void *, size_t, int);
    void (*put_nbi)(void *, const void *, size_t, int);
    void (*ctx_put_nbi)(shmem_ctx_t, void *, const void *, size_t, int);
    void (*get)(void *, const void *, size_t, int);
    void (*ctx_get)(shmem_ctx_t, void *, const void *, size_t, int);
    void (*get_nbi)(void *, const void *, size_t, int);
    void (*ctx_get_nbi)(shmem_ctx_t, void *, const void *, size_t, int);
    void (*iput)(void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int);
    void (*ctx_iput)(shmem_ctx_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int);
    void (*iget)(void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int);
    void (*ctx_iget)(shmem_ctx_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int);
    void (*ibput)(void *, const void *, ptrdiff_t, ptrdiff_t, size_t, size_t, int);
    void (*ctx_ibput)(shmem_ctx_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t, size_t, int);
    void (*ibget)(void *, const void *, ptrdiff_t, ptrdiff_t, size_t, size_t, int);
    void (*ctx_ibget)(shmem_ctx_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t, size_t, int);
};

extern const struct rma_sized_ops rma_sized_ops[];

/* Runs the per-type tests; returns how many types it covered. */
int rma_types_run(void);

#endif
