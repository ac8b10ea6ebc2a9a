"""benchmarks/bench_dask.py's warm-up reaches every worker of a cluster (issue 27)."""

from __future__ import annotations

import pytest
from _script_modules import load_benchmark

distributed = pytest.importorskip("distributed")

TINY = dict(
    method="lang_reiczigel",
    grid=dict(theta=[0.3, 0.6], q0=0.8, q1=0.9, n=100, m0=20, m1=20),
)


def test_warm_up_runs_one_task_on_every_worker_where_a_small_study_would_not():
    bench_dask = load_benchmark("bench_dask")
    with (
        distributed.LocalCluster(
            n_workers=3, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        workers = set(client.scheduler_info()["workers"])
        assert bench_dask.warm_workers(TINY, 2, client) == workers
        # the old warm-up, the small study on the cluster: 2 cells x 2 reps make one task
        assert bench_dask.tasks(TINY, 2, len(workers)) < len(workers)
