# The files each package must hold, the same for the Debian packages
# (run.sh) and the RPMs (rpm.sh), which split alike.  Sourced; needs L (the
# library folder), LIBEXEC and root (the source tree).
#   package_files core|devel|compare|transport-NAME
package_files() {
    local sdk=/usr/share/plugshmem/sdk cmp=/usr/share/plugshmem/compare
    case $1 in
    core) echo /usr/bin/oshrun /usr/bin/shmem_info "$L/libplugshmem.so.0" \
        "$L/libplugshmem.so.0.1.0" "$L/plugshmem/transport-shm.so" ;;
    devel) echo /usr/bin/oshcc /usr/bin/oshc++ /usr/include/shmem.h \
        /usr/include/pshmem.h /usr/include/shmemx.h /usr/include/plugshmem/transport.h \
        "$L/libplugshmem.so" "$L/pkgconfig/plugshmem.pc" \
        /usr/bin/plugshmem-transport-check "$LIBEXEC/plugshmem/suite_api" \
        $sdk/writing-a-transport.md $sdk/examples/transport-loopback/loopback.c \
        $sdk/examples/transport-loopback/loopback.cpp $sdk/common/progress_thread.c \
        $sdk/common/progress_thread.h $sdk/common/lock.h $sdk/common/cpu_relax.h \
        $sdk/common/backoff.h ;;
    compare) echo /usr/bin/shmem_compare "$LIBEXEC/plugshmem/compare_bench" \
        "$cmp/compare_bench.c" \
        $(awk '/^compare_modules = \[/, /\]/' "$root/tools/compare/meson.build" |
            grep -o "[a-z_]*\.py" | sed "s|^|$cmp/|") ;;
    transport-mpi) echo "$L/plugshmem/transport-mpi.so"
        # The MPI collectives component comes with the mpi transport where
        # the tree builds it.
        [ -f "$root/collectives/mpi/meson.build" ] && echo "$L/plugshmem/coll-mpi.so" ;;
    transport-*) echo "$L/plugshmem/$1.so" ;;
    esac
}
