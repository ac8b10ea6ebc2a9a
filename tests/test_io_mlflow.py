"""read_mlflow on traces made with mlflow in a temporary store, found by search_traces."""

import pandas as pd
import pytest

mlflow = pytest.importorskip("mlflow", reason="needs mlflow ('.[mlflow]')")
from mlflow.entities import AssessmentSource  # noqa: E402

from judgestats.io import read_mlflow  # noqa: E402

JUDGE = AssessmentSource(source_type="LLM_JUDGE", source_id="gpt-judge")
CODE = AssessmentSource(source_type="CODE", source_id="exact_match.py")


def _human(who):
    return AssessmentSource(source_type="HUMAN", source_id=who)


def _trace(number):
    with mlflow.start_span(name="answer") as span:
        span.set_inputs({"question": f"q{number}"})
        span.set_outputs({"answer": f"a{number}"})
    return span.trace_id


def _feedback(trace, name, value, source, **kw):
    return mlflow.log_feedback(trace_id=trace, name=name, value=value, source=source, **kw)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """Six traces and their feedback; returns (trace ids, search_traces DataFrame, Trace list)."""
    folder = tmp_path_factory.mktemp("mlflow")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")  # mlflow 3 prefers a database store
        patch.setenv("MLFLOW_TRACKING_URI", folder.joinpath("mlruns").as_uri())
        patch.setenv("MLFLOW_ENABLE_ASYNC_TRACE_LOGGING", "false")
        mlflow.set_tracking_uri(folder.joinpath("mlruns").as_uri())
        mlflow.set_experiment("judgestats-test")
        t = [_trace(i) for i in range(6)]
        mlflow.flush_trace_async_logging()  # the traces exist before feedback is attached
        # "correct": the judge's verdict and, on some traces, a person's label
        first = _feedback(t[0], "correct", True, JUDGE)
        mlflow.override_feedback(
            trace_id=t[0], assessment_id=first.assessment_id, value=False, source=_human("bob")
        )  # the person disagrees
        _feedback(t[1], "correct", True, JUDGE)
        _feedback(t[1], "correct", True, _human("al"))  # the person agrees
        _feedback(t[2], "correct", False, JUDGE)
        mlflow.log_expectation(trace_id=t[2], name="correct", value=True, source=_human("al"))
        _feedback(t[3], "correct", None, JUDGE, error=RuntimeError("judge timed out"))
        _feedback(t[4], "correct", False, JUDGE)
        _feedback(t[4], "correct", False, _human("al"))
        _feedback(t[4], "correct", True, CODE)
        _feedback(t[5], "correct", False, JUDGE)
        _feedback(t[5], "correct", False, JUDGE)  # a duplicate that agrees
        _feedback(t[5], "correct", True, _human("cy"))
        # "relevance": the words of MLflow's built-in judges
        _feedback(t[0], "relevance", "yes", JUDGE)
        _feedback(t[1], "relevance", "no", JUDGE)
        _feedback(t[1], "relevance", "yes", _human("al"))
        _feedback(t[2], "relevance", "unknown", JUDGE)
        # "rating": numbers 1-5
        _feedback(t[0], "rating", 4, JUDGE)
        _feedback(t[0], "rating", 5, _human("al"))
        _feedback(t[1], "rating", 2, JUDGE)
        # "judged_only": no person
        _feedback(t[0], "judged_only", True, JUDGE)
        # "disputed": two people disagree on one trace
        _feedback(t[0], "disputed", True, JUDGE)
        _feedback(t[0], "disputed", True, _human("al"))
        _feedback(t[0], "disputed", False, _human("bob"))
        mlflow.flush_trace_async_logging()
        frame = mlflow.search_traces()
        traces = mlflow.search_traces(return_type="list")
        mlflow.set_tracking_uri(None)
    return t, frame, traces


def _by_trace(items, column, ids):
    values = dict(zip(items["id"], items[column], strict=True))
    return [None if pd.isna(values[i]) else int(values[i]) for i in ids]


@pytest.mark.parametrize("form", ["frame", "list"])
def test_judge_and_human_feedback_of_one_name(store, form):
    ids, frame, traces = store
    assert {"trace_id", "assessments"} <= set(frame.columns)
    items = read_mlflow(frame if form == "frame" else traces, name="correct")
    assert sorted(items["id"]) == sorted(ids)
    assert str(items["judge"].dtype) == "Int64" and str(items["human"].dtype) == "Int64"
    # t0: overridden True; t3: the judge's feedback is an error; t5: two agreeing duplicates
    assert _by_trace(items, "judge", ids) == [1, 1, 0, None, 0, 0]
    # t0: bob's override; t2: an expectation, not feedback; t4: the CODE feedback is ignored
    assert _by_trace(items, "human", ids) == [0, 1, None, None, 0, 1]
    by = dict(zip(items["id"], items["human_source_id"], strict=True))
    assert (by[ids[0]], by[ids[1]], by[ids[5]]) == ("bob", "al", "cy")
    assert set(items["judge_source_id"].dropna()) == {"gpt-judge"}
    assert items.attrs["name"] == "correct"


def test_frame_and_list_agree(store):
    _, frame, traces = store
    a = read_mlflow(frame, name="correct").sort_values("id", ignore_index=True)
    b = read_mlflow(traces, name="correct").sort_values("id", ignore_index=True)
    pd.testing.assert_frame_equal(a[["id", "judge", "human"]], b[["id", "judge", "human"]])


def test_yes_no_words_of_builtin_judges(store):
    ids, frame, _ = store
    items = read_mlflow(frame, name="relevance")
    assert _by_trace(items, "judge", ids[:3]) == [1, 0, None]  # "unknown" is no verdict
    assert _by_trace(items, "human", ids[:3]) == [None, 1, None]
    assert items["judge"].isna().sum() == 4  # t2 "unknown", t3-t5 not judged


def test_numeric_ratings_with_threshold(store):
    ids, frame, _ = store
    items = read_mlflow(frame, name="rating", threshold=4)
    assert _by_trace(items, "judge", ids[:2]) == [1, 0]
    assert _by_trace(items, "human", ids[:2]) == [1, None]
    with pytest.raises(ValueError, match=r"outside the mapping"):
        read_mlflow(frame, name="rating")


def test_code_source_as_the_judge_conflicts_with_the_llm(store):
    _, frame, _ = store
    with pytest.raises(
        ValueError,
        match=r"conflicting judge verdicts \(False from 'gpt-judge', "
        r"True from 'exact_match.py'\)",
    ):
        read_mlflow(frame, name="correct", judge_source=["LLM_JUDGE", "CODE"])


def test_conflicting_human_labels(store):
    ids, frame, _ = store
    with pytest.raises(ValueError, match=rf"trace '{ids[0]}' has conflicting human labels"):
        read_mlflow(frame, name="disputed")


def test_unknown_name_lists_the_names(store):
    _, frame, traces = store
    for given in (frame, traces):
        with pytest.raises(
            ValueError,
            match=r"no feedback called `name`='correctness'.*"
            r"'correct'.*'relevance'",
        ):
            read_mlflow(given, name="correctness")


def test_no_human_labels(store):
    ids, frame, _ = store
    with pytest.raises(ValueError, match=r"no feedback 'judged_only' from a HUMAN source"):
        read_mlflow(frame, name="judged_only")
    items = read_mlflow(frame, name="judged_only", require_human=False)
    assert items["human"].isna().all()
    assert _by_trace(items, "judge", ids[:2]) == [1, None]


def test_no_judge_verdicts(store):
    ids, frame, _ = store
    only_t2 = frame[frame["trace_id"] == ids[2]]  # an LLM judge's feedback, no CODE feedback
    with pytest.raises(ValueError, match=r"no feedback 'correct' from a judge \(source type CODE"):
        read_mlflow(only_t2, name="correct", judge_source="CODE", require_human=False)


def test_input_is_not_changed(store):
    _, frame, _ = store
    before = frame.copy(deep=True)
    read_mlflow(frame, name="correct")
    pd.testing.assert_frame_equal(frame, before)


def test_bad_id_field(store):
    _, frame, _ = store
    with pytest.raises(ValueError, match=r"`id_field` \('request'\) must be one of"):
        read_mlflow(frame, name="correct", id_field="request")


@pytest.mark.parametrize(
    ("traces", "kwargs", "error", "match"),
    [
        (pd.DataFrame({"trace_id": []}), {}, ValueError, r"missing column\(s\) 'assessments'"),
        (pd.DataFrame({"trace_id": [], "assessments": []}), {}, ValueError, r"no traces"),
        ([], {}, ValueError, r"no traces"),
        ("traces.json", {}, TypeError, r"`traces` must be the DataFrame or the list"),
        ([{"trace_id": "t"}], {}, TypeError, r"expected mlflow.entities.Trace objects, got dict"),
        (
            pd.DataFrame({"trace_id": [], "assessments": []}),
            {"judge_source": "HUMAN"},
            ValueError,
            r"`judge_source` \('HUMAN'\) must name source types",
        ),
    ],
)
def test_bad_input(traces, kwargs, error, match):
    with pytest.raises(error, match=match):
        read_mlflow(traces, name="correct", **kwargs)


def test_name_must_be_a_string():
    with pytest.raises(TypeError, match=r"`name` must be a non-empty str"):
        read_mlflow([], name=None)
