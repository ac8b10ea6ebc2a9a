"""read_inspect on Inspect AI logs written by inspect_ai's own writer (.eval and .json)."""

import math
import sys

import pandas as pd
import pytest

inspect_log = pytest.importorskip("inspect_ai.log", reason="needs inspect_ai ('.[inspect]')")
from inspect_ai.log import (  # noqa: E402
    EvalConfig,
    EvalDataset,
    EvalLog,
    EvalSample,
    EvalSpec,
    ProvenanceData,
    edit_score,
    write_eval_log,
)
from inspect_ai.scorer import Score, ScoreEdit  # noqa: E402

from judgestats.io import read_inspect  # noqa: E402

SCORER = "model_graded_qa"

# (id, epoch, model_graded_qa value, match value). Edits are applied below with edit_score.
SAMPLES = [
    (1, 1, "C", 1.0),
    (2, 1, "I", 0.0),
    (3, 1, "C", 1.0),
    (3, 2, "I", 0.0),
    (4, 1, "P", 0.5),
    (5, 1, "N", 0.0),
    (6, 1, "I", 0.25),
    (7, 1, "C", 0.75),
    ("x8", 1, "I", 0.0),
    (9, 1, math.nan, 0.0),  # Inspect's "unscored" sentinel
    (10, 1, None, 1.0),  # no model_graded_qa score: a person adds one below
]


def _spec():
    return EvalSpec(
        created="2025-06-01T12:00:00+00:00",
        task="qa_task",
        dataset=EvalDataset(name="toy"),
        model="openai/gpt-test",
        config=EvalConfig(),
    )


def _log(samples=SAMPLES, edits=True):
    built = []
    for item, epoch, graded, match in samples:
        scores = {"match": Score(value=match)}
        if graded is not None:
            scores[SCORER] = Score(value=graded, explanation="judge's reasoning")
        built.append(
            EvalSample(
                id=item, epoch=epoch, input=f"question {item}", target="answer", scores=scores
            )
        )
    log = EvalLog(eval=_spec(), samples=built, status="success")
    if edits:

        def edit(item, value, author, **kw):
            edit_score(
                log,
                item,
                SCORER,
                ScoreEdit(value=value, provenance=ProvenanceData(author=author, reason="review")),
                recompute_metrics=False,
                **kw,
            )

        edit(1, "I", "ann")  # the person disagrees with the judge
        edit(2, "I", "bob")  # the person confirms the judge
        edit(6, "C", "ann")
        edit(7, "UNCHANGED", "carl")  # only the explanation: not a label
        edit(10, "C", "dana")  # a score added by a person: no judge verdict
    return log


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("inspect")
    log = _log()
    paths = {}
    for suffix in ("eval", "json"):
        paths[suffix] = folder / f"run.{suffix}"
        write_eval_log(log, str(paths[suffix]))
    return paths


@pytest.fixture(params=["eval", "json"])
def path(request, logs):
    return logs[request.param]


def _by_key(frame, column):
    return {
        (i, e): (None if pd.isna(v) else int(v))
        for i, e, v in zip(frame["id"], frame["epoch"], frame[column], strict=True)
    }


def test_the_edit_is_recorded_as_inspect_documents_it(logs):
    log = inspect_log.read_eval_log(str(logs["eval"]))
    score = next(s for s in log.samples if s.id == 1).scores[SCORER]
    assert score.value == "I"
    assert score.history[0].value == "C" and score.history[0].provenance is None
    assert score.history[-1].provenance.author == "ann"


def test_reads_judge_and_human_from_both_formats(path):
    items = read_inspect(path, scorer=SCORER)
    assert list(items.columns[:3]) == ["id", "judge", "human"]
    assert str(items["judge"].dtype) == "Int64" and str(items["human"].dtype) == "Int64"
    assert items.attrs["source"] == str(path)
    assert items.attrs["scorer"] == SCORER
    assert len(items) == 11
    assert sorted(items["id"]) == sorted(["1", "2", "3", "3", "4", "5", "6", "7", "x8", "9", "10"])
    judge = _by_key(items, "judge")
    # C -> 1, I -> 0, P -> 0 (default partial), N -> 0 (default noanswer); originals of edits
    assert judge == {
        ("1", 1): 1,
        ("2", 1): 0,
        ("3", 1): 1,
        ("3", 2): 0,
        ("4", 1): 0,
        ("5", 1): 0,
        ("6", 1): 0,
        ("7", 1): 1,
        ("x8", 1): 0,
        ("9", 1): None,
        ("10", 1): None,
    }
    human = {k: v for k, v in _by_key(items, "human").items() if v is not None}
    assert human == {("1", 1): 0, ("2", 1): 0, ("6", 1): 1, ("10", 1): 1}
    authors = dict(zip(items["id"], items["human_author"], strict=True))
    assert (authors["1"], authors["2"], authors["6"], authors["10"]) == (
        "ann",
        "bob",
        "ann",
        "dana",
    )
    assert pd.isna(authors["7"])
    assert set(items["model"]) == {"openai/gpt-test"} and set(items["task"]) == {"qa_task"}


def test_eval_and_json_agree(logs):
    a = read_inspect(logs["eval"], scorer=SCORER)
    b = read_inspect(logs["json"], scorer=SCORER)
    pd.testing.assert_frame_equal(a, b, check_like=False)


@pytest.mark.parametrize(("partial", "expected"), [(0, 0), (1, 1), (None, None)])
def test_partial_credit(path, partial, expected):
    items = read_inspect(path, scorer=SCORER, partial=partial)
    assert _by_key(items, "judge")[("4", 1)] == expected
    assert _by_key(items, "judge")[("5", 1)] == 0


@pytest.mark.parametrize(("noanswer", "expected"), [(0, 0), (1, 1), (None, None)])
def test_no_answer(logs, noanswer, expected):
    items = read_inspect(logs["eval"], scorer=SCORER, noanswer=noanswer)
    assert _by_key(items, "judge")[("5", 1)] == expected


def test_authors_filter(logs):
    items = read_inspect(logs["eval"], scorer=SCORER, authors="ann")
    human = {k: v for k, v in _by_key(items, "human").items() if v is not None}
    assert human == {("1", 1): 0, ("6", 1): 1}
    items = read_inspect(logs["eval"], scorer=SCORER, authors=["bob", "dana"])
    human = {k: v for k, v in _by_key(items, "human").items() if v is not None}
    assert human == {("2", 1): 0, ("10", 1): 1}


def test_numeric_scorer_needs_threshold(path):
    items = read_inspect(path, scorer="match", threshold=0.5)
    # a match value >= 0.5 is 1 (0.5 included)
    expected = {(str(i), e): int(match >= 0.5) for i, e, _, match in SAMPLES}
    assert _by_key(items, "judge") == expected
    assert items["human"].isna().all()
    with pytest.raises(ValueError, match=r"outside the mapping.*0\.5"):
        read_inspect(path, scorer="match")


def test_one_scorer_is_chosen_without_naming_it(tmp_path):
    log = _log(samples=[(1, 1, "C", 1.0), (2, 1, "I", 0.0)], edits=False)
    for sample in log.samples:
        del sample.scores["match"]
    file = tmp_path / "one.eval"
    write_eval_log(log, str(file))
    items = read_inspect(file)
    assert items.attrs["scorer"] == SCORER and list(items["judge"]) == [1, 0]


def test_dictionary_scores_need_a_key(tmp_path):
    log = _log(samples=[(1, 1, "C", 1.0), (2, 1, "I", 0.0)], edits=False)
    for sample, verdict in zip(log.samples, ["C", "I"], strict=True):
        sample.scores = {"rubric": Score(value={"correct": verdict, "style": 3})}
    file = tmp_path / "dict.json"
    write_eval_log(log, str(file))
    assert list(read_inspect(file, key="correct")["judge"]) == [1, 0]
    with pytest.raises(ValueError, match=r"several values per sample.*`key`"):
        read_inspect(file)
    with pytest.raises(ValueError, match=r"`key`='nope' is not among"):
        read_inspect(file, key="nope")


def test_custom_words(tmp_path):
    log = _log(samples=[(1, 1, "yes", 1.0), (2, 1, "no", 0.0), (3, 1, "yes", 0.0)], edits=False)
    file = tmp_path / "words.eval"
    write_eval_log(log, str(file))
    items = read_inspect(file, scorer=SCORER, positive="yes")
    assert list(items["judge"]) == [1, 0, 1]
    with pytest.raises(ValueError, match=r"outside the mapping.*'yes'"):
        read_inspect(file, scorer=SCORER)


# ---- errors --------------------------------------------------------------------------------------
def test_unknown_scorer_lists_the_known_ones(path):
    with pytest.raises(ValueError, match=r"unknown scorer `scorer`='qa'.*'match'.*'model_graded"):
        read_inspect(path, scorer="qa")


def test_several_scorers_need_a_choice(path):
    with pytest.raises(ValueError, match=r"2 scorers .*choose one with `scorer`"):
        read_inspect(path)


def test_no_samples(tmp_path):
    log = EvalLog(eval=_spec(), samples=[], status="error")
    file = tmp_path / "empty.eval"
    write_eval_log(log, str(file))
    with pytest.raises(ValueError, match=r"empty\.eval: the Inspect AI log holds no samples"):
        read_inspect(file)


def test_no_scores(tmp_path):
    log = _log(samples=[(1, 1, "C", 1.0)], edits=False)
    log.samples[0].scores = None
    file = tmp_path / "unscored.json"
    write_eval_log(log, str(file))
    with pytest.raises(ValueError, match=r"unscored\.json: no sample .* has a score"):
        read_inspect(file)


@pytest.mark.parametrize("suffix", ["eval", "json"])
def test_truncated_log(logs, tmp_path, suffix):
    data = logs[suffix].read_bytes()
    file = tmp_path / f"cut.{suffix}"
    file.write_bytes(data[: len(data) // 2])
    with pytest.raises(
        ValueError,
        match=rf"cut\.{suffix}: not a readable Inspect AI {suffix} "
        "log.*corrupt, truncated",
    ):
        read_inspect(file)


def test_another_tools_file(tmp_path):
    file = tmp_path / "promptfoo.json"
    file.write_text('{"results": {"results": [{"success": true}]}}')
    with pytest.raises(ValueError, match=r"promptfoo\.json: not a readable Inspect AI json log"):
        read_inspect(file)
    text = tmp_path / "notes.eval"
    text.write_text("not a zip file")
    with pytest.raises(ValueError, match=r"notes\.eval: not a readable Inspect AI eval log"):
        read_inspect(text)


def test_missing_file_and_wrong_extension(tmp_path):
    with pytest.raises(ValueError, match=r"nothere\.eval: no such file"):
        read_inspect(tmp_path / "nothere.eval")
    with pytest.raises(ValueError, match=r"unknown file type '\.csv'.*\.eval or \.json"):
        read_inspect(tmp_path / "labels.csv")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"partial": 0.5}, r"`partial` \(0\.5\) must be 0"),
        ({"noanswer": True}, r"`noanswer` \(True\) must be 0"),
        ({"authors": []}, r"`authors` \(\[\]\) must name at least one"),
    ],
)
def test_bad_arguments(logs, kwargs, match):
    with pytest.raises(ValueError, match=match):
        read_inspect(logs["eval"], scorer=SCORER, **kwargs)


@pytest.mark.parametrize("option", ["positive", "negative"])
def test_a_set_of_grades_is_refused_naming_the_option(logs, option):
    # A set was iterated in hash order, a mapping by its keys: read silently.
    with pytest.raises(TypeError, match=rf"`{option}` must be a value or a list"):
        read_inspect(logs["eval"], scorer=SCORER, **{option: {"C"}})


def test_missing_inspect_ai_says_how_to_install(logs, monkeypatch):
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)
    with pytest.raises(ImportError, match=r"judgestats\[inspect\]"):
        read_inspect(logs["eval"], scorer=SCORER)


def test_the_log_file_is_not_changed(logs):
    before = logs["eval"].read_bytes()
    read_inspect(logs["eval"], scorer=SCORER)
    assert logs["eval"].read_bytes() == before


def test_bundled_example_matches_a_direct_read():
    from judgestats.datasets import data_files

    path = data_files()["example_inspect.eval"]
    items = read_inspect(path, scorer=SCORER)
    log = inspect_log.read_eval_log(str(path))
    originals, reviews = [], []
    for sample in log.samples:
        score = sample.scores[SCORER]
        originals.append(score.history[0].value if score.history else score.value)
        if score.history:
            reviews.append((score.value, score.history[-1].provenance.author))
    assert len(items) == len(log.samples) == 400
    assert int(items["judge"].sum()) == originals.count("C")  # P and N count as incorrect
    assert int(items["judge"].notna().sum()) == 400
    assert int(items["human"].notna().sum()) == len(reviews) == 80
    assert int(items["human"].sum()) == sum(value == "C" for value, _ in reviews)
    assert items["human_author"].value_counts().to_dict() == {"reviewer-a": 40, "reviewer-b": 40}
    assert {"P", "N"} <= set(originals)


def test_edit_without_provenance_is_not_a_human_label(tmp_path):
    """A programmatic edit (no provenance: no person behind it) labels nothing."""
    log = _log(samples=[(1, 1, "C", 1.0), (2, 1, "I", 0.0)], edits=False)
    edit_score(log, 1, SCORER, ScoreEdit(value="I"), recompute_metrics=False)
    edit_score(
        log,
        2,
        SCORER,
        ScoreEdit(value="C", provenance=ProvenanceData(author="ann", reason="review")),
        recompute_metrics=False,
    )
    path = tmp_path / "noprov.eval"
    write_eval_log(log, str(path))
    items = read_inspect(path, scorer=SCORER).set_index("id")
    assert items.loc["1", "judge"] == 1 and pd.isna(items.loc["1", "human"])
    assert items.loc["2", "judge"] == 0 and items.loc["2", "human"] == 1
