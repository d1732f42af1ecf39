/* shmem_info: what PlugSHMEM is installed, which transports it finds, which
 * one a job would use, and every environment variable it reads. */
#include <stdio.h>
#include <string.h>

#include <shmem.h>
#include <shmemx.h>

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: shmem_info [-h|--help] [-V|--version] [--markdown]\n"
            "\n"
            "Prints the PlugSHMEM and OpenSHMEM versions, every transport plugin found\n"
            "(its file, ABI version, and whether it can run here, or why not), the\n"
            "transport a job started now would use, and every environment variable the\n"
            "library reads with its current value (or default) and meaning.\n"
            "\n"
            "Transports are looked for in SHMEM_TRANSPORT_PATH, then in the plugshmem\n"
            "folder beside libplugshmem.so. SHMEM_TRANSPORT=name[,name...] chooses.\n"
            "\n"
            "  -V, --version   print the version only\n"
            "  --markdown      print the settings of every component found as the rows\n"
            "                  of the README's settings table\n"
            "  -h, --help      print this help\n");
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version")) {
            printf("shmem_info (PlugSHMEM) %s, OpenSHMEM %d.%d\n", PLUGSHMEM_VERSION_STRING,
                   SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
            return 0;
        }
        if (!strcmp(argv[i], "--markdown")) {
            shmemx_info_settings_markdown(stdout);
            return 0;
        }
        fprintf(stderr, "shmem_info: unknown argument '%s'; see 'shmem_info --help'\n", argv[i]);
        return 2;
    }
    shmemx_info_print(stdout);
    return 0;
}
