/* late_finalize MODE: PE 0 ends in a way oshrun must judge right.
 *
 *   plain   nothing special (the stress loop of stress_finalize.sh).
 *   stall   after shmem_finalize, PE 0 stops oshrun (SIGSTOP) and has a
 *           child continue it 3 s later, then returns from main: oshrun
 *           answers nothing for longer than PMIx_Finalize waits (2 s),
 *           as on a heavily loaded machine. Must end with status 0.
 *   _exit   shmem_finalize, then _exit(0): finalized. Status 0.
 *   reinit  shmem_finalize, shmem_init again, then _exit(0) while the
 *           others wait in a barrier: not finalized. Status 1. */
#include <shmem.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "stall";

    shmem_init();
    int me = shmem_my_pe();
    shmem_finalize();
    if (strcmp(mode, "stall") == 0 && me == 0) {
        pid_t launcher = getppid();
        if (fork() == 0) {
            sleep(3);
            kill(launcher, SIGCONT);
            _exit(0);
        }
        kill(launcher, SIGSTOP);
    } else if (strcmp(mode, "_exit") == 0) {
        fflush(stdout);
        _exit(0);
    } else if (strcmp(mode, "reinit") == 0) {
        shmem_init();
        if (me == 0)
            _exit(0);
        shmem_barrier_all();
        shmem_finalize();
    }
    return 0;
}
