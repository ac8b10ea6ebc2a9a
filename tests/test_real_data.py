"""The LLMBar real-data fixture and benchmarks/real_data.py on two splits.

The fixture is read here with the csv module only, and its counts are compared with numbers read
off the source (princeton-nlp/LLMBar @ 900616b; tests/fixtures/llmbar/README.md): each set's
size (its ``dataset.json``), and LLMBar's own ``statistics.json`` for three evaluators, whose
``correct_False`` / ``correct_True`` are the items whose winner on the original / swapped order
equals the gold label. The gold and confusion counts of the binary framing were tallied from the
raw ``result.json`` files when the fixture was made (not from the fixture).
"""

import csv
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from _real_fixtures import real_data_module

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "llmbar" / "llmbar_verdicts.csv"

SET_SIZES = {
    "LLMBar/Natural": 100,
    "LLMBar/Adversarial/Neighbor": 134,
    "LLMBar/Adversarial/GPTInst": 92,
    "LLMBar/Adversarial/GPTOut": 47,
    "LLMBar/Adversarial/Manual": 46,
    "Processed/FairEval": 66,
    "Processed/LLMEval^2": 200,
    "Processed/MT-Bench": 200,
}
# (set, evaluator) -> (correct_False, correct_True) from LLMBar's statistics.json
STATISTICS = {
    ("LLMBar/Natural", "GPT-4/Vanilla_NoRules"): (92, 95),
    ("LLMBar/Natural", "GPT-4/Rating_Metrics_Reference"): (94, 94),
    ("LLMBar/Natural", "ChatGPT/Vanilla_NoRules"): (79, 79),
    ("LLMBar/Adversarial/Neighbor", "GPT-4/Vanilla_NoRules"): (87, 85),
    ("LLMBar/Adversarial/Neighbor", "GPT-4/Rating_Metrics_Reference"): (115, 113),
    ("LLMBar/Adversarial/Neighbor", "ChatGPT/Vanilla_NoRules"): (25, 23),
    ("Processed/MT-Bench", "GPT-4/Vanilla_NoRules"): (159, 165),
    ("Processed/MT-Bench", "ChatGPT/Vanilla_NoRules"): (140, 145),
}


@pytest.fixture(scope="module")
def rows():
    with FIXTURE.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def bench():
    return real_data_module()


def test_fixture_is_small_and_has_every_set(rows):
    assert FIXTURE.stat().st_size < 250_000
    assert Counter(row["set"] for row in rows) == SET_SIZES
    assert len({row["item_id"] for row in rows}) == 885
    assert len(rows[0]) - 3 == 65  # item_id, set, gold + 65 evaluators


def test_cells_agree_with_llmbar_statistics(rows):
    for (item_set, judge), (first, second) in STATISTICS.items():
        mine = [row for row in rows if row["set"] == item_set]
        assert sum(row[judge][0] == row["gold"] for row in mine) == first
        assert sum(row[judge][1] == row["gold"] for row in mine) == second


def test_cells_are_two_verdicts_or_empty(rows):
    for row in rows:
        assert row["gold"] in {"1", "2"}
        for name, cell in row.items():
            if name not in {"item_id", "set", "gold"}:
                assert cell == "" or (len(cell) == 2 and set(cell) <= {"1", "2", "-"})


def test_loader_counts(bench):
    judges = bench.load_llmbar(FIXTURE, ("LLMBar/",))
    assert len(judges) == 65  # every evaluator judged all 419 LLMBar items
    z, z_hat = judges["GPT-4/Rating_Metrics_Reference"]
    assert (z.size, int(z.sum())) == (419, 206)
    assert int((z & z_hat).sum()) == 167  # q1 = 167 / 206
    assert int(((1 - z) & (1 - z_hat)).sum()) == 198  # q0 = 198 / 213
    human = bench.load_llmbar(FIXTURE, ("Processed/",))
    assert len(human) == 8
    z, _ = human["GPT-4/Vanilla_NoRules"]
    assert (z.size, int(z.sum())) == (466, 234)
    with pytest.raises(ValueError, match="`sets`"):
        bench.load_llmbar(FIXTURE, ("Nowhere/",))


def test_cell_on_two_splits(bench):
    z, z_hat = bench.load_llmbar(FIXTURE, ("LLMBar/",))["GPT-4/CoT"]
    cell = bench.run_cell(z, z_hat, 30, 2, 7, verify=2)
    assert cell["theta"] == pytest.approx(206 / 419)
    for method in cell["methods"].values():
        assert method["coverage"] in (0.0, 0.5, 1.0)
        assert not method["errors"]
    check = cell["verification"]
    assert check["compared"] + check["fallback_to_crosscheck"] == 4  # 2 splits x 2 targets
    assert check["identical"] == check["compared"] and not check["mismatches"]
    for target in ("population", "items"):
        assert sum(cell["picks"][target].values()) == 2
    # the same labelled items for every judge: the labels-only intervals do not depend on it
    other = bench.load_llmbar(FIXTURE, ("LLMBar/",))["Falcon/Swap_CoT"]
    again = bench.run_cell(*other, 30, 2, 7, verify=0)
    for name in ("cp", "cp_fp"):
        assert again["methods"][name] == cell["methods"][name]
    mask = bench.labelled_mask(419, 30, 0, 7)
    assert mask.sum() == 30 and np.array_equal(mask, bench.labelled_mask(419, 30, 0, 7))
