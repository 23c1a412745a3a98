"""What benches/move.py and benches/signature.py share: a copy of the CPython standard library,
a function's definition found by position, and commands timed pair by pair (CPU and wall).

A command's CPU is its user + system time as the kernel counts it for the child (and the
threads it ran), read from `wait4`; its wall is the time from start to exit. Both are printed
because the machine is shared: the wall of a loaded run is partly other people's, its CPU is
lancet's own. With `--before BINARY` each row runs the same two commands of another build too,
interleaved with this build's, so a before/after comparison sees the same load.
"""

import json
import os
import pathlib
import re
import resource
import shutil
import statistics
import subprocess
import sysconfig
import time


def copy_stdlib(into):
    """The stdlib of the Python running this, without site-packages, test/ and __pycache__."""
    src = pathlib.Path(sysconfig.get_paths()["stdlib"])
    dest = into / "lib"
    shutil.copytree(src, dest, symlinks=True,
                    ignore=shutil.ignore_patterns("site-packages", "dist-packages", "__pycache__", "test"))
    return dest


def place(lib, rel, name):
    """`lib/REL:LINE:COL` of the top-level `def NAME(` in REL."""
    lines = (lib / rel).read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines, 1):
        m = re.match(rf"def ({re.escape(name)})\(", line)
        if m:
            return f"lib/{rel}:{i}:{m.start(1) + 1}"
    raise SystemExit(f"no `def {name}` at the top of {rel}")


def children_cpu():
    """User + system seconds of every child waited for so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def measure(argv, cwd):
    """One run: (wall seconds, CPU seconds, its JSON report); exits on a failure. Runs are
    sequential, so the increase of the children's CPU total over the run is this command's."""
    cpu0 = children_cpu()
    t0 = time.perf_counter()
    p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    cpu = children_cpu() - cpu0
    try:
        report = json.loads(p.stdout)
    except json.JSONDecodeError:
        raise SystemExit(f"{' '.join(argv)}: exit {p.returncode}, no report: {p.stderr[-400:]}")
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(argv)}: exit {p.returncode}: {report.get('message', '')[:400]}")
    return wall, cpu, report


def pairs(commands, runs, cwd):
    """Each command of `commands` (name -> argv) run `runs` times, interleaved run by run:
    medians {name: (wall, cpu)} and the last report of each."""
    walls = {k: [] for k in commands}
    cpus = {k: [] for k in commands}
    reports = {}
    for _ in range(runs):
        for k, argv in commands.items():
            wall, cpu, reports[k] = measure(argv, cwd)
            walls[k].append(wall)
            cpus[k].append(cpu)
    med = {k: (statistics.median(walls[k]), statistics.median(cpus[k])) for k in commands}
    return med, reports


def load():
    """The one-minute load average, for the table's heading."""
    return os.getloadavg()[0]
