"""Grouped estimates: per-group closed form, Bonferroni levels, Holm / Bonferroni p-values."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import judgestats as jc
from judgestats.frequentist import lang_reiczigel_p_value
from judgestats.grouped import adjust_p_values
from judgestats.io._items import items_frame

# per model: (judge verdicts of the test items, (human, judge) of the calibration items)
COUNTS = {
    "a": (70, 100, 40, 50, 45, 50),
    "b": (55, 100, 38, 50, 44, 50),
    "c": (30, 80, 35, 40, 33, 40),
}


def frame_from_counts(counts, *, extra_group=None):
    ids, judge, human, model = [], [], [], []
    for name, (k, n, k0, m0, k1, m1) in counts.items():
        verdicts = [1] * k + [0] * (n - k) + [0] * k0 + [1] * (m0 - k0) + [1] * k1 + [0] * (m1 - k1)
        labels = [None] * n + [0] * m0 + [1] * m1
        ids += [f"{name}{i}" for i in range(len(verdicts))]
        judge += verdicts
        human += labels
        model += [name] * len(verdicts)
    extra = {"model": model}
    if extra_group is not None:
        extra["task"] = extra_group(len(ids))
    return items_frame(ids, judge, human, source="models.csv", extra=extra)


def quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jc.JudgeStatsWarning)
        return func(*args, **kwargs)


def test_rows_equal_per_group_estimates_at_the_bonferroni_level():
    table = quiet(jc.estimate_items, frame_from_counts(COUNTS), by="model")
    assert isinstance(table, jc.GroupedEstimates)
    level = 1 - 0.05 / 3  # 0.98333...
    assert table.interval_level == pytest.approx(level, rel=1e-15)
    assert [row.key for row in table.rows] == [("a",), ("b",), ("c",)]
    for row, counts in zip(table.rows, COUNTS.values(), strict=True):
        expected = quiet(jc.estimate, jc.JudgeData(*counts), confidence_level=level)
        assert row.result == expected
        assert row.counts == dict(zip(("k", "n", "k0", "m0", "k1", "m1"), counts, strict=True))
    assert "intervals simultaneous over 3 groups (Bonferroni, each at 98.3333%" in str(table)


def test_no_correction_is_marginal():
    table = quiet(jc.estimate_items, frame_from_counts(COUNTS), by="model", correction="none")
    assert table.interval_level == 0.95
    expected = quiet(jc.estimate, jc.JudgeData(*COUNTS["b"]))
    assert table.rows[1].result == expected
    assert "marginal" in table.statement


def test_bonferroni_correction_same_intervals_as_holm():
    frame = frame_from_counts(COUNTS)
    holm = quiet(jc.estimate_items, frame, by="model")
    bonf = quiet(jc.estimate_items, frame, by="model", correction="bonferroni")
    assert [r.ci for r in holm.rows] == [r.ci for r in bonf.rows]


def test_holm_by_hand():
    raw = [0.01, 0.04, 0.03, 0.005]
    # sorted 0.005 (x4 = 0.02), 0.01 (x3 = 0.03), 0.03 (x2 = 0.06), 0.04 (x1, max -> 0.06)
    assert adjust_p_values(raw, "holm") == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert adjust_p_values(raw, "bonferroni") == pytest.approx([0.04, 0.16, 0.12, 0.02])
    assert adjust_p_values(raw, "none") == pytest.approx(raw)
    assert adjust_p_values([0.5, 0.6], "holm") == pytest.approx([1.0, 1.0])


def test_holm_is_monotone_and_at_least_raw():
    rng = np.random.default_rng(11)
    for _ in range(50):
        raw = rng.random(rng.integers(1, 12)) ** 3
        adjusted = adjust_p_values(raw, "holm")
        order = np.argsort(raw)
        assert np.all(np.diff(adjusted[order]) >= 0)
        assert np.all(adjusted >= raw) and np.all(adjusted <= 1)
        assert np.all(adjusted <= adjust_p_values(raw, "bonferroni") + 1e-15)


def test_holm_nan_counts_as_one():
    # m = 3 with the NaN as p = 1: 0.01 x 3 = 0.03, 0.02 x 2 = 0.04
    assert np.allclose(
        adjust_p_values([0.02, np.nan, 0.01], "holm"), [0.04, np.nan, 0.03], equal_nan=True
    )


@pytest.mark.parametrize("theta0", [0.2, 0.5, 0.62, 0.9])
def test_p_value_inverts_the_interval(theta0):
    p, q0, q1, n, m0, m1 = 0.55, 0.76, 0.88, 100, 50, 50
    value = float(lang_reiczigel_p_value(p, q0, q1, n, m0, m1, theta0))
    assert 0 < value < 1
    low, high = jc.lang_reiczigel_ci(p, q0, q1, n, m0, m1, confidence_level=1 - value)
    assert min(abs(low - theta0), abs(high - theta0)) < 1e-8
    # a slightly lower level excludes theta0, a slightly higher one contains it
    low, high = jc.lang_reiczigel_ci(p, q0, q1, n, m0, m1, confidence_level=1 - value * 1.01)
    assert not low <= theta0 <= high
    low, high = jc.lang_reiczigel_ci(p, q0, q1, n, m0, m1, confidence_level=1 - value * 0.99)
    assert low <= theta0 <= high


def test_p_value_is_vectorised_and_extreme_values():
    values = lang_reiczigel_p_value([0.55, 0.55], 0.76, 0.88, 100, 50, 50, 0.5)
    assert values.shape == (2,) and values[0] == values[1]
    assert float(lang_reiczigel_p_value(0.95, 0.9, 0.9, 5000, 2000, 2000, 0.0)) < 1e-30
    chance = lang_reiczigel_p_value(0.5, 0.3, 0.3, 100, 50, 50, 0.5)
    assert np.isnan(chance)


def test_tests_in_the_table():
    table = quiet(jc.estimate_items, frame_from_counts(COUNTS), by="model", null=0.5)
    raw = [row.p_value for row in table.rows]
    for row in table.rows:
        d = row.result.data
        assert row.p_value == pytest.approx(
            float(lang_reiczigel_p_value(d.p, d.q0, d.q1, d.n, d.m0, d.m1, 0.5)), rel=1e-12
        )
    assert [row.p_adjusted for row in table.rows] == pytest.approx(
        list(adjust_p_values(raw, "holm"))
    )
    for row in table.rows:
        assert row.reject == (row.p_adjusted <= 0.05)
        # Bonferroni-adjusted p < alpha exactly when theta0 is outside the simultaneous interval
        outside = not row.ci.low <= 0.5 <= row.ci.high
        assert outside == (min(1, 3 * row.p_value) < 0.05)
    summary = table.summary()
    assert list(summary.index) == ["a", "b", "c"]
    assert {"p_value", "p_adjusted", "reject", "estimate", "low", "high"} <= set(summary.columns)
    assert "Holm-adjusted" in str(table)


def test_group_without_a_class_gets_nan_and_a_flag():
    counts = dict(COUNTS)
    frame = frame_from_counts(counts)
    labelled_correct = frame["human"].eq(1).fillna(False).to_numpy(dtype=bool)
    keep = ~((frame["model"] == "b").to_numpy() & labelled_correct)
    frame = frame[keep].reset_index(drop=True)
    frame.attrs["source"] = "models.csv"
    table = quiet(jc.estimate_items, frame, by="model", null=0.5)
    b = table.rows[1]
    assert b.result is None and b.flags == ("missing_class",)
    assert np.isnan(b.theta) and np.isnan(b.p_value) and b.reject is None
    assert table.rows[0].result is not None
    out = json.loads(json.dumps(table.to_dict()))
    assert out["groups"][1]["estimate"] is None and "missing_class" in out["groups"][1]["flags"]
    assert "n/a" in str(table)


def test_two_grouping_columns():
    frame = frame_from_counts(
        COUNTS, extra_group=lambda size: ["x", "y"] * (size // 2) + ["x"] * (size % 2)
    )
    table = quiet(jc.estimate_items, frame, by=["model", "task"])
    assert len(table.rows) == 6 and table.rows[0].key == ("a", "x")
    assert table.interval_level == pytest.approx(1 - 0.05 / 6)
    assert table.summary().index.names == ["model", "task"]


def test_clustered_groups():
    frame = frame_from_counts(COUNTS)
    doubled = frame.loc[frame.index.repeat(2)].reset_index(drop=True)
    doubled.attrs["source"] = "models.csv"
    table = quiet(jc.estimate_items, doubled, by="model")
    row = table.rows[0]
    assert isinstance(row.result, jc.ClusteredEstimate) and "clustered" in row.flags
    # perfect duplicates: d = (2G - 1) / (G - 1) per arm (G = 100 test items of model a)
    assert row.result.design_effects[0] == pytest.approx(199 / 99)
    assert row.counts["n"] == 200 and row.items == 200


def test_errors():
    frame = frame_from_counts(COUNTS)
    with pytest.raises(ValueError, match=r"`by` \('size'\) is not a column of models.csv.*'model'"):
        jc.estimate_items(frame, by="size")
    with pytest.raises(ValueError, match=r"`by` \('judge'\) must name a metadata column"):
        jc.estimate_items(frame, by="judge")
    with pytest.raises(TypeError, match="`by` must be a column name"):
        jc.estimate_items(frame, by=[])
    with pytest.raises(
        ValueError, match=r"`correction` \('hochberg'\) must be one of 'holm', 'bonferroni', 'none'"
    ):
        jc.estimate_items(frame, by="model", correction="hochberg")
    with pytest.raises(TypeError, match="`correction` must be a string, one of"):
        jc.estimate_items(frame, by="model", correction=None)
    with pytest.raises(ValueError, match=r"`null` \(1.5\) must be an accuracy in \[0, 1\]"):
        jc.estimate_items(frame, by="model", null=1.5)
    with pytest.raises(TypeError, match="`null` must be an accuracy"):
        jc.estimate_items(frame, by="model", null="0.5")
    with pytest.raises(ValueError, match="`confidence_level`"):
        jc.estimate_items(frame, by="model", confidence_level=0)
    with pytest.raises(ValueError, match="`design`"):
        jc.estimate_items(frame, by="model", design="cluster")


@pytest.mark.parametrize("function", [jc.estimate_items, jc.crosscheck_items])
@pytest.mark.parametrize("value", [["x"], {"tag": "x"}, {"x"}])
def test_a_group_column_of_lists_names_by(function, value):
    # a metadata column of lists (tags) raised pandas' bare "unhashable type: 'list'".
    frame = frame_from_counts(COUNTS)
    frame["tags"] = [value] * len(frame)
    with pytest.raises(TypeError, match=r"`by` \('tags'\): the column holds values that cannot"):
        function(frame, by=["model", "tags"])
    frame["tags"] = frame["tags"].astype(str)  # the remedy the message gives
    assert len(quiet(jc.estimate_items, frame, by=["model", "tags"]).rows) == 3


def test_html_and_text():
    table = quiet(jc.estimate_items, frame_from_counts(COUNTS), by="model", null=0.5)
    html = table._repr_html_()
    assert "judgestats-result" in html and "<table" in html and "Holm-adjusted" in html
    text = str(table)
    assert text.splitlines()[0].startswith("judgestats estimate by model (3 groups")


# ---- the result contract ----------------------------------------------------------------------
def test_grouped_estimates_is_a_result(capsys):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from judgestats.results import FLAG_MESSAGES, Result

    frame = frame_from_counts(COUNTS)
    labelled_correct = frame["human"].eq(1).fillna(False).to_numpy(dtype=bool)
    frame = frame[~((frame["model"] == "b").to_numpy() & labelled_correct)].reset_index(drop=True)
    frame.attrs["source"] = "models.csv"
    table = quiet(jc.estimate_items, frame, by="model", null=0.5)
    assert isinstance(table, Result)
    # the table's flags: every group's keys, once each, in order of first appearance
    expected = list(dict.fromkeys(flag for row in table.rows for flag in row.flags))
    assert list(table.flags) == expected and "missing_class" in table.flags
    assert set(table.flags) <= set(FLAG_MESSAGES)
    capsys.readouterr()
    table.summary()
    assert capsys.readouterr() == ("", "")
    ax = table.plot()
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b", "c"]
    solid = [line for line in ax.lines if line.get_linestyle() == "-"]
    drawn = [tuple(line.get_xdata()) for line in solid if len(line.get_xdata()) == 2]
    ends = sorted(pair for pair in drawn if not np.isnan(pair).any())  # group b has none
    assert ends == sorted((row.ci.low, row.ci.high) for row in table.rows if row.result)
    dashed = [line for line in ax.lines if line.get_linestyle() == "--"]
    assert [tuple(line.get_xdata()) for line in dashed] == [(0.5, 0.5)]  # the null
    plt.close("all")


def test_grouped_html_escapes_group_values():
    counts = {"<i>m</i>": COUNTS["a"]}
    html = quiet(jc.estimate_items, frame_from_counts(counts), by="model")._repr_html_()
    assert "<i>m</i>" not in html and "&lt;i&gt;m&lt;/i&gt;" in html
