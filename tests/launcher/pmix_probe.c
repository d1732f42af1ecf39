/*
 * pmix_probe: a small PMIx client for testing oshrun.
 *
 *   pmix_probe [MODE [ANY...]]
 *
 * Every rank: PMIx_Init; read PMIX_JOB_SIZE and PMIX_LOCAL_PEERS; put
 * "probe.rank" = rank, commit, fence with PMIX_COLLECT_DATA, get every other
 * rank's key and check it (exit 3 on mismatch, 4 on a PMIx error); print
 * "probe rank R of N ok". Then MODE:
 *   exit:S        rank 1 exits with S after the fence; the others sleep 30 s
 *   crash         rank 1 raises SIGSEGV; the others sleep 30 s
 *   abort:S[:MSG] rank 1 calls PMIx_Abort(S, MSG or "") then _exit(S); the
 *                 others block in a second fence that rank 1 never joins
 *                 (and sleep 30 s should PMIx end that fence with an error)
 *   nofinalize    rank 1 exits 0 without PMIx_Finalize; the others sleep 30 s
 *   sleep         every rank sleeps 30 s
 *   shm           every rank creates /dev/shm/psm-$PLUGSHMEM_JOB_TAG-probe-R
 *                 and keeps it; after a fence rank 1 crashes, others sleep
 *   env           print PLUGSHMEM_JOB_TAG, PLUGSHMEM_LAUNCHER, SHMEM_TRANSPORT
 * and finally PMIx_Finalize, exit 0. Extra arguments are ignored (tests use
 * them as markers to find leftover processes).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <pmix.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define KEY "probe.rank"

static pmix_proc_t me;

static _Noreturn void fail(int code, const char *what, pmix_status_t rc)
{
    fprintf(stderr, "probe rank %d: %s: %s\n", (int)me.rank, what,
            PMIx_Error_string(rc));
    exit(code);
}

static void nap(void)
{
    sleep(30);
}

static void fence(bool collect)
{
    pmix_info_t info;
    bool yes = true;
    pmix_status_t rc;

    if (collect) {
        PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
        rc = PMIx_Fence(NULL, 0, &info, 1);
        PMIX_INFO_DESTRUCT(&info);
    } else {
        rc = PMIx_Fence(NULL, 0, NULL, 0);
    }
    if (rc != PMIX_SUCCESS)
        fail(4, "PMIx_Fence", rc);
}

static uint32_t get_job_size(void)
{
    pmix_proc_t wild;
    pmix_value_t *val = NULL;
    uint32_t size;
    pmix_status_t rc;

    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val);
    if (rc != PMIX_SUCCESS)
        fail(4, "PMIx_Get(PMIX_JOB_SIZE)", rc);
    size = val->data.uint32;
    PMIX_VALUE_RELEASE(val);
    return size;
}

static void check_local_peers(uint32_t size)
{
    pmix_proc_t wild;
    pmix_value_t *val = NULL;
    pmix_status_t rc;
    uint32_t count = 1;

    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&wild, PMIX_LOCAL_PEERS, NULL, 0, &val);
    if (rc != PMIX_SUCCESS)
        fail(4, "PMIx_Get(PMIX_LOCAL_PEERS)", rc);
    for (const char *p = val->data.string; *p; p++)
        count += *p == ',';
    if (val->type != PMIX_STRING || count != size) {
        fprintf(stderr, "probe rank %d: PMIX_LOCAL_PEERS '%s' does not list "
                "%u ranks\n", (int)me.rank, val->data.string, size);
        exit(3);
    }
    PMIX_VALUE_RELEASE(val);
}

static void exchange(uint32_t size)
{
    pmix_value_t v, *got;
    pmix_proc_t peer;
    pmix_status_t rc;

    PMIX_VALUE_LOAD(&v, &me.rank, PMIX_UINT32);
    if ((rc = PMIx_Put(PMIX_GLOBAL, KEY, &v)) != PMIX_SUCCESS)
        fail(4, "PMIx_Put", rc);
    PMIX_VALUE_DESTRUCT(&v);
    if ((rc = PMIx_Commit()) != PMIX_SUCCESS)
        fail(4, "PMIx_Commit", rc);
    fence(true);
    for (uint32_t r = 0; r < size; r++) {
        if (r == me.rank)
            continue;
        PMIX_LOAD_PROCID(&peer, me.nspace, r);
        got = NULL;
        if ((rc = PMIx_Get(&peer, KEY, NULL, 0, &got)) != PMIX_SUCCESS)
            fail(4, "PMIx_Get(" KEY ")", rc);
        if (got->type != PMIX_UINT32 || got->data.uint32 != r) {
            fprintf(stderr, "probe rank %d: rank %u's key is wrong\n",
                    (int)me.rank, r);
            exit(3);
        }
        PMIX_VALUE_RELEASE(got);
    }
}

static void make_shm(void)
{
    const char *tag = getenv("PLUGSHMEM_JOB_TAG");
    char name[128];
    int fd;

    snprintf(name, sizeof name, "/psm-%s-probe-%u", tag ? tag : "none",
             me.rank);
    fd = shm_open(name, O_CREAT | O_RDWR, 0600);
    if (fd < 0) {
        perror("probe: shm_open");
        exit(5);
    }
    close(fd);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    pmix_status_t rc;
    uint32_t size;
    bool one;

    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS)
        fail(4, "PMIx_Init", rc);
    size = get_job_size();
    check_local_peers(size);
    exchange(size);
    printf("probe rank %u of %u ok\n", me.rank, size);
    fflush(stdout);

    one = me.rank == 1;
    if (strncmp(mode, "exit:", 5) == 0) {
        if (one)
            _exit(atoi(mode + 5));
        nap();
    } else if (strcmp(mode, "crash") == 0) {
        if (one)
            raise(SIGSEGV);
        nap();
    } else if (strncmp(mode, "abort:", 6) == 0) {
        if (one) {
            int status = atoi(mode + 6);
            const char *msg = strchr(mode + 6, ':');
            PMIx_Abort(status, msg ? msg + 1 : "", NULL, 0);
            _exit(status);
        }
        /* Rank 1 never joins. When it is gone PMIx may end this fence with
         * an error (PMIX_ERR_PARTIAL_SUCCESS); keep blocking regardless, as
         * a PE stuck in a collective would, until oshrun ends the job. */
        PMIx_Fence(NULL, 0, NULL, 0);
        nap();
    } else if (strcmp(mode, "nofinalize") == 0) {
        if (one)
            _exit(0);
        nap();
    } else if (strcmp(mode, "sleep") == 0) {
        nap();
    } else if (strcmp(mode, "shm") == 0) {
        make_shm();
        fence(false);
        if (one)
            raise(SIGSEGV);
        nap();
    } else if (strcmp(mode, "env") == 0) {
        const char *t = getenv("PLUGSHMEM_JOB_TAG"),
                   *l = getenv("PLUGSHMEM_LAUNCHER"),
                   *s = getenv("SHMEM_TRANSPORT");
        printf("probe rank %u env tag=%s launcher=%s transport=%s\n", me.rank,
               t ? t : "(unset)", l ? l : "(unset)", s ? s : "(unset)");
    }
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS)
        fail(4, "PMIx_Finalize", rc);
    return 0;
}
