/* Error reporting: every message is one line on stderr, prefixed with the
 * library name and, once known, the PE. */
#ifndef PSHM_ERROR_H
#define PSHM_ERROR_H

#include <stdarg.h>

#define PSHM_PRINTF(a, b) __attribute__((format(printf, a, b)))

void pshm_error(const char *fmt, ...) PSHM_PRINTF(1, 2);
void pshm_verror(const char *fmt, va_list ap);
/* Reports and ends the whole job with status 1. */
void pshm_fatal(const char *fmt, ...) PSHM_PRINTF(1, 2) __attribute__((noreturn));
void pshm_vfatal(const char *fmt, va_list ap) __attribute__((noreturn));
/* Set by init once the rank is known; -1 before. */
void pshm_error_set_pe(int pe);

#endif
