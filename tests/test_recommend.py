"""The recommendation rule, on a synthetic coverage table (so every expected pick is derived here).

The shipped table is replaced by one whose coverages the tests set; the rule must then pick the
narrowest interval whose coverage less two Monte Carlo errors reaches the level over the data's
regime, and fall back to the guaranteed interval otherwise, never raising.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy.stats import beta

import judgestats as jc
from judgestats.recommendation import stratified_rule as rec

Q = np.array([0.55, 0.7, 0.85, 0.99])
THETA = np.array([0.0, 0.1, 0.5, 0.9, 1.0])


def synthetic_table(lr=0.96, eti=0.97, hdi=0.97, ppi=0.97, reps=2000):
    shape = (2, 2, 4, 4, 5)  # arms, n, q0, q1, theta
    return {
        "methods": np.array(["lang_reiczigel", "bayes_eti", "bayes_hdi", "guaranteed"]),
        "arms": np.array([[5, 5], [50, 50]]),
        "n": np.array([50, 1000]),
        "q": Q,
        "theta": THETA,
        "coverage": np.stack(
            [np.full(shape, lr), np.full(shape, eti), np.full(shape, hdi), np.full(shape, np.nan)]
        ),
        "width_median": np.full((4, *shape), 0.1),
        "reps": np.array([0, reps, reps, 0]),
        "random_m": np.array([10, 100]),
        "ppi_coverage": np.full(shape, ppi),
        "ppi_width": np.full(shape, 0.1),
        "ppi_reps": np.array(20000),
        "level": np.array(0.95),
    }


@pytest.fixture
def table(monkeypatch):
    def install(**values):
        fake = synthetic_table(**values)
        monkeypatch.setattr(rec, "coverage_table", lambda: fake)
        return fake

    return install


DATA = jc.JudgeData(k=600, n=1000, k0=45, m0=50, k1=46, m1=50)  # q-hat 0.9 and 0.92
CANDIDATES = {
    "lang_reiczigel": (0.6, 0.50, 0.70),
    "bayes_eti": (0.61, 0.52, 0.70),
    "bayes_hdi": (0.61, 0.53, 0.69),
}


def test_picks_the_narrowest_eligible(table):
    table()
    result = rec.recommend(DATA, 0.95, CANDIDATES)
    assert result.method == "bayes_hdi"
    assert (result.estimate, result.low, result.high) == CANDIDATES["bayes_hdi"]
    assert result.coverage == pytest.approx(0.97)
    assert "narrowest of the 3" in result.reason


def test_monte_carlo_margin(table):
    """0.955 measured on 2,000 replications is not 0.95 beyond two standard errors
    (2 sqrt(0.955 * 0.045 / 2000) = 0.0093); the exact 0.95 of Lang-Reiczigel is."""
    table(lr=0.95, eti=0.955, hdi=0.955)
    result = rec.recommend(DATA, 0.95, CANDIDATES)
    assert result.method == "lang_reiczigel"
    assert result.coverage == pytest.approx(0.95)


def test_one_low_cell_in_the_regime_excludes_a_method(table):
    fake = table(eti=0.9, hdi=0.9)
    # the regime of DATA: arms 50 x 50, n 1000, q0 and q1 in {0.85, 0.99}, theta near 0.6
    fake["coverage"][0, 1, 1, 2, 3, 2] = 0.93
    result = rec.recommend(DATA, 0.95, CANDIDATES)
    assert result.method == "guaranteed"
    low, high = jc.guaranteed_ci(600, 1000, 45, 50, 46, 50)
    # the guaranteed interval, widened to contain the (here made-up) Lang-Reiczigel interval,
    # which reaches below it
    assert low > 0.50 > 0.0 and high > 0.70
    assert (result.low, result.high) == (0.50, high)
    assert result.widened is True
    assert "no approximate interval" in result.reason
    # the same low value outside the regime (q0 = 0.55) changes nothing
    fake["coverage"][0, 1, 1, 2, 3, 2] = 0.96
    fake["coverage"][0, 1, 1, 0, 0, 2] = 0.5
    assert rec.recommend(DATA, 0.95, CANDIDATES).method == "lang_reiczigel"


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (jc.JudgeData(k=30, n=50, k0=4, m0=4, k1=4, m1=4), "fewer items"),
        (jc.JudgeData(k=20, n=30, k0=45, m0=50, k1=46, m1=50), "smaller than the coverage table"),
        (jc.JudgeData(k=600, n=1000, k0=30, m0=50, k1=46, m1=50), "below 0.55"),
    ],
)
def test_outside_the_table_falls_back(table, data, fragment):
    table()
    result = rec.recommend(data, 0.95, CANDIDATES)
    assert result.method == "guaranteed"
    assert fragment in result.reason
    assert result.coverage is None


def test_other_levels_fall_back(table):
    table()
    result = rec.recommend(DATA, 0.9, CANDIDATES)
    assert result.method == "guaranteed"
    assert "95% intervals, not 90%" in result.reason
    assert result.level == 0.9


def test_random_design_candidates(table):
    table(lr=0.94, eti=0.99, hdi=0.99, ppi=0.97)
    data = jc.JudgeData(k=600, n=1000, k0=45, m0=50, k1=46, m1=50, design="random")
    result = rec.recommend(data, 0.95, {**CANDIDATES, "ppi_pp": (0.6, 0.45, 0.75)})
    assert result.method == "ppi_pp"  # posterior intervals are not candidates here


def test_missing_interval_is_not_picked(table):
    table()
    result = rec.recommend(DATA, 0.95, {**CANDIDATES, "bayes_hdi": (math.nan,) * 3})
    assert result.method == "bayes_eti"


@pytest.mark.parametrize(
    ("low", "high", "expected"),
    [
        (0.2, 0.6, [0.1, 0.5, 0.9]),
        (0.0, 0.3, [0.0, 0.1, 0.5]),
        (0.95, 1.0, [0.9, 1.0]),
        (0.5, 0.5, [0.5]),
        (0.02, 0.08, [0.1]),
    ],
)
def test_accuracy_mask(low, high, expected):
    mask = rec.accuracy_mask(np.array(low), np.array(high), THETA)[0]
    assert THETA[mask].tolist() == expected


def test_plausible_accuracy_range_by_hand():
    """Corners of the box of 95% Clopper-Pearson intervals for p, q0, q1 (scipy.stats.beta)."""
    k, n, k0, m0, k1, m1 = 600, 1000, 45, 50, 46, 50

    def cp(x, m):
        return beta.ppf(0.025, x, m - x + 1), beta.ppf(0.975, x + 1, m - x)

    (p_lo, p_hi), (a_lo, a_hi), (b_lo, b_hi) = cp(k, n), cp(k0, m0), cp(k1, m1)
    corners = [
        (p + a - 1) / (a + b - 1) for p in (p_lo, p_hi) for a in (a_lo, a_hi) for b in (b_lo, b_hi)
    ]
    low, high = rec.plausible_accuracy_range((k, n, k0, m0, k1, m1))
    assert low[0] == pytest.approx(max(0.0, min(corners)), abs=1e-10)
    assert high[0] == pytest.approx(min(1.0, max(corners)), abs=1e-10)
    # a box that reaches a judge no better than chance: every accuracy is plausible
    low, high = rec.plausible_accuracy_range((60, 100, 6, 10, 7, 10))
    assert (low[0], high[0]) == (0.0, 1.0)


def test_crosscheck_never_raises_without_a_closed_form():
    """J-hat <= 0: no Rogan-Gladen estimate, yet a recommendation with its reason."""
    data = jc.JudgeData(k=60, n=100, k0=4, m0=10, k1=5, m1=10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jc.JudgeStatsWarning)
        check = jc.crosscheck(data)
    rec_ = check.recommended
    assert rec_.method in ("guaranteed", "bayes_eti", "bayes_hdi")
    assert 0.0 <= rec_.low <= rec_.estimate <= rec_.high <= 1.0
    assert "no answer" in rec_.reason
    assert check.to_dict()["recommended"]["method"] == rec_.method


def test_command_line_prints_the_recommendation_first(capsys):
    from judgestats.cli import main

    assert (
        main(
            [
                "crosscheck",
                "--k",
                "60",
                "--n",
                "100",
                "--k0",
                "7",
                "--m0",
                "10",
                "--k1",
                "9",
                "--m1",
                "10",
            ]
        )
        == 0
    )
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("  recommended: ")
    assert lines[2].startswith("    why: ")
    notes = [line for line in lines if line.startswith("  note: ")]
    assert 1 <= len(notes) <= 3
    assert not any("prefer" in line for line in notes)


def test_widen():
    low, high, changed = rec.widen(
        np.array([0.2, 0.2, 0.2, 0.0]),
        np.array([0.5, 0.5, 0.5, 0.1]),
        np.array([0.1, 0.3, np.nan, 0.0]),
        np.array([0.4, 0.6, 0.9, 0.1]),
    )
    assert low.tolist() == [0.1, 0.2, 0.2, 0.0]
    assert high.tolist() == [0.5, 0.6, 0.5, 0.1]
    assert changed.tolist() == [True, True, False, False]


def test_fallback_contains_lang_reiczigel(table):
    """Near 0 the exact guaranteed interval can be narrower than Lang-Reiczigel (25 of 200:
    guaranteed upper end 0.135, Lang-Reiczigel 0.257). The fallback reports their hull, so the
    rule's choice never costs the coverage Lang-Reiczigel would have given."""
    table()
    data = jc.JudgeData(k=25, n=200, k0=14, m0=20, k1=65, m1=100)  # q0 CP reaches 0.46
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jc.JudgeStatsWarning)
        fit = jc.estimate(data)
    g_low, g_high = jc.guaranteed_ci(25, 200, 14, 20, 65, 100)
    assert fit.ci.high > g_high + 0.1  # the premise: LR reaches far beyond it
    result = rec.recommend(data, 0.95, {"lang_reiczigel": (fit.theta, *fit.ci)})
    assert result.method == "guaranteed"
    assert result.widened
    assert (result.low, result.high) == (min(g_low, fit.ci.low), fit.ci.high)
    assert result.label.endswith(", widened")
    assert "widened here to contain the Lang-Reiczigel interval" in result.reason
    assert result.to_dict()["widened"] is True
    # without a Lang-Reiczigel interval (J-hat <= 0) nothing is widened
    plain = rec.recommend(data, 0.95, {"lang_reiczigel": (math.nan,) * 3})
    assert (plain.low, plain.high, plain.widened) == (g_low, g_high, False)


def test_crosscheck_reports_the_widened_fallback():
    """The real cross-check (shipped table) on data outside the table: the fallback contains
    both its own guaranteed interval and the Lang-Reiczigel row, and says so."""
    data = jc.JudgeData(k=25, n=200, k0=14, m0=20, k1=65, m1=100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jc.JudgeStatsWarning)
        check = jc.crosscheck(data)
    _, lr_low, lr_high = check.rows["rogan_gladen"]
    g_low, g_high = jc.guaranteed_ci(25, 200, 14, 20, 65, 100)
    recommended = check.recommended
    assert recommended.method == "guaranteed" and recommended.widened
    assert recommended.low == min(lr_low, g_low) and recommended.high == max(lr_high, g_high)
    assert check.to_dict()["recommended"]["widened"] is True
    assert "Rogan-Gladen + guaranteed, widened" in str(check)


# ---- the result contract ----------------------------------------------------------------------
def test_recommendation_is_a_result(capsys):
    import xml.etree.ElementTree as ET

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from judgestats.results import IntervalResult, Result

    r = rec.Recommendation(0.2, 0.1, 0.35, "bayes_eti", 0.95, "because a < b & c", coverage=0.951)
    assert isinstance(r, Result) and r.flags == ()
    capsys.readouterr()
    frame = r.summary()
    assert capsys.readouterr() == ("", "")
    assert list(frame.index) == ["posterior median + equal-tailed"]
    row = frame.iloc[0]
    # width = 0.35 - 0.1
    assert (row["estimate"], row["low"], row["high"]) == (0.2, 0.1, 0.35)
    assert row["width"] == pytest.approx(0.25, abs=1e-15)
    assert (row["coverage"], row["method"]) == (0.951, "bayes_eti")
    fallback = rec.Recommendation(0.2, 0.0, 1.0, "guaranteed", 0.95, "by construction")
    assert math.isnan(fallback.summary().iloc[0]["coverage"])
    interval = r.interval
    assert isinstance(interval, IntervalResult)
    assert tuple(interval) == (0.2, 0.1, 0.35) and interval.method == "bayes_eti"
    markup = r._repr_html_()
    assert "a &lt; b &amp; c" in markup and "a < b" not in markup
    root = ET.fromstring(markup)
    assert root.get("class") == "judgestats-result"
    ax = r.plot()
    assert [t.get_text() for t in ax.get_yticklabels()] == ["posterior median + equal-tailed"]
    plt.close("all")


def test_the_reason_states_the_users_own_values_before_the_table_cells():
    # the demo's counts: 87/110 and 80/95 labelled, 1576 of 2400 judged correct
    data = jc.JudgeData(k=1576, n=2400, k0=87, m0=110, k1=80, m1=95)
    reason = jc.crosscheck(data, random_seed=1).recommended.reason
    assert reason.startswith(
        "your data: m0 = 110, m1 = 95, n = 2400, q0-hat = 0.79, q1-hat = 0.84;"
    )
    assert "nearby simulated regimes (m0 = 50, m1 = 50" in reason


def test_guaranteed_without_a_rogan_gladen_estimate_names_where_its_estimate_comes_from():
    # q0-hat = q1-hat = 0.5: q0 + q1 - 1 = 0, so no Rogan-Gladen estimate exists; the
    # guaranteed interval is reported with the posterior median, and its label says so
    data = jc.JudgeData(k=500, n=1000, k0=40, m0=80, k1=40, m1=80)
    with pytest.warns(jc.JudgeStatsWarning):
        rec = jc.crosscheck(data, random_seed=0).recommended
    assert rec.method == "guaranteed" and rec.estimate_from == "posterior median"
    assert rec.label == "posterior median + guaranteed"
    assert "Rogan-Gladen" not in str(rec).splitlines()[0]
    assert rec.to_dict()["estimate_from"] == "posterior median"
    # 3 labels an arm (q0-hat = q1-hat = 2/3): the guaranteed interval, with a Rogan-Gladen
    # estimate (0.3 - 1/3) / (1/3) clipped to 0, so the label keeps its name
    tiny = jc.JudgeData(k=300, n=1000, k0=2, m0=3, k1=2, m1=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        other = jc.crosscheck(tiny, random_seed=0).recommended
    assert other.method == "guaranteed" and other.estimate_from is None
    assert other.label == "Rogan-Gladen + guaranteed" and other.estimate == 0.0
