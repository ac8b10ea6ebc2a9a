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

__all__ = ["ProgressBar", "is_enabled", "run_chunks"]


class ProgressBar:
    """A minimal text progress bar on stderr (no dependency); silent when disabled.

    ``enabled=None`` turns it on only when stderr is a terminal and the ``CI`` environment
    variable is unset. ``total=None`` draws a counter without a bar (a search of unknown
    length); :meth:`close` ends its line.
    """

    def __init__(
        self, total: int | None, enabled: bool | None, label: str = "coverage", unit: str = "chunks"
    ) -> None:
        self.total, self.enabled, self.label, self.unit = total, is_enabled(enabled), label, unit
        self.done, self.start, self.closed = 0, time.perf_counter(), False

    def update(self, count: int = 1) -> None:
        """Advance by ``count`` units and redraw."""
        self.done += count
        if not self.enabled or self.closed:
            return
        elapsed = time.perf_counter() - self.start
        if self.total is None:
            sys.stderr.write(f"\r{self.label}: {self.done} {self.unit} {elapsed:6.1f} s")
        else:
            fraction = min(self.done / self.total, 1.0) if self.total else 1.0
            bar = "#" * int(30 * fraction)
            sys.stderr.write(
                f"\r{self.label}: [{bar:<30}] {self.done}/{self.total} {self.unit} {elapsed:6.1f} s"
            )
            if self.done >= self.total:
                sys.stderr.write("\n")
                self.closed = True
        sys.stderr.flush()

    def close(self) -> None:
        """End the bar's line (once; nothing when disabled or already complete)."""
        if self.enabled and not self.closed and self.done:
            sys.stderr.write("\n")
            sys.stderr.flush()
        self.closed = True


def is_enabled(enabled: bool | None) -> bool:
    """Resolve a ``progress`` argument: None means "stderr is a terminal and ``CI`` is unset"."""
    if enabled is None:
        isatty = getattr(sys.stderr, "isatty", None)
        return bool(callable(isatty) and isatty()) and not os.environ.get("CI")
    return bool(enabled)


def _client(client: Any, n_workers: int | None) -> tuple[Any, list[Any]]:
    """Return (Client, things to close afterwards) for the ``client`` argument."""
    from dask.distributed import Client, LocalCluster

    if isinstance(client, Client):
        return client, []
    if client == "local":
        cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, dashboard_address=None)
        made = Client(cluster)
        return made, [made, cluster]
    if isinstance(client, str):
        made = Client(client)
        return made, [made]
    raise TypeError(
        f'`client` must be None, "local", a scheduler address or a '
        f"dask.distributed.Client, got {client!r}."
    )


def run_chunks(
    func: Callable[..., Any],
    spec: Any,
    payloads: Sequence[tuple[Any, ...]],
    *,
    client: Any = None,
    n_workers: int | None = None,
    progress: bool | None = None,
) -> list[Any]:
    """Return ``[func(spec, *payload) for payload in payloads]``, in order.

    ``client=None`` runs here; otherwise each payload is one Dask task (see
    :func:`judgestats.simulate.coverage` for the accepted values).
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
        futures = [
            dask_client.submit(func, spec_future, *payload, pure=False) for payload in payloads
        ]
        for _ in as_completed(futures):
            bar.update()
        return dask_client.gather(futures)
    finally:
        for thing in to_close:
            thing.close()
