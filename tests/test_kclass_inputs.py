"""Input validation of the K-class layer: class names, item labels and weight vectors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from judgestats._validate import check_classes
from judgestats.kclass import KClassData
from judgestats.kclass.functionals import check_weights

CONFUSION = [[50, 4, 6], [5, 48, 7], [6, 5, 29]]


# -- check_classes --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("classes", "first", "second"),
    [((1, "1", 2), "1", "'1'"), (["a", 7, "7"], "7", "'7'"), (("x", np.str_("3"), 3), "'3'", "3")],
)
def test_classes_whose_names_read_the_same_are_rejected(classes, first, second):
    with pytest.raises(ValueError, match=rf"`classes` holds {first} and {second}, which both read"):
        check_classes(classes)
    with pytest.raises(ValueError, match="`classes` holds"):
        KClassData(classes, test=[420, 380, 200], confusion=CONFUSION)


def test_classes_accept_a_one_dimensional_array():
    assert check_classes(np.unique(np.array(["B", "A", "C", "A"]))) == ("A", "B", "C")
    got = check_classes(np.arange(1, 6))
    assert got == (1, 2, 3, 4, 5)
    assert all(type(c) is int for c in got)
    data = KClassData(np.array(["A", "B", "C"]), test=[420, 380, 200], confusion=CONFUSION)
    assert data.classes == ("A", "B", "C")
    assert all(type(c) is str for c in data.classes)


@pytest.mark.parametrize("classes", [{"A", "B"}, "AB", frozenset({1, 2}), {"A": 0, "B": 1}])
def test_classes_other_containers_still_raise_type_error(classes):
    with pytest.raises(TypeError, match=r"`classes` must be a list or tuple \(or a 1-D array\)"):
        check_classes(classes)


def test_classes_two_dimensional_array_raises():
    with pytest.raises(ValueError, match=r"`classes` must be one-dimensional.*\(1, 2\)"):
        check_classes(np.array([["A", "B"]]))


# -- labels in from_labels ------------------------------------------------------------------------
@pytest.mark.parametrize("convert", [list, np.array])
def test_boolean_labels_are_not_classes_zero_and_one(convert):
    with pytest.raises(ValueError, match=r"`test_judge` holds values that are not among the"):
        KClassData.from_labels(convert([True, False, True]), [0, 1], [0, 1], classes=[0, 1])
    with pytest.raises(ValueError, match=r"`calib_human` holds .*True \(1x\)"):
        KClassData.from_labels([0, 1], [np.True_, 0], [1, 0], classes=[0, 1])
    with pytest.raises(TypeError, match=r"`test_judge` holds a boolean \(True at position 0\)"):
        KClassData.from_labels(convert([True, False]), [0, 1], [0, 1])


# -- counts in the constructor --------------------------------------------------------------------
@pytest.mark.parametrize("flag", [True, False, np.True_])
def test_counts_mixing_booleans_with_numbers_are_refused(flag):
    # numpy reads [True, 1] as [1, 1]: a boolean among counts was silently the count 1 (or 0).
    with pytest.raises(
        TypeError, match=rf"`test` must hold real numbers, not booleans; got {flag}"
    ):
        KClassData(("A", "B"), test=[flag, 1], confusion=[[3, 1], [1, 3]])
    with pytest.raises(TypeError, match=r"`confusion` .* not booleans; got \w+ at index \(1, 0\)"):
        KClassData(("A", "B"), test=[2, 1], confusion=[[3, 1], [flag, 3]])
    with pytest.raises(TypeError, match=r"`confusion` .* not booleans"):
        KClassData(("A", "B"), test=[2, 1], confusion=[np.array([3, 1]), np.array([flag, True])])


def test_counts_of_numbers_only_are_still_accepted():
    data = KClassData(("A", "B"), test=(2.0, np.int64(1)), confusion=[[3, 1], (1, 3)])
    assert data.test.tolist() == [2, 1] and data.confusion.tolist() == [[3, 1], [1, 3]]


@pytest.mark.parametrize(
    "missing", [pd.NA, pd.NaT, None, float("nan"), np.nan, np.datetime64("NaT")]
)
@pytest.mark.parametrize("classes", [["A", "B"], None])
def test_missing_labels_are_reported_with_their_position(missing, classes):
    with pytest.raises(ValueError, match=r"`test_judge` has a missing value at position 1\."):
        KClassData.from_labels(["A", missing, "B"], ["A", "B"], ["A", "B"], classes=classes)
    with pytest.raises(ValueError, match=r"`calib_judge` has a missing value at position 0\."):
        KClassData.from_labels(["A", "B"], ["A", "B"], [missing, "B"], classes=classes)


def test_missing_in_a_nullable_integer_series():
    labels = pd.Series([1, None, 2], dtype="Int64")
    with pytest.raises(ValueError, match=r"`test_judge` has a missing value at position 1\."):
        KClassData.from_labels(labels, [1, 2], [1, 2], classes=[1, 2])


def test_whole_number_float_labels_become_integers():
    # test: 1.0, 2.0, 2.0 -> one item judged 1, two judged 2 (counted by hand)
    data = KClassData.from_labels(pd.Series([1.0, 2.0, 2.0]), [1, 2, 2], [1.0, np.float64(2.0), 1])
    assert data.classes == (1, 2)
    assert all(type(c) is int for c in data.classes)
    assert data.test.tolist() == [1, 2]
    # calibration pairs (1, 1), (2, 2), (2, 1): row 1 = [1, 0], row 2 = [1, 1]
    assert data.confusion.tolist() == [[1, 0], [1, 1]]
    declared = KClassData.from_labels(
        np.array([3.0, 1.0, 3.0]), [1, 2, 3], [1, 2, 3.0], classes=[1, 2, 3]
    )
    assert declared.test.tolist() == [1, 0, 2]
    assert np.diag(declared.confusion).tolist() == [1, 1, 1]


@pytest.mark.parametrize("bad", [2.5, np.float64(0.5), float("inf"), 1 + 2j])
@pytest.mark.parametrize("classes", [[1, 2, 3], None])
def test_non_integral_float_labels_raise_type_error(bad, classes):
    with pytest.raises(TypeError, match=r"`calib_human` labels must be strings or integers"):
        KClassData.from_labels([1, 2, 3], [1, bad], [1, 2], classes=classes)


@pytest.mark.parametrize("unordered", [{"A", "B"}, frozenset({"A", "B"}), {"A": 1, "B": 2}.keys()])
def test_unordered_labels_raise_type_error(unordered):
    with pytest.raises(TypeError, match=r"`test_judge` .*labels need an order"):
        KClassData.from_labels(unordered, ["A", "B"], ["A", "B"])
    with pytest.raises(TypeError, match=r"`calib_judge` .*labels need an order"):
        KClassData.from_labels(["A", "B"], ["A", "B"], unordered, classes=["A", "B"])


# -- check_weights --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "weights",
    [
        pd.Series([1.0, 0.5, 0.0]),
        pd.Series([0.0, 1, 0.5], index=["B", "A", "tie"]),  # labelled: read by class name
        np.array([1.0, 0.5, 0.0], dtype=np.float32),
        (1, 0.5, 0),
        pd.array([1.0, 0.5, 0.0], dtype="Float64"),
    ],
)
def test_weights_accept_one_dimensional_array_likes(weights):
    out = check_weights(("A", "tie", "B"), weights)
    assert out.tolist() == [1.0, 0.5, 0.0]
    assert out.dtype == np.float64


def test_weights_series_with_unknown_labels_names_them():
    with pytest.raises(ValueError, match=r"`weights` holds values that are not among the declared"):
        check_weights(("A", "tie", "B"), pd.Series([1, 0.5, 0], index=["x", "y", "z"]))


def test_weights_mapping_and_rejections_unchanged():
    assert check_weights(("A", "tie", "B"), {"A": 1.0, "tie": 0.5}).tolist() == [1.0, 0.5, 0.0]
    with pytest.raises(ValueError, match=r"`weights` must hold one weight per class \(3"):
        check_weights(("A", "tie", "B"), pd.Series([1.0, 0.0]))
    with pytest.raises(ValueError, match=r"`weights` must hold one weight per class.*\(1, 3\)"):
        check_weights(("A", "tie", "B"), pd.DataFrame([[1.0, 0.5, 0.0]]))
    for bad in ({1.0, 0.0, 0.5}, "abc", 1.0):
        with pytest.raises(TypeError, match="`weights` must be a sequence of one weight"):
            check_weights(("A", "tie", "B"), bad)
