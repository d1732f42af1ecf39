// cxx_complex.cpp -- every complex routine of shmem.h called from C++ with
// std::complex<float> / std::complex<double> and, with GCC and Clang, with
// C99's float _Complex / double _Complex (the header's inline overloads):
// the team reductions (sum, prod), the scans (sum_inscan, sum_exscan) and
// the deprecated active-set forms (sum_to_all, prod_to_all), on
// SHMEM_TEAM_WORLD and every PE, each called by name as a program would.
// The values are small Gaussian integers, so every product and sum is
// exact in any order and is compared with ==.
#include <shmem.h>

#include <complex>
#include <cstdio>
#include <cstring>

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

// C is the element type a program holds: std::complex<R> or R _Complex.
template <typename R, typename C> struct Routines {
    const char *name;
    int (*sum)(shmem_team_t, C *, const C *, size_t);
    int (*prod)(shmem_team_t, C *, const C *, size_t);
    int (*inscan)(shmem_team_t, C *, const C *, size_t);
    int (*exscan)(shmem_team_t, C *, const C *, size_t);
    void (*sum_to_all)(C *, const C *, int, int, int, int, C *, long *);
    void (*prod_to_all)(C *, const C *, int, int, int, int, C *, long *);
};

// Lambdas that call each routine by name with C pointers, so overload
// resolution picks the routine as in a program (a function pointer alone
// would select the overload by its type instead).
#define CX_TEAM(C, call)                                                                           \
    [](shmem_team_t t, C *d, const C *s, size_t n) { return call(t, d, s, n); }
#define CX_ASET(C, call)                                                                           \
    [](C *d, const C *s, int n, int st, int ls, int sz, C *w, long *ps) {                          \
        call(d, s, n, st, ls, sz, w, ps);                                                          \
    }
#define ROUTINES(R, C, TN, label)                                                                  \
    Routines<R, C>                                                                                 \
    {                                                                                              \
        label, CX_TEAM(C, shmem_##TN##_sum_reduce), CX_TEAM(C, shmem_##TN##_prod_reduce),          \
            CX_TEAM(C, shmem_##TN##_sum_inscan), CX_TEAM(C, shmem_##TN##_sum_exscan),              \
            CX_ASET(C, shmem_##TN##_sum_to_all), CX_ASET(C, shmem_##TN##_prod_to_all)              \
    }

// Values go in and out of C through std::complex: the two have one layout
// (the premise of the overloads), which the static_assert in run checks.
template <typename R, typename C> C to_c(std::complex<R> v)
{
    C c;
    std::memcpy(static_cast<void *>(&c), &v, sizeof c);
    return c;
}
template <typename R, typename C> std::complex<R> from_c(const C &c)
{
    std::complex<R> v;
    std::memcpy(static_cast<void *>(&v), &c, sizeof v);
    return v;
}

template <typename R, typename C> void run(const Routines<R, C> &f, long *psync)
{
    static_assert(sizeof(C) == sizeof(std::complex<R>), "complex layouts differ");
    int me = shmem_my_pe(), npes = shmem_n_pes();
    C *src = static_cast<C *>(shmem_malloc(N * sizeof(C)));
    C *dst = static_cast<C *>(shmem_malloc(N * sizeof(C)));
    C *wrk = static_cast<C *>(shmem_malloc(SHMEM_REDUCE_MIN_WRKDATA_SIZE * sizeof(C)));
    CX_CHECK(src && dst && wrk, "%s: shmem_malloc failed", f.name);
    for (int i = 0; i < N; i++)
        src[i] = to_c<R, C>(value<R>(me, i));

    // Expected: folds over PEs 0..upto-1 (a sum from 0, a product from 1).
    typedef std::complex<R> X;
    struct Fold {
        static X sum(int upto, int i)
        {
            X s(0, 0);
            for (int p = 0; p < upto; p++)
                s += value<R>(p, i);
            return s;
        }
        static X prod(int upto, int i)
        {
            X s(1, 0);
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
            dst[i] = to_c<R, C>(X(-7, -7));
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
            X e, got = from_c<R, C>(dst[i]);
            switch (c.kind) {
            case 1:
            case 5: e = Fold::prod(npes, i); break;
            case 2: e = Fold::sum(me + 1, i); break;
            case 3: e = Fold::sum(me, i); break;
            default: e = Fold::sum(npes, i); break;
            }
            CX_CHECK(got == e, "shmem_%s_%s [%d] = (%g, %g), expected (%g, %g)", f.name, c.op, i,
                     double(got.real()), double(got.imag()), double(e.real()), double(e.imag()));
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
    int nsets = 2;
    run(ROUTINES(float, std::complex<float>, complexf, "complexf (std::complex<float>)"), psync);
    run(ROUTINES(double, std::complex<double>, complexd, "complexd (std::complex<double>)"), psync);
#if defined(PSHM_HAVE_C99_COMPLEX_CXX)
    __extension__ typedef float _Complex c99f;
    __extension__ typedef double _Complex c99d;
    run(ROUTINES(float, c99f, complexf, "complexf (float _Complex)"), psync);
    run(ROUTINES(double, c99d, complexd, "complexd (double _Complex)"), psync);
    nsets += 2;
#endif
    shmem_barrier_all();
    if (shmem_my_pe() == 0)
        std::printf("cxx_complex: OK on %d PEs: the 12 complex reductions and scans from C++, "
                    "with %d element types\n",
                    shmem_n_pes(), nsets);
    shmem_finalize();
    return 0;
}
