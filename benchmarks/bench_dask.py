"""Coverage studies on a Dask LocalCluster against the same study in this process (one run).

Three studies (judgestats.simulate.coverage):

* closed form: Lang-Reiczigel, 21 theta x 5 q0 x 5 q1 x 4 n x 5 m0 = 10,500 cells (``--reps``,
  default 3,000; ``--quick`` 300);
* guaranteed: 4 theta x 2 q0 x 2 q1 = 16 cells, n = 100, m0 = m1 = 20 (default 20 reps;
  ``--quick`` 5; 0.01-2 s per distinct dataset);
* Bayesian: exact-posterior equal-tailed interval, 10 theta x 3 q0 x 3 q1 x 3 n = 270 cells
  (default 150 reps; ``--quick`` 20).

For every worker count W (``--workers``, default 1, 2, 4, 8, 16 up to the CPUs here) the
LocalCluster that ``client="local"`` starts is started once, then each repetition times the
serial study and the study on the cluster back to back (the ratio of each pair is the speed-up;
the table shows medians over ``--repeat`` pairs). The results must be identical to the serial
run's (checked every time). Columns:

* ``speed-up``: serial s / cluster s (median of the pairs);
* ``overhead``: (W x cluster s - serial s) / serial s, the worker time spent beyond the serial
  work (transfers, scheduling, imports, idle workers at the end), and the same per task in ms;
* ``start s``: starting and closing the LocalCluster (paid once per ``client="local"`` call);
  before the timed runs every worker runs a small serial study (reps / 50) as one task
  (imports, caches, the task thread's workspaces), as this process does before the serial runs.
  Until 2026-11-27 the warm-up was the small study on the cluster, whose few tasks missed some
  workers (9 tasks for 16 workers in the Bayesian study at 8 replications): their imports and
  first calls fell into the timed run.

The machine's load average is recorded: timings on a shared machine are noisy, ratios less so.

``--serial-once`` (a quiet machine, e.g. the 16-core run of benchmarks/device_scaling.sh): the
serial study is timed ``--repeat`` times once per study, not once per pair, and every worker count
is compared with the median of those. ``--one-core`` also times the serial study with this process
pinned to one CPU (the exact posterior engine then runs on one thread): the speed-up over it is
the parallel efficiency of the cluster, where the plain serial run already uses threads.

``--task-stream`` records Dask's task stream of every timed cluster run and adds, per worker
count, where the cluster's time went: the tasks' compute seconds summed (against W x cluster
seconds), the seconds before the first task started and after the last one ended within the
call, and the idle seconds between a worker's tasks (summed over workers): the per-task
overhead split into what ran in the tasks and what did not.

    python benchmarks/bench_dask.py [--workers 1,2] [--quick] [--repeat 3] [--study bayes]
                                    [--reps R] [--serial-once] [--one-core] [--task-stream]

Prints a table and writes benchmarks/results/dask.json (dask_quick.json with --quick); a run of
some studies (``--study``) keeps the other studies' entries of an earlier run in that file.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import xarray as xr

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import RESULTS, write_results  # noqa: E402

from judgestats._dask import available_cpus, session  # noqa: E402
from judgestats.simulate import coverage  # noqa: E402
from judgestats.simulate._chunking import (  # noqa: E402
    bayes_parts,
    guaranteed_parts,
    plan_chunks,
)
from judgestats.simulate._grid import grid, grid_parameters  # noqa: E402

THETA = np.round(np.linspace(0, 1, 21), 10)
STUDIES = {
    "closed": dict(
        method="lang_reiczigel",
        grid=dict(
            theta=THETA,
            q0=[0.6, 0.7, 0.8, 0.9, 0.95],
            q1=[0.6, 0.7, 0.8, 0.9, 0.95],
            n=[100, 200, 500, 1000],
            m0=[20, 50, 100, 250, 500],
            m1=100,
        ),
        reps=(3000, 300),
    ),
    "guaranteed": dict(
        method="guaranteed",
        grid=dict(theta=[0.2, 0.4, 0.6, 0.8], q0=[0.85, 0.9], q1=[0.85, 0.9], n=100, m0=20, m1=20),
        reps=(20, 5),
    ),
    "bayes": dict(
        method="bayes_eti",
        grid=dict(
            theta=np.round(np.linspace(0.1, 0.9, 10), 10),
            q0=[0.7, 0.8, 0.9],
            q1=[0.7, 0.8, 0.9],
            n=[200, 1000, 5000],
            m0=100,
            m1=100,
        ),
        reps=(150, 20),
    ),
}


def run(study: dict, reps: int, client=None) -> tuple[float, xr.Dataset]:
    start = time.perf_counter()
    ds = coverage(
        study["method"], **study["grid"], reps=reps, random_seed=3, client=client, progress=False
    )
    return time.perf_counter() - start, ds


def _warm_up(study: dict, reps: int) -> str:
    """The study in this worker's task thread (imports, caches, workspaces); its address."""
    from dask.distributed import get_worker

    run(study, reps)
    return get_worker().address


def warm_workers(study: dict, reps: int, client) -> set[str]:
    """Run a small serial study as one task on every worker of ``client``, all at once.

    A small study on the cluster itself would not do: its few tasks reach only some of the
    workers (the Bayesian study at 2 replications has 9 tasks, so 7 of 16 workers would pay
    their imports and first calls inside the timed run). Returns the workers reached.
    """
    addresses = set(client.scheduler_info()["workers"])
    futures = [
        client.submit(_warm_up, study, reps, workers=[address], pure=False) for address in addresses
    ]
    reached = set(client.gather(futures))
    if reached != addresses:
        raise RuntimeError(f"the warm-up reached {len(reached)} of {len(addresses)} workers")
    return reached


def streamed_run(study: dict, reps: int, client) -> tuple[float, xr.Dataset, dict]:
    """:func:`run` on the cluster with Dask's task stream: where the cluster's time went."""
    from dask.distributed import get_task_stream

    with get_task_stream(client=client) as stream:
        begin = time.time()
        seconds, ds = run(study, reps, client)
        end = time.time()
    spans: dict[str, list[tuple[float, float, float]]] = {}
    for record in stream.data:
        compute = [s for s in record["startstops"] if s["action"] == "compute"]
        if compute:
            first, last = min(s["start"] for s in compute), max(s["stop"] for s in compute)
            busy = sum(s["stop"] - s["start"] for s in compute)
            spans.setdefault(record["worker"], []).append((first, last, busy))
    starts = [span[0] for worker in spans.values() for span in worker]
    stops = [span[1] for worker in spans.values() for span in worker]
    ordered = [sorted(worker) for worker in spans.values()]
    gaps = sum(
        max(0.0, later[0] - earlier[1])
        for worker in ordered
        for earlier, later in zip(worker[:-1], worker[1:], strict=True)
    )
    return (
        seconds,
        ds,
        {
            "tasks": len(starts),
            "compute_s": sum(span[2] for worker in spans.values() for span in worker),
            "before_first_task_s": min(starts) - begin if starts else None,
            "after_last_task_s": end - max(stops) if stops else None,
            "idle_between_tasks_s": gaps,
        },
    )


def tasks(study: dict, reps: int, threads: int | None) -> int:
    """Tasks of the study (Bayesian, guaranteed: parts of the chunks)."""
    _, flat = grid(grid_parameters(**study["grid"], theta_cal=None, design="stratified"))
    chunks = plan_chunks(flat, reps, (study["method"],), False, None, threads)
    if study["method"].startswith("bayes"):
        return sum(bayes_parts(chunks, reps, threads))
    if study["method"] == "guaranteed":
        return sum(guaranteed_parts(chunks, reps, threads))
    return len(chunks)


def one_core(study: dict, reps: int) -> float:
    """Seconds of the serial study with this process pinned to one CPU."""
    cpus = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(cpus)})
    try:
        return run(study, reps)[0]
    finally:
        os.sched_setaffinity(0, cpus)


def measure(
    study: dict,
    reps: int,
    workers: int,
    repeat: int,
    reference: xr.Dataset,
    serial_s: list,
    streams: bool = False,
) -> dict:
    """Serial and cluster runs, back to back, ``repeat`` times on one LocalCluster.

    With ``serial_s`` given (``--serial-once``) the serial runs are not repeated here: every
    cluster run is compared with the median of ``serial_s``. ``streams``: each cluster run
    with its task stream (:func:`streamed_run`), kept under ``"task_stream"``.
    """
    start = time.perf_counter()
    with session("local", workers) as dask_session:
        assert dask_session is not None
        started = time.perf_counter() - start
        warm_workers(study, max(2, reps // 50), dask_session.client)
        serial, cluster, stream = [], [], []
        for _ in range(repeat):
            serial.append(run(study, reps)[0] if not serial_s else statistics.median(serial_s))
            if streams:
                seconds, ds, where = streamed_run(study, reps, dask_session.client)
                stream.append(where)
            else:
                seconds, ds = run(study, reps, dask_session.client)
            xr.testing.assert_identical(ds, reference)  # identical to the serial result
            cluster.append(seconds)
        close = time.perf_counter()
    start_close = started + time.perf_counter() - close
    count = tasks(study, reps, workers)
    ratios = [s / c for s, c in zip(serial, cluster, strict=True)]
    overheads = [(workers * c - s) / s for s, c in zip(serial, cluster, strict=True)]
    per_task = [(workers * c - s) / count for s, c in zip(serial, cluster, strict=True)]
    return {
        "workers": workers,
        "tasks": count,
        "serial_s": serial,
        "cluster_s": cluster,
        "speedup_median": statistics.median(ratios),
        "overhead_fraction_median": statistics.median(overheads),
        "overhead_per_task_ms_median": 1000 * statistics.median(per_task),
        "cluster_start_and_close_s": start_close,
        "identical": True,
        **({"task_stream": stream} if streams else {}),
    }


def study_record(
    study: dict, name: str, reps: int, serial_s: float, once: list, single: float | None, rows: list
) -> dict:
    """The JSON entry of one study."""
    return {
        "method": study["method"],
        "cells": int(np.prod([np.size(v) for v in study["grid"].values()])),
        "reps": reps,
        "serial_tasks": tasks(study, reps, None),
        "first_serial_s": serial_s,
        "serial_once_s": once,
        "one_core_serial_s": single,
        "by_workers": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cpus = available_cpus()
    default = ",".join(str(w) for w in (1, 2, 4, 8, 16) if w <= max(cpus, 2))
    parser.add_argument("--workers", default=default, help=f"default {default}")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    parser.add_argument("--study", action="append", choices=list(STUDIES), default=None)
    parser.add_argument("--reps", type=int, default=None, help="override every study's reps")
    parser.add_argument("--serial-once", action="store_true", help="time serial once per study")
    parser.add_argument("--one-core", action="store_true", help="also time serial on one CPU")
    parser.add_argument("--task-stream", action="store_true", help="where the cluster time went")
    args = parser.parse_args()
    workers = [int(w) for w in args.workers.split(",")]
    payload: dict = {"cpus": cpus, "load_before": os.getloadavg(), "studies": {}}
    header = (
        f"{'study':<11}{'cells x reps':>16}{'W':>4}{'tasks':>7}{'serial s':>10}{'cluster s':>10}"
        f"{'speed-up':>10}{'overhead':>10}{'ms/task':>9}{'start s':>9}"
        + (f"{'vs 1 CPU':>10}" if args.one_core else "")
    )
    print(header)
    for name in args.study or list(STUDIES):
        study = STUDIES[name]
        reps = args.reps or study["reps"][1 if args.quick else 0]
        run(study, max(2, reps // 50))  # imports and caches, here
        serial_s, reference = run(study, reps)
        once = [serial_s]
        if args.serial_once:
            once += [run(study, reps)[0] for _ in range(args.repeat - 1)]
        single = one_core(study, reps) if args.one_core else None
        if single is not None:
            print(f"{name}: serial on one CPU {single:.2f} s (vs {serial_s:.2f} s on {cpus})")
        cells = int(np.prod([np.size(v) for v in study["grid"].values()]))
        rows = []
        for w in workers:
            serial_once = once if args.serial_once else []
            row = measure(study, reps, w, args.repeat, reference, serial_once, args.task_stream)
            if single is not None:
                row["speedup_over_one_core"] = single / statistics.median(row["cluster_s"])
            rows.append(row)
            payload["studies"][name] = study_record(study, name, reps, serial_s, once, single, rows)
            save(payload, args.quick)
            print(
                f"{name:<11}{f'{cells} x {reps}':>16}{w:>4}{row['tasks']:>7}"
                f"{statistics.median(row['serial_s']):>10.2f}"
                f"{statistics.median(row['cluster_s']):>10.2f}"
                f"{row['speedup_median']:>9.2f}x{100 * row['overhead_fraction_median']:>9.1f}%"
                f"{row['overhead_per_task_ms_median']:>9.1f}{row['cluster_start_and_close_s']:>9.1f}"
                + (f"{row['speedup_over_one_core']:>9.2f}x" if single is not None else ""),
                flush=True,
            )
            for where in row.get("task_stream", []):
                print_stream(w, statistics.median(row["cluster_s"]), where)
    path = save(payload, args.quick)
    print(f"load average before {payload['load_before']}, after {payload['load_after']}")
    print(f"wrote {path}")


def print_stream(workers: int, cluster_s: float, where: dict) -> None:
    """One line of ``--task-stream``: the cluster's worker-seconds, and where they went."""
    total = workers * cluster_s
    print(
        f"  task stream, {workers} workers: {total:.2f} worker-s = compute "
        f"{where['compute_s']:.2f} + idle between tasks {where['idle_between_tasks_s']:.2f} + "
        f"the rest; first task after {where['before_first_task_s']:.3f} s, the call ends "
        f"{where['after_last_task_s']:.3f} s after the last",
        flush=True,
    )


def save(payload: dict, quick: bool) -> Path:
    """Write the results so far (after every worker count: a run cut short keeps its rows)."""
    payload["load_after"] = os.getloadavg()
    name = "dask" + ("_quick" if quick else "")
    earlier = RESULTS / f"{name}.json"
    studies = dict(payload["studies"])
    if earlier.exists():  # keep the studies this run did not measure
        studies = {**json.loads(earlier.read_text()).get("studies", {}), **studies}
    return write_results(name, {**payload, "studies": studies})


if __name__ == "__main__":
    main()
