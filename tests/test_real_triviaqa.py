"""The TriviaQA real-data fixture (UMass-Meta-LLM-Eval/llm_eval) and its loader in real_data.py.

The expected counts are typed in from tests/fixtures/triviaqa/README.md (tallied from the source
CSV when the fixture was made); the fixture is read here with pandas, independently of the
benchmark's loader, whose arrays are then compared with the same counts.
"""

from pathlib import Path

import pandas as pd
import pytest
from _real_fixtures import check_confusion, check_loaded_rates, real_data_module

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "triviaqa" / "triviaqa_verdicts.csv"

N_ITEMS, N_QUESTIONS, N_POSITIVE = 3200, 400, 2039
EXAM_TAKERS = (
    "gpt-4t",
    "llama2-7b-base",
    "llama2-7b-chat",
    "llama2-13b-base",
    "llama2-13b-chat",
    "llama2-70b-base",
    "llama2-70b-chat",
    "mistral-7b-chat",
)
# judge -> (TP, FN, TN, FP), the README's table
CONFUSION = {
    "Gemma-2B": (1848, 191, 158, 1003),
    "JudgeLM": (582, 1457, 1084, 77),
    "Llama-7B": (2008, 31, 504, 657),
    "Llama3-8B": (2030, 9, 642, 519),
    "Mistral-7B": (2021, 18, 706, 455),
    "Llama-70B": (2029, 10, 736, 425),
    "Llama-13B": (1982, 57, 826, 335),
    "Llama3-70B": (2005, 34, 1016, 145),
    "GPT-4": (1945, 94, 1095, 66),
}
# judge -> (q0, q1, J), the README's table (three decimals)
RATES = {
    "Gemma-2B": (0.136, 0.906, 0.042),
    "JudgeLM": (0.934, 0.285, 0.219),
    "Llama-7B": (0.434, 0.985, 0.419),
    "Llama3-8B": (0.553, 0.996, 0.549),
    "Mistral-7B": (0.608, 0.991, 0.599),
    "Llama-70B": (0.634, 0.995, 0.629),
    "Llama-13B": (0.711, 0.972, 0.684),
    "Llama3-70B": (0.875, 0.983, 0.858),
    "GPT-4": (0.943, 0.954, 0.897),
}


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return pd.read_csv(FIXTURE, dtype=str, keep_default_na=False)


def test_fixture_is_small_with_the_readme_counts(frame):
    assert FIXTURE.stat().st_size < 200_000
    assert sorted(frame.columns[4:]) == sorted(CONFUSION)
    assert list(frame.columns[:4]) == ["item", "exam_taker", "question", "gold"]
    assert len(frame) == N_ITEMS
    assert frame["item"].nunique() == N_ITEMS
    assert not frame["item"].astype(int).between(801, 1200).any()  # the unjudged gpt-4t block
    assert frame["exam_taker"].value_counts().to_dict() == dict.fromkeys(EXAM_TAKERS, 400)
    assert frame["question"].astype(int).agg(["min", "max", "nunique"]).tolist() == [1, 400, 400]
    assert not frame.duplicated(["exam_taker", "question"]).any()
    assert (frame["gold"] == "1").sum() == N_POSITIVE
    for column in ["gold", *CONFUSION]:
        assert set(frame[column]) == {"0", "1"}


def test_confusion_counts_match_the_readme(frame):
    check_confusion(frame, CONFUSION)


def test_real_data_loads_the_dataset_with_the_readme_rates():
    module = real_data_module()
    assert "triviaqa" in module.DATASETS
    judges = module.load_dataset("triviaqa")
    strong = [j for j, (z, z_hat) in judges.items() if module.judge_summary(z, z_hat)["J"] >= 0.8]
    assert sorted(strong) == ["GPT-4", "Llama3-70B"]
    check_loaded_rates(judges, module, CONFUSION, RATES, N_ITEMS, N_POSITIVE)
