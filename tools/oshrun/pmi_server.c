/* oshrun: the PMI-1 server beside the PMIx one, so that a library that
 * speaks PMI (MPICH's MPI_Init; PlugSHMEM with SHMEM_BOOTSTRAP=pmi) finds
 * the same job, with the same ranks, as PMIx clients do. Each PE gets one
 * end of a socket pair as PMI_FD; the main loop polls the other ends and
 * answers here, one line at a time, without threads. */
#include "oshrun.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pmi_wire.h"

/* Limits announced to clients (hydra's, which MPICH is used to). */
#define KVSNAME_MAX 256
#define KEYLEN_MAX 64
#define VALLEN_MAX 1024

struct conn {
    struct pmi_wire w;      /* w.fd < 0: closed (or never opened) */
    bool in_barrier;
};

static struct conn *conns;
static int *poll_rank;          /* rank of each fd pmi_server_pollfds() gave */
static struct kvs *kvs;
static int nbarrier;            /* PEs waiting in the current barrier */

int pmi_server_init(struct job *job)
{
    char map[64];

    conns = calloc((size_t)job->npes, sizeof *conns);
    poll_rank = calloc((size_t)job->npes, sizeof *poll_rank);
    kvs = kvs_new();
    if (conns == NULL || poll_rank == NULL || kvs == NULL) {
        fprintf(stderr, "oshrun: out of memory\n");
        return -1;
    }
    for (int i = 0; i < job->npes; i++)
        conns[i].w.fd = -1;
    /* MPICH reads the node layout from here: one node, every rank on it. */
    snprintf(map, sizeof map, "(vector,(0,1,%d))", job->npes);
    if (kvs_put(kvs, "PMI_process_mapping", map) != 0) {
        fprintf(stderr, "oshrun: out of memory\n");
        return -1;
    }
    return 0;
}

int pmi_server_setup_fork(struct job *job, int rank, char ***env, int *child_fd)
{
    int sv[2];
    char num[32];

    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        fprintf(stderr, "oshrun: cannot set up PE %d for PMI: socketpair: %s\n",
                rank, strerror(errno));
        return -1;
    }
    /* A client that stops reading must not stall the main loop. */
    fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
    conns[rank].w.fd = sv[0];
    conns[rank].w.len = 0;
    *child_fd = sv[1];
    snprintf(num, sizeof num, "%d", sv[1]);
    if (env_set(env, "PMI_FD", num) != 0)
        goto oom;
    snprintf(num, sizeof num, "%d", rank);
    if (env_set(env, "PMI_RANK", num) != 0 ||
        env_set(env, "MPI_LOCALRANKID", num) != 0)
        goto oom;
    snprintf(num, sizeof num, "%d", job->npes);
    if (env_set(env, "PMI_SIZE", num) != 0 ||
        env_set(env, "MPI_LOCALNRANKS", num) != 0)
        goto oom;
    return 0;
oom:
    fprintf(stderr, "oshrun: out of memory\n");
    return -1;
}

static void conn_close(struct conn *c)
{
    if (c->w.fd >= 0)
        close(c->w.fd);
    c->w.fd = -1;
    c->w.len = 0;
    if (c->in_barrier)
        nbarrier--;
    c->in_barrier = false;
}

int pmi_server_pollfds(const struct job *job, struct pollfd *p)
{
    int n = 0;

    for (int i = 0; i < job->npes; i++) {
        if (conns != NULL && conns[i].w.fd >= 0) {
            poll_rank[n] = i;
            p[n++] = (struct pollfd){ .fd = conns[i].w.fd, .events = POLLIN };
        }
    }
    return n;
}

/* A reply that cannot be written at once means a client that does not
 * read its replies: it loses its connection. */
static void send_line(struct conn *c, const char *line)
{
    char buf[PMI_WIRE_LINE + 2];
    int n = snprintf(buf, sizeof buf, "%s\n", line);

    if (c->w.fd >= 0 && pmi_wire_send(c->w.fd, buf, (size_t)n) != 0)
        conn_close(c);
}

/* Ends the job over a client that does not speak our PMI.  One line per
 * job: every PE of a program may send the same command at once, and the
 * first one already says what is wrong. */
static void refuse(struct job *job, int rank, const char *what,
                   const char *line)
{
    if (!atomic_load(&job->abort_claimed))
        fprintf(stderr, "oshrun: PE %d %s '%.200s'; oshrun serves PMI-1; ending "
                "the job\n", rank, what, line);
    job_claim_abort(job, rank, 1, "");
    conn_close(&conns[rank]);
}

static void barrier_in(struct job *job, int rank)
{
    if (conns[rank].in_barrier) {
        refuse(job, rank, "entered a barrier twice:", "cmd=barrier_in");
        return;
    }
    conns[rank].in_barrier = true;
    if (++nbarrier < job->npes)
        return;
    nbarrier = 0;
    for (int i = 0; i < job->npes; i++) {
        conns[i].in_barrier = false;
        send_line(&conns[i], "cmd=barrier_out");
    }
}

static void put(struct job *job, struct conn *c, const char *line)
{
    char kvsname[KVSNAME_MAX + 1], key[KEYLEN_MAX + 1], value[VALLEN_MAX + 1];

    if (pmi_wire_get(line, "kvsname", kvsname, sizeof kvsname) != 0 ||
        strcmp(kvsname, job->nspace) != 0)
        send_line(c, "cmd=put_result rc=-1 msg=unknown_kvsname");
    else if (pmi_wire_get(line, "key", key, sizeof key) != 0 || key[0] == '\0')
        send_line(c, "cmd=put_result rc=-1 msg=bad_key");
    else if (pmi_wire_get(line, "value", value, sizeof value) != 0)
        send_line(c, "cmd=put_result rc=-1 msg=bad_value");
    else if (kvs_put(kvs, key, value) != 0)
        send_line(c, "cmd=put_result rc=-1 msg=out_of_memory");
    else
        send_line(c, "cmd=put_result rc=0 msg=success");
}

static void get(struct job *job, struct conn *c, const char *line)
{
    char kvsname[KVSNAME_MAX + 1], key[KEYLEN_MAX + 1], out[PMI_WIRE_LINE];
    const char *v = NULL;

    if (pmi_wire_get(line, "kvsname", kvsname, sizeof kvsname) == 0 &&
        strcmp(kvsname, job->nspace) == 0 &&
        pmi_wire_get(line, "key", key, sizeof key) == 0)
        v = kvs_get(kvs, key);
    if (v != NULL)
        snprintf(out, sizeof out,
                 "cmd=get_result rc=0 msg=success value=%s", v);
    else
        snprintf(out, sizeof out, "cmd=get_result rc=-1 msg=key_not_found");
    send_line(c, out);
}

static void serve_line(struct job *job, int rank, const char *line)
{
    struct conn *c = &conns[rank];
    struct pe *pe = &job->pes[rank];
    char cmd[64], v[32], out[512];

    dbg("PMI from PE %d: %.200s", rank, line);
    if (pmi_wire_get(line, "cmd", cmd, sizeof cmd) != 0) {
        refuse(job, rank, "sent", line);
    } else if (strcmp(cmd, "init") == 0) {
        if (pmi_wire_get(line, "pmi_version", v, sizeof v) != 0 ||
            strcmp(v, "1") != 0) {
            refuse(job, rank, "asked for another PMI version:", line);
            return;
        }
        pe->pmi_connected = true;
        send_line(c, "cmd=response_to_init pmi_version=1 "
                  "pmi_subversion=1 rc=0");
    } else if (strcmp(cmd, "get_maxes") == 0) {
        snprintf(out, sizeof out, "cmd=maxes kvsname_max=%d keylen_max=%d "
                 "vallen_max=%d", KVSNAME_MAX, KEYLEN_MAX, VALLEN_MAX);
        send_line(c, out);
    } else if (strcmp(cmd, "get_appnum") == 0) {
        send_line(c, "cmd=appnum appnum=0");
    } else if (strcmp(cmd, "get_universe_size") == 0) {
        snprintf(out, sizeof out, "cmd=universe_size size=%d", job->npes);
        send_line(c, out);
    } else if (strcmp(cmd, "get_my_kvsname") == 0) {
        snprintf(out, sizeof out, "cmd=my_kvsname kvsname=%s", job->nspace);
        send_line(c, out);
    } else if (strcmp(cmd, "put") == 0) {
        put(job, c, line);
    } else if (strcmp(cmd, "get") == 0) {
        get(job, c, line);
    } else if (strcmp(cmd, "barrier_in") == 0) {
        barrier_in(job, rank);
    } else if (strcmp(cmd, "finalize") == 0) {
        /* As hydra does: the connection ends with the finalize. */
        pe->pmi_finalized = true;
        send_line(c, "cmd=finalize_ack");
        conn_close(c);
    } else if (strcmp(cmd, "abort") == 0) {
        int status = pmi_wire_get(line, "exitcode", v, sizeof v) == 0 ?
                     atoi(v) : 1;

        job_claim_abort(job, rank, status, "");
    } else {
        refuse(job, rank, "sent the PMI command", line);
    }
}

static void serve_conn(struct job *job, int rank)
{
    struct conn *c = &conns[rank];
    char line[PMI_WIRE_LINE];
    ssize_t n = pmi_wire_fill(&c->w);
    int t;

    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return;
    while (c->w.fd >= 0 && (t = pmi_wire_take(&c->w, line, sizeof line)) != 0) {
        if (t < 0) {
            c->w.buf[sizeof c->w.buf - 1] = '\0';
            refuse(job, rank, "sent a line longer than 2048 bytes:", c->w.buf);
            return;
        }
        serve_line(job, rank, line);
    }
    /* End of stream (the PE is exiting) or a broken connection: the exit
     * itself is judged by the main loop. */
    if (n <= 0 && c->w.fd >= 0)
        conn_close(c);
}

void pmi_server_serve(struct job *job, const struct pollfd *p, int n)
{
    for (int i = 0; i < n; i++)
        if (p[i].revents != 0 && conns[poll_rank[i]].w.fd == p[i].fd)
            serve_conn(job, poll_rank[i]);
}
