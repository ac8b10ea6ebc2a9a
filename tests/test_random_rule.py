"""The random-design rule's guards (issue 24): never wider than the labels alone, no zero width
where the truth is unknown, exact candidates used generically, and the class-balance reason.

Expected values come from the intervals handed to the rule or from hand arithmetic, not from the
rule's own output.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import judgestats as jc
from judgestats.designs import random_candidates
from judgestats.designs.random_candidates import count_candidates
from judgestats.recommendation.random_rule import (
    CHOICES,
    EXACT,
    LEVEL_STEPS,
    NOMINAL_STEP,
    choose_random,
    random_coverage_table,
    recommend_random,
)

# a strong judge (q0, q1 about 0.97), 200 random labels, 100,000 unlabelled items
STRONG = (59400, 100000, 78, 80, 117, 120)


def _intervals(counts, target):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = count_candidates(*counts, target=target, level=0.95)
    return found, {name: (value[1], value[2]) for name, value in found.items()}


def _width_of_choice(choice, intervals):
    low, high = intervals[CHOICES[int(choice)]]
    return float(high) - float(low)


edge = st.one_of(st.just(0.0), st.just(1.0), st.floats(0.0, 1.0))
counts_strategy = st.tuples(
    st.sampled_from([1, 2, 5, 10, 11, 30, 99, 200, 501]),  # m
    st.sampled_from([1, 50, 100, 101, 1000, 99_999, 1_000_000]),  # n
    edge,  # labelled share correct
    edge,  # q0-ish
    edge,  # q1-ish
    edge,  # p-ish
    st.sampled_from(["population", "items"]),
)


@settings(max_examples=150, deadline=None)
@given(counts_strategy)
def test_recommended_never_wider_than_labels_only_exact_including_edge_counts(values):
    m, n, share, a, b, c, target = values
    m1 = round(share * m)
    m0 = m - m1
    counts = (round(c * n), n, round(a * m0), m0, round(b * m1), m1)
    found, intervals = _intervals(counts, target)
    pick = choose_random(counts, intervals, 0.95, target)
    _, low, high = found[EXACT]
    _, cp_low, cp_high = found["labels_only_cp"]
    width = float(pick.high[0] - pick.low[0])
    data = jc.JudgeData(*counts, design="random")
    rec = recommend_random(data, 0.95, found, target=target)
    # choose_random (vectorised) and recommend_random (one dataset)
    for got, single in ((width, False), (rec.high - rec.low, True)):
        if high > low:
            assert got <= (high - low) + 1e-12
            assert got > 0.0  # n >= 1: the truth is unknown, so never a zero-width interval
        elif cp_high > cp_low:  # Blaker's finite-population interval is one point: CP instead
            assert target == "items" and got == pytest.approx(cp_high - cp_low)
        else:  # CP's too: choose_random picks it; recommend_random reports every share the
            # n unlabelled items allow, n / (n + m) wide
            expected = n / (n + m) if single else cp_high - cp_low
            assert target == "items" and got == pytest.approx(expected)


def test_many_count_vectors_at_once_never_wider_than_blaker(monkeypatch):
    # count_candidates spends ~95% of this test in labels_only_triple, a pure function of
    # (m1, m, n, method, target, level) that takes few distinct values here (~300 for 6000
    # calls): memoised for this test, every interval handed to choose_random is the same float
    cached = functools.lru_cache(maxsize=None)(random_candidates.labels_only_triple)
    monkeypatch.setattr(random_candidates, "labels_only_triple", cached)
    rng = np.random.default_rng(5)
    size = 3000
    m = rng.choice([10, 20, 37, 100, 500], size)
    m1 = rng.binomial(m, rng.choice([0.0, 0.02, 0.5, 0.98, 1.0], size))
    m0 = m - m1
    k0 = rng.binomial(m0, rng.choice([0.5, 0.9, 1.0], size))
    k1 = rng.binomial(m1, rng.choice([0.5, 0.9, 1.0], size))
    n = rng.choice([100, 10_000, 1_000_000], size)
    k = rng.binomial(n, rng.choice([0.0, 0.3, 1.0], size))
    counts = (k, n, k0, m0, k1, m1)
    for target in ("population", "items"):
        intervals = {}
        for i in range(size):
            _, one = _intervals(tuple(int(c[i]) for c in counts), target)
            for name, (low, high) in one.items():
                intervals.setdefault(name, ([], []))
                intervals[name][0].append(float(low))
                intervals[name][1].append(float(high))
        arrays = {name: (np.array(lo), np.array(hi)) for name, (lo, hi) in intervals.items()}
        pick = choose_random(counts, arrays, 0.95, target)
        names = np.array(CHOICES)[pick.choice]
        low, high = pick.low, pick.high  # the chosen interval, at its regime's level for ppi_pp
        blaker = arrays[EXACT][1] - arrays[EXACT][0]
        assert np.all(blaker > 0)  # n >= 100 here
        assert np.all(high - low <= blaker + 1e-12)
        assert np.all(high - low > 0)
        assert set(names) <= {"ppi_pp", EXACT}


def test_one_point_blaker_interval_with_an_unknown_truth_falls_back_to_clopper_pearson():
    # items target, 30 labelled (none correct), 1 unlabelled item: N = 31 and the total correct
    # is 0 or 1; P(0 of 30 | total 1) = 1/31 = 0.032 > 0.025, so Clopper-Pearson keeps total 1
    counts = (0, 1, 0, 30, 0, 0)
    found, intervals = _intervals(counts, "items")
    assert found["labels_only_cp"][1:] == pytest.approx((0.0, 1 / 31))
    choice = choose_random(counts, dict(intervals, **{EXACT: (0.0, 0.0)}), 0.95, "items").choice
    assert CHOICES[int(choice[0])] == "labels_only_cp"


def test_every_item_labelled_the_known_share_is_recommended_with_zero_width():
    # items target, n = 0 unlabelled: every candidate is the known share 30 / 40 (width 0);
    # the truth is known, so the zero-width guard does not fire and the exact pick stands
    counts = (0, 0, 7, 10, 25, 30)
    found = count_candidates(*counts, target="items", level=0.95)
    assert found[EXACT] == (0.75, 0.75, 0.75)
    intervals = {name: (value[1], value[2]) for name, value in found.items()}
    choice, coverage = choose_random(counts, intervals, 0.95, "items")[:2]
    assert CHOICES[int(choice[0])] == EXACT and np.isnan(coverage[0])
    assert _width_of_choice(choice[0], intervals) == 0.0


def test_a_zero_width_interval_is_never_recommended_where_the_truth_is_unknown():
    found, intervals = _intervals(STRONG, "population")
    _, low, high = found[EXACT]
    rigged = dict(intervals, ppi_pp=(0.6, 0.6))  # zero width, inside everything
    choice = choose_random(STRONG, rigged, 0.95, "population").choice
    assert CHOICES[int(choice[0])] == EXACT
    assert _width_of_choice(choice[0], rigged) == pytest.approx(high - low)


def test_ppi_without_its_small_sample_correction_is_never_picked():
    # ppi-python's uncorrected interval is tabulated but not a candidate (module docstring)
    found, intervals = _intervals(STRONG, "population")
    narrow = dict(intervals, ppi_pp_wald=(0.59, 0.61))
    choice = choose_random(STRONG, narrow, 0.95, "population").choice
    assert CHOICES[int(choice[0])] != "ppi_pp_wald"
    assert "ppi_pp_wald" not in CHOICES


def test_the_judge_using_guaranteed_interval_is_reported_but_never_picked():
    # min of two valid 95% intervals is only a 90% interval: the rule keeps Blaker's
    weak = (5000, 10000, 100, 200, 50, 100)  # a judge at chance: no approximate pick
    found, intervals = _intervals(weak, "population")
    _, low, high = found[EXACT]
    inner = (low + 0.01, high - 0.01)
    for candidate in (inner, (np.nan, np.nan), (low - 0.1, high + 0.1)):
        choice = choose_random(
            weak, dict(intervals, guaranteed_judge=candidate), 0.95, "population"
        ).choice
        assert CHOICES[int(choice[0])] == EXACT
    data = jc.JudgeData(*weak, design="random")
    triple = (float(found[EXACT][0]), *inner)
    rec = recommend_random(data, 0.95, dict(found, guaranteed_judge=triple))
    assert rec.method == EXACT and (rec.low, rec.high) == (low, high)


def _table_at(step):
    """The shipped table with nothing banned and every cell's ppi_pp at LEVEL_STEPS[step]."""
    table = dict(random_coverage_table())
    table["banned"] = np.zeros(table["coverage"].shape, dtype=bool)
    table["steps"] = np.full(table["coverage"].shape, step, dtype=np.int8)
    return table


def test_a_banned_cell_makes_the_judge_using_intervals_ineligible():
    table = _table_at(NOMINAL_STEP)
    found, intervals = _intervals(STRONG, "population")
    choice, coverage = choose_random(STRONG, intervals, 0.95, "population", table=table)[:2]
    assert CHOICES[int(choice[0])] == "ppi_pp" and coverage[0] >= 0.93
    table["banned"] = np.ones(table["coverage"].shape, dtype=bool)
    choice, coverage = choose_random(STRONG, intervals, 0.95, "population", table=table)[:2]
    assert CHOICES[int(choice[0])] == EXACT and np.isnan(coverage[0])


def test_the_level_steps_run_from_93_to_99_percent_and_95_is_nominal():
    assert LEVEL_STEPS == (0.93, 0.94, 0.95, 0.96, 0.97, 0.98, 0.99)
    assert LEVEL_STEPS[NOMINAL_STEP] == 0.95


@pytest.mark.parametrize(("step", "level"), [(0, 0.93), (1, 0.94), (3, 0.96), (4, 0.97), (6, 0.99)])
def test_a_step_computes_ppi_pp_at_its_level(step, level):
    # STRONG with no bans picks ppi_pp; with every cell at `step` the interval is the PPI++
    # candidate computed at that level (tested in tests/test_ppi.py), lower or higher than 95%
    from judgestats.designs.prediction_powered import ppi_pp_counts

    found, intervals = _intervals(STRONG, "population")
    at95 = choose_random(STRONG, intervals, 0.95, "population", table=_table_at(NOMINAL_STEP))
    moved = choose_random(STRONG, intervals, 0.95, "population", table=_table_at(step))
    assert CHOICES[int(moved.choice[0])] == "ppi_pp" and moved.computed_at[0] == level
    assert at95.computed_at[0] == 0.95 and (at95.low[0], at95.high[0]) == intervals["ppi_pp"]
    _, low, high, _ = ppi_pp_counts(*STRONG, confidence_level=level)
    assert (moved.low[0], moved.high[0]) == (float(low), float(high))
    wider = level > 0.95
    assert (moved.low[0] < at95.low[0]) == wider and (moved.high[0] > at95.high[0]) == wider
    assert np.isnan(moved.coverage[0]) and at95.coverage[0] >= 0.93  # the table vouches the rule


def test_a_table_without_steps_computes_ppi_pp_at_95_percent():
    table = _table_at(0)
    del table["steps"]
    _, intervals = _intervals(STRONG, "population")
    pick = choose_random(STRONG, intervals, 0.95, "population", table=table)
    assert pick.computed_at[0] == 0.95 and (pick.low[0], pick.high[0]) == intervals["ppi_pp"]


def test_a_lowered_pick_says_why_and_reports_the_narrower_interval(monkeypatch):
    from judgestats.recommendation import random_rule

    monkeypatch.setattr(random_rule, "random_coverage_table", lambda: _table_at(1))
    found, _ = _intervals(STRONG, "population")
    rec = recommend_random(jc.JudgeData(*STRONG, design="random"), 0.95, found)
    assert rec.method == "ppi_pp" and "computed at the 94% level" in rec.reason
    assert "conservative" in rec.reason and "94.6%" in rec.reason
    assert rec.high - rec.low < found["ppi_pp"][2] - found["ppi_pp"][1]
    assert rec.coverage is None and rec.low <= rec.estimate <= rec.high


def test_a_raised_pick_says_so_and_reports_the_raised_interval(monkeypatch):
    from judgestats.recommendation import random_rule

    monkeypatch.setattr(random_rule, "random_coverage_table", lambda: _table_at(4))
    found, _ = _intervals(STRONG, "population")
    rec = recommend_random(jc.JudgeData(*STRONG, design="random"), 0.95, found)
    assert rec.method == "ppi_pp" and "computed at the 97% level" in rec.reason
    assert rec.high - rec.low > found["ppi_pp"][2] - found["ppi_pp"][1]
    assert rec.low <= rec.estimate <= rec.high
    # the table's 95% PPI++ coverage is not this interval's: no coverage figure is claimed
    assert rec.coverage is None and "at least" not in rec._repr_html_().split("why")[0]
    # below 95% the raised 95% pick is reported, and its reason says what was simulated
    found90 = count_candidates(*STRONG, target="population", level=0.90)
    at90 = recommend_random(jc.JudgeData(*STRONG, design="random"), 0.90, found90)
    assert (at90.method, at90.low, at90.high) == ("ppi_pp", rec.low, rec.high)
    assert "at a level set by simulation" in at90.reason and "94.6%" in at90.reason


@pytest.mark.parametrize("step", [0, 4])
def test_a_ppi_interval_the_caller_left_out_is_not_revived_by_another_step(step):
    table = _table_at(step)
    _, intervals = _intervals(STRONG, "population")
    for left_out in ((np.nan, np.nan), (0.6, 0.6), (0.7, 0.6)):
        pick = choose_random(STRONG, dict(intervals, ppi_pp=left_out), 0.95, "population",
                             table=table)  # fmt: skip
        assert CHOICES[int(pick.choice[0])] == EXACT


@pytest.mark.parametrize("which", ["k only", "all but k"])
def test_counts_of_mixed_shapes_broadcast_like_one_dataset_at_a_time(which):
    # three datasets given with some counts as scalars: each must get its own rule, as alone
    ks = np.array([59400, 52000, 30000])
    rest = np.array(STRONG[1:])
    if which == "k only":
        counts = (ks, *STRONG[1:])
    else:
        counts = (STRONG[0], *(np.full(3, c) for c in rest))
        ks = np.full(3, STRONG[0])
    per_dataset = [_intervals((int(k), *STRONG[1:]), "population")[1] for k in ks]
    arrays = {name: tuple(np.array([one[name][i] for one in per_dataset]) for i in (0, 1))
              for name in per_dataset[0]}  # fmt: skip
    together = choose_random(counts, arrays, 0.95, "population")
    for i, k in enumerate(ks):
        alone = choose_random((int(k), *STRONG[1:]), per_dataset[i], 0.95, "population")
        assert together.choice[i] == alone.choice[0]
        assert (together.low[i], together.high[i]) == (alone.low[0], alone.high[0])


def test_a_cell_raised_past_the_last_step_is_banned_not_raised_further():
    # the table keeps steps <= 6 (99%) and bans instead: a ban wins over any step
    table = _table_at(len(LEVEL_STEPS) - 1)
    table["banned"] = np.ones(table["coverage"].shape, dtype=bool)
    _, intervals = _intervals(STRONG, "population")
    pick = choose_random(STRONG, intervals, 0.95, "population", table=table)
    assert CHOICES[int(pick.choice[0])] == EXACT and pick.computed_at[0] == 0.95


def test_a_target_that_does_not_apply_is_refused_by_name():
    _, intervals = _intervals(STRONG, "population")
    with pytest.raises(ValueError, match="`target`"):
        choose_random(STRONG, intervals, 0.95, "sample")
    with pytest.raises(ValueError, match="target='population'"):
        count_candidates(0, 0, 7, 10, 25, 30, target="population", level=0.95)
    with pytest.raises(ValueError, match="`target`"):
        jc.crosscheck(jc.JudgeData(k=400, n=1000, k0=140, m0=200, k1=180, m1=200), target="items")


def test_class_balance_reason_with_no_verdict_correct_prints_a_share_in_0_1():
    # k = 0: the unclipped Rogan-Gladen estimate is (0 - (1 - 0.9)) / (0.9 + 0.9 - 1) = -0.125
    data = jc.JudgeData(k=0, n=1000, k0=9, m0=10, k1=9, m1=10, design="random")
    test = jc.class_balance_test(data)
    assert test.test_accuracy == pytest.approx(-0.125)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rec = jc.crosscheck(data, random_seed=0).recommended
    assert rec is not None and "random-sampling assumption fails" in rec.reason
    assert "the test set's (0.000;" in rec.reason and "-0.125" not in rec.reason


def test_a_lowered_interval_truncated_to_a_point_is_reported_at_95_percent():
    # row 0: every unlabelled item judged correct, 2 labelled incorrect (judged so) and 16 of 50
    # correct ones judged correct: PPI++'s centre lies above 1, so at 93% both ends clip to 1
    # (zero width) while at 95% the interval keeps a width: it is reported at 95%, step and
    # all. Row 1 (STRONG) keeps its 93% interval, narrower than at 95%.
    from judgestats.designs.prediction_powered import ppi_pp_counts
    from judgestats.recommendation._ppi_levels import ppi_offers

    rows = [(100000, 100000, 2, 2, 16, 50), STRONG]
    at = {level: [ppi_pp_counts(*c, confidence_level=level)[1:3] for c in rows]
          for level in (0.93, 0.95)}  # fmt: skip
    assert at[0.93][0][0] == at[0.93][0][1] == 1.0 and at[0.95][0][1] > at[0.95][0][0]
    counts = tuple(np.array(column) for column in zip(*rows, strict=True))
    given = {"ppi_pp": tuple(np.array([float(r[i]) for r in at[0.95]]) for i in (0, 1))}
    step, compared, reported = ppi_offers(counts, np.array([0.0, 0.0]), "population", given)
    assert step.tolist() == [NOMINAL_STEP, 0]
    assert [tuple(map(float, pair)) for pair in zip(*compared["ppi_pp"], strict=True)] == [
        tuple(map(float, pair)) for pair in at[0.95]
    ]
    reported_pairs = [tuple(map(float, pair)) for pair in zip(*reported["ppi_pp"], strict=True)]
    assert reported_pairs == [tuple(map(float, at[0.95][0])), tuple(map(float, at[0.93][1]))]
    assert reported_pairs[1][1] - reported_pairs[1][0] < float(at[0.95][1][1] - at[0.95][1][0])
