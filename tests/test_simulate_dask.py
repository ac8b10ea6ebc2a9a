"""Coverage studies on Dask: chunk plans, worker set-up, identical results (judgestats._dask)."""

from __future__ import annotations

import os

import numpy as np
import pytest
import xarray as xr

from judgestats._dask import ENGINE_MAX_THREADS, QUIET_CLUSTER, available_cpus, session
from judgestats.simulate import coverage
from judgestats.simulate._chunking import (
    BAYES_MIN_PART_ROWS,
    BAYES_TASKS_PER_THREAD,
    GUARANTEED_MIN_PART_ROWS,
    TASKS_PER_THREAD,
    bayes_parts,
    guaranteed_parts,
    plan_chunks,
)
from judgestats.simulate._grid import grid, grid_parameters
from judgestats.simulate._kernels import (
    GROUP_COST,
    ChunkSpec,
    calibration_parts,
    evaluate_chunk,
    evaluate_part,
    guaranteed_cost,
    merge_parts,
    part_shares,
)

GRID = dict(theta=[0.2, 0.5, 0.8], q0=[0.7, 0.9], q1=[0.75, 0.9], n=[40, 80], m0=[10, 20], m1=10)


def flat_grid(**params):
    return grid(grid_parameters(**params, theta_cal=None, design="stratified"))[1]


def test_every_plan_holds_every_cell_once():
    flat = flat_grid(**GRID)
    for methods, threads in [
        (("lang_reiczigel",), None),
        (("lang_reiczigel",), 3),
        (("guaranteed",), 2),
        (("bayes_eti",), None),
        (("naive", "bayes_hdi"), 16),
    ]:
        chunks = plan_chunks(flat, 50_000, methods, False, None, threads)
        cells = np.sort(np.concatenate(chunks))
        np.testing.assert_array_equal(cells, np.arange(flat["theta"].size))


def test_bayes_chunks_are_calibration_settings_whatever_the_cluster():
    flat = flat_grid(**GRID)
    plans = [plan_chunks(flat, 100, ("bayes_eti",), False, None, t) for t in (None, 1, 2, 16)]
    for plan in plans[1:]:
        assert [c.tolist() for c in plan] == [c.tolist() for c in plans[0]]
    assert len(plans[0]) == 2 * 2 * 2  # q0 x q1 x m0 settings, theta and n inside each
    for chunk in plans[0]:
        for name in ("q0", "q1", "m0", "m1"):
            assert np.unique(flat[name][chunk]).size == 1
    # a setting is never split into chunks; its datasets are split into parts instead
    assert len(plan_chunks(flat, 2**17, ("bayes_eti",), False, None, None)) == len(plans[0])


def test_bayes_parts_follow_memory_and_the_cluster():
    flat = flat_grid(**GRID)
    chunks = plan_chunks(flat, 100, ("bayes_eti",), False, None, None)  # 8 chunks of 6 cells
    assert bayes_parts(chunks, 100, None) == [1] * 8  # 600 rows each: one part here
    assert bayes_parts(chunks, 2**17, None) == [3] * 8  # ceil(6 * 2**17 / 2**18)
    # BAYES_TASKS_PER_THREAD tasks per thread over 8 equal chunks of 6,000 rows
    assert bayes_parts(chunks, 1000, 16) == [BAYES_TASKS_PER_THREAD * 16 // 8] * 8
    assert bayes_parts(chunks, 1000, 1000) == [6000 // BAYES_MIN_PART_ROWS] * 8  # part floor
    assert bayes_parts(chunks, 100, 1000) == [600 // BAYES_MIN_PART_ROWS] * 8


def test_calibration_parts_keep_groups_whole_and_balance_them():
    rng = np.random.default_rng(5)
    data = {name: rng.integers(0, 4, size=(30, 40)) for name in ("k0", "k1")}
    data |= {"m0": np.full((30, 40), 9), "m1": np.full((30, 40), 9)}
    owner = calibration_parts(data, 3)
    key = data["k0"] * 10 + data["k1"]
    for group in np.unique(key):  # one part per group
        assert np.unique(owner[key == group]).size == 1
    assert set(np.unique(owner)) == {0, 1, 2}
    cost = [(owner == p).sum() + GROUP_COST * np.unique(key[owner == p]).size for p in range(3)]
    groups = np.unique(key, return_counts=True)[1] + GROUP_COST
    assert max(cost) - min(cost) <= groups.max()  # greedy: within one group of each other
    assert (calibration_parts(data, 1) == 0).all()


def test_guaranteed_parts_keep_distinct_datasets_and_calibrations_whole():
    """Groups of equal (n, k0, m0, k1, m1) stay whole; a part's cost is its distinct datasets;
    the split is deterministic and, with 2 parts, within one group's cost."""
    rng = np.random.default_rng(8)
    shape = (12, 30)
    data = {"k": rng.integers(0, 6, size=shape), "n": rng.choice([20, 40], size=shape)}
    data |= {name: rng.integers(3, 6, size=shape) for name in ("k0", "k1")}
    data |= {"m0": np.full(shape, 6), "m1": np.full(shape, 6)}
    owner = calibration_parts(data, 4, guaranteed=True)
    np.testing.assert_array_equal(owner, calibration_parts(data, 4, guaranteed=True))
    group = data["n"] * 100 + data["k0"] * 10 + data["k1"]
    dataset = group * 10 + data["k"]
    for key in np.unique(group):  # so every distinct dataset is in one part too
        assert np.unique(owner[group == key]).size == 1
    assert set(np.unique(owner)) == {0, 1, 2, 3}
    # estimated cost (J + 0.05) sqrt(m0 + m1) per distinct dataset; part 0 gets twice the
    # share of part P - 1, linearly in between, within one group's cost of it
    youden = np.maximum((data["k0"] + data["k1"]) / 6 - 1, 0)
    each = {
        d: c for d, c in zip(dataset.ravel(), ((youden + 0.05) * np.sqrt(12)).ravel(), strict=True)
    }
    largest = max(sum(each[d] for d in np.unique(dataset[group == g])) for g in np.unique(group))
    for parts, shares in [(2, [2, 1]), (3, [2, 1.5, 1])]:
        owner = calibration_parts(data, parts, guaranteed=True)
        cost = [sum(each[d] for d in np.unique(dataset[owner == p])) for p in range(parts)]
        assert cost == sorted(cost, reverse=True)
        per_share = np.array(cost) / shares
        assert per_share.max() - per_share.min() <= largest
    # the Bayesian groups ignore n (the exact engine shares R across test sizes)
    bayes = calibration_parts(data, 4)
    for key in np.unique(data["k0"] * 10 + data["k1"]):
        assert np.unique(bayes[data["k0"] * 10 + data["k1"] == key]).size == 1


def test_part_shares_are_equal_or_fall_linearly_from_twice_the_last():
    np.testing.assert_allclose(part_shares(1, decreasing=True), [1.0])
    np.testing.assert_allclose(part_shares(2, decreasing=True), [2 / 3, 1 / 3])
    np.testing.assert_allclose(
        part_shares(5, decreasing=True), np.array([2, 1.75, 1.5, 1.25, 1]) / 7.5
    )
    np.testing.assert_allclose(part_shares(4, decreasing=False), [0.25] * 4)


def test_guaranteed_cost_grows_with_youden_j_and_the_arms():
    data = {"k0": np.array([8, 3, 32]), "m0": np.array([10, 10, 40]), "k1": np.array([9, 4, 36])}
    data["m1"] = np.array([10, 10, 40])
    expected = [0.75 * np.sqrt(20), 0.05 * np.sqrt(20), 0.75 * np.sqrt(80)]  # J 0.7, < 0, 0.7
    np.testing.assert_allclose(guaranteed_cost(data), expected)


def test_guaranteed_results_do_not_depend_on_the_parts():
    flat = flat_grid(theta=[0.3, 0.7], q0=[0.6, 0.85], q1=0.9, n=[30, 50], m0=10, m1=[6, 10])
    reps = 6
    chunk = plan_chunks(flat, reps, ("guaranteed",), False, None, None)[0]
    values = {name: a[chunk] for name, a in flat.items()}
    spec = ChunkSpec(("naive", "guaranteed"), reps, 0.9, "stratified", "fixed", 0, False, 3)
    whole = evaluate_chunk(spec, chunk, values)
    assert np.isfinite(whole[:, 1, 0]).all()
    for parts in (1, 3, 7):
        results = [evaluate_part(spec, chunk, values, p, parts) for p in range(parts)]
        assert sorted(np.concatenate([r[0] for r in results])) == list(range(chunk.size * reps))
        np.testing.assert_array_equal(merge_parts(spec, values, results), whole)


def test_bayes_results_do_not_depend_on_the_parts():
    """Whole calibration groups per part: 1, 2 or 5 parts give the same bits (both methods)."""
    flat = flat_grid(theta=[0.3, 0.7], q0=0.8, q1=0.85, n=[40, 300], m0=8, m1=8)
    reps = 40
    chunk = plan_chunks(flat, reps, ("bayes_eti",), False, None, None)[0]
    values = {name: a[chunk] for name, a in flat.items()}
    for methods in [("bayes_eti",), ("bayes_hdi", "lang_reiczigel")]:
        spec = ChunkSpec(methods, reps, 0.9, "stratified", "fixed", 0, False, 11)
        whole = evaluate_chunk(spec, chunk, values)
        assert np.isfinite(whole[:, :, 0]).all()
        for parts in (1, 2, 5):
            results = [evaluate_part(spec, chunk, values, p, parts) for p in range(parts)]
            assert sorted(np.concatenate([r[0] for r in results])) == list(range(chunk.size * reps))
            np.testing.assert_array_equal(merge_parts(spec, values, results), whole)


def test_closed_form_chunks_adapt_to_the_cluster():
    flat = flat_grid(**GRID)  # 48 cells

    def count(reps, threads):
        return len(plan_chunks(flat, reps, ("lang_reiczigel",), False, None, threads))

    assert count(10_000, None) == 1  # 480,000 rows: under the memory cap
    assert count(10_000, 2) == 2 * TASKS_PER_THREAD
    assert count(10_000, 100) == 48 * 10_000 // 2**14  # no task under MIN_TASK_ROWS
    assert count(100, 2) == 1  # too little work to split


def test_guaranteed_chunks_do_not_depend_on_the_cluster_and_parts_do():
    """The guaranteed interval costs 0.01-0.3 s per distinct dataset: small studies split too,
    into parts of datasets (whole calibration groups), not into chunks of cells."""
    flat = flat_grid(**GRID)  # 48 cells, 16 settings of 3 cells (theta varies inside one)
    plans = [plan_chunks(flat, 20, ("guaranteed",), False, None, t) for t in (None, 2, 100)]
    for plan in plans:  # one chunk (cells ordered by setting), whatever the cluster
        assert len(plan) == 1 and plan[0].tolist() == plans[0][0].tolist()
    np.testing.assert_array_equal(np.sort(plans[0][0]), np.arange(48))
    assert guaranteed_parts(plans[0], 20, None) == [1]
    assert guaranteed_parts(plans[0], 20, 2) == [2 * TASKS_PER_THREAD]
    assert guaranteed_parts(plans[0], 20, 100) == [48 * 20 // GUARANTEED_MIN_PART_ROWS]
    # memory: chunks of whole settings at most CHUNK_ROWS replications, parts in proportion
    big = plan_chunks(flat, 2**16, ("guaranteed",), False, None, None)
    # 48 * 2**16 / 2**19 = 6 chunks: cuts at the setting edges (multiples of 3) nearest to
    # 8, 16, 24, 32, 40 cells
    assert [c.size for c in big] == [9, 6, 9, 9, 6, 9]
    assert guaranteed_parts(big, 2**16, 2) == [2, 1, 2, 2, 1, 2]  # ceil(8 * cells / 48)


def test_local_cluster_workers_use_the_default_allocator_and_leave_the_environment():
    pytest.importorskip("dask.distributed")
    before = {key: os.environ.get(key) for key in ("MALLOC_TRIM_THRESHOLD_", "OMP_NUM_THREADS")}
    with session("local", 1) as dask_session:
        assert dask_session is not None and dask_session.threads == 1
        assert dask_session.engine_threads == min(available_cpus(), ENGINE_MAX_THREADS)
        seen = dask_session.client.run(lambda: os.environ.get("MALLOC_TRIM_THRESHOLD_"))
        assert list(seen.values()) == [None]
        kwargs = dict(theta=[0.3, 0.6], q0=0.8, q1=[0.7, 0.9], n=30, m0=8, m1=8, random_seed=4)
        for method, reps in [(["naive", "lang_reiczigel"], 300), ("guaranteed", 6)]:
            local = coverage(method, reps=reps, **kwargs)
            remote = coverage(method, reps=reps, client=dask_session.client, **kwargs)
            xr.testing.assert_identical(local, remote)
    assert {key: os.environ.get(key) for key in before} == before


def test_local_cluster_runs_quiet_diagnostics_and_leaves_the_config():
    """No stack sampling in the workers, slow ticks in every server; this process's own
    Dask configuration is as it was (the settings only reach the cluster's servers)."""
    pytest.importorskip("dask.distributed")
    import dask

    before = {key: dask.config.get(key) for key in QUIET_CLUSTER}
    with session("local", 1) as dask_session:
        assert dask_session is not None
        client = dask_session.client

        def worker_state(dask_worker):
            return "profile" in dask_worker.periodic_callbacks, dask_worker._tick_interval

        assert list(client.run(worker_state).values()) == [(False, 0.2)]
        assert client.run_on_scheduler(lambda dask_scheduler: dask_scheduler._tick_interval) == 0.2
    assert {key: dask.config.get(key) for key in QUIET_CLUSTER} == before
    assert before["distributed.worker.profile.enabled"] is True  # dask's default, untouched


def test_thread_workers_share_the_cpus_and_bayes_and_guaranteed_are_identical():
    distributed = pytest.importorskip("dask.distributed")
    kwargs = dict(theta=[0.2, 0.7], q0=[0.75, 0.8], q1=0.8, n=[20, 40], m0=6, m1=6, reps=8)
    local = coverage("bayes_eti", random_seed=2, **kwargs)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
        session(client) as dask_session,
    ):
        assert dask_session is not None and dask_session.threads == 2
        assert dask_session.engine_threads == min(max(1, available_cpus() // 2), ENGINE_MAX_THREADS)
        remote = coverage("bayes_eti", random_seed=2, client=client, **kwargs)
        guaranteed = dict(kwargs, reps=5)  # 8 parts of datasets on the 2 workers
        local_guaranteed = coverage("guaranteed", random_seed=2, **guaranteed)
        remote_guaranteed = coverage("guaranteed", random_seed=2, client=client, **guaranteed)
    xr.testing.assert_identical(local, remote)
    xr.testing.assert_identical(local_guaranteed, remote_guaranteed)


@pytest.mark.slow
def test_the_same_study_twice_on_one_client_runs_both_times():
    """Regression: the spec was scattered under its content hash, so a second identical study
    on the same client reused the key while the first release of it was still in flight; the
    scheduler then dropped the data and cancelled tasks ("lost dependencies"), about one study
    in eight, every second one in ``bench_dask.py`` (which repeats each study on one cluster)."""
    distributed = pytest.importorskip("dask.distributed")
    kwargs = dict(theta=[0.2, 0.4, 0.6, 0.8], q0=[0.85, 0.9], q1=[0.85, 0.9], n=100, m0=20, m1=20)
    local = coverage("guaranteed", reps=2, random_seed=3, **kwargs)
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, dashboard_address=None
        ) as cluster,  # a worker process: the race did not show with thread workers
        distributed.Client(cluster) as client,
    ):
        for _ in range(12):
            remote = coverage("guaranteed", reps=2, random_seed=3, client=client, **kwargs)
            xr.testing.assert_identical(local, remote)


def test_run_chunks_submits_with_the_priorities_and_keeps_the_order(monkeypatch):
    """The largest parts are submitted with the highest priority; results stay in order."""
    distributed = pytest.importorskip("dask.distributed")
    from judgestats._dask import Session, run_chunks

    submitted = []

    class FakeClient:
        def scatter(self, spec, broadcast, hash):
            assert broadcast is True and hash is False  # a fresh key every study (below)
            return spec

        def submit(self, func, spec, *payload, pure, priority):
            submitted.append(priority)
            return func(spec, *payload)

        def gather(self, futures):
            return list(futures)

    monkeypatch.setattr(distributed, "as_completed", lambda futures: iter(futures))
    fake = Session(FakeClient(), threads=2, engine_threads=1)
    payloads = [(1,), (2,), (3,)]
    out = run_chunks(lambda spec, x: spec * x, 10, payloads, dask_session=fake, progress=False)
    assert out == [10, 20, 30] and submitted == [0.0, 0.0, 0.0]
    submitted.clear()
    ranked = run_chunks(
        lambda spec, x: spec + x, 1, payloads, dask_session=fake, priorities=[2.0, 9.0, 4.0]
    )
    assert ranked == [2, 3, 4] and submitted == [2.0, 9.0, 4.0]


def test_chunks_run_blas_on_one_thread(monkeypatch):
    """The exact engine's products round differently with more BLAS threads; a Dask worker has
    one, so every chunk runs with one (identical bits here and on any worker)."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    from judgestats.simulate import _kernels

    seen = []

    def spy(spec, cells, values):
        seen.extend(
            i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"
        )
        return np.zeros((cells.size, 1, len(_kernels.STATISTICS)))

    monkeypatch.setattr(_kernels, "_evaluate", spy)
    with threadpoolctl.threadpool_limits(2, user_api="blas"):
        _kernels.evaluate_chunk(None, np.arange(3), {})
    assert seen and set(seen) == {1}
