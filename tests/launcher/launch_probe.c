/*
 * launch_probe: a PlugSHMEM program for the launcher tests (hydra, and
 * oshrun's PMI server).
 *
 *   launch_probe [MODE [ANY...]]
 *
 * Before shmem_init every PE prints "probe pid P" (the tests look for
 * /dev/shm objects named after it). Then every PE checks a ring of puts and
 * prints one line:
 *   probe PE R of N: local L mapped M transport T bootstrap B
 * L is the size of SHMEM_TEAM_SHARED, M how many PEs' heaps this PE reaches
 * by load/store (shmem_ptr), T and B what shmem_init chose. Exit 3 if the
 * ring's data is wrong. Then MODE, for PE 1 (PE 0 in a 1-PE job) while the
 * others wait in a barrier it never joins:
 *   global_exit:S  shmem_global_exit(S)
 *   crash          SIGSEGV
 *   exit:S         exit(S) without shmem_finalize
 *   _exit:S        _exit(S): no finalize of any kind
 * Extra arguments are ignored (tests use them as markers to find leftover
 * processes).
 */
#include <shmem.h>
#include <shmemx.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "Bootstrap in use: NAME" from the library's own report. */
static void bootstrap_name(char *out, size_t cap)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    snprintf(out, cap, "?");
    if (!f)
        return;
    shmemx_info_print(f);
    fclose(f);
    char *p = strstr(text, "Bootstrap in use: ");
    if (p)
        sscanf(p, "Bootstrap in use: %63s", out);
    free(text);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    printf("probe pid %d\n", (int)getpid());
    fflush(stdout);

    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *x = shmem_malloc(sizeof *x);
    *x = -1;
    shmem_barrier_all();
    shmem_long_p(x, me, (me + 1) % n);
    shmem_barrier_all();
    if (*x != (me + n - 1) % n) {
        printf("probe PE %d of %d: ring data %ld, expected %d\n", me, n, *x, (me + n - 1) % n);
        return 3;
    }
    int mapped = 0;
    for (int pe = 0; pe < n; pe++)
        mapped += shmem_ptr(x, pe) != NULL;
    char boot[64];
    bootstrap_name(boot, sizeof boot);
    printf("probe PE %d of %d: local %d mapped %d transport %s bootstrap %s\n", me, n,
           shmem_team_n_pes(SHMEM_TEAM_SHARED), mapped, shmemx_transport_name(), boot);
    fflush(stdout);
    shmem_barrier_all();

    int who = n > 1 ? 1 : 0;
    if (*mode && me == who) {
        usleep(100000); /* the others are in the barrier by now */
        if (strncmp(mode, "global_exit:", 12) == 0)
            shmem_global_exit(atoi(mode + 12));
        else if (strcmp(mode, "crash") == 0)
            raise(SIGSEGV);
        else if (strncmp(mode, "exit:", 5) == 0)
            exit(atoi(mode + 5));
        else if (strncmp(mode, "_exit:", 6) == 0)
            _exit(atoi(mode + 6));
        printf("probe PE %d: returned from %s\n", me, mode);
        return 99;
    }
    if (*mode) {
        shmem_barrier_all();
        printf("probe PE %d: not reached\n", me);
    }
    shmem_free(x);
    shmem_finalize();
    return 0;
}
