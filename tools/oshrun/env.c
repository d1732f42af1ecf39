/* oshrun: job tag, the PEs' environment, removing the private temp dir,
 * /dev/shm. */
#include "oshrun.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

extern char **environ;

int job_tag_make(char tag[OSHRUN_TAG_LEN + 1])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char raw[OSHRUN_TAG_LEN / 2];
    size_t got = 0;

    while (got < sizeof raw) {
        ssize_t n = getrandom(raw + got, sizeof raw - got, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof raw; i++) {
        tag[2 * i] = hex[raw[i] >> 4];
        tag[2 * i + 1] = hex[raw[i] & 15];
    }
    tag[OSHRUN_TAG_LEN] = '\0';
    return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag,
                        struct FTW *ftw)
{
    (void)st; (void)flag; (void)ftw;
    remove(path);
    return 0;
}

void tmpdir_remove(const char *dir)
{
    if (dir != NULL)
        nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* Unlink /dev/shm/psm-<tag>-*: the job's own objects, left by crashed PEs. */
void shm_sweep(const char *tag)
{
    char prefix[OSHRUN_TAG_LEN + 8];
    size_t plen;
    struct dirent *de;
    DIR *d;

    if (tag[0] == '\0')
        return;
    plen = (size_t)snprintf(prefix, sizeof prefix, "psm-%s-", tag);
    d = opendir("/dev/shm");
    if (d == NULL)
        return;
    while ((de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, prefix, plen) == 0 &&
            unlinkat(dirfd(d), de->d_name, 0) == 0)
            dbg("removed leftover /dev/shm/%s", de->d_name);
    }
    closedir(d);
}

void env_free(char **env)
{
    if (env == NULL)
        return;
    for (char **e = env; *e; e++)
        free(*e);
    free(env);
}

char **env_dup(char *const *env)
{
    size_t n = 0;
    char **out;

    while (env[n])
        n++;
    out = calloc(n + 1, sizeof *out);
    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if ((out[i] = strdup(env[i])) == NULL) {
            env_free(out);
            return NULL;
        }
    }
    return out;
}

static bool has_name(const char *entry, const char *name)
{
    size_t len = strlen(name);
    return strncmp(entry, name, len) == 0 && entry[len] == '=';
}

int env_set(char ***env, const char *name, const char *value)
{
    size_t n = 0;
    char *entry, **grown;

    if (asprintf(&entry, "%s=%s", name, value) < 0)
        return -1;
    for (char **e = *env; *e; e++, n++) {
        if (has_name(*e, name)) {
            free(*e);
            *e = entry;
            return 0;
        }
    }
    grown = realloc(*env, (n + 2) * sizeof *grown);
    if (grown == NULL) {
        free(entry);
        return -1;
    }
    grown[n] = entry;
    grown[n + 1] = NULL;
    *env = grown;
    return 0;
}

/* What a PMI launcher gives each process; oshrun gives its own. */
static const char *const pmi_vars[] = {
    "PMI_FD", "PMI_PORT", "PMI_ID", "PMI_RANK", "PMI_SIZE", "PMI_SPAWNED",
    "PMI_DEBUG", "MPI_LOCALNRANKS", "MPI_LOCALRANKID",
};

/* Variables oshrun sets for the PEs, and PMIx and PMI connection variables
 * of an outer launcher (PMIX_MCA_* tuning is kept), are not inherited. */
static bool env_skip(const char *entry, const struct job *job)
{
    if (has_name(entry, "PLUGSHMEM_JOB_TAG") ||
        has_name(entry, "PLUGSHMEM_LAUNCHER"))
        return true;
    for (size_t i = 0; i < sizeof pmi_vars / sizeof pmi_vars[0]; i++)
        if (has_name(entry, pmi_vars[i]))
            return true;
    if (job->transport && has_name(entry, "SHMEM_TRANSPORT"))
        return true;
    return strncmp(entry, "PMIX_", 5) == 0 && strncmp(entry, "PMIX_MCA_", 9) != 0;
}

char **env_base(const struct job *job)
{
    size_t n = 0, k = 0;
    char **out;

    while (environ[n])
        n++;
    out = calloc(n + 4, sizeof *out);
    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (env_skip(environ[i], job))
            continue;
        if ((out[k++] = strdup(environ[i])) == NULL)
            goto oom;
    }
    if (asprintf(&out[k++], "PLUGSHMEM_JOB_TAG=%s", job->tag) < 0)
        goto oom;
    if ((out[k++] = strdup("PLUGSHMEM_LAUNCHER=oshrun")) == NULL)
        goto oom;
    if (job->transport &&
        asprintf(&out[k++], "SHMEM_TRANSPORT=%s", job->transport) < 0)
        goto oom;
    out[k] = NULL;
    return out;
oom:
    out[k - 1] = NULL;
    env_free(out);
    return NULL;
}
