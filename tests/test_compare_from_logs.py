"""judgestats.comparison.models_from_items: two models from their items and one label table.

Every expected number is counted by hand from the tiny tables written out below.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from judgestats import JudgeData, JudgeStatsWarning, ModelLabels, compare
from judgestats.comparison import ModelsFromItems, models_from_items

IDS = [f"q{i}" for i in range(1, 9)]
JUDGE_A = [1, 0, 1, 1, 0, 1, 0, 1]
JUDGE_B = [0, 0, 1, 1, 1, 1, 0, 0]


def _items(judge, ids=IDS, source=None):
    frame = pd.DataFrame({"id": ids, "judge": judge, "human": np.nan})
    if source is not None:
        frame.attrs["source"] = source
    return frame


# model A's answers to q1..q3 and model B's answers to q4, q5 are labelled; q6 is labelled for a
# third model C (ignored)
LABELS = pd.DataFrame(
    {
        "id": ["q1", "q2", "q3", "q4", "q5", "q6"],
        "model": ["A", "A", "A", "B", "B", "C"],
        "human": [1, 0, 0, 1, 0, 1],
    }
)


def test_labels_per_model_pair_the_unlabelled_items_by_id():
    models = models_from_items(
        _items(JUDGE_A, source="a.eval"),
        _items(JUDGE_B, source="b.eval"),
        human=LABELS,
        model_column="model",
    )
    assert isinstance(models, ModelsFromItems)
    assert models.calibration == "model_specific" and models.paired
    assert models.sources == ("a.eval", "b.eval")
    assert models.model_names == ("A", "B") and models.label_rows == (3, 2, 1)
    # test items: unlabelled for both models: q6, q7, q8; labelled: q1..q5
    assert models.calibration_items == 5
    assert models.a.test_judge.tolist() == [1, 0, 1]
    assert models.b.test_judge.tolist() == [1, 0, 0]
    # A: q1 (human 1, judge 1), q2 (0, 0), q3 (0, 1) -> k0 = 1 of m0 = 2, k1 = 1 of m1 = 1
    assert models.a.calibration_counts() == (1, 2, 1, 1)
    # B: q4 (1, 1), q5 (0, 1) -> k0 = 0 of m0 = 1, k1 = 1 of m1 = 1
    assert models.b.calibration_counts() == (0, 1, 1, 1)


def test_labels_of_model_a_only_imply_shared_calibration():
    human = LABELS[LABELS["model"] == "A"].drop(columns="model")
    models = models_from_items(_items(JUDGE_A), _items(JUDGE_B), human=human)
    assert models.calibration == "shared" and models.calibration_note.startswith("implied")
    assert models.sources == ("model A", "model B") and models.model_names is None
    assert models.calibration_items == 3  # q1..q3 are A's calibration, q4..q8 the test items
    assert models.a.test_judge.tolist() == JUDGE_A[3:]
    assert models.b.test_judge.tolist() == JUDGE_B[3:] and not models.b.has_calibration
    with pytest.warns(JudgeStatsWarning, match="judge quality is low"):  # 3 labels only
        result = compare(models.a, models.b, calibration=models.calibration)
    assert result.to_dict()["calibration"] == "shared"


def test_disjoint_ids_give_independent_counts():
    human = LABELS[LABELS["model"] == "A"].drop(columns="model")
    items_b = _items([1, 1, 0, 1], ids=["r1", "r2", "r3", "r4"])
    models = models_from_items(_items(JUDGE_A), items_b, human=human)
    assert not models.paired and models.calibration == "shared"
    assert isinstance(models.a, JudgeData) and isinstance(models.b, JudgeData)
    # A: q4..q8 unlabelled, judged 1, 0, 1, 0, 1 -> k = 3 of n = 5; calibration (1, 2, 1, 1)
    assert (models.a.k, models.a.n, models.a.k0, models.a.m0, models.a.k1, models.a.m1) == (
        3, 5, 1, 2, 1, 1,
    )  # fmt: skip
    # B has no labels: its 4 items with A's calibration
    assert (models.b.k, models.b.n, models.b.k0, models.b.m0) == (3, 4, 1, 2)
    unpaired = models_from_items(_items(JUDGE_A), _items(JUDGE_B), human=human, paired=False)
    assert not unpaired.paired and (unpaired.b.k, unpaired.b.n) == (sum(JUDGE_B), 8)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"items_a": [1, 0]}, TypeError, "`items_a` must be a pandas DataFrame"),
        ({"paired": "yes"}, TypeError, "`paired` must be True or False"),
        ({"calibration": "both"}, ValueError, "calibration"),
        ({"human": None, "model_column": "model"}, ValueError, "give `human`"),
        ({"model_column": "who"}, ValueError, r"no column 'who' \(`model_column`\)"),
        ({"model_column": "model", "name_a": "B"}, ValueError, "both models are named 'B'"),
        ({"model_column": "model", "name_b": "D"}, ValueError, r"model B \('D'\)"),
        ({"human": None}, ValueError, "no labels for model A"),
        (
            {"human": LABELS[LABELS["model"] == "A"], "calibration": "model_specific"},
            ValueError,
            "no labels for model B, so `calibration` 'model_specific'",
        ),
    ],
)
def test_errors_name_the_argument(kwargs, error, match):
    arguments = {"items_a": _items(JUDGE_A), "items_b": _items(JUDGE_B), "human": LABELS}
    arguments |= kwargs
    items_a, items_b = arguments.pop("items_a"), arguments.pop("items_b")
    with pytest.raises(error, match=match):
        models_from_items(items_a, items_b, **arguments)


def test_paired_ids_must_match_and_leave_test_items():
    human = LABELS[LABELS["model"] == "A"].drop(columns="model")
    with pytest.raises(ValueError, match=r"id sets differ.*`paired=False`"):
        models_from_items(_items(JUDGE_A), _items(JUDGE_B[:7], ids=IDS[:7]), human=human)
    everything = pd.DataFrame({"id": IDS, "human": [1, 0] * 4})
    with pytest.raises(ValueError, match="no test items are left"):
        models_from_items(_items(JUDGE_A), _items(JUDGE_B), human=everything)
    one_class = pd.DataFrame({"id": ["q1", "q2"], "human": [1, 1]})
    with pytest.raises(ValueError, match="hold no truly incorrect"):
        models_from_items(_items(JUDGE_A), _items(JUDGE_B), human=one_class)


def test_model_labels_type():
    models = models_from_items(_items(JUDGE_A), _items(JUDGE_B), human=LABELS, model_column="model")
    assert isinstance(models.a, ModelLabels)
