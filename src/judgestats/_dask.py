"""Run the chunks of a study in this process or on a Dask cluster, with a progress bar (tqdm).

The chunks and the per-cell random streams are fixed before this module sees them, so where they
run (one process, a LocalCluster, a remote cluster; any number of workers) does not change the
results. ``dask.distributed`` is imported only when a cluster is asked for.

Where the time goes on a cluster, and what this module does about it:

* **The allocator.** dask's nanny spawns every worker with ``MALLOC_TRIM_THRESHOLD_=65536``
  (config ``distributed.nanny.pre-spawn-environ``). Setting it switches off glibc's dynamic mmap
  threshold, so every array over 128 KiB -- every temporary of a chunk -- is a fresh ``mmap``,
  zero-filled page by page, then unmapped: the same chunk ran 1.7-3x slower in a worker than in
  the calling process. The LocalCluster started for ``client="local"`` spawns its workers without
  it (glibc's defaults, as in the calling process); for a cluster of your own, start its workers
  with that variable unset (``MALLOC_TRIM_THRESHOLD_`` set to null in that config key).
* **Diagnostics.** Every worker samples the stack of its running task every 10 ms for the
  dashboard's profile (``distributed.worker.profile``), and every server (scheduler, nannies,
  workers) ticks its event loop every 20 ms and polls the system every 500 ms. During the
  2-worker Bayesian sweep of ``benchmarks/bench_dask.py`` on the 2-core machine this took
  2.8-3.2% of a core in each worker and 2.8-3.6% in the scheduler's process (CPU time of each
  thread, ``psutil``, two runs): 4-5% of the machine, taken from the tasks, which keep every
  core busy. The LocalCluster started for ``client="local"`` has no dashboard, so its workers
  do not profile, and its servers tick every 200 ms and poll every 2 s (:data:`QUIET_CLUSTER`):
  0.6% of a core per worker and 1.2% in the scheduler's process, 1.2% of the machine. A
  cluster of your own can be started with the same settings.
* **Threads.** A task must not start a thread per CPU in every worker:
  :attr:`Session.engine_threads` shares the CPUs of a host among the worker threads on it (at
  most :data:`ENGINE_MAX_THREADS`, the exact posterior engine's own default cap).
* **Task counts.** The caller sizes the chunks with :attr:`Session.threads` (several tasks per
  worker thread), and every task returns its chunk already reduced to per-cell statistics, or
  a part of a chunk as the intervals of its datasets (kilobytes; merged by the caller). How a
  study is split, and what the split costs, is told in :mod:`judgestats.simulate._chunking`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from typing import Any

from judgestats._progress import progress_bar
from judgestats._validate import install_hint

__all__ = [
    "ENGINE_MAX_THREADS",
    "QUIET_CLUSTER",
    "Session",
    "available_cpus",
    "one_blas_thread",
    "run_chunks",
    "session",
]

_PRE_SPAWN = "distributed.nanny.pre-spawn-environ"
#: Threads the exact posterior engine starts by default, at most: its work is many small numpy
#: operations that contend for the GIL, so more threads stop paying (16 CPUs, 2,000 datasets,
#: ``benchmarks/bench_engine_threads.py``: 1.45x at 2 threads, no better at 4, slower at 8-16).
ENGINE_MAX_THREADS = 4
_MALLOC = "MALLOC_TRIM_THRESHOLD_"
#: Dask settings of the LocalCluster started for ``client="local"`` (see the module docstring):
#: no statistical profiler in the workers (nothing shows it: the cluster has no dashboard), and
#: slower event-loop ticks and system polls (for diagnostics only) in every server.
QUIET_CLUSTER = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "200ms",
    "distributed.admin.system-monitor.interval": "2s",
}


_CONTROLLER: list[Any] = []


def one_blas_thread() -> AbstractContextManager[Any]:
    """A block in which BLAS runs on one thread (threadpoolctl; a no-op without it).

    The exact posterior engine multiplies many small matrices: a multi-threaded BLAS runs them
    far slower (its threads wait for each other and for the engine's own threads), and rounds
    them differently with another thread count. The controller that finds the BLAS libraries
    is made once (a few milliseconds), so entering the block costs microseconds.
    """
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # pragma: no cover - a dependency
        return nullcontext()
    if not _CONTROLLER:
        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0].limit(limits=1, user_api="blas")


def available_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the platform has one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class Session:
    """A Dask client for one study, and how many threads its tasks may use."""

    client: Any
    #: Worker threads of the cluster (tasks that can run at once).
    threads: int
    #: Threads one task may start (CPUs of its host / worker threads on that host; at least 1,
    #: at most :data:`ENGINE_MAX_THREADS`).
    engine_threads: int


@contextmanager
def _worker_environment() -> Iterator[None]:
    """Start a cluster with :data:`QUIET_CLUSTER` and its workers with glibc's allocator.

    This process's environment and Dask configuration are left as they were. The nanny writes
    its pre-spawn variables into this process's ``os.environ`` too (the workers inherit them
    from there); the old values are put back once the workers run. The servers read the
    settings when they start, and the nannies hand them to their workers.
    """
    import dask

    keys = {str(key) for key in dask.config.get(_PRE_SPAWN, {})} | {_MALLOC}
    saved = {key: os.environ.get(key) for key in keys}
    os.environ.pop(_MALLOC, None)
    try:
        with dask.config.set({f"{_PRE_SPAWN}.{_MALLOC}": None, **QUIET_CLUSTER}):
            yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _client(client: Any, n_workers: int | None) -> tuple[Any, list[Any]]:
    """Return (Client, things to close afterwards) for the ``client`` argument."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise ImportError(
            f"`client` ({client!r}) needs dask.distributed, which is not installed: "
            f"{install_hint('dask')}."
        ) from None

    if isinstance(client, Client):
        return client, []
    if client == "local":
        with _worker_environment():
            cluster = LocalCluster(
                n_workers=n_workers, threads_per_worker=1, dashboard_address=None
            )
        made = Client(cluster)
        return made, [made, cluster]
    if isinstance(client, str):
        made = Client(client)
        return made, [made]
    raise TypeError(
        f'`client` must be None, "local", a scheduler address or a '
        f"dask.distributed.Client, got {client!r}."
    )


def _threads(dask_client: Any) -> tuple[int, int]:
    """(worker threads of the cluster, threads one task may use)."""
    workers = dask_client.scheduler_info()["workers"]
    if not workers:
        return 1, 1
    per_host: dict[str, int] = {}
    for info in workers.values():
        per_host[info["host"]] = per_host.get(info["host"], 0) + int(info["nthreads"])
    cpus = dask_client.run(available_cpus)
    engine = min(
        max(1, int(cpus.get(address, 1)) // per_host[info["host"]])
        for address, info in workers.items()
    )
    engine = min(engine, ENGINE_MAX_THREADS)
    return sum(per_host.values()), engine


@contextmanager
def session(client: Any, n_workers: int | None = None) -> Iterator[Session | None]:
    """The Dask session of one study (None: compute in this process).

    ``client`` is None, ``"local"`` (a LocalCluster of ``n_workers`` single-threaded worker
    processes, closed on exit), a scheduler address, or a ``dask.distributed.Client`` (used as
    is, left open).
    """
    if client is None:
        yield None
        return
    dask_client, to_close = _client(client, n_workers)
    try:
        threads, engine = _threads(dask_client)
        yield Session(dask_client, threads, engine)
    finally:
        for thing in to_close:
            thing.close()


def run_chunks(
    func: Callable[..., Any],
    spec: Any,
    payloads: Sequence[tuple[Any, ...]],
    *,
    dask_session: Session | None = None,
    progress: bool | None = None,
    priorities: Sequence[float] | None = None,
) -> list[Any]:
    """Return ``[func(spec, *payload) for payload in payloads]``, in order.

    Without a session the payloads run here, one after the other; with one, each payload is one
    Dask task and ``spec`` is sent to every worker once. ``priorities`` (one per payload,
    higher first; e.g. the estimated cost, so that the largest tasks start first and the
    smallest fill the end) orders the tasks on the cluster; it does not change the results.
    """
    bar = progress_bar(len(payloads), progress, desc="coverage", unit="chunks")
    try:
        if dask_session is None:
            results = []
            for payload in payloads:
                results.append(func(spec, *payload))
                bar.update()
            return results
        from dask.distributed import as_completed

        dask_client = dask_session.client
        # a fresh key every call (hash=False): with the content hash as key, a second study with
        # the same spec reuses the key while the first call's release of it is still on its way
        # to the scheduler, which then drops the data and cancels the tasks ("lost dependencies")
        spec_future = dask_client.scatter(spec, broadcast=True, hash=False)
        order = [0.0] * len(payloads) if priorities is None else list(priorities)
        futures = [
            dask_client.submit(func, spec_future, *payload, pure=False, priority=priority)
            for payload, priority in zip(payloads, order, strict=True)
        ]
        for _ in as_completed(futures):
            bar.update()
        return dask_client.gather(futures)
    finally:
        bar.close()
