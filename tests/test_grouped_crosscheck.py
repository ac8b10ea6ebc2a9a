"""The grouped cross-check: judgestats.crosscheck_items and `judgestats crosscheck --by`."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest

import judgestats as jc
from judgestats.cli import main
from judgestats.datasets import data_files
from judgestats.recommendation import ROWS

GROUPED = data_files()["example_grouped_items.csv"]
ITEMS = [
    "--items",
    GROUPED,
    "--judge-column",
    "verdict",
    "--human-column",
    "human_label",
    "--positive",
    "C",
]

# (k, n, k0, m0, k1, m1) per model: a good judge, a small calibration set, a boundary case
COUNTS = {
    "alpha": (400, 1000, 140, 200, 180, 200),
    "beta": (30, 60, 12, 15, 13, 15),
    "gamma": (95, 100, 45, 50, 44, 50),
}


def group_rows(model: str, k: int, n: int, k0: int, m0: int, k1: int, m1: int) -> list[dict]:
    """Item rows with exactly these counts; ids i0, i1, ... (they repeat across groups)."""
    judge = [1] * k + [0] * (n - k) + [0] * k0 + [1] * (m0 - k0) + [1] * k1 + [0] * (m1 - k1)
    human = [math.nan] * n + [0.0] * m0 + [1.0] * m1
    return [
        {"id": f"i{i}", "judge": j, "human": h, "model": model}
        for i, (j, h) in enumerate(zip(judge, human, strict=True))
    ]


def frame(counts: dict[str, tuple[int, ...]]) -> pd.DataFrame:
    return pd.DataFrame([row for model, c in counts.items() for row in group_rows(model, *c)])


@pytest.fixture(scope="module")
def items() -> pd.DataFrame:
    return frame(COUNTS)


@pytest.fixture(scope="module")
def table(items):
    return jc.crosscheck_items(items, by="model")


def run(capsys, argv):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def one_line_error(capsys, argv, *fragments):
    code, out, err = run(capsys, argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("judgestats: error: ")
    for fragment in fragments:
        assert fragment in err, err


# ---- the API ----------------------------------------------------------------------------------
def test_rows_equal_the_crosscheck_of_each_group_at_the_bonferroni_level(table):
    level = 1 - 0.05 / 3  # three groups, family-wise 95%
    assert table.interval_level == pytest.approx(level, abs=1e-15)
    assert [row.key for row in table.rows] == [("alpha",), ("beta",), ("gamma",)]
    for row in table.rows:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", jc.JudgeStatsWarning)
            alone = jc.crosscheck(jc.JudgeData(*COUNTS[row.key[0]]), confidence_level=level)
        assert row.counts == dict(
            zip(("k", "n", "k0", "m0", "k1", "m1"), COUNTS[row.key[0]], strict=True)
        )
        for name in ROWS:
            assert row.row(name) == pytest.approx(tuple(alone.rows[name]), rel=1e-12, abs=1e-12)
        assert row.flags == alone.flags
        assert row.agree == (alone.max_difference <= alone.tolerance)


def test_each_group_recommendation_comes_first(table):
    """Every group's recommended interval is its own cross-check's at the Bonferroni level (a
    level the coverage table does not hold, so the widened guaranteed interval), printed
    before the table and kept in to_dict."""
    level = 1 - 0.05 / 3
    lines = str(table).splitlines()
    groups = table.to_dict()["groups"]
    for i, row in enumerate(table.rows):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", jc.JudgeStatsWarning)
            alone = jc.crosscheck(jc.JudgeData(*COUNTS[row.key[0]]), confidence_level=level)
        rec = alone.recommended
        assert rec.method == "guaranteed" and "not 98.3333%" in rec.reason
        assert lines[1 + i] == (
            f"  recommended ({row.key[0]}): {rec.label} {rec.estimate:.4f} "
            f"({rec.low:.4f}, {rec.high:.4f}), 98.3333% interval"
        )
        assert groups[i]["recommended"] == rec.to_dict()


def test_rogan_gladen_by_hand_in_the_printed_table(table):
    # Lee et al. v1 eq. 4: theta = (p + q0 - 1) / (q0 + q1 - 1), for group beta
    p, q0, q1 = 30 / 60, 12 / 15, 13 / 15
    theta = (p + q0 - 1) / (q0 + q1 - 1)
    line = next(line for line in str(table).splitlines() if line.strip().startswith("beta"))
    assert line.split()[:5] == ["beta", "30/60", "12/15", "13/15", f"{theta:.4f}"]


@pytest.mark.parametrize(
    ("correction", "level", "groups", "expected"),
    [
        ("holm", 0.95, 3, 1 - 0.05 / 3),
        ("bonferroni", 0.95, 3, 1 - 0.05 / 3),
        ("none", 0.95, 3, 0.95),
        ("holm", 0.9, 2, 0.95),
        ("bonferroni", 0.8, 1, 0.8),
    ],
)
def test_adjusted_level_by_hand(correction, level, groups, expected):
    counts = dict(list(COUNTS.items())[:groups])
    result = jc.crosscheck_items(
        frame(counts), by="model", correction=correction, confidence_level=level
    )
    assert result.interval_level == pytest.approx(expected, abs=1e-12)
    assert result.confidence_level == level
    assert all(
        row.result.confidence_level == pytest.approx(expected, abs=1e-12) for row in result.rows
    )


def test_statement_says_which_correction(items):
    holm = jc.crosscheck_items(items, by="model")
    assert holm.statement.startswith(
        "intervals simultaneous over 3 groups (Bonferroni, each at 98.3333%"
    )
    assert holm.statement in str(holm)
    none = jc.crosscheck_items(items, by="model", correction="none")
    assert none.statement == ("intervals marginal at 95% each, not corrected for the 3 groups")


def test_groups_without_a_cross_check_get_na_and_a_flag():
    counts = {
        "ok": (40, 80, 18, 20, 17, 20),
        "one_class": (40, 80, 0, 0, 17, 20),  # stratified: no class-0 labels
        "no_test": (0, 0, 18, 20, 17, 20),
        "chance": (40, 80, 8, 20, 9, 20),
    }  # J = 0.4 + 0.45 - 1 < 0
    result = jc.crosscheck_items(frame(counts), by="model")
    rows = {row.key[0]: row for row in result.rows}
    assert list(rows["one_class"].flags) == ["missing_class"]
    assert list(rows["no_test"].flags) == ["no_test_items"]
    for key in ("one_class", "no_test"):
        assert rows[key].result is None and rows[key].agree is None
        assert all(math.isnan(v) for name in ROWS for v in rows[key].row(name))
    # no closed form, but the posterior exists: its rows are reported
    chance = rows["chance"]
    assert "no_closed_form" in chance.flags and chance.agree is None
    assert math.isnan(chance.row("rogan_gladen")[0])
    assert 0.0 < chance.row("posterior_eti")[1] < chance.row("posterior_eti")[2] < 1.0
    assert result.interval_level == pytest.approx(1 - 0.05 / 4)  # every group counts
    text = str(result)
    line = next(line for line in text.splitlines() if line.strip().startswith("one_class"))
    assert line.split()[4:] == ["n/a"] * 10
    assert "note (no_test: no_test_items)" in text
    json.dumps(result.to_dict(), allow_nan=False)  # NaN become null


def test_repeated_ids_within_a_group_are_refused(items):
    twice = pd.concat([items.assign(epoch=1), items.assign(epoch=2)], ignore_index=True)
    with pytest.raises(
        ValueError,
        match=r"occur more than once within the group model = alpha"
        r".*items\[items\['epoch'\] == 1\].*--epoch 1.*estimate_items",
    ):
        jc.crosscheck_items(twice, by="model")
    # grouped by epoch as well, every id occurs once per group
    result = jc.crosscheck_items(twice, by=["model", "epoch"])
    assert len(result.rows) == 6
    no_epoch = pd.concat([items, items], ignore_index=True)
    with pytest.raises(ValueError, match=r"drop_duplicates\('id'\)"):
        jc.crosscheck_items(no_epoch, by="model")


def test_errors(items):
    with pytest.raises(ValueError, match=r"`by` \('size'\) is not a column .*'model'"):
        jc.crosscheck_items(items, by="size")
    with pytest.raises(ValueError, match=r"`by` \('judge'\) must name a metadata column"):
        jc.crosscheck_items(items, by="judge")
    with pytest.raises(TypeError, match=r"`by` must be a column name"):
        jc.crosscheck_items(items, by=None)
    with pytest.raises(
        ValueError, match=r"`correction` \('sidak'\) must be one of 'holm', 'bonferroni', 'none'"
    ):
        jc.crosscheck_items(items, by="model", correction="sidak")
    with pytest.raises(TypeError, match=r"`correction` must be a string, one of"):
        jc.crosscheck_items(items, by="model", correction=1)
    with pytest.raises(ValueError, match=r"`confidence_level`"):
        jc.crosscheck_items(items, by="model", confidence_level=1.0)
    with pytest.raises(TypeError, match=r"`items` must be an items frame"):
        jc.crosscheck_items(COUNTS, by="model")
    with pytest.raises(ValueError, match=r"no item has a human label"):
        jc.crosscheck_items(items.assign(human=np.nan), by="model")
    with pytest.raises(TypeError, match=r"crosscheck_items\(\) got an unexpected .*'bogus'"):
        jc.crosscheck_items(items, by="model", bogus=1)


def test_inputs_are_not_modified(items):
    before = items.copy(deep=True)
    jc.crosscheck_items(items, by="model")
    pd.testing.assert_frame_equal(items, before)


def test_summary_and_to_dict(table):
    summary = table.summary()
    assert list(summary.index) == ["alpha", "beta", "gamma"]
    assert summary.index.name == "model"
    row = table.rows[0]
    assert summary.loc["alpha", "rogan_gladen_low"] == row.row("rogan_gladen")[1]
    assert summary.loc["alpha", "posterior_hdi_high"] == row.row("posterior_hdi")[2]
    assert (summary["level"] == table.interval_level).all()
    out = json.loads(json.dumps(table.to_dict(), allow_nan=False))
    assert out["correction"] == "holm" and out["statement"] == table.statement
    assert [g["group"] for g in out["groups"]] == [{"model": m} for m in COUNTS]
    assert (
        out["groups"][1]["rows"]["posterior_eti"]["low"] == (table.rows[1].row("posterior_eti")[1])
    )


def test_repr_html_escapes_group_values():
    counts = {"<b>x</b>": COUNTS["beta"]}
    html = jc.crosscheck_items(frame(counts), by="model")._repr_html_()
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html
    assert "Bonferroni, each at 95%" in html  # one group: 1 - 0.05 / 1


def test_public_names():
    assert {"crosscheck_items", "GroupedCrossChecks"} <= set(jc.__all__)


# ---- the command line -------------------------------------------------------------------------
def epoch_counts(epoch: int) -> dict[str, tuple[int, ...]]:
    """The six counts per model of the bundled file, counted here with pandas."""
    raw = pd.read_csv(GROUPED)
    raw = raw[raw["epoch"] == epoch]
    out = {}
    for model, group in raw.groupby("model"):
        judge = group["verdict"] == "C"
        human = group["human_label"]
        test, zero, one = human.isna(), human == "I", human == "C"
        out[model] = (
            int(judge[test].sum()),
            int(test.sum()),
            int((~judge[zero]).sum()),
            int(zero.sum()),
            int(judge[one].sum()),
            int(one.sum()),
        )
    return out


def test_cli_table(capsys):
    code, out, err = run(capsys, ["crosscheck", *ITEMS, "--by", "model", "--epoch", "1"])
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("judgestats cross-check by model (3 groups, 95% family-wise")
    assert "intervals simultaneous over 3 groups (Bonferroni, each at 98.3333%" in out
    level = 1 - 0.05 / 3
    for model, counts in epoch_counts(1).items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", jc.JudgeStatsWarning)
            alone = jc.crosscheck(jc.JudgeData(*counts), confidence_level=level)
        k, n, k0, m0, k1, m1 = counts
        expected = [model, f"{k}/{n}", f"{k0}/{m0}", f"{k1}/{m1}"] + [
            f"{value:.4f}"
            for name in ("rogan_gladen", "posterior_eti", "posterior_hdi")
            for value in alone.rows[name]
        ]
        line = next(line for line in lines if line.strip().startswith(model))
        assert line.split()[:13] == expected


def test_cli_json(capsys):
    code, out, _ = run(
        capsys,
        [
            "crosscheck",
            *ITEMS,
            "--by",
            "model",
            "--epoch",
            "2",
            "--correction",
            "none",
            "--confidence-level",
            "0.9",
            "--json",
        ],
    )
    assert code == 0
    result = json.loads(out)
    assert result["interval_level"] == 0.9 and result["correction"] == "none"
    counts = epoch_counts(2)
    for group in result["groups"]:
        model = group["group"]["model"]
        assert tuple(group[c] for c in ("k", "n", "k0", "m0", "k1", "m1")) == counts[model]


def test_cli_errors(capsys):
    one_line_error(
        capsys,
        ["crosscheck", *ITEMS, "--by", "model"],
        "occur more than once within the group",
        "--epoch 1",
        "judgestats estimate --by",
    )
    one_line_error(
        capsys,
        ["crosscheck", *ITEMS, "--by", "model", "--epoch", "1", "--null", "0.5"],
        "--null applies to `judgestats estimate --by` only",
    )
    one_line_error(capsys, ["crosscheck", *ITEMS, "--by", "size", "--epoch", "1"], "`by` ('size')")
    one_line_error(
        capsys,
        ["crosscheck", *ITEMS, "--epoch", "1", "--correction", "none"],
        "--correction needs --by",
    )
    one_line_error(
        capsys,
        ["posterior", *ITEMS, "--by", "model", "--epoch", "1"],
        "--by applies to `judgestats estimate`, `crosscheck` and `report` only",
    )
    one_line_error(
        capsys,
        [
            "crosscheck",
            "--k",
            "4",
            "--n",
            "10",
            "--k0",
            "4",
            "--m0",
            "5",
            "--k1",
            "4",
            "--m1",
            "5",
            "--by",
            "model",
        ],
        "--by needs item-level",
    )


# ---- the result contract ----------------------------------------------------------------------
def test_grouped_crosschecks_is_a_result(table, capsys):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from judgestats.results import FLAG_MESSAGES, Result

    assert isinstance(table, Result)
    expected = list(dict.fromkeys(flag for row in table.rows for flag in row.flags))
    assert list(table.flags) == expected and set(table.flags) <= set(FLAG_MESSAGES)
    for row in table.rows:
        assert isinstance(row.flags, tuple) and list(row.messages) == list(row.flags)
        assert [row.messages[f] for f in row.flags] == row.result.flag_messages
    capsys.readouterr()
    table.summary()
    assert capsys.readouterr() == ("", "")
    assert table.heading.startswith(table.table_title[:-1])
    ax = table.plot()
    assert [t.get_text() for t in ax.get_yticklabels()] == ["alpha", "beta", "gamma"]
    ends = {tuple(line.get_xdata()) for line in ax.lines if len(line.get_xdata()) == 2}
    for row in table.rows:  # each group's Lang-Reiczigel and equal-tailed intervals
        for name in ("rogan_gladen", "posterior_eti"):
            assert row.row(name)[1:] in ends
    plt.close("all")
