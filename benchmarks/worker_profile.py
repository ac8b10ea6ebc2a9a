"""The serial study inside Dask workers: is it the worker process or the way the study is split?

``benchmarks/worker_memory.py`` on the 16-core device machine: one guaranteed worker used 27%
more CPU than the serial run for the same tasks, and page faults are not the cause. This script
runs the *whole serial study* (``bench_dask.py``'s ``--study``, ``client=None``) in three places,
each under ``cProfile``:

* ``main``: this process;
* ``task``: a task on a ``client="local"`` cluster of W workers, one copy per worker at once
  (W copies contend as W Dask workers would; each copy runs in a worker's task thread);
* ``run``: the same through ``Client.run`` (the worker's own thread, outside the task machinery),
  on one worker only.

Per place: wall and CPU seconds of one copy (the median over copies) and the functions whose own
time (``tottime``) grew most against ``main``. If a copy in a task costs what it costs here, the
worker process is not the cause and the loss is in how the study is split and scheduled.

    python benchmarks/worker_profile.py [--study guaranteed] [--reps 8] [--workers 1,16] [--pin]

``--pin``: every copy (and this process's) pinned to its own CPU, so that the exact posterior
engine runs on one thread as in a Dask worker of a 16-worker cluster.

Prints the table and the functions; writes benchmarks/results/NAME.json (``--name``).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _env import write_results  # noqa: E402

from judgestats._dask import available_cpus, session  # noqa: E402

HERE = str(Path(__file__).resolve().parent)


def profiled_study(here: str, name: str, reps: int, cpu: int | None = None) -> dict:
    """Wall and CPU seconds of the serial study, and its functions' own seconds (cProfile).

    ``cpu``: pin this process to that CPU first (the exact engine then runs on one thread).
    """
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})
    sys.path.insert(0, here)
    from bench_dask import STUDIES, run

    study = STUDIES[name]
    run(study, max(2, reps // 8))  # imports and caches
    profile = cProfile.Profile()
    wall, cpu = time.perf_counter(), time.process_time()
    profile.enable()
    run(study, reps)
    profile.disable()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    own: dict[str, float] = {}
    for (file, line, function), (_, _, tottime, _, _) in stats.items():
        key = f"{Path(file).name}:{line}({function})"
        own[key] = own.get(key, 0.0) + tottime
    return {"wall_s": wall, "cpu_s": cpu, "own_s": own, "pid": os.getpid()}


def grown(base: dict, other: dict, top: int = 12) -> list[tuple[str, float, float]]:
    """Functions whose own seconds grew most from ``base`` to ``other``: (name, base, other)."""
    names = set(base) | set(other)
    rows = [(n, base.get(n, 0.0), other.get(n, 0.0)) for n in names]
    rows.sort(key=lambda r: r[2] - r[1], reverse=True)
    return rows[:top]


def merged(results: list[dict]) -> dict:
    """Own seconds per function, the median over copies."""
    names = set().union(*(r["own_s"] for r in results))
    return {n: statistics.median(r["own_s"].get(n, 0.0) for r in results) for n in names}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--study", default="guaranteed")
    parser.add_argument("--reps", type=int, default=8)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--name", default="worker_profile")
    parser.add_argument("--pin", action="store_true", help="every copy on its own CPU")
    args = parser.parse_args()
    cpus = sorted(os.sched_getaffinity(0))
    here = profiled_study(HERE, args.study, args.reps, cpus[0] if args.pin else None)
    os.sched_setaffinity(0, cpus)
    places = {"main": [here]}
    for workers in (int(w) for w in args.workers.split(",")):
        with session("local", workers) as dask_session:
            assert dask_session is not None
            client = dask_session.client
            addresses = sorted(client.scheduler_info()["workers"])
            futures = [
                client.submit(profiled_study, HERE, args.study, args.reps, workers=[a], pure=False)
                for a in addresses
            ]
            places[f"task x{workers}"] = client.gather(futures)
            if workers == 1:
                places["run x1"] = list(
                    client.run(
                        profiled_study,
                        HERE,
                        args.study,
                        args.reps,
                        cpus[0] if args.pin else None,
                    ).values()
                )
    print(f"{args.study} x {args.reps} reps, {available_cpus()} CPUs; one copy, median over copies")
    print(f"{'place':<12}{'copies':>7}{'wall s':>9}{'CPU s':>9}{'CPU / main':>12}")
    base_cpu = here["cpu_s"]
    for place, results in places.items():
        cpu = statistics.median(r["cpu_s"] for r in results)
        print(
            f"{place:<12}{len(results):>7}{statistics.median(r['wall_s'] for r in results):>9.2f}"
            f"{cpu:>9.2f}{cpu / base_cpu:>11.2f}x"
        )
    report = {}
    for place, results in places.items():
        if place == "main":
            continue
        rows = grown(here["own_s"], merged(results))
        report[place] = rows
        print(f"\nown seconds grown most, main -> {place}:")
        for name, before, after in rows:
            print(f"  {after - before:+8.3f}  {before:8.3f} -> {after:8.3f}  {name}")
    summary = {
        place: {
            "copies": len(results),
            "wall_s": [r["wall_s"] for r in results],
            "cpu_s": [r["cpu_s"] for r in results],
        }
        for place, results in places.items()
    }
    top_main = sorted(here["own_s"].items(), key=lambda kv: -kv[1])[:25]
    write_results(
        args.name,
        {
            "study": args.study,
            "reps": args.reps,
            "cpus": available_cpus(),
            "places": summary,
            "grown": report,
            "main_top": top_main,
        },
    )


if __name__ == "__main__":
    main()
