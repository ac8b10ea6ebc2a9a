"""Is the machine the limit? K copies of one coverage study's serial run at once, no Dask.

Each copy is a child process pinned to its own CPU (the exact posterior engine then runs on one
thread, as in a Dask worker of ``client="local"`` with one worker per CPU); the children import,
warm up on a small study, wait until all are ready, and then time the same study
(``benchmarks/bench_dask.py``'s STUDIES) together. If K copies at once take no longer than one
alone, K workers could run the study K times faster and any shortfall of
``bench_dask.py`` is Dask's; if they take longer, the machine (memory bandwidth, the allocator's
system calls, a sandboxed kernel) caps the speed-up whatever the scheduler does:
``slow-down`` = median seconds of a copy among K / seconds of one alone, and
``ceiling`` = K / slow-down is the most that K workers can give.

``--malloc`` runs the children with glibc's allocator told to keep freed memory
(``MALLOC_MMAP_THRESHOLD_`` 32 MiB, the most it takes, ``MALLOC_TRIM_THRESHOLD_`` and
``MALLOC_TOP_PAD_`` 1 GiB): temporaries under 32 MiB are then reused without ``mmap``/``munmap``.

    python benchmarks/bench_machine_scaling.py [--study bayes] [--reps 8] [--copies 1,4,16]
                                               [--malloc]

Prints a table and writes benchmarks/results/machine_scaling.json.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import write_results  # noqa: E402

KEEP_FREED_MEMORY = {
    "MALLOC_MMAP_THRESHOLD_": str(32 * 2**20),
    "MALLOC_TRIM_THRESHOLD_": str(2**30),
    "MALLOC_TOP_PAD_": str(2**30),
}
CHILD = """
import os, sys, time
sys.path.insert(0, {bench!r})
os.sched_setaffinity(0, {{{cpu}}})
from bench_dask import STUDIES, run
study = STUDIES[{study!r}]
run(study, 2)
print("ready", flush=True)
sys.stdin.readline()
start = time.perf_counter()
run(study, {reps})
print(time.perf_counter() - start, flush=True)
"""


def copies_at_once(study: str, reps: int, copies: int, env: dict) -> list[float]:
    """Seconds of each of ``copies`` children timing the study together (pinned, CPUs 0..)."""
    cpus = sorted(os.sched_getaffinity(0))
    if copies > len(cpus):
        raise ValueError(f"--copies {copies} is more than the {len(cpus)} CPUs here")
    bench = str(Path(__file__).resolve().parent)
    children = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD.format(bench=bench, cpu=cpu, study=study, reps=reps)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        for cpu in cpus[:copies]
    ]
    for child in children:  # all imported and warm
        if child.stdout.readline().strip() != "ready":
            raise RuntimeError("a child failed before timing; run it alone to see why")
    for child in children:
        child.stdin.write("go\n")
        child.stdin.flush()
    seconds = [float(child.stdout.readline()) for child in children]
    for child in children:
        child.wait()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--study", default="bayes", choices=("closed", "guaranteed", "bayes"))
    parser.add_argument("--reps", type=int, default=8)
    parser.add_argument("--copies", default="1,2")
    parser.add_argument("--malloc", action="store_true", help="keep freed memory (see above)")
    args = parser.parse_args()
    env = dict(os.environ, **(KEEP_FREED_MEMORY if args.malloc else {}))
    rows, alone = [], None
    print(f"{args.study} x {args.reps} reps, malloc {'kept' if args.malloc else 'default'}")
    print(f"{'copies':>7}{'median s':>10}{'max s':>8}{'slow-down':>11}{'ceiling':>9}")
    for copies in (int(c) for c in args.copies.split(",")):
        start = time.perf_counter()
        seconds = copies_at_once(args.study, args.reps, copies, env)
        median = statistics.median(seconds)
        alone = alone or median
        rows.append({"copies": copies, "seconds": seconds, "wall_s": time.perf_counter() - start})
        print(
            f"{copies:>7}{median:>10.2f}{max(seconds):>8.2f}{median / alone:>10.2f}x"
            f"{copies * alone / median:>9.1f}",
            flush=True,
        )
    name = "machine_scaling" + ("_malloc" if args.malloc else "")
    payload = {"study": args.study, "reps": args.reps, "cpus": os.cpu_count(), "rows": rows}
    print(f"wrote {write_results(name, payload)}")


if __name__ == "__main__":
    main()
