"""K-class verdicts through the readers: ``classes=`` keeps verdicts and labels as class values.

Counts are checked against ``collections.Counter`` on the input lists, never against the code
under test.
"""

from collections import Counter

import numpy as np
import pandas as pd
import pytest

from judgestats.io import items_frame, join_human, map_classes, read_frame
from judgestats.kclass import KClassData

SRC = "data frame"
PAIRS = ["A", "B", "tie"]

# A pairwise judge: one verdict per item, a human label on some of them (None = unlabelled).
JUDGE = ["A", "B", "tie", "A", "A", "B", "tie", "B", "A", "tie", "B", "A"]
HUMAN = ["A", "B", "B", None, "tie", None, "tie", "A", None, None, "B", None]


def counted_by_hand(judge, human, classes):
    """Test counts (unlabelled items) and confusion counts (labelled: true row, judged column)."""
    test = Counter(j for j, h in zip(judge, human, strict=True) if h is None)
    pairs = Counter((h, j) for j, h in zip(judge, human, strict=True) if h is not None)
    return (
        [test[c] for c in classes],
        [[pairs[(t, j)] for j in classes] for t in classes],
    )


def values(column):
    return [None if v is pd.NA else v for v in column]


# ---- map_classes -------------------------------------------------------------------------------
def test_map_classes_keeps_class_values_and_missing():
    out = map_classes(["A", "tie", None, "", np.nan, "B"], classes=PAIRS, name="v", source=SRC)
    assert out.dtype == object
    assert values(out) == ["A", "tie", None, None, None, "B"]


def test_whole_floats_and_numpy_integers_match_integer_classes():
    raw = [1.0, np.int64(2), 5, np.float64(3.0), float("nan")]
    out = map_classes(raw, classes=[1, 2, 3, 4, 5], name="score", source=SRC)
    assert values(out) == [1, 2, 5, 3, None]
    assert all(type(v) is int for v in out if v is not pd.NA)


@pytest.mark.parametrize(
    ("raw", "classes", "shown"),
    [
        (["A", "a", "a"], PAIRS, "'a' (2 items)"),  # case counts
        (["A", " A"], PAIRS, "' A' (1 item)"),  # spaces count
        ([1, 2.5], [1, 2, 3], "2.5 (1 item)"),
        ([1, "2"], [1, 2, 3], "'2' (1 item)"),  # a string is not an integer
        (["1", 1], ["1", "2"], "1 (1 item)"),  # an integer is not a string
        ([True, 1], [0, 1], "True (1 item)"),  # booleans match nothing
    ],
)
def test_values_outside_the_classes_are_named_with_counts(raw, classes, shown):
    with pytest.raises(ValueError, match="declared classes") as error:
        map_classes(raw, classes=classes, name="verdict", source="run.csv")
    message = str(error.value)
    assert message.startswith("run.csv: `verdict`")
    assert shown in message
    assert repr(list(classes)) in message


def test_at_most_five_offending_values_are_listed():
    raw = ["u", "v", "w", "x", "y", "z", "z"]
    with pytest.raises(ValueError, match="and 1 more") as error:
        map_classes(raw, classes=PAIRS, name="verdict", source=SRC)
    assert "'y' (1 item)" in str(error.value) and "'z'" not in str(error.value)


@pytest.mark.parametrize(
    ("classes", "error", "match"),
    [
        ("AB", TypeError, "`classes` must be a list or tuple"),
        ({"A", "B"}, TypeError, "`classes` must be a list or tuple"),
        (["A"], ValueError, "at least two classes"),
        (["A", "A"], ValueError, "names the class 'A' twice"),
        ([1, np.int64(1)], ValueError, "names the class 1 twice"),
        (["A", 1.5], TypeError, "strings or integers"),
        ([True, False], TypeError, "strings or integers"),
        (["A", " "], ValueError, "non-empty"),
    ],
)
def test_bad_classes(classes, error, match):
    with pytest.raises(error, match=match):
        map_classes(["A"], classes=classes, name="v", source=SRC)


def test_input_is_not_modified():
    raw = pd.Series([1.0, 2.0, None])
    before = raw.copy()
    map_classes(raw, classes=[1, 2], name="v", source=SRC)
    pd.testing.assert_series_equal(raw, before)


# ---- items_frame ---------------------------------------------------------------------------------
def test_items_frame_with_classes_keeps_object_columns():
    frame = items_frame(["a", "b", "c"], ["A", "tie", "B"], source=SRC, classes=PAIRS)
    assert frame["judge"].dtype == object and frame["human"].dtype == object
    assert values(frame["judge"]) == ["A", "tie", "B"]
    assert frame["human"].isna().all()
    assert frame.attrs == {"source": SRC, "classes": PAIRS}


# ---- read_frame ----------------------------------------------------------------------------------
def test_read_frame_pairwise_verdicts_count_as_by_hand():
    table = pd.DataFrame({"verdict": JUDGE, "label": HUMAN})
    items = read_frame(table, judge="verdict", human="label", classes=PAIRS)
    assert values(items["judge"]) == JUDGE
    assert values(items["human"]) == HUMAN
    assert items.attrs["classes"] == PAIRS
    data = KClassData.from_items(items, classes=PAIRS)
    test, confusion = counted_by_hand(JUDGE, HUMAN, PAIRS)
    assert data.classes == tuple(PAIRS)
    assert data.test.tolist() == test
    assert data.confusion.tolist() == confusion
    assert test == [3, 1, 1]  # A at rows 3, 8, 11; B at 5; tie at 9


def test_from_items_takes_the_declared_classes_from_the_frame():
    # class 4 occurs nowhere: only the declared classes can give K = 5 in this order
    judge = [5, 3, 1, 2, 5, 5, 3, 1]
    human = [5, 2, None, None, None, 3, None, 1]
    table = pd.DataFrame({"score": judge, "gold": human})
    items = read_frame(table, judge="score", human="gold", classes=[5, 4, 3, 2, 1])
    data = KClassData.from_items(items, design="random")
    assert data.classes == (5, 4, 3, 2, 1)
    test, confusion = counted_by_hand(judge, human, [5, 4, 3, 2, 1])
    assert data.test.tolist() == test and data.confusion.tolist() == confusion


def test_csv_round_trip_of_integer_scores(tmp_path):
    judge = [5, 4, 1, 3, 3, 2, 5, 4, 1, 2, 3, 5]
    human = [5, 3, 1, 3, None, 2, None, 4, 2, None, 3, None]
    path = tmp_path / "scores.csv"
    pd.DataFrame(
        {"id": [f"q{i:02d}" for i in range(12)], "score": judge, "gold": human, "model": "m"}
    ).to_csv(path, index=False)
    raw = pd.read_csv(path)
    assert raw["score"].dtype.kind == "i" and raw["gold"].dtype.kind == "f"  # both paths used
    classes = [1, 2, 3, 4, 5]
    items = read_frame(path, judge="score", human="gold", classes=classes)
    assert values(items["judge"]) == judge
    assert values(items["human"]) == human
    assert all(type(v) is int for v in items["human"].dropna())
    assert items["id"].tolist()[:2] == ["q00", "q01"] and "model" in items.columns
    data = KClassData.from_items(items)
    test, confusion = counted_by_hand(judge, human, classes)
    assert data.test.tolist() == test and data.confusion.tolist() == confusion


def test_csv_with_string_classes_reads_the_verdicts_as_text(tmp_path):
    path = tmp_path / "grades.csv"
    path.write_text("id,grade,human\na,1,1\nb,2,\nc,10,2\n", encoding="utf-8")
    items = read_frame(path, judge="grade", human="human", classes=["1", "2", "10"])
    assert values(items["judge"]) == ["1", "2", "10"]
    assert values(items["human"]) == ["1", None, "2"]


def test_csv_pairwise_round_trip(tmp_path):
    path = tmp_path / "pairs.csv"
    pd.DataFrame({"verdict": JUDGE, "label": HUMAN}).to_csv(path, index=False)
    items = read_frame(path, judge="verdict", human="label", classes=PAIRS)
    data = KClassData.from_items(items)
    test, confusion = counted_by_hand(JUDGE, HUMAN, PAIRS)
    assert data.test.tolist() == test and data.confusion.tolist() == confusion


def test_a_value_outside_the_classes_names_column_and_value():
    table = pd.DataFrame({"verdict": ["A", "B", "both", "both"], "label": ["A", None, None, "C"]})
    with pytest.raises(ValueError, match=r"data frame: `verdict`.*'both' \(2 items\)"):
        read_frame(table, judge="verdict", human="label", classes=PAIRS)
    with pytest.raises(ValueError, match=r"data frame: `label`.*'C' \(1 item\)"):
        read_frame(table.replace("both", "tie"), judge="verdict", human="label", classes=PAIRS)


@pytest.mark.parametrize(
    ("argument", "value"), [("positive", "A"), ("threshold", 3.0), ("human_positive", "A")]
)
def test_a_01_mapping_and_classes_exclude_each_other(argument, value):
    table = pd.DataFrame({"verdict": ["A", "B"], "label": ["A", None]})
    with pytest.raises(ValueError, match=rf"`classes`.*`{argument}`.*exclude each other"):
        read_frame(table, judge="verdict", human="label", classes=PAIRS, **{argument: value})


def test_missing_verdicts_stay_missing():
    judge = ["A", None, "tie", np.nan, "B"]
    human = [None, "B", "", "A", "A"]
    items = read_frame(pd.DataFrame({"v": judge, "h": human}), judge="v", human="h", classes=PAIRS)
    assert values(items["judge"]) == ["A", None, "tie", None, "B"]
    assert values(items["human"]) == [None, "B", None, "A", "A"]
    with pytest.raises(ValueError, match="2 item"):
        KClassData.from_items(items)
    data = KClassData.from_items(items.dropna(subset=["judge"]), design="random")
    test, confusion = counted_by_hand(["A", "tie", "B"], [None, None, "A"], PAIRS)
    assert data.test.tolist() == test and data.confusion.tolist() == confusion


def test_the_01_path_is_unchanged():
    table = pd.DataFrame(
        {"verdict": ["PASS", "FAIL", "PASS"], "human": [1, None, 0], "k": [7, 8, 9]}
    )
    items = read_frame(table, judge="verdict", human="human", positive="PASS")
    expected = pd.DataFrame(
        {
            "id": pd.array(["0", "1", "2"], dtype=object),
            "judge": pd.array([1, 0, 1], dtype="Int64"),
            "human": pd.array([1, pd.NA, 0], dtype="Int64"),
            "k": [7, 8, 9],
        }
    )
    pd.testing.assert_frame_equal(items, expected)
    assert items.attrs == {"source": "data frame"}


# ---- join_human ---------------------------------------------------------------------------------
def test_join_human_keeps_class_labels():
    items = read_frame(
        pd.DataFrame({"id": ["a", "b", "c", "d"], "v": ["A", "B", "tie", "A"]}),
        judge="v",
        classes=PAIRS,
    )
    labels = pd.DataFrame({"id": ["b", "c"], "human": ["B", "A"]})
    joined = join_human(items, labels)  # the classes come from items.attrs
    assert values(joined["human"]) == [None, "B", "A", None]
    assert joined["human"].dtype == object
    assert joined.attrs["classes"] == PAIRS
    assert values(items["human"]) == [None] * 4  # the input is not modified
    again = join_human(items, labels, classes=PAIRS)
    pd.testing.assert_frame_equal(again, joined)
    data = KClassData.from_items(joined, design="random")
    test, confusion = counted_by_hand(["A", "B", "tie", "A"], [None, "B", "A", None], PAIRS)
    assert data.test.tolist() == test and data.confusion.tolist() == confusion


def test_join_human_integer_labels_from_csv(tmp_path):
    items = items_frame(["1", "2", "3"], [4, 2, 2], source=SRC, classes=[1, 2, 3, 4])
    path = tmp_path / "labels.csv"
    path.write_text("id,human\n1,3\n2,\n3,2\n", encoding="utf-8")  # a gap: read as floats
    joined = join_human(items, path)
    assert values(joined["human"]) == [3, None, 2]


def test_join_human_class_errors():
    items = items_frame(["a", "b"], ["A", "B"], ["A", None], source=SRC, classes=PAIRS)
    with pytest.raises(ValueError, match=r"`classes`.*`positive`.*exclude each other"):
        join_human(items, pd.DataFrame({"id": ["b"], "human": ["B"]}), positive="B")
    with pytest.raises(ValueError, match="differs from the classes"):
        join_human(items, pd.DataFrame({"id": ["b"], "human": ["B"]}), classes=["A", "B"])
    with pytest.raises(ValueError, match=r"`human`.*'D' \(1 item\)"):
        join_human(items, pd.DataFrame({"id": ["b"], "human": ["D"]}))
    with pytest.raises(ValueError, match=r"id 'a' \('tie'\) contradicts the human label 'A'"):
        join_human(items, pd.DataFrame({"id": ["a"], "human": ["tie"]}))


def test_join_human_without_classes_is_01():
    items = read_frame(pd.DataFrame({"v": [1, 0, 1]}), judge="v")
    joined = join_human(items, pd.DataFrame({"id": ["0", "2"], "human": [1, 0]}))
    assert str(joined["human"].dtype) == "Int64"
    assert "classes" not in joined.attrs
    assert values(joined["human"]) == [1, None, 0]


# ---- read_inspect --------------------------------------------------------------------------------
GRADES = ["I", "P", "C"]
# (id, graded value, the person's edit or None)
INSPECT = [
    (1, "C", "P"),
    (2, "I", "I"),
    (3, "P", "P"),
    (4, "C", None),
    (5, "P", None),
    (6, "I", "C"),
    (7, "C", "C"),
    (8, "I", None),
    (9, "C", None),
]


@pytest.fixture(scope="module")
def graded_log(tmp_path_factory):
    pytest.importorskip("inspect_ai.log", reason="needs inspect_ai ('.[inspect]')")
    from inspect_ai.log import ProvenanceData, edit_score, write_eval_log
    from inspect_ai.scorer import ScoreEdit
    from test_io_inspect import SCORER, _log

    log = _log([(i, 1, graded, 0.0) for i, graded, _ in INSPECT], edits=False)
    for item, _, edit in INSPECT:
        if edit is not None:
            edit_score(
                log,
                item,
                SCORER,
                ScoreEdit(value=edit, provenance=ProvenanceData(author="ann", reason="review")),
                recompute_metrics=False,
            )
    path = tmp_path_factory.mktemp("inspect_kclass") / "graded.eval"
    write_eval_log(log, str(path))
    return path, SCORER


def test_read_inspect_keeps_grades_as_classes(graded_log):
    from judgestats.io import read_inspect

    path, scorer = graded_log
    items = read_inspect(path, scorer=scorer, classes=GRADES)
    judge = [graded for _, graded, _ in INSPECT]
    human = [edit for _, _, edit in INSPECT]
    assert items["id"].tolist() == [str(i) for i, _, _ in INSPECT]
    assert values(items["judge"]) == judge
    assert values(items["human"]) == human
    assert items.attrs["classes"] == GRADES and items.attrs["scorer"] == scorer
    data = KClassData.from_items(items)
    test, confusion = counted_by_hand(judge, human, GRADES)
    assert data.classes == tuple(GRADES)
    assert data.test.tolist() == test and data.confusion.tolist() == confusion


def test_read_inspect_grade_outside_the_classes(graded_log):
    from judgestats.io import read_inspect

    path, scorer = graded_log
    with pytest.raises(ValueError, match=r"`scores\.model_graded_qa\.value`.*'P' \(2 items\)"):
        read_inspect(path, scorer=scorer, classes=["I", "C"])


@pytest.mark.parametrize(
    "kwargs",
    [
        {"partial": 1},
        {"partial": None},
        {"noanswer": None},
        {"threshold": 0.5},
        {"positive": "yes"},
        {"negative": "I"},
    ],
)
def test_read_inspect_01_options_exclude_classes(graded_log, kwargs):
    from judgestats.io import read_inspect

    path, scorer = graded_log
    (argument,) = kwargs
    with pytest.raises(ValueError, match=rf"`classes`.*`{argument}`.*exclude each other"):
        read_inspect(path, scorer=scorer, classes=GRADES, **kwargs)


def test_read_inspect_without_classes_is_still_01(graded_log):
    from judgestats.io import read_inspect

    path, scorer = graded_log
    items = read_inspect(path, scorer=scorer)
    assert str(items["judge"].dtype) == "Int64" and "classes" not in items.attrs
    assert values(items["judge"]) == [int(g == "C") for _, g, _ in INSPECT]  # partial=0


# ---- CSV text: classes named like missing values, string digits, mixed classes --------------
NA_WORDS = ["NA", "None", "null", "N/A", "nan"]


@pytest.mark.parametrize("suffix", [".csv", ".tsv"])
def test_classes_named_like_missing_values_survive_a_csv(tmp_path, suffix):
    sep = "\t" if suffix == ".tsv" else ","
    rows = [  # id, verdict, human ("" = an empty cell)
        ("1", "NA", "NA"),
        ("2", "yes", "no"),
        ("3", "no", ""),
        ("4", "NA", ""),
        ("5", "None", "null"),
        ("6", "N/A", "nan"),
        ("7", "nan", ""),
        ("8", "null", "N/A"),
    ]
    path = tmp_path / f"na{suffix}"
    lines = ["id", "verdict", "human"], *rows
    path.write_text("\n".join(sep.join(r) for r in lines) + "\n", encoding="utf-8")
    classes = ["yes", "no", *NA_WORDS]
    items = read_frame(path, judge="verdict", human="human", classes=classes)
    judge = [j for _, j, _ in rows]
    human = [h or None for _, _, h in rows]
    assert values(items["judge"]) == judge
    assert values(items["human"]) == human
    data = KClassData.from_items(items, design="random")
    # by hand: unlabelled items 3 (no), 4 (NA), 7 (nan); labelled (true, judged) pairs are
    # (NA, NA), (no, yes), (null, None), (nan, N/A), (N/A, null)
    assert data.test.tolist() == [0, 1, 1, 0, 0, 0, 1]
    assert int(data.confusion.sum()) == 5
    index = {c: k for k, c in enumerate(classes)}
    for true, judged in [("NA", "NA"), ("no", "yes"), ("null", "None"), ("nan", "N/A")]:
        assert data.confusion[index[true], index[judged]] == 1
    assert data.confusion[index["N/A"], index["null"]] == 1


def test_a_missing_word_that_is_not_a_class_is_an_error(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("verdict,human\nA,N/A\nB,\nA,N/A\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"`human`.*'N/A' \(2 items\)"):
        read_frame(path, judge="verdict", human="human", classes=["A", "B"])


def test_integer_classes_still_read_na_words_as_missing(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text("score,gold\n3,NA\n1,1\n2,\n3,3\n", encoding="utf-8")
    items = read_frame(path, judge="score", human="gold", classes=[1, 2, 3])
    assert values(items["judge"]) == [3, 1, 2, 3]
    assert values(items["human"]) == [None, 1, None, 3]


def test_join_human_keeps_a_class_named_na_from_a_label_file(tmp_path):
    items = items_frame(
        ["a", "b", "c"], ["NA", "yes", "no"], source=SRC, classes=["yes", "no", "NA"]
    )
    path = tmp_path / "labels.csv"
    path.write_text("id,human\na,NA\nb,\nc,None\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"'None' \(1 item\)"):
        join_human(items, path)
    path.write_text("id,human\na,NA\nb,\nc,no\n", encoding="utf-8")
    assert values(join_human(items, path)["human"]) == ["NA", None, "no"]


def test_join_human_string_digit_classes_from_csv(tmp_path):
    judge = ["1", "2", "3", "1", "3", "2"]
    ids = ["a", "b", "c", "d", "e", "f"]
    src = tmp_path / "items.csv"
    pd.DataFrame({"id": ids, "score": judge}).to_csv(src, index=False)
    items = read_frame(src, judge="score", classes=["1", "2", "3"])
    assert values(items["judge"]) == judge
    labels = tmp_path / "labels.csv"
    labels.write_text("id,human\na,1\nc,3\ne,2\nf,\n", encoding="utf-8")
    joined = join_human(items, labels)
    human = ["1", None, "3", None, "2", None]
    assert values(joined["human"]) == human
    data = KClassData.from_items(joined, design="random")
    # by hand: unlabelled b (2), d (1), f (2); labelled (true, judged): (1, 1), (3, 3), (2, 3)
    assert data.test.tolist() == [1, 2, 0]
    assert data.confusion.tolist() == [[1, 0, 0], [0, 0, 1], [0, 0, 1]]


def test_mixed_classes_from_csv_match_text_to_strings_first(tmp_path):
    path = tmp_path / "mixed.csv"
    path.write_text("id,score,human\na,1,1\nb,2,2\nc,2,\nd,yes,2\n", encoding="utf-8")
    items = read_frame(path, judge="score", human="human", classes=["1", 2, "yes"])
    assert values(items["judge"]) == ["1", 2, 2, "yes"]
    assert values(items["human"]) == ["1", 2, None, 2]
    assert type(items["judge"][1]) is int
    labels = tmp_path / "labels.csv"
    labels.write_text("id,human\nc,yes\n", encoding="utf-8")
    joined = join_human(items, labels)
    assert values(joined["human"]) == ["1", 2, "yes", 2]
    path.write_text("score\n1\n2.0\n", encoding="utf-8")  # a float's text matches nothing
    with pytest.raises(ValueError, match=r"`score`.*'2\.0' \(1 item\)"):
        read_frame(path, judge="score", classes=["1", 2])


def test_mixed_classes_from_json_keep_their_types(tmp_path):
    path = tmp_path / "mixed.jsonl"
    path.write_text('{"score": "1"}\n{"score": 2}\n{"score": null}\n', encoding="utf-8")
    items = read_frame(path, judge="score", classes=["1", 2])
    assert values(items["judge"]) == ["1", 2, None]
    path.write_text('{"score": "2"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"'2' \(1 item\)"):
        read_frame(path, judge="score", classes=["1", 2])


def test_the_01_csv_path_still_reads_na_words_as_missing(tmp_path):
    path = tmp_path / "binary.csv"
    path.write_text("id,verdict,human\n007,PASS,1\n8,FAIL,NA\n9,PASS,\n", encoding="utf-8")
    items = read_frame(path, judge="verdict", human="human", positive="PASS")
    assert items["id"].tolist() == ["007", "8", "9"]
    assert values(items["judge"]) == [1, 0, 1]
    assert values(items["human"]) == [1, None, None]
    assert str(items["human"].dtype) == "Int64"
