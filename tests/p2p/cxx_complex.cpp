// cxx_complex.cpp -- every complex routine of shmem.h called from C++ with
// std::complex<float> / std::complex<double>: the team reductions (sum,
// prod), the scans (sum_inscan, sum_exscan) and the deprecated active-set
// forms (sum_to_all, prod_to_all), on SHMEM_TEAM_WORLD and every PE.
// The values are small Gaussian integers, so every product and sum is
// exact in any order and is compared with ==.
#include <shmem.h>

#include <complex>
#include <cstdio>

#define CX_CHECK(cond, ...)                                                                        \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::fprintf(stderr, "FAIL PE %d %s:%d: ", shmem_my_pe(), __FILE__, __LINE__);         \
            std::fprintf(stderr, __VA_ARGS__);                                                     \
            std::fprintf(stderr, "\n");                                                            \
            shmem_global_exit(1);                                                                  \
        }                                                                                          \
    } while (0)

namespace {

const int N = 5;

// What PE p contributes at index i: (1 + p % 2) + (i % 3) i.
template <typename R> std::complex<R> value(int p, int i)
{
    return std::complex<R>(R(1 + p % 2), R(i % 3));
}

template <typename R> struct Routines {
    const char *name;
    int (*sum)(shmem_team_t, std::complex<R> *, const std::complex<R> *, size_t);
    int (*prod)(shmem_team_t, std::complex<R> *, const std::complex<R> *, size_t);
    int (*inscan)(shmem_team_t, std::complex<R> *, const std::complex<R> *, size_t);
    int (*exscan)(shmem_team_t, std::complex<R> *, const std::complex<R> *, size_t);
    void (*sum_to_all)(std::complex<R> *, const std::complex<R> *, int, int, int, int,
                       std::complex<R> *, long *);
    void (*prod_to_all)(std::complex<R> *, const std::complex<R> *, int, int, int, int,
                        std::complex<R> *, long *);
};

template <typename R> void run(const Routines<R> &f, long *psync)
{
    typedef std::complex<R> C;
    int me = shmem_my_pe(), npes = shmem_n_pes();
    C *src = static_cast<C *>(shmem_malloc(N * sizeof(C)));
    C *dst = static_cast<C *>(shmem_malloc(N * sizeof(C)));
    C *wrk = static_cast<C *>(shmem_malloc(SHMEM_REDUCE_MIN_WRKDATA_SIZE * sizeof(C)));
    CX_CHECK(src && dst && wrk, "%s: shmem_malloc failed", f.name);
    for (int i = 0; i < N; i++)
        src[i] = value<R>(me, i);

    // Expected: folds over PEs 0..upto-1 (a sum from 0, a product from 1).
    struct Fold {
        static C sum(int upto, int i)
        {
            C s(0, 0);
            for (int p = 0; p < upto; p++)
                s += value<R>(p, i);
            return s;
        }
        static C prod(int upto, int i)
        {
            C s(1, 0);
            for (int p = 0; p < upto; p++)
                s *= value<R>(p, i);
            return s;
        }
    };
    struct Case {
        const char *op;
        int kind; // 0 sum, 1 prod, 2 inscan, 3 exscan, 4 sum_to_all, 5 prod_to_all
    } cases[] = {{"sum_reduce", 0}, {"prod_reduce", 1}, {"sum_inscan", 2},
                 {"sum_exscan", 3}, {"sum_to_all", 4},  {"prod_to_all", 5}};
    for (const Case &c : cases) {
        for (int i = 0; i < N; i++)
            dst[i] = C(-7, -7);
        shmem_barrier_all();
        int rc = 0;
        switch (c.kind) {
        case 0: rc = f.sum(SHMEM_TEAM_WORLD, dst, src, N); break;
        case 1: rc = f.prod(SHMEM_TEAM_WORLD, dst, src, N); break;
        case 2: rc = f.inscan(SHMEM_TEAM_WORLD, dst, src, N); break;
        case 3: rc = f.exscan(SHMEM_TEAM_WORLD, dst, src, N); break;
        case 4: f.sum_to_all(dst, src, N, 0, 0, npes, wrk, psync); break;
        case 5: f.prod_to_all(dst, src, N, 0, 0, npes, wrk, psync); break;
        }
        CX_CHECK(rc == 0, "shmem_%s_%s returned %d", f.name, c.op, rc);
        for (int i = 0; i < N; i++) {
            C e;
            switch (c.kind) {
            case 1:
            case 5: e = Fold::prod(npes, i); break;
            case 2: e = Fold::sum(me + 1, i); break;
            case 3: e = Fold::sum(me, i); break;
            default: e = Fold::sum(npes, i); break;
            }
            CX_CHECK(dst[i] == e, "shmem_%s_%s [%d] = (%g, %g), expected (%g, %g)", f.name, c.op, i,
                     double(dst[i].real()), double(dst[i].imag()), double(e.real()),
                     double(e.imag()));
        }
        // The active-set forms reuse psync: every PE must be done with it.
        shmem_barrier_all();
    }
    shmem_free(wrk);
    shmem_free(dst);
    shmem_free(src);
}

long psync[SHMEM_REDUCE_SYNC_SIZE];

} // namespace

int main()
{
    shmem_init();
    for (long &s : psync)
        s = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    Routines<float> cf = {"complexf",
                          shmem_complexf_sum_reduce,
                          shmem_complexf_prod_reduce,
                          shmem_complexf_sum_inscan,
                          shmem_complexf_sum_exscan,
                          shmem_complexf_sum_to_all,
                          shmem_complexf_prod_to_all};
    Routines<double> cd = {"complexd",
                           shmem_complexd_sum_reduce,
                           shmem_complexd_prod_reduce,
                           shmem_complexd_sum_inscan,
                           shmem_complexd_sum_exscan,
                           shmem_complexd_sum_to_all,
                           shmem_complexd_prod_to_all};
    run(cf, psync);
    run(cd, psync);
    shmem_barrier_all();
    if (shmem_my_pe() == 0)
        std::printf("cxx_complex: OK on %d PEs: 12 complex reductions and scans from C++\n",
                    shmem_n_pes());
    shmem_finalize();
    return 0;
}
