"""Data-generating process and coverage studies (judgestats.simulate).

Every expected number is derived here independently: a brute-force enumeration of the data space
with scipy's binomial pmf, the papers' equations written out by hand, or a published statement.
"""

import itertools
import math

import numpy as np
import pytest
import xarray as xr
from scipy.stats import binom

import judgestats as jc
from judgestats.bayes.exact import ExactPosterior
from judgestats.simulate import adaptive_allocation, coverage, simulate_counts

Z95 = 1.959963984540054


# ------------------------------------------------------------------------------------------------
# the data-generating process
# ------------------------------------------------------------------------------------------------
def test_counts_have_one_dim_per_swept_parameter_plus_rep():
    ds = simulate_counts(
        theta=[0.1, 0.5, 0.9], q0=[0.7, 0.8], q1=0.9, n=100, m0=20, m1=30, reps=7, random_seed=0
    )
    assert ds.k.dims == ("theta", "q0", "rep")
    assert ds.k.shape == (3, 2, 7)
    assert list(ds.theta.values) == [0.1, 0.5, 0.9]
    assert float(ds.q1) == 0.9 and int(ds.n) == 100
    assert (ds.m0_drawn == 20).all() and (ds.m1_drawn == 30).all()
    assert (ds.k <= 100).all() and (ds.k0 <= 20).all() and (ds.k1 <= 30).all()


def test_same_seed_same_dataset_and_different_seed_differs():
    kwargs = dict(theta=[0.2, 0.6], q0=0.7, q1=0.9, n=50, m0=10, m1=10, reps=50)
    a = simulate_counts(**kwargs, random_seed=5)
    xr.testing.assert_identical(a, simulate_counts(**kwargs, random_seed=5))
    assert not a.k.equals(simulate_counts(**kwargs, random_seed=6).k)
    gen = simulate_counts(**kwargs, random_seed=np.random.default_rng(1))
    assert gen.k.shape == a.k.shape


def test_test_counts_follow_eq9_mean_and_variance():
    # Lee et al. (ICML 2026) eq. (9): E[p-hat] = (q0 + q1 - 1) theta + 1 - q0; k ~ Bin(n, p)
    theta, q0, q1, n, reps = 0.3, 0.7, 0.9, 400, 20_000
    ds = simulate_counts(theta=theta, q0=q0, q1=q1, n=n, m0=50, m1=80, reps=reps, random_seed=2)
    p = (q0 + q1 - 1) * theta + 1 - q0
    k = ds.k.values
    assert abs(k.mean() - n * p) < 5 * math.sqrt(n * p * (1 - p) / reps)
    assert k.var() == pytest.approx(n * p * (1 - p), rel=0.05)
    assert abs(ds.k0.values.mean() - 50 * q0) < 5 * math.sqrt(50 * q0 * (1 - q0) / reps)
    assert abs(ds.k1.values.mean() - 80 * q1) < 5 * math.sqrt(80 * q1 * (1 - q1) / reps)


def test_random_design_draws_arm_sizes_from_the_calibration_population():
    # m1 ~ Bin(m0 + m1, theta_cal), m0 = m - m1 (Lee et al. (ICML 2026) Sec. 8)
    reps = 20_000
    ds = simulate_counts(
        theta=0.5,
        q0=0.7,
        q1=0.9,
        n=100,
        m0=60,
        m1=40,
        reps=reps,
        design="random",
        theta_cal=0.25,
        random_seed=3,
    )
    m1 = ds.m1_drawn.values
    assert ((ds.m0_drawn + ds.m1_drawn) == 100).all()
    assert abs(m1.mean() - 25) < 5 * math.sqrt(100 * 0.25 * 0.75 / reps)
    assert (ds.k1 <= ds.m1_drawn).all() and (ds.k0 <= ds.m0_drawn).all()


def test_adaptive_allocation_matches_algorithm_1_by_hand():
    # pilot 7/10 and 9/10: q0~ = 8/12, q1~ = 10/12, kappa = (4/12)/(2/12) = 2;
    # m1* = round(500 / (1 + (1/0.4 - 1) sqrt 2)) = round(160.19) = 160, m0 = 340
    m0, m1 = adaptive_allocation(500, 0.4, 7, 9, 10)
    assert (int(m0), int(m1)) == (340, 160)
    # p-hat = 0: m1* = 0 is raised to the pilot size; p-hat = 1: m1* = m is capped at m - pilot
    m0, m1 = adaptive_allocation(500, np.array([0.0, 1.0]), 7, 9, 10)
    assert m1.tolist() == [10, 490] and m0.tolist() == [490, 10]


def test_adaptive_design_keeps_the_budget():
    ds = simulate_counts(
        theta=[0.1, 0.9],
        q0=0.7,
        q1=0.9,
        n=1000,
        m0=250,
        m1=250,
        reps=200,
        allocation="adaptive",
        random_seed=4,
    )
    assert ((ds.m0_drawn + ds.m1_drawn) == 500).all()
    assert (ds.m0_drawn >= 10).all() and (ds.m1_drawn >= 10).all()
    # Prop. 2: low accuracy (p-hat ~ 0.34) favours m0, high accuracy (p-hat ~ 0.84) favours m1
    mean_m0 = ds.m0_drawn.mean("rep").values
    assert mean_m0[0] > 250 > mean_m0[1]


def test_a_shared_dimension_sweeps_m0_and_m1_together():
    m = xr.DataArray([5, 10], dims="m")
    ds = coverage("naive", theta=0.5, q0=0.8, q1=0.8, n=100, m0=m, m1=m, reps=10, random_seed=0)
    assert ds.coverage.dims == ("m",)
    assert ds.m0.values.tolist() == [5, 10] and ds.m1.dims == ("m",)


# ------------------------------------------------------------------------------------------------
# exact coverage against a brute-force enumeration
# ------------------------------------------------------------------------------------------------
def _brute_force_lang_reiczigel(theta, q0, q1, n, m0, m1):
    """Sum the joint pmf over every (k, k0, k1), one scalar interval at a time."""
    p = theta * q1 + (1 - theta) * (1 - q0)
    covered = width = bias = defined = est_mass = 0.0
    for k, k0, k1 in itertools.product(range(n + 1), range(m0 + 1), range(m1 + 1)):
        w = binom.pmf(k, n, p) * binom.pmf(k0, m0, q0) * binom.pmf(k1, m1, q1)
        try:
            low, high = jc.lang_reiczigel_ci(k / n, k0 / m0, k1 / m1, n, m0, m1)
        except ValueError:  # adjusted judge no better than chance: no interval
            low = high = None
        if low is not None:
            defined += w
            width += w * (high - low)
            covered += w * (low <= theta <= high)
        if k0 / m0 + k1 / m1 > 1:  # eq. (4) exists
            est = min(1.0, max(0.0, (k / n + k0 / m0 - 1) / (k0 / m0 + k1 / m1 - 1)))
            est_mass += w
            bias += w * (est - theta)
    return covered, width / defined, bias / est_mass, 1 - defined


@pytest.mark.parametrize("theta", [0.0, 0.3, 0.85])
def test_exact_coverage_equals_brute_force_enumeration(theta):
    q0, q1, n, m0, m1 = 0.7, 0.75, 7, 4, 5
    ds = coverage("lang_reiczigel", theta=theta, q0=q0, q1=q1, n=n, m0=m0, m1=m1, exact=True)
    cover, width, bias, undefined = _brute_force_lang_reiczigel(theta, q0, q1, n, m0, m1)
    assert float(ds.coverage) == pytest.approx(cover, abs=1e-10)
    assert float(ds.width_mean) == pytest.approx(width, abs=1e-10)
    assert float(ds.bias) == pytest.approx(bias, abs=1e-10)
    assert float(ds.undefined_fraction) == pytest.approx(undefined, abs=1e-10)
    assert float(ds.coverage_se) == 0.0


def test_exact_naive_coverage_and_bias_by_hand():
    # Wald interval p-hat +- z sqrt(p-hat(1 - p-hat)/n) (eq. 2); E[p-hat] - theta = p - theta
    theta, q0, q1, n = 0.4, 0.8, 0.7, 60
    p = theta * q1 + (1 - theta) * (1 - q0)
    cover = 0.0
    for k in range(n + 1):
        ph = k / n
        half = Z95 * math.sqrt(ph * (1 - ph) / n)
        cover += binom.pmf(k, n, p) * (max(0, ph - half) <= theta <= min(1, ph + half))
    ds = coverage("naive", theta=theta, q0=q0, q1=q1, n=n, m0=10, m1=10, exact=True)
    assert float(ds.coverage) == pytest.approx(cover, abs=1e-10)
    assert float(ds.bias) == pytest.approx(p - theta, abs=1e-10)  # tails below 1e-12 cut
    assert float(ds.rmse) == pytest.approx(math.sqrt((p - theta) ** 2 + p * (1 - p) / n), abs=1e-10)


def test_monte_carlo_agrees_with_exact_within_its_standard_error():
    kwargs = dict(theta=[0.1, 0.5, 0.9], q0=0.8, q1=0.7, n=300, m0=30, m1=40)
    mc = coverage("lang_reiczigel", reps=4000, random_seed=11, **kwargs)
    ex = coverage("lang_reiczigel", exact=True, **kwargs)
    z = np.abs(mc.coverage - ex.coverage) / mc.coverage_se
    assert (z < 4.5).all()
    assert np.allclose(mc.width_mean, ex.width_mean, rtol=0.02)
    se = mc.coverage_se.values
    c = mc.coverage.values
    assert np.allclose(se, np.sqrt(c * (1 - c) / 4000))


# ------------------------------------------------------------------------------------------------
# the papers' statements
# ------------------------------------------------------------------------------------------------
def test_fig4_lang_reiczigel_covers_about_95_percent_for_every_theta():
    # Lee et al. v1 Fig. 4b: (q0, q1) = (0.7, 0.9), n = 1000, m0 = m1 = 250; coverage "consistently
    # close to the nominal 95% level", while the naive interval has "nearly zero coverage except
    # at a few values of theta" (the judged rate p equals theta only at theta = 0.75)
    theta = [0.0, 0.25, 0.5, 0.95]
    ds = coverage("lang_reiczigel", theta=theta, q0=0.7, q1=0.9, n=1000, m0=250, m1=250, exact=True)
    assert ((ds.coverage > 0.945) & (ds.coverage < 0.975)).all()
    naive = coverage(
        "naive", theta=theta + [0.75], q0=0.7, q1=0.9, n=1000, m0=250, m1=250, exact=True
    )
    assert (naive.coverage.values[:4] < 0.01).all()
    assert naive.coverage.values[4] > 0.9


def test_appendix_c_small_design_still_covers():
    # Lee et al. v1 App. C: n = 200, m0 + m1 = 200, (q0, q1) = (0.7, 0.7): coverage attains nominal
    ds = coverage(
        "lang_reiczigel", theta=[0.2, 0.5, 0.8], q0=0.7, q1=0.7, n=200, m0=100, m1=100, exact=True
    )
    assert ((ds.coverage > 0.94) & (ds.coverage < 0.99)).all()


# ------------------------------------------------------------------------------------------------
# Bayesian methods: the posterior median and the same data stream
# ------------------------------------------------------------------------------------------------
def test_bayes_uses_the_posterior_median_of_the_same_draws():
    kwargs = dict(theta=0.3, q0=0.8, q1=0.85, n=40, m0=8, m1=9)
    data = simulate_counts(**kwargs, reps=3, random_seed=21)
    ds = coverage("bayes_eti", **kwargs, reps=3, random_seed=21)
    medians, covered = [], []
    for r in range(3):
        counts = jc.JudgeData(int(data.k[r]), 40, int(data.k0[r]), 8, int(data.k1[r]), 9)
        post = ExactPosterior(counts)
        medians.append(float(post.quantile(0.5)))
        low, high = post.interval(0.95, "eti")
        covered.append(low <= 0.3 <= high)
    assert float(ds.bias) == pytest.approx(np.mean(medians) - 0.3, abs=1e-6)
    assert float(ds.coverage) == pytest.approx(np.mean(covered))
    assert ds.attrs["point_estimate"] == "posterior median"


def test_bayes_hdi_is_no_wider_than_eti():
    kwargs = dict(theta=0.9, q0=0.8, q1=0.8, n=30, m0=6, m1=6, reps=8, random_seed=2)
    eti = coverage("bayes_eti", **kwargs)
    hdi = coverage("bayes_hdi", **kwargs)
    assert float(hdi.width_mean) <= float(eti.width_mean) + 1e-9
    assert float(hdi.bias) == pytest.approx(float(eti.bias), abs=1e-9)  # same median


# ------------------------------------------------------------------------------------------------
# chunking and Dask: identical results
# ------------------------------------------------------------------------------------------------
GRID = dict(
    theta=[0.1, 0.5, 0.9], q0=[0.65, 0.8], q1=0.9, n=150, m0=15, m1=25, reps=500, random_seed=7
)


def test_results_do_not_depend_on_chunking():
    a = coverage("lang_reiczigel", **GRID)
    b = coverage("lang_reiczigel", chunk_cells=1, **GRID)
    c = coverage("lang_reiczigel", chunk_cells=4, **GRID)
    xr.testing.assert_identical(a, b)
    xr.testing.assert_identical(a, c)


def test_two_worker_local_cluster_gives_identical_results():
    distributed = pytest.importorskip("dask.distributed")
    local = coverage("lang_reiczigel", chunk_cells=2, **GRID)
    bayes_kwargs = dict(
        theta=[0.2, 0.7], q0=0.8, q1=0.8, n=20, m0=5, m1=5, reps=6, random_seed=1, chunk_cells=1
    )
    bayes_local = coverage("bayes_eti", **bayes_kwargs)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        assert len(client.scheduler_info()["workers"]) == 2
        remote = coverage("lang_reiczigel", client=client, chunk_cells=1, **GRID)
        bayes_remote = coverage("bayes_eti", client=client, **bayes_kwargs)
    xr.testing.assert_identical(local, remote)
    xr.testing.assert_identical(bayes_local, bayes_remote)


def test_progress_bar_reports_chunks(capsys):
    coverage(
        "naive",
        theta=[0.2, 0.4],
        q0=0.8,
        q1=0.8,
        n=10,
        m0=5,
        m1=5,
        reps=5,
        chunk_cells=1,
        progress=True,
        random_seed=0,
    )
    err = capsys.readouterr().err  # tqdm's bar: "coverage: 100%|...| 2/2 [..., ...chunks/s]"
    assert "coverage: 100%" in err and "2/2" in err and "chunks" in err
    coverage("naive", theta=0.2, q0=0.8, q1=0.8, n=10, m0=5, m1=5, reps=5, progress=False)
    assert capsys.readouterr().err == ""


# ------------------------------------------------------------------------------------------------
# bad input and flagged cells
# ------------------------------------------------------------------------------------------------
def test_cells_with_a_judge_no_better_than_chance_are_nan_and_flagged():
    with pytest.warns(jc.JudgeStatsWarning, match="1 of 2 grid cells"):
        ds = coverage(
            "lang_reiczigel",
            theta=0.5,
            q0=[0.3, 0.9],
            q1=0.6,
            n=50,
            m0=10,
            m1=10,
            reps=20,
            random_seed=0,
        )
    assert ds.no_better_than_chance.values.tolist() == [True, False]
    assert np.isnan(ds.coverage.values[0]) and not np.isnan(ds.coverage.values[1])


BASE = dict(theta=0.5, q0=0.8, q1=0.8, n=50, m0=10, m1=10)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"method": "bootstrap"}, r"`method` \('bootstrap'\) must be one of"),
        ({"reps": 0}, r"`reps` \(0\) must be a positive integer"),
        ({"confidence_level": 1.5}, r"`confidence_level` \(1.5\) must lie strictly between"),
        ({"theta": [0.2, 1.2]}, r"`theta` must lie in \[0, 1\]; got 1.2 at index 1"),
        ({"n": 0}, r"`n` \(0\) must be at least 1"),
        ({"m0": [10, 2.5]}, r"`m0` must be a whole number"),
        ({"q1": [[0.8]]}, r"`q1` must be a scalar or a 1-D sequence"),
        ({"q0": []}, r"`q0` must not be empty"),
        ({"design": "cluster"}, r"`design` \('cluster'\) must be one of"),
        ({"method": "bayes_eti", "exact": True}, r"`exact=True` sums the joint pmf"),
        ({"exact": True, "design": "random"}, r"`exact=True` needs the stratified design"),
        ({"allocation": "adaptive", "design": "random"}, r"needs the design \"stratified\""),
        (
            {"allocation": "adaptive", "m0": 5, "m1": 5},
            r"budget `m0` \+ `m1` of at least 2 \* `m_pilot` \(20\); got 10",
        ),
        ({"theta_cal": 0.3}, r"`theta_cal` .* only enters the design \"random\""),
    ],
)
def test_bad_input_raises_a_clear_error(changes, message):
    kwargs = {"method": "lang_reiczigel", **BASE, "reps": 5, **changes}
    method = kwargs.pop("method")
    with pytest.raises(ValueError, match=message):
        coverage(method, **kwargs)


def test_bad_client_and_seed_types():
    with pytest.raises(TypeError, match="`client` must be None"):
        coverage("naive", **BASE, reps=2, client=3)
    with pytest.raises(TypeError, match="`reps` must be a positive integer, got '2'"):
        coverage("naive", **BASE, reps="2")
    with pytest.raises(ValueError, match=r"`reps` \(2.5\) must be a positive integer"):
        coverage("naive", **BASE, reps=2.5)


def test_a_repeated_grid_value_and_zero_workers_are_refused():
    with pytest.raises(ValueError, match=r"`theta` repeats a value \(0.5, 2 times\)"):
        coverage("lang_reiczigel", theta=[0.5, 0.5], q0=0.8, q1=0.8, n=100, m0=20, m1=20, reps=5)
    with pytest.raises(ValueError, match="`n_workers`"):
        coverage(
            "lang_reiczigel", theta=0.5, q0=0.8, q1=0.8, n=100, m0=20, m1=20, reps=5,
            client="local", n_workers=0,
        )  # fmt: skip
