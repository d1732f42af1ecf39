/*
 * check.h -- the one harness of the test programs (unit tests, API, p2p,
 * collective and transport programs).
 *
 * Two strengths, so that a reader knows from the name what a failure does:
 *
 *   CHECK...    records the failure and carries on, so that one run reports
 *               every broken expectation.  The program's status comes from
 *               the recorded failures: check_done (SHMEM programs, all PEs)
 *               or RUN_TESTS (unit tests) returns 1 if any check failed.
 *   REQUIRE...  ends the job at once (shmem_global_exit(1) once the library
 *               is up, exit(1) before): for what the rest of the program
 *               builds on, and in multi-PE programs, where a PE that went
 *               on after a failure would leave its peers waiting.
 *   FAIL(fmt, ...)  ends the job unconditionally.
 *
 * Each CHECK and REQUIRE is an expression worth 1 when it held and 0 when
 * it failed, e.g. `if (!CHECK(p != NULL)) return;`.  The forms (REQUIRE_
 * has each of them too), every one with an optional printf-style note:
 *
 *   CHECK(cond[, fmt, ...])
 *   CHECK_EQ(actual, expected[, fmt, ...])   also _NE _LT _LE _GT _GE
 *   CHECK_STR_EQ(actual, expected[, fmt, ...])
 *   CHECK_HAS(string, needle[, fmt, ...])    string contains needle
 *   check_at(file, line, ok, fmt, ...)       a helper's check, reported at
 *                                            its caller's line
 *
 * The comparisons take any arithmetic type or pointer (a bit-field needs a
 * cast), evaluate each side once, compare as C's `==`, `<`, ... would on
 * the original types, and print both values:
 *
 *   FAIL PE 1 rma.c:42 [stage puts]: shmem_long_g(&x, right) == 7: actual 8, expected == 7: round 3
 *
 * A plain CHECK prints its condition and "is false".  The PE is the
 * library's when it is initialized, else the one set by check_set_pe ("?"
 * when none is known).  Unit tests that do not link the library define
 * CHECK_WITHOUT_SHMEM before including this file.
 *
 * For SHMEM programs:
 *   check_stage(name)     names the current stage for failures and the watchdog
 *   check_watchdog(s)     a PE still running after s seconds reports where it
 *                         hangs and exits 2, so a deadlock fails fast
 *   check_done(name[, fmt, ...])  collective: sums every PE's recorded
 *                         failures; PE 0 prints "NAME: OK on N PEs[: note]"
 *                         or what failed; returns the program's status
 *   check_count()         how many checks held so far (for summaries)
 *   check_right(), check_left()  the neighbours on the ring of PEs
 */
#ifndef PLUGSHMEM_TEST_CHECK_H
#define PLUGSHMEM_TEST_CHECK_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef CHECK_WITHOUT_SHMEM
#include <shmem.h>
#endif

#define CHECK_UNUSED_ __attribute__((unused))

/* Failures beyond this many on one PE are counted but not printed: a loop
 * that breaks breaks thousands of times, and the first lines say why. */
#define CHECK_MAX_PRINTED 20

static const char *volatile check_stage_name_ CHECK_UNUSED_;
static int check_pe_hint_ CHECK_UNUSED_ = -1;
/* Updated atomically: threaded tests check from several threads at once. */
static long check_failures_ CHECK_UNUSED_;
static long check_passes_ CHECK_UNUSED_;

static inline void check_stage(const char *name) { check_stage_name_ = name; }

/* The PE to name before shmem_init and after shmem_finalize (a hybrid MPI
 * program knows its rank then). */
static inline void check_set_pe(int pe) { check_pe_hint_ = pe; }

static inline int check_library_up_(void)
{
#ifndef CHECK_WITHOUT_SHMEM
    int init = 0;
    shmem_query_initialized(&init);
    return init;
#else
    return 0;
#endif
}

static inline int check_my_pe_(void)
{
#ifndef CHECK_WITHOUT_SHMEM
    if (check_library_up_())
        return shmem_my_pe();
#endif
    return check_pe_hint_;
}

__attribute__((noreturn)) static inline void check_end_job_(void)
{
    fflush(stdout);
    fflush(stderr);
#ifndef CHECK_WITHOUT_SHMEM
    if (check_library_up_())
        shmem_global_exit(1);
#endif
    exit(1);
}

static inline long check_count(void) { return __atomic_load_n(&check_passes_, __ATOMIC_RELAXED); }

static inline long check_failures(void)
{
    return __atomic_load_n(&check_failures_, __ATOMIC_RELAXED);
}

static inline int check_pass_(void)
{
    __atomic_fetch_add(&check_passes_, 1, __ATOMIC_RELAXED);
    return 1;
}

__attribute__((format(printf, 3, 0))) static inline void check_vnote_(char *buf, size_t len,
                                                                     const char *fmt, va_list ap)
{
    vsnprintf(buf, len, fmt, ap);
}

/* One line: who, where, what was checked, what was seen, the note. */
static inline void check_report_(int fatal, const char *file, int line, const char *what,
                                 const char *seen, const char *note)
{
    long n = __atomic_add_fetch(&check_failures_, 1, __ATOMIC_RELAXED);
    if (!fatal && n > CHECK_MAX_PRINTED) {
        if (n == CHECK_MAX_PRINTED + 1)
            fprintf(stderr, "FAIL ... further failures of this PE are counted, not printed\n");
        return;
    }
    const char *base = strrchr(file, '/');
    char pe[16] = "?";
    int me = check_my_pe_();
    if (me >= 0)
        snprintf(pe, sizeof pe, "%d", me);
    const char *stage = check_stage_name_;
    fprintf(stderr, "FAIL PE %s %s:%d%s%s%s: %s%s%s%s%s\n", pe, base ? base + 1 : file, line,
            stage ? " [stage " : "", stage ? stage : "", stage ? "]" : "", what, seen ? ": " : "",
            seen ? seen : "", note && *note ? ": " : "", note ? note : "");
    fflush(stderr);
}

/* Copies argument number idx (from 0) of a macro's argument text to out:
 * the text is cut at its top-level commas, outside brackets and literals. */
static inline const char *check_arg_(const char *text, int idx, char *out, size_t len)
{
    int depth = 0, n = 0;
    const char *start = text;
    for (const char *p = text;; p++) {
        char c = *p;
        if (c == '"' || c == '\'') {
            for (p++; *p && *p != c; p++)
                if (*p == '\\' && p[1])
                    p++;
            if (!*p)
                break;
            continue;
        }
        if (c == '(' || c == '[' || c == '{')
            depth++;
        else if (c == ')' || c == ']' || c == '}')
            depth--;
        if (c == '\0' || (c == ',' && depth == 0)) {
            if (n == idx) {
                while (*start == ' ')
                    start++;
                size_t k = (size_t)(p - start);
                while (k && start[k - 1] == ' ')
                    k--;
                snprintf(out, len, "%.*s", (int)k, start);
                return out;
            }
            if (c == '\0')
                break;
            n++;
            start = p + 1;
        }
    }
    snprintf(out, len, "?");
    return out;
}

/* ---- the values a comparison saw ---------------------------------------- */

/* A value of any arithmetic or pointer type, with what C's usual
 * conversions need to know of its type. */
typedef struct {
    char kind; /* 'i' signed, 'u' unsigned, 'f' floating, 'c' complex, 'p' pointer */
    unsigned char size;
    long long i;
    unsigned long long u;
    long double f, fi; /* fi: the imaginary part */
    const volatile void *p;
} check_val;

#define CHECK_INT_(name, type, k)                                                                  \
    static inline check_val check_v_##name##_(type v)                                             \
    {                                                                                              \
        check_val r = {0};                                                                         \
        r.kind = (k);                                                                              \
        r.size = sizeof(type);                                                                     \
        if ((k) == 'i')                                                                            \
            r.i = (long long)v;                                                                    \
        else                                                                                       \
            r.u = (unsigned long long)v;                                                           \
        return r;                                                                                  \
    }
CHECK_INT_(bool, _Bool, 'u')
CHECK_INT_(char, char, ((char)-1 < 0 ? 'i' : 'u'))
CHECK_INT_(schar, signed char, 'i')
CHECK_INT_(short, short, 'i')
CHECK_INT_(int, int, 'i')
CHECK_INT_(long, long, 'i')
CHECK_INT_(llong, long long, 'i')
CHECK_INT_(uchar, unsigned char, 'u')
CHECK_INT_(ushort, unsigned short, 'u')
CHECK_INT_(uint, unsigned int, 'u')
CHECK_INT_(ulong, unsigned long, 'u')
CHECK_INT_(ullong, unsigned long long, 'u')

#define CHECK_FLOAT_(name, type)                                                                   \
    static inline check_val check_v_##name##_(type v)                                             \
    {                                                                                              \
        check_val r = {0};                                                                         \
        r.kind = 'f';                                                                              \
        r.size = sizeof(type);                                                                     \
        r.f = v;                                                                                   \
        return r;                                                                                  \
    }
CHECK_FLOAT_(float, float)
CHECK_FLOAT_(double, double)
CHECK_FLOAT_(ldouble, long double)

static inline check_val check_v_complex_(long double _Complex v)
{
    check_val r = {0};
    r.kind = 'c';
    r.size = sizeof(long double);
    r.f = __real__ v;
    r.fi = __imag__ v;
    return r;
}

static inline check_val check_v_ptr_(const volatile void *v)
{
    check_val r = {0};
    r.kind = 'p';
    r.size = sizeof v;
    r.p = v;
    r.u = (uintptr_t)v;
    return r;
}

#define CHECK_VAL_(x)                                                                              \
    _Generic((x), _Bool: check_v_bool_, char: check_v_char_, signed char: check_v_schar_,         \
             short: check_v_short_, int: check_v_int_, long: check_v_long_,                        \
             long long: check_v_llong_, unsigned char: check_v_uchar_,                             \
             unsigned short: check_v_ushort_, unsigned int: check_v_uint_,                         \
             unsigned long: check_v_ulong_, unsigned long long: check_v_ullong_,                   \
             float: check_v_float_, double: check_v_double_, long double: check_v_ldouble_,        \
             float _Complex: check_v_complex_, double _Complex: check_v_complex_,                  \
             long double _Complex: check_v_complex_, default: check_v_ptr_)(x)

enum { CHECK_EQ_, CHECK_NE_, CHECK_LT_, CHECK_LE_, CHECK_GT_, CHECK_GE_ };

/* This thread's last comparison, for the report when it failed. */
static _Thread_local check_val check_last_a_ CHECK_UNUSED_, check_last_b_ CHECK_UNUSED_;
static _Thread_local const char *check_last_s_ CHECK_UNUSED_, *check_last_t_ CHECK_UNUSED_;

static inline int check_order_(int op, int c) /* c: <0, 0, >0 */
{
    switch (op) {
    case CHECK_EQ_: return c == 0;
    case CHECK_NE_: return c != 0;
    case CHECK_LT_: return c < 0;
    case CHECK_LE_: return c <= 0;
    case CHECK_GT_: return c > 0;
    default: return c >= 0;
    }
}

#define CHECK_SIGN_(a, b) ((a) < (b) ? -1 : (a) > (b) ? 1 : 0)

/* An integer meeting a floating type becomes that type, rounding as C's
 * conversion does. */
static inline long double check_round_(check_val v, unsigned fsize)
{
    if (fsize == sizeof(float))
        return v.kind == 'i' ? (float)v.i : (float)v.u;
    if (fsize == sizeof(double))
        return v.kind == 'i' ? (double)v.i : (double)v.u;
    return v.kind == 'i' ? (long double)v.i : (long double)v.u;
}

/* a OP b as C would evaluate it on the original types. */
static inline int check_cmp_eval_(check_val a, int op, check_val b)
{
    int fa = a.kind == 'f' || a.kind == 'c', fb = b.kind == 'f' || b.kind == 'c';
    if (fa || fb) {
        /* Floating types meet exactly in long double. */
        unsigned fsize = fa ? a.size : b.size;
        long double ar = fa ? a.f : check_round_(a, fsize);
        long double br = fb ? b.f : check_round_(b, fsize);
        if (a.kind == 'c' || b.kind == 'c') {
            int eq = ar == br && a.fi == b.fi;
            return op == CHECK_EQ_ ? eq : op == CHECK_NE_ ? !eq : 0;
        }
        if (ar != ar || br != br) /* NaN: only != holds */
            return op == CHECK_NE_;
        return check_order_(op, CHECK_SIGN_(ar, br));
    }
    /* Integers narrower than int are promoted to (signed) int first. */
    if (a.kind == 'u' && a.size < sizeof(int)) {
        a.kind = 'i';
        a.i = (long long)a.u;
    }
    if (b.kind == 'u' && b.size < sizeof(int)) {
        b.kind = 'i';
        b.i = (long long)b.u;
    }
    if (a.kind == 'i' && b.kind == 'i')
        return check_order_(op, CHECK_SIGN_(a.i, b.i));
    if (a.kind != 'i' && b.kind != 'i')
        return check_order_(op, CHECK_SIGN_(a.u, b.u));
    /* Signed meets unsigned (or a pointer): C compares as unsigned in the
     * wider width, unless the signed type is wider, when the unsigned
     * value fits in it. */
    check_val s = a.kind == 'i' ? a : b, u = a.kind == 'i' ? b : a;
    if (s.size > u.size && u.kind != 'p')
        return check_order_(op, CHECK_SIGN_(a.kind == 'i' ? a.i : (long long)a.u,
                                            b.kind == 'i' ? b.i : (long long)b.u));
    unsigned width = u.size > s.size ? u.size : s.size;
    unsigned long long mask = width >= 8 ? ~0ull : (1ull << (8 * width)) - 1;
    unsigned long long au = (a.kind == 'i' ? (unsigned long long)a.i : a.u) & mask;
    unsigned long long bu = (b.kind == 'i' ? (unsigned long long)b.i : b.u) & mask;
    return check_order_(op, CHECK_SIGN_(au, bu));
}

/* Keeps the values of a comparison that failed for its report (only
 * then: a passing check costs no store). */
static inline int check_cmp_(check_val a, int op, check_val b)
{
    int ok = check_cmp_eval_(a, op, b);
    if (__builtin_expect(!ok, 0)) {
        check_last_a_ = a;
        check_last_b_ = b;
    }
    return ok;
}

static inline int check_str_(int contains, const char *s, const char *t)
{
    int ok = contains ? s && t && strstr(s, t) != NULL : s && t ? strcmp(s, t) == 0 : s == t;
    if (!ok) {
        check_last_s_ = s;
        check_last_t_ = t;
    }
    return ok;
}

/* s contains needle (a NULL s contains nothing). */
static inline int has(const char *s, const char *needle) { return s && strstr(s, needle) != NULL; }

static inline void check_show_(char *buf, size_t len, check_val v)
{
    switch (v.kind) {
    case 'i':
        snprintf(buf, len, "%lld", v.i);
        break;
    case 'u':
        if (v.u > 9)
            snprintf(buf, len, "%llu (0x%llx)", v.u, v.u);
        else
            snprintf(buf, len, "%llu", v.u);
        break;
    case 'f':
        snprintf(buf, len, "%.17Lg", v.f);
        break;
    case 'c':
        snprintf(buf, len, "%.17Lg%+.17Lgi", v.f, v.fi);
        break;
    default:
        snprintf(buf, len, "%p", (const void *)v.p);
    }
}

static inline void check_show_str_(char *buf, size_t len, const char *pre, const char *s)
{
    if (s)
        snprintf(buf, len, "%s\"%.600s\"", pre, s);
    else
        snprintf(buf, len, "%s(null)", pre);
}

/* ---- failures ----------------------------------------------------------- */

enum { CHECK_COND_, CHECK_CMP_KIND_, CHECK_STR_KIND_ };

/* Reports a failed check of the given kind; arg is the comparison's
 * operator, or for strings whether it was "contains". */
static inline void check_failed_(int fatal, int kind, int arg, const char *file, int line,
                                 const char *text, const char *note)
{
    static const char *const ops[] = {"==", "!=", "<", "<=", ">", ">="};
    char a[256], b[256], what[600], va[640], vb[640], seen[1400];
    if (kind == CHECK_COND_) {
        check_report_(fatal, file, line, check_arg_(text, 0, a, sizeof a), "is false", note);
        return;
    }
    check_arg_(text, 0, a, sizeof a);
    check_arg_(text, 1, b, sizeof b);
    if (kind == CHECK_CMP_KIND_) {
        snprintf(what, sizeof what, "%s %s %s", a, ops[arg], b);
        check_show_(va, sizeof va, check_last_a_);
        check_show_(vb, sizeof vb, check_last_b_);
        snprintf(seen, sizeof seen, "actual %s, expected %s %s", va, ops[arg], vb);
    } else {
        snprintf(what, sizeof what, "%s %s %s", a, arg ? "contains" : "equals", b);
        check_show_str_(va, sizeof va, "", check_last_s_);
        check_show_str_(vb, sizeof vb, arg ? "to contain " : "", check_last_t_);
        snprintf(seen, sizeof seen, "actual %s, expected %s", va, vb);
    }
    check_report_(fatal, file, line, what, seen, note);
}

static inline int check_fail_(int fatal, int kind, int arg, const char *file, int line,
                              const char *text)
{
    check_failed_(fatal, kind, arg, file, line, text, NULL);
    return 0;
}

__attribute__((format(printf, 7, 8))) static inline int check_failf_(int fatal, int kind, int arg,
                                                                     const char *file, int line,
                                                                     const char *text,
                                                                     const char *fmt, ...)
{
    char note[1024];
    va_list ap;
    va_start(ap, fmt);
    check_vnote_(note, sizeof note, fmt, ap);
    va_end(ap);
    check_failed_(fatal, kind, arg, file, line, text, note);
    return 0;
}

/* What follows a reported failure: a CHECK goes on (worth 0), a REQUIRE
 * ends the job. */
enum { check_fatal_ = 0, require_fatal_ = 1 };
static inline int check_after_(int failed) { return failed; }
__attribute__((noreturn)) static inline int require_after_(int failed)
{
    (void)failed;
    check_end_job_();
}

__attribute__((format(printf, 3, 4), noreturn)) static inline void
check_fail_now_(const char *file, int line, const char *fmt, ...)
{
    char note[1024];
    va_list ap;
    va_start(ap, fmt);
    check_vnote_(note, sizeof note, fmt, ap);
    va_end(ap);
    check_report_(1, file, line, note, NULL, NULL);
    check_end_job_();
}

/* For a helper that checks on behalf of its caller: records a failure
 * (when !ok) at the caller's file and line, described by fmt. */
__attribute__((format(printf, 4, 5))) static inline int check_at(const char *file, int line, int ok,
                                                                  const char *fmt, ...)
{
    if (ok)
        return check_pass_();
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    check_vnote_(what, sizeof what, fmt, ap);
    va_end(ap);
    check_report_(0, file, line, what, NULL, NULL);
    return 0;
}

/* ---- the macros ----------------------------------------------------------- */

/* CHECK_N1_ and CHECK_N2_ give 1 when the macro got only its 1 or 2 fixed
 * arguments, CHECK_M_ when a note follows (24 arguments in all at most);
 * pasted to a name, they pick the form without or with the note.
 * CHECK_M_ is no macro, so that it reaches the ## as it is. */
#define CHECK_CAT_(a, b) CHECK_CAT2_(a, b)
#define CHECK_CAT2_(a, b) a##b
#define CHECK_ARG25_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17,  \
                     _18, _19, _20, _21, _22, _23, _24, N, ...)                                    \
    N
#define CHECK_N1_(...)                                                                             \
    CHECK_ARG25_(__VA_ARGS__, CHECK_M_, CHECK_M_, CHECK_M_, CHECK_M_, CHECK_M_, CHECK_M_,          \
                 CHECK_M_, CHECK_M_, CHECK_M_, CHECK_M_, CHECK_M_, CHECK_M_, CHECK_M_, CHECK_M_,   \
                 CHECK_M_, CHECK_M_, CHECK_M_, CHECK_M_, CHECK_M_, CHECK_M_, CHECK_M_, CHECK_M_,   \
                 CHECK_M_, 1, 0)
#define CHECK_N2_(...)                                                                             \
    CHECK_ARG25_(__VA_ARGS__, CHECK_M_, CHECK_M_, CHECK_M_, CHECK_M_, CHECK_M_, CHECK_M_,          \
                 CHECK_M_, CHECK_M_, CHECK_M_, CHECK_M_, CHECK_M_, CHECK_M_, CHECK_M_, CHECK_M_,   \
                 CHECK_M_, CHECK_M_, CHECK_M_, CHECK_M_, CHECK_M_, CHECK_M_, CHECK_M_, CHECK_M_,   \
                 1, 0, 0)

/* Every macro passes the text of all its arguments as written
 * (#__VA_ARGS__, before the macros in them expand); a failure cuts it at
 * its top-level commas.  test: whether the check held; how: check or
 * require. */
#define CHECK_TAIL_1(how, kind, arg, text, test)                                                   \
    ((test) ? check_pass_()                                                                        \
            : how##_after_(check_fail_(how##_fatal_, kind, arg, __FILE__, __LINE__, text)))
#define CHECK_TAIL_CHECK_M_(how, kind, arg, text, test, ...)                                       \
    ((test) ? check_pass_()                                                                        \
            : how##_after_(check_failf_(how##_fatal_, kind, arg, __FILE__, __LINE__, text,         \
                                        __VA_ARGS__)))

#define CHECK_C_1(how, text, cond) CHECK_TAIL_1(how, CHECK_COND_, 0, text, cond)
#define CHECK_C_CHECK_M_(how, text, cond, ...)                                                     \
    CHECK_TAIL_CHECK_M_(how, CHECK_COND_, 0, text, cond, __VA_ARGS__)
#define CHECK_COND_MACRO_(how, ...)                                                                \
    CHECK_CAT_(CHECK_C_, CHECK_N1_(__VA_ARGS__))(how, #__VA_ARGS__, __VA_ARGS__)

#define CHECK_OP_1(how, op, text, a, b)                                                            \
    CHECK_TAIL_1(how, CHECK_CMP_KIND_, op, text, check_cmp_(CHECK_VAL_(a), op, CHECK_VAL_(b)))
#define CHECK_OP_CHECK_M_(how, op, text, a, b, ...)                                                \
    CHECK_TAIL_CHECK_M_(how, CHECK_CMP_KIND_, op, text,                                            \
                        check_cmp_(CHECK_VAL_(a), op, CHECK_VAL_(b)), __VA_ARGS__)
#define CHECK_OP_MACRO_(how, op, text, ...)                                                        \
    CHECK_CAT_(CHECK_OP_, CHECK_N2_(__VA_ARGS__))(how, op, text, __VA_ARGS__)

#define CHECK_S_1(how, contains, text, a, b)                                                       \
    CHECK_TAIL_1(how, CHECK_STR_KIND_, contains, text, check_str_(contains, (a), (b)))
#define CHECK_S_CHECK_M_(how, contains, text, a, b, ...)                                           \
    CHECK_TAIL_CHECK_M_(how, CHECK_STR_KIND_, contains, text, check_str_(contains, (a), (b)),      \
                        __VA_ARGS__)
#define CHECK_S_MACRO_(how, contains, text, ...)                                                   \
    CHECK_CAT_(CHECK_S_, CHECK_N2_(__VA_ARGS__))(how, contains, text, __VA_ARGS__)

#define CHECK(...) CHECK_COND_MACRO_(check, __VA_ARGS__)
#define REQUIRE(...) CHECK_COND_MACRO_(require, __VA_ARGS__)
#define FAIL(...) check_fail_now_(__FILE__, __LINE__, __VA_ARGS__)

#define CHECK_EQ(...) CHECK_OP_MACRO_(check, CHECK_EQ_, #__VA_ARGS__, __VA_ARGS__)
#define CHECK_NE(...) CHECK_OP_MACRO_(check, CHECK_NE_, #__VA_ARGS__, __VA_ARGS__)
#define CHECK_LT(...) CHECK_OP_MACRO_(check, CHECK_LT_, #__VA_ARGS__, __VA_ARGS__)
#define CHECK_LE(...) CHECK_OP_MACRO_(check, CHECK_LE_, #__VA_ARGS__, __VA_ARGS__)
#define CHECK_GT(...) CHECK_OP_MACRO_(check, CHECK_GT_, #__VA_ARGS__, __VA_ARGS__)
#define CHECK_GE(...) CHECK_OP_MACRO_(check, CHECK_GE_, #__VA_ARGS__, __VA_ARGS__)
#define REQUIRE_EQ(...) CHECK_OP_MACRO_(require, CHECK_EQ_, #__VA_ARGS__, __VA_ARGS__)
#define REQUIRE_NE(...) CHECK_OP_MACRO_(require, CHECK_NE_, #__VA_ARGS__, __VA_ARGS__)
#define REQUIRE_LT(...) CHECK_OP_MACRO_(require, CHECK_LT_, #__VA_ARGS__, __VA_ARGS__)
#define REQUIRE_LE(...) CHECK_OP_MACRO_(require, CHECK_LE_, #__VA_ARGS__, __VA_ARGS__)
#define REQUIRE_GT(...) CHECK_OP_MACRO_(require, CHECK_GT_, #__VA_ARGS__, __VA_ARGS__)
#define REQUIRE_GE(...) CHECK_OP_MACRO_(require, CHECK_GE_, #__VA_ARGS__, __VA_ARGS__)

#define CHECK_STR_EQ(...) CHECK_S_MACRO_(check, 0, #__VA_ARGS__, __VA_ARGS__)
#define CHECK_HAS(...) CHECK_S_MACRO_(check, 1, #__VA_ARGS__, __VA_ARGS__)
#define REQUIRE_STR_EQ(...) CHECK_S_MACRO_(require, 0, #__VA_ARGS__, __VA_ARGS__)
#define REQUIRE_HAS(...) CHECK_S_MACRO_(require, 1, #__VA_ARGS__, __VA_ARGS__)

/* ---- unit tests: a table of test functions ------------------------------- */

struct unit_test {
    const char *name;
    void (*fn)(void);
};

/* Runs every test, prints "ok NAME" or "FAIL NAME" for each and a count;
 * returns the program's status. */
static inline int check_run_tests_(const struct unit_test *t, size_t n)
{
    int passed = 0, failed = 0;
    for (size_t i = 0; i < n; i++) {
        long before = check_failures();
        t[i].fn();
        if (check_failures() == before) {
            printf("ok   %s\n", t[i].name);
            passed++;
        } else {
            printf("FAIL %s\n", t[i].name);
            failed++;
        }
        fflush(stdout);
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

#define RUN_TESTS(arr) check_run_tests_((arr), sizeof(arr) / sizeof((arr)[0]))

/* ---- SHMEM programs ------------------------------------------------------- */

#ifndef CHECK_WITHOUT_SHMEM

static int check_alarm_pe_ CHECK_UNUSED_ = -1;
static unsigned check_alarm_s_ CHECK_UNUSED_;

static inline void check_alarm_(int sig)
{
    (void)sig;
    char buf[256];
    const char *stage = check_stage_name_;
    int n = snprintf(buf, sizeof buf, "FAIL PE %d: watchdog: still running after %u s (stage %s)\n",
                     check_alarm_pe_, check_alarm_s_, stage ? stage : "none named");
    if (n > 0)
        (void)!write(2, buf, (size_t)n);
    _exit(2);
}

/* Call after shmem_init: the PE number goes into the report, which a
 * signal handler cannot ask the library for. */
static inline void check_watchdog(unsigned seconds)
{
    check_alarm_pe_ = shmem_my_pe();
    check_alarm_s_ = seconds;
    signal(SIGALRM, check_alarm_);
    alarm(seconds);
}

static inline int check_right(void) { return (shmem_my_pe() + 1) % shmem_n_pes(); }
static inline int check_left(void) { return (shmem_my_pe() + shmem_n_pes() - 1) % shmem_n_pes(); }

/* Global data, hence symmetric, for check_done's reductions. */
static long check_done_mine_[2] CHECK_UNUSED_, check_done_all_[2] CHECK_UNUSED_;

static inline int check_done_note_(const char *name, const char *note)
{
    shmem_barrier_all();
    check_done_mine_[0] = check_failures();
    check_done_mine_[1] = check_done_mine_[0] > 0;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, check_done_all_, check_done_mine_, 2);
    long failed = check_done_all_[0], pes = check_done_all_[1];
    int np = shmem_n_pes();
    if (shmem_my_pe() == 0) {
        if (!failed)
            printf("%s: OK on %d PE%s%s%s\n", name, np, np == 1 ? "" : "s", *note ? ": " : "",
                   note);
        else
            printf("%s: FAILED: %ld failed check%s on %ld of %d PE%s\n", name, failed,
                   failed == 1 ? "" : "s", pes, np, np == 1 ? "" : "s");
        fflush(stdout);
    }
    return failed ? 1 : 0;
}

static inline int check_done_1_(const char *name) { return check_done_note_(name, ""); }

__attribute__((format(printf, 2, 3))) static inline int check_done_m_(const char *name,
                                                                      const char *fmt, ...)
{
    char note[512];
    va_list ap;
    va_start(ap, fmt);
    check_vnote_(note, sizeof note, fmt, ap);
    va_end(ap);
    return check_done_note_(name, note);
}

#define check_done(...) CHECK_CAT_(check_done_, CHECK_N1_(__VA_ARGS__))(__VA_ARGS__)
#define check_done_1(name) check_done_1_(name)
#define check_done_CHECK_M_(...) check_done_m_(__VA_ARGS__)

#endif /* CHECK_WITHOUT_SHMEM */

#endif
