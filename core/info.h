#ifndef PSHM_INFO_H
#define PSHM_INFO_H
#include <stdio.h>
void pshmemx_info_print(FILE *out);
#endif
