/* The PMI-1 client connection: finding the launcher, the init handshake,
 * and one request/reply at a time (replies carry no request id, so
 * requests are never pipelined). */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "pmi_client.h"
#include "pmi_wire.h"

#define INIT_TIMEOUT_MS 20000 /* a launcher answers init at once; silence means no PMI server */
#define ABORT_WAIT_MS 10000   /* how long the launcher gets to end us after an abort */
#define FINALIZE_WAIT_MS 5000

static struct pmi_wire conn = {.fd = -1};
static struct pmi_job job;
static char kvsname[260];
static pid_t owner;     /* forked children must not finalize the parent's connection */
static char where[160]; /* the launcher and the variable naming its connection */

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits for input until deadline (-1: forever): 0 ready, -1 timed out. */
static int wait_input(long deadline)
{
    for (;;) {
        int left = -1;
        if (deadline >= 0) {
            long l = deadline - now_ms();
            if (l <= 0)
                return -1;
            left = (int)l;
        }
        struct pollfd p = {.fd = conn.fd, .events = POLLIN};
        int n = poll(&p, 1, left);
        if (n > 0)
            return 0;
        if (n == 0)
            return -1;
        if (errno != EINTR)
            return 0; /* let read() report it */
    }
}

/* Reads the reply to req, which must be cmd=want and, if it has an rc, rc=0. */
static int reply(const char *req, const char *want, char *line, size_t cap, int timeout_ms,
                 char *err, size_t errlen)
{
    long deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
    int t;
    while ((t = pmi_wire_take(&conn, line, cap)) == 0) {
        if (wait_input(deadline)) {
            snprintf(err, errlen,
                     "%s did not answer '%s' within %d s; expected cmd=%s from a PMI-1 server",
                     where, req, timeout_ms / 1000, want);
            return -1;
        }
        ssize_t n = pmi_wire_fill(&conn);
        if (n == 0) {
            snprintf(err, errlen, "%s closed the connection after '%s'; expected cmd=%s", where,
                     req, want);
            return -1;
        }
        if (n < 0) {
            snprintf(err, errlen, "cannot read the answer of %s to '%s': %s", where, req,
                     strerror(errno));
            return -1;
        }
    }
    if (t < 0) {
        snprintf(err, errlen, "%s answered '%s' with a line longer than %d bytes", where, req,
                 PMI_WIRE_LINE);
        return -1;
    }
    char cmd[64], rc[32];
    if (pmi_wire_get(line, "cmd", cmd, sizeof cmd) || strcmp(cmd, want) != 0) {
        snprintf(err, errlen, "%s answered '%.100s' to '%s'; expected cmd=%s from a PMI-1 server",
                 where, line, req, want);
        return -1;
    }
    if (pmi_wire_get(line, "rc", rc, sizeof rc) == 0 && strcmp(rc, "0") != 0) {
        snprintf(err, errlen, "%s refused '%s': %.200s", where, req, line);
        return -1;
    }
    return 0;
}

/* Sends one request (a line without its newline) and reads its reply. */
static int call(const char *want, char *line, size_t cap, int timeout_ms, char *err, size_t errlen,
                const char *fmt, ...) __attribute__((format(printf, 7, 8)));
static int call(const char *want, char *line, size_t cap, int timeout_ms, char *err, size_t errlen,
                const char *fmt, ...)
{
    char req[PMI_WIRE_LINE];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(req, sizeof req - 1, fmt, ap);
    va_end(ap);
    if (n < 0 || n >= (int)sizeof req - 1) {
        snprintf(err, errlen, "PMI request longer than %d bytes", PMI_WIRE_LINE);
        return -1;
    }
    req[n] = '\n';
    if (pmi_wire_send(conn.fd, req, (size_t)n + 1)) {
        snprintf(err, errlen, "cannot send '%.*s' to %s: %s", n < 60 ? n : 60, req, where,
                 strerror(errno));
        return -1;
    }
    req[n < 60 ? n : 60] = '\0'; /* messages quote the start of a request */
    return reply(req, want, line, cap, timeout_ms, err, errlen);
}

static const char *launcher(void)
{
    /* oshrun serves PMI beside PMIx; anyone else is most likely hydra. */
    const char *l = getenv("PLUGSHMEM_LAUNCHER");
    return l && strcmp(l, "oshrun") == 0 ? "oshrun's PMI server" : "the PMI launcher";
}

#define EXPECTED "the connection to the PMI launcher (MPICH's mpiexec, srun --mpi=pmi2, oshrun)"

static int env_int(const char *name, int lo, int *out, char *err, size_t errlen)
{
    const char *s = getenv(name);
    char *end;
    long v = s ? strtol(s, &end, 10) : 0;
    if (!s || !*s || *end || v < lo || v > 1 << 30) {
        snprintf(err, errlen, "%s=%s beside %s; expected an integer >= %d from the launcher", name,
                 s ? s : "(unset)", where, lo);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int open_fd(const char *s, char *err, size_t errlen)
{
    char *end;
    long fd = strtol(s, &end, 10);
    struct stat st;
    snprintf(where, sizeof where, "%s on PMI_FD=%s", launcher(), s);
    if (!*s || *end || fd < 0 || fd > 1 << 20) {
        snprintf(err, errlen, "PMI_FD=%s is not a descriptor number; expected %s", s, EXPECTED);
        return -1;
    }
    if (fstat((int)fd, &st) != 0) {
        snprintf(err, errlen, "PMI_FD=%s is not an open descriptor; expected %s", s, EXPECTED);
        return -1;
    }
    if (!S_ISSOCK(st.st_mode)) {
        snprintf(err, errlen, "PMI_FD=%s is not a socket; expected %s", s, EXPECTED);
        return -1;
    }
    /* Our own descriptor: an MPICH in this process closes PMI_FD in
     * MPI_Finalize, and the number could then name something else. */
    conn.fd = fcntl((int)fd, F_DUPFD_CLOEXEC, 3);
    if (conn.fd < 0) {
        snprintf(err, errlen, "cannot duplicate PMI_FD=%s: %s", s, strerror(errno));
        return -1;
    }
    if (env_int("PMI_RANK", 0, &job.rank, err, errlen) ||
        env_int("PMI_SIZE", 1, &job.size, err, errlen))
        return -1;
    return 0;
}

static int connect_to(const char *hostport, char *err, size_t errlen)
{
    char host[256];
    const char *colon = strrchr(hostport, ':');
    if (!colon || colon == hostport || (size_t)(colon - hostport) >= sizeof host || !colon[1]) {
        snprintf(err, errlen, "PMI_PORT=%s is not HOST:PORT; expected %s", hostport, EXPECTED);
        return -1;
    }
    memcpy(host, hostport, (size_t)(colon - hostport));
    host[colon - hostport] = '\0';
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
    int rc = getaddrinfo(host, colon + 1, &hints, &ai);
    if (rc) {
        snprintf(err, errlen, "cannot resolve the host of PMI_PORT=%s: %s; expected %s", hostport,
                 gai_strerror(rc), EXPECTED);
        return -1;
    }
    int e = 0;
    for (struct addrinfo *a = ai; a && conn.fd < 0; a = a->ai_next) {
        int fd =
            socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
        if (fd < 0) {
            e = errno;
            continue;
        }
        /* Non-blocking, so that an unreachable host fails in seconds. */
        int c = connect(fd, a->ai_addr, a->ai_addrlen);
        if (c != 0 && errno == EINPROGRESS) {
            struct pollfd p = {.fd = fd, .events = POLLOUT};
            socklen_t len = sizeof e;
            e = 0;
            if (poll(&p, 1, INIT_TIMEOUT_MS) != 1)
                e = ETIMEDOUT;
            else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) != 0)
                e = errno;
            c = e ? -1 : 0;
        } else if (c != 0) {
            e = errno;
        }
        if (c == 0) {
            fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
            conn.fd = fd;
        } else {
            close(fd);
        }
    }
    freeaddrinfo(ai);
    if (conn.fd < 0) {
        snprintf(err, errlen, "cannot connect to PMI_PORT=%s: %s; expected %s", hostport,
                 strerror(e), EXPECTED);
        return -1;
    }
    return 0;
}

/* PMI_PORT: connect, then "initack" gives the size and the rank (and a
 * debug flag), each in a "set" line. */
static int open_port(const char *port, char *err, size_t errlen)
{
    char line[PMI_WIRE_LINE], v[32];
    int id, got = 0;
    snprintf(where, sizeof where, "%s at PMI_PORT=%s", launcher(), port);
    if (env_int("PMI_ID", 0, &id, err, errlen) || connect_to(port, err, errlen))
        return -1;
    if (call("initack", line, sizeof line, INIT_TIMEOUT_MS, err, errlen, "cmd=initack pmiid=%d",
             id))
        return -1;
    while (got != 7) {
        if (reply("cmd=initack", "set", line, sizeof line, INIT_TIMEOUT_MS, err, errlen))
            return -1;
        if (pmi_wire_get(line, "size", v, sizeof v) == 0)
            job.size = atoi(v), got |= 1;
        else if (pmi_wire_get(line, "rank", v, sizeof v) == 0)
            job.rank = atoi(v), got |= 2;
        else if (pmi_wire_get(line, "debug", v, sizeof v) == 0)
            got |= 4;
    }
    return 0;
}

static void at_exit_finalize(int status, void *arg)
{
    char line[PMI_WIRE_LINE], err[256];
    (void)arg;
    if (conn.fd < 0 || getpid() != owner)
        return;
    /* Hydra waits for the rest of the job after a process finalized,
     * whatever its exit status: a PE that fails must end the job itself,
     * or the others wait for it in their next barrier forever. */
    if (status != 0)
        pmi_client_abort(status);
    /* A launcher treats a process that exits unfinalized as failed; errors
     * are moot here (an MPICH in this process may have finalized the
     * connection already). */
    call("finalize_ack", line, sizeof line, FINALIZE_WAIT_MS, err, sizeof err, "cmd=finalize");
    close(conn.fd);
    conn.fd = -1;
}

int pmi_client_init(struct pmi_job *out, char *err, size_t errlen)
{
    char line[PMI_WIRE_LINE], v[300];
    if (conn.fd >= 0) {
        *out = job;
        return 0;
    }
    const char *fd = getenv("PMI_FD"), *port = getenv("PMI_PORT");
    if (!fd && !port) {
        snprintf(err, errlen,
                 "PMI_RANK or PMI_SIZE is set, as by a PMI launcher, but neither "
                 "PMI_FD nor PMI_PORT; expected one of them to name %s",
                 EXPECTED);
        return -1;
    }
    if (fd ? open_fd(fd, err, errlen) : open_port(port, err, errlen))
        goto fail;
    if (job.rank < 0 || job.rank >= job.size) {
        snprintf(err, errlen, "%s: rank %d is outside a job of %d processes", where, job.rank,
                 job.size);
        goto fail;
    }
    if (call("response_to_init", line, sizeof line, INIT_TIMEOUT_MS, err, errlen,
             "cmd=init pmi_version=1 pmi_subversion=1") ||
        call("maxes", line, sizeof line, INIT_TIMEOUT_MS, err, errlen, "cmd=get_maxes"))
        goto fail;
    job.keylen_max = pmi_wire_get(line, "keylen_max", v, sizeof v) ? 0 : atoi(v);
    job.vallen_max = pmi_wire_get(line, "vallen_max", v, sizeof v) ? 0 : atoi(v);
    if (call("my_kvsname", line, sizeof line, INIT_TIMEOUT_MS, err, errlen, "cmd=get_my_kvsname"))
        goto fail;
    if (pmi_wire_get(line, "kvsname", kvsname, sizeof kvsname)) {
        snprintf(err, errlen, "%s answered '%.100s': expected kvsname=NAME", where, line);
        goto fail;
    }
    /* Room in a put line beside the command words, the kvsname and a key. */
    int room = PMI_WIRE_LINE - 40 - (int)strlen(kvsname) - job.keylen_max;
    if (job.vallen_max > room)
        job.vallen_max = room;
    if (job.keylen_max < 24 || job.vallen_max < 64) {
        snprintf(err, errlen,
                 "%s: keys of %d and values of %d bytes are too short; expected at "
                 "least 24 and 64",
                 where, job.keylen_max, job.vallen_max);
        goto fail;
    }
    owner = getpid();
    static int registered;
    if (!registered && on_exit(at_exit_finalize, NULL) == 0)
        registered = 1;
    *out = job;
    return 0;
fail:
    if (conn.fd >= 0)
        close(conn.fd);
    conn.fd = -1;
    conn.len = 0;
    return -1;
}

int pmi_client_put(const char *key, const char *value)
{
    char line[PMI_WIRE_LINE], err[512];
    if (call("put_result", line, sizeof line, -1, err, sizeof err,
             "cmd=put kvsname=%s key=%s value=%s", kvsname, key, value)) {
        pshm_error("bootstrap: %s", err);
        return -1;
    }
    return 0;
}

int pmi_client_get(const char *key, char *value, size_t cap)
{
    char line[PMI_WIRE_LINE], err[512];
    if (call("get_result", line, sizeof line, -1, err, sizeof err, "cmd=get kvsname=%s key=%s",
             kvsname, key)) {
        pshm_error("bootstrap: %s", err);
        return -1;
    }
    if (pmi_wire_get(line, "value", value, cap)) {
        pshm_error("bootstrap: %s answered '%.100s' to a get of %s: expected value=...", where,
                   line, key);
        return -1;
    }
    return 0;
}

int pmi_client_closed(void)
{
    if (conn.fd < 0)
        return 1;
    struct pollfd p = {.fd = conn.fd, .events = POLLIN | POLLRDHUP};
    if (poll(&p, 1, 0) <= 0)
        return 0;
    if (p.revents & (POLLHUP | POLLRDHUP | POLLERR | POLLNVAL))
        return 1;
    char c;
    return recv(conn.fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

int pmi_client_barrier(void)
{
    char line[PMI_WIRE_LINE], err[512];
    if (call("barrier_out", line, sizeof line, -1, err, sizeof err, "cmd=barrier_in")) {
        /* The hang-up after the program's MPI_Finalize may reach us only
         * now, while another PE saw it before its barrier: both must take
         * the barrier without the launcher (boot_pmi.c). */
        if (pmi_client_closed())
            return 1;
        pshm_error("bootstrap: %s", err);
        return -1;
    }
    return 0;
}

void pmi_client_abort(int status)
{
    char req[64];
    int n = snprintf(req, sizeof req, "cmd=abort exitcode=%d\n", status);
    fflush(stdout);
    fflush(stderr);
    if (conn.fd >= 0 && pmi_wire_send(conn.fd, req, (size_t)n) == 0) {
        /* The launcher ends every process of the job, this one too; our
         * own exit would race the abort, and the job could end with the
         * launcher's "process failed" status instead of ours. */
        long deadline = now_ms() + ABORT_WAIT_MS;
        while (wait_input(deadline) == 0) {
            conn.len = 0;
            if (pmi_wire_fill(&conn) <= 0)
                break;
        }
    }
    _exit(status);
}
