#!/bin/sh
# rank_env.sh RANK NAME=VALUE PROGRAM [ARGS...]: runs PROGRAM with NAME=VALUE
# added to its environment on PE RANK only (PMIX_RANK, set by oshrun), so
# that run_bad.sh can give PEs inconsistent settings.
rank=$1 kv=$2
shift 2
if [ "${PMIX_RANK:-}" = "$rank" ]; then
    export "$kv"
fi
exec "$@"
