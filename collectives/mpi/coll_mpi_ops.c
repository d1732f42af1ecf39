/*
 * The collectives on MPI.  Buffers are the caller's symmetric ones, used
 * in place; MPI forbids aliased buffers, so a source that overlaps dest
 * other than in the layouts MPI_IN_PLACE describes is copied first.  A
 * count MPI's int cannot hold is declined (PSHM_CEXT_NATIVE) by every
 * member alike, and the core runs the native algorithm.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coll_mpi.h"

#define CHECK(call) PSHM_MPI_CHECK(cm_fail, #call, call)

static int overlap(const void *a, size_t an, const void *b, size_t bn)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return an && bn && x < y + bn && y < x + an;
}

/* A private copy of src (freed by the caller), for sources overlapping dest. */
static void *copy_of(const void *src, size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        cm_svc->fatal("mpi collectives: out of memory (%zu bytes)", n);
    memcpy(p, src, n);
    return p;
}

int cm_barrier(void *team)
{
    struct cm_team *t = team;
    CHECK(MPI_Barrier(t->comm));
    return 0;
}

int cm_broadcast(void *team, void *dest, const void *src, size_t nbytes, int root, int root_writes)
{
    struct cm_team *t = team;
    if (nbytes > INT_MAX)
        return PSHM_CEXT_NATIVE;
    void *buf = dest;
    if (t->me == root) {
        if (root_writes)
            memmove(dest, src, nbytes);
        else
            buf = (void *)src; /* the active-set form leaves the root's dest alone */
    }
    CHECK(MPI_Bcast(buf, (int)nbytes, MPI_BYTE, root, t->comm));
    return 0;
}

/* What MPI reduces and how: 0, or 1 where MPI has no datatype or the count
 * passes its int (the caller then runs natively).  *s is the send buffer:
 * MPI_IN_PLACE when src is dest, a copy (*tmp, to free) when they overlap
 * otherwise, which MPI forbids. */
static int reduction_args(const void *src, void *dest, size_t count, size_t esize,
                          const char *type, int op, MPI_Datatype *dt, MPI_Op *mop,
                          const void **s, void **tmp)
{
    if (count > INT_MAX || cm_reduction(type, op, dt, mop, 1))
        return 1;
    size_t bytes = count * esize;
    *tmp = NULL;
    *s = src;
    if (src == dest)
        *s = MPI_IN_PLACE;
    else if (overlap(src, bytes, dest, bytes))
        *s = *tmp = copy_of(src, bytes);
    return 0;
}

int cm_reduce(void *team, void *dest, const void *src, size_t count, size_t esize,
              const char *type, int op)
{
    struct cm_team *t = team;
    MPI_Datatype dt;
    MPI_Op mop;
    const void *s;
    void *tmp;
    if (reduction_args(src, dest, count, esize, type, op, &dt, &mop, &s, &tmp))
        return PSHM_CEXT_NATIVE;
    CHECK(MPI_Allreduce(s, dest, (int)count, dt, mop, t->comm));
    free(tmp);
    return 0;
}

int cm_scan(void *team, void *dest, const void *src, size_t count, size_t esize, const char *type,
            int op, int exclusive)
{
    struct cm_team *t = team;
    MPI_Datatype dt;
    MPI_Op mop;
    const void *s;
    void *tmp;
    if (reduction_args(src, dest, count, esize, type, op, &dt, &mop, &s, &tmp))
        return PSHM_CEXT_NATIVE;
    if (exclusive) {
        CHECK(MPI_Exscan(s, dest, (int)count, dt, mop, t->comm));
        /* MPI leaves member 0's result undefined; OpenSHMEM's exscan
         * gives it the sum of nothing. */
        if (t->me == 0)
            memset(dest, 0, count * esize);
    } else {
        CHECK(MPI_Scan(s, dest, (int)count, dt, mop, t->comm));
    }
    free(tmp);
    return 0;
}

int cm_fcollect(void *team, void *dest, const void *src, size_t nbytes)
{
    struct cm_team *t = team;
    if (nbytes > INT_MAX || nbytes * (size_t)t->n > INT_MAX)
        return PSHM_CEXT_NATIVE;
    void *tmp = NULL;
    const void *s = src;
    char *mine = (char *)dest + (size_t)t->me * nbytes;
    if (src == mine)
        s = MPI_IN_PLACE;
    else if (overlap(src, nbytes, dest, nbytes * (size_t)t->n))
        s = tmp = copy_of(src, nbytes);
    CHECK(MPI_Allgather(s, (int)nbytes, MPI_BYTE, dest, (int)nbytes, MPI_BYTE, t->comm));
    free(tmp);
    return 0;
}

/* Every member's size first (each PE contributes what it has), then
 * MPI_Allgatherv at the offsets they add up to. */
int cm_collect(void *team, void *dest, const void *src, size_t nbytes)
{
    struct cm_team *t = team;
    uint64_t mine = nbytes, *all = malloc(sizeof(uint64_t) * (size_t)t->n);
    int *counts = malloc(sizeof(int) * (size_t)t->n), *displs = malloc(sizeof(int) * (size_t)t->n);
    if (!all || !counts || !displs)
        cm_svc->fatal("mpi collectives: out of memory for %d sizes", t->n);
    CHECK(MPI_Allgather(&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, t->comm));
    uint64_t total = 0;
    for (int i = 0; i < t->n; i++) {
        /* Every member sees the same sizes, so all decline together. */
        if (all[i] > INT_MAX || total + all[i] > INT_MAX) {
            free(all);
            free(counts);
            free(displs);
            return PSHM_CEXT_NATIVE;
        }
        counts[i] = (int)all[i];
        displs[i] = (int)total;
        total += all[i];
    }
    void *tmp = NULL;
    const void *s = src;
    if (src == (char *)dest + displs[t->me])
        s = MPI_IN_PLACE;
    else if (overlap(src, nbytes, dest, total))
        s = tmp = copy_of(src, nbytes);
    CHECK(MPI_Allgatherv(s, (int)nbytes, MPI_BYTE, dest, counts, displs, MPI_BYTE, t->comm));
    free(tmp);
    free(all);
    free(counts);
    free(displs);
    return 0;
}

int cm_alltoall(void *team, void *dest, const void *src, size_t nbytes)
{
    struct cm_team *t = team;
    size_t all = nbytes * (size_t)t->n;
    if (nbytes > INT_MAX || all / (size_t)t->n != nbytes)
        return PSHM_CEXT_NATIVE;
    void *tmp = NULL;
    const void *s = src;
    if (src == dest)
        s = MPI_IN_PLACE;
    else if (overlap(src, all, dest, all))
        s = tmp = copy_of(src, all);
    if (s == MPI_IN_PLACE)
        CHECK(MPI_Alltoall(s, 0, MPI_BYTE, dest, (int)nbytes, MPI_BYTE, t->comm));
    else
        CHECK(MPI_Alltoall(s, (int)nbytes, MPI_BYTE, dest, (int)nbytes, MPI_BYTE, t->comm));
    free(tmp);
    return 0;
}

/* One block per member: nelems elements of esize bytes, stride elements
 * apart, the next member's block nelems * stride elements further. */
static MPI_Datatype strided(size_t nelems, size_t esize, ptrdiff_t stride)
{
    MPI_Datatype v, r;
    MPI_Aint step = (MPI_Aint)stride * (MPI_Aint)esize;
    CHECK(MPI_Type_create_hvector((int)nelems, (int)esize, step, MPI_BYTE, &v));
    CHECK(MPI_Type_create_resized(v, 0, (MPI_Aint)nelems * step, &r));
    CHECK(MPI_Type_free(&v));
    CHECK(MPI_Type_commit(&r));
    return r;
}

int cm_alltoalls(void *team, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                 size_t nelems, size_t esize)
{
    struct cm_team *t = team;
    if (nelems > INT_MAX || esize > INT_MAX ||
        (size_t)t->n * nelems * (size_t)(dst > sst ? dst : sst) * esize > (size_t)PTRDIFF_MAX / 2)
        return PSHM_CEXT_NATIVE;
    if (!nelems) {
        CHECK(MPI_Barrier(t->comm));
        return 0;
    }
    /* The bytes each side spans: up to the last element of the last block. */
    size_t sspan = (((size_t)t->n * nelems - 1) * (size_t)sst + 1) * esize;
    size_t dspan = (((size_t)t->n * nelems - 1) * (size_t)dst + 1) * esize;
    void *tmp = NULL;
    const void *s = src;
    if (overlap(src, sspan, dest, dspan))
        s = tmp = copy_of(src, sspan);
    MPI_Datatype st = strided(nelems, esize, sst), dt = strided(nelems, esize, dst);
    CHECK(MPI_Alltoall(s, 1, st, dest, 1, dt, t->comm));
    MPI_Type_free(&st);
    MPI_Type_free(&dt);
    free(tmp);
    return 0;
}
