"""Stratified calibration: the data constructors and derived quantities, and the errors (they name
the argument; inputs are untouched).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from _stratified_data import THREE, counts, quiet

import judgestats as jc
from judgestats.stratified import (
    StratifiedData,
    pooled_bias,
    stratified_estimate,
)


# ---------------------------------------------------------------------------------------------
# data: constructors and derived quantities
# ---------------------------------------------------------------------------------------------
def test_data_derived_quantities():
    data = StratifiedData.from_counts(THREE)
    assert data.strata == ("A", "B", "C") and data.size == len(data) == 3 and data.total == 1000
    assert data.pooled() == jc.JudgeData(595, 1000, 180, 230, 220, 250)
    assert data.stratum("B") == jc.JudgeData(180, 300, 60, 80, 95, 100)
    assert data.to_dict() == {
        "strata": ["A", "B", "C"],
        **{name: [THREE[s][name] for s in "ABC"] for name in ("k", "n", "k0", "m0", "k1", "m1")},
    }
    assert StratifiedData(**data.to_dict()) == data
    assert hash(StratifiedData(**data.to_dict())) == hash(data)
    for name in ("k", "n", "k0", "m0", "k1", "m1"):
        assert getattr(data, name).dtype == np.int64
    with pytest.raises(KeyError, match="`name`"):
        data.stratum("D")


def test_from_counts_accepts_judge_data_and_dicts():
    table = {"A": jc.JudgeData(**THREE["A"]), "B": THREE["B"]}
    data = StratifiedData.from_counts(table)
    assert data.stratum("A") == table["A"] and data.k.tolist() == [275, 180]


def items_frame() -> pd.DataFrame:
    """Stratum 'x': 3 test items (2 judged correct), calibration 0: (h0, j0), (h0, j1),
    1: (h1, j1); stratum 'y': 2 test items (0 correct), calibration (h0, j0), (h1, j0), (h1, j1)."""
    rows = [
        ("y", 0, None), ("x", 1, None), ("x", 1, None), ("x", 0, None), ("y", 0, None),
        ("x", 0, 0), ("x", 1, 0), ("x", 1, 1), ("y", 0, 0), ("y", 0, 1), ("y", 1, 1),
    ]  # fmt: skip
    frame = pd.DataFrame(
        {
            "id": [f"i{i}" for i in range(len(rows))],
            "judge": pd.array([r[1] for r in rows], dtype="Int64"),
            "human": pd.array([r[2] for r in rows], dtype="Int64"),
            "task": [r[0] for r in rows],
        }
    )
    frame.attrs["source"] = "items.csv"
    return frame


def test_from_items_counts_each_stratum():
    frame = items_frame()
    before = frame.copy()
    data = StratifiedData.from_items(frame, by="task")
    assert data.strata == ("y", "x")  # order of first appearance
    assert data.to_dict() == {
        "strata": ["y", "x"],
        "k": [0, 2], "n": [2, 3], "k0": [1, 1], "m0": [1, 2], "k1": [1, 1], "m1": [2, 1],
    }  # fmt: skip
    pd.testing.assert_frame_equal(frame, before)


def test_from_items_errors_name_the_argument_and_stratum():
    frame = items_frame()
    with pytest.raises(ValueError, match="`by`"):
        StratifiedData.from_items(frame, by="model")
    with pytest.raises(ValueError, match="`by`"):
        StratifiedData.from_items(frame, by="human")
    with pytest.raises(TypeError, match="`by`"):
        StratifiedData.from_items(frame, by=["task"])
    with pytest.raises(TypeError, match="`items`"):
        StratifiedData.from_items({"id": []}, by="task")
    no_stratum = frame.astype({"task": object})
    no_stratum.loc[3, "task"] = None
    with pytest.raises(ValueError, match="`by`"):
        StratifiedData.from_items(no_stratum, by="task")
    only_labelled = frame[frame["human"].notna() | (frame["task"] == "x")]
    with pytest.raises(ValueError, match=r"`n` \(0\).*stratum 'y'"):
        StratifiedData.from_items(only_labelled, by="task")


# ---------------------------------------------------------------------------------------------
# errors name the argument; inputs are untouched
# ---------------------------------------------------------------------------------------------
GOOD = {"strata": ("a", "b"), **counts([5, 6], [10, 10], [8, 7], [10, 10], [9, 9], [10, 10])}


@pytest.mark.parametrize(
    ("change", "error", "pattern"),
    [
        ({"strata": ()}, ValueError, "`strata`"),
        ({"strata": ("a", "a")}, ValueError, "`strata`.*'a' twice"),
        ({"strata": ("a", "")}, ValueError, "`strata`"),
        ({"strata": "ab"}, TypeError, "`strata`"),
        ({"strata": ("a", 2)}, TypeError, "`strata`"),
        ({"strata": None}, TypeError, "`strata`"),
        ({"k": [5, 6, 7]}, ValueError, "`k` has 3 counts"),
        ({"m1": [10]}, ValueError, "`m1` has 1 counts"),
        ({"n": [[10, 10]]}, ValueError, "`n` must be a 1-D"),
        ({"m0": [10, 0], "k0": [8, 0]}, ValueError, r"`m0` \(0\).*stratum 'b'"),
        ({"m1": [0, 10], "k1": [0, 9]}, ValueError, r"`m1` \(0\).*stratum 'a'"),
        ({"n": [0, 10], "k": [0, 6]}, ValueError, r"`n` \(0\).*stratum 'a'"),
        ({"k": [11, 6]}, ValueError, r"`k` \(11\) must not exceed `n`.*stratum 'a'"),
        ({"k1": [9, 12]}, ValueError, r"`k1` \(12\).*stratum 'b'"),
        ({"k0": [-1, 7]}, ValueError, "`k0`.*stratum 'a'"),
        ({"k": [5.5, 6]}, ValueError, "`k`.*whole"),
        ({"k": ["5", "6"]}, TypeError, "`k`"),
        ({"n": [True, True]}, TypeError, "`n`"),
        ({"m0": None}, TypeError, "`m0`"),
    ],
)
def test_invalid_data_raises_naming_the_argument(change, error, pattern):
    with pytest.raises(error, match=pattern):
        StratifiedData(**{**GOOD, **change})


def test_from_counts_errors():
    with pytest.raises(ValueError, match="`counts`"):
        StratifiedData.from_counts({})
    with pytest.raises(TypeError, match="`counts`"):
        StratifiedData.from_counts([("a", THREE["A"])])
    with pytest.raises(TypeError, match="`counts`"):
        StratifiedData.from_counts({"a": (1, 2, 3, 4, 5, 6)})
    with pytest.raises(ValueError, match="`counts`.*missing \\['m1'\\]"):
        StratifiedData.from_counts({"a": {k: v for k, v in THREE["A"].items() if k != "m1"}})
    with pytest.raises(ValueError, match="`counts`.*design"):
        StratifiedData.from_counts({"a": jc.JudgeData(5, 10, 0, 0, 3, 4, design="random")})
    with pytest.raises(TypeError, match="`k`"):
        StratifiedData.from_counts({"a": {**THREE["A"], "k": True}})


def test_judge_no_better_than_chance_in_a_stratum():
    # stratum 'b': q0 = .4, q1 = .5, J = -.1
    bad = StratifiedData(**{**GOOD, "k0": [8, 4], "k1": [9, 5]})
    with pytest.raises(ValueError, match="`data`: stratum 'b'.*no better than chance"):
        stratified_estimate(bad)
    with pytest.raises(ValueError, match="stratum 'b'"):
        pooled_bias(bad)
    # stratum 'a': q0 = 1/1, q1 = 1/10, J = .1 > 0, but q0~ + q1~ - 1 = 2/3 + 1/6 - 1 < 0
    smoothed = StratifiedData(**{**GOOD, "k0": [1, 7], "m0": [1, 10], "k1": [1, 9]})
    with pytest.raises(ValueError, match="`data`: stratum 'a'.*Laplace"):
        quiet(stratified_estimate, smoothed)


def test_pooled_judge_without_a_correction_gives_a_nan_row():
    # each stratum's judge is better than chance (J = .05), but the calibration measures q0
    # mostly where it is low and q1 mostly where it is low: pooled q0 + q1 - 1 < 0
    data = StratifiedData.from_counts(
        {
            "a": counts(50, 100, 99, 100, 60, 1000),  # q0 = .99, q1 = .06, J = .05
            "b": counts(50, 100, 60, 1000, 99, 100),  # q0 = .06, q1 = .99, J = .05
        }
    )  # pooled q0 = q1 = (99 + 60) / 1100 = .1445: J < 0
    result = quiet(stratified_estimate, data)
    assert math.isnan(result.pooled.estimate) and result.pooled.flags == ("no_better_than_chance",)
    assert math.isnan(result.diagnostic.bias) and "pooled_biased" not in result.flags
    assert not math.isnan(result.theta)


def test_estimate_argument_errors():
    data = StratifiedData.from_counts(THREE)
    with pytest.raises(TypeError, match="`data`"):
        stratified_estimate(jc.JudgeData(**THREE["A"]))
    with pytest.raises(TypeError, match="`data`"):
        pooled_bias(THREE)
    with pytest.raises(ValueError, match="`confidence_level`"):
        stratified_estimate(data, confidence_level=1.5)
    with pytest.raises(TypeError, match="`confidence_level`"):
        stratified_estimate(data, confidence_level="0.95")


def test_inputs_are_untouched_and_fields_read_only():
    arrays = {name: np.array(value) for name, value in GOOD.items() if name != "strata"}
    copies = {name: value.copy() for name, value in arrays.items()}
    strata = ["a", "b"]
    data = StratifiedData(strata, **arrays)
    assert strata == ["a", "b"] and data.strata == ("a", "b")
    for name, value in arrays.items():
        np.testing.assert_array_equal(value, copies[name])
        assert value.flags.writeable
        assert not np.shares_memory(value, getattr(data, name))
        with pytest.raises(ValueError, match="read-only"):
            getattr(data, name)[0] = 1
    table = {"A": dict(THREE["A"])}
    StratifiedData.from_counts(table)
    assert table == {"A": THREE["A"]}
