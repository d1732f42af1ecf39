/* oshrun: locate PROGRAM the way execvp would, before anything is started. */
#include "oshrun.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* 0 if PATH names an executable regular file, else an errno value. */
static int check_executable(const char *path)
{
    struct stat st;

    if (stat(path, &st) != 0)
        return errno;
    if (!S_ISREG(st.st_mode))
        return EACCES;
    if (access(path, X_OK) != 0)
        return errno;
    return 0;
}

int program_resolve(const char *name, char **path)
{
    const char *search, *p;
    char *buf;
    size_t nlen = strlen(name);
    int err, best = ENOENT;

    *path = NULL;
    if (nlen == 0)
        return ENOENT;
    if (strchr(name, '/') != NULL) {
        err = check_executable(name);
        if (err == 0 && !(*path = strdup(name)))
            return ENOMEM;
        return err;
    }

    search = getenv("PATH");
    if (search == NULL)
        search = "/bin:/usr/bin";
    buf = malloc(strlen(search) + nlen + 3);
    if (buf == NULL)
        return ENOMEM;
    for (p = search;; p++) {
        const char *end = strchrnul(p, ':');
        size_t dlen = (size_t)(end - p);

        if (dlen == 0) {                    /* empty entry: current dir */
            buf[0] = '.';
            dlen = 1;
        } else {
            memcpy(buf, p, dlen);
        }
        buf[dlen] = '/';
        memcpy(buf + dlen + 1, name, nlen + 1);
        err = check_executable(buf);
        if (err == 0) {
            *path = buf;
            return 0;
        }
        if (err == EACCES)                  /* remember, keep looking */
            best = EACCES;
        if (*end == '\0')
            break;
        p = end;
    }
    free(buf);
    return best;
}
