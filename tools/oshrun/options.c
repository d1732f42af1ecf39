/* oshrun: command-line parsing, --help and --version. */
#include "oshrun.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
"NAME\n"
"    oshrun - run an OpenSHMEM program on this node (PlugSHMEM)\n"
"\n"
"SYNOPSIS\n"
"    oshrun [-n N | -np N] [--transport NAME] [--] PROGRAM [ARGS...]\n"
"    oshrun -h | --help\n"
"    oshrun -V | --version\n"
"\n"
"DESCRIPTION\n"
"    oshrun starts N copies of PROGRAM (the processing elements, PEs 0 to\n"
"    N-1) on this node and serves them through an embedded PMIx server, which\n"
"    is how PlugSHMEM's shmem_init() finds its peers, and a PMI-1 server, so\n"
"    that MPICH's MPI_Init() in the same processes forms one MPI_COMM_WORLD\n"
"    whose ranks are the PE numbers. PROGRAM is looked up in PATH unless it\n"
"    contains a '/'. Programs that use neither run too.\n"
"\n"
"    The PEs inherit oshrun's standard input, output and error, and run in a\n"
"    process group of their own. oshrun waits for all of them. When a PE\n"
"    fails (see EXIT STATUS) or oshrun receives SIGINT, SIGTERM or SIGHUP,\n"
"    the whole job is ended: the other PEs get SIGTERM (or the received\n"
"    signal) and, if still alive after a grace period, SIGKILL. Shared-memory\n"
"    objects /dev/shm/psm-<JOB_TAG>-* left by the job are removed at the end.\n"
"    If oshrun itself is killed with SIGKILL, the kernel kills the PEs.\n"
"\n"
"    Because the PEs are not in the terminal's foreground process group, a\n"
"    PE that reads from a terminal is stopped (SIGTTIN); redirect standard\n"
"    input from a file or pipe when PEs read it.\n"
"\n"
"OPTIONS\n"
"    -n N, -np N, --np N\n"
"        Start N PEs (1 <= N <= 4096). Default: 1.\n"
"    --transport NAME\n"
"        Set SHMEM_TRANSPORT=NAME in the PEs' environment, selecting the\n"
"        PlugSHMEM transport.\n"
"    -h, --help\n"
"        Print this help and exit.\n"
"    -V, --version\n"
"        Print the version and exit.\n"
"    --\n"
"        End of options; the next argument is PROGRAM.\n"
"\n"
"ENVIRONMENT\n"
"    The PEs get oshrun's environment plus the PMIx connection variables\n"
"    (PMIX_*), the PMI-1 ones (PMI_FD, PMI_RANK, PMI_SIZE, MPI_LOCALRANKID,\n"
"    MPI_LOCALNRANKS) and:\n"
"    PLUGSHMEM_JOB_TAG   16 random hex digits naming this job; PlugSHMEM\n"
"                        names its shared-memory objects after it.\n"
"    PLUGSHMEM_LAUNCHER  \"oshrun\".\n"
"    SHMEM_TRANSPORT     NAME, with --transport.\n"
"    PMIX_* and PMI variables oshrun inherited from an outer launcher are\n"
"    not passed on (PMIX_MCA_* tuning variables are).\n"
"    oshrun itself reads:\n"
"    TMPDIR              where oshrun's private PMIx directory is made\n"
"                        (default /tmp).\n"
"    OSHRUN_DEBUG        when set and non-empty, trace PMIx upcalls and PMI\n"
"                        requests on stderr.\n"
"\n"
"EXIT STATUS\n"
"    0      every PE exited with status 0.\n"
"    S      a PE exited with status S != 0, or called shmem_global_exit(S)\n"
"           (PMIx_Abort, or PMI's abort); the first failure observed decides.\n"
"    128+N  a PE was killed by signal N, or oshrun received signal N.\n"
"    1      a PE that had connected to PMIx or PMI exited with status 0\n"
"           without finalizing it (shmem_finalize, MPI_Finalize) while the\n"
"           job was running, a PE sent a PMI command oshrun does not serve,\n"
"           or oshrun failed internally.\n"
"    2      invalid command line.\n"
"    127    PROGRAM was not found or is not executable; nothing was started.\n"
"\n"
"EXAMPLES\n"
"    oshrun -n 4 ./hello\n"
"    oshrun -np 8 --transport shm -- ./bench -v\n";

static _Noreturn void usage_error(const char *fmt, const char *arg)
{
    fputs("oshrun: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("; see 'oshrun --help'\n", stderr);
    exit(OSHRUN_EXIT_USAGE);
}

static int parse_npes(const char *s)
{
    char *end;
    long v;

    if (*s < '0' || *s > '9')
        goto bad;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < 1 || v > OSHRUN_MAX_PES)
        goto bad;
    return (int)v;
bad:
    fprintf(stderr, "oshrun: invalid number of PEs '%s': expected an integer "
            "from 1 to %d\n", s, OSHRUN_MAX_PES);
    exit(OSHRUN_EXIT_USAGE);
}

/* If ARG is option NAME, return its value ("--name=V", "-nV" for short
 * options, or the next argument, advancing *i); else NULL. */
static const char *option_value(int argc, char **argv, int *i, const char *name,
                                bool attached)
{
    const char *arg = argv[*i];
    size_t len = strlen(name);

    if (strncmp(arg, name, len) != 0)
        return NULL;
    if (arg[len] == '\0') {
        if (*i + 1 >= argc)
            usage_error("option '%s' requires an argument", name);
        return argv[++*i];
    }
    if (arg[len] == '=' && name[1] == '-')
        return arg + len + 1;
    if (attached && arg[len] >= '0' && arg[len] <= '9')
        return arg + len;
    return NULL;
}

void options_parse(int argc, char **argv, struct options *opt)
{
    const char *v;
    int i;

    opt->npes = 1;
    opt->transport = NULL;
    opt->prog_index = 0;

    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];

        if (strcmp(arg, "--") == 0) {
            i++;
            break;
        }
        if (arg[0] != '-' || arg[1] == '\0')
            break;                          /* PROGRAM ("-" alone too) */
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            fputs(usage_text, stdout);
            exit(fflush(stdout) == 0 ? 0 : OSHRUN_EXIT_FAILURE);
        }
        if (strcmp(arg, "-V") == 0 || strcmp(arg, "--version") == 0) {
            printf("oshrun (PlugSHMEM) %s\n", PLUGSHMEM_VERSION);
            exit(fflush(stdout) == 0 ? 0 : OSHRUN_EXIT_FAILURE);
        }
        if ((v = option_value(argc, argv, &i, "-np", true)) ||
            (v = option_value(argc, argv, &i, "--np", false)) ||
            (v = option_value(argc, argv, &i, "-n", true))) {
            opt->npes = parse_npes(v);
            continue;
        }
        if ((v = option_value(argc, argv, &i, "--transport", false))) {
            if (*v == '\0')
                usage_error("option '%s' needs a non-empty NAME", "--transport");
            opt->transport = v;
            continue;
        }
        usage_error("unknown option '%s'", arg);
    }
    if (i >= argc)
        usage_error("%s", "no program to run");
    opt->prog_index = i;
}
