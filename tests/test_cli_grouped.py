"""The command line: `judgestats estimate --by COLUMN` and repeated item ids (clustered)."""

from __future__ import annotations

import json

import pytest

from judgestats.cli import main
from judgestats.datasets import data_files

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


def test_by_model_table(capsys):
    code, out, err = run(capsys, ["estimate", *ITEMS, "--by", "model", "--null", "0.5"])
    assert code == 0 and err == ""
    assert "judgestats estimate by model (3 groups" in out
    for model in ("model-a", "model-b", "model-c"):
        assert model in out
    assert "intervals simultaneous over 3 groups (Bonferroni, each at 98.3333%" in out
    assert "Holm-adjusted" in out


def test_by_model_json(capsys):
    code, out, _ = run(
        capsys,
        [
            "estimate",
            *ITEMS,
            "--by",
            "model",
            "--correction",
            "bonferroni",
            "--null",
            "0.5",
            "--json",
            "--confidence-level",
            "0.9",
        ],
    )
    assert code == 0
    result = json.loads(out)
    assert result["correction"] == "bonferroni" and result["null"] == 0.5
    assert result["interval_level"] == pytest.approx(1 - 0.1 / 3)
    assert [g["group"]["model"] for g in result["groups"]] == ["model-a", "model-b", "model-c"]
    # the bundled file: 150 questions x 3 epochs per model, 40 of them labelled
    assert all(g["items"] == 150 and g["n"] + g["m0"] + g["m1"] == 450 for g in result["groups"])
    for group in result["groups"]:
        assert group["p_adjusted"] == pytest.approx(min(1.0, 3 * group["p_value"]))


def test_by_two_columns_comma_separated(capsys):
    code, out, _ = run(capsys, ["estimate", *ITEMS, "--by", "model,epoch", "--json"])
    assert code == 0
    assert len(json.loads(out)["groups"]) == 9


def test_repeated_ids_are_clustered(capsys):
    code, out, err = run(capsys, ["estimate", *ITEMS])
    assert code == 0 and err == ""
    assert "clustered     : 1350 judgments of 150 items; design effects p" in out
    code, out, _ = run(capsys, ["estimate", *ITEMS, "--json"])
    result = json.loads(out)
    assert result["clustered"]["judgments"] == 1350
    assert result["clustered"]["design_effects"]["p"] > 1


def test_plain_items_unchanged(capsys):
    items = data_files()["example_items.csv"]
    argv = [
        "estimate",
        "--items",
        items,
        "--judge-column",
        "verdict",
        "--human-column",
        "human_label",
        "--positive",
        "C",
        "--json",
    ]
    code, out, _ = run(capsys, argv)
    assert code == 0 and "clustered" not in json.loads(out)


def test_errors(capsys):
    one_line_error(capsys, ["estimate", *ITEMS, "--by", "size"], "`by` ('size')", "'model'")
    one_line_error(
        capsys,
        [
            "estimate",
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
    one_line_error(capsys, ["estimate", *ITEMS, "--null", "0.5"], "--null needs --by")
    one_line_error(capsys, ["estimate", *ITEMS, "--by", "model", "--null", "1.5"], "`null` (1.5)")
    one_line_error(capsys, ["estimate", *ITEMS, "--by", ""], "--by needs a column name")
    one_line_error(
        capsys,
        ["posterior", *ITEMS, "--by", "model"],
        "--by applies to `judgestats estimate`, `crosscheck` and `report` only",
    )


def test_posterior_refuses_repeated_ids(capsys):
    one_line_error(capsys, ["posterior", *ITEMS], "more than once", "estimate_items")


def test_guaranteed_interval_is_refused_with_by(capsys):
    one_line_error(
        capsys,
        ["estimate", *ITEMS, "--by", "model", "--interval", "guaranteed"],
        "--interval guaranteed is not available with --by",
    )
