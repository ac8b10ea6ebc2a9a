"""Tests of the exact (quadrature) posterior against independent derivations."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from _script_modules import load_file
from scipy import special, stats

from judgestats.bayes.exact import (
    ExactPosterior,
    exact_interval,
    exact_quantiles,
)
from judgestats.bayes.priors import Prior
from judgestats.data import JudgeData

PAPER = JudgeData(k=400, n=1000, k0=140, m0=200, k1=180, m1=200)


SMALL_CASES = [
    (JudgeData(k=6, n=20, k0=8, m0=10, k1=9, m1=10), Prior()),
    (JudgeData(k=6, n=20, k0=8, m0=10, k1=9, m1=10), Prior(theta=(2, 5), better_than_chance=False)),
    (JudgeData(k=3, n=15, k0=5, m0=8, k1=6, m1=8), Prior(q0=(2, 2), better_than_chance=True)),
]


REFERENCE = Path(__file__).resolve().parent / "reference"
#: Brute-force references made by tests/reference/make_exact_brute_force.py (numpy and scipy
#: only: a 3-D Gauss-Legendre integration of prior x likelihood; the n -> inf limit along rays).
BRUTE_FORCE = json.loads((REFERENCE / "exact_brute_force.json").read_text())


def _load_maker():
    return load_file(REFERENCE / "make_exact_brute_force.py", "_judgestats_make_exact_brute_force")


def _prior_row(prior: Prior) -> list:
    return [list(prior.theta), list(prior.q0), list(prior.q1), prior.better_than_chance]


def _counts(data: JudgeData) -> list[int]:
    return [data.k, data.n, data.k0, data.m0, data.k1, data.m1]


@pytest.mark.parametrize(("case", "data", "prior"), [(i, *c) for i, c in enumerate(SMALL_CASES)])
def test_cdf_and_quantiles_match_brute_force(case, data, prior):
    ref = BRUTE_FORCE["small_cases"][case]
    assert ref["counts"] == _counts(data) and ref["prior"] == _prior_row(prior)
    post = ExactPosterior(data, prior)
    for x, want in ref["cdf"].items():
        assert post.cdf(float(x)) == pytest.approx(want, abs=1e-5)
    for q, want in ref["quantile"].items():
        assert post.quantile(float(q)) == pytest.approx(want, abs=1e-4)


@pytest.mark.slow
def test_stored_brute_force_is_reproducible():
    """The script recomputes a stored number (one CDF value of the 3-D brute force)."""
    maker = _load_maker()
    counts, prior = maker.SMALL_CASES[0]
    got = maker.brute_force_cdf(counts, prior, maker.SMALL_CDF_AT[0])
    assert got == pytest.approx(BRUTE_FORCE["small_cases"][0]["cdf"]["0.2"], abs=1e-13)
    assert [list(c) for c, _ in maker.SMALL_CASES] == [
        c["counts"] for c in BRUTE_FORCE["small_cases"]
    ]
    assert [list(c) for c in maker.P_LIMIT_CASES] == [c["counts"] for c in BRUTE_FORCE["p_limit"]]


def test_published_example_uniform_priors():
    post = ExactPosterior(PAPER)
    assert post.mean() == pytest.approx(0.1615, abs=0.002)
    low, high = post.interval(0.95, "eti")
    assert low == pytest.approx(0.051, abs=0.002)
    assert high == pytest.approx(0.258, abs=0.002)


def test_santa_clara_hdi():
    post = ExactPosterior(JudgeData(k=50, n=3330, k0=399, m0=401, k1=103, m1=122))
    low, high = post.interval(0.95, "hdi")
    assert low == pytest.approx(0.001, abs=0.0015)
    assert high == pytest.approx(0.018, abs=0.0015)


def test_known_judge_gives_conjugate_beta():
    big = 10**7
    data = JudgeData(k=30, n=100, k0=big, m0=big, k1=big, m1=big)
    post = ExactPosterior(data)
    qs = np.array([0.025, 0.25, 0.5, 0.75, 0.975])
    np.testing.assert_allclose(post.quantile(qs), stats.beta.ppf(qs, 31, 71), atol=2e-4)
    assert post.mean() == pytest.approx(31 / 102, abs=2e-4)


def test_vectorised_equals_scalar():
    ks = np.array([380, 400, 420])
    k0 = np.array([140, 140, 150])
    q = exact_quantiles(ks, 1000, k0, 200, 180, 200, [0.05, 0.5])
    assert q.shape == (3, 2)
    for i in range(3):
        post = ExactPosterior(JudgeData(int(ks[i]), 1000, int(k0[i]), 200, 180, 200))
        np.testing.assert_allclose(q[i], post.quantile([0.05, 0.5]), atol=1e-8)
        low, high = exact_interval(ks[i], 1000, k0[i], 200, 180, 200, kind="hdi")
        np.testing.assert_allclose([low, high], post.interval(kind="hdi"), atol=1e-7)
    assert exact_quantiles(400, 1000, 140, 200, 180, 200, 0.5).shape == ()


def test_sampling_reproducible_and_matches_quantiles():
    post = ExactPosterior(PAPER)
    a = post.sample(4000, random_seed=3)
    b = post.sample(4000, random_seed=np.random.default_rng(3))
    for name in ("theta", "q0", "q1"):
        np.testing.assert_array_equal(a[name], b[name])
    qs = np.array([0.1, 0.5, 0.9])
    emp = np.quantile(a["theta"], qs)
    se = np.sqrt(qs * (1 - qs) / 4000) / post.pdf(post.quantile(qs))
    assert np.all(np.abs(emp - post.quantile(qs)) < 4 * se)
    state = np.random.get_state()[1].copy()  # noqa: NPY002
    post.sample(10, random_seed=1)
    after = np.random.get_state()[1]  # noqa: NPY002
    np.testing.assert_array_equal(after, state)


def test_interval_ordering_and_hdi_shorter():
    post = ExactPosterior(PAPER)
    e_lo, e_hi = post.interval(0.95, "eti")
    h_lo, h_hi = post.interval(0.95, "hdi")
    n_lo, n_hi = post.interval(0.5, "eti")
    assert 0 <= e_lo < n_lo < n_hi < e_hi <= 1
    assert h_hi - h_lo <= e_hi - e_lo + 1e-9
    assert post.pdf(h_lo) == pytest.approx(post.pdf(h_hi), rel=1e-4)
    assert e_lo < post.mode() < e_hi


def test_hdi_at_boundary():
    post = ExactPosterior(JudgeData(k=5, n=1000, k0=190, m0=200, k1=180, m1=200))
    low, high = post.interval(0.95, "hdi")
    assert low == 0.0
    assert high == pytest.approx(post.quantile(0.95), abs=1e-9)


def test_errors():
    post = ExactPosterior(PAPER)
    with pytest.raises(TypeError, match="`data`"):
        ExactPosterior((400, 1000, 140, 200, 180, 200))
    with pytest.raises(ValueError, match=r"`prob` \(1\.5\)"):
        post.interval(1.5)
    with pytest.raises(ValueError, match=r"`kind` \('foo'\) must be 'eti' or 'hdi'\."):
        post.interval(kind="foo")
    with pytest.raises(ValueError, match="`q`"):
        post.quantile(1.0)
    with pytest.raises(ValueError, match="`var`"):
        post.cdf(0.5, var="kappa")
    with pytest.raises(ValueError, match="`k` must not exceed `n`"):
        exact_quantiles([1200], 1000, 140, 200, 180, 200, 0.5)


def test_q_moments_include_the_theta_prior():
    """Cell weights integrate the test likelihood against the theta prior (brute force 3-D)."""
    data, prior = SMALL_CASES[1]
    (at, bt), (a0, b0), (a1, b1) = prior.theta, prior.q0, prior.q1
    nodes, weights = np.polynomial.legendre.leggauss(120)
    u, wu = (nodes + 1) / 2, weights / 2
    q0, q1, t = u[:, None, None], u[None, :, None], u[None, None, :]
    p = t * q1 + (1 - t) * (1 - q0)
    dens = (
        stats.beta.pdf(t, at, bt)
        * stats.beta.pdf(q0, a0 + data.k0, b0 + data.m0 - data.k0)
        * stats.beta.pdf(q1, a1 + data.k1, b1 + data.m1 - data.k1)
        * stats.binom.pmf(data.k, data.n, p)
    )
    w = wu[:, None, None] * wu[None, :, None] * wu[None, None, :] * dens
    post = ExactPosterior(data, prior)
    assert post.mean("q0") == pytest.approx(float(np.sum(w * q0) / w.sum()), abs=2e-4)
    assert post.mean("q1") == pytest.approx(float(np.sum(w * q1) / w.sum()), abs=2e-4)
    assert post.mean() == pytest.approx(float(np.sum(w * t) / w.sum()), abs=1e-8)


@pytest.mark.slow
@pytest.mark.parametrize(
    "data",
    [
        JudgeData(k=6, n=20, k0=8, m0=10, k1=9, m1=10),
        JudgeData(k=5, n=1000, k0=190, m0=200, k1=180, m1=200),
    ],
)
def test_jeffreys_theta_prior_at_the_boundary(data):
    """A Beta(1/2, 1/2) theta prior has an unbounded density at 0 and 1.

    Reference: theta = sin^2(phi) turns ``t^(-1/2) (1 - t)^(-1/2) dt`` into ``2 dphi``, so the
    CDF is a smooth integral in phi (Gauss-Legendre), with (q0, q1 | q0) on a 200^2 grid.
    """
    prior = Prior(theta=(0.5, 0.5))
    nodes, weights = np.polynomial.legendre.leggauss(200)
    u, wu = (nodes + 1) / 2, weights / 2
    q0 = u[:, None]
    q1 = (1 - q0) + q0 * u[None, :]
    cal = (
        stats.beta.pdf(q0, 1 + data.k0, 1 + data.m0 - data.k0)
        * stats.beta.pdf(q1, 1 + data.k1, 1 + data.m1 - data.k1)
        * wu[:, None]
        * q0
        * wu[None, :]
    )

    def mass(x: float) -> float:
        phi_nodes, phi_w = np.polynomial.legendre.leggauss(120)
        top = np.arcsin(np.sqrt(x))
        phi, w = (phi_nodes + 1) / 2 * top, phi_w / 2 * top
        t = np.sin(phi) ** 2
        p = t[:, None, None] * q1[None] + (1 - t[:, None, None]) * (1 - q0[None])
        return float(np.sum(2 * w * (stats.binom.pmf(data.k, data.n, p) * cal[None]).sum((1, 2))))

    post = ExactPosterior(data, prior)
    levels = np.array([0.025, 0.5, 0.975])
    t = post.quantile(levels)
    back = np.array([mass(float(v)) for v in t]) / mass(1.0)
    assert np.all(np.abs(back - levels) / post.pdf(t) < 1e-5)
    low, high = post.interval(0.95, "hdi")
    assert post.cdf(high) - post.cdf(low) == pytest.approx(0.95, abs=1e-9)


def test_vectorised_general_prior_equals_scalar():
    prior = Prior(theta=(2, 5), q1=(3, 1))
    ks, k0 = np.array([5, 60, 300]), np.array([150, 160, 140])
    low, high = exact_interval(ks, 1000, k0, 200, 170, 200, kind="hdi", prior=prior)
    for i in range(3):
        post = ExactPosterior(JudgeData(int(ks[i]), 1000, int(k0[i]), 200, 170, 200), prior)
        np.testing.assert_allclose([low[i], high[i]], post.interval(kind="hdi"), atol=1e-7)


@pytest.mark.slow
@pytest.mark.parametrize(
    "data",
    [
        JudgeData(k=300, n=1000, k0=8, m0=10, k1=9, m1=10),
        JudgeData(k=100, n=1000, k0=6, m0=10, k1=7, m1=10),
    ],
)
def test_tiny_calibration_against_a_large_test_set(data):
    """10 calibration items per arm against 1,000 test items: the hardest regime for quadrature.

    Reference: the density of theta on 801 equally spaced points, each a 300 x 300 Gauss-Legendre
    sum over (q0, q1 | q0 + q1 > 1) of the unnormalised posterior, integrated by Simpson's rule;
    the engine's quantiles must be within 1e-4 (the required accuracy) of the reference's.
    """
    x, w = np.polynomial.legendre.leggauss(300)
    u, wu = (x + 1) / 2, w / 2
    q0 = u[:, None]
    q1 = (1 - q0) + q0 * u[None, :]
    log_cal = (
        special.xlogy(data.k0, q0)
        + special.xlog1py(data.m0 - data.k0, -q0)
        + special.xlogy(data.k1, q1)
        + special.xlog1py(data.m1 - data.k1, -q1)
        + np.log(wu[:, None] * q0 * wu[None, :])
    )
    t = np.linspace(0.0, 1.0, 801)
    dens = np.empty(t.size)
    for i, ti in enumerate(t):
        p = ti * q1 + (1 - ti) * (1 - q0)
        dens[i] = np.exp(
            special.xlogy(data.k, p) + special.xlog1py(data.n - data.k, -p) + log_cal + 700
        ).sum()
    h = t[1] - t[0]
    cum = np.zeros(t.size)
    cum[2::2] = np.cumsum(h / 3 * (dens[0:-2:2] + 4 * dens[1:-1:2] + dens[2::2]))
    cum[1::2] = cum[0:-1:2] + h / 12 * (5 * dens[0:-1:2] + 8 * dens[1::2] - dens[2::2])
    levels = np.array([0.025, 0.5, 0.975])
    reference = np.interp(levels, cum / cum[-1], t)
    np.testing.assert_allclose(ExactPosterior(data).quantile(levels), reference, atol=1e-4)


@pytest.mark.parametrize(
    ("case", "data"),
    [
        (0, JudgeData(k=400012345, n=10**9, k0=19, m0=20, k1=18, m1=20)),
        (1, JudgeData(k=5_200_000, n=10**7, k0=30, m0=60, k1=33, m1=60)),
    ],
)
def test_huge_test_set_gives_the_known_p_limit(case, data):
    """n -> inf pins p at p-hat; then, with q0 = 1 - p + t J and q1 = p + (1 - t) J (Jacobian 1),
    the density of theta is the integral over J > 0 of the two calibration Betas along that ray.

    Reference (stored, tests/reference/make_exact_brute_force.py): that 1-D integral by adaptive
    quadrature (scipy.integrate.quad) on 801 theta points, CDF by Simpson's rule. The second case
    is a weak judge (J-hat = 0.05).
    """
    ref = BRUTE_FORCE["p_limit"][case]
    assert ref["counts"] == _counts(data)
    np.testing.assert_allclose(
        ExactPosterior(data).quantile(np.array(ref["levels"])), ref["quantile"], atol=1e-4
    )


def test_vectorised_results_do_not_depend_on_threads_or_grouping():
    rng = np.random.default_rng(4)
    k = rng.binomial(1000, 0.4, 60)
    k0 = rng.choice([140, 150], 60)  # two calibration groups: the shared-table path
    one = exact_interval(k, 1000, k0, 200, 180, 200, kind="hdi", workers=1)
    two = exact_interval(k, 1000, k0, 200, 180, 200, kind="hdi", workers=2)
    np.testing.assert_array_equal(one, two)
    # the shared table agrees with the one-dataset engine
    for i in range(0, 60, 15):
        post = ExactPosterior(JudgeData(int(k[i]), 1000, int(k0[i]), 200, 180, 200))
        np.testing.assert_allclose([one[0][i], one[1][i]], post.interval(0.95, "hdi"), atol=1e-4)
    with pytest.raises(ValueError, match=r"`workers` \(0\)"):
        exact_interval(k, 1000, k0, 200, 180, 200, workers=0)
