"""The command line's ``judgestats compare`` (counts and paired label files)."""

from __future__ import annotations

import json

import pytest

from judgestats.cli import main


# ---------------------------------------------------------------------------------------------
# command line
# ---------------------------------------------------------------------------------------------
def test_cli_compare_counts(capsys):
    code = main(
        ["compare", "--a", "700,1000,170,200,180,200", "--b", "600,1000,168,200,182,200", "--json"]
    )
    out = capsys.readouterr().out
    assert code == 0
    payload = json.loads(out)
    assert payload["estimate"] == pytest.approx(0.55 / 0.75 - 0.44 / 0.75)
    assert payload["calibration"] == "model_specific"


def test_cli_compare_paired_label_files(tmp_path, capsys):
    rows_a = [
        "set,judge,human",
        "test,1,",
        "test,1,",
        "test,0,",
        "test,1,",
        "calibration,0,0",
        "calibration,0,0",
        "calibration,1,0",
        "calibration,1,1",
        "calibration,1,1",
        "calibration,0,1",
    ]
    rows_b = ["set,judge,human", "test,1,", "test,0,", "test,0,", "test,1,"]
    (tmp_path / "a.csv").write_text("\n".join(rows_a) + "\n")
    (tmp_path / "b.csv").write_text("\n".join(rows_b) + "\n")
    code = main(
        [
            "compare",
            "--labels-a",
            str(tmp_path / "a.csv"),
            "--labels-b",
            str(tmp_path / "b.csv"),
            "--calibration",
            "shared",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "4 paired test items" in out and "WARNING" in out
    (tmp_path / "c.csv").write_text("\n".join(rows_b[:3]) + "\n")
    code = main(
        [
            "compare",
            "--labels-a",
            str(tmp_path / "a.csv"),
            "--labels-b",
            str(tmp_path / "c.csv"),
            "--calibration",
            "shared",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "`a.test_judge` has 4 items and `b.test_judge` has 2" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--a", "700,1000,170,200,180,200"], "give exactly one of --b"),
        (["--a", "700,1000", "--b", "600,1000,168,200,182,200"], "--a needs six counts"),
        (["--a", "700,1000,170,200,180,200", "--b", "600,1000"], "--b needs six counts"),
        (["--a", "7,1,2", "--b", "600,1000"], "expected 6 counts"),
        (
            [
                "--a",
                "700,1000,170,200,180,200",
                "--b",
                "600,1000,168,200,182,200",
                "--calibration",
                "pooled",
            ],
            "invalid choice",
        ),
    ],
)
def test_cli_compare_errors(capsys, argv, message):
    code = main(["compare", *argv])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err
