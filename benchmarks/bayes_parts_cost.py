"""What splitting the Bayesian study into parts costs, alone and with K copies at once.

``judgestats.simulate.coverage`` runs a Bayesian study's chunks (one per calibration setting) in
parts of whole calibration groups on a cluster (``judgestats.simulate._chunking.bayes_parts``):
9 tasks serially, 63 for 16 workers at 8 replications, 135 at 40. This script times the parts
of ``bench_dask.py``'s Bayesian study one after another, without Dask, as a cluster of
``--threads`` worker threads would split it (``none``: the serial split), the exact engine on
one thread, in ``--copies`` child processes at once, each pinned to its own CPU (after imports
and a warm-up, all start together). CPU seconds per copy (median over copies): the parts'
extra cost against the serial split is ``parts / serial``; with K copies, what sharing the
machine adds.

    python benchmarks/bayes_parts_cost.py [--reps 8] [--threads none,16] [--copies 1,16]

Prints a table and writes benchmarks/results/bayes_parts_cost.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import write_results  # noqa: E402

CHILD = r"""
import os, sys, time, json
os.sched_setaffinity(0, {{{cpu}}})
sys.path.insert(0, {here!r})
from bench_dask import STUDIES
import judgestats.simulate.studies as studies
from judgestats.simulate._chunking import bayes_parts, plan_chunks
from judgestats.simulate._kernels import evaluate_part

captured = {{}}


def capture(spec, flat, *args):
    captured.update(spec=spec, flat=flat)
    raise KeyboardInterrupt


studies._run_study = capture
study = STUDIES["bayes"]
for reps in (2, {reps}):
    try:
        studies.coverage(study["method"], **study["grid"], reps=reps, random_seed=3, progress=False)
    except KeyboardInterrupt:
        pass
    spec, flat = captured["spec"].with_threads(1), captured["flat"]
    chunks = plan_chunks(flat, reps, spec.methods, spec.exact, None, {threads})
    counts = bayes_parts(chunks, reps, {threads})
    values = [{{k: a[c] for k, a in flat.items()}} for c in chunks]
    jobs = [(c, v, p, n) for c, v, n in zip(chunks, values, counts) for p in range(n)]
    if reps == 2:
        for job in jobs:
            evaluate_part(spec, *job)  # imports, caches, workspaces
        print("ready", flush=True)
        sys.stdin.readline()
cpu, wall = time.process_time(), time.perf_counter()
for job in jobs:
    evaluate_part(spec, *job)
print(json.dumps({{"cpu_s": time.process_time() - cpu, "wall_s": time.perf_counter() - wall,
                  "tasks": len(jobs)}}), flush=True)
"""


def copies_at_once(reps: int, threads: int | None, copies: int) -> list[dict]:
    """Each copy's seconds, all ``copies`` children timing the split study together."""
    cpus = sorted(os.sched_getaffinity(0))
    here = str(Path(__file__).resolve().parent)
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    children = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                CHILD.format(cpu=cpus[i % len(cpus)], here=here, reps=reps, threads=threads),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        for i in range(copies)
    ]
    for child in children:
        if child.stdout.readline().strip() != "ready":
            raise RuntimeError("a child failed before its warm-up ended")
    for child in children:
        child.stdin.write("go\n")
        child.stdin.flush()
    out = [json.loads(child.communicate()[0].strip().splitlines()[-1]) for child in children]
    if any(child.returncode for child in children):
        raise RuntimeError("a child failed")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=8)
    parser.add_argument("--threads", default="none,16", help="cluster threads of each split")
    parser.add_argument("--copies", default="1,2")
    args = parser.parse_args()
    rows = []
    print(f"bayes x {args.reps} reps; CPU s of one copy (median over copies)")
    print(f"{'split':>8}{'tasks':>7}{'copies':>8}{'CPU s':>9}{'wall s':>9}{'max wall':>10}")
    for copies in (int(c) for c in args.copies.split(",")):
        for name in args.threads.split(","):
            threads = None if name == "none" else int(name)
            runs = copies_at_once(args.reps, threads, copies)
            row = {
                "threads": threads,
                "copies": copies,
                "tasks": runs[0]["tasks"],
                "cpu_s": statistics.median(r["cpu_s"] for r in runs),
                "wall_s": statistics.median(r["wall_s"] for r in runs),
                "max_wall_s": max(r["wall_s"] for r in runs),
            }
            rows.append(row)
            print(
                f"{name:>8}{row['tasks']:>7}{copies:>8}{row['cpu_s']:>9.2f}{row['wall_s']:>9.2f}"
                f"{row['max_wall_s']:>10.2f}",
                flush=True,
            )
            write_results("bayes_parts_cost", {"reps": args.reps, "rows": rows})


if __name__ == "__main__":
    main()
