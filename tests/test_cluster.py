"""Repeated judging clustered by item id: the cluster arithmetic and the clustered closed form.

Expected values are derived by hand here: the ratio-estimator variance
V = G/(G-1) sum (a_i - r b_i)^2 / B^2, its reference r(1-r)/(B-1), and the Lang-Reiczigel
interval (Lee et al., arXiv 2511.21140 v1, eqs. 5-7) written out below at the effective sizes.
"""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest

import judgestats as jc
from judgestats.grouped.clustered import _clustered_estimate
from judgestats.grouped.clusters import cluster_totals, ratio_design
from judgestats.io._items import items_frame


def lr_by_hand(p, q0, q1, n, m0, m1, level=0.95):
    """Eqs. (5)-(7), written out independently of judgestats.frequentist."""
    from statistics import NormalDist

    z = NormalDist().inv_cdf(0.5 + level / 2)
    z2 = z * z
    pt = (n * p + z2 / 2) / (n + z2)
    q0t = (m0 * q0 + 1) / (m0 + 2)
    q1t = (m1 * q1 + 1) / (m1 + 2)
    tt = (pt + q0t - 1) / (q0t + q1t - 1)
    shift = 2 * z2 * (-(1 - tt) * q0t * (1 - q0t) / (m0 + 2) + tt * q1t * (1 - q1t) / (m1 + 2))
    se = math.sqrt(
        pt * (1 - pt) / (n + z2)
        + (1 - tt) ** 2 * q0t * (1 - q0t) / (m0 + 2)
        + tt**2 * q1t * (1 - q1t) / (m1 + 2)
    ) / (q0t + q1t - 1)
    centre = tt + shift
    return max(0.0, centre - z * se), min(1.0, centre + z * se)


# ---- ratio_design ------------------------------------------------------------------------------
def test_design_effect_by_hand():
    # clusters A: 1,1,1; B: 0,0; C: 1,0 -> a = (3, 0, 1), b = (3, 2, 2), B = 7, r = 4/7
    # residuals 9/7, -8/7, -1/7: sum of squares 146/49; V = 3/2 * 146/49 / 49 = 219/2401
    # reference r(1-r)/(B-1) = (12/49)/6 = 2/49; d = 219/98
    arm = ratio_design([3, 0, 1], [3, 2, 2])
    assert arm.rate == pytest.approx(4 / 7, rel=1e-15)
    assert arm.rows == 7 and arm.clusters == 3
    assert arm.design_effect == pytest.approx(219 / 98, rel=1e-13)
    assert arm.effective_size == pytest.approx(7 * 98 / 219, rel=1e-13)


def test_cluster_totals_by_hand():
    codes = np.array([0, 0, 0, 1, 1, 2, 2, 2])
    values = np.array([1, 1, 1, 0, 0, 1, 0, 1])
    in_arm = np.array([True] * 7 + [False])  # the last row belongs to another arm
    a, b = cluster_totals(codes, values, in_arm, 3)
    assert a.tolist() == [3.0, 0.0, 1.0] and b.tolist() == [3.0, 2.0, 2.0]


def test_design_effect_is_floored_at_one():
    # a = (2, 0, 2), b = (3, 1, 2): V = 1/27 < reference 2/45 (d = 5/6 before the floor)
    assert ratio_design([2, 0, 2], [3, 1, 2]).design_effect == 1.0


def test_one_row_per_cluster_gives_one():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 57).astype(float)
    arm = ratio_design(y, np.ones_like(y))
    assert arm.design_effect == 1.0 and arm.effective_size == 57.0


@pytest.mark.parametrize("a", [[0, 0], [3, 1]])
def test_rate_at_the_boundary_uses_perfect_correlation(a):
    # r in {0, 1}: d = sum b^2 / B = (9 + 1) / 4
    assert ratio_design(a, [3, 1]).design_effect == pytest.approx(2.5)


def test_one_cluster_uses_perfect_correlation():
    arm = ratio_design([2], [5])
    assert arm.clusters == 1 and arm.design_effect == 5.0 and arm.effective_size == 1.0


def test_vectorised_over_leading_axes():
    a = np.array([[3, 0, 1], [2, 0, 2]])
    b = np.array([[3, 2, 2], [3, 1, 2]])
    arm = ratio_design(a, b)
    assert arm.design_effect.shape == (2,)
    assert arm.design_effect[0] == pytest.approx(219 / 98) and arm.design_effect[1] == 1.0


def test_perfect_duplicates():
    # every row judged 3 times identically: V = r(1-r)/(G-1), reference r(1-r)/(3G-1)
    y = np.array([1, 0, 1, 1, 0, 1, 1, 0, 0, 1], dtype=float)
    g = y.size
    assert ratio_design(3 * y, np.full(g, 3.0)).design_effect == pytest.approx(
        (3 * g - 1) / (g - 1), rel=1e-13
    )


# ---- the clustered estimate -------------------------------------------------------------------
def tiny_frame():
    """Test items t1 (1,1,1), t2 (0,0), t3 (1,0), t4 (0), t5 (1, 1); calibration below."""
    rows = (
        [("t1", 1, None)] * 3
        + [("t2", 0, None)] * 2
        + [("t3", 1, None), ("t3", 0, None), ("t4", 0, None), ("t5", 1, None), ("t5", 1, None)]
    )
    # class 0: c1 judged 0,0,1; c2 judged 0; c3 judged 0,0   (correct = judged 0)
    rows += [("c1", 0, 0), ("c1", 0, 0), ("c1", 1, 0), ("c2", 0, 0), ("c3", 0, 0), ("c3", 0, 0)]
    # class 1: d1 judged 1,1; d2 judged 1,0,0; d3 judged 1
    rows += [("d1", 1, 1), ("d1", 1, 1), ("d2", 1, 1), ("d2", 0, 1), ("d2", 0, 1), ("d3", 1, 1)]
    ids, judge, human = zip(*rows, strict=True)
    return items_frame(list(ids), list(judge), list(human), source="tiny.csv")


def hand_arm(a, b):
    a, b = np.array(a, float), np.array(b, float)
    g, big_b = a.size, b.sum()
    r = a.sum() / big_b
    v = g / (g - 1) * np.sum((a - r * b) ** 2) / big_b**2
    d = max(1.0, v / (r * (1 - r) / (big_b - 1)))
    return r, big_b / d, d


def test_clustered_estimate_by_hand():
    items = tiny_frame()
    with pytest.warns(jc.JudgeStatsWarning):
        est = jc.estimate_items(items)
    assert isinstance(est, jc.ClusteredEstimate)
    p, n_eff, dp = hand_arm([3, 0, 1, 0, 2], [3, 2, 2, 1, 2])
    q0, m0_eff, d0 = hand_arm([2, 1, 2], [3, 1, 2])
    q1, m1_eff, d1 = hand_arm([2, 1, 1], [2, 3, 1])
    assert (est.data.k, est.data.n, est.data.k0, est.data.m0, est.data.k1, est.data.m1) == (
        6,
        10,
        5,
        6,
        4,
        6,
    )
    assert est.items == 11 and est.clusters == (5, 3, 3)
    assert est.design_effects == pytest.approx((dp, d0, d1), rel=1e-12)
    assert est.theta_raw == pytest.approx((p + q0 - 1) / (q0 + q1 - 1), rel=1e-12)
    assert tuple(est.ci) == pytest.approx(lr_by_hand(p, q0, q1, n_eff, m0_eff, m1_eff), rel=1e-12)
    assert "clustered" in est.flags


def test_no_repeats_equals_estimate_exactly():
    items = items_frame(
        [f"i{k}" for k in range(12)],
        [1, 0, 1, 1, 0, 1, 0, 0, 1, 1, 0, 1],
        [None] * 6 + [0, 0, 0, 1, 1, 1],
        source="u.csv",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jc.JudgeStatsWarning)
        assert jc.estimate_items(items) == jc.estimate(jc.JudgeData.from_items(items))
        level = jc.estimate_items(items, confidence_level=0.8)
        assert level == jc.estimate(jc.JudgeData.from_items(items), confidence_level=0.8)


def test_clustered_path_with_single_rows_matches_estimate():
    rng = np.random.default_rng(7)
    judge = rng.integers(0, 2, 200)
    human = np.where(np.arange(200) < 120, -1, (rng.random(200) < 0.5).astype(int))
    human = np.where(human == 1, judge | (rng.random(200) < 0.8), human)
    judge = np.where(human == 0, (rng.random(200) < 0.25).astype(int), judge)
    codes = np.arange(200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jc.JudgeStatsWarning)
        clustered = _clustered_estimate(
            codes, judge, human, design="stratified", level=0.95, source="s"
        )
        labels = [None if h < 0 else int(h) for h in human]
        plain = jc.estimate(
            jc.JudgeData.from_items(
                items_frame([str(c) for c in codes], judge.tolist(), labels, source="s")
            )
        )
    assert clustered.design_effects == (1.0, 1.0, 1.0)
    assert clustered.data == plain.data
    assert tuple(clustered.ci) == pytest.approx(tuple(plain.ci), rel=1e-14)


def test_to_dict_and_text():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jc.JudgeStatsWarning)
        est = jc.estimate_items(tiny_frame())
    out = json.loads(json.dumps(est.to_dict()))
    assert out["clustered"]["items"] == 11 and out["clustered"]["judgments"] == 22
    assert set(out["clustered"]["design_effects"]) == {"p", "q0", "q1"}
    assert "clustered" in out["flags"]
    # the clustered flag's sentence carries these data's design effects (two decimals)
    assert f"q1 {est.design_effects[2]:.2f}" in out["flags"]["clustered"]
    assert "22 judgments of 11 items" in str(est)
    assert "judgestats-result" in est._repr_html_()


def test_original_frame_is_not_modified():
    items = tiny_frame()
    before = items.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jc.JudgeStatsWarning)
        jc.estimate_items(items)
    assert items.equals(before)


def test_from_items_still_refuses_repeats_and_points_to_estimate_items():
    with pytest.raises(ValueError, match=r"tiny.csv: .* more than once.*estimate_items"):
        jc.JudgeData.from_items(tiny_frame())


def test_errors_of_the_clustered_path():
    items = tiny_frame()
    no_class1 = items[items["human"].isna() | (items["human"] == 0)].reset_index(drop=True)
    no_class1.attrs["source"] = "tiny.csv"
    with pytest.raises(ValueError, match="tiny.csv: the calibration set has no truly correct"):
        jc.estimate_items(no_class1)
    with pytest.raises(ValueError, match=r"`null` \(0.5\) tests one hypothesis per group"):
        jc.estimate_items(items, null=0.5)
    with pytest.raises(TypeError, match="`items` must be an items frame"):
        jc.estimate_items([1, 2, 3])
    with pytest.raises(ValueError, match="`confidence_level`"):
        jc.estimate_items(items, confidence_level=1.0)


# ---- the result contract ----------------------------------------------------------------------
def test_clustered_estimate_is_a_result(capsys):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from judgestats.results import FLAG_MESSAGES, Result

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jc.JudgeStatsWarning)
        est = jc.estimate_items(tiny_frame())
    assert isinstance(est, Result) and isinstance(est, jc.Estimate)
    assert "clustered" in est.flags and set(est.flags) <= set(FLAG_MESSAGES)
    capsys.readouterr()
    frame = est.summary()
    assert capsys.readouterr() == ("", "")
    assert frame.loc["Rogan-Gladen + Lang-Reiczigel", "low"] == est.ci.low
    ax = est.plot()
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["naive (p-hat, Wald)", "Rogan-Gladen + Lang-Reiczigel"]
    plt.close("all")
