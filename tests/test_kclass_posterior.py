"""The K-class posterior (judgestats.bayes.kclass_model) against independent references.

References: the exact binary posterior (deterministic integration) at K = 2, a brute-force
2-D grid at K = 3 with a known confusion matrix, and NUTS on the PyMC model at K = 3.
Tolerances are Monte Carlo standard errors derived from the effective sample size.
"""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest

import judgestats as jc
from judgestats.bayes import DirichletPrior
from judgestats.bayes.kclass_importance import weighted_quantile
from judgestats.bayes.kclass_model import build_kclass_model
from judgestats.exceptions import JudgeStatsWarning
from judgestats.kclass import KClassData, KClassPosterior, kclass_posterior

LEVELS = (0.025, 0.5, 0.975)
Z = 4.0  # standard errors allowed for one statistic
#: Allowed for the largest of the 12 statistics (mean and 3 quantiles of theta, q0, q1) of one
#: run: measured over 50 runs (10 seeds x 5 cases) the largest was 4.2 standard errors; the
#: weights 1/|det C| are heavy-tailed when the calibration allows a judge near chance.
Z_FAMILY = 4.5

#: Hard binary cases: weak judge with n = 1e5, tiny calibration rows, theta near 0 and near 1.
HARD_CASES = {
    "weak_judge_huge_n": jc.JudgeData(k=46_000, n=100_000, k0=30, m0=50, k1=30, m1=50),
    "tiny_rows": jc.JudgeData(k=300, n=1000, k0=4, m0=5, k1=4, m1=5),
    "theta_near_0": jc.JudgeData(k=50, n=1000, k0=95, m0=100, k1=90, m1=100),
    "theta_near_1": jc.JudgeData(k=940, n=1000, k0=18, m0=20, k1=19, m1=20),
}


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)
        return function(*args, **kwargs)


def _binary_draws(result: KClassPosterior) -> tuple[dict[str, np.ndarray], np.ndarray]:
    pi, c, w = result.weighted_draws()
    return {"theta": pi[:, 1], "q0": c[:, 0, 0], "q1": c[:, 1, 1]}, w


def _weighted_mean_sd(x: np.ndarray, w: np.ndarray) -> tuple[float, float]:
    mean = float(np.sum(w * x) / np.sum(w))
    return mean, float(np.sqrt(np.sum(w * (x - mean) ** 2) / np.sum(w)))


def _statistics(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Weighted mean and the quantiles at LEVELS."""
    mean, _ = _weighted_mean_sd(x, w)
    return np.concatenate([[mean], weighted_quantile(x, w, LEVELS)])


def _batch_se(x: np.ndarray, w: np.ndarray, batches: int = 16) -> np.ndarray:
    """Monte Carlo standard errors of :func:`_statistics` from batch means.

    The draws are i.i.d., so the statistics of ``batches`` equal slices vary like the full
    run's, times sqrt(batches); this needs no assumption on the tail of the weights (the ESS
    formula does, and the weights 1/|det C| are heavy-tailed when the calibration allows a
    judge near chance).
    """
    parts = [
        _statistics(xs, ws)
        for xs, ws in zip(np.array_split(x, batches), np.array_split(w, batches), strict=True)
    ]
    return np.std(parts, axis=0, ddof=1) / math.sqrt(batches)


def _check_against_exact(data: jc.JudgeData, seed: int) -> float:
    """Largest |IS - exact| / (MC standard error) over mean and quantiles of theta, q0, q1.

    The standard error is the larger of the ESS-based one (sd / sqrt(ESS) for the mean,
    sqrt(q (1 - q) / ESS) / f(x_q) for a quantile, f the exact density) and the batch-means
    one.
    """
    exact = _quiet(jc.posterior, data)
    result = _quiet(
        kclass_posterior, KClassData.from_judge_data(data), method="importance", random_seed=seed
    )
    draws, w = _binary_draws(result)
    ess = result.ess
    assert ess == pytest.approx(np.sum(w) ** 2 / np.sum(w**2))
    worst = 0.0
    for var, x in draws.items():
        truth = np.concatenate([[exact.mean(var)], exact.quantile(list(LEVELS), var)])
        _, sd = _weighted_mean_sd(x, w)
        density = np.asarray(exact.pdf(truth[1:], var))
        ess_se = np.concatenate(
            [
                [sd / math.sqrt(ess)],
                np.sqrt(np.multiply(LEVELS, 1 - np.array(LEVELS)) / ess) / density,
            ]
        )
        se = np.maximum(ess_se, _batch_se(x, w))
        worst = max(worst, float(np.max(np.abs(_statistics(x, w) - truth) / se)))
    return worst


# -------------------------------------------------------------------------------------------
# K = 2: the exact binary posterior
# -------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_auto_at_k2_is_the_exact_binary_posterior():
    data = HARD_CASES["tiny_rows"]
    exact = _quiet(jc.posterior, data)
    result = _quiet(kclass_posterior, KClassData.from_judge_data(data), random_seed=0)
    assert result.method == "exact"
    theta = result.shares[1]
    assert abs(theta.estimate - exact.mean("theta")) < 1e-12
    low, high = exact.ci(0.95, "eti", "theta")
    assert abs(theta.low - low) < 1e-12 and abs(theta.high - high) < 1e-12
    incorrect = result.shares[0]
    assert abs(incorrect.estimate - (1 - exact.mean("theta"))) < 1e-12
    assert abs(incorrect.low - (1 - high)) < 1e-12 and abs(incorrect.high - (1 - low)) < 1e-12
    assert abs(result.sd[1] - exact.sd("theta")) < 1e-12
    assert abs(result.confusion_mean[0, 0] - exact.mean("q0")) < 1e-12
    assert abs(result.confusion_mean[1, 1] - exact.mean("q1")) < 1e-12
    # a functional a0 + (a1 - a0) theta with a1 < a0 flips theta's interval
    f = result.functional([3.0, 1.0])
    assert abs(f.estimate - (3 - 2 * exact.mean("theta"))) < 1e-12
    assert abs(f.low - (3 - 2 * high)) < 1e-12 and abs(f.high - (3 - 2 * low)) < 1e-12


@pytest.mark.parametrize("case", sorted(HARD_CASES))
def test_importance_at_k2_matches_exact(case):
    assert _check_against_exact(HARD_CASES[case], seed=11) < Z_FAMILY


def test_importance_random_design_matches_exact():
    data = jc.JudgeData(k=3_000, n=10_000, k0=14, m0=20, k1=9, m1=12, design="random")
    assert _check_against_exact(data, seed=11) < Z_FAMILY


# -------------------------------------------------------------------------------------------
# K = 3: a known confusion matrix, brute force on a grid
# -------------------------------------------------------------------------------------------
def test_k3_known_confusion_matches_grid():
    c = np.array([[0.6, 0.25, 0.15], [0.2, 0.6, 0.2], [0.15, 0.25, 0.6]])
    confusion = np.rint(1e7 * c).astype(np.int64)
    test = np.array([420, 700, 880])  # posterior means about (0.10, 0.29, 0.61)
    data = KClassData(("x", "y", "z"), test=test, confusion=confusion)
    result = kclass_posterior(data, method="importance", random_seed=2)
    # grid over (pi0, pi1), pi2 = 1 - pi0 - pi1; density prod_j (C^T pi)_j^test_j
    h = 1.0 / 1500
    axis = (np.arange(1500) + 0.5) * h
    a, b = np.meshgrid(axis, axis, indexing="ij")
    inside = a + b < 1
    grid = np.stack([a[inside], b[inside], 1 - a[inside] - b[inside]], axis=1)
    log_density = np.log(grid @ c) @ test
    mass = np.exp(log_density - log_density.max())
    mass /= mass.sum()
    pi, _, w = result.weighted_draws()
    for k in range(3):
        x = grid[:, k]
        mean = float(mass @ x)
        sd = math.sqrt(float(mass @ (x - mean) ** 2))
        assert abs(result.shares[k].estimate - mean) < Z * sd / math.sqrt(result.ess) + h
        order = np.argsort(x)
        cdf = np.cumsum(mass[order])
        for level in LEVELS:
            truth = x[order][np.searchsorted(cdf, level)]
            # density of the share at the quantile, from the grid's histogram
            width = 2 * sd / 10
            density = float(mass[np.abs(x - truth) < width / 2].sum() / width)
            se = math.sqrt(level * (1 - level) / result.ess) / density
            got = float(weighted_quantile(pi[:, k], w, level))
            assert abs(got - truth) < Z * se + 2 * h, (k, level, got, truth)


@pytest.mark.slow
def test_k3_importance_matches_nuts():
    data = KClassData(
        ("A", "B", "tie"), test=[90, 70, 40], confusion=[[24, 3, 3], [3, 24, 3], [3, 3, 24]]
    )
    nuts = _quiet(
        kclass_posterior,
        data,
        method="nuts",
        draws=500,
        tune=500,
        chains=2,
        random_seed=4,
        progressbar=False,
    )
    importance = kclass_posterior(data, method="importance", random_seed=4)
    assert nuts.method == "nuts" and nuts.idata.posterior["C"].shape == (2, 500, 3, 3)
    ess_nuts = nuts.diagnostics["ess_bulk"]
    for k in range(3):
        se = math.hypot(
            nuts.sd[k] / math.sqrt(ess_nuts), importance.sd[k] / math.sqrt(importance.ess)
        )
        assert abs(nuts.shares[k].estimate - importance.shares[k].estimate) < Z * se


# -------------------------------------------------------------------------------------------
# K = 3: small counts, where the Jacobian 1 / |det C| matters
# -------------------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("design", ["stratified", "random"])
@pytest.mark.parametrize(
    ("test", "confusion"),
    [
        ([12, 20, 8], [[4, 1, 1], [1, 3, 2], [2, 1, 4]]),
        ([30, 50, 20], [[8, 1, 1], [1, 8, 1], [2, 1, 7]]),
    ],
)
def test_k3_small_counts_match_a_sampler_without_jacobian(test, confusion, design):
    # reference: pi from its prior, C from its calibration posterior restricted to D (dominant
    # columns, det > 0, checked here with plain numpy), weight = the test likelihood
    # prod_j (C^T pi)_j^test_j (times prod_i pi_i^m_i for the random design). No change of
    # variables, so no determinant: an algorithm independent of the package's.
    test, confusion = np.asarray(test, float), np.asarray(confusion, float)
    data = KClassData(("a", "b", "c"), test=test.astype(int), confusion=confusion.astype(int))
    if design == "random":
        data = KClassData(data.classes, test=data.test, confusion=data.confusion, design=design)
    rng = np.random.default_rng(5)
    draws = 1_000_000
    beta = 2 / 3  # the default prior of the rows
    c = np.stack([rng.dirichlet(beta + row, draws) for row in confusion], axis=1)
    diagonal = np.einsum("sii->si", c)
    others = np.where(np.eye(3, dtype=bool), -np.inf, c).max(axis=1)
    c = c[(diagonal > others).all(axis=1) & (np.linalg.det(c) > 0)]
    pi = rng.dirichlet(np.ones(3), len(c))
    log_w = np.log(np.einsum("sij,si->sj", c, pi)) @ test
    if design == "random":
        log_w += np.log(pi) @ confusion.sum(axis=1)
    w = np.exp(log_w - log_w.max())
    ess = w.sum() ** 2 / (w @ w)
    mean = w @ pi / w.sum()
    sd = np.sqrt(w @ (pi - mean) ** 2 / w.sum())

    result = kclass_posterior(data, random_seed=3, proposals=400_000)
    assert result.prior.beta == pytest.approx(beta)
    got = np.array([row.estimate for row in result.shares])
    se = np.sqrt(sd**2 / ess + np.array(result.sd) ** 2 / result.ess)
    assert np.all(np.abs(got - mean) < Z * se), (got, mean, se)
    for k in range(3):
        for level in (0.025, 0.975):
            ref = float(weighted_quantile(pi[:, k], w, level))
            got_q = result.shares[k].low if level < 0.5 else result.shares[k].high
            assert abs(got_q - ref) < 0.01, (k, level, got_q, ref)
    # the comparison has power: the same draws weighted without 1 / |det C| are far off
    pis, cs, ws = result.weighted_draws()
    without = ws * np.abs(np.linalg.det(cs))
    wrong = without @ pis / without.sum()
    assert np.max(np.abs(wrong - mean) / se) > 6


def test_default_row_prior_is_two_pseudo_items_per_row():
    data = KClassData(
        (1, 2, 3, 4, 5), test=[5, 10, 20, 30, 35], confusion=10 * np.eye(5, dtype=int) + 1
    )
    result = kclass_posterior(data, random_seed=0, proposals=5_000, min_ess=10)
    assert result.prior.beta == pytest.approx(2 / 5) and result.prior.alpha == 1.0
    binary = KClassData.from_judge_data(jc.JudgeData(k=60, n=100, k0=8, m0=10, k1=9, m1=10))
    assert kclass_posterior(binary, random_seed=0).method == "exact"  # 2 / K = 1 at K = 2
    explicit = kclass_posterior(
        data, prior=DirichletPrior(beta=1.0), random_seed=0, proposals=5_000, min_ess=10
    )
    assert explicit.prior.beta == 1.0


def test_d_excludes_dominant_matrices_that_reverse_orientation():
    # column-dominant (each diagonal entry the largest in its column), rows summing to 1, but
    # det < 0: the closed form refuses such a judge and the posterior's D leaves it out
    from judgestats.bayes.kclass_importance import in_identifiable_set

    c = np.array(
        [
            [0.45, 0.25, 0.25, 0.05],
            [0.40, 0.30, 0.00, 0.30],
            [0.20, 0.05, 0.55, 0.20],
            [0.05, 0.20, 0.25, 0.50],
        ]
    )
    assert np.allclose(c.sum(axis=1), 1)
    assert all(c[j, j] > np.delete(c[:, j], j).max() for j in range(4))
    assert np.linalg.det(c) < 0
    assert not in_identifiable_set(c[None])[0]
    assert in_identifiable_set(np.eye(4)[None] * 0.7 + 0.075)[0]


def test_pareto_k_separates_light_and_heavy_tails():
    from judgestats.bayes.kclass_importance import PARETO_K_LIMIT, pareto_k

    rng = np.random.default_rng(1)
    light = rng.uniform(0.5, 1.5, 20_000)
    heavy = 1 + rng.pareto(1 / 0.9, 20_000)  # tail index 1/0.9: k = 0.9
    assert pareto_k(light) < 0.5
    assert pareto_k(heavy) > PARETO_K_LIMIT


# -------------------------------------------------------------------------------------------
# the sampler's pieces
# -------------------------------------------------------------------------------------------
def test_weighted_quantile_equal_weights_is_hazen():
    x = np.array([3.0, 1.0, 2.0, 10.0])
    q = [0.1, 0.3, 0.5, 0.9]
    assert np.allclose(weighted_quantile(x, np.ones(4), q), np.quantile(x, q, method="hazen"))
    # weight 3 on a draw is the draw three times
    repeated = np.array([1.0, 2.0, 2.0, 2.0, 5.0])
    got = weighted_quantile(np.array([1.0, 2.0, 5.0]), np.array([1.0, 3.0, 1.0]), [0.5])
    assert got[0] == pytest.approx(np.quantile(repeated, 0.5, method="hazen"))
    with pytest.raises(ValueError, match="`q` must hold probabilities"):
        weighted_quantile(x, np.ones(4), [0.5, 1.5])


def test_reproducible_and_seeded():
    data = KClassData(
        ("a", "b", "c"), test=[30, 50, 20], confusion=[[8, 1, 1], [1, 8, 1], [2, 1, 7]]
    )
    one = kclass_posterior(data, random_seed=7, proposals=20_000)
    two = kclass_posterior(data, random_seed=np.random.default_rng(7), proposals=20_000)
    three = kclass_posterior(data, random_seed=8, proposals=20_000)
    assert [r.estimate for r in one.shares] == [r.estimate for r in two.shares]
    assert one.ess == two.ess
    assert one.shares[0].estimate != three.shares[0].estimate
    assert one.method == "importance" and 0 < one.diagnostics["acceptance_d"] <= 1
    assert 0 < one.diagnostics["acceptance_simplex"] <= 1
    assert sum(r.estimate for r in one.shares) == pytest.approx(1.0)


def test_low_ess_flag_and_warning():
    data = KClassData(
        ("a", "b", "c"), test=[30, 50, 20], confusion=[[8, 1, 1], [1, 8, 1], [2, 1, 7]]
    )
    with pytest.warns(JudgeStatsWarning, match="low_importance_ess"):
        result = kclass_posterior(data, random_seed=1, proposals=2_000, min_ess=1e9)
    assert result.flags == ("low_importance_ess",)
    assert all(row.flags == ("low_importance_ess",) for row in result.shares)


def test_model_variables_and_random_design():
    data = KClassData(
        ("a", "b", "c"),
        test=[3, 5, 2],
        confusion=[[4, 1, 0], [0, 0, 0], [1, 0, 3]],
        design="random",
    )
    model = build_kclass_model(data)
    names = {v.name for v in model.free_RVs} | {v.name for v in model.deterministics}
    assert {"pi", "C", "p"} <= names
    assert {v.name for v in model.observed_RVs} == {"confusion", "test", "labelled_classes"}
    assert model.named_vars_to_dims["C"] == ("true", "judged")
    start = model.initial_point()
    assert np.isfinite(model.compile_logp()(start))


# -------------------------------------------------------------------------------------------
# the Result contract and the functionals
# -------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def rubric():
    data = KClassData(
        (1, 2, 3), test=[200, 500, 300], confusion=[[20, 4, 1], [3, 25, 2], [1, 5, 19]]
    )
    return kclass_posterior(data, random_seed=3, proposals=50_000, draws=300)


def test_result_contract(rubric):
    frame = rubric.summary()
    assert list(frame.index) == ["1", "2", "3"]
    assert {"estimate", "sd", "low", "high", "width", "judged_as_itself"} <= set(frame.columns)
    assert (frame["low"] <= frame["estimate"]).all() and (frame["estimate"] <= frame["high"]).all()
    out = json.loads(json.dumps(rubric.to_dict()))
    assert out["method"] == "importance" and len(out["shares"]) == 3
    assert out["prior"] == {"alpha": 1.0, "beta": pytest.approx(2 / 3)}
    assert rubric.idata.posterior["pi"].shape == (1, 300, 3)
    assert "method importance" in str(rubric)
    assert "judgestats K-class posterior" in rubric._repr_html_()
    import matplotlib

    matplotlib.use("Agg")
    ax = rubric.plot()
    assert len(ax.get_yticks()) == 3
    with pytest.raises(AttributeError):
        rubric.method = "nuts"
    with pytest.raises(ValueError):
        rubric.confusion_mean[0, 0] = 1.0


def test_functionals(rubric):
    pi, _, w = rubric.weighted_draws()
    by_hand = float(np.sum(w * (pi @ [1.0, 2.0, 3.0])) / np.sum(w))
    assert rubric.mean_score().estimate == pytest.approx(by_hand)
    assert rubric.share([2, 3]).estimate == pytest.approx(1 - rubric.shares[0].estimate)
    win = rubric.win_rate(3, tie=2)
    assert win.estimate == pytest.approx(
        rubric.shares[2].estimate + 0.5 * rubric.shares[1].estimate
    )
    narrow = rubric.functional({3: 1.0}, prob=0.5)
    assert narrow.width < rubric.shares[2].width
    with pytest.raises(ValueError, match="`win`"):
        rubric.win_rate(7)


# -------------------------------------------------------------------------------------------
# errors
# -------------------------------------------------------------------------------------------
SMALL = KClassData(("a", "b", "c"), test=[3, 5, 2], confusion=[[4, 1, 0], [0, 4, 1], [1, 0, 3]])


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"prior": (1.0, 1.0)}, TypeError, "`prior` must be a judgestats.bayes.DirichletPrior"),
        ({"draws": 0}, ValueError, "`draws`"),
        ({"proposals": 2.5}, ValueError, "`proposals`"),
        ({"min_ess": 0}, ValueError, "`min_ess`"),
        ({"prob": 1.5}, ValueError, "`prob`"),
        ({"method": "gibbs"}, ValueError, "`method`"),
        ({"method": 3}, TypeError, "`method`"),
        ({"method": "exact"}, ValueError, "K = 2"),
        ({"random_seed": "x"}, TypeError, "`random_seed`"),
    ],
)
def test_bad_options(kwargs, error, match):
    with pytest.raises(error, match=match):
        kclass_posterior(SMALL, **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"alpha": 0.0}, ValueError, "`alpha`"),
        ({"beta": -1.0}, ValueError, "`beta`"),
        ({"alpha": "1"}, TypeError, "`alpha`"),
        ({"beta": float("inf")}, ValueError, "`beta`"),
    ],
)
def test_bad_prior(kwargs, error, match):
    with pytest.raises(error, match=match):
        DirichletPrior(**kwargs)


def test_bad_data():
    with pytest.raises(TypeError, match="`data` must be a judgestats.kclass.KClassData"):
        kclass_posterior(jc.JudgeData(k=4, n=10, k0=7, m0=10, k1=7, m1=10))


def test_importance_refused_above_five_classes():
    data = KClassData(tuple("abcdef"), test=[1] * 6, confusion=5 * np.eye(6, dtype=int) + 1)
    with pytest.raises(ValueError, match="K <= 5"):
        kclass_posterior(data, method="importance")


def test_calibration_contradicting_dominance():
    swapped = [[0, 1000, 0], [1000, 0, 0], [0, 0, 1000]]
    data = KClassData(("a", "b", "c"), test=[3, 5, 2], confusion=swapped)
    with pytest.raises(ValueError, match="diagonally dominant.*true class 'a' is judged 'b'"):
        kclass_posterior(data, proposals=1000)


def test_test_counts_off_the_simplex():
    data = KClassData.from_judge_data(
        jc.JudgeData(k=10_000, n=1_000_000, k0=90_000, m0=100_000, k1=90_000, m1=100_000)
    )
    with pytest.raises(ValueError, match="simplex"):
        kclass_posterior(data, method="importance", proposals=1000)


def test_inputs_not_mutated():
    test = np.array([3, 5, 2])
    data = KClassData(("a", "b", "c"), test=test, confusion=[[4, 1, 0], [0, 4, 1], [1, 0, 3]])
    kclass_posterior(data, random_seed=0, proposals=5_000, min_ess=10)
    assert test.tolist() == [3, 5, 2] and data.test.tolist() == [3, 5, 2]
