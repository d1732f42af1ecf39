/* oshrun: the private temp folder's name, and the sweep of folders left
 * by an oshrun that was killed (SIGKILL gives it no chance to remove its
 * own, and PMIx leaves its data store files, pmix_dstor_*, in there).
 *
 * A folder is oshrun.<pid>.XXXXXX, <pid> the oshrun that made it.  A later
 * oshrun removes such a folder only when it is a real folder (not a link)
 * of its own user and no process <pid> exists.  A reused pid keeps a
 * stale folder until that process ends too: leaving one folder a while
 * longer is harmless, removing a live job's would not be.  Folders without
 * a pid in their name (oshrun.XXXXXX, made by older versions) are left
 * alone: nothing tells whose they are. */
#include "oshrun.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define STALE_PREFIX "oshrun."

/* PMIx puts its Unix socket in this folder, and socket paths are limited
 * to 108 bytes, so a very long $TMPDIR is passed over for /tmp. */
const char *tmpdir_base(void)
{
    const char *base = getenv("TMPDIR");

    if (base == NULL || base[0] == '\0' || strlen(base) > 48)
        base = "/tmp";
    return base;
}

char *tmpdir_create(void)
{
    char *dir;

    if (asprintf(&dir, "%s/" STALE_PREFIX "%ld.XXXXXX", tmpdir_base(), (long)getpid()) < 0)
        return NULL;
    if (mkdtemp(dir) == NULL) {
        int err = errno;
        free(dir);
        errno = err;
        return NULL;
    }
    return dir;
}

/* The owner's pid from "oshrun.<pid>.XXXXXX", or 0 if the name is not of
 * that form. */
static pid_t owner_pid(const char *name)
{
    const char *p = name + strlen(STALE_PREFIX);
    char *end;
    long pid;

    if (strncmp(name, STALE_PREFIX, strlen(STALE_PREFIX)) != 0 || *p < '1' || *p > '9')
        return 0;
    errno = 0;
    pid = strtol(p, &end, 10);
    if (errno != 0 || pid <= 0 || pid > INT_MAX || *end != '.' || strlen(end + 1) != 6)
        return 0;
    return (pid_t)pid;
}

/* Gone for certain: kill() answers ESRCH.  EPERM means it exists (another
 * user's process holding the pid): not gone. */
static bool process_gone(pid_t pid)
{
    return kill(pid, 0) != 0 && errno == ESRCH;
}

void tmpdir_sweep_stale(void)
{
    const char *base = tmpdir_base();
    struct dirent *de;
    DIR *d = opendir(base);

    if (d == NULL)
        return;
    while ((de = readdir(d)) != NULL) {
        struct stat st;
        pid_t pid = owner_pid(de->d_name);
        char *path;

        if (pid == 0 || pid == getpid() ||
            fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISDIR(st.st_mode) || st.st_uid != getuid() || !process_gone(pid))
            continue;
        if (asprintf(&path, "%s/%s", base, de->d_name) < 0)
            break;
        tmpdir_remove(path);
        dbg("removed %s, left by oshrun %ld (gone)", path, (long)pid);
        free(path);
    }
    closedir(d);
}
