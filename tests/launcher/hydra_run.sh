#!/bin/sh
# hydra_run.sh ARGS...: mpiexec.hydra ARGS..., or skip (77) without it.
command -v mpiexec.hydra >/dev/null 2>&1 || { echo "no mpiexec.hydra: skipped"; exit 77; }
exec mpiexec.hydra "$@"
