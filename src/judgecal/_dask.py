"""Run the chunks of a study in this process or on a Dask cluster, with a progress bar.

The chunks and the per-cell random streams are fixed before this module sees them, so where they
run (one process, a LocalCluster, a remote cluster; any number of workers) does not change the
results. ``dask.distributed`` is imported only when a cluster is asked for.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["ProgressBar", "run_chunks"]


class ProgressBar:
    """A minimal text progress bar on stderr (no dependency); silent when disabled."""

    def __init__(self, total: int, enabled: bool | None, label: str = "coverage") -> None:
        if enabled is None:
            enabled = sys.stderr.isatty() and not os.environ.get("CI")
        self.total, self.enabled, self.label = total, bool(enabled), label
        self.done, self.start = 0, time.perf_counter()

    def update(self, count: int = 1) -> None:
        """Advance by ``count`` chunks and redraw."""
        self.done += count
        if not self.enabled:
            return
        fraction = self.done / self.total if self.total else 1.0
        bar = "#" * int(30 * fraction)
        elapsed = time.perf_counter() - self.start
        sys.stderr.write(f"\r{self.label}: [{bar:<30}] {self.done}/{self.total} chunks "
                         f"{elapsed:6.1f} s")
        if self.done >= self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def _client(client: Any, n_workers: int | None) -> tuple[Any, list[Any]]:
    """Return (Client, things to close afterwards) for the ``client`` argument."""
    from dask.distributed import Client, LocalCluster

    if isinstance(client, Client):
        return client, []
    if client == "local":
        cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1,
                               dashboard_address=None)
        made = Client(cluster)
        return made, [made, cluster]
    if isinstance(client, str):
        made = Client(client)
        return made, [made]
    raise TypeError(f"`client` must be None, \"local\", a scheduler address or a "
                    f"dask.distributed.Client, got {client!r}.")


def run_chunks(func: Callable[..., Any], spec: Any, payloads: Sequence[tuple[Any, ...]], *,
               client: Any = None, n_workers: int | None = None,
               progress: bool | None = None) -> list[Any]:
    """Return ``[func(spec, *payload) for payload in payloads]``, in order.

    ``client=None`` runs here; otherwise each payload is one Dask task (see
    :func:`judgecal.simulate.coverage` for the accepted values).
    """
    bar = ProgressBar(len(payloads), progress)
    if client is None:
        results = []
        for payload in payloads:
            results.append(func(spec, *payload))
            bar.update()
        return results
    from dask.distributed import as_completed

    dask_client, to_close = _client(client, n_workers)
    try:
        spec_future = dask_client.scatter(spec, broadcast=True)
        futures = [dask_client.submit(func, spec_future, *payload, pure=False)
                   for payload in payloads]
        for _ in as_completed(futures):
            bar.update()
        return dask_client.gather(futures)
    finally:
        for thing in to_close:
            thing.close()
