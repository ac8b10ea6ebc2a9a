"""Run the chunks of a study in this process or on a Dask cluster, with a progress bar (tqdm).

The chunks and the per-cell random streams are fixed before this module sees them, so where they
run (one process, a LocalCluster, a remote cluster; any number of workers) does not change the
results. ``dask.distributed`` is imported only when a cluster is asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from judgestats._progress import Bar, progress_bar
from judgestats._validate import install_hint

__all__ = ["run_chunks"]


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
    bar = progress_bar(len(payloads), progress, desc="coverage", unit="chunks")
    try:
        if client is None:
            results = []
            for payload in payloads:
                results.append(func(spec, *payload))
                bar.update()
            return results
        return _run_on_dask(func, spec, payloads, client, n_workers, bar)
    finally:
        bar.close()


def _run_on_dask(
    func: Callable[..., Any],
    spec: Any,
    payloads: Sequence[tuple[Any, ...]],
    client: Any,
    n_workers: int | None,
    bar: Bar,
) -> list[Any]:
    """Each payload as one Dask task; the bar advances as tasks complete."""
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
