"""judgestats.io.read_lm_eval on fixtures in the harness's layout (tests/fixtures/io/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import judgestats as jc
from judgestats.io import join_human, read_lm_eval

FIXTURES = Path(__file__).parent / "fixtures" / "io"
ARC = FIXTURES / "samples_arc_easy_2026-01-01T00-00-00.000000.jsonl"
GSM = FIXTURES / "samples_gsm8k_2026-01-01T00-00-00.000000.jsonl"


def as_list(values):
    return [None if v is pd.NA else int(v) for v in values]


def test_reads_metric_keyed_by_doc_id():
    items = read_lm_eval(ARC, metric="acc")
    assert items["id"].tolist() == ["0", "1", "2", "3", "4", "5"]
    assert as_list(items["judge"]) == [1, 0, 1, 1, 0, 1]
    assert items["human"].isna().all()
    assert items["target"].tolist() == ["0", "1", "0", "1", "0", "1"]
    assert items.attrs["source"] == str(ARC)


def test_joined_labels_hand_counts():
    # README.md: test docs 2, 3, 5 (judge 1, 1, 1); human 1: docs 0 (judge 1), 4 (judge 0);
    # human 0: doc 1 (judge 0)
    items = join_human(
        read_lm_eval(ARC, metric="acc"),
        FIXTURES / "lm_eval_labels.csv",
        on="doc_id",
        column="label",
    )
    assert jc.JudgeData.from_items(items) == jc.JudgeData(k=3, n=3, k0=1, m0=1, k1=1, m1=2)


def test_filters():
    with pytest.raises(
        ValueError,
        match="once per filter \\('strict-match', 'flexible-extract'\\); choose one with `filter`",
    ):
        read_lm_eval(GSM, metric="exact_match")
    strict = read_lm_eval(GSM, metric="exact_match", filter="strict-match")
    flexible = read_lm_eval(GSM, metric="exact_match", filter="flexible-extract")
    assert as_list(strict["judge"]) == [1, 0, 0, 1]
    assert as_list(flexible["judge"]) == [1, 1, 0, 1]
    with pytest.raises(ValueError, match="no records with filter 'none'"):
        read_lm_eval(GSM, metric="exact_match", filter="none")


def test_unknown_metric_lists_metrics():
    with pytest.raises(ValueError, match=r"no metric 'f1' in 6 of 6 records.*'acc', 'acc_norm'"):
        read_lm_eval(ARC, metric="f1")


def _rewrite(tmp_path, change, source=ARC, name="samples_x.jsonl", head=""):
    """``source``'s records, each passed through ``change``, written after ``head``."""
    lines = [json.loads(line) for line in source.read_text().splitlines()]
    for record in lines:
        change(record)
    path = tmp_path / name
    path.write_text(head + "".join(json.dumps(r) + "\n" for r in lines))
    return path


def test_continuous_metric_needs_threshold(tmp_path):
    scores = iter([0.91, 0.12, 0.55, 0.49, 0.5, 0.8])
    path = _rewrite(tmp_path, lambda r: r.update(judge_score=next(scores)))
    with pytest.raises(ValueError, match="`judge_score` has values outside the mapping"):
        read_lm_eval(path, metric="judge_score")
    assert as_list(read_lm_eval(path, metric="judge_score", threshold=0.5)["judge"]) == [
        1,
        0,
        1,
        0,
        1,
        1,
    ]


def test_label_metric_with_positive(tmp_path):
    grades = iter(["yes", "no", "no", "yes", "yes", "no"])
    path = _rewrite(tmp_path, lambda r: r.update(grade=next(grades)))
    assert as_list(read_lm_eval(path, metric="grade", positive="yes")["judge"]) == [
        1,
        0,
        0,
        1,
        1,
        0,
    ]


def test_not_lm_eval():
    with pytest.raises(ValueError, match="not an lm-evaluation-harness samples file"):
        read_lm_eval(FIXTURES / "promptfoo_results.jsonl", metric="acc")


def test_truncated(tmp_path):
    path = tmp_path / "samples_cut.jsonl"
    path.write_text(ARC.read_text()[:-40])
    with pytest.raises(ValueError, match="samples_cut.jsonl: line 6 is not valid JSON"):
        read_lm_eval(path, metric="acc")


def test_empty(tmp_path):
    path = tmp_path / "samples_empty.jsonl"
    path.write_text("")
    with pytest.raises(ValueError, match="samples_empty.jsonl: the file is empty"):
        read_lm_eval(path, metric="acc")


def test_a_metric_value_that_is_a_list_names_the_file_and_metric(tmp_path):
    # numpy's "inhomogeneous shape" ValueError escaped, naming neither the file nor the metric.
    values = iter([[1], 0, 1, 0, 1, 1])
    path = _rewrite(tmp_path, lambda r: r.update(acc=next(values)))
    with pytest.raises(ValueError, match=r"samples.*`acc` has values outside the mapping: \[1\]"):
        read_lm_eval(path, metric="acc")


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"metric": ["acc"]}, r"`metric` must be a str"),
        ({"metric": "acc", "filter": 1}, "`filter`"),
    ],
)
def test_option_types_are_named(options, match):
    # metric=["acc"] raised Python's bare "unhashable type: 'list'".
    with pytest.raises(TypeError, match=match):
        read_lm_eval(ARC, **options)


@pytest.mark.parametrize(
    ("second", "written"), [(1, ""), (1.0, ", written 1 and 1.0"), ("1", ", written 1 and '1'")]
)
def test_a_repeated_doc_id_is_refused_naming_the_file_and_id(tmp_path, second, written):
    # Repeats were kept as two items (each document counted twice), and 1 / 1.0 merged into "1".
    ids = iter([0, 1, second, 3, 4, 5])
    path = _rewrite(tmp_path, lambda r: r.update(doc_id=next(ids)))
    match = rf"samples_x\.jsonl: `doc_id` '1' occurs more than once{written} \(lines 2 and 3 of"
    with pytest.raises(ValueError, match=match):
        read_lm_eval(path, metric="acc")


def test_a_doc_id_that_is_a_list_is_refused(tmp_path):
    # str([1]) became the id "[1]", which no label file names.
    ids = iter([0, [1], 2, 3, 4, 5])
    path = _rewrite(tmp_path, lambda r: r.update(doc_id=next(ids)))
    with pytest.raises(ValueError, match=r"samples_x\.jsonl: `doc_id` of item 1 is a list"):
        read_lm_eval(path, metric="acc")


def _gsm_with_a_blank_first_line(tmp_path, change):
    """GSM's 8 records (strict-match on lines 2-5, flexible-extract on 6-9), after a blank line."""
    return _rewrite(tmp_path, change, source=GSM, name="samples_gsm.jsonl", head="\n")


def test_a_missing_metric_names_its_line_in_the_file(tmp_path):
    # The message counted among the records kept (filter flexible-extract): "line 3", where the
    # record is on line 8 of the file (after a blank line and the 4 strict-match records).
    def drop(record):
        if record["filter"] == "flexible-extract" and record["doc_id"] == 2:
            del record["exact_match"]

    path = _gsm_with_a_blank_first_line(tmp_path, drop)
    with pytest.raises(ValueError, match=r"in 1 of 4 records \(first: line 8 of the file\)"):
        read_lm_eval(path, metric="exact_match", filter="flexible-extract")


def test_a_repeated_doc_id_names_its_lines_in_the_file(tmp_path):
    # The message named "records 2 and 4 of filter 'flexible-extract'", not lines 7 and 9.
    def repeat(record):
        if record["filter"] == "flexible-extract" and record["doc_id"] == 3:
            record["doc_id"] = 1

    path = _gsm_with_a_blank_first_line(tmp_path, repeat)
    match = r"`doc_id` '1' occurs more than once \(lines 7 and 9 of the file, filter 'flex"
    with pytest.raises(ValueError, match=match):
        read_lm_eval(path, metric="exact_match", filter="flexible-extract")


def test_a_line_separator_inside_a_record_is_not_a_line_break(tmp_path):
    # The harness writes with ensure_ascii=False, so U+2028 / U+0085 in a document stay
    # unescaped; str.splitlines cut such a record in two ("line 1 is not valid JSON") and
    # would have miscounted every later line.
    records = [json.loads(line) for line in ARC.read_text().splitlines()]
    records[0]["doc"]["question"] = "one\u2028two\x85three"
    del records[4]["acc"]
    path = tmp_path / "samples_sep.jsonl"
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=r"in 1 of 6 records \(first: line 5 of the file\)"):
        read_lm_eval(path, metric="acc")
    records[4]["acc"] = 0
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\r\n" for r in records))
    assert read_lm_eval(path, metric="acc")["id"].tolist() == ["0", "1", "2", "3", "4", "5"]
