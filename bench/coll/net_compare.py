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
At 2 PEs each cell also shows its floor over each transport, what the
transport's library alone takes for the messages the algorithm needs
(bench/ucx/raw_ucx_msg, bench/ofi/raw_ofi_msg: two processes, tagged
messages): one exchange (both send 8 bytes at once and wait for the
other's) for the barrier, reductions, fcollect and alltoall, one one-way
latency (half a ping-pong) for the broadcast; measured with 8 bytes, so
the floor of a larger cell is lower than its true one.  At a power of two
PEs above 2, the barrier, the reductions and the 8-byte fcollect show
theirs: the raw libraries among as many processes, in the log2 n rounds
of exchanges the plugins' messages take there (bench/ucx/raw_ucx_coll,
bench/ofi/raw_ofi_coll).
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
    v = [s[cell] for s in samples if cell in s]
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
# log2 n rounds of 8-byte exchanges, what the plugins' barrier, reduction
# and fcollect send at a power of two PEs where PEs outnumber cores.  Their
# waits poll and yield as RAW_SPINS and RAW_YIELD_EVERY say; the floor is
# the better of two policies: ours (2 polls, then a yield in 4) and a
# yield at every idle poll.
RAW_COLL = {"ucx tcp": "raw_ucx_coll", "ofi tcp": "raw_ofi_coll"}
RAW_POLICIES = [{"RAW_SPINS": "2", "RAW_YIELD_EVERY": "4"},
                {"RAW_SPINS": "0", "RAW_YIELD_EVERY": "1"}]
# The cells whose messages are those rounds, and the size of their messages
# (a barrier's 1-byte messages measured with 8; fcollect's second round
# carries 16 bytes).
ROUNDS_CELLS = {("barrier", 0): 8, ("reduce", 8): 8, ("fcollect", 8): 8, ("reduce", 4096): 4096}


def raw_coll(name, npes, rounds, nbytes):
    """us per call of the raw rounds of nbytes among npes processes: the
    better policy's median of rounds runs."""
    tool, env = RAW[name]
    best = None
    for policy in RAW_POLICIES:
        t = []
        for _ in range(rounds):
            out = subprocess.run([os.path.join(BUILD, "bench", tool[0], RAW_COLL[name]),
                                  str(npes), "20000", str(nbytes)],
                                 env=dict(os.environ, **env, **policy),
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                 timeout=300).stdout
            m = re.search(r"exchanges\s+([0-9.]+) us", out)
            if m:
                t.append(float(m.group(1)))
        if t and (best is None or statistics.median(t) < best):
            best = statistics.median(t)
    return best


def floor_of(cell, raw):
    """The messages a 2-PE (or 2-leader) cell needs, from the raw times."""
    ex, ow = raw
    if ex is None:
        return None
    return ow if cell[0] == "bcast" else ex


def part1(args, prog):
    raw = {name: raw_msg(name, args.rounds) for name in OURS}
    print("\nRaw tagged messages, 8 B, median of %d runs: %s" % (args.rounds, "; ".join(
        f"{name} exchange {fmt(v[0])} us, one way {fmt(v[1])} us" for name, v in raw.items())))
    for npes in args.npes:
        before = [f"{name} before" for name in OURS] if args.before else []
        samples = {k: [] for k in list(OURS) + (["Open MPI"] if prog else []) + before}
        for _ in range(args.rounds):
            for name, extra in OURS.items():
                samples[name].append(ours(npes, dict(extra, SHMEM_BYPASS="0"), args.iters))
            if prog:
                samples["Open MPI"].append(ompi(prog, npes, args.iters))
            for name, extra in OURS.items() if args.before else ():
                samples[f"{name} before"].append(
                    ours(npes, dict(extra, SHMEM_BYPASS="0"), args.iters, build=args.before))
        print(f"\n{npes} PEs, bypass off, every byte over TCP: us per call, slowest PE, "
              f"median of {args.rounds} alternating rounds\n")
        floors = npes == 2
        rounds_floor = npes > 2 and not npes & (npes - 1)
        if rounds_floor:
            coll = {(name, b): raw_coll(name, npes, args.rounds, b)
                    for name in OURS for b in sorted(set(ROUNDS_CELLS.values()))}
            print(f"Floors: {npes} processes of the raw benchmarks in log2 n rounds of "
                  "exchanges (barrier, reductions and 8-byte fcollect; the better of two "
                  "waiting policies): " + "; ".join(f"{k[0]} {k[1]} B {fmt(v)} us"
                                                    for k, v in coll.items()) + "\n")
        head = "| cell | " + " | ".join(samples) + (" | ucx / Open MPI | ofi / Open MPI"
                                                    if prog else "")
        head += " | ucx floor | ofi floor |" if floors or rounds_floor else " |"
        print(head)
        print("|" + " --- |" * (head.count("|") - 1))
        for cell in CELLS:
            vals = [median(s, cell) for s in samples.values()]
            line = f"| {cell[0]} {cell[1]} B | " + " | ".join(fmt(v) for v in vals)
            if prog:
                o = vals[len(OURS)]
                line += "".join(f" | {v / o:.2f}" if v and o else " | -" for v in vals[:2])
            if floors:
                line += "".join(f" | {fmt(floor_of(cell, raw[name]))}" for name in OURS)
            elif rounds_floor:
                line += "".join(f" | {fmt(coll.get((name, ROUNDS_CELLS.get(cell))))}"
                                for name in OURS)
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
