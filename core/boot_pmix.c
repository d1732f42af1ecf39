/* The PMIx bootstrap: rank, size, node-local peers and a blob exchange
 * through PMIx_Put/Commit/Fence/Get. */
#include <pmix.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bootstrap.h"

static pmix_proc_t me;
static unsigned ag_seq; /* keys are single-use so that exchanges never alias */
static int job_size;

static int get_u32(const pmix_proc_t *who, const char *key, uint32_t *out)
{
    pmix_value_t *v = NULL;
    if (PMIx_Get(who, key, NULL, 0, &v) != PMIX_SUCCESS || !v)
        return -1;
    int rc = 0;
    switch (v->type) {
    case PMIX_UINT32: *out = v->data.uint32; break;
    case PMIX_UINT16: *out = v->data.uint16; break;
    case PMIX_INT: *out = (uint32_t)v->data.integer; break;
    case PMIX_PROC_RANK: *out = v->data.rank; break;
    default: rc = -1;
    }
    PMIX_VALUE_RELEASE(v);
    return rc;
}

static int pmix_allgather(const void *mine, void *all, size_t len)
{
    char key[PMIX_MAX_KEYLEN + 1];
    snprintf(key, sizeof key, "pshm.ag.%u", ag_seq++);
    pmix_value_t val;
    PMIX_VALUE_CONSTRUCT(&val);
    val.type = PMIX_BYTE_OBJECT;
    val.data.bo.bytes = (char *)mine;
    val.data.bo.size = len;
    if (PMIx_Put(PMIX_GLOBAL, key, &val) != PMIX_SUCCESS || PMIx_Commit() != PMIX_SUCCESS)
        return -1;
    pmix_info_t info;
    bool collect = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    pmix_status_t rc = PMIx_Fence(NULL, 0, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS)
        return -1;
    for (int r = 0; r < job_size; r++) {
        char *dst = (char *)all + (size_t)r * len;
        if ((pmix_rank_t)r == me.rank) {
            memmove(dst, mine, len);
            continue;
        }
        pmix_proc_t p;
        pmix_value_t *v = NULL;
        PMIX_LOAD_PROCID(&p, me.nspace, (pmix_rank_t)r);
        if (PMIx_Get(&p, key, NULL, 0, &v) != PMIX_SUCCESS || !v)
            return -1;
        int ok = v->type == PMIX_BYTE_OBJECT && v->data.bo.size == len;
        if (ok)
            memcpy(dst, v->data.bo.bytes, len);
        PMIX_VALUE_RELEASE(v);
        if (!ok)
            return -1;
    }
    return 0;
}

static int pmix_barrier(void)
{
    return PMIx_Fence(NULL, 0, NULL, 0) == PMIX_SUCCESS ? 0 : -1;
}

__attribute__((noreturn)) static void pmix_abort(int status, const char *msg)
{
    fflush(stdout);
    fflush(stderr);
    /* The launcher ends every other PE; this one leaves on its own. */
    PMIx_Abort(status, msg ? msg : "", NULL, 0);
    _exit(status);
}

/* PMIx stays up for the life of the process: a shmem_finalize followed by
 * a new shmem_init (allowed since OpenSHMEM 1.6) must not race a slow PE's
 * PMIx_Finalize with a fast PE's next fence, which PMIx ends with
 * PMIX_ERR_PARTIAL_SUCCESS. */
static int pmix_up;

static void pmix_at_exit(void)
{
    if (pmix_up)
        PMIx_Finalize(NULL, 0);
    pmix_up = 0;
}

/* Under oshrun, say whether this PE is finalized (true at shmem_finalize,
 * false at a later shmem_init) with a call that waits for oshrun's answer:
 * the PE cannot exit before oshrun knows. PMIx_Finalize alone gives up
 * after 2 s, and on a loaded machine a PE then exited before oshrun had
 * read it and was reported as "exited without finalizing"; and PMIx stays
 * up past shmem_finalize (above), so it would say nothing for a PE that
 * finalized and then left with _exit. The key is oshrun's
 * OSHRUN_FINALIZE_KEY (tools/oshrun/oshrun.h). */
static void report_finalized(bool finalized)
{
    const char *launcher = getenv("PLUGSHMEM_LAUNCHER");
    pmix_info_t info;

    if (!launcher || strcmp(launcher, "oshrun") != 0)
        return;
    PMIX_INFO_LOAD(&info, "plugshmem.finalized", &finalized, PMIX_BOOL);
    PMIx_Publish(&info, 1);
    PMIX_INFO_DESTRUCT(&info);
}

static int *local_ranks;

static void pmix_fini(void)
{
    report_finalized(true);
    free(local_ranks);
    local_ranks = NULL;
}

/* PMIX_LOCAL_PEERS is "0,1,5"; ranks come back sorted. */
static int parse_peers(const char *s, int **out, int *n)
{
    int cap = 1, cnt = 0;
    for (const char *p = s; *p; p++)
        cap += *p == ',';
    int *r = malloc(sizeof(int) * (size_t)cap);
    if (!r)
        return -1;
    while (*s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s)
            break;
        r[cnt++] = (int)v;
        s = *end == ',' ? end + 1 : end;
    }
    for (int i = 1; i < cnt; i++)
        for (int j = i; j > 0 && r[j - 1] > r[j]; j--) {
            int t = r[j];
            r[j] = r[j - 1];
            r[j - 1] = t;
        }
    *out = r;
    *n = cnt;
    return 0;
}

static const char *pmix_detect(void)
{
    /* Every PMIx launcher sets both; either alone still means one tried. */
    if (getenv("PMIX_NAMESPACE"))
        return "PMIX_NAMESPACE is set";
    if (getenv("PMIX_RANK"))
        return "PMIX_RANK is set";
    return NULL;
}

static int pmix_init(struct pshm_boot *b, char *err, size_t errlen)
{
    if (!pmix_up) {
        pmix_status_t rc = PMIx_Init(&me, NULL, 0);
        if (rc != PMIX_SUCCESS) {
            const char *ns = getenv("PMIX_NAMESPACE");
            snprintf(err, errlen,
                     "bootstrap: started by a PMIx launcher (oshrun, srun --mpi=pmix, Open MPI's "
                     "mpirun; PMIX_NAMESPACE=%s) but PMIx_Init failed: %s; expected that "
                     "launcher's PMIx server to answer",
                     ns ? ns : "(unset)", PMIx_Error_string(rc));
            return -1;
        }
        pmix_up = 1;
        atexit(pmix_at_exit);
    } else {
        report_finalized(false);
    }
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    uint32_t size;
    if (get_u32(&wild, PMIX_JOB_SIZE, &size)) {
        snprintf(err, errlen, "bootstrap: the PMIx launcher gives no %s; expected the job size",
                 PMIX_JOB_SIZE);
        return -1;
    }
    b->rank = (int)me.rank;
    b->size = (int)size;
    job_size = (int)size;
    pmix_value_t *v = NULL;
    if (PMIx_Get(&wild, PMIX_LOCAL_PEERS, NULL, 0, &v) == PMIX_SUCCESS && v &&
        v->type == PMIX_STRING && v->data.string) {
        parse_peers(v->data.string, &b->local_ranks, &b->n_local);
    }
    if (v)
        PMIX_VALUE_RELEASE(v);
    if (!b->local_ranks || b->n_local < 1) {
        /* Without locality information only this PE is known to be local. */
        free(b->local_ranks);
        b->local_ranks = malloc(sizeof(int));
        b->local_ranks[0] = b->rank;
        b->n_local = 1;
    }
    local_ranks = b->local_ranks;
    b->name = "pmix";
    b->allgather = pmix_allgather;
    b->barrier = pmix_barrier;
    b->abort = pmix_abort;
    b->fini = pmix_fini;
    return 0;
}

const struct pshm_boot_component pshm_boot_pmix = {
    .name = "pmix",
    .launcher = "a PMIx launcher (oshrun, srun --mpi=pmix, Open MPI's mpirun)",
    .detect = pmix_detect,
    .init = pmix_init,
};
