"""Counts beyond what the computation can hold: a ValueError naming the argument, never a crash
from inside Python or numpy, and never a computation without end (DESIGN.md, "Error and warning
policy")."""

from __future__ import annotations

import numpy as np
import pytest

import judgestats as jc

COUNTS = dict(k=400, n=1000, k0=140, m0=200, k1=180, m1=200)


@pytest.mark.parametrize(
    "value", [10**400, -(10**400), 10**5000], ids=["1e400", "-1e400", "1e5000"]
)
@pytest.mark.parametrize("name", ["k", "n", "m0"])
def test_a_whole_number_beyond_floats_is_a_value_error_naming_it(name, value):
    with pytest.raises(ValueError, match=rf"`{name}` \(about -?10\*\*\d+\) is too large"):
        jc.JudgeData(**{**COUNTS, name: value})


def test_an_array_holding_a_number_beyond_floats_names_the_argument():
    with pytest.raises(ValueError, match=r"`n` \(about 10\*\*400\) is too large"):
        jc.lang_reiczigel_ci(0.4, 0.7, 0.9, [10**400, 5], 200, 200)


@pytest.mark.parametrize("value", [2**63, np.uint64(2**63), 1e19, 1e300], ids=str)
@pytest.mark.parametrize("name", ["n", "m0"])
def test_a_count_beyond_int64_is_refused_by_judgedata_before_crosscheck_overflows(name, value):
    # JudgeData took these (floats and uint64 pass the count check), and crosscheck's
    # coverage-table lookup then raised OverflowError converting them to int64
    counts = {**COUNTS, name: value}
    with pytest.raises(ValueError, match=rf"`{name}` \(\S+\) must be at most 2\*\*63 - 1"):
        jc.crosscheck(jc.JudgeData(**counts))
    with pytest.raises(ValueError, match=rf"`{name}` \(\S+\) must be at most 2\*\*63 - 1"):
        jc.guaranteed_ci(**counts)


def test_the_largest_int64_count_is_still_a_count():
    data = jc.JudgeData(**{**COUNTS, "n": 2**63 - 1})
    assert data.n == 2**63 - 1


def test_guaranteed_arms_beyond_2_to_53_are_refused_not_searched_without_end():
    # at arms of 1e17 scipy's betaincinv gave a NaN Clopper-Pearson set, the arm's support
    # became all of 0..m and the blocks loop ran for hours
    m = 10**17
    with pytest.raises(ValueError, match=r"`m0` \(100000000000000000\) must be at most 2\*\*53"):
        jc.guaranteed_ci(400, 1000, m * 7 // 10, m, m * 9 // 10, m)
    with pytest.raises(ValueError, match=r"`m1` \(100000000000000000\) must be at most 2\*\*53"):
        jc.guaranteed_ci(400, 1000, 140, 200, m * 9 // 10, m)


def test_crosscheck_falling_back_to_the_guaranteed_interval_at_huge_arms_raises_at_once():
    m = 2**61  # a judge no better than chance: the cross-check falls back to guaranteed
    data = jc.JudgeData(k=400, n=1000, k0=m // 10, m0=m, k1=m * 9 // 10, m1=m)
    with pytest.raises(ValueError, match=r"`m0` \(\d+\) must be at most 2\*\*53"):
        jc.crosscheck(data)


@pytest.mark.parametrize("m", [2**53 + 2, 2**62, 2**63, 1e300])
@pytest.mark.parametrize("plan", ["optimal_allocation", "allocate_calibration"])
def test_planning_budget_beyond_2_to_the_53_is_refused_naming_m(plan, m):
    # before: `q1` blamed (NaN at an index), OverflowError, numpy's UFuncTypeError, or a
    # "math domain error", depending on m
    call = {
        "optimal_allocation": lambda: jc.optimal_allocation(m, 0.6, 0.8, 0.9, n=1000),
        "allocate_calibration": lambda: jc.allocate_calibration(
            m, 0.6, q0_pilot=0.8, q1_pilot=0.9, m_pilot=20, n=1000
        ),
    }[plan]
    with pytest.raises(ValueError, match=r"^`m` \(.*\) must be at most 2\*\*53"):
        call()


def test_planning_budget_of_2_to_the_53_still_plans():
    plan = jc.optimal_allocation(2**53, 0.6, 0.8, 0.9, n=1000)
    assert plan.m0 + plan.m1 == 2**53


def test_item_totals_beyond_int64_are_refused_naming_the_counts():
    # each count fits int64, their sum does not: m0 + m1 wrapped to a negative total in the
    # labels-only interval, and scipy's root search raised "f(a) and f(b) must have different
    # signs" from estimate(), crosscheck() and random_design_candidates()
    half = 2**62
    with pytest.raises(ValueError, match=r"^`n` \+ `m0` \+ `m1` \(\d+\) must be at most 2\*\*63"):
        jc.JudgeData(k=400, n=1000, k0=half // 10, m0=half, k1=half // 2, m1=half, design="random")
    with pytest.raises(ValueError, match=r"^`m0` \+ `m1` \(\d+\) must be at most 2\*\*63"):
        jc.JudgeData(k=400, n=1000, k0=half // 10, m0=half, k1=half // 2, m1=half)
    data = jc.JudgeData(k=4, n=10, k0=1, m0=2**61, k1=2, m1=2**61, design="random")
    assert data.m0 + data.m1 == 2**62


@pytest.mark.parametrize("labels", [2**50 + 2, 2**53, 2**60])
def test_labels_only_blaker_beyond_2_to_the_50_is_clopper_pearson(labels):
    # there Blaker's tail searches lose their precision (NaN tails from about 2**54); the two
    # intervals agree to double precision at 2**50 and 2**53 labels
    from judgestats.designs.labels_only import clopper_pearson, labels_only_interval

    x = labels // 10 * 6
    _, low, high = labels_only_interval(x, labels, confidence_level=0.95, method="blaker")
    exact = clopper_pearson(x, labels, 0.95)
    assert np.allclose([low, high], np.ravel(exact), rtol=0, atol=1e-12)
    assert float(exact[0]) < x / labels < float(exact[1])
