#!/bin/sh
# announce.sh PROGRAM [ARGS...]: prints the line bad_common.h's announce()
# prints, then runs PROGRAM in this process, so that run_bad.sh can tell
# this job's /dev/shm objects from other jobs' for programs that do not
# announce themselves (the suite drivers).
echo "jobtag=${PLUGSHMEM_JOB_TAG:-none} rank=${PMIX_RANK:-none} pid=$$"
exec "$@"
