/*
 * Tiny shared harness of the unit tests: CHECK records a failure and carries
 * on, so that one run reports every broken expectation; a test passes if
 * none of its checks fired.  RUN_TESTS prints "N passed, M failed".
 */
#ifndef PSHM_TEST_HARNESS_H
#define PSHM_TEST_HARNESS_H

#include <stdio.h>
#include <string.h>

static int g_check_failures;

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            g_check_failures++;                                                       \
        }                                                                             \
    } while (0)

/* CHECK with a printf-style explanation of what was seen. */
#define CHECKF(cond, ...)                                                             \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                             \
            fputc('\n', stderr);                                                      \
            g_check_failures++;                                                       \
        }                                                                             \
    } while (0)

/* s contains needle (s may be NULL: then it does not). */
static inline int has(const char *s, const char *needle) { return s && strstr(s, needle) != NULL; }

static inline void check_has(const char *s, const char *needle, const char *expr,
                             const char *file, int line)
{
    if (!has(s, needle)) {
        fprintf(stderr, "%s:%d: check failed: %s contains \"%s\": it is \"%s\"\n", file, line,
                expr, needle, s ? s : "(null)");
        g_check_failures++;
    }
}

#define CHECK_HAS(s, needle) check_has((s), (needle), #s, __FILE__, __LINE__)

struct unit_test {
    const char *name;
    void (*fn)(void);
};

static inline int run_tests(const struct unit_test *t, size_t n)
{
    int passed = 0, failed = 0;
    for (size_t i = 0; i < n; i++) {
        int before = g_check_failures;
        t[i].fn();
        if (g_check_failures == before) {
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

#define RUN_TESTS(arr) run_tests((arr), sizeof(arr) / sizeof((arr)[0]))

#endif
