/*
 * A suite driver: runs the test programs of a suite (its families) one
 * after the other in one job, so that a suite costs one launch per PE count
 * and transport instead of one per program.  Each family is a test program
 * whose main was renamed (suite_entry.h); it initializes and finalizes the
 * library itself, so families also check that a job can run shmem_init
 * again after shmem_finalize.
 *
 *   SUITE [--np N] [--list] [FAMILY...]
 *
 * --np N passes N to the families that check the PE count; FAMILY names
 * restrict the run (default: all, in table order, but for those marked to
 * run alone, such as a program that leaves finalizing to exit).  Prints one line per
 * family on PE 0 ("ok NAME (T s)"); a family that returns nonzero is named
 * on the PE that saw it ("FAIL NAME: status S"), and the driver goes on with
 * the next and exits 1 at the end.  A check that ends the job
 * (shmem_global_exit) names its source file and line, hence its family.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "suite_driver.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int selected(const struct suite_family *f, int argc, char **argv, int first)
{
    if (first >= argc)
        return !f->alone;
    for (int i = first; i < argc; i++)
        if (!strcmp(argv[i], f->name))
            return 1;
    return 0;
}

/* Sets the family's variables, remembering what they were. */
static void env_push(const char *const *env, char **saved)
{
    for (int i = 0; env[i]; i++) {
        char name[128];
        const char *eq = strchr(env[i], '=');
        snprintf(name, sizeof name, "%.*s", (int)(eq - env[i]), env[i]);
        const char *old = getenv(name);
        saved[i] = old ? strdup(old) : NULL;
        setenv(name, eq + 1, 1);
    }
}

static void env_pop(const char *const *env, char **saved)
{
    for (int i = 0; env[i]; i++) {
        char name[128];
        const char *eq = strchr(env[i], '=');
        snprintf(name, sizeof name, "%.*s", (int)(eq - env[i]), env[i]);
        if (saved[i])
            setenv(name, saved[i], 1);
        else
            unsetenv(name);
        free(saved[i]);
    }
}

/* This PE's number without the library (every family has finalized it):
 * from the launcher, 0 for a singleton. */
static int rank(void)
{
    const char *vars[] = {"PMIX_RANK", "PMI_RANK", "OMPI_COMM_WORLD_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        if (getenv(vars[i]))
            return atoi(getenv(vars[i]));
    return 0;
}

int main(int argc, char **argv)
{
    char *np = NULL;
    int first = 1;
    if (argc > 2 && !strcmp(argv[1], "--np")) {
        np = argv[2];
        first = 3;
    } else if (argc > 1 && !strcmp(argv[1], "--list")) {
        for (const struct suite_family *f = suite_families; f->name; f++)
            printf("%s\n", f->name);
        return 0;
    }
    for (int i = first; i < argc; i++) {
        const struct suite_family *f = suite_families;
        while (f->name && strcmp(f->name, argv[i]))
            f++;
        if (!f->name) {
            fprintf(stderr, "%s: no family '%s' (--list lists them)\n", argv[0], argv[i]);
            return 2;
        }
    }
    int failed = 0, ran = 0;
    for (const struct suite_family *f = suite_families; f->name; f++) {
        if (!selected(f, argc, argv, first))
            continue;
        char *fargv[] = {(char *)f->name, f->wants_np ? np : NULL, NULL};
        char *saved[16] = {0};
        env_push(f->env, saved);
        double t0 = now();
        int rc = f->fn(f->wants_np && np ? 2 : 1, fargv);
        double t = now() - t0;
        env_pop(f->env, saved);
        ran++;
        int me = rank();
        if (rc) {
            failed++;
            printf("FAIL %s: status %d (PE %d)\n", f->name, rc, me);
        } else if (me == 0) {
            printf("ok   %s (%.2f s)\n", f->name, t);
        }
        fflush(stdout);
    }
    if (failed)
        return 1;
    if (rank() == 0)
        printf("%d families passed\n", ran);
    return 0;
}
