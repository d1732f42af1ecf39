#!/bin/sh
# Every benchmark source that marks callgrind regions compiles as on a
# machine without valgrind's headers (HAVE_CALLGRIND undefined), with an
# undeclared function an error: what used to leave CALLGRIND_DUMP_STATS_AT
# undefined at link time.
#   check_no_valgrind.sh CC SOURCE_DIR BUILD_DIR
cc=$1 src=$2 build=$3
fail=0
for f in $(grep -l 'CALLGRIND_' "$src"/bench/*/*.c); do
  # raw_mpi_put.c needs mpi.h; its marks are the same header's.
  grep -q '<mpi.h>' "$f" && continue
  if $cc -std=c11 -D_GNU_SOURCE -Wall -Werror -Werror=implicit-function-declaration -UHAVE_CALLGRIND \
      -I"$src/bench" -I"$build/include" -I"$src/include" -fsyntax-only "$f"; then
    echo "ok   ${f#"$src"/} without valgrind's headers"
  else
    echo "FAIL ${f#"$src"/} without valgrind's headers"; fail=1
  fi
done
# The header alone, every mark used.
printf '#include "callgrind_marks.h"\nint main(void)\n{\n    CALLGRIND_ZERO_STATS;\n    CALLGRIND_START_INSTRUMENTATION;\n    CALLGRIND_STOP_INSTRUMENTATION;\n    CALLGRIND_DUMP_STATS_AT("x");\n    return 0;\n}\n' |
  $cc -std=c11 -D_GNU_SOURCE -Wall -Werror -Werror=implicit-function-declaration -UHAVE_CALLGRIND \
    -I"$src/bench" -x c -fsyntax-only - &&
  echo "ok   callgrind_marks.h without valgrind" || { echo "FAIL callgrind_marks.h without valgrind"; fail=1; }
exit $fail
