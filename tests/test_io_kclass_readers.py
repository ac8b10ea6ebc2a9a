"""``classes=`` through read_mlflow, read_lm_eval and read_promptfoo: K-class verdicts kept as is.

Counts are checked against ``collections.Counter`` on the input lists (``counted_by_hand``),
never against the code under test.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
from test_io_kclass import counted_by_hand, values
from test_io_lm_eval import ARC, _rewrite
from test_io_promptfoo import JSON, _write

from judgestats.io import join_human, read_lm_eval, read_mlflow, read_promptfoo
from judgestats.kclass import KClassData

SCORES = [1, 2, 3, 4, 5]


# ---- lm-evaluation-harness ----------------------------------------------------------------------
# the ARC fixture has doc_id 0-5; a rubric score per document, written as ints and floats
LM_SCORES = [3, 5.0, 1, 3.0, 4, 2]
LM_LABELS = {"0": 3, "1": 4, "3": 3, "5": 1}  # doc_id -> a person's score


def _scored_lm_eval(tmp_path, scores):
    it = iter(scores)
    return _rewrite(tmp_path, lambda r: r.update(rubric=next(it)))


def test_lm_eval_keeps_rubric_scores_as_classes(tmp_path):
    path = _scored_lm_eval(tmp_path, LM_SCORES)
    items = read_lm_eval(path, metric="rubric", classes=SCORES)
    judge = [3, 5, 1, 3, 4, 2]
    assert values(items["judge"]) == judge
    assert all(type(v) is int for v in items["judge"])  # 5.0 is the class 5
    assert items["judge"].dtype == object and items["human"].isna().all()
    assert items.attrs["classes"] == SCORES
    assert items["target"].tolist() == ["0", "1", "0", "1", "0", "1"]
    labels = pd.DataFrame({"doc_id": list(LM_LABELS), "score": list(LM_LABELS.values())})
    joined = join_human(items, labels, on="doc_id", column="score", classes=SCORES)
    human = [LM_LABELS.get(str(i)) for i in range(6)]
    assert values(joined["human"]) == human
    data = KClassData.from_items(joined, design="random")
    test, confusion = counted_by_hand(judge, human, SCORES)
    # by hand: unlabelled docs 2 (1), 4 (4); labelled (true, judged): (3, 3), (4, 5), (3, 3),
    # (1, 2)
    assert test == [1, 0, 0, 1, 0]
    assert data.test.tolist() == test and data.confusion.tolist() == confusion
    assert data.confusion[2, 2] == 2 and data.confusion[3, 4] == 1 and data.confusion[0, 1] == 1


def test_lm_eval_score_outside_the_classes(tmp_path):
    path = _scored_lm_eval(tmp_path, [3, 6, 2.5, 6, 1, 1])
    with pytest.raises(ValueError, match=r"samples_x\.jsonl: `rubric`.*6 \(2 items\).*2\.5"):
        read_lm_eval(path, metric="rubric", classes=SCORES)


@pytest.mark.parametrize(("argument", "value"), [("threshold", 3.0), ("positive", 5)])
def test_lm_eval_classes_and_a_01_mapping_exclude_each_other(tmp_path, argument, value):
    path = _scored_lm_eval(tmp_path, LM_SCORES)
    with pytest.raises(ValueError, match=rf"`classes`.*`{argument}`.*exclude each other"):
        read_lm_eval(path, metric="rubric", classes=SCORES, **{argument: value})


def test_lm_eval_without_classes_is_still_01():
    items = read_lm_eval(ARC, metric="acc", classes=None)
    assert str(items["judge"].dtype) == "Int64" and "classes" not in items.attrs
    pd.testing.assert_frame_equal(items, read_lm_eval(ARC, metric="acc"))


# ---- promptfoo ----------------------------------------------------------------------------------
# per row of the fixture (testIdx 0-5): the llm-rubric score, and the person's score (rows 0-2
# carry a human component; None = no human component)
PF_JUDGE = [4, 2.0, 1, 5, 3.0, 4]
PF_HUMAN = [5, 2, 1.0, None, None, None]


def _scored_promptfoo(tmp_path, judge, human):
    rows = json.loads(JSON.read_text())["results"]["results"]
    for row, score, label in zip(rows, judge, human, strict=True):
        for component in row["gradingResult"]["componentResults"]:
            kind = component["assertion"]["type"]
            if kind == "llm-rubric":
                component["score"] = score
            elif kind == "human":
                component["score"] = label
    return _write(tmp_path, rows)


def test_promptfoo_keeps_rubric_scores_as_classes(tmp_path):
    path = _scored_promptfoo(tmp_path, PF_JUDGE, PF_HUMAN)
    items = read_promptfoo(path, classes=SCORES)
    judge, human = [4, 2, 1, 5, 3, 4], [5, 2, 1, None, None, None]
    assert items["id"].tolist() == ["0", "1", "2", "3", "4", "5"]
    assert values(items["judge"]) == judge
    assert values(items["human"]) == human
    assert items["judge"].dtype == object and items.attrs["classes"] == SCORES
    data = KClassData.from_items(items, design="random")
    test, confusion = counted_by_hand(judge, human, SCORES)
    # by hand: unlabelled rows 3 (5), 4 (3), 5 (4); labelled (true, judged): (5, 4), (2, 2), (1, 1)
    assert test == [0, 0, 1, 1, 1]
    assert data.test.tolist() == test and data.confusion.tolist() == confusion
    assert int(data.confusion.trace()) == 2 and data.confusion[4, 3] == 1


def test_promptfoo_judge_chosen_by_metric_with_classes(tmp_path):
    path = _scored_promptfoo(tmp_path, PF_JUDGE, PF_HUMAN)
    items = read_promptfoo(path, judge="correctness", classes=SCORES)
    assert values(items["judge"]) == [4, 2, 1, 5, 3, 4]


def test_promptfoo_score_outside_the_classes(tmp_path):
    path = _scored_promptfoo(tmp_path, [4, 0.5, 1, 0.5, 3, 4], PF_HUMAN)
    with pytest.raises(ValueError, match=r"r\.json: `judge score`.*0\.5 \(2 items\)"):
        read_promptfoo(path, classes=SCORES)
    # a thumbs-down rating stores the score 0, which is not a rubric class
    path = _scored_promptfoo(tmp_path, PF_JUDGE, [5, 0.0, 1, None, None, None])
    with pytest.raises(ValueError, match=r"r\.json: `human score`.*0\.0 \(1 item\)"):
        read_promptfoo(path, classes=SCORES)


def test_promptfoo_classes_and_threshold_exclude_each_other(tmp_path):
    path = _scored_promptfoo(tmp_path, PF_JUDGE, PF_HUMAN)
    with pytest.raises(ValueError, match=r"`classes`.*`threshold`.*exclude each other"):
        read_promptfoo(path, classes=SCORES, threshold=3)


def test_promptfoo_without_classes_is_still_01():
    items = read_promptfoo(JSON, classes=None)
    assert str(items["judge"].dtype) == "Int64" and "classes" not in items.attrs
    pd.testing.assert_frame_equal(items, read_promptfoo(JSON))


# ---- MLflow -------------------------------------------------------------------------------------
GRADES = ["yes", "partially", "no"]
# per trace: the judge's feedback, a person's feedback (None = none)
ML_JUDGE = ["yes", "partially", "no", "yes", "partially", "no", "yes"]
ML_HUMAN = ["yes", "no", "no", None, "yes", None, None]


def _assessment(name, value, kind, who, number):
    return {
        "assessment_id": f"a-{number}",
        "assessment_name": name,
        "source": {"source_type": kind, "source_id": who},
        "feedback": {"value": value},
        "valid": True,
        "overrides": None,
    }


def _plain_traces(judge, human, name="quality"):
    """What mlflow.search_traces() returns, as plain data (no mlflow needed)."""
    rows = []
    for number, (judged, labelled) in enumerate(zip(judge, human, strict=True)):
        found = [_assessment(name, judged, "LLM_JUDGE", "judge", f"{number}j")]
        if labelled is not None:
            found.append(_assessment(name, labelled, "HUMAN", "ann", f"{number}h"))
        rows.append({"trace_id": f"tr-{number}", "assessments": found})
    return pd.DataFrame(rows)


def test_mlflow_keeps_feedback_words_as_classes():
    items = read_mlflow(_plain_traces(ML_JUDGE, ML_HUMAN), name="quality", classes=GRADES)
    assert items["id"].tolist() == [f"tr-{i}" for i in range(7)]
    assert values(items["judge"]) == ML_JUDGE
    assert values(items["human"]) == ML_HUMAN
    assert items.attrs["classes"] == GRADES and items.attrs["name"] == "quality"
    data = KClassData.from_items(items, design="random")
    test, confusion = counted_by_hand(ML_JUDGE, ML_HUMAN, GRADES)
    # by hand: unlabelled traces 3 (yes), 5 (no), 6 (yes); labelled (true, judged):
    # (yes, yes), (no, partially), (no, no), (yes, partially)
    assert test == [2, 0, 1]
    assert confusion == [[1, 1, 0], [0, 0, 0], [0, 1, 1]]
    assert data.test.tolist() == test and data.confusion.tolist() == confusion


def test_mlflow_integer_ratings_and_whole_floats():
    items = read_mlflow(
        _plain_traces([4, 2.0, 5, 1], [5, None, 5.0, 1], name="rating"),
        name="rating",
        classes=SCORES,
    )
    assert values(items["judge"]) == [4, 2, 5, 1]
    assert values(items["human"]) == [5, None, 5, 1]
    data = KClassData.from_items(items, design="random")
    assert data.test.tolist() == [0, 1, 0, 0, 0]  # trace 1 (2) is unlabelled
    assert data.confusion[4, 3] == 1 and data.confusion[4, 4] == 1 and data.confusion[0, 0] == 1


def test_mlflow_value_outside_the_classes():
    traces = _plain_traces(["yes", "unknown", "maybe", "unknown"], ["yes", None, "Yes", None])
    with pytest.raises(ValueError, match=r"`quality \(LLM_JUDGE\)`.*'unknown' \(2 items\)"):
        read_mlflow(traces, name="quality", classes=GRADES)
    with pytest.raises(ValueError, match=r"`quality \(HUMAN\)`.*'Yes' \(1 item\)"):
        read_mlflow(traces, name="quality", classes=[*GRADES, "unknown", "maybe"])


def test_mlflow_words_that_differ_in_case_conflict_with_classes():
    traces = _plain_traces(["yes", "no"], [None, None])
    traces.loc[0, "assessments"].append(_assessment("quality", "Yes", "LLM_JUDGE", "j2", "x"))
    with pytest.raises(ValueError, match=r"trace 'tr-0' has conflicting judge verdicts"):
        read_mlflow(traces, name="quality", classes=["yes", "Yes", "no"], require_human=False)
    assert values(read_mlflow(traces, name="quality", require_human=False)["judge"]) == [1, 0]


@pytest.mark.parametrize(
    ("argument", "value"), [("positive", "yes"), ("negative", "no"), ("threshold", 3)]
)
def test_mlflow_classes_and_a_01_mapping_exclude_each_other(argument, value):
    traces = _plain_traces(ML_JUDGE, ML_HUMAN)
    with pytest.raises(ValueError, match=rf"`classes`.*`{argument}`.*exclude each other"):
        read_mlflow(traces, name="quality", classes=GRADES, **{argument: value})


def test_mlflow_without_classes_is_still_01():
    traces = _plain_traces(["yes", "no", "unknown"], ["no", None, "yes"])
    items = read_mlflow(traces, name="quality", classes=None)
    assert str(items["judge"].dtype) == "Int64" and "classes" not in items.attrs
    assert values(items["judge"]) == [1, 0, None] and values(items["human"]) == [0, None, 1]


def test_mlflow_traces_logged_with_mlflow(tmp_path):
    mlflow = pytest.importorskip("mlflow", reason="needs mlflow ('.[mlflow]')")
    from test_io_mlflow import JUDGE, _feedback, _human, _trace

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
        patch.setenv("MLFLOW_TRACKING_URI", tmp_path.joinpath("mlruns").as_uri())
        patch.setenv("MLFLOW_ENABLE_ASYNC_TRACE_LOGGING", "false")
        mlflow.set_tracking_uri(tmp_path.joinpath("mlruns").as_uri())
        mlflow.set_experiment("judgestats-kclass")
        ids = [_trace(i) for i in range(4)]
        mlflow.flush_trace_async_logging()
        first = _feedback(ids[0], "quality", "partially", JUDGE)
        mlflow.override_feedback(  # the person corrects the judge
            trace_id=ids[0], assessment_id=first.assessment_id, value="no", source=_human("bob")
        )
        _feedback(ids[1], "quality", "yes", JUDGE)
        _feedback(ids[1], "quality", "yes", _human("al"))
        _feedback(ids[2], "quality", "no", JUDGE)
        _feedback(ids[3], "quality", "partially", JUDGE)
        _feedback(ids[3], "quality", "yes", _human("al"))
        mlflow.flush_trace_async_logging()
        frame = mlflow.search_traces()
        traces = mlflow.search_traces(return_type="list")
        mlflow.set_tracking_uri(None)
    judge = ["partially", "yes", "no", "partially"]
    human = ["no", "yes", None, "yes"]
    for form in (frame, traces):
        items = read_mlflow(form, name="quality", classes=GRADES)
        rows = items.set_index("id").loc[ids]
        assert values(rows["judge"]) == judge
        assert values(rows["human"]) == human
        data = KClassData.from_items(items, design="random")
        test, confusion = counted_by_hand(judge, human, GRADES)
        # by hand: unlabelled trace 2 (no); labelled (true, judged): (no, partially),
        # (yes, yes), (yes, partially)
        assert test == [0, 0, 1] and confusion == [[1, 1, 0], [0, 0, 0], [0, 1, 0]]
        assert data.test.tolist() == test and data.confusion.tolist() == confusion
