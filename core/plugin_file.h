/* Whether a plugin file that dlopen refused is damaged (not a shared
 * object this process could ever load: empty, not ELF, for another
 * machine, cut short) rather than short of a library or symbol that
 * another machine may have.  The registry makes the first an error. */
#ifndef PSHM_PLUGIN_FILE_H
#define PSHM_PLUGIN_FILE_H

#include <stddef.h>

/* 0 if path looks like a whole shared object for this machine; else -1
 * with what is wrong in why ("empty file", "not an ELF file", ...). */
int pshm_plugin_file_check(const char *path, char *why, size_t len);

#endif
