/* Whether a plugin file is damaged: not a shared object this process could
 * ever load (empty, not ELF, for another machine, cut short), as opposed
 * to one short of a library or symbol that another machine may have.
 * The registry checks before dlopen and makes damage an error. */
#ifndef PSHM_PLUGIN_FILE_H
#define PSHM_PLUGIN_FILE_H

#include <stddef.h>

/* 0 if path looks like a whole shared object for this machine; else -1
 * with what is wrong in why ("empty file", "not an ELF file", ...). */
int pshm_plugin_file_check(const char *path, char *why, size_t len);

#endif
