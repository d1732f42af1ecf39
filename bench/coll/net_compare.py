#!/usr/bin/env python3
"""Collectives over a network, beside Open MPI over the same network.

  net_compare.py [--rounds R] [--npes 2,4] [--iters N] [--no-ompi] [--nodes-npes 4]
                 [--part 1|2|both] [--no-pin] [--before BUILD]

Part 1, every PE through the transport (SHMEM_BYPASS=0), one run after the
other in each round, R rounds (median per cell):
  ucx tcp   SHMEM_TRANSPORT=ucx SHMEM_UCX_TLS=tcp
  ofi tcp   SHMEM_TRANSPORT=ofi SHMEM_OFI_PROVIDER='tcp;ofi_rxm'
  Open MPI  mpirun.openmpi --mca pml ucx --mca pml_ucx_tls any
            --mca pml_ucx_devices any --mca btl self -x UCX_TLS=self,tcp
            (its OSHMEM, coll_bench built with opal_wrapper as oshcc)
Each round also measures the floors, so that they share the rounds' load:
what the transport's library alone takes among as many processes for the
messages our algorithm sends, in the same rounds and sizes
(bench/ucx/raw_ucx_coll, bench/ofi/raw_ofi_coll: log2 n rounds of
exchanges, one at 2 PEs; the fcollect's rounds doubling), for the
barrier, the reductions, the fcollects and the broadcast (a binomial
tree, calls back to back) at a power of two PEs.  Each cell is also shown
against the issue's goal: half of Open MPI's time, or the floor where
that is higher (Open MPI's time where no floor is known).
Part 2, two emulated nodes (SHMEM_EMULATE_NODES=2, bypass on) over ucx tcp
and ofi tcp, each cell beside its floor: the leaders' messages (one
exchange for the barrier, reductions and fcollect, one one-way latency for
the broadcast, from the same raw benchmarks), plus the on-node phases
measured on shm with a node's PEs.  Each emulated node gets a core of
its own and its PEs share it, as on two real nodes of one core each; the
on-node phases are measured so too (--no-pin: placement left to the
scheduler, which may put both leaders on one core).
The alltoall has no leaders: each PE
sends its blocks across at once (one exchange) and closes with its node's
barrier.

The program is bench/coll/coll_bench (active-set build, as for Open MPI,
whose OSHMEM is 1.4).  Numbers are printed, never asserted on.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.environ.get("PLUGSHMEM_BUILD", os.path.join(HERE, "..", "..", "build"))
CELLS = [("barrier", 0), ("bcast", 8), ("reduce", 8), ("reduce", 4096), ("fcollect", 8),
         ("fcollect", 32768), ("alltoall", 8)]
ROW = re.compile(r"^(\w+)\s+(\d+)\s+([0-9.]+)\s*$")
OPS = "barrier,bcast,reduce,fcollect,alltoall"

OURS = {
    "ucx tcp": {"SHMEM_TRANSPORT": "ucx", "SHMEM_UCX_TLS": "tcp"},
    "ofi tcp": {"SHMEM_TRANSPORT": "ofi", "SHMEM_OFI_PROVIDER": "tcp;ofi_rxm"},
}
OMPI = ["--mca", "osc", "^rdma", "--mca", "pml", "ucx", "--mca", "pml_ucx_tls", "any",
        "--mca", "pml_ucx_devices", "any", "--mca", "btl", "self", "-x", "UCX_TLS=self,tcp"]


def parse(text):
    cells = {}
    for line in text.splitlines():
        m = ROW.match(line)
        if m:
            cells[(m.group(1), int(m.group(2)))] = float(m.group(3))
    return cells


def run(cmd, env=None, tries=1):
    for _ in range(tries):
        try:
            r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, timeout=600)
        except subprocess.TimeoutExpired:
            continue
        cells = parse(r.stdout)
        if r.returncode == 0 and cells:
            return cells
    print(f"# failed: {' '.join(cmd)}", file=sys.stderr)
    return {}


# Runs the command on the CPU given for its PE (PMIX_RANK) in PIN_CPUS.
PIN = ('i=0; for c in $PIN_CPUS; do [ "$i" = "$PMIX_RANK" ] && exec taskset -c "$c" "$0" "$@"; '
       'i=$((i + 1)); done; echo "no CPU for PE $PMIX_RANK in PIN_CPUS" >&2; exit 1')


def ours(npes, extra, iters, cpus=None, build=BUILD):
    """coll_bench's cells; cpus: the CPU of each PE, or None to leave
    placement to the scheduler."""
    env = dict(os.environ, COLL_BENCH_OPS=OPS, **extra)
    pin = []
    if cpus:
        env["PIN_CPUS"] = " ".join(str(c) for c in cpus)
        pin = ["sh", "-c", PIN]
    return run([os.path.join(build, "tools", "oshrun"), "-n", str(npes)] + pin +
               [os.path.join(build, "bench", "coll", "coll_bench_as"), "32768", str(iters)], env)


def ompi(prog, npes, iters):
    env = dict(os.environ, COLL_BENCH_OPS=OPS, OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    # Open MPI fails to start now and then: retried.
    return run(["mpirun.openmpi", "--oversubscribe", "-np", str(npes)] + OMPI +
               ["-x", "COLL_BENCH_OPS", prog, "32768", str(iters)], env, tries=3)


def median(samples, cell):
    v = [s[cell] for s in samples if s.get(cell) is not None]
    return statistics.median(v) if v else None


def fmt(x):
    return "-" if x is None else f"{x:.1f}" if x >= 10 else f"{x:.2f}"


RAW = {"ucx tcp": (("ucx", "raw_ucx_msg"), {"UCX_TLS": "tcp"}),
       "ofi tcp": (("ofi", "raw_ofi_msg"), {"FI_PROVIDER": "tcp;ofi_rxm"})}


def raw_msg(name, rounds):
    """(exchange, one way) in us, medians of rounds runs of the raw benchmark."""
    tool, env = RAW[name]
    ex, ow = [], []
    for _ in range(rounds):
        out = subprocess.run([os.path.join(BUILD, "bench", tool[0], tool[1]), "20000"],
                             env=dict(os.environ, **env), stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, timeout=300).stdout
        m = re.search(r"exchange8\s+([0-9.]+)\s*us\s+pingpong8 \(one way\)\s+([0-9.]+)", out)
        if m:
            ex.append(float(m.group(1)))
            ow.append(float(m.group(2)))
    if not ex:
        return None, None
    return statistics.median(ex), statistics.median(ow)


# The raw N-process benchmarks (bench/ucx/raw_ucx_coll, bench/ofi/raw_ofi_coll):
# log2 n rounds of exchanges among n processes, what the plugins' messages
# send for a power of two members where PEs outnumber cores (one round at
# 2: the one-step form).  Their waits poll and yield as RAW_SPINS and
# RAW_YIELD_EVERY say; the floor is the best of the policies: ours where
# PEs outnumber cores (2 polls, then a yield in 4), a yield at every idle
# poll, and where each process has a core, ours there (16 384 polls, then
# a yield in 64).
RAW_COLL = {"ucx tcp": "raw_ucx_coll", "ofi tcp": "raw_ofi_coll"}
RAW_POLICIES = [{"RAW_SPINS": "2", "RAW_YIELD_EVERY": "4"},
                {"RAW_SPINS": "0", "RAW_YIELD_EVERY": "1"}]
# Only where each process has a core: polling that long where processes
# outnumber cores takes milliseconds a call.
RAW_POLICY_IDLE = {"RAW_SPINS": "16384", "RAW_YIELD_EVERY": "64"}
# The cells whose messages are those rounds: (bytes, shape) of the raw
# run.  A barrier's 1-byte messages are measured with 8; the fcollect's
# rounds carry 2^k blocks ("doubling"); the broadcast sends down a binomial
# tree, calls back to back ("bcast").
ROUNDS_CELLS = {("barrier", 0): (8, "exchange"), ("bcast", 8): (8, "bcast"),
                ("reduce", 8): (8, "exchange"),
                ("fcollect", 8): (8, "doubling"), ("reduce", 4096): (4096, "exchange"),
                ("fcollect", 32768): (32768, "doubling")}


def raw_coll(name, npes, nbytes, shape):
    """us per call of the raw rounds among npes processes: the best
    policy's time, one run each."""
    tool, env = RAW[name]
    iters = str(20000 if nbytes <= 128 else 5000 if nbytes <= 8192 else 2000)
    best = None
    idle = npes <= len(os.sched_getaffinity(0))
    for policy in RAW_POLICIES + ([RAW_POLICY_IDLE] if idle else []):
        out = subprocess.run([os.path.join(BUILD, "bench", tool[0], RAW_COLL[name]),
                              str(npes), iters, str(nbytes), shape],
                             env=dict(os.environ, **env, **policy),
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             timeout=300).stdout
        m = re.search(r"exchanges\s+([0-9.]+) us", out)
        if m and (best is None or float(m.group(1)) < best):
            best = float(m.group(1))
    return best


def floor_of(cell, raw):
    """The leaders' messages of a 2-node cell, from the raw 2-process
    times (exchange, one way)."""
    ex, ow = raw
    if ex is None:
        return None
    return ow if cell[0] == "bcast" else ex


def floors(npes):
    """One sample of every floor at npes: {(transport, cell): us}."""
    if npes & (npes - 1):
        return {}
    got = {}
    for name in OURS:
        runs = {spec: raw_coll(name, npes, *spec) for spec in set(ROUNDS_CELLS.values())}
        for cell, spec in ROUNDS_CELLS.items():
            got[(name, cell)] = runs[spec]
    return got


def goal(ompi_t, floor):
    """What the issue asks of a cell: half of Open MPI's time, or the floor
    where that is higher; Open MPI's time where no floor is known."""
    if ompi_t is None:
        return None
    return ompi_t if floor is None else max(ompi_t / 2, floor)


def part1(args, prog):
    for npes in args.npes:
        before = [f"{name} before" for name in OURS] if args.before else []
        samples = {k: [] for k in list(OURS) + (["Open MPI"] if prog else []) + before}
        floor_samples = []
        for _ in range(args.rounds):
            for name, extra in OURS.items():
                samples[name].append(ours(npes, dict(extra, SHMEM_BYPASS="0"), args.iters))
            if prog:
                samples["Open MPI"].append(ompi(prog, npes, args.iters))
            for name, extra in OURS.items() if args.before else ():
                samples[f"{name} before"].append(
                    ours(npes, dict(extra, SHMEM_BYPASS="0"), args.iters, build=args.before))
            floor_samples.append(floors(npes))
        print(f"\n{npes} PEs, bypass off, every byte over TCP: us per call, slowest PE, "
              f"median of {args.rounds} alternating rounds; floor: the raw library among "
              f"{npes} processes making the same messages, in the same rounds; goal: half "
              "of Open MPI's time, or the floor where that is higher, or Open MPI's time "
              "where no floor is known\n")
        head = "| cell | " + " | ".join(samples) + " | ucx floor | ofi floor |"
        if prog:
            head += " ucx / Open MPI | ofi / Open MPI | ucx / goal | ofi / goal |"
        print(head)
        print("|" + " --- |" * (head.count("|") - 1))
        for cell in CELLS:
            vals = [median(s, cell) for s in samples.values()]
            fl = [median(floor_samples, (name, cell)) for name in OURS]
            line = f"| {cell[0]} {cell[1]} B | " + " | ".join(fmt(v) for v in vals)
            line += "".join(f" | {fmt(f)}" for f in fl)
            if prog:
                o = vals[len(OURS)]
                line += "".join(f" | {v / o:.2f}" if v and o else " | -" for v in vals[:2])
                for v, f in zip(vals[:2], fl):
                    g = goal(o, f)
                    line += f" | {v / g:.2f}" if v and g else " | -"
            print(line + " |")


def part2(args):
    npes = args.nodes_npes
    per_node = npes // 2
    # Each emulated node on a core of its own (as real nodes share none),
    # its PEs together on it: PE r is on node r % 2 (SHMEM_EMULATE_NODES).
    # --no-pin leaves placement to the scheduler, which may put both
    # leaders on one core, something two real nodes never do.
    cpus = sorted(os.sched_getaffinity(0))
    node_cpu = None if args.no_pin or len(cpus) < 2 else [cpus[r % 2] for r in range(npes)]
    shm = [ours(per_node, {"SHMEM_TRANSPORT": "shm"}, args.iters,
                node_cpu and [cpus[0]] * per_node) for _ in range(args.rounds)]
    raw = {name: raw_msg(name, args.rounds) for name in OURS}
    on_node = {  # the on-node phases of each node-aware algorithm (collectives/hier.c)
        ("barrier", 0): [("barrier", 0), ("barrier", 0)],
        ("bcast", 8): [("bcast", 8), ("bcast", 8)],
        ("reduce", 8): [("reduce", 8), ("bcast", 8)],
        ("reduce", 4096): [("reduce", 4096), ("bcast", 4096)],
        # (the closing broadcast carries npes * 8 bytes: the next size
        # coll_bench measures stands for it)
        ("fcollect", 8): [("barrier", 0), ("bcast", 64)],
        # PE to PE: each PE's messages across at once (one exchange), the
        # on-node stores, then the node's barrier
        ("alltoall", 8): [("barrier", 0)],
    }
    where = ("each node's PEs on a core of their own" if node_cpu else
             "placed by the scheduler")
    for name, extra in OURS.items():
        env = dict(extra, SHMEM_EMULATE_NODES="2")
        runs, before = [], []
        for _ in range(args.rounds):  # alternating with --before's build
            runs.append(ours(npes, env, args.iters, node_cpu))
            if args.before:
                before.append(ours(npes, env, args.iters, node_cpu, args.before))
        print(f"\n{npes} PEs on 2 emulated nodes over {name} (bypass on, {where}): us per "
              f"call; floor = the leaders' messages (raw exchange {fmt(raw[name][0])} us, one "
              f"way {fmt(raw[name][1])} us) + on-node phases (shm, {per_node} PEs"
              f"{' on one core' if node_cpu else ''})\n")
        b_head = f" before ({args.before}) |" if args.before else ""
        print(f"| cell |{b_head} time | floor | time / floor |")
        print("| --- |" + (" --- |" if args.before else "") + " --- | --- | --- |")
        for cell, phases in on_node.items():
            t = median(runs, cell)
            b_col = f" {fmt(median(before, cell))} |" if args.before else ""
            parts = [median(shm, p) for p in phases]
            floor = None
            leaders = floor_of(cell, raw[name])
            if leaders is not None and all(p is not None for p in parts):
                floor = leaders + sum(parts)
            ratio = f"{t / floor:.2f}" if t and floor else "-"
            print(f"| {cell[0]} {cell[1]} B |{b_col} {fmt(t)} | {fmt(floor)} | {ratio} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--npes", default="2,4")
    ap.add_argument("--iters", type=int, default=200)
    ap.add_argument("--nodes-npes", type=int, default=4)
    ap.add_argument("--no-ompi", action="store_true")
    ap.add_argument("--part", choices=["1", "2", "both"], default="both")
    ap.add_argument("--no-pin", action="store_true",
                    help="part 2: leave the PEs' placement to the scheduler")
    ap.add_argument("--before", metavar="BUILD",
                    help="also run this build's coll_bench, alternating (columns 'before')")
    args = ap.parse_args()
    args.npes = [int(x) for x in args.npes.split(",")]
    prog = None
    work = tempfile.mkdtemp()
    try:
        if not args.no_ompi and args.part != "2":
            if not shutil.which("opal_wrapper"):
                sys.exit("Open MPI's opal_wrapper (openmpi-bin) is not installed; use --no-ompi")
            os.symlink(shutil.which("opal_wrapper"), os.path.join(work, "oshcc"))
            prog = os.path.join(work, "coll_bench.ompi")
            subprocess.run([os.path.join(work, "oshcc"), "-O2", "-I" + os.path.join(HERE, ".."),
                            os.path.join(HERE, "coll_bench.c"), "-o", prog], check=True)
        if args.part != "2":
            part1(args, prog)
        if args.part != "1":
            part2(args)
    finally:
        shutil.rmtree(work)


main()
