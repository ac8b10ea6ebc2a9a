"""The cross-check: closed form vs posterior, its flags, output and errors."""

import json

import matplotlib
import pytest

import judgestats as jc
from judgestats.results import IntervalResult

matplotlib.use("Agg")

PAPER = jc.JudgeData(k=400, n=1000, k0=140, m0=200, k1=180, m1=200)


@pytest.fixture(scope="module")
def paper_check():
    return jc.crosscheck(PAPER, random_seed=1)


def test_rows_hold_the_closed_form_and_the_posterior(paper_check):
    rows = paper_check.rows
    assert list(rows) == ["naive", "rogan_gladen", "posterior_eti", "posterior_hdi"]
    # eq. (4): (0.4 + 0.7 - 1) / (0.7 + 0.9 - 1) = 1/6; interval of the authors' reference code
    # (0.0564, 0.2627)
    assert rows["rogan_gladen"].estimate == pytest.approx(1 / 6, abs=1e-12)
    assert rows["rogan_gladen"].ci == pytest.approx((0.0564, 0.2627), abs=5e-5)
    assert rows["naive"].estimate == 0.4
    # published posterior for these counts (uniform priors): central 95% about (0.051, 0.258)
    assert rows["posterior_eti"].ci == pytest.approx((0.051, 0.258), abs=0.003)
    for key, row in rows.items():
        assert isinstance(row, IntervalResult)
        assert row.method == key and row.confidence_level == 0.95
        estimate, low, high = row  # unpacks as the tuples did
        assert low <= estimate <= high


def test_agreement_for_a_large_calibration_set(paper_check):
    assert paper_check.max_difference < paper_check.tolerance
    assert paper_check.flags == () and paper_check.messages == {}
    assert "agree" in str(paper_check)


def test_hdi_no_wider_than_eti(paper_check):
    eti, hdi = paper_check.rows["posterior_eti"], paper_check.rows["posterior_hdi"]
    assert hdi.width <= eti.width + 1e-9


def test_small_calibration_is_flagged_and_explained():
    data = jc.JudgeData(k=40, n=100, k0=7, m0=10, k1=9, m1=10)
    with pytest.warns(jc.JudgeStatsWarning, match="small_calibration"):
        check = jc.crosscheck(data, random_seed=0)
    assert "small_calibration" in check.flags
    # the note names these data's arm sizes (m0 = m1 = 10)
    assert "m0 = 10, m1 = 10" in check.messages["small_calibration"]


def test_boundary_estimate_is_flagged_and_hdi_reaches_zero():
    # p-hat = 0.05 < 1 - q0-hat = 0.3: the Rogan-Gladen estimate is clipped to 0 (eq. 4)
    data = jc.JudgeData(k=50, n=1000, k0=140, m0=200, k1=180, m1=200)
    with pytest.warns(jc.JudgeStatsWarning, match="boundary"):
        check = jc.crosscheck(data, random_seed=0)
    assert "boundary" in check.flags
    assert check.rows["rogan_gladen"].estimate == 0.0
    assert check.rows["posterior_hdi"].low == 0.0
    assert check.rows["posterior_eti"].low > 0.0  # the equal-tailed interval excludes 0


def test_weak_judge_is_flagged_from_the_posterior_of_j():
    # q0-hat = q1-hat = 0.55 from 40 items each: J-hat = 0.1, most posterior mass of J below 0.2
    data = jc.JudgeData(k=500, n=1000, k0=22, m0=40, k1=22, m1=40)
    with pytest.warns(jc.JudgeStatsWarning, match="weak_judge"):
        check = jc.crosscheck(data, random_seed=0)
    assert check.prob_weak_judge > 0.5
    assert "weak_judge" in check.flags


def test_a_good_judge_is_not_called_weak_at_any_n():
    # J-hat = 0.6 from 200 items per arm; n = 1e12 makes p-hat exact, not the judge weaker
    data = jc.JudgeData(k=10**12 // 2, n=10**12, k0=160, m0=200, k1=160, m1=200)
    check = jc.crosscheck(data, random_seed=0)
    assert check.prob_weak_judge < 1e-6
    assert "weak_judge" not in check.flags


def test_conflicting_data_are_named_and_not_resolved_by_the_posterior():
    # p-hat = 0.3 lies below 1 - q0-hat = 0.45: the calibration cannot produce this test rate
    data = jc.JudgeData(k=300, n=1000, k0=55, m0=100, k1=52, m1=100)
    with pytest.warns(jc.JudgeStatsWarning, match="test_calibration_conflict"):
        check = jc.crosscheck(data, random_seed=0)
    assert "test_calibration_conflict" in check.flags
    if "intervals_disagree" in check.flags:  # the note names the conflict flag it rests on
        assert "test_calibration_conflict" in check.messages["intervals_disagree"]


def test_calibration_worse_than_chance_gives_the_posterior_and_a_flag():
    # q0-hat + q1-hat = 0.7 < 1: no closed-form correction; the posterior exists but its
    # direction comes from the better-than-chance prior, which the flag says
    data = jc.JudgeData(k=300, n=1000, k0=30, m0=100, k1=40, m1=100)
    with pytest.warns(jc.JudgeStatsWarning):
        check = jc.crosscheck(data, random_seed=0)
    assert check.estimate is None
    assert {"no_closed_form", "calibration_contradicts_prior"} <= set(check.flags)
    lo, hi = check.rows["posterior_eti"].ci
    assert 0.0 <= lo < hi <= 1.0


def test_one_class_random_sample_gives_the_posterior():
    data = jc.JudgeData(k=28, n=30, k0=0, m0=0, k1=29, m1=30, design="random")
    with pytest.warns(jc.JudgeStatsWarning):
        check = jc.crosscheck(data, random_seed=0)
    assert {"no_closed_form", "one_class_labelled"} <= set(check.flags)
    assert "nan" in str(check)  # the closed-form row is printed as not available


def test_boundary_note_names_the_intervals_and_only_fires_when_clipped():
    data = jc.JudgeData(k=50, n=1000, k0=140, m0=200, k1=180, m1=200)
    with pytest.warns(jc.JudgeStatsWarning):
        check = jc.crosscheck(data, random_seed=0)
    note = check.messages["boundary"]
    # the note quotes both intervals of these data, four decimals
    eti, lr = check.rows["posterior_eti"], check.rows["rogan_gladen"]
    assert f"({eti.low:.4f}, {eti.high:.4f})" in note and f"({lr.low:.4f}, {lr.high:.4f})" in note
    # a wide HDI touching 0 without a clipped estimate is not a boundary case
    wide = jc.JudgeData(k=330, n=1000, k0=14, m0=20, k1=18, m1=20)
    with pytest.warns(jc.JudgeStatsWarning):
        other = jc.crosscheck(wide, random_seed=0)
    if other.estimate is not None and "clipped" not in other.estimate.flags:
        assert "boundary" not in other.flags


def test_output_formats(paper_check):
    payload = json.loads(json.dumps(paper_check.to_dict()))
    assert payload["inputs"] == PAPER.to_dict()
    assert set(payload["rows"]) == {"naive", "rogan_gladen", "posterior_eti", "posterior_hdi"}
    frame = paper_check.summary()
    assert list(frame.columns) == ["estimate", "low", "high", "width"]
    assert len(frame) == 4
    assert (frame["width"] == frame["high"] - frame["low"]).all()
    ax = paper_check.plot()
    assert ax.get_xlabel() == "true accuracy theta"


def test_same_seed_same_result():
    a = jc.crosscheck(PAPER, random_seed=7).to_dict()
    b = jc.crosscheck(PAPER, random_seed=7).to_dict()
    assert a == b


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"tolerance": -0.1}, ValueError, "`tolerance`"),
        ({"confidence_level": 1.0}, ValueError, "`confidence_level`"),
        ({"method": "mcmc"}, ValueError, "`method`"),
    ],
)
def test_bad_options(kwargs, error, message):
    with pytest.raises(error, match=message):
        jc.crosscheck(PAPER, **kwargs)


def test_unknown_posterior_option_names_crosscheck_and_lists_the_accepted():
    with pytest.raises(
        TypeError, match=r"crosscheck\(\) got an unexpected keyword argument 'bogus'.*draws"
    ):
        jc.crosscheck(PAPER, bogus=1)


def test_bad_data_type():
    with pytest.raises(TypeError, match="`data` must be a JudgeData"):
        jc.crosscheck((400, 1000, 140, 200, 180, 200))


def _atlas_cell(theta, q0, q1, n, m):
    """The atlas value read straight from the packaged table, at exact grid values."""
    from importlib import resources

    import numpy as np

    with resources.files("judgestats.datasets").joinpath("lr_coverage_atlas.npz").open("rb") as f:
        table = np.load(f)
        index = tuple(
            int(np.flatnonzero(np.isclose(table[name], value))[0])
            for name, value in zip(
                ("theta", "q0", "q1", "n", "m"), (theta, q0, q1, n, m), strict=True
            )
        )
        return float(table["coverage"][index])


def test_atlas_flags_where_the_closed_form_undercovers():
    # q0-hat = 3/5 = 0.6, q1-hat = 4/5 = 0.8, Rogan-Gladen estimate clipped to 0, m0 = m1 = 5
    data = jc.JudgeData(k=300, n=1000, k0=3, m0=5, k1=4, m1=5)
    with pytest.warns(jc.JudgeStatsWarning):
        result = jc.crosscheck(data)
    expected = _atlas_cell(0.0, 0.6, 0.8, 1000, 5)
    assert expected < 0.93
    assert "closed_form_undercovers" in result.flags
    assert f"{expected:.1%}" in result.messages["closed_form_undercovers"]


def test_atlas_is_silent_where_the_closed_form_covers(paper_check):
    assert _atlas_cell(0.15, 0.7, 0.9, 1000, 100) >= 0.93  # the paper example's cell (m = 200)
    assert "closed_form_undercovers" not in paper_check.flags
    with pytest.warns(jc.JudgeStatsWarning):
        other_level = jc.crosscheck(
            jc.JudgeData(k=300, n=1000, k0=3, m0=5, k1=4, m1=5), confidence_level=0.9
        )
    assert "closed_form_undercovers" not in other_level.flags


def test_random_design_disagreement_is_explained_by_the_class_balance():
    data = jc.JudgeData(k=600, n=1000, k0=70, m0=100, k1=90, m1=100, design="random")
    with pytest.warns(jc.JudgeStatsWarning, match="intervals_disagree"):
        result = jc.crosscheck(data)
    assert "intervals_disagree" in result.flags
    # the reason points at the class-balance test
    assert "judgestats.class_balance_test" in result.messages["intervals_disagree"]


# ---- the result contract ----------------------------------------------------------------------
def test_crosscheck_is_a_result_with_keyed_flags(capsys):
    from judgestats.recommendation import FLAGS
    from judgestats.results import FLAG_MESSAGES, Result

    data = jc.JudgeData(k=40, n=100, k0=7, m0=10, k1=9, m1=10)  # arms of 10 items
    with pytest.warns(jc.JudgeStatsWarning):
        check = jc.crosscheck(data, random_seed=0)
    assert isinstance(check, Result)
    assert isinstance(check.flags, tuple) and "small_calibration" in check.flags
    assert set(check.flags) <= set(FLAG_MESSAGES)
    assert set(FLAGS) <= set(FLAG_MESSAGES)
    assert list(check.messages) == list(check.flags)
    assert check.flag_messages == [check.messages[flag] for flag in check.flags]
    assert json.loads(json.dumps(check.to_dict()))["flags"] == check.messages
    capsys.readouterr()
    frame = check.summary()
    assert capsys.readouterr() == ("", "")
    assert frame.attrs["flags"] == check.messages


def test_crosscheck_rows_are_interval_results_at_the_level():
    check = jc.crosscheck(PAPER, confidence_level=0.9, random_seed=0)
    est = jc.estimate(PAPER, confidence_level=0.9)
    lr = check.rows["rogan_gladen"]
    assert (lr.estimate, lr.low, lr.high) == (est.theta, est.ci.low, est.ci.high)
    assert lr.flags == est.flags and lr.confidence_level == 0.9
    eti = check.posterior.ci(0.9, "eti")
    assert check.rows["posterior_eti"].ci == eti
    # the largest end difference, by hand from the rows
    expected = max(abs(lr.low - eti.low), abs(lr.high - eti.high))
    assert check.max_difference == expected


def test_crosscheck_plot_draws_on_the_given_axes():
    import matplotlib.pyplot as plt

    check = jc.crosscheck(PAPER, random_seed=0)
    _, ax = plt.subplots()
    assert check.plot(ax=ax) is ax
    assert len(ax.get_legend().get_texts()) == 5  # the density and the four rows
    plt.close("all")
