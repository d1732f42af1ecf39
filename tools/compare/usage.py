"""shmem_compare's command line: options and the manual page (--help)."""

import argparse

MANUAL = """\
NAME
    shmem_compare - compare PlugSHMEM's transports on the standard benchmarks

SYNOPSIS
    shmem_compare [-n N[,N...]] [--transports LIST] [--configs PATTERNS]
                  [--variants LIST] [--repeat R] [--quick] [--budget-ms MS]
                  [--timeout S] [--out DIR] [--plot FILE.svg|FILE.png]
                  [--impl NAME=OSHCC,LAUNCHER]... [--list] [-q]
    shmem_compare -h | --help | -V | --version

DESCRIPTION
    shmem_compare finds the transport plugins of this installation and, for
    each, the configurations worth comparing: every libfabric provider the
    ofi plugin accepts (the providers fi_info lists with RDM endpoints, RMA
    and atomics, each checked by the plugin's own query), every UCX
    transport set the ucx plugin accepts (tcp, sm, rc, dc, ud), mpi, and
    shm; each with the on-node bypass off, so that every operation crosses
    the transport (shm: on and off), and with -n 4 or more also over two
    emulated nodes (SHMEM_EMULATE_NODES=2: load/store within a node, the
    transport between them).

    It runs one job per configuration, PE count and repeat, all with the
    same program (oshrun -n N compare_bench): put + quiet and get latency by message
    size (8 B to 1 MiB), fetch-add and compare-swap latency, 8-byte put_nbi
    message rate, put_nbi bandwidth by size, and the latency of barrier_all,
    broadcast, sum reduction and alltoall (8 B to 32 KiB; the slowest PE's
    time).  A job is two launches, the point-to-point half and then the
    collectives, so that every PE starts the collectives fresh (PEs that
    slept through the point-to-point half made the collectives at 16
    PEs look many times slower than they are).  Every measurement runs for a time
    budget (--budget-ms), not a count, so slow configurations finish in
    predictable time.  Repeats are interleaved (every configuration and PE
    count once, then again), so that a change in the machine's load falls
    on all of them alike.

    The table on standard output has one row per benchmark and size and one
    column per configuration: the median of the repeats, +-half their range
    in percent of the median, and the best cell of each row in bold.
    Configurations that failed, with the reason, and those left out, with
    why, are listed under it.  Progress (configuration, benchmark, jobs
    done, time left) goes to standard error.

    A configuration that fails to start, crashes, returns wrong data or
    outruns its time limit is reported with the reason, and the others go
    on; it is not repeated.  Ctrl-C (or SIGTERM) ends the running job
    cleanly and writes what was measured so far.

OPTIONS
    -n N[,N...], --np N[,N...]
        PEs per job (2 or more; default 2).  PE 0 and PE 1 run the
        point-to-point benchmarks, every PE the collectives.  A list
        (e.g. 2,4,8) runs every configuration at each count: the table
        gets a PEs column, the CSV files and results.json give each
        sample's and each median's PE count, and the plot adds the
        collectives' time against PEs.  The configurations are those found
        for the largest count (two emulated nodes from 4 PEs), and each
        runs at every count.
    --transports LIST
        Comma-separated plugins to compare (default: every one installed),
        e.g. ofi,ucx.
    --configs PATTERNS
        Comma-separated names or shell patterns of configurations to run,
        e.g. 'shm,ofi-tcp*' (see --list for the names).
    --variants LIST
        Which of on (bypass on, one node), off (bypass off), 2nodes (two
        emulated nodes) to run for every transport; default: shm on and
        off, the others off and, with -n 4 or more, 2nodes.
    --repeat R
        Jobs per configuration (default 3; 2 with --quick).
    --quick
        A pass of about a minute: fewer sizes (8 B, 512 B, 32 KiB, 1 MiB;
        collectives 8 B and 32 KiB), 20 ms per measurement, 2 repeats.
    --budget-ms MS
        Time per measurement (default 100, 20 with --quick).
    --timeout S
        Time limit of one job in seconds (default: 120 plus four times
        the expected run time).  A job past it is ended and reported.
    --out DIR
        Write DIR/samples.csv (every sample of every job), DIR/summary.csv
        (median, min, max per benchmark and configuration) and
        DIR/results.json (all of it, with the configurations' settings,
        failures, the transports' own description of what they chose, and
        the machine's, library's and providers' versions).  They are
        rewritten after every job, so an interrupted run keeps its results.
    --plot FILE
        Draw latency against message size (log-log, one line per
        configuration) and bar charts of the atomics, message rate and
        collectives; whiskers span the repeats.  FILE.svg needs nothing;
        FILE.png is converted from the SVG with rsvg-convert (Debian:
        librsvg2-bin) or ImageMagick's convert; without either, the
        table and files are still written and shmem_compare says what to
        install.
    --impl NAME=OSHCC,LAUNCHER
        Another OpenSHMEM implementation as one more column, named NAME:
        the installed compare_bench.c is compiled with its compiler wrapper
        OSHCC (OpenSHMEM 1.4 or later; before 1.5 the collectives use the
        active-set forms) and each job runs as LAUNCHER -n N PROGRAM.
        LAUNCHER is split like a shell command line, so it may carry
        options.  Repeatable.  One that fails to build or to start is
        reported with its reason, and the rest go on.  For Open MPI's
        OSHMEM (Debian openmpi-bin), whose wrapper is opal_wrapper called
        as oshcc:
            ln -s /usr/bin/opal_wrapper /tmp/oshcc
            shmem_compare --impl "ompi=/tmp/oshcc,mpirun.openmpi --oversubscribe --mca osc ^rdma"
    --list
        Print the configurations that would run, with their settings, and
        why others were left out; run nothing.
    -q, --quiet
        No progress on standard error.
    -h, --help
        Print this manual.
    -V, --version
        Print the version.

ENVIRONMENT
    The jobs inherit the environment, so e.g. SHMEM_SYMMETRIC_SIZE or
    FI_LOG_LEVEL apply to every configuration; each configuration then
    sets SHMEM_TRANSPORT, SHMEM_BYPASS, SHMEM_EMULATE_NODES and its
    provider (SHMEM_OFI_PROVIDER) or transport set (SHMEM_UCX_TLS).

EXIT STATUS
    0 when every configuration ran, 1 when one or more failed (the
    results of the others are still reported), 2 for a usage error or when
    nothing could run, 130 when interrupted.

EXAMPLES
    shmem_compare -n 2
    shmem_compare -n 4 --transports ofi,ucx --out results/ --plot results/latency.svg
    shmem_compare --quick --configs shm,ofi-tcp-rxm
    shmem_compare -n 2,4,8 --quick --out scaling/ --plot scaling/plot.svg
    shmem_compare --list
"""


class Parser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, f"shmem_compare: {message}; see 'shmem_compare --help'\n")


def parse(argv):
    p = Parser(prog="shmem_compare", add_help=False)
    p.add_argument("-n", "--np", "-np", default="2")
    p.add_argument("--transports", default="")
    p.add_argument("--configs", default="")
    p.add_argument("--variants", default="")
    p.add_argument("--repeat", type=int)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--budget-ms", type=float)
    p.add_argument("--timeout", type=float)
    p.add_argument("--out")
    p.add_argument("--plot")
    p.add_argument("--list", action="store_true")
    p.add_argument("--impl", action="append", default=[])
    p.add_argument("-q", "--quiet", action="store_true")
    p.add_argument("-h", "--help", action="store_true")
    p.add_argument("-V", "--version", action="store_true")
    a = p.parse_args(argv)
    if a.help or a.version:
        return a
    try:
        a.nps = sorted({int(x) for x in a.np.split(",")})
    except ValueError:
        p.error(f"-n '{a.np}': use a PE count or a comma-separated list of them, e.g. 2,4,8")
    bad = [n for n in a.nps if n < 2 or n > 4096]
    if bad:
        p.error(f"-n {bad[0]}: the benchmarks need 2 to 4096 PEs")
    a.np = a.nps[-1]      # the configurations are those of the largest count
    if a.repeat is not None and not 1 <= a.repeat <= 1000:
        p.error(f"--repeat {a.repeat}: use 1 to 1000")
    if a.budget_ms is not None and not 1 <= a.budget_ms <= 60000:
        p.error(f"--budget-ms {a.budget_ms:g}: use 1 to 60000")
    if a.timeout is not None and a.timeout <= 0:
        p.error(f"--timeout {a.timeout:g}: use a positive number of seconds")
    if a.plot and not a.plot.lower().endswith((".svg", ".png")):
        p.error(f"--plot '{a.plot}': the file name must end in .svg or .png")
    a.repeat = a.repeat or (2 if a.quick else 3)
    a.budget_ms = a.budget_ms or (20 if a.quick else 100)
    a.variants = [v for v in a.variants.split(",") if v]
    bad = [v for v in a.variants if v not in ("on", "off", "2nodes")]
    if bad:
        p.error(f"--variants '{bad[0]}': use on, off or 2nodes")
    a.transports = [t for t in a.transports.split(",") if t]
    a.configs = [c for c in a.configs.split(",") if c]
    return a
