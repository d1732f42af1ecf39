/* The PMI bootstrap: rank and size from the launcher, blobs exchanged as
 * hex values in PMI-1's key-value space, node locality from an exchange
 * of node identities. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bootstrap.h"
#include "error.h"
#include "pmi_client.h"

static struct pmi_job job;
static unsigned ag_seq; /* keys are single-use: PMI-1 has no delete, and none must alias */
static int *local_ranks;

static const char hexd[] = "0123456789abcdef";

static int unhex(int c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* Values are words of a text line: bytes travel as hex, split in chunks. */
static int pmi_allgather(const void *mine, void *all, size_t len)
{
    size_t chunk = (size_t)(job.vallen_max - 1) / 2;
    size_t nchunks = (len + chunk - 1) / chunk;
    unsigned seq = ag_seq++;
    char key[64], *val = malloc(2 * chunk + 1);
    const unsigned char *src = mine;
    int rc = -1;
    if (!val)
        return -1;
    for (size_t c = 0; c < nchunks; c++) {
        size_t off = c * chunk, n = len - off < chunk ? len - off : chunk;
        for (size_t i = 0; i < n; i++) {
            val[2 * i] = hexd[src[off + i] >> 4];
            val[2 * i + 1] = hexd[src[off + i] & 15];
        }
        val[2 * n] = '\0';
        snprintf(key, sizeof key, "pshm%u.%d.%zu", seq, job.rank, c);
        if (pmi_client_put(key, val))
            goto out;
    }
    if (pmi_client_barrier())
        goto out;
    for (int r = 0; r < job.size; r++) {
        unsigned char *dst = (unsigned char *)all + (size_t)r * len;
        if (r == job.rank) {
            memmove(dst, mine, len);
            continue;
        }
        for (size_t c = 0; c < nchunks; c++) {
            size_t off = c * chunk, n = len - off < chunk ? len - off : chunk;
            snprintf(key, sizeof key, "pshm%u.%d.%zu", seq, r, c);
            if (pmi_client_get(key, val, 2 * chunk + 1))
                goto out;
            if (strlen(val) != 2 * n) {
                pshm_error("bootstrap: PMI value %s has %zu hex digits; expected %zu", key,
                           strlen(val), 2 * n);
                goto out;
            }
            for (size_t i = 0; i < n; i++) {
                int hi = unhex(val[2 * i]), lo = unhex(val[2 * i + 1]);
                if (hi < 0 || lo < 0) {
                    pshm_error("bootstrap: PMI value %s is not hex", key);
                    goto out;
                }
                dst[off + i] = (unsigned char)(hi << 4 | lo);
            }
        }
    }
    rc = 0;
out:
    free(val);
    return rc;
}

/* PSHM_BOOT_CLOSED when the program's MPI_Finalize took the connection
 * with it: the core then meets the other PEs without the launcher. */
static int pmi_barrier(void)
{
    if (pmi_client_closed())
        return PSHM_BOOT_CLOSED;
    int rc = pmi_client_barrier();
    return rc == 1 ? PSHM_BOOT_CLOSED : rc;
}

__attribute__((noreturn)) static void pmi_abort(int status, const char *msg)
{
    /* PMI-1's abort carries no message: say it here. */
    if (msg && *msg)
        pshm_error("%s", msg);
    pmi_client_abort(status);
}

static void pmi_fini(void)
{
    free(local_ranks);
    local_ranks = NULL;
}

/* A node is a host name on one boot of one kernel: the host name alone
 * could be shared by machines (or containers) that share no memory, and
 * the boot id alone by network namespaces that emulate nodes. */
struct node_id {
    char s[192];
};

static void node_id(struct node_id *id)
{
    char host[128] = "", boot[64] = "";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(boot, sizeof boot, f))
            boot[0] = '\0';
        fclose(f);
        boot[strcspn(boot, "\n")] = '\0';
    }
    gethostname(host, sizeof host - 1);
    memset(id, 0, sizeof *id);
    snprintf(id->s, sizeof id->s, "%s/%s", host, boot);
}

static int find_locals(struct pshm_boot *b, char *err, size_t errlen)
{
    struct node_id me, *all = calloc((size_t)job.size, sizeof *all);
    local_ranks = malloc(sizeof(int) * (size_t)job.size);
    if (!all || !local_ranks) {
        free(all);
        snprintf(err, errlen, "bootstrap: out of memory for %d PEs", job.size);
        return -1;
    }
    node_id(&me);
    if (pmi_allgather(&me, all, sizeof me)) {
        free(all);
        snprintf(err, errlen,
                 "bootstrap: the exchange of node names through the PMI launcher "
                 "failed");
        return -1;
    }
    b->n_local = 0;
    for (int r = 0; r < job.size; r++)
        if (strcmp(all[r].s, me.s) == 0)
            local_ranks[b->n_local++] = r;
    free(all);
    b->local_ranks = local_ranks;
    return 0;
}

static int pmi_init(struct pshm_boot *b, char *err, size_t errlen)
{
    char why[900];
    if (pmi_client_init(&job, why, sizeof why)) {
        snprintf(err, errlen, "bootstrap: %s", why);
        return -1;
    }
    b->name = "pmi";
    b->rank = job.rank;
    b->size = job.size;
    if (find_locals(b, err, errlen)) {
        pmi_fini();
        return -1;
    }
    b->allgather = pmi_allgather;
    b->barrier = pmi_barrier;
    b->abort = pmi_abort;
    b->fini = pmi_fini;
    return 0;
}

static const char *pmi_detect(void)
{
    static const char *const vars[] = {"PMI_FD", "PMI_PORT", "PMI_RANK", "PMI_SIZE", "PMI_ID"};
    static char why[32];
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        if (getenv(vars[i])) {
            snprintf(why, sizeof why, "%s is set", vars[i]);
            return why;
        }
    return NULL;
}

const struct pshm_boot_component pshm_boot_pmi = {
    .name = "pmi",
    .launcher = "a PMI-1 launcher (MPICH's mpiexec, srun --mpi=pmi2, oshrun)",
    .detect = pmi_detect,
    .init = pmi_init,
};
