"""Where a Dask worker's time goes on many cores: the Bayesian sweep, its workers' CPU time.

On the 16-core device machine (benchmarks/device_scaling.sh) the Bayesian sweep of
``benchmarks/bench_dask.py`` ran 6.0x faster than serial at 16 workers, and Dask's task stream
put the loss inside the tasks (their compute seconds summed were 2.1x the serial run's), while
16 pinned copies of the serial study (``bench_machine_scaling.py``) ran no slower than one.
This script times the same sweep on ``client="local"`` clusters started four ways and reads
every worker's CPU time (user and system, ``psutil``) around the timed run:

* ``default``: as :func:`judgestats.simulate.coverage` starts them;
* ``pinned``: each worker process pinned to its own CPU (``os.sched_setaffinity``) once started;
* ``malloc``: workers spawned with glibc told to keep freed memory (``MALLOC_MMAP_THRESHOLD_``
  32 MiB, ``MALLOC_TOP_PAD_`` 1 GiB, through Dask's ``distributed.nanny.pre-spawn-environ``);
* ``pinned+malloc``: both.

System CPU time far above the serial run's points at the kernel (page faults, ``mmap``); user
time above it at the workers' own contention (caches, memory bandwidth); wall time above CPU
time at waiting. Results are checked identical to the serial run's.

    python benchmarks/dask_worker_cpu.py [--workers 2,16] [--reps 16] [--repeat 2]

Prints a table and writes benchmarks/results/dask_worker_cpu.json.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import dask  # noqa: E402
import xarray as xr  # noqa: E402
from _env import write_results  # noqa: E402
from bench_dask import STUDIES, run, warm_workers  # noqa: E402

from judgestats._dask import available_cpus, session  # noqa: E402

KEEP_MEMORY = {
    "distributed.nanny.pre-spawn-environ.MALLOC_MMAP_THRESHOLD_": str(32 * 2**20),
    "distributed.nanny.pre-spawn-environ.MALLOC_TOP_PAD_": str(2**30),
}


def _cpu_times() -> tuple[float, float]:
    """(user, system) CPU seconds of this process, its threads summed."""
    import psutil

    times = psutil.Process().cpu_times()
    return times.user, times.system


def _pin(cpu: int) -> int:
    os.sched_setaffinity(0, {cpu})
    return cpu


def _workers_cpu(client) -> tuple[float, float]:
    """(user, system) CPU seconds of all workers together."""
    times = client.run(_cpu_times).values()
    return sum(t[0] for t in times), sum(t[1] for t in times)


def variant(name: str, workers: int, reps: int, repeat: int, reference: xr.Dataset) -> dict:
    """Cluster seconds and the workers' CPU seconds of ``repeat`` timed runs (medians)."""
    study = STUDIES["bayes"]
    config = KEEP_MEMORY if "malloc" in name else {}
    with dask.config.set(config), session("local", workers) as dask_session:
        client = dask_session.client
        if "pinned" in name:
            cpus = sorted(os.sched_getaffinity(0))
            for index, address in enumerate(sorted(client.scheduler_info()["workers"])):
                client.run(_pin, cpus[index % len(cpus)], workers=[address])
        warm_workers(study, max(2, reps // 8), client)
        rows = []
        for _ in range(repeat):
            user0, system0 = _workers_cpu(client)
            seconds, ds = run(study, reps, client)
            user1, system1 = _workers_cpu(client)
            xr.testing.assert_identical(ds, reference)
            rows.append((seconds, user1 - user0, system1 - system0))
    return {
        "variant": name,
        "workers": workers,
        "cluster_s": statistics.median(r[0] for r in rows),
        "user_s": statistics.median(r[1] for r in rows),
        "system_s": statistics.median(r[2] for r in rows),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default="2")
    parser.add_argument("--reps", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    study = STUDIES["bayes"]
    run(study, 2)
    user0, system0 = _cpu_times()
    serial_s, reference = run(study, args.reps)
    user1, system1 = _cpu_times()
    serial = {"seconds": serial_s, "user_s": user1 - user0, "system_s": system1 - system0}
    print(
        f"serial {serial_s:.2f} s, CPU user {serial['user_s']:.2f} system {serial['system_s']:.2f}"
    )
    print(f"{'variant':<15}{'W':>4}{'cluster s':>11}{'speed-up':>10}{'user s':>9}{'system s':>10}")
    rows = []
    for workers in [int(w) for w in args.workers.split(",")]:
        for name in ("default", "pinned", "malloc", "pinned+malloc"):
            row = variant(name, workers, args.reps, args.repeat, reference)
            rows.append(row)
            print(
                f"{name:<15}{workers:>4}{row['cluster_s']:>11.2f}"
                f"{serial_s / row['cluster_s']:>9.2f}x"
                f"{row['user_s']:>9.2f}{row['system_s']:>10.2f}",
                flush=True,
            )
            write_results(
                "dask_worker_cpu",
                {"cpus": available_cpus(), "reps": args.reps, "serial": serial, "rows": rows},
            )
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
