/*
 * The PMI-1 wire format, shared by the core's PMI client (boot_pmi.c) and
 * oshrun's PMI server: newline-terminated lines of space-separated
 * key=value words, "cmd=NAME" first.  Values never hold spaces, so a word
 * ends at the next space.
 */
#ifndef PSHM_PMI_WIRE_H
#define PSHM_PMI_WIRE_H

#include <stddef.h>
#include <sys/types.h>

/* Longest line either side accepts; hydra's limits (value 1024 bytes, key
 * 64, kvsname 256) fit with room to spare. */
#define PMI_WIRE_LINE 2048

/* Bytes received on one connection and not yet consumed as lines. */
struct pmi_wire {
    int fd;
    size_t len;
    char buf[2 * PMI_WIRE_LINE];
};

/* One read() into w: bytes read, 0 at end of stream, -1 with errno (EAGAIN
 * on a non-blocking socket with nothing to read). */
ssize_t pmi_wire_fill(struct pmi_wire *w);
/* Moves the next complete line (without its newline) into line: 1 if there
 * was one, 0 if not yet, -1 if a line is longer than PMI_WIRE_LINE. */
int pmi_wire_take(struct pmi_wire *w, char *line, size_t cap);
/* Writes all of s (one or more whole lines); never raises SIGPIPE.
 * 0, or -1 with errno. */
int pmi_wire_send(int fd, const char *s, size_t len);
/* Copies the value of word KEY= in line into out: 0, or -1 if the line has
 * no such word or the value does not fit. */
int pmi_wire_get(const char *line, const char *key, char *out, size_t cap);

#endif
