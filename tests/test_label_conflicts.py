"""Labels that would be used or dropped silently: conflicting duplicates, labels on test rows."""

from __future__ import annotations

import pandas as pd
import pytest

import judgestats as jc
from judgestats.cli import main

CALIBRATION = ["calibration,1,1", "calibration,0,0", "calibration,1,1", "calibration,0,0"]


def _write(path, lines):
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_an_id_with_conflicting_human_labels_is_an_error_naming_file_and_id(tmp_path, capsys):
    items = _write(
        tmp_path / "items.csv",
        ["id,judge,human", "a,1,1", "a,1,0", "b,0,0", "c,1,1", "d,0,", "e,1,", "f,0,0"],
    )
    code = main(["estimate", "--items", items, "--human-column", "human"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert f"{items}: 1 item id(s) carry conflicting human labels: 'a' (labels 1, 0)" in err
    with pytest.raises(ValueError, match=r"items\.csv: 1 item id\(s\) carry conflicting .*'a'"):
        jc.io.read_frame(items, judge="judge", human="human")


def test_conflicts_are_found_in_a_frame_and_for_classes():
    frame = pd.DataFrame({"id": [1, 2, 2, 3], "judge": [1, 0, 1, 1], "human": [1, 0, 1, None]})
    with pytest.raises(ValueError, match=r"`frame`|conflicting human labels: '2'"):
        jc.io.read_frame(frame, judge="judge", human="human", id="id")
    frame = pd.DataFrame(
        {"id": ["x", "x", "y"], "judge": ["A", "B", "C"], "human": ["A", "C", "C"]}
    )
    with pytest.raises(ValueError, match=r"conflicting human labels: 'x' \(labels 'A', 'C'\)"):
        jc.io.read_frame(frame, judge="judge", human="human", id="id", classes=["A", "B", "C"])


def test_repeated_ids_that_agree_are_still_clustered(tmp_path):
    items = _write(
        tmp_path / "items.csv",
        ["id,judge,human", "a,1,1", "a,1,1", "a,0,", "b,0,0", "c,1,1", "d,0,", "e,1,", "f,0,0"],
    )
    frame = jc.io.read_frame(items, judge="judge", human="human")
    assert list(frame["id"]).count("a") == 3


def test_a_human_label_on_a_test_row_is_an_error(tmp_path, capsys):
    labels = _write(
        tmp_path / "labels.csv",
        ["set,judge,human", "test,1,", "test,0,1", "test,1,0", *CALIBRATION],
    )
    with pytest.raises(ValueError, match=r"labels\.csv: 2 'test' row\(s\) carry a `human` label"):
        jc.JudgeData.from_csv(labels)
    code = main(["estimate", "--labels", labels])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "(rows 3, 4)" in err
    labels = _write(tmp_path / "random.csv", ["set,judge,human", "test,1,", "test,0,1", "test,1,0"])
    data = jc.JudgeData.from_csv(labels, design="random")  # a random subset: labels are kept
    assert data.design == "random" and data.m0 + data.m1 == 2


def test_different_answers_to_one_question_may_differ(tmp_path):
    # the id is the question; the model column tells the answers (the items) apart
    items = _write(
        tmp_path / "items.csv",
        ["id,model,epoch,judge,human", "q,a,1,1,1", "q,a,2,0,1", "q,b,1,0,0", "r,a,1,1,"],
    )
    frame = jc.io.read_frame(items, judge="judge", human="human")
    assert list(frame["human"]) == [1, 1, 0, pd.NA]
