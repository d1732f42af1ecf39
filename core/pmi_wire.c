/* PMI-1 lines: reading them off a stream, writing them, reading a word. */
#include "pmi_wire.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

ssize_t pmi_wire_fill(struct pmi_wire *w)
{
    ssize_t n;
    if (w->len >= sizeof w->buf) {
        errno = EMSGSIZE;
        return -1;
    }
    do {
        n = read(w->fd, w->buf + w->len, sizeof w->buf - w->len);
    } while (n < 0 && errno == EINTR);
    if (n > 0)
        w->len += (size_t)n;
    return n;
}

int pmi_wire_take(struct pmi_wire *w, char *line, size_t cap)
{
    char *nl = memchr(w->buf, '\n', w->len);
    if (!nl)
        return w->len >= PMI_WIRE_LINE ? -1 : 0;
    size_t n = (size_t)(nl - w->buf);
    if (n >= cap)
        return -1;
    memcpy(line, w->buf, n);
    line[n] = '\0';
    w->len -= n + 1;
    memmove(w->buf, nl + 1, w->len);
    return 1;
}

int pmi_wire_send(int fd, const char *s, size_t len)
{
    while (len > 0) {
        /* A launcher that went away must give an error here, not a
         * SIGPIPE that kills the process without a word. */
        ssize_t n = send(fd, s, len, MSG_NOSIGNAL);
        if (n < 0 && errno == ENOTSOCK)
            n = write(fd, s, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        s += n;
        len -= (size_t)n;
    }
    return 0;
}

int pmi_wire_get(const char *line, const char *key, char *out, size_t cap)
{
    size_t klen = strlen(key);
    for (const char *p = line; *p;) {
        while (*p == ' ')
            p++;
        const char *end = strchr(p, ' ');
        if (!end)
            end = p + strlen(p);
        if ((size_t)(end - p) > klen && strncmp(p, key, klen) == 0 && p[klen] == '=') {
            size_t vlen = (size_t)(end - p) - klen - 1;
            if (vlen >= cap)
                return -1;
            memcpy(out, p + klen + 1, vlen);
            out[vlen] = '\0';
            return 0;
        }
        p = end;
    }
    return -1;
}
