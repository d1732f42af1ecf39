"""shmem_compare's main: discover, run every configuration and repeat,
report.  See usage.MANUAL for what it promises."""

import datetime
import fnmatch
import os
import shutil
import signal
import sys
import tempfile
import time

import discover
import impl
import plotfile
import results
import runner
import summary
import svgplot
import usage
from progress import Progress

# Where the time of a job goes besides its measurements: launching N
# processes, loading a network library (libfabric: 0.2-0.4 s, docs/ofi.md),
# connecting.  Only a first guess for the ETA; measured jobs replace it.
STARTUP_GUESS_S = 3.0
POINTS = {False: 34, True: 22}   # compare_bench's points (full, --quick)
# Verbose settings make each plugin describe what it chose (provider,
# version, modes) in one line from PE 0, kept in results.json.
VERBOSE = {"ofi": "SHMEM_OFI_VERBOSE", "ucx": "SHMEM_UCX_VERBOSE", "mpi": "SHMEM_MPI_VERBOSE"}


def _now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _find(candidates, what):
    for c in candidates:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return os.path.normpath(c)
    raise FileNotFoundError(f"shmem_compare: cannot find {what} (looked at "
                            f"{', '.join(os.path.normpath(c) for c in candidates)}); "
                            "is the installation complete?")


def _select(configs, patterns):
    if not patterns:
        return configs, None
    keep = [c for c in configs if any(fnmatch.fnmatchcase(c.name, p) for p in patterns)]
    unmatched = [p for p in patterns if not any(fnmatch.fnmatchcase(c.name, p) for c in configs)]
    if unmatched:
        names = ", ".join(c.name for c in configs)
        usable = f"usable here: {names}" if names else "'shmem_compare --list' names them"
        return None, (f"shmem_compare: --configs '{unmatched[0]}' matches no usable "
                      f"configuration; {usable}")
    return keep, None


def _short(text, n=240):
    """A reason for the table and the progress line; results.json keeps
    the whole of it."""
    return text if len(text) <= n else text[:n - 1] + "…"


def _plot_notes(a, meta, failed):
    m, v = meta["machine"], meta["versions"]
    jobs = "1 job" if a.repeat == 1 else f"{a.repeat} jobs"
    lines = [f"{','.join(map(str, a.nps))} PEs per job, {jobs} per configuration "
             "(interleaved),",
             f"{a.budget_ms:g} ms per measurement; markers and bars: medians",
             f"{m['cpus']} CPUs, load average {m['load_average'][0]} at the start, "
             f"{meta['load_average_end'][0]} at the end",
             f"{meta['started'][:16].replace('T', ' ')} UTC"]
    label = {"ucx": "UCX ", "mpi": ""}        # the MPI entry names its library
    lines += [f"{label.get(k, k + ' ')}{val}" for k, val in v.items()
              if k != "plugshmem" and val][:4]
    lines.insert(4, (v.get("plugshmem") or "").replace("shmem_info (PlugSHMEM)", "PlugSHMEM"))
    if failed:
        names = list(dict.fromkeys(name for name, _ in failed))
        lines.append("failed: " + ", ".join(names) + " (see the table)")
    if len(a.nps) > 1:
        lines.append(f"point-to-point panels: {a.nps[0]} PEs")
    if meta.get("interrupted"):
        lines.append("interrupted: partial results")
    return [ln[:80] for ln in lines if ln]


def _list(configs, notes):
    for c in configs:
        env = " ".join(f"{k}={v}" for k, v in c.env.items())
        if c.variant == "impl":
            env = f"(another implementation) {c.detail}"
        print(f"{c.name:24} {env}")
    for n in notes:
        print(f"left out: {n}")


def main(argv, paths, version):
    a = usage.parse(argv)
    if a.help:
        sys.stdout.write(usage.MANUAL)
        return 0
    if a.version:
        print(f"shmem_compare (PlugSHMEM) {version}")
        return 0
    try:
        oshrun = _find(paths["oshrun"], "oshrun")
        shmem_info = _find(paths["shmem_info"], "shmem_info")
        bench = _find(paths["bench"], "the benchmark program compare_bench")
    except FileNotFoundError as e:
        print(e, file=sys.stderr)
        return 2
    # From here on a Ctrl-C or SIGTERM only asks to stop: the running job
    # is ended in order and what was measured is reported.
    stop = []

    def on_signal(signum, _frame):
        stop.append(signum)
    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    log = (lambda s: None) if a.quiet else (lambda s: print(s, file=sys.stderr))
    variants = a.variants or discover.DEFAULT_VARIANTS
    try:
        configs, notes = discover.configurations(shmem_info, a.transports, variants, a.np, log,
                                                 a.configs)
    except RuntimeError as e:
        configs, notes = None, [str(e)]
    if stop:
        print("shmem_compare: interrupted before any job ran", file=sys.stderr)
        return 130
    if configs is None:
        print(f"shmem_compare: {notes[0]}", file=sys.stderr)
        return 2
    try:
        configs += impl.configs(a.impl, {c.name for c in configs})
    except ValueError as e:
        print(f"shmem_compare: {e}", file=sys.stderr)
        return 2
    configs, err = _select(configs, a.configs)
    if err:
        print(err, file=sys.stderr)
        return 2
    if a.list:
        _list(configs, notes)
        return 0
    if not configs:
        print("shmem_compare: no usable configuration to run"
              + (f" ({'; '.join(notes)})" if notes else ""), file=sys.stderr)
        return 2
    if a.out:
        try:
            os.makedirs(a.out, exist_ok=True)
        except OSError as e:
            why = "exists and is not a folder" if os.path.exists(a.out) else e.strerror
            print(f"shmem_compare: --out '{a.out}': {why}", file=sys.stderr)
            return 2
    plot = a.plot
    if plot and plotfile.can_write(plot):
        print(f"shmem_compare: {plotfile.can_write(plot)}; running without the plot",
              file=sys.stderr)
        plot = None

    expected = POINTS[a.quick] * a.budget_ms / 1000 * 1.25
    timeout = a.timeout or 120 + 4 * expected
    args = ["--budget-ms", f"{a.budget_ms:g}"] + (["--quick"] if a.quick else [])
    meta = {"tool": f"shmem_compare {version}", "command": ["shmem_compare"] + list(argv),
            "started": _now(), "pes": a.nps, "repeat": a.repeat, "quick": a.quick,
            "budget_ms": a.budget_ms, "timeout_s": timeout, "machine": results.machine(),
            "versions": results.versions(shmem_info), "notes": notes}
    runs = {c.name: [] for c in configs}
    failed = {}     # (name, PEs) -> the Job that failed there
    prog = Progress(len(configs) * len(a.nps) * a.repeat, 2 * STARTUP_GUESS_S + expected,
                    not a.quiet)
    # Other implementations' programs, built once before the first job; one
    # that does not build is a failed configuration, and the rest go on.
    workdir = tempfile.mkdtemp(prefix="shmem_compare-") if any(
        c.variant == "impl" for c in configs) else None
    programs = {}
    for c in configs:
        if c.variant != "impl":
            continue
        try:
            source = next((s for s in paths.get("bench_src", []) if os.path.isfile(s)), None)
            if not source:
                raise RuntimeError("cannot find compare_bench.c (looked at "
                                   f"{', '.join(paths.get('bench_src', []))})")
            log(f"{c.name}: building compare_bench with {c.oshcc}")
            programs[c.name] = impl.build(c, source, workdir)
        except RuntimeError as e:
            job = runner.Job(status="failed", reason=str(e))   # pes 0: at no count
            runs[c.name].append(job)
            for n in a.nps:
                failed[(c.name, n)] = job

    def save():
        meta["ended"] = _now()
        meta["interrupted"] = bool(stop)
        meta["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
        meta["versions"].update(results.reported_versions(runs))
        rows = summary.summarize(configs, runs)
        if a.out:
            results.write(a.out, meta, configs, runs, rows)
        return rows

    def one_job(c, np):
        """The point-to-point half, then the collectives in a launch of
        their own (usage.MANUAL says why), as one Job."""
        env = dict(c.env)
        if c.transport in VERBOSE:
            env[VERBOSE[c.transport]] = "1"
        job, t0 = runner.Job(pes=np), time.monotonic()
        for half in ("p2p", "coll"):
            cmd = (impl.command(c, programs[c.name], np, args + ["--only", half])
                   if c.variant == "impl" else [oshrun, "-n", str(np), bench, "--only", half] + args)
            done = len(job.samples)
            part = runner.run(cmd, env, max(1.0, timeout - (time.monotonic() - t0)),
                              lambda j, b, n: prog.point(b, n, done + len(j.samples),
                                                         POINTS[a.quick]),
                              lambda: bool(stop), limit=timeout)
            runner.merge(job, part)
            if part.status != "ok":
                break
        if job.header.get("transport") not in (None, c.transport):
            job.status = "failed"
            job.reason = f"ran on transport {job.header['transport']}, not {c.transport}"
            job.samples = []     # they belong to no column
        return job

    many = len(a.nps) > 1
    for rep in range(1, a.repeat + 1):
        for np in a.nps:
            for c in configs:
                if stop:
                    break
                if (c.name, np) in failed:
                    prog.done += 1      # not repeated: counts as done for the ETA
                    continue
                prog.start_job(f"{c.name}{f' at {np} PEs' if many else ''} run {rep}/{a.repeat}")
                job = one_job(c, np)
                runs[c.name].append(job)
                if job.status not in ("ok", "interrupted"):
                    failed[(c.name, np)] = job
                prog.end_job(job.status, job.reason)
                save()
    for s, h in old.items():
        signal.signal(s, h)
    if workdir:
        shutil.rmtree(workdir, ignore_errors=True)

    rows = save()
    names = [c.name for c in configs]
    sys.stdout.write(summary.markdown(rows, configs, runs))
    if failed:
        print("\nFailed configurations:")
        said = set()
        for (name, np), job in failed.items():
            if id(job) in said:     # one that failed to build, at every count
                continue
            said.add(id(job))
            at = f" at {np} PEs" if many and job.pes else ""
            print(f"- {name}{at}: {job.status}: {_short(job.reason)}")
    if notes:
        print("\nLeft out:")
        for n in notes:
            print(f"- {n}")
    load = meta["machine"]["load_average"]
    print(f"\n{','.join(map(str, a.nps))} PEs, {a.repeat} repeats, {a.budget_ms:g} ms per measurement; "
          f"{meta['machine']['cpus']} CPUs, load average {load[0]} at the start, "
          f"{meta['load_average_end'][0]} at the end.")
    if a.out:
        log(f"shmem_compare: wrote {', '.join(os.path.join(a.out, f) for f in ('samples.csv', 'summary.csv', 'results.json'))}")
    status = 130 if stop else (1 if failed else 0)
    if plot:
        shown = [n for n in names if any(j.samples for j in runs[n])]
        try:
            what = ("PlugSHMEM transports and other implementations"
                    if any(c.variant == "impl" for c in configs) else "PlugSHMEM transports")
            title = (f"{what}, {','.join(map(str, a.nps))} PEs on {meta['machine']['hostname']} "
                     f"(median of {a.repeat}; whiskers: range)")
            plotfile.write(plot, svgplot.figure(rows, shown, title, _plot_notes(a, meta, failed)))
            log(f"shmem_compare: wrote {plot}")
        except (RuntimeError, OSError) as e:
            print(f"shmem_compare: {e}", file=sys.stderr)
            status = status or 1
    if stop:
        print("shmem_compare: interrupted; the results above are partial", file=sys.stderr)
    return status
