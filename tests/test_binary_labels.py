"""binary_labels reads a 0/1 label by the one rule of judgestats._labels (parse_binary).

Expected values are written by hand, never computed by the code under test.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

import judgestats as jc
from judgestats._labels import binary_labels, parse_binary
from judgestats.comparison import ModelLabels
from judgestats.sequential import LabellingSession

# Every spelling of the words "1", "1.0", "true" / "0", "0.0", "false", in several cases and with
# surrounding spaces, with the label it means.
SPELLINGS = [
    ("1", 1),
    (" 1 ", 1),
    ("1.0", 1),
    ("\t1.0  ", 1),
    ("true", 1),
    ("True", 1),
    ("TRUE", 1),
    ("  tRuE ", 1),
    ("0", 0),
    ("  0", 0),
    ("0.0", 0),
    ("0.0 ", 0),
    ("false", 0),
    ("False", 0),
    ("FALSE", 0),
    (" fAlSe\t", 0),
]

MISSING_WORDS = ["", "   ", "na", "NA", " nan ", "NaN", "None", "none", "NULL", " null "]

BAD_STRINGS = ["yes", "no", "2", "-1", "A", "1.5", "1.00", "01", "t", "f", "truee", "n/a"]


@pytest.mark.parametrize(("word", "label"), SPELLINGS)
def test_each_true_and_false_word_is_accepted(word, label):
    assert binary_labels([word], "x").tolist() == [label]
    assert binary_labels([word], "x", allow_missing=True).tolist() == [label]


def test_a_list_of_words_returns_int8_in_order():
    out = binary_labels(["1", " True ", "0.0", "false", "1.0", "0"], "x")
    assert out.dtype == np.int8
    assert out.tolist() == [1, 1, 0, 0, 1, 0]


@pytest.mark.parametrize("word", MISSING_WORDS)
def test_a_missing_word_is_unlabelled_with_allow_missing(word):
    assert binary_labels(["1", word, "0"], "h", allow_missing=True).tolist() == [1, -1, 0]


@pytest.mark.parametrize("word", MISSING_WORDS)
def test_a_missing_word_is_an_error_without_allow_missing(word):
    with pytest.raises(ValueError, match=r"`calib_human` must hold only 0/1.*item 1 is a missing"):
        binary_labels(["1", word, "0"], "calib_human")


@pytest.mark.parametrize("word", BAD_STRINGS)
@pytest.mark.parametrize("allow_missing", [False, True])
def test_other_strings_are_refused_naming_the_argument_and_item(word, allow_missing):
    pattern = rf"`test_judge` must hold only 0/1 labels.*item 2 is {repr(word)}\."
    with pytest.raises(ValueError, match=pattern.replace("(", r"\(")):
        binary_labels(["1", "0", word, "yes"], "test_judge", allow_missing=allow_missing)


def test_the_error_lists_the_accepted_words():
    with pytest.raises(ValueError, match=r"'1', '1\.0', 'true' / '0', '0\.0', 'false'"):
        binary_labels(["yes"], "x")


def test_bytes_are_refused():
    with pytest.raises(ValueError, match=r"`x` must hold only 0/1.*item 0 is b'1'"):
        binary_labels([b"1", b"0"], "x")
    with pytest.raises(ValueError, match=r"`x` must hold only 0/1.*item 0 is b'1'"):
        binary_labels(np.array([b"1", b"0"]), "x")  # dtype 'S1'
    with pytest.raises(TypeError, match="`x` must be a sequence of 0/1 labels, got bytes"):
        binary_labels(b"10", "x")
    with pytest.raises(TypeError, match="`x` must be a sequence of 0/1 labels, got str"):
        binary_labels("10", "x")


def test_a_numpy_string_array():
    words = np.array(["1", "0", "NA", "tRu"], dtype="<U3")
    assert words.dtype == np.dtype("<U3")
    assert binary_labels(words[:3], "x", allow_missing=True).tolist() == [1, 0, -1]
    with pytest.raises(ValueError, match=r"`x`.*item 2 is a missing value \('NA'\)"):
        binary_labels(words[:3], "x")
    with pytest.raises(ValueError, match=r"`x`.*item 3 is 'tRu'"):
        binary_labels(words, "x", allow_missing=True)
    assert words.tolist() == ["1", "0", "NA", "tRu"]  # the input is not modified
    short = np.array(["1", "0"], dtype="<U3")
    assert binary_labels(short, "x").tolist() == [1, 0]


def test_an_object_array_of_mixed_cells():
    cells = np.array([1, "0", True, 0.0, " TRUE", None, np.nan, "", np.int64(0)], dtype=object)
    got = binary_labels(cells, "x", allow_missing=True)
    assert got.tolist() == [1, 0, 1, 0, 1, -1, -1, -1, 0]
    with pytest.raises(ValueError, match=r"`x`.*item 5 is a missing value \(NaN/None\)"):
        binary_labels(cells, "x")


def test_a_mixed_list_reports_the_value_given_not_numpys_text_of_it():
    # numpy would turn [0.5, "1"] into the strings ["0.5", "1"]; the message shows 0.5 itself
    with pytest.raises(ValueError, match=r"item 0 is 0\.5\.$"):
        binary_labels([0.5, "1"], "x")
    with pytest.raises(ValueError, match=r"item 1 is 2\.$"):
        binary_labels(["1", 2], "x")
    assert binary_labels([1, "0", True, 0.0], "x").tolist() == [1, 0, 1, 0]


def test_a_pandas_series_of_strings_with_none():
    for series in (
        pd.Series(["1", None, "false", " 0.0 "]),
        pd.Series(["1", None, "false", " 0.0 "], dtype=object),
    ):
        assert binary_labels(series, "human", allow_missing=True).tolist() == [1, -1, 0, 0]
        with pytest.raises(ValueError, match=r"`human`.*item 1 is a missing value"):
            binary_labels(series, "human")
    typed = pd.Series(["TRUE", pd.NA, "0"], dtype="string")
    assert binary_labels(typed, "human", allow_missing=True).tolist() == [1, -1, 0]


def test_booleans_ints_and_floats_are_read_as_before():
    assert binary_labels([True, False], "x").tolist() == [1, 0]
    assert binary_labels(np.array([1, 0, 1], dtype=np.uint8), "x").tolist() == [1, 0, 1]
    assert binary_labels([1.0, 0.0, -0.0], "x").tolist() == [1, 0, 0]
    assert binary_labels(np.array([1.0, np.nan]), "x", allow_missing=True).tolist() == [1, -1]
    assert binary_labels(pd.Series([1, None], dtype="Int64"), "x", allow_missing=True).tolist() == [
        1,
        -1,
    ]
    with pytest.raises(ValueError, match=r"`x`.*item 1 is 2\."):
        binary_labels([1, 2], "x")
    with pytest.raises(ValueError, match=r"`x`.*item 0 is 0\.5\."):
        binary_labels([0.5, 1.0], "x", allow_missing=True)
    with pytest.raises(ValueError, match=r"`x`.*item 1 is a missing value \(NaN/None\)"):
        binary_labels([1.0, np.nan], "x")


# value, the label it is (None: not a 0/1 label), whether it is a missing value
AGREEMENT = [
    (1, 1, False),
    (0, 0, False),
    (2, None, False),
    (-1, None, False),
    (True, 1, False),
    (False, 0, False),
    (np.True_, 1, False),
    (np.int64(1), 1, False),
    (np.uint8(0), 0, False),
    (1.0, 1, False),
    (0.0, 0, False),
    (-0.0, 0, False),
    (0.5, None, False),
    (np.float32(1.0), 1, False),
    (float("inf"), None, False),
    (1 + 0j, None, False),
    (Decimal("1"), 1, False),  # pyarrow's decimal columns
    (Decimal("0.0"), 0, False),
    (Decimal("2"), None, False),
    (Fraction(1, 1), 1, False),
    ("1", 1, False),
    ("0", 0, False),
    ("1.0", 1, False),
    ("0.0", 0, False),
    ("true", 1, False),
    ("TRUE", 1, False),
    (" FALSE ", 0, False),
    ("False", 0, False),
    ("yes", None, False),
    ("no", None, False),
    ("2", None, False),
    ("1.00", None, False),
    ("A", None, False),
    (b"1", None, False),
    (None, None, True),
    (float("nan"), None, True),
    (pd.NA, None, True),
    ("NA", None, True),
    ("", None, True),
    (" null ", None, True),
]


@pytest.mark.parametrize(("value", "label", "missing"), AGREEMENT)
def test_binary_labels_and_parse_binary_agree(value, label, missing):
    assert parse_binary(value) == label
    if label is None:
        with pytest.raises(ValueError, match="`v` must hold only 0/1 labels"):
            binary_labels([value], "v")
    else:
        assert binary_labels([value], "v").tolist() == [label]
    if missing:
        assert binary_labels([value], "v", allow_missing=True).tolist() == [-1]
    elif label is None:
        with pytest.raises(ValueError, match="`v` must hold only 0/1 labels"):
            binary_labels([value], "v", allow_missing=True)


# ---- the callers --------------------------------------------------------------------------------
def test_from_labels_counts_words_as_it_counts_ints():
    words = jc.JudgeData.from_labels(
        test_judge=["1", "0", "1"], calib_human=["1", "0"], calib_judge=["true", "false"]
    )
    ints = jc.JudgeData.from_labels(test_judge=[1, 0, 1], calib_human=[1, 0], calib_judge=[1, 0])
    expected = jc.JudgeData(k=2, n=3, k0=1, m0=1, k1=1, m1=1)
    assert words == ints == expected


def test_from_labels_random_design_reads_missing_words_as_unlabelled():
    got = jc.JudgeData.from_labels(
        ["1", "0", "1", "0", "1"], ["TRUE", "NA", "", "0", None], design="random"
    )
    # labelled: item 0 (human 1, judge 1), item 3 (human 0, judge 0); items 1, 2, 4 are the test
    assert got == jc.JudgeData(k=2, n=3, k0=1, m0=1, k1=1, m1=1, design="random")


def test_from_labels_refuses_a_word_that_is_not_a_label_naming_the_argument():
    with pytest.raises(ValueError, match=r"`calib_judge`.*item 1 is 'yes'"):
        jc.JudgeData.from_labels(["1"], ["1", "0"], ["1", "yes"])


def test_ppi_reads_words_as_numbers():
    # the example of ppi's docstring, written in words: estimate 0.725
    human = ["1"] * 30 + [" 0 "] * 10
    judge = ["true"] * 27 + ["0"] * 3 + ["FALSE"] * 8 + ["1.0"] * 2
    test = ["1"] * 70 + ["0.0"] * 30
    by_words = jc.ppi(human, judge, test)
    by_ints = jc.ppi([1] * 30 + [0] * 10, [1] * 27 + [0] * 11 + [1] * 2, [1] * 70 + [0] * 30)
    assert round(by_words.estimate, 4) == 0.725
    assert by_words.estimate == by_ints.estimate
    assert by_words.ci == by_ints.ci


def test_model_labels_and_the_labelling_session_read_words():
    model = ModelLabels(["1", "0"], [" true", "0"], ["1", "false"])
    assert model.test_judge.tolist() == [1, 0]
    assert model.calib_human.tolist() == [1, 0]
    assert model.calib_judge.tolist() == [1, 0]
    session = LabellingSession(["a", "b"], ["1", "False"], random_seed=0)
    session.add_labels(["a", "b"], ["0", " TRUE "])
    assert [session.labels[i] for i in ("a", "b")] == [0, 1]
    with pytest.raises(ValueError, match=r"`labels`.*item 0 is 'yes'"):
        session.add_labels(["a"], ["yes"])


# ---- the readers' mapping (judgestats.io._mapping.map_verdicts without `positive`) -------------
@pytest.mark.parametrize(("value", "label", "missing"), AGREEMENT)
def test_map_verdicts_without_positive_reads_a_label_as_parse_binary_does(value, label, missing):
    from judgestats.io._mapping import map_verdicts

    if missing:
        assert map_verdicts([value], name="v", source="s").tolist() == [pd.NA]
    elif label is None:
        with pytest.raises(ValueError, match="`v` has values outside the mapping"):
            map_verdicts([value], name="v", source="s")
    else:
        assert map_verdicts([value], name="v", source="s").tolist() == [label]


@pytest.mark.parametrize("text", ["1.00", "01", "+1", "1e0", "0.00", "-0"])
def test_read_frame_refuses_numeric_text_that_binary_labels_refuses(text):
    # before, the readers read these by value (1.00 -> 1) while binary_labels refused them
    frame = pd.DataFrame({"verdict": [text, "0", "1"], "human": ["1", "0", None]})
    with pytest.raises(ValueError, match=r"`verdict` has values outside the mapping"):
        jc.JudgeData.from_frame(frame, judge="verdict", human="human", design="random")
