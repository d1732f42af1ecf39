#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "error.h"
#include "init.h"

static int err_pe = -1;

void pshm_error_set_pe(int pe) { err_pe = pe; }

void pshm_verror(const char *fmt, va_list ap)
{
    /* One write so that lines of different PEs do not interleave. */
    char line[1024];
    int n = err_pe >= 0 ? snprintf(line, sizeof line, "plugshmem (PE %d): ", err_pe)
                        : snprintf(line, sizeof line, "plugshmem: ");
    n += vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    if (n > (int)sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    fflush(stdout);
    ssize_t w = write(STDERR_FILENO, line, (size_t)n);
    (void)w;
}

void pshm_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pshm_verror(fmt, ap);
    va_end(ap);
}

void pshm_vfatal(const char *fmt, va_list ap)
{
    pshm_verror(fmt, ap);
    pshm_job_abort(1);
}

void pshm_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pshm_vfatal(fmt, ap);
}
