"""Too few bootstrap replicates: refused below the minimum, flagged when the ends are unsettled."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from judgestats import JudgeData, JudgeStatsWarning, compare
from judgestats.cli import main
from judgestats.comparison.bootstrap import MIN_N_RESAMPLES, quantile_mc_band

A = JudgeData(420, 1000, 160, 200, 175, 200)
B = JudgeData(380, 1000, 150, 200, 170, 200)
COUNTS = ["--a", "420,1000,160,200,175,200", "--b", "380,1000,150,200,170,200"]


def _boot(n_resamples: int, seed: int = 1, interval: str = "bca"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)
        options = {"n_resamples": n_resamples, "interval": interval}
        return compare(A, B, method="bootstrap", random_seed=seed, bootstrap=options)


@pytest.mark.parametrize("n_resamples", [1, 2, 50, 100, MIN_N_RESAMPLES - 1])
def test_too_few_resamples_are_refused(n_resamples):
    with pytest.raises(ValueError, match=rf"`n_resamples` \({n_resamples}\) must be at least 200"):
        compare(A, B, method="bootstrap", bootstrap={"n_resamples": n_resamples})


def test_cli_refuses_one_resample_naming_the_option(capsys):
    code = main(["compare", *COUNTS, "--method", "bootstrap", "--n-resamples", "1"])
    err = capsys.readouterr().err
    assert code == 2
    assert "`n_resamples` (--n-resamples) (1) must be at least 200" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("interval", ["bca", "percentile"])
@pytest.mark.parametrize("seed", range(6))
def test_minimum_resamples_flag_and_weaken_an_unsettled_verdict(seed, interval):
    result = _boot(MIN_N_RESAMPLES, seed, interval)
    assert result.ci.low <= result.estimate <= result.ci.high
    assert "bootstrap_monte_carlo_error" in result.flags
    if "excludes zero" in result.verdict:
        assert "Claim weakened" in result.verdict


def test_many_resamples_raise_no_monte_carlo_flag_where_the_ends_are_settled():
    a = JudgeData(700, 1000, 170, 200, 180, 200)
    b = JudgeData(600, 1000, 168, 200, 182, 200)
    result = compare(a, b, method="bootstrap", random_seed=0, bootstrap={"n_resamples": 4000})
    assert "bootstrap_monte_carlo_error" not in result.flags
    low, high = result.details["monte_carlo_error"]
    assert 0 < max(low, high) < 0.1 * (result.ci.high - result.ci.low)


def test_quantile_band_brackets_the_quantile_of_a_known_distribution():
    rng = np.random.default_rng(0)
    hits = 0
    for _ in range(400):
        low, high = quantile_mc_band(rng.standard_normal(400), [0.025])[0]
        hits += low <= -1.959963984540054 <= high
    assert 0.92 <= hits / 400 <= 0.99  # about 95% by construction
