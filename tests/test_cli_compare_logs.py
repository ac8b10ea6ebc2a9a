"""`judgestats compare` on two eval logs and one label file (issue 13, item 1: compare).

Counts are derived here from the raw files: the logs read with inspect_ai's own reader (the
judge's grade is the first entry of an edited score's history), the labels with the csv module.
"""

from __future__ import annotations

import csv
import json

import pytest

from judgestats.cli import main
from judgestats.datasets import data_files

pytest.importorskip("inspect_ai")

FILES = data_files()
LOG_A, LOG_B = str(FILES["example_inspect.eval"]), str(FILES["example_inspect_b.eval"])
LABELS = str(FILES["example_compare_labels.csv"])
MODEL_A, MODEL_B = "example/model-under-test", "example/model-b"


def _grades(path):
    """{id: 1 if the judge's own grade is C else 0}, from inspect_ai's reader."""
    from inspect_ai.log import read_eval_log

    out = {}
    for sample in read_eval_log(path).samples:
        score = sample.scores["model_graded_qa"]
        grade = score.history[0].value if score.history else score.value
        out[str(sample.id)] = int(grade == "C")
    return out


def _labels(model):
    with open(LABELS, newline="") as handle:
        return {
            row["id"]: int(row["human"]) for row in csv.DictReader(handle) if row["model"] == model
        }


def _calibration(judge, labels):
    k0 = sum(1 for i, h in labels.items() if h == 0 and judge[i] == 0)
    k1 = sum(1 for i, h in labels.items() if h == 1 and judge[i] == 1)
    m1 = sum(labels.values())
    return {"k0": k0, "m0": len(labels) - m1, "k1": k1, "m1": m1}


def _run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _compare_json(capsys, *extra):
    code, out, err = _run(
        capsys,
        [
            "compare",
            "--log-a",
            LOG_A,
            "--log-b",
            LOG_B,
            "--human",
            LABELS,
            "--on",
            "id",
            *extra,
            "--json",
        ],
    )
    assert code == 0, err
    return json.loads(out)


def test_model_column_gives_model_specific_paired_counts(capsys):
    judge_a, judge_b = _grades(LOG_A), _grades(LOG_B)
    labels_a, labels_b = _labels(MODEL_A), _labels(MODEL_B)
    test = [i for i in judge_a if i not in labels_a and i not in labels_b]
    result = _compare_json(capsys, "--model-column", "model")
    assert result["calibration"] == "model_specific" and result["paired"] is True
    inputs = result["inputs"]
    assert inputs["a"] == {
        "k": sum(judge_a[i] for i in test),
        "n": len(test),
        "calibration": _calibration(judge_a, labels_a),
    }
    assert inputs["b"] == {
        "k": sum(judge_b[i] for i in test),
        "n": len(test),
        "calibration": _calibration(judge_b, labels_b),
    }
    cells = inputs["paired_cells"]
    assert cells["both_correct"] == sum(judge_a[i] & judge_b[i] for i in test)
    assert cells["neither"] == sum((1 - judge_a[i]) & (1 - judge_b[i]) for i in test)
    assert sum(cells.values()) == len(test) == 320  # 400 questions, 80 reviewed for both
    assert result["sources"]["test_items"].startswith("paired by id: 320 items")
    # flags are keys with sentences; a calibration arm under 30 items is flagged by its key
    arms = [inputs[m]["calibration"][arm] for m in ("a", "b") for arm in ("m0", "m1")]
    assert ("small_calibration" in result["flags"]) == (min(arms) < 30)
    assert "unpaired_test_sets" not in result["notes"]  # paired by id


def test_label_file_without_model_column_implies_shared_calibration(capsys, tmp_path):
    labels_a = _labels(MODEL_A)
    path = tmp_path / "labels_a.csv"
    path.write_text("id,human\n" + "".join(f"{i},{h}\n" for i, h in labels_a.items()))
    code, out, err = _run(
        capsys, ["compare", "--log-a", LOG_A, "--log-b", LOG_B, "--human", str(path), "--on", "id"]
    )
    assert code == 0, err
    assert "calibration: shared (implied: only model A's answers are labelled" in out
    code, out, err = _run(
        capsys, ["compare", "--log-a", LOG_A, "--log-b", LOG_B, "--human", str(path), "--json"]
    )
    assert code == 0, err
    result = json.loads(out)
    assert result["calibration"] == "shared"
    judge_a, judge_b = _grades(LOG_A), _grades(LOG_B)
    test = [i for i in judge_a if i not in labels_a]  # B's answers are not labelled
    assert result["inputs"]["b"]["calibration"] is None
    assert result["inputs"]["a"]["calibration"] == _calibration(judge_a, labels_a)
    assert result["inputs"]["b"]["k"] == sum(judge_b[i] for i in test)


def test_labels_of_both_models_need_the_model_column(capsys):
    code, out, err = _run(
        capsys, ["compare", "--log-a", LOG_A, "--log-b", LOG_B, "--human", LABELS]
    )  # each id has two rows, one per model
    assert code == 2 and out == "" and err.count("\n") == 1
    assert LABELS in err and "80 id(s) appear more than once" in err


def test_explicit_model_specific_without_labels_of_b_is_an_error(capsys, tmp_path):
    path = tmp_path / "labels_a.csv"
    path.write_text("id,human\n" + "".join(f"{i},{h}\n" for i, h in _labels(MODEL_A).items()))
    code, out, err = _run(
        capsys,
        [
            "compare",
            "--log-a",
            LOG_A,
            "--log-b",
            LOG_B,
            "--human",
            str(path),
            "--calibration",
            "model_specific",
        ],
    )
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "example_inspect_b.eval: no labels for model B" in err


def test_names_override_the_logs_models(capsys, tmp_path):
    rows = [
        (i, "first" if m == MODEL_A else "second", h)
        for m in (MODEL_A, MODEL_B)
        for i, h in _labels(m).items()
    ]
    path = tmp_path / "named.csv"
    path.write_text("id,who,human\n" + "".join(f"{i},{m},{h}\n" for i, m, h in rows))
    base = [
        "compare",
        "--log-a",
        LOG_A,
        "--log-b",
        LOG_B,
        "--human",
        str(path),
        "--model-column",
        "who",
        "--json",
    ]
    code, _, err = _run(capsys, base)  # the logs' model names are not in column `who`
    assert code == 2 and "no labels for model A ('example/model-under-test')" in err
    assert "'first', 'second'" in err and str(path) in err
    code, out, err = _run(capsys, [*base, "--name-a", "first", "--name-b", "second"])
    assert code == 0, err
    assert (
        json.loads(out)["inputs"]["b"]["calibration"]["m0"]
        + json.loads(out)["inputs"]["b"]["calibration"]["m1"]
        == 80
    )


def test_mismatched_ids_and_unpaired(capsys, tmp_path):
    items = tmp_path / "b_items.csv"
    grades_b = _grades(LOG_B)
    kept = list(grades_b)[:300]  # 300 of the 400 ids: overlapping but different sets
    items.write_text("id,judge\n" + "".join(f"{i},{grades_b[i]}\n" for i in kept))
    argv = [
        "compare",
        "--log-a",
        LOG_A,
        "--items-b",
        str(items),
        "--human",
        str(_a_only(tmp_path)),
        "--calibration",
        "shared",
    ]
    code, out, err = _run(capsys, argv)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"{items}: 300 of its 300 item ids are also in" in err
    code, out, err = _run(capsys, [*argv, "--unpaired", "--json"])
    assert code == 0, err
    result = json.loads(out)
    assert result["paired"] is False
    assert result["inputs"]["b"] == {
        "k": sum(grades_b[i] for i in kept),
        "n": 300,
        "calibration": None,
    }
    labels_a = _labels(MODEL_A)
    assert result["inputs"]["a"]["n"] == 400 - len(labels_a)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--model-column", "nope"], "no column 'nope' (--model-column)"),
        (["--label-column", "verdict"], "missing column(s)"),
    ],
)
def test_label_file_errors_name_the_file(capsys, extra, message):
    code, out, err = _run(
        capsys, ["compare", "--log-a", LOG_A, "--log-b", LOG_B, "--human", LABELS, *extra]
    )
    assert code == 2 and out == "" and err.count("\n") == 1
    assert LABELS in err and message in err


def test_input_errors(capsys, tmp_path):
    code, _, err = _run(capsys, ["compare", "--log-a", LOG_A, "--human", LABELS])
    assert code == 2 and "--log-b FILE and --items-b FILE" in err
    code, _, err = _run(
        capsys, ["compare", "--a", "7,10,1,2,1,2", "--b", "6,10,1,2,1,2", "--human", LABELS]
    )
    assert code == 2 and "--human applies to --log-a/--log-b" in err
    unlabelled = tmp_path / "none.csv"
    unlabelled.write_text("id,human\nq000,\n")
    code, _, err = _run(
        capsys,
        [
            "compare",
            "--items-a",
            str(_items(tmp_path)),
            "--log-b",
            LOG_B,
            "--human",
            str(unlabelled),
        ],
    )
    assert code == 2 and err.count("\n") == 1
    assert f"{unlabelled}: column `human` holds no labels" in err


def _a_only(tmp_path):
    """Model A's labels without a model column."""
    path = tmp_path / "labels_a.csv"
    path.write_text("id,human\n" + "".join(f"{i},{h}\n" for i, h in _labels(MODEL_A).items()))
    return path


def _items(tmp_path):
    path = tmp_path / "a_items.csv"
    path.write_text("id,judge\n" + "".join(f"{i},{v}\n" for i, v in _grades(LOG_B).items()))
    return path
