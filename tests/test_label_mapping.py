"""Explicit 0/1 mapping of verdicts and labels (``positive`` / ``negative``), and the label rules.

Expected values are written out by hand from the inputs. The rules live in
:mod:`judgestats._labels` (missing values, 0/1 spellings) and :mod:`judgestats.io._mapping`
(how ``positive`` / ``negative`` values are compared: numbers by value, text case-insensitively).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import judgestats as jc
from judgestats._labels import MISSING_WORDS, is_missing, parse_binary
from judgestats.io import map_verdicts, read_frame

SRC = "data frame"


def values(array):
    return [None if v is pd.NA else int(v) for v in array]


# ---- pairwise winners mapped explicitly -------------------------------------------------------
@pytest.mark.parametrize(
    ("winners", "positive", "negative"),
    [
        (["1", "2", "2", "1"], "1", "2"),
        ([1, 2, 2, 1], 1, 2),
        (["A", "B", "b", " a "], "A", "B"),
        (["model_a", "model_b", "model_b", "model_a"], "model_a", "model_b"),
    ],
)
def test_pairwise_winners_map_by_positive_and_negative(winners, positive, negative):
    # the first and last items are won by the positive side: 1, 0, 0, 1
    mapped = map_verdicts(winners, positive=positive, negative=negative, name="w", source=SRC)
    assert values(mapped) == [1, 0, 0, 1]


def test_from_frame_counts_pairwise_winners_against_float_gold_labels():
    # gold 2 = "model_a is better" (correct), 1 = incorrect; NaN = unlabelled (test items).
    # by hand, row by row:
    #   row 0: judge model_a (1), gold 2.0 (1)  -> truly correct, judged correct
    #   row 1: judge model_b (0), gold 1.0 (0)  -> truly incorrect, judged incorrect
    #   row 2: judge model_a (1), gold 1.0 (0)  -> truly incorrect, judged correct
    #   row 3: judge model_a (1), gold NaN      -> test, judged correct
    #   row 4: judge model_b (0), gold NaN      -> test, judged incorrect
    #   row 5: judge model_a (1), gold NaN      -> test, judged correct
    frame = pd.DataFrame(
        {
            "winner": ["model_a", "model_b", "model_a", "model_a", "model_b", "model_a"],
            "gold": [2.0, 1.0, 1.0, np.nan, np.nan, np.nan],
        }
    )
    data = jc.JudgeData.from_frame(
        frame,
        judge="winner",
        human="gold",
        positive="model_a",
        negative="model_b",
        human_positive=2,
        human_negative=1,
    )
    assert data == jc.JudgeData(k=2, n=3, k0=1, m0=2, k1=1, m1=1)


def test_read_frame_maps_a_float_label_column_by_value():
    frame = pd.DataFrame({"verdict": [2, 1, 2, 1], "gold": [2.0, np.nan, 1.0, 2.0]})
    items = read_frame(frame, judge="verdict", human="gold", positive=2, negative=1)
    assert values(items["judge"]) == [1, 0, 1, 0]
    assert values(items["human"]) == [1, None, 0, 1]  # the labels follow positive / negative


def test_numbers_and_their_text_are_one_value():
    # documented rule: 2, 2.0, np.float64(2.0), "2" and " 2.0 " are the number 2
    column = [2, 2.0, np.float64(2.0), "2", " 2.0 ", 1, "1", 1.0, None]
    mapped = map_verdicts(column, positive=2, negative=1, name="g", source=SRC)
    assert values(mapped) == [1, 1, 1, 1, 1, 0, 0, 0, None]
    mapped = map_verdicts(column, positive="2", negative="1.0", name="g", source=SRC)
    assert values(mapped) == [1, 1, 1, 1, 1, 0, 0, 0, None]


def test_a_list_of_spellings_of_correct():
    mapped = map_verdicts(["yes", "Y", "no", "n"], positive=["yes", "y"], name="v", source=SRC)
    assert values(mapped) == [1, 1, 0, 0]


def test_the_human_column_defaults_to_the_verdict_mapping():
    frame = pd.DataFrame({"w": ["A", "B", "A"], "h": ["B", None, "A"]})
    items = read_frame(frame, judge="w", human="h", positive="A", negative="B")
    assert values(items["human"]) == [0, None, 1]


# ---- errors name the argument ------------------------------------------------------------------
def test_positive_equal_to_negative_is_an_error():
    with pytest.raises(ValueError, match=r"`positive` \('A'\) and `negative` \('a'\) share"):
        map_verdicts(["A", "B"], positive="A", negative="a", name="w", source=SRC)
    with pytest.raises(ValueError, match=r"`positive` \(2\) and `negative` \(2\.0\) share"):
        read_frame(pd.DataFrame({"w": [1, 2]}), judge="w", positive=2, negative=2.0)


def test_human_positive_equal_to_human_negative_names_the_human_options():
    frame = pd.DataFrame({"w": [1, 0], "h": ["x", "y"]})
    with pytest.raises(ValueError, match="`human_positive`.*`human_negative`.*share"):
        read_frame(frame, judge="w", human="h", human_positive="x", human_negative="x")


def test_a_value_that_is_neither_positive_nor_negative_is_an_error():
    with pytest.raises(ValueError, match=r"`w` has values outside.*'tie' \(1 item\).*`negative`"):
        map_verdicts(["A", "B", "tie", None], positive="A", negative="B", name="w", source=SRC)


def test_three_values_without_positive_is_an_error():
    with pytest.raises(ValueError, match=r"holds 3 distinct values.*`positive` and `negative`"):
        read_frame(pd.DataFrame({"w": ["A", "B", "tie"]}), judge="w")
    with pytest.raises(ValueError, match=r"`h` has values outside.*holds 3 distinct values"):
        read_frame(
            pd.DataFrame({"w": [1, 0, 1], "h": [1, 2, 3]}),
            judge="w",
            human="h",
            human_positive=None,
        )  # the labels: 1, 2, 3, no mapping given


def test_positive_alone_with_several_other_values_asks_for_negative():
    with pytest.raises(ValueError, match=r"cannot be inferred.*`negative`"):
        map_verdicts(["A", "B", "tie"], positive="A", name="w", source=SRC)


def test_a_positive_list_holding_a_value_and_its_opposite_is_refused():
    # before, ["C", "I"] mapped every verdict to 1
    with pytest.raises(ValueError, match=r"`positive` \(\['C', 'I'\]\) holds both 'c'.*'i'"):
        read_frame(pd.DataFrame({"w": ["C", "I", "C"]}), judge="w", positive=["C", "I"])


def test_non_scalar_positive_or_negative_must_be_a_flat_list():
    with pytest.raises(TypeError, match="`positive` must be a value or a list"):
        map_verdicts(["A"], positive={"A": 1}, name="w", source=SRC)
    with pytest.raises(TypeError, match="`negative`.*flat, non-empty list"):
        map_verdicts(["A", "B"], positive="A", negative=[["B"]], name="w", source=SRC)
    with pytest.raises(TypeError, match="`positive`.*flat, non-empty list"):
        map_verdicts(["A", "B"], positive=[], name="w", source=SRC)


@pytest.mark.parametrize("given", [{"A"}, frozenset({"A"}), object(), np.array([["A"]])])
@pytest.mark.parametrize("option", ["positive", "negative"])
def test_a_set_or_object_as_positive_or_negative_is_refused(given, option):
    # A set {"A"} was read as one value, the text "{'a'}", so no verdict matched it and the
    # error blamed the column's values.
    options = {"positive": given} if option == "positive" else {"positive": "A", "negative": given}
    with pytest.raises(TypeError, match=rf"`{option}` (must be a value or a list|.*flat)"):
        map_verdicts(["A", "B"], **options, name="w", source=SRC)
    frame = pd.DataFrame({"w": ["A", "B", "A", "B"], "h": [1, 0, None, None]})
    with pytest.raises(TypeError, match=rf"`{option}`"):
        read_frame(frame, judge="w", human="h", human_positive=1, **options)
    with pytest.raises(TypeError, match=rf"`{option}`"):
        jc.JudgeData.from_frame(frame, judge="w", human="h", human_positive=1, **options)


def test_a_tuple_array_or_numpy_scalar_positive_still_maps():
    for given in (("A",), np.array(["A"]), np.str_("A"), np.array("A")):
        assert values(map_verdicts(["A", "B"], positive=given, name="w", source=SRC)) == [1, 0]


@pytest.mark.parametrize("odd", [[1], {"a": 1}, {1}, np.array([1, 0]), ("x",), object()])
@pytest.mark.parametrize("options", [{"positive": "x"}, {}, {"threshold": 0.5}])
def test_a_verdict_that_is_a_container_is_refused(odd, options):
    # With positive="x", [1] was taken as "the one other value" and mapped to 0 silently.
    with pytest.raises(
        ValueError, match=r"data frame: `w` has values outside the mapping: .*item 0"
    ):
        map_verdicts([odd, "x"], name="w", source=SRC, **options)


def test_negative_needs_positive():
    with pytest.raises(ValueError, match="`negative` \\('B'\\) needs `positive`"):
        read_frame(pd.DataFrame({"w": ["A", "B"]}), judge="w", negative="B")


# ---- the missing-value rule (one set of tokens) -----------------------------------------------
def test_missing_tokens_are_one_set():
    assert MISSING_WORDS == {"", "na", "nan", "none", "null"}
    always = [None, float("nan"), np.nan, pd.NA, pd.NaT, np.datetime64("NaT"), "", "  "]
    assert all(is_missing(v) and is_missing(v, words=False) for v in always)
    words = ["NA", " nan ", "None", "NULL", "na"]
    assert all(is_missing(v) for v in words)
    assert not any(is_missing(v, words=False) for v in words)  # class values: kept as written
    assert not any(is_missing(v) for v in [0, 0.0, "0", "N/A", "missing", False])


def test_missing_words_are_unlabelled_in_a_label_column_everywhere():
    human = ["1", "NA", "null", "", "None", "0"]
    assert values(map_verdicts(human, name="h", source=SRC)) == [1, None, None, None, None, 0]
    frame = pd.DataFrame({"set": ["test"] * 6, "judge": [1, 0, 1, 1, 0, 0], "human": human})
    marked = jc.JudgeData.from_frame(frame, design="random")
    # labelled items 0 (human 1, judge 1) and 5 (human 0, judge 0); the 4 others are the test
    assert marked == jc.JudgeData(k=2, n=4, k0=1, m0=1, k1=1, m1=1, design="random")


def test_a_missing_word_named_by_positive_is_a_value():
    mapped = map_verdicts(
        ["none", "some", None], positive="some", negative="none", name="v", source=SRC
    )
    assert values(mapped) == [0, 1, None]


def test_binary_spellings():
    assert [parse_binary(v) for v in ("1", " TRUE ", "0.0", "false", 1.0, True, 2, "yes")] == [
        1,
        1,
        0,
        0,
        1,
        1,
        None,
        None,
    ]


COUNTS = ["--k", "400", "--n", "1000", "--k0", "140", "--m0", "200", "--k1", "180", "--m1", "200"]


@pytest.mark.parametrize(
    ("options", "prior"),
    [
        ([], jc.Prior()),
        (
            ["--prior-q0", "46", "6", "--no-truncation"],
            jc.Prior(q0=(46, 6), better_than_chance=False),
        ),
    ],
)
def test_the_cli_and_the_report_print_prior_describe(options, prior, capsys, tmp_path):
    # one home for the prior in words: Prior.describe(), printed by `posterior` and the report
    from judgestats.cli import main
    from judgestats.reporting.markdown import escape

    assert main(["posterior", *COUNTS, *options]) == 0
    first_line = capsys.readouterr().out.splitlines()[0]
    assert first_line.endswith(f", priors {prior.describe()})")
    path = tmp_path / "report.md"
    assert main(["report", *COUNTS, *options, "--output", str(path), "--embed-figures"]) == 0
    assert f"| prior | {escape(prior.describe())} |" in path.read_text(encoding="utf-8")
