// cxx.cpp -- a C++ program using the C API: shmem.h, shmemx.h and pshmem.h
// from C++ (no C11 generics there), linked and run under oshrun.
#include <shmem.h>
#include <shmemx.h>
#include <pshmem.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

static long ring[16];
static long counter;
static long flag;

#define CXX_CHECK(cond, ...)                                                                       \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::fprintf(stderr, "FAIL PE %d %s:%d: ", shmem_my_pe(), __FILE__, __LINE__);         \
            std::fprintf(stderr, __VA_ARGS__);                                                     \
            std::fprintf(stderr, "\n");                                                            \
            shmem_global_exit(1);                                                                  \
        }                                                                                          \
    } while (0)

int main()
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    CXX_CHECK(shmemx_transport_name() != nullptr, "shmemx_transport_name() is NULL");

    std::vector<long> v(16);
    for (int i = 0; i < 16; i++)
        v[i] = me * 100 + i;
    shmem_long_put(ring, v.data(), v.size(), right);
    shmem_long_atomic_add(&counter, me + 1, 0);
    shmem_barrier_all();
    for (int i = 0; i < 16; i++)
        CXX_CHECK(ring[i] == left * 100 + i, "ring[%d] = %ld", i, ring[i]);
    if (me == 0)
        CXX_CHECK(counter == (long)npes * (npes + 1) / 2, "counter %ld", counter);

    // pshmem_ names and the long-typed shmem_wait_until C function.
    long got = pshmem_long_g(&ring[3], right);
    CXX_CHECK(got == me * 100 + 3, "pshmem_long_g returned %ld", got);
    shmem_ctx_t ctx;
    CXX_CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "shmem_ctx_create failed");
    shmem_ctx_long_atomic_set(ctx, &flag, 1, right);
    shmem_ctx_quiet(ctx);
    shmem_wait_until(&flag, SHMEM_CMP_EQ, 1);
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    if (me == 0)
        std::printf("cxx: OK on %d PEs: C++ program on transport %s\n", npes,
                    shmemx_transport_name());
    shmem_finalize();
    return 0;
}
