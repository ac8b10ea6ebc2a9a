"""Calibration designs: JudgeData.design, the random-design constructors and Bayesian model."""

import dataclasses
import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit, logit
from scipy.stats import binom, multinomial

import judgestats as jc
from judgestats.bayes.model import LABELLED_CLASS_NAME, build_model
from judgestats.bayes.priors import random_design_prior

nan = float("nan")
# 8 test items; items 1, 2, 5 and 6 are labelled (human 1, 0, 1, 0)
TEST_JUDGE = [1, 1, 0, 1, 0, 1, 1, 0]
HUMAN = [nan, 1, 0, nan, nan, 1, 0, nan]


class TestFromLabels:
    def test_counts_by_hand(self):
        data = jc.JudgeData.from_labels(TEST_JUDGE, HUMAN, design="random")
        # unlabelled items 0, 3, 4, 7 have verdicts 1, 1, 0, 0 -> k = 2 of n = 4
        # labelled: (human, judge) = (1, 1), (0, 0), (1, 1), (0, 1)
        assert (data.k, data.n, data.k0, data.m0, data.k1, data.m1) == (2, 4, 1, 2, 2, 2)
        assert data.design == "random" and data.m == 4
        assert data.cells == (2, 0, 1, 1)

    @pytest.mark.parametrize("missing", [None, nan, pd.NA])
    def test_missing_markers_and_containers(self, missing):
        human = [missing if isinstance(h, float) and math.isnan(h) else h for h in HUMAN]
        expected = jc.JudgeData(k=2, n=4, k0=1, m0=2, k1=2, m1=2, design="random")
        assert jc.JudgeData.from_labels(TEST_JUDGE, human, design="random") == expected
        series = pd.Series(human, dtype=object)
        assert jc.JudgeData.from_labels(np.array(TEST_JUDGE), series, design="random") == expected

    def test_consistent_calib_judge_is_accepted(self):
        judge = [v if not math.isnan(h) else nan for v, h in zip(TEST_JUDGE, HUMAN, strict=True)]
        a = jc.JudgeData.from_labels(TEST_JUDGE, HUMAN, judge, design="random")
        b = jc.JudgeData.from_labels(TEST_JUDGE, HUMAN, TEST_JUDGE, design="random")
        assert a == b == jc.JudgeData.from_labels(TEST_JUDGE, HUMAN, design="random")

    def test_inputs_not_mutated(self):
        human = np.array(HUMAN)
        before = human.copy()
        jc.JudgeData.from_labels(TEST_JUDGE, human, design="random")
        np.testing.assert_array_equal(human, before)

    def test_stratified_default_unchanged(self):
        data = jc.JudgeData.from_labels([1, 0, 1], [1, 0, 0], [1, 1, 0])
        assert data.design == "stratified"
        assert data.to_dict() == {"k": 2, "n": 3, "k0": 1, "m0": 2, "k1": 1, "m1": 1}
        assert repr(data) == "JudgeData(k=2, n=3, k0=1, m0=2, k1=1, m1=1)"


class TestDesignField:
    def test_repr_dict_and_equality(self):
        data = jc.JudgeData(k=2, n=4, k0=1, m0=2, k1=2, m1=2, design="random")
        assert repr(data) == "JudgeData(k=2, n=4, k0=1, m0=2, k1=2, m1=2, design='random')"
        payload = json.loads(json.dumps(data.to_dict()))
        assert payload["design"] == "random"
        assert jc.JudgeData(**payload) == data
        assert data != dataclasses.replace(data, design="stratified")

    def test_unknown_design(self):
        with pytest.raises(ValueError, match=r"`design` \('randm'\) must be 'stratified'"):
            jc.JudgeData(k=1, n=2, k0=1, m0=1, k1=1, m1=1, design="randm")
        with pytest.raises(ValueError, match=r"`design` \('Random'\)"):
            jc.JudgeData.from_labels([1], [1, 0], [1, 0], design="Random")
        with pytest.raises(TypeError, match="`design` must be 'stratified' or 'random'"):
            jc.JudgeData(k=1, n=2, k0=1, m0=1, k1=1, m1=1, design=None)


class TestOneClassLabelled:
    """A random labelled subsample may miss a class (likely with m = 30 at accuracy 0.05/0.95)."""

    def test_from_labels_no_truly_incorrect_item(self):
        data = jc.JudgeData.from_labels([1, 0, 1], [1, nan, 1], design="random")
        assert data == jc.JudgeData(k=0, n=1, k0=0, m0=0, k1=2, m1=2, design="random")
        assert data.one_class and math.isnan(data.q0) and data.q1 == 1.0

    def test_from_labels_no_truly_correct_item(self):
        data = jc.JudgeData.from_labels([1, 0, 1], [0, nan, nan], [1, nan, nan], design="random")
        assert data == jc.JudgeData(k=1, n=2, k0=0, m0=1, k1=0, m1=0, design="random")
        assert data.one_class and math.isnan(data.q1) and data.q0 == 0.0

    def test_csv_and_frame(self, tmp_path):
        rows = [("test", 1, "1"), ("test", 1, ""), ("test", 0, "1"), ("test", 1, "")]
        path = tmp_path / "labels.csv"
        path.write_text("set,judge,human\n" + "".join(f"{s},{j},{h}\n" for s, j, h in rows))
        expected = jc.JudgeData(k=2, n=2, k0=0, m0=0, k1=1, m1=2, design="random")
        assert jc.JudgeData.from_csv(path, design="random") == expected
        frame = pd.DataFrame(rows, columns=["set", "judge", "human"]).replace("", None)
        assert jc.JudgeData.from_frame(frame, design="random") == expected

    def test_simulated_sample_at_accuracy_095(self):
        # 30 labelled of 1,000 test items at accuracy 0.95: P(no truly incorrect) = 0.95^30 = 0.21
        rng = np.random.default_rng(1)  # a seed whose random sample holds no incorrect item
        truth = rng.random(1000) < 0.95
        judge = np.where(truth, rng.random(1000) < 0.9, rng.random(1000) > 0.8).astype(int)
        labelled = np.zeros(1000, dtype=bool)
        labelled[rng.choice(1000, 30, replace=False)] = True
        human = np.where(labelled, truth.astype(float), nan)
        data = jc.JudgeData.from_labels(judge, human, design="random")
        assert (data.m0, data.m1, data.k0, data.n) == (0, 30, 0, 970)
        with pytest.raises(ValueError, match=r"no truly-incorrect item \(`m0` = 0\).*posterior"):
            jc.estimate(data)
        with pytest.warns(jc.JudgeStatsWarning):
            res = jc.ppi(truth[labelled].astype(int), judge[labelled], judge[~labelled])
        assert "one_class_labelled" in res.flags and res.ci.high - res.ci.low > 0

    def test_stratified_still_rejects_an_empty_arm(self, tmp_path):
        with pytest.raises(ValueError, match=r"calibration set has no truly incorrect.*q0"):
            jc.JudgeData.from_labels([1, 0, 1], [1, 1], [1, 0])
        with pytest.raises(ValueError, match=r"calibration set has no truly correct.*q1"):
            jc.JudgeData.from_labels([1, 0, 1], [0, 0], [1, 0])
        path = tmp_path / "labels.csv"
        path.write_text("set,judge,human\ntest,1,\ncalibration,1,1\ncalibration,0,1\n")
        with pytest.raises(
            ValueError,
            match=r"labels.csv: the calibration set has no truly "
            r"incorrect \(human label 0\) items, so "
            r"specificity q0 cannot be estimated",
        ):
            jc.JudgeData.from_csv(path)
        with pytest.raises(ValueError, match=r"`m1` \(0\) must be at least 1"):
            jc.JudgeData(k=1, n=2, k0=1, m0=3, k1=0, m1=0)


class TestBadInput:
    def test_labelled_items_not_a_subset_of_the_test_items(self):
        with pytest.raises(
            ValueError,
            match=r"subset of the test items: `calib_human` must "
            r"hold one entry per test item.*got 3 entries "
            r"for 8 test items",
        ):
            jc.JudgeData.from_labels(TEST_JUDGE, [1, 0, 1], design="random")
        with pytest.raises(ValueError, match=r"`calib_judge` must hold one entry per test"):
            jc.JudgeData.from_labels(TEST_JUDGE, HUMAN, [1, 0], design="random")
        judge = list(TEST_JUDGE)
        judge[2] = 1  # labelled item 2 was judged 0 in the test set
        with pytest.raises(
            ValueError,
            match=r"must repeat `test_judge`.*labelled item 2 has "
            r"`calib_judge` 1 but `test_judge` 0",
        ):
            jc.JudgeData.from_labels(TEST_JUDGE, HUMAN, judge, design="random")

    def test_human_labels_outside_0_1(self):
        with pytest.raises(ValueError, match=r"`calib_human` must hold only 0/1.*item 1 is 2"):
            jc.JudgeData.from_labels(TEST_JUDGE, [nan, 2, 0, nan, nan, 1, 0, nan], design="random")
        with pytest.raises(ValueError, match=r"`calib_human`.*item 0 is 'yes'"):
            jc.JudgeData.from_labels([1, 0], ["yes", 0], design="random")

    def test_no_labelled_or_no_unlabelled_items(self):
        with pytest.raises(ValueError, match="no test item has a human label"):
            jc.JudgeData.from_labels([1, 0], [nan, nan], design="random")
        with pytest.raises(ValueError, match="every test item has a human label"):
            jc.JudgeData.from_labels([1, 0], [1, 0], design="random")

    def test_stratified_needs_calib_judge(self):
        with pytest.raises(TypeError, match="`calib_judge` is required"):
            jc.JudgeData.from_labels([1, 0], [1, 0])


class TestFiles:
    ROWS = [
        ("test", 1, ""),
        ("test", 1, "1"),
        ("test", 0, "0"),
        ("test", 1, ""),
        ("test", 0, ""),
        ("test", 1, "1"),
        ("test", 1, "0"),
        ("test", 0, ""),
    ]

    def test_csv_and_frame(self, tmp_path):
        path = tmp_path / "labels.csv"
        path.write_text("set,judge,human\n" + "".join(f"{s},{j},{h}\n" for s, j, h in self.ROWS))
        expected = jc.JudgeData(k=2, n=4, k0=1, m0=2, k1=2, m1=2, design="random")
        assert jc.JudgeData.from_csv(path, design="random") == expected
        frame = pd.DataFrame(self.ROWS, columns=["set", "judge", "human"]).replace("", None)
        assert jc.JudgeData.from_frame(frame, design="random") == expected

    def test_calibration_row_is_refused(self, tmp_path):
        path = tmp_path / "labels.csv"
        path.write_text("set,judge,human\ntest,1,\ntest,0,1\ncalibration,1,0\n")
        with pytest.raises(
            ValueError,
            match=r"row 4: column `set` is 'calibration', but with "
            r"design='random'.*subset of the test items",
        ):
            jc.JudgeData.from_csv(path, design="random")

    def test_bad_human_label_on_a_test_row(self, tmp_path):
        path = tmp_path / "labels.csv"
        path.write_text("set,judge,human\ntest,1,\ntest,0,maybe\n")
        with pytest.raises(ValueError, match=r"row 3: column `human` must be 0, 1 or empty"):
            jc.JudgeData.from_csv(path, design="random")


# -- the random-design model --------------------------------------------------------------------
DATA = jc.JudgeData(k=14, n=40, k0=6, m0=9, k1=9, m1=11, design="random")


def value_point(theta, q0, q1, prior):
    if prior.better_than_chance:  # the model's coordinates (p, u0, u1): build_model's Notes
        p = theta * q1 + (1 - theta) * (1 - q0)
        return {
            "p_interval__": logit(p),
            "q0_scaled_interval__": logit((q0 - 1 + p) / p),
            "q1_scaled_interval__": logit((q1 - p) / (1 - p)),
        }
    return {"theta_logodds__": logit(theta), "q0_logodds__": logit(q0), "q1_logodds__": logit(q1)}


@pytest.mark.slow
def test_model_is_the_multinomial_times_the_binomial():
    prior = jc.Prior(better_than_chance=False)
    model = build_model(DATA, prior)
    assert {rv.name for rv in model.observed_RVs} == {"k", "k0", "k1", LABELLED_CLASS_NAME}
    loglik = model.compile_logp(vars=model.observed_RVs, jacobian=False)
    rng = np.random.default_rng(3)
    for theta, q0, q1 in rng.uniform(0.05, 0.95, (5, 3)):
        probs = [theta * q1, theta * (1 - q1), (1 - theta) * (1 - q0), (1 - theta) * q0]
        p = theta * q1 + (1 - theta) * (1 - q0)
        expected = multinomial.logpmf(DATA.cells, DATA.m, probs) + binom.logpmf(DATA.k, DATA.n, p)
        assert loglik(value_point(theta, q0, q1, prior)) == pytest.approx(expected, rel=1e-10)


@pytest.mark.slow
def test_model_reduces_to_stratified_without_the_class_counts():
    """Dropping the labelled class-count factor Bin(m1; m, theta) -- i.e. ignoring the labelled
    class counts -- leaves exactly the stratified model's log density, at every point (same
    priors, truncation and Jacobians)."""
    prior = jc.Prior(theta=(2.0, 3.0))
    random_logp = build_model(DATA, prior).compile_logp()
    stratified_logp = build_model(
        dataclasses.replace(DATA, design="stratified"), prior
    ).compile_logp()
    rng = np.random.default_rng(4)
    for _ in range(5):
        theta, q0, q1 = expit(rng.normal()), expit(rng.normal(1)), expit(rng.normal(2))
        if q0 + q1 <= 1:
            continue
        point = value_point(theta, q0, q1, prior)
        difference = random_logp(point) - stratified_logp(point)
        assert difference == pytest.approx(binom.logpmf(DATA.m1, DATA.m, theta), rel=1e-10)


def grid_posterior_of_theta(data, grid=160):
    """Brute force: the multinomial x binomial likelihood on a midpoint grid, uniform priors
    truncated to q0 + q1 > 1; returns the theta nodes and their posterior mass."""
    t = (np.arange(grid) + 0.5) / grid
    theta, q0, q1 = np.meshgrid(t, t, t, indexing="ij", sparse=True)
    c11, c10, c01, c00 = data.cells
    p = theta * q1 + (1 - theta) * (1 - q0)
    log_l = (
        c11 * np.log(theta * q1)
        + c10 * np.log(theta * (1 - q1))
        + c01 * np.log((1 - theta) * (1 - q0))
        + c00 * np.log((1 - theta) * q0)
        + data.k * np.log(p)
        + (data.n - data.k) * np.log1p(-p)
    )
    log_l = np.where(q0 + q1 > 1, log_l, -np.inf)
    weight = np.exp(log_l - log_l.max()).sum(axis=(1, 2))
    return t, weight / weight.sum()


def test_exact_engine_matches_brute_force_multinomial():
    post = jc.posterior(DATA, method="exact", draws=200, chains=2, random_seed=1)
    t, mass = grid_posterior_of_theta(DATA)
    assert post.mean() == pytest.approx(np.sum(t * mass), abs=1e-3)
    cdf = np.cumsum(mass) - mass / 2
    for level in (0.05, 0.5, 0.95):
        assert post.quantile(level) == pytest.approx(np.interp(level, cdf, t), abs=3e-3)
    # the class counts matter: without them (stratified) the posterior differs
    stratified = jc.posterior(
        dataclasses.replace(DATA, design="stratified"),
        method="exact",
        draws=200,
        chains=2,
        random_seed=1,
    )
    assert abs(stratified.mean() - post.mean()) > 0.02


def test_exact_posterior_result():
    prior = jc.Prior(theta=(2.0, 2.0))
    post = jc.posterior(DATA, prior=prior, method="exact", draws=100, chains=2, random_seed=5)
    again = jc.posterior(DATA, prior=prior, method="exact", draws=100, chains=2, random_seed=5)
    np.testing.assert_array_equal(post.draws(), again.draws())
    assert post.data is DATA and post.prior == prior and post.method == "exact"
    assert int(post.idata.observed_data[LABELLED_CLASS_NAME].values[0]) == DATA.m1
    assert post.to_dict()["inputs"]["design"] == "random"
    assert random_design_prior(DATA, prior).theta == (2.0 + 11, 2.0 + 9)


@pytest.mark.slow
def test_nuts_agrees_with_exact():
    from judgestats.bayes.nuts import NutsCache

    # the refit through a cache compiles nothing and must still give the cold fit's draws
    cache = NutsCache()
    options = {"method": "nuts", "draws": 600, "tune": 500, "chains": 2, "random_seed": 11}
    nuts = jc.posterior(DATA, **options, compiled=cache)
    again = jc.posterior(DATA, **options, compiled=cache)
    assert cache.info() == {"hits": 1, "misses": 1, "size": 1}
    np.testing.assert_array_equal(nuts.draws(), again.draws())
    exact = jc.posterior(DATA, method="exact", draws=100, chains=1, random_seed=1)
    ess = nuts.diagnostics["ess_bulk"]
    mc_se = np.std(nuts.draws()) / math.sqrt(ess)
    assert abs(nuts.mean() - exact.mean()) < 4 * mc_se
    for level in (0.1, 0.9):
        assert nuts.quantile(level) == pytest.approx(exact.quantile(level), abs=0.03)
    assert LABELLED_CLASS_NAME in nuts.idata.observed_data


def test_design_errors_in_the_bayesian_path():
    stratified = dataclasses.replace(DATA, design="stratified")
    with pytest.raises(ValueError, match=r"needs design='random'"):
        random_design_prior(stratified)
