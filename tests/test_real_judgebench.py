"""The JudgeBench real-data fixture and a smoke run of benchmarks/real_judgebench.py.

The fixture's numbers are recomputed here with the csv module only and compared with the values
read off the source (JudgeBench, commit e2c52c2; see tests/fixtures/judgebench/README.md): 350
pairs per judge, 193 gold "A>B", and each judge's JudgeBench score (pairs whose reduced verdict
equals the gold label).
"""

import csv
import math
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from _script_modules import load_benchmark

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "judgebench" / "judgebench_gpt4o_verdicts.csv"
COLUMNS = ["pair_id", "source", "judge", "decision_1", "decision_2", "verdict", "gold"]

# judge -> pairs whose verdict equals the gold label, of 350 (JudgeBench's score x 350; the paper
# reports 65.71, 59.43, 64.29, 62.29, 63.43, 59.43 for these judges on the GPT-4o pairs)
CORRECT = {
    "arena_hard:o1-mini-2024-09-12": 230,
    "reward_model:Ray2333_GRM-Gemma-2B-rewardmodel-ft": 208,
    "reward_model:Skywork_Skywork-Reward-Gemma-2-27B": 225,
    "reward_model:Skywork_Skywork-Reward-Llama-3.1-8B": 218,
    "reward_model:internlm_internlm2-20b-reward": 222,
    "reward_model:internlm_internlm2-7b-reward": 208,
}


@pytest.fixture(scope="module")
def rows():
    with FIXTURE.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        assert reader.fieldnames == COLUMNS
        return list(reader)


@pytest.fixture(scope="module")
def harness():
    return load_benchmark("real_judgebench")


def test_fixture_is_small():
    assert FIXTURE.stat().st_size < 400_000


def test_shape_and_pairs(rows):
    assert len(rows) == 6 * 350
    by_judge = defaultdict(list)
    for row in rows:
        by_judge[row["judge"]].append(row["pair_id"])
    assert set(by_judge) == set(CORRECT)
    pair_sets = {frozenset(ids) for ids in by_judge.values()}
    assert len(pair_sets) == 1  # every judge judges the same pairs
    for ids in by_judge.values():
        assert len(ids) == len(set(ids)) == 350


def test_gold_labels_agree_across_judges(rows):
    gold = {}
    for row in rows:
        assert row["gold"] in {"A>B", "B>A"}
        assert gold.setdefault(row["pair_id"], row["gold"]) == row["gold"]
    assert Counter(gold.values()) == {"A>B": 193, "B>A": 157}


def test_verdict_is_the_two_orderings_vote(rows):
    for row in rows:
        assert row["verdict"] in {"A>B", "B>A", "tie"}
        vote = 0
        for decision in (row["decision_1"], row["decision_2"]):
            vote += (decision == "A>B") - (decision == "B>A")
        expected = "A>B" if vote > 0 else "B>A" if vote < 0 else "tie"
        assert row["verdict"] == expected


def test_each_judges_accuracy(rows):
    correct = Counter(row["judge"] for row in rows if row["verdict"] == row["gold"])
    assert dict(correct) == CORRECT


def test_harness_reads_the_same_judges(rows, harness):
    judges = harness.load_fixture(FIXTURE)
    assert set(judges) == set(CORRECT)
    for judge, (z, z_hat) in judges.items():
        mine = [r for r in rows if r["judge"] == judge]
        positives = [r for r in mine if r["gold"] == "A>B"]
        negatives = [r for r in mine if r["gold"] == "B>A"]
        q1 = sum(r["verdict"] == "A>B" for r in positives) / len(positives)
        q0 = sum(r["verdict"] != "A>B" for r in negatives) / len(negatives)
        summary = harness.judge_summary(z, z_hat)
        assert summary["J"] == pytest.approx(q0 + q1 - 1, abs=1e-12)
        assert int(z.sum()) == 193


def test_split_counts_add_up(harness):
    z, z_hat = harness.load_fixture(FIXTURE)["arena_hard:o1-mini-2024-09-12"]
    mask = harness.labelled_mask(z.size, 60, 3, 7)
    assert mask.sum() == 60
    assert (mask == harness.labelled_mask(z.size, 60, 3, 7)).all()  # seeded
    c = harness.counts(z, z_hat, mask)
    assert c["n"] == 290 and c["m0"] + c["m1"] == 60
    assert c["m1"] == int(z[mask].sum())
    assert c["k"] + int(z_hat[mask].sum()) == int(z_hat.sum())
    assert c["k1"] + (c["m0"] - c["k0"]) == int(z_hat[mask].sum())


def test_finite_population_interval(harness):
    # the whole population labelled: the share itself; a sample: inside the binomial interval
    assert harness.finite_population_exact(193, 350, 350)[1:] == (193 / 350, 193 / 350)
    _, low_fp, high_fp = harness.finite_population_exact(33, 60, 350)
    _, low, high = harness.clopper_pearson(33, 60)
    assert low <= low_fp < 33 / 60 < high_fp <= high + 1 / 350


def test_harness_smoke(harness):
    z, z_hat = harness.load_fixture(FIXTURE)["arena_hard:o1-mini-2024-09-12"]
    cell = harness.run_cell(z, z_hat, size=60, splits=5, seed=1)
    assert cell["theta"] == pytest.approx(193 / 350)
    methods = cell["methods"]
    for name in ("labels_only_cp", "labels_only_cp_fp", "ppi_pp", "lang_reiczigel", "recommended"):
        assert name in methods
        assert methods[name]["splits"] == 5
        assert 0.0 <= methods[name]["coverage"] <= 1.0
        width = methods[name]["mean_width"]
        assert width is None or 0.0 <= width <= 1.0
    assert math.isclose(
        methods["labels_only_cp"]["error_share"] + methods["ppi_pp"]["error_share"], 0.0
    )
    assert sum(cell["picks"]["recommended"].values()) + methods["recommended"]["errors"] == 5
    assert set(cell["done_when"]["recommended"]) >= {"covers", "narrower_than_exact", "near_ppi"}
    assert (
        "real-data check"
        in harness.markdown(
            {
                "cells": [{"judge": "j:x", "M": 60, "J": 0.5, **cell}],
                "config": {
                    "splits": 5,
                    "random_seed": 1,
                    "judgestats_version": "x",
                    "ppi_python_version": "x",
                },
                "capabilities": harness.capabilities(),
            }
        ).lower()
    )


def test_items_target_intervals_and_errors_are_scored(harness):
    # the items-target functions may not exist yet: a stand-in returns what they will return
    z, z_hat = harness.load_fixture(FIXTURE)["arena_hard:o1-mini-2024-09-12"]
    calls = []

    def fake(data, caps, seed):
        calls.append(data.n)
        theta = 193 / 350
        return {
            "lang_reiczigel": ValueError("no closed form"),
            "recommended": (theta, 0.0, 1.0),
            "recommended:method": "guaranteed",
            "recommended_items": (theta, theta - 0.05, theta + 0.05),
            "recommended_items:method": "posterior_eti",
            "items:posterior_hdi": (theta, float("nan"), float("nan")),
        }

    caps = {"crosscheck_target": True, "random_design_candidates": True}
    cell = harness.run_cell(z, z_hat, size=30, splits=3, seed=2, caps=caps, compute=fake)
    assert calls == [320, 320, 320]
    methods = cell["methods"]
    assert methods["lang_reiczigel"]["coverage"] == 0.0  # an error is a miss
    assert methods["lang_reiczigel"]["error_share"] == 1.0
    assert methods["lang_reiczigel"]["mean_width"] is None
    assert methods["items:posterior_hdi"]["errors"] == 3  # NaN ends: no interval
    assert methods["recommended_items"]["coverage"] == 1.0
    assert methods["recommended_items"]["mean_width"] == pytest.approx(0.1)
    assert cell["picks"] == {
        "recommended": {"guaranteed": 3},
        "recommended_items": {"posterior_eti": 3},
    }
    items = cell["done_when"]["recommended_items"]
    assert items["exact"] == "labels_only_cp_fp" and items["narrower_than_exact"] is True
    assert cell["done_when"]["recommended"]["narrower_than_exact"] is False
