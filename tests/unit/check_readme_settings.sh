#!/bin/bash
# The README's settings table is what `shmem_info --markdown` prints: every
# row of every component this build has (a component not built, e.g. the ofi
# transport without libfabric, keeps its rows unchecked).
#   check_readme_settings.sh SHMEM_INFO README
set -uo pipefail
info=$1 readme=$2
for v in $(env | sed -n 's/^\(SHMEM_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
# A cross build runs it through meson's exe wrapper (qemu-user).
gen=$(${MESON_EXE_WRAPPER:-} "$info" --markdown) || { echo "FAIL shmem_info --markdown"; exit 1; }
doc=$(sed -n '/^<!-- settings:/,/^<!-- end of settings -->/p' "$readme" | grep '^| `')
fail=0
while IFS= read -r row; do
  grep -qxF -- "$row" <<<"$doc" || { echo "FAIL not in the README: $row"; fail=1; }
done <<<"$gen"
components=$(awk -F' [|] ' '{print $2}' <<<"$gen" | sort -u)
while IFS= read -r row; do
  c=$(awk -F' [|] ' '{print $2}' <<<"$row")
  grep -qxF -- "$c" <<<"$components" || continue
  grep -qxF -- "$row" <<<"$gen" || { echo "FAIL in the README but not in $c's table: $row"; fail=1; }
done <<<"$doc"
[ $fail = 0 ] && echo "ok   README settings match shmem_info --markdown ($(wc -l <<<"$gen") rows)"
exit $fail
