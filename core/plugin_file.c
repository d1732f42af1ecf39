/* The ELF header check of a plugin file, before dlopen: dlerror()'s text
 * differs between C libraries, and a file cut short inside a segment
 * kills the process in dlopen (SIGBUS) instead of failing it. */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plugin_file.h"

/* The core library's own header, as loaded: the machine plugins must match. */
static const ElfW(Ehdr) *own_header(void)
{
    Dl_info info;
    if (!dladdr((void *)own_header, &info) || !info.dli_fbase)
        return NULL;
    return info.dli_fbase;
}

static int fits(unsigned long long off, unsigned long long n, unsigned long long each,
                unsigned long long size)
{
    return off <= size && n * each <= size - off;
}

/* Program headers, loaded segments and section headers all lie inside the
 * file: a copy cut short fails here. */
static int check_extent(int fd, const ElfW(Ehdr) *h, off_t size, char *why, size_t len)
{
    unsigned long long sz = (unsigned long long)size;
    if (h->e_phentsize != sizeof(ElfW(Phdr)) || !fits(h->e_phoff, h->e_phnum, h->e_phentsize, sz) ||
        (h->e_shoff && !fits(h->e_shoff, h->e_shnum, h->e_shentsize, sz))) {
        snprintf(why, len, "cut short (%lld bytes): its headers lie past the end",
                 (long long)size);
        return -1;
    }
    for (unsigned i = 0; i < h->e_phnum; i++) {
        ElfW(Phdr) ph;
        if (pread(fd, &ph, sizeof ph, (off_t)(h->e_phoff + i * sizeof ph)) != (ssize_t)sizeof ph)
            break;
        if (ph.p_type == PT_LOAD && !fits(ph.p_offset, 1, ph.p_filesz, sz)) {
            snprintf(why, len, "cut short (%lld bytes): a segment ends at byte %llu",
                     (long long)size, (unsigned long long)(ph.p_offset + ph.p_filesz));
            return -1;
        }
    }
    return 0;
}

int pshm_plugin_file_check(const char *path, char *why, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0; /* unreadable is not damage: dlopen's reason says it */
    struct stat st;
    ElfW(Ehdr) h;
    ssize_t got;
    int rc = -1;
    const ElfW(Ehdr) *own = own_header();
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        rc = 0;
    } else if (st.st_size == 0) {
        snprintf(why, len, "empty file");
    } else if ((got = pread(fd, &h, sizeof h, 0)) < SELFMAG ||
               memcmp(h.e_ident, ELFMAG, SELFMAG) != 0) {
        snprintf(why, len, "not an ELF file");
    } else if (got < (ssize_t)sizeof h) {
        snprintf(why, len, "cut short (%zd bytes): not even a whole ELF header", got);
    } else if (own && (h.e_ident[EI_CLASS] != own->e_ident[EI_CLASS] ||
                       h.e_ident[EI_DATA] != own->e_ident[EI_DATA] ||
                       h.e_machine != own->e_machine)) {
        snprintf(why, len, "an ELF file for another machine (class %u, data %u, machine %u; "
                 "this library: %u, %u, %u)",
                 h.e_ident[EI_CLASS], h.e_ident[EI_DATA], h.e_machine, own->e_ident[EI_CLASS],
                 own->e_ident[EI_DATA], own->e_machine);
    } else if (h.e_type != ET_DYN) {
        snprintf(why, len, "not a shared object (ELF type %u)", h.e_type);
    } else {
        rc = check_extent(fd, &h, st.st_size, why, len);
    }
    close(fd);
    return rc;
}
