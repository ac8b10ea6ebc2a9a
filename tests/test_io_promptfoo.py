"""judgestats.io.read_promptfoo on fixtures in promptfoo's layout (tests/fixtures/io/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import judgestats as jc
from judgestats.io import read_promptfoo

FIXTURES = Path(__file__).parent / "fixtures" / "io"
JSON = FIXTURES / "promptfoo_results.json"
JSONL = FIXTURES / "promptfoo_results.jsonl"
# hand counts (README.md): test rows 3, 4, 5 -> k = 2, n = 3; human 1: row 0 judged 1;
# human 0: row 1 judged 1, row 2 judged 0
EXPECTED = jc.JudgeData(k=2, n=3, k0=1, m0=2, k1=1, m1=1)


def as_list(values):
    return [None if v is pd.NA else int(v) for v in values]


@pytest.mark.parametrize("path", [JSON, JSONL], ids=["json", "jsonl"])
def test_counts(path):
    items = read_promptfoo(path)
    assert items["id"].tolist() == ["0", "1", "2", "3", "4", "5"]
    assert as_list(items["judge"]) == [1, 1, 0, 1, 0, 1]
    assert as_list(items["human"]) == [1, 0, 0, None, None, None]
    assert items.attrs["source"] == str(path)
    assert set(items["provider"]) == {"openai:gpt-4o-mini"}
    assert jc.JudgeData.from_items(items) == EXPECTED


def test_judge_is_not_the_overall_success():
    # row 1: the rubric passed but the person failed it, so promptfoo's `success` is false
    row = json.loads(JSON.read_text())["results"]["results"][1]
    assert row["success"] is False
    assert as_list(read_promptfoo(JSON)["judge"])[1] == 1


@pytest.mark.parametrize("judge", ["llm-rubric", "correctness"])
def test_judge_by_type_or_metric(judge):
    assert as_list(read_promptfoo(JSON, judge=judge)["judge"]) == [1, 1, 0, 1, 0, 1]


def test_other_assertion_as_judge():
    # the `contains` assertion passes on every row
    assert as_list(read_promptfoo(JSON, judge="contains")["judge"]) == [1] * 6


def test_threshold_on_score():
    # scores 0.9, 0.7, 0.2, 0.8, 0.4, 0.6 against 0.75
    assert as_list(read_promptfoo(JSON, threshold=0.75)["judge"]) == [1, 0, 0, 1, 0, 0]


def test_id_from_a_variable_or_the_result():
    assert read_promptfoo(JSON, id="vars.qid")["id"].tolist()[:2] == ["Q000", "Q001"]
    assert read_promptfoo(JSON, id="id")["id"].tolist()[0] == "r-openai:gpt-4o-mini-0-0"
    with pytest.raises(ValueError, match="no test variable 'nope'.*'question', 'qid'"):
        read_promptfoo(JSON, id="vars.nope")
    with pytest.raises(ValueError, match="must be 'testIdx', 'id' or 'vars.NAME'"):
        read_promptfoo(JSON, id="promptId")


def test_unknown_judge_lists_assertions():
    with pytest.raises(
        ValueError,
        match=r"promptfoo_results.json: result 0 has no assertion of "
        r"type or metric 'factuality'; its assertions are "
        r"contains, llm-rubric \(metric 'correctness'\)",
    ):
        read_promptfoo(JSON, judge="factuality")


def test_several_providers_need_a_choice():
    path = FIXTURES / "promptfoo_two_providers.json"
    with pytest.raises(ValueError, match="2 provider/prompt combinations.*`provider`"):
        read_promptfoo(path)
    items = read_promptfoo(path, provider="anthropic:claude")
    assert len(items) == 6 and as_list(items["judge"]) == [1] * 6
    assert items["human"].isna().all()
    assert len(read_promptfoo(path, provider="openai:gpt-4o-mini", prompt_idx=0)) == 6
    with pytest.raises(ValueError, match="no results for provider='x'"):
        read_promptfoo(path, provider="x")


def _write(tmp_path, results, name="r.json"):
    document = json.loads(JSON.read_text())
    document["results"]["results"] = results
    path = tmp_path / name
    path.write_text(json.dumps(document))
    return path


def test_several_model_graded_assertions_need_a_choice(tmp_path):
    rows = json.loads(JSON.read_text())["results"]["results"]
    extra = {
        "pass": False,
        "score": 0.0,
        "reason": "",
        "assertion": {"type": "factuality", "metric": "facts"},
    }
    for row in rows:
        row["gradingResult"]["componentResults"].append(extra)
    path = _write(tmp_path, rows)
    with pytest.raises(
        ValueError,
        match=r"result 0 has 2 candidate judge assertions "
        r"\(correctness, facts\)",
    ):
        read_promptfoo(path)
    assert as_list(read_promptfoo(path, judge="facts")["judge"]) == [0] * 6


def test_last_human_rating_counts(tmp_path):
    rows = json.loads(JSON.read_text())["results"]["results"]
    rows[0]["gradingResult"]["componentResults"].append(
        {"pass": False, "score": 0.0, "reason": "changed my mind", "assertion": {"type": "human"}}
    )
    assert as_list(read_promptfoo(_write(tmp_path, rows))["human"])[0] == 0


def test_errored_row_has_no_verdict(tmp_path):
    rows = json.loads(JSON.read_text())["results"]["results"]
    rows[4]["gradingResult"] = None
    rows[4]["error"] = "provider timed out"
    items = read_promptfoo(_write(tmp_path, rows))
    assert as_list(items["judge"])[4] is None
    with pytest.raises(ValueError, match=r"1 item\(s\) have no judge verdict \(ids '4'\)"):
        jc.JudgeData.from_items(items)


def test_not_promptfoo(tmp_path):
    lm_eval = FIXTURES / "samples_arc_easy_2026-01-01T00-00-00.000000.jsonl"
    with pytest.raises(ValueError, match="not a promptfoo results file"):
        read_promptfoo(lm_eval)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"eval": {}, "samples": []}))
    with pytest.raises(ValueError, match="other.json: not a promptfoo results file"):
        read_promptfoo(other)


def test_empty_results(tmp_path):
    with pytest.raises(ValueError, match="holds no results"):
        read_promptfoo(_write(tmp_path, []))


def test_truncated(tmp_path):
    path = tmp_path / "cut.json"
    path.write_text(JSON.read_text()[:2000])
    with pytest.raises(ValueError, match="cut.json: not valid JSON.*truncated"):
        read_promptfoo(path)


def test_errored_row_rated_by_a_person_has_no_judge_verdict(tmp_path):
    rows = json.loads(JSON.read_text())["results"]["results"]
    rows[4]["error"] = "provider timed out"
    rows[4]["gradingResult"] = {
        "pass": True,
        "score": 1.0,
        "reason": "",
        "componentResults": [
            {"pass": True, "score": 1.0, "reason": "fine", "assertion": {"type": "human"}}
        ],
    }
    items = read_promptfoo(_write(tmp_path, rows))
    assert as_list(items["judge"])[4] is None
    assert as_list(items["human"])[4] == 1
