/* Forced into every test program built as a family of a suite driver
 * (-include suite_entry.h -DSUITE_ENTRY=suite_NAME): its main becomes an
 * ordinary function with C linkage that the driver calls. */
#ifndef SUITE_ENTRY_H
#define SUITE_ENTRY_H
#ifdef __cplusplus
extern "C" int SUITE_ENTRY(int argc, char **argv);
#define main(...) SUITE_ENTRY(int, char **)
#else
int SUITE_ENTRY();
#define main SUITE_ENTRY
#endif
#endif
