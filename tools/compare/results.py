"""The files of --out DIR: samples.csv (every sample), summary.csv (medians
and spread), results.json (all of it, with the machine, library and
provider versions)."""

import csv
import json
import os
import platform
import re
import shutil
import socket
import subprocess

SAMPLE_COLUMNS = ["config", "transport", "detail", "variant", "pes", "repeat", "bench", "bytes",
                  "value", "unit", "iterations", "seconds"]
SUMMARY_COLUMNS = ["bench", "bytes", "pes", "unit", "lower_is_better", "config", "median", "min",
                   "max", "samples", "spread_pct", "best"]


def _first(path, pattern):
    try:
        with open(path) as f:
            for line in f:
                m = re.match(pattern, line)
                if m:
                    return m.group(1).strip().strip('"')
    except OSError:
        pass
    return None


def _cmd(cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
        return p.stdout.strip() if p.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired):
        return None


def machine():
    load = os.getloadavg()
    return {
        "hostname": socket.gethostname(),
        "os": _first("/etc/os-release", r'^PRETTY_NAME=(.*)'),
        "kernel": platform.release(),
        "cpu": _first("/proc/cpuinfo", r"^model name\s*:\s*(.*)"),
        "cpus": os.cpu_count(),
        "memory": _first("/proc/meminfo", r"^MemTotal:\s*(.*)"),
        "load_average": [round(x, 2) for x in load],
        "python": platform.python_version(),
    }


def versions(shmem_info):
    v = {"plugshmem": _cmd([shmem_info, "--version"])}
    fi = shutil.which("fi_info")
    if fi:
        out = _cmd([fi, "--version"]) or ""
        m = re.search(r"libfabric:\s*(\S+)", out)
        v["libfabric"] = m.group(1) if m else out.splitlines()[0] if out else None
    ucx = shutil.which("ucx_info")
    if ucx:
        m = re.search(r"[Vv]ersion\s+(\S+)", _cmd([ucx, "-v"]) or "")
        if m:
            v["ucx"] = m.group(1)
    return v


def _repeats(jobs):
    """Each job's repeat number: its place among the jobs of its PE count."""
    seen = {}
    for job in jobs:
        seen[job.pes] = seen.get(job.pes, 0) + 1
        yield seen[job.pes], job


def _sample_rows(configs, runs):
    for c in configs:
        for rep, job in _repeats(runs.get(c.name, [])):
            for bench, nbytes, value, unit, iters, secs in job.samples:
                yield [c.name, c.transport, c.detail, c.variant, job.pes, rep, bench, nbytes,
                       value, unit, iters, secs]


def write(out_dir, meta, configs, runs, rows):
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "samples.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(SAMPLE_COLUMNS)
        w.writerows(_sample_rows(configs, runs))
    with open(os.path.join(out_dir, "summary.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(SUMMARY_COLUMNS)
        for r in rows:
            for name, v in r["values"].items():
                sp = "" if v["spread_pct"] is None else f"{v['spread_pct']:.2f}"
                w.writerow([r["bench"], r["bytes"], r["pes"], r["unit"], int(r["lower_better"]), name,
                            v["median"], v["min"], v["max"], v["n"], sp, int(r["best"] == name)])
    doc = dict(meta)
    doc["configurations"] = []
    for c in configs:
        jobs = runs.get(c.name, [])
        info = []
        for j in jobs:
            info += [i for i in j.info if i not in info]
        doc["configurations"].append({
            "name": c.name, "transport": c.transport, "detail": c.detail, "variant": c.variant,
            "environment": c.env,
            "status": _status(jobs),
            "reason": next((j.reason for j in jobs if j.status != "ok"), ""),
            "transport_info": info,
            "runs": [{"pes": j.pes, "repeat": i, "status": j.status, "reason": j.reason,
                      "seconds": round(j.seconds, 3), "header": j.header,
                      "samples": [dict(zip(["bench", "bytes", "value", "unit", "iterations",
                                            "seconds"], s)) for s in j.samples]}
                     for i, j in _repeats(jobs)],
        })
    doc["summary"] = rows
    path = os.path.join(out_dir, "results.json")
    with open(path + ".tmp", "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)
    return ["samples.csv", "summary.csv", "results.json"]


def reported_versions(runs):
    """Versions the plugins printed in their verbose lines (UCX's own, the
    MPI library's), for machines without ucx_info."""
    found = {}
    for jobs in runs.values():
        for j in jobs:
            for line in j.info:
                m = re.match(r"ucx transport: UCX (\S+),", line)
                if m:
                    found.setdefault("ucx", m.group(1))
                m = re.match(r"mpi transport: ([^;]+);", line)
                if m:
                    # "MPICH Version: 4.0.2" -> "MPICH 4.0.2"
                    found.setdefault("mpi", re.sub(r"\s*Version:\s*", " ", m.group(1).strip()))
    return found


def _status(jobs):
    if not jobs:
        return "not run"
    bad = [j.status for j in jobs if j.status != "ok"]
    return bad[0] if bad else "ok"
