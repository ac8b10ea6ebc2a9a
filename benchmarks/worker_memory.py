"""Is fresh memory the cost of a Dask worker? Page faults and glibc's allocator, serial and on Dask.

On the 16-core device machine (``benchmarks/device_scaling.sh``) the Bayesian sweep of
``benchmarks/bench_dask.py`` ran 6.0x faster than serial at 16 workers, and one guaranteed worker
ran 1.22-1.43x slower than serial, while on this 2-core VM one worker is as fast as serial. One
pinned copy of the serial study ran 18% faster there with glibc told to keep freed memory
(``bench_machine_scaling.py --malloc``). On that VM a page touched for the first time may cost
far more than here. This script counts it: for one study of ``bench_dask.py`` (``--study``) it
times

* ``serial``: the study in this process, its main thread (as ``bench_dask.py`` times serial);
* ``serial/thread``: the same in a worker thread (a Dask worker runs its tasks in one);
* ``serial/keep``: the same after ``mallopt`` told glibc to keep freed memory (trim threshold and
  top pad 1 GiB, mmap threshold 32 MiB, the most it takes): temporaries are then reused, not
  mapped and faulted in afresh;
* ``dask``: ``client="local"`` as :func:`judgestats.simulate.coverage` starts it, W workers;
* ``dask/keep``: a LocalCluster like it whose workers start with the same three settings
  (``MALLOC_TRIM_THRESHOLD_``, ``MALLOC_MMAP_THRESHOLD_``, ``MALLOC_TOP_PAD_``).

Each row gives wall seconds, user and system CPU seconds and minor page faults (this process, or
all workers summed; ``getrusage``), medians over ``--repeat`` runs after a warm-up. The results
are checked identical to the first serial run's every time.

    python benchmarks/worker_memory.py [--study bayes] [--reps 8] [--workers 1,16] [--repeat 2]
                                       [--name worker_memory]

Prints a table and writes benchmarks/results/NAME.json.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import resource
import statistics
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import dask  # noqa: E402
import xarray as xr  # noqa: E402
from _env import write_results  # noqa: E402
from bench_dask import STUDIES, run, warm_workers  # noqa: E402

from judgestats._dask import QUIET_CLUSTER, available_cpus, session  # noqa: E402

#: glibc's settings that keep freed memory (mallopt parameter numbers, environment names).
KEEP = {
    "MALLOC_TRIM_THRESHOLD_": (-1, 2**30),
    "MALLOC_TOP_PAD_": (-2, 2**30),
    "MALLOC_MMAP_THRESHOLD_": (-3, 32 * 2**20),
}


def usage() -> tuple[float, float, int]:
    """(user s, system s, minor page faults) of this process so far."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime, r.ru_stime, r.ru_minflt


def timed(study: dict, reps: int, client=None) -> tuple[float, xr.Dataset]:
    return run(study, reps, client)


def serial_rows(study: dict, reps: int, repeat: int, mode: str, reference: xr.Dataset) -> dict:
    """Median wall, CPU and faults of ``repeat`` runs in this process (``mode``)."""
    rows = []
    for _ in range(repeat):
        before = usage()
        if mode == "serial/thread":
            with ThreadPoolExecutor(1) as pool:
                seconds, ds = pool.submit(timed, study, reps).result()
        else:
            seconds, ds = timed(study, reps)
        after = usage()
        xr.testing.assert_identical(ds, reference)
        rows.append((seconds, *(b - a for a, b in zip(before, after, strict=True))))
    return summarise(mode, 0, rows)


def summarise(mode: str, workers: int, rows: list) -> dict:
    names = ("wall_s", "user_s", "system_s", "minor_faults")
    return {
        "mode": mode,
        "workers": workers,
        **{name: statistics.median(r[i] for r in rows) for i, name in enumerate(names)},
    }


def workers_usage(client) -> tuple[float, float, int]:
    values = client.run(usage).values()
    return tuple(sum(v[i] for v in values) for i in range(3))  # type: ignore[return-value]


def cluster_rows(
    study: dict, reps: int, repeat: int, workers: int, keep: bool, reference: xr.Dataset
) -> dict:
    """Median wall, workers' CPU and faults of ``repeat`` runs on a W-worker LocalCluster."""
    from dask.distributed import Client, LocalCluster

    if keep:
        environ = {f"distributed.nanny.pre-spawn-environ.{k}": str(v) for k, (_, v) in KEEP.items()}
        saved = dict(os.environ)
        with dask.config.set({**environ, **QUIET_CLUSTER}):
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=None)
        os.environ.clear()
        os.environ.update(saved)
        client = Client(cluster)
        things = [client, cluster]
    with session(client if keep else "local", workers) as dask_session:
        assert dask_session is not None
        client = dask_session.client
        warm_workers(study, max(2, reps // 8), client)
        rows = []
        for _ in range(repeat):
            before = workers_usage(client)
            seconds, ds = run(study, reps, client)
            after = workers_usage(client)
            xr.testing.assert_identical(ds, reference)
            rows.append((seconds, *(b - a for a, b in zip(before, after, strict=True))))
    if keep:
        for thing in things:
            thing.close()
    return summarise("dask/keep" if keep else "dask", workers, rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--study", choices=list(STUDIES), default="bayes")
    parser.add_argument("--reps", type=int, default=8)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--name", default="worker_memory", help="results file name")
    args = parser.parse_args()
    study = STUDIES[args.study]
    run(study, max(2, args.reps // 8))
    reference = run(study, args.reps)[1]
    rows = [
        serial_rows(study, args.reps, args.repeat, m, reference)
        for m in ("serial", "serial/thread")
    ]
    libc = ctypes.CDLL("libc.so.6")
    for number, value in KEEP.values():
        libc.mallopt(number, value)
    rows.append(serial_rows(study, args.reps, args.repeat, "serial/keep", reference))
    for workers in (int(w) for w in args.workers.split(",")):
        for keep in (False, True):
            rows.append(cluster_rows(study, args.reps, args.repeat, workers, keep, reference))
    print(f"{args.study} x {args.reps} reps, {available_cpus()} CPUs, median of {args.repeat}")
    print(
        f"{'mode':<15}{'W':>4}{'wall s':>9}{'speed-up':>10}{'user s':>9}{'system s':>10}"
        f"{'faults':>10}"
    )
    serial_s = rows[0]["wall_s"]
    for row in rows:
        print(
            f"{row['mode']:<15}{row['workers']:>4}{row['wall_s']:>9.2f}"
            f"{serial_s / row['wall_s']:>9.2f}x{row['user_s']:>9.2f}{row['system_s']:>10.2f}"
            f"{row['minor_faults']:>10,.0f}",
            flush=True,
        )
    payload = {"study": args.study, "reps": args.reps, "cpus": available_cpus(), "rows": rows}
    write_results(args.name, {**payload, "load_after": os.getloadavg()})


if __name__ == "__main__":
    main()
