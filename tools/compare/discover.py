"""Which transport plugins are installed and which configurations of each
are worth comparing.  The plugins' own query() decides what is usable: a
candidate (an ofi provider, a UCX transport set) is kept when shmem_info,
run with the candidate's setting, reports the plugin usable."""

import fnmatch
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field

# Providers tried when fi_info (libfabric-bin) is not installed to list
# them: the ones libfabric ships that may offer RDM with RMA and atomics.
OFI_FALLBACK = ["shm", "tcp;ofi_rxm", "udp;ofi_rxd", "sockets", "verbs;ofi_rxm",
                "psm2", "psm3", "efa", "cxi", "opx"]
# UCX transport sets: one per kind of wire.  UCX 1.13 has no list of the
# sets it would accept; the plugin's query resolves each against the
# machine's resources (rc, dc and ud need an RDMA device).
UCX_SETS = ["tcp", "sm", "rc", "dc", "ud"]
# Emulating two nodes needs PEs of both parities on each side to say more
# than the bypass-off run does: with 2 PEs every peer is remote either way.
TWO_NODES_MIN_PES = 4


@dataclass
class Config:
    name: str
    transport: str
    env: dict
    detail: str = ""          # provider or transport set, for the reports
    variant: str = ""         # on, off, 2nodes, or impl (another implementation)
    notes: list = field(default_factory=list)
    oshcc: str = ""           # impl: its compiler wrapper
    launcher: list = field(default_factory=list)  # impl: its launcher's words


def _run(cmd, env_extra=None, timeout=60):
    env = dict(os.environ)
    env.update(env_extra or {})
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except (OSError, subprocess.TimeoutExpired) as e:
        return -1, "", str(e)


def plugins(shmem_info, env_extra=None):
    """{name: (usable, reason)} from shmem_info's transport list."""
    rc, out, err = _run([shmem_info], env_extra)
    if rc != 0:
        raise RuntimeError(f"{shmem_info} failed: {(err or out).strip()[:300]}")
    found, name, text = {}, None, []

    def close():
        if name:
            t = " ".join(s.strip() for s in text)
            if re.search(r"not usable:", t):
                why = t.split("not usable:", 1)[1]
                why = re.split(r"\s+priority \d+", why)[0].strip()
                found[name] = (False, why or "not usable")
            elif re.search(r"; usable", t):
                found[name] = (True, "")
            else:
                # A plugin that did not load at all ("cannot load: libmpich.so.12:
                # ...", "damaged: ..."): shmem_info's line is the reason.
                found[name] = (False, t.strip() or "not usable")
    for line in out.splitlines():
        m = re.match(r"^  (\S+)\s+(/\S+)$", line)
        if m:
            close()
            name, text = m.group(1), []
        elif name and line.startswith("         "):
            text.append(line)
        elif name:
            close()
            name = None
    close()
    return found


def ofi_candidates():
    """Providers offering RDM endpoints with RMA and atomics, as libfabric
    names them (fi_info), else the fallback list."""
    fi_info = shutil.which("fi_info")
    if fi_info:
        rc, out, _ = _run([fi_info, "-t", "FI_EP_RDM", "-c", "FI_RMA|FI_ATOMIC"])
        if rc == 0:
            seen = []
            for m in re.finditer(r"^provider:\s*(\S+)", out, re.M):
                if m.group(1) not in seen:
                    seen.append(m.group(1))
            if seen:
                return seen, "fi_info"
    return list(OFI_FALLBACK), "built-in list"


def short_provider(p):
    """'tcp;ofi_rxm' -> 'tcp-rxm': a column name without ';'."""
    return p.replace(";ofi_", "-").replace(";", "-")


DEFAULT_VARIANTS = ["on", "off", "2nodes"]


def variants_for(transport, wanted, npes):
    """The variants to run for a transport, and a note on those left out.
    wanted is DEFAULT_VARIANTS unless --variants named some."""
    if transport == "shm":
        return [v for v in wanted if v != "2nodes"], None   # shm serves one node only
    if wanted is not DEFAULT_VARIANTS:
        return list(wanted), None
    # By default a network transport runs with every operation through it
    # (on one node the bypass would hide it), and over two emulated nodes
    # when that differs from the bypass off.
    if npes < TWO_NODES_MIN_PES:
        return ["off"], (f"2nodes variants need -n {TWO_NODES_MIN_PES} or more "
                         "(with 2 PEs every peer is remote either way)")
    return ["off", "2nodes"], None


def _variant_env(transport, variant):
    if variant == "off":
        return {"SHMEM_BYPASS": "0"}
    if variant == "2nodes":
        return {"SHMEM_BYPASS": "1", "SHMEM_EMULATE_NODES": "2"}
    return {"SHMEM_BYPASS": "1"}


def _name(base, transport, variant):
    # Each transport's usual mode carries no suffix: shm by load/store,
    # a network transport with every operation through it.
    if transport == "shm":
        return base if variant == "on" else base + "-nobypass"
    if variant == "off":
        return base
    return base + ("-bypass" if variant == "on" else "-2nodes")


def configurations(shmem_info, transports, variants, npes, log, patterns=()):
    """Every configuration of the selected transports that passes its
    plugin's query, and the notes on what was left out and why.  Names
    begin with the transport's, so a transport that no --configs pattern
    can match is not even queried."""
    found = plugins(shmem_info)
    notes, configs = [], []
    order = {"shm": 0, "ofi": 1, "ucx": 2, "mpi": 3}
    for t in transports or sorted(found, key=lambda n: (order.get(n, 9), n)):
        if patterns and not any(fnmatch.fnmatchcase(t, p.split("-")[0]) for p in patterns):
            continue
        if t not in found:
            raise RuntimeError(f"--transports '{t}': no such plugin installed; installed: "
                               f"{', '.join(sorted(found))}")
        usable, why = found[t]
        # ofi and ucx may refuse their default and accept another candidate.
        if not usable and t not in ("ofi", "ucx"):
            notes.append(f"{t}: not usable: {why}")
            continue
        if t == "ofi":
            names, source = ofi_candidates()
            log(f"ofi: checking {len(names)} libfabric providers ({source})")
            details = []
            for p in names:
                ok = plugins(shmem_info, {"SHMEM_OFI_PROVIDER": p}).get("ofi", (False, ""))
                if ok[0]:
                    details.append((p, {"SHMEM_OFI_PROVIDER": p}, "ofi-" + short_provider(p)))
                elif source == "fi_info":
                    notes.append(f"ofi provider {p}: refused by the plugin's query: {ok[1]}")
        elif t == "ucx":
            log(f"ucx: checking {len(UCX_SETS)} UCX transport sets")
            details = []
            for s in UCX_SETS:
                ok = plugins(shmem_info, {"SHMEM_UCX_TLS": s}).get("ucx", (False, ""))
                if ok[0]:
                    details.append((s, {"SHMEM_UCX_TLS": s}, "ucx-" + s.replace(",", "+")))
                else:
                    notes.append(f"ucx transport set {s}: refused by the plugin's query: {ok[1]}")
        else:
            details = [("", {}, t)]
        vs, vnote = variants_for(t, variants, npes)
        if vnote and vnote not in notes:
            notes.append(vnote)
        for detail, env, base in details:
            for v in vs:
                if v == "2nodes" and t == "ofi" and detail == "shm":
                    continue      # the plugin refuses libfabric's shm across nodes
                e = {"SHMEM_TRANSPORT": t}
                e.update(env)
                e.update(_variant_env(t, v))
                configs.append(Config(_name(base, t, v), t, e, detail, v))
    return configs, notes
